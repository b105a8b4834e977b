// The typed Reg/Field API on generated tables. Expected values are the upstream facts
// (Linux 6.12 asic_reg headers), quoted with their source.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/mp_13_0_0.h"
#include "rawgpu/autogen/amd/regs/mp_14_0_2.h"
#include "rawgpu/autogen/amd/regs/osssys_6_0_0.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::autogen;
using gc11 = amd::gc_11_0_0;
using gc12 = amd::gc_12_0_0;

// gc_11_0_0_offset.h: regGCVM_CONTEXT0_CNTL 0x1688 (BASE_IDX 0); regSCRATCH_REG7 0x2047 (1).
TEST(AutogenRegs, OffsetsAndSegments) {
  EXPECT_EQ(gc11::GCVM_CONTEXT0_CNTL::offset(), 0x1688u);
  EXPECT_EQ(gc11::GCVM_CONTEXT0_CNTL::base_idx(), 0u);
  EXPECT_EQ(gc11::SCRATCH_REG7::offset(), 0x2047u);
  EXPECT_EQ(gc11::SCRATCH_REG7::base_idx(), 1u);
  EXPECT_EQ(gc12::GCVM_CONTEXT0_CNTL::offset(), 0x1624u);
  EXPECT_EQ(gc11::CP_HQD_ACTIVE::offset(), 0x1fabu);
  // mp_13_0_0: regMP1_SMN_C2PMSG_66 0x282; mp_14_0_2: 0x82; MPASP_SMN_C2PMSG_81 0x91.
  EXPECT_EQ(amd::mp_13_0_0::MP1_SMN_C2PMSG_66::offset(), 0x282u);
  EXPECT_EQ(amd::mp_14_0_2::MP1_SMN_C2PMSG_66::offset(), 0x82u);
  EXPECT_EQ(amd::mp_14_0_2::MPASP_SMN_C2PMSG_81::offset(), 0x91u);
}

// GCVM_CONTEXT0_CNTL.PAGE_TABLE_BLOCK_SIZE: mask 0x78 on GC 11, 0xF0 on GC 12.
TEST(AutogenRegs, FieldLayoutDiffersBetweenVersions) {
  EXPECT_EQ(gc11::GCVM_CONTEXT0_CNTL::PAGE_TABLE_BLOCK_SIZE.shift, 3);
  EXPECT_EQ(gc11::GCVM_CONTEXT0_CNTL::PAGE_TABLE_BLOCK_SIZE.mask(), 0x78u);
  EXPECT_EQ(gc12::GCVM_CONTEXT0_CNTL::PAGE_TABLE_BLOCK_SIZE.shift, 4);
  EXPECT_EQ(gc12::GCVM_CONTEXT0_CNTL::PAGE_TABLE_BLOCK_SIZE.mask(), 0xF0u);
  EXPECT_EQ(gc11::GCVM_CONTEXT0_CNTL::PAGE_TABLE_DEPTH.mask(), 0x6u);
}

TEST(AutogenRegs, EncodeDecodeUpdate) {
  using R = gc11::GCVM_CONTEXT0_CNTL;
  constexpr uint32_t v =
      R::encode(R::ENABLE_CONTEXT(1) | R::PAGE_TABLE_DEPTH(2) | R::PAGE_TABLE_BLOCK_SIZE(9));
  static_assert(v == (1u | (2u << 1) | (9u << 3)));
  EXPECT_EQ(R::PAGE_TABLE_DEPTH.get(v), 2u);
  EXPECT_EQ(R::PAGE_TABLE_BLOCK_SIZE.get(v), 9u);
  // Read-modify-write keeps the other bits (here also bits no field names).
  const uint32_t old = 0x80000001u | (3u << 1);
  const uint32_t u = R::update(old, R::PAGE_TABLE_DEPTH(1));
  EXPECT_EQ(u, 0x80000001u | (1u << 1));
  // The same program on GC 12 puts the block size one bit higher.
  using R12 = gc12::GCVM_CONTEXT0_CNTL;
  EXPECT_EQ(R12::encode(R12::PAGE_TABLE_BLOCK_SIZE(9)), 9u << 4);
}

TEST(AutogenRegs, CheckedEncodeRejectsWideValues) {
  using R = amd::osssys_6_0_0::IH_RB_CNTL;  // RB_SIZE: mask 0x3E (5 bits at 1)
  auto ok = R::RB_SIZE.checked(31, "RB_SIZE");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value().value, 31u << 1);
  auto bad = R::RB_SIZE.checked(32, "RB_SIZE");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kOutOfRange);
  EXPECT_NE(bad.error().message().find("IH_RB_CNTL.RB_SIZE"), std::string::npos);
}

TEST(AutogenRegs, AddressFromDiscoveredBases) {
  // Bases are dword addresses per BASE_IDX segment; these are example values.
  const std::array<uint64_t, 3> bases{0x1260, 0xA000, 0x1C000};
  EXPECT_EQ(gc11::SCRATCH_REG7::address(bases), 0xA000u + 0x2047u);
  EXPECT_EQ(gc11::GCVM_CONTEXT0_CNTL::address(bases), 0x1260u + 0x1688u);
}

TEST(AutogenRegs, LookupByName) {
  const RegDesc* r = find_reg(gc11::kRegisters, "GCVM_CONTEXT0_CNTL");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->offset, 0x1688u);
  const FieldDesc* f = r->field("PAGE_TABLE_BLOCK_SIZE");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->shift, 3);
  EXPECT_EQ(f->width, 4);
  EXPECT_EQ(find_reg(gc11::kRegisters, "NO_SUCH_REGISTER"), nullptr);
  auto missing = lookup_reg(gc11::kRegisters, "NO_SUCH_REGISTER", "gc_11_0_0");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
}

TEST(AutogenRegsDeathTest, EncodingTooWideValueIsAProgrammingError) {
#ifdef NDEBUG
  GTEST_SKIP() << "RG_ASSERT is compiled out in NDEBUG (release) builds";
#endif
  using R = gc11::GCVM_CONTEXT0_CNTL;
  volatile uint64_t wide = 4;  // PAGE_TABLE_DEPTH has 2 bits
  EXPECT_DEATH((void)R::PAGE_TABLE_DEPTH(wide), "check failed: fits\\(v\\)");
}

}  // namespace
