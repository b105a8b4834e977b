// RDNA3/RDNA4 wave32 executor: pre-decoded micro-ops per PC, wave state, semantics, the
// workgroup scheduler (round-robin to a barrier or the end) and strict wait-count checking.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "isa.h"
#include "ops.h"
#include "rawgpu/base/env.h"
#include "rawgpu/base/format.h"

namespace rawgpu::sim::rdna {
namespace {

enum Op : uint16_t {
  kNoOp = 0,
#define RDNA_ENUM(name) name,
  RDNA_OPS(RDNA_ENUM) RDNA_OPS_TYPES(RDNA_ENUM) RDNA_OPS_LANES(RDNA_ENUM) RDNA_OPS_WMMA(RDNA_ENUM)
#undef RDNA_ENUM
      kOpCount,
  kCmp = 0x8000,  // | cmpx << 12 | cond << 4 | type
};

// Compare conditions and operand types for the v_cmp / v_cmpx template.
enum Cond : uint8_t {
  kF,
  kLt,
  kEq,
  kLe,
  kGt,
  kLg,
  kGe,
  kO,
  kU,
  kNge,
  kNlg,
  kNgt,
  kNle,
  kNeq,
  kNlt,
  kT,
  kClass
};
enum CType : uint8_t { kF16, kF32, kF64, kI16, kI32, kI64, kU16, kU32, kU64 };

std::string_view normalise(std::string_view m, std::string& tmp) {
  for (std::string_view suf : {"_e32", "_e64"}) {
    if (m.size() > suf.size() && m.substr(m.size() - suf.size()) == suf)
      m.remove_suffix(suf.size());
  }
  if (m.substr(0, 7) == "v_dual_") {
    tmp = "v_";
    tmp += m.substr(7);
    m = tmp;
  }
  // scratch_* and flat_* memory operations share global_*'s semantics; only the address space
  // differs (exec_global routes by format and FLAT aperture).
  for (std::string_view pre : {"scratch_", "flat_"}) {
    if (m.substr(0, pre.size()) == pre) {
      tmp = "global_";
      tmp += m.substr(pre.size());
      m = tmp;
    }
  }
  // gfx1201 spellings with the same semantics.
  static const std::pair<std::string_view, std::string_view> kAlias[] = {
      {"s_add_co_u32", "s_add_u32"},         {"s_sub_co_u32", "s_sub_u32"},
      {"s_add_co_i32", "s_add_i32"},         {"s_sub_co_i32", "s_sub_i32"},
      {"s_add_co_ci_u32", "s_addc_u32"},     {"s_sub_co_ci_u32", "s_subb_u32"},
      {"s_addk_co_i32", "s_addk_i32"},       {"v_mad_co_u64_u32", "v_mad_u64_u32"},
      {"v_mad_co_i64_i32", "v_mad_i64_i32"}, {"v_s_rcp_f32", "v_rcp_f32"},
      {"v_s_exp_f32", "v_exp_f32"},          {"v_s_log_f32", "v_log_f32"},
      {"v_s_rsq_f32", "v_rsq_f32"},          {"v_s_sqrt_f32", "v_sqrt_f32"},
      {"v_s_rcp_f16", "v_rcp_f16"},          {"v_s_exp_f16", "v_exp_f16"},
      {"v_s_log_f16", "v_log_f16"},          {"v_s_rsq_f16", "v_rsq_f16"},
      {"v_s_sqrt_f16", "v_sqrt_f16"},        {"v_lshlrev_b64", "v_lshlrev_b64"}};
  for (auto [from, to] : kAlias)
    if (m == from) return to;
  return m;
}

uint16_t compare_id(std::string_view m) {
  bool x = false;
  if (m.substr(0, 7) == "v_cmpx_") {
    x = true;
    m.remove_prefix(7);
  } else if (m.substr(0, 6) == "v_cmp_") {
    m.remove_prefix(6);
  } else {
    return 0;
  }
  const size_t us = m.rfind('_');
  if (us == std::string_view::npos) return 0;
  const std::string_view cond = m.substr(0, us), type = m.substr(us + 1);
  static constexpr std::string_view kConds[] = {"f",   "lt",  "eq",  "le",  "gt",   "lg",
                                                "ge",  "o",   "u",   "nge", "nlg",  "ngt",
                                                "nle", "neq", "nlt", "t",   "class"};
  static constexpr std::string_view kTypes[] = {"f16", "f32", "f64", "i16", "i32",
                                                "i64", "u16", "u32", "u64"};
  int c = -1, t = -1;
  for (int i = 0; i < 17; ++i)
    if (cond == kConds[i]) c = i;
  if (cond == "ne") c = kLg;  // integer "not equal"
  for (int i = 0; i < 9; ++i)
    if (type == kTypes[i]) t = i;
  if (c < 0 || t < 0) return 0;
  if (c == kClass && t > kF64) return 0;
  if (t >= kI16 && c >= kO && c != kT && c != kF) return 0;
  return static_cast<uint16_t>(kCmp | (x ? 1u << 12 : 0u) | (c << 4) | t);
}

}  // namespace

uint16_t semantics_of(std::string_view mnemonic) {
  static const std::unordered_map<std::string_view, uint16_t> kMap = [] {
    std::unordered_map<std::string_view, uint16_t> m;
    static constexpr std::string_view kNames[] = {
#define RDNA_NAME(name) #name,
        RDNA_OPS(RDNA_NAME) RDNA_OPS_TYPES(RDNA_NAME) RDNA_OPS_LANES(RDNA_NAME)
            RDNA_OPS_WMMA(RDNA_NAME)
#undef RDNA_NAME
    };
    for (uint16_t i = 0; i < std::size(kNames); ++i)
      m.emplace(kNames[i], static_cast<uint16_t>(i + 1));
    return m;
  }();
  std::string tmp;
  const std::string_view n = normalise(mnemonic, tmp);
  if (const uint16_t c = compare_id(n); c != 0) return c;
  auto it = kMap.find(n);
  return it == kMap.end() ? 0 : it->second;
}

namespace {

constexpr unsigned kLanes = 32;
constexpr uint16_t kVcc = 106, kTtmp = 108, kNull = 124, kExec = 126;

inline float F(uint32_t x) { return std::bit_cast<float>(x); }
inline uint32_t U(float x) { return std::bit_cast<uint32_t>(x); }
inline double D(uint64_t x) { return std::bit_cast<double>(x); }
inline uint64_t U(double x) { return std::bit_cast<uint64_t>(x); }

// IEEE half <-> float (round to nearest even), host independent.
float half_to_float(uint16_t h) {
  const uint32_t s = (h >> 15) & 1, e = (h >> 10) & 0x1F, m = h & 0x3FF;
  float v;
  if (e == 0)
    v = std::ldexp(static_cast<float>(m), -24);
  else if (e == 31)
    v = m ? std::bit_cast<float>(0x7FC00000u | (m << 13)) : INFINITY;
  else
    v = std::ldexp(static_cast<float>(m | 0x400), static_cast<int>(e) - 25);
  return s ? -v : v;
}
uint16_t float_to_half(float f) {
  const uint32_t x = U(f);
  const uint32_t sign = (x >> 16) & 0x8000;
  const uint32_t ax = x & 0x7FFFFFFF;
  if (ax > 0x7F800000) return static_cast<uint16_t>(sign | 0x7E00 | ((ax >> 13) & 0x3FF));
  if (ax >= 0x477FF000) return static_cast<uint16_t>(sign | 0x7C00);  // rounds to inf
  if (ax < 0x38800000) {                                              // subnormal half
    const float a = std::fabs(f) * 16777216.0f;                       // units of 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a)));
  }
  uint32_t r = ax + 0xFFF + ((ax >> 13) & 1);  // RNE on the 13 dropped bits
  r -= 0x38000000;
  return static_cast<uint16_t>(sign | (r >> 13));
}

bool is_snan32(uint32_t x) {
  return (x & 0x7F800000) == 0x7F800000 && (x & 0x7FFFFF) && !(x & 0x400000);
}
bool is_nan32(uint32_t x) { return (x & 0x7FFFFFFF) > 0x7F800000; }

// GFX11 IEEE-mode min/max: an sNaN operand gives a qNaN, a qNaN operand is ignored.
[[gnu::noinline]] uint32_t fmax_ieee_slow(uint32_t a, uint32_t b, bool is_max) {
  if (is_snan32(a)) return a | 0x400000;
  if (is_snan32(b)) return b | 0x400000;
  if (is_nan32(a)) return b;
  if (is_nan32(b)) return a;
  const float x = F(a), y = F(b);
  if (x == y) {  // -0 < +0
    const bool an = a >> 31;
    return is_max ? (an ? b : a) : (an ? a : b);
  }
  return is_max ? (x > y ? a : b) : (x < y ? a : b);
}
inline uint32_t fmax_ieee(uint32_t a, uint32_t b, bool is_max) {
  const float x = F(a), y = F(b);
  // Fast path: ordered and different (NaNs and ±0 ties take the slow path).
  if (x < y) return is_max ? b : a;
  if (x > y) return is_max ? a : b;
  return fmax_ieee_slow(a, b, is_max);
}
[[gnu::noinline]] uint32_t fmax_num_slow(uint32_t a, uint32_t b,
                                         bool is_max) {  // IEEE 754-2019 maximumNumber
  if (is_nan32(a)) return is_nan32(b) ? (b | 0x400000) : b;
  if (is_nan32(b)) return a;
  return fmax_ieee(a, b, is_max);
}
inline uint32_t fmax_num(uint32_t a, uint32_t b, bool is_max) {
  const float x = F(a), y = F(b);
  if (x < y) return is_max ? b : a;
  if (x > y) return is_max ? a : b;
  return fmax_num_slow(a, b, is_max);
}
uint32_t fmaximum(uint32_t a, uint32_t b, bool is_max) {  // NaN propagating
  if (is_nan32(a)) return a | 0x400000;
  if (is_nan32(b)) return b | 0x400000;
  return fmax_ieee(a, b, is_max);
}

// d[l] = fma(a[l], b[l], c[l]) for 32 lanes. With FMA3 the compiler inlines the fused
// multiply-add (one rounding, as std::fma), without it every lane calls libm's software fma.
[[gnu::target("fma")]] void fma_lanes_fma3(const uint32_t* __restrict a,
                                           const uint32_t* __restrict b,
                                           const uint32_t* __restrict c, uint32_t* __restrict d) {
  for (unsigned l = 0; l < 32; ++l) d[l] = U(std::fma(F(a[l]), F(b[l]), F(c[l])));
}
void fma_lanes_generic(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  for (unsigned l = 0; l < 32; ++l) d[l] = U(std::fma(F(a[l]), F(b[l]), F(c[l])));
}
void fma_lanes(const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t* d) {
  static const bool kFma3 = __builtin_cpu_supports("fma");
  if (kFma3)
    fma_lanes_fma3(a, b, c, d);
  else
    fma_lanes_generic(a, b, c, d);
}

// v_div_scale_f32 (S0 = value to scale, S1 = denominator, S2 = numerator): pre-scales the
// operands of a division whose quotient or reciprocal would leave the normal range; VCC is set
// only where the quotient must be scaled back by v_div_fmas_f32 (emulation.md §3.7 item 4).
uint32_t div_scale_f32(uint32_t s0, uint32_t s1, uint32_t s2, bool& vcc) {
  const float x = F(s0), den = F(s1), num = F(s2);
  const int ed = static_cast<int>((s1 >> 23) & 0xFF), en = static_cast<int>((s2 >> 23) & 0xFF);
  vcc = false;
  if (num == 0.0f || den == 0.0f) return 0x7FC00000u;
  const double q = static_cast<double>(num) / static_cast<double>(den);
  const bool q_denorm = std::fabs(q) < 0x1p-126 && q != 0.0;
  if (en - ed >= 96) {  // quotient near the top of the range: scale the denominator only
    vcc = true;
    return s0 == s1 ? U(std::ldexp(x, 64)) : s0;
  }
  if (std::fpclassify(den) == FP_SUBNORMAL) return U(std::ldexp(x, 64));
  // |S1| > 2^126: its reciprocal would be denormal; scale both operands down (no VCC).
  if (std::fabs(static_cast<double>(den)) > 0x1p126) return U(std::ldexp(x, -64));
  if (q_denorm) {  // denormal quotient: scale the numerator only
    vcc = true;
    return s0 == s2 ? U(std::ldexp(x, 64)) : s0;
  }
  if (en <= 23) return U(std::ldexp(x, 64));
  return s0;
}

// v_div_fixup_f32 (S0 = quotient, S1 = denominator, S2 = numerator): special cases of IEEE
// division; a NaN quotient otherwise becomes a signed infinity.
uint32_t div_fixup_f32(uint32_t s0, uint32_t s1, uint32_t s2) {
  const float q = F(s0), den = F(s1), num = F(s2);
  const uint32_t sign = (s1 ^ s2) & 0x80000000u;
  if (std::isnan(num)) return s2 | 0x400000;
  if (std::isnan(den)) return s1 | 0x400000;
  if (den == 0.0f && num == 0.0f) return 0xFFC00000u;
  if (std::isinf(den) && std::isinf(num)) return 0xFFC00000u;
  if (den == 0.0f || std::isinf(num)) return sign | 0x7F800000u;
  if (std::isinf(den) || num == 0.0f) return sign;
  if (std::isnan(q)) return sign | 0x7F800000u;
  return (s0 & 0x7FFFFFFFu) | sign;
}

// Transcendentals flush denormal inputs and outputs (emulation.md §3.7).
float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
uint32_t trans(float r) { return U(ftz(r)); }

template <class T>
T sat_cvt(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

int frexp_exp(float f) {
  if (!std::isfinite(f) || f == 0) return 0;
  int e;
  (void)std::frexp(f, &e);
  return e;
}

// `min_normal` is the source type's smallest normal (f32/f16 values arrive widened to double,
// where their denormals are normal).
uint32_t fp_class_mask(double v, bool snan, double min_normal) {
  const int cls =
      std::isfinite(v) && v != 0 && std::fabs(v) < min_normal ? FP_SUBNORMAL : std::fpclassify(v);
  switch (cls) {
    case FP_NAN: return snan ? 1u : 2u;
    case FP_INFINITE: return std::signbit(v) ? 1u << 2 : 1u << 9;
    case FP_NORMAL: return std::signbit(v) ? 1u << 3 : 1u << 8;
    case FP_SUBNORMAL: return std::signbit(v) ? 1u << 4 : 1u << 7;
    default: return std::signbit(v) ? 1u << 5 : 1u << 6;
  }
}

// ---------------------------------------------------------------- data-type helpers (issue 9)
inline float H2F(uint32_t h) { return half_to_float(static_cast<uint16_t>(h)); }
inline uint32_t F2H(double v) {  // double → f16 through f32 (exact for f16-representable math)
  return float_to_half(static_cast<float>(v));
}
bool is_snan16(uint32_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) && !(h & 0x200); }
bool is_nan16(uint32_t h) { return (h & 0x7FFF) > 0x7C00; }
// f16 min/max: IEEE mode (sNaN → qNaN, a qNaN ignored), maximumNumber (`num`), or NaN
// propagating (`maximum`); −0 < +0 in all three.
uint32_t fminmax16(uint32_t a, uint32_t b, bool is_max, int kind /*0 ieee, 1 num, 2 maximum*/) {
  a &= 0xFFFF, b &= 0xFFFF;
  if (kind == 2) {
    if (is_nan16(a)) return a | 0x200;
    if (is_nan16(b)) return b | 0x200;
  } else {
    if (kind == 0 && is_snan16(a)) return a | 0x200;
    if (kind == 0 && is_snan16(b)) return b | 0x200;
    if (is_nan16(a)) return is_nan16(b) ? (b | 0x200) : b;
    if (is_nan16(b)) return a;
  }
  const float x = H2F(a), y = H2F(b);
  if (x == y) {
    const bool an = (a >> 15) & 1;
    return is_max ? (an ? b : a) : (an ? a : b);
  }
  return is_max ? (x > y ? a : b) : (x < y ? a : b);
}
uint64_t fminmax64(uint64_t a, uint64_t b, bool is_max, int kind) {
  auto nan = [](uint64_t x) { return (x & ~(1ull << 63)) > 0x7FF0000000000000ull; };
  auto snan = [&](uint64_t x) { return nan(x) && !((x >> 51) & 1); };
  constexpr uint64_t q = 1ull << 51;
  if (kind == 2) {
    if (nan(a)) return a | q;
    if (nan(b)) return b | q;
  } else {
    if (kind == 0 && snan(a)) return a | q;
    if (kind == 0 && snan(b)) return b | q;
    if (nan(a)) return nan(b) ? (b | q) : b;
    if (nan(b)) return a;
  }
  const double x = D(a), y = D(b);
  if (x == y) {
    const bool an = a >> 63;
    return is_max ? (an ? b : a) : (an ? a : b);
  }
  return is_max ? (x > y ? a : b) : (x < y ? a : b);
}
template <class T>
T clamp_to(int64_t v) {
  return static_cast<T>(
      std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// fma(a, b, c) · 2^sc rounded once (to double, or to float by the caller's cast) when the
// result may be denormal, where "round the fma, then scale" would round twice. The long double
// fma is rounded to odd (toward zero, then the last bit set if it was inexact): 64 bits ≥ 53 + 2,
// so the final rounding of the odd-rounded value equals rounding the exact value; the ldexp is
// exact in long double's range. The volatile accesses keep the fma between the rounding-mode
// switches (GCC and clang treat fmal as const without -frounding-math).
long double fma_round_odd_scaled(double a, double b, double c, int sc) {
  volatile long double va = a, vb = b, vc = c;
  const int old_round = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile long double z = std::fma(va, vb, vc);
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  std::fesetround(old_round);
  long double r = z;
  if (inexact && std::isfinite(r) && r != 0) {
    int e = 0;
    const long double m = std::ldexp(std::frexp(r, &e), std::numeric_limits<long double>::digits);
    if (std::fmod(m, 2.0L) == 0) r = std::nextafter(r, r > 0 ? HUGE_VALL : -HUGE_VALL);
  }
  return std::ldexp(r, sc);
}

// fma(a, b, c) rounded to odd in float: the long double round-to-odd value rounded to odd
// again (round-to-odd composes over nested grids). float_to_half of it rounds the exact value
// once (24 >= 11 + 2 bits), which an fma rounded to nearest in double or float first does not:
// the f16 fma(0x3C51, 0x28B1, 0x3C00) gave 0x3C28 instead of 0x3C29 that way.
float fma_round_odd_f32(double a, double b, double c) {
  volatile long double r = fma_round_odd_scaled(a, b, c, 0);
  const int old_round = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile float f = static_cast<float>(r);
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  std::fesetround(old_round);
  uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(f));
  if (inexact && (bits & 0x7F800000u) != 0x7F800000u) bits |= 1;
  return std::bit_cast<float>(bits);
}
uint32_t fma_f16_once(double a, double b, double c) {
  return float_to_half(fma_round_odd_f32(a, b, c));
}

// v_rsq_f64, correctly rounded: a long double estimate rounded to double, then moved to a
// neighbour while the exact 1/sqrt(x) lies beyond the midpoint m towards it. 1/sqrt(x) > m
// exactly when m²·x < 1, decided on integers: m = M·2^em, x = X·2^ex with M ≤ 54 and X ≤ 53
// significant bits, so M²·X has at most 161 bits (a 64-bit high part of a 128-bit product plus
// a 128-bit low part). No ties: m²·x = 1 would need x = 1/m², not a binary fraction for a
// midpoint m.
bool rsq_exceeds(long double m, double x) {  // true when 1/sqrt(x) > m (m, x > 0, finite)
  int em = 0, ex = 0;
  uint64_t M = static_cast<uint64_t>(std::ldexp(std::frexp(m, &em), 64));
  em -= 64;
  const int tm = std::countr_zero(M);
  M >>= tm, em += tm;
  uint64_t X = static_cast<uint64_t>(std::ldexp(std::frexp(x, &ex), 64));
  ex -= 64;
  const int tx = std::countr_zero(X);
  X >>= tx, ex += tx;
  const int k = -(2 * em + ex);  // m²·x < 1  ⇔  M²·X < 2^k
  if (k <= 0) return false;      // M²·X ≥ 1 ≥ 2^k
  if (k >= 192) return true;
  using u128 = unsigned __int128;
  const u128 p = static_cast<u128>(M) * M;  // < 2^108
  const u128 lo = static_cast<u128>(static_cast<uint64_t>(p)) * X;
  const u128 hi = static_cast<u128>(static_cast<uint64_t>(p >> 64)) * X + (lo >> 64);
  const uint64_t low = static_cast<uint64_t>(lo);
  // bit length of hi·2^64 + low, compared with k + 1 (M²·X is never exactly 2^k: see above)
  const int len =
      hi ? 64 + 128 -
               (static_cast<uint64_t>(hi >> 64) ? std::countl_zero(static_cast<uint64_t>(hi >> 64))
                                                : 64 + std::countl_zero(static_cast<uint64_t>(hi)))
         : 64 - std::countl_zero(low);
  return len <= k;
}
double rsq_f64(double x) {
  if (std::isnan(x)) return x + x;  // quiet
  if (x == 0) return std::copysign(HUGE_VAL, x);
  if (x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return 0.0;
  double y = static_cast<double>(1.0L / std::sqrt(static_cast<long double>(x)));
  for (int i = 0; i < 4; ++i) {
    const double up = std::nextafter(y, HUGE_VAL), down = std::nextafter(y, 0.0);
    if (rsq_exceeds((static_cast<long double>(y) + up) / 2, x))
      y = up;
    else if (!rsq_exceeds((static_cast<long double>(y) + down) / 2, x))
      y = down;
    else
      break;
  }
  return y;
}

// v_div_scale_f64: the f32 rules with the f64 ranges (2^128 scale, exponent bias 1023).
uint64_t div_scale_f64(uint64_t s0, uint64_t s1, uint64_t s2, bool& vcc) {
  const double x = D(s0), den = D(s1), num = D(s2);
  const int ed = static_cast<int>((s1 >> 52) & 0x7FF), en = static_cast<int>((s2 >> 52) & 0x7FF);
  vcc = false;
  if (num == 0.0 || den == 0.0) return 0x7FF8000000000000ull;
  const long double q = static_cast<long double>(num) / static_cast<long double>(den);
  const bool q_denorm = std::fabs(q) < 0x1p-1022L && q != 0.0L;
  if (en - ed >= 768) {
    vcc = true;
    return s0 == s1 ? U(std::ldexp(x, 128)) : s0;
  }
  if (std::fpclassify(den) == FP_SUBNORMAL) return U(std::ldexp(x, 128));
  if (std::fabs(den) > 0x1p1022) return U(std::ldexp(x, -128));
  if (q_denorm) {
    vcc = true;
    return s0 == s2 ? U(std::ldexp(x, 128)) : s0;
  }
  if (en <= 53) return U(std::ldexp(x, 128));
  return s0;
}
uint64_t div_fixup_f64(uint64_t s0, uint64_t s1, uint64_t s2) {
  const double q = D(s0), den = D(s1), num = D(s2);
  const uint64_t sign = (s1 ^ s2) & (1ull << 63);
  constexpr uint64_t kInf = 0x7FF0000000000000ull, kQ = 1ull << 51, kNegNan = 0xFFF8000000000000ull;
  if (std::isnan(num)) return s2 | kQ;
  if (std::isnan(den)) return s1 | kQ;
  if (den == 0.0 && num == 0.0) return kNegNan;
  if (std::isinf(den) && std::isinf(num)) return kNegNan;
  if (den == 0.0 || std::isinf(num)) return sign | kInf;
  if (std::isinf(den) || num == 0.0) return sign;
  if (std::isnan(q)) return sign | kInf;
  return (s0 & ~(1ull << 63)) | sign;
}
uint32_t div_fixup_f16(uint32_t s0, uint32_t s1, uint32_t s2) {
  const float q = H2F(s0), den = H2F(s1), num = H2F(s2);
  const uint32_t sign = (s1 ^ s2) & 0x8000u;
  if (std::isnan(num)) return (s2 & 0xFFFF) | 0x200;
  if (std::isnan(den)) return (s1 & 0xFFFF) | 0x200;
  if ((den == 0.0f && num == 0.0f) || (std::isinf(den) && std::isinf(num))) return 0xFE00;
  if (den == 0.0f || std::isinf(num)) return sign | 0x7C00;
  if (std::isinf(den) || num == 0.0f) return sign;
  if (std::isnan(q)) return sign | 0x7C00;
  return (s0 & 0x7FFF) | sign;
}
template <class T>
T fract_of(T x, T below_one) {
  if (std::isinf(x)) return std::copysign(T(0), x);
  if (std::isnan(x)) return x;
  return std::min(x - std::floor(x), below_one);
}

// Counters for strict waits. kSmem completes out of order.
enum Counter : uint8_t { kCntLoad, kCntStore, kCntLds, kCntSmem, kCntNum };

struct Pending {
  Counter cnt;
  bool vgpr;
  uint16_t first, count;
  uint64_t pc;
  const char* what;
};

enum SrcKind : uint8_t { kSrcNone, kSrcVgpr, kSrcSgpr, kSrcConst, kSrcScc, kSrcExecz, kSrcVccz };

struct Uop {
  uint16_t op = 0;
  Format fmt = Format::kCount;
  uint8_t size = 0;
  uint8_t nsrc = 0;
  bool e64 = false;       // VOP3 encoding (VOPC writes sdst, cndmask reads src2)
  bool sgpr_dst = false;  // gfx12 v_s_* (VOP3 with an SGPR destination): the result goes to sdst
  uint16_t vdst = 0, sdst = 0;
  std::array<uint16_t, 3> src{};
  std::array<SrcKind, 3> kind{};
  std::array<uint8_t, 3> srcw{1, 1, 1};  // dwords
  std::array<uint64_t, 3> cval{};        // constant sources
  uint8_t dstw = 1;
  uint8_t fbits = 0;  // float operand width for abs/neg/inline constants (0: integer)
  uint8_t abs = 0, neg = 0, neg_hi = 0, opsel = 0, opsel_hi = 0, omod = 0;
  bool clamp = false;
  bool half = false;   // 16-bit VALU result
  bool dst32 = false;  // 16-bit sources (opsel) but a full 32-bit result
  int32_t imm = 0;     // SOPK/SOPP simm16, SMEM/FLAT/DS offset
  int32_t imm1 = 0;    // DS offset1
  uint16_t addr = 0, data0 = 0, data1 = 0, saddr = 0;
  bool glc = false;
  bool sve = false;   // scratch: the VGPR address is used
  uint8_t dpp = 0;    // 16: DPP16, 8: DPP8 (src0 is permuted across lanes first)
  uint32_t dppw = 0;  // the DPP control dword
  uint64_t pc = 0;
  Uop* next = nullptr;
  Uop* target = nullptr;
  std::unique_ptr<Uop> y;  // VOPD Y half
  const OpcodeInfo* info = nullptr;
  // Registers read/written (for strict waits): {vgpr?, first, count}.
  struct Range {
    bool vgpr;
    uint16_t first, count;
  };
  std::array<Range, 6> reads{};
  uint8_t nreads = 0;
  std::array<Range, 2> writes{};
  uint8_t nwrites = 0;
  // MODE.FP_DENORM (issue 9 item 2, see denorm_types()): the float type the wave's denormal
  // mode applies to for the sources (dn_in) and the result (dn_out): 16, 32, 64, or
  // kDnPacked | 16 (both halves of a 32-bit value); 0: the mode does not apply. dn_srcs: bit i
  // set when source i is such a float operand.
  uint8_t dn_in = 0, dn_out = 0, dn_srcs = 0;
};
constexpr uint8_t kDnPacked = 0x80;

struct Mode {
  uint8_t round_f32 = 0, round_f16_64 = 0, denorm_f32 = 3, denorm_f16_64 = 3;
  bool ieee = true, dx10_clamp = true;
  uint32_t raw() const {
    return round_f32 | round_f16_64 << 2 | denorm_f32 << 4 | denorm_f16_64 << 6 |
           (dx10_clamp ? 1u << 8 : 0) | (ieee ? 1u << 9 : 0);
  }
  void set(uint32_t v) {
    round_f32 = v & 3, round_f16_64 = (v >> 2) & 3, denorm_f32 = (v >> 4) & 3;
    denorm_f16_64 = (v >> 6) & 3, dx10_clamp = (v >> 8) & 1, ieee = (v >> 9) & 1;
    set_denorm(denorm_f32, denorm_f16_64);
  }
  // FP_DENORM per type: bit 0 allows input denormals, bit 1 output denormals (3: IEEE, the
  // default LLVM requests; 0: flush both, LLVM's "preserve-sign"). `flush`: any is flushed
  // (kept by set() and set_denorm(), read once per VALU and SALU float instruction).
  bool flush = false;
  void set_denorm(unsigned f32, unsigned f16_64) {
    denorm_f32 = static_cast<uint8_t>(f32 & 3), denorm_f16_64 = static_cast<uint8_t>(f16_64 & 3);
    flush = (denorm_f32 & denorm_f16_64) != 3;
  }
  uint8_t denorm_of(uint8_t type) const { return (type & 0x7F) == 32 ? denorm_f32 : denorm_f16_64; }
};

// Denormal flushing (sign kept). f16 values sit in the low half (upper bits kept), or in both
// halves for packed operands.
inline uint32_t ftz_f32(uint32_t x) {
  return (x & 0x7F800000u) == 0 && (x & 0x7FFFFFu) ? x & 0x80000000u : x;
}
inline uint32_t ftz_f16(uint32_t x) {
  return (x & 0x7C00u) == 0 && (x & 0x3FFu) ? x & 0xFFFF8000u : x;
}
inline uint32_t ftz_f16x2(uint32_t x) { return (ftz_f16(x) & 0xFFFFu) | (ftz_f16(x >> 16) << 16); }
inline uint64_t ftz_f64(uint64_t x) {
  return (x & 0x7FF0000000000000ull) == 0 && (x & 0xFFFFFFFFFFFFFull) ? x & (1ull << 63) : x;
}
inline uint32_t ftz_type(uint32_t x, uint8_t type) {
  return type == 32 ? ftz_f32(x) : type == 16 ? ftz_f16(x) : ftz_f16x2(x);
}

// GFX12 split barrier state of a wave: no arrival recorded; arrived (s_barrier_signal) in the
// current phase; arrived and the phase completed before the wave's s_barrier_wait.
enum : uint8_t { kBarNone, kBarSignaled, kBarReleased };

struct Wave {
  std::array<uint32_t, 128> s{};
  std::vector<uint32_t> v;  // [reg][32 lanes]
  bool scc = false;
  Mode mode;
  uint64_t pc = 0;
  Uop* cur = nullptr;
  bool done = false, at_barrier = false;
  uint8_t bar = 0;  // GFX12 split barrier: kBarNone / kBarSignaled / kBarReleased
  unsigned id = 0;
  std::vector<Pending> pending;
  std::array<uint8_t, 256> vpend{};
  std::array<uint8_t, 128> spend{};
  uint32_t* vr(unsigned r) { return v.data() + size_t{r} * kLanes; }
  uint32_t exec() const { return s[kExec]; }
};

}  // namespace

struct Emulator::Impl {
  Emulator& e;
  const DispatchState& st;
  bool g12;
  unsigned vgprs = 256;
  std::unordered_map<uint64_t, std::unique_ptr<Uop>> code;
  std::vector<uint8_t> lds;
  uint64_t budget;
  std::array<uint32_t, 3> wg_id{};
  // Multi-threaded dispatch (Options::threads > 1): each worker thread has its own Impl (decode
  // cache, LDS, waves, counters, TLB); the simulated MMU and its sparse VRAM are not
  // thread-safe, so TLB fills, uncached accesses and atomic instructions hold `sh->mem` (one
  // at a time); accesses through the TLB take no lock (see rd32).
  struct Shared {
    std::recursive_mutex mem;
    std::atomic<uint64_t> next{0};             // next workgroup index to claim
    std::atomic<uint64_t> lowest_fail{~0ull};  // lowest failing workgroup index so far
    std::atomic<uint64_t> budget{0};           // instruction budget pool, taken in chunks
    unsigned nthreads = 1;
    std::mutex err_mu;
  };
  Shared* sh = nullptr;
  Stats* stats = nullptr;      // the emulator's (one thread) or the worker's (merged after)
  std::vector<uint64_t> hits;  // a worker's opcode hits (merged after)
  unsigned slot_base = 0;      // scratch slot of wave 0 of this worker's workgroups
  struct FaultAccess {
    bool valid = false, write = false, exec = false;
    uint64_t va = 0;
  } last_fault;  // the last refused MMU access (re-latched after a multi-threaded dispatch)

  Impl(Emulator& em, const DispatchState& s)
      : e(em),
        st(s),
        g12(em.target_ == Target::kGfx1201),
        budget(em.options_.max_instructions),
        stats(&em.stats_) {}

  // Global memory through the simulated MMU (locked when workers share it), with a software
  // TLB in front. The TLB is per Impl, so per dispatch and per worker thread: the page tables
  // do not change during a dispatch, and nothing is unmapped or freed while one runs (the
  // caller is blocked in the dispatch; with the device thread it holds the GPU lock). An entry
  // holds the host pointer of a whole 4 KiB GPU page (AmdGpu::page_host: only pages backed by
  // one contiguous host range, which does not move: the flat VRAM never moves) and its
  // read/write permission. It is filled only when the page walk allows the access; anything
  // else (a fault, a page that is not cacheable, an instruction fetch, a misaligned dword) goes
  // through AmdGpu::read32/write32 as before, so faults, their text and the latched fault
  // registers are unchanged.
  //
  // Accesses through a cached pointer take no lock: they are relaxed atomic dword loads and
  // stores (plain moves on x86-64), so workers racing on a dword see one of the values and
  // never tear it. Partial-dword stores are a compare-exchange of the whole dword (the other
  // bytes survive a neighbour's concurrent store), and atomics compare-exchange their result.
  struct TlbEntry {
    uint64_t page = ~0ull;  // VA >> 12; ~0: empty
    uint8_t* host = nullptr;
    bool readable = false, writable = false;
  };
  static constexpr unsigned kTlbEntries = 64;  // direct-mapped on the low page-number bits
  std::array<TlbEntry, kTlbEntries> tlb{};
  // Host pointer of the dword at `va` (4-aligned) when a cached or newly cached page allows the
  // access; nullptr to take the MMU path.
  uint32_t* cached_dword(uint64_t va, bool write) {
    const uint64_t page = va >> 12;
    TlbEntry& t = tlb[page % kTlbEntries];
    if (t.page != page && !tlb_fill(t, va)) return nullptr;
    if (!(write ? t.writable : t.readable)) return nullptr;
    return reinterpret_cast<uint32_t*>(t.host + (va & 0xFFF));
  }
  [[gnu::noinline]] bool tlb_fill(TlbEntry& t, uint64_t va) {
    std::unique_lock<std::recursive_mutex> lk;
    if (sh) lk = std::unique_lock<std::recursive_mutex>(sh->mem);
    const auto h = e.gpu_->page_host(GpuVa(va));
    if (!h) return false;
    t = {va >> 12, h->host, h->readable, h->writable};
    return true;
  }
  static uint32_t load_dword(uint32_t* p) {
    return std::atomic_ref<uint32_t>(*p).load(std::memory_order_relaxed);
  }
  static void store_dword(uint32_t* p, uint32_t v) {
    std::atomic_ref<uint32_t>(*p).store(v, std::memory_order_relaxed);
  }
  Result<uint32_t> rd32(uint64_t va, bool exec = false) {
    if (!exec && va % 4 == 0) {
      if (uint32_t* p = cached_dword(va, false)) return load_dword(p);
    }
    std::unique_lock<std::recursive_mutex> lk;
    if (sh) lk = std::unique_lock<std::recursive_mutex>(sh->mem);
    auto r = e.gpu_->read32(GpuVa(va), exec);
    if (!r) last_fault = {true, false, exec, va};
    return r;
  }
  Status wr32(uint64_t va, uint32_t v) {
    if (va % 4 == 0) {
      if (uint32_t* p = cached_dword(va, true)) {
        store_dword(p, v);
        return {};
      }
    }
    std::unique_lock<std::recursive_mutex> lk;
    if (sh) lk = std::unique_lock<std::recursive_mutex>(sh->mem);
    Status r = e.gpu_->write32(GpuVa(va), v);
    if (!r) last_fault = {true, true, false, va};
    return r;
  }

  Error fail(Errc c, const Uop* u, const std::string& what) {
    return make_error(c, "%s kernel '%s' PC %s%s%s: %s", target_name(e.target_),
                      e.options_.kernel_name.c_str(), hex(u ? u->pc : 0).c_str(),
                      u && u->info ? " " : "", u && u->info ? u->info->mnemonic : "", what.c_str());
  }

  // ---------------------------------------------------------------- pre-decoding
  uint64_t inline_const(unsigned code, uint8_t fbits, uint8_t width) {
    if (code >= 128 && code <= 192) return code - 128;
    if (code >= 193 && code <= 208) {
      const int64_t v = -static_cast<int64_t>(code - 192);
      return width == 2 ? static_cast<uint64_t>(v) : static_cast<uint32_t>(v);
    }
    static constexpr float kF[] = {0.5f, -0.5f, 1.0f, -1.0f, 2.0f, -2.0f, 4.0f, -4.0f};
    static constexpr uint16_t kH[] = {0x3800, 0xB800, 0x3C00, 0xBC00,
                                      0x4000, 0xC000, 0x4400, 0xC400};
    if (code >= 240 && code <= 247) {
      if (fbits == 64) return U(static_cast<double>(kF[code - 240]));
      if (fbits == 16) return kH[code - 240];
      return U(kF[code - 240]);
    }
    if (code == 248) {  // 1/(2*pi), per operand type
      if (fbits == 64) return 0x3FC45F306DC9C882ull;
      if (fbits == 16) return 0x3118;
      return 0x3E22F983;
    }
    return ~0ull;
  }

  Status set_src(Uop& u, unsigned i, unsigned code, uint32_t literal) {
    u.src[i] = static_cast<uint16_t>(code);
    const uint8_t w = u.srcw[i];
    if (code >= 256) {
      u.kind[i] = kSrcVgpr;
      if (code - 256 + w > vgprs)
        return fail(Errc::kHardware, &u,
                    strformat("v%u beyond the %u allocated VGPRs", code - 256, vgprs));
      u.reads[u.nreads++] = {true, static_cast<uint16_t>(code - 256), w};
    } else if (code < 128) {
      u.kind[i] = kSrcSgpr;
      u.reads[u.nreads++] = {false, static_cast<uint16_t>(code), w};
    } else if (code == 255) {
      u.kind[i] = kSrcConst;
      // A literal is the high dword of an f64 operand, zero-extended for integer 64-bit ones.
      u.cval[i] = w == 2 && u.fbits == 64 ? uint64_t{literal} << 32 : literal;
    } else if (code == 253) {
      u.kind[i] = kSrcScc;
    } else if (code == 252) {
      u.kind[i] = kSrcExecz;
    } else if (code == 251) {
      u.kind[i] = kSrcVccz;
    } else if (code == 235 || code == 237) {  // shared / private aperture base (high dword)
      u.kind[i] = kSrcConst;
      u.cval[i] = code == 235 ? (w == 2 ? 1ull << 48 : 1u << 16) : (w == 2 ? 2ull << 48 : 2u << 16);
    } else {
      const uint64_t c = inline_const(code, u.fbits, w);
      // (-1 in a 64-bit operand is ~0 too: only codes outside the constant ranges fail.)
      if (c == ~0ull && !(code >= 128 && code <= 208))
        return fail(Errc::kUnsupported, &u, strformat("source operand %u not supported", code));
      u.kind[i] = kSrcConst;
      u.cval[i] = c;
    }
    return {};
  }

  static uint8_t float_bits(std::string_view m) {
    // Type of the last operand-type suffix: v_cvt_f32_f16 reads f16.
    size_t best = std::string_view::npos;
    uint8_t bits = 0;
    for (auto [s, b] :
         {std::pair<std::string_view, uint8_t>{"_f16", 16}, {"_f32", 32}, {"_f64", 64}}) {
      const size_t p = m.rfind(s);
      if (p != std::string_view::npos && (best == std::string_view::npos || p > best))
        best = p, bits = b;
    }
    for (std::string_view s :
         {"_i32", "_u32", "_b32", "_i64", "_u64", "_b64", "_i16", "_u16", "_b16"}) {
      const size_t p = m.rfind(s);
      if (p != std::string_view::npos && best != std::string_view::npos && p > best) bits = 0;
    }
    if (m.find("cvt_f32_ubyte") != std::string_view::npos ||
        m.find("_f32_i32") != std::string_view::npos ||
        m.find("_f32_u32") != std::string_view::npos ||
        m.find("_f64_i32") != std::string_view::npos ||
        m.find("_f64_u32") != std::string_view::npos || m.find("frexp_exp") == 0)
      bits = 0;
    return bits;
  }

  Status dst_vgpr(Uop& u, unsigned r, unsigned w) {
    if (r + w > vgprs)
      return fail(Errc::kHardware, &u, strformat("v%u beyond the %u allocated VGPRs", r, vgprs));
    u.vdst = static_cast<uint16_t>(r);
    u.writes[u.nwrites++] = {true, static_cast<uint16_t>(r), static_cast<uint16_t>(w)};
    return {};
  }

  // VALU operand layout from the table's printed widths.
  // MODE.FP_DENORM (issue 9 item 2): which operands of a VALU operation the wave's denormal
  // mode applies to. Float arithmetic, min/max, rounding, frexp/ldexp and conversions flush
  // denormal float sources (the type of the mnemonic's last type suffix, e.g. f16 for
  // v_cvt_f32_f16) and a denormal float result (the first suffix; an integer result is never
  // flushed). Exempt: operations without a float type (moves, selects, bit and lane operations:
  // v_mov_*, v_cndmask_b32, v_perm, ...), v_pack_b32_f16, v_div_scale_* (their purpose is to
  // scale denormal operands into range; LLVM runs them in the flushing mode), v_fma_mix*,
  // v_dot2*, WMMA, and compares (v_cmp_class must see the input class). Transcendentals flush
  // inputs and outputs in every mode. Not hardware-confirmed: compares and v_div_fixup (its
  // inputs are flushed, so an fdiv of a denormal numerator gives ±0 in a flushing mode).
  static void denorm_types(Uop& u, std::string_view m) {
    for (std::string_view x : {"v_cmp", "pack_b32", "div_scale", "fma_mix", "dot2", "wmma"})
      if (m.find(x) != std::string_view::npos) return;
    u.dn_in = float_bits(m);
    size_t first = std::string_view::npos;
    uint8_t out = 0;
    for (auto [sfx, b] : {std::pair<std::string_view, uint8_t>{"_f16", 16},
                          {"_f32", 32},
                          {"_f64", 64},
                          {"_i32", 0},
                          {"_u32", 0},
                          {"_b32", 0},
                          {"_i64", 0},
                          {"_u64", 0},
                          {"_b64", 0},
                          {"_i16", 0},
                          {"_u16", 0},
                          {"_b16", 0},
                          {"_i8", 0},
                          {"_u8", 0}}) {
      const size_t p = m.find(sfx);
      if (p < first) first = p, out = b;
    }
    u.dn_out = out;
    const bool packed = m.find("v_pk_") != std::string_view::npos;
    if (packed && u.dn_in == 16) u.dn_in |= kDnPacked;
    if ((packed || u.dst32) && u.dn_out == 16) u.dn_out |= kDnPacked;
    // Float sources: the operands of the input type's width; ldexp/trig_preop's second source
    // is an integer.
    const bool int_src1 =
        m.find("ldexp") != std::string_view::npos || m.find("trig_preop") != std::string_view::npos;
    for (unsigned i = 0; i < u.nsrc; ++i)
      if (u.dn_in && (u.srcw[i] == 2) == (u.dn_in == 64) && !(int_src1 && i > 0))
        u.dn_srcs |= static_cast<uint8_t>(1u << i);
  }

  Status setup_valu(Uop& u, const OpcodeInfo& info, const Instruction& in, unsigned vdst,
                    std::array<unsigned, 3> srcs) {
    const std::string_view m = info.mnemonic;
    u.fbits = float_bits(m);
    // v_cndmask_b32 takes float abs/neg modifiers on its 32-bit sources (LLVM's fabs/fneg
    // selects: `v_cndmask_b32_e64 v1, v1, -v1, vcc`).
    if (m.starts_with("v_cndmask_b32")) u.fbits = 32;
    if (u.fbits == 16 || m.find("_u16") != std::string_view::npos ||
        m.find("_i16") != std::string_view::npos || m.find("_b16") != std::string_view::npos)
      u.half =
          m.find("v_pk_") != 0 && m.find("cvt_f32_f16") == std::string_view::npos &&
          m.find("cvt_f64") == std::string_view::npos && m.find("cmp") == std::string_view::npos &&
          m.find("dot2") == std::string_view::npos && m.find("fma_mix") == std::string_view::npos;
    if (m.find("cvt_f16_f32") != std::string_view::npos) u.half = true;
    // 16-bit sources, 32-bit result.
    for (std::string_view w32 : {"v_cvt_i32_i16", "v_cvt_u32_u16", "v_mad_u32_u16", "v_mad_i32_i16",
                                 "v_cvt_pk_", "v_pack_b32_f16"})
      if (m.find(w32) == 0) u.dst32 = true;
    const bool is_cmp = (u.op & kCmp) != 0;
    const bool cmpx = is_cmp && (u.op & (1u << 12));
    const auto& w = info.widths;
    unsigned first_src = 1;
    if (is_cmp && cmpx && !g12 && u.fmt != Format::kVOPDX) first_src = 0;
    if (is_cmp && cmpx && g12) first_src = 0;
    if (u.fmt == Format::kVOP3SD) first_src = 2;
    unsigned n = 0;
    for (unsigned i = 0; i < 3; ++i) {
      const unsigned wi = first_src + i;
      uint8_t width = wi < 4 ? w[wi] : 0;
      if (u.fmt == Format::kVOP3SD && i == 2) {
        width = (m.find("mad_") != std::string_view::npos || m == "v_div_scale_f64")    ? 2
                : m.find("_co_ci_") != std::string_view::npos || m == "v_div_scale_f32" ? 1
                                                                                        : 0;
      }
      if (width == 0 && !(m.find("mamk") != std::string_view::npos && i == 1)) break;
      if (width == 0) width = 1;
      u.srcw[i] = width;
      ++n;
    }
    // The generated table has no source widths for gfx12 v_s_* (LLVM's probe text names a VGPR
    // where an SGPR belongs); they take one 32-bit scalar source.
    if (m.starts_with("v_s_") && n == 0) {
      u.srcw[0] = 1;
      n = 1;
    }
    // fmamk: src0, K, src1 (K is the literal); fmaak: src0, src1, K.
    if (m.find("mamk") != std::string_view::npos || m.find("maak") != std::string_view::npos) n = 2;
    u.nsrc = static_cast<uint8_t>(n);
    for (unsigned i = 0; i < n; ++i) RG_TRY(set_src(u, i, srcs[i], in.literal));
    u.dstw = is_cmp ? 1 : (w[0] ? w[0] : 1);
    if (!is_cmp && m.find("readlane") == std::string_view::npos &&
        m.find("readfirstlane") == std::string_view::npos && !m.starts_with("v_s_") &&
        u.op != v_nop) {
      RG_TRY(dst_vgpr(u, vdst, u.dstw));
    }
    denorm_types(u, m);
    return {};
  }

  // DPP: src0 code 250 (DPP16) or 233/234 (DPP8, 234 = fetch inactive) names the control dword
  // that follows the instruction; its low byte is the real src0 VGPR.
  static unsigned dpp_src0(Uop& u, const Instruction& in, unsigned code) {
    if (code != 250 && code != 233 && code != 234) return code;
    const uint32_t word = in.words[in.format == Format::kVOP3 ? 2 : 1];
    u.dpp = code == 250 ? 16 : 8;
    // DPP8 keeps its lane selects in [31:8]; bit 0 of dppw then carries FI (code 234).
    u.dppw = code == 250 ? word : (word & ~0xFFu) | (code == 234 ? 1u : 0u);
    return 256 + (word & 0xFF);
  }
  // VOP1/VOP2/VOPC DPP16 carries src0/src1 neg [20]/[22] and abs [21]/[23] in the DPP dword.
  static void dpp_mods(Uop& u) {
    if (u.dpp != 16 || u.e64) return;
    const uint32_t d = u.dppw;
    u.neg |= static_cast<uint8_t>(((d >> 20) & 1) | (((d >> 22) & 1) << 1));
    u.abs |= static_cast<uint8_t>(((d >> 21) & 1) | (((d >> 23) & 1) << 1));
  }

  Result<std::unique_ptr<Uop>> predecode(uint64_t pc) {
    std::array<uint32_t, 4> words{};
    unsigned have = 0;
    auto fetch = [&](unsigned n) -> Status {
      for (; have < n; ++have) {
        auto r = rd32(pc + 4 * have, true);
        if (!r) {
          return make_error(Errc::kHardware, "%s kernel '%s': instruction fetch at PC %s: %s",
                            target_name(e.target_), e.options_.kernel_name.c_str(), hex(pc).c_str(),
                            r.error().to_string().c_str());
        }
        words[have] = *r;
      }
      return {};
    };
    RG_TRY(fetch(1));
    Result<Instruction> d = decode(e.target_, std::span<const uint32_t>(words.data(), have));
    // Grow the fetch until the instruction is complete (up to 16 bytes).
    while (!d && have < 4 && d.error().message().find("truncated") != std::string::npos) {
      RG_TRY(fetch(have + 1));
      d = decode(e.target_, std::span<const uint32_t>(words.data(), have));
    }
    if (!d) {
      return make_error(Errc::kUnsupported, "%s kernel '%s' PC %s: %s", target_name(e.target_),
                        e.options_.kernel_name.c_str(), hex(pc).c_str(),
                        d.error().message().c_str());
    }
    const Instruction in = *d;
    auto u = std::make_unique<Uop>();
    u->pc = pc;
    u->size = in.size;
    u->fmt = in.format;
    u->info = in.info;
    u->op = semantics_of(in.info->mnemonic);
    if (u->op == 0)
      return fail(Errc::kUnsupported, u.get(),
                  "opcode not implemented by the emulator (" + disassemble(e.target_, in) + ")");
    const uint32_t w0 = in.words[0], w1 = in.words[1];
    const std::string_view m = in.info->mnemonic;
    switch (in.format) {
      case Format::kSOP2:
      case Format::kSOPC:
      case Format::kSOP1: {
        const auto& w = in.info->widths;
        u->fbits = float_bits(m) == 32 || float_bits(m) == 16 ? float_bits(m) : 0;
        const bool has_dst = in.format != Format::kSOPC;
        u->sdst = static_cast<uint16_t>((w0 >> 16) & 0x7F);
        u->dstw = has_dst ? (w[0] ? w[0] : 1) : 0;
        const unsigned off = has_dst ? 1 : 0;
        unsigned n = in.format == Format::kSOP1 ? 1 : 2;
        if (in.format == Format::kSOP1 && w[off] == 0 && m != "s_getpc_b64") n = 0;
        if (m == "s_getpc_b64") n = 0;
        if (m == "s_setpc_b64") u->dstw = 0, u->srcw[0] = 2;
        if (m == "s_fmamk_f32" || m == "s_fmaak_f32") n = 2;
        if (m.starts_with("s_barrier_signal")) u->dstw = 0, n = 1;  // SSRC0: the barrier id
        for (unsigned i = 0; i < n; ++i) {
          if (!(m == "s_setpc_b64")) u->srcw[i] = w[off + i] ? w[off + i] : 1;
          RG_TRY(set_src(*u, i, i == 0 ? (w0 & 0xFF) : ((w0 >> 8) & 0xFF), in.literal));
        }
        // The K literal in cval[2]: cval[1] holds it only when src1 itself is the literal
        // (an SGPR src1 read K as 0, so LLVM's uniform i64 division went wrong on gfx1201).
        if (m == "s_fmamk_f32" || m == "s_fmaak_f32") u->cval[2] = in.literal;
        if (m == "s_fmac_f32" || m == "s_fmac_f16") {  // D = S0 * S1 + D
          u->srcw[2] = 1;
          RG_TRY(set_src(*u, 2, u->sdst, 0));
        }
        u->nsrc = static_cast<uint8_t>(n);
        if (has_dst && u->dstw) u->writes[u->nwrites++] = {false, u->sdst, u->dstw};
        // gfx12 SALU float operations follow MODE.FP_DENORM as their VALU forms do (compares
        // exempt, as v_cmp). s_cvt_hi_f32_f16 reads the high half: both halves are flushed.
        if (u->fbits) {
          if (!m.starts_with("s_cmp")) denorm_types(*u, m);
          if (m == "s_cvt_hi_f32_f16") u->dn_in |= kDnPacked;
        }
        break;
      }
      case Format::kSOPK:
        u->sdst = static_cast<uint16_t>((w0 >> 16) & 0x7F);
        u->imm = static_cast<int16_t>(w0 & 0xFFFF);
        if (m.find("s_cmpk") != 0 && m.find("waitcnt") == std::string_view::npos &&
            m != "s_version" && m.find("setreg") == std::string_view::npos)
          u->writes[u->nwrites++] = {false, u->sdst, 1};
        if (m.find("s_cmpk") == 0 || m == "s_addk_i32" || m == "s_mulk_i32" || m == "s_setreg_b32")
          u->reads[u->nreads++] = {false, u->sdst, 1};
        u->cval[0] = in.literal;
        break;
      case Format::kSOPP: u->imm = static_cast<int16_t>(w0 & 0xFFFF); break;
      case Format::kSMEM: {
        const unsigned sbase = (w0 & 0x3F) * 2, sdata = (w0 >> 6) & 0x7F;
        u->addr = static_cast<uint16_t>(sbase);
        u->vdst = static_cast<uint16_t>(sdata);
        u->saddr = static_cast<uint16_t>(w1 >> 25);
        const uint32_t bits = g12 ? 24 : 21;
        u->imm = static_cast<int32_t>(w1 << (32 - bits)) >> (32 - bits);
        u->dstw = in.info->widths[0];
        u->reads[u->nreads++] = {false, static_cast<uint16_t>(sbase), 2};
        if (u->saddr != kNull) u->reads[u->nreads++] = {false, u->saddr, 1};
        if (u->dstw) u->writes[u->nwrites++] = {false, u->vdst, u->dstw};
        break;
      }
      case Format::kVOP1:
        RG_TRY(
            setup_valu(*u, *in.info, in, (w0 >> 17) & 0xFF, {dpp_src0(*u, in, w0 & 0x1FF), 0, 0}));
        dpp_mods(*u);
        if (m.find("readfirstlane") != std::string_view::npos) {
          u->sdst = static_cast<uint16_t>((w0 >> 17) & 0xFF);
          u->writes[u->nwrites++] = {false, u->sdst, 1};
        }
        break;
      case Format::kVOP2: {
        const unsigned vdst = (w0 >> 17) & 0xFF, s0 = dpp_src0(*u, in, w0 & 0x1FF),
                       s1 = 256 + ((w0 >> 9) & 0xFF);
        if (m.find("mamk") != std::string_view::npos) {
          RG_TRY(setup_valu(*u, *in.info, in, vdst, {s0, s1, 0}));
          u->cval[2] = in.literal;
        } else if (m.find("maak") != std::string_view::npos) {
          RG_TRY(setup_valu(*u, *in.info, in, vdst, {s0, s1, 0}));
          u->cval[2] = in.literal;
        } else {
          // The implicit third operand of v_cndmask_b32_e32 / v_add_co_ci_u32_e32 is VCC (so the
          // strict-wait check sees a read of VCC, not of s0).
          RG_TRY(setup_valu(*u, *in.info, in, vdst, {s0, s1, kVcc}));
        }
        if (in.info->mnemonic == std::string_view("v_cndmask_b32_e32") ||
            m.find("_co_ci_") != std::string_view::npos) {
          u->nsrc = 2;
        }
        dpp_mods(*u);
        break;
      }
      case Format::kVOPC:
        RG_TRY(setup_valu(*u, *in.info, in, 0,
                          {dpp_src0(*u, in, w0 & 0x1FF), 256 + ((w0 >> 9) & 0xFF), 0}));
        dpp_mods(*u);
        u->sdst = kVcc;
        break;
      case Format::kVOP3:
      case Format::kVOP3SD:
      case Format::kVOP3P: {
        u->e64 = true;
        const unsigned vdst = w0 & 0xFF;
        const std::array<unsigned, 3> srcs{
            in.format == Format::kVOP3 ? dpp_src0(*u, in, w1 & 0x1FF) : w1 & 0x1FF,
            (w1 >> 9) & 0x1FF, (w1 >> 18) & 0x1FF};
        if (in.format == Format::kVOP3SD) u->sdst = static_cast<uint16_t>((w0 >> 8) & 0x7F);
        if (in.format == Format::kVOP3P) {
          u->opsel = static_cast<uint8_t>((w0 >> 11) & 7);
          u->opsel_hi = static_cast<uint8_t>(((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2));
          u->neg_hi = static_cast<uint8_t>((w0 >> 8) & 7);
          u->clamp = (w0 >> 15) & 1;
        } else {
          if (in.format == Format::kVOP3) {
            u->abs = static_cast<uint8_t>((w0 >> 8) & 7);
            u->opsel = static_cast<uint8_t>((w0 >> 11) & 0xF);
          }
          u->clamp = (w0 >> 15) & 1;
          u->omod = static_cast<uint8_t>((w1 >> 27) & 3);
        }
        u->neg = static_cast<uint8_t>((w1 >> 29) & 7);
        RG_TRY(setup_valu(*u, *in.info, in, vdst, srcs));
        if (u->op & kCmp) u->sdst = static_cast<uint16_t>(vdst);
        if (m.starts_with("v_s_")) {  // gfx12 scalar transcendentals: VOP3 naming an SGPR
          if (vdst >= 106)
            return fail(Errc::kUnsupported, u.get(), "v_s_* destination beyond s105");
          u->sgpr_dst = true;
          u->sdst = static_cast<uint16_t>(vdst);
          u->writes[u->nwrites++] = {false, u->sdst, 1};
        }
        if (m.find("readlane") != std::string_view::npos ||
            m.find("readfirstlane") != std::string_view::npos)
          u->sdst = static_cast<uint16_t>(vdst);
        if (u->sdst != 0 || in.format == Format::kVOP3SD || (u->op & kCmp) ||
            m.find("readlane") != std::string_view::npos) {
          if (in.format == Format::kVOP3SD || (u->op & kCmp) ||
              m.find("readlane") != std::string_view::npos)
            u->writes[u->nwrites++] = {false, u->sdst, 1};
        }
        // Integer clamp saturates the 16/32-bit add/sub/mad forms (exec_valu_types).
        const bool int_clamp = !u->omod && (m.find("add_nc_") != std::string_view::npos ||
                                            m.find("sub_nc_") != std::string_view::npos ||
                                            m.find("v_mad_u16") == 0 || m.find("v_mad_i16") == 0);
        if (u->fbits == 0 && (u->clamp || u->omod) && in.format != Format::kVOP3P && !int_clamp)
          return fail(Errc::kUnsupported, u.get(),
                      "clamp/omod on an integer operation not implemented");
        break;
      }
      case Format::kVOPDX: {
        const unsigned vdstx = w1 >> 24;
        const unsigned vdsty = (((w1 >> 17) & 0x7F) << 1) | ((vdstx & 1) ^ 1);
        u->fmt = Format::kVOPDX;
        RG_TRY(setup_valu(*u, *in.info, in, vdstx, {w0 & 0x1FF, 256 + ((w0 >> 9) & 0xFF), 0}));
        if (m.find("mamk") != std::string_view::npos || m.find("maak") != std::string_view::npos)
          u->cval[2] = in.literal;
        if (m.find("cndmask") != std::string_view::npos) u->nsrc = 2;
        auto y = std::make_unique<Uop>();
        y->pc = pc;
        y->fmt = Format::kVOPDY;
        y->info = in.info_y;
        y->op = semantics_of(in.info_y->mnemonic);
        if (y->op == 0)
          return fail(
              Errc::kUnsupported, y.get(),
              "opcode not implemented by the emulator (" + disassemble(e.target_, in) + ")");
        RG_TRY(setup_valu(*y, *in.info_y, in, vdsty, {w1 & 0x1FF, 256 + ((w1 >> 9) & 0xFF), 0}));
        const std::string_view my = in.info_y->mnemonic;
        if (my.find("mamk") != std::string_view::npos || my.find("maak") != std::string_view::npos)
          y->cval[2] = in.literal;
        if (my.find("cndmask") != std::string_view::npos) y->nsrc = 2;
        for (unsigned i = 0; i < y->nreads; ++i) u->reads[u->nreads++] = y->reads[i];
        for (unsigned i = 0; i < y->nwrites; ++i) u->writes[u->nwrites++] = y->writes[i];
        u->y = std::move(y);
        break;
      }
      case Format::kDS: {
        u->imm = static_cast<int32_t>(w0 & 0xFF);
        u->imm1 = static_cast<int32_t>((w0 >> 8) & 0xFF);
        if (m.find("2addr") == std::string_view::npos) u->imm = static_cast<int32_t>(w0 & 0xFFFF);
        u->addr = static_cast<uint16_t>(w1 & 0xFF);
        u->data0 = static_cast<uint16_t>((w1 >> 8) & 0xFF);
        u->data1 = static_cast<uint16_t>((w1 >> 16) & 0xFF);
        const auto& w = in.info->widths;
        const bool load = m.find("ds_load") == 0 || m.find("_rtn") != std::string_view::npos ||
                          m == "ds_swizzle_b32" || m.find("permute") != std::string_view::npos;
        const unsigned vdst = w1 >> 24;
        u->reads[u->nreads++] = {true, u->addr, 1};
        if (load) {
          RG_TRY(dst_vgpr(*u, vdst, w[0]));
          u->dstw = w[0];
          if (w[2]) u->reads[u->nreads++] = {true, u->data0, w[2]};
        } else {
          u->dstw = 0;
          if (w[1]) u->reads[u->nreads++] = {true, u->data0, w[1]};
          if (w[2]) u->reads[u->nreads++] = {true, u->data1, w[2]};
        }
        u->srcw[0] = load ? w[2] : w[1];
        break;
      }
      case Format::kFLAT:
      case Format::kGLOBAL:
      case Format::kSCRATCH: {
        unsigned vdst, data, vaddr, saddr;
        if (!g12) {
          u->imm = static_cast<int32_t>(w0 << 19) >> 19;
          u->glc = (w0 >> 14) & 1;
          vaddr = w1 & 0xFF, data = (w1 >> 8) & 0xFF, saddr = (w1 >> 16) & 0x7F, vdst = w1 >> 24;
        } else {
          const uint32_t w2 = in.words[2];
          saddr = w0 & 0x7F, vdst = w1 & 0xFF, data = (w1 >> 23) & 0xFF, vaddr = w2 & 0xFF;
          u->imm = static_cast<int32_t>(w2) >> 8;
          u->glc = ((w1 >> 20) & 7) == 1;  // TH_ATOMIC_RETURN
        }
        if (in.format == Format::kFLAT) saddr = kNull;
        if (in.format == Format::kSCRATCH) u->sve = g12 ? (w1 >> 17) & 1 : (w1 >> 23) & 1;
        u->addr = static_cast<uint16_t>(vaddr);
        u->data0 = static_cast<uint16_t>(data);
        u->saddr = static_cast<uint16_t>(saddr);
        const auto& w = in.info->widths;
        const bool is_inv = m == "global_inv" || m == "global_wb";
        if (is_inv) break;
        const bool store = m.find("store") != std::string_view::npos;
        const bool atomic = m.find("atomic") != std::string_view::npos;
        // Printed operands: load "vdst, vaddr, saddr"; store "vaddr, vdata, saddr";
        // atomic "[vdst,] vaddr, vdata, saddr".
        if (in.format == Format::kSCRATCH) {  // 32-bit private address: SGPR + VGPR + offset
          if (u->sve) u->reads[u->nreads++] = {true, u->addr, 1};
          if (saddr != kNull) u->reads[u->nreads++] = {false, u->saddr, 1};
        } else {
          const unsigned awidth = saddr != kNull ? 1 : 2;
          u->reads[u->nreads++] = {true, u->addr, static_cast<uint16_t>(awidth)};
          if (saddr != kNull) u->reads[u->nreads++] = {false, u->saddr, 2};
        }
        uint8_t dw = 0, sw = 0;
        if (store) {
          sw = w[1];
        } else if (atomic) {
          const bool rtn = u->glc || m.find("_rtn") != std::string_view::npos;
          u->glc = rtn;
          sw = rtn ? w[2] : w[1];
          dw = rtn ? w[0] : 0;
          if (m.find("cmpswap") != std::string_view::npos && rtn) dw = static_cast<uint8_t>(sw / 2);
          // At least the registers execution touches (data, compare value, 64-bit halves),
          // whatever the table's sample form says, so the range check below covers them.
          const uint8_t words = m.find("64") != std::string_view::npos ? 2 : 1;
          const uint8_t need =
              static_cast<uint8_t>((m.find("cmpswap") != std::string_view::npos ? 2 : 1) * words);
          sw = std::max(sw, need);
          if (rtn) dw = std::max(dw, words);
        } else {
          dw = w[0];
        }
        u->srcw[0] = sw;
        u->dstw = dw;
        if (sw) u->reads[u->nreads++] = {true, u->data0, sw};
        if (dw) RG_TRY(dst_vgpr(*u, vdst, dw));
        break;
      }
      case Format::kMUBUF: break;
      default: return fail(Errc::kUnsupported, u.get(), "format not implemented");
    }
    // Every register range an operand touches must exist (VGPRs: the allocation; SGPRs: s0-s127).
    for (unsigned k = 0; k < u->nreads + u->nwrites; ++k) {
      const Uop::Range& r = k < u->nreads ? u->reads[k] : u->writes[k - u->nreads];
      const unsigned limit = r.vgpr ? vgprs : 128;
      if (r.first + r.count > limit) {
        return fail(Errc::kHardware, u.get(),
                    strformat("operand %c%u (%u dwords) beyond the %u %s", r.vgpr ? 'v' : 's',
                              r.first, r.count, limit, r.vgpr ? "allocated VGPRs" : "SGPRs"));
      }
    }
    return u;
  }

  Result<Uop*> uop_at(uint64_t pc) {
    auto it = code.find(pc);
    if (it != code.end()) return it->second.get();
    std::unique_ptr<Uop> u = RG_TRY(predecode(pc));
    Uop* p = u.get();
    code.emplace(pc, std::move(u));
    return p;
  }

  // ---------------------------------------------------------------- operands
  static uint32_t sreg(const Wave& w, unsigned r) { return r == kNull ? 0 : w.s[r & 127]; }

  uint32_t scalar32(const Wave& w, const Uop& u, unsigned i) const {
    switch (u.kind[i]) {
      case kSrcSgpr: return sreg(w, u.src[i]);
      case kSrcConst: return static_cast<uint32_t>(u.cval[i]);
      case kSrcScc: return w.scc;
      case kSrcExecz: return w.s[kExec] == 0;
      case kSrcVccz: return w.s[kVcc] == 0;
      default: return 0;
    }
  }
  uint64_t scalar64(const Wave& w, const Uop& u, unsigned i) const {
    if (u.kind[i] == kSrcSgpr) return sreg(w, u.src[i]) | (uint64_t{sreg(w, u.src[i] + 1u)} << 32);
    if (u.kind[i] == kSrcConst) return u.cval[i];
    return scalar32(w, u, i);
  }

  // Reads source i for all lanes: 32-bit values (16-bit operands: the selected half in the low
  // bits), float modifiers applied.
  const uint32_t* dpp_src = nullptr;  // src0 after the DPP lane permutation
  void read32(Wave& w, const Uop& u, unsigned i, uint32_t* out) const {
    if (i == 0 && dpp_src != nullptr) {
      std::memcpy(out, dpp_src, 4 * kLanes);
    } else if (u.kind[i] == kSrcVgpr) {
      std::memcpy(out, w.vr(u.src[i] - 256), 4 * kLanes);
    } else {
      const uint32_t x = scalar32(w, u, i);
      for (unsigned l = 0; l < kLanes; ++l) out[l] = x;
    }
    if (u.half && (u.opsel >> i) & 1)
      for (unsigned l = 0; l < kLanes; ++l) out[l] >>= 16;
    // VOP3P's neg_lo/neg_hi act per half (or per source type for v_fma_mix*): each op applies
    // them (applying neg_lo here too negated the low half twice).
    if (u.fbits && u.fmt != Format::kVOP3P && ((u.abs | u.neg) >> i) & 1) {
      const uint32_t sign = u.fbits == 16 ? 0x8000u : 0x80000000u;
      const uint32_t a = (u.abs >> i) & 1 ? ~sign : ~0u, n = (u.neg >> i) & 1 ? sign : 0u;
      for (unsigned l = 0; l < kLanes; ++l) out[l] = (out[l] & a) ^ n;
    }
  }
  void read64(Wave& w, const Uop& u, unsigned i, uint64_t* out) const {
    if (u.kind[i] == kSrcVgpr) {
      const uint32_t* lo = w.vr(u.src[i] - 256);
      const uint32_t* hi = w.vr(u.src[i] - 255);
      for (unsigned l = 0; l < kLanes; ++l) out[l] = lo[l] | (uint64_t{hi[l]} << 32);
    } else {
      const uint64_t x = scalar64(w, u, i);
      for (unsigned l = 0; l < kLanes; ++l) out[l] = x;
    }
    if (u.fbits == 64 && ((u.abs | u.neg) >> i) & 1) {
      const uint64_t sign = 1ull << 63;
      const uint64_t a = (u.abs >> i) & 1 ? ~sign : ~0ull, n = (u.neg >> i) & 1 ? sign : 0ull;
      for (unsigned l = 0; l < kLanes; ++l) out[l] = (out[l] & a) ^ n;
    }
  }

  void write32(Wave& w, const Uop& u, const uint32_t* d) {
    if (u.sgpr_dst) {  // v_s_*: scalar sources, so every lane computed the same value
      // A 16-bit result fills the low half; the high half is written as 0 (not hardware-
      // confirmed; LLVM reads only the low half).
      write_sgpr(w, u.sdst, u.half && !u.dst32 ? d[0] & 0xFFFF : d[0]);
      return;
    }
    uint32_t* dst = w.vr(u.vdst);
    const uint32_t m = w.exec();
    if (u.half && !u.dst32) {
      const bool hi = (u.opsel >> 3) & 1;
      for (unsigned l = 0; l < kLanes; ++l)
        if ((m >> l) & 1)
          dst[l] = hi ? (dst[l] & 0xFFFF) | (d[l] << 16) : (dst[l] & 0xFFFF0000u) | (d[l] & 0xFFFF);
      return;
    }
    if (m == ~0u) {
      std::memcpy(dst, d, 4 * kLanes);
    } else {
      for (unsigned l = 0; l < kLanes; ++l)
        if ((m >> l) & 1) dst[l] = d[l];
    }
  }
  void write64(Wave& w, const Uop& u, const uint64_t* d) {
    uint32_t* lo = w.vr(u.vdst);
    uint32_t* hi = w.vr(u.vdst + 1u);
    const uint32_t m = w.exec();
    for (unsigned l = 0; l < kLanes; ++l)
      if ((m >> l) & 1)
        lo[l] = static_cast<uint32_t>(d[l]), hi[l] = static_cast<uint32_t>(d[l] >> 32);
  }
  void write_sgpr(Wave& w, unsigned r, uint32_t v) {
    if (r != kNull && r < 128) w.s[r] = v;
  }

  // ---------------------------------------------------------------- strict waits
  Status check_pending(Wave& w, const Uop& u) {
    // A load may overwrite the destination of an older load on the same in-order counter (vector
    // memory loads, DS): the data returns in order, so the younger value lands last (LLVM emits
    // this for loads into one register under complementary EXEC masks, and reuses a dead half:
    // `global_load_b64 v[4:5]` then `global_load_b64 v[5:6]`). SMEM is out of order.
    const Counter self =
        u.fmt == Format::kGLOBAL || u.fmt == Format::kFLAT || u.fmt == Format::kSCRATCH ? kCntLoad
        : u.fmt == Format::kDS                                                          ? kCntLds
                                                                                        : kCntNum;
    auto busy = [&](const Uop::Range& r, bool write) -> const Pending* {
      for (unsigned k = 0; k < r.count; ++k) {
        const unsigned reg = r.first + k;
        if (r.vgpr ? (reg < 256 && w.vpend[reg]) : (reg < 128 && w.spend[reg])) {
          for (const Pending& p : w.pending)
            if (p.vgpr == r.vgpr && reg >= p.first && reg < p.first + p.count &&
                !(write && p.cnt == self))
              return &p;
        }
      }
      return nullptr;
    };
    for (unsigned i = 0; i < u.nreads + u.nwrites; ++i) {
      const bool is_read = i < u.nreads;
      const Uop::Range& r = is_read ? u.reads[i] : u.writes[i - u.nreads];
      if (const Pending* p = busy(r, !is_read)) {
        return fail(Errc::kHardware, &u,
                    strformat("strict wait: %s %c%u while the %s at PC %s still owns it (missing "
                              "s_waitcnt / s_wait)",
                              is_read ? "reads" : "overwrites", r.vgpr ? 'v' : 's', r.first,
                              p->what, hex(p->pc).c_str()));
      }
    }
    return {};
  }
  void add_pending(Wave& w, const Uop& u, Counter c, bool vgpr, unsigned first, unsigned count) {
    if (count == 0) return;
    w.pending.push_back({c, vgpr, static_cast<uint16_t>(first), static_cast<uint16_t>(count), u.pc,
                         u.info->mnemonic});
    for (unsigned k = 0; k < count; ++k)
      (vgpr ? w.vpend[(first + k) & 255] : w.spend[(first + k) & 127])++;
  }
  // Keeps at most n outstanding operations of the counters in `mask` (in order; SMEM retires
  // only at 0 since it completes out of order).
  void wait(Wave& w, unsigned mask, unsigned n) {
    unsigned total = 0;
    bool smem = false;
    for (const Pending& p : w.pending)
      if ((mask >> p.cnt) & 1) ++total, smem |= p.cnt == kCntSmem;
    if (total <= n) return;
    if (smem && n > 0 && !(mask == (1u << kCntSmem))) {
      // Mixed LDS + SMEM: only the in-order LDS operations older than the newest n retire.
    }
    unsigned to_retire = total - n;
    std::vector<Pending> keep;
    for (const Pending& p : w.pending) {
      const bool match = (mask >> p.cnt) & 1;
      const bool may = match && to_retire > 0 && (p.cnt != kCntSmem || n == 0);
      if (match && to_retire > 0) --to_retire;
      if (may) {
        for (unsigned k = 0; k < p.count; ++k)
          (p.vgpr ? w.vpend[(p.first + k) & 255] : w.spend[(p.first + k) & 127])--;
      } else {
        keep.push_back(p);
      }
    }
    w.pending.swap(keep);
  }

  // ---------------------------------------------------------------- memory
  Error mem_fault(const Uop& u, unsigned lane, uint64_t va, const Error& err) {
    return fail(Errc::kHardware, &u,
                strformat("memory fault in lane %u at address %s: %s", lane, hex(va).c_str(),
                          err.to_string().c_str()));
  }
  // ---- private (scratch) and LDS apertures
  // Scratch: each wave of a workgroup owns slot w.id of COMPUTE_TMPRING_SIZE.WAVES slots of
  // WAVESIZE × 256 bytes at COMPUTE_DISPATCH_SCRATCH_BASE (architected flat scratch). Inside a
  // slot the private addresses of the 32 lanes are interleaved per dword (the swizzled layout:
  // element size 4, index stride 32): byte a of lane l is at slot + (a / 4) × 128 + l × 4 + a % 4.
  Wave* cur_wave = nullptr;
  uint32_t scratch_lane_bytes() const { return ((st.tmpring_size >> 12) & 0x7FFF) * 256 / kLanes; }
  Result<uint64_t> scratch_va(const Uop& u, unsigned lane, uint64_t addr, unsigned n) {
    const uint32_t waves = st.tmpring_size & 0xFFF, lane_bytes = scratch_lane_bytes();
    const unsigned slot = slot_base + (cur_wave ? cur_wave->id : 0);
    if (st.scratch_base.raw() == 0 || lane_bytes == 0)
      return fail(Errc::kHardware, &u,
                  strformat("scratch access in lane %u at private address %s but the dispatch "
                            "has no scratch (COMPUTE_TMPRING_SIZE / DISPATCH_SCRATCH_BASE unset)",
                            lane, hex(addr).c_str()));
    if (slot >= waves)
      return fail(Errc::kHardware, &u,
                  strformat("wave %u of the workgroup has no scratch slot %u (TMPRING_SIZE.WAVES "
                            "%u)",
                            cur_wave ? cur_wave->id : 0, slot, waves));
    if (addr + n > lane_bytes)
      return fail(Errc::kOutOfRange, &u,
                  strformat("scratch access out of range in lane %u: bytes [%s, +%u) of %u per "
                            "lane",
                            lane, hex(addr).c_str(), n, lane_bytes));
    return st.scratch_base.raw() + uint64_t{slot} * lane_bytes * kLanes + (addr / 4) * 4 * kLanes +
           lane * 4u + addr % 4;
  }
  // Which space a VMEM access goes to: 0 global, 1 LDS (FLAT in the shared aperture), 2 private.
  static unsigned space_of(const Uop& u, uint64_t va) {
    if (u.fmt == Format::kSCRATCH) return 2;
    if (u.fmt == Format::kFLAT) {
      const uint64_t hi = va >> 48;  // SH_MEM_BASES shared 1, private 2 (amd.md)
      if (hi == 1) return 1;
      if (hi == 2) return 2;
    }
    return 0;
  }
  Status aperture_bytes(const Uop& u, unsigned lane, uint64_t va, uint8_t* p, unsigned n,
                        bool store) {
    const unsigned sp = space_of(u, va);
    const uint64_t a = u.fmt == Format::kSCRATCH ? va : (va & 0xFFFFFFFFull);
    if (sp == 1) {
      if (a + n > lds.size())
        return fail(Errc::kOutOfRange, &u,
                    strformat("LDS access (FLAT shared aperture) out of range in lane %u: bytes "
                              "[%s, +%u) of %zu",
                              lane, hex(a).c_str(), n, lds.size()));
      if (store)
        std::memcpy(lds.data() + a, p, n);
      else
        std::memcpy(p, lds.data() + a, n);
      return {};
    }
    for (unsigned k = 0; k < n; ++k) {  // byte by byte: consecutive dwords are 128 B apart
      const uint64_t b = RG_TRY(scratch_va(u, lane, a + k, 1));
      const uint64_t base = b & ~uint64_t{3};
      auto r = rd32(base);
      if (!r) return mem_fault(u, lane, va, r.error());
      uint32_t word = *r;
      auto* wb = reinterpret_cast<uint8_t*>(&word) + (b - base);
      if (!store) {
        p[k] = *wb;
        continue;
      }
      *wb = p[k];
      if (Status st2 = wr32(base, word); !st2) return mem_fault(u, lane, va, st2.error());
    }
    return {};
  }

  Status load_bytes(const Uop& u, unsigned lane, uint64_t va, void* out, unsigned n) {
    if (u.fmt != Format::kGLOBAL && space_of(u, va) != 0)
      return aperture_bytes(u, lane, va, static_cast<uint8_t*>(out), n, false);
    auto* o = static_cast<uint8_t*>(out);
    // Whole dwords inside one page: one TLB look-up for the access.
    if (va % 4 == 0 && n % 4 == 0 && (va & 0xFFF) + n <= 0x1000) {
      if (uint32_t* q = cached_dword(va, false)) {
        for (unsigned k = 0; k < n / 4; ++k) {
          const uint32_t x = load_dword(q + k);
          std::memcpy(o + 4 * k, &x, 4);
        }
        return {};
      }
    }
    uint64_t a = va;
    unsigned done = 0;
    while (done < n) {
      const uint64_t base = a & ~uint64_t{3};
      auto r = rd32(base);
      if (!r) return mem_fault(u, lane, a, r.error());
      const uint32_t word = *r;
      const unsigned off = static_cast<unsigned>(a - base);
      const unsigned take = std::min(4 - off, n - done);
      std::memcpy(o + done, reinterpret_cast<const uint8_t*>(&word) + off, take);
      done += take, a += take;
    }
    return {};
  }
  Status store_bytes(const Uop& u, unsigned lane, uint64_t va, const void* in, unsigned n) {
    if (u.fmt != Format::kGLOBAL && space_of(u, va) != 0) {
      uint8_t buf[16];
      std::memcpy(buf, in, std::min(n, 16u));
      return aperture_bytes(u, lane, va, buf, n, true);
    }
    const auto* p = static_cast<const uint8_t*>(in);
    if (va % 4 == 0 && n % 4 == 0 && (va & 0xFFF) + n <= 0x1000) {
      if (uint32_t* q = cached_dword(va, true)) {
        for (unsigned k = 0; k < n / 4; ++k) {
          uint32_t x;
          std::memcpy(&x, p + 4 * k, 4);
          store_dword(q + k, x);
        }
        return {};
      }
    }
    uint64_t a = va;
    unsigned done = 0;
    while (done < n) {
      const uint64_t base = a & ~uint64_t{3};
      const unsigned off = static_cast<unsigned>(a - base);
      const unsigned take = std::min(4 - off, n - done);
      uint32_t word = 0;
      if (take != 4) {
        // A partial dword through the TLB: compare-exchange the whole dword, so a neighbour's
        // bytes stored concurrently survive (readable too: a refused read faults below).
        uint32_t* q = cached_dword(base, true);
        if (q != nullptr && cached_dword(base, false) != nullptr) {
          std::atomic_ref<uint32_t> ref(*q);
          uint32_t cur = ref.load(std::memory_order_relaxed), nv;
          do {
            nv = cur;
            std::memcpy(reinterpret_cast<uint8_t*>(&nv) + off, p + done, take);
          } while (!ref.compare_exchange_weak(cur, nv, std::memory_order_relaxed));
          done += take, a += take;
          continue;
        }
      }
      // A partial dword is a read-modify-write: with workgroups on several threads, hold the
      // memory lock across both halves so a neighbour's bytes in the same dword survive.
      std::unique_lock<std::recursive_mutex> rmw;
      if (take != 4) {
        if (sh) rmw = std::unique_lock<std::recursive_mutex>(sh->mem);
        auto r = rd32(base);
        if (!r) return mem_fault(u, lane, a, r.error());
        word = *r;
      }
      std::memcpy(reinterpret_cast<uint8_t*>(&word) + off, p + done, take);
      if (Status st = wr32(base, word); !st) return mem_fault(u, lane, a, st.error());
      done += take, a += take;
    }
    return {};
  }

  Status exec_smem(Wave& w, const Uop& u) {
    switch (u.op) {
      case s_dcache_inv:
      case s_gl1_inv: return {};
      default: break;
    }
    const uint64_t base = w.s[u.addr] | (uint64_t{w.s[u.addr + 1u]} << 32);
    const uint64_t off = u.saddr != kNull ? w.s[u.saddr] : 0;
    if (u.op == s_load_i8 || u.op == s_load_u8 || u.op == s_load_i16 || u.op == s_load_u16) {
      // GFX12's sub-dword scalar loads: the byte address as given (dword loads round it down),
      // zero- or sign-extended into one SGPR. Read through the dwords that hold the bytes.
      const uint64_t at = base + static_cast<int64_t>(u.imm) + off;
      const unsigned n = u.op == s_load_i8 || u.op == s_load_u8 ? 1 : 2;
      uint8_t b[8];
      const uint64_t first = at & ~uint64_t{3};
      for (uint64_t d = first; d < at + n; d += 4) {
        auto r = rd32(d);
        if (!r) return mem_fault(u, 0, d, r.error());
        std::memcpy(b + (d - first), &*r, 4);
      }
      const uint8_t* p = b + (at - first);
      uint32_t v = n == 1 ? p[0] : uint32_t{p[0]} | uint32_t{p[1]} << 8;
      if (u.op == s_load_i8) v = static_cast<uint32_t>(static_cast<int8_t>(v));
      if (u.op == s_load_i16) v = static_cast<uint32_t>(static_cast<int16_t>(v));
      write_sgpr(w, u.vdst, v);
      if (e.options_.strict_wait) add_pending(w, u, kCntSmem, false, u.vdst, 1);
      return {};
    }
    const uint64_t va = (base + static_cast<int64_t>(u.imm) + off) & ~uint64_t{3};
    for (unsigned i = 0; i < u.dstw; ++i) {
      auto r = rd32(va + 4 * i);
      if (!r) return mem_fault(u, 0, va + 4 * i, r.error());
      write_sgpr(w, u.vdst + i, *r);
    }
    if (e.options_.strict_wait) add_pending(w, u, kCntSmem, false, u.vdst, u.dstw);
    return {};
  }

  Status exec_global(Wave& w, const Uop& u) {
    switch (u.op) {
      case global_inv:
      case global_wb:
      case buffer_gl0_inv:
      case buffer_gl1_inv: return {};
      default: break;
    }
    const uint32_t m = w.exec();
    std::array<uint64_t, kLanes> addr{};
    const uint32_t* a0 = w.vr(u.addr);
    cur_wave = &w;
    if (u.fmt == Format::kSCRATCH) {
      const uint32_t sb = u.saddr != kNull ? w.s[u.saddr] : 0;
      for (unsigned l = 0; l < kLanes; ++l)
        addr[l] = static_cast<uint32_t>(sb + (u.sve ? a0[l] : 0u) + static_cast<uint32_t>(u.imm));
    } else if (u.saddr != kNull) {
      const uint64_t sb = w.s[u.saddr] | (uint64_t{w.s[u.saddr + 1u]} << 32);
      for (unsigned l = 0; l < kLanes; ++l) addr[l] = sb + a0[l] + static_cast<int64_t>(u.imm);
    } else {
      const uint32_t* a1 = w.vr(u.addr + 1u);
      for (unsigned l = 0; l < kLanes; ++l)
        addr[l] = (a0[l] | (uint64_t{a1[l]} << 32)) + static_cast<int64_t>(u.imm);
    }
    const std::string_view mn = u.info->mnemonic;
    auto vbytes = [&](unsigned l, unsigned reg, unsigned n, void* out) {
      for (unsigned k = 0; k < (n + 3) / 4; ++k) {
        const uint32_t x = w.vr(reg + k)[l];
        std::memcpy(static_cast<uint8_t*>(out) + 4 * k, &x, std::min(4u, n - 4 * k));
      }
    };
    switch (u.op) {
      case global_store_b8:
      case global_store_b16:
      case global_store_b32:
      case global_store_b64:
      case global_store_b96:
      case global_store_b128:
      case global_store_d16_hi_b8:
      case global_store_d16_hi_b16:
      case flat_store_b32:
      case flat_store_b64:
      case flat_store_b128: {
        const bool hi = mn.find("d16_hi") != std::string_view::npos;
        const unsigned n = mn.ends_with("b8") ? 1 : mn.ends_with("b16") ? 2 : 4u * u.srcw[0];
        for (unsigned l = 0; l < kLanes; ++l) {
          if (!((m >> l) & 1)) continue;
          uint8_t buf[16];
          vbytes(l, u.data0, std::max(n, 4u), buf);
          if (hi) std::memmove(buf, buf + 2, 2);
          RG_TRY(store_bytes(u, l, addr[l], buf, n));
        }
        return {};
      }
      case global_load_u8:
      case global_load_i8:
      case global_load_u16:
      case global_load_i16:
      case global_load_b32:
      case global_load_b64:
      case global_load_b96:
      case global_load_b128:
      case global_load_d16_b16:
      case global_load_d16_hi_b16:
      case flat_load_b32:
      case flat_load_b64:
      case flat_load_b128: {
        const unsigned n = u.op == global_load_u8 || u.op == global_load_i8 ? 1
                           : u.op == global_load_u16 || u.op == global_load_i16 ||
                                   u.op == global_load_d16_b16 || u.op == global_load_d16_hi_b16
                               ? 2
                               : 4u * u.dstw;
        for (unsigned l = 0; l < kLanes; ++l) {
          if (!((m >> l) & 1)) continue;
          uint8_t buf[16] = {};
          RG_TRY(load_bytes(u, l, addr[l], buf, n));
          uint32_t x;
          std::memcpy(&x, buf, 4);
          uint32_t* d = w.vr(u.vdst);
          switch (u.op) {
            case global_load_i8: d[l] = static_cast<uint32_t>(static_cast<int8_t>(buf[0])); break;
            case global_load_i16:
              d[l] = static_cast<uint32_t>(static_cast<int16_t>(x & 0xFFFF));
              break;
            case global_load_u8:
            case global_load_u16: d[l] = x; break;
            case global_load_d16_b16: d[l] = (d[l] & 0xFFFF0000u) | (x & 0xFFFF); break;
            case global_load_d16_hi_b16: d[l] = (d[l] & 0xFFFF) | (x << 16); break;
            default:
              for (unsigned k = 0; k < u.dstw; ++k)
                std::memcpy(&w.vr(u.vdst + k)[l], buf + 4 * k, 4);
          }
        }
        if (e.options_.strict_wait) add_pending(w, u, kCntLoad, true, u.vdst, u.dstw);
        return {};
      }
      default: break;
    }
    // Atomics (one instruction at a time across worker threads). Through the TLB the result is
    // compare-exchanged, so a plain store another worker makes meanwhile is not lost either.
    const bool wide = u.op == global_atomic_add_u64;
    std::unique_lock<std::recursive_mutex> atomic_lock;
    if (sh) atomic_lock = std::unique_lock<std::recursive_mutex>(sh->mem);
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!((m >> l) & 1)) continue;
      const uint32_t s = w.vr(u.data0)[l];
      auto apply = [&](uint64_t old) -> Result<uint64_t> {
        const uint32_t o = static_cast<uint32_t>(old);
        switch (u.op) {
          case global_atomic_add_u32: return uint64_t{o + s};
          case global_atomic_sub_u32: return uint64_t{o - s};
          case global_atomic_swap_b32: return uint64_t{s};
          case global_atomic_cmpswap_b32: return uint64_t{o == w.vr(u.data0 + 1u)[l] ? s : o};
          case global_atomic_min_i32:
            return uint64_t{static_cast<uint32_t>(std::min<int32_t>(o, s))};
          case global_atomic_max_i32:
            return uint64_t{static_cast<uint32_t>(std::max<int32_t>(o, s))};
          case global_atomic_min_u32: return uint64_t{std::min(o, s)};
          case global_atomic_max_u32: return uint64_t{std::max(o, s)};
          case global_atomic_and_b32: return uint64_t{o & s};
          case global_atomic_or_b32: return uint64_t{o | s};
          case global_atomic_xor_b32: return uint64_t{o ^ s};
          case global_atomic_add_f32: return uint64_t{U(F(o) + F(s))};
          case global_atomic_add_u64: return old + (s | (uint64_t{w.vr(u.data0 + 1u)[l]} << 32));
          default: return fail(Errc::kUnsupported, &u, "memory operation not implemented");
        }
      };
      uint64_t old = 0;
      const uint64_t va = addr[l];
      uint32_t* q = nullptr;
      if (va % (wide ? 8 : 4) == 0 && (u.fmt == Format::kGLOBAL || space_of(u, va) == 0)) {
        q = cached_dword(va, true);
        if (q != nullptr && cached_dword(va, false) == nullptr) q = nullptr;
      }
      if (q != nullptr && wide) {
        std::atomic_ref<uint64_t> ref(*reinterpret_cast<uint64_t*>(q));
        old = ref.load(std::memory_order_relaxed);
        for (;;) {
          const uint64_t nv = RG_TRY(apply(old));
          if (ref.compare_exchange_weak(old, nv, std::memory_order_relaxed)) break;
        }
      } else if (q != nullptr) {
        std::atomic_ref<uint32_t> ref(*q);
        uint32_t cur = ref.load(std::memory_order_relaxed);
        for (;;) {
          const uint32_t nv = static_cast<uint32_t>(RG_TRY(apply(cur)));
          if (ref.compare_exchange_weak(cur, nv, std::memory_order_relaxed)) break;
        }
        old = cur;
      } else {
        RG_TRY(load_bytes(u, l, va, &old, wide ? 8 : 4));
        const uint64_t nv = RG_TRY(apply(old));
        RG_TRY(store_bytes(u, l, va, &nv, wide ? 8 : 4));
      }
      if (u.glc && u.dstw) {
        w.vr(u.vdst)[l] = static_cast<uint32_t>(old);
        if (wide) w.vr(u.vdst + 1u)[l] = static_cast<uint32_t>(old >> 32);
      }
    }
    if (u.glc && e.options_.strict_wait) add_pending(w, u, kCntLoad, true, u.vdst, u.dstw);
    return {};
  }

  Status exec_ds(Wave& w, const Uop& u) {
    const uint32_t m = w.exec();
    const uint32_t* a = w.vr(u.addr);
    auto check = [&](unsigned l, uint64_t off, unsigned n) -> Status {
      if (off + n > lds.size()) {
        return fail(Errc::kOutOfRange, &u,
                    strformat("LDS access out of range in lane %u: bytes [%s, +%u) of %zu", l,
                              hex(off).c_str(), n, lds.size()));
      }
      return {};
    };
    const std::string_view mn = u.info->mnemonic;
    const bool two = mn.find("2addr") != std::string_view::npos;
    const unsigned esz = mn.ends_with("b64")    ? 8
                         : mn.ends_with("b128") ? 16
                         : mn.ends_with("b96")  ? 12
                         : mn.ends_with("8")    ? 1
                         : mn.ends_with("16")   ? 2
                                                : 4;
    const unsigned scale = mn.find("stride64") != std::string_view::npos ? 64 * esz : esz;
    if (u.op == ds_swizzle_b32) {
      // offset[15] = 1: quad permute (2 bits per lane of a quad); else bit-mask mode over 32
      // lanes: and [4:0], or [9:5], xor [14:10]. An inactive source lane reads 0.
      const uint32_t off = static_cast<uint32_t>(u.imm) & 0xFFFF;
      std::array<uint32_t, kLanes> out{};
      std::memcpy(out.data(), w.vr(u.vdst), 4 * kLanes);
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!((m >> l) & 1)) continue;
        const unsigned sl = off & 0x8000
                                ? (l & ~3u) + ((off >> (2 * (l & 3))) & 3)
                                : (((l & (off & 31)) | ((off >> 5) & 31)) ^ ((off >> 10) & 31));
        out[l] = (m >> sl) & 1 ? a[sl] : 0;
      }
      std::memcpy(w.vr(u.vdst), out.data(), 4 * kLanes);
      if (e.options_.strict_wait) add_pending(w, u, kCntLds, true, u.vdst, 1);
      return {};
    }
    if (u.op == ds_bpermute_b32 || u.op == ds_permute_b32) {
      std::array<uint32_t, kLanes> src{}, out{};
      std::memcpy(src.data(), w.vr(u.data0), 4 * kLanes);
      std::memcpy(out.data(), w.vr(u.vdst), 4 * kLanes);
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!((m >> l) & 1)) continue;
        const unsigned sel = ((a[l] + static_cast<uint32_t>(u.imm)) >> 2) & 31;
        if (u.op == ds_bpermute_b32)
          out[l] = (m >> sel) & 1 ? src[sel] : 0;
        else
          out[sel] = src[l];
      }
      std::memcpy(w.vr(u.vdst), out.data(), 4 * kLanes);
      if (e.options_.strict_wait) add_pending(w, u, kCntLds, true, u.vdst, 1);
      return {};
    }
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!((m >> l) & 1)) continue;
      if (two) {
        // The LDS address adder is 32 bits wide: LLVM folds a negative base into the offset
        // (ds_load_b32 v4, v2 offset:252 with v2 = -4 * tid) and relies on the wrap.
        const uint64_t o0 = static_cast<uint32_t>(a[l] + static_cast<uint32_t>(u.imm) * scale);
        const uint64_t o1 = static_cast<uint32_t>(a[l] + static_cast<uint32_t>(u.imm1) * scale);
        RG_TRY(check(l, o0, esz));
        RG_TRY(check(l, o1, esz));
        const unsigned nd = esz / 4;
        if (mn.find("load") != std::string_view::npos) {
          for (unsigned k = 0; k < nd; ++k) {
            std::memcpy(&w.vr(u.vdst + k)[l], &lds[o0 + 4 * k], 4);
            std::memcpy(&w.vr(u.vdst + nd + k)[l], &lds[o1 + 4 * k], 4);
          }
        } else {
          for (unsigned k = 0; k < nd; ++k) {
            std::memcpy(&lds[o0 + 4 * k], &w.vr(u.data0 + k)[l], 4);
            std::memcpy(&lds[o1 + 4 * k], &w.vr(u.data1 + k)[l], 4);
          }
        }
        continue;
      }
      const uint64_t off = static_cast<uint32_t>(a[l] + static_cast<uint32_t>(u.imm));
      const unsigned n = u.op == ds_load_u8 || u.op == ds_load_i8 || u.op == ds_store_b8      ? 1
                         : u.op == ds_load_u16 || u.op == ds_load_i16 || u.op == ds_store_b16 ? 2
                                                                                              : esz;
      RG_TRY(check(l, off, n));
      uint8_t* p = &lds[off];
      switch (u.op) {
        case ds_load_b32:
        case ds_load_b64:
        case ds_load_b128:
          for (unsigned k = 0; k < n / 4; ++k) std::memcpy(&w.vr(u.vdst + k)[l], p + 4 * k, 4);
          break;
        case ds_load_u8: w.vr(u.vdst)[l] = p[0]; break;
        case ds_load_i8: w.vr(u.vdst)[l] = static_cast<uint32_t>(static_cast<int8_t>(p[0])); break;
        case ds_load_u16: {
          uint16_t x;
          std::memcpy(&x, p, 2);
          w.vr(u.vdst)[l] = x;
          break;
        }
        case ds_load_i16: {
          int16_t x;
          std::memcpy(&x, p, 2);
          w.vr(u.vdst)[l] = static_cast<uint32_t>(x);
          break;
        }
        case ds_store_b8:
        case ds_store_b16:
        case ds_store_b32:
        case ds_store_b64:
        case ds_store_b128: {
          uint8_t buf[16];
          for (unsigned k = 0; k < (n + 3) / 4; ++k)
            std::memcpy(buf + 4 * k, &w.vr(u.data0 + k)[l], 4);
          std::memcpy(p, buf, n);
          break;
        }
        default: {
          uint32_t o;
          std::memcpy(&o, p, 4);
          const uint32_t s = w.vr(u.data0)[l];
          uint32_t nv;
          switch (u.op) {
            case ds_add_u32:
            case ds_add_rtn_u32: nv = o + s; break;
            case ds_max_i32: nv = static_cast<uint32_t>(std::max<int32_t>(o, s)); break;
            case ds_min_i32: nv = static_cast<uint32_t>(std::min<int32_t>(o, s)); break;
            case ds_max_u32: nv = std::max(o, s); break;
            case ds_min_u32: nv = std::min(o, s); break;
            case ds_add_f32: nv = U(F(o) + F(s)); break;
            default: return fail(Errc::kUnsupported, &u, "LDS operation not implemented");
          }
          std::memcpy(p, &nv, 4);
          if (u.op == ds_add_rtn_u32) w.vr(u.vdst)[l] = o;
        }
      }
    }
    if (u.dstw && e.options_.strict_wait) add_pending(w, u, kCntLds, true, u.vdst, u.dstw);
    return {};
  }

  // ---------------------------------------------------------------- SALU
  Status exec_salu(Wave& w, const Uop& u) {
    // Loop counters and their compares (the same results as the general switch below, without
    // its 64-bit operand views).
    if (u.nsrc == 2) {
      switch (u.op) {
        case s_add_u32:
          if (u.dstw == 1) {
            const uint64_t r = uint64_t{scalar32(w, u, 0)} + scalar32(w, u, 1);
            w.scc = r >> 32;
            write_sgpr(w, u.sdst, static_cast<uint32_t>(r));
            return {};
          }
          break;
        case s_cmp_eq_u32: w.scc = scalar32(w, u, 0) == scalar32(w, u, 1); return {};
        case s_cmp_lg_u32: w.scc = scalar32(w, u, 0) != scalar32(w, u, 1); return {};
        default: break;
      }
    }
    uint32_t a = u.nsrc > 0 ? scalar32(w, u, 0) : 0, b = u.nsrc > 1 ? scalar32(w, u, 1) : 0;
    // MODE.FP_DENORM for the gfx12 SALU float operations (operand types from denorm_types():
    // sources, an fmac's accumulator and fmamk/fmaak's K when the type's allow-input bit is
    // clear; the result when its allow-output bit is).
    const bool ftz_in = u.dn_in && w.mode.flush && !(w.mode.denorm_of(u.dn_in) & 1);
    auto in_f = [&](uint32_t x) { return ftz_in ? ftz_type(x, u.dn_in) : x; };
    if (ftz_in) {
      if (u.dn_srcs & 1) a = ftz_type(a, u.dn_in);
      if (u.dn_srcs & 2) b = ftz_type(b, u.dn_in);
    }
    // 64-bit views only of 64-bit operands (a 32-bit source may be s127).
    const uint64_t A = u.nsrc > 0 && u.srcw[0] == 2 ? scalar64(w, u, 0) : a;
    const uint64_t B = u.nsrc > 1 && u.srcw[1] == 2 ? scalar64(w, u, 1) : b;
    const int32_t ia = static_cast<int32_t>(a), ib = static_cast<int32_t>(b);
    uint32_t d = 0;
    uint64_t D64 = 0;
    bool wide = false, wr = true;
    bool& scc = w.scc;
    auto set64 = [&](uint64_t v) { D64 = v, wide = true; };
    auto saveexec = [&](uint32_t nexec) {
      d = w.s[kExec];
      w.s[kExec] = nexec;
      scc = nexec != 0;
    };
    switch (u.op) {
      case s_add_u32: {
        const uint64_t r = uint64_t{a} + b;
        d = static_cast<uint32_t>(r);
        scc = r >> 32;
        break;
      }
      case s_sub_u32: d = a - b, scc = b > a; break;
      case s_add_i32: d = a + b, scc = ((~(a ^ b)) & (a ^ d)) >> 31; break;
      case s_sub_i32: d = a - b, scc = ((a ^ b) & (a ^ d)) >> 31; break;
      case s_addc_u32: {
        const uint64_t r = uint64_t{a} + b + scc;
        d = static_cast<uint32_t>(r);
        scc = r >> 32;
        break;
      }
      case s_subb_u32: {
        const uint64_t r = uint64_t{a} - b - scc;
        d = static_cast<uint32_t>(r);
        scc = (r >> 32) != 0;
        break;
      }
      case s_absdiff_i32:
        d = static_cast<uint32_t>(std::abs(static_cast<int64_t>(ia) - ib)), scc = d != 0;
        break;
      case s_lshl_b32: d = a << (b & 31), scc = d != 0; break;
      case s_lshr_b32: d = a >> (b & 31), scc = d != 0; break;
      case s_ashr_i32: d = static_cast<uint32_t>(ia >> (b & 31)), scc = d != 0; break;
      case s_lshl_b64: set64(A << (b & 63)), scc = D64 != 0; break;
      case s_lshr_b64: set64(A >> (b & 63)), scc = D64 != 0; break;
      case s_ashr_i64:
        set64(static_cast<uint64_t>(static_cast<int64_t>(A) >> (b & 63))), scc = D64 != 0;
        break;
      case s_lshl1_add_u32:
      case s_lshl2_add_u32:
      case s_lshl3_add_u32:
      case s_lshl4_add_u32: {
        const unsigned sh = u.op - s_lshl1_add_u32 + 1;
        const uint64_t r = (uint64_t{a} << sh) + b;
        d = static_cast<uint32_t>(r), scc = (r >> 32) != 0;
        break;
      }
      case s_min_i32: d = static_cast<uint32_t>(std::min(ia, ib)), scc = ia < ib; break;
      case s_max_i32: d = static_cast<uint32_t>(std::max(ia, ib)), scc = ia > ib; break;
      case s_min_u32: d = std::min(a, b), scc = a < b; break;
      case s_max_u32: d = std::max(a, b), scc = a > b; break;
      case s_and_b32: d = a & b, scc = d != 0; break;
      case s_or_b32: d = a | b, scc = d != 0; break;
      case s_xor_b32: d = a ^ b, scc = d != 0; break;
      case s_nand_b32: d = ~(a & b), scc = d != 0; break;
      case s_nor_b32: d = ~(a | b), scc = d != 0; break;
      case s_xnor_b32: d = ~(a ^ b), scc = d != 0; break;
      case s_and_not1_b32: d = a & ~b, scc = d != 0; break;
      case s_or_not1_b32: d = a | ~b, scc = d != 0; break;
      case s_and_b64: set64(A & B), scc = D64 != 0; break;
      case s_or_b64: set64(A | B), scc = D64 != 0; break;
      case s_xor_b64: set64(A ^ B), scc = D64 != 0; break;
      case s_and_not1_b64: set64(A & ~B), scc = D64 != 0; break;
      case s_or_not1_b64: set64(A | ~B), scc = D64 != 0; break;
      case s_bfe_u32: {
        const unsigned off = b & 31, wd = (b >> 16) & 0x7F;
        d = wd == 0 ? 0 : (a >> off) & (wd >= 32 ? ~0u : (1u << wd) - 1);
        scc = d != 0;
        break;
      }
      case s_bfe_i32: {
        const unsigned off = b & 31, wd = (b >> 16) & 0x7F;
        if (wd == 0) {
          d = 0;
        } else if (wd >= 32) {
          d = static_cast<uint32_t>(ia >> off);
        } else {
          d = static_cast<uint32_t>(static_cast<int32_t>(a << (32 - wd - std::min(off, 32 - wd))) >>
                                    (32 - wd));
          d = static_cast<uint32_t>(static_cast<int32_t>((a >> off) << (32 - wd)) >> (32 - wd));
        }
        scc = d != 0;
        break;
      }
      // 64-bit field extract: offset S1[5:0], width S1[22:16] (LLVM's uniform sext/zext).
      case s_bfe_u64:
      case s_bfe_i64: {
        const unsigned off = b & 63, wd = std::min((b >> 16) & 0x7F, 64u);
        // The i64 form shifts arithmetically (the field's bits above bit 63 are sign copies).
        uint64_t r = wd == 0             ? 0
                     : u.op == s_bfe_i64 ? static_cast<uint64_t>(static_cast<int64_t>(A) >> off)
                                         : A >> off;
        if (wd > 0 && wd < 64) {
          r &= (uint64_t{1} << wd) - 1;
          if (u.op == s_bfe_i64 && ((r >> (wd - 1)) & 1)) r |= ~uint64_t{0} << wd;
        }
        set64(r), scc = D64 != 0;
        break;
      }
      case s_bfm_b32: d = ((1u << (a & 31)) - 1) << (b & 31); break;
      case s_mul_i32: d = a * b; break;
      case s_mul_hi_u32: d = static_cast<uint32_t>((uint64_t{a} * b) >> 32); break;
      case s_mul_hi_i32:
        d = static_cast<uint32_t>(static_cast<uint64_t>(int64_t{ia} * ib) >> 32);
        break;
      case s_mul_u64: set64(A * B); break;
      case s_add_nc_u64: set64(A + B); break;
      case s_sub_nc_u64: set64(A - B); break;
      case s_cselect_b32: d = scc ? a : b; break;
      case s_cselect_b64: set64(scc ? A : B); break;
      case s_pack_ll_b32_b16: d = (a & 0xFFFF) | (b << 16); break;
      case s_pack_lh_b32_b16: d = (a & 0xFFFF) | (b & 0xFFFF0000u); break;
      case s_pack_hh_b32_b16: d = (a >> 16) | (b & 0xFFFF0000u); break;
      case s_pack_hl_b32_b16: d = (a >> 16) | (b << 16); break;
      case s_add_f32: d = U(F(a) + F(b)); break;
      case s_sub_f32: d = U(F(a) - F(b)); break;
      case s_mul_f32: d = U(F(a) * F(b)); break;
      case s_fmac_f32: d = U(std::fma(F(a), F(b), F(in_f(scalar32(w, u, 2))))); break;
      case s_fmamk_f32:
        d = U(std::fma(F(a), F(in_f(static_cast<uint32_t>(u.cval[2]))), F(b)));
        break;
      case s_fmaak_f32:
        d = U(std::fma(F(a), F(b), F(in_f(static_cast<uint32_t>(u.cval[2])))));
        break;
      // gfx12: IEEE-754 2019 minimumNumber/maximumNumber (a quiet NaN operand loses).
      case s_min_num_f32: d = fmax_num(a, b, false); break;
      case s_max_num_f32: d = fmax_num(a, b, true); break;
      case s_mov_b32: d = a; break;
      case s_mov_b64: set64(A); break;
      case s_cmov_b32:
        if (scc)
          d = a;
        else
          wr = false;
        break;
      case s_cmov_b64:
        if (scc)
          set64(A);
        else
          wr = false;
        break;
      case s_not_b32: d = ~a, scc = d != 0; break;
      case s_not_b64: set64(~A), scc = D64 != 0; break;
      case s_brev_b32: {
        uint32_t x = a, r = 0;
        for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1);
        d = r;
        break;
      }
      case s_ctz_i32_b32: d = a == 0 ? ~0u : static_cast<uint32_t>(std::countr_zero(a)); break;
      case s_clz_i32_u32: d = a == 0 ? ~0u : static_cast<uint32_t>(std::countl_zero(a)); break;
      // 64-bit forms and the signed count (LLVM's uniform i64 bitreverse/cttz/ctlz, i8/i16 ctlz).
      case s_brev_b64: {
        uint64_t x = A, r = 0;
        for (int i = 0; i < 64; ++i, x >>= 1) r = (r << 1) | (x & 1);
        set64(r);
        break;
      }
      case s_ctz_i32_b64: d = A == 0 ? ~0u : static_cast<uint32_t>(std::countr_zero(A)); break;
      case s_clz_i32_u64: d = A == 0 ? ~0u : static_cast<uint32_t>(std::countl_zero(A)); break;
      case s_cls_i32:
        d = a == 0 || a == ~0u
                ? ~0u
                : static_cast<uint32_t>(std::countl_zero(static_cast<int32_t>(a) < 0 ? ~a : a));
        break;
      case s_bcnt1_i32_b32: d = static_cast<uint32_t>(std::popcount(a)), scc = d != 0; break;
      case s_bcnt1_i32_b64: d = static_cast<uint32_t>(std::popcount(A)), scc = d != 0; break;
      case s_sext_i32_i8: d = static_cast<uint32_t>(static_cast<int8_t>(a)); break;
      case s_sext_i32_i16: d = static_cast<uint32_t>(static_cast<int16_t>(a)); break;
      case s_bitset0_b32: d = sreg(w, u.sdst) & ~(1u << (a & 31)); break;
      case s_bitset1_b32: d = sreg(w, u.sdst) | (1u << (a & 31)); break;
      case s_abs_i32: d = ia < 0 ? 0u - a : a, scc = d != 0; break;
      case s_and_saveexec_b32: saveexec(a & w.s[kExec]); break;
      case s_or_saveexec_b32: saveexec(a | w.s[kExec]); break;
      case s_xor_saveexec_b32: saveexec(a ^ w.s[kExec]); break;
      case s_and_not1_saveexec_b32: saveexec(a & ~w.s[kExec]); break;
      case s_and_not0_saveexec_b32: saveexec(~a & w.s[kExec]); break;
      case s_or_not1_saveexec_b32: saveexec(a | ~w.s[kExec]); break;
      case s_getpc_b64: set64(u.pc + u.size); break;
      case s_cvt_f32_i32: d = U(static_cast<float>(ia)); break;
      case s_cvt_f32_u32: d = U(static_cast<float>(a)); break;
      case s_cvt_i32_f32: d = static_cast<uint32_t>(sat_cvt<int32_t>(F(a))); break;
      case s_cvt_u32_f32: d = sat_cvt<uint32_t>(F(a)); break;
      case s_trunc_f32: d = U(std::trunc(F(a))); break;
      case s_floor_f32: d = U(std::floor(F(a))); break;
      case s_ceil_f32: d = U(std::ceil(F(a))); break;
      // gfx12 SALU forms of v_minimum/v_maximum_f32 (NaN propagating, −0 < +0) and v_rndne_f32.
      case s_minimum_f32: d = fmaximum(a, b, false); break;
      case s_maximum_f32: d = fmaximum(a, b, true); break;
      case s_rndne_f32: d = U(std::nearbyint(F(a))); break;
      // gfx12 SALU f16: the f16 result in the low half, the high half written 0 (as the
      // pseudo-scalar v_s_*_f16; not hardware-confirmed, LLVM reads the low half only).
      case s_add_f16: d = F2H(double{H2F(a)} + H2F(b)); break;
      case s_sub_f16: d = F2H(double{H2F(a)} - H2F(b)); break;
      case s_mul_f16: d = F2H(double{H2F(a)} * H2F(b)); break;
      case s_fmac_f16: d = fma_f16_once(H2F(a), H2F(b), H2F(in_f(scalar32(w, u, 2)))); break;
      case s_max_num_f16: d = fminmax16(a, b, true, 1); break;
      case s_min_num_f16: d = fminmax16(a, b, false, 1); break;
      case s_maximum_f16: d = fminmax16(a, b, true, 2); break;
      case s_minimum_f16: d = fminmax16(a, b, false, 2); break;
      case s_ceil_f16: d = F2H(std::ceil(H2F(a))); break;
      case s_floor_f16: d = F2H(std::floor(H2F(a))); break;
      case s_trunc_f16: d = F2H(std::trunc(H2F(a))); break;
      case s_rndne_f16: d = F2H(std::nearbyint(H2F(a))); break;
      case s_cvt_f32_f16: d = U(H2F(a)); break;
      case s_cvt_hi_f32_f16: d = U(H2F(a >> 16)); break;
      case s_cvt_f16_f32: d = float_to_half(F(a)); break;
      case s_cmp_lt_f16: scc = H2F(a) < H2F(b), wr = false; break;
      case s_cmp_eq_f16: scc = H2F(a) == H2F(b), wr = false; break;
      case s_cmp_le_f16: scc = H2F(a) <= H2F(b), wr = false; break;
      case s_cmp_gt_f16: scc = H2F(a) > H2F(b), wr = false; break;
      case s_cmp_lg_f16: scc = H2F(a) < H2F(b) || H2F(a) > H2F(b), wr = false; break;
      case s_cmp_ge_f16: scc = H2F(a) >= H2F(b), wr = false; break;
      case s_cmp_o_f16: scc = !std::isnan(H2F(a)) && !std::isnan(H2F(b)), wr = false; break;
      case s_cmp_u_f16: scc = std::isnan(H2F(a)) || std::isnan(H2F(b)), wr = false; break;
      case s_cmp_nge_f16: scc = !(H2F(a) >= H2F(b)), wr = false; break;
      case s_cmp_nlg_f16: scc = !(H2F(a) < H2F(b) || H2F(a) > H2F(b)), wr = false; break;
      case s_cmp_ngt_f16: scc = !(H2F(a) > H2F(b)), wr = false; break;
      case s_cmp_nle_f16: scc = !(H2F(a) <= H2F(b)), wr = false; break;
      case s_cmp_neq_f16: scc = !(H2F(a) == H2F(b)), wr = false; break;
      case s_cmp_nlt_f16: scc = !(H2F(a) < H2F(b)), wr = false; break;
      // ---- emudev block (issue 9 wiring): GFX12 SALU f32 compares (n*: true if unordered) ----
      case s_cmp_lt_f32: scc = F(a) < F(b), wr = false; break;
      case s_cmp_eq_f32: scc = F(a) == F(b), wr = false; break;
      case s_cmp_le_f32: scc = F(a) <= F(b), wr = false; break;
      case s_cmp_gt_f32: scc = F(a) > F(b), wr = false; break;
      case s_cmp_lg_f32: scc = F(a) < F(b) || F(a) > F(b), wr = false; break;
      case s_cmp_ge_f32: scc = F(a) >= F(b), wr = false; break;
      case s_cmp_o_f32: scc = !std::isnan(F(a)) && !std::isnan(F(b)), wr = false; break;
      case s_cmp_u_f32: scc = std::isnan(F(a)) || std::isnan(F(b)), wr = false; break;
      case s_cmp_nge_f32: scc = !(F(a) >= F(b)), wr = false; break;
      case s_cmp_nlg_f32: scc = !(F(a) < F(b) || F(a) > F(b)), wr = false; break;
      case s_cmp_ngt_f32: scc = !(F(a) > F(b)), wr = false; break;
      case s_cmp_nle_f32: scc = !(F(a) <= F(b)), wr = false; break;
      case s_cmp_neq_f32: scc = !(F(a) == F(b)), wr = false; break;
      case s_cmp_nlt_f32: scc = !(F(a) < F(b)), wr = false; break;
      // ---- end of emudev block ----
      case s_cmp_eq_i32:
      case s_cmp_eq_u32: scc = a == b, wr = false; break;
      case s_cmp_lg_i32:
      case s_cmp_lg_u32: scc = a != b, wr = false; break;
      case s_cmp_gt_i32: scc = ia > ib, wr = false; break;
      case s_cmp_ge_i32: scc = ia >= ib, wr = false; break;
      case s_cmp_lt_i32: scc = ia < ib, wr = false; break;
      case s_cmp_le_i32: scc = ia <= ib, wr = false; break;
      case s_cmp_gt_u32: scc = a > b, wr = false; break;
      case s_cmp_ge_u32: scc = a >= b, wr = false; break;
      case s_cmp_lt_u32: scc = a < b, wr = false; break;
      case s_cmp_le_u32: scc = a <= b, wr = false; break;
      case s_cmp_eq_u64: scc = A == B, wr = false; break;
      case s_cmp_lg_u64: scc = A != B, wr = false; break;
      case s_bitcmp0_b32: scc = !((a >> (b & 31)) & 1), wr = false; break;
      case s_bitcmp1_b32: scc = (a >> (b & 31)) & 1, wr = false; break;
      // SOPK
      case s_movk_i32: d = static_cast<uint32_t>(u.imm); break;
      case s_cmovk_i32:
        if (scc)
          d = static_cast<uint32_t>(u.imm);
        else
          wr = false;
        break;
      case s_addk_i32: {
        const uint32_t x = sreg(w, u.sdst), k = static_cast<uint32_t>(u.imm);
        d = x + k, scc = ((~(x ^ k)) & (x ^ d)) >> 31;
        break;
      }
      case s_mulk_i32: d = sreg(w, u.sdst) * static_cast<uint32_t>(u.imm); break;
      case s_cmpk_eq_i32: scc = static_cast<int32_t>(sreg(w, u.sdst)) == u.imm, wr = false; break;
      case s_cmpk_lg_i32: scc = static_cast<int32_t>(sreg(w, u.sdst)) != u.imm, wr = false; break;
      case s_cmpk_gt_i32: scc = static_cast<int32_t>(sreg(w, u.sdst)) > u.imm, wr = false; break;
      case s_cmpk_ge_i32: scc = static_cast<int32_t>(sreg(w, u.sdst)) >= u.imm, wr = false; break;
      case s_cmpk_lt_i32: scc = static_cast<int32_t>(sreg(w, u.sdst)) < u.imm, wr = false; break;
      case s_cmpk_le_i32: scc = static_cast<int32_t>(sreg(w, u.sdst)) <= u.imm, wr = false; break;
      case s_cmpk_eq_u32:
        scc = sreg(w, u.sdst) == (static_cast<uint32_t>(u.imm) & 0xFFFF), wr = false;
        break;
      case s_cmpk_lg_u32:
        scc = sreg(w, u.sdst) != (static_cast<uint32_t>(u.imm) & 0xFFFF), wr = false;
        break;
      case s_cmpk_gt_u32:
        scc = sreg(w, u.sdst) > (static_cast<uint32_t>(u.imm) & 0xFFFF), wr = false;
        break;
      case s_cmpk_ge_u32:
        scc = sreg(w, u.sdst) >= (static_cast<uint32_t>(u.imm) & 0xFFFF), wr = false;
        break;
      case s_cmpk_lt_u32:
        scc = sreg(w, u.sdst) < (static_cast<uint32_t>(u.imm) & 0xFFFF), wr = false;
        break;
      case s_cmpk_le_u32:
        scc = sreg(w, u.sdst) <= (static_cast<uint32_t>(u.imm) & 0xFFFF), wr = false;
        break;
      case s_version: wr = false; break;
      case s_barrier_signal:
      case s_barrier_signal_isfirst:
        RG_TRY(barrier_signal(w, u, a));
        wr = false;
        break;
      case s_getreg_b32:
      case s_setreg_b32:
      case s_setreg_imm32_b32: {
        const unsigned id = u.imm & 0x3F, off = (u.imm >> 6) & 0x1F,
                       size = ((u.imm >> 11) & 0x1F) + 1;
        if (id != 1)
          return fail(Errc::kUnsupported, &u,
                      strformat("hardware register %u not implemented", id));
        const uint32_t mask = (size >= 32 ? ~0u : (1u << size) - 1) << off;
        if (u.op == s_getreg_b32) {
          d = (w.mode.raw() & mask) >> off;
        } else {
          const uint32_t v =
              u.op == s_setreg_imm32_b32 ? static_cast<uint32_t>(u.cval[0]) : sreg(w, u.sdst);
          w.mode.set((w.mode.raw() & ~mask) | ((v << off) & mask));
          wr = false;
        }
        break;
      }
      default: return fail(Errc::kUnsupported, &u, "scalar operation not implemented");
    }
    if (u.dn_out && w.mode.flush && !(w.mode.denorm_of(u.dn_out) & 2)) d = ftz_type(d, u.dn_out);
    if (wr && u.dstw) {
      if (wide || u.dstw == 2) {
        if (!wide) D64 = d;
        write_sgpr(w, u.sdst, static_cast<uint32_t>(D64));
        write_sgpr(w, u.sdst + 1u, static_cast<uint32_t>(D64 >> 32));
      } else {
        write_sgpr(w, u.sdst, d);
      }
    }
    return {};
  }

  // GFX12 split barrier (issue 9 item 4). s_barrier_signal(_isfirst) -1 records the wave's
  // arrival in the current phase and the wave runs on; s_barrier_wait -1 blocks it until every
  // live wave of the workgroup has signaled (ended waves do not hold the release back).
  // _isfirst sets SCC in the first wave to signal in a phase. Only the workgroup barrier (-1)
  // is modelled; a second signal before the phase completed is an error.
  std::vector<Wave>* group_waves = nullptr;  // the waves of the running workgroup
  bool split_first_taken = false;            // a wave already signaled in the current phase
  Status barrier_signal(Wave& w, const Uop& u, uint32_t id) {
    if (static_cast<int32_t>(id) != -1)
      return fail(Errc::kUnsupported, &u,
                  strformat("barrier id %d not implemented (only the workgroup barrier, -1)",
                            static_cast<int32_t>(id)));
    if (w.bar == kBarSignaled)
      return fail(Errc::kHardware, &u,
                  "second s_barrier_signal in one barrier phase (no s_barrier_wait between)");
    // "First" is per phase, so a wave that signaled and then ended still took it.
    if (u.op == s_barrier_signal_isfirst) w.scc = !split_first_taken;
    split_first_taken = true;
    w.bar = kBarSignaled;
    if (release_split(*group_waves)) split_first_taken = false;
    return {};
  }
  // Completes the phase when every live wave has signaled: waves blocked in s_barrier_wait
  // resume, the others pass their next s_barrier_wait. True when the phase completed.
  static bool release_split(std::vector<Wave>& waves) {
    bool any = false;
    for (const Wave& x : waves) {
      if (x.done) continue;
      if (x.bar != kBarSignaled) return false;
      any = true;
    }
    if (!any) return false;
    for (Wave& x : waves) {
      x.bar = x.at_barrier || x.done ? kBarNone : kBarReleased;
      x.at_barrier = false;
    }
    return true;
  }

  // ---------------------------------------------------------------- VALU
  template <class T>
  static bool cmp_cond(unsigned c, T a, T b) {
    const bool un = std::isunordered(a, b);
    switch (c) {
      case kF: return false;
      case kLt: return a < b;
      case kEq: return a == b;
      case kLe: return a <= b;
      case kGt: return a > b;
      case kLg: return std::is_floating_point_v<T> ? (a < b || a > b) : a != b;
      case kGe: return a >= b;
      case kO: return !un;
      case kU: return un;
      case kNge: return !(a >= b);
      case kNlg: return !(a < b || a > b);
      case kNgt: return !(a > b);
      case kNle: return !(a <= b);
      case kNeq: return !(a == b);
      case kNlt: return !(a < b);
      default: return true;
    }
  }

  Status exec_cmp(Wave& w, const Uop& u) {
    const unsigned c = (u.op >> 4) & 0x1F, t = u.op & 0xF;
    const bool x = (u.op >> 12) & 1;
    uint32_t mask = 0;
    const uint32_t m = w.exec();
    if (t == kF64 || t == kI64 || t == kU64) {
      uint64_t a[kLanes], b[kLanes] = {};
      read64(w, u, 0, a);
      if (c == kClass) {
        uint32_t bb[kLanes];
        read32(w, u, 1, bb);
        for (unsigned l = 0; l < kLanes; ++l) b[l] = bb[l];
      } else
        read64(w, u, 1, b);
      for (unsigned l = 0; l < kLanes; ++l) {
        bool r;
        if (c == kClass) {
          const double v = D(a[l]);
          const bool snan = std::isnan(v) && !((a[l] >> 51) & 1);
          r = (fp_class_mask(v, snan, std::numeric_limits<double>::min()) & b[l]) != 0;
        } else if (t == kF64)
          r = cmp_cond(c, D(a[l]), D(b[l]));
        else if (t == kI64)
          r = cmp_cond(c, static_cast<int64_t>(a[l]), static_cast<int64_t>(b[l]));
        else
          r = cmp_cond(c, a[l], b[l]);
        mask |= uint32_t{r} << l;
      }
    } else {
      uint32_t a[kLanes], b[kLanes];
      read32(w, u, 0, a);
      read32(w, u, 1, b);
      for (unsigned l = 0; l < kLanes; ++l) {
        bool r;
        switch (t) {
          case kF32:
            if (c == kClass)
              r = (fp_class_mask(F(a[l]), is_snan32(a[l]), std::numeric_limits<float>::min()) &
                   b[l]) != 0;
            else
              r = cmp_cond(c, F(a[l]), F(b[l]));
            break;
          case kF16: {
            const uint16_t ha = static_cast<uint16_t>(a[l]);
            const float fa = half_to_float(ha);
            if (c == kClass)
              r = (fp_class_mask(fa, (ha & 0x7E00) == 0x7C00 && (ha & 0x3FF), 0x1p-14) & b[l]) != 0;
            else
              r = cmp_cond(c, fa, half_to_float(static_cast<uint16_t>(b[l])));
            break;
          }
          case kI32: r = cmp_cond(c, static_cast<int32_t>(a[l]), static_cast<int32_t>(b[l])); break;
          case kU32: r = cmp_cond(c, a[l], b[l]); break;
          case kI16: r = cmp_cond(c, static_cast<int16_t>(a[l]), static_cast<int16_t>(b[l])); break;
          default: r = cmp_cond(c, static_cast<uint16_t>(a[l]), static_cast<uint16_t>(b[l])); break;
        }
        mask |= uint32_t{r} << l;
      }
    }
    mask &= m;
    if (x) {
      w.s[kExec] = mask;
    } else {
      write_sgpr(w, u.e64 ? u.sdst : kVcc, mask);
    }
    return {};
  }

  static float apply_omod(float r, unsigned omod) {
    return omod == 1 ? r * 2.0f : omod == 2 ? r * 4.0f : omod == 3 ? r * 0.5f : r;
  }

  // DPP16 / DPP8 (issue 9 item 3). src0 of lane l is read from lane src(l) of its row (16
  // lanes) or octet (DPP8). An invalid source (outside the row for row_shl/row_shr, or an
  // inactive lane without FI) reads 0 with BOUND_CTRL, otherwise the lane is not written;
  // ROW_MASK[row] and BANK_MASK[(l % 16) / 4] clear disable writes too.
  Status exec_dpp(Wave& w, const Uop& u) {
    const uint32_t exec = w.exec(), d = u.dppw;
    // DPP needs a VGPR src0 inside the allocation (an operation without sources, or an undecoded
    // one, can still carry a DPP control word).
    if (u.nsrc == 0 || u.kind[0] != kSrcVgpr || u.src[0] < 256 ||
        size_t{u.src[0] - 256u + 1u} * kLanes > w.v.size())
      return fail(Errc::kUnsupported, &u, "DPP without a VGPR src0 in the allocation");
    const uint32_t* v = w.vr(u.src[0] - 256);
    alignas(64) uint32_t src[kLanes];
    uint32_t enable = 0;
    for (unsigned l = 0; l < kLanes; ++l) {
      int sl = -1;
      bool fi, bound;
      if (u.dpp == 8) {
        sl = static_cast<int>((l & ~7u) + ((d >> (8 + 3 * (l & 7))) & 7));
        fi = d & 1, bound = true;  // DPP8: an inactive source reads 0 unless FI
      } else {
        const unsigned ctrl = (d >> 8) & 0x1FF, row = l & ~15u, r = l & 15;
        fi = (d >> 18) & 1, bound = (d >> 19) & 1;
        if (ctrl <= 0xFF) {
          sl = static_cast<int>((l & ~3u) + ((ctrl >> (2 * (l & 3))) & 3));
        } else if (ctrl >= 0x101 && ctrl <= 0x10F) {  // row_shl
          const unsigned n = ctrl & 15;
          sl = r + n < 16 ? static_cast<int>(l + n) : -1;
        } else if (ctrl >= 0x111 && ctrl <= 0x11F) {  // row_shr
          const unsigned n = ctrl & 15;
          sl = r >= n ? static_cast<int>(l - n) : -1;
        } else if (ctrl >= 0x121 && ctrl <= 0x12F) {  // row_ror
          sl = static_cast<int>(row + ((r + 16 - (ctrl & 15)) & 15));
        } else if (ctrl == 0x140) {  // row_mirror
          sl = static_cast<int>(row + 15 - r);
        } else if (ctrl == 0x141) {  // row_half_mirror
          sl = static_cast<int>((l & ~7u) + 7 - (l & 7));
        } else if (ctrl >= 0x150 && ctrl <= 0x15F) {  // row_share
          sl = static_cast<int>(row + (ctrl & 15));
        } else if (ctrl >= 0x160 && ctrl <= 0x16F) {  // row_xmask
          sl = static_cast<int>(row + (r ^ (ctrl & 15)));
        } else {
          return fail(Errc::kUnsupported, &u, strformat("DPP control 0x%x not supported", ctrl));
        }
        const bool row_on = (d >> (28 + l / 16)) & 1, bank_on = (d >> (24 + r / 4)) & 1;
        if (!row_on || !bank_on) {
          src[l] = 0;
          continue;
        }
      }
      const bool valid = sl >= 0 && (fi || ((exec >> sl) & 1));
      if (valid) {
        src[l] = v[sl];
        enable |= 1u << l;
      } else if (bound) {
        src[l] = 0;
        enable |= 1u << l;
      } else {
        src[l] = 0;
      }
    }
    dpp_src = src;
    w.s[kExec] = exec & enable;
    Status st = exec_valu(w, u);
    dpp_src = nullptr;
    const bool cmpx = (u.op & kCmp) && (u.op & (1u << 12));
    if (!cmpx) w.s[kExec] = exec;
    return st;
  }

  // WMMA 16×16×16 (issue 9 item 4): D = A × B + C for one wave32, f16/bf16 inputs, f32 or
  // f16/bf16 accumulators. Register layouts (lane l, g = l / 16, element i of a lane's
  // consecutive 16-bit halves, VGPR v of the accumulator):
  //   gfx1100 (AMD GPUOpen "How to accelerate AI applications on RDNA 3 using WMMA"):
  //     A[m = l % 16][k = i], B[k = i][n = l % 16], i < 16 (8 VGPRs); lanes 16–31 must repeat
  //     lanes 0–15. C/D[m = 2v + g][n = l % 16], v < 8; f16/bf16 C/D use the low half of each
  //     VGPR, or the high half with OPSEL[2].
  //   gfx1201 (RDNA4 ISA guide, WMMA operand layout): A[m = l % 16][k], B[k][n = l % 16] with
  //     k = 8 (i / 4) + 4 g + i % 4, i < 8 (4 VGPRs). C/D[m = 8g + v][n = l % 16], v < 8; f16/bf16
  //     C/D pack elements v = 2j, 2j + 1 in VGPR j (4 VGPRs).
  // Products of f16/bf16 values are exact in double; the k sum and C are added in double and
  // rounded once to the accumulator type (hardware rounding of partial sums is not modelled).
  // RDNA3 WMMA reads its A/B operands replicated in both half-waves (strict mode checks it):
  // lanes 16-31 of the `nregs` VGPRs from a0 and b0 must equal lanes 0-15.
  Status wmma_replicated(Wave& w, const Uop& u, unsigned a0, unsigned b0, unsigned nregs) {
    for (unsigned r = 0; r < nregs; ++r)
      for (unsigned l = 0; l < 16; ++l)
        if (w.vr(a0 + r)[l] != w.vr(a0 + r)[l + 16] || w.vr(b0 + r)[l] != w.vr(b0 + r)[l + 16])
          return fail(Errc::kHardware, &u,
                      strformat("WMMA A/B lane %u differs from lane %u in VGPR %u (gfx1100 "
                                "needs operands replicated across half-waves)",
                                l + 16, l, r));
    return {};
  }

  Status exec_wmma(Wave& w, const Uop& u) {
    const std::string_view m = u.info->mnemonic;
    const bool in_bf16 = m.ends_with("_bf16");
    const int acc = m.starts_with("v_wmma_f32") ? 32 : m.starts_with("v_wmma_f16") ? 16 : 17;
    if (!(m.ends_with("_f16") || m.ends_with("_bf16")))
      return fail(Errc::kUnsupported, &u, "WMMA type not implemented");
    if (u.kind[0] != kSrcVgpr || u.kind[1] != kSrcVgpr)
      return fail(Errc::kUnsupported, &u, "WMMA A/B must be VGPRs");
    if (u.kind[2] != kSrcVgpr && !(u.kind[2] == kSrcConst && u.cval[2] == 0))
      return fail(Errc::kUnsupported, &u, "WMMA C other than VGPRs or 0 not implemented");
    auto half_of = [&](unsigned base, unsigned lane, unsigned idx) -> double {
      const uint32_t word = w.vr(base + idx / 2)[lane];
      const uint16_t h = static_cast<uint16_t>(idx % 2 ? word >> 16 : word);
      return in_bf16 ? static_cast<double>(F(uint32_t{h} << 16))
                     : static_cast<double>(half_to_float(h));
    };
    const unsigned a0 = u.src[0] - 256, b0 = u.src[1] - 256;
    double A[16][16], B[16][16], C[16][16] = {};
    if (!g12) {
      for (unsigned l = 0; l < 16; ++l)
        for (unsigned i = 0; i < 16; ++i) A[l][i] = half_of(a0, l, i), B[i][l] = half_of(b0, l, i);
      if (e.options_.strict_wait) RG_TRY(wmma_replicated(w, u, a0, b0, 8));
    } else {
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned i = 0; i < 8; ++i) {
          const unsigned k = 8 * (i / 4) + 4 * (l / 16) + i % 4;
          A[l % 16][k] = half_of(a0, l, i), B[k][l % 16] = half_of(b0, l, i);
        }
    }
    auto acc_at = [&](unsigned l, unsigned v) -> std::pair<unsigned, unsigned> {  // (vgpr, half)
      if (acc == 32) return {v, 0};
      if (!g12) return {v, (u.opsel >> 2) & 1};
      return {v / 2, v % 2};
      (void)l;
    };
    auto row_of = [&](unsigned l, unsigned v) { return g12 ? 8 * (l / 16) + v : 2 * v + l / 16; };
    if (u.kind[2] == kSrcVgpr) {
      const unsigned c0 = u.src[2] - 256;
      for (unsigned l = 0; l < 32; ++l)
        for (unsigned v = 0; v < 8; ++v) {
          const auto [reg, hi] = acc_at(l, v);
          const uint32_t word = w.vr(c0 + reg)[l];
          const uint16_t h = static_cast<uint16_t>(hi ? word >> 16 : word);
          C[row_of(l, v)][l % 16] = acc == 32   ? static_cast<double>(F(word))
                                    : acc == 16 ? static_cast<double>(half_to_float(h))
                                                : static_cast<double>(F(uint32_t{h} << 16));
        }
    }
    std::array<uint32_t, 8 * kLanes> out{};
    const unsigned dregs = acc == 32 || !g12 ? 8 : 4;
    for (unsigned r = 0; r < dregs; ++r)
      std::memcpy(&out[r * kLanes], w.vr(u.vdst + r), 4 * kLanes);
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned v = 0; v < 8; ++v) {
        const unsigned mm = row_of(l, v), n = l % 16;
        double sum = 0;
        for (unsigned k = 0; k < 16; ++k) sum += A[mm][k] * B[k][n];
        sum += C[mm][n];
        const auto [reg, hi] = acc_at(l, v);
        uint32_t& word = out[reg * kLanes + l];
        if (acc == 32) {
          word = U(static_cast<float>(sum));
          continue;
        }
        uint32_t h;
        if (acc == 16) {
          h = float_to_half(static_cast<float>(sum));  // (double → f32 → f16: exact sums only)
        } else {
          const uint32_t x = U(static_cast<float>(sum));
          h = std::isnan(static_cast<float>(sum)) ? (x >> 16) | 0x40
                                                  : (x + 0x7FFF + ((x >> 16) & 1)) >> 16;
        }
        word = hi ? (word & 0xFFFF) | (h << 16) : (word & 0xFFFF0000u) | (h & 0xFFFF);
      }
    for (unsigned r = 0; r < dregs; ++r)
      std::memcpy(w.vr(u.vdst + r), &out[r * kLanes], 4 * kLanes);
    return {};
  }

  // v_wmma_i32_16x16x16_iu8: D = A × B + C over 8-bit integers, i32 accumulators. NEG_LO[0] /
  // NEG_LO[1] make A / B signed (else unsigned); CLAMP saturates the i32 result (else it
  // wraps). Byte i of lane l (g = l / 16) holds A[m = l % 16][k] and B[k][n = l % 16], byte i in
  // VGPR i / 4: gfx1100 k = i (16 bytes, 4 VGPRs, lanes 16–31 repeat lanes 0–15); gfx1201
  // k = 8 (i / 4) + 4 g + i % 4 (8 bytes, 2 VGPRs; the 16-bit layout applied to bytes, not
  // hardware-confirmed). C/D: as the f32 WMMA (row 2v + g on gfx1100, 8g + v on gfx1201).
  Status exec_wmma_iu8(Wave& w, const Uop& u) {
    if (u.kind[0] != kSrcVgpr || u.kind[1] != kSrcVgpr)
      return fail(Errc::kUnsupported, &u, "WMMA A/B must be VGPRs");
    if (u.kind[2] != kSrcVgpr && !(u.kind[2] == kSrcConst && u.cval[2] == 0))
      return fail(Errc::kUnsupported, &u, "WMMA C other than VGPRs or 0 not implemented");
    const bool sa = u.neg & 1, sb = (u.neg >> 1) & 1;
    const unsigned a0 = u.src[0] - 256, b0 = u.src[1] - 256, nbytes = g12 ? 8 : 16;
    auto byte_of = [&](unsigned base, unsigned lane, unsigned i, bool sgn) -> int64_t {
      const uint8_t b = static_cast<uint8_t>(w.vr(base + i / 4)[lane] >> (8 * (i % 4)));
      return sgn ? static_cast<int64_t>(static_cast<int8_t>(b)) : static_cast<int64_t>(b);
    };
    if (!g12 && e.options_.strict_wait) RG_TRY(wmma_replicated(w, u, a0, b0, 4));
    int64_t A[16][16] = {}, B[16][16] = {};
    for (unsigned l = 0; l < (g12 ? 32u : 16u); ++l)
      for (unsigned i = 0; i < nbytes; ++i) {
        const unsigned k = g12 ? 8 * (i / 4) + 4 * (l / 16) + i % 4 : i;
        A[l % 16][k] = byte_of(a0, l, i, sa), B[k][l % 16] = byte_of(b0, l, i, sb);
      }
    auto row_of = [&](unsigned l, unsigned v) { return g12 ? 8 * (l / 16) + v : 2 * v + l / 16; };
    std::array<uint32_t, 8 * kLanes> out{};
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned v = 0; v < 8; ++v) {
        const unsigned mm = row_of(l, v), n = l % 16;
        int64_t sum = u.kind[2] == kSrcVgpr
                          ? static_cast<int64_t>(static_cast<int32_t>(w.vr(u.src[2] - 256 + v)[l]))
                          : 0;
        for (unsigned k = 0; k < 16; ++k) sum += A[mm][k] * B[k][n];
        if (u.clamp) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
        out[v * kLanes + l] = static_cast<uint32_t>(sum);
      }
    for (unsigned r = 0; r < 8; ++r) std::memcpy(w.vr(u.vdst + r), &out[r * kLanes], 4 * kLanes);
    return {};
  }

  // Data-type families (issue 9 item 1): f16 math, 16-bit and packed integers, f64 division,
  // rounding and frexp. Returns what was produced: a 32-bit result in R, a 64-bit one in QR, or
  // kWritten when the operation wrote its own destinations; kNo when the op is not one of these.
  enum class Done : uint8_t { kNo, k32, k64, kWritten };
  Result<Done> exec_valu_types(Wave& w, const Uop& u, const uint32_t* A, const uint32_t* B,
                               const uint32_t* C, const uint64_t* QA, const uint64_t* QB,
                               const uint64_t* QC, uint32_t* R, uint64_t* QR) {
    const uint32_t K = static_cast<uint32_t>(u.cval[2]);
    const bool ieee = w.mode.ieee && !g12;
#define L32(expr)                                \
  for (unsigned l = 0; l < kLanes; ++l) {        \
    const uint32_t a = A[l], b = B[l], c = C[l]; \
    (void)a, (void)b, (void)c;                   \
    R[l] = (expr);                               \
  }                                              \
  return Done::k32;
#define L64(expr)                                   \
  for (unsigned l = 0; l < kLanes; ++l) {           \
    const uint64_t a = QA[l], b = QB[l], c = QC[l]; \
    (void)a, (void)b, (void)c;                      \
    QR[l] = (expr);                                 \
  }                                                 \
  return Done::k64;
    auto s16 = [](uint32_t x) { return static_cast<int16_t>(x); };
    auto u16 = [](uint32_t x) { return static_cast<uint16_t>(x); };
    auto ff = [](uint32_t x) { return static_cast<double>(H2F(x)); };
    switch (u.op) {
      // f16
      case v_subrev_f16: L32(F2H(ff(b) - ff(a)))
      case v_sqrt_f16: L32(F2H(std::sqrt(ff(a))))
      case v_rcp_f16: L32(F2H(1.0 / ff(a)))
      case v_rsq_f16: L32(F2H(1.0 / std::sqrt(ff(a))))
      case v_log_f16: L32(F2H(std::log2(ff(a))))
      case v_exp_f16: L32(F2H(std::exp2(ff(a))))
      case v_sin_f16: L32(F2H(std::sin(2.0 * M_PI * (ff(a) - std::floor(ff(a))))))
      case v_cos_f16: L32(F2H(std::cos(2.0 * M_PI * (ff(a) - std::floor(ff(a))))))
      case v_floor_f16: L32(F2H(std::floor(ff(a))))
      case v_ceil_f16: L32(F2H(std::ceil(ff(a))))
      case v_trunc_f16: L32(F2H(std::trunc(ff(a))))
      case v_rndne_f16: L32(F2H(std::nearbyint(ff(a))))
      case v_fract_f16: L32(F2H(fract_of(ff(a), 0x1.ffcp-1)))
      case v_frexp_mant_f16:
        L32(std::isfinite(ff(a)) ? F2H([](double x) {
          int e;
          return std::frexp(x, &e);
        }(ff(a)))
                                 : (a & 0xFFFF))
      case v_frexp_exp_i16_f16: L32(static_cast<uint16_t>(frexp_exp(H2F(a))))
      case v_ldexp_f16: L32(F2H(std::ldexp(ff(a), std::clamp<int>(s16(b), -100, 100))))
      case v_div_fixup_f16: L32(div_fixup_f16(a, b, c))
      case v_fmamk_f16: L32(F2H(std::fma(ff(a), ff(K), ff(b))))
      case v_fmaak_f16: L32(F2H(std::fma(ff(a), ff(b), ff(K))))
      case v_max_num_f16: L32(fminmax16(a, b, true, 1))
      case v_min_num_f16: L32(fminmax16(a, b, false, 1))
      case v_maximum_f16: L32(fminmax16(a, b, true, 2))
      case v_minimum_f16: L32(fminmax16(a, b, false, 2))
      case v_max3_f16:
      case v_max3_num_f16: {
        const int k = u.op == v_max3_f16 && ieee ? 0 : 1;
        L32(fminmax16(fminmax16(a, b, true, k), c, true, k))
      }
      case v_min3_f16:
      case v_min3_num_f16: {
        const int k = u.op == v_min3_f16 && ieee ? 0 : 1;
        L32(fminmax16(fminmax16(a, b, false, k), c, false, k))
      }
      case v_med3_f16:
      case v_med3_num_f16: {  // any NaN source: min3 of the same kind (ISA pseudocode)
        const int k = u.op == v_med3_f16 && ieee ? 0 : 1;
        L32(is_nan16(a) || is_nan16(b) || is_nan16(c)
                ? fminmax16(fminmax16(a, b, false, k), c, false, k)
                : fminmax16(fminmax16(a, b, false, k),
                            fminmax16(fminmax16(a, b, true, k), c, false, k), true, k))
      }
      // Two-step min/max (LLVM's clamp and min/max chains): maxmin = min(max(S0, S1), S2),
      // minmax = max(min(S0, S1), S2). gfx11 forms follow MODE.IEEE like v_max/min_*, gfx12
      // `_num` forms maximumNumber, `maximumminimum` & co. and `maximum3` propagate NaN.
      case v_maxmin_f32: {
        const bool ie = ieee;
        L32(ie ? fmax_ieee(fmax_ieee(a, b, true), c, false)
               : fmax_num(fmax_num(a, b, true), c, false))
      }
      case v_minmax_f32: {
        const bool ie = ieee;
        L32(ie ? fmax_ieee(fmax_ieee(a, b, false), c, true)
               : fmax_num(fmax_num(a, b, false), c, true))
      }
      case v_maxmin_num_f32: L32(fmax_num(fmax_num(a, b, true), c, false))
      case v_minmax_num_f32: L32(fmax_num(fmax_num(a, b, false), c, true))
      case v_maximumminimum_f32: L32(fmaximum(fmaximum(a, b, true), c, false))
      case v_minimummaximum_f32: L32(fmaximum(fmaximum(a, b, false), c, true))
      case v_maximum3_f32: L32(fmaximum(fmaximum(a, b, true), c, true))
      case v_minimum3_f32: L32(fmaximum(fmaximum(a, b, false), c, false))
      case v_med3_num_f32:  // any NaN source: v_min3_num_f32 (ISA pseudocode)
        L32(std::isnan(F(a)) || std::isnan(F(b)) || std::isnan(F(c))
                ? fmax_num(fmax_num(a, b, false), c, false)
                : fmax_num(fmax_num(a, b, false), fmax_num(fmax_num(a, b, true), c, false), true))
      case v_maxmin_f16:
      case v_maxmin_num_f16: {
        const int k = u.op == v_maxmin_f16 && ieee ? 0 : 1;
        L32(fminmax16(fminmax16(a, b, true, k), c, false, k))
      }
      case v_minmax_f16:
      case v_minmax_num_f16: {
        const int k = u.op == v_minmax_f16 && ieee ? 0 : 1;
        L32(fminmax16(fminmax16(a, b, false, k), c, true, k))
      }
      case v_maximumminimum_f16: L32(fminmax16(fminmax16(a, b, true, 2), c, false, 2))
      case v_minimummaximum_f16: L32(fminmax16(fminmax16(a, b, false, 2), c, true, 2))
      case v_maximum3_f16: L32(fminmax16(fminmax16(a, b, true, 2), c, true, 2))
      case v_minimum3_f16: L32(fminmax16(fminmax16(a, b, false, 2), c, false, 2))
      case v_maxmin_u32: L32(std::min(std::max(a, b), c))
      case v_minmax_u32: L32(std::max(std::min(a, b), c))
      case v_maxmin_i32:
        L32(static_cast<uint32_t>(std::min(
            std::max(static_cast<int32_t>(a), static_cast<int32_t>(b)), static_cast<int32_t>(c))))
      case v_minmax_i32:
        L32(static_cast<uint32_t>(std::max(
            std::min(static_cast<int32_t>(a), static_cast<int32_t>(b)), static_cast<int32_t>(c))))
      case v_cvt_i16_f16: L32(static_cast<uint16_t>(sat_cvt<int16_t>(H2F(a))))
      case v_cvt_u16_f16: L32(sat_cvt<uint16_t>(H2F(a)))
      case v_cvt_f16_i16: L32(F2H(s16(a)))
      case v_cvt_f16_u16: L32(F2H(u16(a)))
      case v_cvt_i32_i16: L32(static_cast<uint32_t>(int32_t{s16(a)}))
      case v_cvt_u32_u16: L32(u16(a))
      case v_cvt_pk_rtz_f16_f32:
        L32([](float x, float y) {
          auto rtz = [](float f) {  // round toward zero: step back if RNE rounded away
            const uint16_t h = float_to_half(f);
            if (std::isnan(f) || std::isinf(f)) return h;
            const float back = half_to_float(h);
            if (std::isinf(back)) return static_cast<uint16_t>((h & 0x8000) | 0x7BFF);
            if (std::fabs(back) <= std::fabs(f)) return h;
            return static_cast<uint16_t>(h - 1);
          };
          return uint32_t{rtz(x)} | uint32_t{rtz(y)} << 16;
        }(F(a), F(b)))
      case v_pack_b32_f16: L32((a & 0xFFFF) | (b << 16))
      case v_cvt_floor_i32_f32: L32(static_cast<uint32_t>(sat_cvt<int32_t>(std::floor(F(a)))))
      case v_cvt_nearest_i32_f32:
        L32(static_cast<uint32_t>(sat_cvt<int32_t>(std::floor(static_cast<double>(F(a)) + 0.5))))
      case v_fma_mix_f32:
      case v_fma_mixlo_f16:
      case v_fma_mixhi_f16: {
        // opsel_hi[i] = 0: source i is f32; 1: f16, opsel[i] picks the half. neg_hi means abs.
        const uint32_t* src[3] = {A, B, C};
        uint32_t* dst = w.vr(u.vdst);
        const uint32_t m = w.exec();
        for (unsigned l = 0; l < kLanes; ++l) {
          double x[3];
          for (unsigned i = 0; i < 3; ++i) {
            const uint32_t v = src[i][l];
            x[i] = (u.opsel_hi >> i) & 1 ? ff((u.opsel >> i) & 1 ? v >> 16 : v) : F(v);
            if ((u.neg_hi >> i) & 1) x[i] = std::fabs(x[i]);
            if ((u.neg >> i) & 1) x[i] = -x[i];
          }
          // f16 results: the fma rounded to odd in float, so the f16 rounding is the only one.
          const float r =
              u.op == v_fma_mix_f32
                  ? std::fma(static_cast<float>(x[0]), static_cast<float>(x[1]),
                             static_cast<float>(x[2]))
                  : fma_round_odd_f32(static_cast<float>(x[0]), static_cast<float>(x[1]),
                                      static_cast<float>(x[2]));
          if (!((m >> l) & 1)) continue;
          float rc = u.clamp ? (std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f)) : r;
          if (u.op == v_fma_mix_f32) {
            dst[l] = U(rc);
          } else {
            const uint32_t h = F2H(rc);
            dst[l] = u.op == v_fma_mixlo_f16 ? (dst[l] & 0xFFFF0000u) | h
                                             : (dst[l] & 0xFFFFu) | (h << 16);
          }
        }
        return Done::kWritten;
      }
      // 16-bit integers (clamp saturates)
      case v_add_nc_i16:
        L32(static_cast<uint16_t>(u.clamp ? clamp_to<int16_t>(int64_t{s16(a)} + s16(b))
                                          : static_cast<int16_t>(s16(a) + s16(b))))
      case v_sub_nc_i16:
        L32(static_cast<uint16_t>(u.clamp ? clamp_to<int16_t>(int64_t{s16(a)} - s16(b))
                                          : static_cast<int16_t>(s16(a) - s16(b))))
      case v_lshlrev_b16: L32(static_cast<uint16_t>(u16(b) << (a & 15)))
      case v_lshrrev_b16: L32(static_cast<uint16_t>(u16(b) >> (a & 15)))
      case v_ashrrev_i16: L32(static_cast<uint16_t>(s16(b) >> (a & 15)))
      case v_min_i16: L32(static_cast<uint16_t>(std::min(s16(a), s16(b))))
      case v_max_i16: L32(static_cast<uint16_t>(std::max(s16(a), s16(b))))
      case v_min_u16: L32(std::min(u16(a), u16(b)))
      case v_max_u16: L32(std::max(u16(a), u16(b)))
      case v_max3_i16: L32(static_cast<uint16_t>(std::max({s16(a), s16(b), s16(c)})))
      case v_min3_i16: L32(static_cast<uint16_t>(std::min({s16(a), s16(b), s16(c)})))
      case v_max3_u16: L32(std::max({u16(a), u16(b), u16(c)}))
      case v_min3_u16: L32(std::min({u16(a), u16(b), u16(c)}))
      case v_med3_i16:
        L32(static_cast<uint16_t>(
            std::max(std::min(s16(a), s16(b)), std::min(std::max(s16(a), s16(b)), s16(c)))))
      case v_med3_u16:
        L32(std::max(std::min(u16(a), u16(b)), std::min(std::max(u16(a), u16(b)), u16(c))))
      case v_mad_u16:
        L32(u.clamp ? static_cast<uint32_t>(
                          std::min<uint64_t>(uint64_t{u16(a)} * u16(b) + u16(c), 0xFFFF))
                    : static_cast<uint16_t>(uint32_t{u16(a)} * u16(b) + u16(c)))
      case v_mad_i16:
        L32(static_cast<uint16_t>(u.clamp ? clamp_to<int16_t>(int64_t{s16(a)} * s16(b) + s16(c))
                                          : static_cast<int16_t>(s16(a) * s16(b) + s16(c))))
      case v_mad_u32_u16: L32(uint32_t{u16(a)} * u16(b) + c)
      case v_mad_i32_i16:
        L32(static_cast<uint32_t>(int64_t{s16(a)} * s16(b) + static_cast<int32_t>(c)))
      case v_and_b16: L32(a & b & 0xFFFF)
      case v_or_b16: L32((a | b) & 0xFFFF)
      case v_xor_b16: L32((a ^ b) & 0xFFFF)
      case v_not_b16: L32(~a & 0xFFFF)
      case v_mov_b16: L32(a & 0xFFFF)
      case v_cvt_pk_i16_i32:
        L32(uint32_t{static_cast<uint16_t>(clamp_to<int16_t>(static_cast<int32_t>(a)))} |
            uint32_t{static_cast<uint16_t>(clamp_to<int16_t>(static_cast<int32_t>(b)))} << 16)
      case v_cvt_pk_u16_u32: L32(std::min(a, 0xFFFFu) | std::min(b, 0xFFFFu) << 16)
      case v_sat_pk_u8_i16:
        L32(uint32_t{clamp_to<uint8_t>(static_cast<int16_t>(a))} |
            uint32_t{clamp_to<uint8_t>(static_cast<int16_t>(a >> 16))} << 8)
      case v_add_nc_i32:
        L32(static_cast<uint32_t>(
            u.clamp ? clamp_to<int32_t>(int64_t{static_cast<int32_t>(a)} + static_cast<int32_t>(b))
                    : a + b))
      case v_sub_nc_i32:
        L32(static_cast<uint32_t>(
            u.clamp ? clamp_to<int32_t>(int64_t{static_cast<int32_t>(a)} - static_cast<int32_t>(b))
                    : a - b))
      case v_alignbyte_b32: L32(static_cast<uint32_t>(((uint64_t{a} << 32) | b) >> (8 * (c & 3))))
      case v_movreld_b32:
      case v_movrels_b32:
      case v_movrelsd_b32:
      case v_movrelsd_2_b32: {
        // M0-relative VGPR indexing: movreld offsets the destination, movrels the source,
        // movrelsd both (movrelsd_2 the source by M0[9:0], the destination by M0[25:16]).
        const uint32_t m0 = w.s[125];
        const uint32_t doff = u.op == v_movrels_b32      ? 0
                              : u.op == v_movrelsd_2_b32 ? (m0 >> 16) & 0x3FF
                                                         : m0;
        const uint32_t soff = u.op == v_movreld_b32      ? 0
                              : u.op == v_movrelsd_2_b32 ? m0 & 0x3FF
                                                         : m0;
        const uint64_t dreg = uint64_t{u.vdst} + doff;
        if (dreg >= vgprs)
          return fail(Errc::kHardware, &u,
                      strformat("M0-relative destination v%llu beyond the %u allocated VGPRs",
                                static_cast<unsigned long long>(dreg), vgprs));
        const uint32_t* src = A;
        if (u.op != v_movreld_b32) {
          if (u.kind[0] != kSrcVgpr)
            return fail(Errc::kUnsupported, &u, "M0-relative source is not a VGPR");
          const uint64_t sreg = uint64_t{u.src[0]} - 256 + soff;
          if (sreg >= vgprs)
            return fail(Errc::kHardware, &u,
                        strformat("M0-relative source v%llu beyond the %u allocated VGPRs",
                                  static_cast<unsigned long long>(sreg), vgprs));
          src = w.vr(static_cast<unsigned>(sreg));
        }
        uint32_t* d = w.vr(static_cast<unsigned>(dreg));
        const uint32_t m = w.exec();
        for (unsigned l = 0; l < kLanes; ++l)
          if ((m >> l) & 1) d[l] = src[l];
        return Done::kWritten;
      }
      case v_permlane16_b32:
      case v_permlanex16_b32: {
        // Lane l of a row reads lane sel[l % 16] (a nibble of {S2, S1}) of its own row
        // (permlane16) or of the other row (permlanex16). OPSEL[0] = FI, OPSEL[1] = BOUND_CTRL.
        const uint64_t sel = uint64_t{scalar32(w, u, 1)} | uint64_t{scalar32(w, u, 2)} << 32;
        const bool fi = u.opsel & 1, bound = (u.opsel >> 1) & 1;
        const uint32_t exec = w.exec();
        uint32_t* d = w.vr(u.vdst);
        std::array<uint32_t, kLanes> out;
        std::memcpy(out.data(), d, sizeof(out));
        for (unsigned l = 0; l < kLanes; ++l) {
          if (!((exec >> l) & 1)) continue;
          const unsigned row = u.op == v_permlanex16_b32 ? (l & ~15u) ^ 16u : l & ~15u;
          const unsigned sl = row + ((sel >> (4 * (l & 15))) & 15);
          if (fi || ((exec >> sl) & 1))
            out[l] = A[sl];
          else if (bound)
            out[l] = 0;
        }
        std::memcpy(d, out.data(), sizeof(out));
        return Done::kWritten;
      }
      case v_swap_b32: {
        // Both operands are written: src0 must be a VGPR (an SGPR or constant src0 is an
        // encoding the hardware does not define).
        if (u.kind[0] != kSrcVgpr || u.src[0] < 256)
          return fail(Errc::kUnsupported, &u, "v_swap_b32 without a VGPR src0");
        uint32_t* d = w.vr(u.vdst);
        uint32_t* sv = w.vr(u.src[0] - 256);
        const uint32_t m = w.exec();
        for (unsigned l = 0; l < kLanes; ++l)
          if ((m >> l) & 1) std::swap(d[l], sv[l]);
        return Done::kWritten;
      }
      // packed 16-bit
      case v_pk_add_u16:
      case v_pk_add_i16:
      case v_pk_sub_u16:
      case v_pk_sub_i16:
      case v_pk_mul_lo_u16:
      case v_pk_lshlrev_b16:
      case v_pk_lshrrev_b16:
      case v_pk_ashrrev_i16:
      case v_pk_min_i16:
      case v_pk_max_i16:
      case v_pk_min_u16:
      case v_pk_max_u16:
      case v_pk_mad_u16:
      case v_pk_mad_i16:
      case v_pk_maximum_f16:
      case v_pk_minimum_f16:
      case v_pk_fmac_f16: {
        const uint32_t* src[3] = {A, B, C};
        const uint32_t* d = w.vr(u.vdst);
        for (unsigned l = 0; l < kLanes; ++l) {
          uint32_t out = 0;
          for (unsigned h = 0; h < 2; ++h) {
            uint32_t x[3];
            for (unsigned i = 0; i < 3; ++i) {
              const bool hi = u.op == v_pk_fmac_f16 ? h == 1
                              : h == 0              ? (u.opsel >> i) & 1
                                                    : (u.opsel_hi >> i) & 1;
              x[i] = (hi ? src[i][l] >> 16 : src[i][l]) & 0xFFFF;
              if (u.op == v_pk_maximum_f16 || u.op == v_pk_minimum_f16 || u.op == v_pk_fmac_f16)
                if (h == 0 ? (u.neg >> i) & 1 : (u.neg_hi >> i) & 1) x[i] ^= 0x8000;
            }
            const int64_t sa = s16(x[0]), sb = s16(x[1]), sc = s16(x[2]);
            const int64_t ua = x[0], ub = x[1], uc = x[2];
            int64_t r;
            switch (u.op) {
              case v_pk_add_u16: r = u.clamp ? std::min<int64_t>(ua + ub, 0xFFFF) : ua + ub; break;
              case v_pk_add_i16: r = u.clamp ? clamp_to<int16_t>(sa + sb) : sa + sb; break;
              case v_pk_sub_u16: r = u.clamp ? std::max<int64_t>(ua - ub, 0) : ua - ub; break;
              case v_pk_sub_i16: r = u.clamp ? clamp_to<int16_t>(sa - sb) : sa - sb; break;
              case v_pk_mul_lo_u16: r = ua * ub; break;
              case v_pk_lshlrev_b16: r = ub << (ua & 15); break;
              case v_pk_lshrrev_b16: r = ub >> (ua & 15); break;
              case v_pk_ashrrev_i16: r = sb >> (ua & 15); break;
              case v_pk_min_i16: r = std::min(sa, sb); break;
              case v_pk_max_i16: r = std::max(sa, sb); break;
              case v_pk_min_u16: r = std::min(ua, ub); break;
              case v_pk_max_u16: r = std::max(ua, ub); break;
              case v_pk_mad_u16:
                r = u.clamp ? std::min<int64_t>(ua * ub + uc, 0xFFFF) : ua * ub + uc;
                break;
              case v_pk_mad_i16:
                r = u.clamp ? clamp_to<int16_t>(sa * sb + sc) : sa * sb + sc;
                break;
              case v_pk_maximum_f16: r = fminmax16(x[0], x[1], true, 2); break;
              case v_pk_minimum_f16: r = fminmax16(x[0], x[1], false, 2); break;
              default: {  // v_pk_fmac_f16
                const uint32_t dh = (h ? d[l] >> 16 : d[l]) & 0xFFFF;
                r = F2H(std::fma(ff(x[0]), ff(x[1]), ff(dh)));
                break;
              }
            }
            out |= (static_cast<uint32_t>(r) & 0xFFFF) << (16 * h);
          }
          R[l] = out;
        }
        return Done::k32;
      }
      // f64
      case v_div_scale_f64: {
        uint32_t vcc = 0;
        for (unsigned l = 0; l < kLanes; ++l) {
          bool v = false;
          QR[l] = div_scale_f64(QA[l], QB[l], QC[l], v);
          vcc |= uint32_t{v} << l;
        }
        write64(w, u, QR);
        write_sgpr(w, u.sdst, vcc & w.exec());
        return Done::kWritten;
      }
      case v_div_fmas_f64: {
        const uint32_t vcc = w.s[kVcc];
        for (unsigned l = 0; l < kLanes; ++l) {
          const double r = std::fma(D(QA[l]), D(QB[l]), D(QC[l]));
          if (!((vcc >> l) & 1)) {
            QR[l] = U(r);
            continue;
          }
          const int sc = ((QC[l] >> 52) & 0x7FF) > 1023 ? 128 : -128;
          const double scaled = std::ldexp(r, sc);
          // Exact when the scaled rounded fma stays normal; a scale that rounds (into or out
          // of the denormal range) would round twice.
          QR[l] =
              U((std::isnormal(scaled) && std::ldexp(scaled, -sc) == r) || !std::isfinite(r)
                    ? scaled
                    : static_cast<double>(fma_round_odd_scaled(D(QA[l]), D(QB[l]), D(QC[l]), sc)));
        }
        return Done::k64;
      }
      case v_div_fixup_f64: L64(div_fixup_f64(a, b, c))
      case v_rsq_f64: L64(U(rsq_f64(D(a))))
      case v_sqrt_f64: L64(U(std::sqrt(D(a))))
      case v_trunc_f64: L64(U(std::trunc(D(a))))
      case v_floor_f64: L64(U(std::floor(D(a))))
      case v_ceil_f64: L64(U(std::ceil(D(a))))
      case v_rndne_f64: L64(U(std::nearbyint(D(a))))
      case v_fract_f64: L64(U(fract_of(D(a), 0x1.fffffffffffffp-1)))
      case v_frexp_mant_f64:
        L64(std::isfinite(D(a)) ? U([](double x) {
          int e;
          return std::frexp(x, &e);
        }(D(a)))
                                : a)
      case v_frexp_exp_i32_f64:
        for (unsigned l = 0; l < kLanes; ++l) {
          const double x = D(QA[l]);
          int e = 0;
          if (std::isfinite(x) && x != 0) (void)std::frexp(x, &e);
          R[l] = static_cast<uint32_t>(e);
        }
        return Done::k32;
      case v_max_num_f64: L64(fminmax64(a, b, true, 1))
      case v_min_num_f64: L64(fminmax64(a, b, false, 1))
      case v_maximum_f64: L64(fminmax64(a, b, true, 2))
      case v_minimum_f64: L64(fminmax64(a, b, false, 2))
      default: return Done::kNo;
    }
