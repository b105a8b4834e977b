#include "rawgpu/drivers/nv/rm_gpu.h"

#include <sys/mman.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "rawgpu/autogen/nv/uvm_ioctl.h"
#include "rawgpu/autogen/nv/uvm_ioctl_numbers.h"
#include "rawgpu/base/barrier.h"
#include "rawgpu/base/format.h"

namespace rawgpu::nv {

namespace rm = autogen::nv::rm;
namespace uvm = autogen::nv::uvm;

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kHugePage = 2ull << 20;
constexpr uint64_t kHugeFrom = 8ull << 20;  // allocations this large use 2 MiB pages
constexpr uint32_t kUsermodeBytes = 0x10000;
constexpr uint32_t kDoorbellOffset = 0x90;
constexpr uint64_t kGpfifoAreaBytes = 3ull << 20;
constexpr uint32_t kGpfifoEntries = 0x10000;
constexpr uint32_t kComputeRingOffset = 0;
constexpr uint32_t kCopyRingOffset = 0x100000;
constexpr uint64_t kUvmChannelRange = 64ull << 20;
constexpr uint64_t kNotifierBytes = 0x1000;

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The process's VA windows, shared by every RmGpu in it: CPU VA == GPU VA then holds across
// GPUs as well, and a second GPU needs no windows of its own. The first RmGpu reserves them, the
// last one releases them.
struct ProcessWindows {
  std::mutex mu;
  int users = 0;
  VaWindow low, high;
  std::optional<memory::Tlsf> low_t, high_t;
};
ProcessWindows& process_windows() {
  static ProcessWindows* w = new ProcessWindows();  // never destroyed (static-order safety)
  return *w;
}

void put32(std::vector<uint8_t>& b, uint32_t off, uint32_t v) { std::memcpy(&b[off], &v, 4); }
void put64(std::vector<uint8_t>& b, uint32_t off, uint64_t v) { std::memcpy(&b[off], &v, 8); }
uint32_t get32(const std::vector<uint8_t>& b, uint32_t off) {
  uint32_t v;
  std::memcpy(&v, &b[off], 4);
  return v;
}
uint64_t get64(const std::vector<uint8_t>& b, uint32_t off) {
  uint64_t v;
  std::memcpy(&v, &b[off], 8);
  return v;
}

// Newest first in every role.
constexpr uint32_t kGpfifoClasses[] = {rm::HOPPER_CHANNEL_GPFIFO_A, rm::AMPERE_CHANNEL_GPFIFO_A};
constexpr uint32_t kComputeClasses[] = {rm::HOPPER_COMPUTE_A, rm::ADA_COMPUTE_A,
                                        rm::AMPERE_COMPUTE_B, rm::AMPERE_COMPUTE_A};
constexpr uint32_t kCopyClasses[] = {rm::HOPPER_DMA_COPY_A, rm::AMPERE_DMA_COPY_B,
                                     rm::AMPERE_DMA_COPY_A};
constexpr uint32_t kUsermodeClasses[] = {rm::HOPPER_USERMODE_A, rm::AMPERE_USERMODE_A,
                                         rm::TURING_USERMODE_A};

template <size_t N>
uint32_t pick(std::span<const uint32_t> list, const uint32_t (&known)[N]) {
  for (uint32_t k : known) {
    for (uint32_t c : list) {
      if (c == k) return k;
    }
  }
  return 0;
}

}  // namespace

Result<NvClasses> select_classes(std::span<const uint32_t> list) {
  NvClasses c;
  c.gpfifo = pick(list, kGpfifoClasses);
  c.compute = pick(list, kComputeClasses);
  c.copy = pick(list, kCopyClasses);
  c.usermode = pick(list, kUsermodeClasses);
  const char* missing = c.gpfifo == 0     ? "GPFIFO channel (c86f, c56f)"
                        : c.compute == 0  ? "compute (cbc0, c9c0, c7c0, c6c0)"
                        : c.copy == 0     ? "copy (c8b5, c7b5, c6b5)"
                        : c.usermode == 0 ? "usermode (c661, c561, c461)"
                                          : nullptr;
  if (missing != nullptr) {
    return make_error(Errc::kUnsupported,
                      "the GPU's class list (%zu classes) has no %s class rawgpu knows: it "
                      "supports Ampere, Ada and Hopper",
                      list.size(), missing);
  }
  return c;
}

