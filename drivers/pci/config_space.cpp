// PCI configuration space parsing. Register layouts follow the PCI Local Bus 3.0 and PCI
// Express Base 6.0 specifications; every read is bounds-checked against the bytes given.
#include "rawgpu/drivers/pci/config_space.h"

#include <algorithm>
#include <bit>
#include <bitset>

#include "rawgpu/base/format.h"

namespace rawgpu::pci {

namespace {

// Header offsets.
constexpr size_t kOffVendor = 0x00;
constexpr size_t kOffDevice = 0x02;
constexpr size_t kOffCommand = 0x04;
constexpr size_t kOffStatus = 0x06;
constexpr size_t kOffRevision = 0x08;
constexpr size_t kOffClass = 0x09;  // 3 bytes: prog-if, subclass, base class
constexpr size_t kOffHeaderType = 0x0e;
constexpr size_t kOffBar0 = 0x10;
constexpr size_t kOffSubsysVendor0 = 0x2c;  // type 0
constexpr size_t kOffSubsys0 = 0x2e;
constexpr size_t kOffSubsysVendor2 = 0x40;  // type 2 (CardBus)
constexpr size_t kOffSubsys2 = 0x42;
constexpr size_t kOffCapPtr = 0x34;  // types 0 and 1
constexpr size_t kOffCapPtrCardbus = 0x14;
constexpr size_t kOffIntLine = 0x3c;
constexpr size_t kOffIntPin = 0x3d;
constexpr uint16_t kStatusCapList = 1u << 4;

constexpr const char* kAllOnesMessage =
    "config space reads all ones: the device is not responding (fell off the bus, or powered "
    "down)";

uint8_t get8(std::span<const uint8_t> b, size_t off) { return b[off]; }
uint16_t get16(std::span<const uint8_t> b, size_t off) {
  return static_cast<uint16_t>(b[off] | (b[off + 1] << 8));
}
uint32_t get32(std::span<const uint8_t> b, size_t off) {
  return static_cast<uint32_t>(b[off]) | (static_cast<uint32_t>(b[off + 1]) << 8) |
         (static_cast<uint32_t>(b[off + 2]) << 16) | (static_cast<uint32_t>(b[off + 3]) << 24);
}

Status check_size(std::span<const uint8_t> bytes) {
  if (bytes.size() < kConfigHeaderSize)
    return make_error(Errc::kParse,
                      "config space is %zu bytes; the standard header alone is 64 bytes",
                      bytes.size());
  if (bytes.size() > kConfigExtendedSize)
    return make_error(Errc::kParse, "config space is %zu bytes; PCI Express has at most 4096",
                      bytes.size());
  if (get32(bytes, 0) == 0xffffffffu) return make_error(Errc::kHardware, "%s", kAllOnesMessage);
  return ok_status();
}

Result<uint8_t> header_layout(std::span<const uint8_t> bytes) {
  const uint8_t type = get8(bytes, kOffHeaderType) & 0x7f;
  if (type > 2)
    return make_error(Errc::kParse, "header type 0x%02x at offset 0x%02zx is unknown (0..2)", type,
                      kOffHeaderType);
  return type;
}

Status decode_bars(std::span<const uint8_t> bytes, ConfigSpace& cs) {
  for (int i = 0; i < cs.bar_count; ++i) {
    const size_t off = kOffBar0 + 4 * static_cast<size_t>(i);
    BarRegister& bar = cs.bars[i];
    bar.index = i;
    bar.raw = get32(bytes, off);
    if (bar.raw == 0) continue;  // kUnused
    if ((bar.raw & 1u) != 0) {
      bar.type = BarType::kIo;
      bar.address = bar.raw & ~uint32_t{3};
      continue;
    }
    const unsigned mem_type = (bar.raw >> 1) & 3u;
    bar.prefetchable = (bar.raw & 8u) != 0;
    bar.address = bar.raw & ~uint32_t{0xf};
    if (mem_type == 3)
      return make_error(Errc::kParse, "BAR%d at offset 0x%02zx (0x%08x) has the reserved type 3", i,
                        off, bar.raw);
    if (mem_type != 2) {
      bar.type = BarType::kMemory32;
      continue;
    }
    if (i + 1 >= cs.bar_count)
      return make_error(Errc::kParse,
                        "BAR%d at offset 0x%02zx (0x%08x) is 64-bit but is the last BAR: it has "
                        "no upper half",
                        i, off, bar.raw);
    bar.type = BarType::kMemory64;
    BarRegister& upper = cs.bars[i + 1];
    upper.index = i + 1;
    upper.raw = get32(bytes, off + 4);
    upper.type = BarType::kMemory64Upper;
    bar.address |= static_cast<uint64_t>(upper.raw) << 32;
    ++i;
  }
  return ok_status();
}

}  // namespace

const Capability* ConfigSpace::find_capability(uint8_t id) const {
  for (const Capability& c : capabilities)
    if (c.id == id) return &c;
  return nullptr;
}

const ExtCapability* ConfigSpace::find_ext_capability(uint16_t id) const {
  for (const ExtCapability& c : ext_capabilities)
    if (c.id == id) return &c;
  return nullptr;
}

namespace {
Error past_end(size_t offset, size_t width, size_t size) {
  return make_error(Errc::kParse,
                    "%zu-byte read at offset 0x%03zx lies past the end of the %zu bytes of config "
                    "space",
                    width, offset, size);
}
}  // namespace

Result<uint8_t> ConfigSpace::read8(size_t offset) const {
  if (offset >= bytes.size()) return past_end(offset, 1, bytes.size());
  return get8(bytes, offset);
}
Result<uint16_t> ConfigSpace::read16(size_t offset) const {
  if (offset > bytes.size() || bytes.size() - offset < 2) return past_end(offset, 2, bytes.size());
  return get16(bytes, offset);
}
Result<uint32_t> ConfigSpace::read32(size_t offset) const {
  if (offset > bytes.size() || bytes.size() - offset < 4) return past_end(offset, 4, bytes.size());
  return get32(bytes, offset);
}

Result<ConfigSpace> parse_config_header(std::span<const uint8_t> bytes) {
  RG_TRY(check_size(bytes));
  ConfigSpace cs;
  cs.vendor_id = get16(bytes, kOffVendor);
  cs.device_id = get16(bytes, kOffDevice);
  if (cs.vendor_id == 0xffff || cs.vendor_id == 0x0000)
    return make_error(Errc::kParse, "vendor ID 0x%04x at offset 0x00 is not a valid vendor%s",
                      cs.vendor_id, cs.vendor_id == 0 ? " (an all-zero header?)" : "");
  cs.command = get16(bytes, kOffCommand);
  cs.status = get16(bytes, kOffStatus);
  cs.revision = get8(bytes, kOffRevision);
  cs.class_code = get32(bytes, kOffRevision) >> 8;
  static_assert(kOffClass == kOffRevision + 1);
  cs.header_type = RG_TRY(header_layout(bytes));
  cs.multi_function = (get8(bytes, kOffHeaderType) & 0x80) != 0;
  switch (cs.header_type) {
    case 0:
      cs.bar_count = 6;
      cs.subsystem_vendor_id = get16(bytes, kOffSubsysVendor0);
      cs.subsystem_id = get16(bytes, kOffSubsys0);
      break;
    case 1: cs.bar_count = 2; break;
    default:
      cs.bar_count = 0;
      if (bytes.size() >= kOffSubsys2 + 2) {
        cs.subsystem_vendor_id = get16(bytes, kOffSubsysVendor2);
        cs.subsystem_id = get16(bytes, kOffSubsys2);
      }
      break;
  }
  for (int i = 0; i < 6; ++i) cs.bars[i].index = i;
  RG_TRY(decode_bars(bytes, cs));
  cs.interrupt_line = get8(bytes, kOffIntLine);
  cs.interrupt_pin = get8(bytes, kOffIntPin);
  cs.bytes.assign(bytes.begin(), bytes.end());
  return cs;
}

Result<ConfigSpace> parse_config_space(std::span<const uint8_t> bytes) {
  ConfigSpace cs = RG_TRY(parse_config_header(bytes));
  cs.capabilities = RG_TRY_CTX(walk_capabilities(bytes), "while walking the capability list");
  cs.ext_capabilities =
      RG_TRY_CTX(walk_ext_capabilities(bytes), "while walking the extended capability list");
  return cs;
}

Result<std::vector<Capability>> walk_capabilities(std::span<const uint8_t> bytes) {
  RG_TRY(check_size(bytes));
  std::vector<Capability> out;
  if ((get16(bytes, kOffStatus) & kStatusCapList) == 0) return out;
  const uint8_t layout = RG_TRY(header_layout(bytes));
  size_t from = layout == 2 ? kOffCapPtrCardbus : kOffCapPtr;  // where the pointer was read
  size_t ptr = get8(bytes, from) & 0xfc;
  std::bitset<kConfigConventionalSize / 4> visited;
  while (ptr != 0) {
    if (ptr < kConfigHeaderSize)
      return make_error(Errc::kParse,
                        "capability pointer 0x%02zx at offset 0x%02zx points into the 64-byte "
                        "header",
                        ptr, from);
    if (ptr + 2 > bytes.size())
      return make_error(Errc::kParse,
                        "capability pointer 0x%02zx at offset 0x%02zx points past the end of the "
                        "%zu bytes of config space (a truncated read: more than 64 bytes need "
                        "root)",
                        ptr, from, bytes.size());
    if (visited[ptr / 4])
      return make_error(Errc::kParse,
                        "capability list loops at 0x%02zx (pointer at offset 0x%02zx)", ptr, from);
    if (out.size() >= kMaxCapabilities)
      return make_error(Errc::kParse, "more than %zu capabilities", kMaxCapabilities);
    visited[ptr / 4] = true;
    out.push_back(Capability{get8(bytes, ptr), static_cast<uint16_t>(ptr)});
    from = ptr + 1;
    ptr = get8(bytes, from) & 0xfc;
  }
  return out;
}

Result<std::vector<ExtCapability>> walk_ext_capabilities(std::span<const uint8_t> bytes) {
  RG_TRY(check_size(bytes));
  std::vector<ExtCapability> out;
  constexpr size_t kStart = kConfigConventionalSize;
  if (bytes.size() < kStart + 4) return out;  // no extended space in the bytes given
  const uint32_t first = get32(bytes, kStart);
  // Zero: no extended capabilities. All ones: a conventional PCI function (behind a bridge)
  // whose config space ends at 256 bytes.
  if (first == 0 || first == 0xffffffffu) return out;
  std::bitset<(kConfigExtendedSize - kStart) / 4> visited;
  size_t offset = kStart;
  size_t from = 0;  // offset of the header whose next pointer led here
  while (true) {
    if (visited[(offset - kStart) / 4])
      return make_error(Errc::kParse,
                        "extended capability list loops at 0x%03zx (next pointer of the "
                        "capability at 0x%03zx)",
                        offset, from);
    if (out.size() >= kMaxExtCapabilities)
      return make_error(Errc::kParse, "more than %zu extended capabilities", kMaxExtCapabilities);
    visited[(offset - kStart) / 4] = true;
    const uint32_t h = get32(bytes, offset);
    if (h == 0xffffffffu)
      return make_error(Errc::kParse,
                        "extended capability header at 0x%03zx (reached from 0x%03zx) reads all "
                        "ones",
                        offset, from);
    if (h == 0) break;  // an empty header reached through a next pointer: end of the list
    out.push_back(ExtCapability{static_cast<uint16_t>(h & 0xffff),
                                static_cast<uint8_t>((h >> 16) & 0xf),
                                static_cast<uint16_t>(offset)});
    const size_t next = (h >> 20) & 0xffc;
    if (next == 0) break;
    if (next < kStart)
      return make_error(Errc::kParse,
                        "extended capability 0x%04x at 0x%03zx: next pointer 0x%03zx points into "
                        "conventional config space (below 0x100)",
                        h & 0xffff, offset, next);
    if (next + 4 > bytes.size())
      return make_error(Errc::kParse,
                        "extended capability 0x%04x at 0x%03zx: next pointer 0x%03zx points past "
                        "the end of the %zu bytes of config space",
                        h & 0xffff, offset, next, bytes.size());
    from = offset;
    offset = next;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Capability decoders
// ---------------------------------------------------------------------------------------------

namespace {

// That a standard capability of `length` bytes at `offset` lies inside conventional space and
// inside the bytes given.
Status check_cap_span(const ConfigSpace& cs, size_t offset, size_t length, const char* what) {
  if (offset + length > kConfigConventionalSize)
    return make_error(Errc::kParse,
                      "%s capability at 0x%02zx needs %zu bytes and runs past the end of "
                      "conventional config space (0x100)",
                      what, offset, length);
  if (offset + length > cs.size())
    return make_error(Errc::kParse,
                      "%s capability at 0x%02zx needs %zu bytes; the config space given ends at "
                      "0x%03zx",
                      what, offset, length, cs.size());
  return ok_status();
}

Result<const Capability*> require_cap(const ConfigSpace& cs, uint8_t id, const char* what) {
  const Capability* cap = cs.find_capability(id);
  if (cap == nullptr)
    return make_error(Errc::kNotFound, "the function has no %s capability (ID 0x%02x)", what, id);
  return cap;
}

}  // namespace

std::string port_type_name(uint8_t type_code) {
  switch (type_code) {
    case 0x0: return "endpoint";
    case 0x1: return "legacy endpoint";
    case 0x4: return "root port";
    case 0x5: return "switch upstream port";
    case 0x6: return "switch downstream port";
    case 0x7: return "PCIe-to-PCI bridge";
    case 0x8: return "PCI-to-PCIe bridge";
    case 0x9: return "root complex integrated endpoint";
    case 0xa: return "root complex event collector";
    default: return strformat("reserved type %u", type_code);
  }
}

std::optional<double> link_speed_gts(uint8_t code) {
  switch (code) {
    case 1: return 2.5;
    case 2: return 5.0;
    case 3: return 8.0;
    case 4: return 16.0;
    case 5: return 32.0;
    case 6: return 64.0;
    default: return std::nullopt;
  }
}

std::string link_speed_name(uint8_t code) {
  const std::optional<double> gts = link_speed_gts(code);
  if (!gts) return strformat("unknown speed code %u", code);
  return strformat("%g GT/s (Gen%u)", *gts, code);
}

Result<PcieCapability> decode_pcie(const ConfigSpace& cs) {
  const Capability* cap = RG_TRY(require_cap(cs, kCapPciExpress, "PCI Express"));
  const size_t o = cap->offset;
  constexpr size_t kThroughLinkStatus = 0x14;
  RG_TRY(check_cap_span(cs, o, kThroughLinkStatus, "PCI Express"));
  PcieCapability p;
  p.offset = cap->offset;
  const uint16_t caps = get16(cs.bytes, o + 0x02);
  p.version = caps & 0xf;
  p.port_type = (caps >> 4) & 0xf;
  p.slot_implemented = (caps & (1u << 8)) != 0;
  const uint32_t lnkcap = get32(cs.bytes, o + 0x0c);
  p.max_link_speed = lnkcap & 0xf;
  p.max_link_width = (lnkcap >> 4) & 0x3f;
  p.aspm_l0s_supported = (lnkcap & (1u << 10)) != 0;
  p.aspm_l1_supported = (lnkcap & (1u << 11)) != 0;
  p.port_number = static_cast<uint8_t>(lnkcap >> 24);
  const uint16_t lnkctl = get16(cs.bytes, o + 0x10);
  p.aspm_l0s_enabled = (lnkctl & 1u) != 0;
  p.aspm_l1_enabled = (lnkctl & 2u) != 0;
  const uint16_t lnksta = get16(cs.bytes, o + 0x12);
  p.link_speed = lnksta & 0xf;
  p.link_width = (lnksta >> 4) & 0x3f;
  p.link_training = (lnksta & (1u << 11)) != 0;
  // Link Capabilities 2 exists in version 2 capabilities (0x3c bytes); a version 1 capability
  // or one that does not fit leaves it unknown.
  constexpr size_t kLinkCap2 = 0x2c;
  if (p.version >= 2 && o + kLinkCap2 + 4 <= std::min(cs.size(), kConfigConventionalSize))
    p.supported_speeds = get32(cs.bytes, o + kLinkCap2) & 0xfe;
  return p;
}

Result<MsiCapability> decode_msi(const ConfigSpace& cs) {
  const Capability* cap = RG_TRY(require_cap(cs, kCapMsi, "MSI"));
  const size_t o = cap->offset;
  RG_TRY(check_cap_span(cs, o, 4, "MSI"));
  const uint16_t ctl = get16(cs.bytes, o + 2);
  const unsigned mmc = (ctl >> 1) & 7u, mme = (ctl >> 4) & 7u;
  if (mmc > 5 || mme > 5)
    return make_error(Errc::kParse,
                      "MSI capability at 0x%02zx: message control 0x%04x at offset 0x%02zx has a "
                      "reserved vector count (capable %u, enabled %u; at most 5 = 32 vectors)",
                      o, ctl, o + 2, mmc, mme);
  MsiCapability m;
  m.offset = cap->offset;
  m.enabled = (ctl & 1u) != 0;
  m.vectors_capable = 1u << mmc;
  m.vectors_enabled = 1u << mme;
  m.address_64bit = (ctl & (1u << 7)) != 0;
  m.per_vector_masking = (ctl & (1u << 8)) != 0;
  return m;
}

Result<MsixCapability> decode_msix(const ConfigSpace& cs) {
  const Capability* cap = RG_TRY(require_cap(cs, kCapMsix, "MSI-X"));
  const size_t o = cap->offset;
  RG_TRY(check_cap_span(cs, o, 12, "MSI-X"));
  const uint16_t ctl = get16(cs.bytes, o + 2);
  const uint32_t table = get32(cs.bytes, o + 4), pba = get32(cs.bytes, o + 8);
  MsixCapability m;
  m.offset = cap->offset;
  m.table_size = (ctl & 0x7ffu) + 1;
  m.function_masked = (ctl & (1u << 14)) != 0;
  m.enabled = (ctl & (1u << 15)) != 0;
  m.table_bar = static_cast<int>(table & 7u);
  m.table_offset = table & ~uint32_t{7};
  m.pba_bar = static_cast<int>(pba & 7u);
  m.pba_offset = pba & ~uint32_t{7};
  if (m.table_bar > 5)
    return make_error(Errc::kParse,
                      "MSI-X capability at 0x%02zx: table BAR indicator %d at offset 0x%02zx is "
                      "not a BAR (0..5)",
                      o, m.table_bar, o + 4);
  if (m.pba_bar > 5)
    return make_error(Errc::kParse,
                      "MSI-X capability at 0x%02zx: PBA BAR indicator %d at offset 0x%02zx is not "
                      "a BAR (0..5)",
                      o, m.pba_bar, o + 8);
  return m;
}

// ---------------------------------------------------------------------------------------------
// Resizable BAR
// ---------------------------------------------------------------------------------------------

uint64_t rebar_size_bytes(unsigned code) {
  return code > kRebarMaxSizeCode ? 0 : (uint64_t{1} << 20) << code;
}

Result<unsigned> rebar_size_code(uint64_t bytes) {
  if (bytes < (uint64_t{1} << 20) || (bytes & (bytes - 1)) != 0)
    return make_error(Errc::kInvalidArgument,
                      "BAR size %llu bytes is not a power of two from 1 MiB to 8 EiB",
                      static_cast<unsigned long long>(bytes));
  return static_cast<unsigned>(std::countr_zero(bytes)) - 20;
}

std::vector<uint64_t> rebar_sizes_from_mask(uint64_t mask) {
  std::vector<uint64_t> sizes;
  for (unsigned n = 0; n <= kRebarMaxSizeCode; ++n)
    if ((mask >> n) & 1u) sizes.push_back(rebar_size_bytes(n));
  return sizes;
}

uint32_t rebar_control_with_size(uint32_t control, unsigned code) {
  return (control & ~uint32_t{0x3f00}) | ((code & 0x3fu) << 8);
}

bool ResizableBarEntry::supports(uint64_t bytes) const {
  auto code = rebar_size_code(bytes);
  return code.ok() && ((supported_mask >> *code) & 1u) != 0;
}

Result<uint32_t> ResizableBarEntry::control_for_size(uint64_t bytes) const {
  const unsigned code = RG_TRY(rebar_size_code(bytes));
  if (((supported_mask >> code) & 1u) == 0) {
    std::string offered;
    for (uint64_t s : supported_sizes()) offered += (offered.empty() ? "" : ", ") + format_bytes(s);
    return make_error(Errc::kUnsupported, "BAR%d cannot be resized to %s; it supports %s",
                      bar_index, format_bytes(bytes).c_str(), offered.c_str());
  }
  return rebar_control_with_size(control, code);
}

const ResizableBarEntry* ResizableBar::find(int bar_index) const {
  for (const ResizableBarEntry& e : entries)
    if (e.bar_index == bar_index) return &e;
  return nullptr;
}

Result<ResizableBar> decode_resizable_bar(const ConfigSpace& cs) {
  const ExtCapability* cap = cs.find_ext_capability(kExtCapResizableBar);
  if (cap == nullptr)
    return make_error(Errc::kNotFound,
                      "the function has no Resizable BAR extended capability (ID 0x0015)");
  const size_t o = cap->offset;
  if (o + 12 > cs.size())
    return make_error(Errc::kParse,
                      "Resizable BAR capability at 0x%03zx: its first entry ends past the %zu "
                      "bytes of config space",
                      o, cs.size());
  const uint32_t ctl0 = get32(cs.bytes, o + 8);
  const unsigned count = (ctl0 >> 5) & 7u;
  if (count < 1 || count > 6)
    return make_error(Errc::kParse,
                      "Resizable BAR capability at 0x%03zx: entry count %u in the control "
                      "register at 0x%03zx is not 1..6",
                      o, count, o + 8);
  if (o + 4 + 8 * count > cs.size())
    return make_error(Errc::kParse,
                      "Resizable BAR capability at 0x%03zx: %u entries end at 0x%03zx, past the "
                      "%zu bytes of config space",
                      o, count, o + 4 + 8 * count, cs.size());
  ResizableBar rb;
  rb.offset = cap->offset;
  for (unsigned i = 0; i < count; ++i) {
    ResizableBarEntry e;
    e.capability_offset = static_cast<uint16_t>(o + 4 + 8 * i);
    e.control_offset = static_cast<uint16_t>(o + 8 + 8 * i);
    e.capability = get32(cs.bytes, e.capability_offset);
    e.control = get32(cs.bytes, e.control_offset);
    e.bar_index = static_cast<int>(e.control & 7u);
    if (e.bar_index > 5)
      return make_error(Errc::kParse,
                        "Resizable BAR entry %u: BAR index %d in the control register at 0x%03x "
                        "is not 0..5",
                        i, e.bar_index, e.control_offset);
    if (rb.find(e.bar_index) != nullptr)
      return make_error(Errc::kParse,
                        "Resizable BAR entry %u (control register at 0x%03x) describes BAR%d "
                        "again",
                        i, e.control_offset, e.bar_index);
    e.supported_mask =
        ((e.capability >> 4) & 0x0fffffffu) | (static_cast<uint64_t>(e.control >> 16) << 28);
    if (e.supported_mask == 0)
      return make_error(Errc::kParse,
                        "Resizable BAR entry %u for BAR%d (capability register at 0x%03x) "
                        "supports no size",
                        i, e.bar_index, e.capability_offset);
    e.current_size_code = (e.control >> 8) & 0x3fu;
    if (e.current_size_code > kRebarMaxSizeCode)
      return make_error(Errc::kParse,
                        "Resizable BAR entry %u for BAR%d: size code %u in the control register "
                        "at 0x%03x is beyond 8 EiB (43)",
                        i, e.bar_index, e.current_size_code, e.control_offset);
    rb.entries.push_back(e);
  }
  return rb;
}

}  // namespace rawgpu::pci
