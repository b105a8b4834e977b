// Executes a parsed PTX kernel: per CTA, each thread runs until it blocks (bar.sync, a
// warp-collective mma.sync, or exit); collectives complete when every lane of the warp has
// arrived, barriers when every live thread of the CTA has. Registers hold raw bits; each
// instruction interprets them with its own type, as the hardware does.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "rawgpu/base/format.h"
#include "rawgpu/sim/ptx.h"

namespace rawgpu::sim::ptx {

namespace {

uint32_t bytes_of(Type t) { return t == Type::kNone ? 4 : type_bytes(t); }
bool is_signed(Type t) {
  return t == Type::kS8 || t == Type::kS16 || t == Type::kS32 || t == Type::kS64;
}
bool is_float(Type t) {
  return t == Type::kF16 || t == Type::kF16x2 || t == Type::kBF16 || t == Type::kBF16x2 ||
         t == Type::kF32 || t == Type::kF64;
}
uint64_t mask_of(Type t) {
  const uint32_t b = bytes_of(t);
  return b >= 8 ? ~0ull : (1ull << (8 * b)) - 1;
}
int64_t sext(uint64_t v, Type t) {
  const uint32_t bits = 8 * bytes_of(t);
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t m = 1ull << (bits - 1);
  v &= (1ull << bits) - 1;
  return static_cast<int64_t>((v ^ m) - m);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {
      exp = 127 - 15 + 1;
      while ((man & 0x400) == 0) {
        man <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  return std::bit_cast<float>(bits);
}
uint16_t float_to_half(float f) {  // round to nearest even
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return sign | (ax > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (ax >= 0x477ff000u) return sign | 0x7c00;  // rounds to >= 65520: inf
  if (ax < 0x38800000u) {                       // subnormal half or zero
    const float a = std::bit_cast<float>(ax);
    const float scaled = a * 16777216.0f;  // 2^24: units of the smallest subnormal
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  const uint32_t r = ax + 0xfffu + ((ax >> 13) & 1u);
  return sign | static_cast<uint16_t>((r - 0x38000000u) >> 13);
}
float bf16_to_float(uint16_t b) { return std::bit_cast<float>(uint32_t{b} << 16); }
uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

// Floating values of a register as double (exact for every PTX float type).
double fget(uint64_t raw, Type t) {
  switch (t) {
    case Type::kF64: return std::bit_cast<double>(raw);
    case Type::kF16: return half_to_float(static_cast<uint16_t>(raw));
    case Type::kBF16: return bf16_to_float(static_cast<uint16_t>(raw));
    default: return std::bit_cast<float>(static_cast<uint32_t>(raw));
  }
}
uint64_t fput(double v, Type t) {
  switch (t) {
    case Type::kF64: return std::bit_cast<uint64_t>(v);
    case Type::kF16: return float_to_half(static_cast<float>(v));
    case Type::kBF16: return float_to_bf16(static_cast<float>(v));
    default: return std::bit_cast<uint32_t>(static_cast<float>(v));
  }
}
float ftz(float v, bool on) {
  if (on && std::fpclassify(v) == FP_SUBNORMAL) return std::copysign(0.0f, v);
  return v;
}

struct Cta {
  const Kernel& k;
  const Launch& L;
  GlobalMemory global;
  std::array<uint32_t, 3> ctaid{};
  uint32_t threads = 0;
  std::vector<uint64_t> regs;
  std::vector<uint32_t> pc;
  std::vector<uint8_t> state;  // 0 running, 1 barrier, 2 done, 3 warp collective
  std::vector<uint8_t> shared;
  uint64_t steps = 0, max_steps = 0;
};

enum : uint8_t { kRunning = 0, kAtBarrier = 1, kDone = 2, kAtCollective = 3 };

class Exec {
 public:
  explicit Exec(Cta& c) : c_(c) {}
  Status run_thread(uint32_t t);
  Status mma(uint32_t warp_first, uint32_t lanes, const Inst& in);

 private:
  uint64_t& R(uint32_t t, uint32_t r) { return c_.regs[size_t{t} * c_.k.registers + r]; }
  uint64_t special(uint32_t t, uint8_t s) const {
    const auto& b = c_.L.block;
    const uint32_t tx = t % b[0], ty = (t / b[0]) % b[1], tz = t / (b[0] * b[1]);
    switch (s) {
      case 0: return tx;
      case 1: return ty;
      case 2: return tz;
      case 3:
      case 4:
      case 5: return b[s - 3];
      case 6:
      case 7:
      case 8: return c_.ctaid[s - 6];
      case 9:
      case 10:
      case 11: return c_.L.grid[s - 9];
      case 12: return t % 32;
      default: return t / 32;
    }
  }
  uint64_t val(uint32_t t, const Operand& o) {
    switch (o.kind) {
      case Operand::kReg: return R(t, o.reg);
      case Operand::kImm: return static_cast<uint64_t>(o.imm);
      case Operand::kSpecial: return special(t, o.special);
      default: return 0;
    }
  }
  Result<uint8_t*> memory(uint32_t t, const Inst& in, uint64_t n, bool write);
  Error fault(const Inst& in, uint32_t t, const std::string& what) {
    return Error(Errc::kHardware,
                 strformat("PTX kernel %s line %u, CTA (%u,%u,%u) thread %u: %s", c_.k.name.c_str(),
                           in.line, c_.ctaid[0], c_.ctaid[1], c_.ctaid[2], t, what.c_str()));
  }
  Status alu(uint32_t t, const Inst& in);
  Status cvt(uint32_t t, const Inst& in);

  Cta& c_;
};

Result<uint8_t*> Exec::memory(uint32_t t, const Inst& in, uint64_t n, bool write) {
  const Operand& a = in.op == Op::kLd ? in.o[1] : in.o[0];
  const uint64_t base = a.reg == kNoReg ? 0 : R(t, a.reg);
  uint64_t addr = base + static_cast<uint64_t>(a.imm);
  Space sp = in.space;
  if (sp == Space::kGeneric) {
    if (addr >= kSharedWindow && addr < kSharedWindow + c_.shared.size()) {
      sp = Space::kShared;
      addr -= kSharedWindow;
    } else {
      sp = Space::kGlobal;
    }
  }
  switch (sp) {
    case Space::kParam:
      if (write || addr + n > c_.L.params.size()) {
        return fault(
            in, t,
            strformat("parameter access [%s, +%llu) outside the %zu-byte block", hex(addr).c_str(),
                      static_cast<unsigned long long>(n), c_.L.params.size()));
      }
      return const_cast<uint8_t*>(c_.L.params.data()) + addr;
    case Space::kShared:
      if (addr + n > c_.shared.size() || addr + n < addr) {
        return fault(
            in, t,
            strformat("shared access [%s, +%llu) outside the CTA's %zu bytes", hex(addr).c_str(),
                      static_cast<unsigned long long>(n), c_.shared.size()));
      }
      return c_.shared.data() + addr;
    case Space::kGlobal: {
      auto p = c_.global(addr, n, write);
      if (!p.ok()) return fault(in, t, p.error().message());
      return *p;
    }
    default: return fault(in, t, "local/const memory is not simulated");
  }
}

Status Exec::cvt(uint32_t t, const Inst& in) {
  const Type dt = in.type, st = in.type2 == Type::kNone ? in.type : in.type2;
  const uint64_t raw = val(t, in.o[1]);
  uint64_t out = 0;
  if (dt == Type::kF16x2 || dt == Type::kBF16x2) {
    // cvt.rn.f16x2.f32 d, a, b: a in the upper half, b in the lower.
    const double hi = fget(raw, Type::kF32), lo = fget(val(t, in.o[2]), Type::kF32);
    const Type h = dt == Type::kF16x2 ? Type::kF16 : Type::kBF16;
    out = (fput(hi, h) << 16) | fput(lo, h);
  } else if (is_float(dt) && is_float(st)) {
    double v = fget(raw, st);
    if (in.flags & kFlagIntRound) {
      v = (in.flags & kFlagRz)   ? std::trunc(v)
          : (in.flags & kFlagRm) ? std::floor(v)
          : (in.flags & kFlagRp) ? std::ceil(v)
                                 : std::nearbyint(v);
    }
    if (dt == Type::kF32 && st == Type::kF64 && (in.flags & kFlagRz)) {
      const float f = static_cast<float>(v);
      out = std::bit_cast<uint32_t>(
          std::fabs(static_cast<double>(f)) > std::fabs(v) ? std::nextafter(f, 0.0f) : f);
    } else {
      out = fput(v, dt);
    }
  } else if (is_float(dt)) {
    const double v =
        is_signed(st) ? static_cast<double>(sext(raw, st)) : static_cast<double>(raw & mask_of(st));
    if (dt == Type::kF32) {
      // int -> f32 rounds once (the double is exact only for |v| < 2^53).
      const float f =
          is_signed(st) ? static_cast<float>(sext(raw, st)) : static_cast<float>(raw & mask_of(st));
      out = std::bit_cast<uint32_t>(f);
    } else {
      out = fput(v, dt);
    }
  } else if (is_float(st)) {
    double v = fget(raw, st);
    v = (in.flags & kFlagRn)   ? std::nearbyint(v)
        : (in.flags & kFlagRm) ? std::floor(v)
        : (in.flags & kFlagRp) ? std::ceil(v)
                               : std::trunc(v);
    const uint32_t bits = 8 * bytes_of(dt);
    if (std::isnan(v)) {
      out = 0;
    } else if (is_signed(dt)) {
      const double lo = -std::ldexp(1.0, static_cast<int>(bits) - 1);
      const double hi = std::ldexp(1.0, static_cast<int>(bits) - 1) - 1;
      const double c = v < lo ? lo : v > hi ? hi : v;
      out = static_cast<uint64_t>(static_cast<int64_t>(c)) & mask_of(dt);
    } else {
      const double hi = std::ldexp(1.0, static_cast<int>(bits)) - 1;
      const double c = v < 0 ? 0 : v > hi ? hi : v;
      out = static_cast<uint64_t>(c) & mask_of(dt);
    }
  } else {
    // Integer to integer: sign- or zero-extend from the source, truncate to the destination.
    const uint64_t v = is_signed(st) ? static_cast<uint64_t>(sext(raw, st)) : raw & mask_of(st);
    out = is_signed(dt) ? static_cast<uint64_t>(sext(v, dt)) : v & mask_of(dt);
    if (in.flags & kFlagSat) {
      const int64_t sv = is_signed(st) ? sext(raw, st) : static_cast<int64_t>(raw & mask_of(st));
      const uint32_t bits = 8 * bytes_of(dt);
      const int64_t lo = is_signed(dt) ? -(int64_t{1} << (bits - 1)) : 0;
      const int64_t hi = is_signed(dt) ? (int64_t{1} << (bits - 1)) - 1
                                       : static_cast<int64_t>(mask_of(dt) >> 1 | mask_of(dt));
      out = static_cast<uint64_t>(sv < lo ? lo : (bits < 64 && sv > hi) ? hi : sv) & mask_of(dt);
    }
  }
  R(t, in.o[0].reg) = out;
  return {};
}

bool compare(uint8_t cmp, Type ty, uint64_t a, uint64_t b) {
  if (is_float(ty)) {
    const double x = fget(a, ty), y = fget(b, ty);
    const bool un = std::isnan(x) || std::isnan(y);
    switch (cmp) {
      case 1: return x == y;
      case 2: return !un && x != y;
      case 3: return x < y;
      case 4: return x <= y;
      case 5: return x > y;
      case 6: return x >= y;
      case 11: return un || x == y;
      case 12: return un || x != y;
      case 13: return un || x < y;
      case 14: return un || x <= y;
      case 15: return un || x > y;
      case 16: return un || x >= y;
      case 17: return !un;
      case 18: return un;
      default: return false;
    }
  }
  if (is_signed(ty) && cmp >= 3 && cmp <= 6) {
    const int64_t x = sext(a, ty), y = sext(b, ty);
    switch (cmp) {
      case 3: return x < y;
      case 4: return x <= y;
      case 5: return x > y;
      default: return x >= y;
    }
  }
  const uint64_t m = mask_of(ty), x = a & m, y = b & m;
  switch (cmp) {
    case 1: return x == y;
    case 2: return x != y;
    case 3:
    case 7: return x < y;
    case 4:
    case 8: return x <= y;
    case 5:
    case 9: return x > y;
    case 6:
    case 10: return x >= y;
    default: return false;
  }
}

Status Exec::alu(uint32_t t, const Inst& in) {
  const Type ty = in.type;
  const uint64_t a = val(t, in.o[1]);
  const uint64_t b = in.nops > 2 ? val(t, in.o[2]) : 0;
  const uint64_t cc = in.nops > 3 ? val(t, in.o[3]) : 0;
  uint64_t& d = R(t, in.o[0].reg);
  if (ty == Type::kPred) {
    switch (in.op) {
      case Op::kAnd: d = (a & b) & 1; return {};
      case Op::kOr: d = (a | b) & 1; return {};
      case Op::kXor: d = (a ^ b) & 1; return {};
      case Op::kNot: d = ~a & 1; return {};
      default: return fault(in, t, "predicate operation");
    }
  }
  if (ty == Type::kF16x2 || ty == Type::kBF16x2) {
    const Type h = ty == Type::kF16x2 ? Type::kF16 : Type::kBF16;
    uint64_t out = 0;
    for (int lane = 0; lane < 2; ++lane) {
      const float x = static_cast<float>(fget(a >> (16 * lane), h));
      const float y = static_cast<float>(fget(b >> (16 * lane), h));
      const float z = static_cast<float>(fget(cc >> (16 * lane), h));
      float r = 0;
      switch (in.op) {
        case Op::kAdd: r = x + y; break;
        case Op::kSub: r = x - y; break;
        case Op::kMul: r = x * y; break;
        case Op::kFma: r = std::fma(x, y, z); break;
        case Op::kMin: r = std::fmin(x, y); break;
        case Op::kMax: r = std::fmax(x, y); break;
        case Op::kNeg: r = -x; break;
        case Op::kAbs: r = std::fabs(x); break;
        default: return fault(in, t, "packed half operation");
      }
      out |= fput(r, h) << (16 * lane);
    }
    d = out;
    return {};
  }
  if (is_float(ty)) {
    const bool dbl = ty == Type::kF64;
    const bool z = (in.flags & kFlagFtz) != 0;
    if (dbl) {
      const double x = fget(a, ty), y = fget(b, ty), w = fget(cc, ty);
      double r = 0;
      switch (in.op) {
        case Op::kAdd: r = x + y; break;
        case Op::kSub: r = x - y; break;
        case Op::kMul: r = x * y; break;
        case Op::kFma:
        case Op::kMad: r = std::fma(x, y, w); break;
        case Op::kDiv: r = x / y; break;
        case Op::kMin:
          r = (in.flags & kFlagNaN) && (std::isnan(x) || std::isnan(y)) ? NAN : std::fmin(x, y);
          break;
        case Op::kMax:
          r = (in.flags & kFlagNaN) && (std::isnan(x) || std::isnan(y)) ? NAN : std::fmax(x, y);
          break;
        case Op::kNeg: r = -x; break;
        case Op::kAbs: r = std::fabs(x); break;
        case Op::kRcp: r = 1.0 / x; break;
        case Op::kSqrt: r = std::sqrt(x); break;
        case Op::kRsqrt: r = 1.0 / std::sqrt(x); break;
        case Op::kCopysign: r = std::copysign(y, x); break;
        default: return fault(in, t, "f64 operation");
      }
      d = fput(r, ty);
      return {};
    }
    // f32 (and scalar f16/bf16, computed in f32 and rounded once).
    const float x = ftz(static_cast<float>(fget(a, ty)), z);
    const float y = ftz(static_cast<float>(fget(b, ty)), z);
    const float w = ftz(static_cast<float>(fget(cc, ty)), z);
    float r = 0;
    switch (in.op) {
      case Op::kAdd: r = x + y; break;
      case Op::kSub: r = x - y; break;
      case Op::kMul: r = x * y; break;
      case Op::kFma:
      case Op::kMad: r = std::fma(x, y, w); break;
      case Op::kDiv: r = x / y; break;
      case Op::kMin:
        r = (in.flags & kFlagNaN) && (std::isnan(x) || std::isnan(y)) ? NAN : std::fmin(x, y);
        break;
      case Op::kMax:
        r = (in.flags & kFlagNaN) && (std::isnan(x) || std::isnan(y)) ? NAN : std::fmax(x, y);
        break;
      case Op::kNeg: r = -x; break;
      case Op::kAbs: r = std::fabs(x); break;
      case Op::kRcp: r = 1.0f / x; break;
      case Op::kSqrt: r = std::sqrt(x); break;
      case Op::kRsqrt: r = 1.0f / std::sqrt(x); break;
      case Op::kEx2: r = std::exp2(x); break;
      case Op::kLg2: r = std::log2(x); break;
      case Op::kSin: r = std::sin(x); break;
      case Op::kCos: r = std::cos(x); break;
      case Op::kTanh: r = std::tanh(x); break;
      case Op::kCopysign: r = std::copysign(y, x); break;
      default: return fault(in, t, "float operation");
    }
    if (in.flags & kFlagSat) r = std::isnan(r) ? 0.0f : std::fmin(std::fmax(r, 0.0f), 1.0f);
    d = fput(ftz(r, z), ty);
    return {};
  }
  // Integers.
  const uint64_t m = mask_of(ty);
  const bool s = is_signed(ty);
  const uint32_t bits = 8 * bytes_of(ty);
  auto wide_mul = [&](uint64_t x, uint64_t y) -> unsigned __int128 {
    if (s) return static_cast<unsigned __int128>(static_cast<__int128>(sext(x, ty)) * sext(y, ty));
    return static_cast<unsigned __int128>(x & m) * (y & m);
  };
  switch (in.op) {
    case Op::kAdd: d = (a + b) & m; return {};
    case Op::kSub: d = (a - b) & m; return {};
    case Op::kMul:
    case Op::kMad: {
      const unsigned __int128 p = wide_mul(a, b);
      uint64_t r;
      if (in.flags & kFlagWide) {
        r = static_cast<uint64_t>(p) & (bits >= 32 ? ~0ull : (1ull << (2 * bits)) - 1);
        if (in.op == Op::kMad) r += cc;
        d = bits >= 32 ? r : r & ((1ull << (2 * bits)) - 1);
        return {};
      }
      r = (in.flags & kFlagHi) ? static_cast<uint64_t>(p >> bits) : static_cast<uint64_t>(p);
      if (in.op == Op::kMad) r += cc;
      d = r & m;
      return {};
    }
    case Op::kDiv:
    case Op::kRem: {
      if ((b & m) == 0) {
        d = in.op == Op::kDiv ? m : a & m;  // PTX leaves it unspecified; no host trap here
        return {};
      }
      if (s) {
        const int64_t x = sext(a, ty), y = sext(b, ty);
        if (y == -1) {
          d = in.op == Op::kDiv ? static_cast<uint64_t>(-static_cast<uint64_t>(x)) & m : 0;
          return {};
        }
        d = static_cast<uint64_t>(in.op == Op::kDiv ? x / y : x % y) & m;
      } else {
        d = (in.op == Op::kDiv ? (a & m) / (b & m) : (a & m) % (b & m)) & m;
      }
      return {};
    }
    case Op::kMin:
    case Op::kMax: {
      const bool less = s ? sext(a, ty) < sext(b, ty) : (a & m) < (b & m);
      d = ((in.op == Op::kMin) == less ? a : b) & m;
      return {};
    }
    case Op::kNeg: d = (0 - a) & m; return {};
    case Op::kAbs:
      d = static_cast<uint64_t>(sext(a, ty) < 0 ? -sext(a, ty) : sext(a, ty)) & m;
      return {};
    case Op::kAnd: d = (a & b) & m; return {};
    case Op::kOr: d = (a | b) & m; return {};
    case Op::kXor: d = (a ^ b) & m; return {};
    case Op::kNot: d = ~a & m; return {};
    case Op::kShl: {
      const uint64_t n = b & 0xffffffffu;
      d = n >= bits ? 0 : (a << n) & m;
      return {};
    }
    case Op::kShr: {
      const uint64_t n = b & 0xffffffffu;
      if (s) {
        const int64_t x = sext(a, ty);
        d = static_cast<uint64_t>(n >= bits ? (x < 0 ? -1 : 0) : x >> n) & m;
      } else {
        d = n >= bits ? 0 : (a & m) >> n;
      }
      return {};
    }
    default: return fault(in, t, "integer operation");
  }
}

Status Exec::run_thread(uint32_t t) {
  const auto& code = c_.k.code;
  uint32_t pc = c_.pc[t];
  while (true) {
    if (pc >= code.size()) {
      c_.state[t] = kDone;
      c_.pc[t] = pc;
      return {};
    }
    if (++c_.steps > c_.max_steps) {
      return Error(Errc::kTimeout,
                   strformat("PTX kernel %s ran past %llu thread-instructions without finishing",
                             c_.k.name.c_str(), static_cast<unsigned long long>(c_.max_steps)));
    }
    const Inst& in = code[pc];
    if (in.pred >= 0 && ((R(t, static_cast<uint32_t>(in.pred)) & 1) != 0) == in.pred_neg) {
      ++pc;
      continue;
    }
    switch (in.op) {
      case Op::kBra: pc = in.target; continue;
      case Op::kRet:
        c_.state[t] = kDone;
        c_.pc[t] = pc;
        return {};
      case Op::kBar:
        c_.state[t] = kAtBarrier;
        c_.pc[t] = pc;
        return {};
      case Op::kMma:
        c_.state[t] = kAtCollective;
        c_.pc[t] = pc;
        return {};
      case Op::kMov: {
        const Operand& dst = in.o[0];
        const Operand& src = in.o[1];
        const uint32_t eb = 8 * bytes_of(in.type);
        if (src.kind == Operand::kVec) {  // pack
          const uint32_t part = eb / src.count;
          uint64_t v = 0;
          for (uint32_t i = 0; i < src.count; ++i) {
            v |= (R(t, src.vec[i]) & ((part >= 64) ? ~0ull : (1ull << part) - 1)) << (part * i);
          }
          R(t, dst.reg) = v;
        } else if (dst.kind == Operand::kVec) {  // unpack
          const uint64_t v = val(t, src);
          const uint32_t part = eb / dst.count;
          for (uint32_t i = 0; i < dst.count; ++i) {
            R(t, dst.vec[i]) = (v >> (part * i)) & ((part >= 64) ? ~0ull : (1ull << part) - 1);
          }
        } else {
          R(t, dst.reg) = val(t, src) & mask_of(in.type);
        }
        break;
      }
      case Op::kLd:
      case Op::kSt: {
        const uint32_t eb = bytes_of(in.type);
        auto p = memory(t, in, uint64_t{eb} * in.vec, in.op == Op::kSt);
        if (!p.ok()) return std::move(p).take_error();
        uint8_t* mem = *p;
        const Operand& r = in.op == Op::kLd ? in.o[0] : in.o[1];
        for (uint32_t i = 0; i < in.vec; ++i) {
          const uint32_t reg = r.kind == Operand::kVec ? r.vec[i] : r.reg;
          if (in.op == Op::kLd) {
            uint64_t v = 0;
            std::memcpy(&v, mem + i * eb, eb);
            if (is_signed(in.type)) v = static_cast<uint64_t>(sext(v, in.type));
            R(t, reg) = v;
          } else {
            const uint64_t v = r.kind == Operand::kImm ? static_cast<uint64_t>(r.imm) : R(t, reg);
            std::memcpy(mem + i * eb, &v, eb);
          }
        }
        break;
      }
      case Op::kCvta: {
        const uint64_t v = val(t, in.o[1]);
        // cvta.shared: shared offset -> generic; cvta.to.shared: back; global is the identity.
        uint64_t out = v;
        if (in.space == Space::kShared) {
          out = (in.flags & kFlagTo) ? v - kSharedWindow : v + kSharedWindow;
        } else if (in.space != Space::kGlobal) {
          return fault(in, t, "cvta of a space other than global or shared");
        }
        R(t, in.o[0].reg) = out;
        break;
      }
      case Op::kSetp:
        R(t, in.o[0].reg) = compare(in.cmp, in.type, val(t, in.o[1]), val(t, in.o[2])) ? 1 : 0;
        break;
      case Op::kSelp:
        R(t, in.o[0].reg) = (val(t, in.o[3]) & 1) ? val(t, in.o[1]) : val(t, in.o[2]);
        break;
      case Op::kCvt: RG_TRY(cvt(t, in)); break;
      case Op::kShf: {
        // Funnel shift of the 64-bit b:a (b high) by c: .l keeps the upper word of the left
        // shift, .r the lower word of the right shift; .wrap takes c mod 32, .clamp min(c, 32).
        const uint64_t ab = (val(t, in.o[2]) << 32) | (val(t, in.o[1]) & 0xffffffffu);
        uint64_t n = val(t, in.o[3]) & 0xffffffffu;
        n = (in.flags & kFlagClamp) ? std::min<uint64_t>(n, 32) : n & 31;
        R(t, in.o[0].reg) =
            (in.flags & kFlagLeft) ? ((ab << n) >> 32) & 0xffffffffu : (ab >> n) & 0xffffffffu;
        break;
      }
      default: RG_TRY(alu(t, in)); break;
    }
    ++pc;
  }
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: D(16x8) = A(16x16) * B(16x8) + C, the
// fragments spread over the warp as the PTX ISA lays them out (groupID = lane / 4, thread in
// group = lane % 4).
Status Exec::mma(uint32_t first, uint32_t lanes, const Inst& in) {
  if (lanes != 32) {
    return fault(in, first, strformat("mma.sync needs a full warp; this one has %u lanes", lanes));
  }
  const Type ht = in.type2;
  float A[16][16], B[16][8], C[16][8];
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t t = first + lane, g = lane / 4, tg = lane % 4;
    const Operand& a = in.o[1];
    const Operand& b = in.o[2];
    const Operand& c = in.o[3];
    for (uint32_t r = 0; r < 4; ++r) {  // a0..a7 in 4 registers of two halves
      const uint64_t w = R(t, a.vec[r]);
      for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t row = g + ((r & 1) ? 8 : 0), col = tg * 2 + h + ((r & 2) ? 8 : 0);
        A[row][col] = static_cast<float>(fget((w >> (16 * h)) & 0xffff, ht));
      }
    }
    for (uint32_t r = 0; r < 2; ++r) {
      const uint64_t w = R(t, b.vec[r]);
      for (uint32_t h = 0; h < 2; ++h) {
        const uint32_t k = tg * 2 + h + (r ? 8 : 0);
        B[k][g] = static_cast<float>(fget((w >> (16 * h)) & 0xffff, ht));
      }
    }
    for (uint32_t r = 0; r < 4; ++r) {
      const uint32_t row = g + (r >= 2 ? 8 : 0), col = tg * 2 + (r & 1);
      C[row][col] = std::bit_cast<float>(static_cast<uint32_t>(R(t, c.vec[r])));
    }
  }
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const uint32_t t = first + lane, g = lane / 4, tg = lane % 4;
    for (uint32_t r = 0; r < 4; ++r) {
      const uint32_t row = g + (r >= 2 ? 8 : 0), col = tg * 2 + (r & 1);
      // Products are exact in f32 for f16/bf16 inputs; accumulate in order of k.
      float acc = C[row][col];
      for (uint32_t k = 0; k < 16; ++k) acc = std::fma(A[row][k], B[k][col], acc);
      R(t, in.o[0].vec[r]) = std::bit_cast<uint32_t>(acc);
    }
  }
  return {};
}

}  // namespace

Status run(const Kernel& k, const Launch& L, GlobalMemory global, RunStats* stats,
           uint64_t max_steps) {
  const uint64_t threads = uint64_t{L.block[0]} * L.block[1] * L.block[2];
  if (threads == 0 || threads > 1024 || L.grid[0] == 0 || L.grid[1] == 0 || L.grid[2] == 0) {
    return make_error(Errc::kInvalidArgument, "PTX launch of %s: block %ux%ux%u, grid %ux%ux%u",
                      k.name.c_str(), L.block[0], L.block[1], L.block[2], L.grid[0], L.grid[1],
                      L.grid[2]);
  }
  if (L.params.size() < k.param_bytes) {
    return make_error(Errc::kInvalidArgument, "PTX launch of %s: %zu parameter bytes, needs %u",
                      k.name.c_str(), L.params.size(), k.param_bytes);
  }
  Cta c{k, L, global, {}, 0, {}, {}, {}, {}, 0, 0};
  c.threads = static_cast<uint32_t>(threads);
  c.max_steps = max_steps;
  for (uint32_t z = 0; z < L.grid[2]; ++z) {
    for (uint32_t y = 0; y < L.grid[1]; ++y) {
      for (uint32_t x = 0; x < L.grid[0]; ++x) {
        c.ctaid = {x, y, z};
        c.regs.assign(size_t{c.threads} * k.registers, 0);
        c.pc.assign(c.threads, 0);
        c.state.assign(c.threads, kRunning);
        c.shared.assign(size_t{k.shared_bytes} + L.dynamic_shared, 0);
        Exec e(c);
        while (true) {
          for (uint32_t t = 0; t < c.threads; ++t) {
            if (c.state[t] == kRunning) RG_TRY(e.run_thread(t));
          }
          bool progressed = false;
          // Warp collectives: every lane of the warp at the same instruction.
          for (uint32_t w = 0; w * 32 < c.threads; ++w) {
            const uint32_t first = w * 32, lanes = std::min(32u, c.threads - first);
            uint32_t at = 0;
            for (uint32_t l = 0; l < lanes; ++l) at += c.state[first + l] == kAtCollective;
            if (at == 0) continue;
            if (at != lanes) continue;  // some lanes still elsewhere (barrier or done)
            const uint32_t pc = c.pc[first];
            for (uint32_t l = 1; l < lanes; ++l) {
              if (c.pc[first + l] != pc) {
                return make_error(Errc::kHardware,
                                  "PTX kernel %s: lanes of warp %u reached different mma.sync "
                                  "instructions (lines %u and %u)",
                                  k.name.c_str(), w, k.code[pc].line, k.code[c.pc[first + l]].line);
              }
            }
            RG_TRY(e.mma(first, lanes, k.code[pc]));
            for (uint32_t l = 0; l < lanes; ++l) {
              c.state[first + l] = kRunning;
              c.pc[first + l] = pc + 1;
            }
            progressed = true;
          }
          if (progressed) continue;
          uint32_t done = 0, barrier = 0, collective = 0;
          for (uint32_t t = 0; t < c.threads; ++t) {
            done += c.state[t] == kDone;
            barrier += c.state[t] == kAtBarrier;
            collective += c.state[t] == kAtCollective;
          }
          if (done == c.threads) break;
          if (collective == 0 && barrier > 0 && barrier + done == c.threads) {
            if (done > 0) {
              return make_error(Errc::kHardware,
                                "PTX kernel %s: bar.sync in CTA (%u,%u,%u) waits for %u "
                                "threads that already exited",
                                k.name.c_str(), x, y, z, done);
            }
            for (uint32_t t = 0; t < c.threads; ++t) {
              c.state[t] = kRunning;
              c.pc[t]++;
            }
            continue;
          }
          return make_error(Errc::kHardware,
                            "PTX kernel %s: CTA (%u,%u,%u) cannot make progress (%u at a "
                            "barrier, %u at a warp collective, %u done)",
                            k.name.c_str(), x, y, z, barrier, collective, done);
        }
        if (stats) stats->ctas++;
      }
    }
  }
  if (stats) stats->thread_instructions += c.steps;
  return {};
}

}  // namespace rawgpu::sim::ptx
