#include "rawgpu/drivers/pci/vfio.h"

#include <fcntl.h>
#include <linux/vfio.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "mapped_mmio.h"
#include "pagemap.h"
#include "rawgpu/base/env.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/base/parse.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::pci {
namespace {

namespace fs = std::filesystem;

// The struct sizes this code passes as argsz (linux/vfio.h of the Debian kernel headers); a
// different size means a different ABI and must be looked at, not silently passed.
static_assert(sizeof(vfio_group_status) == 8);
static_assert(sizeof(vfio_device_info) == 20);
static_assert(sizeof(vfio_region_info) == 32);
static_assert(sizeof(vfio_irq_info) == 16);
static_assert(sizeof(vfio_irq_set) == 20);
static_assert(sizeof(vfio_iommu_type1_info) == 24);
static_assert(sizeof(vfio_iommu_type1_dma_map) == 32);
static_assert(sizeof(vfio_iommu_type1_dma_unmap) == 24);
static_assert(sizeof(vfio_info_cap_header) == 8);
static_assert(sizeof(vfio_iommu_type1_info_cap_iova_range) == 16);

constexpr int kNumBars = 6;
constexpr uint64_t kIovaLimit = uint64_t{1} << 47;  // TLSF range cap; IOMMUs do 48 bits or more
constexpr uint64_t kHugeAlign = uint64_t{2} << 20;

Errc errc_of(int err) {
  switch (err) {
    case ENOENT:
    case ENODEV: return Errc::kNotFound;
    case EACCES:
    case EPERM: return Errc::kPermission;
    case EBUSY: return Errc::kBusy;
    case ENOMEM: return Errc::kOutOfMemory;
    default: return Errc::kIo;
  }
}

std::string basename_of(const std::string& link) {
  const size_t slash = link.find_last_of('/');
  return slash == std::string::npos ? link : link.substr(slash + 1);
}

// A BAR vfio does not let us mmap: every access is a pread/pwrite on the device fd. A failed
// access reads as all ones (what the bus gives for a dead device) and is logged.
class FileMmio final : public Mmio {
 public:
  FileMmio(Sys& sys, int fd, uint64_t region_off, uint64_t size)
      : Mmio(size), sys_(&sys), fd_(fd), region_off_(region_off) {}
  uint32_t rd32(uint64_t off) override {
    check_access(off, 4, 4);
    uint32_t v = 0xffffffffu;
    if (sys_->pread(fd_, &v, 4, static_cast<off_t>(region_off_ + off)) != 4) {
      RG_WARN("pci", "BAR read at 0x%llx failed", static_cast<unsigned long long>(off));
      return 0xffffffffu;
    }
    return v;
  }
  void wr32(uint64_t off, uint32_t v) override {
    check_access(off, 4, 4);
    if (sys_->pwrite(fd_, &v, 4, static_cast<off_t>(region_off_ + off)) != 4)
      RG_WARN("pci", "BAR write at 0x%llx failed", static_cast<unsigned long long>(off));
  }

 private:
  Sys* sys_;
  int fd_;
  uint64_t region_off_;
};

struct Region {
  uint64_t size = 0;
  uint64_t offset = 0;
  uint32_t flags = 0;
};

struct DmaMapping {
  uint64_t size = 0;
  uint64_t iova = 0;  // 0 in no-IOMMU mode
  bool owned = true;  // false: map_dma of the caller's memory (unmapped, never freed)
};

}  // namespace

struct VfioPciDevice::State {
  Sys* sys = nullptr;
  Clock* clock = nullptr;
  VfioOptions opts;
  std::string bdf;
  int group_id = -1;
  int container = -1, group = -1, device = -1, irq_fd = -1;
  std::unique_ptr<Pagemap> pagemap;
  int irq_index = -1;
  bool no_iommu = false;
  uint32_t device_flags = 0;
  Region config;
  std::array<Region, kNumBars> regions{};
  std::array<BarInfo, kNumBars> bars{};
  std::array<std::unique_ptr<Mmio>, kNumBars> windows;
  std::optional<memory::Tlsf> iova;
  std::map<uint8_t*, DmaMapping> dma;
  uint64_t dma_ioctls = 0;

  ~State() { teardown(); }

