// Internal to runtime/: the device families the registry creates by name pattern.
#pragma once

#include <memory>
#include <string_view>

#include "rawgpu/base/error.h"
#include "rawgpu/runtime/device.h"

namespace rawgpu::runtime {

// "amd:<bdf>" (amd_pci_device.cpp).
Result<std::unique_ptr<Device>> open_amd_pci_device(std::string_view name);

}  // namespace rawgpu::runtime
