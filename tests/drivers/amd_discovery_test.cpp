// AMD IP discovery (drivers/amd/discovery.h): the simulated boards' tables (sim/discovery_table.h)
// parse to the blocks, versions, bases and gc_info counts they were built from; every
// structural inconsistency of a corrupted table is a kParse/kUnsupported error naming what is
// wrong, never an out-of-bounds read; register addresses come from the discovered bases.
#include "rawgpu/drivers/amd/discovery.h"

#include <gtest/gtest.h>

#include <cstring>

#include "rawgpu/autogen/amd/discovery.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/sim/discovery_table.h"

namespace rawgpu::drivers::amd {
namespace {

namespace dt = autogen::amd::discovery;
namespace hw = autogen::amd::hwid;

std::vector<uint8_t> table(uint32_t gc) {
  return sim::build_discovery_table(sim::discovery_spec(gc).value());
}

template <class T>
T at(const std::vector<uint8_t>& b, size_t off) {
  T t;
  std::memcpy(static_cast<void*>(&t), b.data() + off, sizeof t);
  return t;
}
template <class T>
void put(std::vector<uint8_t>& b, size_t off, const T& t) {
  std::memcpy(b.data() + off, &t, sizeof t);
}

// Recomputes every checksum after a test edited a field, so the parser reaches the check the
// test aims at instead of stopping at the checksum.
void fix_checksums(std::vector<uint8_t>& b) {
  auto bh = at<dt::binary_header>(b, 0);
  auto fix = [&](unsigned idx, size_t size) {
    dt::table_info& ti = bh.table_list[idx];
    if (ti.offset != 0 && ti.offset + size <= b.size())
      ti.checksum = discovery_checksum(std::span<const uint8_t>(b).subspan(ti.offset, size));
  };
  fix(dt::IP_DISCOVERY,
      at<dt::ip_discovery_header>(b, bh.table_list[dt::IP_DISCOVERY].offset).size);
  if (bh.table_list[dt::GC].offset != 0)
    fix(dt::GC, at<dt::gpu_info_header>(b, bh.table_list[dt::GC].offset).size);
  fix(dt::HARVEST_INFO, sizeof(dt::harvest_table));
  put(b, 0, bh);
  constexpr size_t kFrom = offsetof(dt::binary_header, binary_checksum) + 2;
  bh.binary_checksum =
      discovery_checksum(std::span<const uint8_t>(b).subspan(kFrom, bh.binary_size - kFrom));
  put(b, 0, bh);
}

void expect_error(const std::vector<uint8_t>& b, Errc code, const std::string& needle) {
  auto d = parse_discovery(b);
  ASSERT_FALSE(d.ok()) << "accepted a table that should fail with: " << needle;
  EXPECT_EQ(d.error().code(), code) << d.error().to_string();
  EXPECT_NE(d.error().to_string().find(needle), std::string::npos) << d.error().to_string();
}

size_t ip_table_offset(const std::vector<uint8_t>& b) {
  return at<dt::binary_header>(b, 0).table_list[dt::IP_DISCOVERY].offset;
}

TEST(AmdDiscovery, Navi31ProfileParsesToItsBlocksVersionsAndBases) {
  const auto d = parse_discovery(table(110000));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->binary_major, 1u);
  EXPECT_EQ(d->ip_version, 4u);
  EXPECT_FALSE(d->base_addr_64);
  EXPECT_EQ(d->num_dies, 1u);
  ASSERT_EQ(d->ips.size(), 9u);
  const IpBlock* gc = d->find(hw::GC_HWID);
  ASSERT_NE(gc, nullptr);
  EXPECT_EQ(gc->version, (IpVersion{11, 0, 0}));
  EXPECT_EQ(gc->version.packed(), 110000u);
  EXPECT_EQ(gc->bases, (std::vector<uint64_t>{0x1260, 0xA000, 0x1C000, 0x2402C00}));
  EXPECT_EQ(d->find(hw::MP0_HWID)->version, (IpVersion{13, 0, 0}));
  EXPECT_EQ(d->find(hw::NBIF_HWID)->version, (IpVersion{4, 3, 0}));
  EXPECT_EQ(d->find(hw::NBIF_HWID)->bases.size(), 6u);
  EXPECT_EQ(d->find(hw::SDMA1_HWID)->version, (IpVersion{6, 0, 0}));
  EXPECT_EQ(d->count(hw::GC_HWID), 1u);
  EXPECT_TRUE(d->harvest.empty());
  ASSERT_TRUE(d->gc.has_value());
  EXPECT_EQ(d->gc->version_major, 1u);
  EXPECT_EQ(d->gc->num_se, 6u);
  EXPECT_EQ(d->gc->cu_per_sa(), 8u);
  EXPECT_EQ(d->gc->cu_count(), 96u);
  EXPECT_EQ(d->gc->wave_size, 32u);
  EXPECT_EQ(gc_target(gc->version), "gfx1100");
  EXPECT_NE(describe(*d).find("GC      11.0.0    inst 0 die 0 bases 0x1260 0xa000"),
            std::string::npos)
      << describe(*d);
}

TEST(AmdDiscovery, Navi48ProfileParses) {
  const auto d = parse_discovery(table(120001));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->find(hw::GC_HWID)->version, (IpVersion{12, 0, 1}));
  EXPECT_EQ(d->find(hw::MP1_HWID)->version, (IpVersion{14, 0, 3}));
  EXPECT_EQ(d->find(hw::NBIF_HWID)->version, (IpVersion{6, 3, 1}));
  EXPECT_EQ(d->gc->version_minor, 3u);
  EXPECT_EQ(d->gc->cu_count(), 64u);
  EXPECT_EQ(gc_target(d->find(hw::GC_HWID)->version), "gfx1201");
}

