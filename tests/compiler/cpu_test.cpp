// Kernel ASTs built by hand, lowered, linearized, compiled through LLVM and run on the host CPU;
// results are checked against plain reference loops written here.
//
// Tolerances: integer kernels and float kernels whose reference performs the same operations in
// the same order (elementwise, max) must match exactly; float sums are compared with a relative
// tolerance of 1e-5 (f32) / 1e-12 (f64) of the sum of magnitudes, because the reference
// accumulates in double; f16 results within 1 half ulp (relative 2^-10) of the rounded
// reference.
#include "rawgpu/compiler/cpu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "../test_seed.h"
#include "cpu_runtime_fixture.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/linearize.h"

namespace rawgpu::compiler {
namespace {

using rawgpu::test_util::test_seed;

CpuRuntime& runtime() { return test_util::shared_runtime({.threads = 3, .opt_level = 3}); }

// Kernel AST building helpers.
struct K {
  Context ctx;
  Ref buffer(int64_t slot, DType t, int64_t count) {
    const int64_t a[] = {slot, count};
    return ctx.make(Op::kBuffer, t, {}, Arg::ints(a));
  }
  Ref index(Ref b, Ref i) { return ctx.make(Op::kIndex, b->dtype(), {b, i}); }
  Ref load(Ref b, Ref i) { return ctx.make(Op::kLoad, b->dtype(), {index(b, i)}); }
  Ref store(Ref b, Ref i, Ref v) { return ctx.make(Op::kStore, DType::kVoid, {index(b, i), v}); }
  Ref alu(Op op, Ref a, Ref b) { return ctx.make(op, a->dtype(), {a, b}); }
  Ref reduce(Op op, Ref v, std::initializer_list<Ref> rs) {
    std::vector<Ref> src{v};
    src.insert(src.end(), rs.begin(), rs.end());
    return ctx.make(Op::kReduce, v->dtype(), src, Arg::op(op));
  }
  Ref sink(std::initializer_list<Ref> stores) { return ctx.make(Op::kSink, DType::kVoid, stores); }
  Ref loop(int64_t n, int64_t axis) { return ctx.range(n, axis, kAxisLoop); }
  Ref red(int64_t n, int64_t axis) { return ctx.range(n, axis, kAxisReduce); }
};

template <class T>
CpuBuffer make_buffer(DType t, const std::vector<T>& v) {
  CpuBuffer b(t, v.size());
  EXPECT_TRUE(b.copy_in(std::as_bytes(std::span(v))).ok());
  return b;
}
template <class T>
std::vector<T> read(const CpuBuffer& b) {
  std::vector<T> v(b.count());
  EXPECT_TRUE(b.copy_out(std::as_writable_bytes(std::span(v))).ok());
  return v;
}

Status run(Ref sink, std::vector<CpuBuffer*> bufs, std::vector<int64_t> vars = {}) {
  auto k = runtime().compile(sink);
  if (!k.ok()) return std::move(k).take_error();
  return runtime().launch(**k, bufs, vars);
}

template <class T>
std::vector<T> random_values(std::mt19937_64& rng, size_t n, double lo, double hi) {
  std::vector<T> v(n);
  std::uniform_real_distribution<double> d(lo, hi);
  for (auto& x : v) x = static_cast<T>(std::is_integral_v<T> ? std::floor(d(rng)) : d(rng));
  return v;
}

// out[i, j] = a[i, j] <op> b[j]: broadcasting b along i through its index.
template <class T>
void elementwise_case(DType t, Op op, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "seed " << seed << " (RAWGPU_TEST_SEED=" << seed << ") "
                                  << dtype_name(t) << " " << op_name(op));
  std::mt19937_64 rng(seed);
  const int64_t R = 13, C = 7;
  K k;
  Ref out = k.buffer(0, t, R * C), a = k.buffer(1, t, R * C), b = k.buffer(2, t, C);
  Ref i = k.loop(R, 0), j = k.loop(C, 1);
  Ref v = k.alu(op, k.load(a, i * C + j), k.load(b, j));
  Ref sink = k.sink({k.store(out, i * C + j, v)});
  auto av = random_values<T>(rng, R * C, -50, 50), bv = random_values<T>(rng, C, -50, 50);
  CpuBuffer ob(t, R * C), ab = make_buffer(t, av), bb = make_buffer(t, bv);
  Status s = run(sink, {&ob, &ab, &bb});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<T>(ob);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      const T x = av[size_t(r * C + c)], y = bv[size_t(c)];
      const T want = op == Op::kAdd ? T(x + y) : op == Op::kMul ? T(x * y) : std::max(x, y);
      ASSERT_EQ(got[size_t(r * C + c)], want) << "at " << r << "," << c;
    }
}

