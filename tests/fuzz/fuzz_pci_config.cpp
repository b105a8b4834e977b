// Fuzz target for the PCI config-space parser and its capability decoders
// (drivers/pci/config_space.h) and the sysfs text parsers (drivers/pci/sysfs_text.h), all on the
// same input: failures are typed errors with a message; what is accepted is self-consistent
// (capabilities inside the bytes, walks within their limits, resize values round-trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <span>
#include <string_view>

#include "rawgpu/drivers/pci/config_space.h"
#include "rawgpu/drivers/pci/sysfs_text.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_pci_config invariant violated: %s\n", what);
    std::abort();
  }
}

template <class T>
bool failed_cleanly(const rawgpu::Result<T>& r, std::initializer_list<rawgpu::Errc> allowed) {
  if (r.ok()) return false;
  bool known = false;
  for (rawgpu::Errc c : allowed) known = known || r.error().code() == c;
  require(known, "error code");
  require(!r.error().message().empty(), "error message");
  return true;
}

void check_config(std::span<const uint8_t> bytes) {
  using namespace rawgpu;
  using namespace rawgpu::pci;
  auto header = parse_config_header(bytes);
  auto full = parse_config_space(bytes);
  if (failed_cleanly(header, {Errc::kParse, Errc::kHardware})) {
    require(!full.ok() && full.error().code() == header.error().code(), "header error repeats");
    return;
  }
  require(header->size() == bytes.size(), "bytes kept");
  require(header->capabilities.empty() && header->ext_capabilities.empty(), "header only");
  if (failed_cleanly(full, {Errc::kParse})) return;
  const ConfigSpace& cs = *full;
  require(cs.capabilities.size() <= kMaxCapabilities, "capability limit");
  require(cs.ext_capabilities.size() <= kMaxExtCapabilities, "extended capability limit");
  for (const Capability& c : cs.capabilities)
    require(c.offset >= kConfigHeaderSize && c.offset + 2u <= cs.size(), "capability in bytes");
  for (const ExtCapability& c : cs.ext_capabilities)
    require(c.offset >= kConfigConventionalSize && c.offset + 4u <= cs.size(),
            "extended capability in bytes");
  for (const BarRegister& b : cs.bars) require(b.index >= 0 && b.index < 6, "BAR index");

  auto pcie = decode_pcie(cs);
  if (!failed_cleanly(pcie, {Errc::kParse, Errc::kNotFound})) {
    require(!port_type_name(pcie->port_type).empty(), "port type name");
    require(!link_speed_name(pcie->link_speed).empty(), "speed name");
    require(link_speed_gts(pcie->max_link_speed).has_value() ==
                (pcie->max_link_speed >= 1 && pcie->max_link_speed <= 6),
            "speed table");
  }
  auto msi = decode_msi(cs);
  if (!failed_cleanly(msi, {Errc::kParse, Errc::kNotFound}))
    require(msi->vectors_capable >= 1 && msi->vectors_capable <= 32, "MSI vectors");
  auto msix = decode_msix(cs);
  if (!failed_cleanly(msix, {Errc::kParse, Errc::kNotFound}))
    require(msix->table_size >= 1 && msix->table_size <= 2048 && msix->table_bar <= 5 &&
                msix->pba_bar <= 5,
            "MSI-X fields");
  auto rebar = decode_resizable_bar(cs);
  if (!failed_cleanly(rebar, {Errc::kParse, Errc::kNotFound})) {
    require(!rebar->entries.empty() && rebar->entries.size() <= 6, "ReBAR entries");
    for (const ResizableBarEntry& e : rebar->entries) {
      require(e.bar_index >= 0 && e.bar_index <= 5, "ReBAR index");
      require(e.control_offset + 4u <= cs.size(), "ReBAR control in bytes");
      require(e.current_size_code <= kRebarMaxSizeCode && e.current_size() != 0, "ReBAR size");
      const auto sizes = e.supported_sizes();
      require(!sizes.empty(), "ReBAR sizes");
      for (uint64_t s : sizes) {
        auto ctl = e.control_for_size(s);
        require(ctl.ok(), "supported size encodes");
        require(rebar_size_bytes((*ctl >> 8) & 0x3f) == s, "size round trip");
        require((*ctl & ~uint32_t{0x3f00}) == (e.control & ~uint32_t{0x3f00}), "other bits kept");
      }
    }
  }
}

void check_text(std::string_view text) {
  using namespace rawgpu;
  using namespace rawgpu::pci;
  auto res = parse_resource(text);
  if (!failed_cleanly(res, {Errc::kParse})) {
    require(res->size() <= kMaxResourceLines, "resource lines");
    for (const ResourceRegion& r : *res) require(!r.used() || r.end >= r.start, "resource range");
  }
  auto ue = parse_uevent(text);
  if (!failed_cleanly(ue, {Errc::kParse})) {
    require(ue->entries.size() <= kMaxUeventLines, "uevent lines");
    (void)ue->driver();
    (void)failed_cleanly(ue->pci_id(), {Errc::kParse, Errc::kNotFound});
    (void)failed_cleanly(ue->subsystem_id(), {Errc::kParse, Errc::kNotFound});
    (void)failed_cleanly(ue->slot_name(), {Errc::kParse, Errc::kNotFound});
  }
  auto rs = parse_resize(text);
  if (!failed_cleanly(rs, {Errc::kParse}))
    require(rs->sizes().size() == static_cast<size_t>(__builtin_popcountll(rs->mask)), "sizes");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check_config(std::span(data, size));
  check_text(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
