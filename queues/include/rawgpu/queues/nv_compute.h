// NVIDIA compute launches (shared/reference/nv.md §3.6–3.9): a program image in GPU memory, the
// constant bank 0 of a launch (driver words, then the kernel parameters at the architecture's
// parameter base), the QMD (V03, or V04 on Hopper) that points at both with the grid, block,
// shared-memory configuration and a release of a 64-bit signal, and SEND_PCAS_A +
// SEND_SIGNALING_PCAS2_B on the compute channel. QMD fields come from autogen's qmd.h
// (open-gpu-doc), methods from compute_classes.h.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::autogen::nv::qmd {
struct Layout;
}

namespace rawgpu::queues {

// Generic-address windows of shared and local memory (tinygrad's values: 4 GiB aligned, which
// Hopper requires, and clear of rawgpu's VA windows).
inline constexpr uint64_t kNvSharedWindow = 0x7294'0000'0000;
inline constexpr uint64_t kNvLocalWindow = 0x7293'0000'0000;

// A constant bank other than 0 that a kernel reads (a cubin's .nv.constant<N>), bound in every
// QMD of the kernel.
struct NvConstantBank {
  uint32_t bank = 0;
  uint64_t va = 0;
  uint32_t bytes = 0;
};

struct NvKernelInfo {
  std::string name;
  uint32_t param_bytes = 0;
  uint32_t param_base = 0;    // parameter offset in bank 0; 0: the architecture's (nv_param_base)
  uint32_t bank0_bytes = 0;   // bank 0 size; 0: param_base + param_bytes
  uint32_t shared_bytes = 0;  // static shared, as the kernel declares it (without the 1 KiB
                              // the hardware reserves per CTA)
  uint32_t registers = 0;     // 0: unknown (a PTX image; the simulator does not use it)
  uint32_t barriers = 1;      // named barriers the kernel uses (QMD BARRIER_COUNT)
  uint32_t local_bytes = 0;   // per-thread local memory (stack and spills); 0: none
  std::vector<NvConstantBank> banks;
};

// The parameter offset in constant bank 0 for an SM version (0x160 on sm_8x, 0x210 on sm_90);
// kUnsupported for others.
Result<uint32_t> nv_param_base(uint32_t sm_version);

class NvProgram {
 public:
  // A PTX image (drivers/nv/ptx_image.h) for a GPU that executes PTX (the simulator).
  static Result<NvProgram> load_ptx(nv::RmGpu& gpu, const NvKernelInfo& info, std::string_view ptx);
  // Kernel `kernel` of a cubin (nv.md 3.10), for a GPU that executes SASS: the file's contents
  // placed in CPU-visible VRAM at their file offsets (ptxas aligns every section there), 4 KiB of
  // slack after them for instruction prefetch, relocations applied against the final addresses,
  // constant banks other than 0 copied to 256-byte aligned slots; the info (parameter base and
  // size, registers, barriers, stack, static shared) read from .nv.info. Errors: a cubin that
  // does not parse (kParse), one built for another SM (kInvalidArgument), a missing kernel
  // (kNotFound), relocations against symbols the loader cannot place (kUnsupported).
  static Result<NvProgram> load_cubin(nv::RmGpu& gpu, std::span<const uint8_t> cubin,
                                      std::string_view kernel);
  const NvKernelInfo& info() const { return info_; }
  uint64_t va() const { return image_.va + code_offset_; }
  void release(nv::RmGpu& gpu) { (void)gpu.free(image_); }