Result<SmVersion> sm_version_from_gr(uint32_t raw) {
  struct Known {
    uint32_t raw;
    const char* target;
  };
  static constexpr Known kKnown[] = {
      {0x800, "sm_80"}, {0x806, "sm_86"}, {0x807, "sm_87"}, {0x809, "sm_89"}, {0x900, "sm_90"}};
  for (const Known& k : kKnown) {
    if (k.raw == raw) {
      return SmVersion{raw, k.target, static_cast<uint8_t>(((raw & 0xf00) >> 4) | (raw & 0xf))};
    }
  }
  return make_error(Errc::kUnsupported,
                    "SM version 0x%x (GR info) is not an architecture rawgpu supports (sm_80, "
                    "sm_86, sm_87, sm_89, sm_90)",
                    raw);
}

Result<std::unique_ptr<RmGpu>> RmGpu::open(Rm& rm, uint32_t index) {
  std::unique_ptr<RmGpu> g(new RmGpu(rm));
  RG_TRY_CTX(g->bring_up(index), "bringing up NVIDIA GPU %u through the kernel driver (%s)", index,
             rm.version().text.c_str());
  return g;
}

Status RmGpu::bring_up(uint32_t index) {
  const auto cards = RG_TRY(rm_.cards());
  if (index >= cards.size()) {
    return make_error(Errc::kNotFound, "the driver reports %zu GPU(s); there is no GPU %u",
                      cards.size(), index);
  }
  const auto& card = cards[index];
  minor_ = card.minor_number;
  pci_device_id_ = card.pci_info.device_id;
  gpu_fd_ = RG_TRY(rm_.open_gpu_fd(minor_));

  rm::NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS id{};
  id.gpuId = card.gpu_id;
  RG_TRY(rm_.control(rm_.root(), rm::NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id, sizeof(id)));

  rm::NV0080_ALLOC_PARAMETERS dev{};
  dev.deviceId = id.deviceInstance;
  dev.hClientShare = rm_.root();
  dev.vaMode = rm::NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES;
  device_ = RG_TRY_CTX(rm_.alloc_with(rm_.root(), rm::NV01_DEVICE_0, dev), "device object");
  rm::NV2080_ALLOC_PARAMETERS sub{};
  subdevice_ = RG_TRY_CTX(rm_.alloc_with(device_, rm::NV20_SUBDEVICE_0, sub), "subdevice object");
  rm::NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS vm{};
  vm.limit = 0x1ffffffffffffull;
  virtmem_ = RG_TRY_CTX(rm_.alloc_with(device_, rm::NV01_MEMORY_VIRTUAL, vm), "virtual memory");

  // The class list: the count, then the list.
  rm::NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS cl{};
  RG_TRY(rm_.control(device_, rm::NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &cl, sizeof(cl)));
  if (cl.numClasses == 0 || cl.numClasses > 4096) {
    return make_error(Errc::kHardware, "the driver reports %u classes", cl.numClasses);
  }
  class_list_.assign(cl.numClasses, 0);
  cl.classList = reinterpret_cast<uintptr_t>(class_list_.data());
  RG_TRY(rm_.control(device_, rm::NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &cl, sizeof(cl)));
  class_list_.resize(std::min<size_t>(class_list_.size(), cl.numClasses));
  classes_ = RG_TRY(select_classes(class_list_));

  // Usermode page (doorbell), mapped anywhere: it is MMIO, not memory rawgpu hands out.
  usermode_obj_ = RG_TRY_CTX(rm_.alloc(subdevice_, classes_.usermode), "usermode object");
  {
    const int fd = RG_TRY(rm_.open_gpu_fd(minor_));
    rm::nv_ioctl_nvos33_parameters_with_fd p{};
    p.params.hClient = rm_.root();
    p.params.hDevice = device_;
    p.params.hMemory = usermode_obj_;
    p.params.length = kUsermodeBytes;
    p.params.flags = 2u << rm::NVOS33_FLAGS_CACHING_TYPE_SHIFT;
    p.fd = fd;
    Status s = rm_.frontend(rm_.ctl_fd(), rm::NV_ESC_RM_MAP_MEMORY, &p, sizeof(p),
                            "NV_ESC_RM_MAP_MEMORY (usermode)");
    if (s.ok() && p.params.status != 0) s = rm_error(p.params.status, "mapping the usermode page");
    if (s.ok()) {
      int err = 0;
      void* va = rm_.kernel().mmap(nullptr, kUsermodeBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                                   0, err);
      if (va == nullptr) {
        s = make_error(Errc::kIo, "mmap of the usermode page: %s", std::strerror(err));
      } else {
        usermode_cpu_ = static_cast<volatile uint32_t*>(va);
      }
    }
    rm_.kernel().close(fd);
    RG_TRY(std::move(s));
  }

  std::vector<uint8_t> vas(rm_.layouts().vaspace_size, 0);
  put32(vas, offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, flags),
        rm::NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING |
            rm::NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED);
  put64(vas, offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, vaBase), 0x1000);
  put64(vas, offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, vaSize), 0x1fffffb000000ull);
  vaspace_ = RG_TRY_CTX(rm_.alloc(device_, rm::FERMI_VASPACE_A, vas), "VA space");

  rm::NV2080_CTRL_GPU_GET_GID_INFO_PARAMS gid{};
  gid.flags = rm::NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY;
  gid.length = 16;
  RG_TRY(rm_.control(subdevice_, rm::NV2080_CTRL_CMD_GPU_GET_GID_INFO, &gid, sizeof(gid)));
  if (gid.length != 16) {
    return make_error(Errc::kHardware, "GPU UUID is %u bytes (16 expected)", gid.length);
  }
  std::memcpy(uuid_.data(), gid.data, 16);

  uvm::UVM_REGISTER_GPU_PARAMS rg{};
  std::memcpy(rg.gpu_uuid.uuid, uuid_.data(), 16);
  rg.rmCtrlFd = -1;
  RG_TRY(rm_.uvm(uvm::UVM_REGISTER_GPU, &rg, offsetof(uvm::UVM_REGISTER_GPU_PARAMS, rmStatus),
                 "UVM_REGISTER_GPU"));
  uvm::UVM_REGISTER_GPU_VASPACE_PARAMS rv{};
  std::memcpy(rv.gpuUuid.uuid, uuid_.data(), 16);
  rv.rmCtrlFd = rm_.ctl_fd();
  rv.hClient = rm_.root();
  rv.hVaSpace = vaspace_;
  RG_TRY(rm_.uvm(uvm::UVM_REGISTER_GPU_VASPACE, &rv,
                 offsetof(uvm::UVM_REGISTER_GPU_VASPACE_PARAMS, rmStatus),
                 "UVM_REGISTER_GPU_VASPACE"));

  rm::NV2080_CTRL_GR_INFO info[5] = {{rm::NV2080_CTRL_GR_INFO_INDEX_SM_VERSION, 0},
                                     {rm::NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM, 0},
                                     {rm::NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS, 0},
                                     {rm::NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC, 0},
                                     {rm::NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC, 0}};
  rm::NV2080_CTRL_GR_GET_INFO_PARAMS gi{};
  gi.grInfoListSize = 5;
  gi.grInfoList = reinterpret_cast<uintptr_t>(info);
  RG_TRY(rm_.control(subdevice_, rm::NV2080_CTRL_CMD_GR_GET_INFO, &gi, sizeof(gi)));
  gr_.sm = RG_TRY(sm_version_from_gr(info[0].data));
  gr_.max_warps_per_sm = info[1].data;
  gr_.num_gpcs = info[2].data;
  gr_.tpc_per_gpc = info[3].data;
  gr_.sm_per_tpc = info[4].data;

  RG_TRY(reserve_windows());

  rm::NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS tsg{};
  tsg.engineType = rm::NV2080_ENGINE_TYPE_GRAPHICS;
  tsg_ = RG_TRY_CTX(rm_.alloc_with(device_, rm::KEPLER_CHANNEL_GROUP_A, tsg), "channel group");
  gpfifo_area_ = RG_TRY_CTX(alloc_vram(kGpfifoAreaBytes, true, true), "GPFIFO area");
  rm::NV_CTXSHARE_ALLOCATION_PARAMETERS cs{};
  cs.hVASpace = vaspace_;
  cs.flags = rm::NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC;
  ctxshare_ = RG_TRY_CTX(rm_.alloc_with(tsg_, rm::FERMI_CONTEXT_SHARE_A, cs), "context share");
  notifier_ = RG_TRY_CTX(alloc_host(kNotifierBytes), "error notifier");
  compute_ =
      RG_TRY_CTX(make_channel(kComputeRingOffset, classes_.compute, false), "compute channel");
  copy_ = RG_TRY_CTX(make_channel(kCopyRingOffset, classes_.copy, true), "copy channel");

  std::vector<uint8_t> sched(rm_.layouts().schedule_size, 0);
  sched[0] = 1;  // bEnable
  RG_TRY(rm_.control(tsg_, rm::NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, sched.data(),
                     static_cast<uint32_t>(sched.size())));
  return {};
}

