// PTX text -> sim::ptx::Module. The grammar is the subset LLVM 19's NVPTX back end emits for
// rawgpu's kernels; anything else is refused with its line so a gap is never silent.
#include <cctype>
#include <charconv>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/sim/ptx.h"

namespace rawgpu::sim::ptx {

namespace {

// What a launch can hold (untrusted text must not make the interpreter allocate without bound):
// CUDA's 32 KiB of kernel parameters, Hopper's 228 KiB of shared memory per CTA, and 16 Ki
// virtual registers (LLVM's kernels declare hundreds; the interpreter keeps them per thread).
constexpr uint64_t kMaxParamBytes = 32 << 10;
constexpr int64_t kMaxSharedBytes = 228 << 10;
constexpr uint64_t kMaxRegisters = 1 << 14;

struct Type2 {
  std::string_view name;
  Type type;
};
constexpr Type2 kTypes[] = {
    {"pred", Type::kPred},     {"b8", Type::kB8},   {"b16", Type::kB16},     {"b32", Type::kB32},
    {"b64", Type::kB64},       {"u8", Type::kU8},   {"u16", Type::kU16},     {"u32", Type::kU32},
    {"u64", Type::kU64},       {"s8", Type::kS8},   {"s16", Type::kS16},     {"s32", Type::kS32},
    {"s64", Type::kS64},       {"f16", Type::kF16}, {"f16x2", Type::kF16x2}, {"bf16", Type::kBF16},
    {"bf16x2", Type::kBF16x2}, {"f32", Type::kF32}, {"f64", Type::kF64},
};

Type type_of(std::string_view s) {
  for (const auto& t : kTypes) {
    if (t.name == s) return t.type;
  }
  return Type::kNone;
}

// Comparison operators of setp, in the order the executor switches on.
constexpr std::string_view kCmps[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                      "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

uint8_t cmp_index(std::string_view m) {
  for (size_t i = 0; i < std::size(kCmps); ++i) {
    if (kCmps[i] == m) return static_cast<uint8_t>(i + 1);
  }
  return 0;
}

struct OpName {
  std::string_view name;
  Op op;
};
constexpr OpName kOps[] = {
    {"mov", Op::kMov},           {"ld", Op::kLd},       {"st", Op::kSt},
    {"cvta", Op::kCvta},         {"add", Op::kAdd},     {"sub", Op::kSub},
    {"mul", Op::kMul},           {"mad", Op::kMad},     {"fma", Op::kFma},
    {"div", Op::kDiv},           {"rem", Op::kRem},     {"min", Op::kMin},
    {"max", Op::kMax},           {"neg", Op::kNeg},     {"abs", Op::kAbs},
    {"and", Op::kAnd},           {"or", Op::kOr},       {"xor", Op::kXor},
    {"not", Op::kNot},           {"shl", Op::kShl},     {"shr", Op::kShr},
    {"setp", Op::kSetp},         {"selp", Op::kSelp},   {"cvt", Op::kCvt},
    {"copysign", Op::kCopysign}, {"rcp", Op::kRcp},     {"sqrt", Op::kSqrt},
    {"rsqrt", Op::kRsqrt},       {"ex2", Op::kEx2},     {"lg2", Op::kLg2},
    {"sin", Op::kSin},           {"cos", Op::kCos},     {"tanh", Op::kTanh},
    {"bra", Op::kBra},           {"ret", Op::kRet},     {"exit", Op::kRet},
    {"bar", Op::kBar},           {"barrier", Op::kBar}, {"mma", Op::kMma},
    {"shf", Op::kShf},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// Top-level comma split (commas inside {} or [] stay).
std::vector<std::string_view> split_operands(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i < s.size() && (s[i] == '{' || s[i] == '[')) ++depth;
    if (i < s.size() && (s[i] == '}' || s[i] == ']')) --depth;
    if (i == s.size() || (s[i] == ',' && depth == 0)) {
      const auto t = trim(s.substr(start, i - start));
      if (!t.empty()) out.push_back(t);
      start = i + 1;
    }
  }
  return out;
}

bool parse_int(std::string_view s, int64_t& v) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t u = 0;
  std::from_chars_result r;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    r = std::from_chars(s.data() + 2, s.data() + s.size(), u, 16);
  } else {
    r = std::from_chars(s.data(), s.data() + s.size(), u, 10);
  }
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return false;
  // PTX integer literals may carry a U suffix; LLVM does not emit it.
  v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}
  Result<std::shared_ptr<const Module>> run();

 private:
  struct Body {
    Kernel k;
    std::unordered_map<std::string, uint32_t> singles;                     // "%tmp" -> index
    std::unordered_map<std::string, std::pair<uint32_t, uint32_t>> banks;  // "%r" -> base, n
    std::unordered_map<std::string, uint32_t> labels;
    std::unordered_map<std::string, uint32_t> shared;      // symbol -> offset
    std::unordered_map<std::string, uint32_t> params;      // name -> offset
    std::vector<std::pair<uint32_t, std::string>> fixups;  // branch inst -> label
    uint32_t dynamic_shared_offset = 0;
  };

  Error err(uint32_t line, const std::string& what) {
    return Error(Errc::kParse, strformat("PTX line %u: %s", line, what.c_str()));
  }
  Status parse_entry(size_t& pos);
  Status statement(Body& b, std::string_view s, uint32_t line);
  Status check_shape(const Inst& in, uint32_t line);
  Result<Operand> operand(Body& b, std::string_view s, uint32_t line, bool branch_target);
  Result<uint32_t> reg(Body& b, std::string_view s, uint32_t line);
  uint32_t line_at(size_t pos) const {
    uint32_t n = 1;
    for (size_t i = 0; i < pos && i < text_.size(); ++i) n += text_[i] == '\n';
    return n;
  }

  std::string_view text_;
  std::string clean_;
  std::shared_ptr<Module> m_ = std::make_shared<Module>();
};