 private:
  friend class NvComputeQueue;
  NvKernelInfo info_;
  nv::NvMemory image_;
  uint64_t code_offset_ = 0;
  // The QMD of this program with everything but the per-launch fields (grid, block, bank 0
  // address, release address and payload) filled in, for one queue configuration (`key`: QMD
  // layout, local-memory size, dynamic shared size). A cache the queue fills on first launch.
  struct QmdTemplate {
    bool valid = false;
    uint64_t key = 0;
    uint32_t param_base = 0, bank0_bytes = 0, qmd_offset = 0;
    std::vector<uint32_t> words;
  };
  mutable QmdTemplate qmd_;
};

// Where a launch's pieces go in its kernarg memory: constant bank 0 at +0, the QMD at
// qmd_offset (256-byte aligned: QMD addresses are >> 8), `bytes` in all.
struct NvLaunchLayout {
  uint32_t qmd_offset = 0;
  uint32_t bytes = 0;
  uint32_t qmd_bytes = 0;
};

struct NvLaunch {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  std::span<const uint8_t> params;  // exactly info().param_bytes
  uint32_t dynamic_shared = 0;
};

class NvComputeQueue {
 public:
  // `kernargs` (an arena of the HCQ core on this GPU: CPU-visible VRAM below 2^40) holds each
  // launch's constant bank 0 and QMD until the launch's signal says it is done.
  NvComputeQueue(nv::RmGpu& gpu, NvChannelQueue& channel, KernargArena& kernargs);
  // Binds the compute class and sets the shared/local memory windows (once, before launches).
  Status setup();
  // The QMD layout of the launches that follow: 3 (V03, the default: Ampere, Ada, and accepted by
  // Hopper's class per clcbc0qmd.h) or 4 (V04, Hopper's native layout). kUnsupported for V04 on a
  // pre-Hopper compute class or any other version. Which of the two a real H200 runs is a device
  // check (scripts/device/nv_check.sh).
  Status set_qmd_version(uint32_t version);
  uint32_t qmd_version() const;
  // Launches, then releases `value` at `signal` (64-bit, four words: the value, then the
  // timestamp) from the QMD when the grid completes. kInvalidArgument for a bad launch shape or
  // parameter size. Kernarg space is reused once the launches that held it have signaled.
  Status launch(const NvProgram& program, const NvLaunch& launch, const Signal& signal,
                uint64_t value);
  // The pieces of launch() for work recorded ahead of time (nv_graph.h): prepare() checks the
  // launch and builds the program's QMD template (kInvalidArgument for a bad shape or parameter
  // size); write_launch() writes bank 0 and the QMD at `cpu` / `va` (from a prepare() of the same
  // program and layout), releasing `value` at `signal` when not null, and leaves the QMD's words
  // in `qmd_out` as well; push_pcas() appends the launch of the QMD at `qmd_va`.
  Result<NvLaunchLayout> prepare(const NvProgram& program, const NvLaunch& launch);
  void write_launch(const NvProgram& program, const NvLaunch& launch, const NvLaunchLayout& at,
                    uint8_t* cpu, uint64_t va, const Signal* signal, uint64_t value,
                    std::span<uint32_t> qmd_out);
  // Rewrites the grid fields of a QMD written by write_launch (bank 0's grid words are the
  // caller's: dwords 3..5).
  void patch_grid(std::span<uint32_t> qmd, std::array<uint32_t, 3> grid) const;
  static void push_pcas(NvPushBuffer& pb, uint64_t qmd_va);
  // Makes the QMD `qmd` (written by write_launch) schedule the QMD at `next_qmd_va` when its grid
  // completes (DEPENDENT_QMD0: pointer >> 8, SCHEDULE, prefetch; nv.md 3.7).
  void chain(std::span<uint32_t> qmd, uint64_t next_qmd_va) const;
  NvChannelQueue& channel() { return channel_; }

  // The QMD of the last launch (tests decode it).
  std::span<const uint32_t> last_qmd() const {
    return std::span<const uint32_t>(last_qmd_.data(), last_qmd_bytes_ / 4);
  }
  // The local-memory backing store (0 bytes until a kernel needs local memory).
  const nv::NvMemory& local_memory() const { return local_; }
  uint32_t local_per_thread() const { return local_per_thread_; }
  ~NvComputeQueue();

 private:
  // Grows the backing store so every thread the GPU can hold gets `per_thread` bytes (nv.md
  // 3.6), after the launches that use the old store have finished.
  Status ensure_local_memory(uint32_t per_thread);
  Status build_template(const NvProgram& program, uint32_t dynamic_shared, uint64_t key);
  Status check_release(const Signal& signal) const;

  nv::RmGpu& gpu_;
  NvChannelQueue& channel_;
  KernargArena& kernargs_;
  WaitOptions wait_;  // for kernarg reuse (built once: its default timeout reads the environment)
  // The last launch's signal and value (the local-memory store is replaced only after it).
  Signal last_signal_;
  uint64_t last_value_ = 0;
  std::array<uint32_t, 96> last_qmd_{};  // the largest layout (V04: 384 bytes)
  uint32_t last_qmd_bytes_ = 0;
  NvPushBuffer launch_pb_;
  const autogen::nv::qmd::Layout* layout_;
  nv::NvMemory local_;
  uint32_t local_per_thread_ = 0;
  bool set_up_ = false;
};

}  // namespace rawgpu::queues
