// NVIDIA cubin parser (see rawgpu/drivers/nv/cubin.h): ELF through LLVM's Object library,
// .nv.info records decoded here (format byte, attribute byte, u16 size-or-value; nv.md 3.10).
#include "rawgpu/drivers/nv/cubin.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <algorithm>
#include <bitset>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "../quote.h"
#include "rawgpu/base/format.h"

namespace rawgpu::drivers::nv {
namespace {

using Elf = llvm::object::ELF64LEFile;
using detail::quote;
constexpr uint16_t kEmCuda = 190;
constexpr uint32_t kRelocR64 = 2, kRelocLo = 0x38, kRelocHi = 0x39;

Error parse_error(std::string msg) {
  return std::move(Error(Errc::kParse, std::move(msg))
                       .with_hint("the file is not a valid cubin (truncated or corrupted?); "
                                  "re-create it with ptxas"));
}

template <class T>
Result<T> take(llvm::Expected<T> e, std::string_view what) {
  if (!e) {
    std::string m = llvm::toString(e.takeError());
    return parse_error(strformat("%.*s: %s", int(what.size()), what.data(), m.c_str()));
  }
  return std::move(*e);
}

template <class T>
T rd(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Record {
  uint8_t format, attr;
  uint16_t value;                   // HVAL value or SVAL size
  llvm::ArrayRef<uint8_t> payload;  // SVAL bytes
};

Result<std::vector<Record>> records(llvm::ArrayRef<uint8_t> d, std::string_view sec) {
  std::vector<Record> out;
  size_t i = 0;
  while (i < d.size()) {
    if (d.size() - i < 4)
      return parse_error(strformat("%s: record header cut at byte %zu", quote(sec).c_str(), i));
    Record r{d[i], d[i + 1], rd<uint16_t>(d.data() + i + 2), {}};
    i += 4;
    if (r.format == 0x04) {
      if (d.size() - i < r.value)
        return parse_error(strformat("%s: attribute 0x%02x claims %u payload bytes, %zu left",
                                     quote(sec).c_str(), r.attr, r.value, d.size() - i));
      r.payload = d.slice(i, r.value);
      i += r.value;
    } else if (r.format < 0x01 || r.format > 0x03) {
      return parse_error(strformat("%s: unknown record format 0x%02x at byte %zu",
                                   quote(sec).c_str(), r.format, i - 4));
    }
    out.push_back(r);
  }
  return out;
}

Error need(const Record& r, size_t n, std::string_view kernel) {
  return parse_error(
      strformat("kernel %s: attribute 0x%02x has %zu payload bytes, expected at least %zu",
                quote(kernel).c_str(), r.attr, r.payload.size(), n));
}

std::string_view view(llvm::StringRef s) { return {s.data(), s.size()}; }

// N of .nv.constant<N>[.<kernel>]: one or two decimal digits.
Result<uint32_t> bank_number(std::string_view num, std::string_view section) {
  uint32_t bank = 0;
  for (char ch : num) {
    if (ch < '0' || ch > '9')
      return parse_error(strformat("constant bank section %s: bank number is not decimal",
                                   quote(section).c_str()));
    bank = bank * 10 + uint32_t(ch - '0');
  }
  return bank;
}

// Writes the step count into the caller's stats on every return path.
struct StepCounter {
  CubinParseStats* out;
  uint64_t n = 0;
  ~StepCounter() {
    if (out != nullptr) out->steps = n;
  }
};

}  // namespace

const CubinKernel* Cubin::find(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

Result<Cubin> parse_cubin(std::span<const uint8_t> bytes, CubinParseStats* stats) {
  StepCounter steps{stats};
  if (bytes.size() < sizeof(llvm::ELF::Elf64_Ehdr))
    return parse_error(strformat("cubin is %zu bytes, shorter than an ELF64 header", bytes.size()));
  if (std::memcmp(bytes.data(), llvm::ELF::ElfMagic, 4) != 0)
    return parse_error("cubin does not start with the ELF magic");
  if (bytes[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      bytes[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return parse_error("cubin is not ELF64 little-endian");
  const llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Elf elf = RG_TRY(take(Elf::create(data), "ELF header"));
  const auto& eh = elf.getHeader();
  if (eh.e_machine != kEmCuda)
    return make_error(Errc::kUnsupported, "ELF machine is %u, not EM_CUDA (190)",
                      unsigned(eh.e_machine));
  Cubin cb;
  cb.e_flags = eh.e_flags;
  cb.sm = (eh.e_flags >> 8) & 0xff;
  auto sections = RG_TRY(take(elf.sections(), "section headers"));
  llvm::StringRef shstr = RG_TRY(take(elf.getSectionStringTable(sections), "section names"));
  // Section names point into the input (the section name table), as do symbol names.
  std::vector<std::string_view> names;
  names.reserve(sections.size());
  for (const auto& sh : sections) {
    ++steps.n;
    names.push_back(view(RG_TRY(take(elf.getSectionName(sh, shstr), "section name"))));
  }
  // The sections whose contents are walked (.nv.info*, relocations): in a well-formed file they
  // are disjoint, so together they hold at most the file's bytes. Sections sharing contents
  // (many headers pointing at one large table) would make the walk quadratic: refused.
  uint64_t walked = 0;
  auto walk = [&](size_t i) -> Status {
    walked += sections[i].sh_size;
    if (sections[i].sh_size > bytes.size() || walked > bytes.size())
      return parse_error(
          strformat("section %s: the .nv.info and relocation sections hold more bytes than the "
                    "%zu-byte file (sections overlap)",
                    quote(names[i]).c_str(), bytes.size()));
    return ok_status();
  };
  auto content = [&](size_t i) -> Result<llvm::ArrayRef<uint8_t>> {
    RG_TRY(walk(i));
    return take(elf.getSectionContents(sections[i]), quote(names[i]));
  };

  // Symbols: index -> name, and name -> first index; where each is defined in the file.
  std::vector<std::string_view> sym_names;
  std::vector<std::optional<uint64_t>> sym_file_offset;
  std::unordered_map<std::string_view, uint32_t> sym_index;
  for (const auto& sh : sections) {
    if (sh.sh_type != llvm::ELF::SHT_SYMTAB) continue;
    auto syms = RG_TRY(take(elf.symbols(&sh), "symbol table"));
    llvm::StringRef strtab = RG_TRY(take(elf.getStringTableForSymtab(sh, sections), "strtab"));
    sym_names.reserve(syms.size());
    sym_index.reserve(syms.size());
    for (const auto& s : syms) {
      ++steps.n;
      std::string_view nm = view(RG_TRY(take(s.getName(strtab), "symbol name")));
      if (s.getType() == llvm::ELF::STT_SECTION && s.st_shndx < llvm::ELF::SHN_LORESERVE &&
          s.st_shndx < names.size())
        nm = names[s.st_shndx];
      sym_index.emplace(nm, uint32_t(sym_names.size()));
      sym_names.push_back(nm);
      std::optional<uint64_t> at;
      if (s.st_shndx != llvm::ELF::SHN_UNDEF && s.st_shndx < llvm::ELF::SHN_LORESERVE &&
          s.st_shndx < sections.size()) {
        const auto& def = sections[s.st_shndx];
        if (def.sh_type != llvm::ELF::SHT_NOBITS && s.st_value <= def.sh_size &&
            def.sh_offset <= bytes.size() && def.sh_size <= bytes.size() - def.sh_offset)
          at = def.sh_offset + s.st_value;
      }
      sym_file_offset.push_back(at);
    }
    break;
  }

  // Global .nv.info: per-function records keyed by symbol index.
  std::unordered_map<uint32_t, uint32_t> regs, stack, frame;
  bool have_global_info = false;
  for (size_t i = 0; i < names.size(); ++i) {
    ++steps.n;
    if (names[i] != ".nv.info") continue;
    if (have_global_info) return parse_error("two sections named '.nv.info'");
    have_global_info = true;
    for (const Record& r : RG_TRY(records(RG_TRY(content(i)), names[i]))) {
      ++steps.n;
      if (r.format != 0x04 || r.payload.size() < 8) continue;
      const uint32_t sym = rd<uint32_t>(r.payload.data()), v = rd<uint32_t>(r.payload.data() + 4);
      if (r.attr == uint8_t(NvInfoAttr::kRegCount)) regs[sym] = v;
      if (r.attr == uint8_t(NvInfoAttr::kMinStackSize)) stack[sym] = v;
      if (r.attr == uint8_t(NvInfoAttr::kFrameSize)) frame[sym] = v;
    }
  }

  // The kernels (.text.<name>), and an index from name to kernel.
  struct KernelSections {
    size_t text = 0;
    std::optional<size_t> info, shared;
    std::vector<size_t> banks;  // .nv.constant<N>.<name>, in section order
  };
  std::vector<KernelSections> ks;
  std::unordered_map<std::string_view, size_t> kernel_index;
  for (size_t i = 0; i < names.size(); ++i) {
    ++steps.n;
    if (!names[i].starts_with(".text.")) continue;
    auto [it, inserted] = kernel_index.emplace(names[i].substr(6), ks.size());
    if (!inserted) return parse_error(strformat("two sections named %s", quote(names[i]).c_str()));
    ks.push_back({i, {}, {}, {}});
  }
  // Every section that belongs to a kernel by its name suffix, and the global constant banks
  // (.nv.constant<N>), all in one pass.
  std::vector<size_t> global_banks;
  std::bitset<100> global_bank_seen;
  auto once = [&](std::optional<size_t>& slot, size_t i) -> Status {
    if (slot) return parse_error(strformat("two sections named %s", quote(names[i]).c_str()));
    slot = i;
    return ok_status();
  };
  for (size_t i = 0; i < names.size(); ++i) {
    ++steps.n;
    const std::string_view nm = names[i];
    if (nm.starts_with(".nv.info.")) {
      if (auto it = kernel_index.find(nm.substr(9)); it != kernel_index.end())
        RG_TRY(once(ks[it->second].info, i));
    } else if (nm.starts_with(".nv.shared.")) {
      if (auto it = kernel_index.find(nm.substr(11)); it != kernel_index.end())
        RG_TRY(once(ks[it->second].shared, i));
    } else if (nm.starts_with(".nv.constant")) {
      const std::string_view rest = nm.substr(12);
      const size_t dot = rest.find('.');
      const std::string_view num = rest.substr(0, dot);
      if (num.empty() || num.size() > 2) continue;
      if (dot == std::string_view::npos) {
        const uint32_t bank = RG_TRY(bank_number(num, nm));
        if (global_bank_seen.test(bank))
          return parse_error(
              strformat("two sections for constant bank %u (%s)", bank, quote(nm).c_str()));
        global_bank_seen.set(bank);
        global_banks.push_back(i);
      } else if (auto it = kernel_index.find(rest.substr(dot + 1)); it != kernel_index.end()) {
        RG_TRY(bank_number(num, nm));
        ks[it->second].banks.push_back(i);
      }
    }
  }

  cb.kernels.reserve(ks.size());
  for (const KernelSections& kss : ks) {
    ++steps.n;
    const std::string_view nm = names[kss.text];
    CubinKernel k;
    k.name = std::string(nm.substr(6));
    const auto& sh = sections[kss.text];
    if (sh.sh_type != llvm::ELF::SHT_PROGBITS || !(sh.sh_flags & llvm::ELF::SHF_EXECINSTR))
      return parse_error(strformat("section %s is not executable code", quote(nm).c_str()));
    if (sh.sh_offset > bytes.size() || sh.sh_size > bytes.size() - sh.sh_offset)
      return parse_error(strformat("section %s lies outside the file", quote(nm).c_str()));
    k.code_offset = sh.sh_offset;
    k.code_size = sh.sh_size;
    k.code_align = uint32_t(sh.sh_addralign);
    auto si = sym_index.find(k.name);
    if (si == sym_index.end())
      return parse_error(strformat("kernel %s has no symbol", quote(k.name).c_str()));
    if (auto it = regs.find(si->second); it != regs.end()) k.registers = it->second;
    if (auto it = stack.find(si->second); it != stack.end()) k.stack_bytes = it->second;
    if (auto it = frame.find(si->second); it != frame.end()) k.frame_bytes = it->second;
    bool have_cbank = false;
    if (kss.info) {
      for (const Record& r : RG_TRY(records(RG_TRY(content(*kss.info)), names[*kss.info]))) {
        ++steps.n;
        switch (NvInfoAttr(r.attr)) {
          case NvInfoAttr::kParamCbank:
            if (r.payload.size() < 8) return need(r, 8, k.name);
            k.param_offset = rd<uint16_t>(r.payload.data() + 4);
            k.param_size = rd<uint16_t>(r.payload.data() + 6);
            have_cbank = true;
            break;
          case NvInfoAttr::kKparamInfo: {
            if (r.payload.size() < 12) return need(r, 12, k.name);
            CubinParam p;
            p.ordinal = rd<uint16_t>(r.payload.data() + 4);
            p.offset = rd<uint16_t>(r.payload.data() + 6);
            p.size = rd<uint32_t>(r.payload.data() + 8) >> 18;
            k.params.push_back(p);
            break;
          }
          case NvInfoAttr::kMaxThreads:
            if (r.payload.size() < 12) return need(r, 12, k.name);
            for (int d = 0; d < 3; ++d) k.max_threads[d] = rd<uint32_t>(r.payload.data() + 4 * d);
            break;
          case NvInfoAttr::kExitInstrOffsets:
            for (size_t o = 0; o + 4 <= r.payload.size(); o += 4)
              k.exit_offsets.push_back(rd<uint32_t>(r.payload.data() + o));
            steps.n += r.payload.size() / 4;
            break;
          default: break;
        }
      }
    }
    if (kss.shared) k.shared_bytes = uint32_t(sections[*kss.shared].sh_size);
    // The kernel's banks: its own and the global ones, in section order (both lists are).
    std::bitset<100> own_seen;
    size_t g = 0, o = 0;
    while (g < global_banks.size() || o < kss.banks.size()) {
      ++steps.n;
      const bool mine =
          g == global_banks.size() || (o < kss.banks.size() && kss.banks[o] < global_banks[g]);
      const size_t j = mine ? kss.banks[o++] : global_banks[g++];
      const std::string_view other = names[j];
      ConstantBank b;
      b.bank = RG_TRY(bank_number(other.substr(12, other.find('.', 12) - 12), other));
      if (mine) {
        if (own_seen.test(b.bank))
          return parse_error(strformat("kernel %s has two sections for constant bank %u (%s)",
                                       quote(k.name).c_str(), b.bank, quote(other).c_str()));
        own_seen.set(b.bank);
      }
      b.file_offset = sections[j].sh_offset;
      b.size = sections[j].sh_size;
      b.per_kernel = mine;
      b.nobits = sections[j].sh_type == llvm::ELF::SHT_NOBITS;
      if (sections[j].sh_type != llvm::ELF::SHT_NOBITS &&
          (b.file_offset > bytes.size() || b.size > bytes.size() - b.file_offset))
        return parse_error(strformat("section %s lies outside the file", quote(other).c_str()));
      k.banks.push_back(b);
    }
    if (!have_cbank && !k.params.empty())
      return parse_error(
          strformat("kernel %s has parameters but no PARAM_CBANK record", quote(k.name).c_str()));
    for (const auto& p : k.params) {
      ++steps.n;
      if (uint64_t(p.offset) + p.size > k.param_size)
        return parse_error(
            strformat("kernel %s: parameter %u at +%u (%u bytes) lies outside "
                      "its %u parameter bytes",
                      quote(k.name).c_str(), p.ordinal, p.offset, p.size, k.param_size));
    }
    for (const auto& b : k.banks)
      if (b.bank == 0 && b.per_kernel && uint64_t(k.param_offset) + k.param_size > b.size)
        return parse_error(strformat(
            "kernel %s: parameters end at 0x%x beyond constant bank "
            "0 (0x%llx bytes)",
            quote(k.name).c_str(), k.param_offset + k.param_size, (unsigned long long)b.size));
    std::sort(k.params.begin(), k.params.end(),
              [](const CubinParam& a, const CubinParam& b) { return a.ordinal < b.ordinal; });
    cb.kernels.push_back(std::move(k));
  }
  if (cb.kernels.empty()) return parse_error("cubin has no kernel (.text.<name> section)");

  // Relocations against loaded sections.
  for (size_t i = 0; i < sections.size(); ++i) {
    ++steps.n;
    const auto& sh = sections[i];
    if (sh.sh_type != llvm::ELF::SHT_REL && sh.sh_type != llvm::ELF::SHT_RELA) continue;
    if (sh.sh_info >= sections.size())
      return parse_error(strformat("%s targets section %u of %zu", quote(names[i]).c_str(),
                                   unsigned(sh.sh_info), sections.size()));
    const auto& target = sections[sh.sh_info];
    if (!(target.sh_flags & llvm::ELF::SHF_ALLOC)) continue;  // .debug_frame and friends
    RG_TRY(walk(i));
    auto add = [&](uint32_t type, uint32_t sym, uint64_t off, int64_t addend) -> Status {
      ++steps.n;
      if (type != kRelocR64 && type != kRelocLo && type != kRelocHi)
        return make_error(Errc::kUnsupported, "cubin relocation type 0x%x in %s is not supported",
                          type, quote(names[i]).c_str());
      if (off >= target.sh_size || target.sh_size - off < 8u)
        return parse_error(strformat("%s: relocation at 0x%llx outside its section",
                                     quote(names[i]).c_str(), (unsigned long long)off));
      if (target.sh_type == llvm::ELF::SHT_NOBITS || target.sh_offset > bytes.size() ||
          target.sh_size > bytes.size() - target.sh_offset)
        return parse_error(strformat("%s patches section %s, which has no contents in the file",
                                     quote(names[i]).c_str(), quote(names[sh.sh_info]).c_str()));
      Relocation rel;
      rel.type = type;
      rel.section = std::string(names[sh.sh_info]);
      rel.offset = off;
      rel.file_offset = target.sh_offset + off;
      rel.symbol = sym < sym_names.size() ? std::string(sym_names[sym]) : std::string();
      rel.addend = addend;
      if (sym < sym_file_offset.size() && sym_file_offset[sym]) {
        rel.symbol_in_file = true;
        rel.symbol_file_offset = *sym_file_offset[sym];
      }
      cb.relocations.push_back(std::move(rel));
      return ok_status();
    };
    if (sh.sh_type == llvm::ELF::SHT_RELA) {
      for (const auto& r : RG_TRY(take(elf.relas(sh), quote(names[i]))))
        RG_TRY(add(r.getType(false), r.getSymbol(false), r.r_offset, r.r_addend));
    } else {
      for (const auto& r : RG_TRY(take(elf.rels(sh), quote(names[i]))))
        RG_TRY(add(r.getType(false), r.getSymbol(false), r.r_offset, 0));
    }
  }
  return cb;
}

std::string describe(const CubinKernel& k) {
  return strformat(
      "%s: code %llu B at +0x%llx, %u registers, stack %u B, shared %u B, params "
      "%u B at c[0x0][0x%x], max threads %u,%u,%u, %zu banks",
      k.name.c_str(), (unsigned long long)k.code_size, (unsigned long long)k.code_offset,
      k.registers, k.stack_bytes, k.shared_bytes, k.param_size, k.param_offset, k.max_threads[0],
      k.max_threads[1], k.max_threads[2], k.banks.size());
}

}  // namespace rawgpu::drivers::nv
