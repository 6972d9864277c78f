//===- TextFastPath.cpp - Large hex constants decoded before parsing ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scanner that knows just enough of MLIR's lexer (mlir/lib/AsmParser/
// Lexer.cpp) to tell where a `dense<"0x` or a resource value really is one:
// comments run from `//` to the end of the line, strings from `"` to the
// next unescaped `"`, identifiers with a sigil (`#`, `!`, `%`, `@`, `^`)
// take letters, digits and `$._-`, bare identifiers letters, digits and
// `$._`, and a dialect attribute or type body (`#x<...>`, `!x<...>`) is
// skipped with the nesting rules of Parser::parseDialectSymbolBody (`<[({`
// nest, `->` is not a closing `>`, strings are skipped whole). Anything
// unexpected stops the rewriting of that construct, never the parse.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Target/TextFastPath.h"

#include "vmpack/Pack/Hex.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::vmpack_compiler;

namespace {

/// The keys of rewritten dense literals start with this; a text that
/// mentions it anywhere is parsed as usual.
constexpr StringLiteral kKeyPrefix = "vmpack_hex";

/// One rewritten dense literal.
struct DenseLiteral {
  std::string key;
  AsmResourceBlob blob;
  Type type;
};

/// One shortened resource value.
struct ResourceLiteral {
  std::string key;
  AsmResourceBlob blob;
};

/// A rewrite shortened the text of `line` by `delta` characters, ending at
/// column `endColumn` of the rewritten text (1-based, the first column
/// after the replacement). `delta` counts every rewrite on the line up to
/// this one.
struct ColumnShift {
  unsigned line;
  unsigned endColumn;
  uint64_t delta;
};

bool isBareIdStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isBareIdChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}
bool isSuffixIdChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

class Rewriter {
public:
  Rewriter(StringRef text, MLIRContext *context, size_t minBytes,
           unsigned threads)
      : text(text), context(context), minBytes(minBytes), threads(threads) {}

  /// Scans the whole text. False when it must be parsed as usual.
  bool run();

  std::string output;
  std::vector<DenseLiteral> dense;
  std::vector<ResourceLiteral> resources;
  std::vector<ColumnShift> shifts;
  uint64_t decodedBytes = 0;
  std::string failure;

private:
  size_t skipString(size_t pos) const;
  size_t skipDialectBody(size_t pos) const;
  size_t skipSpace(size_t pos) const;
  AsmResourceBlob decodeDigits(size_t digits, uint64_t minBytes, size_t align,
                               size_t &end) const;
  void tryDense(size_t start, size_t &pos);
  size_t scanMetadata(size_t pos);
  bool tryResourceValue(StringRef key, size_t valueStart, size_t &pos);
  void replace(size_t start, size_t end, StringRef replacement);
  void noteKeyLike(StringRef token) {
    if (token.contains(kKeyPrefix))
      failure = "the text already mentions '" + kKeyPrefix.str() + "'";
  }

  StringRef text;
  MLIRContext *context;
  size_t minBytes;
  /// Threads for decoding one long literal (1: the caller's only).
  unsigned threads;
  /// Text before this offset is in `output` already.
  size_t copied = 0;
  /// Line bookkeeping for the column shifts: newlines are counted up to
  /// `countedTo`, which starts line `line` at offset `lineStart`.
  size_t countedTo = 0;
  unsigned line = 1;
  size_t lineStart = 0;
  uint64_t lineDelta = 0;
};

/// The offset just past the string starting at `pos` (a `"`), or npos when
/// it does not end.
size_t Rewriter::skipString(size_t pos) const {
  size_t i = pos + 1;
  while (true) {
    size_t quote = text.find('"', i);
    if (quote == StringRef::npos)
      return StringRef::npos;
    size_t backslashes = 0;
    while (quote - backslashes > pos + 1 &&
           text[quote - backslashes - 1] == '\\')
      ++backslashes;
    if (backslashes % 2 == 0)
      return quote + 1;
    i = quote + 1;
  }
}

