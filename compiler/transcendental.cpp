// Transcendental lowering (transcendental.h): float64 exp2/log2/sin as IR-op expansions.
//
// Every constant below comes from compiler/transcendental_coeffs.py (mpmath, 60 digits):
// near-minimax Chebyshev fits rounded to double, and constants split into parts whose products
// with small integers are exact. Nothing here relies on fused multiply-add: the exact steps use
// plain MUL/ADD (LLVM does not contract them), MULACC (fmuladd, fused or not) only evaluates
// polynomials, where either rounding is within the error budget.
#include "rawgpu/compiler/transcendental.h"
#include "rawgpu/base/env.h"

#include <cstdlib>
#include <cstring>
#include <limits>

#include "rawgpu/compiler/rewrite.h"

namespace rawgpu::compiler {
namespace {

// exp2(f) = 1 + f*Q(f), |f| <= 1/2 (degree 10, fit error 1.3e-17). Highest degree first.
constexpr double kExp2Q[] = {0x1.e9d3fe3952179p-32, 0x1.e6063f7217bc6p-28, 0x1.b524fae627834p-24,
                             0x1.62bfd47773353p-20, 0x1.ffcbfc670dcd4p-17, 0x1.430913096fd9fp-13,
                             0x1.5d87fe78a5276p-10, 0x1.3b2ab6fba1ddap-7,  0x1.c6b08d704a0c2p-5,
                             0x1.ebfbdff82c598p-3,  0x1.62e42fefa39efp-1};
// ln(1+f) = f - f^2/2 + s*(f^2/2 + z*T(z)), s = f/(2+f), z = s^2 <= ((sqrt2-1)/(sqrt2+1))^2
// (degree 7, fit error 2.1e-18).
constexpr double kLogT[] = {0x1.0c04595972ab8p-3, 0x1.0fbe83c2cbcf3p-3, 0x1.3b1c360763b8ap-3,
                            0x1.745cf901605f7p-3, 0x1.c71c720160b47p-3, 0x1.2492492476c87p-2,
                            0x1.9999999999a38p-2, 0x1.5555555555555p-1};
// sin(r) = r + r^3*S(r^2), cos(r) = 1 - r^2/2 + r^4*C(r^2), |r| <= pi/4 (degree 6, fit errors
// 1.2e-20 and 6.5e-22).
constexpr double kSinS[] = {-0x1.ab161757f0c63p-41, 0x1.61217c1864fa1p-33,  -0x1.ae64540f0ba18p-26,
                            0x1.71de3a545e700p-19,  -0x1.a01a01a019926p-13, 0x1.1111111111110p-7,
                            -0x1.5555555555555p-3};
constexpr double kCosC[] = {0x1.ab76cf6e9b365p-45,  -0x1.9394b76d1f265p-37, 0x1.1eed8de9ef73ep-29,
                            -0x1.27e4fb7711e1dp-22, 0x1.a01a01a019d02p-16,  -0x1.6c16c16c16c16p-10,
                            0x1.5555555555555p-5};
// pi/2 = P1 + P2 + P3 + P4 to ~152 bits; P1..P3 have 33 significant bits, so k*Pi is exact for
// |k| < 2^20.
constexpr double kPiO2_1 = 0x1.921fb54400000p+0;
constexpr double kPiO2_2 = 0x1.0b4611a600000p-34;
constexpr double kPiO2_3 = 0x1.3198a2e000000p-69;
constexpr double kPiO2_4 = 0x1.b839a252049c1p-104;
constexpr double k2OverPi = 0x1.45f306dc9c883p-1;
// 1/ln2 = L1 + L2; L1 has 21 significant bits (its product with a 21-bit value is exact).
constexpr double kInvLn2_1 = 0x1.7154700000000p+0;
constexpr double kInvLn2_2 = 0x1.94ae0bf85ddf4p-22;
constexpr double kRoundMagic = 0x1.8p52;  // (x + M) - M rounds |x| < 2^51 to nearest even
constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;

constexpr DType F = DType::kFloat64;

struct B {
  Context& c;
  Ref f(double v) { return c.cfloat(v, F); }
  Ref i64(int64_t v) { return c.cint(v, DType::kInt64); }
  Ref i32(int64_t v) { return c.cint(v, DType::kInt32); }
  Ref bits(Ref x) { return c.make(Op::kBitcast, DType::kInt64, {x}); }
  Ref dbl(Ref i) { return c.make(Op::kBitcast, F, {i}); }
  Ref shl(Ref a, Ref n) { return c.make(Op::kShl, a->dtype(), {a, n}); }
  Ref shr(Ref a, Ref n) { return c.make(Op::kShr, a->dtype(), {a, n}); }
  Ref fma(Ref a, Ref b, Ref d) { return c.make(Op::kMulAcc, a->dtype(), {a, b, d}); }
  Ref trunc(Ref x) { return c.make(Op::kTrunc, F, {x}); }
  Ref abs(Ref x) { return where(cmplt(x, f(0)), -x, x); }
  Ref lor(Ref a, Ref b) { return c.make(Op::kOr, DType::kBool, {a, b}); }
  Ref land(Ref a, Ref b) { return c.make(Op::kAnd, DType::kBool, {a, b}); }
  template <size_t N>
  Ref horner(const double (&k)[N], Ref x) {
    Ref r = f(k[0]);
    for (size_t i = 1; i < N; ++i) r = fma(r, x, f(k[i]));
    return r;
  }
  // Round to nearest (ties to even) for |x| < 2^51.
  Ref rint(Ref x) { return (x + f(kRoundMagic)) - f(kRoundMagic); }
  // 2^n for an int32 n in [-1022, 1023], from the exponent bits.
  Ref pow2(Ref n) { return dbl(shl(cast(n, DType::kInt64) + i64(1023), i64(52))); }
  // Exact product x*y = p + e without FMA (Veltkamp splitting, Dekker's product); |x|, |y| <
  // 2^995 so the splits cannot overflow.
  std::pair<Ref, Ref> two_prod(Ref x, Ref y) {
    auto split = [&](Ref a) {
      Ref c = f(0x1p27 + 1) * a;
      Ref ah = c - (c - a);
      return std::pair{ah, a - ah};
    };
    auto [xh, xl] = split(x);
    auto [yh, yl] = split(y);
    Ref p = x * y;
    return {p, (((xh * yh - p) + xh * yl) + xl * yh) + xl * yl};
  }
  // Exact sum a + b = s + e (Knuth's two-sum, any magnitudes).
  std::pair<Ref, Ref> two_sum(Ref a, Ref b) {
    Ref s = a + b;
    Ref bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
  }
};

// 2^(x + lo) for a double-double argument (lo null: plain x); |lo| <= ulp(x).
Ref exp2_dd(Ref x, Ref lo) {
  B b{x->ctx()};
  // Clamp to [-1100, 1100] (NaN becomes 1100 here and is restored at the end): far enough past
  // the overflow (1024) and underflow (-1075) thresholds that the scaling below saturates.
  Ref xc = where(cmplt(x, b.f(1100)), x, b.f(1100));
  xc = where(cmplt(xc, b.f(-1100)), b.f(-1100), xc);
  Ref n = b.rint(xc);
  Ref fr = xc - n;  // exact, |fr| <= 1/2
  if (lo) fr = fr + where(cmplt(b.abs(x), b.f(1100)), lo, b.f(0));
  Ref p = b.fma(fr, b.horner(kExp2Q, fr), b.f(1));
  // 2^n = 2^n1 * 2^n2 with both halves normal: the first product is exact, the second rounds
  // once, also into the denormal range (gradual underflow) or to inf.
  Ref ni = cast(n, DType::kInt32);
  Ref n1 = b.shr(ni, b.i32(1));
  Ref n2 = ni - n1;
  Ref r = (p * b.pow2(n1)) * b.pow2(n2);
  return where(cmpne(x, x), x, r);
}
Ref exp2_f64(Ref x) { return exp2_dd(x, Ref()); }

// log2(x) for finite x > 0 as a double-double hi + lo; garbage for other x (callers handle 0,
// negatives, inf and NaN). `extended` (pow): every rounding of the ln(m) evaluation but the
// polynomial's is carried (exact square, division remainder, two-sums and two-products), for a
// relative error near 2^-62 instead of ~2^-56 (log2 itself is within 1 ulp either way; pow's
// y*log2(x) scales the error by up to 1075).
std::pair<Ref, Ref> log2_dd(Ref x, bool extended) {
  B b{x->ctx()};
  // Denormals: scale into the normal range first.
  Ref tiny = cmplt(x, b.f(0x1p-1022));
  Ref xs = where(tiny, x * b.f(0x1p54), x);
  Ref bits = b.bits(xs);
  Ref e = cast(b.shr(bits, b.i64(52)), DType::kInt32) - where(tiny, b.i32(1023 + 54), b.i32(1023));
  // Mantissa m in [1, 2), then [sqrt2/2, sqrt2) so that f = m - 1 is small and exact.
  Ref m = b.dbl((bits & b.i64(0x000FFFFFFFFFFFFF)) | b.i64(0x3FF0000000000000));
  Ref big = cmplt(b.f(kSqrt2), m);
  m = where(big, m * b.f(0.5), m);
  e = e + where(big, b.i32(1), b.i32(0));
  Ref fr = m - b.f(1);
  Ref hfsq = b.f(0.5) * fr * fr;
  Ref v = b.f(2) + fr;
  Ref s = fr / v;
  Ref z = s * s;
  Ref rz = z * b.horner(kLogT, z);
  Ref vhi, vlo;
  if (!extended) {
    // ln(m) = (f - hfsq) + s*(hfsq + R): split the leading part into hi (21 bits, so hi*L1 is
    // exact) and lo, then multiply by 1/ln2 in double-double.
    Ref hi = b.dbl(b.bits(fr - hfsq) & b.i64(int64_t(0xFFFFFFFF00000000ull)));
    Ref lo = ((fr - hi) - hfsq) + s * (hfsq + rz);
    vhi = hi * b.f(kInvLn2_1);
    vlo = (lo + hi) * b.f(kInvLn2_2) + lo * b.f(kInvLn2_1);
  } else {
    auto [sq, sq_lo] = b.two_prod(fr, fr);
    Ref hsq_lo = b.f(0.5) * sq_lo;  // f^2/2 = hfsq + hsq_lo exactly
    // s = f/(2+f) + s_lo: v_err is the exact error of 2 + f (2 > |f|), s*v an exact product.
    Ref v_err = (b.f(2) - v) + fr;
    auto [sv, sv_lo] = b.two_prod(s, v);
    Ref s_lo = (((fr - sv) - sv_lo) - s * v_err) / v;
    // A = f - f^2/2 as a + a_err (fr - a exact by Sterbenz), t = f^2/2 + R as t + t_lo.
    Ref a = fr - hfsq;
    Ref a_err = ((fr - a) - hfsq) - hsq_lo;
    auto [t, t_e] = b.two_sum(hfsq, rz);
    Ref t_lo = t_e + hsq_lo;
    auto [bh, bl] = b.two_prod(s, t);
    bl = bl + (s * t_lo + s_lo * t);
    auto [lh, l_e] = b.two_sum(a, bh);
    Ref ll = l_e + (a_err + bl);
    // times 1/ln2 = L1 + L2 (L1 with 21 bits): split lh at 21 bits as well.
    Ref hi = b.dbl(b.bits(lh) & b.i64(int64_t(0xFFFFFFFF00000000ull)));
    Ref hl = lh - hi;  // exact
    vhi = hi * b.f(kInvLn2_1);
    vlo = (hl * b.f(kInvLn2_1) + ll * b.f(kInvLn2_1)) + lh * b.f(kInvLn2_2);
  }
  Ref y = cast(e, F);
  Ref w = y + vhi;  // |y| >= 1 > |vhi| or y == 0: the error (y - w) + vhi is exact
  vlo = vlo + ((y - w) + vhi);
  Ref hi2 = w + vlo;
  return {hi2, vlo - (hi2 - w)};
}

Ref log2_f64(Ref x) {
  B b{x->ctx()};
  Ref r = log2_dd(x, false).first;
  const double inf = std::numeric_limits<double>::infinity();
  r = where(cmpeq(x, b.f(inf)), x, r);
  r = where(cmpeq(x, b.f(0)), b.f(-inf), r);
  r = where(cmplt(x, b.f(0)), b.f(std::numeric_limits<double>::quiet_NaN()), r);
  return where(cmpne(x, x), x, r);
}

Ref sin_f64(Ref x) {
  B b{x->ctx()};
  // k = rint(x * 2/pi) (already an integer for |x * 2/pi| >= 2^52).
  Ref kr = x * b.f(k2OverPi);
  Ref k = where(cmplt(b.abs(kr), b.f(0x1p52)), b.rint(kr), kr);
  // r = x - k*pi/2 as hi + lo (Cody-Waite, 4 parts): for |k| < 2^20 the products k*P1..P3 are
  // exact and x - k*P1 is exact (Sterbenz), the two-sums keep the rounding errors.
  Ref t = x - k * b.f(kPiO2_1);
  auto [h1, e1] = b.two_sum(t, -(k * b.f(kPiO2_2)));
  auto [h2, e2] = b.two_sum(h1, -(k * b.f(kPiO2_3)));
  Ref lo0 = (e1 + e2) - k * b.f(kPiO2_4);
  Ref hi = h2 + lo0;
  Ref lo = lo0 - (hi - h2);
  // Past 2^48 rounding k*P1 leaves |hi| up to ulp(x) past pi/4 (the polynomials stay usable to
  // |r| < 2); past 2^53 the reduction is meaningless (ulp(x) >= 2):
  // use r = 0 then, keeping the result in [-1, 1].
  Ref in_range = cmplt(b.abs(hi), b.f(2));
  hi = where(in_range, hi, b.f(0));
  lo = where(in_range, lo, b.f(0));
  // Quadrant q = k mod 4 in floating point (any magnitude): frac(k/4) * 4.
  Ref kq = k * b.f(0.25);
  Ref fq = kq - b.trunc(kq);
  fq = where(cmplt(fq, b.f(0)), fq + b.f(1), fq);
  Ref q = fq * b.f(4);
  // sin(hi + lo) ~ hi + hi^3*S + lo*(1 - z/2); cos(hi + lo) ~ 1 - z/2 + z^2*C - hi*lo, with
  // 1 - z/2 rounded once and its error carried.
  Ref z = hi * hi;
  Ref sn = hi + ((hi * z) * b.horner(kSinS, z) + (lo - b.f(0.5) * z * lo));
  Ref hz = b.f(0.5) * z;
  Ref w = b.f(1) - hz;
  Ref cs = w + ((((b.f(1) - w) - hz) + (z * z) * b.horner(kCosC, z)) - hi * lo);
  Ref use_cos = b.lor(cmpeq(q, b.f(1)), cmpeq(q, b.f(3)));
  Ref r = where(use_cos, cs, sn);
  r = where(cmplt(b.f(1.5), q), -r, r);
  // |x| < 2^-26: sin(x) rounds to x (keeps -0 and denormals exact).
  r = where(cmplt(b.abs(x), b.f(0x1p-26)), x, r);
  // inf and NaN: x - x is NaN.
  Ref nan = x - x;
  return where(cmpne(nan, b.f(0)), nan, r);
}

// pow(x, y) = sign * 2^(y * log2|x|), with log2 and the product in double-double; C99's
// special cases (pow(x, +-0) = 1, pow(1, y) = 1, pow(-1, +-inf) = 1, negative x with a
// non-integer y is NaN, zeros and infinities by the sign of y and whether it is an odd integer).
Ref pow_f64(Ref x, Ref y) {
  B b{x->ctx()};
  const double inf = std::numeric_limits<double>::infinity();
  Ref ax = b.abs(x);
  auto [lh, ll] = log2_dd(ax, true);
  // log2|x| for 0 and inf (NaN stays garbage: handled below).
  lh = where(cmpeq(ax, b.f(0)), b.f(-inf), where(cmpeq(ax, b.f(inf)), b.f(inf), lh));
  ll = where(cmplt(b.abs(lh), b.f(inf)), ll, b.f(0));
  // |y| >= 2^990 with |x| != 1 over- or underflows anyway: clamp so the split stays finite.
  Ref yc =
      where(cmplt(b.abs(y), b.f(0x1p990)), y, where(cmplt(y, b.f(0)), b.f(-0x1p990), b.f(0x1p990)));
  Ref finite_l = cmplt(b.abs(lh), b.f(inf));
  auto [ph, pe] = b.two_prod(yc, where(finite_l, lh, b.f(1)));
  ph = where(finite_l, ph, yc * lh);  // y * +-inf: +-inf (y != 0 here; y == 0 is handled)
  Ref pl = pe + yc * ll;
  Ref r = exp2_dd(ph, where(finite_l, pl, b.f(0)));
  // Sign and integrality of y.
  Ref y_int = cmpeq(b.trunc(y), y);
  Ref hy = y * b.f(0.5);
  Ref y_odd = b.land(y_int, cmpne(b.trunc(hy), hy));
  Ref x_neg = cmplt(b.bits(x), b.i64(0));  // sign bit (also -0, -inf)
  r = where(b.land(x_neg, y_odd), -r, r);
  r = where(b.land(b.land(cmplt(x, b.f(0)), cmplt(b.f(-inf), x)), logical_not(y_int)),
            b.f(std::numeric_limits<double>::quiet_NaN()), r);
  r = where(b.lor(cmpne(x, x), cmpne(y, y)), x + y, r);
  Ref one = b.lor(cmpeq(y, b.f(0)), cmpeq(x, b.f(1)));
  one = b.lor(one, b.land(cmpeq(x, b.f(-1)), cmpeq(b.abs(y), b.f(inf))));
  return where(one, b.f(1), r);
}

}  // namespace

bool has_soft_math(Op op, DType dtype) {
  if (op == Op::kPow) return is_float(dtype);  // other float types through float64
  return dtype == F && (op == Op::kExp2 || op == Op::kLog2 || op == Op::kSin);
}

Ref soft_exp2(Ref x) { return x->dtype() == F ? exp2_f64(x) : Ref(); }
Ref soft_log2(Ref x) { return x->dtype() == F ? log2_f64(x) : Ref(); }
Ref soft_sin(Ref x) { return x->dtype() == F ? sin_f64(x) : Ref(); }
Ref soft_pow(Ref x, Ref y) {
  const DType t = x->dtype();
  if (!is_float(t) || y->dtype() != t) return {};
  if (t == F) return pow_f64(x, y);
  return cast(pow_f64(cast(x, F), cast(y, F)), t);
}

bool force_soft_math() { return env::read_flag("RAWGPU_SOFT_MATH"); }

bool needs_soft_math(const GpuTarget& target, Op op, DType dtype) {
  if (!has_soft_math(op, dtype)) return false;
  switch (target.arch) {
    // LLVM 19: AMDGPU has no float64 exp/log/sin/pow instruction and no libcall to fall back on
    // (float64 pow aborts instruction selection); f32 pow is expanded by LLVM itself.
    case GpuArch::kAmd: return dtype == F;
    // NVPTX has only f32 approximations (ex2/lg2/sin.approx.f32) and cannot select pow at all.
    case GpuArch::kNv: return dtype == F || op == Op::kPow;
    case GpuArch::kHost: return dtype == F && force_soft_math();
  }
  return false;
}

Ref lower_transcendentals(Ref root, const SoftMathPredicate& need) {
  static const PatternMatcher pm = [] {
    PatternMatcher m;
    m.add(Pat::ops({Op::kExp2, Op::kLog2, Op::kSin, Op::kPow}), [](const Match& mt) -> Ref {
      const Ref n = mt.root();
      if (!has_soft_math(n->op(), n->dtype()) ||
          !(*mt.user<const SoftMathPredicate>())(n->op(), n->dtype()))
        return {};
      switch (n->op()) {
        case Op::kExp2: return soft_exp2(n->src(0));
        case Op::kLog2: return soft_log2(n->src(0));
        case Op::kPow: return soft_pow(n->src(0), n->src(1));
        default: return soft_sin(n->src(0));
      }
    });
    return m;
  }();
  RewriteOptions o;
  o.pass = "transcendental";
  o.user = const_cast<SoftMathPredicate*>(&need);
  return rewrite_walk(root, pm, o);
}

}  // namespace rawgpu::compiler
