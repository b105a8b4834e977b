// The Tensor back end for NVIDIA GPUs over the kernel-driver path (drivers/nv RmGpu): buffers
// are VRAM mapped at one address for the CPU and the GPU, kernels are compiled for the GPU's SM
// (tensor cores first where a kernel takes them, GROUP reductions next), loaded, and launched
// through a QMD on the compute channel with a 64-bit timeline signal. "sim:sm_86", "sim:sm_89"
// and "sim:sm_90" run it on the simulated kernel driver and GPU (sim_devices.h); "nv:<n>" on a
// machine's NVIDIA driver.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/runtime/device.h"

namespace rawgpu::runtime {

struct NvDeviceConfig {
  std::string name;  // the Tensor device name, e.g. "sim:sm_90"
  // The GPU, and what keeps its kernel (and RM client) alive: destroyed after the device.
  std::unique_ptr<nv::RmGpu> gpu;
  std::shared_ptr<void> keep_alive;
  // The GPU executes PTX images (the simulator); a real GPU needs cubins (ptxas).
  bool executes_ptx = false;
  std::vector<int64_t> group_lanes = {32, 16, 8};
  bool tensor_cores = true;
  // QMD layout: 3 (V03, every architecture) or 4 (V04, Hopper). open_nv_device takes it from
  // RAWGPU_NV_QMD (default 3) so a device check can try both on a real H200.
  uint32_t qmd_version = 3;
};

Result<std::unique_ptr<Device>> make_nv_device(NvDeviceConfig config);

// "nv:<n>": GPU n of this machine's NVIDIA kernel driver. kNotFound without the driver;
// kInvalidArgument for a RAWGPU_NV_QMD other than 3 or 4.
Result<std::unique_ptr<Device>> open_nv_device(std::string_view name);

}  // namespace rawgpu::runtime
