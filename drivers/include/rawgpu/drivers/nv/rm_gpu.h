// One NVIDIA GPU brought up through the kernel driver (shared/reference/nv.md §2.3–2.5): device,
// subdevice, virtual-memory object, usermode doorbell page, VA space registered with UVM, a
// channel group with its context share, a compute and a copy GPFIFO channel with their engine
// objects and work-submit tokens, scheduled. Memory follows the CPU VA == GPU VA scheme: rawgpu
// reserves its VA windows once and hands out addresses from them with TLSF, so a pointer means
// the same thing on both sides and freed space is reused.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/hcq_device.h"
#include "rawgpu/drivers/nv/rm.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::nv {

// The classes a GPU offers for each role, chosen newest first from the class list RM reports.
struct NvClasses {
  uint32_t gpfifo = 0;
  uint32_t compute = 0;
  uint32_t copy = 0;
  uint32_t usermode = 0;
};
// kUnsupported naming the role that no known class fills (e.g. a Hopper list without 0xcbc0).
Result<NvClasses> select_classes(std::span<const uint32_t> class_list);

struct SmVersion {
  uint32_t raw = 0;    // NV2080_CTRL_GR_INFO_INDEX_SM_VERSION (0x806, 0x900, ...)
  std::string target;  // ptxas / LLVM target: "sm_86"
  uint8_t sass = 0;    // the QMD SASS_VERSION byte: 0x86
};
// From the table of known architectures (a formula alone gets GB20x wrong). kUnsupported else.
Result<SmVersion> sm_version_from_gr(uint32_t raw);

struct NvGrInfo {
  SmVersion sm;
  uint32_t max_warps_per_sm = 0;
  uint32_t num_gpcs = 0;
  uint32_t tpc_per_gpc = 0;
  uint32_t sm_per_tpc = 0;
};

// A memory object mapped at `va` for the GPU (and, when cpu_visible, for the CPU at the same
// address).
struct NvMemory {
  uint32_t handle = 0;
  uint64_t va = 0;
  uint64_t size = 0;
  bool host = false;         // CPU pages handed to the GPU (OS descriptor)
  bool cpu_visible = false;  // mapped for the CPU at va
  uint8_t* cpu() const { return cpu_visible ? reinterpret_cast<uint8_t*>(va) : nullptr; }
};

struct NvChannel {
  uint32_t handle = 0;
  uint32_t cls = 0;     // GPFIFO class
  uint32_t engine = 0;  // compute or copy object under the channel
  uint32_t engine_cls = 0;
  uint32_t token = 0;    // work-submit token written to the doorbell
  uint64_t ring_va = 0;  // GP entries
  uint32_t entries = 0;
  uint64_t userd_va = 0;  // USERD (GPPut at +0x8c, GPGet at +0x88)
};

// CPU-visible buffers, pushbuffers, QMDs and (Ampere/Ada) semaphores live below 2^40 (the low
// window); GPU-only memory anywhere (the high window). Candidates in order of preference: the
// first of each is the layout nv.md describes; the second serves processes whose address space
// already holds the first (AddressSanitizer's shadow gap covers [2 GiB, 2 TiB), leaving only
// the first 2 GiB below 2^40).
struct VaWindow {
  uint64_t base = 0, size = 0;
};
inline constexpr VaWindow kLowWindows[] = {{0x10'0000'0000, 0x10'0000'0000},  // 64 GiB at 64 GiB
                                           {0x4000'0000, 0x3000'0000}};       // 768 MiB at 1 GiB
inline constexpr VaWindow kHighWindows[] = {{0x20'0000'0000, 0x100'0000'0000},
                                            {0x2000'0000'0000, 0x100'0000'0000}};

class RmGpu final : public drivers::HcqDevice {
 public:
  // Brings up card `index` of NV_ESC_CARD_INFO (the valid entries, in order).
  static Result<std::unique_ptr<RmGpu>> open(Rm& rm, uint32_t index);
  ~RmGpu() override;
  RmGpu(const RmGpu&) = delete;
  RmGpu& operator=(const RmGpu&) = delete;

