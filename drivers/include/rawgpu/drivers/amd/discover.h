// Finding and reading a GPU's IP discovery table over the PCI seam (amd.md §3.1):
//
//  1. Wait for the firmware: MP0_SMN_C2PMSG_33 (fixed dword 0x16061) bit 31 set says the
//     board's init (IFWI) is done and the table is in VRAM. amdgpu waits up to 2 s; a card that
//     was just hot-plugged (USB4, Thunderbolt) may still be running it.
//  2. VRAM size in MiB from RCC_CONFIG_MEMSIZE (fixed dword 0xDE3).
//  3. Optionally, BAR0 resized to cover all of VRAM (Resizable BAR) when it does not.
//  4. The binary at VRAM − 64 KiB: its header, then binary_size bytes, through BAR0 when BAR0
//     covers VRAM (large BAR), else through the MM_INDEX / MM_INDEX_HI / MM_DATA window of the
//     register BAR (one dword per access; small BAR, or a bridge that only forwards the
//     register BAR).
//  5. parse_discovery (discovery.h).
//
// Needs memory decode enabled in the command register. Waits run on the function's clock (the
// virtual clock in the simulator).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/discovery.h"
#include "rawgpu/drivers/pci/device.h"

namespace rawgpu::drivers::amd {

struct DiscoverOptions {
  bool resize_bar0 = true;  // step 3
};

struct DiscoveryRead {
  Discovery discovery;
  std::vector<uint8_t> bytes;  // the binary as read (binary_size bytes)
  uint64_t vram_size = 0;
  bool through_bar0 = false;  // false: the MM_INDEX/MM_DATA window
  std::string resize_error;   // why step 3 failed (BAR0 then stays as it was), or empty
};

// Errors: kTimeout (the firmware never finished), kHardware (reads of all ones: the function
// fell off the bus; VRAM size 0), kParse / kUnsupported from the table itself, each naming the
// device and the step.
Result<DiscoveryRead> read_discovery(pci::PciDevice& dev, const DiscoverOptions& options = {});

// Reads `out.size()` bytes of VRAM at byte offset `off` (multiples of 4) through the register
// BAR's MM_INDEX / MM_INDEX_HI / MM_DATA window: the path that works whatever BAR0's size.
void read_vram_indirect(pci::Mmio& regs, uint64_t off, std::span<uint8_t> out);

}  // namespace rawgpu::drivers::amd
