// The simulated NVIDIA kernel driver (nvidia.ko + nvidia-uvm.ko) behind drivers/nv's Kernel
// seam: /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm as fake fds, and the RM object model
// the driver's ioctls reach (shared/reference/nv.md §2, §7 "RM object model").
//
// It behaves as the driver does, including where that hurts: frontend escapes are size-checked
// from the command word (-EINVAL), controls by paramsSize (NV_ERR_INVALID_PARAM_STRUCT), alloc
// parameters are copied in and out with the size of the configured branch's class table whatever
// the caller passed, handles are checked against their parents and classes, UVM ranges against
// alignment and overlap, and every call is recorded in a trace for golden tests. VRAM objects are
// memfd-backed, so the CPU mapping a driver mmaps and the simulator's own view are one memory.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/autogen/nv/rm_abi.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/nv/kernel.h"

namespace rawgpu::sim {

enum class NvArch {
  kAmpere,  // GA102 (RTX 3090): sm_86, c56f / c7c0 / c7b5 / c561
  kAda,     // AD102 (RTX 4090): sm_89, c56f / c9c0 / c7b5 / c561
  kHopper,  // GH100 (H200): sm_90, c86f / cbc0 / c8b5 / c661 (the list still names c56f)
};

// The simulated GPU of a ptxas target: "sm_86", "sm_89", "sm_90" (also with the "sim:" device
// prefix); nullopt for any other.
inline std::optional<NvArch> nv_arch_of(std::string_view target) {
  if (target.starts_with("sim:")) target.remove_prefix(4);
  if (target == "sm_86") return NvArch::kAmpere;
  if (target == "sm_89") return NvArch::kAda;
  if (target == "sm_90") return NvArch::kHopper;
  return std::nullopt;
}

struct SimNvConfig {
  std::string version = "580.65.06";  // what SYSTEM_GET_BUILD_VERSION_V2 reports
  NvArch arch = NvArch::kHopper;
  uint32_t gpus = 1;
  uint64_t vram_bytes = 1ull << 30;  // per GPU
  // The layouts the simulated driver uses; nullptr: those of `version`'s branch. Set both to
  // play a driver of a branch rawgpu does not know (its version string with known layouts).
  const autogen::nv::rm::BranchLayouts* layouts = nullptr;
};

class SimNvKernel final : public nv::Kernel {
 public:
  // kUnsupported when the version's branch has no layout table (the simulator plays only
  // branches it knows, as the driver side does).
  static Result<std::unique_ptr<SimNvKernel>> create(const SimNvConfig& config);
  ~SimNvKernel() override;

  int open(const std::string& path, int flags) override;
  int close(int fd) override;
  int ioctl(int fd, unsigned long request, void* arg) override;
  void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t off, int& err) override;
  int munmap(void* addr, size_t length) override;
  // Runs the GPU: doorbells rung since the last call make Host fetch those channels' new GP
  // entries; methods execute until the channel's GPPut, a blocked semaphore acquire (which stalls
  // only its channel) or a channel error.
  void poll() override;
  // Doorbell writes are latched (in order) so two channels rung back to back both run.
  void write_register(volatile uint32_t* reg, uint32_t value) override;

  // One line per call, e.g. "ctl RM_ALLOC FERMI_VASPACE_A(0x90f1) under 0xc1e00004 -> NV_OK".
  const std::vector<std::string>& trace() const { return trace_; }
  void clear_trace() { trace_.clear(); }
  size_t live_objects() const { return objects_.size(); }
  size_t open_fds() const { return fds_.size(); }
  uint64_t vram_used(uint32_t gpu) const;
  // The memory the GPU sees at `va` (through a UVM external mapping), or kOutOfRange naming
  // the address: an MMU fault on hardware.
  Result<uint8_t*> translate(uint64_t va, uint64_t length) const;
  // The last token written to GPU `gpu`'s usermode doorbell (+0x90), 0 if none.
  uint32_t doorbell(uint32_t gpu) const;
  // Channels by handle: the GPFIFO ring and USERD as the driver gave them.
  struct ChannelView {
    uint32_t cls = 0, chid = 0, token = 0, entries = 0;
    uint64_t ring_va = 0, userd_va = 0;
    uint32_t engine_cls = 0;
  };
  std::vector<ChannelView> channels() const;
  bool scheduled(uint32_t tsg) const;
  // Channel errors so far, decoded ("channel 0xc1d00009 (chid 0): MMU fault: copy-engine read
  // of [0x..., +0x...) unmapped").
  const std::vector<std::string>& channel_errors() const { return channel_errors_; }
  uint64_t nonstall_interrupts() const;
  // Compute work so far: QMD launches completed and PTX thread-instructions executed.
  uint64_t launches() const { return launches_; }
  uint64_t thread_instructions() const { return thread_instructions_; }

