// PCI enumeration through libpci plus sysfs.
//
// libpci reports fatal conditions through pci_access::error, which must not return. We turn
// those into rawgpu errors by longjmp-ing out of the callback: every libpci call runs inside
// guarded(), whose setjmp frame and callee lambda hold only trivially destructible locals, so
// the jump skips nothing but libpci's own C frames.
// libpci 3.9 headers declare C functions without extern "C".
extern "C" {
#include <pci/pci.h>
}

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "rawgpu/base/file.h"
#include "rawgpu/base/log.h"
#include "rawgpu/base/parse.h"
#include "rawgpu/drivers/pci/device_info.h"

#include "rawgpu/drivers/pci/config_space.h"
#include "rawgpu/drivers/pci/sysfs_text.h"

namespace rawgpu::pci {
namespace fs = std::filesystem;

namespace {

constexpr const char* kTag = "pci";

thread_local std::jmp_buf* t_error_jump = nullptr;
thread_local char t_error_message[512];

// GNU noreturn (part of the function type in clang), matching pci_access::error.
__attribute__((noreturn)) void on_libpci_error(char* msg, ...) {
  va_list args;
  va_start(args, msg);
  std::vsnprintf(t_error_message, sizeof(t_error_message), msg, args);
  va_end(args);
  if (t_error_jump != nullptr) std::longjmp(*t_error_jump, 1);
  // Not inside enumerate(): nothing sane to return to.
  std::fprintf(stderr, "rawgpu[pci] libpci fatal error outside enumeration: %s\n", t_error_message);
  std::abort();
}

void on_libpci_warning(char* msg, ...) {
  va_list args;
  va_start(args, msg);
  std::string text = vstrformat(msg, args);
  va_end(args);
  RG_LOG(kTag, 1, "libpci: %s", text.c_str());
}

void on_libpci_debug(char* msg, ...) {
  va_list args;
  va_start(args, msg);
  std::string text = vstrformat(msg, args);
  va_end(args);
  RG_LOG(kTag, 5, "libpci: %s", text.c_str());
}

// Runs one libpci call; returns false (message in t_error_message) if libpci raised an error.
template <class F>
bool guarded(F&& call) {
  std::jmp_buf jump;
  std::jmp_buf* const previous = t_error_jump;
  t_error_jump = &jump;
  if (setjmp(jump) != 0) {
    t_error_jump = previous;
    return false;
  }
  call();
  t_error_jump = previous;
  return true;
}

Error libpci_error(const char* doing) {
  return make_error(Errc::kIo, "libpci: %s", t_error_message)
      .with_context(strformat("while %s", doing));
}

Result<std::string> lookup(pci_access* acc, int flags, unsigned a, unsigned b = 0) {
  char buf[256];
  const char* name = nullptr;
  if (!guarded([&] {
        name = pci_lookup_name(acc, buf, sizeof(buf), flags | PCI_LOOKUP_NO_NUMBERS, a, b);
      }))
    return libpci_error("looking up a name in pci.ids");
  return name != nullptr ? std::string(name) : std::string();
}

// Final path component of a symlink target ("../../../bus/pci/drivers/amdgpu" -> "amdgpu").
std::string link_basename(const fs::path& link) {
  std::error_code ec;
  if (!fs::is_symlink(link, ec)) return {};
  const fs::path target = fs::read_symlink(link, ec);
  if (ec) return {};
  return target.filename().string();
}

// BARs 0..5 from a sysfs `resource` file (parse_resource); unused lines are skipped. A missing
// file gives no BARs; an unreadable or malformed one is logged and gives none either, so the
// caller keeps the config-space BARs.
std::vector<Bar> read_sysfs_bars(const fs::path& file) {
  std::vector<Bar> bars;
  std::error_code ec;
  if (!fs::exists(file, ec)) return bars;
  ReadLimits limits;
  limits.max_bytes = 64 << 10;
  Result<std::string> text = read_file(file.string(), limits);
  if (!text.ok()) {
    RG_LOG(kTag, 1, "%s", text.error().to_string().c_str());
    return bars;
  }
  Result<std::vector<ResourceRegion>> regions = parse_resource(*text);
  if (!regions.ok()) {
    RG_LOG(kTag, 1, "%s: %s", file.c_str(), regions.error().to_string().c_str());
    return bars;
  }
  for (const ResourceRegion& r : *regions) {
    if (r.index >= 6) break;
    if (!r.used()) continue;
    Bar bar;
    bar.index = r.index;
    bar.address = r.start;
    bar.size = r.size();
    bar.io = r.io();
    bar.is_64bit = r.is_64bit();
    bar.prefetchable = r.prefetchable();
    bars.push_back(bar);
  }
  return bars;
}

// BARs as libpci reports them (config space decode; sizes only where the access method knows).
std::vector<Bar> libpci_bars(const pci_dev* d) {
  std::vector<Bar> bars;
  for (int i = 0; i < 6; ++i) {
    const pciaddr_t raw = d->base_addr[i];
    if (raw == 0 && d->size[i] == 0) continue;
    Bar bar;
    bar.index = i;
    bar.io = (raw & PCI_BASE_ADDRESS_SPACE_IO) != 0;
    bar.address = bar.io ? (raw & PCI_ADDR_IO_MASK) : (raw & PCI_ADDR_MEM_MASK);
    bar.size = d->size[i];
    if (!bar.io) {
      bar.is_64bit = (raw & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64;
      bar.prefetchable = (raw & PCI_BASE_ADDRESS_MEM_PREFETCH) != 0;
    }
    bars.push_back(bar);
    if (bar.is_64bit) ++i;  // upper half of a 64-bit BAR
  }
  return bars;
}

enum class PathKind { kFile, kDirectory };

// That `path` exists, is what it should be and can be read; otherwise an error naming it and the
// problem: kNotFound, kInvalidArgument (a directory for a file or the reverse), kPermission, or
// kIo with the OS's reason (ENOTDIR, ELOOP, EIO...).
Status check_input(const std::string& path, PathKind want, const char* what) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT)
      return make_error(Errc::kNotFound, "%s %s does not exist", what, path.c_str());
    return make_error(err == EACCES ? Errc::kPermission : Errc::kIo, "%s %s: %s", what,
                      path.c_str(), std::strerror(err));
  }
  if (want == PathKind::kFile && S_ISDIR(st.st_mode))
    return make_error(Errc::kInvalidArgument, "%s %s is a directory, not a file", what,
                      path.c_str());
  if (want == PathKind::kDirectory && !S_ISDIR(st.st_mode))
    return make_error(Errc::kInvalidArgument, "%s %s is not a directory", what, path.c_str());
  if (::access(path.c_str(), want == PathKind::kFile ? R_OK : (R_OK | X_OK)) != 0) {
    const int err = errno;
    return make_error(err == EACCES ? Errc::kPermission : Errc::kIo, "%s %s cannot be read: %s",
                      what, path.c_str(), std::strerror(err));
  }
  return ok_status();
}