Result<NvChannel> RmGpu::make_channel(uint32_t offset, uint32_t engine_cls, bool copy) {
  NvChannel ch;
  ch.cls = classes_.gpfifo;
  ch.entries = kGpfifoEntries;
  ch.ring_va = gpfifo_area_.va + offset;
  ch.userd_va = ch.ring_va + uint64_t{kGpfifoEntries} * 8;
  std::vector<uint8_t> p(rm_.layouts().channel_alloc_size, 0);
  put32(p, rm::kChannelAllocHObjectError, notifier_.handle);
  put32(p, rm::kChannelAllocHObjectBuffer, gpfifo_area_.handle);
  put64(p, rm::kChannelAllocGpFifoOffset, ch.ring_va);
  put32(p, rm::kChannelAllocGpFifoEntries, ch.entries);
  put32(p, rm::kChannelAllocHContextShare, ctxshare_);
  put32(p, rm::kChannelAllocHUserdMemory, gpfifo_area_.handle);
  put64(p, rm::kChannelAllocUserdOffset, offset + uint64_t{kGpfifoEntries} * 8);
  ch.handle = RG_TRY(rm_.alloc(tsg_, ch.cls, p));
  ch.engine_cls = engine_cls;
  if (copy) {
    rm::NVB0B5_ALLOCATION_PARAMETERS ce{1, rm::NV2080_ENGINE_TYPE_COPY0};
    ch.engine = RG_TRY_CTX(rm_.alloc_with(ch.handle, engine_cls, ce), "copy object");
  } else {
    ch.engine = RG_TRY_CTX(rm_.alloc(ch.handle, engine_cls), "compute object");
  }
  rm::NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS tok{};
  RG_TRY(
      rm_.control(ch.handle, rm::NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &tok, sizeof(tok)));
  ch.token = tok.workSubmitToken;
  const uint64_t range = RG_TRY(alloc_va(kUvmChannelRange, true));
  uvm_channel_va_[copy ? 1 : 0] = range;
  uvm::UVM_REGISTER_CHANNEL_PARAMS rc{};
  std::memcpy(rc.gpuUuid.uuid, uuid_.data(), 16);
  rc.rmCtrlFd = rm_.ctl_fd();
  rc.hClient = rm_.root();
  rc.hChannel = ch.handle;
  rc.base = range;
  rc.length = kUvmChannelRange;
  RG_TRY(rm_.uvm(uvm::UVM_REGISTER_CHANNEL, &rc,
                 offsetof(uvm::UVM_REGISTER_CHANNEL_PARAMS, rmStatus), "UVM_REGISTER_CHANNEL"));
  return ch;
}