Result<std::shared_ptr<const Module>> Parser::run() {
  // Comments out, newlines kept (line numbers).
  clean_.reserve(text_.size());
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '/' && i + 1 < text_.size() && text_[i + 1] == '/') {
      while (i < text_.size() && text_[i] != '\n') ++i;
      if (i < text_.size()) clean_ += '\n';
    } else if (text_[i] == '/' && i + 1 < text_.size() && text_[i + 1] == '*') {
      i += 2;
      while (i + 1 < text_.size() && !(text_[i] == '*' && text_[i + 1] == '/')) {
        if (text_[i] == '\n') clean_ += '\n';
        ++i;
      }
      ++i;
    } else {
      clean_ += text_[i];
    }
  }
  text_ = clean_;
  size_t pos = 0;
  while (pos < text_.size()) {
    const size_t e = text_.find(".entry", pos);
    if (e == std::string_view::npos) break;
    const size_t t = text_.find(".target", pos);
    if (t != std::string_view::npos && t < e && m_->target.empty()) {
      const size_t nl = text_.find('\n', t);
      m_->target = std::string(trim(text_.substr(t + 7, nl - t - 7)));
    }
    pos = e;
    RG_TRY(parse_entry(pos));
  }
  if (m_->kernels.empty()) return Error(Errc::kParse, "PTX text has no .entry");
  return std::shared_ptr<const Module>(m_);
}

