#include "rawgpu/drivers/pci/config_space.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace rawgpu::pci {
namespace {

// Builds a config space byte by byte (little-endian registers).
class ConfigBuilder {
 public:
  explicit ConfigBuilder(size_t size = kConfigExtendedSize) : b_(size, 0) {}
  ConfigBuilder& put8(size_t off, uint8_t v) {
    b_.at(off) = v;
    return *this;
  }
  ConfigBuilder& put16(size_t off, uint16_t v) {
    put8(off, static_cast<uint8_t>(v));
    return put8(off + 1, static_cast<uint8_t>(v >> 8));
  }
  ConfigBuilder& put32(size_t off, uint32_t v) {
    put16(off, static_cast<uint16_t>(v));
    return put16(off + 2, static_cast<uint16_t>(v >> 16));
  }
  // Standard capability header: ID and next pointer.
  ConfigBuilder& cap(size_t off, uint8_t id, uint8_t next) {
    return put8(off, id).put8(off + 1, next);
  }
  // Extended capability header: ID (16 bits), version (4), next (12).
  ConfigBuilder& ext_cap(size_t off, uint16_t id, uint8_t version, uint16_t next) {
    return put32(off, id | (uint32_t{version} << 16) | (uint32_t{next} << 20));
  }
  // A minimal type 0 endpoint with the capability list bit set and the list at `first_cap`.
  ConfigBuilder& endpoint(uint8_t first_cap) {
    put16(0x00, 0x1002).put16(0x02, 0x744c);
    put16(0x06, first_cap != 0 ? 0x0010 : 0x0000);
    return put8(0x34, first_cap);
  }
  std::vector<uint8_t> bytes() const { return b_; }
  std::vector<uint8_t> bytes(size_t size) const {
    return std::vector<uint8_t>(b_.begin(), b_.begin() + static_cast<ptrdiff_t>(size));
  }