#undef L32
#undef L64
  }

  // MODE.FP_DENORM (see denorm_types): the VALU semantics (exec_valu_core) are untouched
  // while nothing is flushed, one test per instruction.
  Status exec_valu(Wave& w, const Uop& u) {
    if (!w.mode.flush) [[likely]] {
      if (exec_valu_fast(w, u)) return {};
      return exec_valu_core(w, u);
    }
    return exec_valu_flushing(w, u);
  }

  // The hot plain 32-bit VALU ops (no abs/neg/omod/clamp, no 16-bit halves, no DPP, no SGPR
  // destination, nothing flushed) straight from the register file: no source copies and no
  // trip through exec_valu_core's big switch. Same results as exec_valu_core; false (nothing
  // written) for anything else, which then takes the general path.
  bool exec_valu_fast(Wave& w, const Uop& u) {
    if ((u.abs | u.neg | u.omod | u.dpp) != 0 || u.clamp || u.half || u.sgpr_dst ||
        u.fmt == Format::kVOP3P || dpp_src != nullptr)
      return false;
    alignas(64) uint32_t R[kLanes], T0[kLanes], T1[kLanes], T2[kLanes];
    uint32_t* tmp[3] = {T0, T1, T2};
    const uint32_t* S[3] = {T0, T1, T2};
    unsigned need = 2;
    switch (u.op) {
      case v_mov_b32: need = 1; break;
      case v_add_f32:
      case v_sub_f32:
      case v_subrev_f32:
      case v_mul_f32:
      case v_add_nc_u32:
      case v_sub_nc_u32:
      case v_and_b32:
      case v_or_b32:
      case v_xor_b32:
      case v_max_f32:
      case v_min_f32:
      case v_max_num_f32:
      case v_min_num_f32:
      case v_fmac_f32: break;
      case v_fma_f32: need = 3; break;
      default: return false;
    }
    if (u.nsrc != need) return false;
    for (unsigned i = 0; i < need; ++i) {
      if (u.kind[i] == kSrcVgpr) {
        S[i] = w.vr(u.src[i] - 256);
      } else {
        const uint32_t x = scalar32(w, u, i);
        std::fill_n(tmp[i], kLanes, x);
      }
    }
    const uint32_t* __restrict a = S[0];
    const uint32_t* __restrict b = S[1];
    switch (u.op) {
      case v_mov_b32: std::memcpy(R, a, sizeof(R)); break;
      case v_add_f32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = U(F(a[l]) + F(b[l]));
        break;
      case v_sub_f32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = U(F(a[l]) - F(b[l]));
        break;
      case v_subrev_f32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = U(F(b[l]) - F(a[l]));
        break;
      case v_mul_f32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = U(F(a[l]) * F(b[l]));
        break;
      case v_add_nc_u32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = a[l] + b[l];
        break;
      case v_sub_nc_u32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = a[l] - b[l];
        break;
      case v_and_b32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = a[l] & b[l];
        break;
      case v_or_b32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = a[l] | b[l];
        break;
      case v_xor_b32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = a[l] ^ b[l];
        break;
      case v_max_f32:
      case v_min_f32:
      case v_max_num_f32:
      case v_min_num_f32: {
        // Ordered, distinct operands (or the same non-NaN bits) in every lane: IEEE and
        // maximumNumber agree (the larger / smaller). NaNs or +0 vs -0 anywhere: the general
        // path's per-lane rules.
        // Four lanes at a time with GCC/clang vector extensions (a compare gives a lane mask).
        using V4f = float __attribute__((vector_size(16)));
        using V4u = uint32_t __attribute__((vector_size(16)));
        using V4i = int32_t __attribute__((vector_size(16)));
        const bool is_max = u.op == v_max_f32 || u.op == v_max_num_f32;
        V4i tie = {0, 0, 0, 0};
        for (unsigned l = 0; l < kLanes; l += 4) {
          V4f x, y;
          V4u ai, bi;
          std::memcpy(&x, a + l, 16), std::memcpy(&y, b + l, 16);
          std::memcpy(&ai, a + l, 16), std::memcpy(&bi, b + l, 16);
          const V4i lt = x < y;
          const V4i gt = x > y;
          tie |= ~(lt | gt);
          const V4u take_b = reinterpret_cast<const V4u&>(lt) ^ (is_max ? V4u{} : ~V4u{});
          const V4u r = (take_b & bi) | (~take_b & ai);
          std::memcpy(R + l, &r, 16);
        }
        if ((tie[0] | tie[1] | tie[2] | tie[3]) != 0) {
          // Equal bits of a non-NaN are no tie (either is the result); +0 vs -0 and NaNs are.
          for (unsigned l = 0; l < kLanes; ++l) {
            const float x = F(a[l]), y = F(b[l]);
            if (!(x < y) && !(x > y) && (a[l] != b[l] || is_nan32(a[l]))) return false;
          }
        }
        break;
      }
      case v_fma_f32: fma_lanes(a, b, S[2], R); break;
      case v_fmac_f32: fma_lanes(a, b, w.vr(u.vdst), R); break;
    }
    uint32_t* dst = w.vr(u.vdst);
    const uint32_t m = w.exec();
    if (m == ~0u) {
      std::memcpy(dst, R, sizeof(R));
    } else {
      for (unsigned l = 0; l < kLanes; ++l)
        if ((m >> l) & 1) dst[l] = R[l];
    }
    return true;
  }
  bool flush_src = false;  // exec_valu_core flushes its sources (set by exec_valu_flushing)
  [[gnu::noinline]] Status exec_valu_flushing(Wave& w, const Uop& u) {
    if (!(u.dn_in | u.dn_out)) return exec_valu_core(w, u);
    flush_src = true;
    Status st = exec_valu_core(w, u);
    flush_src = false;
    if (st) flush_dest(w, u);
    return st;
  }
  Status exec_valu_core(Wave& w, const Uop& u) {
    if (u.op & kCmp) return exec_cmp(w, u);
    if (u.op == v_wmma_f32_16x16x16_f16 || u.op == v_wmma_f32_16x16x16_bf16 ||
        u.op == v_wmma_f16_16x16x16_f16 || u.op == v_wmma_bf16_16x16x16_bf16)
      return exec_wmma(w, u);
    if (u.op == v_wmma_i32_16x16x16_iu8) return exec_wmma_iu8(w, u);
    alignas(64) uint32_t A[kLanes], B[kLanes], C[kLanes], R[kLanes];
    alignas(64) uint64_t QA[kLanes], QB[kLanes], QC[kLanes], QR[kLanes];
    uint32_t* in32[3] = {A, B, C};
    uint64_t* in64[3] = {QA, QB, QC};
    for (unsigned i = 0; i < u.nsrc; ++i) {
      if (u.srcw[i] == 2)
        read64(w, u, i, in64[i]);
      else
        read32(w, u, i, in32[i]);
    }
    if (flush_src) [[unlikely]]
      flush_inputs(w, u, in32, in64);
    const uint32_t m = w.exec();
    bool wide = false;
    const uint32_t K = static_cast<uint32_t>(u.cval[2]);
#define LANES(expr)                              \
  for (unsigned l = 0; l < kLanes; ++l) {        \
    const uint32_t a = A[l], b = B[l], c = C[l]; \
    (void)a, (void)b, (void)c;                   \
    R[l] = (expr);                               \
  }                                              \
  break;
#define FLANES(expr) LANES(U(static_cast<float>(expr)))
#define QLANES(expr)                                \
  wide = true;                                      \
  for (unsigned l = 0; l < kLanes; ++l) {           \
    const uint64_t a = QA[l], b = QB[l], c = QC[l]; \
    (void)a, (void)b, (void)c;                      \
    QR[l] = (expr);                                 \
  }                                                 \
  break;
    switch (u.op) {
      case v_nop: return {};
      case v_mov_b32: LANES(a)
      case v_add_nc_u32:
        if (u.clamp) {
          LANES(static_cast<uint32_t>(std::min<uint64_t>(uint64_t{a} + b, 0xFFFFFFFFu)))
        } else {
          LANES(a + b)
        }
      case v_sub_nc_u32:
        if (u.clamp) {
          LANES(a > b ? a - b : 0u)
        } else {
          LANES(a - b)
        }
      case v_subrev_nc_u32: LANES(b - a)
      // ---- emudev block (issue 9 wiring) ----
      case v_xad_u32: LANES((a ^ b) + c)
      case v_mul_dx9_zero_f32:  // DX9 rule: 0 times anything (inf, NaN) is +0
        LANES((a & 0x7FFFFFFFu) == 0 || (b & 0x7FFFFFFFu) == 0 ? 0u : U(F(a) * F(b)))
      case v_max3_num_f32: LANES(fmax_num(fmax_num(a, b, true), c, true))
      case v_min3_num_f32: LANES(fmax_num(fmax_num(a, b, false), c, false))
      // ---- end of emudev block ----
      case v_add3_u32: LANES(a + b + c)
      case v_mul_lo_u32: LANES(a * b)
      case v_mul_hi_u32: LANES(static_cast<uint32_t>((uint64_t{a} * b) >> 32))
      case v_mul_hi_i32:
        LANES(static_cast<uint32_t>(
            static_cast<uint64_t>(int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)) >>
            32))
      case v_mul_u32_u24: LANES((a & 0xFFFFFF) * (b & 0xFFFFFF))
      case v_mul_hi_u32_u24:
        LANES(static_cast<uint32_t>((uint64_t{a & 0xFFFFFF} * (b & 0xFFFFFF)) >> 32))
      // 24-bit signed products need up to 47 bits: multiply in 64 bits, keep the low 32.
      case v_mul_i32_i24:
        LANES(static_cast<uint32_t>(int64_t{static_cast<int32_t>(a << 8) >> 8} *
                                    (static_cast<int32_t>(b << 8) >> 8)))
      case v_mad_u32_u24: LANES((a & 0xFFFFFF) * (b & 0xFFFFFF) + c)
      case v_mad_i32_i24:
        LANES(static_cast<uint32_t>(int64_t{static_cast<int32_t>(a << 8) >> 8} *
                                    (static_cast<int32_t>(b << 8) >> 8)) +
              c)
      case v_and_b32: LANES(a & b)
      case v_or_b32: LANES(a | b)
      case v_xor_b32: LANES(a ^ b)
      case v_xnor_b32: LANES(~(a ^ b))
      case v_not_b32: LANES(~a)
      case v_lshl_or_b32: LANES((a << (b & 31)) | c)
      case v_and_or_b32: LANES((a & b) | c)
      case v_or3_b32: LANES(a | b | c)
      case v_xor3_b32: LANES(a ^ b ^ c)
      case v_lshl_add_u32: LANES((a << (b & 31)) + c)
      case v_add_lshl_u32: LANES((a + b) << (c & 31))
      case v_lshlrev_b32: LANES(b << (a & 31))
      case v_lshrrev_b32: LANES(b >> (a & 31))
      case v_ashrrev_i32: LANES(static_cast<uint32_t>(static_cast<int32_t>(b) >> (a & 31)))
      case v_lshlrev_b64:
        for (unsigned l = 0; l < kLanes; ++l) QR[l] = QB[l] << (A[l] & 63);
        wide = true;
        break;
      case v_lshrrev_b64:
        for (unsigned l = 0; l < kLanes; ++l) QR[l] = QB[l] >> (A[l] & 63);
        wide = true;
        break;
      case v_ashrrev_i64:
        for (unsigned l = 0; l < kLanes; ++l)
          QR[l] = static_cast<uint64_t>(static_cast<int64_t>(QB[l]) >> (A[l] & 63));
        wide = true;
        break;
      case v_bfe_u32:
        LANES(((c & 31) == 0)
                  ? 0u
                  : (a >> (b & 31)) & ((c & 31) == 31 ? 0x7FFFFFFFu : ((1u << (c & 31)) - 1)))
      case v_bfe_i32:
        LANES((c & 31) == 0 ? 0u
                            : static_cast<uint32_t>(
                                  static_cast<int32_t>((a >> (b & 31)) << (32 - (c & 31))) >>
                                  (32 - (c & 31))))
      case v_bfi_b32: LANES((a & b) | (~a & c))
      case v_bfrev_b32:
        LANES([](uint32_t x) {
          uint32_t r = 0;
          for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1);
          return r;
        }(a))
      case v_alignbit_b32: LANES(static_cast<uint32_t>(((uint64_t{a} << 32) | b) >> (c & 31)))
      case v_perm_b32:
        LANES([](uint32_t s0, uint32_t s1, uint32_t sel) {
          const uint64_t v = (uint64_t{s0} << 32) | s1;
          uint32_t r = 0;
          for (int i = 0; i < 4; ++i) {
            const uint32_t k = (sel >> (8 * i)) & 0xFF;
            uint32_t byte;
            if (k < 8)
              byte = (v >> (8 * k)) & 0xFF;
            else if (k == 12)
              byte = 0;
            else if (k >= 13)
              byte = 0xFF;
            else {
              const uint32_t src = (k - 8) * 2 + 1;
              byte = ((v >> (8 * src + 7)) & 1) ? 0xFF : 0;
            }
            r |= byte << (8 * i);
          }
          return r;
        }(a, b, c))
      case v_min_i32:
        LANES(static_cast<uint32_t>(std::min(static_cast<int32_t>(a), static_cast<int32_t>(b))))
      case v_max_i32:
        LANES(static_cast<uint32_t>(std::max(static_cast<int32_t>(a), static_cast<int32_t>(b))))
      case v_min_u32: LANES(std::min(a, b))
      case v_max_u32: LANES(std::max(a, b))
      case v_max3_i32:
        LANES(static_cast<uint32_t>(
            std::max({static_cast<int32_t>(a), static_cast<int32_t>(b), static_cast<int32_t>(c)})))
      case v_min3_i32:
        LANES(static_cast<uint32_t>(
            std::min({static_cast<int32_t>(a), static_cast<int32_t>(b), static_cast<int32_t>(c)})))
      case v_max3_u32: LANES(std::max({a, b, c}))
      case v_min3_u32: LANES(std::min({a, b, c}))
      case v_med3_i32:
        LANES(static_cast<uint32_t>(
            std::max(std::min(static_cast<int32_t>(a), static_cast<int32_t>(b)),
                     std::min(std::max(static_cast<int32_t>(a), static_cast<int32_t>(b)),
                              static_cast<int32_t>(c)))))
      case v_med3_u32: LANES(std::max(std::min(a, b), std::min(std::max(a, b), c)))
      case v_ffbh_u32:
      case v_clz_i32_u32: LANES(a == 0 ? ~0u : static_cast<uint32_t>(std::countl_zero(a)))
      case v_ffbl_b32:
      case v_ctz_i32_b32: LANES(a == 0 ? ~0u : static_cast<uint32_t>(std::countr_zero(a)))
      case v_cls_i32:
        LANES(a == 0 || a == ~0u
                  ? ~0u
                  : static_cast<uint32_t>(std::countl_zero(static_cast<int32_t>(a) < 0 ? ~a : a)))
      case v_bcnt_u32_b32: LANES(static_cast<uint32_t>(std::popcount(a)) + b)
      case v_add_nc_u16:
        if (u.clamp) {
          LANES(std::min((a & 0xFFFF) + (b & 0xFFFF), 0xFFFFu))
        } else {
          LANES((a + b) & 0xFFFF)
        }
      case v_sub_nc_u16:
        if (u.clamp) {
          LANES((a & 0xFFFF) > (b & 0xFFFF) ? (a & 0xFFFF) - (b & 0xFFFF) : 0u)
        } else {
          LANES((a - b) & 0xFFFF)
        }
      case v_mul_lo_u16: LANES((a * b) & 0xFFFF)
      case v_cvt_f32_ubyte0: FLANES(a & 0xFF)
      case v_cvt_f32_ubyte1: FLANES((a >> 8) & 0xFF)
      case v_cvt_f32_ubyte2: FLANES((a >> 16) & 0xFF)
      case v_cvt_f32_ubyte3: FLANES(a >> 24)
      case v_mbcnt_lo_u32_b32:
        for (unsigned l = 0; l < kLanes; ++l)
          R[l] = static_cast<uint32_t>(std::popcount(A[l] & ((1u << l) - 1))) + B[l];
        break;
      case v_mbcnt_hi_u32_b32: LANES(b)  // wave32: lanes 32..63 do not exist
      case v_cndmask_b32: {
        const uint32_t sel = u.e64 && u.nsrc == 3 ? scalar32(w, u, 2) : w.s[kVcc];
        for (unsigned l = 0; l < kLanes; ++l) R[l] = (sel >> l) & 1 ? B[l] : A[l];
        break;
      }
      case v_readfirstlane_b32: {
        const unsigned lane = m == 0 ? 0 : static_cast<unsigned>(std::countr_zero(m));
        write_sgpr(w, u.sdst, A[lane]);
        return {};
      }
      case v_readlane_b32: write_sgpr(w, u.sdst, A[B[0] & 31]); return {};
      case v_writelane_b32: w.vr(u.vdst)[B[0] & 31] = A[0]; return {};
      case v_add_co_u32:
      case v_sub_co_u32:
      case v_subrev_co_u32:
      case v_add_co_ci_u32:
      case v_sub_co_ci_u32:
      case v_subrev_co_ci_u32: {
        const bool ci =
            u.op == v_add_co_ci_u32 || u.op == v_sub_co_ci_u32 || u.op == v_subrev_co_ci_u32;
        const uint32_t cin = ci ? (u.e64 ? scalar32(w, u, 2) : w.s[kVcc]) : 0;
        uint32_t carry = 0;
        for (unsigned l = 0; l < kLanes; ++l) {
          const uint64_t x = u.op == v_subrev_co_u32 || u.op == v_subrev_co_ci_u32 ? B[l] : A[l];
          const uint64_t y = u.op == v_subrev_co_u32 || u.op == v_subrev_co_ci_u32 ? A[l] : B[l];
          const uint64_t cb = (cin >> l) & 1;
          const bool add = u.op == v_add_co_u32 || u.op == v_add_co_ci_u32;
          const uint64_t r = add ? x + y + cb : x - y - cb;
          R[l] = static_cast<uint32_t>(r);
          carry |= uint32_t{add ? (r >> 32) != 0 : (y + cb > x)} << l;
        }
        write32(w, u, R);
        write_sgpr(w, u.e64 ? u.sdst : kVcc, carry & m);
        return {};
      }
      case v_mad_u64_u32:
      case v_mad_i64_i32: {
        uint32_t carry = 0;
        for (unsigned l = 0; l < kLanes; ++l) {
          if (u.op == v_mad_u64_u32) {
            const unsigned __int128 r =
                static_cast<unsigned __int128>(uint64_t{A[l]} * B[l]) + QC[l];
            QR[l] = static_cast<uint64_t>(r), carry |= uint32_t{(r >> 64) != 0} << l;
          } else {
            const __int128 r = static_cast<__int128>(int64_t{static_cast<int32_t>(A[l])} *
                                                     static_cast<int32_t>(B[l])) +
                               static_cast<int64_t>(QC[l]);
            QR[l] = static_cast<uint64_t>(r);
            carry |= uint32_t{r > INT64_MAX || r < INT64_MIN} << l;
          }
        }
        write64(w, u, QR);
        write_sgpr(w, u.sdst, carry & m);
        return {};
      }
      // f32
      case v_add_f32: FLANES(F(a) + F(b))
      case v_sub_f32: FLANES(F(a) - F(b))
      case v_subrev_f32: FLANES(F(b) - F(a))
      case v_mul_f32: FLANES(F(a) * F(b))
      case v_fma_f32: fma_lanes(A, B, C, R); break;
      case v_fmac_f32: fma_lanes(A, B, w.vr(u.vdst), R); break;
      case v_fmamk_f32:
        std::fill_n(C, kLanes, K);
        fma_lanes(A, C, B, R);
        break;
      case v_fmaak_f32:
        std::fill_n(C, kLanes, K);
        fma_lanes(A, B, C, R);
        break;
      case v_dot2acc_f32_f16: {
        const uint32_t* d = w.vr(u.vdst);
        for (unsigned l = 0; l < kLanes; ++l)
          R[l] = U(F(d[l]) +
                   half_to_float(static_cast<uint16_t>(A[l])) *
                       half_to_float(static_cast<uint16_t>(B[l])) +
                   half_to_float(static_cast<uint16_t>(A[l] >> 16)) *
                       half_to_float(static_cast<uint16_t>(B[l] >> 16)));
        break;
      }
      case v_max_f32:
        if (w.mode.ieee) {
          LANES(fmax_ieee(a, b, true))
        } else {
          LANES(fmax_num(a, b, true))
        }
      case v_min_f32:
        if (w.mode.ieee) {
          LANES(fmax_ieee(a, b, false))
        } else {
          LANES(fmax_num(a, b, false))
        }
      case v_max_num_f32: LANES(fmax_num(a, b, true))
      case v_min_num_f32: LANES(fmax_num(a, b, false))
      case v_maximum_f32: LANES(fmaximum(a, b, true))
      case v_minimum_f32: LANES(fmaximum(a, b, false))
      case v_max3_f32: LANES(fmax_ieee(fmax_ieee(a, b, true), c, true))
      case v_min3_f32: LANES(fmax_ieee(fmax_ieee(a, b, false), c, false))
      case v_med3_f32:  // any NaN source: v_min3_f32 (ISA pseudocode)
        LANES(std::isnan(F(a)) || std::isnan(F(b)) || std::isnan(F(c))
                  ? fmax_ieee(fmax_ieee(a, b, false), c, false)
                  : fmax_ieee(fmax_ieee(a, b, false), fmax_ieee(fmax_ieee(a, b, true), c, false),
                              true))
      case v_ldexp_f32: FLANES(std::ldexp(F(a), std::clamp(static_cast<int32_t>(b), -1000, 1000)))
      case v_frexp_mant_f32:
        LANES(std::isfinite(F(a)) ? U([](float x) {
          int e;
          return std::frexp(x, &e);
        }(F(a)))
                                  : a)
      case v_frexp_exp_i32_f32: LANES(static_cast<uint32_t>(frexp_exp(F(a))))
      case v_rcp_f32:
      case v_rcp_iflag_f32: LANES(trans(static_cast<float>(1.0 / ftz(F(a)))))
      case v_rsq_f32:
        LANES(trans(static_cast<float>(1.0 / std::sqrt(static_cast<double>(ftz(F(a)))))))
      case v_sqrt_f32: LANES(trans(static_cast<float>(std::sqrt(static_cast<double>(ftz(F(a)))))))
      case v_exp_f32: LANES(trans(static_cast<float>(std::exp2(static_cast<double>(ftz(F(a)))))))
      case v_log_f32: LANES(trans(static_cast<float>(std::log2(static_cast<double>(ftz(F(a)))))))
      case v_sin_f32:
        LANES(trans(static_cast<float>(std::sin(
            2.0 * M_PI *
            (static_cast<double>(ftz(F(a))) - std::floor(static_cast<double>(ftz(F(a)))))))))
      case v_cos_f32:
        LANES(trans(static_cast<float>(std::cos(
            2.0 * M_PI *
            (static_cast<double>(ftz(F(a))) - std::floor(static_cast<double>(ftz(F(a)))))))))
      case v_trunc_f32: FLANES(std::trunc(F(a)))
      case v_floor_f32: FLANES(std::floor(F(a)))
      case v_ceil_f32: FLANES(std::ceil(F(a)))
      case v_rndne_f32: FLANES(std::nearbyint(F(a)))
      case v_fract_f32:
        LANES(std::isinf(F(a)) ? U(std::copysign(0.0f, F(a)))
                               : U(std::min(F(a) - std::floor(F(a)), 0x1.fffffep-1f)))
      case v_div_scale_f32: {
        uint32_t vcc = 0;
        for (unsigned l = 0; l < kLanes; ++l) {
          bool v = false;
          R[l] = div_scale_f32(A[l], B[l], C[l], v);
          vcc |= uint32_t{v} << l;
        }
        write32(w, u, R);
        write_sgpr(w, u.sdst, vcc & m);
        return {};
      }
      case v_div_fmas_f32: {
        // One rounding (std::fma on floats); the 2^±64 scale is exact unless the result leaves
        // the normal range, where it is then rounded once from the round-to-odd fma.
        const uint32_t vcc = w.s[kVcc];
        for (unsigned l = 0; l < kLanes; ++l) {
          const float r = std::fma(F(A[l]), F(B[l]), F(C[l]));
          if (!((vcc >> l) & 1)) {
            R[l] = U(r);
            continue;
          }
          const int sc = ((C[l] >> 23) & 0xFF) > 127 ? 64 : -64;
          const float scaled = std::ldexp(r, sc);
          R[l] = U((std::isnormal(scaled) && std::ldexp(scaled, -sc) == r) || !std::isfinite(r)
                       ? scaled
                       : static_cast<float>(fma_round_odd_scaled(F(A[l]), F(B[l]), F(C[l]), sc)));
        }
        break;
      }
      case v_div_fixup_f32:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = div_fixup_f32(A[l], B[l], C[l]);
        break;
      case v_cvt_f32_u32: FLANES(static_cast<float>(a))
      case v_cvt_f32_i32: FLANES(static_cast<float>(static_cast<int32_t>(a)))
      case v_cvt_u32_f32: LANES(sat_cvt<uint32_t>(F(a)))
      case v_cvt_i32_f32: LANES(static_cast<uint32_t>(sat_cvt<int32_t>(F(a))))
      case v_cvt_f32_f16: FLANES(half_to_float(static_cast<uint16_t>(a)))
      case v_cvt_f16_f32: LANES(float_to_half(F(a)))
      case v_cvt_f64_f32:
        for (unsigned l = 0; l < kLanes; ++l) QR[l] = U(static_cast<double>(F(A[l])));
        wide = true;
        break;
      case v_cvt_f64_i32:
        for (unsigned l = 0; l < kLanes; ++l)
          QR[l] = U(static_cast<double>(static_cast<int32_t>(A[l])));
        wide = true;
        break;
      case v_cvt_f64_u32:
        for (unsigned l = 0; l < kLanes; ++l) QR[l] = U(static_cast<double>(A[l]));
        wide = true;
        break;
      case v_cvt_f32_f64:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = U(static_cast<float>(D(QA[l])));
        break;
      case v_cvt_i32_f64:
        for (unsigned l = 0; l < kLanes; ++l)
          R[l] = static_cast<uint32_t>(sat_cvt<int32_t>(D(QA[l])));
        break;
      case v_cvt_u32_f64:
        for (unsigned l = 0; l < kLanes; ++l) R[l] = sat_cvt<uint32_t>(D(QA[l]));
        break;
      case v_add_f64: QLANES(U(D(a) + D(b)))
      case v_mul_f64: QLANES(U(D(a) * D(b)))
      case v_fma_f64: QLANES(U(std::fma(D(a), D(b), D(c))))
      // GFX11 f64 min/max: as the f32 forms, IEEE mode or maximumNumber, −0 < +0 (std::fmin
      // may return either zero: llvm.minimum(−0, +0) gave +0 on gfx1100).
      case v_max_f64: QLANES(fminmax64(a, b, true, w.mode.ieee ? 0 : 1))
      case v_min_f64: QLANES(fminmax64(a, b, false, w.mode.ieee ? 0 : 1))
      case v_rcp_f64: QLANES(U(1.0 / D(a)))
      case v_ldexp_f64:
        for (unsigned l = 0; l < kLanes; ++l)
          QR[l] = U(std::ldexp(D(QA[l]), std::clamp(static_cast<int32_t>(B[l]), -5000, 5000)));
        wide = true;
        break;
      // f16 (low or opsel-selected half)
      case v_add_f16:
        LANES(float_to_half(half_to_float(static_cast<uint16_t>(a)) +
                            half_to_float(static_cast<uint16_t>(b))))
      case v_sub_f16:
        LANES(float_to_half(half_to_float(static_cast<uint16_t>(a)) -
                            half_to_float(static_cast<uint16_t>(b))))
      case v_mul_f16:
        LANES(float_to_half(half_to_float(static_cast<uint16_t>(a)) *
                            half_to_float(static_cast<uint16_t>(b))))
      case v_fma_f16: LANES(fma_f16_once(H2F(a), H2F(b), H2F(c)))
      case v_fmac_f16: {
        const uint32_t* d = w.vr(u.vdst);
        for (unsigned l = 0; l < kLanes; ++l) R[l] = fma_f16_once(H2F(A[l]), H2F(B[l]), H2F(d[l]));
        break;
      }
      case v_max_f16: LANES(fminmax16(a, b, true, w.mode.ieee ? 0 : 1))
      case v_min_f16: LANES(fminmax16(a, b, false, w.mode.ieee ? 0 : 1))
      case v_pk_add_f16:
      case v_pk_mul_f16:
      case v_pk_fma_f16:
      case v_pk_max_f16:
      case v_pk_min_f16:
      case v_pk_max_num_f16:
      case v_pk_min_num_f16: {
        for (unsigned l = 0; l < kLanes; ++l) {
          uint32_t out = 0;
          for (unsigned h = 0; h < 2; ++h) {
            float x[3];
            uint16_t hb[3];
            const uint32_t* src[3] = {A, B, C};
            for (unsigned i = 0; i < 3; ++i) {
              const bool hi = h == 0 ? (u.opsel >> i) & 1 : (u.opsel_hi >> i) & 1;
              uint16_t bits = static_cast<uint16_t>(hi ? src[i][l] >> 16 : src[i][l]);
              if (h == 0 ? (u.neg >> i) & 1 : (u.neg_hi >> i) & 1) bits ^= 0x8000;
              x[i] = half_to_float(bits);
              hb[i] = bits;
            }
            // min/max: the scalar f16 rules (IEEE mode or maximumNumber, −0 < +0).
            const bool is_max = u.op == v_pk_max_f16 || u.op == v_pk_max_num_f16;
            const int mm_kind =
                u.op == v_pk_max_f16 || u.op == v_pk_min_f16 ? (w.mode.ieee ? 0 : 1) : 1;
            uint32_t r16;
            switch (u.op) {
              case v_pk_add_f16: r16 = float_to_half(x[0] + x[1]); break;
              case v_pk_mul_f16: r16 = float_to_half(x[0] * x[1]); break;
              case v_pk_fma_f16: r16 = fma_f16_once(x[0], x[1], x[2]); break;
              default: r16 = fminmax16(hb[0], hb[1], is_max, mm_kind) & 0xFFFF; break;
            }
            out |= r16 << (16 * h);
          }
          R[l] = out;
        }
        write32(w, u, R);
        return {};
      }
      default:
        switch (RG_TRY(exec_valu_types(w, u, A, B, C, QA, QB, QC, R, QR))) {
          case Done::kNo: return fail(Errc::kUnsupported, &u, "vector operation not implemented");
          case Done::k32: break;
          case Done::k64: wide = true; break;
          case Done::kWritten: return {};
        }
        break;
    }
