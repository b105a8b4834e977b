// The float64 exp2/log2/sin expansions (transcendental.h), compiled for and run on the host CPU,
// against a long-double libm reference (exp2l/log2l/sinl: 64-bit or wider significands, so the
// reference's own error is far below one double ulp).
//
// Error measure: |got - ref| in units of the double ulp at ref (the spacing of doubles at
// |ref|; 2^-1074 in the denormal range), so 0.5 is correct rounding. Bounds asserted:
// exp2 <= 1 ulp, log2 <= 1 ulp (all finite inputs), sin <= 1 ulp for |x| < 2^20; for
// 2^20 <= |x| < 2^52 the absolute error is <= |x| * 2^-50 (the documented large-argument
// behaviour); pow <= 1.5 ulp while |y*log2 x| < 64 and <= 32 ulp up to the overflow and
// underflow limits. Special values (+-0, +-inf, NaN, overflow, underflow, negative log2 arguments)
// must match C exactly. The random sweeps draw from a fresh seed (RAWGPU_TEST_SEED=N replays).
#include "rawgpu/compiler/transcendental.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "../test_seed.h"
#include "cpu_runtime_fixture.h"
#include "rawgpu/compiler/cpu.h"

namespace rawgpu::compiler {
namespace {

using rawgpu::test_util::test_seed;

CpuRuntime& runtime() { return test_util::shared_runtime({.threads = 2, .opt_level = 2}); }

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// out[i] = op(in[i]) in float64, with op expanded by lower_transcendentals (or left to libm when
// `soft` is false).
std::vector<double> run_op(Op op, const std::vector<double>& in, bool soft = true,
                           const std::vector<double>* in2 = nullptr) {
  Context ctx;
  const int64_t n = int64_t(in.size());
  const int64_t a0[] = {0, n}, a1[] = {1, n};
  Ref out = ctx.make(Op::kBuffer, DType::kFloat64, {}, Arg::ints(a0));
  Ref inb = ctx.make(Op::kBuffer, DType::kFloat64, {}, Arg::ints(a1));
  Ref r = ctx.range(n, 0);
  Ref x = ctx.make(Op::kLoad, DType::kFloat64, {ctx.make(Op::kIndex, DType::kFloat64, {inb, r})});
  const int64_t a2[] = {2, n};
  Ref y = ctx.make(Op::kLoad, DType::kFloat64,
                   {ctx.make(Op::kIndex, DType::kFloat64,
                             {ctx.make(Op::kBuffer, DType::kFloat64, {}, Arg::ints(a2)), r})});
  Ref v = in2 ? ctx.make(op, DType::kFloat64, {x, y}) : ctx.make(op, DType::kFloat64, {x});
  Ref st = ctx.make(Op::kStore, DType::kVoid, {ctx.make(Op::kIndex, DType::kFloat64, {out, r}), v});
  Ref sink = ctx.make(Op::kSink, DType::kVoid, {st});
  Ref lowered = soft ? lower_transcendentals(sink, [](Op, DType) { return true; }) : sink;
  EXPECT_EQ(soft, lowered != sink);
  auto k = runtime().compile(lowered);
  EXPECT_TRUE(k.ok()) << k.error().to_string();
  if (!k.ok()) return {};
  CpuBuffer ob(DType::kFloat64, in.size()), ib(DType::kFloat64, in.size());
  EXPECT_TRUE(ib.copy_in(std::as_bytes(std::span(in))).ok());
  CpuBuffer ib2(DType::kFloat64, in.size());
  std::vector<CpuBuffer*> bufs = {&ob, &ib};
  if (in2) {
    EXPECT_TRUE(ib2.copy_in(std::as_bytes(std::span(*in2))).ok());
    bufs.push_back(&ib2);
  }
  const Status s = runtime().launch(**k, bufs, {});
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  std::vector<double> got(in.size());
  EXPECT_TRUE(ob.copy_out(std::as_writable_bytes(std::span(got))).ok());
  return got;
}

long double reference(Op op, double x) {
  switch (op) {
    case Op::kExp2: return exp2l(x);
    case Op::kLog2: return log2l(x);
    default: return sinl(x);
  }
}

// |got - ref| in double ulps at ref; 0 when both are the same special value; +inf on a
// special-value mismatch.
double ulp_error(double got, long double ref) {
  const double rd = double(ref);
  if (std::isnan(rd) || std::isnan(got)) return std::isnan(rd) && std::isnan(got) ? 0 : kInf;
  if (std::isinf(rd) || std::isinf(got)) return got == rd ? 0 : kInf;
  const double a = std::fabs(rd);
  double ulp = std::nextafter(a, kInf) - a;
  if (a == DBL_MAX) ulp = std::ldexp(1.0, 971);
  return double(std::fabs((long double)got - ref) / (long double)ulp);
}

struct Sweep {
  double max_ulp = 0;
  double worst_x = 0;
  size_t n = 0;
};
Sweep measure(Op op, const std::vector<double>& xs) {
  const std::vector<double> got = run_op(op, xs);
  Sweep s;
  s.n = got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = ulp_error(got[i], reference(op, xs[i]));
    if (e > s.max_ulp || std::isnan(e)) {
      s.max_ulp = e;
      s.worst_x = xs[i];
    }
  }
  return s;
}

void expect_within(Op op, const std::vector<double>& xs, double bound, const char* what) {
  const Sweep s = measure(op, xs);
  ASSERT_EQ(s.n, xs.size());
  EXPECT_LE(s.max_ulp, bound) << op_name(op) << " " << what << ": worst at x = " << std::hexfloat
                              << s.worst_x << std::defaultfloat << " (" << s.worst_x << ")";
  std::printf("  %s %-28s %8zu values, max error %.3f ulp\n", std::string(op_name(op)).c_str(),
              what, xs.size(), s.max_ulp);
}

// Results that must equal C's exactly (bit for bit, NaN as any NaN).
void expect_exact(Op op, const std::vector<std::pair<double, double>>& cases) {
  std::vector<double> xs;
  for (auto& c : cases) xs.push_back(c.first);
  const std::vector<double> got = run_op(op, xs);
  ASSERT_EQ(got.size(), xs.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = cases[i].second;
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << op_name(op) << "(" << xs[i] << ") = " << got[i];
    } else {
      uint64_t g, w;
      std::memcpy(&g, &got[i], 8);
      std::memcpy(&w, &want, 8);
      EXPECT_EQ(g, w) << op_name(op) << "(" << std::hexfloat << xs[i] << ") = " << got[i]
                      << ", want " << want;
    }
  }
}