TEST(CpuKernel, ElementwiseBroadcast) {
  const uint64_t seed = test_seed();
  for (Op op : {Op::kAdd, Op::kMul, Op::kMax}) {
    elementwise_case<float>(DType::kFloat32, op, seed);
    elementwise_case<double>(DType::kFloat64, op, seed);
    elementwise_case<int32_t>(DType::kInt32, op, seed);
    elementwise_case<int64_t>(DType::kInt64, op, seed);
  }
}

TEST(CpuKernel, Float16ThroughFloat32) {
  // out = half(float(a) * float(b) + 1.5): loads and stores f16, math in f32.
  const uint64_t seed = test_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t N = 37;
  K k;
  Ref out = k.buffer(0, DType::kFloat16, N), a = k.buffer(1, DType::kFloat16, N),
      b = k.buffer(2, DType::kFloat16, N);
  Ref i = k.loop(N, 0);
  auto f32 = [&](Ref x) { return cast(x, DType::kFloat32); };
  Ref v = k.alu(Op::kAdd, k.alu(Op::kMul, f32(k.load(a, i)), f32(k.load(b, i))),
                k.ctx.cfloat(1.5, DType::kFloat32));
  Ref sink = k.sink({k.store(out, i, cast(v, DType::kFloat16))});
  std::vector<uint16_t> av(N), bv(N);
  std::uniform_real_distribution<float> d(-8, 8);
  for (int64_t n = 0; n < N; ++n) {
    av[size_t(n)] = float_to_half(d(rng));
    bv[size_t(n)] = float_to_half(d(rng));
  }
  CpuBuffer ob(DType::kFloat16, N), ab = make_buffer(DType::kFloat16, av),
                                    bb = make_buffer(DType::kFloat16, bv);
  Status s = run(sink, {&ob, &ab, &bb});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<uint16_t>(ob);
  for (int64_t n = 0; n < N; ++n) {
    const double want = double(half_to_float(av[size_t(n)])) * half_to_float(bv[size_t(n)]) + 1.5;
    const double g = half_to_float(got[size_t(n)]);
    EXPECT_NEAR(g, want, std::abs(want) * std::ldexp(1.0, -10) + 1e-7) << "at " << n;
  }
}

TEST(CpuKernel, MaskedPaddedLoadAndGatedStore) {
  // out[i] = i in [2, 2+N) ? a[i-2] : -1 for i < N+4 (a pad of 2 each side with value -1),
  // and out2[i] written only for even i.
  const int64_t N = 9, M = N + 4;
  K k;
  Ref out = k.buffer(0, DType::kFloat32, M), a = k.buffer(1, DType::kFloat32, N),
      out2 = k.buffer(2, DType::kInt32, M);
  Ref i = k.loop(M, 0);
  Ref gate = logical_not(cmplt(i, 2)) & cmplt(i, N + 2);
  Ref idx = where(gate, i - 2, k.ctx.invalid());
  Ref ld = k.ctx.make(Op::kLoad, DType::kFloat32, {k.index(a, idx), k.ctx.cfloat(-1.0)});
  Ref even = cmpeq(i % 2, 0);
  Ref st2 = k.store(out2, where(even, i, k.ctx.invalid()), cast(i, DType::kInt32) * 10);
  Ref sink = k.sink({k.store(out, i, ld), st2});
  std::vector<float> av(N);
  for (int64_t n = 0; n < N; ++n) av[size_t(n)] = float(n) + 0.25f;
  CpuBuffer ob(DType::kFloat32, M), ab = make_buffer(DType::kFloat32, av),
                                    o2 = make_buffer(DType::kInt32, std::vector<int32_t>(M, 7));
  Status s = run(sink, {&ob, &ab, &o2});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<float>(ob);
  auto got2 = read<int32_t>(o2);
  for (int64_t n = 0; n < M; ++n) {
    EXPECT_EQ(got[size_t(n)], n >= 2 && n < N + 2 ? av[size_t(n - 2)] : -1.0f) << n;
    EXPECT_EQ(got2[size_t(n)], n % 2 == 0 ? int32_t(n * 10) : 7) << n;
  }
}