RmGpu::~RmGpu() {
  for (NvMemory* m : {&notifier_, &gpfifo_area_}) {
    if (m->handle != 0) (void)free(*m);
  }
  // Freeing the device frees everything under it (TSG, channels, VA space, memory objects).
  if (device_ != 0) (void)rm_.free(rm_.root(), device_);
  if (usermode_cpu_ != nullptr) {
    rm_.kernel().munmap(const_cast<uint32_t*>(usermode_cpu_), kUsermodeBytes);
  }
  if (low_window_.size != 0) {
    ProcessWindows& pw = process_windows();
    std::lock_guard<std::mutex> lock(pw.mu);
    if (--pw.users == 0) {
      for (const VaWindow* w : {&pw.low, &pw.high}) {
        rm_.kernel().munmap(reinterpret_cast<void*>(w->base), w->size);
      }
      pw.low_t.reset();
      pw.high_t.reset();
      pw.low = pw.high = VaWindow{};
    }
  }
  if (gpu_fd_ >= 0) rm_.kernel().close(gpu_fd_);
}

void RmGpu::ring_doorbell(const NvChannel& channel) {
  store_fence();  // everything the channel will fetch (GP entries, GPPut) before the doorbell
  rm_.kernel().write_register(&usermode_cpu_[kDoorbellOffset / 4], channel.token);
}