 private:
  std::vector<uint8_t> b_;
};

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

// A Navi31 (Radeon RX 7900 XTX) function 0 as lspci -xxxx shows one: x16 Gen4 capable, trained
// x8 Gen3, ASPM L1 enabled, MSI and MSI-X, Resizable BAR for BAR0 (256 MiB..32 GiB, 256 MiB now).
ConfigBuilder navi31() {
  ConfigBuilder c;
  c.put16(0x00, 0x1002).put16(0x02, 0x744c);
  c.put16(0x04, 0x0407);                                 // I/O, memory, bus master, INTx disable
  c.put16(0x06, 0x0010);                                 // capability list
  c.put8(0x08, 0xc8);                                    // revision
  c.put8(0x09, 0x00).put8(0x0a, 0x00).put8(0x0b, 0x03);  // VGA compatible controller
  c.put8(0x0e, 0x80);                                    // type 0, multi-function
  c.put32(0x10, 0x0000000c).put32(0x14, 0x00000078);     // BAR0/1: 64-bit pref 0x78_0000_0000
  c.put32(0x18, 0x1000000c).put32(0x1c, 0x0000007c);     // BAR2/3: 64-bit pref 0x7c_1000_0000
  c.put32(0x20, 0x0000e001);                             // BAR4: I/O 0xe000
  c.put32(0x24, 0xfcc00000);                             // BAR5: 32-bit MMIO
  c.put16(0x2c, 0x1da2).put16(0x2e, 0xe471);             // Sapphire
  c.put8(0x34, 0x48);
  c.put8(0x3c, 0xff).put8(0x3d, 0x01);  // INTA
  // 0x48 vendor specific -> 0x50 power management -> 0x64 PCIe -> 0xa0 MSI -> 0xc0 MSI-X
  c.cap(0x48, 0x09, 0x50).put8(0x4a, 0x08);
  c.cap(0x50, 0x01, 0x64).put16(0x52, 0x0003);
  c.cap(0x64, kCapPciExpress, 0xa0);
  c.put16(0x66, 0x0002);  // version 2, endpoint
  c.put32(0x64 + 0x04, 0x00008fa1);
  // Link Capabilities: 16 GT/s, x16, ASPM L0s and L1 supported, port 0.
  c.put32(0x64 + 0x0c, 0x4u | (16u << 4) | (3u << 10));
  c.put16(0x64 + 0x10, 0x0002);                       // Link Control: ASPM L1 enabled
  c.put16(0x64 + 0x12, 0x3u | (8u << 4));             // Link Status: 8 GT/s, x8
  c.put32(0x64 + 0x2c, 0x0000001e);                   // Link Capabilities 2: 2.5..16 GT/s
  c.cap(0xa0, kCapMsi, 0xc0).put16(0xa2, 0x0081);     // 64-bit, 1 vector, enabled
  c.cap(0xc0, kCapMsix, 0x00).put16(0xc2, 0x0003);    // 4 entries, disabled
  c.put32(0xc4, 0x00042005).put32(0xc8, 0x00043005);  // table and PBA in BAR5
  // 0x100 vendor specific -> 0x150 AER -> 0x200 Resizable BAR -> 0x240 secondary PCIe
  c.ext_cap(0x100, 0x000b, 1, 0x150);
  c.ext_cap(0x150, 0x0001, 2, 0x200);
  c.ext_cap(0x200, kExtCapResizableBar, 1, 0x240);
  c.put32(0x204, 0x000ff000);                  // sizes 2^8..2^15 MiB: 256 MiB..32 GiB
  c.put32(0x208, 0u | (1u << 5) | (8u << 8));  // BAR0, one entry, 2^8 MiB = 256 MiB
  c.ext_cap(0x240, 0x0019, 1, 0x000);
  return c;
}

ConfigSpace parse_ok(const std::vector<uint8_t>& bytes) {
  auto r = parse_config_space(bytes);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? std::move(r).take_value() : ConfigSpace{};
}

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

TEST(ConfigSpace, Navi31Header) {
  const ConfigSpace cs = parse_ok(navi31().bytes());
  EXPECT_EQ(cs.size(), 4096u);
  EXPECT_EQ(cs.vendor_id, 0x1002);
  EXPECT_EQ(cs.device_id, 0x744c);
  EXPECT_EQ(cs.command, 0x0407);
  EXPECT_EQ(cs.status, 0x0010);
  EXPECT_EQ(cs.revision, 0xc8);
  EXPECT_EQ(cs.class_code, 0x030000u);
  EXPECT_EQ(cs.base_class(), 0x03);
  EXPECT_EQ(cs.header_type, 0);
  EXPECT_TRUE(cs.multi_function);
  EXPECT_EQ(cs.subsystem_vendor_id, 0x1da2);
  EXPECT_EQ(cs.subsystem_id, 0xe471);
  EXPECT_EQ(cs.interrupt_pin, 1);
  EXPECT_EQ(cs.interrupt_line, 0xff);
  ASSERT_EQ(cs.bar_count, 6);
  EXPECT_EQ(cs.bars[0].type, BarType::kMemory64);
  EXPECT_EQ(cs.bars[0].address, 0x7800000000u);
  EXPECT_TRUE(cs.bars[0].prefetchable);
  EXPECT_EQ(cs.bars[1].type, BarType::kMemory64Upper);
  EXPECT_EQ(cs.bars[1].raw, 0x78u);
  EXPECT_EQ(cs.bars[2].type, BarType::kMemory64);
  EXPECT_EQ(cs.bars[2].address, 0x7c10000000u);
  EXPECT_EQ(cs.bars[3].type, BarType::kMemory64Upper);
  EXPECT_EQ(cs.bars[4].type, BarType::kIo);
  EXPECT_EQ(cs.bars[4].address, 0xe000u);
  EXPECT_EQ(cs.bars[5].type, BarType::kMemory32);
  EXPECT_EQ(cs.bars[5].address, 0xfcc00000u);
  EXPECT_FALSE(cs.bars[5].prefetchable);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(cs.bars[i].index, i);
}

TEST(ConfigSpace, Navi31CapabilityLists) {
  const ConfigSpace cs = parse_ok(navi31().bytes());
  ASSERT_EQ(cs.capabilities.size(), 5u);
  const uint8_t ids[] = {0x09, 0x01, 0x10, 0x05, 0x11};
  const uint16_t offs[] = {0x48, 0x50, 0x64, 0xa0, 0xc0};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(cs.capabilities[i].id, ids[i]) << i;
    EXPECT_EQ(cs.capabilities[i].offset, offs[i]) << i;
  }
  ASSERT_EQ(cs.ext_capabilities.size(), 4u);
  EXPECT_EQ(cs.ext_capabilities[0].id, 0x000b);
  EXPECT_EQ(cs.ext_capabilities[1].id, 0x0001);
  EXPECT_EQ(cs.ext_capabilities[1].version, 2);
  EXPECT_EQ(cs.ext_capabilities[1].offset, 0x150);
  EXPECT_EQ(cs.ext_capabilities[2].id, kExtCapResizableBar);
  EXPECT_EQ(cs.ext_capabilities[2].offset, 0x200);
  EXPECT_EQ(cs.ext_capabilities[3].id, 0x0019);
  ASSERT_NE(cs.find_capability(kCapMsix), nullptr);
  EXPECT_EQ(cs.find_capability(kCapMsix)->offset, 0xc0);
  EXPECT_EQ(cs.find_capability(0x12), nullptr);
  EXPECT_EQ(cs.find_ext_capability(0x0010), nullptr);
}