template <class T>
void reduce_case(DType t, Op op, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "seed " << seed << " " << dtype_name(t) << " " << op_name(op));
  std::mt19937_64 rng(seed);
  const int64_t R = 11, C = 29;
  K k;
  Ref out = k.buffer(0, t, R), a = k.buffer(1, t, R * C);
  Ref i = k.loop(R, 0), r = k.red(C, 1);
  Ref sink = k.sink({k.store(out, i, k.reduce(op, k.load(a, i * C + r), {r}))});
  auto av = random_values<T>(rng, R * C, -100, 100);
  CpuBuffer ob(t, R), ab = make_buffer(t, av);
  Status s = run(sink, {&ob, &ab});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<T>(ob);
  for (int64_t x = 0; x < R; ++x) {
    double acc = op == Op::kAdd ? 0.0 : -INFINITY, mag = 0;
    for (int64_t y = 0; y < C; ++y) {
      const double v = double(av[size_t(x * C + y)]);
      acc = op == Op::kAdd ? acc + v : std::max(acc, v);
      mag += std::abs(v);
    }
    if (std::is_integral_v<T> || op == Op::kMax) {
      EXPECT_EQ(double(got[size_t(x)]), acc) << "row " << x;
    } else {
      const double tol = (std::is_same_v<T, float> ? 1e-5 : 1e-12) * mag;
      EXPECT_NEAR(double(got[size_t(x)]), acc, tol) << "row " << x;
    }
  }
}

TEST(CpuKernel, SumAndMaxReductions) {
  const uint64_t seed = test_seed();
  for (Op op : {Op::kAdd, Op::kMax}) {
    reduce_case<float>(DType::kFloat32, op, seed);
    reduce_case<double>(DType::kFloat64, op, seed);
    reduce_case<int32_t>(DType::kInt32, op, seed);
  }
}

TEST(CpuKernel, FullReductionToScalar) {
  const int64_t N = 1000;
  K k;
  Ref out = k.buffer(0, DType::kInt64, 1), a = k.buffer(1, DType::kInt64, N);
  Ref r = k.red(N, 0);
  Ref sink = k.sink({k.store(out, k.ctx.cint(0), k.reduce(Op::kAdd, k.load(a, r), {r}))});
  std::vector<int64_t> av(N);
  int64_t want = 0;
  for (int64_t n = 0; n < N; ++n) want += (av[size_t(n)] = n * n - 7);
  CpuBuffer ob(DType::kInt64, 1), ab = make_buffer(DType::kInt64, av);
  Status s = run(sink, {&ob, &ab});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(read<int64_t>(ob)[0], want);
}

template <class T>
void matmul_case(DType t, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "seed " << seed << " " << dtype_name(t));
  std::mt19937_64 rng(seed);
  const int64_t M = 5, Kd = 6, N = 7;
  K k;
  Ref c = k.buffer(0, t, M * N), a = k.buffer(1, t, M * Kd), b = k.buffer(2, t, Kd * N);
  Ref i = k.loop(M, 0), j = k.loop(N, 1), r = k.red(Kd, 2);
  Ref prod = k.alu(Op::kMul, k.load(a, i * Kd + r), k.load(b, r * N + j));
  Ref sink = k.sink({k.store(c, i * N + j, k.reduce(Op::kAdd, prod, {r}))});
  auto av = random_values<T>(rng, M * Kd, -4, 4), bv = random_values<T>(rng, Kd * N, -4, 4);
  CpuBuffer cb(t, M * N), ab = make_buffer(t, av), bb = make_buffer(t, bv);
  Status s = run(sink, {&cb, &ab, &bb});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<T>(cb);
  for (int64_t x = 0; x < M; ++x)
    for (int64_t y = 0; y < N; ++y) {
      double acc = 0, mag = 0;
      for (int64_t z = 0; z < Kd; ++z) {
        const double p = double(av[size_t(x * Kd + z)]) * double(bv[size_t(z * N + y)]);
        acc += p;
        mag += std::abs(p);
      }
      EXPECT_NEAR(double(got[size_t(x * N + y)]), acc,
                  std::is_integral_v<T> ? 0.0 : (std::is_same_v<T, float> ? 1e-5 : 1e-12) * mag)
          << x << "," << y;
    }
}

TEST(CpuKernel, Matmul) {
  const uint64_t seed = test_seed();
  matmul_case<float>(DType::kFloat32, seed);
  matmul_case<double>(DType::kFloat64, seed);
  matmul_case<int32_t>(DType::kInt32, seed);
}