Status RmGpu::reserve_windows() {
  ProcessWindows& pw = process_windows();
  std::lock_guard<std::mutex> lock(pw.mu);
  if (pw.users > 0) {  // another GPU of this process reserved them
    ++pw.users;
    low_window_ = pw.low;
    high_window_ = pw.high;
    return {};
  }
  // PROT_NONE, no swap reserved, never over an existing mapping: rawgpu's MAP_FIXED mappings
  // later land only inside space it owns.
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE;
  VaWindow chosen[2];
  for (int w = 0; w < 2; ++w) {
    std::span<const VaWindow> candidates =
        w == 0 ? std::span<const VaWindow>(kLowWindows) : std::span<const VaWindow>(kHighWindows);
    std::string tried;
    for (const VaWindow& c : candidates) {
      int err = 0;
      void* p =
          rm_.kernel().mmap(reinterpret_cast<void*>(c.base), c.size, PROT_NONE, flags, -1, 0, err);
      if (p != nullptr && reinterpret_cast<uint64_t>(p) == c.base) {
        chosen[w] = c;
        break;
      }
      if (p != nullptr) rm_.kernel().munmap(p, c.size);  // an old kernel ignored NOREPLACE
      tried += strformat("%s[%s, %s): %s", tried.empty() ? "" : "; ", hex(c.base).c_str(),
                         hex(c.base + c.size).c_str(),
                         p == nullptr ? std::strerror(err) : "placed elsewhere");
    }
    if (chosen[w].size == 0) {
      if (w == 1) rm_.kernel().munmap(reinterpret_cast<void*>(chosen[0].base), chosen[0].size);
      return Error(Errc::kBusy, strformat("no %s VA window could be reserved (%s)",
                                          w == 0 ? "low" : "high", tried.c_str()))
          .with_hint("something else in this process maps those ranges");
    }
  }
  auto lo = memory::Tlsf::create(memory::TlsfConfig{chosen[0].base, chosen[0].size, kPage, 32});
  auto hi = memory::Tlsf::create(memory::TlsfConfig{chosen[1].base, chosen[1].size, kPage, 32});
  if (!lo.ok() || !hi.ok()) {
    for (const VaWindow& c : chosen) rm_.kernel().munmap(reinterpret_cast<void*>(c.base), c.size);
    return (lo.ok() ? std::move(hi).take_error() : std::move(lo).take_error());
  }
  pw.low_t.emplace(std::move(lo).take_value());
  pw.high_t.emplace(std::move(hi).take_value());
  pw.low = low_window_ = chosen[0];
  pw.high = high_window_ = chosen[1];
  pw.users = 1;
  return {};
}