std::vector<double> with_neighbours(const std::vector<double>& xs, int k = 2) {
  std::vector<double> r;
  for (double x : xs) {
    double lo = x, hi = x;
    r.push_back(x);
    for (int i = 0; i < k; ++i) {
      lo = std::nextafter(lo, -kInf);
      hi = std::nextafter(hi, kInf);
      r.push_back(lo);
      r.push_back(hi);
    }
  }
  return r;
}

TEST(Transcendental, Exp2SpecialValues) {
  expect_exact(
      Op::kExp2,
      {{0.0, 1.0},         {-0.0, 1.0},     {kInf, kInf},         {-kInf, 0.0},
       {kNaN, kNaN},       {-kNaN, kNaN},   {1024.0, kInf},       {1e300, kInf},
       {DBL_MAX, kInf},    {-1076.0, 0.0},  {-1075.0, 0.0},  // 2^-1075: the tie rounds to even (0)
       {-1e300, 0.0},      {-DBL_MAX, 0.0}, {-1074.0, 0x1p-1074}, {-1022.0, 0x1p-1022},
       {1023.0, 0x1p1023}, {1.0, 2.0},      {-1.0, 0.5},          {10.0, 1024.0},
       {0x1p-1074, 1.0}});
}

TEST(Transcendental, Exp2Accuracy) {
  std::vector<double> edge = {0x1p-1074, 0x1p-1022, 1e-300,  1e-17,      0.5,
                              -0.5,      0.25,      1023.5,  1023.99999, 1023.999999999999,
                              -1022.5,   -1074.5,   -1074.9, -1060.3,    -1023.1,
                              -1030.7,   -1000.01,  700.2,   3.999999,   -3.000001};
  for (int i = -1080; i <= 1030; i += 7) edge.push_back(double(i));
  expect_within(Op::kExp2, with_neighbours(edge), 1.0, "edge values");
  std::mt19937_64 rng(test_seed());
  SCOPED_TRACE("RAWGPU_TEST_SEED to replay");
  std::uniform_real_distribution<double> wide(-1080, 1030), unit(-1, 1);
  std::vector<double> xs;
  for (int i = 0; i < 200000; ++i) xs.push_back(i % 2 ? wide(rng) : unit(rng));
  expect_within(Op::kExp2, xs, 1.0, "random [-1080,1030],[-1,1]");
}

