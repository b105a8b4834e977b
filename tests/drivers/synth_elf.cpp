#include "synth_elf.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace rawgpu::testing {
namespace {

constexpr uint32_t kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3, kShtNote = 7, kShtNobits = 8,
                   kShtSymtabShndx = 18, kShtLoproc = 0x70000000;
constexpr uint64_t kShfWrite = 1, kShfAlloc = 2, kShfExec = 4;
constexpr uint16_t kShnLoreserve = 0xff00, kShnXindex = 0xffff;
constexpr uint32_t kPtLoad = 1, kPtNote = 4;
constexpr uint32_t kPfX = 1, kPfW = 2, kPfR = 4;

template <class T>
void put(std::vector<uint8_t>& out, size_t at, T v) {
  std::memcpy(out.data() + at, &v, sizeof v);
}

template <class T>
void push(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof v);
  put(out, at, v);
}

struct Section {
  uint32_t name = 0, type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t align = 1, entsize = 0;
};

struct Phdr {
  uint32_t type = 0, flags = 0;
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0, align = 0;
};

// An ELF64 little-endian file under construction: data blobs first, then the section name table
// and the section headers (section 0 is null, section 1 is .shstrtab).
class ElfBuilder {
 public:
  explicit ElfBuilder(size_t phnum) : phdrs_(phnum) {
    bytes_.resize(64 + 56 * phnum);
    shstrtab_.push_back('\0');
    sections_.resize(2);
    sections_[1].name = add_name(".shstrtab");
    sections_[1].type = kShtStrtab;
  }
  uint64_t append(const void* data, size_t n, size_t align) {
    bytes_.resize((bytes_.size() + align - 1) / align * align);
    const uint64_t at = bytes_.size();
    bytes_.resize(at + n);
    if (n != 0) std::memcpy(bytes_.data() + at, data, n);
    return at;
  }
  uint64_t append(const std::vector<uint8_t>& v, size_t align) {
    return append(v.data(), v.size(), align);
  }
  uint32_t add_section(std::string_view name, Section s) {
    s.name = add_name(name);
    sections_.push_back(s);
    return uint32_t(sections_.size() - 1);
  }
  uint32_t next_section_index() const { return uint32_t(sections_.size()); }
  Phdr& phdr(size_t i) { return phdrs_[i]; }

  std::vector<uint8_t> finish(uint8_t osabi, uint8_t abiversion, uint16_t type, uint16_t machine,
                              uint32_t flags) {
    sections_[1].offset = append(shstrtab_.data(), shstrtab_.size(), 1);
    sections_[1].size = shstrtab_.size();
    const size_t shnum = sections_.size();
    if (shnum >= kShnLoreserve) sections_[0].size = shnum;  // the real count, e_shnum = 0
    bytes_.resize((bytes_.size() + 7) / 8 * 8);
    const uint64_t shoff = bytes_.size();
    for (const Section& s : sections_) {
      push(bytes_, s.name);
      push(bytes_, s.type);
      push(bytes_, s.flags);
      push(bytes_, s.addr);
      push(bytes_, s.offset);
      push(bytes_, s.size);
      push(bytes_, s.link);
      push(bytes_, s.info);
      push(bytes_, s.align);
      push(bytes_, s.entsize);
    }
    const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, osabi, abiversion};
    std::memcpy(bytes_.data(), ident, 16);
    put<uint16_t>(bytes_, 16, type);
    put<uint16_t>(bytes_, 18, machine);
    put<uint32_t>(bytes_, 20, 1);
    put<uint64_t>(bytes_, 24, 0);
    put<uint64_t>(bytes_, 32, phdrs_.empty() ? 0 : 64);
    put<uint64_t>(bytes_, 40, shoff);
    put<uint32_t>(bytes_, 48, flags);
    put<uint16_t>(bytes_, 52, 64);
    put<uint16_t>(bytes_, 54, 56);
    put<uint16_t>(bytes_, 56, uint16_t(phdrs_.size()));
    put<uint16_t>(bytes_, 58, 64);
    put<uint16_t>(bytes_, 60, shnum >= kShnLoreserve ? 0 : uint16_t(shnum));
    put<uint16_t>(bytes_, 62, 1);  // .shstrtab
    for (size_t i = 0; i < phdrs_.size(); ++i) {
      const Phdr& p = phdrs_[i];
      const size_t at = 64 + 56 * i;
      put(bytes_, at + 0, p.type);
      put(bytes_, at + 4, p.flags);
      put(bytes_, at + 8, p.offset);
      put(bytes_, at + 16, p.vaddr);
      put(bytes_, at + 24, p.vaddr);
      put(bytes_, at + 32, p.filesz);
      put(bytes_, at + 40, p.memsz);
      put(bytes_, at + 48, p.align);
    }
    return std::move(bytes_);
  }

 private:
  uint32_t add_name(std::string_view name) {
    const uint32_t at = uint32_t(shstrtab_.size());
    shstrtab_.insert(shstrtab_.end(), name.begin(), name.end());
    shstrtab_.push_back('\0');
    return at;
  }
  std::vector<uint8_t> bytes_;
  std::vector<char> shstrtab_;
  std::vector<Section> sections_;
  std::vector<Phdr> phdrs_;
};