Result<uint64_t> RmGpu::alloc_va(uint64_t size, bool low) {
  const uint64_t align = size >= kHugeFrom ? kHugePage : kPage;
  ProcessWindows& pw = process_windows();
  std::lock_guard<std::mutex> lock(pw.mu);
  memory::Tlsf& t = low ? *pw.low_t : *pw.high_t;
  return t.alloc(round_up(size, align), align);
}

void RmGpu::release_va(uint64_t va, bool low) {
  ProcessWindows& pw = process_windows();
  std::lock_guard<std::mutex> lock(pw.mu);
  memory::Tlsf& t = low ? *pw.low_t : *pw.high_t;
  (void)t.free(va);
}

Result<NvMemory> RmGpu::alloc_vram(uint64_t size, bool cpu_visible, bool contiguous) {
  if (size == 0) return make_error(Errc::kInvalidArgument, "a VRAM allocation of 0 bytes");
  const bool huge = size >= kHugeFrom;
  NvMemory m;
  m.size = round_up(size, huge ? kHugePage : kPage);
  m.cpu_visible = cpu_visible;
  m.handle = rm_.new_handle();
  rm::NV_MEMORY_ALLOCATION_PARAMS p{};
  p.owner = rm_.root();
  p.type = rm::NVOS32_TYPE_IMAGE;
  p.flags = rm::NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED |
            rm::NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED | rm::NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE |
            rm::NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT | rm::NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM;
  p.attr = ((contiguous ? 2u : 3u) << rm::NVOS32_ATTR_PHYSICALITY_SHIFT) |
           ((huge ? 3u : 1u) << rm::NVOS32_ATTR_PAGE_SIZE_SHIFT);
  p.attr2 = (1u << rm::NVOS32_ATTR2_GPU_CACHEABLE_SHIFT) | 1u |
            (huge ? 1u << rm::NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT : 0u);
  p.format = rm::kMemoryFormatPitch;
  p.size = m.size;
  p.limit = m.size - 1;
  p.alignment = huge ? kHugePage : kPage;
  RG_TRY_CTX(
      rm_.alloc(device_, rm::NV1_MEMORY_USER,
                std::span<uint8_t>(reinterpret_cast<uint8_t*>(&p), rm_.layouts().memory_alloc_size),
                m.handle),
      "allocating %s of VRAM", format_bytes(m.size).c_str());
  auto va = alloc_va(m.size, cpu_visible);
  if (!va.ok()) {
    (void)rm_.free(device_, m.handle);
    return std::move(va).take_error();
  }
  m.va = *va;
  Status s = cpu_visible ? map_for_cpu(m) : Status();
  if (s.ok()) s = map_for_gpu(m);
  if (!s.ok()) {
    (void)free(m);
    return std::move(s).take_error();
  }
  return m;
}

Result<NvMemory> RmGpu::alloc_host(uint64_t size) {
  if (size == 0) return make_error(Errc::kInvalidArgument, "a host allocation of 0 bytes");
  NvMemory m;
  m.size = round_up(size, size >= kHugeFrom ? kHugePage : kPage);
  m.host = true;
  m.cpu_visible = true;
  m.va = RG_TRY(alloc_va(m.size, true));
  int err = 0;
  void* p = rm_.kernel().mmap(reinterpret_cast<void*>(m.va), m.size, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0, err);
  if (p == nullptr) {
    release_va(m.va, true);
    return make_error(Errc::kOutOfMemory, "mapping %s of host memory: %s",
                      format_bytes(m.size).c_str(), std::strerror(err));
  }
  m.handle = rm_.new_handle();
  rm::nv_ioctl_nvos02_parameters_with_fd a{};
  a.params.hRoot = rm_.root();
  a.params.hObjectParent = device_;
  a.params.hObjectNew = m.handle;
  a.params.hClass = rm::NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
  a.params.flags = rm::NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS | rm::NVOS02_FLAGS_COHERENCY_CACHED |
                   rm::NVOS02_FLAGS_MAPPING_NO_MAP;
  a.params.pMemory = m.va;
  a.params.limit = m.size - 1;
  a.fd = gpu_fd_;
  Status s = rm_.frontend(gpu_fd_, rm::NV_ESC_RM_ALLOC_MEMORY, &a, sizeof(a),
                          "NV_ESC_RM_ALLOC_MEMORY (host pages)");
  if (s.ok() && a.params.status != 0) {
    s = rm_error(a.params.status,
                 strformat("describing %s of host memory to RM", format_bytes(m.size).c_str()));
  }
  if (!s.ok()) {
    m.handle = 0;
    (void)free(m);
    return std::move(s).take_error();
  }
  s = map_for_gpu(m);
  if (!s.ok()) {
    (void)free(m);
    return std::move(s).take_error();
  }
  return m;
}

