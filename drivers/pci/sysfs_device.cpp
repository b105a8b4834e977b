#include "rawgpu/drivers/pci/sysfs_device.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include "mapped_mmio.h"
#include "pagemap.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/drivers/pci/sysfs_text.h"

namespace rawgpu::pci {
namespace {

constexpr int kNumBars = 6;

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

}  // namespace

struct SysfsPciDevice::State {
  Sys* sys = nullptr;
  Clock* clock = nullptr;
  SysfsDeviceOptions opts;
  Bdf bdf_value;
  std::string bdf, dir;
  std::optional<DeviceLock> lock;
  std::string previous_driver;
  int config_fd = -1;
  uint64_t config_size = 0;
  std::array<BarInfo, kNumBars> bars{};
  std::array<std::unique_ptr<Mmio>, kNumBars> windows;
  std::map<uint8_t*, uint64_t> dma;
  std::unique_ptr<Pagemap> pagemap;

  ~State() {
    for (auto& w : windows) w.reset();
    for (auto& [host, size] : dma) sys->munmap(host, size);
    if (config_fd >= 0) sys->close(config_fd);
  }

  Error fail(int err, const std::string& step) const {
    return make_error(errc_of(err), "%s: %s: %s", bdf.c_str(), step.c_str(), std::strerror(err));
  }

  Status write_attr(const std::string& name, const std::string& value) {
    const std::string path = dir + "/" + name;
    const int fd = sys->open(path, O_WRONLY);
    if (fd < 0)
      return std::move(fail(-fd, "opening " + path)
                           .with_hint(-fd == EACCES || -fd == EPERM ? "run as root" : ""));
    const ssize_t n = sys->write(fd, value.data(), value.size());
    sys->close(fd);
    if (n < 0) return fail(static_cast<int>(-n), "writing '" + value + "' to " + path);
    return ok_status();
  }

  Result<std::string> read_attr(const std::string& name) {
    const std::string path = dir + "/" + name;
    const int fd = sys->open(path, O_RDONLY);
    if (fd < 0) return fail(-fd, "opening " + path);
    std::string text(64 << 10, '\0');
    const ssize_t n = sys->pread(fd, text.data(), text.size(), 0);
    sys->close(fd);
    if (n < 0) return fail(static_cast<int>(-n), "reading " + path);
    text.resize(static_cast<size_t>(n));
    return text;
  }

  // BARs from `resource` (sizes) and config space (64-bit / prefetchable as the device says).
  Status read_bars() {
    const std::string text = RG_TRY(read_attr("resource"));
    auto regions = parse_resource(text);
    if (!regions) return std::move(regions.error().add_context(bdf + ": " + dir + "/resource"));
    bars = {};
    for (const ResourceRegion& r : *regions) {
      if (r.index >= kNumBars) continue;
      BarInfo& b = bars[static_cast<size_t>(r.index)];
      b.index = r.index;
      if (!r.used()) continue;
      b.bus_addr = r.start;
      b.size = r.size();
      b.io = r.io();
      b.is_64bit = r.is_64bit();
      b.prefetchable = r.prefetchable();
      b.mappable = r.mem();
    }
    return ok_status();
  }

