// Names of the simulated GPUs' MMIO registers by dword address, for traces: the upstream
// register tables (autogen/) placed at the IP segment bases of each profile (emulation.md §2.1,
// amd.md §3.3). Internal to sim/.
#pragma once

#include <cstdint>
#include <string_view>

namespace rawgpu::sim {

// The register at MMIO dword address `dword` of the profile with GC version `gc_version`
// (110000 gfx1100, 120001 gfx1201), or an empty view. The first table that names an address
// wins (GC, MMHUB, NBIO/NBIF, HDP, OSSSYS, MP in that order).
std::string_view register_name(uint32_t gc_version, uint32_t dword);

}  // namespace rawgpu::sim