  Error fail(int err, const char* step) const {
    return make_error(errc_of(err), "%s: %s: %s", bdf.c_str(), step, std::strerror(err));
  }
  Error failh(int err, const char* step, std::string hint) const {
    return std::move(fail(err, step).with_hint(std::move(hint)));
  }
  std::string sysdev() const { return opts.sysfs_root + "/bus/pci/devices/" + bdf; }
  std::string vfio_dir() const { return opts.dev_root + "/vfio"; }

  int ioctl(int fd, unsigned long req, void* arg) { return sys->ioctl(fd, req, arg); }

  Status unmap_dma(uint8_t* host, const DmaMapping& m) {
    Status st = ok_status();
    if (!no_iommu) {
      vfio_iommu_type1_dma_unmap u{};
      u.argsz = sizeof u;
      u.iova = m.iova;
      u.size = m.size;
      ++dma_ioctls;
      if (const int r = ioctl(container, VFIO_IOMMU_UNMAP_DMA, &u); r < 0)
        st = fail(-r, "VFIO_IOMMU_UNMAP_DMA");
      else if (u.size != m.size)
        st = make_error(Errc::kHardware, "%s: VFIO_IOMMU_UNMAP_DMA unmapped %llu of %llu bytes",
                        bdf.c_str(), static_cast<unsigned long long>(u.size),
                        static_cast<unsigned long long>(m.size));
      if (iova) (void)iova->free(m.iova);
    }
    if (m.owned) sys->munmap(host, m.size);
    return st;
  }

  // IOMMU mapping of `size` bytes at `host` (read/write) at a fresh IOVA: one ioctl.
  Result<uint64_t> iommu_map(uint8_t* host, uint64_t size) {
    auto va = iova->alloc(size, size >= kHugeAlign ? kHugeAlign : kDmaPageSize);
    if (!va) {
      return make_error(Errc::kOutOfMemory, "%s: no IOVA space for %s of DMA: %s", bdf.c_str(),
                        format_bytes(size).c_str(), va.error().message().c_str());
    }
    vfio_iommu_type1_dma_map map{};
    map.argsz = sizeof map;
    map.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
    map.vaddr = reinterpret_cast<uintptr_t>(host);
    map.iova = *va;
    map.size = size;
    ++dma_ioctls;
    if (const int r = ioctl(container, VFIO_IOMMU_MAP_DMA, &map); r < 0) {
      (void)iova->free(*va);
      return failh(-r, "VFIO_IOMMU_MAP_DMA",
                   -r == ENOMEM ? "pinning the pages failed: raise the locked-memory limit "
                                  "(ulimit -l, LimitMEMLOCK=) or free host memory"
                                : "");
    }
    return *va;
  }

  void teardown() {
    if (irq_fd >= 0 && device >= 0 && irq_index >= 0) {
      vfio_irq_set off{};
      off.argsz = sizeof off;
      off.flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
      off.index = static_cast<uint32_t>(irq_index);
      off.count = 0;
      ioctl(device, VFIO_DEVICE_SET_IRQS, &off);
    }
    if (irq_fd >= 0) sys->close(irq_fd);
    irq_fd = -1;
    for (auto& [host, m] : dma) (void)unmap_dma(host, m);
    dma.clear();
    for (auto& w : windows) w.reset();
    for (int* fd : {&device, &group, &container}) {
      if (*fd >= 0) sys->close(*fd);
      *fd = -1;
    }
    pagemap.reset();
  }

  Status check_driver() {
    std::string target;
    // A symlink into /sys/devices on Linux (EINVAL: a plain directory, as in test trees).
    if (const ssize_t r = sys->readlink(sysdev(), target); r < 0 && r != -EINVAL)
      return std::move(make_error(errc_of(static_cast<int>(-r)),
                                  "%s: no such PCI function (%s: %s)", bdf.c_str(),
                                  sysdev().c_str(), std::strerror(static_cast<int>(-r)))
                           .with_hint("`rawgpu list` shows the GPUs present"));
    const ssize_t r = sys->readlink(sysdev() + "/driver", target);
    const std::string bind_hint =
        "bind it to vfio-pci: `rawgpu bind " + bdf +
        " --vfio` (or write vfio-pci to its driver_override, unbind it and write the address to "
        "/sys/bus/pci/drivers_probe)";
    if (r == -ENOENT)
      return std::move(
          make_error(Errc::kBusy, "%s is not bound to vfio-pci (no driver)", bdf.c_str())
              .with_hint(bind_hint));
    if (r < 0) return fail(static_cast<int>(-r), "reading the bound driver");
    const std::string driver = basename_of(target);
    if (driver != "vfio-pci")
      return std::move(
          make_error(Errc::kBusy, "%s is bound to %s, not vfio-pci", bdf.c_str(), driver.c_str())
              .with_hint(bind_hint));
    return ok_status();
  }

