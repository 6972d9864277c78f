// An independent GGUF reader check: npm's @huggingface/gguf parses the file,
// and this script checks every tensor's type, shape, alignment and bytes
// against what vmpack-formats-testgen wrote. No vmpack code is involved.
//
// Usage: node read_gguf.mjs NODE_MODULES FILE [IREE_DUMP_PARAMETERS]
//
// A FILE named NAME-00001-of-0000N.gguf is the first of a split set: the
// package's ggufAllShards reads all N files, every file must carry
// llama.cpp's gguf-split keys (split.no = its 0-based number, split.count = N,
// split.tensors.count = the tensors of all files; uint16, uint16, int32), only
// the first the model's other pairs, and every file's tensors are checked
// as below (and listed by IREE, file by file).
//
// Tensor "tN.TYPE" holds scalar k = (k * 37 + N * 11) mod 2^W (0/1 for i1)
// of MLIR element type TYPE; "qN.NAME" holds ggml blocks whose byte j is
// (j * 37 + N * 11) mod 256. Numbers below come from ggml-org/ggml:
// include/ggml.h (enum ggml_type) and src/ggml-common.h (block sizes).
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, file, iree] = process.argv.slice(2);
const { gguf, ggufAllShards } = await import(
  pathToFileURL(join(modules, "@huggingface/gguf/dist/index.mjs")).href);

const PLAIN = { f32: [0, 32], f16: [1, 16], i8: [24, 8], i16: [25, 16],
                i32: [26, 32], i64: [27, 64], f64: [28, 64], bf16: [30, 16] };
// name: [ggml type, elements per block, bytes per block]
const BLOCKS = {
  Q4_0: [2, 32, 18], Q4_1: [3, 32, 20], Q5_0: [6, 32, 22], Q5_1: [7, 32, 24],
  Q8_0: [8, 32, 34], Q8_1: [9, 32, 36], Q2_K: [10, 256, 84],
  Q3_K: [11, 256, 110], Q4_K: [12, 256, 144], Q5_K: [13, 256, 176],
  Q6_K: [14, 256, 210], Q8_K: [15, 256, 292], IQ2_XXS: [16, 256, 66],
  IQ2_XS: [17, 256, 74], IQ3_XXS: [18, 256, 98], IQ1_S: [19, 256, 50],
  IQ4_NL: [20, 32, 18], IQ3_S: [21, 256, 110], IQ2_S: [22, 256, 82],
  IQ4_XS: [23, 256, 136], IQ1_M: [29, 256, 56], TQ1_0: [34, 256, 54],
  TQ2_0: [35, 256, 66], MXFP4: [39, 32, 17], NVFP4: [40, 64, 36],
  Q1_0: [41, 128, 18], Q2_0: [42, 64, 18],
};
// The sample shapes of SampleTensors.cpp, by tensor number.
const sampleShape = (n) => [[3, 5], [7], [2, 3, 3]][n % 3];

function bitsOf(mlir) {
  let m = /^complex<(.*)>$/.exec(mlir);
  if (m) return [bitsOf(m[1])[0], 2];
  m = /^(?:i|si|ui)(\d+)$/.exec(mlir);
  if (m) return [Number(m[1]), 1];
  const fixed = { f16: 16, bf16: 16, f32: 32, f64: 64, tf32: 19, index: 64 };
  if (mlir in fixed) return [fixed[mlir], 1];
  m = /^f(\d)E\d+M\d+/.exec(mlir);
  if (m) return [Number(m[1]), 1];
  throw new Error("unknown type " + mlir);
}

const pattern = (bits, k, n) => {
  const v = BigInt(k) * 37n + BigInt(n) * 11n;
  return bits === 1 ? v & 1n : bits >= 64 ? v & ((1n << 64n) - 1n)
                                          : v & ((1n << BigInt(bits)) - 1n);
};

function fail(message) {
  console.error(file + ": " + message);
  process.exit(1);
}