// Capabilities from as much configuration space as libpci can read (unprivileged sysfs reads
// stop at 64 bytes: then there are none). A malformed list is logged and ignored: listing
// devices must not fail on one device's bad capability chain.
void read_capabilities(pci_dev* d, DeviceInfo& info) {
  std::vector<uint8_t> cfg;
  for (int size : {4096, 256, 64}) {
    cfg.assign(static_cast<size_t>(size), 0);
    int ok = 0;
    if (!guarded([&] { ok = pci_read_block(d, 0, cfg.data(), size); })) ok = 0;
    if (ok) break;
    cfg.clear();
  }
  info.config_bytes = static_cast<uint32_t>(cfg.size());
  if (cfg.size() <= 64) return;
  auto cs = parse_config_space(cfg);
  if (!cs) {
    RG_LOG(kTag, 1, "%s: capabilities not read: %s", info.bdf.to_string().c_str(),
           cs.error().to_string().c_str());
    return;
  }
  if (auto pcie = decode_pcie(*cs)) {
    PcieLink l;
    l.speed = pcie->link_speed;
    l.max_speed = pcie->max_link_speed;
    l.width = pcie->link_width;
    l.max_width = pcie->max_link_width;
    l.aspm_l0s = pcie->aspm_l0s_enabled;
    l.aspm_l1 = pcie->aspm_l1_enabled;
    info.link = l;
  }
  if (auto rebar = decode_resizable_bar(*cs))
    for (const ResizableBarEntry& e : rebar->entries)
      info.resizable_bars.push_back({e.bar_index, e.supported_sizes(), e.current_size()});
  info.msi = decode_msi(*cs).ok();
  info.msix = decode_msix(*cs).ok();
}