TEST(ConfigSpace, Navi31PcieLink) {
  const ConfigSpace cs = parse_ok(navi31().bytes());
  auto p = decode_pcie(cs);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->offset, 0x64);
  EXPECT_EQ(p->version, 2);
  EXPECT_EQ(p->port_type, static_cast<uint8_t>(PcieDeviceType::kEndpoint));
  EXPECT_EQ(port_type_name(p->port_type), "endpoint");
  EXPECT_EQ(p->max_link_speed, 4);
  EXPECT_EQ(p->max_link_width, 16);
  EXPECT_TRUE(p->aspm_l0s_supported);
  EXPECT_TRUE(p->aspm_l1_supported);
  EXPECT_FALSE(p->aspm_l0s_enabled);
  EXPECT_TRUE(p->aspm_l1_enabled);
  EXPECT_EQ(p->link_speed, 3);
  EXPECT_EQ(p->link_width, 8);
  EXPECT_FALSE(p->link_training);
  EXPECT_EQ(p->supported_speeds, 0x1e);
  EXPECT_TRUE(p->downgraded());
  EXPECT_EQ(link_speed_name(p->max_link_speed), "16 GT/s (Gen4)");
  EXPECT_EQ(link_speed_name(p->link_speed), "8 GT/s (Gen3)");
}

TEST(ConfigSpace, PcieFieldWidths) {
  // x32 at 64 GT/s needs all six width bits and the top speed code; a switch port in a slot.
  ConfigBuilder c = navi31();
  c.put16(0x66, 0x0162);  // v2, downstream port, slot
  c.put32(0x64 + 0x0c, 0x6u | (32u << 4) | (1u << 10) | (0xabu << 24));  // L0s only, port 0xab
  c.put16(0x64 + 0x10, 0x0001);                                          // L0s enabled
  c.put16(0x64 + 0x12, 0x6u | (32u << 4) | (1u << 11));                  // 64 GT/s x32, training
  auto p = decode_pcie(parse_ok(c.bytes()));
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->port_type, static_cast<uint8_t>(PcieDeviceType::kDownstreamSwitchPort));
  EXPECT_TRUE(p->slot_implemented);
  EXPECT_EQ(p->max_link_speed, 6);
  EXPECT_EQ(p->max_link_width, 32);
  EXPECT_EQ(p->port_number, 0xab);
  EXPECT_TRUE(p->aspm_l0s_supported);
  EXPECT_FALSE(p->aspm_l1_supported);
  EXPECT_TRUE(p->aspm_l0s_enabled);
  EXPECT_FALSE(p->aspm_l1_enabled);
  EXPECT_EQ(p->link_speed, 6);
  EXPECT_EQ(p->link_width, 32);
  EXPECT_TRUE(p->link_training);
  EXPECT_FALSE(p->downgraded());
}

TEST(ConfigSpace, Navi31Msi) {
  const ConfigSpace cs = parse_ok(navi31().bytes());
  auto msi = decode_msi(cs);
  ASSERT_TRUE(msi.ok()) << msi.error().to_string();
  EXPECT_EQ(msi->offset, 0xa0);
  EXPECT_TRUE(msi->enabled);
  EXPECT_TRUE(msi->address_64bit);
  EXPECT_FALSE(msi->per_vector_masking);
  EXPECT_EQ(msi->vectors_capable, 1u);
  auto msix = decode_msix(cs);
  ASSERT_TRUE(msix.ok()) << msix.error().to_string();
  EXPECT_EQ(msix->offset, 0xc0);
  EXPECT_FALSE(msix->enabled);
  EXPECT_EQ(msix->table_size, 4u);
  EXPECT_EQ(msix->table_bar, 5);
  EXPECT_EQ(msix->table_offset, 0x42000u);
  EXPECT_EQ(msix->pba_bar, 5);
  EXPECT_EQ(msix->pba_offset, 0x43000u);
}

TEST(ConfigSpace, Navi31ResizableBar) {
  const ConfigSpace cs = parse_ok(navi31().bytes());
  auto rb = decode_resizable_bar(cs);
  ASSERT_TRUE(rb.ok()) << rb.error().to_string();
  EXPECT_EQ(rb->offset, 0x200);
  ASSERT_EQ(rb->entries.size(), 1u);
  const ResizableBarEntry& e = rb->entries[0];
  EXPECT_EQ(e.bar_index, 0);
  EXPECT_EQ(e.capability_offset, 0x204);
  EXPECT_EQ(e.control_offset, 0x208);
  EXPECT_EQ(e.current_size(), 256 * kMiB);
  const std::vector<uint64_t> want = {256 * kMiB, 512 * kMiB, 1 * kGiB,  2 * kGiB,
                                      4 * kGiB,   8 * kGiB,   16 * kGiB, 32 * kGiB};
  EXPECT_EQ(e.supported_sizes(), want);
  EXPECT_TRUE(e.supports(32 * kGiB));
  EXPECT_FALSE(e.supports(64 * kGiB));
  EXPECT_FALSE(e.supports(128 * kMiB));
  EXPECT_EQ(rb->find(0), &rb->entries[0]);
  EXPECT_EQ(rb->find(2), nullptr);
  // Resize to 32 GiB: size code 15 in bits 13:8, index and count kept.
  auto ctl = e.control_for_size(32 * kGiB);
  ASSERT_TRUE(ctl.ok()) << ctl.error().to_string();
  EXPECT_EQ(*ctl, 0x00000f20u);
  EXPECT_TRUE(fails_with(e.control_for_size(64 * kGiB), Errc::kUnsupported,
                         "BAR0 cannot be resized to 64 GiB; it supports 256 MiB, 512 MiB"));
  EXPECT_TRUE(fails_with(e.control_for_size(3 * kMiB), Errc::kInvalidArgument, "power of two"));
}

