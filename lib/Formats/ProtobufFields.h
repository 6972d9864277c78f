//===- ProtobufFields.h - The fields of a protobuf message (internal) -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A reader of protobuf's wire format (protobuf.dev/programming-guides/
// encoding) for the formats that use it (ONNX models, SentencePiece
// models): the fields of one message in order, each with its number, wire
// type, value or payload range, read with protobuf-lite's
// CodedInputStream. Every length is checked against the message it lies
// in before anything is read from it; groups (wire types 3 and 4, which
// neither format uses) are an error. Private to lib/Formats.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_FORMATS_PROTOBUFFIELDS_H
#define VMPACK_LIB_FORMATS_PROTOBUFFIELDS_H

#include "vmpack/Archive/Status.h"

#include <google/protobuf/io/coded_stream.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace vmpack::formats::protobuf {

using archive::Status;
using archive::StatusOr;

namespace wire {
constexpr uint32_t kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5;
} // namespace wire

/// One field of a message: its number and wire type, its value (varint and
/// fixed wire types) or payload (length-delimited), and where the whole
/// field, tag included, lies in the buffer.
struct Field {
  uint32_t number = 0, wireType = 0;
  uint64_t value = 0;
  uint64_t offset = 0, length = 0;
  uint64_t fieldBegin = 0, fieldEnd = 0;
};

/// The fields of the message at [begin, end) of `base`, in order. The
/// message must be shorter than 2 GiB (CodedInputStream's limit); callers
/// check that first.
class Fields {
public:
  Fields(const uint8_t *base, uint64_t begin, uint64_t end)
      : base(base), begin(begin), size(end - begin),
        in(base + begin, int(end - begin)) {}

  /// False at the end of the message; an error for a malformed field.
  StatusOr<bool> next(Field &f) {
    using namespace wire;
    f.fieldBegin = begin + uint64_t(in.CurrentPosition());
    uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (uint64_t(in.CurrentPosition()) == size &&
          f.fieldBegin == begin + size)
        return false;
      return error("a malformed field tag");
    }
    f.number = tag >> 3;
    f.wireType = tag & 7;
    f.value = 0;
    f.length = 0;
    switch (f.wireType) {
    case kVarint:
      if (!in.ReadVarint64(&f.value))
        return error("a truncated varint");
      break;
    case kFixed64:
      if (!in.ReadLittleEndian64(&f.value))
        return error("a truncated 64-bit field");
      break;
    case kFixed32: {
      uint32_t v = 0;
      if (!in.ReadLittleEndian32(&v))
        return error("a truncated 32-bit field");
      f.value = v;
    } break;
    case kLen: {
      uint64_t n = 0;
      if (!in.ReadVarint64(&n))
        return error("a truncated length");
      uint64_t at = uint64_t(in.CurrentPosition());
      if (n > size - at)
        return error("field " + std::to_string(f.number) + " of " +
                     std::to_string(n) + " bytes runs past the end of its " +
                     "message (" + std::to_string(size - at) + " bytes left)");
      f.offset = begin + at;
      f.length = n;
      if (!in.Skip(int(n)))
        return error("a truncated field");
    } break;
    default:
      return error("field " + std::to_string(f.number) + " has wire type " +
                   std::to_string(f.wireType) +
                   " (a group, which this format does not use)");
    }
    f.fieldEnd = begin + uint64_t(in.CurrentPosition());
    return true;
  }

private:
  Status error(const std::string &what) const {
    return Status::formatError(
        what + " at byte " +
        std::to_string(begin + uint64_t(in.CurrentPosition())));
  }
  const uint8_t *base;
  uint64_t begin, size;
  google::protobuf::io::CodedInputStream in;
};

/// Calls `each(f)`, which returns a Status, for every field of the message
/// at [begin, end) of `base`, in order, and returns the first error it
/// returns; a malformed field is the reader's Format error with `context`
/// before it.
template <typename Each>
Status forEachField(const uint8_t *base, uint64_t begin, uint64_t end,
                    const std::string &context, Each each) {
  Fields fields(base, begin, end);
  Field f;
  while (true) {
    StatusOr<bool> more = fields.next(f);
    if (!more)
      return more.status().withContext(context);
    if (!*more)
      return Status::ok();
    if (Status s = each(f); !s)
      return s;
  }
}

/// The payload of a length-delimited field.
inline std::string_view bytesOf(const uint8_t *base, const Field &f) {
  return std::string_view(reinterpret_cast<const char *>(base + f.offset),
                          size_t(f.length));
}

} // namespace vmpack::formats::protobuf

#endif // VMPACK_LIB_FORMATS_PROTOBUFFIELDS_H
