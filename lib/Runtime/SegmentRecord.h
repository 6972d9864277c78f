//===- SegmentRecord.h - The C API's record of a segment --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Private to lib/Runtime. vmpack_segment_info_t is the C copy of the
// segment description (archive::SegmentInfo for modules, formats::TensorInfo
// for safetensors and GGUF files). It must stay a plain C struct, so it
// cannot reuse the C++ one; instead its fields are tied to the C++ fields
// they carry by the static_asserts below, and every typed segment, of any
// container, is filled by the one function fillTypedSegment.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_LIB_RUNTIME_SEGMENTRECORD_H
#define VMPACK_LIB_RUNTIME_SEGMENTRECORD_H

#include "vmpack/Archive/SegmentInfo.h"
#include "vmpack/Formats/Tensor.h"
#include "vmpack/vmpack.h"

#include <string>
#include <type_traits>
#include <vector>

namespace vmpack::runtime {

namespace detail {
template <typename C, typename CXX> constexpr bool carries() {
  return std::is_integral_v<C> && std::is_integral_v<CXX> &&
         sizeof(C) >= sizeof(CXX) &&
         (std::is_signed_v<C> == std::is_signed_v<CXX> ||
          sizeof(C) > sizeof(CXX));
}
} // namespace detail

#define VMPACK_CARRIES(CFIELD, CXXTYPE)                                        \
  static_assert(                                                               \
      detail::carries<decltype(vmpack_segment_info_t::CFIELD), CXXTYPE>(),     \
      "vmpack_segment_info_t::" #CFIELD " holds every " #CXXTYPE)
VMPACK_CARRIES(offset, decltype(archive::SegmentInfo::offset));
VMPACK_CARRIES(offset, decltype(formats::TensorInfo::offset));
VMPACK_CARRIES(length, decltype(archive::SegmentDesc::length));
VMPACK_CARRIES(length, decltype(formats::TensorInfo::length));
VMPACK_CARRIES(alignment, decltype(archive::SegmentDesc::alignment));
VMPACK_CARRIES(checksum, decltype(archive::SegmentInfo::checksum));
VMPACK_CARRIES(source_alignment,
               decltype(archive::ConstantDesc::sourceAlignment));
VMPACK_CARRIES(alias_of, decltype(archive::SegmentInfo::aliasOf));
VMPACK_CARRIES(element_count, decltype(archive::SegmentInfo::numElements));
VMPACK_CARRIES(scalar_bits, decltype(ScalarType::width));
VMPACK_CARRIES(name_length, std::string::size_type);
VMPACK_CARRIES(rank, std::vector<int64_t>::size_type);
#undef VMPACK_CARRIES
static_assert(
    std::is_same_v<std::remove_cv_t<std::remove_pointer_t<
                       decltype(vmpack_segment_info_t::shape)>>,
                   decltype(archive::ConstantDesc::shape)::value_type>,
    "shape points at the C++ shape's elements");

/// Fills the fields every typed segment has, from its description; sets
/// the others (checksum, source, alias, .irpa fields) to their "none"
/// values. The strings and the shape must outlive the module handle.
inline void fillTypedSegment(vmpack_segment_info_t &i, const std::string &name,
                             const std::string &mlirType,
                             const std::string &elementTypeName,
                             const ElementType &elementType,
                             const std::vector<int64_t> &shape,
                             uint64_t numElements, Encoding encoding,
                             const void *data, uint64_t offset, uint64_t length,
                             uint32_t alignment) {
  i = vmpack_segment_info_t();
  i.name = name.c_str();
  i.name_length = name.size();
  i.mlir_type = mlirType.c_str();
  i.element_type = elementTypeName.c_str();
  i.scalar_kind = vmpack_scalar_kind_t(elementType.scalar.kind);
  i.scalar_bits = elementType.scalar.width;
  i.is_complex = elementType.isComplex ? 1 : 0;
  i.rank = shape.size();
  i.shape = shape.data();
  i.element_count = numElements;
  i.encoding = vmpack_encoding_t(encoding);
  i.data = data;
  i.offset = offset;
  i.length = length;
  i.alignment = alignment;
  i.source_kind = VMPACK_SOURCE_DENSE;
  i.source_key = "";
  i.kind = VMPACK_SEGMENT_TYPED;
}

} // namespace vmpack::runtime

#endif // VMPACK_LIB_RUNTIME_SEGMENTRECORD_H
