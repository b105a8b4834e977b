#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "rawgpu/autogen/nv/nv_ioctl.h"
#include "rawgpu/autogen/nv/nv_ioctl_numbers.h"
#include "rawgpu/autogen/nv/nv_status.h"
#include "rawgpu/autogen/nv/uvm_ioctl.h"
#include "rawgpu/autogen/nv/uvm_ioctl_numbers.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/nv/rm.h"
#include "rawgpu/sim/nv_rm.h"
#include "state.h"

namespace rawgpu::sim {

namespace rm = autogen::nv::rm;
namespace st = autogen::nv::status;
namespace nvio = autogen::nv::ioctl;
namespace uvm = autogen::nv::uvm;

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint32_t kUsermodeBytes = 0x10000;
constexpr uint32_t kGrRunlist = 1;
constexpr uint32_t kMaxGrInfo = 128;

struct ArchFacts {
  const char* name;
  uint16_t device_id;
  uint32_t sm_version, max_warps, gpcs, tpc_per_gpc, sm_per_tpc;
  std::vector<uint32_t> engine_classes;
};

const ArchFacts& facts(NvArch a) {
  static const ArchFacts kAmpere{
      "GA102",
      0x2204,
      0x806,
      48,
      7,
      6,
      2,
      {rm::TURING_USERMODE_A, rm::AMPERE_USERMODE_A, rm::AMPERE_CHANNEL_GPFIFO_A,
       rm::AMPERE_COMPUTE_B, rm::AMPERE_DMA_COPY_A, rm::AMPERE_DMA_COPY_B}};
  static const ArchFacts kAda{
      "AD102",
      0x2684,
      0x809,
      48,
      12,
      6,
      2,
      {rm::TURING_USERMODE_A, rm::AMPERE_USERMODE_A, rm::AMPERE_CHANNEL_GPFIFO_A, rm::ADA_COMPUTE_A,
       rm::AMPERE_DMA_COPY_B}};
  // GH100's list still names the Ampere channel and the older usermode classes, but its only
  // compute and copy classes are Hopper's.
  static const ArchFacts kHopper{
      "GH100",
      0x2335,
      0x900,
      64,
      8,
      9,
      2,
      {rm::TURING_USERMODE_A, rm::AMPERE_USERMODE_A, rm::HOPPER_USERMODE_A,
       rm::AMPERE_CHANNEL_GPFIFO_A, rm::HOPPER_CHANNEL_GPFIFO_A, rm::HOPPER_COMPUTE_A,
       rm::HOPPER_DMA_COPY_A}};
  switch (a) {
    case NvArch::kAmpere: return kAmpere;
    case NvArch::kAda: return kAda;
    case NvArch::kHopper: break;
  }
  return kHopper;
}

bool is_gpfifo(uint32_t c) {
  return c == rm::AMPERE_CHANNEL_GPFIFO_A || c == rm::HOPPER_CHANNEL_GPFIFO_A;
}
bool is_compute(uint32_t c) {
  return c == rm::AMPERE_COMPUTE_A || c == rm::AMPERE_COMPUTE_B || c == rm::ADA_COMPUTE_A ||
         c == rm::HOPPER_COMPUTE_A;
}
bool is_copy(uint32_t c) {
  return c == rm::AMPERE_DMA_COPY_A || c == rm::AMPERE_DMA_COPY_B || c == rm::HOPPER_DMA_COPY_A;
}
bool is_usermode(uint32_t c) {
  return c == rm::TURING_USERMODE_A || c == rm::AMPERE_USERMODE_A || c == rm::HOPPER_USERMODE_A;
}
bool is_memory(uint32_t c) {
  return c == rm::NV1_MEMORY_USER || c == rm::NV01_MEMORY_SYSTEM ||
         c == rm::NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
}

std::string class_name(uint32_t c) {
  const char* n = nullptr;
  switch (c) {
    case rm::NV01_ROOT_CLIENT: n = "NV01_ROOT_CLIENT"; break;
    case rm::NV01_DEVICE_0: n = "NV01_DEVICE_0"; break;
    case rm::NV20_SUBDEVICE_0: n = "NV20_SUBDEVICE_0"; break;
    case rm::NV01_MEMORY_SYSTEM: n = "NV01_MEMORY_SYSTEM"; break;
    case rm::NV1_MEMORY_USER: n = "NV1_MEMORY_USER"; break;
    case rm::NV01_MEMORY_VIRTUAL: n = "NV01_MEMORY_VIRTUAL"; break;
    case rm::NV01_MEMORY_SYSTEM_OS_DESCRIPTOR: n = "NV01_MEMORY_SYSTEM_OS_DESCRIPTOR"; break;
    case rm::FERMI_CONTEXT_SHARE_A: n = "FERMI_CONTEXT_SHARE_A"; break;
    case rm::FERMI_VASPACE_A: n = "FERMI_VASPACE_A"; break;
    case rm::KEPLER_CHANNEL_GROUP_A: n = "KEPLER_CHANNEL_GROUP_A"; break;
    case rm::TURING_USERMODE_A: n = "TURING_USERMODE_A"; break;
    case rm::AMPERE_USERMODE_A: n = "AMPERE_USERMODE_A"; break;
    case rm::HOPPER_USERMODE_A: n = "HOPPER_USERMODE_A"; break;
    case rm::AMPERE_CHANNEL_GPFIFO_A: n = "AMPERE_CHANNEL_GPFIFO_A"; break;
    case rm::HOPPER_CHANNEL_GPFIFO_A: n = "HOPPER_CHANNEL_GPFIFO_A"; break;
    case rm::AMPERE_DMA_COPY_A: n = "AMPERE_DMA_COPY_A"; break;
    case rm::AMPERE_DMA_COPY_B: n = "AMPERE_DMA_COPY_B"; break;
    case rm::HOPPER_DMA_COPY_A: n = "HOPPER_DMA_COPY_A"; break;
    case rm::AMPERE_COMPUTE_A: n = "AMPERE_COMPUTE_A"; break;
    case rm::AMPERE_COMPUTE_B: n = "AMPERE_COMPUTE_B"; break;
    case rm::ADA_COMPUTE_A: n = "ADA_COMPUTE_A"; break;
    case rm::HOPPER_COMPUTE_A: n = "HOPPER_COMPUTE_A"; break;
    default: break;
  }
  return n != nullptr ? strformat("%s(0x%x)", n, c) : strformat("class 0x%x", c);
}

std::string status_text(uint32_t s) {
  const std::string_view n = st::name(s);
  return n.empty() ? strformat("0x%x", s) : std::string(n);
}

template <class T>
T load(uint64_t user_ptr, uint32_t off) {
  T v;
  std::memcpy(&v, reinterpret_cast<const uint8_t*>(user_ptr) + off, sizeof(T));
  return v;
}
template <class T>
T load(const std::vector<uint8_t>& b, uint32_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof(T));
  return v;
}
template <class T>
void store(uint8_t* p, uint32_t off, T v) {
  std::memcpy(p + off, &v, sizeof(T));
}

}  // namespace

