#include "register_names.h"

#include <array>
#include <span>
#include <unordered_map>

#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/hdp_6_0_0.h"
#include "rawgpu/autogen/amd/regs/hdp_7_0_0.h"
#include "rawgpu/autogen/amd/regs/mmhub_3_0_0.h"
#include "rawgpu/autogen/amd/regs/mmhub_4_1_0.h"
#include "rawgpu/autogen/amd/regs/mp_13_0_0.h"
#include "rawgpu/autogen/amd/regs/mp_14_0_2.h"
#include "rawgpu/autogen/amd/regs/nbif_6_3_1.h"
#include "rawgpu/autogen/amd/regs/nbio_4_3_0.h"
#include "rawgpu/autogen/amd/regs/osssys_6_0_0.h"
#include "rawgpu/autogen/amd/regs/osssys_7_0_0.h"

namespace rawgpu::sim {
namespace {

namespace a = autogen::amd;

// Segment bases (IP discovery of the simulated profiles; the same for both).
constexpr uint32_t kGcBases[] = {0x1260, 0xA000, 0x1C000, 0x2402C00};
constexpr uint32_t kMmhubBases[] = {0x1A000, 0x2408800};
constexpr uint32_t kNbioBases[] = {0x0, 0x14, 0xD20, 0x10400, 0x241B000, 0x4040000};
constexpr uint32_t kHdpBases[] = {0xF20, 0x240A400};
constexpr uint32_t kOsssysBases[] = {0x10A0, 0x240A000};
constexpr uint32_t kMpBases[] = {0x16000, 0xDC0000, 0xE00000, 0xE40000, 0x243FC00};

using Map = std::unordered_map<uint32_t, std::string_view>;

template <size_t N>
void add(Map& m, const std::array<autogen::RegDesc, N>& regs, std::span<const uint32_t> bases) {
  for (const autogen::RegDesc& r : regs) {
    if (r.base_idx >= bases.size()) continue;
    m.emplace(bases[r.base_idx] + r.offset, r.name);  // the first name of an address stays
  }
}

const Map& gfx11() {
  static const Map m = [] {
    Map t;
    add(t, a::gc_11_0_0::kRegisters, kGcBases);
    add(t, a::mmhub_3_0_0::kRegisters, kMmhubBases);
    add(t, a::nbio_4_3_0::kRegisters, kNbioBases);
    add(t, a::hdp_6_0_0::kRegisters, kHdpBases);
    add(t, a::osssys_6_0_0::kRegisters, kOsssysBases);
    add(t, a::mp_13_0_0::kRegisters, kMpBases);
    return t;
  }();
  return m;
}

const Map& gfx12() {
  static const Map m = [] {
    Map t;
    add(t, a::gc_12_0_0::kRegisters, kGcBases);
    add(t, a::mmhub_4_1_0::kRegisters, kMmhubBases);
    add(t, a::nbif_6_3_1::kRegisters, kNbioBases);
    add(t, a::hdp_7_0_0::kRegisters, kHdpBases);
    add(t, a::osssys_7_0_0::kRegisters, kOsssysBases);
    add(t, a::mp_14_0_2::kRegisters, kMpBases);
    return t;
  }();
  return m;
}

}  // namespace

std::string_view register_name(uint32_t gc_version, uint32_t dword) {
  const Map& m = gc_version >= 120000 ? gfx12() : gfx11();
  auto it = m.find(dword);
  return it == m.end() ? std::string_view{} : it->second;
}

}  // namespace rawgpu::sim