TEST(Transcendental, Log2SpecialValues) {
  expect_exact(Op::kLog2, {{0.0, -kInf},
                           {-0.0, -kInf},
                           {kInf, kInf},
                           {-kInf, kNaN},
                           {-1.0, kNaN},
                           {-0x1p-1074, kNaN},
                           {kNaN, kNaN},
                           {1.0, 0.0},
                           {2.0, 1.0},
                           {0.5, -1.0},
                           {0x1p-1074, -1074.0},
                           {0x1p-1022, -1022.0},
                           {0x1p1023, 1023.0},
                           {1024.0, 10.0}});
}

TEST(Transcendental, Log2Accuracy) {
  std::vector<double> edge = {0x1p-1074,
                              3 * 0x1p-1074,
                              0x1.fffffffffffffp-1023,
                              0x1p-1022,
                              1e-310,
                              1e-300,
                              DBL_MAX,
                              1.0,
                              0x1.6a09e667f3bcdp+0,
                              0x1.6a09e667f3bcdp-1,
                              0.75,
                              1.5,
                              3.0,
                              1e-5,
                              1e300,
                              0.1,
                              10.0};
  expect_within(Op::kLog2, with_neighbours(edge, 4), 1.0, "edge values");
  std::mt19937_64 rng(test_seed());
  std::vector<double> xs;
  // Random positive bit patterns (every exponent, denormals included) and values near 1.
  std::uniform_int_distribution<uint64_t> bits(1, 0x7FEFFFFFFFFFFFFFull);
  std::uniform_real_distribution<double> near1(-1e-3, 1e-3), mid(0.25, 4);
  for (int i = 0; i < 200000; ++i) {
    double x;
    if (i % 3 == 0) {
      const uint64_t b = bits(rng);
      std::memcpy(&x, &b, 8);
    } else {
      x = i % 3 == 1 ? 1 + near1(rng) : mid(rng);
    }
    xs.push_back(x);
  }
  expect_within(Op::kLog2, xs, 1.0, "random bits, near 1, [.25,4]");
}

TEST(Transcendental, SinSpecialValues) {
  expect_exact(Op::kSin, {{0.0, 0.0},
                          {-0.0, -0.0},
                          {kInf, kNaN},
                          {-kInf, kNaN},
                          {kNaN, kNaN},
                          {0x1p-1074, 0x1p-1074},
                          {-0x1p-1074, -0x1p-1074},
                          {1e-300, 1e-300},
                          {-1e-20, -1e-20}});
  // Huge arguments: finite results in [-1, 1], never NaN.
  const std::vector<double> huge = {0x1p52, 1e17, -1e300, DBL_MAX, -DBL_MAX, 0x1.8p62};
  for (double g : run_op(Op::kSin, huge)) EXPECT_TRUE(g >= -1 && g <= 1) << g;
}

