#include "rawgpu/drivers/amd/registers.h"

#include <cctype>
#include <charconv>

#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/regs/all.h"
#include "rawgpu/base/format.h"

namespace rawgpu::drivers::amd {
namespace {

namespace hw = autogen::amd::hwid;

struct Known {
  std::string_view family;
  IpVersion version;
  RegTable table;
};

// "gc_11_0_0" -> family "gc", 11.0.0 ("mp_11_0" -> 11.0.0).
Known known(std::string_view name, std::span<const autogen::RegDesc> regs) {
  Known k;
  k.table = {name, regs};
  const size_t us = name.find('_');
  k.family = name.substr(0, us);
  uint8_t parts[3] = {0, 0, 0};
  std::string_view rest = name.substr(us + 1);
  for (int i = 0; i < 3 && !rest.empty(); ++i) {
    const size_t e = rest.find('_');
    const std::string_view p = rest.substr(0, e);
    std::from_chars(p.data(), p.data() + p.size(), parts[i]);
    rest = e == std::string_view::npos ? std::string_view{} : rest.substr(e + 1);
  }
  k.version = {parts[0], parts[1], parts[2]};
  return k;
}

const std::vector<Known>& tables() {
#define RG_KNOWN(t) known(#t, autogen::amd::t::kRegisters)
  static const std::vector<Known> v = {RG_AUTOGEN_AMD_REG_TABLES(RG_KNOWN)};
#undef RG_KNOWN
  return v;
}

const Known* by_name(std::string_view name) {
  for (const Known& k : tables())
    if (k.table.name == name) return &k;
  return nullptr;
}

// Where the selection rule is known wrong (amd.md §1): Linux gives MP 13.0.7 and 13.0.10 the
// 13.0.0 message and register layout, the rule would pick the MI300 table 13_0_6; SDMA 6/7 are
// programmed through the GC 11/12 tables (their registers are in gc_*_offset.h).
struct Override {
  uint16_t hw_id;
  IpVersion version;
  uint8_t any_minor;  // 1: every version with this major
  std::string_view table;
};
constexpr Override kOverrides[] = {
    {hw::MP0_HWID, {13, 0, 7}, 0, "mp_13_0_0"},  {hw::MP1_HWID, {13, 0, 7}, 0, "mp_13_0_0"},
    {hw::MP0_HWID, {13, 0, 10}, 0, "mp_13_0_0"}, {hw::MP1_HWID, {13, 0, 10}, 0, "mp_13_0_0"},
    {hw::SDMA0_HWID, {6, 0, 0}, 1, "gc_11_0_0"}, {hw::SDMA1_HWID, {6, 0, 0}, 1, "gc_11_0_0"},
    {hw::SDMA0_HWID, {7, 0, 0}, 1, "gc_12_0_0"}, {hw::SDMA1_HWID, {7, 0, 0}, 1, "gc_12_0_0"},
};

// The families a block's tables come from.
std::vector<std::string_view> families(uint16_t hw_id) {
  switch (hw_id) {
    case hw::GC_HWID: return {"gc"};
    case hw::SDMA0_HWID:
    case hw::SDMA1_HWID: return {"sdma"};
    case hw::MMHUB_HWID: return {"mmhub"};
    case hw::NBIF_HWID: return {"nbio", "nbif"};  // one hw_id for both generations
    case hw::MP0_HWID:
    case hw::MP1_HWID: return {"mp"};
    case hw::OSSSYS_HWID: return {"osssys"};
    case hw::HDP_HWID: return {"hdp"};
    case hw::SMUIO_HWID: return {"smuio"};
    default: return {};
  }
}

}  // namespace

Result<RegTable> select_reg_table(uint16_t hw_id, IpVersion v) {
  for (const Override& o : kOverrides)
    if (o.hw_id == hw_id && (o.any_minor ? o.version.major == v.major : o.version == v))
      return by_name(o.table)->table;
  const Known* best = nullptr;
  std::string have;
  for (std::string_view f : families(hw_id))
    for (const Known& k : tables()) {
      if (k.family != f) continue;
      have += (have.empty() ? "" : ", ") + std::string(k.table.name);
      if (k.version.major == v.major && k.version <= v && (!best || best->version < k.version))
        best = &k;
    }
  if (best != nullptr) return best->table;
  return make_error(Errc::kNotFound, "no generated register table for %s %s (tables: %s)",
                    hw_id_name(hw_id).c_str(), v.str().c_str(),
                    have.empty() ? "none for this block" : have.c_str())
      .with_hint("add the IP version to autogen/gen/config.py and regenerate");
}

RegisterMap::RegisterMap(const Discovery& d) {
  for (const IpBlock& b : d.ips) {
    if (b.harvested) continue;
    Result<RegTable> t = select_reg_table(b.hw_id, b.version);
    if (t.ok())
      entries_.push_back({&b, *t});
    else
      missing_.push_back(hw_id_name(b.hw_id) + " " + b.version.str());
  }
  for (const Entry& e : entries_)
    for (const autogen::RegDesc& r : e.table.regs)
      if (const Result<uint32_t> a = e.block->reg_address(r); a.ok())
        names_.emplace(*a, r.name);  // the first name of an address stays
}

Result<RegisterRef> RegisterMap::find(std::string_view name) const {
  std::string_view block;
  int instance = -1;
  if (const size_t colon = name.find(':'); colon != std::string_view::npos) {
    block = name.substr(0, colon);
    name = name.substr(colon + 1);
    if (const size_t br = block.find('['); br != std::string_view::npos) {
      if (block.back() != ']')
        return make_error(Errc::kInvalidArgument, "'%.*s': write BLOCK[INSTANCE]:NAME",
                          static_cast<int>(block.size()), block.data());
      const std::string_view n = block.substr(br + 1, block.size() - br - 2);
      unsigned v = 0;
      auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
      if (ec != std::errc() || p != n.data() + n.size() || v > 255)
        return make_error(Errc::kInvalidArgument, "'%.*s': bad instance number",
                          static_cast<int>(block.size()), block.data());
      instance = static_cast<int>(v);
      block = block.substr(0, br);
    }
  }
  // Upstream prefixes: regGCVM_..., mmMP1_... (lower-case, then the upper-case name).
  for (std::string_view pre : {"reg", "mm"})
    if (name.size() > pre.size() && name.starts_with(pre) &&
        std::isupper(static_cast<unsigned char>(name[pre.size()])))
      name.remove_prefix(pre.size());
  if (name.empty()) return make_error(Errc::kInvalidArgument, "empty register name");
  std::string searched;
  for (const Entry& e : entries_) {
    const std::string bname = hw_id_name(e.block->hw_id);
    if (!block.empty() && block != bname) continue;
    if (e.block->instance != (instance < 0 ? 0 : instance)) continue;
    searched +=
        strformat("%s%s[%u] (%.*s)", searched.empty() ? "" : ", ", bname.c_str(), e.block->instance,
                  static_cast<int>(e.table.name.size()), e.table.name.data());
    const autogen::RegDesc* r = autogen::find_reg(e.table.regs, name);
    if (r == nullptr) continue;
    const Result<uint32_t> a = e.block->reg_address(*r);
    if (!a.ok()) return a.error();
    return RegisterRef{r, e.block, e.table.name, *a};
  }
  return make_error(
      Errc::kNotFound, "register %.*s is not in %s", static_cast<int>(name.size()), name.data(),
      searched.empty() ? "any block of this GPU matching the qualifier" : searched.c_str());
}

std::string_view RegisterMap::name_at(uint32_t address) const {
  auto it = names_.find(address);
  return it == names_.end() ? std::string_view{} : it->second;
}

std::string decode_fields(const autogen::RegDesc& r, uint32_t value) {
  if (r.fields.empty()) return strformat("0x%08x", value);
  std::string s;
  for (const autogen::FieldDesc& f : r.fields) {
    const uint64_t v = (uint64_t{value} >> f.shift) & ((uint64_t{1} << f.width) - 1);
    s += strformat("%s%s=0x%llx", s.empty() ? "" : " ", f.name, static_cast<unsigned long long>(v));
  }
  return s;
}

Result<uint32_t> update_field(const autogen::RegDesc& r, std::string_view field, uint32_t value,
                              uint64_t field_value) {
  const autogen::FieldDesc* f = r.field(field);
  if (f == nullptr)
    return make_error(Errc::kNotFound, "register %s has no field %.*s", r.name,
                      static_cast<int>(field.size()), field.data());
  const uint64_t max = (uint64_t{1} << f->width) - 1;
  if (field_value > max)
    return make_error(Errc::kOutOfRange, "0x%llx does not fit %s.%s (%u bits, max 0x%llx)",
                      static_cast<unsigned long long>(field_value), r.name, f->name, f->width,
                      static_cast<unsigned long long>(max));
  const uint32_t mask = static_cast<uint32_t>(max << f->shift);
  return (value & ~mask) | static_cast<uint32_t>(field_value << f->shift);
}

}  // namespace rawgpu::drivers::amd
