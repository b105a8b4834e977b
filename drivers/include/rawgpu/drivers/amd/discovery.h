// AMD IP discovery: the table the GPU's firmware leaves at the top of VRAM (VRAM − 64 KiB,
// at most 10 KiB) that says which IP blocks the chip has, their versions, and where each
// instance's registers live (base-address segments, dword addresses). Every register address
// the AM driver uses is `base[instance][segment] + offset`, with the bases from here and the
// offsets from the generated asic_reg tables (autogen/) — never a per-chip constant.
//
// The parser treats the table as untrusted bytes: the binary header and every table are
// checked against their signatures, sizes and 16-bit byte-sum checksums; die offsets, IP
// records and base arrays are bounds-checked; an inconsistency is a kParse error that names
// the table, field, offset and value. Layouts are the generated discovery.h structs (Linux
// include/discovery.h): binary header v1/v2, IP discovery v1–v4 (v4 may carry 64-bit bases),
// harvest table, gc_info v1.0–v1.3 (RDNA) and v2.0–v2.1 (CDNA).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/autogen/reg.h"
#include "rawgpu/base/error.h"

namespace rawgpu::drivers::amd {

// Where the table sits and how much of it is read (amdgpu's DISCOVERY_TMR_OFFSET/_SIZE).
inline constexpr uint64_t kDiscoveryOffsetFromTop = 64 << 10;
inline constexpr uint64_t kDiscoveryMaxBytes = 10 << 10;

struct IpVersion {
  uint8_t major = 0, minor = 0, revision = 0;
  // major * 10000 + minor * 100 + revision (110000 = 11.0.0), the form gc_version() uses.
  uint32_t packed() const { return major * 10000u + minor * 100u + revision; }
  std::string str() const;  // "11.0.0"
  friend auto operator<=>(const IpVersion&, const IpVersion&) = default;
};

// One IP instance of the discovery table.
struct IpBlock {
  uint16_t hw_id = 0;  // soc15_hw_ip.h id (GC 11, SDMA0 42, MP0 255, ...)
  uint8_t instance = 0;
  uint16_t die = 0;
  IpVersion version;
  uint8_t variant = 0, sub_revision = 0;  // IP discovery v3+ (0 before)
  bool harvested = false;  // listed in the harvest table (or the v1/v2 harvest nibble)
  // Base-address segments (dword addresses of the MMIO aperture), indexed by BASE_IDX. 64-bit
  // tables keep all bits; register addresses use the low 32, as amdgpu does.
  std::vector<uint64_t> bases;

  // The MMIO dword address of generated register R in this instance; kOutOfRange when the
  // register's segment is not among the instance's bases.
  template <class R>
  Result<uint32_t> reg() const {
    return reg_address(R::kInfo.name, R::kInfo.offset, R::kInfo.base_idx);
  }
  Result<uint32_t> reg_address(const autogen::RegDesc& r) const {
    return reg_address(r.name, r.offset, r.base_idx);
  }
  Result<uint32_t> reg_address(const char* name, uint32_t offset, uint32_t base_idx) const;
};

// gc_info (table_list[GC]): the shader-engine layout. v1.x (RDNA) counts WGPs per shader
// array; v2.x (CDNA) counts CUs per shader array ("SH"). Derived counts follow amdgpu.
struct GcInfo {
  uint16_t version_major = 0, version_minor = 0;
  uint32_t num_se = 0;
  uint32_t wgp0_per_sa = 0, wgp1_per_sa = 0;  // v1
  uint32_t cu_per_sh = 0;                     // v2
  uint32_t sa_per_se = 0;                     // v1.2+: gc_num_sa_per_se; v2: gc_num_sh_per_se
  uint32_t rb_per_se = 0;
  uint32_t gl2c = 0;  // v1: gc_num_gl2c; v2: gc_num_tccs
  uint32_t gprs = 0;
  uint32_t wave_size = 0, max_waves_per_simd = 0, max_scratch_slots_per_cu = 0;
  uint32_t lds_size_kib = 0;
  uint32_t sc_per_se = 0;
  // CUs per shader array: v1 2 × (wgp0 + wgp1), v2 cu_per_sh.
  uint32_t cu_per_sa() const;
  // Shader arrays over the whole GPU (num_se × sa_per_se; 0 when v1.0/v1.1 omit sa_per_se).
  uint32_t shader_arrays() const { return num_se * sa_per_se; }
  uint32_t cu_count() const { return cu_per_sa() * shader_arrays(); }
};

struct HarvestEntry {
  uint16_t hw_id = 0;
  uint8_t instance = 0;
};

struct Discovery {
  uint16_t binary_major = 0, binary_minor = 0;
  uint16_t ip_version = 0;  // IP discovery header version (1..4)
  uint32_t ip_table_id = 0;
  bool base_addr_64 = false;
  uint16_t num_dies = 0;
  std::vector<IpBlock> ips;  // table order (die by die)
  std::vector<HarvestEntry> harvest;
  std::optional<GcInfo> gc;
  uint32_t binary_bytes = 0;  // binary_size

  // The instance of hw_id, or nullptr.
  const IpBlock* find(uint16_t hw_id, uint8_t instance = 0) const;
  // The instance, or kNotFound naming the block ("the discovery table lists no MP1 instance 0").
  Result<const IpBlock*> require(uint16_t hw_id, uint8_t instance = 0) const;
  // Instances of hw_id that are not harvested.
  unsigned count(uint16_t hw_id) const;
};

// Parses a discovery binary (normally the kDiscoveryMaxBytes read from VRAM − 64 KiB).
Result<Discovery> parse_discovery(std::span<const uint8_t> bytes);

// The 16-bit byte sum amdgpu checksums discovery tables with.
uint16_t discovery_checksum(std::span<const uint8_t> bytes);

// "GC", "SDMA0", "MP0", "NBIO", ...; "HWID 0x123" for ids without a name here.
std::string hw_id_name(uint16_t hw_id);

// The LLVM target of a GC IP version (Linux kfd_device.c's table; amd.md §1): "gfx1100" for
// 11.0.0, "gfx1101" for 11.0.3, "gfx942" for 9.4.3/9.4.4, ...; empty when unknown. `rev_id` is
// the PCI revision (GC 9.4.3 with rev 0 is gfx940/941, not gfx942).
std::string_view gc_target(IpVersion gc, uint8_t rev_id = 1);

// A human summary, one line per IP instance ("GC 11.0.0 inst 0 bases 0x1260 0xa000 ..."),
// then gc_info and the harvest list (rawgpu info).
std::string describe(const Discovery& d);

}  // namespace rawgpu::drivers::amd