TEST(Transcendental, SinAccuracy) {
  // Multiples of pi/2 (the doubles nearest k*pi/2 and their neighbours): the worst cases of the
  // argument reduction.
  std::vector<double> edge = {0.5,
                              0.7853981633974483,
                              1.0,
                              1e-8,
                              0x1p-26,
                              0x1.0000000000001p-26,
                              0x1.fffffffffffffp-27,
                              1e5,
                              -1e5,
                              0x1p20 - 1,
                              0x1.921fb54442d18p+0,
                              22.0,
                              355.0,
                              103993.0};
  for (long k = -70000; k <= 70000; k += (k > -50 && k < 50) ? 1 : 997)
    edge.push_back(double(k * 1.5707963267948966192313216916397514L));
  for (long k : {6381956970095103L, 5934470581834127L, 411557987L})  // large-ish k
    if (k < (1L << 20)) edge.push_back(double(k * 1.5707963267948966192313216916397514L));
  expect_within(Op::kSin, with_neighbours(edge), 1.0, "edge values (k*pi/2...)");
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<double> wide(-1e5, 1e5), small(-10, 10), expo(-30, 20);
  std::vector<double> xs;
  for (int i = 0; i < 200000; ++i) {
    if (i % 3 == 0) xs.push_back(wide(rng));
    if (i % 3 == 1) xs.push_back(small(rng));
    if (i % 3 == 2) xs.push_back((i % 2 ? -1 : 1) * std::exp2(expo(rng)));
  }
  expect_within(Op::kSin, xs, 1.0, "random |x|<1e5, log-uniform");
}

TEST(Transcendental, SinLargeArguments) {
  // 2^20 <= |x| < 2^52: absolute error at most |x| * 2^-50.
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<double> expo(20, 52);
  std::vector<double> xs;
  for (int i = 0; i < 20000; ++i) xs.push_back((i % 2 ? -1 : 1) * std::exp2(expo(rng)));
  const std::vector<double> got = run_op(Op::kSin, xs);
  ASSERT_EQ(got.size(), xs.size());
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double err = double(std::fabs((long double)got[i] - sinl(xs[i])));
    worst = std::max(worst, err / std::fabs(xs[i]));
    ASSERT_LE(err, std::fabs(xs[i]) * 0x1p-50) << "sin(" << xs[i] << ") = " << got[i];
  }
  std::printf("  SIN 2^20 <= |x| < 2^52: max |error| / |x| = %.3g\n", worst);
}

TEST(Transcendental, PowSpecialValuesMatchC) {
  const double vals[] = {0.0,  -0.0,  1.0,    -1.0,      2.0,    -2.0,      0.5,
                         -0.5, 3.0,   -3.0,   2.5,       -2.5,   kInf,      -kInf,
                         kNaN, 1e300, -1e300, 0x1p-1074, 1e-300, 0.99999999};
  std::vector<double> xs, ys;
  for (double x : vals)
    for (double y : vals) {
      xs.push_back(x);
      ys.push_back(y);
    }
  const std::vector<double> got = run_op(Op::kPow, xs, true, &ys);
  ASSERT_EQ(got.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::pow(xs[i], ys[i]);
    const bool special = want == 0 || std::isinf(want) || want == 1 || want == -1 || xs[i] == 0 ||
                         std::isinf(xs[i]) || std::isinf(ys[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got[i])) << "pow(" << xs[i] << ", " << ys[i] << ") = " << got[i];
    } else if (special) {
      EXPECT_TRUE(got[i] == want && std::signbit(got[i]) == std::signbit(want))
          << "pow(" << xs[i] << ", " << ys[i] << ") = " << got[i] << ", want " << want;
    } else {
      EXPECT_LE(ulp_error(got[i], powl(xs[i], ys[i])), 1.0)
          << "pow(" << xs[i] << ", " << ys[i] << ") = " << got[i] << ", want " << want;
    }
  }
}