TEST(CpuKernel, ReduceFeedsElementwiseAndTranscendental) {
  // out[i, j] = exp2(a[i, j] - max_k a[i, k]): the max is hoisted out of the j loop.
  const uint64_t seed = test_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t R = 6, C = 10;
  K k;
  Ref out = k.buffer(0, DType::kFloat32, R * C), a = k.buffer(1, DType::kFloat32, R * C);
  Ref i = k.loop(R, 0), j = k.loop(C, 1), r = k.red(C, 2);
  Ref mx = k.reduce(Op::kMax, k.load(a, i * C + r), {r});
  Ref v = k.ctx.make(Op::kExp2, DType::kFloat32,
                     {k.ctx.make(Op::kSub, DType::kFloat32, {k.load(a, i * C + j), mx})});
  Ref sink = k.sink({k.store(out, i * C + j, v)});
  auto pr = linearize(sink);
  ASSERT_TRUE(pr.ok()) << pr.error().to_string();
  // The max's loop (r) sits directly in loop i, before loop j: hoisted, computed once per row.
  std::vector<std::pair<InstKind, uint32_t>> loops;
  for (const Inst& in : pr->insts)
    if (in.kind == InstKind::kLoopBegin) loops.push_back({in.kind, in.depth});
  ASSERT_EQ(loops.size(), 3u) << pr->to_string();
  EXPECT_EQ(loops[1].second, 1u) << pr->to_string();
  EXPECT_EQ(loops[2].second, 1u) << pr->to_string();
  auto av = random_values<float>(rng, R * C, -3, 3);
  CpuBuffer ob(DType::kFloat32, R * C), ab = make_buffer(DType::kFloat32, av);
  Status s = run(sink, {&ob, &ab});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<float>(ob);
  for (int64_t x = 0; x < R; ++x) {
    float m = -INFINITY;
    for (int64_t y = 0; y < C; ++y) m = std::max(m, av[size_t(x * C + y)]);
    for (int64_t y = 0; y < C; ++y)
      EXPECT_NEAR(got[size_t(x * C + y)], std::exp2(double(av[size_t(x * C + y)] - m)), 1e-6)
          << x << "," << y;
  }
}

TEST(CpuKernel, SoftmaxDenominatorNestsTwoReductions) {
  // out[i] = sum_c exp2(a[i, c] - max_d a[i, d]): the max's loop must complete before the sum's.
  const uint64_t seed = test_seed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t R = 4, C = 9;
  K k;
  Ref out = k.buffer(0, DType::kFloat64, R), a = k.buffer(1, DType::kFloat64, R * C);
  Ref i = k.loop(R, 0), c = k.red(C, 1), d = k.red(C, 2);
  Ref mx = k.reduce(Op::kMax, k.load(a, i * C + d), {d});
  Ref e = k.ctx.make(Op::kExp2, DType::kFloat64,
                     {k.ctx.make(Op::kSub, DType::kFloat64, {k.load(a, i * C + c), mx})});
  Ref sink = k.sink({k.store(out, i, k.reduce(Op::kAdd, e, {c}))});
  auto av = random_values<double>(rng, R * C, -5, 5);
  CpuBuffer ob(DType::kFloat64, R), ab = make_buffer(DType::kFloat64, av);
  Status s = run(sink, {&ob, &ab});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<double>(ob);
  for (int64_t x = 0; x < R; ++x) {
    double m = -INFINITY, sum = 0;
    for (int64_t y = 0; y < C; ++y) m = std::max(m, av[size_t(x * C + y)]);
    for (int64_t y = 0; y < C; ++y) sum += std::exp2(av[size_t(x * C + y)] - m);
    EXPECT_NEAR(got[size_t(x)], sum, 1e-12 * sum) << "row " << x;
  }
}