 private:
  struct Object;
  struct Fd;
  struct Range;
  explicit SimNvKernel(const SimNvConfig& config);

  int frontend(Fd& fd, unsigned long request, void* arg);
  int uvm(Fd& fd, unsigned long request, void* arg);
  uint32_t rm_alloc(uint32_t client, uint32_t parent, uint32_t& handle, uint32_t cls,
                    uint64_t params);
  uint32_t rm_control(uint32_t client, uint32_t object, uint32_t cmd, uint64_t params,
                      uint32_t size);
  uint32_t rm_free(uint32_t client, uint32_t object);
  void free_tree(uint32_t handle);
  Object* find(uint32_t client, uint32_t handle);
  int device_gpu(const Object& o) const;
  std::vector<uint32_t> class_list() const;
  uint32_t alloc_size(uint32_t cls) const;
  void log(std::string line) { trace_.push_back(std::move(line)); }
  // sim/nv/engine.cpp
  void run_channel(Object& ch);
  // false: the channel blocked (semaphore) or stopped.
  bool method(Object& ch, uint32_t subch, uint32_t method, uint32_t data);
  bool host_method(Object& ch, uint32_t method, uint32_t data);
  bool copy_launch(Object& ch, uint32_t launch);
  // sim/nv/compute.cpp: a QMD launch (decode, cbuf0 checks, the PTX image, execution, releases).
  bool compute_launch(Object& ch, uint64_t qmd_va);
  // One grid; `next` gets its dependent QMD's address (0: none).
  bool run_qmd(Object& ch, uint64_t qmd_va, uint64_t& next);
  void channel_error(Object& ch, uint32_t rc_code, const std::string& what);
  bool read_mem(Object& ch, uint64_t va, void* out, uint64_t n, const char* who);
  bool write_mem(Object& ch, uint64_t va, const void* in, uint64_t n, const char* who);

  SimNvConfig config_;
  const autogen::nv::rm::BranchLayouts* layouts_ = nullptr;
  std::map<int, std::unique_ptr<Fd>> fds_;
  std::map<uint32_t, std::unique_ptr<Object>> objects_;
  std::vector<Range> ranges_;  // UVM external ranges (and registered channel ranges)
  std::vector<uint64_t> vram_used_;
  std::vector<bool> uvm_gpu_registered_;
  std::vector<int> usermode_memfd_;
  std::vector<uint8_t*> usermode_view_;
  std::vector<std::pair<uint32_t, uint32_t>> doorbells_;  // (gpu, token) written since poll()
  struct UsermodeMap {
    uint8_t* cpu;
    size_t length;
    int gpu;
  };
  std::vector<UsermodeMap> usermode_maps_;  // the client's mappings of usermode pages
  std::vector<std::string> trace_;
  std::vector<std::string> channel_errors_;
  // Parsed PTX images by content hash (a program is parsed once, however often it launches).
  std::map<uint64_t, std::shared_ptr<const void>> ptx_cache_;
  uint64_t launches_ = 0, thread_instructions_ = 0;
  int next_fd_ = 1 << 20;
  uint32_t next_handle_ = 0xc1d00000;
  uint32_t next_chid_ = 0;
};

}  // namespace rawgpu::sim