Result<std::unique_ptr<SimNvKernel>> SimNvKernel::create(const SimNvConfig& config) {
  const auto v = RG_TRY(nv::parse_driver_version(config.version));
  const auto* layouts = config.layouts;
  if (layouts == nullptr) layouts = RG_TRY(nv::branch_layouts(v));
  if (config.gpus == 0 || config.gpus > 8) {
    return make_error(Errc::kInvalidArgument, "a simulated NVIDIA machine has 1-8 GPUs, not %u",
                      config.gpus);
  }
  std::unique_ptr<SimNvKernel> k(new SimNvKernel(config));
  k->layouts_ = layouts;
  for (uint32_t g = 0; g < config.gpus; ++g) {
    const int fd = memfd_create("rawgpu-sim-nv-usermode", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, kUsermodeBytes) != 0) {
      if (fd >= 0) ::close(fd);
      return make_error(Errc::kIo, "memfd for the simulated usermode page: %s",
                        std::strerror(errno));
    }
    void* view = ::mmap(nullptr, kUsermodeBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (view == MAP_FAILED) {
      ::close(fd);
      return make_error(Errc::kIo, "mapping the simulated usermode page: %s", std::strerror(errno));
    }
    k->usermode_memfd_.push_back(fd);
    k->usermode_view_.push_back(static_cast<uint8_t*>(view));
  }
  return k;
}

SimNvKernel::SimNvKernel(const SimNvConfig& config)
    : config_(config), vram_used_(config.gpus, 0), uvm_gpu_registered_(config.gpus, false) {}

SimNvKernel::~SimNvKernel() {
  for (auto& [h, o] : objects_) {
    if (o->view != nullptr) ::munmap(o->view, o->size);
    if (o->memfd >= 0) ::close(o->memfd);
  }
  for (size_t g = 0; g < usermode_memfd_.size(); ++g) {
    ::munmap(usermode_view_[g], kUsermodeBytes);
    ::close(usermode_memfd_[g]);
  }
}

uint64_t SimNvKernel::vram_used(uint32_t gpu) const {
  return gpu < vram_used_.size() ? vram_used_[gpu] : 0;
}

uint32_t SimNvKernel::doorbell(uint32_t gpu) const {
  if (gpu >= usermode_view_.size()) return 0;
  uint32_t v;
  std::memcpy(&v, usermode_view_[gpu] + 0x90, 4);
  return v;
}

std::vector<SimNvKernel::ChannelView> SimNvKernel::channels() const {
  std::vector<ChannelView> out;
  for (const auto& [h, o] : objects_) {
    if (!is_gpfifo(o->cls)) continue;
    out.push_back({o->cls, o->chid, o->token, o->entries, o->ring_va, o->userd_va, o->engine_cls});
  }
  return out;
}

bool SimNvKernel::scheduled(uint32_t tsg) const {
  auto it = objects_.find(tsg);
  return it != objects_.end() && it->second->scheduled;
}

Result<uint8_t*> SimNvKernel::translate(uint64_t va, uint64_t length) const {
  for (const Range& r : ranges_) {
    if (r.memory == 0 || va < r.base || va + length > r.base + r.length) continue;
    auto it = objects_.find(r.memory);
    if (it == objects_.end()) break;
    const Object& m = *it->second;
    const uint64_t off = r.memory_offset + (va - r.base);
    if (off + length > m.size) break;
    uint8_t* base = m.view != nullptr ? m.view : m.host;
    return base + off;
  }
  return make_error(Errc::kOutOfRange, "GPU MMU fault: no mapping for [%s, +%s)", hex(va).c_str(),
                    hex(length).c_str());
}

// --- files -----------------------------------------------------------------------------------

int SimNvKernel::open(const std::string& path, int /*flags*/) {
  auto fd = std::make_unique<Fd>();
  std::string node;
  if (path == "/dev/nvidiactl") {
    fd->kind = Fd::kCtl;
    node = "ctl";
  } else if (path == "/dev/nvidia-uvm") {
    fd->kind = Fd::kUvm;
    node = "uvm";
  } else if (path.rfind("/dev/nvidia", 0) == 0 && path.size() > 11 &&
             std::all_of(path.begin() + 11, path.end(),
                         [](char c) { return c >= '0' && c <= '9'; })) {
    fd->kind = Fd::kGpu;
    // from_chars: a minor too large for 32 bits is just absent (no exception).
    const auto r = std::from_chars(path.data() + 11, path.data() + path.size(), fd->minor);
    if (r.ec != std::errc() || fd->minor >= config_.gpus) {
      log("open " + path + " -> ENXIO");
      return -ENXIO;
    }
    node = "gpu" + std::to_string(fd->minor);
  } else {
    log("open " + path + " -> ENOENT");
    return -ENOENT;
  }
  const int n = next_fd_++;
  fds_[n] = std::move(fd);
  log("open " + node);
  return n;
}

int SimNvKernel::close(int fd) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return -EBADF;
  // Closing the last ctl fd frees every client opened through it (one client per ctl fd here).
  if (it->second->kind == Fd::kCtl) {
    std::vector<uint32_t> roots;
    for (const auto& [h, o] : objects_) {
      if (o->cls == rm::NV01_ROOT_CLIENT) roots.push_back(h);
    }
    const bool last_ctl = std::count_if(fds_.begin(), fds_.end(), [](const auto& f) {
                            return f.second->kind == Fd::kCtl;
                          }) == 1;
    if (last_ctl) {
      for (uint32_t r : roots) free_tree(r);
    }
  }
  fds_.erase(it);
  return 0;
}