TEST(CpuKernel, ComparisonsBoolsUnsignedAndCasts) {
  // lt[i] = a[i] < b[i] (bool buffer); sel[i] = where(lt, a, b) as float64;
  // w[i] = u8(a[i]) + 200 (wraps modulo 256); q[i] = a[i] / 3 and r[i] = a[i] % 3 (C semantics).
  const int64_t N = 21;
  K k;
  Ref lt = k.buffer(0, DType::kBool, N), sel = k.buffer(1, DType::kFloat64, N),
      w = k.buffer(2, DType::kUInt8, N), q = k.buffer(3, DType::kInt32, N),
      r = k.buffer(4, DType::kInt32, N), a = k.buffer(5, DType::kInt32, N),
      b = k.buffer(6, DType::kInt32, N);
  Ref i = k.loop(N, 0);
  Ref av = k.load(a, i), bv = k.load(b, i);
  Ref less = cmplt(av, bv);
  Ref three = k.ctx.cint(3, DType::kInt32);
  Ref sink = k.sink({
      k.store(lt, i, less),
      k.store(sel, i, cast(where(less, av, bv), DType::kFloat64)),
      k.store(w, i, k.alu(Op::kAdd, cast(av, DType::kUInt8), k.ctx.cint(200, DType::kUInt8))),
      k.store(q, i, k.alu(Op::kIDiv, av, three)),
      k.store(r, i, k.alu(Op::kMod, av, three)),
  });
  std::vector<int32_t> ah(N), bh(N);
  for (int64_t x = 0; x < N; ++x) {
    ah[size_t(x)] = int32_t(x * 7 - 70);
    bh[size_t(x)] = int32_t(50 - x * 5);
  }
  CpuBuffer ltb(DType::kBool, N), selb(DType::kFloat64, N), wb(DType::kUInt8, N),
      qb(DType::kInt32, N), rb(DType::kInt32, N), ab = make_buffer(DType::kInt32, ah),
                                                  bb = make_buffer(DType::kInt32, bh);
  Status s = run(sink, {&ltb, &selb, &wb, &qb, &rb, &ab, &bb});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto ltv = read<uint8_t>(ltb);
  auto selv = read<double>(selb);
  auto wv = read<uint8_t>(wb);
  auto qv = read<int32_t>(qb), rv = read<int32_t>(rb);
  for (int64_t x = 0; x < N; ++x) {
    const int32_t p = ah[size_t(x)], o = bh[size_t(x)];
    EXPECT_EQ(ltv[size_t(x)], p < o ? 1 : 0) << x;
    EXPECT_EQ(selv[size_t(x)], double(p < o ? p : o)) << x;
    EXPECT_EQ(wv[size_t(x)], uint8_t((uint32_t(p) + 200u) & 0xff)) << x;
    EXPECT_EQ(qv[size_t(x)], p / 3) << x;
    EXPECT_EQ(rv[size_t(x)], p % 3) << x;
  }
}

TEST(CpuKernel, EndClosesTheOutputLoops) {
  // STORE wrapped in END(store, j, i): same result as the bare store (a transpose here).
  const int64_t R = 3, C = 5;
  K k;
  Ref out = k.buffer(0, DType::kInt32, R * C), a = k.buffer(1, DType::kInt32, R * C);
  Ref i = k.loop(R, 0), j = k.loop(C, 1);
  Ref st = k.store(out, j * R + i, k.load(a, i * C + j));
  Ref end = k.ctx.make(Op::kEnd, DType::kVoid, {st, j, i});
  std::vector<int32_t> ah(R * C);
  for (int64_t x = 0; x < R * C; ++x) ah[size_t(x)] = int32_t(x * 3 + 1);
  CpuBuffer ob(DType::kInt32, R * C), ab = make_buffer(DType::kInt32, ah);
  Status s = run(k.sink({end}), {&ob, &ab});
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto got = read<int32_t>(ob);
  for (int64_t x = 0; x < R; ++x)
    for (int64_t y = 0; y < C; ++y) EXPECT_EQ(got[size_t(y * R + x)], ah[size_t(x * C + y)]);
}