TEST(AmdDiscovery, Mi300xProfileHasFourDiesEightXccsAnd64BitBases) {
  const auto d = parse_discovery(table(90403));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_TRUE(d->base_addr_64);
  EXPECT_EQ(d->num_dies, 4u);
  EXPECT_EQ(d->count(hw::GC_HWID), 8u);
  EXPECT_EQ(d->count(hw::SDMA0_HWID), 16u);
  const IpBlock* xcc7 = d->find(hw::GC_HWID, 7);
  ASSERT_NE(xcc7, nullptr);
  EXPECT_EQ(xcc7->die, 3u);
  EXPECT_EQ(xcc7->bases[0], (uint64_t{3} << 32) | 0x1260);  // all 64 bits kept
  // Register addresses use the low 32 bits of a 64-bit base, as amdgpu does.
  using R = autogen::amd::gc_11_0_0::CP_HQD_ACTIVE;  // any GC register: only base math matters
  static_assert(R::kInfo.base_idx == 0);
  EXPECT_EQ(xcc7->reg<R>().value(), 0x1260u + R::kInfo.offset);
  EXPECT_EQ(d->gc->version_major, 2u);
  EXPECT_EQ(d->gc->cu_per_sa(), 10u);
  EXPECT_EQ(d->gc->wave_size, 64u);
  EXPECT_EQ(gc_target(xcc7->version, 1), "gfx942");
  EXPECT_EQ(gc_target(xcc7->version, 0), "gfx941");
}

TEST(AmdDiscovery, GcTargetsFollowTheKfdTableNotTheVersionDigits) {
  EXPECT_EQ(gc_target({11, 0, 3}), "gfx1101");  // not "gfx1103" (Phoenix)
  EXPECT_EQ(gc_target({11, 0, 2}), "gfx1102");
  EXPECT_EQ(gc_target({12, 0, 0}), "gfx1200");
  EXPECT_EQ(gc_target({9, 4, 4}), "gfx942");
  EXPECT_EQ(gc_target({13, 0, 0}), "");
}

TEST(AmdDiscovery, HarvestTableMarksInstancesAndCountsSkipThem) {
  auto spec = sim::discovery_spec(110000).value();
  spec.harvest.push_back({static_cast<uint16_t>(hw::SDMA1_HWID), 0});
  const auto d = parse_discovery(sim::build_discovery_table(spec));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  ASSERT_EQ(d->harvest.size(), 1u);
  EXPECT_TRUE(d->find(hw::SDMA1_HWID)->harvested);
  EXPECT_FALSE(d->find(hw::SDMA0_HWID)->harvested);
  EXPECT_EQ(d->count(hw::SDMA1_HWID), 0u);
  EXPECT_NE(describe(*d).find("harvested: SDMA1 instance 0"), std::string::npos);
}