#undef LANES
#undef FLANES
#undef QLANES
    if (wide) {
      write64(w, u, QR);
      return {};
    }
    if ((u.clamp || u.omod) && u.fbits == 16 && u.half && !u.dst32) {
      for (unsigned l = 0; l < kLanes; ++l) {
        float r = half_to_float(static_cast<uint16_t>(R[l]));
        r = apply_omod(r, u.omod);
        if (u.clamp) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
        R[l] = float_to_half(r);
      }
    }
    if ((u.clamp || u.omod) && u.fbits == 32) {
      for (unsigned l = 0; l < kLanes; ++l) {
        float r = apply_omod(F(R[l]), u.omod);
        if (u.clamp) r = std::isnan(r) ? 0.0f : std::clamp(r, 0.0f, 1.0f);
        R[l] = U(r);
      }
    }
    write32(w, u, R);
    return {};
  }

  // MODE.FP_DENORM flushing (issue 9 item 2; operand types from denorm_types()). Inputs when
  // the type's allow-input bit (0) is clear, results (after omod/clamp, as written) when its
  // allow-output bit (1) is clear. An fmac's accumulator (the destination VGPR) is flushed in
  // place in the active lanes, which the result overwrites.
  [[gnu::noinline]] static void flush_inputs(Wave& w, const Uop& u, uint32_t* const* in32,
                                             uint64_t* const* in64) {
    if (!u.dn_in || (w.mode.denorm_of(u.dn_in) & 1)) return;
    const uint8_t t = u.dn_in;
    for (unsigned i = 0; i < u.nsrc; ++i) {
      if (!((u.dn_srcs >> i) & 1)) continue;
      if (t == 64) {
        for (unsigned l = 0; l < kLanes; ++l) in64[i][l] = ftz_f64(in64[i][l]);
      } else {
        for (unsigned l = 0; l < kLanes; ++l) in32[i][l] = ftz_type(in32[i][l], t);
      }
    }
    if (u.op == v_fmac_f32 || u.op == v_fmac_f16 || u.op == v_pk_fmac_f16) {
      uint32_t* d = w.vr(u.vdst);
      const uint32_t m = w.exec();
      for (unsigned l = 0; l < kLanes; ++l)
        if ((m >> l) & 1) d[l] = ftz_type(d[l], t);
    }
  }
  // The written result, in place in the active lanes (SGPR for gfx12 v_s_*; the opsel-selected
  // half of a 16-bit result).
  static void flush_dest(Wave& w, const Uop& u) {
    const uint8_t t = u.dn_out;
    if (!t || (w.mode.denorm_of(t) & 2)) return;
    if (u.sgpr_dst) {
      if (u.sdst < 128 && u.sdst != kNull) w.s[u.sdst] = ftz_type(w.s[u.sdst], t);
      return;
    }
    const uint32_t m = w.exec();
    uint32_t* d = w.vr(u.vdst);
    if (t == 64) {
      if (u.dstw != 2) return;
      uint32_t* hi = w.vr(u.vdst + 1u);
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!((m >> l) & 1)) continue;
        const uint64_t x = ftz_f64(d[l] | uint64_t{hi[l]} << 32);
        d[l] = static_cast<uint32_t>(x), hi[l] = static_cast<uint32_t>(x >> 32);
      }
      return;
    }
    const bool high_half = t == 16 && u.half && !u.dst32 && ((u.opsel >> 3) & 1);
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!((m >> l) & 1)) continue;
      d[l] = high_half ? (d[l] & 0xFFFFu) | (ftz_f16(d[l] >> 16) << 16) : ftz_type(d[l], t);
    }
  }

  // ---------------------------------------------------------------- control
  enum class Stop { kRun, kBarrier, kEnd };

  Result<Stop> exec_sopp(Wave& w, Uop& u, Uop*& next) {
    auto branch = [&](bool taken) -> Status {
      if (!taken) return {};
      if (u.target == nullptr)
        u.target = RG_TRY(uop_at(u.pc + 4 + static_cast<int64_t>(u.imm) * 4));
      next = u.target;
      return {};
    };
    const unsigned imm = static_cast<uint16_t>(u.imm);
    switch (u.op) {
      case s_nop:
      case s_clause:
      case s_delay_alu:
      case s_waitcnt_depctr:
      case s_sendmsg:
      case s_setprio:
      case s_sleep:
      case s_set_inst_prefetch_distance:
      case s_icache_inv:
      case s_wait_alu:
      case s_wait_expcnt: return Stop::kRun;
      case s_endpgm: return Stop::kEnd;
      case s_code_end:
        return fail(Errc::kHardware, &u, "reached s_code_end (ran past the end of the program)");
      case s_branch: RG_TRY(branch(true)); return Stop::kRun;
      case s_cbranch_scc0: RG_TRY(branch(!w.scc)); return Stop::kRun;
      case s_cbranch_scc1: RG_TRY(branch(w.scc)); return Stop::kRun;
      case s_cbranch_vccz: RG_TRY(branch(w.s[kVcc] == 0)); return Stop::kRun;
      case s_cbranch_vccnz: RG_TRY(branch(w.s[kVcc] != 0)); return Stop::kRun;
      case s_cbranch_execz: RG_TRY(branch(w.s[kExec] == 0)); return Stop::kRun;
      case s_cbranch_execnz: RG_TRY(branch(w.s[kExec] != 0)); return Stop::kRun;
      case s_barrier: return Stop::kBarrier;
      case s_barrier_wait:  // GFX12 split barrier (see barrier_signal)
        if (static_cast<int16_t>(imm) != -1)
          return fail(Errc::kUnsupported, &u,
                      strformat("barrier id %d not implemented (only the workgroup barrier, -1)",
                                static_cast<int16_t>(imm)));
        if (w.bar == kBarReleased) {
          w.bar = kBarNone;
          return Stop::kRun;
        }
        if (w.bar == kBarSignaled) return Stop::kBarrier;
        return fail(Errc::kHardware, &u,
                    "s_barrier_wait without an s_barrier_signal in this barrier phase (the "
                    "wave's arrival is missing: the barrier could never complete)");
      case s_round_mode:
        w.mode.round_f32 = imm & 3, w.mode.round_f16_64 = (imm >> 2) & 3;
        return Stop::kRun;
      case s_denorm_mode: w.mode.set_denorm(imm, imm >> 2); return Stop::kRun;
      case s_waitcnt:  // vmcnt [15:10], lgkmcnt [9:4]
        wait(w, 1u << kCntLoad, (imm >> 10) & 0x3F);
        wait(w, (1u << kCntLds) | (1u << kCntSmem), (imm >> 4) & 0x3F);
        return Stop::kRun;
      case s_wait_idle: wait(w, 0xF, 0); return Stop::kRun;
      case s_wait_loadcnt: wait(w, 1u << kCntLoad, imm & 0x3F); return Stop::kRun;
      case s_wait_storecnt: wait(w, 1u << kCntStore, imm & 0x3F); return Stop::kRun;
      case s_wait_dscnt: wait(w, 1u << kCntLds, imm & 0x3F); return Stop::kRun;
      case s_wait_kmcnt: wait(w, 1u << kCntSmem, imm & 0x1F); return Stop::kRun;
      case s_wait_loadcnt_dscnt:
        wait(w, 1u << kCntLoad, (imm >> 8) & 0x3F), wait(w, 1u << kCntLds, imm & 0x3F);
        return Stop::kRun;
      case s_wait_storecnt_dscnt:
        wait(w, 1u << kCntStore, (imm >> 8) & 0x3F), wait(w, 1u << kCntLds, imm & 0x3F);
        return Stop::kRun;
      default: return fail(Errc::kUnsupported, &u, "program-control operation not implemented");
    }
  }

  // Runs a wave until it ends or reaches a barrier.
  Result<Stop> run(Wave& w) {
    Uop* u = w.cur;
    for (;;) {
      if (u == nullptr) u = RG_TRY(uop_at(w.pc));
      if (budget == 0 && sh) {  // a worker takes the next chunk of the dispatch's budget
        // Chunks shrink with the pool (a quarter of each worker's share, at most 16 Ki), so
        // little budget sits unused in other workers when the pool runs dry; workers return
        // what they hold when they finish.
        uint64_t have = sh->budget.load(std::memory_order_relaxed), take = 0;
        do {
          take = std::min<uint64_t>(
              have, std::clamp<uint64_t>(have / (4 * uint64_t{sh->nthreads}), 1, 1u << 14));
        } while (take && !sh->budget.compare_exchange_weak(have, have - take));
        budget = take;
      }
      if (budget == 0) {
        return fail(Errc::kTimeout, u,
                    strformat("instruction budget of %llu wave instructions exhausted (hang?)",
                              static_cast<unsigned long long>(e.options_.max_instructions)));
      }
      --budget;
      ++stats->instructions;
      if (e.options_.count_opcodes) {
        if (sh) {
          local_hit(u->info), local_hit(u->y ? u->y->info : nullptr);
        } else {
          e.count_hit(u->info, u->y ? u->y->info : nullptr);
        }
      }
      if (!w.pending.empty()) RG_TRY(check_pending(w, *u));
      Uop* next = nullptr;
      Stop stop = Stop::kRun;
      switch (u->fmt) {
        case Format::kSOP2:
        case Format::kSOP1:
        case Format::kSOPC:
        case Format::kSOPK:
          if (u->op == s_setpc_b64 || u->op == s_swappc_b64) {
            const uint64_t target = scalar64(w, *u, 0);
            if (u->op == s_swappc_b64) {
              const uint64_t ret = u->pc + u->size;
              write_sgpr(w, u->sdst, static_cast<uint32_t>(ret)),
                  write_sgpr(w, u->sdst + 1u, static_cast<uint32_t>(ret >> 32));
            }
            next = RG_TRY(uop_at(target));
            break;
          }
          if (u->op == s_waitcnt_vscnt) {
            wait(w, 1u << kCntStore, static_cast<uint16_t>(u->imm));
            break;
          }
          if (u->op == s_waitcnt_vmcnt) {
            wait(w, 1u << kCntLoad, static_cast<uint16_t>(u->imm));
            break;
          }
          if (u->op == s_waitcnt_lgkmcnt) {
            wait(w, (1u << kCntLds) | (1u << kCntSmem), static_cast<uint16_t>(u->imm));
            break;
          }
          if (u->op == s_waitcnt_expcnt) break;
          RG_TRY(exec_salu(w, *u));
          break;
        case Format::kSOPP: stop = RG_TRY(exec_sopp(w, *u, next)); break;
        case Format::kSMEM: RG_TRY(exec_smem(w, *u)); break;
        case Format::kVOP1:
        case Format::kVOP2:
        case Format::kVOPC:
        case Format::kVOP3:
        case Format::kVOP3SD:
        case Format::kVOP3P:
          if (u->dpp) {
            RG_TRY(exec_dpp(w, *u));
          } else {
            RG_TRY(exec_valu(w, *u));
          }
          break;
        case Format::kVOPDX: {
          // Both halves read their sources before either writes.
          Wave snapshot_free = {};
          (void)snapshot_free;
          const Uop& y = *u->y;
          std::array<uint32_t, kLanes> saved{};
          const bool alias = y.nsrc && ((y.kind[0] == kSrcVgpr && y.src[0] - 256u == u->vdst) ||
                                        (y.kind[1] == kSrcVgpr && y.src[1] - 256u == u->vdst));
          if (alias) std::memcpy(saved.data(), w.vr(u->vdst), sizeof(saved));
          std::array<uint32_t, kLanes> xres{};
          RG_TRY(exec_valu(w, *u));
          if (alias) {
            std::memcpy(xres.data(), w.vr(u->vdst), sizeof(xres));
            std::memcpy(w.vr(u->vdst), saved.data(), sizeof(saved));
          }
          RG_TRY(exec_valu(w, y));
          if (alias) std::memcpy(w.vr(u->vdst), xres.data(), sizeof(xres));
          break;
        }
        case Format::kDS: RG_TRY(exec_ds(w, *u)); break;
        case Format::kFLAT:
        case Format::kSCRATCH:
        case Format::kGLOBAL: RG_TRY(exec_global(w, *u)); break;
        case Format::kMUBUF:
          if (u->op == buffer_gl0_inv || u->op == buffer_gl1_inv) break;
          return fail(Errc::kUnsupported, u, "buffer operation not implemented");
        default: return fail(Errc::kUnsupported, u, "format not implemented");
      }
      if (stop == Stop::kEnd) {
        w.done = true;
        return stop;
      }
      if (next == nullptr) {
        if (u->next == nullptr) u->next = RG_TRY(uop_at(u->pc + u->size));
        next = u->next;
      }
      w.cur = next;
      w.pc = next->pc;
      if (stop == Stop::kBarrier) return stop;
      u = next;
    }
  }

  void local_hit(const OpcodeInfo* info) {
    if (info == nullptr) return;
    const std::span<const OpcodeInfo> table = opcode_table(e.target_);
    if (info < table.data() || info >= table.data() + table.size()) return;
    if (hits.size() != table.size()) hits.assign(table.size(), 0);
    ++hits[size_t(info - table.data())];
  }

  // Launch parameters of the dispatch (set by setup()).
  unsigned user = 0, tidig = 0, nwaves = 0;
  bool tgid[3] = {}, tg_size = false;
  uint32_t float_mode = 0;
  std::array<uint32_t, 3> wgs{};
  uint64_t threads = 0;

  Status setup() {
    const uint32_t rsrc1 = st.rsrc1, rsrc2 = st.rsrc2;
    vgprs = std::min(256u, ((rsrc1 & 0x3F) + 1) * 8);  // wave32 granule of 8 (gfx10+)
    if (!st.wave32)
      return make_error(Errc::kUnsupported,
                        "rdna: wave64 dispatches are not supported (CS_W32_EN clear)");
    user = (rsrc2 >> 1) & 0x1F;
    for (unsigned i = 0; i < 3; ++i) tgid[i] = (rsrc2 >> (7 + i) & 1) != 0;
    tg_size = (rsrc2 >> 10) & 1;
    tidig = (rsrc2 >> 11) & 3;
    float_mode = (rsrc1 >> 12) & 0xFF;
    for (unsigned i = 0; i < 3; ++i) wgs[i] = std::max(1u, st.workgroup[i] & 0xFFFF);
    threads = uint64_t{wgs[0]} * wgs[1] * wgs[2];
    if (threads > 1024)
      return make_error(Errc::kInvalidArgument, "rdna: workgroup of %llu threads (max 1024)",
                        static_cast<unsigned long long>(threads));
    nwaves = static_cast<unsigned>((threads + 31) / 32);
    if (st.lds_bytes > 64 * 1024)
      return make_error(Errc::kInvalidArgument, "rdna: %u bytes of LDS requested (max 65536)",
                        st.lds_bytes);
    return {};
  }

  // Runs one workgroup to the end (its waves round-robin between barriers).
  Status run_group(const std::array<uint32_t, 3>& id, std::vector<Wave>& waves) {
    const uint32_t rsrc1 = st.rsrc1;
    if (waves.size() != nwaves) {
      waves.assign(nwaves, Wave{});
      for (Wave& w : waves) w.v.assign(size_t{vgprs} * kLanes, 0);
    }
    lds.assign(st.lds_bytes, 0);
    for (unsigned wi = 0; wi < nwaves; ++wi) {
      Wave& w = waves[wi];
      w.s.fill(0);
      std::fill(w.v.begin(), w.v.end(), 0);
      w.scc = false, w.done = false, w.at_barrier = false, w.id = wi;
      w.bar = kBarNone;
      w.pending.clear(), w.vpend.fill(0), w.spend.fill(0);
      w.pc = st.program.raw(), w.cur = nullptr;
      w.mode = Mode{};
      w.mode.round_f32 = float_mode & 3, w.mode.round_f16_64 = (float_mode >> 2) & 3;
      w.mode.set_denorm(float_mode >> 4, float_mode >> 6);
      w.mode.dx10_clamp = !g12 && ((rsrc1 >> 21) & 1), w.mode.ieee = !g12 && ((rsrc1 >> 23) & 1);
      for (unsigned i = 0; i < user && i < st.user_data.size(); ++i) w.s[i] = st.user_data[i];
      if (!g12) {
        unsigned next = user;
        for (unsigned i = 0; i < 3; ++i)
          if (tgid[i]) w.s[next++] = id[i];
        if (tg_size) w.s[next++] = nwaves << 6 | wi;  // wave id in group [5:0], count [12:6]
      } else {
        w.s[kTtmp + 9] = id[0];
        w.s[kTtmp + 7] = (tgid[1] ? id[1] & 0xFFFF : 0) | (tgid[2] ? id[2] << 16 : 0);
      }
      uint32_t exec = 0;
      uint32_t* v0 = w.vr(0);
      for (unsigned l = 0; l < kLanes; ++l) {
        const uint64_t t = uint64_t{wi} * kLanes + l;
        if (t >= threads) continue;
        exec |= 1u << l;
        const uint32_t x = static_cast<uint32_t>(t % wgs[0]);
        const uint32_t y = static_cast<uint32_t>((t / wgs[0]) % wgs[1]);
        const uint32_t z = static_cast<uint32_t>(t / (uint64_t{wgs[0]} * wgs[1]));
        v0[l] = x | (tidig >= 1 ? y << 10 : 0) | (tidig >= 2 ? z << 20 : 0);
      }
      w.s[kExec] = exec;
    }
    stats->waves += nwaves;
    ++stats->workgroups;
    group_waves = &waves;
    split_first_taken = false;
    // Round-robin to a barrier or the end; release when every live wave arrived.
    for (;;) {
      bool any = false;
      for (Wave& w : waves) {
        if (w.done || w.at_barrier) continue;
        any = true;
        const Stop s = RG_TRY(run(w));
        if (s == Stop::kBarrier) w.at_barrier = true;
        if (s == Stop::kEnd && g12 && release_split(waves))  // an ended wave no longer holds it
          split_first_taken = false;
      }
      bool all_done = true;
      for (Wave& w : waves) all_done &= w.done;
      if (all_done) break;
      if (!any) {
        for (Wave& w : waves) w.at_barrier = false;  // every live wave arrived
      } else {
        bool all_arrived = true;
        for (Wave& w : waves) all_arrived &= w.done || w.at_barrier;
        if (all_arrived)
          for (Wave& w : waves) w.at_barrier = false;
      }
    }
    return {};
  }

  // Workgroup ids of the idx-th group (X fastest).
  std::array<uint32_t, 3> group_id(uint64_t idx) const {
    const uint64_t gx = std::max(1u, st.grid[0]), gy = std::max(1u, st.grid[1]);
    return {static_cast<uint32_t>(idx % gx) + st.start[0],
            static_cast<uint32_t>((idx / gx) % gy) + st.start[1],
            static_cast<uint32_t>(idx / (gx * gy)) + st.start[2]};
  }

  Status run_dispatch() {
    RG_TRY(setup());
    const uint64_t ngroups = uint64_t{st.grid[0]} * st.grid[1] * st.grid[2];
    unsigned nthreads = e.thread_count();
    if (ngroups < nthreads) nthreads = static_cast<unsigned>(std::max<uint64_t>(ngroups, 1));
    // Concurrent workgroups need their own scratch slots.
    const uint32_t slots = st.tmpring_size & 0xFFF;
    if (st.scratch_base.raw() != 0 && slots != 0)
      nthreads = std::min(nthreads, std::max(1u, slots / std::max(1u, nwaves)));
    // The device thread holds the GPU lock while a dispatch runs: workers would wait on it.
    if (e.gpu_->threaded()) nthreads = 1;
    if (nthreads <= 1) {
      std::vector<Wave> waves;
      for (uint64_t idx = 0; idx < ngroups; ++idx) RG_TRY(run_group(group_id(idx), waves));
      return {};
    }
    return run_threaded(ngroups, nthreads);
  }

  // Workgroups claimed in index order by `nthreads` workers. A worker stops at its first error;
  // every group below the lowest failing one runs, so the reported error is the one of the
  // lowest failing workgroup, as with one thread, and the latched VM fault is re-latched from
  // that group's refused access.
  Status run_threaded(uint64_t ngroups, unsigned nthreads) {
    Shared shared;
    shared.budget = e.options_.max_instructions;
    shared.nthreads = nthreads;
    const bool faulted_before = e.gpu_->fault_state().faulted;
    std::vector<std::unique_ptr<Impl>> workers;
    std::vector<Stats> wstats(nthreads);
    for (unsigned i = 0; i < nthreads; ++i) {
      auto w = std::make_unique<Impl>(e, st);
      w->sh = &shared;
      w->stats = &wstats[i];
      w->budget = 0;
      w->slot_base = i * nwaves;
      RG_TRY(w->setup());
      workers.push_back(std::move(w));
    }
    std::optional<Error> first_error;
    FaultAccess first_fault;
    auto body = [&](Impl& w) {
      std::vector<Wave> waves;
      struct GiveBack {  // unused budget goes back to the pool for the workers still running
        Impl& w;
        ~GiveBack() { w.sh->budget.fetch_add(std::exchange(w.budget, 0)); }
      } give_back{w};
      for (;;) {
        const uint64_t idx = shared.next.fetch_add(1);
        if (idx >= ngroups || idx > shared.lowest_fail.load()) return;
        w.last_fault = {};
        Status s = w.run_group(w.group_id(idx), waves);
        if (s) continue;
        std::lock_guard<std::mutex> lk(shared.err_mu);
        if (idx < shared.lowest_fail.load()) {
          shared.lowest_fail = idx;
          first_error = s.error();
          first_fault = w.last_fault;
        }
        return;
      }
    };
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < nthreads; ++i) {
      // A thread the system refuses is just a worker fewer: groups are claimed dynamically.
      try {
        pool.emplace_back(body, std::ref(*workers[i]));
      } catch (const std::system_error&) {
        break;
      }
    }
    body(*workers[0]);
    for (auto& t : pool) t.join();
    for (unsigned i = 0; i < nthreads; ++i) {
      e.stats_.instructions += wstats[i].instructions;
      e.stats_.waves += wstats[i].waves;
      e.stats_.workgroups += wstats[i].workgroups;
      const auto& h = workers[i]->hits;
      if (h.empty()) continue;
      if (e.hits_.size() < h.size()) e.hits_.resize(h.size(), 0);
      for (size_t k = 0; k < h.size(); ++k) e.hits_[k] += h[k];
    }
    if (!first_error) return {};
    if (first_fault.valid && !faulted_before) {
      // Another group's fault may have latched first: latch the reported group's again (the
      // page tables do not change during a dispatch, so the same access is refused again).
      e.gpu_->clear_fault();
      if (first_fault.write) {
        (void)e.gpu_->write32(GpuVa(first_fault.va), 0);
      } else {
        (void)e.gpu_->read32(GpuVa(first_fault.va), first_fault.exec);
      }
    }
    return *first_error;
  }
};

