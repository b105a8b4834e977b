// Typed register and field API for the generated AMD register tables.
//
// Each generated IP-version header (e.g. amd/regs/gc_11_0_0.h) is a struct per IP version that
// holds one struct per register:
//
//   struct gc_11_0_0 {
//     struct GCVM_CONTEXT0_CNTL : Reg<GCVM_CONTEXT0_CNTL> {
//       static constexpr RegInfo kInfo{"GCVM_CONTEXT0_CNTL", 0x1688, 0};
//       static constexpr Field<GCVM_CONTEXT0_CNTL> ENABLE_CONTEXT{0, 1};
//       ...
//     };
//     static constexpr RegDesc kRegisters[] = {...};   // the same data, for lookup by name
//   };
//
// A Field<R> only combines with fields of the same register R, so a value is always built from
// named fields of the register it is written to:
//
//   using R = gc_11_0_0::GCVM_CONTEXT0_CNTL;
//   uint32_t v = R::encode(R::ENABLE_CONTEXT(1) | R::PAGE_TABLE_DEPTH(depth));  // write
//   uint32_t u = R::update(old, R::PAGE_TABLE_BLOCK_SIZE(9));                   // modify
//   uint64_t d = R::PAGE_TABLE_DEPTH.get(v);                                     // decode
//
// Because versions are structs, driver code can be a template over the IP version
// (`template <class GC> ... typename GC::GCVM_CONTEXT0_CNTL`); a register or field that a
// version lacks is then a compile error, not a wrong offset.
//
// Addresses: a register's MMIO dword address is ip_base[instance][kBaseIdx] + kOffset
// (Linux `asic_reg` convention); the bases come from IP discovery at run time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/error.h"

namespace rawgpu::autogen {

// Where a register lives: its name (without the reg/mm prefix), dword offset inside its
// base-address segment, and the segment index (BASE_IDX).
struct RegInfo {
  const char* name;
  uint32_t offset;
  uint32_t base_idx;
};

// A set of field values of register R (already shifted into place) and the mask they cover.
template <class R>
struct FieldValues {
  uint32_t mask = 0;
  uint32_t value = 0;

  friend constexpr FieldValues operator|(FieldValues a, FieldValues b) {
    RG_ASSERT((a.mask & b.mask) == 0);  // the same field twice is a programming error
    return {a.mask | b.mask, a.value | b.value};
  }
};

// A bit field [shift, shift + width) of the 32-bit register R.
template <class R>
struct Field {
  uint8_t shift = 0;
  uint8_t width = 0;

  constexpr uint32_t mask() const { return static_cast<uint32_t>(low_mask(width) << shift); }
  constexpr uint32_t max_value() const { return static_cast<uint32_t>(low_mask(width)); }
  constexpr bool fits(uint64_t v) const { return fits_bits(v, width); }
  // Decodes the field from a register value.
  constexpr uint32_t get(uint32_t reg_value) const {
    return static_cast<uint32_t>(extract_bits(reg_value, shift, width));
  }
  // Encodes v into the field. A value wider than the field is a programming error (asserted);
  // use checked() for values that come from outside.
  constexpr FieldValues<R> operator()(uint64_t v) const {
    RG_ASSERT(fits(v));
    return {mask(), static_cast<uint32_t>(v << shift)};
  }
  // Encodes v, or kOutOfRange naming the register and field if it does not fit.
  Result<FieldValues<R>> checked(uint64_t v, const char* field_name = "field") const {
    if (!fits(v))
      return make_error(Errc::kOutOfRange, "value 0x%llx does not fit in %s.%s (%u bits, max 0x%x)",
                        static_cast<unsigned long long>(v), R::kInfo.name, field_name,
                        unsigned{width}, max_value());
    return FieldValues<R>{mask(), static_cast<uint32_t>(v << shift)};
  }
  // Converts to a generic BitField (absolute bit position in a 32-bit word).
  constexpr BitField bit_field() const { return {shift, width}; }
};

// CRTP base of every generated register struct R.
template <class R>
struct Reg {
  // The whole register value built from fields; bits of no listed field are 0.
  static constexpr uint32_t encode(FieldValues<R> f) { return f.value; }
  // Read-modify-write: `old` with the listed fields replaced.
  static constexpr uint32_t update(uint32_t old, FieldValues<R> f) {
    return (old & ~f.mask) | f.value;
  }
  // MMIO dword address given the IP instance's base-address segments (from discovery).
  static constexpr uint64_t address(std::span<const uint64_t> bases) {
    RG_ASSERT(R::kInfo.base_idx < bases.size());
    return bases[R::kInfo.base_idx] + R::kInfo.offset;
  }
  static constexpr uint32_t offset() { return R::kInfo.offset; }
  static constexpr uint32_t base_idx() { return R::kInfo.base_idx; }
};

// Run-time descriptions, for lookup by name (simulator, CLI, tests, version-generic code).
struct FieldDesc {
  const char* name;
  uint8_t shift;
  uint8_t width;
};
struct RegDesc {
  const char* name;
  uint32_t offset;
  uint32_t base_idx;
  std::span<const FieldDesc> fields;

  const FieldDesc* field(std::string_view n) const {
    for (const FieldDesc& f : fields)
      if (n == f.name) return &f;
    return nullptr;
  }
};

// Finds a register by name in a generated table (tables are sorted by name).
inline const RegDesc* find_reg(std::span<const RegDesc> table, std::string_view name) {
  size_t lo = 0, hi = table.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const std::string_view m = table[mid].name;
    if (m == name) return &table[mid];
    if (m < name)
      lo = mid + 1;
    else
      hi = mid;
  }
  return nullptr;
}

// Like find_reg, but a missing register is a kNotFound error naming the table.
inline Result<const RegDesc*> lookup_reg(std::span<const RegDesc> table, std::string_view name,
                                         const char* table_name) {
  if (const RegDesc* r = find_reg(table, name)) return r;
  return make_error(Errc::kNotFound, "register %.*s is not in the generated table %s",
                    static_cast<int>(name.size()), name.data(), table_name)
      .with_hint("add it to the IP's allow-list in autogen/gen/config.py and regenerate");
}

}  // namespace rawgpu::autogen
