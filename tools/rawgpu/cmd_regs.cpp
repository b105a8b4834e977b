// `rawgpu regs DEV read NAME[.FIELD]` / `rawgpu regs DEV write NAME[.FIELD] VALUE`: a register
// of an AMD GPU by its upstream name, umr-style — the block and table it resolves to
// (drivers/amd/registers.h over the GPU's own discovery table), its MMIO address, the value
// and every field decoded. A field write is read-modify-write. On `sim:*` each command gets a
// fresh simulated board; on `amd:BDF` the write reaches the hardware.
#include <llvm/Support/JSON.h>

#include <charconv>

#include "amd_function.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/registers.h"

namespace rawgpu::tools {
namespace {

namespace amd = drivers::amd;

Result<uint64_t> parse_value(std::string_view t) {
  int base = 10;
  if (t.starts_with("0x") || t.starts_with("0X")) {
    t.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    return make_error(Errc::kInvalidArgument, "'%.*s' is not a number (decimal or 0x hex)",
                      static_cast<int>(t.size()), t.data());
  return v;
}

struct Access {
  amd::RegisterRef ref;
  std::string field;  // empty: the whole register
  uint32_t before = 0, after = 0;
  bool wrote = false;
};

Result<Access> run_access(pci::PciDevice& fn, const amd::Discovery& d, const std::string& op,
                          std::string_view name, const std::string* value) {
  Access a;
  const amd::RegisterMap map(d);
  std::string_view reg = name;
  if (const size_t dot = name.find('.'); dot != std::string_view::npos) {
    reg = name.substr(0, dot);
    a.field = std::string(name.substr(dot + 1));
  }
  a.ref = RG_TRY(map.find(reg));
  if (!a.field.empty() && a.ref.reg->field(a.field) == nullptr)
    return make_error(Errc::kNotFound, "register %s has no field %s", a.ref.reg->name,
                      a.field.c_str());
  pci::Mmio* regs = RG_TRY(fn.map_bar(5));
  const uint64_t off = uint64_t{a.ref.address} * 4;
  if (off + 4 > regs->size())
    return make_error(Errc::kOutOfRange,
                      "%s is at dword 0x%x, beyond the %s register BAR (an indirect register: "
                      "not reachable this way yet)",
                      a.ref.reg->name, a.ref.address, format_bytes(regs->size()).c_str());
  a.before = a.after = regs->rd32(off);
  if (op == "write") {
    const uint64_t v = RG_TRY(parse_value(*value));
    if (a.field.empty()) {
      if (v > 0xffffffffu)
        return make_error(Errc::kOutOfRange, "0x%llx does not fit a 32-bit register",
                          static_cast<unsigned long long>(v));
      a.after = static_cast<uint32_t>(v);
    } else {
      a.after = RG_TRY(amd::update_field(*a.ref.reg, a.field, a.before, v));
    }
    regs->wr32(off, a.after);
    a.after = regs->rd32(off);  // what the register holds now
    a.wrote = true;
  }
  return a;
}

uint64_t field_value(const autogen::RegDesc& r, const std::string& field, uint32_t v) {
  const autogen::FieldDesc* f = r.field(field);
  return (uint64_t{v} >> f->shift) & ((uint64_t{1} << f->width) - 1);
}

}  // namespace

cli::Command regs_command() {
  cli::Command c;
  c.name = "regs";
  c.summary = "read or write an AMD GPU register by its upstream name, fields decoded";
  c.description =
      "rawgpu regs DEV read NAME[.FIELD]\n"
      "rawgpu regs DEV write NAME[.FIELD] VALUE\n"
      "NAME is the upstream register name (CP_HQD_ACTIVE, regGCVM_CONTEXT0_CNTL), optionally\n"
      "qualified by block and instance (GC:NAME, GC[3]:NAME). The register table is chosen\n"
      "from the GPU's IP discovery table and the address is the block's discovered base plus\n"
      "the offset. A field write is read-modify-write; the value read back is printed. DEV:\n"
      "sim:gfx1100, sim:gfx1201 (a fresh simulated board per command) or amd:BDF.";
  c.options = {{"json", 'j', "", "print JSON", ""}};
  c.positionals = {{"DEV", "sim:gfx1100, sim:gfx1201 or amd:BDF", true, false},
                   {"OP", "read or write", true, false},
                   {"NAME", "register, or register.FIELD", true, false},
                   {"VALUE", "for write: decimal or 0x hex", false, false}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    const auto& p = args.positionals();
    const std::string& dev = p[0];
    const std::string& op = p[1];
    if (op != "read" && op != "write") {
      io.err << "rawgpu regs: OP is read or write, not '" << op << "'\n";
      return cli::kExitUsage;
    }
    if ((op == "write") != (p.size() == 4)) {
      io.err << "rawgpu regs: " << (op == "write" ? "write needs a VALUE" : "read takes no VALUE")
             << "\n";
      return cli::kExitUsage;
    }
    std::unique_ptr<pci::PciDevice> keep;
    Result<pci::PciDevice*> fn = open_amd_function(dev, keep);
    Result<AmdFunctionInfo> info =
        fn.ok() ? read_amd_function(**fn) : Result<AmdFunctionInfo>(fn.error());
    Result<Access> a = info.ok() ? run_access(**fn, info->read.discovery, op, p[2],
                                              p.size() == 4 ? &p[3] : nullptr)
                                 : Result<Access>(info.error());
    if (!a) {
      io.err << "rawgpu regs: " << a.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    const autogen::RegDesc& r = *a->ref.reg;
    const std::string block =
        strformat("%s[%u]", amd::hw_id_name(a->ref.block->hw_id).c_str(), a->ref.block->instance);
    if (args.flag("json")) {
      io.out << json_document("regs", [&](llvm::json::OStream& j) {
        j.attribute("device", dev);
        j.attribute("register", std::string(r.name));
        j.attribute("block", block);
        j.attribute("table", std::string(a->ref.table));
        j.attribute("address", static_cast<int64_t>(a->ref.address));
        if (a->wrote) j.attribute("before", static_cast<int64_t>(a->before));
        j.attribute("value", static_cast<int64_t>(a->after));
        j.attributeObject("fields", [&] {
          for (const autogen::FieldDesc& f : r.fields)
            j.attribute(f.name, static_cast<int64_t>(field_value(r, f.name, a->after)));
        });
      });
      return cli::kExitOk;
    }
    io.out << strformat("%s %s (%.*s) dword 0x%x", block.c_str(), r.name,
                        static_cast<int>(a->ref.table.size()), a->ref.table.data(), a->ref.address);
    if (a->wrote) io.out << strformat(": 0x%08x ->", a->before);
    if (!a->field.empty())
      io.out << strformat(" %s.%s = 0x%llx\n", r.name, a->field.c_str(),
                          static_cast<unsigned long long>(field_value(r, a->field, a->after)));
    else
      io.out << strformat(" = 0x%08x\n  %s\n", a->after, amd::decode_fields(r, a->after).c_str());
    return cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