TEST(CpuKernel, VariableLoopBoundAndThreadSplit) {
  // out[i] = a[i] * 3 for i < n (n a launch variable), big enough to be split over threads.
  const int64_t N = 100003;
  K k;
  Ref n = k.ctx.var("n", 1, N);
  Ref out = k.buffer(0, DType::kInt32, N), a = k.buffer(1, DType::kInt32, N);
  Ref i = k.ctx.range(n, 0, kAxisLoop);
  Ref sink = k.sink({k.store(out, i, k.alu(Op::kMul, k.load(a, i), k.ctx.cint(3, DType::kInt32)))});
  std::vector<int32_t> av(N);
  for (int64_t x = 0; x < N; ++x) av[size_t(x)] = int32_t(x % 1000 - 500);
  auto kr = runtime().compile(sink);
  ASSERT_TRUE(kr.ok()) << kr.error().to_string();
  EXPECT_GE((*kr)->program.parallel_loop, 0) << (*kr)->program.to_string();
  ASSERT_EQ((*kr)->program.vars.size(), 1u);
  // The launch log (RAWGPU_DEBUG=2) says how many threads ran it.
  std::vector<std::string> launches;
  auto old_sink = log::set_sink([&](std::string_view tag, int, std::string_view m) {
    if (tag == "compiler") launches.emplace_back(m);
  });
  const log::Config old_config = log::config();
  log::set_config(*log::parse_config("2"));
  for (int64_t count : {int64_t{1}, int64_t{2}, int64_t{777}, N}) {
    CpuBuffer ob = make_buffer(DType::kInt32, std::vector<int32_t>(N, -1));
    CpuBuffer ab = make_buffer(DType::kInt32, av);
    CpuBuffer* bufs[] = {&ob, &ab};
    const int64_t vars[] = {count};
    Status s = runtime().launch(**kr, bufs, vars);
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    auto got = read<int32_t>(ob);
    for (int64_t x = 0; x < N; ++x)
      ASSERT_EQ(got[size_t(x)], x < count ? av[size_t(x)] * 3 : -1) << "n=" << count << " at " << x;
  }
  log::set_config(old_config);
  log::set_sink(old_sink);
  ASSERT_EQ(launches.size(), 4u);
  for (const auto& l : launches) EXPECT_NE(l.find("(3 threads)"), std::string::npos) << l;
  CpuBuffer ob(DType::kInt32, N), ab(DType::kInt32, N);
  CpuBuffer* bufs[] = {&ob, &ab};
  const int64_t bad[] = {N + 1};
  Status s = runtime().launch(**kr, bufs, bad);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.error().is(Errc::kOutOfRange));
  EXPECT_NE(s.error().message().find("'n'"), std::string::npos) << s.error().message();
}

TEST(CpuKernel, CompileCacheByContentHash) {
  auto build = [](K& k) {
    Ref out = k.buffer(0, DType::kFloat32, 8), a = k.buffer(1, DType::kFloat32, 8);
    Ref i = k.loop(8, 0);
    return k.sink({k.store(out, i, k.alu(Op::kAdd, k.load(a, i), k.load(a, i)))});
  };
  K k1, k2;
  Ref s1 = build(k1), s2 = build(k2);
  auto a = runtime().compile(s1);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  const uint64_t hits = runtime().cache_hits();
  const size_t size = runtime().cache_size();
  auto b = runtime().compile(s2);  // another Context, same structure
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(runtime().cache_hits(), hits + 1);
  EXPECT_EQ(runtime().cache_size(), size);
}

TEST(CpuKernel, MalformedAstIsATypedErrorAndNothingRuns) {
  K k;
  Ref out = k.buffer(0, DType::kFloat32, 4), a = k.buffer(1, DType::kFloat32, 4);
  Ref i = k.loop(4, 0);
  // ADD of a float32 and an int32.
  Ref bad = k.ctx.make(Op::kAdd, DType::kFloat32, {k.load(a, i), k.ctx.cint(1, DType::kInt32)});
  Ref sink = k.sink({k.store(out, i, bad)});
  const size_t before = runtime().cache_size();
  auto r = runtime().compile(sink);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kInvalidArgument));
  const std::string msg = r.error().to_string();
  EXPECT_NE(msg.find("alu-operands"), std::string::npos) << msg;
  EXPECT_NE(msg.find(strformat("%%%u = ADD float32", bad->id())), std::string::npos) << msg;
  EXPECT_EQ(runtime().cache_size(), before);

  // A REDUCE over a non-RANGE, and an unsupported op.
  Ref r2 =
      k.ctx.make(Op::kReduce, DType::kFloat32, {k.load(a, i), k.ctx.cint(3)}, Arg::op(Op::kAdd));
  auto e2 = linearize(k.sink({k.store(out, i, r2)}));
  ASSERT_FALSE(e2.ok());
  EXPECT_NE(e2.error().to_string().find("closes-ranges"), std::string::npos)
      << e2.error().to_string();
  Ref tf = k.ctx.make(Op::kThreefry, DType::kUInt64,
                      {k.ctx.cint(1, DType::kUInt64), k.ctx.cint(2, DType::kUInt64)});
  Ref out64 = k.buffer(2, DType::kUInt64, 4);
  auto e3 = runtime().compile(k.sink({k.store(out64, i, tf)}));
  ASSERT_FALSE(e3.ok());
  EXPECT_TRUE(e3.error().is(Errc::kUnsupported)) << e3.error().to_string();
  EXPECT_NE(e3.error().to_string().find("THREEFRY"), std::string::npos) << e3.error().to_string();
}