  Status find_group() {
    std::string target;
    const ssize_t r = sys->readlink(sysdev() + "/iommu_group", target);
    if (r == -ENOENT)
      return std::move(
          make_error(Errc::kUnsupported, "%s has no IOMMU group: the IOMMU is off", bdf.c_str())
              .with_hint("enable it (BIOS: VT-d / AMD-Vi; kernel: intel_iommu=on or amd_iommu=on "
                         "iommu=pt); or, knowing DMA is then unprotected, load vfio with "
                         "enable_unsafe_noiommu_mode=1 and pass --no-iommu"));
    if (r < 0) return fail(static_cast<int>(-r), "reading the IOMMU group");
    auto id = parse_u64(basename_of(target));
    if (!id || *id > 0x7fffffff)
      return make_error(Errc::kParse, "%s: IOMMU group link '%s' does not end in a number",
                        bdf.c_str(), target.c_str());
    group_id = static_cast<int>(*id);
    return ok_status();
  }

  // The devices of the group other than ours, each with its driver ("none" when unbound).
  std::string other_group_members() const {
    std::string out;
    std::error_code ec;
    const fs::path dir =
        fs::path(opts.sysfs_root) / "kernel/iommu_groups" / std::to_string(group_id) / "devices";
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir, ec))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) {
      if (n == bdf) continue;
      std::string target, driver = "no driver";
      if (sys->readlink((dir / n / "driver").string(), target) >= 0)
        driver = "bound to " + basename_of(target);
      out += (out.empty() ? "" : ", ") + n + " (" + driver + ")";
    }
    return out;
  }

  Status open_container_and_group() {
    const int c = sys->open(vfio_dir() + "/vfio", O_RDWR);
    if (c < 0)
      return failh(-c, "opening /dev/vfio/vfio",
                   -c == ENOENT ? "load the vfio-pci module: modprobe vfio-pci"
                                : "run as root, or give this user access to /dev/vfio");
    container = c;
    const int api = ioctl(container, VFIO_GET_API_VERSION, nullptr);
    if (api != VFIO_API_VERSION)
      return make_error(Errc::kUnsupported, "%s: VFIO API version %d, expected %d", bdf.c_str(),
                        api, VFIO_API_VERSION);
    std::string path = vfio_dir() + "/" + std::to_string(group_id);
    int g = sys->open(path, O_RDWR);
    if (g == -ENOENT && opts.allow_no_iommu) {
      path = vfio_dir() + "/noiommu-" + std::to_string(group_id);
      g = sys->open(path, O_RDWR);
      if (g >= 0) no_iommu = true;
    }
    if (g < 0) {
      const std::string step = "opening " + path;
      return failh(-g, step.c_str(),
                   -g == EBUSY ? "another process has this IOMMU group open (a second rawgpu, "
                                 "QEMU?): `fuser -v " +
                                     path + "` names it"
                   : -g == ENOENT ? "the device is not bound to vfio-pci, or vfio runs in "
                                    "no-IOMMU mode (then pass --no-iommu)"
                                  : "run as root, or give this user access to " + path);
    }
    group = g;
    if (no_iommu)
      RG_WARN("pci",
              "%s: VFIO no-IOMMU mode: DMA is not translated or checked; the device can read and "
              "write any host memory",
              bdf.c_str());
    vfio_group_status st{};
    st.argsz = sizeof st;
    if (const int r = ioctl(group, VFIO_GROUP_GET_STATUS, &st); r < 0)
      return fail(-r, "VFIO_GROUP_GET_STATUS");
    if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
      const std::string others = other_group_members();
      return std::move(make_error(Errc::kPermission, "%s: IOMMU group %d is not viable: %s",
                                  bdf.c_str(), group_id,
                                  others.empty() ? "a device of the group is bound to a driver"
                                                 : ("it also holds " + others).c_str())
                           .with_hint("bind every device of the group to vfio-pci or unbind it "
                                      "(an HDMI audio function: remove it or bind it too)"));
    }
    const unsigned long type = no_iommu ? VFIO_NOIOMMU_IOMMU : VFIO_TYPE1v2_IOMMU;
    if (ioctl(container, VFIO_CHECK_EXTENSION, reinterpret_cast<void*>(type)) <= 0)
      return make_error(Errc::kUnsupported, "%s: the VFIO container has no %s IOMMU", bdf.c_str(),
                        no_iommu ? "no-IOMMU" : "type1v2");
    if (const int r = ioctl(group, VFIO_GROUP_SET_CONTAINER, &container); r < 0)
      return fail(-r, "VFIO_GROUP_SET_CONTAINER");
    if (const int r = ioctl(container, VFIO_SET_IOMMU, reinterpret_cast<void*>(type)); r < 0)
      return fail(-r, "VFIO_SET_IOMMU");
    return ok_status();
  }

  // The usable IOVA ranges from the type1 info capability chain (untrusted layout: offsets are
  // checked against the returned size, and must move forward).
  Status setup_iova() {
    std::vector<uint8_t> buf(sizeof(vfio_iommu_type1_info));
    auto* info = reinterpret_cast<vfio_iommu_type1_info*>(buf.data());
    info->argsz = static_cast<uint32_t>(buf.size());
    if (const int r = ioctl(container, VFIO_IOMMU_GET_INFO, info); r < 0)
      return fail(-r, "VFIO_IOMMU_GET_INFO");
    if (info->argsz > buf.size()) {
      if (info->argsz > (64u << 10))
        return make_error(Errc::kHardware, "%s: VFIO_IOMMU_GET_INFO wants %u bytes", bdf.c_str(),
                          info->argsz);
      buf.assign(info->argsz, 0);
      info = reinterpret_cast<vfio_iommu_type1_info*>(buf.data());
      info->argsz = static_cast<uint32_t>(buf.size());
      if (const int r = ioctl(container, VFIO_IOMMU_GET_INFO, info); r < 0)
        return fail(-r, "VFIO_IOMMU_GET_INFO");
    }
    if ((info->flags & VFIO_IOMMU_INFO_PGSIZES) && !(info->iova_pgsizes & kDmaPageSize))
      return make_error(Errc::kUnsupported, "%s: the IOMMU does not map 4 KiB pages (sizes 0x%llx)",
                        bdf.c_str(), static_cast<unsigned long long>(info->iova_pgsizes));
    std::vector<vfio_iova_range> ranges;
    if (info->flags & VFIO_IOMMU_INFO_CAPS) {
      uint32_t off = info->cap_offset;
      for (int n = 0; off != 0 && n < 64; ++n) {
        if (off < sizeof(vfio_iommu_type1_info) || off > buf.size() ||
            buf.size() - off < sizeof(vfio_info_cap_header))
          return make_error(Errc::kHardware,
                            "%s: VFIO_IOMMU_GET_INFO capability at %u outside its %zu bytes",
                            bdf.c_str(), off, buf.size());
        vfio_info_cap_header h;
        std::memcpy(&h, buf.data() + off, sizeof h);
        if (h.id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
          vfio_iommu_type1_info_cap_iova_range cap;
          if (buf.size() - off < sizeof cap)
            return make_error(Errc::kHardware, "%s: truncated IOVA range capability", bdf.c_str());
          std::memcpy(&cap, buf.data() + off, sizeof cap);
          const uint64_t room = (buf.size() - off - sizeof cap) / sizeof(vfio_iova_range);
          if (cap.nr_iovas > room)
            return make_error(Errc::kHardware,
                              "%s: IOVA range capability lists %u ranges, room for %llu",
                              bdf.c_str(), cap.nr_iovas, static_cast<unsigned long long>(room));
          for (uint32_t i = 0; i < cap.nr_iovas; ++i) {
            vfio_iova_range range;
            std::memcpy(&range, buf.data() + off + sizeof cap + i * sizeof range, sizeof range);
            ranges.push_back(range);
          }
        }
        if (h.next != 0 && h.next <= off)
          return make_error(Errc::kHardware, "%s: VFIO capability chain goes back (%u -> %u)",
                            bdf.c_str(), off, h.next);
        off = h.next;
      }
    }
    if (ranges.empty()) ranges.push_back({0, kIovaLimit - 1});  // no capability: all of it
    // The largest usable piece at or above iova_base.
    uint64_t best_lo = 0, best_size = 0;
    for (const vfio_iova_range& r : ranges) {
      if (r.end < r.start) continue;
      const uint64_t lo = align_up(std::max<uint64_t>(r.start, opts.iova_base), kHugeAlign);
      const uint64_t hi = std::min<uint64_t>(r.end, kIovaLimit - 1);
      if (hi < lo || hi - lo + 1 < kHugeAlign) continue;
      const uint64_t size = (hi - lo + 1) & ~(kHugeAlign - 1);
      if (size > best_size) best_lo = lo, best_size = size;
    }
    if (best_size == 0)
      return make_error(Errc::kUnsupported,
                        "%s: the IOMMU reports no usable IOVA range above 0x%llx", bdf.c_str(),
                        static_cast<unsigned long long>(opts.iova_base));
    memory::TlsfConfig tc;
    tc.base = best_lo;
    tc.size = best_size;
    tc.min_block = kDmaPageSize;
    iova.emplace(RG_TRY(memory::Tlsf::create(tc)));
    return ok_status();
  }

  static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

  Status open_device() {
    std::string name = bdf;
    const int d = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, name.data());
    if (d < 0)
      return failh(-d, "VFIO_GROUP_GET_DEVICE_FD",
                   -d == EBUSY ? "the device is open in another process"
                               : "is the device bound to vfio-pci and in this IOMMU group?");
    device = d;
    vfio_device_info info{};
    info.argsz = sizeof info;
    if (const int r = ioctl(device, VFIO_DEVICE_GET_INFO, &info); r < 0)
      return fail(-r, "VFIO_DEVICE_GET_INFO");
    if (!(info.flags & VFIO_DEVICE_FLAGS_PCI) || info.num_regions <= VFIO_PCI_CONFIG_REGION_INDEX)
      return make_error(Errc::kUnsupported,
                        "%s: VFIO device is not a PCI function (flags 0x%x, %u regions)",
                        bdf.c_str(), info.flags, info.num_regions);
    device_flags = info.flags;
    auto region = [&](uint32_t index) -> Result<Region> {
      vfio_region_info ri{};
      ri.argsz = sizeof ri;
      ri.index = index;
      if (const int r = ioctl(device, VFIO_DEVICE_GET_REGION_INFO, &ri); r < 0)
        return fail(-r, "VFIO_DEVICE_GET_REGION_INFO");
      return Region{ri.size, ri.offset, ri.flags};
    };
    config = RG_TRY(region(VFIO_PCI_CONFIG_REGION_INDEX));
    if (config.size < 256 || !(config.flags & VFIO_REGION_INFO_FLAG_READ))
      return make_error(Errc::kHardware, "%s: config region of %llu bytes (flags 0x%x)",
                        bdf.c_str(), static_cast<unsigned long long>(config.size), config.flags);
    for (int i = 0; i < kNumBars; ++i) {
      regions[i] = RG_TRY(region(VFIO_PCI_BAR0_REGION_INDEX + i));
      BarInfo& b = bars[i];
      b.index = i;
      b.size = regions[i].size;
      if (b.size == 0) continue;
      const uint32_t lo = RG_TRY(read_config(0x10 + 4 * i, 4));
      b.io = lo & 1;
      b.is_64bit = !b.io && ((lo >> 1) & 3) == 2;
      b.prefetchable = !b.io && (lo & 8);
      b.bus_addr = b.io ? (lo & ~3u) : (lo & ~15u);
      if (b.is_64bit && i + 1 < kNumBars)
        b.bus_addr |= uint64_t{RG_TRY(read_config(0x10 + 4 * (i + 1), 4))} << 32;
      b.mappable = !b.io && (regions[i].flags & VFIO_REGION_INFO_FLAG_MMAP);
    }
    return ok_status();
  }

  Status setup_irq() {
    for (uint32_t index : {uint32_t{VFIO_PCI_MSI_IRQ_INDEX}, uint32_t{VFIO_PCI_MSIX_IRQ_INDEX}}) {
      vfio_irq_info ii{};
      ii.argsz = sizeof ii;
      ii.index = index;
      if (const int r = ioctl(device, VFIO_DEVICE_GET_IRQ_INFO, &ii); r < 0)
        return fail(-r, "VFIO_DEVICE_GET_IRQ_INFO");
      if (ii.count == 0 || !(ii.flags & VFIO_IRQ_INFO_EVENTFD)) continue;
      const int efd = sys->eventfd(0, EFD_NONBLOCK);
      if (efd < 0) return fail(-efd, "eventfd");
      irq_fd = efd;
      vfio_irq_set set{};
      set.argsz = sizeof(vfio_irq_set) + sizeof(int32_t);
      set.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
      set.index = index;
      set.start = 0;
      set.count = 1;
      alignas(8) uint8_t req[sizeof(vfio_irq_set) + sizeof(int32_t)];
      std::memcpy(req, &set, sizeof set);
      const int32_t fd32 = efd;
      std::memcpy(req + sizeof set, &fd32, sizeof fd32);
      if (const int r = ioctl(device, VFIO_DEVICE_SET_IRQS, req); r < 0)
        return fail(-r, "VFIO_DEVICE_SET_IRQS");
      irq_index = static_cast<int>(index);
      return ok_status();
    }
    RG_LOG("pci", 1, "%s: no MSI/MSI-X vector: interrupts unavailable", bdf.c_str());
    return ok_status();
  }

  Result<uint32_t> read_config(uint32_t off, unsigned width) {
    if ((width != 1 && width != 2 && width != 4) || off % width != 0 || off + width > config.size)
      return make_error(Errc::kInvalidArgument,
                        "%s: config read of %u bytes at 0x%x (config space is %llu bytes)",
                        bdf.c_str(), width, off, static_cast<unsigned long long>(config.size));
    uint32_t v = 0;
    const ssize_t n = sys->pread(device, &v, width, static_cast<off_t>(config.offset + off));
    if (n < 0) return fail(static_cast<int>(-n), "reading config space");
    if (static_cast<size_t>(n) != width)
      return make_error(Errc::kHardware, "%s: config read at 0x%x returned %zd of %u bytes",
                        bdf.c_str(), off, n, width);
    return v;
  }
};