function checkFile(file, r, first) {
const bytes = readFileSync(file);
const meta = r.metadata;
if (first && meta["general.name"] !== "vmpack sample") fail("general.name is " + meta["general.name"]);
if (!first && meta["general.name"] !== undefined) fail(file + ": general.name outside the first split");
const alignment = BigInt(meta["general.alignment"] ?? 32);
const listed = new Map();
for (const t of r.tensorInfos) {
  const start = r.tensorDataOffset + t.offset;
  if (start % alignment !== 0n) fail(t.name + " is not aligned");
  const shape = t.shape.map(Number).reverse(); // outermost first
  const count = shape.reduce((a, b) => a * b, 1);
  let m = /^q(\d+)\.(.+)$/.exec(t.name);
  let length;
  if (m) {
    const [type, block, size] = BLOCKS[m[2]];
    if (t.dtype !== type) fail(`${t.name}: dtype ${t.dtype}, expected ${type}`);
    if (shape.join() !== [3, 2 * block].join()) fail(`${t.name}: shape ${shape}`);
    length = (count / block) * size;
    for (let j = 0; j < length; ++j)
      if (BigInt(bytes[Number(start) + j]) !== pattern(8, j, Number(m[1])))
        fail(`${t.name}: byte ${j} differs`);
  } else {
    m = /^t(\d+)\.(.+)$/.exec(t.name);
    if (!m) fail("unexpected tensor " + t.name);
    const n = Number(m[1]);
    const logical = meta["vmpack.type." + t.name];
    let mlir = m[2], want = sampleShape(n), stream;
    const [bits, per] = bitsOf(mlir);
    const scalars = want.reduce((a, b) => a * b, 1) * per;
    // Aliases (si8 ... si64, index) are stored as their plain ggml type,
    // the logical type in a vmpack.type key.
    const alias = /^si(8|16|32|64)$/.test(mlir) ? "i" + mlir.slice(2)
                : mlir === "index" ? "i64" : undefined;
    if (logical !== undefined && !alias) {
      // Stored as I8 bytes: a dense bit stream, least significant bit first.
      if (logical !== `tensor<${want.join("x")}x${mlir}>`) fail(`${t.name}: ${logical}`);
      if (t.dtype !== 24 || shape.length !== 1) fail(`${t.name}: not I8 bytes`);
      if (shape[0] !== Math.ceil((scalars * bits) / 8)) fail(`${t.name}: ${shape[0]} bytes`);
      length = shape[0];
      stream = (k) => {
        let v = 0n;
        for (let b = 0; b < bits; ++b) {
          const bit = k * bits + b;
          v |= BigInt((bytes[Number(start) + (bit >> 3)] >> (bit & 7)) & 1) << BigInt(b);
        }
        return v;
      };
    } else {
      if (alias) {
        if (logical !== `tensor<${want.join("x")}x${mlir}>`) fail(`${t.name}: ${logical}`);
        mlir = alias;
      }
      if (!(mlir in PLAIN)) fail(`${t.name}: no ggml type for ${mlir} and no vmpack.type key`);
      if (t.dtype !== PLAIN[mlir][0]) fail(`${t.name}: dtype ${t.dtype}`);
      if (shape.join() !== want.join()) fail(`${t.name}: shape ${shape}`);
      const width = bits / 8;
      length = scalars * width;
      stream = (k) => {
        let v = 0n;
        for (let b = 0; b < width; ++b)
          v |= BigInt(bytes[Number(start) + k * width + b]) << BigInt(8 * b);
        return v;
      };
    }
    for (let k = 0; k < scalars; ++k)
      if (stream(k) !== pattern(bits, k, n)) fail(`${t.name}: scalar ${k} differs`);
  }
  if (Number(start) + length > bytes.length) fail(`${t.name} runs past the end`);
  listed.set(t.name, [Number(start), length]);
  ++checked;
}
return listed;
}
let checked = 0;
const shardName = /-(\d{5})-of-(\d{5})\.gguf$/.exec(file);
const files = [];
if (shardName) {
  const all = await ggufAllShards(file, { allowLocalFile: true, typedMetadata: true });
  const n = Number(shardName[2]);
  if (all.shards.length !== n) fail(`${all.shards.length} splits, expected ${n}`);
  let total = 0;
  all.shards.forEach((r, k) => {
    const t = r.typedMetadata;
    const want = [["split.no", k, 2], ["split.count", n, 2],
                  ["split.tensors.count", undefined, 5]];
    for (const [key, value, type] of want) {
      if (!t[key]) fail(`${all.urls[k]}: no ${key}`);
      if (t[key].type !== type) fail(`${all.urls[k]}: ${key} has type ${t[key].type}`);
      if (value !== undefined && t[key].value !== value)
        fail(`${all.urls[k]}: ${key} is ${t[key].value}, expected ${value}`);
    }
    total += r.tensorInfos.length;
    files.push([all.urls[k], checkFile(all.urls[k], r, k === 0)]);
  });
  for (const r of all.shards)
    if (r.metadata["split.tensors.count"] !== total)
      fail(`split.tensors.count ${r.metadata["split.tensors.count"]}, the splits hold ${total}`);
  console.log(`@huggingface/gguf: ${n} splits, split keys as gguf-split writes them`);
} else {
  files.push([file, checkFile(file, await gguf(file, { allowLocalFile: true }), true)]);
}
console.log(`@huggingface/gguf: ${checked} tensors match`);

if (iree) {
  for (const [path, listed] of files) {
  const out = execFileSync(iree, ["--parameters=" + path], { encoding: "utf8" });
  let seen = 0;
  for (const line of out.split("\n")) {
    const m = /^\s*(\d+) \|\s*(\d+) \|\s*(\d+) \| `(.*)`$/.exec(line);
    if (!m) continue;
    const want = listed.get(m[4]);
    if (!want || want[0] !== Number(m[1]) || want[1] !== Number(m[3]))
      fail(`IREE lists ${m[4]} at ${m[1]}+${m[3]}, expected ${want}`);
    ++seen;
  }
  if (seen !== listed.size) fail(`IREE lists ${seen} entries, expected ${listed.size}`);
  console.log(`iree-dump-parameters: ${path}: ${seen} entries at the same offsets`);
  }
}