/// The offset just past the dialect body starting at `pos` (a `<`), or npos
/// when it does not close.
size_t Rewriter::skipDialectBody(size_t pos) const {
  SmallVector<char, 8> nesting;
  size_t i = pos;
  do {
    if (i >= text.size())
      return StringRef::npos;
    char c = text[i++];
    switch (c) {
    case '<':
    case '[':
    case '(':
    case '{':
      nesting.push_back(c);
      break;
    case '-':
      if (i < text.size() && text[i] == '>')
        ++i;
      break;
    case '>':
    case ']':
    case ')':
    case '}': {
      char open = c == '>' ? '<' : c == ']' ? '[' : c == ')' ? '(' : '{';
      if (nesting.pop_back_val() != open)
        return StringRef::npos;
      break;
    }
    case '"':
      i = skipString(i - 1);
      if (i == StringRef::npos)
        return StringRef::npos;
      break;
    default:
      break;
    }
  } while (!nesting.empty());
  return i;
}

size_t Rewriter::skipSpace(size_t pos) const {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                               text[pos] == '\n' || text[pos] == '\r'))
    ++pos;
  return pos;
}

/// Replaces text[start, end) (no newline in it) by `replacement`.
void Rewriter::replace(size_t start, size_t end, StringRef replacement) {
  // Count the lines up to the replacement (searching no further: past
  // `start` may lie hundreds of megabytes of hex without a newline).
  StringRef before = text.slice(0, start);
  for (size_t nl = before.find('\n', countedTo); nl != StringRef::npos;
       nl = before.find('\n', nl + 1)) {
    ++line;
    lineStart = nl + 1;
    lineDelta = 0;
  }
  // The replaced text holds no newline.
  countedTo = end;
  output.append(text.data() + copied, start - copied);
  output.append(replacement.data(), replacement.size());
  copied = end;
  // Columns of the rewritten text: the replacement starts where the
  // original started, less what earlier rewrites on the line removed.
  uint64_t startColumn = start - lineStart + 1 - lineDelta;
  lineDelta += (end - start) - replacement.size();
  shifts.push_back(
      {line, unsigned(startColumn + replacement.size()), lineDelta});
}

/// Decodes the digits at `digits` up to the first non-digit into fresh
/// memory. Returns the blob (null data when fewer than `minBytes` bytes or
/// no memory) and sets `end` to the offset of that non-digit.
AsmResourceBlob Rewriter::decodeDigits(size_t digits, uint64_t minBytes,
                                       size_t align, size_t &end) const {
  // A short string is found cheaply, before any memory is set aside.
  size_t available = text.size() - digits;
  if (available < 2 * minBytes ||
      std::memchr(text.data() + digits, '"', 2 * minBytes))
    return {};
  // The end is found while decoding, in one pass over the text: the output
  // is reserved for the longest possible literal; only the pages written
  // are ever backed, and the rest is returned at once.
  uint64_t maxBytes = available / 2;
  size_t huge = size_t(2) << 20;
  size_t reserved = llvm::alignTo(maxBytes, huge) + std::max(huge, align);
  void *mapping = ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED)
    return {};
  char *base = static_cast<char *>(mapping);
  char *data = reinterpret_cast<char *>(
      llvm::alignTo(reinterpret_cast<uintptr_t>(base), std::max(huge, align)));
  // Decoded in steps, each step's pages faulted in by one call (far
  // cheaper than a fault per page), and small enough that the pages faulted
  // in past the literal's end (the last step's rest) cost little. A literal
  // longer than one step is decoded by `threads` threads taking the following
  // steps in turn, which shares out the kernel's zeroing of the new pages and
  // the faults on the text as well as the decoding.
  constexpr uint64_t kStep = uint64_t(2) << 20;
  const char *hex = text.data() + digits;
  auto decodeStep = [&](uint64_t at) {
    uint64_t step = std::min(kStep, maxBytes - at);
    ::madvise(data + at, step, MADV_POPULATE_WRITE);
    uint64_t done = vmpack::decodeHexPrefix(
        hex + 2 * at, reinterpret_cast<uint8_t *>(data + at), step);
    return std::make_pair(done, step);
  };
  uint64_t numBytes = 0;
  auto [firstDone, firstStep] = decodeStep(0);
  if (firstDone == firstStep && firstStep < maxBytes && threads > 1) {
    // Step k covers bytes [k * kStep, (k + 1) * kStep). The literal ends in
    // the first step that decodes short; steps are taken in order, so every
    // step before that one is complete when all threads are done. A thread
    // may decode one step past the end: those pages are unmapped below.
    uint64_t steps = (maxBytes + kStep - 1) / kStep;
    std::atomic<uint64_t> next{1};
    std::atomic<uint64_t> shortStep{steps};
    std::mutex shortMutex;
    uint64_t shortDone = 0; // guarded by shortMutex, with shortStep's value
    auto work = [&] {
      while (true) {
        uint64_t k = next.fetch_add(1);
        if (k >= steps || k > shortStep.load())
          return;
        auto [done, step] = decodeStep(k * kStep);
        if (done < step) {
          std::lock_guard<std::mutex> lock(shortMutex);
          if (k < shortStep.load()) {
            shortStep.store(k);
            shortDone = done;
          }
        }
      }
    };
    std::vector<std::thread> helpers;
    try {
      for (unsigned i = 1; i < threads; ++i)
        helpers.emplace_back(work);
    } catch (...) {
      // No more threads: the ones started and this one do the work.
    }
    work();
    for (std::thread &helper : helpers)
      helper.join();
    numBytes = shortStep.load() < steps ? shortStep.load() * kStep + shortDone
                                        : maxBytes;
  } else {
    numBytes = firstDone;
    for (bool more = firstDone == firstStep; more && numBytes < maxBytes;) {
      auto [done, step] = decodeStep(numBytes);
      numBytes += done;
      more = done == step;
    }
  }
  end = digits + 2 * numBytes;
  if (numBytes < minBytes) {
    ::munmap(base, reserved);
    return {};
  }
  size_t page = size_t(::sysconf(_SC_PAGESIZE));
  size_t kept = llvm::alignTo((data - base) + numBytes, page);
  if (kept < reserved)
    ::munmap(base + kept, reserved - kept);
  return AsmResourceBlob(
      ArrayRef<char>(data, numBytes), align,
      [base, kept](void *, size_t, size_t) { ::munmap(base, kept); },
      /*dataIsMutable=*/true);
}