Status Parser::parse_entry(size_t& pos) {
  Body b;
  pos += 6;
  const size_t lp = text_.find('(', pos);
  const size_t brace = text_.find('{', pos);
  if (lp == std::string_view::npos || brace == std::string_view::npos) {
    return err(line_at(pos), ".entry without a parameter list or body");
  }
  b.k.name = std::string(trim(text_.substr(pos, lp - pos)));
  const size_t rp = text_.find(')', lp);
  if (rp == std::string_view::npos || rp > brace) return err(line_at(lp), "unterminated params");
  for (std::string_view p : split_operands(text_.substr(lp + 1, rp - lp - 1))) {
    // ".param .u64 NAME" or ".param .align 8 .b8 NAME[16]"
    std::vector<std::string_view> words;
    size_t s = 0;
    for (size_t i = 0; i <= p.size(); ++i) {
      if (i == p.size() || std::isspace(static_cast<unsigned char>(p[i]))) {
        if (i > s) words.push_back(p.substr(s, i - s));
        s = i + 1;
      }
    }
    if (words.size() < 3 || words[0] != ".param")
      return err(line_at(lp), "parameter " + std::string(p));
    uint32_t align = 0, size = 0;
    std::string_view name = words.back();
    for (size_t w = 1; w + 1 < words.size(); ++w) {
      if (words[w] == ".align" && w + 1 < words.size()) {
        int64_t a = 0;
        if (!parse_int(words[w + 1], a) || a <= 0 || a > 256 || (a & (a - 1)) != 0)
          return err(line_at(lp), "parameter alignment (a power of two up to 256)");
        align = static_cast<uint32_t>(a);
        ++w;
      } else if (words[w][0] == '.') {
        size = ptx::type_bytes(type_of(words[w].substr(1)));
      }
    }
    if (const size_t br = name.find('['); br != std::string_view::npos) {
      int64_t n = 0;
      if (!parse_int(name.substr(br + 1, name.size() - br - 2), n) || n <= 0 || n > 4096) {
        return err(line_at(lp), "parameter array size (1..4096)");
      }
      size *= static_cast<uint32_t>(n);
      name = name.substr(0, br);
    }
    if (size == 0) return err(line_at(lp), "parameter type of " + std::string(name));
    if (align == 0) align = size;
    b.k.param_bytes = (b.k.param_bytes + align - 1) / align * align;
    if (uint64_t{b.k.param_bytes} + size > kMaxParamBytes)
      return err(line_at(lp), "parameters past the 32 KiB a launch passes");
    b.params[std::string(name)] = b.k.param_bytes;
    b.k.params.push_back({std::string(name), b.k.param_bytes, size});
    b.k.param_bytes += size;
  }
  // Body: statements end with ';', labels with ':', '{' '}' open and close scopes.
  size_t i = brace + 1;
  int depth = 1;
  size_t start = i;
  while (i < text_.size() && depth > 0) {
    const char c = text_[i];
    const std::string_view so_far = trim(text_.substr(start, i - start));
    if (c == '{' && so_far.empty()) {
      ++depth;
      start = i + 1;
    } else if (c == '}' && so_far.empty()) {
      --depth;
      start = i + 1;
    } else if (c == ';') {
      size_t first = start;
      while (first < i && std::isspace(static_cast<unsigned char>(text_[first]))) ++first;
      RG_TRY(statement(b, so_far, line_at(first)));
      start = i + 1;
    } else if (c == ':' && !so_far.empty() &&
               so_far.find_first_of(" \t,[{") == std::string_view::npos) {
      b.labels[std::string(so_far)] = static_cast<uint32_t>(b.k.code.size());
      start = i + 1;
    }
    ++i;
  }
  if (depth != 0) return err(line_at(brace), "unterminated body of " + b.k.name);
  pos = i;
  for (const auto& [inst, label] : b.fixups) {
    auto it = b.labels.find(label);
    if (it == b.labels.end()) return err(b.k.code[inst].line, "no label " + label);
    b.k.code[inst].target = it->second;
  }
  // Dynamic shared memory sits after the static part.
  m_->kernels.push_back(std::move(b.k));
  return {};
}

Result<uint32_t> Parser::reg(Body& b, std::string_view s, uint32_t line) {
  if (auto it = b.singles.find(std::string(s)); it != b.singles.end()) return it->second;
  size_t d = s.size();
  while (d > 0 && std::isdigit(static_cast<unsigned char>(s[d - 1]))) --d;
  if (d < s.size()) {
    auto it = b.banks.find(std::string(s.substr(0, d)));
    if (it != b.banks.end()) {
      int64_t n = 0;
      parse_int(s.substr(d), n);
      if (n >= 0 && static_cast<uint64_t>(n) < it->second.second) {
        return it->second.first + static_cast<uint32_t>(n);
      }
    }
  }
  return err(line, "undeclared register " + std::string(s));
}

