#include "rawgpu/sim/fake_vfio.h"

#include <fcntl.h>
#include <linux/vfio.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "rawgpu/base/format.h"

namespace rawgpu::sim {
namespace {

constexpr int kFdBase = 1 << 28;  // far above any real descriptor
constexpr uint64_t kRegionShift = 40;
constexpr uint64_t kPage = 4096;
constexpr uint32_t kNumRegions = VFIO_PCI_NUM_REGIONS;
constexpr uint32_t kNumIrqs = VFIO_PCI_NUM_IRQS;

std::string hex(uint64_t v) { return strformat("0x%llx", static_cast<unsigned long long>(v)); }

const char* ioctl_name(unsigned long req) {
  switch (req) {
    case VFIO_GET_API_VERSION: return "VFIO_GET_API_VERSION";
    case VFIO_CHECK_EXTENSION: return "VFIO_CHECK_EXTENSION";
    case VFIO_SET_IOMMU: return "VFIO_SET_IOMMU";
    case VFIO_GROUP_GET_STATUS: return "VFIO_GROUP_GET_STATUS";
    case VFIO_GROUP_SET_CONTAINER: return "VFIO_GROUP_SET_CONTAINER";
    case VFIO_GROUP_UNSET_CONTAINER: return "VFIO_GROUP_UNSET_CONTAINER";
    case VFIO_GROUP_GET_DEVICE_FD: return "VFIO_GROUP_GET_DEVICE_FD";
    case VFIO_DEVICE_GET_INFO: return "VFIO_DEVICE_GET_INFO";
    case VFIO_DEVICE_GET_REGION_INFO: return "VFIO_DEVICE_GET_REGION_INFO";
    case VFIO_DEVICE_GET_IRQ_INFO: return "VFIO_DEVICE_GET_IRQ_INFO";
    case VFIO_DEVICE_SET_IRQS: return "VFIO_DEVICE_SET_IRQS";
    case VFIO_DEVICE_RESET: return "VFIO_DEVICE_RESET";
    case VFIO_IOMMU_GET_INFO: return "VFIO_IOMMU_GET_INFO";
    case VFIO_IOMMU_MAP_DMA: return "VFIO_IOMMU_MAP_DMA";
    case VFIO_IOMMU_UNMAP_DMA: return "VFIO_IOMMU_UNMAP_DMA";
    default: return nullptr;
  }
}

const char* iommu_name(unsigned long type) {
  switch (type) {
    case VFIO_TYPE1_IOMMU: return "VFIO_TYPE1_IOMMU";
    case VFIO_TYPE1v2_IOMMU: return "VFIO_TYPE1v2_IOMMU";
    case VFIO_NOIOMMU_IOMMU: return "VFIO_NOIOMMU_IOMMU";
    default: return "unknown";
  }
}

#define RG_OFFSETOFEND(T, m) (offsetof(T, m) + sizeof(T::m))

const char* irq_index_name(uint32_t i) {
  static const char* const kNames[] = {"INTX", "MSI", "MSIX", "ERR", "REQ"};
  return i < 5 ? kNames[i] : "?";
}

struct Function {
  FakeVfioFunction f;
  int group = 0;
  std::array<uint8_t*, 6> bar{};            // backing memory (anonymous, MAP_NORESERVE)
  std::array<int, kNumIrqs> irq_eventfd{};  // fake eventfd per index (vector 0), 0: none
  bool open = false;
  bool reset_done = false;
};

struct Group {
  int id = 0;
  bool viable = true;
  bool open = false;
  int container = 0;  // fake fd of the container it is attached to
};

enum class Kind { kContainer, kGroup, kDevice, kEventfd, kPagemap };

struct Object {
  Kind kind = Kind::kContainer;
  int seq = 0;
  int group = 0;            // kGroup
  std::string bdf;          // kDevice
  unsigned long iommu = 0;  // kContainer: the IOMMU type set, 0 none
  std::vector<int> groups;  // kContainer: attached group ids
  uint64_t counter = 0;     // kEventfd
  bool nonblock = false;    // kEventfd
};

Object make(Kind k) {
  Object o;
  o.kind = k;
  return o;
}

struct Mapping {
  uint64_t iova, size;
  uint8_t* vaddr;
};

}  // namespace

struct FakeVfioKernel::Impl {
  std::string dev_root, sys_root;
  std::map<int, Group> groups;
  std::map<std::string, Function> functions;
  std::map<int, Object> fds;
  int next_seq = 1;
  std::map<std::string, int> failures;  // step -> errno
  std::map<uint64_t, Mapping> dma;      // by iova
  struct BarMap {
    std::string bdf;
    int bar;
    size_t len;
  };
  std::map<uint8_t*, BarMap> bar_maps;
  std::map<int, std::string> sysfs_writers;   // real fds open for writing under sys_root
  std::map<std::string, std::string> native;  // bdf -> the driver it had first

