//===- ConstantCollector.cpp - Finding a module's constants ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Target/ConstantCollector.h"

#include "vmpack/Dialect/VMPack/ConstantNames.h"
#include "vmpack/Dialect/VMPack/VMPackDialect.h"
#include "vmpack/Target/TypeMapping.h"
#include "vmpack/Target/ZeroCopyBytecode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::vmpack_compiler;
using vmpack::Encoding;

Encoding
mlir::vmpack_compiler::getOriginEncoding(ConstantOrigin origin,
                                         const vmpack::ElementType &type) {
  switch (origin) {
  case ConstantOrigin::Dense:
    return vmpack::mlirStorageEncoding(type.scalarBits(), type.isComplex);
  case ConstantOrigin::DenseResource:
    return Encoding::Byte;
  case ConstantOrigin::PackedResource:
    return Encoding::Packed;
  }
  return Encoding::Byte;
}

std::optional<std::vector<char>>
mlir::vmpack_compiler::decodeQuantizedHex(Attribute value) {
  auto strings = dyn_cast<DenseStringElementsAttr>(value);
  if (!strings || !strings.isSplat() ||
      !isa<quant::QuantizedType>(strings.getElementType()))
    return std::nullopt;
  StringRef text = strings.getRawStringData().front();
  if (!text.consume_front("0x") || text.size() % 2)
    return std::nullopt;
  std::vector<char> bytes(text.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    unsigned byte;
    if (text.substr(2 * i, 2).getAsInteger(16, byte))
      return std::nullopt;
    bytes[i] = char(byte);
  }
  return bytes;
}

Attribute mlir::vmpack_compiler::encodeQuantizedHex(ShapedType type,
                                                    ArrayRef<char> bytes) {
  std::string text = "0x" + llvm::toHex(StringRef(bytes.data(), bytes.size()));
  return DenseStringElementsAttr::get(type, {StringRef(text)});
}

//===----------------------------------------------------------------------===//
// Sites: where in an op a constant is
//===----------------------------------------------------------------------===//

/// The element of `container` at `index`: an ArrayAttr element or a
/// DictionaryAttr entry's value.
static Attribute getChild(Attribute container, unsigned index) {
  if (auto array = dyn_cast<ArrayAttr>(container))
    return index < array.size() ? array[index] : Attribute();
  if (auto dict = dyn_cast<DictionaryAttr>(container))
    return index < dict.size() ? dict.getValue()[index].getValue()
                               : Attribute();
  return {};
}

/// `container` with its element at `index` replaced by `value`.
static Attribute withChild(Attribute container, unsigned index,
                           Attribute value) {
  if (auto array = dyn_cast<ArrayAttr>(container)) {
    SmallVector<Attribute> elements(array.getValue());
    elements[index] = value;
    return ArrayAttr::get(array.getContext(), elements);
  }
  auto dict = cast<DictionaryAttr>(container);
  SmallVector<NamedAttribute> entries(dict.getValue());
  entries[index].setValue(value);
  // The names are unchanged, so the entries stay sorted.
  return DictionaryAttr::getWithSorted(dict.getContext(), entries);
}

static Attribute getSiteRoot(Operation *op, const ConstantSite &site) {
  return site.inProperties ? op->getPropertiesAsAttribute()
                           : op->getAttr(site.attrName);
}

Attribute mlir::vmpack_compiler::getSiteValue(Operation *op,
                                              const ConstantSite &site) {
  Attribute value = getSiteRoot(op, site);
  for (unsigned index : site.path) {
    if (!value)
      return {};
    value = getChild(value, index);
  }
  return value;
}

static Attribute replaceAt(Attribute container, ArrayRef<unsigned> path,
                           Attribute value) {
  if (path.empty())
    return value;
  return withChild(
      container, path.front(),
      replaceAt(getChild(container, path.front()), path.drop_front(), value));
}