Result<Operand> Parser::operand(Body& b, std::string_view s, uint32_t line, bool branch) {
  Operand o;
  if (s.empty()) return err(line, "empty operand");
  if (s[0] == '[') {
    if (s.back() != ']') return err(line, "address " + std::string(s));
    std::string_view in = trim(s.substr(1, s.size() - 2));
    o.kind = Operand::kAddr;
    o.reg = kNoReg;
    std::string_view base = in, off;
    if (const size_t plus = in.find('+'); plus != std::string_view::npos) {
      base = trim(in.substr(0, plus));
      off = trim(in.substr(plus + 1));
    }
    if (!off.empty() && !parse_int(off, o.imm))
      return err(line, "address offset " + std::string(off));
    if (base.empty()) return err(line, "address without a base " + std::string(s));
    if (base[0] == '%') {
      o.reg = RG_TRY(reg(b, base, line));
    } else if (auto p = b.params.find(std::string(base)); p != b.params.end()) {
      o.imm += p->second;
    } else if (auto sh = b.shared.find(std::string(base)); sh != b.shared.end()) {
      o.imm += sh->second;
    } else {
      int64_t abs = 0;
      if (!parse_int(base, abs)) return err(line, "address base " + std::string(base));
      o.imm += abs;
    }
    return o;
  }
  if (s[0] == '{') {
    o.kind = Operand::kVec;
    for (std::string_view r : split_operands(s.substr(1, s.size() - 2))) {
      if (o.count == o.vec.size()) return err(line, "vector of more than 8");
      o.vec[o.count++] = RG_TRY(reg(b, r, line));
    }
    return o;
  }
  if (s[0] == '%') {
    static constexpr std::string_view kSpecials[] = {"%tid", "%ntid", "%ctaid", "%nctaid"};
    const size_t dot = s.find('.');
    if (dot != std::string_view::npos) {
      for (uint8_t i = 0; i < 4; ++i) {
        if (s.substr(0, dot) == kSpecials[i]) {
          if (s.size() != dot + 2) break;
          const char c = s[dot + 1];
          if (c < 'x' || c > 'z') break;
          o.kind = Operand::kSpecial;
          o.special = static_cast<uint8_t>(i * 3 + (c - 'x'));
          return o;
        }
      }
    }
    if (s == "%laneid") {
      o.kind = Operand::kSpecial;
      o.special = 12;
      return o;
    }
    if (s == "%warpid") {
      o.kind = Operand::kSpecial;
      o.special = 13;
      return o;
    }
    o.kind = Operand::kReg;
    o.reg = RG_TRY(reg(b, s, line));
    return o;
  }
  if (s.size() == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    uint32_t bits = 0;
    auto r = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (r.ec != std::errc()) return err(line, "float literal " + std::string(s));
    o.kind = Operand::kImm;
    o.imm = bits;
    return o;
  }
  if (s.size() == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    uint64_t bits = 0;
    auto r = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (r.ec != std::errc()) return err(line, "double literal " + std::string(s));
    o.kind = Operand::kImm;
    o.imm = static_cast<int64_t>(bits);
    return o;
  }
  if (parse_int(s, o.imm)) {
    o.kind = Operand::kImm;
    return o;
  }
  if (branch) {
    o.kind = Operand::kNone;  // the label, resolved by the caller
    return o;
  }
  if (auto sh = b.shared.find(std::string(s)); sh != b.shared.end()) {
    o.kind = Operand::kImm;  // the symbol's address in the shared window
    o.imm = sh->second;
    return o;
  }
  if (auto p = b.params.find(std::string(s)); p != b.params.end()) {
    o.kind = Operand::kImm;
    o.imm = p->second;
    return o;
  }
  return err(line, "operand " + std::string(s));
}