Result<std::unique_ptr<VfioPciDevice>> VfioPciDevice::open(const Bdf& bdf,
                                                           const VfioOptions& options) {
  auto s = std::make_unique<State>();
  s->opts = options;
  s->sys = options.sys ? options.sys : &Sys::os();
  s->clock = options.clock ? options.clock : &Clock::steady();
  s->bdf = bdf.to_string();
  if (env::read_flag("RAWGPU_VFIO_NOIOMMU")) s->opts.allow_no_iommu = true;
  RG_TRY(s->check_driver());
  RG_TRY(s->find_group());
  RG_TRY(s->open_container_and_group());
  if (!s->no_iommu) RG_TRY(s->setup_iova());
  RG_TRY(s->open_device());
  if (options.interrupts) RG_TRY(s->setup_irq());
  RG_LOG("pci", 1, "%s: opened through VFIO (group %d%s)", s->bdf.c_str(), s->group_id,
         s->no_iommu ? ", no-IOMMU" : "");
  return std::unique_ptr<VfioPciDevice>(new VfioPciDevice(std::move(s)));
}

VfioPciDevice::VfioPciDevice(std::unique_ptr<State> state) : s_(std::move(state)) {}
VfioPciDevice::~VfioPciDevice() = default;

std::string VfioPciDevice::name() const { return s_->bdf; }
bool VfioPciDevice::no_iommu() const { return s_->no_iommu; }
uint64_t VfioPciDevice::dma_ioctls() const { return s_->dma_ioctls; }
Clock& VfioPciDevice::clock() { return *s_->clock; }