TEST(ConfigSpace, ResizableBarSizeEncoding) {
  EXPECT_EQ(rebar_size_bytes(0), kMiB);
  EXPECT_EQ(rebar_size_bytes(8), 256 * kMiB);
  EXPECT_EQ(rebar_size_bytes(43), uint64_t{1} << 63);
  EXPECT_EQ(rebar_size_bytes(44), 0u);
  EXPECT_EQ(rebar_size_code(kMiB).value_or(99), 0u);
  EXPECT_EQ(rebar_size_code(32 * kGiB).value_or(99), 15u);
  EXPECT_EQ(rebar_size_code(uint64_t{1} << 63).value_or(99), 43u);
  EXPECT_TRUE(fails_with(rebar_size_code(512 * 1024), Errc::kInvalidArgument, "1 MiB"));
  EXPECT_TRUE(fails_with(rebar_size_code(0), Errc::kInvalidArgument, "power of two"));
  EXPECT_TRUE(fails_with(rebar_size_code(kGiB + kMiB), Errc::kInvalidArgument, "power of two"));
  EXPECT_EQ(rebar_control_with_size(0xffff00e3u, 15), 0xffff0fe3u);
  EXPECT_EQ(rebar_control_with_size(0x00003f00u, 0), 0u);
  const std::vector<uint64_t> two = {kMiB, uint64_t{1} << 63};
  EXPECT_EQ(rebar_sizes_from_mask((uint64_t{1} << 43) | 1u), two);
  EXPECT_TRUE(rebar_sizes_from_mask(0).empty());
}

TEST(ConfigSpace, ResizableBarUpperSizesInControlRegister) {
  // PCIe 6.0: control bits 16..31 add 256 TiB (2^28 MiB) .. 8 EiB.
  ConfigBuilder c = navi31();
  c.put32(0x204, 0x80000000u);                               // 128 TiB (2^27 MiB)
  c.put32(0x208, (1u << 5) | (27u << 8) | (0x8001u << 16));  // + 256 TiB and 8 EiB
  auto rb = decode_resizable_bar(parse_ok(c.bytes()));
  ASSERT_TRUE(rb.ok()) << rb.error().to_string();
  const ResizableBarEntry& e = rb->entries[0];
  const std::vector<uint64_t> want = {uint64_t{1} << 47, uint64_t{1} << 48, uint64_t{1} << 63};
  EXPECT_EQ(e.supported_sizes(), want);
  EXPECT_EQ(e.current_size(), uint64_t{1} << 47);
  auto ctl = e.control_for_size(uint64_t{1} << 48);
  ASSERT_TRUE(ctl.ok()) << ctl.error().to_string();
  EXPECT_EQ(*ctl, (1u << 5) | (28u << 8) | (0x8001u << 16));
}

TEST(ConfigSpace, ResizableBarSeveralEntries) {
  ConfigBuilder c = navi31();
  c.put32(0x208, 0u | (2u << 5) | (8u << 8));
  c.put32(0x20c, 0x00000030).put32(0x210, 2u | (1u << 8));  // BAR2: 1 or 2 MiB, 2 MiB now
  auto rb = decode_resizable_bar(parse_ok(c.bytes()));
  ASSERT_TRUE(rb.ok()) << rb.error().to_string();
  ASSERT_EQ(rb->entries.size(), 2u);
  ASSERT_NE(rb->find(2), nullptr);
  EXPECT_EQ(rb->find(2)->control_offset, 0x210);
  EXPECT_EQ(rb->find(2)->current_size(), 2 * kMiB);
  EXPECT_EQ(rb->find(2)->supported_sizes(), (std::vector<uint64_t>{kMiB, 2 * kMiB}));
}

