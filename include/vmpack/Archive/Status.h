//===- Status.h - Errors without exceptions -------------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The archive layer reports failures as values: a Status is "ok" or carries a
// message that says what went wrong, where, and (when it helps) what to do,
// and a StatusCode that says what kind of failure it is. StatusOr<T> is a T
// or a failed Status. Neither throws; both are [[nodiscard]].
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_STATUS_H
#define VMPACK_ARCHIVE_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace vmpack::archive {

/// What kind of failure a Status reports, as `iree_status_code_t` does for
/// IREE. The values equal the C API's `vmpack_status_t` ones (Runtime.cpp
/// static_asserts it), so the C API maps a code by value, in one place.
enum class StatusCode : int {
  Ok = 0,
  InvalidArgument = 1, ///< the caller's mistake: a bad option, name, buffer
  Io = 2,              ///< the operating system refused: open, read, write
  Format = 3,          ///< the input is not a valid file of its format
  Checksum = 4,        ///< stored bytes do not match their checksum
  NotFound = 5,        ///< no such name
  OutOfRange = 6,      ///< an index or range beyond what exists
  Unsupported = 7,     ///< valid, but beyond what this build handles
  BufferTooSmall = 8,  ///< the caller's buffer cannot hold the result
  OutOfMemory = 9,     ///< an allocation failed
  Internal = 10,       ///< a broken invariant of vmpack itself
};

/// A fixed name for a code ("format", "io", ...), for messages and tests.
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  static Status ok() { return Status(); }
  /// `code` must not be StatusCode::Ok.
  static Status error(StatusCode code, std::string msg) {
    assert(code != StatusCode::Ok && "an error needs an error code");
    Status s;
    s.statusCode = code == StatusCode::Ok ? StatusCode::Internal : code;
    s.msg = std::move(msg);
    return s;
  }
  static Status invalidArgument(std::string msg) {
    return error(StatusCode::InvalidArgument, std::move(msg));
  }
  static Status ioError(std::string msg) {
    return error(StatusCode::Io, std::move(msg));
  }
  static Status formatError(std::string msg) {
    return error(StatusCode::Format, std::move(msg));
  }
  static Status checksumError(std::string msg) {
    return error(StatusCode::Checksum, std::move(msg));
  }
  static Status unsupported(std::string msg) {
    return error(StatusCode::Unsupported, std::move(msg));
  }
  static Status outOfMemory(std::string msg) {
    return error(StatusCode::OutOfMemory, std::move(msg));
  }
  static Status internalError(std::string msg) {
    return error(StatusCode::Internal, std::move(msg));
  }

  bool isOk() const { return statusCode == StatusCode::Ok; }
  /// True if ok, so that `if (Status s = f(); !s) return s;` reads naturally.
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return statusCode; }
  /// Empty when ok.
  const std::string &message() const { return msg; }
  /// The same failure, its message preceded by `context` (e.g. a file name
  /// and ": "); an ok Status stays ok.
  Status withContext(const std::string &context) const {
    if (isOk())
      return *this;
    return error(statusCode, context + msg);
  }

private:
  Status() = default;
  StatusCode statusCode = StatusCode::Ok;
  std::string msg;
};

template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : st(Status::ok()), val(std::move(value)) {}
  /// `status` must not be ok: a StatusOr that is ok always holds a value.
  StatusOr(Status status) : st(std::move(status)) {
    assert(!st.isOk() && "StatusOr constructed from an ok Status");
    if (st.isOk())
      st = Status::internalError("ok Status without a value");
  }

  bool isOk() const { return st.isOk(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return st; }

  T &value() & {
    assert(isOk());
    return *val;
  }
  const T &value() const & {
    assert(isOk());
    return *val;
  }
  T &&value() && {
    assert(isOk());
    return std::move(*val);
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  Status st;
  std::optional<T> val;
};

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_STATUS_H