Result<uint32_t> VfioPciDevice::cfg_read(uint32_t off, unsigned width) {
  return s_->read_config(off, width);
}

Status VfioPciDevice::cfg_write(uint32_t off, unsigned width, uint32_t value) {
  State& s = *s_;
  if ((width != 1 && width != 2 && width != 4) || off % width != 0 || off + width > s.config.size)
    return make_error(Errc::kInvalidArgument, "%s: config write of %u bytes at 0x%x", s.bdf.c_str(),
                      width, off);
  const ssize_t n =
      s.sys->pwrite(s.device, &value, width, static_cast<off_t>(s.config.offset + off));
  if (n < 0) return s.fail(static_cast<int>(-n), "writing config space");
  if (static_cast<size_t>(n) != width)
    return make_error(Errc::kHardware, "%s: config write at 0x%x took %zd of %u bytes",
                      s.bdf.c_str(), off, n, width);
  return ok_status();
}

Result<BarInfo> VfioPciDevice::bar(int index) {
  if (index < 0 || index >= kNumBars)
    return make_error(Errc::kInvalidArgument, "%s: BAR%d does not exist (0..5)", s_->bdf.c_str(),
                      index);
  return s_->bars[index];
}

Result<Mmio*> VfioPciDevice::map_bar(int index) {
  State& s = *s_;
  const BarInfo b = RG_TRY(bar(index));
  if (s.windows[index]) return s.windows[index].get();
  if (b.size == 0 || b.io)
    return make_error(Errc::kUnsupported, "%s: BAR%d is %s", s.bdf.c_str(), index,
                      b.size == 0 ? "not implemented" : "an I/O BAR");
  const Region& r = s.regions[index];
  if (b.mappable) {
    int err = 0;
    void* p = s.sys->mmap(r.size, PROT_READ | PROT_WRITE, MAP_SHARED, s.device,
                          static_cast<off_t>(r.offset), err);
    if (!p) {
      const std::string step = strformat("mmap of BAR%d (%s)", index, format_bytes(r.size).c_str());
      return s.fail(err, step.c_str());
    }
    s.windows[index] =
        std::make_unique<MappedMmio>(*s.sys, static_cast<uint8_t*>(p), r.size, b.prefetchable);
  } else {
    s.windows[index] = std::make_unique<FileMmio>(*s.sys, s.device, r.offset, r.size);
  }
  return s.windows[index].get();
}