/// At `start`, the `dense` of `dense<"0x`; `pos` is just past `dense`.
void Rewriter::tryDense(size_t start, size_t &pos) {
  size_t digits = pos + 4; // <"0x
  size_t quote;
  AsmResourceBlob blob = decodeDigits(digits, minBytes, /*align=*/64, quote);
  if (!blob.getData().data() || quote >= text.size() || text[quote] != '"')
    return;
  uint64_t numBytes = blob.getData().size();
  size_t close = quote + 1;
  if (close >= text.size() || text[close] != '>')
    return;
  size_t colon = skipSpace(close + 1);
  if (colon >= text.size() || text[colon] != ':')
    return;
  size_t typeStart = skipSpace(colon + 1);
  // The type, parsed alone: at most the rest of its line.
  size_t typeEnd = text.find_first_of("\n\r", typeStart);
  if (typeEnd == StringRef::npos)
    typeEnd = text.size();
  typeEnd = std::min(typeEnd, typeStart + 4096);
  StringRef typeText = text.slice(typeStart, typeEnd);
  Type type;
  {
    ScopedDiagnosticHandler quiet(context,
                                  [](Diagnostic &) { return success(); });
    size_t numRead = 0;
    type = parseType(typeText, context, &numRead);
  }
  // Builtin element types only: MLIR reads hex of other element types
  // (quantized ones) as a string, which the compiler decodes itself.
  auto shaped = dyn_cast_or_null<ShapedType>(type);
  if (!shaped ||
      !isa<IntegerType, FloatType, ComplexType, IndexType>(
          shaped.getElementType()) ||
      !canStandInForDense(shaped, numBytes))
    return;
  decodedBytes += numBytes;
  pos = close + 1;
  // MLIR keeps one attribute for equal literals of one type, and the
  // compiler stores it once: equal literals share a key, as they would
  // share the attribute.
  for (const DenseLiteral &earlier : dense)
    if (earlier.type == type && earlier.blob.getData() == blob.getData()) {
      replace(start, close + 1, "dense_resource<" + earlier.key + ">");
      return;
    }
  std::string key = (kKeyPrefix + Twine(dense.size())).str();
  replace(start, close + 1, "dense_resource<" + key + ">");
  dense.push_back({std::move(key), std::move(blob), type});
}

