// The IP discovery binary the simulated GPU's "firmware" leaves at VRAM − 64 KiB, synthesised
// from a profile with the generated discovery.h layouts (binary header, IP discovery header
// v1–v4 with 32- or 64-bit bases, gc_info v1.x/v2.x, harvest table) and real checksums: the
// driver finds and parses it exactly as it would a real board's.
//
// Profiles: gfx1100 (Navi31: GC 11.0.0, SDMA 6.0.0, MP 13.0.0, NBIO 4.3.0, MMHUB 3.0.0, HDP /
// OSSSYS 6.0.0) and gfx1201 (Navi48: GC 12.0.1, SDMA 7.0.1, MP 14.0.3, NBIF 6.3.1, MMHUB 4.1.0,
// HDP / OSSSYS 7.0.0), both one die, IP discovery v4 with 32-bit bases; and gfx942 (MI300X as
// far as the simulator goes: four dies (AIDs), eight GC 9.4.3 instances (XCCs), sixteen SDMA
// 4.4.2 instances, 64-bit bases, gc_info v2.1), parsed but not booted. The base addresses are
// the ones tinygrad's mock GPU uses (amd.md §3.3) for every profile and die; the gc_info counts
// are those of the retail boards (Navi31 96 CUs, Navi48 64 CUs, MI300X 38 CUs per XCC). A
// real board's table — more blocks, other bases, its own gc_info minor — is unconfirmed here.
#pragma once

#include <cstdint>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/discovery.h"

namespace rawgpu::sim {

struct SimIpRecord {
  uint16_t hw_id = 0;
  uint8_t instance = 0;
  drivers::amd::IpVersion version;
  std::vector<uint64_t> bases;
  uint8_t variant = 0, sub_revision = 0;
};

struct SimDiscoverySpec {
  uint16_t binary_major = 1, binary_minor = 1;
  uint16_t ip_version = 4;  // IP discovery header version (1..4)
  bool base_addr_64 = false;
  std::vector<std::vector<SimIpRecord>> dies;  // die i's records
  std::vector<drivers::amd::HarvestEntry> harvest;
  bool harvest_table = true;
  // gc_info: major 1 (minor 0..3) or 2 (minor 0..1); counts as in drivers::amd::GcInfo (for
  // v2, cu_per_sh and sa_per_se = sh_per_se). version_major 0: no gc_info table.
  drivers::amd::GcInfo gc;
};

// The profile of a simulated GC version (110000, 120001, 90403); kUnsupported otherwise.
Result<SimDiscoverySpec> discovery_spec(uint32_t gc_version);

// Lays the spec out and fills in every checksum.
std::vector<uint8_t> build_discovery_table(const SimDiscoverySpec& spec);

}  // namespace rawgpu::sim