Emulator::Emulator(AmdGpu& gpu, Target target, Options options)
    : gpu_(&gpu), target_(target), options_(std::move(options)) {}
Emulator::~Emulator() = default;

unsigned Emulator::thread_count() const {
  if (options_.threads != 0) return std::min(options_.threads, 256u);
  if (auto n = env::read_u64("RAWGPU_EMU_THREADS", 1, 256)) return static_cast<unsigned>(*n);
  return 1;
}

Status Emulator::execute(const DispatchState& state) {
  ++stats_.dispatches;
  const Stats before = stats_;
  Status st;
  {
    Impl impl(*this, state);
    st = impl.run_dispatch();
  }
  last_ticks_ = 0;
  if (!st) return st;
  constexpr uint64_t kLaunchCycles = 1000;  // command processor + wave launch, ~0.4 us
  constexpr uint64_t kCyclesPerTick = 25;   // 2.5 GHz shader clock / 100 MHz counter
  const uint64_t simds = target_ == Target::kGfx1100 ? 192 : 128;
  const uint64_t waves = std::max<uint64_t>(stats_.waves - before.waves, 1);
  const uint64_t instr = stats_.instructions - before.instructions;
  const uint64_t cycles =
      kLaunchCycles + (instr + std::min(waves, simds) - 1) / std::min(waves, simds);
  last_ticks_ = (cycles + kCyclesPerTick - 1) / kCyclesPerTick;
  return st;
}

}  // namespace rawgpu::sim::rdna
