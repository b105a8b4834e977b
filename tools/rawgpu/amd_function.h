// The AMD PCI function behind a device name, for the commands that look at a GPU's hardware
// without a driver (`rawgpu info`, `rawgpu regs`): `sim:gfx1100` / `sim:gfx1201` is a fresh
// simulated board (as its firmware leaves it), `amd:BDF` or `BDF` the function through VFIO
// (bound to vfio-pci). Reading it enables memory decode and reads the discovery table; nothing
// is programmed.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "rawgpu/drivers/amd/discover.h"
#include "rawgpu/drivers/pci/device.h"

namespace rawgpu::tools {

struct AmdFunctionInfo {
  drivers::amd::DiscoveryRead read;
  std::vector<pci::BarInfo> bars;
  uint16_t vendor = 0, device = 0;
  uint8_t revision = 0;
};

// The function behind `dev`, owned by `keep`; errors name the device and what to do.
Result<pci::PciDevice*> open_amd_function(std::string_view dev,
                                          std::unique_ptr<pci::PciDevice>& keep);
// Ids, BARs and the discovery table (memory decode enabled; BAR0 left as it is).
Result<AmdFunctionInfo> read_amd_function(pci::PciDevice& fn);

}  // namespace rawgpu::tools