Result<DmaBuffer> VfioPciDevice::alloc_dma(uint64_t size) {
  State& s = *s_;
  if (size == 0 || size > (uint64_t{1} << 40))
    return make_error(Errc::kInvalidArgument, "%s: DMA buffer of %llu bytes", s.bdf.c_str(),
                      static_cast<unsigned long long>(size));
  size = State::align_up(size, kDmaPageSize);
  int err = 0;
  void* p = s.sys->mmap(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, err);
  if (!p) return s.fail(err, "allocating DMA memory");
  auto* host = static_cast<uint8_t*>(p);
  DmaBuffer buf;
  buf.host = host;
  buf.size = size;
  DmaMapping m;
  m.size = size;
  if (s.no_iommu) {
    std::memset(host, 0, size);  // fault every page in before asking where it is
    if (const int r = s.sys->mlock(host, size); r < 0) {
      s.sys->munmap(host, size);
      return s.failh(-r, "locking DMA memory", "raise the locked-memory limit (ulimit -l)");
    }
    if (!s.pagemap) s.pagemap = std::make_unique<Pagemap>(*s.sys);
    auto pages = s.pagemap->physical_pages(s.bdf, host, size);
    if (!pages) {
      s.sys->munmap(host, size);
      return pages.error();
    }
    buf.bus_pages = std::move(*pages);
  } else {
    auto iova = s.iommu_map(host, size);
    if (!iova) {
      s.sys->munmap(host, size);
      return std::move(iova).take_error();
    }
    m.iova = *iova;
    buf.bus_pages.resize(size / kDmaPageSize);
    for (size_t i = 0; i < buf.bus_pages.size(); ++i) buf.bus_pages[i] = *iova + i * kDmaPageSize;
  }
  s.dma.emplace(host, m);
  return buf;
}