// Symbol table entries (Elf64_Sym) and their string table.
struct Symbols {
  std::vector<uint8_t> table = std::vector<uint8_t>(24, 0);  // the null symbol
  std::vector<uint8_t> strtab = {0};
  std::vector<uint32_t> shndx = {0};  // SHT_SYMTAB_SHNDX contents
  bool needs_xindex = false;
  void add(std::string_view name, uint8_t info, uint32_t section, uint64_t value, uint64_t size) {
    push<uint32_t>(table, uint32_t(strtab.size()));
    strtab.insert(strtab.end(), name.begin(), name.end());
    strtab.push_back(0);
    push<uint8_t>(table, info);
    push<uint8_t>(table, 0);
    needs_xindex |= section >= kShnLoreserve;
    push<uint16_t>(table, section >= kShnLoreserve ? kShnXindex : uint16_t(section));
    push<uint64_t>(table, value);
    push<uint64_t>(table, size);
    shndx.push_back(section);
  }
  size_t count() const { return table.size() / 24; }
};

// One .nv.info record with a payload (format 0x04, EIFMT_SVAL).
// (PARAM_CBANK and KPARAM_INFO hold two u16s in their second word; callers pass it packed.)
void nv_record(std::vector<uint8_t>& out, uint8_t attr, std::initializer_list<uint32_t> words) {
  push<uint8_t>(out, 0x04);
  push<uint8_t>(out, attr);
  push<uint16_t>(out, uint16_t(4 * words.size()));
  for (uint32_t w : words) push<uint32_t>(out, w);
}

// Big-endian msgpack writer: just the forms the AMDGPU metadata uses.
class MsgPack {
 public:
  std::vector<uint8_t> out;
  void map(size_t n) { header(n, 0x80, 0xde, 0xdf); }
  void array(size_t n) { header(n, 0x90, 0xdc, 0xdd); }
  void str(std::string_view s) {
    if (s.size() < 32) {
      out.push_back(uint8_t(0xa0 | s.size()));
    } else if (s.size() < 256) {
      out.push_back(0xd9);
      out.push_back(uint8_t(s.size()));
    } else {
      out.push_back(0xda);
      be(s.size(), 2);
    }
    out.insert(out.end(), s.begin(), s.end());
  }
  void uint(uint32_t v) {
    if (v < 128) {
      out.push_back(uint8_t(v));
    } else {
      out.push_back(0xce);
      be(v, 4);
    }
  }
  void kv(std::string_view k, std::string_view v) {
    str(k);
    str(v);
  }
  void kv(std::string_view k, uint32_t v) {
    str(k);
    uint(v);
  }