TEST(CpuKernel, UnoptimizedAndSingleThreadedRuntimesAgree) {
  // The same masked reduction at O0 (the generated IR as built) and O2, on 1 and 2 threads:
  // out[i] = sum_r (i + r < 10 ? a[i + r] : 0) over a 4-wide window.
  for (int opt : {0, 2}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "O" << opt << ", " << threads << " threads");
      auto rt = CpuRuntime::create({.threads = threads, .opt_level = opt});
      ASSERT_TRUE(rt.ok()) << rt.error().to_string();
      EXPECT_EQ((*rt)->threads(), threads);
      K k;
      Ref out = k.buffer(0, DType::kInt32, 10), a = k.buffer(1, DType::kInt32, 10);
      Ref i = k.loop(10, 0), r = k.red(4, 1);
      Ref idx = where(cmplt(i + r, 10), i + r, k.ctx.invalid());
      Ref sink = k.sink({k.store(out, i, k.reduce(Op::kAdd, k.load(a, idx), {r}))});
      auto kr = (*rt)->compile(sink);
      ASSERT_TRUE(kr.ok()) << kr.error().to_string();
      std::vector<int32_t> ah(10);
      for (int x = 0; x < 10; ++x) ah[size_t(x)] = x * x - 3;
      CpuBuffer ob(DType::kInt32, 10), ab = make_buffer(DType::kInt32, ah);
      CpuBuffer* bufs[] = {&ob, &ab};
      ASSERT_TRUE((*rt)->launch(**kr, bufs, {}).ok());
      auto got = read<int32_t>(ob);
      for (int x = 0; x < 10; ++x) {
        int32_t want = 0;
        for (int y = 0; y < 4; ++y)
          if (x + y < 10) want += ah[size_t(x + y)];
        EXPECT_EQ(got[size_t(x)], want) << x;
      }
    }
  }
  EXPECT_FALSE(CpuRuntime::create({.threads = 1, .opt_level = 4}).ok());
}

TEST(CpuKernel, OutOfBoundsIndexIsRejectedAtCompileTime) {
  K k;
  Ref out = k.buffer(0, DType::kFloat32, 8), a = k.buffer(1, DType::kFloat32, 8);
  Ref i = k.loop(8, 0);
  // a[i + 1] reads a[8] in the last iteration.
  auto r = linearize(k.sink({k.store(out, i, k.load(a, i + 1))}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kOutOfRange));
  EXPECT_NE(r.error().message().find("index range [1, 8] is outside buffer slot 1 of 8"),
            std::string::npos)
      << r.error().message();
  // The same access masked to the valid part compiles.
  Ref idx = where(cmplt(i, 7), i + 1, k.ctx.invalid());
  EXPECT_TRUE(linearize(k.sink({k.store(out, i, k.load(a, idx))})).ok());
}

TEST(CpuKernel, LaunchChecksArgumentsBeforeRunning) {
  K k;
  Ref out = k.buffer(0, DType::kFloat32, 16), a = k.buffer(1, DType::kFloat32, 16);
  Ref i = k.loop(16, 0);
  auto kr = runtime().compile(k.sink({k.store(out, i, k.load(a, i))}));
  ASSERT_TRUE(kr.ok()) << kr.error().to_string();
  CpuBuffer ob = make_buffer(DType::kFloat32, std::vector<float>(16, 5.0f));
  CpuBuffer ab = make_buffer(DType::kFloat32, std::vector<float>(16, 1.0f));
  CpuBuffer wrong_type(DType::kInt32, 16), too_small(DType::kFloat32, 15);
  {
    CpuBuffer* bufs[] = {&ob, &wrong_type};
    Status s = runtime().launch(**kr, bufs, {});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message().find("slot 1 is int32"), std::string::npos)
        << s.error().message();
  }
  {
    CpuBuffer* bufs[] = {&ob, &too_small};
    Status s = runtime().launch(**kr, bufs, {});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message().find("15 elements"), std::string::npos) << s.error().message();
  }
  {
    CpuBuffer* bufs[] = {&ob};
    EXPECT_FALSE(runtime().launch(**kr, bufs, {}).ok());
  }
  EXPECT_EQ(read<float>(ob), std::vector<float>(16, 5.0f));  // untouched by failed launches
  std::vector<std::byte> small(3);
  EXPECT_TRUE(ob.copy_out(small).error().is(Errc::kInvalidArgument));
}