struct PciAccess {
  pci_access* acc = pci_alloc();
  ~PciAccess() {
    if (acc != nullptr) pci_cleanup(acc);
  }
};

}  // namespace

std::string Bdf::to_string() const {
  return strformat("%04x:%02x:%02x.%u", domain, bus, device, function);
}

Result<Bdf> Bdf::parse(std::string_view text) {
  // [dddd:]bb:dd.f
  auto bad = [&] {
    return make_error(Errc::kParse,
                      "'%.*s' is not a PCI address; expected DDDD:BB:DD.F or BB:DD.F (hex), "
                      "e.g. 0000:03:00.0",
                      static_cast<int>(std::min<size_t>(text.size(), 64)), text.data());
  };
  std::string_view s = text;
  Bdf b;
  const size_t first = s.find(':');
  const size_t last = s.rfind(':');
  if (first == std::string_view::npos) return bad();
  if (first != last) {
    auto dom = parse_u64(std::string("0x") + std::string(s.substr(0, first)));
    if (!dom.ok() || first == 0 || first > 8 || *dom > 0xffffffffu) return bad();
    b.domain = static_cast<uint32_t>(*dom);
    s.remove_prefix(first + 1);
  }
  const size_t colon = s.find(':');
  const size_t dot = s.find('.');
  if (colon == std::string_view::npos || dot == std::string_view::npos || dot < colon) return bad();
  const std::string_view sbus = s.substr(0, colon), sdev = s.substr(colon + 1, dot - colon - 1),
                         sfn = s.substr(dot + 1);
  if (sbus.empty() || sbus.size() > 2 || sdev.empty() || sdev.size() > 2 || sfn.size() != 1)
    return bad();
  auto bus = parse_u64(std::string("0x") + std::string(sbus));
  auto dev = parse_u64(std::string("0x") + std::string(sdev));
  auto fn = parse_u64(std::string("0x") + std::string(sfn));
  if (!bus.ok() || !dev.ok() || !fn.ok() || *dev > 31 || *fn > 7) return bad();
  b.bus = static_cast<uint8_t>(*bus);
  b.device = static_cast<uint8_t>(*dev);
  b.function = static_cast<uint8_t>(*fn);
  return b;
}