/// At `valueStart`, the value of resource `key` of the builtin dialect.
bool Rewriter::tryResourceValue(StringRef key, size_t valueStart, size_t &pos) {
  if (!text.substr(valueStart).starts_with("\"0x"))
    return false;
  size_t digits = valueStart + 3;
  if (text.size() - digits < 8)
    return false;
  uint8_t alignBytes[4];
  if (!vmpack::decodeHex(text.data() + digits, alignBytes, 4))
    return false;
  uint32_t align = llvm::support::endian::read32le(alignBytes);
  if (!llvm::isPowerOf2_32(align))
    return false;
  size_t quote;
  AsmResourceBlob blob = decodeDigits(digits + 8, minBytes, align, quote);
  if (!blob.getData().data() || quote >= text.size() || text[quote] != '"')
    return false;
  uint64_t numBytes = blob.getData().size();
  replace(valueStart, quote + 1,
          (text.slice(valueStart, digits + 8) + "\"").str());
  decodedBytes += numBytes;
  resources.push_back({key.str(), std::move(blob)});
  pos = quote + 1;
  return true;
}

/// At `pos`, just past `{-#`. Reads `name: { ... }` sections; in
/// dialect_resources, the builtin dialect's entries `key: value`. Returns
/// where the top-level scan goes on: past `#-}`, or where the syntax was
/// not as expected.
size_t Rewriter::scanMetadata(size_t pos) {
  auto readBareId = [&](size_t &at) -> StringRef {
    size_t begin = at;
    if (at < text.size() && isBareIdStart(text[at]))
      while (at < text.size() && isBareIdChar(text[at]))
        ++at;
    return text.slice(begin, at);
  };
  auto expect = [&](size_t &at, char c) {
    at = skipSpace(at);
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  };
  auto peekIs = [&](size_t at, char c) {
    at = skipSpace(at);
    return at < text.size() && text[at] == c;
  };
  size_t at = pos;
  while (true) {
    at = skipSpace(at);
    if (text.substr(at).starts_with("#-}"))
      return at + 3;
    size_t sectionStart = at;
    StringRef section = readBareId(at);
    if (section.empty() || !expect(at, ':'))
      return sectionStart;
    at = skipSpace(at);
    if (section != "dialect_resources") {
      if (at >= text.size() || text[at] != '{')
        return at;
      at = skipDialectBody(at);
      if (at == StringRef::npos)
        return sectionStart;
    } else {
      if (!expect(at, '{'))
        return at;
      // dialect: { entries }, ...
      while (true) {
        if (expect(at, '}'))
          break;
        StringRef dialect = readBareId(at = skipSpace(at));
        if (dialect.empty() || !expect(at, ':') || !expect(at, '{'))
          return at;
        while (true) {
          if (expect(at, '}'))
            break;
          at = skipSpace(at);
          size_t keyStart = at;
          StringRef key;
          if (at < text.size() && text[at] == '"') {
            at = skipString(at);
            if (at == StringRef::npos)
              return keyStart;
          } else {
            key = readBareId(at);
            if (key.empty())
              return keyStart;
          }
          noteKeyLike(text.slice(keyStart, at));
          if (!expect(at, ':'))
            return at;
          at = skipSpace(at);
          size_t valueStart = at;
          if (dialect == "builtin" && !key.empty() &&
              tryResourceValue(key, valueStart, at)) {
          } else if (at < text.size() && text[at] == '"') {
            at = skipString(at);
            if (at == StringRef::npos)
              return valueStart;
          } else {
            // true, false or a number: up to the next ',' or '}'.
            while (at < text.size() && text[at] != ',' && text[at] != '}' &&
                   text[at] != '"')
              ++at;
          }
          if (!expect(at, ',') && !peekIs(at, '}'))
            return at;
        }
        if (!expect(at, ',') && !peekIs(at, '}'))
          return at;
      }
    }
    if (!expect(at, ','))
      if (!text.substr(skipSpace(at)).starts_with("#-}"))
        return at;
  }
}

