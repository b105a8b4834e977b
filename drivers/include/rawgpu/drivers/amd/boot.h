// The AM boot (amd.md §6–7): how PciAmdDevice brings an AMD GPU up from whatever state it finds
// — cold (firmware not loaded), warm (a previous rawgpu process left it up and finished
// cleanly), or alive but unusable (mode-1 reset first) — and the report of what it did.
//
// The IP blocks are objects with the same phases (software init: the boot allocations, in a
// fixed order that is ABI between processes; hardware init; fini), walked in order:
//   SOC (doorbell aperture) → GMC (MM hub: where the framebuffer sits) → IH (interrupt ring in
//   host DMA memory) → PSP (bootloader components, sOS, KM ring, LOAD_TOC, SMU firmware,
//   SETUP_TMR, LOAD_IP_FW for every image, AUTOLOAD_RLC) → SMU (driver table, features, clocks)
//   → GFX (RLC autoload wait, GC hub + VM context 0, MEC program counters and enable, SH_MEM
//   apertures) → SDMA (engines unhalted).
// A warm boot skips PSP and SMU hardware init (after a health probe: the sOS runs, the SMU
// answers, no latched VM fault) and resets the MEC instead of configuring it from scratch.
// Every wait names the register, the value it wanted and what it read; a failed step is the
// error, with the step's name as context and a hint of what to try.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/amd/firmware.h"

namespace rawgpu::drivers::amd {

// SCRATCH_REG7 after a finished rawgpu boot: 0xA0000000 | the boot-allocation layout version
// (a different layout must not warm-boot over this one's PSP ring and TMR).
inline constexpr uint32_t kBootLayoutVersion = 1;
inline constexpr uint32_t kBootMagic = 0xA0000000u | kBootLayoutVersion;

enum class BootKind : uint8_t {
  kCold,       // the firmware was not running: everything loaded
  kWarm,       // a previous rawgpu boot's state reused (PSP/SMU not touched)
  kColdReset,  // the firmware ran but the state was unusable (or --reset): mode-1 reset, cold
};
std::string_view boot_kind_name(BootKind kind);  // "cold", "warm", "cold after mode-1 reset"

struct BootStep {
  std::string block;  // "SOC", "GMC", "IH", "PSP", "SMU", "GFX", "SDMA"
  std::string name;   // "bootloader SOS", "LOAD_IP_FW RS64_MEC", "MEC enable", ...
  Nanos host{0};      // host wall time of the step
  Nanos device{0};    // time on the function's clock (register waits and sleeps)
  uint64_t mmio_reads = 0, mmio_writes = 0;
  bool skipped = false;  // warm boot: valid state reused
};

struct BootReport {
  BootKind kind = BootKind::kCold;
  std::string reason;  // why this kind ("SCRATCH_REG7 is not the boot stamp", ...)
  std::vector<BootStep> steps;
  Nanos host{0}, device{0};
  uint64_t mmio_reads = 0, mmio_writes = 0;
  // The firmware files used (cold boots): name, path, SHA-256.
  std::vector<FirmwareImage> firmware;
  // Per block: host time, device time and MMIO counts summed over its steps.
  std::vector<BootStep> per_block() const;
};

struct BootOptions {
  // Mode-1 reset whenever the firmware runs (rawgpu boot --reset), then a cold boot.
  bool force_reset = false;
  // Where the firmware files come from; empty dirs: FirmwareLoader's default
  // (/lib/firmware/amdgpu).
  std::vector<std::string> firmware_dirs;
  // Called after each step (progress display).
  std::function<void(const BootStep&)> progress;
};

// "SOC  doorbell aperture  0.01 ms host, 0 us device, 1 rd / 2 wr" lines plus a total.
std::string describe(const BootReport& report);

}  // namespace rawgpu::drivers::amd