// Operand kinds and counts per instruction, so the executor only ever sees well-formed ones (a
// PTX image is untrusted input: it comes from GPU memory).
Status Parser::check_shape(const Inst& in, uint32_t line) {
  auto kind = [&](size_t i) { return in.o[i].kind; };
  auto bad = [&](const char* what) {
    return err(line, strformat("operands of this instruction: %s", what));
  };
  size_t need = 0;
  switch (in.op) {
    case Op::kBra:
    case Op::kRet:
    case Op::kBar: return {};
    case Op::kMov:
    case Op::kCvta:
    case Op::kNeg:
    case Op::kAbs:
    case Op::kNot:
    case Op::kCvt:
    case Op::kRcp:
    case Op::kSqrt:
    case Op::kRsqrt:
    case Op::kEx2:
    case Op::kLg2:
    case Op::kSin:
    case Op::kCos:
    case Op::kTanh:
    case Op::kLd:
    case Op::kSt: need = 2; break;
    case Op::kMad:
    case Op::kFma:
    case Op::kSelp:
    case Op::kShf:
    case Op::kMma: need = 4; break;
    default: need = 3; break;
  }
  if (in.op == Op::kCvt && (in.type == Type::kF16x2 || in.type == Type::kBF16x2)) need = 3;
  if (in.nops < need) return bad(strformat("%u given, %zu needed", in.nops, need).c_str());
  for (size_t i = 0; i < in.nops; ++i) {
    const bool addr_ok = (in.op == Op::kLd && i == 1) || (in.op == Op::kSt && i == 0);
    if ((kind(i) == Operand::kAddr) != addr_ok)
      return bad("an address where none belongs, or none where one does");
    if (kind(i) == Operand::kVec) {
      const uint8_t n = in.o[i].count;
      const bool vec_ok =
          (in.op == Op::kMma && n == (i == 2 ? 2 : 4)) ||
          ((in.op == Op::kLd && i == 0) || (in.op == Op::kSt && i == 1) ? n == in.vec && n > 1
                                                                        : false) ||
          (in.op == Op::kMov && i <= 1 && (n == 2 || n == 4) && kind(1 - i) != Operand::kVec);
      if (!vec_ok) return bad("a vector of the wrong length or in the wrong place");
    } else if ((in.op == Op::kMma) ||
               (in.vec > 1 && ((in.op == Op::kLd && i == 0) || (in.op == Op::kSt && i == 1)))) {
      return bad("a vector is required");
    }
  }
  const bool dest = in.op != Op::kSt;
  if (dest && kind(0) != Operand::kReg && kind(0) != Operand::kVec) {
    return bad("the destination is not a register");
  }
  if (in.op == Op::kSt && kind(1) == Operand::kSpecial) return bad("a special register stored");
  return {};
}