void* SimNvKernel::mmap(void* addr, size_t length, int prot, int flags, int fd, off_t off,
                        int& err) {
  if (fd < 0) {
    // Anonymous memory (VA reservations, host pages): the real kernel's.
    void* p = ::mmap(addr, length, prot, flags, -1, off);
    if (p == MAP_FAILED) {
      err = errno;
      return nullptr;
    }
    err = 0;
    return p;
  }
  auto it = fds_.find(fd);
  if (it == fds_.end() || it->second->kind != Fd::kGpu || !it->second->pending_map) {
    log("mmap without a preceding RM_MAP_MEMORY -> EINVAL");
    err = EINVAL;
    return nullptr;
  }
  const Fd::Pending pm = *it->second->pending_map;
  it->second->pending_map.reset();
  auto ot = objects_.find(pm.memory);
  if (ot == objects_.end() || length > pm.length || off != 0) {
    err = EINVAL;
    return nullptr;
  }
  const Object& o = *ot->second;
  const int memfd = is_usermode(o.cls) ? usermode_memfd_[o.gpu] : o.memfd;
  void* p = ::mmap(addr, length, prot, flags & ~MAP_ANONYMOUS, memfd, 0);
  if (p == MAP_FAILED) {
    err = errno;
    return nullptr;
  }
  log(strformat("mmap gpu%u %s of 0x%x", it->second->minor, format_bytes(length).c_str(),
                o.handle));
  if (is_usermode(o.cls)) usermode_maps_.push_back({static_cast<uint8_t*>(p), length, o.gpu});
  err = 0;
  return p;
}

int SimNvKernel::munmap(void* addr, size_t length) {
  std::erase_if(usermode_maps_, [&](const UsermodeMap& m) { return m.cpu == addr; });
  return ::munmap(addr, length) < 0 ? -errno : 0;
}

int SimNvKernel::ioctl(int fd, unsigned long request, void* arg) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return -EBADF;
  Fd& f = *it->second;
  if (f.kind == Fd::kUvm) return uvm(f, request, arg);
  if (rm::ioctl_type(request) != 'F') return -ENOTTY;
  return frontend(f, request, arg);
}

// --- the RM frontend ------------------------------------------------------------------------

