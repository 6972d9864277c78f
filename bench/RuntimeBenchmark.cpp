//===- RuntimeBenchmark.cpp - Unpacking through the C runtime -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The runtime's hot path: i4 weights stored `packed`, unpacked to int8 with
// vmpack_segment_unpack from a mapped module, against a plain memcpy of the
// same output size. Bytes/s count output bytes. Also full verification, and
// opening the file by each load path against reading it like `cat`. The
// context line `vmpack_dispatch` names the kernels' dispatch level.
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/ArchiveWriter.h"
#include "vmpack/Pack/Dispatch.h"
#include "vmpack/vmpack.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace vmpack;
using namespace vmpack::archive;

namespace {

constexpr uint64_t kElements = uint64_t(64) << 20; // 64 Mi i4 = 32 MiB stored

/// A module with one tensor<kElements x i4> segment, mapped for the run.
struct BenchModule {
  std::string path;
  vmpack_module_t *module = nullptr;

  BenchModule() {
    const char *tmp = std::getenv("TMPDIR");
    path = std::string(tmp ? tmp : "/tmp") + "/vmpack-runtime-bench-" +
           std::to_string(::getpid()) + ".vmpk";
    auto writer = ArchiveWriter::create(path, {"bench", "vmpack", false});
    if (!writer)
      std::abort();
    SegmentDesc d;
    d.name = "w";
    d.mlirType = "tensor<67108864xi4>";
    d.elementType = *parseElementType("i4");
    d.shape = {int64_t(kElements)};
    d.encoding = Encoding::Packed;
    d.length = kElements / 2;
    if (!(*writer)->addSegment(d) || !(*writer)->beginData())
      std::abort();
    std::vector<uint8_t> chunk(1 << 20);
    std::mt19937 rng(1);
    for (auto &b : chunk)
      b = uint8_t(rng());
    for (uint64_t off = 0; off < kElements / 2; off += chunk.size())
      if (!(*writer)->writeSegmentData(0, off, chunk.data(), chunk.size()))
        std::abort();
    if (!(*writer)->finish())
      std::abort();
    if (vmpack_module_open_file(path.c_str(), &module) != VMPACK_OK)
      std::abort();
  }
  ~BenchModule() {
    vmpack_module_close(module);
    ::unlink(path.c_str());
  }
};

BenchModule &benchModule() {
  static BenchModule m;
  return m;
}

void BM_UnpackI4ToInt8(benchmark::State &state) {
  vmpack_module_t *m = benchModule().module;
  std::vector<int8_t> out(kElements);
  for (auto _ : state) {
    if (vmpack_segment_unpack(m, 0, 0, kElements, VMPACK_DTYPE_INT8, out.data(),
                              out.size()) != VMPACK_OK)
      state.SkipWithError(vmpack_last_error());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * kElements));
}
BENCHMARK(BM_UnpackI4ToInt8)->Unit(benchmark::kMillisecond);

void BM_MemcpySameOutputSize(benchmark::State &state) {
  std::vector<int8_t> in(kElements, 1), out(kElements);
  for (auto _ : state) {
    std::memcpy(out.data(), in.data(), kElements);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations() * kElements));
}
BENCHMARK(BM_MemcpySameOutputSize)->Unit(benchmark::kMillisecond);

void BM_UnpackI4ToInt32Slice(benchmark::State &state) {
  vmpack_module_t *m = benchModule().module;
  std::vector<int32_t> out(kElements / 8);
  for (auto _ : state) {
    if (vmpack_segment_unpack(m, 0, 12345, out.size(), VMPACK_DTYPE_INT32,
                              out.data(), out.size() * 4) != VMPACK_OK)
      state.SkipWithError(vmpack_last_error());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations() * out.size() * 4));
}
BENCHMARK(BM_UnpackI4ToInt32Slice)->Unit(benchmark::kMillisecond);

void BM_VerifyModule(benchmark::State &state) {
  vmpack_module_t *m = benchModule().module;
  for (auto _ : state)
    if (vmpack_module_verify(m, unsigned(state.range(0))) != VMPACK_OK)
      state.SkipWithError(vmpack_last_error());
  state.SetBytesProcessed(int64_t(state.iterations() * kElements / 2));
}
BENCHMARK(BM_VerifyModule)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

/// Opening the module file with full verification, by each load path,
/// against reading the same file into a small reused buffer the way `cat`
/// does. The file is in the page cache after the first iteration. Bytes/s
/// count file bytes; one thread, or the argument's threads for the read
/// path (2: two threads read the chunks in turn, each summing its CRCs).
uint64_t benchFileSize() {
  struct stat st;
  if (::stat(benchModule().path.c_str(), &st) != 0)
    std::abort();
  return uint64_t(st.st_size);
}

void BM_CatFile(benchmark::State &state) {
  const std::string &path = benchModule().path;
  std::vector<char> buffer(128 << 10);
  for (auto _ : state) {
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
      std::abort();
    while (::read(fd, buffer.data(), buffer.size()) > 0)
      benchmark::DoNotOptimize(buffer.data());
    ::close(fd);
  }
  state.SetBytesProcessed(int64_t(state.iterations() * benchFileSize()));
}
BENCHMARK(BM_CatFile)->Unit(benchmark::kMillisecond)->UseRealTime();

void openAndVerify(benchmark::State &state, vmpack_load_mode_t mode,
                   bool callerBuffer, unsigned threads = 1) {
  const std::string &path = benchModule().path;
  uint64_t size = benchFileSize();
  std::vector<uint8_t> storage;
  vmpack_open_options_t o;
  vmpack_open_options_init(&o);
  o.load_mode = mode;
  o.verify = VMPACK_VERIFY_FULL;
  o.threads = threads;
  if (callerBuffer) {
    storage.assign(size + 65536, 0); // touched once, outside the loop
    uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    o.buffer = storage.data() + (65536 - p % 65536) % 65536;
    o.buffer_size = size;
  }
  for (auto _ : state) {
    vmpack_module_t *m = nullptr;
    if (vmpack_module_open_file_with_options(path.c_str(), &o, &m) != VMPACK_OK)
      state.SkipWithError(vmpack_last_error());
    vmpack_module_close(m);
  }
  state.SetBytesProcessed(int64_t(state.iterations() * size));
}

void BM_OpenVerify_Read(benchmark::State &state) {
  openAndVerify(state, VMPACK_LOAD_READ, false, unsigned(state.range(0)));
}
BENCHMARK(BM_OpenVerify_Read)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_OpenVerify_ReadIntoBuffer(benchmark::State &state) {
  openAndVerify(state, VMPACK_LOAD_READ, true, unsigned(state.range(0)));
}
BENCHMARK(BM_OpenVerify_ReadIntoBuffer)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_OpenVerify_Mmap(benchmark::State &state) {
  openAndVerify(state, VMPACK_LOAD_MMAP, false);
}
BENCHMARK(BM_OpenVerify_Mmap)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

int main(int argc, char **argv) {
  benchmark::AddCustomContext(
      "vmpack_dispatch",
      vmpack::dispatchLevelName(vmpack::activeDispatchLevel()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
