// The simulated AMD GPUs as Tensor devices: "sim:gfx1100" (RDNA3) and "sim:gfx1201" (RDNA4).
// Each is a sim::AmdGpu (simulated VRAM, page tables, PM4 and SDMA queues) with the RDNA wave
// emulator (sim::rdna::Emulator) installed as its dispatch executor, driven by the generic AMD
// back end (amd_device.h). Lives in its own library (rawgpu_runtime_sim) so that the device
// layer itself does not depend on sim/.
#pragma once

#include <string_view>

#include "rawgpu/sim/rdna.h"

namespace rawgpu::runtime {

// Registers both simulated devices with the device registry; devices start on first use. Calling it
// again replaces started ones by fresh devices (tensors on the old ones must be gone).
void register_sim_devices();
// The emulator of a started simulated device (statistics, per-opcode counters); nullptr if the
// device has not been created yet or is not a simulated one.
sim::rdna::Emulator* sim_emulator(std::string_view device);

}  // namespace rawgpu::runtime
