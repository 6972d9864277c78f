//===- TypeMapping.cpp - MLIR types to vmpack element types ----------------===//

#include "vmpack/Target/TypeMapping.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using ::vmpack::ElementType;
using ::vmpack::ScalarKind;
using ::vmpack::ScalarType;

static std::optional<ScalarType> getScalarType(Type type) {
  if (auto intType = dyn_cast<IntegerType>(type)) {
    ScalarKind kind = intType.isSigned()     ? ScalarKind::SignedInt
                      : intType.isUnsigned() ? ScalarKind::UnsignedInt
                                             : ScalarKind::SignlessInt;
    return ScalarType{kind, intType.getWidth()};
  }
  if (isa<IndexType>(type))
    return ScalarType::floatKind(ScalarKind::Index);
  ScalarKind kind;
  if (isa<Float4E2M1FNType>(type))
    kind = ScalarKind::F4E2M1FN;
  else if (isa<Float6E2M3FNType>(type))
    kind = ScalarKind::F6E2M3FN;
  else if (isa<Float6E3M2FNType>(type))
    kind = ScalarKind::F6E3M2FN;
  else if (isa<Float8E5M2Type>(type))
    kind = ScalarKind::F8E5M2;
  else if (isa<Float8E4M3Type>(type))
    kind = ScalarKind::F8E4M3;
  else if (isa<Float8E4M3FNType>(type))
    kind = ScalarKind::F8E4M3FN;
  else if (isa<Float8E5M2FNUZType>(type))
    kind = ScalarKind::F8E5M2FNUZ;
  else if (isa<Float8E4M3FNUZType>(type))
    kind = ScalarKind::F8E4M3FNUZ;
  else if (isa<Float8E4M3B11FNUZType>(type))
    kind = ScalarKind::F8E4M3B11FNUZ;
  else if (isa<Float8E3M4Type>(type))
    kind = ScalarKind::F8E3M4;
  else if (isa<Float8E8M0FNUType>(type))
    kind = ScalarKind::F8E8M0FNU;
  else if (isa<BFloat16Type>(type))
    kind = ScalarKind::BF16;
  else if (isa<Float16Type>(type))
    kind = ScalarKind::F16;
  else if (isa<FloatTF32Type>(type))
    kind = ScalarKind::TF32;
  else if (isa<Float32Type>(type))
    kind = ScalarKind::F32;
  else if (isa<Float64Type>(type))
    kind = ScalarKind::F64;
  else if (isa<Float80Type>(type))
    kind = ScalarKind::F80;
  else if (isa<Float128Type>(type))
    kind = ScalarKind::F128;
  else
    return std::nullopt;
  return ScalarType::floatKind(kind);
}

std::optional<ElementType> mlir::vmpack::getPackElementType(Type elementType) {
  if (auto complexType = dyn_cast<ComplexType>(elementType)) {
    auto scalar = getScalarType(complexType.getElementType());
    if (!scalar)
      return std::nullopt;
    return ElementType{*scalar, true};
  }
  auto scalar = getScalarType(elementType);
  if (!scalar)
    return std::nullopt;
  return ElementType{*scalar, false};
}