int SimNvKernel::frontend(Fd& f, unsigned long request, void* arg) {
  const uint32_t nr = rm::ioctl_nr(request);
  const uint32_t size = rm::ioctl_size(request);
  const std::string node = f.kind == Fd::kCtl ? "ctl" : "gpu" + std::to_string(f.minor);
  auto bad_size = [&](const char* what) {
    log(strformat("%s %s with %u bytes -> EINVAL", node.c_str(), what, size));
    return -EINVAL;
  };
  auto* bytes = static_cast<uint8_t*>(arg);
  switch (nr) {
    case nvio::NV_ESC_CARD_INFO: {
      if (size == 0 || size % sizeof(nvio::nv_ioctl_card_info) != 0) return bad_size("CARD_INFO");
      const uint32_t n = size / sizeof(nvio::nv_ioctl_card_info);
      std::memset(arg, 0, size);
      auto* cards = static_cast<nvio::nv_ioctl_card_info*>(arg);
      for (uint32_t g = 0; g < std::min(n, config_.gpus); ++g) {
        cards[g].valid = 1;
        cards[g].pci_info.domain = 0;
        cards[g].pci_info.bus = static_cast<uint8_t>(0x41 + g);
        cards[g].pci_info.vendor_id = 0x10de;
        cards[g].pci_info.device_id = facts(config_.arch).device_id;
        cards[g].gpu_id = 0x4100 + g * 0x100;
        cards[g].fb_size = config_.vram_bytes;
        cards[g].minor_number = g;
      }
      log(strformat("%s CARD_INFO %u slots -> %u GPU(s)", node.c_str(), n, config_.gpus));
      return 0;
    }
    case nvio::NV_ESC_REGISTER_FD: {
      if (size != sizeof(nvio::nv_ioctl_register_fd)) return bad_size("REGISTER_FD");
      const int ctl = static_cast<nvio::nv_ioctl_register_fd*>(arg)->ctl_fd;
      auto c = fds_.find(ctl);
      if (f.kind != Fd::kGpu || c == fds_.end() || c->second->kind != Fd::kCtl || f.registered) {
        log(node + " REGISTER_FD -> EINVAL");
        return -EINVAL;
      }
      f.registered = true;
      log(node + " REGISTER_FD");
      return 0;
    }
    case rm::NV_ESC_WAIT_OPEN_COMPLETE: {
      if (!layouts_->wait_open_complete) {
        log(node + " WAIT_OPEN_COMPLETE (absent before 550) -> EINVAL");
        return -EINVAL;
      }
      if (size != sizeof(rm::nv_ioctl_wait_open_complete)) return bad_size("WAIT_OPEN_COMPLETE");
      *static_cast<rm::nv_ioctl_wait_open_complete*>(arg) = {0, 0};
      log(node + " WAIT_OPEN_COMPLETE");
      return 0;
    }
    case rm::NV_ESC_RM_ALLOC: {
      if (size != sizeof(rm::NVOS21_PARAMETERS) && size != 48) return bad_size("RM_ALLOC");
      auto* p = static_cast<rm::NVOS21_PARAMETERS*>(arg);
      const uint32_t handle_in = p->hObjectNew;
      p->status = rm_alloc(p->hRoot, p->hObjectParent, p->hObjectNew, p->hClass, p->pAllocParms);
      log(strformat("%s RM_ALLOC %s under 0x%x%s -> %s", node.c_str(),
                    class_name(p->hClass).c_str(), p->hObjectParent,
                    handle_in != 0 ? strformat(" as 0x%x", handle_in).c_str() : "",
                    status_text(p->status).c_str()));
      return 0;
    }
    case rm::NV_ESC_RM_CONTROL: {
      if (size != sizeof(rm::NVOS54_PARAMETERS)) return bad_size("RM_CONTROL");
      auto* p = static_cast<rm::NVOS54_PARAMETERS*>(arg);
      p->status = rm_control(p->hClient, p->hObject, p->cmd, p->params, p->paramsSize);
      log(strformat("%s RM_CONTROL 0x%x (%u bytes) on 0x%x -> %s", node.c_str(), p->cmd,
                    p->paramsSize, p->hObject, status_text(p->status).c_str()));
      return 0;
    }
    case rm::NV_ESC_RM_FREE: {
      if (size != sizeof(rm::NVOS00_PARAMETERS)) return bad_size("RM_FREE");
      auto* p = static_cast<rm::NVOS00_PARAMETERS*>(arg);
      p->status = rm_free(p->hRoot, p->hObjectOld);
      log(strformat("%s RM_FREE 0x%x -> %s", node.c_str(), p->hObjectOld,
                    status_text(p->status).c_str()));
      return 0;
    }
    case rm::NV_ESC_RM_ALLOC_MEMORY: {
      if (size != sizeof(rm::nv_ioctl_nvos02_parameters_with_fd))
        return bad_size("RM_ALLOC_MEMORY");
      auto* p = static_cast<rm::nv_ioctl_nvos02_parameters_with_fd*>(arg);
      auto& a = p->params;
      uint32_t s = st::NV_OK;
      Object* dev = find(a.hRoot, a.hObjectParent);
      if (f.kind != Fd::kGpu || !f.registered) {
        s = st::NV_ERR_INVALID_ARGUMENT;
      } else if (a.hClass != rm::NV01_MEMORY_SYSTEM_OS_DESCRIPTOR) {
        s = st::NV_ERR_INVALID_CLASS;
      } else if (dev == nullptr || dev->cls != rm::NV01_DEVICE_0) {
        s = st::NV_ERR_INVALID_OBJECT_PARENT;
      } else if (a.hObjectNew == 0 || objects_.count(a.hObjectNew) != 0) {
        s = st::NV_ERR_INSERT_DUPLICATE_NAME;
      } else if (a.pMemory % kPage != 0 || (a.limit + 1) % kPage != 0 || a.limit == 0) {
        s = st::NV_ERR_INVALID_ARGUMENT;
      } else {
        auto o = std::make_unique<Object>();
        o->handle = a.hObjectNew;
        o->parent = a.hObjectParent;
        o->cls = a.hClass;
        o->client = a.hRoot;
        o->gpu = dev->gpu;
        o->size = a.limit + 1;
        o->host = reinterpret_cast<uint8_t*>(a.pMemory);
        objects_[o->handle] = std::move(o);
      }
      a.status = s;
      log(strformat("%s RM_ALLOC_MEMORY %s as 0x%x, %s -> %s", node.c_str(),
                    class_name(a.hClass).c_str(), a.hObjectNew, format_bytes(a.limit + 1).c_str(),
                    status_text(s).c_str()));
      return 0;
    }
    case rm::NV_ESC_RM_MAP_MEMORY: {
      if (size != sizeof(rm::nv_ioctl_nvos33_parameters_with_fd)) return bad_size("RM_MAP_MEMORY");
      auto* p = static_cast<rm::nv_ioctl_nvos33_parameters_with_fd*>(arg);
      auto& m = p->params;
      uint32_t s = st::NV_OK;
      Object* mem = find(m.hClient, m.hMemory);
      auto target = fds_.find(p->fd);
      if (target == fds_.end() || target->second->kind != Fd::kGpu || !target->second->registered) {
        s = st::NV_ERR_INVALID_ARGUMENT;
      } else if (mem == nullptr || !(mem->cls == rm::NV1_MEMORY_USER || is_usermode(mem->cls))) {
        s = st::NV_ERR_INVALID_OBJECT_HANDLE;
      } else if (m.offset != 0 || m.length == 0 ||
                 m.length > (is_usermode(mem->cls) ? kUsermodeBytes : mem->size)) {
        s = st::NV_ERR_INVALID_LIMIT;
      } else {
        target->second->pending_map = Fd::Pending{mem->handle, m.length};
        m.pLinearAddress = 0x1000;  // an opaque cookie: the mmap that follows places the memory
      }
      m.status = s;
      log(strformat("%s RM_MAP_MEMORY 0x%x %s -> %s", node.c_str(), m.hMemory,
                    format_bytes(m.length).c_str(), status_text(s).c_str()));
      return 0;
    }
    case rm::NV_ESC_RM_MAP_MEMORY_DMA: {
      // Size-checked by the frontend: a driver with the wrong branch's NVOS46 fails here.
      if (size != layouts_->nvos46_size) return bad_size("RM_MAP_MEMORY_DMA");
      const uint32_t client = load<uint32_t>(reinterpret_cast<uint64_t>(bytes), 0);
      const uint32_t hdma = load<uint32_t>(reinterpret_cast<uint64_t>(bytes), 8);
      const uint32_t hmem = load<uint32_t>(reinterpret_cast<uint64_t>(bytes), 12);
      const uint64_t offset = load<uint64_t>(reinterpret_cast<uint64_t>(bytes), 16);
      const uint64_t length = load<uint64_t>(reinterpret_cast<uint64_t>(bytes), 24);
      const uint32_t flags = load<uint32_t>(reinterpret_cast<uint64_t>(bytes), 32);
      const uint64_t va =
          load<uint64_t>(reinterpret_cast<uint64_t>(bytes), layouts_->nvos46_dma_offset);
      uint32_t s = st::NV_OK;
      Object* dma = find(client, hdma);
      Object* mem = find(client, hmem);
      if (dma == nullptr || dma->cls != rm::NV01_MEMORY_VIRTUAL) {
        s = st::NV_ERR_INVALID_OBJECT_HANDLE;
      } else if (mem == nullptr || !is_memory(mem->cls)) {
        s = st::NV_ERR_INVALID_OBJECT_HANDLE;
      } else if ((flags & rm::NVOS46_FLAGS_DMA_OFFSET_FIXED) == 0) {
        s = st::NV_ERR_NOT_SUPPORTED;  // this simulator places only where it is told
      } else if (va % kPage != 0 || offset != 0 || length == 0 || length > mem->size) {
        s = st::NV_ERR_INVALID_ARGUMENT;
      } else {
        for (const auto& d : dma->dma) {
          if (va < d.va + d.length && d.va < va + length) s = st::NV_ERR_INVALID_ARGUMENT;
        }
        if (s == st::NV_OK) dma->dma.push_back({va, length, hmem});
      }
      store<uint32_t>(bytes, layouts_->nvos46_status, s);
      // The address stays out of the trace: the driver's VA windows move where the process
      // already maps the preferred ones (sanitizer shadow memory).
      log(strformat("%s RM_MAP_MEMORY_DMA 0x%x, %s (%u-byte NVOS46) -> %s", node.c_str(), hmem,
                    format_bytes(length).c_str(), size, status_text(s).c_str()));
      return 0;
    }
    case rm::NV_ESC_RM_UNMAP_MEMORY_DMA:
      if (size != layouts_->nvos47_size) return bad_size("RM_UNMAP_MEMORY_DMA");
      store<uint32_t>(bytes, layouts_->nvos47_status, st::NV_OK);
      return 0;
    default: log(strformat("%s escape %u -> EINVAL", node.c_str(), nr)); return -EINVAL;
  }
}