  // Unbinds the kernel driver (after checking nobody uses the GPU) and removes the other
  // functions of the device (.1 - .7).
  Status take_over() {
    previous_driver = RG_TRY(bound_driver(bdf_value, opts.sysfs));
    if (!previous_driver.empty() && previous_driver != "vfio-pci") {
      if (!opts.force) {
        const std::vector<std::string> users = drm_users(bdf_value, opts.sysfs);
        if (!users.empty()) {
          std::string list;
          for (const std::string& u : users) list += (list.empty() ? "" : ", ") + u;
          return std::move(make_error(Errc::kBusy, "%s is in use by %s (%s)", bdf.c_str(),
                                      previous_driver.c_str(), list.c_str())
                               .with_hint("stop them first, or force the takeover"));
        }
      }
      const std::string unbind =
          opts.sysfs.sysfs_root + "/bus/pci/drivers/" + previous_driver + "/unbind";
      const int fd = sys->open(unbind, O_WRONLY);
      if (fd < 0) return fail(-fd, "opening " + unbind);
      const ssize_t n = sys->write(fd, bdf.data(), bdf.size());
      sys->close(fd);
      if (n < 0) return fail(static_cast<int>(-n), "unbinding " + previous_driver);
      if (!RG_TRY(bound_driver(bdf_value, opts.sysfs)).empty())
        return make_error(Errc::kBusy, "%s: %s is still bound after unbinding it", bdf.c_str(),
                          previous_driver.c_str());
      RG_LOG("pci", 1, "%s: unbound %s", bdf.c_str(), previous_driver.c_str());
    }
    if (bdf_value.function == 0) {
      for (uint8_t fn = 1; fn < 8; ++fn) {
        Bdf sib = bdf_value;
        sib.function = fn;
        const std::string s = sib.to_string();
        const std::string remove = opts.sysfs.sysfs_root + "/bus/pci/devices/" + s + "/remove";
        const int fd = sys->open(remove, O_WRONLY);
        if (fd == -ENOENT) continue;  // no such function
        if (fd < 0) return fail(-fd, "opening " + remove);
        const ssize_t n = sys->write(fd, "1", 1);
        sys->close(fd);
        if (n < 0) return fail(static_cast<int>(-n), "removing sibling function " + s);
        RG_LOG("pci", 1, "%s: removed sibling function %s", bdf.c_str(), s.c_str());
      }
    }
    return ok_status();
  }
};

Result<std::unique_ptr<SysfsPciDevice>> SysfsPciDevice::open(const Bdf& bdf,
                                                             const SysfsDeviceOptions& options) {
  auto s = std::make_unique<State>();
  s->opts = options;
  s->sys = options.sysfs.sys ? options.sysfs.sys : &Sys::os();
  s->opts.sysfs.sys = s->sys;
  s->clock = options.clock ? options.clock : &Clock::steady();
  s->bdf_value = bdf;
  s->bdf = bdf.to_string();
  s->dir = options.sysfs.sysfs_root + "/bus/pci/devices/" + s->bdf;
  (void)RG_TRY(bound_driver(bdf, s->opts.sysfs));  // the function exists
  s->lock.emplace(RG_TRY(DeviceLock::acquire(bdf, s->opts.sysfs)));
  RG_TRY(s->take_over());
  RG_TRY(s->write_attr("enable", "1"));
  const std::string config = s->dir + "/config";
  const int fd = s->sys->open(config, O_RDWR);
  if (fd < 0)
    return std::move(
        s->fail(-fd, "opening " + config).with_hint(-fd == EACCES ? "run as root" : ""));
  s->config_fd = fd;
  // How much is readable: 4096 with root on PCIe, 256 on conventional PCI.
  uint8_t probe = 0;
  s->config_size = s->sys->pread(fd, &probe, 1, 4095) == 1 ? 4096 : 256;
  RG_TRY(s->read_bars());
  return std::unique_ptr<SysfsPciDevice>(new SysfsPciDevice(std::move(s)));
}

SysfsPciDevice::SysfsPciDevice(std::unique_ptr<State> s) : s_(std::move(s)) {}
SysfsPciDevice::~SysfsPciDevice() = default;

std::string SysfsPciDevice::name() const { return s_->bdf; }
const std::string& SysfsPciDevice::previous_driver() const { return s_->previous_driver; }
Clock& SysfsPciDevice::clock() { return *s_->clock; }

Result<uint32_t> SysfsPciDevice::cfg_read(uint32_t off, unsigned width) {
  State& s = *s_;
  if ((width != 1 && width != 2 && width != 4) || off % width != 0 || off + width > s.config_size)
    return make_error(Errc::kInvalidArgument, "%s: config read of %u bytes at 0x%x", s.bdf.c_str(),
                      width, off);
  uint32_t v = 0;
  const ssize_t n = s.sys->pread(s.config_fd, &v, width, off);
  if (n < 0) return s.fail(static_cast<int>(-n), "reading config space");
  if (static_cast<size_t>(n) != width)
    return make_error(Errc::kHardware, "%s: config read at 0x%x returned %zd of %u bytes",
                      s.bdf.c_str(), off, n, width);
  return v;
}

Status SysfsPciDevice::cfg_write(uint32_t off, unsigned width, uint32_t value) {
  State& s = *s_;
  if ((width != 1 && width != 2 && width != 4) || off % width != 0 || off + width > s.config_size)
    return make_error(Errc::kInvalidArgument, "%s: config write of %u bytes at 0x%x", s.bdf.c_str(),
                      width, off);
  const ssize_t n = s.sys->pwrite(s.config_fd, &value, width, off);
  if (n < 0) return s.fail(static_cast<int>(-n), "writing config space");
  if (static_cast<size_t>(n) != width)
    return make_error(Errc::kHardware, "%s: config write at 0x%x took %zd of %u bytes",
                      s.bdf.c_str(), off, n, width);
  return ok_status();
}

Result<BarInfo> SysfsPciDevice::bar(int index) {
  if (index < 0 || index >= kNumBars)
    return make_error(Errc::kInvalidArgument, "%s: BAR%d does not exist (0..5)", s_->bdf.c_str(),
                      index);
  return s_->bars[static_cast<size_t>(index)];
}

Result<Mmio*> SysfsPciDevice::map_bar(int index) {
  State& s = *s_;
  const BarInfo b = RG_TRY(bar(index));
  auto& w = s.windows[static_cast<size_t>(index)];
  if (w) return w.get();
  if (b.size == 0 || !b.mappable)
    return make_error(Errc::kUnsupported, "%s: BAR%d is %s", s.bdf.c_str(), index,
                      b.size == 0 ? "not implemented" : "not memory");
  const std::string path = s.dir + "/resource" + std::to_string(index);
  const int fd = s.sys->open(path, O_RDWR | O_SYNC);
  if (fd < 0) return s.fail(-fd, "opening " + path);
  int err = 0;
  void* p = s.sys->mmap(b.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0, err);
  s.sys->close(fd);  // the mapping keeps the resource
  if (!p)
    return s.fail(err, strformat("mmap of %s (%s)", path.c_str(), format_bytes(b.size).c_str()));
  w = std::make_unique<MappedMmio>(*s.sys, static_cast<uint8_t*>(p), b.size, b.prefetchable);
  return w.get();
}

Status SysfsPciDevice::resize_bar(int index, uint64_t size) {
  State& s = *s_;
  RG_TRY(bar(index));
  const std::string attr = "resource" + std::to_string(index) + "_resize";
  auto text = s.read_attr(attr);
  if (!text)
    return std::move(make_error(Errc::kUnsupported, "%s: BAR%d is not resizable (%s)",
                                s.bdf.c_str(), index, text.error().message().c_str())
                         .with_hint("enable Resizable BAR / Above 4G decoding in the firmware "
                                    "setup; Linux 6.1+ exposes resourceN_resize"));
  const ResizeSupport support = RG_TRY(parse_resize(*text));
  const std::vector<uint64_t> sizes = support.sizes();
  if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) {
    std::string list;
    for (uint64_t z : sizes) list += (list.empty() ? "" : ", ") + format_bytes(z);
    return make_error(Errc::kUnsupported, "%s: BAR%d cannot be %s (it supports %s)", s.bdf.c_str(),
                      index, format_bytes(size).c_str(), list.empty() ? "no size" : list.c_str());
  }
  s.windows[static_cast<size_t>(index)].reset();
  const int code = std::countr_zero(size) - 20;  // 0 = 1 MiB
  RG_TRY(s.write_attr(attr, std::to_string(code)));
  RG_TRY(s.read_bars());
  if (s.bars[static_cast<size_t>(index)].size != size)
    return make_error(Errc::kHardware, "%s: BAR%d is %s after resizing it to %s", s.bdf.c_str(),
                      index, format_bytes(s.bars[static_cast<size_t>(index)].size).c_str(),
                      format_bytes(size).c_str());
  return ok_status();
}