TEST(ConfigSpace, ResizableBarMalformed) {
  auto decode = [](ConfigBuilder c) { return decode_resizable_bar(parse_ok(c.bytes())); };
  EXPECT_TRUE(fails_with(decode(navi31().put32(0x208, 0x800)), Errc::kParse,
                         "entry count 0 in the control register at 0x208 is not 1..6"));
  EXPECT_TRUE(fails_with(decode(navi31().put32(0x208, 7u << 5)), Errc::kParse, "entry count 7"));
  EXPECT_TRUE(fails_with(decode(navi31().put32(0x208, (1u << 5) | 6u)), Errc::kParse,
                         "BAR index 6 in the control register at 0x208"));
  EXPECT_TRUE(fails_with(decode(navi31().put32(0x208, 2u << 5).put32(0x20c, 0x10).put32(0x210, 0)),
                         Errc::kParse, "describes BAR0 again"));
  EXPECT_TRUE(
      fails_with(decode(navi31().put32(0x204, 0x0000000f)), Errc::kParse, "supports no size"));
  EXPECT_TRUE(fails_with(decode(navi31().put32(0x208, (1u << 5) | (44u << 8))), Errc::kParse,
                         "size code 44"));
  // Entries past the end of config space: the capability sits in the last 12 bytes, claims 2.
  ConfigBuilder c = navi31();
  c.ext_cap(0x240, 0x0019, 1, 0xff4);
  c.ext_cap(0xff4, kExtCapResizableBar, 1, 0);
  c.ext_cap(0x200, 0x0000, 0, 0x240);  // the old one becomes a null capability
  c.put32(0xff8, 0x10).put32(0xffc, 2u << 5);
  EXPECT_TRUE(fails_with(decode(c), Errc::kParse, "2 entries end at 0x1008, past the 4096 bytes"));
  EXPECT_TRUE(fails_with(decode_resizable_bar(parse_ok(navi31().bytes(256))), Errc::kNotFound,
                         "no Resizable BAR"));
}

TEST(ConfigSpace, LinkSpeeds) {
  const double want[] = {2.5, 5, 8, 16, 32, 64};
  for (uint8_t code = 1; code <= 6; ++code) {
    ASSERT_TRUE(link_speed_gts(code).has_value()) << int(code);
    EXPECT_EQ(*link_speed_gts(code), want[code - 1]);
  }
  EXPECT_FALSE(link_speed_gts(0).has_value());
  EXPECT_FALSE(link_speed_gts(7).has_value());
  EXPECT_FALSE(link_speed_gts(15).has_value());
  EXPECT_EQ(link_speed_name(1), "2.5 GT/s (Gen1)");
  EXPECT_EQ(link_speed_name(6), "64 GT/s (Gen6)");
  EXPECT_EQ(link_speed_name(9), "unknown speed code 9");
  EXPECT_EQ(port_type_name(4), "root port");
  EXPECT_EQ(port_type_name(0xa), "root complex event collector");
  EXPECT_EQ(port_type_name(3), "reserved type 3");
}

TEST(ConfigSpace, AllOnesIsADeadDevice) {
  const std::string msg =
      "config space reads all ones: the device is not responding (fell off the bus, or powered "
      "down)";
  for (size_t size : {size_t{64}, size_t{256}, size_t{4096}}) {
    const std::vector<uint8_t> ones(size, 0xff);
    auto r = parse_config_space(ones);
    ASSERT_FALSE(r.ok()) << size;
    EXPECT_EQ(r.error().code(), Errc::kHardware);
    EXPECT_EQ(r.error().message(), msg);
    EXPECT_TRUE(fails_with(parse_config_header(ones), Errc::kHardware, "all ones"));
    EXPECT_TRUE(fails_with(walk_capabilities(ones), Errc::kHardware, "all ones"));
    EXPECT_TRUE(fails_with(walk_ext_capabilities(ones), Errc::kHardware, "all ones"));
  }
  // A vendor of 0xffff with a real device ID is a corrupt header, not a dead device.
  EXPECT_TRUE(fails_with(parse_config_space(ConfigBuilder(64).put16(0, 0xffff).put16(2, 1).bytes()),
                         Errc::kParse, "vendor ID 0xffff at offset 0x00"));
}

TEST(ConfigSpace, ZeroHeaders) {
  EXPECT_TRUE(fails_with(parse_config_space(ConfigBuilder(256).bytes()), Errc::kParse,
                         "vendor ID 0x0000 at offset 0x00 is not a valid vendor"));
  // A zero first extended header: no extended capabilities.
  ConfigBuilder c = navi31();
  c.put32(0x100, 0);
  EXPECT_TRUE(parse_ok(c.bytes()).ext_capabilities.empty());
  // A zero header reached through a next pointer ends the list.
  c = navi31();
  c.ext_cap(0x150, 0x0001, 2, 0x300);
  EXPECT_EQ(parse_ok(c.bytes()).ext_capabilities.size(), 2u);
  // A zero BAR is unused, not a memory BAR at 0.
  c = navi31();
  c.put32(0x24, 0);
  EXPECT_EQ(parse_ok(c.bytes()).bars[5].type, BarType::kUnused);
}