bool Rewriter::run() {
  size_t pos = 0, n = text.size();
  while (pos < n && failure.empty()) {
    char c = text[pos];
    if (c == '/' && pos + 1 < n && text[pos + 1] == '/') {
      size_t nl = text.find('\n', pos);
      pos = nl == StringRef::npos ? n : nl + 1;
    } else if (c == '"') {
      size_t end = skipString(pos);
      if (end == StringRef::npos)
        break;
      if (end - pos < 1024)
        noteKeyLike(text.slice(pos, end));
      pos = end;
    } else if (c == '{' && text.substr(pos).starts_with("{-#")) {
      pos = scanMetadata(pos + 3);
    } else if (c == '#' || c == '!' || c == '%' || c == '@' || c == '^') {
      size_t begin = ++pos;
      while (pos < n && isSuffixIdChar(text[pos]))
        ++pos;
      noteKeyLike(text.slice(begin, pos));
      if ((c == '#' || c == '!') && pos > begin) {
        size_t next = skipSpace(pos);
        if (next < n && text[next] == '<') {
          pos = skipDialectBody(next);
          if (pos == StringRef::npos) {
            failure = "a dialect attribute or type body does not close";
            break;
          }
        }
      }
    } else if (isBareIdStart(c)) {
      size_t begin = pos;
      while (pos < n && isBareIdChar(text[pos]))
        ++pos;
      StringRef id = text.slice(begin, pos);
      noteKeyLike(id);
      if (id == "dense" && text.substr(pos).starts_with("<\"0x"))
        tryDense(begin, pos);
    } else if (llvm::isDigit(c)) {
      while (pos < n && isBareIdChar(text[pos]))
        ++pos;
    } else {
      ++pos;
    }
  }
  if (!failure.empty())
    return false;
  output.append(text.data() + copied, text.size() - copied);
  return true;
}

/// Every dense_resource attribute in the ops' attributes and properties.
void forEachResourceAttr(Operation *root,
                         function_ref<void(DenseResourceElementsAttr)> fn) {
  root->walk([&](Operation *op) {
    op->getRawDictionaryAttrs().walk(fn);
    if (Attribute properties = op->getPropertiesAsAttribute())
      properties.walk(fn);
  });
}

/// Parses `program` into `context` with the blobs installed, verified.
/// `owned` moves the rewriter's blobs in; otherwise they are lent as views.
/// Returns null on any diagnostic.
OwningOpRef<ModuleOp> parseRewritten(StringRef program, StringRef bufferName,
                                     MLIRContext *context, Rewriter &rewriter,
                                     bool owned, std::string &why) {
  bool diagnosed = false;
  ScopedDiagnosticHandler capture(context, [&](Diagnostic &) {
    diagnosed = true;
    return success();
  });
  auto &manager = DenseResourceElementsHandle::getManagerInterface(context)
                      .getBlobManager();
  // A key the context already holds would be renamed by the parser.
  for (const DenseLiteral &literal : rewriter.dense)
    if (manager.lookup(literal.key)) {
      why = "the context already holds resource '" + literal.key + "'";
      return {};
    }
  for (const ResourceLiteral &literal : rewriter.resources)
    if (manager.lookup(literal.key)) {
      why = "the context already holds resource '" + literal.key + "'";
      return {};
    }

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(program, bufferName,
                                       /*RequiresNullTerminator=*/true),
      llvm::SMLoc());
  ParserConfig config(context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module || diagnosed) {
    why = "MLIR rejected the rewritten program";
    return {};
  }

  auto install = [&](const std::string &key, AsmResourceBlob &blob) {
    DialectResourceBlobManager::BlobEntry *entry = manager.lookup(key);
    if (!entry)
      return true; // Parsed, then dropped: nothing refers to it.
    if (owned) {
      entry->setBlob(std::move(blob));
    } else {
      entry->setBlob(UnmanagedAsmResourceBlob::allocateWithAlign(
          blob.getData(), blob.getDataAlignment()));
    }
    return true;
  };
  for (DenseLiteral &literal : rewriter.dense)
    install(literal.key, literal.blob);
  for (ResourceLiteral &literal : rewriter.resources)
    install(literal.key, literal.blob);

  // Each rewritten literal must be used as the type it was checked for.
  bool typesMatch = true;
  forEachResourceAttr(*module, [&](DenseResourceElementsAttr attr) {
    StringRef key = attr.getRawHandle().getKey();
    if (!key.starts_with(kKeyPrefix))
      return;
    AsmResourceBlob *blob = attr.getRawHandle().getBlob();
    if (!blob || !canStandInForDense(attr.getType(), blob->getData().size()))
      typesMatch = false;
  });
  if (!typesMatch) {
    why = "a rewritten literal is used with another type";
    return {};
  }
  if (failed(verify(*module)) || diagnosed) {
    why = "the rewritten program does not verify";
    return {};
  }
  return module;
}