 private:
  void be(uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void header(size_t n, uint8_t fix, uint8_t b16, uint8_t b32) {
    if (n < 16) {
      out.push_back(uint8_t(fix | n));
    } else if (n < 65536) {
      out.push_back(b16);
      be(n, 2);
    } else {
      out.push_back(b32);
      be(n, 4);
    }
  }
};

}  // namespace

std::vector<uint8_t> synth_cubin(const SynthCubinOptions& o) {
  ElfBuilder elf(0);
  constexpr uint32_t kParamBase = 0x210;
  // Shared by every kernel: 16 bytes of code, a constant bank 0 that holds the parameters, and
  // the per-kernel .nv.info records (PARAM_CBANK, KPARAM_INFO, MAX_THREADS, EXIT_INSTR_OFFSETS).
  const std::vector<uint8_t> code(16, 0);
  const std::vector<uint8_t> bank0(kParamBase + 8, 0);
  std::vector<uint8_t> info;
  nv_record(info, 0x0a, {0, kParamBase | (8u << 16)});  // PARAM_CBANK: offset, size
  nv_record(info, 0x17, {0, 0, 8u << 18});              // KPARAM_INFO: ordinal 0 at +0, 8 B
  nv_record(info, 0x05, {128, 1, 1});                   // MAX_THREADS
  push<uint8_t>(info, 0x04);                            // EXIT_INSTR_OFFSETS: 0x0, 0x10, ...
  push<uint8_t>(info, 0x1c);
  push<uint16_t>(info, uint16_t(4 * o.exit_offsets));
  for (size_t i = 0; i < o.exit_offsets; ++i) push<uint32_t>(info, uint32_t(16 * i));
  const uint64_t code_at = elf.append(code, 128);
  const uint64_t bank_at = elf.append(bank0, 4);
  const uint64_t info_at = elf.append(info, 4);

  // Section indices: 2 .strtab, 3 .symtab, 4 .nv.info, [5 .symtab_shndx], then the kernels.
  const bool xindex = 5 + kSynthCubinSectionsPerKernel * o.kernels >= kShnLoreserve;
  const uint32_t first_kernel_section = xindex ? 6 : 5;
  Symbols syms;
  std::vector<uint8_t> global_info;
  for (size_t i = 0; i < o.kernels; ++i) {
    const uint32_t text = first_kernel_section + uint32_t(kSynthCubinSectionsPerKernel * i);
    if (!o.kernel_symbols) continue;
    syms.add(o.name_prefix + std::to_string(i), 0x12, text, 0, code.size());
    const uint32_t sym = uint32_t(syms.count() - 1);
    nv_record(global_info, 0x2f, {sym, uint32_t(16 + i % 64)});  // REGCOUNT
    nv_record(global_info, 0x12, {sym, 0});                      // MIN_STACK_SIZE
    nv_record(global_info, 0x11, {sym, 0});                      // FRAME_SIZE
  }
  Section s;
  s.type = kShtStrtab;
  s.offset = elf.append(syms.strtab, 1);
  s.size = syms.strtab.size();
  elf.add_section(".strtab", s);
  s = {};
  s.type = kShtSymtab;
  s.offset = elf.append(syms.table, 8);
  s.size = syms.table.size();
  s.link = 2;
  s.info = 1;
  s.align = 8;
  s.entsize = 24;
  const uint32_t symtab = elf.add_section(".symtab", s);
  s = {};
  s.type = kShtLoproc;
  s.offset = elf.append(global_info, 4);
  s.size = global_info.size();
  s.link = symtab;
  s.align = 4;
  elf.add_section(".nv.info", s);
  if (xindex) {
    s = {};
    s.type = kShtSymtabShndx;
    s.offset = elf.append(syms.shndx.data(), 4 * syms.shndx.size(), 4);
    s.size = 4 * syms.shndx.size();
    s.link = symtab;
    s.align = 4;
    s.entsize = 4;
    elf.add_section(".symtab_shndx", s);
  }
  for (size_t i = 0; i < o.kernels; ++i) {
    const std::string name = o.name_prefix + std::to_string(i);
    const uint32_t text = elf.next_section_index();
    s = {};
    s.type = kShtProgbits;
    s.flags = kShfAlloc | kShfExec;
    s.offset = code_at;
    s.size = code.size();
    s.link = symtab;
    s.info = uint32_t(1 + i);
    s.align = 128;
    elf.add_section(".text." + name, s);
    s = {};
    s.type = kShtLoproc;
    s.offset = info_at;
    s.size = info.size();
    s.link = symtab;
    s.info = text;
    s.align = 4;
    elf.add_section(".nv.info." + name, s);
    s = {};
    s.type = kShtProgbits;
    s.flags = kShfAlloc;
    s.offset = bank_at;
    s.size = bank0.size();
    s.info = text;
    s.align = 4;
    elf.add_section(".nv.constant0." + name, s);
    s = {};
    s.type = kShtNobits;
    s.flags = kShfAlloc | kShfWrite;
    s.offset = bank_at;
    s.size = 256;
    s.info = text;
    s.align = 16;
    elf.add_section(".nv.shared." + name, s);
  }
  return elf.finish(0x41, 8, /*ET_EXEC*/ 2, /*EM_CUDA*/ 190, 0x6000004u | (o.sm << 8));
}