TEST(ConfigSpace, SizeLimits) {
  EXPECT_TRUE(fails_with(parse_config_space(navi31().bytes(63)), Errc::kParse,
                         "63 bytes; the standard header alone is 64"));
  EXPECT_TRUE(fails_with(parse_config_space({}), Errc::kParse, "0 bytes"));
  std::vector<uint8_t> big = navi31().bytes();
  big.push_back(0);
  EXPECT_TRUE(fails_with(parse_config_space(big), Errc::kParse, "4097 bytes"));
}

TEST(ConfigSpace, TruncatedReads) {
  // 64 bytes (an unprivileged sysfs read): the header parses, the capability walk cannot.
  const std::vector<uint8_t> header = navi31().bytes(64);
  auto h = parse_config_header(header);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->device_id, 0x744c);
  EXPECT_TRUE(h->capabilities.empty());
  EXPECT_TRUE(fails_with(parse_config_space(header), Errc::kParse,
                         "capability pointer 0x48 at offset 0x34 points past the end of the 64 "
                         "bytes"));
  // 256 bytes: conventional capabilities only.
  const ConfigSpace conv = parse_ok(navi31().bytes(256));
  EXPECT_EQ(conv.capabilities.size(), 5u);
  EXPECT_TRUE(conv.ext_capabilities.empty());
  EXPECT_TRUE(decode_pcie(conv).ok());
  // 0x180 bytes: the chain leads from 0x150 to 0x200, past the end.
  EXPECT_TRUE(fails_with(parse_config_space(navi31().bytes(0x180)), Errc::kParse,
                         "next pointer 0x200 points past the end of the 384 bytes"));
  // 0xa4 bytes: the walk reaches MSI at 0xa0, then its next pointer 0xc0 lies past the end.
  EXPECT_TRUE(fails_with(parse_config_space(navi31().bytes(0xa4)), Errc::kParse,
                         "capability pointer 0xc0 at offset 0xa1 points past the end"));
  // A capability whose header fits but whose registers do not.
  ConfigBuilder c = navi31();
  auto cs = parse_config_header(c.bytes(0xc4));
  ASSERT_TRUE(cs.ok());
  cs->capabilities = {{kCapMsix, 0xc0}};
  EXPECT_TRUE(fails_with(decode_msix(*cs), Errc::kParse,
                         "MSI-X capability at 0xc0 needs 12 bytes; the config space given ends at "
                         "0x0c4"));
}

TEST(ConfigSpace, CyclicCapabilityList) {
  ConfigBuilder c;
  c.endpoint(0x40).cap(0x40, 0x01, 0x50).cap(0x50, 0x05, 0x60).cap(0x60, 0x10, 0x40);
  EXPECT_TRUE(fails_with(parse_config_space(c.bytes()), Errc::kParse,
                         "capability list loops at 0x40 (pointer at offset 0x61)"));
  // A capability pointing at itself.
  ConfigBuilder self;
  self.endpoint(0x80).cap(0x80, 0x09, 0x80);
  EXPECT_TRUE(fails_with(walk_capabilities(self.bytes(256)), Errc::kParse, "loops at 0x80"));
  // Low bits are masked: 0x43 is 0x40, so this is the same loop.
  ConfigBuilder masked;
  masked.endpoint(0x40).cap(0x40, 0x01, 0x43);
  EXPECT_TRUE(fails_with(walk_capabilities(masked.bytes()), Errc::kParse, "loops at 0x40"));
}

TEST(ConfigSpace, CapabilityLimit) {
  // Every dword from 0x40 to 0xfc holds a capability: 48 entries is the longest valid list.
  ConfigBuilder c;
  c.endpoint(0x40);
  for (unsigned off = 0x40; off <= 0xfc; off += 4)
    c.cap(off, 0x09, off == 0xfc ? 0 : static_cast<uint8_t>(off + 4));
  const ConfigSpace cs = parse_ok(c.bytes(256));
  EXPECT_EQ(cs.capabilities.size(), kMaxCapabilities);
  EXPECT_EQ(cs.capabilities.back().offset, 0xfc);
  // ... and closing the chain makes it a loop, not an endless walk.
  c.cap(0xfc, 0x09, 0x40);
  EXPECT_TRUE(fails_with(walk_capabilities(c.bytes(256)), Errc::kParse, "loops at 0x40"));
}

TEST(ConfigSpace, PointersIntoTheHeader) {
  ConfigBuilder first;
  first.endpoint(0x20);
  EXPECT_TRUE(fails_with(parse_config_space(first.bytes()), Errc::kParse,
                         "capability pointer 0x20 at offset 0x34 points into the 64-byte header"));
  ConfigBuilder later;
  later.endpoint(0x40).cap(0x40, 0x01, 0x3c);
  EXPECT_TRUE(fails_with(parse_config_space(later.bytes()), Errc::kParse,
                         "capability pointer 0x3c at offset 0x41 points into the 64-byte header"));
  // Pointer bits 1:0 masked: 0x02 is 0, the end of the list.
  ConfigBuilder low;
  low.endpoint(0x40).cap(0x40, 0x01, 0x02);
  EXPECT_EQ(parse_ok(low.bytes()).capabilities.size(), 1u);
  // Without the status bit the pointer is not looked at.
  ConfigBuilder no_list;
  no_list.endpoint(0x20).put16(0x06, 0);
  EXPECT_TRUE(parse_ok(no_list.bytes()).capabilities.empty());
}