void mlir::vmpack_compiler::setSiteValue(Operation *op,
                                         const ConstantSite &site,
                                         Attribute value) {
  Attribute root = replaceAt(getSiteRoot(op, site), site.path, value);
  if (!site.inProperties) {
    op->setAttr(site.attrName, root);
    return;
  }
  // Only ops of unregistered dialects have sites in their properties, and
  // those hold any attribute as their properties.
  LogicalResult set =
      op->setPropertiesFromAttribute(root, [op] { return op->emitError(); });
  (void)set;
  assert(succeeded(set) && "unregistered ops take any properties");
}

/// Calls `visit(attr, path, suffix)` on every attribute nested in `root`
/// through arrays and dictionaries, `root` included, in order.
static void forEachNested(
    Attribute root, SmallVectorImpl<unsigned> &path, std::string &suffix,
    function_ref<void(Attribute, ArrayRef<unsigned>, StringRef)> visit) {
  visit(root, path, suffix);
  auto descend = [&](unsigned index, Attribute child, StringRef label) {
    size_t suffixSize = suffix.size();
    if (!suffix.empty())
      suffix += ".";
    suffix += label.str();
    path.push_back(index);
    forEachNested(child, path, suffix, visit);
    path.pop_back();
    suffix.resize(suffixSize);
  };
  if (auto array = dyn_cast<ArrayAttr>(root)) {
    for (auto [index, child] : llvm::enumerate(array.getValue()))
      descend(index, child, std::to_string(index));
  } else if (auto dict = dyn_cast<DictionaryAttr>(root)) {
    for (auto [index, entry] : llvm::enumerate(dict.getValue()))
      descend(index, entry.getValue(), entry.getName().getValue());
  }
}

/// A site found in an op, with the readable suffix that names it among the
/// op's other constants ("value", "weights.0", ...).
struct FoundSite {
  ConstantSite site;
  std::string suffix;
  ElementsAttr value;
};

static void forEachSiteCandidate(
    Operation *op,
    function_ref<void(const ConstantSite &, StringRef, Attribute)> fn) {
  SmallVector<unsigned, 2> path;
  for (NamedAttribute attr : op->getAttrs()) {
    std::string suffix = attr.getName().str();
    forEachNested(attr.getValue(), path, suffix,
                  [&](Attribute value, ArrayRef<unsigned> p, StringRef s) {
                    ConstantSite site{false, attr.getName(), {}};
                    site.path.assign(p.begin(), p.end());
                    fn(site, s, value);
                  });
  }
  if (op->isRegistered())
    return;
  Attribute properties = op->getPropertiesAsAttribute();
  if (!properties)
    return;
  // A dictionary of properties names its entries like attributes.
  std::string suffix = isa<DictionaryAttr>(properties) ? "" : "properties";
  forEachNested(properties, path, suffix,
                [&](Attribute value, ArrayRef<unsigned> p, StringRef s) {
                  ConstantSite site{true, {}, {}};
                  site.path.assign(p.begin(), p.end());
                  fn(site, s, value);
                });
}

//===----------------------------------------------------------------------===//
// Collecting
//===----------------------------------------------------------------------===//

namespace {

/// The ops whose value attribute vmpack knows the meaning of. For these,
/// a value it cannot store is an error; elsewhere such a value stays in
/// the program.
bool isKnownConstantOp(Operation *op) {
  return isa<arith::ConstantOp, ml_program::GlobalOp, memref::GlobalOp>(op);
}

/// An op holding constants: the sites that become segments.
struct Holder {
  Operation *op;
  SmallVector<FoundSite, 1> sites;
};

/// Whether an elements attribute is one vmpack stores: dense<...> of
/// numbers or dense_resource<...>, with a static shape. A splat with no
/// elements is not: it has no bytes to store, and the program keeps it as
/// it was written.
bool isStorable(ElementsAttr value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasStaticShape())
    return false;
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value))
    return !(dense.isSplat() && type.getNumElements() == 0);
  return isa<DenseResourceElementsAttr>(value) ||
         decodeQuantizedHex(value).has_value();
}