std::vector<uint8_t> synth_code_object(const SynthCodeObjectOptions& o) {
  const size_t loads = (o.segment_per_descriptor ? o.kernels + 1 : 1) + o.extra_segments;
  ElfBuilder elf(loads + o.note_copies);
  // Code: s_endpgm, then zeros.
  std::vector<uint8_t> code(256, 0);
  put<uint32_t>(code, 0, 0xbfb00000u);
  const uint64_t code_at = elf.append(code, 256);
  // Kernel descriptors.
  std::vector<uint8_t> kds(64 * o.kernels, 0);
  const uint64_t kd_at = code_at + code.size();  // where elf.append(kds, 64) puts them
  for (size_t i = 0; i < o.kernels; ++i) {
    const size_t at = 64 * i;
    put<uint32_t>(kds, at + 8, 8);                                       // kernarg size
    put<int64_t>(kds, at + 16, int64_t(code_at) - int64_t(kd_at + at));  // entry
    put<uint32_t>(kds, at + 52, (2u << 1) | (1u << 7));                  // rsrc2
    put<uint16_t>(kds, at + 56, uint16_t((1u << 3) | (1u << 10)));       // kernarg, wave32
  }
  if (elf.append(kds, 64) != kd_at) return {};
  // Metadata note.
  MsgPack mp;
  mp.map(3);
  mp.kv("amdhsa.target", "amdgcn-amd-amdhsa--gfx1100");
  mp.str("amdhsa.version");
  mp.array(2);
  mp.uint(1);
  mp.uint(2);
  mp.str("amdhsa.kernels");
  const size_t entries = std::min(o.kernels, o.metadata_kernels);
  mp.array(entries);
  for (size_t n = 0; n < entries; ++n) {
    const size_t i = o.reverse_metadata ? entries - 1 - n : n;
    const std::string name = o.name_prefix + std::to_string(i);
    mp.map(11);
    mp.kv(".name", name);
    mp.kv(".symbol", name + ".kd");
    mp.kv(".kernarg_segment_size", 8);
    mp.kv(".kernarg_segment_align", 8);
    mp.kv(".group_segment_fixed_size", 0);
    mp.kv(".private_segment_fixed_size", 0);
    mp.kv(".sgpr_count", 8);
    mp.kv(".vgpr_count", 1);
    mp.kv(".wavefront_size", 32);
    mp.kv(".max_flat_workgroup_size", 64);
    mp.str(".args");
    mp.array(1);
    mp.map(5);
    mp.kv(".name", "out");
    mp.kv(".value_kind", "global_buffer");
    mp.kv(".address_space", "global");
    mp.kv(".offset", 0);
    mp.kv(".size", 8);
  }
  std::vector<uint8_t> note;
  push<uint32_t>(note, 7);
  push<uint32_t>(note, uint32_t(mp.out.size()));
  push<uint32_t>(note, 32);  // NT_AMDGPU_METADATA
  for (char c : std::string_view("AMDGPU\0", 8)) note.push_back(uint8_t(c));
  note.insert(note.end(), mp.out.begin(), mp.out.end());
  note.resize((note.size() + 3) / 4 * 4);
  const uint64_t note_at = elf.append(note, 4);

  // Segments: one R|X segment over everything loaded, or one per descriptor plus the code.
  const uint64_t loaded_end = kd_at + kds.size();
  if (o.segment_per_descriptor) {
    for (size_t i = 0; i < o.kernels; ++i)
      elf.phdr(i) = {kPtLoad, kPfR, kd_at + 64 * i, kd_at + 64 * i, 64, 64, 64};
    elf.phdr(o.kernels) = {kPtLoad, kPfR | kPfX, code_at, code_at, 256, 256, 256};
  } else {
    elf.phdr(0) = {kPtLoad, kPfR | kPfX, 0, 0, loaded_end, loaded_end, 256};
  }
  const size_t first_extra = loads - o.extra_segments;
  const uint64_t bss = (loaded_end + 255) / 256 * 256;
  for (size_t i = 0; i < o.extra_segments; ++i)
    elf.phdr(first_extra + i) = {kPtLoad, kPfR | kPfW, 0, bss + 64 * i, 0, 64, 64};
  for (size_t i = 0; i < o.note_copies; ++i)
    elf.phdr(loads + i) = {kPtNote, kPfR, note_at, note_at, note.size(), note.size(), 4};

  Section s;
  s.type = kShtNote;
  s.flags = kShfAlloc;
  s.offset = note_at;
  s.size = note.size();
  s.align = 4;
  elf.add_section(".note", s);
  s = {};
  s.type = kShtProgbits;
  s.flags = kShfAlloc | kShfExec;
  s.addr = s.offset = code_at;
  s.size = code.size();
  s.align = 256;
  const uint32_t text = elf.add_section(".text", s);
  s = {};
  s.type = kShtProgbits;
  s.flags = kShfAlloc;
  s.addr = s.offset = kd_at;
  s.size = kds.size();
  s.align = 64;
  const uint32_t rodata = elf.add_section(".rodata", s);
  Symbols syms;
  for (size_t i = 0; i < o.kernels; ++i) {
    const std::string name = o.name_prefix + std::to_string(i);
    syms.add(name + ".kd", 0x11, rodata, kd_at + 64 * i, 64);
    syms.add(name, 0x12, text, code_at, code.size());
  }
  s = {};
  s.type = kShtStrtab;
  s.offset = elf.append(syms.strtab, 1);
  s.size = syms.strtab.size();
  const uint32_t strtab = elf.add_section(".strtab", s);
  s = {};
  s.type = kShtSymtab;
  s.offset = elf.append(syms.table, 8);
  s.size = syms.table.size();
  s.link = strtab;
  s.info = 1;
  s.align = 8;
  s.entsize = 24;
  for (size_t i = 0; i < o.symtab_copies; ++i) elf.add_section(".symtab", s);
  return elf.finish(/*ELFOSABI_AMDGPU_HSA*/ 64, /*v5*/ 3, /*ET_DYN*/ 3, /*EM_AMDGPU*/ 224,
                    /*EF_AMDGPU_MACH_AMDGCN_GFX1100*/ 0x41);
}

}  // namespace rawgpu::testing
