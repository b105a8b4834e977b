// NVIDIA cubin parser (see rawgpu/drivers/nv/cubin.h): ELF through LLVM's Object library,
// .nv.info records decoded here (format byte, attribute byte, u16 size-or-value; nv.md 3.10).
#include "rawgpu/drivers/nv/cubin.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELF.h>
#include <llvm/Support/Error.h>

#include <cstring>
#include <map>

#include "rawgpu/base/format.h"

namespace rawgpu::drivers::nv {
namespace {

using Elf = llvm::object::ELF64LEFile;
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
      return parse_error(
          strformat("%.*s: record header cut at byte %zu", int(sec.size()), sec.data(), i));
    Record r{d[i], d[i + 1], rd<uint16_t>(d.data() + i + 2), {}};
    i += 4;
    if (r.format == 0x04) {
      if (d.size() - i < r.value)
        return parse_error(strformat("%.*s: attribute 0x%02x claims %u payload bytes, %zu left",
                                     int(sec.size()), sec.data(), r.attr, r.value, d.size() - i));
      r.payload = d.slice(i, r.value);
      i += r.value;
    } else if (r.format < 0x01 || r.format > 0x03) {
      return parse_error(strformat("%.*s: unknown record format 0x%02x at byte %zu",
                                   int(sec.size()), sec.data(), r.format, i - 4));
    }
    out.push_back(r);
  }
  return out;
}

Error need(const Record& r, size_t n, std::string_view kernel) {
  return parse_error(
      strformat("kernel '%.*s': attribute 0x%02x has %zu payload bytes, "
                "expected at least %zu",
                int(kernel.size()), kernel.data(), r.attr, r.payload.size(), n));
}

}  // namespace

