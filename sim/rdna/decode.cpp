// RDNA3/RDNA4 decoder: format from the identifying bits, opcode lookup in the generated tables,
// instruction size (literal, DPP). Never reads past the words it is given.
#include <array>
#include <mutex>
#include <vector>

#include "isa.h"
#include "rawgpu/base/format.h"

namespace rawgpu::sim::rdna {
namespace {

struct RawEntry {
  Format format;
  uint16_t opcode;
  const char* mnemonic;
  uint8_t w0, w1, w2, w3;
  const char* sample;
};

#define E(fmt, op, mn, a, b, c, d, text) {Format::k##fmt, op, mn, a, b, c, d, text},
constexpr RawEntry kGfx1100[] = {
#include "isa_gfx1100.inc"
};
constexpr RawEntry kGfx1201[] = {
#include "isa_gfx1201.inc"
};
#undef E

constexpr uint32_t kMaxOpcode = 1024;

struct Tables {
  std::vector<OpcodeInfo> entries;
  // [format][opcode] → index + 1 (0: none).
  std::vector<std::array<uint16_t, kMaxOpcode>> index;
};

Tables build(std::span<const RawEntry> raw) {
  Tables t;
  t.entries.reserve(raw.size());
  t.index.resize(static_cast<size_t>(Format::kCount));
  for (auto& a : t.index) a.fill(0);
  for (const RawEntry& r : raw) {
    OpcodeInfo info{r.format, r.opcode, r.mnemonic, {r.w0, r.w1, r.w2, r.w3}, r.sample, false};
    info.implemented = semantics_of(r.mnemonic) != 0;
    t.entries.push_back(info);
    // VOP3 and VOP3SD share one opcode space.
    const Format slot = r.format == Format::kVOP3SD ? Format::kVOP3 : r.format;
    t.index[static_cast<size_t>(slot)][r.opcode] = static_cast<uint16_t>(t.entries.size());
  }
  return t;
}

const Tables& tables(Target t) {
  static const Tables g11 = build(kGfx1100);
  static const Tables g12 = build(kGfx1201);
  return t == Target::kGfx1100 ? g11 : g12;
}

bool contains(const char* s, const char* sub) {
  return std::string_view(s).find(sub) != std::string_view::npos;
}

}  // namespace

const char* target_name(Target t) { return t == Target::kGfx1100 ? "gfx1100" : "gfx1201"; }

const char* format_name(Format f) {
  static constexpr const char* kNames[] = {
      "SOP2",   "SOPK",  "SOP1",  "SOPC",  "SOPP", "SMEM", "VOP1",    "VOP2",   "VOPC", "VOP3",
      "VOP3SD", "VOP3P", "VOPDX", "VOPDY", "DS",   "FLAT", "SCRATCH", "GLOBAL", "MUBUF"};
  const auto i = static_cast<size_t>(f);
  return i < std::size(kNames) ? kNames[i] : "?";
}

std::span<const OpcodeInfo> opcode_table(Target t) { return tables(t).entries; }

const OpcodeInfo* lookup(Target t, Format f, uint32_t opcode) {
  if (opcode >= kMaxOpcode || f >= Format::kCount) return nullptr;
  const Tables& tb = tables(t);
  const Format slot = f == Format::kVOP3SD ? Format::kVOP3 : f;
  const uint16_t i = tb.index[static_cast<size_t>(slot)][opcode];
  return i == 0 ? nullptr : &tb.entries[i - 1];
}

std::string mnemonic(const Instruction& inst) {
  if (inst.info == nullptr) return "<invalid>";
  if (inst.info_y != nullptr)
    return std::string(inst.info->mnemonic) + " :: " + inst.info_y->mnemonic;
  return inst.info->mnemonic;
}

Result<Instruction> decode(Target t, std::span<const uint32_t> words) {
  if (words.empty()) return make_error(Errc::kParse, "decode: no instruction words");
  const bool g12 = t == Target::kGfx1201;
  const uint32_t w0 = words[0];
  Instruction in;
  Format f = Format::kCount;
  uint32_t op = 0;
  unsigned base = 4;
  // Source fields that may hold the literal code 255 (bit offset in the 64-bit word pair, width).
  std::array<std::pair<unsigned, unsigned>, 3> lit_fields{};
  unsigned nlit = 0;
  bool dpp_capable = false;
  const unsigned top9 = w0 >> 23, top6 = w0 >> 26;
  if ((w0 >> 30) == 2) {
    if (top9 == 0x17D) {
      f = Format::kSOP1, op = (w0 >> 8) & 0xFF, lit_fields[nlit++] = {0, 8};
    } else if (top9 == 0x17E) {
      f = Format::kSOPC, op = (w0 >> 16) & 0x7F, lit_fields[nlit++] = {0, 8},
      lit_fields[nlit++] = {8, 8};
    } else if (top9 == 0x17F) {
      f = Format::kSOPP, op = (w0 >> 16) & 0x7F;
    } else if ((w0 >> 28) == 0xB) {
      f = Format::kSOPK, op = (w0 >> 23) & 0x1F;
    } else {
      f = Format::kSOP2, op = (w0 >> 23) & 0x7F, lit_fields[nlit++] = {0, 8},
      lit_fields[nlit++] = {8, 8};
    }
  } else if ((w0 >> 31) == 0) {
    if ((w0 >> 25) == 0x3F) {
      f = Format::kVOP1, op = (w0 >> 9) & 0xFF;
    } else if ((w0 >> 25) == 0x3E) {
      f = Format::kVOPC, op = (w0 >> 17) & 0xFF;
    } else {
      f = Format::kVOP2, op = (w0 >> 25) & 0x3F;
    }
    lit_fields[nlit++] = {0, 9};
    dpp_capable = true;
  } else if (top6 == 0x3D) {
    f = Format::kSMEM, op = g12 ? (w0 >> 13) & 0x3F : (w0 >> 18) & 0xFF, base = 8;
  } else if (top6 == 0x35) {
    f = Format::kVOP3, op = (w0 >> 16) & 0x3FF, base = 8;
    lit_fields = {{{32, 9}, {41, 9}, {50, 9}}}, nlit = 3;
    dpp_capable = true;
  } else if ((w0 >> 24) == 0xCC) {
    f = Format::kVOP3P, op = (w0 >> 16) & 0x7F, base = 8;
    lit_fields = {{{32, 9}, {41, 9}, {50, 9}}}, nlit = 3;
  } else if (top6 == 0x32) {
    f = Format::kVOPDX, op = (w0 >> 22) & 0xF, base = 8;
    lit_fields[nlit++] = {0, 9}, lit_fields[nlit++] = {32, 9};
  } else if (top6 == 0x36) {
    f = Format::kDS, op = (w0 >> 18) & 0xFF, base = 8;
  } else if (!g12 && top6 == 0x37) {
    const unsigned seg = (w0 >> 16) & 3;
    if (seg == 3) return make_error(Errc::kParse, "decode: FLAT segment 3 in %08x", w0);
    f = seg == 0 ? Format::kFLAT : seg == 1 ? Format::kSCRATCH : Format::kGLOBAL;
    op = (w0 >> 18) & 0x7F, base = 8;
  } else if (!g12 && top6 == 0x38) {
    f = Format::kMUBUF, op = (w0 >> 18) & 0xFF, base = 8;
  } else if (g12 && (w0 >> 26) == 0x3B && ((w0 >> 24) & 3) != 3) {
    const unsigned seg = (w0 >> 24) & 3;
    f = seg == 0 ? Format::kFLAT : seg == 1 ? Format::kSCRATCH : Format::kGLOBAL;
    op = (w0 >> 14) & 0x7F, base = 12;  // LLVM 19: bits [20:14]
  } else {
    return make_error(Errc::kParse, "decode: unknown %s encoding %08x", target_name(t), w0);
  }
  if (words.size() < base / 4) {
    return make_error(Errc::kParse, "decode: %s instruction %08x truncated (%u of %u bytes)",
                      format_name(f), w0, static_cast<unsigned>(words.size() * 4), base);
  }
  const OpcodeInfo* info = lookup(t, f, op);
  if (info == nullptr) {
    return make_error(Errc::kParse, "decode: no %s %s opcode %u (%08x)", target_name(t),
                      format_name(f), op, w0);
  }
  in.format = info->format;
  in.info = info;
  if (f == Format::kVOPDX) {
    const uint32_t opy = (w0 >> 17) & 0x1F;
    in.info_y = lookup(t, Format::kVOPDY, opy);
    if (in.info_y == nullptr) {
      return make_error(Errc::kParse, "decode: no %s VOPD Y opcode %u (%08x)", target_name(t), opy,
                        w0);
    }
  }
  for (unsigned i = 0; i < base / 4; ++i) in.words[i] = words[i];
  const uint64_t pair = in.words[0] | (uint64_t{in.words[1]} << 32);
  bool literal = false;
  const unsigned nsrc_used = [&] {
    // Only the sources LLVM prints for this opcode may carry a literal (others must be zero).
    return nlit;
  }();
  for (unsigned i = 0; i < nsrc_used; ++i) {
    const auto [off, width] = lit_fields[i];
    const uint64_t word =
        f == Format::kVOPDX && off == 32 ? in.words[1] : (off < 32 ? in.words[0] : pair);
    const unsigned shift = f == Format::kVOPDX && off == 32 ? 0 : off;
    if (((word >> shift) & ((1u << width) - 1)) == 255) literal = true;
  }
  auto needs_literal = [](const OpcodeInfo* i) {
    return i != nullptr && (contains(i->mnemonic, "mamk") || contains(i->mnemonic, "maak") ||
                            contains(i->mnemonic, "_imm32"));
  };
  if (needs_literal(info) || needs_literal(in.info_y)) literal = true;
  unsigned size = base;
  if (dpp_capable) {
    const unsigned src0 = f == Format::kVOP3 ? in.words[1] & 0x1FF : w0 & 0x1FF;
    if (src0 == 250 || src0 == 233 || src0 == 234) {
      if (literal) return make_error(Errc::kParse, "decode: DPP with a literal (%08x)", w0);
      size += 4;  // DPP16 / DPP8 control dword
    }
  }
  if (literal) size += 4;
  if (words.size() < size / 4) {
    return make_error(Errc::kParse, "decode: %s truncated (%u of %u bytes)", info->mnemonic,
                      static_cast<unsigned>(words.size() * 4), size);
  }
  for (unsigned i = base / 4; i < size / 4; ++i) in.words[i] = words[i];
  in.size = static_cast<uint8_t>(size);
  in.has_literal = literal;
  if (literal) in.literal = in.words[size / 4 - 1];
  return in;
}

}  // namespace rawgpu::sim::rdna