SimNvKernel::Object* SimNvKernel::find(uint32_t client, uint32_t handle) {
  auto it = objects_.find(handle);
  if (it == objects_.end() || it->second->client != client) return nullptr;
  return it->second.get();
}

std::vector<uint32_t> SimNvKernel::class_list() const {
  std::vector<uint32_t> l = {rm::NV01_ROOT_CLIENT,
                             rm::NV01_DEVICE_0,
                             rm::NV20_SUBDEVICE_0,
                             rm::NV01_MEMORY_SYSTEM,
                             rm::NV1_MEMORY_USER,
                             rm::NV01_MEMORY_VIRTUAL,
                             rm::NV01_MEMORY_SYSTEM_OS_DESCRIPTOR,
                             rm::FERMI_CONTEXT_SHARE_A,
                             rm::FERMI_VASPACE_A,
                             rm::KEPLER_CHANNEL_GROUP_A};
  for (uint32_t c : facts(config_.arch).engine_classes) l.push_back(c);
  return l;
}

uint32_t SimNvKernel::alloc_size(uint32_t cls) const {
  switch (cls) {
    case rm::NV01_DEVICE_0: return sizeof(rm::NV0080_ALLOC_PARAMETERS);
    case rm::NV20_SUBDEVICE_0: return sizeof(rm::NV2080_ALLOC_PARAMETERS);
    case rm::NV01_MEMORY_VIRTUAL: return sizeof(rm::NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS);
    case rm::NV1_MEMORY_USER:
    case rm::NV01_MEMORY_SYSTEM: return layouts_->memory_alloc_size;
    case rm::FERMI_VASPACE_A: return layouts_->vaspace_size;
    case rm::KEPLER_CHANNEL_GROUP_A: return sizeof(rm::NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS);
    case rm::FERMI_CONTEXT_SHARE_A: return sizeof(rm::NV_CTXSHARE_ALLOCATION_PARAMETERS);
    default: break;
  }
  if (is_gpfifo(cls)) return layouts_->channel_alloc_size;
  if (is_copy(cls)) return sizeof(rm::NVB0B5_ALLOCATION_PARAMETERS);
  return 0;  // root, usermode, compute: no parameters
}

int SimNvKernel::device_gpu(const Object& o) const { return o.gpu; }