const CubinKernel* Cubin::find(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

Result<Cubin> parse_cubin(std::span<const uint8_t> bytes) {
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
  std::vector<std::string> names;
  for (const auto& sh : sections)
    names.push_back(RG_TRY(take(elf.getSectionName(sh, shstr), "section name")).str());
  auto content = [&](size_t i) -> Result<llvm::ArrayRef<uint8_t>> {
    return take(elf.getSectionContents(sections[i]), names[i]);
  };

  // Symbols: index -> name, and the kernels' symbol indices.
  std::vector<std::string> sym_names;
  std::map<std::string, uint32_t> sym_index;
  for (const auto& sh : sections) {
    if (sh.sh_type != llvm::ELF::SHT_SYMTAB) continue;
    auto syms = RG_TRY(take(elf.symbols(&sh), "symbol table"));
    llvm::StringRef strtab = RG_TRY(take(elf.getStringTableForSymtab(sh, sections), "strtab"));
    for (const auto& s : syms) {
      std::string nm = RG_TRY(take(s.getName(strtab), "symbol name")).str();
      if (s.getType() == llvm::ELF::STT_SECTION && s.st_shndx < names.size())
        nm = names[s.st_shndx];
      sym_index.emplace(nm, uint32_t(sym_names.size()));
      sym_names.push_back(std::move(nm));
    }
    break;
  }

  // Global .nv.info: per-function records keyed by symbol index.
  std::map<uint32_t, uint32_t> regs, stack, frame;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != ".nv.info") continue;
    for (const Record& r : RG_TRY(records(RG_TRY(content(i)), names[i]))) {
      if (r.format != 0x04 || r.payload.size() < 8) continue;
      const uint32_t sym = rd<uint32_t>(r.payload.data()), v = rd<uint32_t>(r.payload.data() + 4);
      if (r.attr == uint8_t(NvInfoAttr::kRegCount)) regs[sym] = v;
      if (r.attr == uint8_t(NvInfoAttr::kMinStackSize)) stack[sym] = v;
      if (r.attr == uint8_t(NvInfoAttr::kFrameSize)) frame[sym] = v;
    }
  }

  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& nm = names[i];
    if (nm.rfind(".text.", 0) != 0) continue;
    CubinKernel k;
    k.name = nm.substr(6);
    const auto& sh = sections[i];
    if (sh.sh_type != llvm::ELF::SHT_PROGBITS || !(sh.sh_flags & llvm::ELF::SHF_EXECINSTR))
      return parse_error(strformat("section %s is not executable code", nm.c_str()));
    if (sh.sh_offset > bytes.size() || sh.sh_size > bytes.size() - sh.sh_offset)
      return parse_error(strformat("section %s lies outside the file", nm.c_str()));
    k.code_offset = sh.sh_offset;
    k.code_size = sh.sh_size;
    k.code_align = uint32_t(sh.sh_addralign);
    auto si = sym_index.find(k.name);
    if (si == sym_index.end())
      return parse_error(strformat("kernel '%s' has no symbol", k.name.c_str()));
    if (auto it = regs.find(si->second); it != regs.end()) k.registers = it->second;
    if (auto it = stack.find(si->second); it != stack.end()) k.stack_bytes = it->second;
    if (auto it = frame.find(si->second); it != frame.end()) k.frame_bytes = it->second;
    bool have_cbank = false;
    for (size_t j = 0; j < names.size(); ++j) {
      const std::string& other = names[j];
      if (other == ".nv.info." + k.name) {
        for (const Record& r : RG_TRY(records(RG_TRY(content(j)), other))) {
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
              break;
            default: break;
          }
        }
      } else if (other == ".nv.shared." + k.name) {
        k.shared_bytes = uint32_t(sections[j].sh_size);
      } else if (other.rfind(".nv.constant", 0) == 0) {
        const std::string rest = other.substr(12);
        const size_t dot = rest.find('.');
        const std::string num = rest.substr(0, dot);
        const bool mine = dot != std::string::npos && rest.substr(dot + 1) == k.name;
        if (num.empty() || num.size() > 2 || (dot != std::string::npos && !mine)) continue;
        ConstantBank b;
        for (char ch : num) {
          if (ch < '0' || ch > '9')
            return parse_error(strformat("constant bank section %s", other.c_str()));
          b.bank = b.bank * 10 + uint32_t(ch - '0');
        }
        b.file_offset = sections[j].sh_offset;
        b.size = sections[j].sh_size;
        b.per_kernel = mine;
        if (sections[j].sh_type != llvm::ELF::SHT_NOBITS &&
            (b.file_offset > bytes.size() || b.size > bytes.size() - b.file_offset))
          return parse_error(strformat("section %s lies outside the file", other.c_str()));
        k.banks.push_back(b);
      }
    }
    if (!have_cbank && k.params.empty()) {
      // A kernel without parameters has no PARAM_CBANK record; nothing to check.
    } else if (!have_cbank) {
      return parse_error(
          strformat("kernel '%s' has parameters but no PARAM_CBANK record", k.name.c_str()));
    }
    for (const auto& p : k.params)
      if (uint64_t(p.offset) + p.size > k.param_size)
        return parse_error(
            strformat("kernel '%s': parameter %u at +%u (%u bytes) lies outside "
                      "its %u parameter bytes",
                      k.name.c_str(), p.ordinal, p.offset, p.size, k.param_size));
    for (const auto& b : k.banks)
      if (b.bank == 0 && b.per_kernel && uint64_t(k.param_offset) + k.param_size > b.size)
        return parse_error(
            strformat("kernel '%s': parameters end at 0x%x beyond constant bank "
                      "0 (0x%llx bytes)",
                      k.name.c_str(), k.param_offset + k.param_size, (unsigned long long)b.size));
    std::sort(k.params.begin(), k.params.end(),
              [](const CubinParam& a, const CubinParam& b) { return a.ordinal < b.ordinal; });
    cb.kernels.push_back(std::move(k));
  }
  if (cb.kernels.empty()) return parse_error("cubin has no kernel (.text.<name> section)");

  // Relocations against loaded sections.
  for (size_t i = 0; i < sections.size(); ++i) {
    const auto& sh = sections[i];
    if (sh.sh_type != llvm::ELF::SHT_REL && sh.sh_type != llvm::ELF::SHT_RELA) continue;
    if (sh.sh_info >= sections.size())
      return parse_error(strformat("%s targets section %u of %zu", names[i].c_str(),
                                   unsigned(sh.sh_info), sections.size()));
    const auto& target = sections[sh.sh_info];
    if (!(target.sh_flags & llvm::ELF::SHF_ALLOC)) continue;  // .debug_frame and friends
    auto add = [&](uint32_t type, uint32_t sym, uint64_t off, int64_t addend) -> Status {
      if (type != kRelocR64 && type != kRelocLo && type != kRelocHi)
        return make_error(Errc::kUnsupported, "cubin relocation type 0x%x in %s is not supported",
                          type, names[i].c_str());
      if (off >= target.sh_size || target.sh_size - off < (type == kRelocR64 ? 8u : 8u))
        return parse_error(strformat("%s: relocation at 0x%llx outside its section",
                                     names[i].c_str(), (unsigned long long)off));
      cb.relocations.push_back({type, names[sh.sh_info], off,
                                sym < sym_names.size() ? sym_names[sym] : std::string(), addend});
      return ok_status();
    };
    if (sh.sh_type == llvm::ELF::SHT_RELA) {
      for (const auto& r : RG_TRY(take(elf.relas(sh), names[i])))
        RG_TRY(add(r.getType(false), r.getSymbol(false), r.r_offset, r.r_addend));
    } else {
      for (const auto& r : RG_TRY(take(elf.rels(sh), names[i])))
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
