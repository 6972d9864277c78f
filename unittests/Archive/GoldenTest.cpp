#include "SampleModule.h"
#include "TestFiles.h"
#include <gtest/gtest.h>
#include <cstdio>
using namespace vmpack; using namespace vmpack::archive; using namespace vmpack::archive::testing;
TEST(Golden, Dump) {
  ScratchDir dir;
  auto writer = ArchiveWriter::create(dir.path("g"), {"golden", "vmpack", false});
  SegmentDesc d{"w", "tensor<4xi4>", *parseElementType("i4"), {4}, Encoding::Packed, 2, 64};
  ASSERT_TRUE((*writer)->addSegment(d).isOk());
  (*writer)->setProgram("prog");
  ASSERT_TRUE((*writer)->beginData().isOk());
  uint8_t data[2] = {0x21, 0x43};
  ASSERT_TRUE((*writer)->writeSegmentData(0, 0, data, 2).isOk());
  ASSERT_TRUE((*writer)->finish().isOk());
  auto bytes = readFile(dir.path("g"));
  FILE *f = fopen("/tmp/golden.vmpk", "wb"); fwrite(bytes.data(), 1, bytes.size(), f); fclose(f);
}