uint32_t SimNvKernel::rm_alloc(uint32_t client, uint32_t parent, uint32_t& handle, uint32_t cls,
                               uint64_t params) {
  if (cls == rm::NV01_ROOT_CLIENT) {
    if (parent != 0) return st::NV_ERR_INVALID_OBJECT_PARENT;
    auto o = std::make_unique<Object>();
    o->handle = handle != 0 ? handle : ++next_handle_;
    if (objects_.count(o->handle) != 0) return st::NV_ERR_INSERT_DUPLICATE_NAME;
    o->cls = cls;
    o->client = o->handle;
    handle = o->handle;
    objects_[o->handle] = std::move(o);
    return st::NV_OK;
  }
  Object* par = find(client, parent);
  if (par == nullptr) return st::NV_ERR_INVALID_OBJECT_PARENT;
  const auto list = class_list();
  if (std::find(list.begin(), list.end(), cls) == list.end()) return st::NV_ERR_INVALID_CLASS;
  // Parent rules.
  const uint32_t pc = par->cls;
  bool parent_ok = false;
  if (cls == rm::NV01_DEVICE_0)
    parent_ok = pc == rm::NV01_ROOT_CLIENT;
  else if (cls == rm::NV20_SUBDEVICE_0 || cls == rm::NV01_MEMORY_VIRTUAL ||
           cls == rm::NV1_MEMORY_USER || cls == rm::NV01_MEMORY_SYSTEM ||
           cls == rm::FERMI_VASPACE_A || cls == rm::KEPLER_CHANNEL_GROUP_A)
    parent_ok = pc == rm::NV01_DEVICE_0;
  else if (is_usermode(cls))
    parent_ok = pc == rm::NV20_SUBDEVICE_0;
  else if (cls == rm::FERMI_CONTEXT_SHARE_A || is_gpfifo(cls))
    parent_ok = pc == rm::KEPLER_CHANNEL_GROUP_A;
  else if (is_compute(cls) || is_copy(cls))
    parent_ok = is_gpfifo(pc);
  if (!parent_ok) return st::NV_ERR_INVALID_OBJECT_PARENT;

  // RM copies in its own size for the class, whatever paramsSize said.
  const uint32_t n = alloc_size(cls);
  std::vector<uint8_t> p(n, 0);
  if (n > 0) {
    if (params == 0) return st::NV_ERR_INVALID_ARGUMENT;
    std::memcpy(p.data(), reinterpret_cast<const void*>(params), n);
  }
  auto o = std::make_unique<Object>();
  o->handle = handle != 0 ? handle : ++next_handle_;
  if (objects_.count(o->handle) != 0) return st::NV_ERR_INSERT_DUPLICATE_NAME;
  o->parent = parent;
  o->cls = cls;
  o->client = client;
  o->gpu = par->gpu;

  if (cls == rm::NV01_DEVICE_0) {
    const auto dev_id = load<uint32_t>(p, offsetof(rm::NV0080_ALLOC_PARAMETERS, deviceId));
    if (dev_id >= config_.gpus) return st::NV_ERR_INVALID_ARGUMENT;
    // The GPU must have been opened and registered (RM attaches a GPU on open).
    const bool attached = std::any_of(fds_.begin(), fds_.end(), [&](const auto& f) {
      return f.second->kind == Fd::kGpu && f.second->minor == dev_id && f.second->registered;
    });
    if (!attached) return st::NV_ERR_INVALID_DEVICE;
    for (const auto& [h, other] : objects_) {
      if (other->client == client && other->cls == rm::NV01_DEVICE_0 &&
          other->gpu == static_cast<int>(dev_id))
        return st::NV_ERR_STATE_IN_USE;
    }
    o->gpu = static_cast<int>(dev_id);
  } else if (cls == rm::NV1_MEMORY_USER || cls == rm::NV01_MEMORY_SYSTEM) {
    const auto flags = load<uint32_t>(p, offsetof(rm::NV_MEMORY_ALLOCATION_PARAMS, flags));
    const auto size = load<uint64_t>(p, offsetof(rm::NV_MEMORY_ALLOCATION_PARAMS, size));
    const auto limit = load<uint64_t>(p, offsetof(rm::NV_MEMORY_ALLOCATION_PARAMS, limit));
    const auto align = load<uint64_t>(p, offsetof(rm::NV_MEMORY_ALLOCATION_PARAMS, alignment));
    if ((flags & rm::NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED) != 0 && handle == 0)
      return st::NV_ERR_INVALID_ARGUMENT;
    if (size == 0 || size % kPage != 0 || limit != size - 1 ||
        (align != 0 && (align & (align - 1)) != 0))
      return st::NV_ERR_INVALID_ARGUMENT;
    if (vram_used_[o->gpu] + size > config_.vram_bytes) return st::NV_ERR_NO_MEMORY;
    const int fd = memfd_create("rawgpu-sim-nv-vram", MFD_CLOEXEC);
    if (fd < 0) return st::NV_ERR_NO_MEMORY;
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
      ::close(fd);
      return st::NV_ERR_NO_MEMORY;
    }
    void* view = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (view == MAP_FAILED) {
      ::close(fd);
      return st::NV_ERR_NO_MEMORY;
    }
    o->memfd = fd;
    o->view = static_cast<uint8_t*>(view);
    o->size = size;
    vram_used_[o->gpu] += size;
  } else if (cls == rm::FERMI_VASPACE_A) {
    const auto flags = load<uint32_t>(p, offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, flags));
    const auto base = load<uint64_t>(p, offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, vaBase));
    if ((flags & rm::NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED) == 0 || base % kPage != 0)
      return st::NV_ERR_INVALID_ARGUMENT;
  } else if (cls == rm::KEPLER_CHANNEL_GROUP_A) {
    const auto engine =
        load<uint32_t>(p, offsetof(rm::NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, engineType));
    if (engine != rm::NV2080_ENGINE_TYPE_GRAPHICS) return st::NV_ERR_INVALID_ARGUMENT;
  } else if (cls == rm::FERMI_CONTEXT_SHARE_A) {
    const auto vas = load<uint32_t>(p, offsetof(rm::NV_CTXSHARE_ALLOCATION_PARAMETERS, hVASpace));
    Object* v = find(client, vas);
    if (v == nullptr || v->cls != rm::FERMI_VASPACE_A || v->gpu != o->gpu)
      return st::NV_ERR_INVALID_OBJECT_HANDLE;
  } else if (is_gpfifo(cls)) {
    const auto err = load<uint32_t>(p, rm::kChannelAllocHObjectError);
    const auto buf = load<uint32_t>(p, rm::kChannelAllocHObjectBuffer);
    const auto ring = load<uint64_t>(p, rm::kChannelAllocGpFifoOffset);
    const auto entries = load<uint32_t>(p, rm::kChannelAllocGpFifoEntries);
    const auto ctx = load<uint32_t>(p, rm::kChannelAllocHContextShare);
    const auto userd_mem = load<uint32_t>(p, rm::kChannelAllocHUserdMemory);
    const auto userd_off = load<uint64_t>(p, rm::kChannelAllocUserdOffset);
    Object* e = find(client, err);
    Object* b = find(client, buf);
    Object* c = find(client, ctx);
    Object* u = find(client, userd_mem);
    if (e == nullptr || !is_memory(e->cls) || b == nullptr || !is_memory(b->cls) || u == nullptr ||
        !is_memory(u->cls))
      return st::NV_ERR_INVALID_OBJECT_HANDLE;
    if (c == nullptr || c->cls != rm::FERMI_CONTEXT_SHARE_A || c->parent != parent)
      return st::NV_ERR_INVALID_OBJECT_HANDLE;
    if (entries == 0 || (entries & (entries - 1)) != 0 || userd_off + 0x200 > u->size)
      return st::NV_ERR_INVALID_ARGUMENT;
    // The ring must sit where the buffer is mapped for the GPU.
    bool mapped = false;
    uint64_t userd_va = 0;
    for (const auto& [h, vm] : objects_) {
      if (vm->cls != rm::NV01_MEMORY_VIRTUAL || vm->client != client) continue;
      for (const auto& d : vm->dma) {
        if (d.memory == buf && ring >= d.va && ring + uint64_t{entries} * 8 <= d.va + d.length)
          mapped = true;
        if (d.memory == userd_mem) userd_va = d.va + userd_off;
      }
    }
    if (!mapped) return st::NV_ERR_INVALID_ADDRESS;
    o->error_notifier = err;
    o->chid = next_chid_++;
    o->token = (kGrRunlist << 16) | o->chid;
    o->entries = entries;
    o->ring_va = ring;
    o->userd_va = userd_va;
  } else if (is_compute(cls) || is_copy(cls)) {
    for (const auto& [h, other] : objects_) {
      if (other->parent == parent && (is_compute(other->cls) || is_copy(other->cls)))
        return st::NV_ERR_STATE_IN_USE;  // one engine object per channel
    }
    if (is_copy(cls) && load<uint32_t>(p, 0) != 1) return st::NV_ERR_INVALID_ARGUMENT;
    par->engine_cls = cls;
  }
  handle = o->handle;
  // RM copies the (possibly updated) parameters back out, with its own size.
  if (n > 0) std::memcpy(reinterpret_cast<void*>(params), p.data(), n);
  objects_[o->handle] = std::move(o);
  return st::NV_OK;
}