TEST(ConfigSpace, ExtendedCapabilityCycles) {
  ConfigBuilder c;
  c.endpoint(0).ext_cap(0x100, 0x0001, 1, 0x200).ext_cap(0x200, 0x0015, 1, 0x100);
  EXPECT_TRUE(fails_with(parse_config_space(c.bytes()), Errc::kParse,
                         "extended capability list loops at 0x100 (next pointer of the capability "
                         "at 0x200)"));
  ConfigBuilder self;
  self.endpoint(0).ext_cap(0x100, 0x0001, 1, 0x100);
  EXPECT_TRUE(fails_with(walk_ext_capabilities(self.bytes()), Errc::kParse, "loops at 0x100"));
  // Next pointer bits 1:0 are masked: 0x203 is 0x200.
  ConfigBuilder masked;
  masked.endpoint(0).ext_cap(0x100, 0x0001, 1, 0x200).ext_cap(0x200, 0x0002, 1, 0x203);
  EXPECT_TRUE(fails_with(walk_ext_capabilities(masked.bytes()), Errc::kParse, "loops at 0x200"));
}

TEST(ConfigSpace, ExtendedCapabilityLimit) {
  ConfigBuilder c;
  c.endpoint(0);
  for (unsigned off = 0x100; off <= 0xffc; off += 4)
    c.ext_cap(off, 0x000b, 1, off == 0xffc ? 0 : static_cast<uint16_t>(off + 4));
  auto caps = walk_ext_capabilities(c.bytes());
  ASSERT_TRUE(caps.ok()) << caps.error().to_string();
  EXPECT_EQ(caps->size(), kMaxExtCapabilities);
  c.ext_cap(0xffc, 0x000b, 1, 0x100);
  EXPECT_TRUE(fails_with(walk_ext_capabilities(c.bytes()), Errc::kParse, "loops at 0x100"));
}

TEST(ConfigSpace, ExtendedCapabilityBadPointers) {
  ConfigBuilder low;
  low.endpoint(0).ext_cap(0x100, 0x0001, 1, 0x080);
  EXPECT_TRUE(fails_with(walk_ext_capabilities(low.bytes()), Errc::kParse,
                         "extended capability 0x0001 at 0x100: next pointer 0x080 points into "
                         "conventional config space"));
  // All ones reached through a next pointer: an error, not a silent end.
  ConfigBuilder ones;
  ones.endpoint(0).ext_cap(0x100, 0x0001, 1, 0x200).put32(0x200, 0xffffffffu);
  EXPECT_TRUE(
      fails_with(walk_ext_capabilities(ones.bytes()), Errc::kParse,
                 "extended capability header at 0x200 (reached from 0x100) reads all ones"));
  // All ones at 0x100 itself: a conventional function without extended space.
  ConfigBuilder conventional;
  conventional.endpoint(0).put32(0x100, 0xffffffffu);
  EXPECT_TRUE(parse_ok(conventional.bytes()).ext_capabilities.empty());
  // Too short to hold a header at 0x100: nothing to walk.
  EXPECT_TRUE(parse_ok(navi31().bytes(0x103)).ext_capabilities.empty());
}