Status RmGpu::map_for_cpu(NvMemory& m) {
  const int fd = RG_TRY(rm_.open_gpu_fd(minor_));
  rm::nv_ioctl_nvos33_parameters_with_fd p{};
  p.params.hClient = rm_.root();
  p.params.hDevice = device_;
  p.params.hMemory = m.handle;
  p.params.length = m.size;
  p.params.flags = 2u << rm::NVOS33_FLAGS_CACHING_TYPE_SHIFT;  // write-combined
  p.fd = fd;
  Status s =
      rm_.frontend(rm_.ctl_fd(), rm::NV_ESC_RM_MAP_MEMORY, &p, sizeof(p), "NV_ESC_RM_MAP_MEMORY");
  if (s.ok() && p.params.status != 0) s = rm_error(p.params.status, "mapping VRAM for the CPU");
  if (s.ok()) {
    int err = 0;
    void* va = rm_.kernel().mmap(reinterpret_cast<void*>(m.va), m.size, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_FIXED, fd, 0, err);
    if (va != reinterpret_cast<void*>(m.va)) {
      s = make_error(Errc::kIo, "mmap of VRAM at %s: %s", hex(m.va).c_str(),
                     va == nullptr ? std::strerror(err) : "landed elsewhere");
    }
  }
  // The mapping holds its own reference to the file.
  rm_.kernel().close(fd);
  return s;
}

Status RmGpu::map_for_gpu(NvMemory& m) {
  uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS r{};
  r.base = m.va;
  r.length = m.size;
  RG_TRY(rm_.uvm(uvm::UVM_CREATE_EXTERNAL_RANGE, &r,
                 offsetof(uvm::UVM_CREATE_EXTERNAL_RANGE_PARAMS, rmStatus),
                 "UVM_CREATE_EXTERNAL_RANGE"));
  const auto& L = rm_.layouts();
  std::vector<uint8_t> d(L.nvos46_size, 0);
  put32(d, 0, rm_.root());
  put32(d, 4, device_);
  put32(d, 8, virtmem_);
  put32(d, 12, m.handle);
  put64(d, 16, 0);
  put64(d, 24, m.size);
  put32(d, 32,
        rm::NVOS46_FLAGS_PAGE_SIZE_4KB | rm::NVOS46_FLAGS_CACHE_SNOOP_ENABLE |
            rm::NVOS46_FLAGS_DMA_OFFSET_FIXED);
  put64(d, L.nvos46_dma_offset, m.va);
  RG_TRY(rm_.frontend(rm_.ctl_fd(), rm::NV_ESC_RM_MAP_MEMORY_DMA, d.data(),
                      static_cast<uint32_t>(d.size()), "NV_ESC_RM_MAP_MEMORY_DMA"));
  if (const uint32_t status = get32(d, L.nvos46_status); status != 0) {
    return rm_error(status, strformat("mapping %s at GPU VA %s", format_bytes(m.size).c_str(),
                                      hex(m.va).c_str()));
  }
  if (const uint64_t got = get64(d, L.nvos46_dma_offset); got != m.va) {
    return make_error(Errc::kHardware, "RM mapped the memory at GPU VA %s, not the fixed %s",
                      hex(got).c_str(), hex(m.va).c_str());
  }
  std::vector<uint8_t> u(L.uvm_map_external_size, 0);
  put64(u, 0, m.va);
  put64(u, 8, m.size);
  std::memcpy(&u[rm::kUvmMapExternalAttrsOffset], uuid_.data(), 16);
  put32(u, rm::kUvmMapExternalAttrsOffset + 16, rm::UvmGpuMappingTypeReadWriteAtomic);
  const uint32_t tail = L.uvm_map_external_size - rm::kUvmMapExternalCountFromEnd;
  put64(u, tail, 1);                                        // gpuAttributesCount
  put32(u, tail + 8, static_cast<uint32_t>(rm_.ctl_fd()));  // rmCtrlFd
  put32(u, tail + 12, rm_.root());                          // hClient
  put32(u, tail + 16, m.handle);                            // hMemory
  return rm_.uvm(uvm::UVM_MAP_EXTERNAL_ALLOCATION, u.data(), tail + 20,
                 "UVM_MAP_EXTERNAL_ALLOCATION");
}