  // The kernel's reaction to a write of `value` to the sysfs attribute `path`; -errno or 0.
  int sysfs_effect(const std::string& path, std::string value) {
    namespace fs = std::filesystem;
    while (!value.empty() && (value.back() == '\n' || value.back() == ' ')) value.pop_back();
    const std::string drivers = sys_root + "/bus/pci/drivers/";
    const fs::path devices = fs::path(sys_root) / "bus/pci/devices";
    std::error_code ec;
    auto driver_of = [&](const std::string& bdf) {
      const fs::path link = devices / bdf / "driver";
      return fs::is_symlink(link, ec) ? fs::read_symlink(link, ec).filename().string()
                                      : std::string();
    };
    if (path.rfind(drivers, 0) == 0 && path.size() > 7 &&
        path.compare(path.size() - 7, 7, "/unbind") == 0) {
      const std::string drv = path.substr(drivers.size(), path.size() - 7 - drivers.size());
      if (driver_of(value) != drv) return -ENODEV;
      if (drv != "vfio-pci") native.emplace(value, drv);
      fs::remove(devices / value / "driver", ec);
      return 0;
    }
    // devices/BDF/remove: the function disappears (with its group membership).
    if (path.rfind(devices.string() + "/", 0) == 0 && path.size() > 7 &&
        path.compare(path.size() - 7, 7, "/remove") == 0) {
      if (value != "1") return -EINVAL;
      const fs::path link = fs::path(path).parent_path();  // bus/pci/devices/BDF
      const fs::path real = fs::canonical(link, ec);
      const fs::path group = link / "iommu_group";
      if (fs::is_symlink(group, ec))
        fs::remove(fs::canonical(group, ec) / "devices" / link.filename(), ec);
      fs::remove(link, ec);
      if (!real.empty()) fs::remove_all(real, ec);
      return 0;
    }
    // devices/BDF/resourceN_resize: the BAR becomes 2^value MiB (the resource line and file).
    if (const size_t at = path.rfind("/resource");
        at != std::string::npos && path.size() > 7 &&
        path.compare(path.size() - 7, 7, "_resize") == 0) {
      const int bar = path[at + 9] - '0';
      const fs::path dev = fs::path(path).parent_path();
      if (!driver_of(dev.filename().string()).empty()) return -EBUSY;  // a driver holds it
      char* end = nullptr;
      const unsigned long code = std::strtoul(value.c_str(), &end, 10);
      if (*end || code > 40) return -EINVAL;
      const uint64_t size = (uint64_t{1} << 20) << code;
      std::vector<std::string> lines;
      {
        std::ifstream in(dev / "resource");
        for (std::string l; std::getline(in, l);) lines.push_back(l);
      }
      if (bar < 0 || static_cast<size_t>(bar) >= lines.size()) return -EINVAL;
      unsigned long long start = 0, end_addr = 0, flags = 0;
      if (std::sscanf(lines[bar].c_str(), "%llx %llx %llx", &start, &end_addr, &flags) != 3)
        return -EINVAL;
      lines[bar] = strformat("0x%016llx 0x%016llx 0x%016llx", start, start + size - 1, flags);
      std::ofstream out(dev / "resource", std::ios::trunc);
      for (const std::string& l : lines) out << l << "\n";
      fs::resize_file(dev / ("resource" + std::to_string(bar)), size, ec);
      return 0;
    }
    if (path == sys_root + "/bus/pci/drivers_probe") {
      if (!fs::exists(devices / value, ec)) return -ENODEV;
      if (!driver_of(value).empty()) return 0;
      std::string override_name;
      std::ifstream(devices / value / "driver_override") >> override_name;
      std::string drv = override_name;
      if (drv.empty() && native.count(value)) drv = native[value];
      if (drv.empty() || !fs::is_directory(fs::path(drivers) / drv, ec)) return 0;
      fs::create_directory_symlink("../../../bus/pci/drivers/" + drv, devices / value / "driver",
                                   ec);
      return 0;
    }
    return 0;
  }