TEST(ConfigSpace, BarDecoding) {
  // 64-bit in the last BAR: no upper half.
  ConfigBuilder last;
  last.endpoint(0).put32(0x24, 0x0000000c);
  EXPECT_TRUE(fails_with(parse_config_header(last.bytes(64)), Errc::kParse,
                         "BAR5 at offset 0x24 (0x0000000c) is 64-bit but is the last BAR"));
  ConfigBuilder reserved;
  reserved.endpoint(0).put32(0x10, 0xf0000006);
  EXPECT_TRUE(fails_with(parse_config_header(reserved.bytes(64)), Errc::kParse,
                         "BAR0 at offset 0x10 (0xf0000006) has the reserved type 3"));
  // Bridge: two BARs (here one 64-bit pair), no subsystem IDs in the header.
  ConfigBuilder bridge;
  bridge.endpoint(0).put8(0x0e, 0x01).put32(0x10, 0x8000000c).put32(0x14, 0x1);
  bridge.put32(0x18, 0x00030201).put16(0x2c, 0x1234);  // bus numbers, I/O base: not BARs
  auto b = parse_config_header(bridge.bytes(64));
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(b->bar_count, 2);
  EXPECT_EQ(b->bars[0].address, 0x180000000u);
  EXPECT_EQ(b->bars[2].type, BarType::kUnused);
  EXPECT_EQ(b->subsystem_vendor_id, 0);
  // Bridge with a 64-bit BAR1: no upper half.
  bridge.put32(0x10, 0).put32(0x14, 0x4);
  EXPECT_TRUE(fails_with(parse_config_header(bridge.bytes(64)), Errc::kParse, "BAR1"));
  // CardBus: no BARs, capability pointer at 0x14.
  ConfigBuilder cardbus;
  cardbus.endpoint(0).put8(0x0e, 0x02).put16(0x06, 0x10).put8(0x14, 0x80).cap(0x80, 0x01, 0);
  cardbus.put32(0x10, 0x0000000c);  // socket registers base, not a BAR
  const ConfigSpace cb = parse_ok(cardbus.bytes(256));
  EXPECT_EQ(cb.bar_count, 0);
  ASSERT_EQ(cb.capabilities.size(), 1u);
  EXPECT_EQ(cb.capabilities[0].offset, 0x80);
  ConfigBuilder unknown;
  unknown.endpoint(0).put8(0x0e, 0x83);
  EXPECT_TRUE(fails_with(parse_config_header(unknown.bytes(64)), Errc::kParse,
                         "header type 0x03 at offset 0x0e is unknown"));
}

TEST(ConfigSpace, CapabilityDecodersOnHostileInput) {
  ConfigBuilder none;
  none.endpoint(0);
  const ConfigSpace empty = parse_ok(none.bytes());
  EXPECT_TRUE(fails_with(decode_pcie(empty), Errc::kNotFound, "no PCI Express capability"));
  EXPECT_TRUE(fails_with(decode_msi(empty), Errc::kNotFound, "no MSI capability"));
  EXPECT_TRUE(fails_with(decode_msix(empty), Errc::kNotFound, "no MSI-X capability"));
  // A PCIe capability at 0xf0 runs past 0x100.
  ConfigBuilder late;
  late.endpoint(0xf0).cap(0xf0, kCapPciExpress, 0);
  EXPECT_TRUE(fails_with(decode_pcie(parse_ok(late.bytes())), Errc::kParse,
                         "PCI Express capability at 0xf0 needs 20 bytes and runs past the end of "
                         "conventional config space"));
  // A version 1 capability has no Link Capabilities 2.
  ConfigBuilder v1 = navi31();
  v1.put16(0x66, 0x0041);  // version 1, root port
  auto p = decode_pcie(parse_ok(v1.bytes()));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->supported_speeds, 0);
  EXPECT_EQ(p->port_type, 0x4);
  EXPECT_TRUE(fails_with(decode_msi(parse_ok(navi31().put16(0xa2, 6u << 1).bytes())), Errc::kParse,
                         "reserved vector count (capable 6"));
  EXPECT_TRUE(fails_with(decode_msix(parse_ok(navi31().put32(0xc4, 0x7).bytes())), Errc::kParse,
                         "table BAR indicator 7 at offset 0xc4"));
  EXPECT_TRUE(fails_with(decode_msix(parse_ok(navi31().put32(0xc8, 0x6).bytes())), Errc::kParse,
                         "PBA BAR indicator 6 at offset 0xc8"));
  auto big = decode_msix(parse_ok(navi31().put16(0xc2, 0xc7ff).bytes()));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->table_size, 2048u);
  EXPECT_TRUE(big->enabled);
  EXPECT_TRUE(big->function_masked);
  auto msi32 = decode_msi(parse_ok(navi31().put16(0xa2, 0x015a).bytes()));
  ASSERT_TRUE(msi32.ok());
  EXPECT_EQ(msi32->vectors_capable, 32u);
  EXPECT_EQ(msi32->vectors_enabled, 32u);
  EXPECT_TRUE(msi32->per_vector_masking);
  EXPECT_FALSE(msi32->address_64bit);
  EXPECT_FALSE(msi32->enabled);
}

TEST(ConfigSpace, BoundsCheckedReads) {
  const ConfigSpace cs = parse_ok(navi31().bytes(256));
  EXPECT_EQ(cs.read16(0).value_or(0), 0x1002);
  EXPECT_EQ(cs.read32(0).value_or(0), 0x744c1002u);
  EXPECT_EQ(cs.read8(0xff).value_or(1), 0);
  EXPECT_TRUE(fails_with(cs.read8(0x100), Errc::kParse, "offset 0x100 lies past the end"));
  EXPECT_TRUE(fails_with(cs.read16(0xff), Errc::kParse, "2-byte read at offset 0x0ff"));
  EXPECT_TRUE(fails_with(cs.read32(0xfd), Errc::kParse, "4-byte read"));
  EXPECT_TRUE(fails_with(cs.read32(~size_t{0}), Errc::kParse, "past the end"));
}

}  // namespace
}  // namespace rawgpu::pci