TEST(AmdDiscovery, OlderIpTablesCarryAHarvestNibbleInsteadOfVariant) {
  auto spec = sim::discovery_spec(110000).value();
  spec.ip_version = 2;
  spec.harvest_table = false;
  spec.dies[0][2].sub_revision = 1;  // SDMA1: the low nibble, "harvest" in struct ip
  const auto d = parse_discovery(sim::build_discovery_table(spec));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_TRUE(d->find(hw::SDMA1_HWID)->harvested);
  EXPECT_EQ(d->find(hw::SDMA1_HWID)->sub_revision, 0u);
  spec.ip_version = 3;  // from v3 the nibble is the sub-revision
  const auto d3 = parse_discovery(sim::build_discovery_table(spec));
  ASSERT_TRUE(d3.ok()) << d3.error().to_string();
  EXPECT_FALSE(d3->find(hw::SDMA1_HWID)->harvested);
  EXPECT_EQ(d3->find(hw::SDMA1_HWID)->sub_revision, 1u);
}

TEST(AmdDiscovery, EveryGcInfoVersionRoundTrips) {
  for (auto [maj, min] : {std::pair{1, 0}, {1, 1}, {1, 2}, {1, 3}, {2, 0}, {2, 1}}) {
    SCOPED_TRACE(testing::Message() << "gc_info v" << maj << "." << min);
    auto spec = sim::discovery_spec(maj == 1 ? 110000 : 90403).value();
    spec.gc.version_major = static_cast<uint16_t>(maj);
    spec.gc.version_minor = static_cast<uint16_t>(min);
    const auto d = parse_discovery(sim::build_discovery_table(spec));
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    EXPECT_EQ(d->gc->num_se, spec.gc.num_se);
    EXPECT_EQ(d->gc->cu_per_sa(), spec.gc.cu_per_sa());
    EXPECT_EQ(d->gc->lds_size_kib, 64u);
    // v1.0/v1.1 have no shader-array count.
    EXPECT_EQ(d->gc->sa_per_se, maj == 1 && min < 2 ? 0u : spec.gc.sa_per_se);
  }
}

TEST(AmdDiscovery, RegisterAddressesComeFromTheDiscoveredBases) {
  auto spec = sim::discovery_spec(110000).value();
  spec.dies[0][0].bases = {0x2000, 0xB000};  // GC with other bases
  const auto d = parse_discovery(sim::build_discovery_table(spec));
  ASSERT_TRUE(d.ok());
  using Active = autogen::amd::gc_11_0_0::CP_HQD_ACTIVE;
  const IpBlock* gc = d->find(hw::GC_HWID);
  EXPECT_EQ(gc->reg<Active>().value(),
            spec.dies[0][0].bases[Active::kInfo.base_idx] + Active::kInfo.offset);
  // A register of a segment the instance lacks is an error naming both.
  auto r = gc->reg_address("SOME_SEG3_REG", 0x10, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kOutOfRange);
  EXPECT_NE(r.error().to_string().find("GC instance 0 has 2 base"), std::string::npos)
      << r.error().to_string();
  EXPECT_EQ(d->require(hw::UMC_HWID).error().code(), Errc::kNotFound);
}

TEST(AmdDiscovery, BinaryHeaderCorruptionIsNamed) {
  auto b = table(110000);
  {
    auto c = b;
    c[0] ^= 1;
    expect_error(c, Errc::kParse, "binary signature");
  }
  {
    auto c = b;
    c[40] ^= 0x10;  // inside the table list: the binary checksum catches it
    expect_error(c, Errc::kParse, "binary checksum mismatch");
  }
  {
    auto c = b;
    auto bh = at<dt::binary_header>(c, 0);
    bh.binary_size = static_cast<uint16_t>(c.size() + 4);
    put(c, 0, bh);
    expect_error(c, Errc::kParse, "binary_size");
  }
  {
    auto c = b;
    auto bh = at<dt::binary_header>(c, 0);
    bh.version_major = 3;
    put(c, 0, bh);
    fix_checksums(c);
    expect_error(c, Errc::kUnsupported, "binary header version 3");
  }
}

