// Where the simulated boards decode their IP blocks' registers: the MMIO segment bases (dword
// addresses) of each block, the same on both profiles. They are the hardware's fact; the
// discovery table the board leaves in VRAM (discovery_table.h) publishes them, and the
// register decode of the simulated GPU (amd_regs.cpp) answers at them. The values are the ones
// tinygrad's mock GPU uses (amd.md §3.3); a real Navi31/Navi48's are unconfirmed here.
#pragma once

#include <array>
#include <cstdint>

namespace rawgpu::sim::bases {

inline constexpr std::array<uint32_t, 4> kGc{0x1260, 0xA000, 0x1C000, 0x2402C00};
inline constexpr std::array<uint32_t, 2> kMmhub{0x1A000, 0x2408800};
inline constexpr std::array<uint32_t, 6> kNbio{0x0, 0x14, 0xD20, 0x10400, 0x241B000, 0x4040000};
inline constexpr std::array<uint32_t, 5> kMp{0x16000, 0xDC0000, 0xE00000, 0xE40000, 0x243FC00};
inline constexpr std::array<uint32_t, 2> kHdp{0xF20, 0x240A400};
inline constexpr std::array<uint32_t, 2> kOsssys{0x10A0, 0x240A000};

}  // namespace rawgpu::sim::bases