Result<DmaBuffer> SysfsPciDevice::alloc_dma(uint64_t size) {
  State& s = *s_;
  if (!s.opts.allow_unprotected_dma)
    return std::move(make_error(Errc::kPermission,
                                "%s: DMA through sysfs access is unprotected (no IOMMU: the "
                                "device gets physical addresses)",
                                s.bdf.c_str())
                         .with_hint("use VFIO (`rawgpu bind BDF --vfio`), or allow unprotected "
                                    "DMA explicitly"));
  if (size == 0 || size > (uint64_t{1} << 40))
    return make_error(Errc::kInvalidArgument, "%s: DMA buffer of %llu bytes", s.bdf.c_str(),
                      static_cast<unsigned long long>(size));
  size = (size + kDmaPageSize - 1) & ~(kDmaPageSize - 1);
  int err = 0;
  void* p = s.sys->mmap(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, err);
  if (!p) return s.fail(err, "allocating DMA memory");
  auto* host = static_cast<uint8_t*>(p);
  std::memset(host, 0, size);
  if (const int r = s.sys->mlock(host, size); r < 0) {
    s.sys->munmap(host, size);
    return std::move(s.fail(-r, "locking DMA memory").with_hint("raise ulimit -l"));
  }
  if (!s.pagemap) s.pagemap = std::make_unique<Pagemap>(*s.sys);
  auto pages = s.pagemap->physical_pages(s.bdf, host, size);
  if (!pages) {
    s.sys->munmap(host, size);
    return pages.error();
  }
  DmaBuffer b;
  b.host = host;
  b.size = size;
  b.bus_pages = std::move(*pages);
  s.dma.emplace(host, size);
  return b;
}

Status SysfsPciDevice::free_dma(const DmaBuffer& buffer) {
  State& s = *s_;
  auto it = s.dma.find(buffer.host);
  if (it == s.dma.end() || it->second != buffer.size)
    return make_error(Errc::kNotFound, "%s: freeing a DMA buffer this device did not allocate",
                      s.bdf.c_str());
  s.sys->munmap(it->first, it->second);
  s.dma.erase(it);
  return ok_status();
}

Status SysfsPciDevice::wait_irq(Nanos) {
  return std::move(
      make_error(Errc::kUnsupported, "%s: no interrupts through sysfs access", s_->bdf.c_str())
          .with_hint("poll instead, or use VFIO for MSI"));
}

Status SysfsPciDevice::reset() {
  Status st = s_->write_attr("reset", "1");
  if (!st.ok() && st.error().is(Errc::kNotFound))
    return std::move(
        make_error(Errc::kUnsupported, "%s: the kernel offers no reset for it", s_->bdf.c_str())
            .with_hint("the driver's own reset (AMD mode-1) is the way"));
  return st;
}

}  // namespace rawgpu::pci