Result<std::vector<DeviceInfo>> enumerate(const EnumerateOptions& options) {
  const bool from_dump = !options.libpci_dump.empty();
  // sysfs: the given tree, the live /sys for the live system, nothing for a dump alone.
  const bool use_sysfs = !from_dump || !options.sysfs_root.empty();
  const fs::path sysfs_devices =
      fs::path(options.sysfs_root.empty() ? "/sys" : options.sysfs_root) / "bus/pci/devices";
  if (from_dump) RG_TRY(check_input(options.libpci_dump, PathKind::kFile, "libpci dump file"));
  if (use_sysfs) {
    Status st = check_input(sysfs_devices.string(), PathKind::kDirectory, "sysfs PCI directory");
    if (!st.ok()) {
      Error e = std::move(st).take_error();
      if (!from_dump && e.is(Errc::kNotFound))
        return std::move(e.add_context("no PCI bus visible"))
            .with_hint("run on the host (not in a container without /sys), or pass a libpci dump");
      return e;
    }
  }

  PciAccess access;
  if (access.acc == nullptr) return make_error(Errc::kOutOfMemory, "pci_alloc failed");
  pci_access* acc = access.acc;
  acc->error = on_libpci_error;
  acc->warning = on_libpci_warning;
  acc->debug = on_libpci_debug;

  // Strings handed to libpci must outlive the access object.
  std::string sysfs_param = sysfs_devices.parent_path().string();  // ".../bus/pci"
  std::string dump_param = options.libpci_dump;
  std::string ids_param = options.pci_ids;

  if (!dump_param.empty()) {
    acc->method = PCI_ACCESS_DUMP;
    pci_set_param(acc, const_cast<char*>("dump.name"), dump_param.data());
  } else {
    acc->method = PCI_ACCESS_SYS_BUS_PCI;
    pci_set_param(acc, const_cast<char*>("sysfs.path"), sysfs_param.data());
  }
  if (!ids_param.empty()) pci_set_name_list_path(acc, ids_param.data(), 0);
  // Names come from pci.ids only: deterministic across machines, and libpci's udev-hwdb path
  // leaks its udev context.
  pci_set_param(acc, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
  if (!guarded([&] { pci_init(acc); })) return libpci_error("initialising libpci");
  if (!guarded([&] { pci_scan_bus(acc); })) return libpci_error("scanning the PCI bus");

  std::vector<DeviceInfo> out;
  for (pci_dev* d = acc->devices; d != nullptr; d = d->next) {
    if (!guarded([&] {
          pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_BASES | PCI_FILL_SIZES |
                               PCI_FILL_CLASS_EXT | PCI_FILL_SUBSYS);
        }))
      return libpci_error("reading PCI device information");
    DeviceInfo info;
    info.bdf = Bdf{static_cast<uint32_t>(d->domain), d->bus, d->dev, d->func};
    info.vendor_id = d->vendor_id;
    info.device_id = d->device_id;
    info.class_code = (static_cast<uint32_t>(d->device_class) << 8) | d->prog_if;
    if (options.display_only && !info.is_display()) continue;
    info.revision = d->rev_id;
    info.subsystem_vendor_id = d->subsys_vendor_id;
    info.subsystem_id = d->subsys_id;
    info.vendor_name = RG_TRY(lookup(acc, PCI_LOOKUP_VENDOR, d->vendor_id));
    info.device_name = RG_TRY(lookup(acc, PCI_LOOKUP_DEVICE, d->vendor_id, d->device_id));
    info.class_name = RG_TRY(lookup(acc, PCI_LOOKUP_CLASS, d->device_class));
    info.bars = libpci_bars(d);
    read_capabilities(d, info);
    out.push_back(std::move(info));
  }

  // sysfs: bound driver, IOMMU group, and BAR sizes (authoritative when present).
  for (DeviceInfo& info : out) {
    info.known = find_known_gpu(info.vendor_id, info.device_id);
    if (!use_sysfs) continue;
    const fs::path dir = sysfs_devices / info.bdf.to_string();
    info.driver = link_basename(dir / "driver");
    const std::string group = link_basename(dir / "iommu_group");
    if (!group.empty()) {
      auto g = parse_u64(group);
      if (g.ok() && *g <= 0x7fffffff) info.iommu_group = static_cast<int>(*g);
    }
    if (info.iommu_group) {
      std::error_code ec;
      const fs::path members = fs::path(sysfs_devices).parent_path().parent_path().parent_path() /
                               "kernel/iommu_groups" / std::to_string(*info.iommu_group) /
                               "devices";
      for (const auto& e : fs::directory_iterator(members, ec))
        if (e.path().filename() != info.bdf.to_string())
          info.iommu_group_devices.push_back(e.path().filename().string());
      std::sort(info.iommu_group_devices.begin(), info.iommu_group_devices.end());
    }
    std::vector<Bar> bars = read_sysfs_bars(dir / "resource");
    if (!bars.empty()) info.bars = std::move(bars);
  }
  std::sort(out.begin(), out.end(),
            [](const DeviceInfo& a, const DeviceInfo& b) { return a.bdf < b.bdf; });
  RG_LOG(kTag, 2, "enumerated %zu device(s)", out.size());
  return out;
}

}  // namespace rawgpu::pci