/// Whether the program can refer to a segment from `site`: a registered op
/// may constrain an inherent attribute to a class (linalg's `strides` is a
/// DenseIntElementsAttr), and would then drop a dense_resource in its
/// place. Tried on the op and undone. Attributes nested in an inherent
/// attribute are left alone: their container's users may expect their
/// class too.
bool canHoldReference(Operation *op, const ConstantSite &site,
                      ElementsAttr value) {
  if (!op->isRegistered() || site.inProperties ||
      !op->getInherentAttr(site.attrName.getValue()))
    return true;
  if (!site.path.empty())
    return false;
  auto &manager =
      DenseResourceElementsHandle::getManagerInterface(op->getContext());
  auto probe =
      DenseResourceElementsAttr::get(cast<ShapedType>(value.getType()),
                                     manager.insert("vmpack.reference_probe"));
  setSiteValue(op, site, probe);
  bool held = getSiteValue(op, site) == probe;
  setSiteValue(op, site, value);
  return held;
}

std::optional<Holder> findSites(Operation *op) {
  Holder holder{op, {}};
  bool known = isKnownConstantOp(op);
  forEachSiteCandidate(
      op, [&](const ConstantSite &site, StringRef suffix, Attribute value) {
        auto elements = dyn_cast<ElementsAttr>(value);
        if (!elements)
          return;
        bool storable =
            isStorable(elements) &&
            getPackElementType(
                cast<ShapedType>(elements.getType()).getElementType());
        // The value of an op vmpack knows is meant to be a constant: say so
        // when it stays in the program.
        bool isKnownValue =
            known && !site.inProperties && site.path.empty() &&
            (site.attrName == "value" || site.attrName == "initial_value");
        if (isKnownValue && !storable &&
            !(isa<DenseIntOrFPElementsAttr>(elements) &&
              cast<ShapedType>(elements.getType()).getNumElements() == 0))
          op->emitWarning()
              << "constant of type " << elements.getType() << " (a '"
              << Attribute(elements).getAbstractAttribute().getName()
              << "' attribute) has no vmpack layout and stays in the program; "
                 "segments hold dense<...> and dense_resource<...> elements of "
                 "integers, index, floats, complex and quantized types";
        if (isKnownValue ? storable
                         : storable && canHoldReference(op, site, elements))
          holder.sites.push_back({site, suffix.str(), elements});
      });
  if (holder.sites.empty())
    return std::nullopt;
  return holder;
}

/// Segment names (docs/compiler.md): an op that defines a symbol gives its
/// symbol name; any other op `<S>.cst<k>` (ConstantNames.h), k counting
/// the constant-holding ops of S in walk order. An op with more than one
/// constant appends each one's attribute path. Collisions get `_<n>`;
/// names taken from symbols win over derived ones.
class SegmentNamer {
public:
  explicit SegmentNamer(ArrayRef<Holder> holders) {
    for (const Holder &holder : holders)
      if (StringRef symbol = getDefinedSymbol(holder.op); !symbol.empty())
        reserved.insert(symbol);
  }

  /// Names for `holder`'s sites, in order.
  SmallVector<std::string> namesFor(const Holder &holder) {
    std::string base = getDefinedSymbol(holder.op).str();
    bool fromSymbol = !base.empty();
    if (!fromSymbol)
      base = derived.next(holder.op);
    SmallVector<std::string> names;
    for (const FoundSite &site : holder.sites) {
      std::string wanted =
          holder.sites.size() > 1 ? base + "." + site.suffix : base;
      // A symbol's own name is reserved for it; anything else must avoid it.
      bool mayUseReserved = fromSymbol && holder.sites.size() == 1;
      std::string name = wanted;
      for (unsigned n = 1;
           taken.contains(name) || (!mayUseReserved && reserved.contains(name));
           ++n)
        name = wanted + "_" + std::to_string(n);
      taken.insert(name);
      names.push_back(std::move(name));
    }
    return names;
  }

private:
  llvm::StringSet<> reserved;
  llvm::StringSet<> taken;
  DerivedConstantNamer derived;
};