  std::string name(int fd) const {
    auto it = fds.find(fd);
    if (it == fds.end()) return strformat("fd%d", fd);
    static const char* const kKinds[] = {"container", "group", "device", "eventfd", "pagemap"};
    return strformat("%s#%d", kKinds[static_cast<int>(it->second.kind)], it->second.seq);
  }
  int add(Object o) {
    o.seq = next_seq++;
    const int fd = kFdBase + o.seq;
    fds.emplace(fd, std::move(o));
    return fd;
  }
  Object* get(int fd) {
    auto it = fds.find(fd);
    return it == fds.end() ? nullptr : &it->second;
  }
  bool take_failure(const std::string& step, int* err) {
    auto it = failures.find(step);
    if (it == failures.end()) return false;
    *err = it->second;
    failures.erase(it);
    return true;
  }
  std::string rel(const std::string& path) const {
    if (path.rfind(dev_root, 0) == 0) return "$DEV" + path.substr(dev_root.size());
    if (path.rfind(sys_root, 0) == 0) return "$SYS" + path.substr(sys_root.size());
    // Other files of the test's temporary tree (lock files, a fake /proc) next to sysfs.
    const std::string top = sys_root.substr(0, sys_root.find_last_of('/') + 1);
    if (!top.empty() && top != "/" && path.rfind(top, 0) == 0)
      return "$TMP/" + path.substr(top.size());
    return path;
  }
  Object* container_of_group(const Group& g) { return get(g.container); }
};

FakeVfioKernel::FakeVfioKernel(std::string dev_root, std::string sys_root)
    : p_(std::make_unique<Impl>()) {
  p_->dev_root = std::move(dev_root);
  p_->sys_root = std::move(sys_root);
}

FakeVfioKernel::~FakeVfioKernel() {
  for (auto& [bdf, fn] : p_->functions)
    for (int i = 0; i < 6; ++i)
      if (fn.bar[i]) ::munmap(fn.bar[i], fn.f.bar_size[i]);
}

void FakeVfioKernel::add_group(int id, bool viable) {
  Group g;
  g.id = id;
  g.viable = viable;
  p_->groups[id] = g;
}

void FakeVfioKernel::set_group_viable(int id, bool viable) { p_->groups.at(id).viable = viable; }

void FakeVfioKernel::add_function(int group, FakeVfioFunction f) {
  Function fn;
  fn.group = group;
  if (f.config.size() < 256) f.config.resize(256);
  for (int i = 0; i < 6; ++i) {
    if (f.bar_size[i] == 0) continue;
    void* m = ::mmap(nullptr, f.bar_size[i], PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    fn.bar[i] = m == MAP_FAILED ? nullptr : static_cast<uint8_t*>(m);
  }
  fn.f = std::move(f);
  const std::string bdf = fn.f.bdf;
  p_->functions[bdf] = std::move(fn);
}

void FakeVfioKernel::fail_next(const std::string& step, int err) { p_->failures[step] = err; }

bool FakeVfioKernel::raise_irq(const std::string& bdf) {
  auto it = p_->functions.find(bdf);
  if (it == p_->functions.end()) return false;
  for (uint32_t idx : {uint32_t{VFIO_PCI_MSI_IRQ_INDEX}, uint32_t{VFIO_PCI_MSIX_IRQ_INDEX}}) {
    if (Object* e = p_->get(it->second.irq_eventfd[idx])) {
      ++e->counter;
      trace_ += strformat("irq %s %s -> %s\n", bdf.c_str(), irq_index_name(idx),
                          p_->name(it->second.irq_eventfd[idx]).c_str());
      return true;
    }
  }
  return false;
}

uint8_t* FakeVfioKernel::device_dma(uint64_t iova, uint64_t n) {
  auto it = p_->dma.upper_bound(iova);
  if (it != p_->dma.begin()) {
    --it;
    const Mapping& m = it->second;
    if (iova >= m.iova && n <= m.size && iova - m.iova <= m.size - n)
      return m.vaddr + (iova - m.iova);
  }
  dma_faults_.push_back(strformat("DMA fault: bus address %s (%llu bytes) is not mapped",
                                  hex(iova).c_str(), static_cast<unsigned long long>(n)));
  return nullptr;
}

std::span<uint8_t> FakeVfioKernel::bar_memory(const std::string& bdf, int bar) {
  Function& fn = p_->functions.at(bdf);
  return {fn.bar[bar], fn.f.bar_size[bar]};
}

const std::vector<uint8_t>& FakeVfioKernel::config(const std::string& bdf) const {
  return p_->functions.at(bdf).f.config;
}

bool FakeVfioKernel::was_reset(const std::string& bdf) const {
  return p_->functions.at(bdf).reset_done;
}

size_t FakeVfioKernel::dma_mappings() const { return p_->dma.size(); }

std::vector<std::string> FakeVfioKernel::leaks() const {
  std::vector<std::string> out;
  for (const auto& [fd, o] : p_->fds) out.push_back(p_->name(fd) + " is still open");
  for (const auto& [iova, m] : p_->dma)
    out.push_back(strformat("DMA mapping at %s (%llu bytes) is still mapped", hex(iova).c_str(),
                            static_cast<unsigned long long>(m.size)));
  for (const auto& [addr, b] : p_->bar_maps)
    out.push_back(strformat("BAR%d of %s is still mmapped", b.bar, b.bdf.c_str()));
  return out;
}

// ---- pci::Sys -------------------------------------------------------------------------------

int FakeVfioKernel::open(const std::string& path, int flags) {
  Impl& p = *p_;
  const std::string vfio = p.dev_root + "/vfio/";
  if (path == "/proc/self/pagemap") {
    const int fd = p.add(make(Kind::kPagemap));
    trace_ += "open /proc/self/pagemap = " + p.name(fd) + "\n";
    return fd;
  }
  if (path.rfind(vfio, 0) != 0) {
    const bool sysfs_write =
        path.rfind(p.sys_root + "/", 0) == 0 && (flags & O_ACCMODE) == O_WRONLY;
    // A sysfs attribute takes a whole value per write (opened write-only): model it by
    // truncating. Read-write files (config, resourceN) are plain files.
    const int r = pci::Sys::os().open(path, sysfs_write ? flags | O_TRUNC : flags);
    if (r >= 0 && sysfs_write) p.sysfs_writers[r] = path;
    trace_ += strformat("open %s = %s\n", p.rel(path).c_str(), r < 0 ? std::strerror(-r) : "fd");
    return r;
  }
  const std::string node = path.substr(vfio.size());
  auto done = [&](int r) {
    trace_ += strformat("open %s = %s\n", p.rel(path).c_str(),
                        r < 0 ? std::strerror(-r) : p.name(r).c_str());
    return r;
  };
  int err = 0;
  if (p.take_failure("open:vfio/" + node, &err)) return done(-err);
  if ((flags & O_ACCMODE) != O_RDWR) {
    violations_.push_back("open " + p.rel(path) + " without O_RDWR");
    return done(-EINVAL);
  }
  if (node == "vfio") return done(p.add(make(Kind::kContainer)));
  std::string num = node;
  const bool noiommu_node = num.rfind("noiommu-", 0) == 0;
  if (noiommu_node) num = num.substr(8);
  if (noiommu_node != no_iommu_ || num.empty() ||
      num.find_first_not_of("0123456789") != std::string::npos)
    return done(-ENOENT);
  auto g = p.groups.find(std::stoi(num));
  if (g == p.groups.end()) return done(-ENOENT);
  if (g->second.open) return done(-EBUSY);  // a group is opened by one process at a time
  g->second.open = true;
  Object o = make(Kind::kGroup);
  o.group = g->first;
  return done(p.add(o));
}

int FakeVfioKernel::close(int fd) {
  Impl& p = *p_;
  Object* o = p.get(fd);
  if (!o) {
    p.sysfs_writers.erase(fd);
    return pci::Sys::os().close(fd);
  }
  trace_ += "close " + p.name(fd) + "\n";
  switch (o->kind) {
    case Kind::kGroup: {
      Group& g = p.groups.at(o->group);
      g.open = false;
      if (Object* c = p.get(g.container)) std::erase(c->groups, g.id);
      g.container = 0;
      break;
    }
    case Kind::kContainer:
      // The last reference to a container drops its IOMMU mappings (what the kernel does).
      p.dma.clear();
      for (auto& [id, g] : p.groups)
        if (g.container == fd) g.container = 0;
      break;
    case Kind::kDevice: {
      Function& fn = p.functions.at(o->bdf);
      fn.open = false;
      fn.irq_eventfd.fill(0);  // vfio-pci disables interrupts on release
      break;
    }
    case Kind::kEventfd:
      for (auto& [bdf, fn] : p.functions)
        for (int& e : fn.irq_eventfd)
          if (e == fd) e = 0;
      break;
    case Kind::kPagemap: break;
  }
  p.fds.erase(fd);
  return 0;
}

int FakeVfioKernel::ioctl(int fd, unsigned long req, void* arg) {
  Impl& p = *p_;
  Object* o = p.get(fd);
  if (!o) return pci::Sys::os().ioctl(fd, req, arg);
  ++ioctls_;
  const char* nm = ioctl_name(req);
  std::string line = p.name(fd) + " " + (nm ? nm : hex(req));
  std::string detail;
  auto done = [&](int r) {
    trace_ += "ioctl " + line + (detail.empty() ? "" : " " + detail) + " = " +
              (r < 0      ? std::string(std::strerror(-r))
               : p.get(r) ? p.name(r)
                          : std::to_string(r)) +
              "\n";
    return r;
  };
  auto bad = [&](const std::string& why) {
    violations_.push_back(line + ": " + why);
    return done(-EINVAL);
  };
  int err = 0;
  if (nm && p.take_failure(nm, &err)) return done(-err);
  // argsz: at least the struct's fixed part (the kernel's minsz), as every vfio ioctl checks.
  auto argsz_ok = [&](uint32_t minsz) {
    uint32_t argsz;
    std::memcpy(&argsz, arg, 4);
    detail += "argsz=" + std::to_string(argsz);
    return argsz >= minsz;
  };

  switch (o->kind) {
    case Kind::kContainer: {
      switch (req) {
        case VFIO_GET_API_VERSION: return done(VFIO_API_VERSION);
        case VFIO_CHECK_EXTENSION: {
          const auto ext = reinterpret_cast<unsigned long>(arg);
          detail = iommu_name(ext);
          if (no_iommu_) return done(ext == VFIO_NOIOMMU_IOMMU ? 1 : 0);
          return done(ext == VFIO_TYPE1_IOMMU || ext == VFIO_TYPE1v2_IOMMU ? 1 : 0);
        }
        case VFIO_SET_IOMMU: {
          const auto type = reinterpret_cast<unsigned long>(arg);
          detail = iommu_name(type);
          if (o->groups.empty()) return bad("SET_IOMMU before a group is attached");
          if (o->iommu) return done(-EBUSY);
          const bool ok = no_iommu_ ? type == VFIO_NOIOMMU_IOMMU
                                    : (type == VFIO_TYPE1_IOMMU || type == VFIO_TYPE1v2_IOMMU);
          if (!ok) return done(-ENODEV);
          o->iommu = type;
          return done(0);
        }
        case VFIO_IOMMU_GET_INFO: {
          if (!o->iommu || o->iommu == VFIO_NOIOMMU_IOMMU) return bad("GET_INFO without type1");
          if (!argsz_ok(offsetof(vfio_iommu_type1_info, iova_pgsizes) + 8))
            return bad("argsz below the fixed part");
          vfio_iommu_type1_info info;
          std::memcpy(&info, arg, sizeof info < 16 ? sizeof info : 16);
          const uint32_t cap_size =
              static_cast<uint32_t>(sizeof(vfio_iommu_type1_info_cap_iova_range) +
                                    iova_ranges_.size() * sizeof(vfio_iova_range));
          const uint32_t need = static_cast<uint32_t>(sizeof(vfio_iommu_type1_info)) + cap_size;
          const uint32_t given = info.argsz;
          vfio_iommu_type1_info out{};
          out.flags = VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS;
          out.iova_pgsizes = kPage | (kPage << 9) | (kPage << 18);
          if (given < need) {
            out.argsz = need;  // ask again with room for the capabilities
            out.cap_offset = 0;
            std::memcpy(arg, &out, std::min<size_t>(given, sizeof out));
            detail += " (needs " + std::to_string(need) + ")";
            return done(0);
          }
          out.argsz = need;
          out.cap_offset = sizeof(vfio_iommu_type1_info);
          auto* b = static_cast<uint8_t*>(arg);
          std::memcpy(b, &out, sizeof out);
          vfio_iommu_type1_info_cap_iova_range cap{};
          cap.header.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE;
          cap.header.version = 1;
          cap.header.next = 0;
          cap.nr_iovas = static_cast<uint32_t>(iova_ranges_.size());
          std::memcpy(b + sizeof out, &cap, sizeof cap);
          for (size_t i = 0; i < iova_ranges_.size(); ++i) {
            const vfio_iova_range r{iova_ranges_[i].start, iova_ranges_[i].end};
            std::memcpy(b + sizeof out + sizeof cap + i * sizeof r, &r, sizeof r);
          }
          return done(0);
        }
        case VFIO_IOMMU_MAP_DMA: {
          if (!o->iommu || o->iommu == VFIO_NOIOMMU_IOMMU) return bad("MAP_DMA without type1");
          if (!argsz_ok(RG_OFFSETOFEND(vfio_iommu_type1_dma_map, size))) return bad("argsz");
          vfio_iommu_type1_dma_map m;
          std::memcpy(&m, arg, sizeof m);
          detail = strformat("iova=%s size=%s flags=%s", hex(m.iova).c_str(), hex(m.size).c_str(),
                             m.flags == (VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)
                                 ? "READ|WRITE"
                                 : hex(m.flags).c_str());
          if (m.flags & ~uint32_t{VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE})
            return bad("unknown flags");
          if (m.size == 0 || m.size % kPage || m.iova % kPage || m.vaddr % kPage)
            return bad("unaligned or empty map");
          if (m.iova + m.size < m.iova) return bad("iova range wraps");
          bool in_range = false;
          for (const FakeVfioRange& r : iova_ranges_)
            in_range |= m.iova >= r.start && m.iova + m.size - 1 <= r.end;
          if (!in_range) return done(-EINVAL);
          auto next = p.dma.lower_bound(m.iova);
          if (next != p.dma.end() && next->first < m.iova + m.size) return done(-EEXIST);
          if (next != p.dma.begin() &&
              std::prev(next)->second.iova + std::prev(next)->second.size > m.iova)
            return done(-EEXIST);
          if (p.dma.size() >= dma_entry_limit_) return done(-ENOSPC);
          p.dma[m.iova] = Mapping{m.iova, m.size, reinterpret_cast<uint8_t*>(m.vaddr)};
          return done(0);
        }
        case VFIO_IOMMU_UNMAP_DMA: {
          if (!o->iommu || o->iommu == VFIO_NOIOMMU_IOMMU) return bad("UNMAP_DMA without type1");
          if (!argsz_ok(RG_OFFSETOFEND(vfio_iommu_type1_dma_unmap, size))) return bad("argsz");
          vfio_iommu_type1_dma_unmap u;
          std::memcpy(&u, arg, sizeof u);
          detail = strformat("iova=%s size=%s", hex(u.iova).c_str(), hex(u.size).c_str());
          if (u.flags != 0) return bad("flags");
          if (u.size % kPage || u.iova % kPage) return bad("unaligned unmap");
          uint64_t unmapped = 0;
          // type1v2: a mapping that straddles either end is an error; inside ones go.
          for (auto it = p.dma.begin(); it != p.dma.end();) {
            const Mapping& m = it->second;
            const bool overlaps = m.iova < u.iova + u.size && u.iova < m.iova + m.size;
            const bool inside = m.iova >= u.iova && m.iova + m.size <= u.iova + u.size;
            if (overlaps && !inside) return done(-EINVAL);
            if (inside) {
              unmapped += m.size;
              it = p.dma.erase(it);
            } else {
              ++it;
            }
          }
          u.size = unmapped;
          std::memcpy(arg, &u, sizeof u);
          return done(0);
        }
        default: return done(-ENOTTY);
      }
    }
    case Kind::kGroup: {
      Group& g = p.groups.at(o->group);
      switch (req) {
        case VFIO_GROUP_GET_STATUS: {
          if (!argsz_ok(sizeof(vfio_group_status))) return bad("argsz");
          vfio_group_status st;
          std::memcpy(&st, arg, sizeof st);
          st.flags = (g.viable ? VFIO_GROUP_FLAGS_VIABLE : 0) |
                     (g.container ? VFIO_GROUP_FLAGS_CONTAINER_SET : 0);
          std::memcpy(arg, &st, sizeof st);
          detail += g.viable ? " flags=VIABLE" : " flags=0";
          return done(0);
        }
        case VFIO_GROUP_SET_CONTAINER: {
          int cfd;
          std::memcpy(&cfd, arg, sizeof cfd);
          Object* c = p.get(cfd);
          detail = c ? p.name(cfd) : strformat("fd%d", cfd);
          if (!c || c->kind != Kind::kContainer) return done(-EBADF);
          if (!g.viable) return done(-EPERM);
          if (g.container) return done(-EBUSY);
          g.container = cfd;
          c->groups.push_back(g.id);
          return done(0);
        }
        case VFIO_GROUP_GET_DEVICE_FD: {
          const std::string bdf(static_cast<const char*>(arg));
          detail = bdf;
          Object* c = p.container_of_group(g);
          if (!c || !c->iommu) return bad("GET_DEVICE_FD before the container has an IOMMU");
          auto f = p.functions.find(bdf);
          if (f == p.functions.end() || f->second.group != g.id) return done(-ENODEV);
          if (f->second.open) return done(-EBUSY);
          f->second.open = true;
          Object d = make(Kind::kDevice);
          d.bdf = bdf;
          return done(p.add(d));
        }
        default: return done(-ENOTTY);
      }
    }
    case Kind::kDevice: {
      Function& fn = p.functions.at(o->bdf);
      switch (req) {
        case VFIO_DEVICE_GET_INFO: {
          if (!argsz_ok(RG_OFFSETOFEND(vfio_device_info, num_irqs))) return bad("argsz");
          vfio_device_info info;
          std::memcpy(&info, arg, sizeof info);
          info.flags = VFIO_DEVICE_FLAGS_PCI | (fn.f.reset ? VFIO_DEVICE_FLAGS_RESET : 0);
          info.num_regions = kNumRegions;
          info.num_irqs = kNumIrqs;
          info.cap_offset = 0;
          std::memcpy(arg, &info, std::min<size_t>(sizeof info, info.argsz));
          return done(0);
        }
        case VFIO_DEVICE_GET_REGION_INFO: {
          if (!argsz_ok(RG_OFFSETOFEND(vfio_region_info, offset))) return bad("argsz");
          vfio_region_info ri;
          std::memcpy(&ri, arg, sizeof ri);
          detail += " index=" + std::to_string(ri.index);
          if (ri.index >= kNumRegions) return done(-EINVAL);
          ri.offset = uint64_t{ri.index} << kRegionShift;
          ri.flags = 0;
          ri.size = 0;
          ri.cap_offset = 0;
          if (ri.index <= VFIO_PCI_BAR5_REGION_INDEX) {
            ri.size = fn.f.bar_size[ri.index];
            if (ri.size)
              ri.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
                         (fn.f.bar_mmap[ri.index] ? VFIO_REGION_INFO_FLAG_MMAP : 0);
          } else if (ri.index == VFIO_PCI_CONFIG_REGION_INDEX) {
            ri.size = fn.f.config.size();
            ri.flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
          }
          std::memcpy(arg, &ri, sizeof ri);
          detail += strformat(" -> size=%s", hex(ri.size).c_str());
          return done(0);
        }
        case VFIO_DEVICE_GET_IRQ_INFO: {
          if (!argsz_ok(sizeof(vfio_irq_info))) return bad("argsz");
          vfio_irq_info ii;
          std::memcpy(&ii, arg, sizeof ii);
          detail += std::string(" index=") + irq_index_name(ii.index);
          if (ii.index >= kNumIrqs) return done(-EINVAL);
          ii.flags = VFIO_IRQ_INFO_EVENTFD;
          ii.count = ii.index == VFIO_PCI_MSI_IRQ_INDEX    ? fn.f.msi_vectors
                     : ii.index == VFIO_PCI_MSIX_IRQ_INDEX ? fn.f.msix_vectors
                                                           : 0;
          if (ii.index == VFIO_PCI_MSI_IRQ_INDEX) ii.flags |= VFIO_IRQ_INFO_NORESIZE;
          std::memcpy(arg, &ii, sizeof ii);
          detail += " -> count=" + std::to_string(ii.count);
          return done(0);
        }
        case VFIO_DEVICE_SET_IRQS: {
          if (!argsz_ok(sizeof(vfio_irq_set))) return bad("argsz");
          vfio_irq_set s;
          std::memcpy(&s, arg, sizeof s);
          const uint32_t data = s.flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
          const uint32_t action = s.flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
          detail +=
              strformat(" index=%s start=%u count=%u", irq_index_name(s.index), s.start, s.count);
          if (std::popcount(data) != 1 || std::popcount(action) != 1) return bad("flags");
          if (s.flags & ~(VFIO_IRQ_SET_DATA_TYPE_MASK | VFIO_IRQ_SET_ACTION_TYPE_MASK))
            return bad("unknown flags");
          if (s.index >= kNumIrqs) return done(-EINVAL);
          const uint32_t vectors = s.index == VFIO_PCI_MSI_IRQ_INDEX    ? fn.f.msi_vectors
                                   : s.index == VFIO_PCI_MSIX_IRQ_INDEX ? fn.f.msix_vectors
                                                                        : 0;
          if (action != VFIO_IRQ_SET_ACTION_TRIGGER) return done(-EINVAL);
          if (data == VFIO_IRQ_SET_DATA_NONE && s.count == 0) {
            detail += " (disable)";
            fn.irq_eventfd[s.index] = 0;
            return done(0);
          }
          if (data != VFIO_IRQ_SET_DATA_EVENTFD) return done(-EINVAL);
          if (s.count == 0 || s.start + s.count > vectors) return done(-EINVAL);
          if (s.argsz < sizeof(vfio_irq_set) + 4ull * s.count)
            return bad("argsz too small for the eventfds");
          int32_t efd;
          std::memcpy(&efd, static_cast<uint8_t*>(arg) + sizeof(vfio_irq_set), 4);
          Object* e = p.get(efd);
          detail += " " + (e ? p.name(efd) : strformat("fd%d", efd));
          if (!e || e->kind != Kind::kEventfd) return done(-EBADF);
          if (s.start == 0) fn.irq_eventfd[s.index] = efd;
          return done(0);
        }
        case VFIO_DEVICE_RESET:
          if (!fn.f.reset) return done(-ENOTTY);
          fn.reset_done = true;
          return done(0);
        default: return done(-ENOTTY);
      }
    }
    case Kind::kEventfd:
    case Kind::kPagemap: return done(-ENOTTY);
  }
  return done(-ENOTTY);
}

ssize_t FakeVfioKernel::pread(int fd, void* buf, size_t n, off_t off) {
  Impl& p = *p_;
  Object* o = p.get(fd);
  if (!o) return pci::Sys::os().pread(fd, buf, n, off);
  if (o->kind == Kind::kPagemap) {
    // A stable made-up physical frame per virtual page, present.
    auto* e = static_cast<uint64_t*>(buf);
    const uint64_t first = static_cast<uint64_t>(off) / 8;
    for (size_t i = 0; i < n / 8; ++i)
      e[i] = (uint64_t{1} << 63) | (((first + i) * 0x9e3779b1u) & ((uint64_t{1} << 40) - 1)) | 1;
    trace_ += strformat("pread pagemap#%d %zu pages\n", o->seq, n / 8);
    return static_cast<ssize_t>(n & ~size_t{7});
  }
  if (o->kind != Kind::kDevice) return -EINVAL;
  Function& fn = p.functions.at(o->bdf);
  const uint64_t region = static_cast<uint64_t>(off) >> kRegionShift;
  const uint64_t at = static_cast<uint64_t>(off) & ((uint64_t{1} << kRegionShift) - 1);
  if (region == VFIO_PCI_CONFIG_REGION_INDEX) {
    int err = 0;
    size_t take = n;
    if (p.take_failure("pread:config", &err)) take = n / 2;
    if (at >= fn.f.config.size()) return 0;
    take = std::min<size_t>(take, fn.f.config.size() - at);
    std::memcpy(buf, fn.f.config.data() + at, take);
    trace_ +=
        strformat("pread %s config+%s %zu = %zu\n", p.name(fd).c_str(), hex(at).c_str(), n, take);
    return static_cast<ssize_t>(take);
  }
  if (region <= VFIO_PCI_BAR5_REGION_INDEX && fn.bar[region] && at < fn.f.bar_size[region]) {
    const size_t take = std::min<size_t>(n, fn.f.bar_size[region] - at);
    std::memcpy(buf, fn.bar[region] + at, take);
    return static_cast<ssize_t>(take);
  }
  return -EINVAL;
}

ssize_t FakeVfioKernel::pwrite(int fd, const void* buf, size_t n, off_t off) {
  Impl& p = *p_;
  Object* o = p.get(fd);
  if (!o) return pci::Sys::os().pwrite(fd, buf, n, off);
  if (o->kind != Kind::kDevice) return -EINVAL;
  Function& fn = p.functions.at(o->bdf);
  const uint64_t region = static_cast<uint64_t>(off) >> kRegionShift;
  const uint64_t at = static_cast<uint64_t>(off) & ((uint64_t{1} << kRegionShift) - 1);
  if (region == VFIO_PCI_CONFIG_REGION_INDEX) {
    if (at >= fn.f.config.size()) return 0;
    const size_t take = std::min<size_t>(n, fn.f.config.size() - at);
    std::memcpy(fn.f.config.data() + at, buf, take);
    uint32_t v = 0;
    std::memcpy(&v, buf, std::min<size_t>(n, 4));
    trace_ += strformat("pwrite %s config+%s %zu %s\n", p.name(fd).c_str(), hex(at).c_str(), n,
                        hex(v).c_str());
    return static_cast<ssize_t>(take);
  }
  if (region <= VFIO_PCI_BAR5_REGION_INDEX && fn.bar[region] && at < fn.f.bar_size[region]) {
    const size_t take = std::min<size_t>(n, fn.f.bar_size[region] - at);
    std::memcpy(fn.bar[region] + at, buf, take);
    return static_cast<ssize_t>(take);
  }
  return -EINVAL;
}

ssize_t FakeVfioKernel::read(int fd, void* buf, size_t n) {
  Impl& p = *p_;
  Object* o = p.get(fd);
  if (!o) return pci::Sys::os().read(fd, buf, n);
  if (o->kind != Kind::kEventfd || n < 8) return -EINVAL;
  if (o->counter == 0) return o->nonblock ? -EAGAIN : -EDEADLK;  // a blocking read would hang
  std::memcpy(buf, &o->counter, 8);
  o->counter = 0;
  return 8;
}

ssize_t FakeVfioKernel::write(int fd, const void* buf, size_t n) {
  Impl& p = *p_;
  Object* o = p.get(fd);
  if (!o) {
    auto w = p.sysfs_writers.find(fd);
    if (w == p.sysfs_writers.end()) return pci::Sys::os().write(fd, buf, n);
    const std::string value(static_cast<const char*>(buf), n);
    int err = 0;
    const int r =
        p.take_failure("write:" + p.rel(w->second), &err) ? -err : p.sysfs_effect(w->second, value);
    std::string shown = value;
    while (!shown.empty() && shown.back() == '\n') shown.pop_back();
    trace_ += strformat("write %s '%s' = %s\n", p.rel(w->second).c_str(), shown.c_str(),
                        r < 0 ? std::strerror(-r) : "ok");
    if (r < 0) return r;
    return pci::Sys::os().write(fd, buf, n);
  }
  if (o->kind != Kind::kEventfd || n < 8) return -EINVAL;
  uint64_t v;
  std::memcpy(&v, buf, 8);
  o->counter += v;
  return 8;
}

void* FakeVfioKernel::mmap(size_t length, int prot, int flags, int fd, off_t off, int& err) {
  Impl& p = *p_;
  Object* o = fd >= 0 ? p.get(fd) : nullptr;
  if (!o) return pci::Sys::os().mmap(length, prot, flags, fd, off, err);
  err = EINVAL;
  if (o->kind != Kind::kDevice) return nullptr;
  Function& fn = p.functions.at(o->bdf);
  const uint64_t region = static_cast<uint64_t>(off) >> kRegionShift;
  const uint64_t at = static_cast<uint64_t>(off) & ((uint64_t{1} << kRegionShift) - 1);
  auto done = [&](void* r) {
    trace_ += strformat("mmap %s BAR%llu+%s %s = %s\n", p.name(fd).c_str(),
                        static_cast<unsigned long long>(region), hex(at).c_str(),
                        hex(length).c_str(), r ? "ok" : std::strerror(err));
    return r;
  };
  if (region > VFIO_PCI_BAR5_REGION_INDEX || !fn.bar[region] || !fn.f.bar_mmap[region])
    return done(nullptr);
  if (!(flags & MAP_SHARED)) {
    violations_.push_back("mmap of a BAR without MAP_SHARED");
    return done(nullptr);
  }
  if (at % kPage || length == 0 || at + length > fn.f.bar_size[region]) return done(nullptr);
  int ferr = 0;
  if (p.take_failure(strformat("mmap:BAR%llu", static_cast<unsigned long long>(region)), &ferr)) {
    err = ferr;
    return done(nullptr);
  }
  uint8_t* addr = fn.bar[region] + at;
  p.bar_maps[addr] = {o->bdf, static_cast<int>(region), length};
  err = 0;
  return done(addr);
}

int FakeVfioKernel::munmap(void* addr, size_t length) {
  Impl& p = *p_;
  auto it = p.bar_maps.find(static_cast<uint8_t*>(addr));
  if (it == p.bar_maps.end()) return pci::Sys::os().munmap(addr, length);
  trace_ += strformat("munmap %s BAR%d\n", it->second.bdf.c_str(), it->second.bar);
  if (it->second.len != length) violations_.push_back("munmap of a BAR with another length");
  p.bar_maps.erase(it);
  return 0;
}

int FakeVfioKernel::mlock(const void*, size_t length) {
  trace_ += strformat("mlock %zu pages\n", length / kPage);
  return 0;
}

ssize_t FakeVfioKernel::readlink(const std::string& path, std::string& target) {
  const ssize_t r = pci::Sys::os().readlink(path, target);
  trace_ += strformat("readlink %s = %s\n", p_->rel(path).c_str(),
                      r < 0 ? std::strerror(static_cast<int>(-r)) : target.c_str());
  return r;
}

int FakeVfioKernel::eventfd(unsigned initval, int flags) {
  Object o = make(Kind::kEventfd);
  o.counter = initval;
  o.nonblock = (flags & O_NONBLOCK) != 0;
  const int fd = p_->add(o);
  trace_ += "eventfd = " + p_->name(fd) + "\n";
  return fd;
}

int FakeVfioKernel::poll(struct pollfd* fds, nfds_t n, int timeout_ms) {
  int ready = 0;
  bool any_fake = false;
  for (nfds_t i = 0; i < n; ++i) {
    Object* o = p_->get(fds[i].fd);
    if (!o) continue;
    any_fake = true;
    fds[i].revents = (o->kind == Kind::kEventfd && o->counter > 0) ? POLLIN : 0;
    ready += fds[i].revents != 0;
  }
  if (!any_fake) return pci::Sys::os().poll(fds, n, timeout_ms);
  return ready;  // fake time does not pass here: the caller's clock decides the timeout
}

int FakeVfioKernel::flock(int fd, int operation) { return pci::Sys::os().flock(fd, operation); }

}  // namespace rawgpu::sim
