// RDNA3/RDNA4 disassembly printer in LLVM 19's textual syntax (LLVM is the oracle: the decoder
// test compares this text with llvm-mc-19's for every implemented opcode).
//
// Each table entry's sample text (LLVM's print of the generator's probe word) is the operand
// template: how many operands the opcode prints, which are registers (and how wide), which are
// implicit (VOPC/VOP2 `vcc_lo`), `off`/`null` placeholders and symbolic forms. The printer maps
// the template's operands onto the encoding's fields per format and prints the field values,
// then the modifiers (abs/neg, clamp/omod, op_sel, DPP controls, memory offsets and flags).
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "isa.h"
#include "rawgpu/base/format.h"

namespace rawgpu::sim::rdna {
namespace {

// Operands of a sample text: top level comma-separated tokens after the mnemonic (brackets and
// parentheses nest), trailing modifiers (space-separated words after the last operand) dropped.
std::vector<std::string> template_operands(std::string_view text_in) {
  std::vector<std::string> out;
  // LLVM annotates operands it finds odd (v_s_* with a VGPR source) with /* ... */.
  std::string stripped(text_in);
  for (size_t c = stripped.find("/*"); c != std::string::npos; c = stripped.find("/*")) {
    const size_t e = stripped.find("*/", c);
    stripped.erase(c, e == std::string::npos ? std::string::npos : e + 2 - c);
  }
  const std::string_view text = stripped;
  const size_t sp = text.find(' ');
  if (sp == std::string_view::npos) return out;
  std::string_view rest = text.substr(sp + 1);
  std::string cur;
  int depth = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      while (i + 1 < rest.size() && rest[i + 1] == ' ') ++i;
      continue;
    }
    if (c == ' ' && depth == 0) {
      // The last operand ends here; the rest are modifiers (op_sel_hi:[..], offset:..).
      if (rest.find(',', i) == std::string_view::npos) {
        out.push_back(cur);
        return out;
      }
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Dwords of a template register token (v[0:1] → 2, vcc → 2, s0 → 1).
unsigned token_width(std::string_view t) {
  const size_t lb = t.find('['), colon = t.find(':'), rb = t.find(']');
  if (lb != std::string_view::npos && colon != std::string_view::npos &&
      rb != std::string_view::npos && colon > lb && rb > colon) {
    const int a = std::atoi(std::string(t.substr(lb + 1, colon - lb - 1)).c_str());
    const int b = std::atoi(std::string(t.substr(colon + 1, rb - colon - 1)).c_str());
    return b >= a ? static_cast<unsigned>(b - a + 1) : 1;
  }
  if (t == "vcc" || t == "exec") return 2;
  return 1;
}

bool is_scalar_token(std::string_view t) {
  return t.starts_with("s") || t.starts_with("ttmp") || t == "null" || t.starts_with("vcc") ||
         t.starts_with("exec") || t == "m0";
}

std::string range(const char* p, unsigned r, unsigned w) {
  return w <= 1 ? strformat("%s%u", p, r) : strformat("%s[%u:%u]", p, r, r + w - 1);
}

// A 9-bit source operand (0-255 scalar/constant, 256+ VGPR) of `w` dwords.
std::string operand(unsigned code, unsigned w, uint32_t literal, bool t16 = false) {
  if (code >= 256) {
    if (t16) return strformat("v%u.%c", (code - 256) & 0x7F, (code - 256) & 0x80 ? 'h' : 'l');
    return range("v", code - 256, w);
  }
  if (code <= 105) return range("s", code, w);
  if (code >= 108 && code <= 123) return range("ttmp", code - 108, w);
  if (code >= 128 && code <= 192) return strformat("%u", code - 128);
  if (code >= 193 && code <= 208) return strformat("-%u", code - 192);
  static constexpr const char* kF[] = {"0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"};
  if (code >= 240 && code <= 247) return kF[code - 240];
  switch (code) {
    case 106: return w == 2 ? "vcc" : "vcc_lo";
    case 107: return "vcc_hi";
    case 124: return "null";
    case 125: return "m0";
    case 126: return w == 2 ? "exec" : "exec_lo";
    case 127: return "exec_hi";
    case 235: return "src_shared_base";
    case 236: return "src_shared_limit";
    case 237: return "src_private_base";
    case 238: return "src_private_limit";
    case 239: return "src_pops_exiting_wave_id";
    case 248: return "0.15915494";
    case 251: return "src_vccz";
    case 252: return "src_execz";
    case 253: return "src_scc";
    case 254: return "src_lds_direct";
    case 255: return strformat("0x%x", literal);
    default: return strformat("<src%u>", code);
  }
}

std::string vgpr(unsigned r, unsigned w) { return range("v", r, w); }

std::string join(const std::vector<std::string>& ops) {
  std::string s;
  for (size_t i = 0; i < ops.size(); ++i) s += (i ? ", " : " ") + ops[i];
  return s;
}

std::string bits_list(unsigned bits, unsigned n) {
  std::string s = "[";
  for (unsigned i = 0; i < n; ++i) s += strformat("%s%u", i ? "," : "", (bits >> i) & 1);
  return s + "]";
}

std::string with_mods(std::string s, bool neg, bool abs) {
  if (abs) s = "|" + s + "|";
  if (neg) s = "-" + s;
  return s;
}

// DPP16 / DPP8 controls of the trailing control dword.
std::string dpp_suffix(unsigned src0_code, uint32_t d) {
  if (src0_code == 233 || src0_code == 234) {
    std::string s = " dpp8:[";
    for (unsigned l = 0; l < 8; ++l) s += strformat("%s%u", l ? "," : "", (d >> (8 + 3 * l)) & 7);
    s += "]";
    if (src0_code == 234) s += " fi:1";
    return s;
  }
  const unsigned ctrl = (d >> 8) & 0x1FF;
  std::string s;
  if (ctrl <= 0xFF) {
    s = strformat(" quad_perm:[%u,%u,%u,%u]", ctrl & 3, (ctrl >> 2) & 3, (ctrl >> 4) & 3,
                  (ctrl >> 6) & 3);
  } else if (ctrl >= 0x101 && ctrl <= 0x10F) {
    s = strformat(" row_shl:%u", ctrl & 15);
  } else if (ctrl >= 0x111 && ctrl <= 0x11F) {
    s = strformat(" row_shr:%u", ctrl & 15);
  } else if (ctrl >= 0x121 && ctrl <= 0x12F) {
    s = strformat(" row_ror:%u", ctrl & 15);
  } else if (ctrl == 0x140) {
    s = " row_mirror";
  } else if (ctrl == 0x141) {
    s = " row_half_mirror";
  } else if (ctrl >= 0x150 && ctrl <= 0x15F) {
    s = strformat(" row_share:%u", ctrl & 15);
  } else if (ctrl >= 0x160 && ctrl <= 0x16F) {
    s = strformat(" row_xmask:%u", ctrl & 15);
  } else {
    s = strformat(" <dpp_ctrl 0x%x>", ctrl);
  }
  s += strformat(" row_mask:0x%x bank_mask:0x%x", d >> 28, (d >> 24) & 15);
  if ((d >> 19) & 1) s += " bound_ctrl:1";
  if ((d >> 18) & 1) s += " fi:1";
  return s;
}

bool starts(std::string_view m, std::string_view p) { return m.starts_with(p); }
bool has(std::string_view m, std::string_view p) { return m.find(p) != std::string_view::npos; }

std::string sopp_waitcnt(uint32_t imm) {
  const unsigned exp = imm & 7, lgkm = (imm >> 4) & 0x3F, vm = (imm >> 10) & 0x3F;
  const bool all_max = exp == 7 && lgkm == 0x3F && vm == 0x3F;
  std::string s;
  if (vm != 0x3F || all_max) s += strformat(" vmcnt(%u)", vm);
  if (exp != 7 || all_max) s += strformat(" expcnt(%u)", exp);
  if (lgkm != 0x3F || all_max) s += strformat(" lgkmcnt(%u)", lgkm);
  return s;
}

// s_delay_alu: instid0 [3:0], instskip [6:4], instid1 [10:7] by name, "|"-joined; 0 alone.
std::string delay_alu(uint32_t imm) {
  static constexpr const char* kId[] = {"NO_DEP",        "VALU_DEP_1",    "VALU_DEP_2",
                                        "VALU_DEP_3",    "VALU_DEP_4",    "TRANS32_DEP_1",
                                        "TRANS32_DEP_2", "TRANS32_DEP_3", "FMA_ACCUM_CYCLE_1",
                                        "SALU_CYCLE_1",  "SALU_CYCLE_2",  "SALU_CYCLE_3"};
  static constexpr const char* kSkip[] = {"SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"};
  const unsigned id0 = imm & 15, skip = (imm >> 4) & 7, id1 = (imm >> 7) & 15;
  if (id0 >= std::size(kId) || id1 >= std::size(kId) || skip >= std::size(kSkip) || imm >> 11)
    return strformat(" 0x%x", imm);
  std::string s;
  auto add = [&](const char* field, const char* name) {
    s += (s.empty() ? " " : " | ") + std::string(field) + "(" + name + ")";
  };
  if (id0) add("instid0", kId[id0]);
  if (skip) add("instskip", kSkip[skip]);
  if (id1) add("instid1", kId[id1]);
  return s.empty() ? " 0" : s;
}

std::string hwreg(uint32_t imm) {
  const unsigned id = imm & 0x3F, off = (imm >> 6) & 0x1F, size = ((imm >> 11) & 0x1F) + 1;
  std::string name;
  switch (id) {
    case 1: name = "HW_REG_MODE"; break;
    case 2: name = "HW_REG_STATUS"; break;
    case 3: name = "HW_REG_TRAPSTS"; break;
    default: name = strformat("%u", id);
  }
  if (off == 0 && size == 32) return "hwreg(" + name + ")";
  return strformat("hwreg(%s, %u, %u)", name.c_str(), off, size);
}

struct Printer {
  Target t;
  const Instruction& in;
  bool g12;
  uint32_t w0, w1, w2;

  std::string scalar_fmt(const OpcodeInfo& info, const std::vector<std::string>& tpl,
                         const std::vector<unsigned>& fields) {
    std::vector<std::string> ops;
    size_t fi = 0;
    for (const std::string& tok : tpl) {
      if (tok.starts_with("0x")) {
        ops.push_back(strformat("0x%x", in.literal));  // s_fmaak/s_fmamk constant
      } else if (fi < fields.size()) {
        ops.push_back(operand(fields[fi++], token_width(tok), in.literal));
      }
    }
    return info.mnemonic + join(ops);
  }

  // VOP1/VOP2/VOPC (e32), VOP3, VOP3SD, VOP3P.
  std::string valu(const OpcodeInfo& info, const std::vector<std::string>& tpl) {
    const std::string_view m = info.mnemonic;
    const Format f = in.format;
    const bool vop3 = f == Format::kVOP3 || f == Format::kVOP3SD || f == Format::kVOP3P;
    std::vector<unsigned> fields;  // 9-bit codes; a destination VGPR is 256 + reg
    unsigned src0 = 0;
    if (f == Format::kVOP1) {
      fields = {256 + ((w0 >> 17) & 0xFF), src0 = w0 & 0x1FF};
    } else if (f == Format::kVOP2) {
      fields = {256 + ((w0 >> 17) & 0xFF), src0 = w0 & 0x1FF, 256 + ((w0 >> 9) & 0xFF)};
    } else if (f == Format::kVOPC) {
      fields = {src0 = w0 & 0x1FF, 256 + ((w0 >> 9) & 0xFF)};
    } else {
      src0 = w1 & 0x1FF;
      const unsigned s1 = (w1 >> 9) & 0x1FF, s2 = (w1 >> 18) & 0x1FF;
      if (starts(m, "v_cmpx")) {
        fields = {src0, s1, s2};
      } else if (f == Format::kVOP3SD) {
        fields = {256 + (w0 & 0xFF), (w0 >> 8) & 0x7F, src0, s1, s2};
      } else {
        fields = {256 + (w0 & 0xFF), src0, s1, s2};
      }
    }
    const bool dpp = !vop3 || f == Format::kVOP3 || f == Format::kVOP3SD
                         ? (src0 == 250 || src0 == 233 || src0 == 234)
                         : false;
    uint32_t dword = 0;
    const bool has_dst = f != Format::kVOPC && !(vop3 && starts(m, "v_cmpx"));
    const unsigned first_src = has_dst ? (f == Format::kVOP3SD ? 2 : 1) : 0;
    if (dpp) {
      dword = vop3 ? in.words[2] : in.words[1];
      fields[first_src] = 256 + (dword & 0xFF);  // the DPP dword's low byte is the real src0
    }
    std::vector<std::string> ops;
    size_t fi = 0;
    unsigned nsrc = 0;
    for (size_t i = 0; i < tpl.size(); ++i) {
      const std::string& tok = tpl[i];
      if (!vop3 && (tok == "vcc_lo" || tok == "vcc")) {
        ops.push_back(tok);  // implicit operand of the e32 form
        continue;
      }
      if (!vop3 && tok.starts_with("0x")) {
        ops.push_back(strformat("0x%x", in.literal));  // fmamk/fmaak constant
        continue;
      }
      if (fi >= fields.size()) {
        ops.push_back("<?>");
        continue;
      }
      const unsigned code = fields[fi];
      const bool t16 = tok.size() > 2 && (tok.ends_with(".l") || tok.ends_with(".h"));
      std::string s;
      if (fi < first_src && code >= 256 && is_scalar_token(tok)) {
        s = operand(code - 256, token_width(tok), 0);  // SGPR destination in the VGPR field
      } else {
        s = operand(code, token_width(tok), in.literal, t16);
      }
      if (fi >= first_src) {
        const unsigned si = static_cast<unsigned>(fi - first_src);
        ++nsrc;
        bool neg = false, abs = false;
        if (f == Format::kVOP3 || f == Format::kVOP3SD) {
          neg = (w1 >> (29 + si)) & 1;
          abs = f == Format::kVOP3 && ((w0 >> (8 + si)) & 1);
        } else if (f == Format::kVOP3P) {
          // Packed neg is printed as neg_lo/neg_hi lists below, except for the mix ops.
          if (starts(m, "v_fma_mix")) {
            neg = (w1 >> (29 + si)) & 1;
            abs = (w0 >> (8 + si)) & 1;
          }
        } else if (dpp && src0 != 233 && src0 != 234 && si < 2) {
          neg = (dword >> (20 + 2 * si)) & 1;
          abs = (dword >> (21 + 2 * si)) & 1;
        }
        s = with_mods(s, neg, abs);
      }
      ops.push_back(s);
      ++fi;
    }
    std::string mn = info.mnemonic;
    if (dpp) {
      if (mn.ends_with("_e32")) mn.resize(mn.size() - 4);
      mn += "_dpp";
    }
    std::string out = mn + join(ops);
    if (f == Format::kVOP3 || f == Format::kVOP3SD) {
      const unsigned opsel = (w0 >> 11) & 0xF;
      if (f == Format::kVOP3 && opsel) {
        // op_sel lists the sources, then the destination.
        unsigned bits = opsel & ((1u << nsrc) - 1);
        if (has_dst) bits |= ((opsel >> 3) & 1) << nsrc;
        out += " op_sel:" + bits_list(bits, nsrc + (has_dst ? 1 : 0));
      }
      if ((w0 >> 15) & 1) out += " clamp";
      const unsigned omod = (w1 >> 27) & 3;
      if (omod) out += omod == 1 ? " mul:2" : omod == 2 ? " mul:4" : " div:2";
    } else if (f == Format::kVOP3P) {
      const unsigned opsel = (w0 >> 11) & 7;
      const unsigned opsel_hi = ((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2);
      const unsigned mask = (1u << nsrc) - 1;
      const bool mix = starts(m, "v_fma_mix");
      if (opsel & mask) out += " op_sel:" + bits_list(opsel, nsrc);
      const unsigned hi_default = mix ? 0 : mask;
      if ((opsel_hi & mask) != hi_default) out += " op_sel_hi:" + bits_list(opsel_hi, nsrc);
      if (!mix) {
        const unsigned neg_lo = (w1 >> 29) & 7, neg_hi = (w0 >> 8) & 7;
        if (neg_lo & mask) out += " neg_lo:" + bits_list(neg_lo, nsrc);
        if (neg_hi & mask) out += " neg_hi:" + bits_list(neg_hi, nsrc);
      }
      if ((w0 >> 15) & 1) out += " clamp";
    }
    if (dpp) out += dpp_suffix(src0, dword);
    return out;
  }

  std::string vopd() {
    const OpcodeInfo& x = *in.info;
    const OpcodeInfo& y = *in.info_y;
    const std::string_view sample = x.sample;
    const size_t sep = sample.find(" :: ");
    // Templates from each entry's own sample (X half of an X entry, Y half of a Y entry).
    const std::string_view ysample =
        std::string_view(y.sample).substr(std::string_view(y.sample).find(" :: ") + 4);
    auto half = [&](const OpcodeInfo& info, std::string_view tpl_text, unsigned vdst, unsigned s0,
                    unsigned s1) {
      const auto tpl = template_operands(tpl_text);
      const unsigned fields[] = {256 + vdst, s0, 256 + s1};
      std::vector<std::string> ops;
      size_t fi = 0;
      for (const std::string& tok : tpl) {
        if (tok.starts_with("0x")) {
          ops.push_back(strformat("0x%x", in.literal));
          continue;
        }
        ops.push_back(fi < 3 ? operand(fields[fi], 1, in.literal) : "<?>");
        ++fi;
      }
      return info.mnemonic + join(ops);
    };
    const unsigned vdstx = w1 >> 24;
    const unsigned vdsty = (((w1 >> 17) & 0x7F) << 1) | ((vdstx & 1) ^ 1);
    return half(x, sample.substr(0, sep), vdstx, w0 & 0x1FF, (w0 >> 9) & 0xFF) +
           " :: " + half(y, ysample, vdsty, w1 & 0x1FF, (w1 >> 9) & 0xFF);
  }

  std::string ds(const OpcodeInfo& info, const std::vector<std::string>& tpl) {
    const std::string_view m = info.mnemonic;
    const bool load = starts(m, "ds_load") || has(m, "_rtn") || starts(m, "ds_swizzle") ||
                      has(m, "permute") || starts(m, "ds_append") || starts(m, "ds_consume") ||
                      starts(m, "ds_read") || starts(m, "ds_bvh");
    std::vector<unsigned> fields;
    if (load) fields.push_back(w1 >> 24);
    fields.push_back(w1 & 0xFF);
    fields.push_back((w1 >> 8) & 0xFF);
    fields.push_back((w1 >> 16) & 0xFF);
    if (starts(m, "ds_append") || starts(m, "ds_consume")) fields.resize(1);
    std::vector<std::string> ops;
    for (size_t i = 0; i < tpl.size() && i < fields.size(); ++i)
      ops.push_back(vgpr(fields[i], token_width(tpl[i])));
    std::string out = info.mnemonic + join(ops);
    const unsigned o0 = w0 & 0xFF, o1 = (w0 >> 8) & 0xFF;
    if (has(m, "2addr")) {
      if (o0) out += strformat(" offset0:%u", o0);
      if (o1) out += strformat(" offset1:%u", o1);
    } else if (o0 | o1 << 8) {
      if (starts(m, "ds_swizzle") && ((o0 | o1 << 8) & 0x8000)) {
        const unsigned q = o0;
        out += strformat(" offset:swizzle(QUAD_PERM,%u,%u,%u,%u)", q & 3, (q >> 2) & 3,
                         (q >> 4) & 3, (q >> 6) & 3);
      } else {
        out += strformat(" offset:%u", o0 | o1 << 8);
      }
    }
    if (!g12 && ((w0 >> 17) & 1)) out += " gds";
    return out;
  }

  std::string smem(const OpcodeInfo& info, const std::vector<std::string>& tpl) {
    const unsigned sbase = (w0 & 0x3F) * 2, sdata = (w0 >> 6) & 0x7F, soff = w1 >> 25;
    const unsigned bits = g12 ? 24 : 21;
    const int32_t off = static_cast<int32_t>(w1 << (32 - bits)) >> (32 - bits);
    std::vector<std::string> ops;
    for (size_t i = 0; i < tpl.size(); ++i) {
      const std::string& tok = tpl[i];
      const unsigned w = token_width(tok);
      if (i == tpl.size() - 1 && tpl.size() >= 2) {
        // soffset / immediate offset
        if (soff == 124 && off == 0 && !g12) {
          ops.push_back("null");
        } else if (soff == 124) {
          ops.push_back(off < 0 ? strformat("-0x%x", -off) : strformat("0x%x", off));
        } else {
          ops.push_back(operand(soff, 1, 0) +
                        (off ? strformat(" offset:0x%x", static_cast<uint32_t>(off)) : ""));
        }
      } else if (i == tpl.size() - 2) {
        ops.push_back(operand(sbase, 2, 0));
      } else if (tok.size() && tok[0] >= '0' && tok[0] <= '9') {
        ops.push_back(strformat("%u", sdata));  // s_atc_probe / prefetch: immediate
      } else {
        ops.push_back(operand(sdata, w, 0));
      }
    }
    std::string out = info.mnemonic + join(ops);
    if (!g12) {
      if ((w0 >> 14) & 1) out += " glc";
      if ((w0 >> 13) & 1) out += " dlc";
    }
    return out;
  }

  std::string flat(const OpcodeInfo& info, const std::vector<std::string>& tpl) {
    const std::string_view m = info.mnemonic;
    unsigned vdst, data, vaddr, saddr, sve = 0;
    int32_t off;
    bool ret;
    if (!g12) {
      off = in.format == Format::kFLAT ? static_cast<int32_t>(w0 & 0xFFF)
                                       : static_cast<int32_t>(w0 << 19) >> 19;
      vaddr = w1 & 0xFF, data = (w1 >> 8) & 0xFF, saddr = (w1 >> 16) & 0x7F, vdst = w1 >> 24;
      if (in.format == Format::kSCRATCH) sve = (w1 >> 23) & 1;
      ret = (w0 >> 14) & 1;
    } else {
      saddr = w0 & 0x7F, vdst = w1 & 0xFF, data = (w1 >> 23) & 0xFF, vaddr = w2 & 0xFF;
      off = static_cast<int32_t>(w2) >> 8;
      if (in.format == Format::kSCRATCH) sve = (w1 >> 17) & 1;
      ret = ((w1 >> 20) & 7) == 1;
    }
    const bool atomic = has(m, "atomic");
    const bool load = !atomic && has(m, "load");
    auto tok = [&](size_t k) { return k < tpl.size() ? tpl[k] : std::string(); };
    std::vector<std::string> ops;
    if (tpl.empty()) return info.mnemonic;  // global_inv, global_wb
    // The template is the load form (vdst, addr) or the store / non-returning atomic form
    // (addr, data); a returning atomic prints vdst first, half the data width for cmpswap.
    const unsigned dataw = load ? 0 : token_width(tok(1));
    if (load) ops.push_back(vgpr(vdst, token_width(tok(0))));
    if (atomic && ret) ops.push_back(vgpr(vdst, has(m, "cmpswap") ? dataw / 2 : dataw));
    if (in.format == Format::kSCRATCH) {
      ops.push_back(sve ? vgpr(vaddr, 1) : "off");
    } else {
      const bool saddr_used = in.format == Format::kGLOBAL && saddr != 124;
      ops.push_back(vgpr(vaddr, saddr_used ? 1 : 2));
    }
    if (!load) ops.push_back(vgpr(data, dataw));
    if (in.format != Format::kFLAT) {
      ops.push_back(saddr == 124 ? "off" : operand(saddr, in.format == Format::kGLOBAL ? 2 : 1, 0));
    }
    std::string out = info.mnemonic + join(ops);
    if (off) out += strformat(" offset:%d", off);
    if (!g12) {
      if ((w0 >> 14) & 1) out += " glc";
      if ((w0 >> 15) & 1) out += " slc";
      if ((w0 >> 13) & 1) out += " dlc";
    } else {
      const unsigned th = (w1 >> 20) & 7, scope = (w1 >> 18) & 3;
      if (th == 1 && atomic)
        out += " th:TH_ATOMIC_RETURN";
      else if (th)
        out += strformat(" th:%u", th);
      static constexpr const char* kScope[] = {"", " scope:SCOPE_SE", " scope:SCOPE_DEV",
                                               " scope:SCOPE_SYS"};
      out += kScope[scope];
    }
    return out;
  }

  std::string print() {
    const OpcodeInfo& info = *in.info;
    const std::string_view m = info.mnemonic;
    const auto tpl = template_operands(info.sample);
    switch (in.format) {
      case Format::kSOP2:
        return scalar_fmt(info, tpl, {(w0 >> 16) & 0x7F, w0 & 0xFF, (w0 >> 8) & 0xFF});
      case Format::kSOPC: return scalar_fmt(info, tpl, {w0 & 0xFF, (w0 >> 8) & 0xFF});
      case Format::kSOP1: {
        const bool src_only = m == "s_setpc_b64" || m == "s_rfe_b64" || starts(m, "s_sleep_var") ||
                              starts(m, "s_barrier_") || starts(m, "s_alloc_vgpr") ||
                              starts(m, "s_sendmsg") || m == "s_movreld_b32" ||
                              m == "s_movreld_b64";
        if (src_only && tpl.size() == 1) return scalar_fmt(info, tpl, {w0 & 0xFF});
        return scalar_fmt(info, tpl, {(w0 >> 16) & 0x7F, w0 & 0xFF});
      }
      case Format::kSOPK: {
        const uint32_t imm = w0 & 0xFFFF;
        std::vector<std::string> ops;
        for (const std::string& tok : tpl) {
          if (tok.starts_with("hwreg"))
            ops.push_back(hwreg(imm));
          else if (tok.starts_with("0x"))
            ops.push_back(strformat("0x%x", imm));
          else if (tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9'))
            ops.push_back(strformat("%d", static_cast<int16_t>(imm)));
          else
            ops.push_back(operand((w0 >> 16) & 0x7F, token_width(tok), 0));
        }
        if (has(m, "setreg_imm32")) ops.back() = strformat("%u", in.literal);
        return info.mnemonic + join(ops);
      }
      case Format::kSOPP: {
        const uint32_t imm = w0 & 0xFFFF;
        if (tpl.empty()) return info.mnemonic;
        const std::string_view t0 = tpl[0];
        if (t0.starts_with("vmcnt")) return info.mnemonic + sopp_waitcnt(imm);
        if (m == "s_delay_alu") return info.mnemonic + delay_alu(imm);
        if (t0.starts_with("0x")) return info.mnemonic + strformat(" 0x%x", imm);
        if (starts(m, "s_branch") || starts(m, "s_cbranch"))
          return info.mnemonic + strformat(" %d", static_cast<int16_t>(imm));
        return info.mnemonic + strformat(" %u", imm);
      }
      case Format::kSMEM: return smem(info, tpl);
      case Format::kVOP1:
      case Format::kVOP2:
      case Format::kVOPC:
      case Format::kVOP3:
      case Format::kVOP3SD:
      case Format::kVOP3P: return valu(info, tpl);
      case Format::kVOPDX: return vopd();
      case Format::kDS: return ds(info, tpl);
      case Format::kFLAT:
      case Format::kSCRATCH:
      case Format::kGLOBAL: return flat(info, tpl);
      case Format::kMUBUF:
        if (tpl.empty()) return info.mnemonic;  // buffer_gl0_inv, buffer_gl1_inv
        return std::string(info.mnemonic) + " <operands not printed>";
      default: return std::string(info.mnemonic) + " <operands not printed>";
    }
  }
};

}  // namespace

std::string disassemble(Target t, const Instruction& inst) {
  if (inst.info == nullptr) return "<invalid>";
  Printer p{t, inst, t == Target::kGfx1201, inst.words[0], inst.words[1], inst.words[2]};
  return p.print();
}

}  // namespace rawgpu::sim::rdna
