// The register database (drivers/amd/registers.h): table selection by the amd.md §1 rule and
// its overrides, names resolved to discovered bases, fields decoded and updated.
#include "rawgpu/drivers/amd/registers.h"

#include <gtest/gtest.h>

#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/sim/discovery_table.h"

namespace rawgpu::drivers::amd {
namespace {

namespace hw = autogen::amd::hwid;

std::string table_for(uint32_t id, IpVersion v) {
  auto t = select_reg_table(static_cast<uint16_t>(id), v);
  return t.ok() ? std::string(t->name) : "error: " + t.error().message();
}

TEST(AmdRegisters, TableSelectionFollowsTheRuleAndItsOverrides) {
  EXPECT_EQ(table_for(hw::GC_HWID, {11, 0, 0}), "gc_11_0_0");
  EXPECT_EQ(table_for(hw::GC_HWID, {11, 0, 2}), "gc_11_0_0");  // greatest <= same major
  EXPECT_EQ(table_for(hw::GC_HWID, {12, 0, 1}), "gc_12_0_0");
  EXPECT_EQ(table_for(hw::GC_HWID, {9, 4, 3}), "gc_9_4_3");
  EXPECT_EQ(table_for(hw::NBIF_HWID, {4, 3, 0}), "nbio_4_3_0");
  EXPECT_EQ(table_for(hw::NBIF_HWID, {6, 3, 1}), "nbif_6_3_1");
  EXPECT_EQ(table_for(hw::MP1_HWID, {14, 0, 3}), "mp_14_0_2");
  EXPECT_EQ(table_for(hw::MP1_HWID, {13, 0, 6}), "mp_13_0_6");
  EXPECT_EQ(table_for(hw::MP1_HWID, {13, 0, 7}), "mp_13_0_0");   // override, not 13_0_6
  EXPECT_EQ(table_for(hw::MP0_HWID, {13, 0, 10}), "mp_13_0_0");  // override
  EXPECT_EQ(table_for(hw::MP0_HWID, {11, 0, 0}), "mp_11_0");
  EXPECT_EQ(table_for(hw::SDMA0_HWID, {6, 0, 3}), "gc_11_0_0");  // SDMA 6 lives in GC 11
  EXPECT_EQ(table_for(hw::SDMA1_HWID, {7, 0, 1}), "gc_12_0_0");
  EXPECT_EQ(table_for(hw::SDMA0_HWID, {4, 4, 2}), "sdma_4_4_2");
  const std::string none = table_for(hw::GC_HWID, {10, 3, 0});
  EXPECT_NE(none.find("no generated register table for GC 10.3.0"), std::string::npos) << none;
  EXPECT_NE(none.find("gc_11_0_0"), std::string::npos) << none;  // lists what exists
}

TEST(AmdRegisters, NamesResolveToTheDiscoveredBases) {
  auto spec = sim::discovery_spec(110000).value();
  spec.dies[0][0].bases = {0x3000, 0xC000};  // GC elsewhere than the usual 0x1260
  const Discovery d = parse_discovery(sim::build_discovery_table(spec)).value();
  const RegisterMap m(d);
  EXPECT_TRUE(m.missing().empty());
  using Cntl = autogen::amd::gc_11_0_0::GCVM_CONTEXT0_CNTL;
  for (const char* n : {"GCVM_CONTEXT0_CNTL", "regGCVM_CONTEXT0_CNTL", "GC:GCVM_CONTEXT0_CNTL",
                        "GC[0]:GCVM_CONTEXT0_CNTL"}) {
    auto r = m.find(n);
    ASSERT_TRUE(r.ok()) << n << ": " << r.error().to_string();
    EXPECT_EQ(r->address, 0x3000u + Cntl::kInfo.offset) << n;
    EXPECT_EQ(r->table, "gc_11_0_0");
    EXPECT_EQ(m.name_at(r->address), "GCVM_CONTEXT0_CNTL");
  }
  EXPECT_EQ(m.find("MMHUB:GCVM_CONTEXT0_CNTL").error().code(), Errc::kNotFound);
  EXPECT_EQ(m.find("GC[1]:GCVM_CONTEXT0_CNTL").error().code(), Errc::kNotFound);
  EXPECT_EQ(m.find("GC[x]:GCVM_CONTEXT0_CNTL").error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(m.find("GC[1:A").error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(m.find("").error().code(), Errc::kInvalidArgument);
  // MP1's mailbox through the MP table at MP1's bases.
  auto mb = m.find("MP1_SMN_C2PMSG_66");
  ASSERT_TRUE(mb.ok()) << mb.error().to_string();
  EXPECT_EQ(mb->table, "mp_13_0_0");
}

TEST(AmdRegisters, FieldsDecodeAndUpdate) {
  const Discovery d =
      parse_discovery(sim::build_discovery_table(sim::discovery_spec(110000).value())).value();
  const RegisterMap m(d);
  const autogen::RegDesc& r = *m.find("GCVM_CONTEXT0_CNTL").value().reg;
  using Cntl = autogen::amd::gc_11_0_0::GCVM_CONTEXT0_CNTL;
  const uint32_t v = Cntl::encode(Cntl::ENABLE_CONTEXT(1) | Cntl::PAGE_TABLE_DEPTH(3));
  const std::string s = decode_fields(r, v);
  EXPECT_NE(s.find("ENABLE_CONTEXT=0x1 PAGE_TABLE_DEPTH=0x3"), std::string::npos) << s;
  EXPECT_EQ(update_field(r, "PAGE_TABLE_DEPTH", v, 1).value(),
            Cntl::encode(Cntl::ENABLE_CONTEXT(1) | Cntl::PAGE_TABLE_DEPTH(1)));
  EXPECT_EQ(update_field(r, "PAGE_TABLE_DEPTH", v, 4).error().code(), Errc::kOutOfRange);
  EXPECT_EQ(update_field(r, "NOPE", v, 0).error().code(), Errc::kNotFound);
}

}  // namespace
}  // namespace rawgpu::drivers::amd