TEST(Transcendental, PowAccuracy) {
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<double> base(0, 10), expo(-20, 20), big(-1000, 1000), u(0, 1);
  // |y*log2(x)| < 64 (bound 1.5 ulp), then up to the overflow/underflow limits (bound 32 ulp:
  // log2(x) carries ~2^-60 relative error into an exponent of up to 1075).
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<double> xs, ys;
    for (int i = 0; i < 100000; ++i) {
      double x = i % 4 == 0 ? -std::floor(base(rng)) - 1 : base(rng) + 1e-3;
      double y = i % 4 == 0 ? std::floor(expo(rng)) : expo(rng);
      if (pass == 1) {
        x = std::exp2(big(rng) * u(rng));
        const double l = std::log2(x);
        y = l != 0 ? big(rng) / l : 1.0;
      } else {
        while (std::fabs(y * std::log2(std::fabs(x))) >= 64) y = std::trunc(y * 0.5);
      }
      xs.push_back(x);
      ys.push_back(y);
    }
    const std::vector<double> got = run_op(Op::kPow, xs, true, &ys);
    ASSERT_EQ(got.size(), xs.size());
    double worst = 0;
    size_t wi = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ulp_error(got[i], powl(xs[i], ys[i]));
      if (!(e <= worst)) {
        worst = e;
        wi = i;
      }
    }
    EXPECT_LE(worst, pass == 0 ? 1.5 : 32.0)
        << "pow(" << std::hexfloat << xs[wi] << ", " << ys[wi] << ") = " << got[wi];
    std::printf("  POW %-32s %8zu values, max error %.3f ulp\n",
                pass == 0 ? "|y*log2 x| < 64" : "|y*log2 x| < 1000", xs.size(), worst);
  }
}

