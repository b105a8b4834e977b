// The device registry: devices by name, created on first use by their factories. "cpu" is
// built in; runtime_sim's register_sim_devices() adds "sim:gfx1100" and "sim:gfx1201"; the
// name "amd:<bdf>" opens that AMD GPU through VFIO and the AM driver (which boots it); "nv:<n>"
// comes with the NVIDIA issues. Process-wide, like the devices themselves.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/runtime/device.h"

namespace rawgpu::runtime {

using DeviceFactory = std::function<Result<std::unique_ptr<Device>>()>;

// Registers a factory for `name` (replaces an existing one and drops a started device of that
// name: its buffers must be gone).
void register_device(std::string name, DeviceFactory factory);
// The device called `name` (created on first use). kNotFound naming the devices there are; the
// factory's error (a device that failed to start) otherwise. An empty name is the default.
Result<Device*> get_device(std::string_view name);
// The registered device names, sorted.
std::vector<std::string> device_names();
// The device used when none is named: "cpu" unless set. set_default_device creates the device
// first (so a bad name is an error here, not at the first tensor).
Status set_default_device(std::string_view name);
const std::string& default_device();

}  // namespace rawgpu::runtime