Result<DmaBuffer> VfioPciDevice::map_dma(uint8_t* host, uint64_t size) {
  State& s = *s_;
  if (host == nullptr || reinterpret_cast<uintptr_t>(host) % kDmaPageSize != 0 || size == 0 ||
      size % kDmaPageSize != 0 || size > (uint64_t{1} << 40))
    return make_error(Errc::kInvalidArgument,
                      "%s: DMA mapping of %llu bytes at %p: memory must be 4 KiB aligned and a "
                      "multiple of 4 KiB",
                      s.bdf.c_str(), static_cast<unsigned long long>(size),
                      static_cast<void*>(host));
  if (s.no_iommu)
    return std::move(make_error(Errc::kUnsupported,
                                "%s: no-IOMMU mode cannot map memory rawgpu did not allocate for "
                                "DMA (it would have to pin it and hand out physical addresses)",
                                s.bdf.c_str())
                         .with_hint("allocate it with alloc_dma on this device, or use an IOMMU"));
  if (s.dma.count(host))
    return make_error(Errc::kInvalidArgument, "%s: %p is already mapped for DMA", s.bdf.c_str(),
                      static_cast<void*>(host));
  const uint64_t iova = RG_TRY(s.iommu_map(host, size));
  DmaBuffer buf;
  buf.host = host;
  buf.size = size;
  buf.bus_pages.resize(size / kDmaPageSize);
  for (size_t i = 0; i < buf.bus_pages.size(); ++i) buf.bus_pages[i] = iova + i * kDmaPageSize;
  DmaMapping m;
  m.size = size;
  m.iova = iova;
  m.owned = false;
  s.dma.emplace(host, m);
  return buf;
}

