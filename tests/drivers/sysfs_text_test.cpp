#include "rawgpu/drivers/pci/sysfs_text.h"

#include <gtest/gtest.h>

#include <string>

namespace rawgpu::pci {
namespace {

::testing::AssertionResult fails_with(const Error& e, Errc code, const std::string& text) {
  if (e.code() != code)
    return ::testing::AssertionFailure() << "code " << errc_name(e.code()) << ", want "
                                         << errc_name(code) << ": " << e.to_string();
  if (e.to_string().find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "'" << e.to_string() << "' lacks '" << text << "'";
  return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult fails_with(const Result<T>& r, Errc code, const std::string& text) {
  if (r.ok()) return ::testing::AssertionFailure() << "succeeded; want " << errc_name(code);
  return fails_with(r.error(), code, text);
}

// A Navi31's `resource` as Linux prints it (17 lines: BARs, ROM, SR-IOV BARs, bridge windows).
constexpr const char* kNavi31Resource =
    "0x0000007800000000 0x0000007fffffffff 0x000000000014220c\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000007c10000000 0x0000007c101fffff 0x000000000014220c\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x000000000000e000 0x000000000000e0ff 0x0000000000040101\n"
    "0x00000000fcc00000 0x00000000fccfffff 0x0000000000040200\n"
    "0x00000000fcd00000 0x00000000fcd1ffff 0x0000000000046200\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
    "0x0000000000000000 0x0000000000000000 0x0000000000000000\n";

TEST(SysfsResource, Navi31) {
  auto r = parse_resource(kNavi31Resource);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 17u);
  const ResourceRegion& bar0 = (*r)[0];
  EXPECT_EQ(bar0.index, 0);
  EXPECT_TRUE(bar0.used());
  EXPECT_TRUE(bar0.mem());
  EXPECT_FALSE(bar0.io());
  EXPECT_TRUE(bar0.is_64bit());
  EXPECT_TRUE(bar0.prefetchable());
  EXPECT_EQ(bar0.start, 0x7800000000u);
  EXPECT_EQ(bar0.end, 0x7fffffffffu);
  EXPECT_EQ(bar0.size(), 32ull << 30);
  EXPECT_FALSE((*r)[1].used());
  EXPECT_EQ((*r)[1].size(), 0u);
  EXPECT_EQ((*r)[2].size(), 2u << 20);
  const ResourceRegion& io = (*r)[4];
  EXPECT_TRUE(io.io());
  EXPECT_FALSE(io.mem());
  EXPECT_EQ(io.size(), 256u);
  const ResourceRegion& mmio = (*r)[5];
  EXPECT_TRUE(mmio.mem());
  EXPECT_FALSE(mmio.is_64bit());
  EXPECT_FALSE(mmio.prefetchable());
  EXPECT_EQ(mmio.size(), 1u << 20);
  EXPECT_EQ((*r)[6].index, 6);  // expansion ROM
  EXPECT_EQ((*r)[6].size(), 128u << 10);
  EXPECT_EQ((*r)[16].index, 16);
}

TEST(SysfsResource, Formatting) {
  // No final newline, short hex, upper-case digits, tabs and extra blanks.
  auto r = parse_resource("0x1000\t0x1FFF  0x200\n 0x0 0x0 0x0");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].size(), 0x1000u);
  EXPECT_FALSE((*r)[1].used());
  auto empty = parse_resource("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  // A used region covering all of the 64-bit space: its size (2^64) wraps to 0.
  auto all = parse_resource("0x0 0xffffffffffffffff 0x200\n");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE((*all)[0].used());
  // Flags without I/O or memory: a range that is not a usable region.
  auto other = parse_resource("0x1000 0x1fff 0x0\n");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE((*other)[0].used());
}

TEST(SysfsResource, BadLines) {
  const std::string ok = "0x0 0x0 0x0\n";
  EXPECT_TRUE(fails_with(parse_resource(ok + "0x1000 0x1fff\n"), Errc::kParse,
                         "sysfs resource line 2 is not \"start end flags\""));
  EXPECT_TRUE(
      fails_with(parse_resource(ok + ok + "0x1000 0x1fff 0x200 0x1\n"), Errc::kParse, "line 3"));
  EXPECT_TRUE(fails_with(parse_resource("1000 1fff 200\n"), Errc::kParse, "line 1"));
  EXPECT_TRUE(fails_with(parse_resource("0x 0x1 0x200\n"), Errc::kParse, "line 1"));
  EXPECT_TRUE(fails_with(parse_resource("0xzz 0x1 0x200\n"), Errc::kParse, "'0xzz 0x1 0x200'"));
  EXPECT_TRUE(
      fails_with(parse_resource("0x10000000000000000 0x1 0x200\n"), Errc::kParse, "line 1"));
  EXPECT_TRUE(fails_with(parse_resource("-0x1 0x1 0x200\n"), Errc::kParse, "line 1"));
  EXPECT_TRUE(fails_with(parse_resource(ok + "\n" + ok), Errc::kParse, "line 2"));
  EXPECT_TRUE(fails_with(parse_resource(ok + "0x2000 0x1fff 0x200\n"), Errc::kParse,
                         "line 2: end 0x1fff lies before start 0x2000"));
  // A control character is escaped in the message.
  auto ctl = parse_resource("0x0 0x0\x01 0x0\n");
  ASSERT_FALSE(ctl.ok());
  EXPECT_EQ(ctl.error().to_string().find('\x01'), std::string::npos);
}

TEST(SysfsResource, LineLimit) {
  std::string text;
  for (size_t i = 0; i < kMaxResourceLines; ++i) text += "0x0 0x0 0x0\n";
  auto r = parse_resource(text);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->size(), kMaxResourceLines);
  text += "0x0 0x0 0x0\n";
  EXPECT_TRUE(
      fails_with(parse_resource(text), Errc::kParse, "sysfs resource has more than 64 lines"));
}

constexpr const char* kNavi31Uevent =
    "DRIVER=amdgpu\n"
    "PCI_CLASS=30000\n"
    "PCI_ID=1002:744C\n"
    "PCI_SUBSYS_ID=1DA2:E471\n"
    "PCI_SLOT_NAME=0000:03:00.0\n"
    "MODALIAS=pci:v00001002d0000744Csv00001DA2sd0000E471bc03sc00i00\n";

TEST(SysfsUevent, Navi31) {
  auto u = parse_uevent(kNavi31Uevent);
  ASSERT_TRUE(u.ok()) << u.error().to_string();
  ASSERT_EQ(u->entries.size(), 6u);
  EXPECT_EQ(u->entries[1].first, "PCI_CLASS");
  EXPECT_EQ(u->entries[1].second, "30000");
  EXPECT_EQ(u->driver(), std::optional<std::string>("amdgpu"));
  auto id = u->pci_id();
  ASSERT_TRUE(id.ok()) << id.error().to_string();
  EXPECT_EQ(*id, (PciId{0x1002, 0x744c}));
  EXPECT_EQ(u->subsystem_id().value_or(PciId{}), (PciId{0x1da2, 0xe471}));
  auto slot = u->slot_name();
  ASSERT_TRUE(slot.ok()) << slot.error().to_string();
  EXPECT_EQ(slot->to_string(), "0000:03:00.0");
  ASSERT_NE(u->find("MODALIAS"), nullptr);
  EXPECT_EQ(u->find("MODALIAS")->substr(0, 4), "pci:");
  EXPECT_EQ(u->find("NOPE"), nullptr);
}

TEST(SysfsUevent, MissingAndMalformedValues) {
  auto u = parse_uevent("PCI_ID=10de:2330\nEXTRA=a=b\nEMPTY=");
  ASSERT_TRUE(u.ok()) << u.error().to_string();
  EXPECT_FALSE(u->driver().has_value());  // no driver bound
  EXPECT_EQ(u->pci_id().value_or(PciId{}), (PciId{0x10de, 0x2330}));
  EXPECT_EQ(*u->find("EXTRA"), "a=b");
  EXPECT_EQ(*u->find("EMPTY"), "");
  EXPECT_TRUE(fails_with(u->slot_name(), Errc::kNotFound, "no PCI_SLOT_NAME"));
  EXPECT_TRUE(fails_with(u->subsystem_id(), Errc::kNotFound, "no PCI_SUBSYS_ID"));
  for (const char* bad : {"PCI_ID=1002744C", "PCI_ID=1002:74G4", "PCI_ID=1002:744C0",
                          "PCI_ID=:744C", "PCI_ID=", "PCI_ID=01002:744"}) {
    auto b = parse_uevent(bad);
    ASSERT_TRUE(b.ok()) << bad;
    EXPECT_TRUE(fails_with(b->pci_id(), Errc::kParse, "is not VVVV:DDDD")) << bad;
  }
  auto slot = parse_uevent("PCI_SLOT_NAME=0000:03:00.9\n");
  ASSERT_TRUE(slot.ok());
  EXPECT_TRUE(fails_with(slot->slot_name(), Errc::kParse, "in uevent PCI_SLOT_NAME"));
}

TEST(SysfsUevent, BadLines) {
  EXPECT_TRUE(fails_with(parse_uevent("DRIVER=amdgpu\nGARBAGE\n"), Errc::kParse,
                         "sysfs uevent line 2 is not KEY=VALUE: 'GARBAGE'"));
  EXPECT_TRUE(fails_with(parse_uevent("=x\n"), Errc::kParse, "line 1: key '' is not"));
  EXPECT_TRUE(fails_with(parse_uevent("A=1\ndriver=amdgpu\n"), Errc::kParse,
                         "line 2: key 'driver' is not [A-Z0-9_]+"));
  EXPECT_TRUE(fails_with(parse_uevent("DRIVER=amdgpu\nPCI_ID=1:2\nDRIVER=vfio-pci\n"), Errc::kParse,
                         "line 3: key DRIVER already set on line 1"));
  EXPECT_TRUE(fails_with(parse_uevent("A=1\n\nB=2\n"), Errc::kParse, "line 2"));
  std::string many;
  for (size_t i = 0; i < kMaxUeventLines; ++i) many += "K" + std::to_string(i) + "=v\n";
  auto u = parse_uevent(many);
  ASSERT_TRUE(u.ok()) << u.error().to_string();
  EXPECT_EQ(u->entries.size(), kMaxUeventLines);
  EXPECT_TRUE(fails_with(parse_uevent(many + "LAST=1\n"), Errc::kParse, "more than 256 lines"));
}

TEST(SysfsResize, Masks) {
  // Navi31 BAR0: 256 MiB (bit 8) .. 32 GiB (bit 15), as Linux prints it.
  auto r = parse_resize("000000000000ff00\n");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->mask, 0xff00u);
  const std::vector<uint64_t> sizes = r->sizes();
  ASSERT_EQ(sizes.size(), 8u);
  EXPECT_EQ(sizes.front(), 256ull << 20);
  EXPECT_EQ(sizes.back(), 32ull << 30);
  EXPECT_EQ(parse_resize("0x1").value_or(ResizeSupport{}).mask, 1u);
  EXPECT_EQ(parse_resize("  0X3 \n").value_or(ResizeSupport{}).mask, 3u);
  EXPECT_EQ(parse_resize("0").value_or(ResizeSupport{7}).mask, 0u);
  EXPECT_EQ(parse_resize("00000fffffffffff").value_or(ResizeSupport{}).sizes().size(), 44u);
  for (const char* bad : {"", "\n", "0x", "zz", "12 34", "00000000000000001", "-1"})
    EXPECT_TRUE(fails_with(parse_resize(bad), Errc::kParse, "is not a hex mask")) << bad;
  EXPECT_TRUE(fails_with(parse_resize("0000100000000000"), Errc::kParse,
                         "mask 0x100000000000 has bits above 43"));
}

}  // namespace
}  // namespace rawgpu::pci