uint32_t SimNvKernel::rm_control(uint32_t client, uint32_t object, uint32_t cmd, uint64_t params,
                                 uint32_t size) {
  Object* o = find(client, object);
  if (o == nullptr) return st::NV_ERR_INVALID_OBJECT_HANDLE;
  const uint32_t want_cls = cmd >> 16;
  const bool cls_ok = want_cls == 0        ? o->cls == rm::NV01_ROOT_CLIENT
                      : want_cls == 0xc36f ? is_gpfifo(o->cls)
                                           : o->cls == want_cls;
  if (!cls_ok) return st::NV_ERR_INVALID_OBJECT_HANDLE;
  auto* p = reinterpret_cast<uint8_t*>(params);
  auto exact = [&](uint32_t n) { return size == n && p != nullptr; };
  const ArchFacts& af = facts(config_.arch);
  switch (cmd) {
    case rm::NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2: {
      if (!exact(layouts_->build_version_size)) return st::NV_ERR_INVALID_PARAM_STRUCT;
      std::memset(p, 0, size);
      const size_t n = std::min<size_t>(config_.version.size(), rm::kBuildVersionStringLength - 1);
      std::memcpy(p, config_.version.data(), n);
      std::memcpy(p + rm::kBuildVersionStringLength, config_.version.data(), n);
      return st::NV_OK;
    }
    case rm::NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2: {
      if (!exact(sizeof(rm::NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS)))
        return st::NV_ERR_INVALID_PARAM_STRUCT;
      auto* q = reinterpret_cast<rm::NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS*>(p);
      if (q->gpuId < 0x4100 || (q->gpuId - 0x4100) % 0x100 != 0 ||
          (q->gpuId - 0x4100) / 0x100 >= config_.gpus)
        return st::NV_ERR_INVALID_ARGUMENT;
      q->deviceInstance = (q->gpuId - 0x4100) / 0x100;
      q->subDeviceInstance = 0;
      q->numaId = -1;
      return st::NV_OK;
    }
    case rm::NV0080_CTRL_CMD_GPU_GET_CLASSLIST: {
      if (!exact(sizeof(rm::NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS)))
        return st::NV_ERR_INVALID_PARAM_STRUCT;
      auto* q = reinterpret_cast<rm::NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS*>(p);
      const auto list = class_list();
      if (q->classList != 0) {
        if (q->numClasses < list.size()) return st::NV_ERR_INVALID_ARGUMENT;
        std::memcpy(reinterpret_cast<void*>(q->classList), list.data(), list.size() * 4);
      }
      q->numClasses = static_cast<uint32_t>(list.size());
      return st::NV_OK;
    }
    case rm::NV2080_CTRL_CMD_GR_GET_INFO: {
      if (!exact(sizeof(rm::NV2080_CTRL_GR_GET_INFO_PARAMS)))
        return st::NV_ERR_INVALID_PARAM_STRUCT;
      auto* q = reinterpret_cast<rm::NV2080_CTRL_GR_GET_INFO_PARAMS*>(p);
      if (q->grInfoListSize == 0 || q->grInfoListSize > kMaxGrInfo || q->grInfoList == 0)
        return st::NV_ERR_INVALID_ARGUMENT;
      auto* info = reinterpret_cast<rm::NV2080_CTRL_GR_INFO*>(q->grInfoList);
      for (uint32_t i = 0; i < q->grInfoListSize; ++i) {
        switch (info[i].index) {
          case rm::NV2080_CTRL_GR_INFO_INDEX_SM_VERSION: info[i].data = af.sm_version; break;
          case rm::NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM: info[i].data = af.max_warps; break;
          case rm::NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS: info[i].data = af.gpcs; break;
          case rm::NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC:
            info[i].data = af.tpc_per_gpc;
            break;
          case rm::NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC:
            info[i].data = af.sm_per_tpc;
            break;
          default: return st::NV_ERR_INVALID_ARGUMENT;
        }
      }
      return st::NV_OK;
    }
    case rm::NV2080_CTRL_CMD_GPU_GET_GID_INFO: {
      if (!exact(sizeof(rm::NV2080_CTRL_GPU_GET_GID_INFO_PARAMS)))
        return st::NV_ERR_INVALID_PARAM_STRUCT;
      auto* q = reinterpret_cast<rm::NV2080_CTRL_GPU_GET_GID_INFO_PARAMS*>(p);
      if ((q->flags & rm::NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY) == 0)
        return st::NV_ERR_NOT_SUPPORTED;  // only the binary form is simulated
      q->length = 16;
      for (int i = 0; i < 16; ++i) q->data[i] = static_cast<uint8_t>(0x50 + 7 * i + o->gpu);
      return st::NV_OK;
    }
    case rm::NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN: {
      if (!exact(sizeof(rm::NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS)))
        return st::NV_ERR_INVALID_PARAM_STRUCT;
      store<uint32_t>(p, 0, o->token);
      return st::NV_OK;
    }
    case rm::NVA06C_CTRL_CMD_GPFIFO_SCHEDULE: {
      if (!exact(layouts_->schedule_size)) return st::NV_ERR_INVALID_PARAM_STRUCT;
      const bool has_channel = std::any_of(objects_.begin(), objects_.end(), [&](const auto& c) {
        return c.second->parent == object && is_gpfifo(c.second->cls);
      });
      if (!has_channel) return st::NV_ERR_INVALID_STATE;
      o->scheduled = p[0] != 0;
      return st::NV_OK;
    }
    default: return st::NV_ERR_NOT_SUPPORTED;
  }
}

uint32_t SimNvKernel::rm_free(uint32_t client, uint32_t object) {
  Object* o = find(client, object);
  if (o == nullptr) return st::NV_ERR_INVALID_OBJECT_HANDLE;
  free_tree(object);
  return st::NV_OK;
}

void SimNvKernel::free_tree(uint32_t handle) {
  std::vector<uint32_t> kids;
  for (const auto& [h, o] : objects_) {
    if (o->parent == handle && h != handle) kids.push_back(h);
  }
  for (uint32_t k : kids) free_tree(k);
  auto it = objects_.find(handle);
  if (it == objects_.end()) return;
  Object& o = *it->second;
  // Freeing memory drops its GPU mappings (DMA records and UVM mappings).
  for (auto& [h, vm] : objects_) {
    std::erase_if(vm->dma, [&](const Object::Dma& d) { return d.memory == handle; });
  }
  for (Range& r : ranges_) {
    if (r.memory == handle) r.memory = 0;
  }
  if (o.view != nullptr) {
    ::munmap(o.view, o.size);
    vram_used_[o.gpu] -= o.size;
  }
  if (o.memfd >= 0) ::close(o.memfd);
  objects_.erase(it);
}

// --- UVM ---------------------------------------------------------------------------------------