Status VfioPciDevice::free_dma(const DmaBuffer& buffer) {
  State& s = *s_;
  auto it = s.dma.find(buffer.host);
  if (it == s.dma.end() || it->second.size != buffer.size)
    return make_error(Errc::kNotFound, "%s: freeing a DMA buffer this device did not allocate",
                      s.bdf.c_str());
  const DmaMapping m = it->second;
  s.dma.erase(it);
  return s.unmap_dma(buffer.host, m);
}

Status VfioPciDevice::wait_irq(Nanos timeout) {
  State& s = *s_;
  if (s.irq_fd < 0)
    return make_error(Errc::kUnsupported, "%s: no interrupt is set up", s.bdf.c_str());
  Deadline deadline(timeout, *s.clock);
  for (;;) {
    uint64_t count = 0;
    const ssize_t n = s.sys->read(s.irq_fd, &count, sizeof count);
    if (n == sizeof count) return ok_status();
    if (n != -EAGAIN) return s.fail(n < 0 ? static_cast<int>(-n) : EIO, "reading the IRQ eventfd");
    if (deadline.expired()) break;
    const Nanos slice = std::min<Nanos>(deadline.remaining(), std::chrono::milliseconds(100));
    pollfd pfd{s.irq_fd, POLLIN, 0};
    const Nanos t0 = s.clock->now();
    const int r = s.sys->poll(&pfd, 1, static_cast<int>((slice.count() + 999'999) / 1'000'000));
    if (r < 0) return s.fail(-r, "polling the IRQ eventfd");
    // A clock that poll() does not move (the simulator's) still reaches the deadline.
    if (r == 0 && s.clock->now() - t0 < slice) s.clock->sleep_for(slice - (s.clock->now() - t0));
  }
  return make_error(Errc::kTimeout, "%s: no interrupt within %lld ms", s.bdf.c_str(),
                    static_cast<long long>(timeout.count() / 1'000'000));
}

Status VfioPciDevice::reset() {
  State& s = *s_;
  if (!(s.device_flags & VFIO_DEVICE_FLAGS_RESET))
    return std::move(make_error(Errc::kUnsupported, "%s: vfio-pci offers no reset for this device",
                                s.bdf.c_str())
                         .with_hint("no FLR or bus reset is available; the driver's own reset "
                                    "(AMD mode-1) is the way"));
  if (const int r = s.ioctl(s.device, VFIO_DEVICE_RESET, nullptr); r < 0)
    return s.fail(-r, "VFIO_DEVICE_RESET");
  return ok_status();
}

}  // namespace rawgpu::pci