Status RmGpu::free(NvMemory& m) {
  Status first;
  if (m.va != 0) {
    uvm::UVM_FREE_PARAMS f{};
    f.base = m.va;
    f.length = m.size;
    // A range that was never created answers an error: nothing to undo then.
    (void)rm_.uvm(uvm::UVM_FREE, &f, offsetof(uvm::UVM_FREE_PARAMS, rmStatus), "UVM_FREE");
  }
  if (m.handle != 0) first = rm_.free(device_, m.handle);
  if (m.va != 0) {
    if (m.cpu_visible) {
      // Back to the PROT_NONE reservation (munmap would leave a hole others could map into).
      int err = 0;
      (void)rm_.kernel().mmap(reinterpret_cast<void*>(m.va), m.size, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0, err);
    }
    release_va(m.va, m.cpu_visible);
  }
  m = NvMemory{};
  return first;
}

}  // namespace rawgpu::nv

namespace rawgpu::nv {

std::string RmGpu::name() const {
  return strformat("NVIDIA %04x (/dev/nvidia%u, %s)", pci_device_id_, minor_,
                   gr_.sm.target.c_str());
}

// SharedMemory::handle: the RM handle, and bit 32 set for host pages.
Result<drivers::SharedMemory> RmGpu::alloc_shared(uint64_t size, drivers::SharedUse use) {
  NvMemory m = use == drivers::SharedUse::kSignals ? RG_TRY(alloc_host(size))
                                                   : RG_TRY(alloc_vram(size, true));
  return drivers::SharedMemory{GpuVa(m.va), m.cpu(), m.size, (uint64_t{m.host} << 32) | m.handle};
}

Status RmGpu::free_shared(const drivers::SharedMemory& s) {
  NvMemory m;
  m.handle = static_cast<uint32_t>(s.handle);
  m.host = (s.handle >> 32) != 0;
  m.va = s.va.raw();
  m.size = s.size;
  m.cpu_visible = true;
  return free(m);
}

drivers::HcqFault RmGpu::hcq_fault() const {
  // NvNotification entry 0: {u64 timestamp, u32 info32, u16 info16, u16 status}; RM sets
  // status when a channel hits an error and info32 to the robust-channel error code.
  drivers::HcqFault f;
  const uint8_t* n = notifier_.cpu();
  if (n == nullptr) return f;
  uint16_t status, info16;
  uint32_t info32;
  std::memcpy(&status, n + 14, 2);
  std::memcpy(&info16, n + 12, 2);
  std::memcpy(&info32, n + 8, 4);
  if (status == 0) return f;
  f.queue_error = true;
  f.description = strformat(
      "a channel stopped: the error notifier reports error %u (info16 0x%x)%s", info32, info16,
      info32 == 31   ? " (ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT: an MMU fault)"
      : info32 == 13 ? " (ROBUST_CHANNEL_GR_EXCEPTION: a graphics/compute engine exception)"
                     : "");
  return f;
}

}  // namespace rawgpu::nv