TEST(Transcendental, OnlyFloat64IsLoweredAndLibmPathUnchanged) {
  Context ctx;
  Ref x32 = ctx.var("i", 0, 10, DType::kInt32);
  Ref f32 = cast(x32, DType::kFloat32), f64 = cast(x32, DType::kFloat64);
  Ref e32 = ctx.make(Op::kExp2, DType::kFloat32, {f32});
  EXPECT_EQ(lower_transcendentals(e32, [](Op, DType) { return true; }), e32);
  EXPECT_FALSE(soft_exp2(f32));
  Ref s64 = ctx.make(Op::kSin, DType::kFloat64, {f64});
  EXPECT_EQ(lower_transcendentals(s64, [](Op, DType) { return false; }), s64);
  Ref l = lower_transcendentals(s64, [](Op o, DType) { return o == Op::kSin; });
  ASSERT_NE(l, s64);
  for (Ref n : ctx.toposort(l)) EXPECT_FALSE(n->op() == Op::kSin) << to_string(l);
  // Nested: every level is expanded (the walk offers rebuilt parents to the rule).
  Ref nested = ctx.make(
      Op::kSin, DType::kFloat64,
      {ctx.make(Op::kLog2, DType::kFloat64, {ctx.make(Op::kExp2, DType::kFloat64, {f64})})});
  for (Ref n : ctx.toposort(lower_transcendentals(nested, [](Op, DType) { return true; })))
    EXPECT_FALSE(n->op() == Op::kSin || n->op() == Op::kLog2 || n->op() == Op::kExp2)
        << op_name(n->op());
  // Without the expansion the CPU still computes through libm (same results on plain inputs).
  const std::vector<double> xs = {0.1, 1.0, 2.5, -3.0};
  const auto soft = run_op(Op::kSin, xs, true), hard = run_op(Op::kSin, xs, false);
  ASSERT_EQ(hard.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(soft[i], hard[i], 1e-15);
}

// RAWGPU_SOFT_MATH=1 makes the CPU runtime expand float64 EXP2/LOG2/SIN itself.
TEST(Transcendental, CpuRuntimeSwitch) {
  const char* old = std::getenv("RAWGPU_SOFT_MATH");
  const std::string saved = old ? old : "";
  for (const bool on : {false, true}) {
    if (on) {
      setenv("RAWGPU_SOFT_MATH", "1", 1);
    } else {
      unsetenv("RAWGPU_SOFT_MATH");
    }
    auto rt = CpuRuntime::create({.threads = 1, .opt_level = 0});
    ASSERT_TRUE(rt.ok());
    Context ctx;
    const int64_t a0[] = {0, 4};
    Ref out = ctx.make(Op::kBuffer, DType::kFloat64, {}, Arg::ints(a0));
    Ref r = ctx.range(4, 0);
    Ref v = ctx.make(Op::kLog2, DType::kFloat64, {cast(r, DType::kFloat64)});
    Ref st =
        ctx.make(Op::kStore, DType::kVoid, {ctx.make(Op::kIndex, DType::kFloat64, {out, r}), v});
    auto k = (*rt)->compile(ctx.make(Op::kSink, DType::kVoid, {st}));
    ASSERT_TRUE(k.ok()) << k.error().to_string();
    bool has_log2 = false;
    for (const Inst& in : (*k)->program.insts) has_log2 |= in.node && in.node->op() == Op::kLog2;
    EXPECT_EQ(has_log2, !on);
    CpuBuffer ob(DType::kFloat64, 4);
    CpuBuffer* bufs[] = {&ob};
    ASSERT_TRUE((*rt)->launch(**k, bufs, {}).ok());
    std::vector<double> got(4);
    ASSERT_TRUE(ob.copy_out(std::as_writable_bytes(std::span(got))).ok());
    EXPECT_EQ(got[0], -kInf);
    EXPECT_EQ(got[1], 0.0);
    EXPECT_EQ(got[2], 1.0);
    EXPECT_DOUBLE_EQ(got[3], std::log2(3.0));
  }
  if (old) {
    setenv("RAWGPU_SOFT_MATH", saved.c_str(), 1);
  } else {
    unsetenv("RAWGPU_SOFT_MATH");
  }
}

TEST(Transcendental, ExpansionSize) {
  Context ctx;
  Ref x = cast(ctx.var("i", 0, 10, DType::kInt32), DType::kFloat64);
  const size_t base = ctx.toposort(x).size();
  for (auto [name, fn] :
       {std::pair{"exp2", &soft_exp2}, {"log2", &soft_log2}, {"sin", &soft_sin}}) {
    const auto nodes = ctx.toposort(fn(x));
    size_t alu = 0;
    for (Ref n : nodes) alu += ops::kAlu.has(n->op());
    EXPECT_LT(nodes.size() - base, 200u);
    std::printf("  %s: %zu ALU nodes (constants excluded)\n", name, alu - 1);
  }
  size_t alu = 0;
  for (Ref n : ctx.toposort(soft_pow(x, x))) alu += ops::kAlu.has(n->op());
  std::printf("  pow: %zu ALU nodes (constants excluded)\n", alu - 1);
}

TEST(Transcendental, TargetHook) {
  for (const char* t : {"gfx1100", "gfx1201", "gfx942", "sm_80"}) {
    auto g = gpu_target(t);
    ASSERT_TRUE(g.ok());
    for (Op op : {Op::kExp2, Op::kLog2, Op::kSin}) {
      EXPECT_TRUE(needs_soft_math(*g, op, DType::kFloat64)) << t;
      EXPECT_FALSE(needs_soft_math(*g, op, DType::kFloat32)) << t;
    }
    EXPECT_TRUE(needs_soft_math(*g, Op::kPow, DType::kFloat64)) << t;
    // LLVM expands f32 pow for AMDGPU; NVPTX cannot select pow of any type.
    EXPECT_EQ(needs_soft_math(*g, Op::kPow, DType::kFloat32), g->arch == GpuArch::kNv) << t;
    EXPECT_FALSE(needs_soft_math(*g, Op::kSqrt, DType::kFloat64)) << t;
  }
  auto host = gpu_target("host");
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(needs_soft_math(*host, Op::kExp2, DType::kFloat64), force_soft_math());
}

// float64 exp2/log2/sin kernels compile for AMDGPU and NVPTX (before: kUnsupported "no math
// lowering" on AMDGPU, f32 approximations on NVPTX).
TEST(Transcendental, GpuTargetsCompileFloat64) {
  for (const char* t : {"gfx1100", "gfx1201", "sm_80"}) {
    auto g = gpu_target(t);
    ASSERT_TRUE(g.ok());
    for (Op op : {Op::kExp2, Op::kLog2, Op::kSin, Op::kPow}) {
      Context ctx;
      const int64_t a0[] = {0, 64}, a1[] = {1, 64};
      Ref out = ctx.make(Op::kBuffer, DType::kFloat64, {}, Arg::ints(a0));
      Ref inb = ctx.make(Op::kBuffer, DType::kFloat64, {}, Arg::ints(a1));
      Ref r = ctx.range(64, 0);
      Ref x =
          ctx.make(Op::kLoad, DType::kFloat64, {ctx.make(Op::kIndex, DType::kFloat64, {inb, r})});
      Ref st = ctx.make(Op::kStore, DType::kVoid,
                        {ctx.make(Op::kIndex, DType::kFloat64, {out, r}),
                         op == Op::kPow ? ctx.make(op, DType::kFloat64, {x, x})
                                        : ctx.make(op, DType::kFloat64, {x})});
      Ref sink = ctx.make(Op::kSink, DType::kVoid, {st});
      GpuOptions o;
      o.assemble = false;
      auto spec = compile_gpu(sink, "k", *g, o);
      ASSERT_TRUE(spec.ok()) << t << " " << op_name(op) << ": " << spec.error().to_string();
      for (const Inst& in : spec->program.insts)
        EXPECT_NE(in.node ? in.node->op() : Op::kNoop, op)
            << t << ": " << op_name(op) << " left in the program";
      if (g->arch == GpuArch::kNv) {
        EXPECT_EQ(spec->assembly.find(".approx.f32"), std::string::npos) << spec->assembly;
      }
    }
  }
}

// NVPTX cannot select pow of any float type (LLVM aborted the process): f32 and f16 pow compile
// through the float64 expansion; AMDGPU keeps LLVM's own f32 pow.
TEST(Transcendental, PowOtherFloatTypesCompile) {
  for (const char* t : {"sm_80", "gfx1100"})
    for (DType dt : {DType::kFloat32, DType::kFloat16}) {
      auto g = gpu_target(t);
      ASSERT_TRUE(g.ok());
      Context ctx;
      const int64_t a0[] = {0, 64}, a1[] = {1, 64};
      Ref out = ctx.make(Op::kBuffer, dt, {}, Arg::ints(a0));
      Ref inb = ctx.make(Op::kBuffer, dt, {}, Arg::ints(a1));
      Ref r = ctx.range(64, 0);
      Ref x = ctx.make(Op::kLoad, dt, {ctx.make(Op::kIndex, dt, {inb, r})});
      Ref st = ctx.make(Op::kStore, DType::kVoid,
                        {ctx.make(Op::kIndex, dt, {out, r}), ctx.make(Op::kPow, dt, {x, x})});
      GpuOptions o;
      o.assemble = false;
      auto spec = compile_gpu(ctx.make(Op::kSink, DType::kVoid, {st}), "k", *g, o);
      ASSERT_TRUE(spec.ok()) << t << ": " << spec.error().to_string();
      bool has_pow = false;
      for (const Inst& in : spec->program.insts) has_pow |= in.node && in.node->op() == Op::kPow;
      EXPECT_EQ(has_pow, g->arch == GpuArch::kAmd) << t << " " << dtype_name(dt);
    }
}

}  // namespace
}  // namespace rawgpu::compiler