LogicalResult describeConstant(Operation *op, const FoundSite &found,
                               bool onlySite, const ZeroCopyRegistry *zeroCopy,
                               const CollectOptions &options,
                               ConstantInfo &info) {
  info.op = op;
  info.site = found.site;
  ElementsAttr value = found.value;
  info.valueType = cast<ShapedType>(value.getType());
  info.logicalType = info.valueType;
  if (auto memrefGlobal = dyn_cast<memref::GlobalOp>(op))
    info.logicalType = memrefGlobal.getType();

  // The pass's marker describes the op's one constant.
  StringRef logicalTypeName = VMPackDialect::getLogicalTypeAttrName();
  auto logical = op->getAttrOfType<TypeAttr>(logicalTypeName);
  if (logical && onlySite) {
    auto shaped = dyn_cast<ShapedType>(logical.getValue());
    if (!shaped || !shaped.hasStaticShape())
      return op->emitError() << "'" << logicalTypeName
                             << "' must be a statically shaped type, got "
                             << logical.getValue();
    info.logicalType = shaped;
  }
  if (!info.valueType.hasStaticShape() || !info.logicalType.hasStaticShape())
    return op->emitError() << "constant of dynamically shaped type "
                           << info.logicalType << " cannot be serialized";

  auto elementType = getPackElementType(info.logicalType.getElementType());
  if (!elementType)
    return op->emitError() << "element type "
                           << info.logicalType.getElementType()
                           << " is not supported (supported: integers, index, "
                              "floats, complex of those, and quantized types "
                              "over integers)";
  info.elementType = *elementType;
  info.numScalars = uint64_t(info.logicalType.getNumElements()) *
                    elementType->scalarsPerElement();
  uint32_t bitWidth = elementType->scalarBits();

  std::optional<uint64_t> expectedSize;
  if (std::optional<std::vector<char>> hex = decodeQuantizedHex(value)) {
    // Raw bytes, as MLIR reads hex for the storage type: a whole tensor,
    // or one element for a splat.
    info.origin = ConstantOrigin::Dense;
    info.ownedData = std::make_shared<std::vector<char>>(std::move(*hex));
    info.data = *info.ownedData;
    info.sourceEncoding = getOriginEncoding(info.origin, *elementType);
    expectedSize =
        vmpack::encodedSize(info.sourceEncoding, bitWidth, info.numScalars);
    uint64_t splatSize =
        vmpack::mlirSplatStorageSize(bitWidth, elementType->isComplex);
    if (info.data.size() == splatSize && expectedSize != splatSize) {
      info.isSplat = true;
      expectedSize = splatSize;
    }
  } else if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(value)) {
    info.origin = ConstantOrigin::Dense;
    info.data = dense.getRawData();
    info.isSplat = dense.isSplat();
    info.sourceEncoding = getOriginEncoding(info.origin, *elementType);
    expectedSize =
        info.isSplat
            ? vmpack::mlirSplatStorageSize(bitWidth, elementType->isComplex)
            : vmpack::encodedSize(info.sourceEncoding, bitWidth,
                                  info.numScalars);
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    DenseResourceElementsHandle handle = resource.getRawHandle();
    // A resource standing for a dense<...> attribute (read in place from
    // bytecode, or decoded from text) is recorded as that attribute: its
    // key and alignment are vmpack's own, not the input's.
    bool standsForDense =
        zeroCopy && zeroCopy->isZeroCopyDense(handle.getKey());
    if (!standsForDense)
      info.resourceKey = handle.getKey().str();
    if (standsForDense)
      info.origin = ConstantOrigin::Dense;
    else if (logical && onlySite)
      info.origin = ConstantOrigin::PackedResource;
    else
      info.origin = ConstantOrigin::DenseResource;
    info.sourceEncoding = getOriginEncoding(info.origin, *elementType);
    expectedSize =
        vmpack::encodedSize(info.sourceEncoding, bitWidth, info.numScalars);
    AsmResourceBlob *blob = handle.getBlob();
    if (!blob) {
      if (!options.zeroFillElided)
        return op->emitError()
               << "dense_resource '" << handle.getKey()
               << "' has no data (the resource is elided or missing from the "
                  "input's dialect_resources; --zero-fill-elided stores zeros "
                  "instead)";
      op->emitWarning() << "dense_resource '" << handle.getKey()
                        << "' has no data; storing " << info.logicalType
                        << " as zeros (--zero-fill-elided)";
      info.isZeroFill = true;
      if (!expectedSize)
        return op->emitError() << "constant of type " << info.logicalType
                               << " is too large to serialize";
      return success();
    }
    info.data = blob->getData();
    if (!standsForDense)
      info.resourceAlignment = uint32_t(blob->getDataAlignment());
    // An i1 blob is one byte per element (MLIR's DenseBoolResourceElements
    // layout) or MLIR's in-memory bitmask, which is the `packed` layout;
    // their sizes differ for more than one element. The pass reads both
    // the same way (lib/Transforms/PackElements.cpp).
    if (bitWidth == 1 && !elementType->isComplex &&
        info.origin == ConstantOrigin::DenseResource && info.numScalars > 1 &&
        info.data.size() ==
            vmpack::encodedSize(Encoding::Packed, 1, info.numScalars)) {
      info.origin = ConstantOrigin::PackedResource;
      info.sourceEncoding = Encoding::Packed;
      expectedSize = info.data.size();
    }
  } else {
    return op->emitError()
           << "constant of type " << value.getType() << " is a '"
           << Attribute(value).getAbstractAttribute().getName()
           << "' attribute; only dense<...> and dense_resource<...> elements "
              "can be serialized";
  }
  if (!expectedSize)
    return op->emitError() << "constant of type " << info.logicalType
                           << " is too large to serialize";
  if (info.data.size() != *expectedSize) {
    InFlightDiagnostic diag = op->emitError();
    if (!info.resourceKey.empty())
      diag << "dense_resource '" << info.resourceKey << "' holds ";
    else
      diag << "constant holds ";
    diag << info.data.size() << " bytes but type " << info.logicalType
         << " needs " << *expectedSize << " bytes in the '"
         << vmpack::encodingName(info.sourceEncoding) << "' layout";
    return diag;
  }
  return success();
}

} // namespace

