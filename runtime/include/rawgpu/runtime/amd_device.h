// A Tensor back end over the AMD device seam (drivers/amd/device.h): a simulated GPU today, the
// AM driver later. Buffers are VRAM allocations of the device (its memory manager and page
// tables); host data moves through the SDMA copy engine (queues::amd::Copier); each scheduled
// kernel is compiled by compiler::compile_gpu for the device's target (cached by the AST's
// structural hash), loaded by queues::amd::Program, given kernel arguments from a KernargArena
// and launched with PM4 on a ComputeQueue, followed by a RELEASE_MEM of a timeline signal the
// host waits for. A queue that stops (a GPU fault, an unsupported instruction in the emulator)
// turns into a typed error carrying the device's fault description.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/compiler/search.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/runtime/device.h"

namespace rawgpu::runtime {

struct AmdDeviceConfig {
  std::string name;    // the Tensor device name, e.g. "sim:gfx1100"
  std::string target;  // compiler::gpu_target name, e.g. "gfx1100"
  std::shared_ptr<drivers::amd::AmdDevice> device;
  // ns per tick of the GPU clock RELEASE_MEM timestamps read (profiling): 100 MHz on RDNA.
  double device_tick_ns = 10.0;
  // Called before each launch with the kernel's name (the simulator names it in errors).
  std::function<void(std::string_view kernel)> before_launch;
  // Kept alive as long as the Tensor device and released before `device` (an emulator).
  std::shared_ptr<void> keep_alive;
  // Group reductions: the lane counts tried in order for kernels with a reduction (GROUP, the
  // partials meet in LDS); a kernel none applies to is compiled without. Empty: never.
  std::vector<int64_t> group_lanes = {32, 16, 8};
  // Matmul-shaped kernels (an f32 ADD reduce of f16/bf16 products, sizes divisible by the
  // instruction tile) are compiled for the target's tensor cores (WMMA on RDNA3/RDNA4) first;
  // a kernel the tensor-core matcher refuses (a KernelOptError) takes the ordinary path.
  bool tensor_cores = true;
  // BEAM search (RAWGPU_BEAM=n, compiler/search.h): how one candidate launch is measured. Called
  // with a function that launches the kernel and waits for it; returns the launch's cost in
  // microseconds. Empty: the wall time of launch + wait. The simulated GPUs count emulated
  // instructions instead (sim_devices.h). `measure_name` names the measure in the BEAM cache
  // key ("wall" when `measure` is empty), so timings of different measures never mix.
  std::function<Result<double>(const std::function<Status()>& launch)> measure;
  std::string measure_name;
  // BEAM searches run their candidates on a separate device of the same kind made by this
  // factory (created on first use, replaced after a candidate faults it), so a faulting
  // candidate is skipped and this device's queue keeps running. Empty: candidates run on this
  // device, and a fault ends the search with its error.
  std::function<Result<std::unique_ptr<Device>>()> beam_device;
};

Result<std::unique_ptr<Device>> make_amd_device(AmdDeviceConfig config);

// The BEAM back end of a device made by make_amd_device (what RAWGPU_BEAM uses for its kernels:
// candidates compiled for the device's target, launched through its queue on scratch buffers,
// measured by AmdDeviceConfig::measure). Candidates that need scratch memory (register spills)
// are skipped: the device seam sets up none. A candidate that faults is skipped when the device
// has a beam_device factory (AmdDeviceConfig), else it stops the device's queue, which ends the
// search with that error. Errors: kInvalidArgument for another kind of device.
// The back end must not outlive the device.
Result<std::unique_ptr<compiler::BeamBackend>> amd_beam_backend(Device& device);

}  // namespace rawgpu::runtime