Status Parser::statement(Body& b, std::string_view s, uint32_t line) {
  if (s.empty()) return {};
  if (s[0] == '.') {
    // Declarations inside the body.
    if (s.rfind(".reg", 0) == 0) {
      // ".reg .b32 %r<5>" or ".reg .b16 %tmp"
      const size_t pct = s.find('%');
      if (pct == std::string_view::npos) return err(line, "register declaration");
      std::string_view name = trim(s.substr(pct));
      for (std::string_view one : split_operands(name)) {
        if (const size_t lt = one.find('<'); lt != std::string_view::npos) {
          int64_t n = 0;
          if (!parse_int(one.substr(lt + 1, one.size() - lt - 2), n) || n < 0 ||
              uint64_t{b.k.registers} + static_cast<uint64_t>(n) > kMaxRegisters) {
            return err(line, "register count (at most 16384 registers in all)");
          }
          b.banks[std::string(one.substr(0, lt))] = {b.k.registers, static_cast<uint32_t>(n)};
          b.k.registers += static_cast<uint32_t>(n);
        } else {
          b.singles[std::string(one)] = b.k.registers++;
        }
      }
      return {};
    }
    if (s.rfind(".shared", 0) == 0 || s.rfind(".extern", 0) == 0) {
      const bool dynamic = s.rfind(".extern", 0) == 0;
      uint32_t align = 4;
      if (const size_t a = s.find(".align"); a != std::string_view::npos) {
        int64_t v = 0;
        size_t e = a + 6;
        while (e < s.size() && std::isspace(static_cast<unsigned char>(s[e]))) ++e;
        size_t f = e;
        while (f < s.size() && std::isdigit(static_cast<unsigned char>(s[f]))) ++f;
        if (!parse_int(s.substr(e, f - e), v) || v <= 0 || v > 4096 || (v & (v - 1)) != 0)
          return err(line, "shared alignment (a power of two up to 4096)");
        align = static_cast<uint32_t>(v);
      }
      const size_t lb = s.find('[');
      size_t ns = s.find_last_of(" \t", lb == std::string_view::npos ? s.size() : lb);
      std::string_view name =
          trim(s.substr(ns + 1, (lb == std::string_view::npos ? s.size() : lb) - ns - 1));
      int64_t n = 0;
      if (lb != std::string_view::npos && (lb + 1 == s.size() || s.find(']', lb) == s.npos))
        return err(line, "shared array without its closing ']'");
      if (lb != std::string_view::npos && s[lb + 1] != ']') {
        if (!parse_int(s.substr(lb + 1, s.find(']', lb) - lb - 1), n) || n < 0 ||
            n > kMaxSharedBytes)
          return err(line, "shared size (at most 228 KiB)");
      }
      uint32_t elem = 1;
      for (const auto& t : kTypes) {
        if (s.find("." + std::string(t.name) + " ") != std::string_view::npos)
          elem = std::max(elem, ptx::type_bytes(t.type));
      }
      b.k.shared_bytes = (b.k.shared_bytes + align - 1) / align * align;
      b.shared[std::string(name)] = b.k.shared_bytes;
      if (!dynamic) {
        if (uint64_t{b.k.shared_bytes} + static_cast<uint64_t>(n) * elem > kMaxSharedBytes)
          return err(line, "static shared memory past 228 KiB");
        b.k.shared_bytes += static_cast<uint32_t>(n) * elem;
      }
      return {};
    }
    if (s.rfind(".local", 0) == 0) {
      return Error(Errc::kUnsupported,
                   strformat("PTX line %u: .local arrays (stack memory) are not simulated", line));
    }
    return {};  // .pragma and others inside the body: no effect on execution
  }
  Inst in;
  in.line = line;
  if (s[0] == '@') {
    size_t sp = s.find_first_of(" \t\r\n");
    std::string_view p = s.substr(1, sp - 1);
    if (!p.empty() && p[0] == '!') {
      in.pred_neg = true;
      p.remove_prefix(1);
    }
    in.pred = static_cast<int32_t>(RG_TRY(reg(b, p, line)));
    if (sp == std::string_view::npos) return err(line, "a guard predicate without an instruction");
    s = trim(s.substr(sp));
  }
  const size_t sp = s.find_first_of(" \t\r\n");
  const std::string_view opcode = s.substr(0, sp);
  const std::string_view rest =
      sp == std::string_view::npos ? std::string_view() : trim(s.substr(sp));
  const auto parts = split_dots(opcode);
  bool found = false;
  for (const auto& o : kOps) {
    if (o.name == parts[0]) {
      in.op = o.op;
      found = true;
    }
  }
  if (!found) {
    return Error(Errc::kUnsupported,
                 strformat("PTX line %u: instruction %.*s is not simulated", line,
                           static_cast<int>(opcode.size()), opcode.data()));
  }
  std::vector<Type> types;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string_view m = parts[i];
    if (Type t = type_of(m); t != Type::kNone) {
      types.push_back(t);
    } else if (m == "global")
      in.space = Space::kGlobal;
    else if (m == "shared")
      in.space = Space::kShared;
    else if (m == "param")
      in.space = Space::kParam;
    else if (m == "local")
      in.space = Space::kLocal;
    else if (m == "const")
      in.space = Space::kConst;
    else if (m == "v2")
      in.vec = 2;
    else if (m == "v4")
      in.vec = 4;
    else if (m == "wide")
      in.flags |= kFlagWide;
    else if (m == "lo")
      in.flags |= kFlagLo;
    else if (m == "hi")
      in.flags |= kFlagHi;
    else if (m == "ftz")
      in.flags |= kFlagFtz;
    else if (m == "sat")
      in.flags |= kFlagSat;
    else if (m == "NaN")
      in.flags |= kFlagNaN;
    else if (m == "rn")
      in.flags |= kFlagRn;
    else if (m == "rz")
      in.flags |= kFlagRz;
    else if (m == "rm")
      in.flags |= kFlagRm;
    else if (m == "rp")
      in.flags |= kFlagRp;
    else if (m == "rni")
      in.flags |= kFlagIntRound | kFlagRn;
    else if (m == "rzi")
      in.flags |= kFlagIntRound | kFlagRz;
    else if (m == "rmi")
      in.flags |= kFlagIntRound | kFlagRm;
    else if (m == "rpi")
      in.flags |= kFlagIntRound | kFlagRp;
    else if (m == "approx" || m == "full")
      in.flags |= kFlagApprox;
    else if (m == "to")
      in.flags |= kFlagTo;
    else if (in.op == Op::kShf && m == "l")
      in.flags |= kFlagLeft;
    else if (in.op == Op::kShf && m == "clamp")
      in.flags |= kFlagClamp;
    else if (in.op == Op::kShf && (m == "r" || m == "wrap")) {
    } else if (in.op == Op::kSetp && in.cmp == 0 && cmp_index(m) != 0) {
      in.cmp = cmp_index(m);
    } else if (m == "nc" || m == "uni" || m == "sync" || m == "aligned" || m == "m16n8k16" ||
               m == "row" || m == "col" || m == "ca" || m == "cg" || m == "cs" || m == "lu" ||
               m == "cv" || m == "wb" || m == "wt" || m == "volatile" || m == "relaxed" ||
               m == "cta" || m == "gpu" || m == "weak") {
      // Caching hints and shapes that do not change what the simulator computes.
    } else if (m == "0" && in.op == Op::kBar) {
    } else {
      return Error(Errc::kUnsupported,
                   strformat("PTX line %u: modifier .%.*s of %.*s is not simulated", line,
                             static_cast<int>(m.size()), m.data(), static_cast<int>(opcode.size()),
                             opcode.data()));
    }
  }
  if (!types.empty()) in.type = types[0];
  if (types.size() > 1) in.type2 = types[1];
  if (in.op == Op::kMma) {
    // mma.sync.aligned.m16n8k16.row.col.DTYPE.ATYPE.BTYPE.CTYPE
    if (types.size() != 4 || types[0] != Type::kF32 || types[3] != Type::kF32 ||
        types[1] != types[2] || (types[1] != Type::kF16 && types[1] != Type::kBF16) ||
        opcode.find("m16n8k16.row.col") == std::string_view::npos) {
      return Error(Errc::kUnsupported,
                   strformat("PTX line %u: %.*s: only m16n8k16.row.col f32 += f16/bf16 is "
                             "simulated",
                             line, static_cast<int>(opcode.size()), opcode.data()));
    }
  }
  const auto ops = split_operands(rest);
  if (ops.size() > 4) return err(line, "more than 4 operands");
  for (size_t i = 0; i < ops.size(); ++i) {
    if (in.op == Op::kBra) {
      b.fixups.push_back({static_cast<uint32_t>(b.k.code.size()), std::string(ops[i])});
      continue;
    }
    if (ops[i].find('|') != std::string_view::npos) {
      return Error(Errc::kUnsupported, strformat("PTX line %u: predicate pairs (p|q) are not "
                                                 "simulated",
                                                 line));
    }
    in.o[i] = RG_TRY(operand(b, ops[i], line, false));
  }
  in.nops = static_cast<uint8_t>(ops.size());
  if (in.op == Op::kBra && ops.size() != 1) return err(line, "bra needs one label");
  if ((in.op == Op::kLd || in.op == Op::kSt) && in.type == Type::kNone) {
    return err(line, "ld/st without a type");
  }
  RG_TRY(check_shape(in, line));
  b.k.code.push_back(in);
  return {};
}

}  // namespace

const Kernel* Module::find(std::string_view name) const {
  for (const Kernel& k : kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

Result<std::shared_ptr<const Module>> parse(std::string_view text) { return Parser(text).run(); }

}  // namespace rawgpu::sim::ptx