FailureOr<SmallVector<ConstantInfo>>
mlir::vmpack_compiler::collectConstants(ModuleOp module,
                                        const ZeroCopyRegistry *zeroCopy,
                                        const CollectOptions &options) {
  SmallVector<Holder> holders;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (std::optional<Holder> holder = findSites(op))
      holders.push_back(std::move(*holder));
  });

  SegmentNamer namer(holders);
  SmallVector<ConstantInfo> constants;
  bool anyFailed = false;
  for (const Holder &holder : holders) {
    SmallVector<std::string> names = namer.namesFor(holder);
    for (auto [site, name] : llvm::zip_equal(holder.sites, names)) {
      ConstantInfo info;
      if (failed(describeConstant(holder.op, site, holder.sites.size() == 1,
                                  zeroCopy, options, info))) {
        anyFailed = true;
        continue;
      }
      info.segmentName = std::move(name);
      constants.push_back(std::move(info));
    }
  }
  if (anyFailed)
    return failure();
  return constants;
}

void mlir::vmpack_compiler::replaceNestedAttributes(
    Operation *op, function_ref<Attribute(Attribute)> fn) {
  // Collect first, then replace: replacing rebuilds the containers.
  SmallVector<std::pair<ConstantSite, Attribute>> replacements;
  forEachSiteCandidate(
      op, [&](const ConstantSite &site, StringRef, Attribute value) {
        if (Attribute replacement = fn(value))
          replacements.emplace_back(site, replacement);
      });
  for (auto &[site, replacement] : replacements)
    setSiteValue(op, site, replacement);
}