TEST(AmdDiscovery, IpTableCorruptionIsNamed) {
  const auto b = table(110000);
  const size_t ip = ip_table_offset(b);
  auto edit = [&](auto f) {
    auto c = b;
    auto ih = at<dt::ip_discovery_header>(c, ip);
    f(c, ih);
    put(c, ip, ih);
    fix_checksums(c);
    return c;
  };
  expect_error(edit([](auto&, auto& ih) { ih.signature = 0; }), Errc::kParse, "\"IPDS\"");
  expect_error(edit([](auto&, auto& ih) { ih.version = 5; }), Errc::kUnsupported,
               "IP discovery header version 5");
  expect_error(edit([](auto&, auto& ih) { ih.num_dies = 0; }), Errc::kParse, "num_dies 0");
  expect_error(edit([](auto&, auto& ih) { ih.die_info[0].die_offset = 2; }), Errc::kParse,
               "die 0 header at 0x2 lies outside");
  // A record count that runs past the table.
  expect_error(edit([&](auto& c, auto& ih) {
                 auto dh = at<dt::die_header>(c, ih.die_info[0].die_offset);
                 dh.num_ips = 10;
                 put(c, ih.die_info[0].die_offset, dh);
               }),
               Errc::kParse, "IP record 9");
  // A base count no record could have.
  expect_error(edit([&](auto& c, auto& ih) {
                 const size_t rec = ih.die_info[0].die_offset + sizeof(dt::die_header);
                 c[rec + 3] = 200;  // num_base_address of the first record (GC)
               }),
               Errc::kParse, "200 base addresses");
  // An IP table checksum that does not match (the binary checksum fixed, the table's not).
  auto c = b;
  c[ip + sizeof(dt::ip_discovery_header) + 8] ^= 1;
  auto bh = at<dt::binary_header>(c, 0);
  constexpr size_t kFrom = offsetof(dt::binary_header, binary_checksum) + 2;
  bh.binary_checksum =
      discovery_checksum(std::span<const uint8_t>(c).subspan(kFrom, bh.binary_size - kFrom));
  put(c, 0, bh);
  expect_error(c, Errc::kParse, "IP discovery checksum mismatch");
}

TEST(AmdDiscovery, GcInfoAndHarvestCorruptionIsNamed) {
  const auto b = table(110000);
  const auto bh = at<dt::binary_header>(b, 0);
  const size_t gc = bh.table_list[dt::GC].offset, hv = bh.table_list[dt::HARVEST_INFO].offset;
  auto edit_gc = [&](auto f) {
    auto c = b;
    auto h = at<dt::gpu_info_header>(c, gc);
    f(h);
    put(c, gc, h);
    fix_checksums(c);
    return c;
  };
  expect_error(edit_gc([](auto& h) { h.table_id = 1; }), Errc::kParse, "gc_info at");
  expect_error(edit_gc([](auto& h) { h.version_major = 7; }), Errc::kUnsupported,
               "gc_info version 7");
  expect_error(edit_gc([](auto& h) { h.size = 20; }), Errc::kParse, "declares 20 bytes");
  expect_error(edit_gc([](auto& h) { h.size = 0xF000; }), Errc::kParse, "runs past the end");
  auto c = b;
  c[hv] ^= 0x40;
  fix_checksums(c);
  expect_error(c, Errc::kParse, "\"HARV\"");
}

TEST(AmdDiscovery, EveryTruncationFailsCleanly) {
  const auto b = table(90403);
  for (size_t n = 0; n < b.size(); ++n) {
    auto d = parse_discovery(std::span<const uint8_t>(b).first(n));
    ASSERT_FALSE(d.ok()) << "accepted " << n << " of " << b.size() << " bytes";
    EXPECT_TRUE(d.error().code() == Errc::kParse) << d.error().to_string();
  }
  EXPECT_TRUE(parse_discovery(b).ok());
}

}  // namespace
}  // namespace rawgpu::drivers::amd
