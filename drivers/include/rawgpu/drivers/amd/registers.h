// The register database of a discovered GPU: for each IP block of the discovery table the
// generated asic_reg table (autogen/) that describes it, chosen by amd.md §1's rule — the
// greatest table of the same IP family and major version that is ≤ the discovered version —
// with an override list where the rule is known wrong; then registers by name, with their MMIO
// dword address (the block's discovered base + offset) and decoded fields. Used by `rawgpu
// regs`, the simulator's traces and anything version-generic. Driver code that knows its
// version at compile time uses the typed structs instead (autogen/reg.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rawgpu/autogen/reg.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/discovery.h"

namespace rawgpu::drivers::amd {

struct RegTable {
  std::string_view name;  // "gc_11_0_0"
  std::span<const autogen::RegDesc> regs;
};

// The generated table for `version` of the block `hw_id`, or kNotFound naming the block, the
// version and the tables that exist for its family. SDMA on GC 10+ lives in the GC table.
Result<RegTable> select_reg_table(uint16_t hw_id, IpVersion version);

// A register found by name.
struct RegisterRef {
  const autogen::RegDesc* reg = nullptr;
  const IpBlock* block = nullptr;
  std::string_view table;
  uint32_t address = 0;  // MMIO dword address
};

class RegisterMap {
 public:
  // Tables for every non-harvested block of `d` that has one (blocks without a generated table
  // are skipped; `missing()` lists them). `d` must outlive the map.
  explicit RegisterMap(const Discovery& d);

  // By name ("CP_HQD_ACTIVE"; an upstream "reg"/"mm" prefix is accepted), optionally qualified
  // by block and instance ("GC:CP_HQD_ACTIVE"; "GC[3]:NAME" picks XCC 3; unqualified: the
  // first block of instance 0 whose table has it). kNotFound lists the blocks searched;
  // kInvalidArgument for a malformed name.
  Result<RegisterRef> find(std::string_view name) const;
  // The name of the register at a dword address, or empty (the first block in table order wins).
  std::string_view name_at(uint32_t address) const;
  // Blocks without a generated table ("VCN 4.0.0").
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  struct Entry {
    const IpBlock* block;
    RegTable table;
  };
  std::vector<Entry> entries_;
  std::unordered_map<uint32_t, std::string_view> names_;
  std::vector<std::string> missing_;
};

// "ENABLE_CONTEXT=1 PAGE_TABLE_DEPTH=3 ..." for every field of `r` (non-zero fields first is not
// done: table order), or "0x%08x" when the register has no fields.
std::string decode_fields(const autogen::RegDesc& r, uint32_t value);
// `value` with field `field` of `r` replaced by `field_value`; kNotFound (no such field) or
// kOutOfRange (does not fit) naming both.
Result<uint32_t> update_field(const autogen::RegDesc& r, std::string_view field, uint32_t value,
                              uint64_t field_value);

}  // namespace rawgpu::drivers::amd
