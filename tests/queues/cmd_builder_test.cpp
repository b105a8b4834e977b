#include "rawgpu/queues/cmd_builder.h"

#include <gtest/gtest.h>

namespace rawgpu::queues {
namespace {

TEST(CmdBuilder, AppendsDwordsAndSlots) {
  CmdBuilder b;
  EXPECT_TRUE(b.empty());
  b.push(0x11);
  b.push64(0x3333333322222222ull);
  const PatchSlot s32 = b.slot32(5);
  const PatchSlot s64 = b.slot64(0x0000000700000006ull);
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(s32.offset, 3u);
  EXPECT_EQ(s32.dwords, 1u);
  EXPECT_EQ(s64.offset, 4u);
  EXPECT_EQ(s64.dwords, 2u);
  const uint32_t want[] = {0x11, 0x22222222, 0x33333333, 5, 6, 7};
  EXPECT_TRUE(std::equal(b.dwords().begin(), b.dwords().end(), std::begin(want)));
}

TEST(CmdBuilder, PatchRewritesOnlyTheSlot) {
  CmdBuilder b;
  b.push(1);
  const PatchSlot a = b.slot32();
  const PatchSlot c = b.slot64();
  b.push(9);
  b.patch(a, 0xfeed);
  b.patch(c, 0xaabbccdd11223344ull);
  const uint32_t want[] = {1, 0xfeed, 0x11223344, 0xaabbccdd, 9};
  EXPECT_TRUE(std::equal(b.dwords().begin(), b.dwords().end(), std::begin(want)));
  b.clear();
  EXPECT_TRUE(b.empty());
}

TEST(CmdBuilderDeathTest, BadPatchesAreProgrammerErrors) {
  CmdBuilder b;
  const PatchSlot a = b.slot32();
  EXPECT_DEATH(b.patch(a, 0x100000000ull), "does not fit a 32-bit slot");
  EXPECT_DEATH(b.patch(PatchSlot{5, 1}, 1), "outside");
}

}  // namespace
}  // namespace rawgpu::queues