/// The location `loc` of the rewritten text, in the original text.
Location mapLocation(Location loc, StringAttr rewrittenName,
                     StringAttr originalName, ArrayRef<ColumnShift> shifts) {
  AttrTypeReplacer replacer;
  auto mapColumn = [&](unsigned line, unsigned column) -> unsigned {
    auto it = std::upper_bound(
        shifts.begin(), shifts.end(), std::make_pair(line, column),
        [](std::pair<unsigned, unsigned> key, const ColumnShift &shift) {
          return key < std::make_pair(shift.line, shift.endColumn);
        });
    if (it == shifts.begin() || std::prev(it)->line != line)
      return column;
    return unsigned(column + std::prev(it)->delta);
  };
  replacer.addReplacement([&](FileLineColRange range)
                              -> std::optional<Attribute> {
    if (range.getFilename() != rewrittenName)
      return std::nullopt;
    unsigned startLine = range.getStartLine();
    unsigned endLine = range.getEndLine();
    if (isa<FileLineColLoc>(range))
      return FileLineColLoc::get(originalName, startLine,
                                 mapColumn(startLine, range.getStartColumn()));
    return FileLineColRange::get(
        originalName, startLine, mapColumn(startLine, range.getStartColumn()),
        endLine, mapColumn(endLine, range.getEndColumn()));
  });
  return cast<Location>(replacer.replace(loc));
}

} // namespace

OwningOpRef<ModuleOp> mlir::vmpack_compiler::parseTextWithFastHex(
    llvm::MemoryBufferRef input, MLIRContext *context,
    ZeroCopyRegistry &zeroCopy, size_t minBytes, TextFastPathStats *stats,
    unsigned threads) {
  TextFastPathStats localStats;
  TextFastPathStats &out = stats ? *stats : localStats;
  auto giveUp = [&](std::string why) -> OwningOpRef<ModuleOp> {
    out.fallbackReason = std::move(why);
    return {};
  };
  if (llvm::endianness::native != llvm::endianness::little)
    return giveUp("the host is big-endian");

  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  Rewriter rewriter(input.getBuffer(), context, minBytes, threads);
  if (!rewriter.run())
    return giveUp(rewriter.failure);
  if (rewriter.dense.empty() && rewriter.resources.empty())
    return giveUp("no hex literal to decode");

  // Parser locations name the rewritten buffer; they are mapped back to the
  // original name and columns.
  std::string rewrittenName = input.getBufferIdentifier().str() + "\x1f";
  std::string why;
  {
    MLIRContext scratch(context->getDialectRegistry(),
                        MLIRContext::Threading::DISABLED);
    scratch.allowUnregisteredDialects(context->allowsUnregisteredDialects());
    if (!parseRewritten(rewriter.output, rewrittenName, &scratch, rewriter,
                        /*owned=*/false, why))
      return giveUp(why);
  }
  OwningOpRef<ModuleOp> module =
      parseRewritten(rewriter.output, rewrittenName, context, rewriter,
                     /*owned=*/true, why);
  if (!module)
    return giveUp(why);
  for (const DenseLiteral &literal : rewriter.dense)
    zeroCopy.add(literal.key);
  out.denseLiterals = rewriter.dense.size();
  out.resourceBlobs = rewriter.resources.size();
  out.decodedBytes = rewriter.decodedBytes;

  StringAttr rewrittenAttr = StringAttr::get(context, rewrittenName);
  StringAttr originalAttr =
      StringAttr::get(context, input.getBufferIdentifier());
  (*module)->walk([&](Operation *op) {
    op->setLoc(mapLocation(op->getLoc(), rewrittenAttr, originalAttr,
                           rewriter.shifts));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setLoc(mapLocation(argument.getLoc(), rewrittenAttr,
                                      originalAttr, rewriter.shifts));
  });
  return module;
}