TEST(CpuKernel, Debug4PrintsLlvmIr) {
  std::vector<std::string> lines;
  auto old_sink = log::set_sink([&](std::string_view tag, int, std::string_view m) {
    if (tag == "llvm") lines.emplace_back(m);
  });
  const log::Config old = log::config();
  log::set_config(*log::parse_config("4"));
  K k;
  Ref out = k.buffer(0, DType::kFloat64, 3), a = k.buffer(1, DType::kFloat64, 3);
  Ref i = k.loop(3, 0);
  // A structure no other test compiles, so the cache cannot hide the compile.
  Ref sink = k.sink({k.store(out, i, k.ctx.make(Op::kSqrt, DType::kFloat64, {k.load(a, i)}))});
  auto kr = runtime().compile(sink);
  log::set_config(old);
  log::set_sink(old_sink);
  ASSERT_TRUE(kr.ok()) << kr.error().to_string();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("define void @" + (*kr)->name + "(ptr"), std::string::npos) << lines[0];
  CpuBuffer ob(DType::kFloat64, 3), ab = make_buffer(DType::kFloat64, std::vector<double>{4, 2, 0});
  CpuBuffer* bufs[] = {&ob, &ab};
  ASSERT_TRUE(runtime().launch(**kr, bufs, {}).ok());
  EXPECT_EQ(read<double>(ob), (std::vector<double>{2, std::sqrt(2.0), 0}));
}

TEST(LinearProgram, MatmulStructureAndSpec) {
  K k;
  Ref c = k.buffer(0, DType::kFloat32, 6), a = k.buffer(1, DType::kFloat32, 6),
      b = k.buffer(2, DType::kFloat32, 4);
  Ref i = k.loop(3, 0), j = k.loop(2, 1), r = k.red(2, 2);
  Ref prod = k.alu(Op::kMul, k.load(a, i * 2 + r), k.load(b, r * 2 + j));
  auto pr = linearize(k.sink({k.store(c, i * 2 + j, k.reduce(Op::kAdd, prod, {r}))}));
  ASSERT_TRUE(pr.ok()) << pr.error().to_string();
  const Program& p = *pr;
  // Kinds in order, ignoring values: loop i, loop j, acc.init, loop r, acc.update, endloop r,
  // acc.read, store, endloop j, endloop i.
  std::vector<InstKind> kinds;
  for (const Inst& in : p.insts)
    if (in.kind != InstKind::kValue) kinds.push_back(in.kind);
  const std::vector<InstKind> want = {
      InstKind::kLoopBegin, InstKind::kLoopBegin, InstKind::kAccInit, InstKind::kLoopBegin,
      InstKind::kAccUpdate, InstKind::kLoopEnd,   InstKind::kAccRead, InstKind::kStore,
      InstKind::kLoopEnd,   InstKind::kLoopEnd};
  EXPECT_EQ(kinds, want) << p.to_string();
  ASSERT_GE(p.parallel_loop, 0);
  EXPECT_EQ(p.insts[size_t(p.parallel_loop)].kind, InstKind::kLoopBegin);
  EXPECT_EQ(p.insts[size_t(p.parallel_loop)].depth, 0u);
  EXPECT_EQ(p.insts[size_t(p.parallel_loop)].node->arg().as_ints()[0], 0);  // axis of i
  EXPECT_EQ(p.buffers.size(), 3u);
  EXPECT_EQ(p.flops, 3u * 2 * 2 * 2);  // a mul and an accumulate per (i, j, r)
  EXPECT_EQ(p.bytes, 3u * 2 * 2 * 8 + 3 * 2 * 4);
  // Index math was narrowed to int32.
  for (const Inst& in : p.insts)
    if (in.kind == InstKind::kLoopBegin) {
      EXPECT_EQ(in.node->dtype(), DType::kInt32);
    }
  EXPECT_TRUE(verify_program(p).ok());

  // Broken programs: the accumulator read moved before its loop; a loop never closed.
  Program bad = p;
  auto rd = std::find_if(bad.insts.begin(), bad.insts.end(),
                         [](const Inst& in) { return in.kind == InstKind::kAccRead; });
  auto init = std::find_if(bad.insts.begin(), bad.insts.end(),
                           [](const Inst& in) { return in.kind == InstKind::kAccInit; });
  std::iter_swap(rd, init + 1);
  Status s = verify_program(bad);
  ASSERT_FALSE(s.ok()) << bad.to_string();
  EXPECT_NE(s.error().message().find("rule 'accumulator'"), std::string::npos)
      << s.error().message();
  Program open = p;
  open.insts.pop_back();
  s = verify_program(open);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message().find("balanced-loops"), std::string::npos) << s.error().message();
}

}  // namespace
}  // namespace rawgpu::compiler