  // VRAM (NV1_MEMORY_USER), mapped for the GPU and, when cpu_visible, write-combined for the
  // CPU at the same address.
  Result<NvMemory> alloc_vram(uint64_t size, bool cpu_visible, bool contiguous = false);
  // Host pages (anonymous shared memory) handed to the GPU as an OS-descriptor object.
  Result<NvMemory> alloc_host(uint64_t size);
  // Frees the object, its UVM range and mapping; the VA returns to its window.
  Status free(NvMemory& memory);

  Rm& rm() { return rm_; }
  uint32_t minor() const { return minor_; }
  uint16_t pci_device_id() const { return pci_device_id_; }
  const NvClasses& classes() const { return classes_; }
  const std::vector<uint32_t>& class_list() const { return class_list_; }
  const NvGrInfo& gr() const { return gr_; }
  const std::array<uint8_t, 16>& uuid() const { return uuid_; }
  uint32_t device() const { return device_; }
  uint32_t subdevice() const { return subdevice_; }
  uint32_t vaspace() const { return vaspace_; }
  uint32_t channel_group() const { return tsg_; }
  const NvChannel& compute() const { return compute_; }
  const NvChannel& copy() const { return copy_; }
  const NvMemory& gpfifo_area() const { return gpfifo_area_; }
  // Both channels' error notifier (NvNotification records, 16 bytes each: timestamp, info32,
  // info16, status; RM fills entry 0 when a channel hits an error).
  const NvMemory& error_notifier() const { return notifier_; }
  // NV_USERMODE_NOTIFY_CHANNEL_PENDING: writing a channel's token here makes Host fetch its
  // new GP entries.
  void ring_doorbell(const NvChannel& channel);
  volatile uint32_t* usermode() const { return usermode_cpu_; }
  // The process's VA windows (see kLowWindows / kHighWindows), shared by all its RmGpus.
  const VaWindow& low_window() const { return low_window_; }
  const VaWindow& high_window() const { return high_window_; }

  // HcqDevice: signals in host pages (the CPU polls them), kernargs in CPU-visible VRAM below
  // 2^40 (QMD and constant-bank addresses); poll() is the kernel seam's; the fault is the
  // channels' error notifier, decoded.
  std::string name() const override;
  Result<drivers::SharedMemory> alloc_shared(uint64_t size, drivers::SharedUse use) override;
  Status free_shared(const drivers::SharedMemory& memory) override;
  void poll() override { rm_.kernel().poll(); }
  drivers::HcqFault hcq_fault() const override;

 private:
  explicit RmGpu(Rm& rm) : rm_(rm) {}
  Status bring_up(uint32_t index);
  Status reserve_windows();
  Result<uint64_t> alloc_va(uint64_t size, bool low);
  void release_va(uint64_t va, bool low);
  Status map_for_gpu(NvMemory& m);
  Status map_for_cpu(NvMemory& m);
  Result<NvChannel> make_channel(uint32_t gpfifo_offset, uint32_t engine_cls, bool copy);

  Rm& rm_;
  int gpu_fd_ = -1;
  uint32_t minor_ = 0;
  uint16_t pci_device_id_ = 0;
  uint32_t device_ = 0, subdevice_ = 0, virtmem_ = 0, usermode_obj_ = 0, vaspace_ = 0, tsg_ = 0,
           ctxshare_ = 0;
  std::vector<uint32_t> class_list_;
  NvClasses classes_;
  NvGrInfo gr_;
  std::array<uint8_t, 16> uuid_{};
  volatile uint32_t* usermode_cpu_ = nullptr;
  VaWindow low_window_, high_window_;  // the process's windows; size 0: none held
  NvMemory gpfifo_area_, notifier_;
  NvChannel compute_, copy_;
  uint64_t uvm_channel_va_[2] = {0, 0};
};

}  // namespace rawgpu::nv
