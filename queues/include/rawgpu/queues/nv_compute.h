// NVIDIA compute launches (shared/reference/nv.md §3.6–3.9): a program image in GPU memory, the
// constant bank 0 of a launch (driver words, then the kernel parameters at the architecture's
// parameter base), the QMD V03 that points at both with the grid, block, shared-memory
// configuration and a release of a 64-bit signal, and SEND_PCAS_A + SEND_SIGNALING_PCAS2_B on
// the compute channel. QMD fields come from autogen's qmd.h (open-gpu-doc), methods from
// compute_classes.h.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/nv_gpfifo.h"

namespace rawgpu::queues {

// Generic-address windows of shared and local memory (tinygrad's values: 4 GiB aligned, which
// Hopper requires, and clear of rawgpu's VA windows).
inline constexpr uint64_t kNvSharedWindow = 0x7294'0000'0000;
inline constexpr uint64_t kNvLocalWindow = 0x7293'0000'0000;

struct NvKernelInfo {
  std::string name;
  uint32_t param_bytes = 0;
  uint32_t shared_bytes = 0;  // static shared, as the kernel declares it (without the 1 KiB
                              // the hardware reserves per CTA)
  uint32_t registers = 0;     // 0: unknown (a PTX image; the simulator does not use it)
};

// The parameter offset in constant bank 0 for an SM version (0x160 on sm_8x, 0x210 on sm_90);
// kUnsupported for others.
Result<uint32_t> nv_param_base(uint32_t sm_version);

class NvProgram {
 public:
  // A PTX image (drivers/nv/ptx_image.h) for a GPU that executes PTX (the simulator).
  static Result<NvProgram> load_ptx(nv::RmGpu& gpu, const NvKernelInfo& info, std::string_view ptx);
  const NvKernelInfo& info() const { return info_; }
  uint64_t va() const { return image_.va; }
  void release(nv::RmGpu& gpu) { (void)gpu.free(image_); }

 private:
  NvKernelInfo info_;
  nv::NvMemory image_;
};

struct NvLaunch {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  std::span<const uint8_t> params;  // exactly info().param_bytes
  uint32_t dynamic_shared = 0;
};

class NvComputeQueue {
 public:
  // `kernargs` is CPU-visible GPU memory below 2^40 for constant banks and QMDs (a ring).
  NvComputeQueue(nv::RmGpu& gpu, NvChannelQueue& channel, const nv::NvMemory& kernargs);
  // Binds the compute class and sets the shared/local memory windows (once, before launches).
  Status setup();
  // Launches, then releases `value` at the signal (CPU view `signal`, GPU address `signal_va`;
  // 64-bit, four-word with timestamp) from the QMD when the grid completes. kInvalidArgument for
  // a bad launch shape or parameter size. Kernarg space is reused once the launches that held
  // it have signaled.
  Status launch(const NvProgram& program, const NvLaunch& launch, const volatile uint64_t* signal,
                uint64_t signal_va, uint64_t value);
  // The QMD of the last launch (tests decode it).
  std::span<const uint32_t> last_qmd() const { return last_qmd_; }

 private:
  Result<uint64_t> alloc_kernargs(uint64_t bytes);

  nv::RmGpu& gpu_;
  NvChannelQueue& channel_;
  nv::NvMemory kernargs_;
  uint64_t head_ = 0;  // bytes handed out, monotonically
  struct InFlight {
    uint64_t end;
    const volatile uint64_t* signal;
    uint64_t value;
  };
  std::deque<InFlight> in_flight_;
  std::vector<uint32_t> last_qmd_;
  bool set_up_ = false;
};

}  // namespace rawgpu::queues