int SimNvKernel::uvm(Fd& f, unsigned long request, void* arg) {
  auto done = [&](const char* what, uint32_t* status, uint32_t s) {
    *status = s;
    log(strformat("uvm %s -> %s", what, status_text(s).c_str()));
    return 0;
  };
  auto gpu_of = [&](const uint8_t* uuid) -> int {
    for (uint32_t g = 0; g < config_.gpus; ++g) {
      bool same = true;
      for (int i = 0; i < 16; ++i) same = same && uuid[i] == static_cast<uint8_t>(0x50 + 7 * i + g);
      if (same) return static_cast<int>(g);
    }
    return -1;
  };
  auto overlaps = [&](uint64_t base, uint64_t len) {
    return std::any_of(ranges_.begin(), ranges_.end(), [&](const Range& r) {
      return base < r.base + r.length && r.base < base + len;
    });
  };
  auto* b = static_cast<uint8_t*>(arg);
  switch (request) {
    case uvm::UVM_INITIALIZE: {
      auto* status = reinterpret_cast<uint32_t*>(b + 8);
      if (f.uvm_initialized) return done("INITIALIZE", status, st::NV_ERR_INVALID_STATE);
      f.uvm_initialized = true;
      return done("INITIALIZE", status, st::NV_OK);
    }
    case uvm::UVM_MM_INITIALIZE: {
      auto* q = static_cast<uvm::UVM_MM_INITIALIZE_PARAMS*>(arg);
      auto it = fds_.find(q->uvmFd);
      const bool ok =
          it != fds_.end() && it->second->kind == Fd::kUvm && it->second->uvm_initialized;
      return done("MM_INITIALIZE", &q->rmStatus, ok ? st::NV_OK : st::NV_ERR_INVALID_ARGUMENT);
    }
    default: break;
  }
  if (!f.uvm_initialized) {
    log("uvm call before UVM_INITIALIZE -> EINVAL");
    return -EINVAL;
  }
  switch (request) {
    case uvm::UVM_REGISTER_GPU: {
      auto* q = static_cast<uvm::UVM_REGISTER_GPU_PARAMS*>(arg);
      const int g = gpu_of(q->gpu_uuid.uuid);
      if (g < 0) return done("REGISTER_GPU", &q->rmStatus, st::NV_ERR_GPU_UUID_NOT_FOUND);
      if (uvm_gpu_registered_[g]) return done("REGISTER_GPU", &q->rmStatus, st::NV_ERR_IN_USE);
      uvm_gpu_registered_[g] = true;
      return done("REGISTER_GPU", &q->rmStatus, st::NV_OK);
    }
    case uvm::UVM_REGISTER_GPU_VASPACE: {
      auto* q = static_cast<uvm::UVM_REGISTER_GPU_VASPACE_PARAMS*>(arg);
      const int g = gpu_of(q->gpuUuid.uuid);
      Object* v = find(q->hClient, q->hVaSpace);
      uint32_t s = st::NV_OK;
      if (g < 0 || !uvm_gpu_registered_[g])
        s = st::NV_ERR_INVALID_DEVICE;
      else if (v == nullptr || v->cls != rm::FERMI_VASPACE_A || v->gpu != g)
        s = st::NV_ERR_INVALID_OBJECT_HANDLE;
      return done("REGISTER_GPU_VASPACE", &q->rmStatus, s);
    }
    case uvm::UVM_REGISTER_CHANNEL: {
      auto* q = static_cast<uvm::UVM_REGISTER_CHANNEL_PARAMS*>(arg);
      Object* c = find(q->hClient, q->hChannel);
      uint32_t s = st::NV_OK;
      if (c == nullptr || !is_gpfifo(c->cls))
        s = st::NV_ERR_INVALID_CHANNEL;
      else if (q->base % kPage != 0 || q->length % kPage != 0 || q->length == 0)
        s = st::NV_ERR_INVALID_ADDRESS;
      else if (overlaps(q->base, q->length))
        s = st::NV_ERR_UVM_ADDRESS_IN_USE;
      else
        ranges_.push_back({q->base, q->length, true, 0, 0});
      return done("REGISTER_CHANNEL", &q->rmStatus, s);
    }
    case uvm::UVM_CREATE_EXTERNAL_RANGE: {
      auto* q = static_cast<uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS*>(arg);
      uint32_t s = st::NV_OK;
      if (q->base % kPage != 0 || q->length % kPage != 0 || q->length == 0)
        s = st::NV_ERR_INVALID_ADDRESS;
      else if (overlaps(q->base, q->length))
        s = st::NV_ERR_UVM_ADDRESS_IN_USE;
      else
        ranges_.push_back({q->base, q->length, false, 0, 0});
      return done("CREATE_EXTERNAL_RANGE", &q->rmStatus, s);
    }
    case uvm::UVM_MAP_EXTERNAL_ALLOCATION: {
      // No size travels with UVM calls: the module reads its own struct size.
      const uint32_t size = layouts_->uvm_map_external_size;
      const uint32_t tail = size - rm::kUvmMapExternalCountFromEnd;
      const auto base = load<uint64_t>(reinterpret_cast<uint64_t>(b), 0);
      const auto length = load<uint64_t>(reinterpret_cast<uint64_t>(b), 8);
      const auto offset = load<uint64_t>(reinterpret_cast<uint64_t>(b), 16);
      const auto count = load<uint64_t>(reinterpret_cast<uint64_t>(b), tail);
      const auto client = load<uint32_t>(reinterpret_cast<uint64_t>(b), tail + 12);
      const auto hmem = load<uint32_t>(reinterpret_cast<uint64_t>(b), tail + 16);
      auto* status = reinterpret_cast<uint32_t*>(b + tail + 20);
      Object* m = find(client, hmem);
      uint32_t s = st::NV_OK;
      Range* range = nullptr;
      for (Range& r : ranges_) {
        if (!r.channel && base >= r.base && base + length <= r.base + r.length) range = &r;
      }
      if (count == 0 || count > layouts_->uvm_map_external_slots)
        s = st::NV_ERR_INVALID_ARGUMENT;
      else if (m == nullptr || !is_memory(m->cls))
        s = st::NV_ERR_INVALID_OBJECT_HANDLE;
      else if (range == nullptr || range->base != base)
        s = st::NV_ERR_INVALID_ADDRESS;
      else if (offset + length > m->size || length == 0)
        s = st::NV_ERR_INVALID_LIMIT;
      else {
        for (uint64_t i = 0; i < count && s == st::NV_OK; ++i) {
          const int g =
              gpu_of(b + rm::kUvmMapExternalAttrsOffset + i * rm::kUvmGpuMappingAttributesSize);
          if (g < 0 || !uvm_gpu_registered_[g]) s = st::NV_ERR_INVALID_DEVICE;
        }
      }
      if (s == st::NV_OK) {
        range->memory = hmem;
        range->memory_offset = offset;
      }
      return done("MAP_EXTERNAL_ALLOCATION", status, s);
    }
    case uvm::UVM_FREE: {
      auto* q = static_cast<uvm::UVM_FREE_PARAMS*>(arg);
      auto it = std::find_if(ranges_.begin(), ranges_.end(),
                             [&](const Range& r) { return r.base == q->base && !r.channel; });
      if (it == ranges_.end()) return done("FREE", &q->rmStatus, st::NV_ERR_INVALID_ADDRESS);
      ranges_.erase(it);
      return done("FREE", &q->rmStatus, st::NV_OK);
    }
    default: log(strformat("uvm ioctl 0x%lx -> EINVAL", request)); return -EINVAL;
  }
}

}  // namespace rawgpu::sim
