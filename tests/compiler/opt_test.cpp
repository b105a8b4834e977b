// Kernel optimizer (compiler/opt.h): every opt on representative kernels from the frontend and
// scheduler must compute what the unoptimized kernel computes on the CPU JIT; illegal opts give a
// typed KernelOptErrc and leave the kernel unchanged.
//
// Tolerance: inputs are small dyadic rationals (k/4, |k| <= 8), so sums and products of the
// sizes used here are exact in float32 in any order: ADD/MUL/MAX kernels must match bit for bit
// even when UNROLL/PADTO reassociate the reduction. Kernels with transcendentals (exp) compare
// within 1e-5 relative (a reassociated sum of exp values may round differently).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/linearize.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/schedule.h"
#include "rawgpu/frontend/tensor.h"

namespace rawgpu::compiler {
void PrintTo(const Opt& o, std::ostream* os) { *os << o.to_string(); }
namespace {

using frontend::Tensor;

CpuRuntime& runtime() {
  static std::unique_ptr<CpuRuntime> rt = [] {
    CpuRuntimeOptions o;
    o.opt_level = 1;
    if (const char* e = std::getenv("RAWGPU_OPT_LEVEL"); e && *e >= '0' && *e <= '3' && !e[1])
      o.opt_level = *e - '0';
    o.threads = 2;
    o.min_parallel_work = 0;  // exercise the parallel split (THREAD) even on tiny kernels
    auto r = CpuRuntime::create(o);
    RG_CHECK(r.ok(), "%s", r.error().to_string().c_str());
    return std::move(r).take_value();
  }();
  return *rt;
}

// Runs compiled kernel k on `rt` with deterministic dyadic inputs shaped like ref's slots;
// returns slot 0 as doubles.
Result<std::vector<double>> run_on(CpuRuntime& rt, const CpuKernel& k, const CpuKernel& ref) {
  std::vector<CpuBuffer> bufs;
  for (size_t s = 0; s < ref.buffer_dtypes.size(); ++s) {
    const DType t = ref.buffer_dtypes[s];
    const int64_t n = ref.buffer_counts[s];
    if (t != DType::kFloat32 || n < 0)
      return make_error(Errc::kUnsupported, "test: slot %zu is not a float32 buffer", s);
    CpuBuffer b(t, size_t(n));
    auto* f = static_cast<float*>(b.data());
    for (int64_t i = 0; i < n; ++i) f[i] = float(int((i * 7 + s * 13) % 17) - 8) / 4.0f;
    bufs.push_back(std::move(b));
  }
  std::vector<CpuBuffer*> ptrs;
  for (auto& b : bufs) ptrs.push_back(&b);
  RG_TRY(rt.launch(k, ptrs, {}));
  const auto* f = static_cast<const float*>(bufs[0].data());
  return std::vector<double>(f, f + bufs[0].count());
}

// Runs `sink` on deterministic dyadic inputs; returns slot 0 as doubles.
Result<std::vector<double>> run_kernel(Ref sink, const CpuKernel& ref) {
  auto k = RG_TRY(runtime().compile(sink));
  return run_on(runtime(), *k, ref);
}

// The kernel ASTs the scheduler makes for t.
std::vector<Ref> kernels_of(const Tensor& t) {
  Ref root(static_cast<const Node*>(t.graph_node()));
  Ref roots[] = {root};
  auto s = schedule(roots);
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  std::vector<Ref> out;
  if (s.ok())
    for (auto& kc : s->kernels) out.push_back(kc.ast);
  return out;
}

Tensor input(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = float(i % 5) - 2.0f;
  Tensor t = Tensor::from(v, shape);
  EXPECT_TRUE(t.realize().ok());
  return t;
}

bool has_transcendental(Ref sink) {
  for (Ref n : sink->ctx().toposort(sink))
    if (n->op() == Op::kExp2 || n->op() == Op::kLog2 || n->op() == Op::kSin || n->op() == Op::kSqrt)
      return true;
  return false;
}

// Applies opts to sink and checks the optimized kernel against the plain one.
void check_same(Ref sink, std::span<const Opt> opts) {
  std::string desc;
  for (const Opt& o : opts) desc += "[" + o.to_string() + "]";
  SCOPED_TRACE(desc);
  auto plain = runtime().compile(sink);
  ASSERT_TRUE(plain.ok()) << plain.error().to_string();
  auto want = run_kernel(sink, **plain);
  ASSERT_TRUE(want.ok()) << want.error().to_string();
  auto k = OptKernel::create(sink);
  ASSERT_TRUE(k.ok());
  auto st = k->apply_all(opts);
  ASSERT_TRUE(st.ok()) << st.error().to_string() << "\n" << k->to_string();
  EXPECT_EQ(k->applied().size(), opts.size());
  const Ref opt_ast = k->ast();
  auto got = run_kernel(opt_ast, **plain);
  ASSERT_TRUE(got.ok()) << got.error().to_string() << "\n" << to_string(opt_ast);
  ASSERT_EQ(got->size(), want->size());
  const bool exact = !has_transcendental(sink);
  for (size_t i = 0; i < want->size(); ++i) {
    if (exact)
      ASSERT_EQ((*got)[i], (*want)[i]) << "element " << i << "\n" << k->to_string();
    else
      ASSERT_NEAR((*got)[i], (*want)[i], 1e-5 * std::max(1.0, std::fabs((*want)[i])))
          << "element " << i;
  }
  // Replaying the recorded opts rebuilds the identical kernel.
  auto k2 = OptKernel::create(sink);
  ASSERT_TRUE(k2.ok());
  ASSERT_TRUE(k2->apply_all(k->applied()).ok());
  EXPECT_EQ(k2->ast(), opt_ast);
}

// Index of the nth axis of type t in a fresh OptKernel of sink, or -1.
int64_t axis_of(Ref sink, AxisType t, int nth = 0) {
  auto k = OptKernel::create(sink);
  if (!k.ok()) return -1;
  for (size_t i = 0; i < k->axes().size(); ++i)
    if (k->axes()[i].type == t && nth-- == 0) return int64_t(i);
  return -1;
}

Ref single_kernel(const Tensor& t) {
  auto ks = kernels_of(t);
  EXPECT_EQ(ks.size(), 1u);
  return ks.empty() ? Ref() : ks.back();
}

TEST(Opt, ElementwiseEveryOpt) {
  Tensor a = input({8, 12}), b = input({8, 12});
  const Ref k = single_kernel((a * b + a).relu());
  ASSERT_TRUE(k);
  ASSERT_EQ(axis_of(k, AxisType::kLoop, 0), 0);
  const int64_t ax1 = axis_of(k, AxisType::kLoop, 1);
  if (ax1 < 0) {
    // The scheduler flattened the elementwise kernel into one axis of 96.
    for (auto opts : std::vector<std::vector<Opt>>{
             {{OptOp::kUpcast, 0, 4}},
             {{OptOp::kUpcast, 0, 4}, {OptOp::kUpcast, 0, 2}},
             {{OptOp::kThread, 0, 2}},
             {{OptOp::kThread, 0, 4}, {OptOp::kUpcast, 1, 3}},
             {{OptOp::kPadto, 0, 7}},
             {{OptOp::kPadto, 0, 7}, {OptOp::kUpcast, 0, 7}},
         })
      check_same(k, opts);
    return;
  }
  for (auto opts : std::vector<std::vector<Opt>>{
           {{OptOp::kUpcast, 0, 4}},
           {{OptOp::kUpcast, ax1, 0}},
           {{OptOp::kSwap, 0, ax1}},
           {{OptOp::kThread, 0, 2}},
           {{OptOp::kPadto, ax1, 5}, {OptOp::kUpcast, ax1, 5}},
       })
    check_same(k, opts);
}

TEST(Opt, ReduceSumAndMax) {
  Tensor a = input({6, 24});
  for (const Tensor& t : {a.sum({1}), a.max({1})}) {
    const Ref k = single_kernel(t);
    ASSERT_TRUE(k);
    const int64_t r = axis_of(k, AxisType::kReduce), o = axis_of(k, AxisType::kLoop);
    ASSERT_GE(r, 0);
    ASSERT_GE(o, 0);
    for (auto opts : std::vector<std::vector<Opt>>{
             {{OptOp::kUnroll, r, 4}},
             {{OptOp::kUnroll, r, 0}},
             {{OptOp::kUpcast, o, 3}, {OptOp::kUnroll, r, 8}},
             {{OptOp::kPadto, r, 5}},
             {{OptOp::kPadto, r, 5}, {OptOp::kUnroll, r, 5}},
             {{OptOp::kPadto, o, 4}, {OptOp::kThread, o, 2}},
         })
      check_same(k, opts);
  }
}

TEST(Opt, Matmul) {
  Tensor a = input({6, 16}), b = input({16, 10});
  const Ref k = single_kernel(a.matmul(b));
  ASSERT_TRUE(k);
  const int64_t i = axis_of(k, AxisType::kLoop, 0), j = axis_of(k, AxisType::kLoop, 1),
                r = axis_of(k, AxisType::kReduce);
  ASSERT_GE(j, 0);
  ASSERT_GE(r, 0);
  for (auto opts : std::vector<std::vector<Opt>>{
           {{OptOp::kUpcast, i, 2}, {OptOp::kUpcast, j, 5}},
           {{OptOp::kUnroll, r, 4}, {OptOp::kUpcast, j, 2}},
           {{OptOp::kSwap, i, j}, {OptOp::kThread, 0, 2}},
           {{OptOp::kPadto, i, 4}, {OptOp::kUpcast, i, 4}, {OptOp::kUnroll, r, 2}},
           {{OptOp::kThread, i, 3}, {OptOp::kUpcast, j + 1, 0}},
       })
    check_same(k, opts);
}

TEST(Opt, ConvAndSoftmaxKernels) {
  Tensor x = input({1, 3, 6, 6}), w = input({4, 3, 3, 3});
  Tensor conv = x.conv2d(w, nullptr, {1, 1}, {1, 1});
  Tensor s = input({4, 8});
  Tensor e = (s - s.max({1}, true)).exp();
  Tensor sm = e / e.sum({1}, true);
  for (const Tensor* t : {&conv, &sm}) {
    for (Ref k : kernels_of(*t)) {
      const int64_t r = axis_of(k, AxisType::kReduce), o = axis_of(k, AxisType::kLoop);
      ASSERT_GE(o, 0);
      auto kk = OptKernel::create(k);
      ASSERT_TRUE(kk.ok());
      const int64_t on = kk->axes()[size_t(o)].size();
      std::vector<Opt> opts;
      if (on % 2 == 0)
        opts.push_back({OptOp::kUpcast, o, 2});
      else
        opts.push_back({OptOp::kPadto, o, 2});
      if (r >= 0) {
        const int64_t rn = kk->axes()[size_t(r)].size();
        if (rn % 3 == 0)
          opts.push_back({OptOp::kUnroll, r, 3});
        else if (rn % 4 == 0)
          opts.push_back({OptOp::kUnroll, r, 4});
        else
          opts.push_back({OptOp::kPadto, r, 4});
      }
      check_same(k, opts);
    }
  }
}

void expect_err(Ref sink, std::vector<Opt> before, Opt bad, KernelOptErrc want) {
  SCOPED_TRACE(bad.to_string());
  auto k = OptKernel::create(sink);
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(k->apply_all(before).ok());
  const std::string state = k->to_string();
  const Ref ast = k->ast();
  auto st = k->apply(bad);
  ASSERT_FALSE(st.ok());
  auto code = kernel_opt_errc(st.error());
  ASSERT_TRUE(code.has_value()) << st.error().to_string();
  EXPECT_EQ(*code, want) << st.error().to_string();
  EXPECT_EQ(st.error().code(),
            want == KernelOptErrc::kUnsupported ? Errc::kUnsupported : Errc::kInvalidArgument);
  EXPECT_EQ(k->to_string(), state);  // unchanged
  EXPECT_EQ(k->ast(), ast);
}

TEST(Opt, IllegalOptsAreTypedErrors) {
  Tensor a = input({6, 16}), b = input({16, 10});
  const Ref k = single_kernel(a.matmul(b));
  ASSERT_TRUE(k);
  const int64_t i = axis_of(k, AxisType::kLoop, 0), j = axis_of(k, AxisType::kLoop, 1),
                r = axis_of(k, AxisType::kReduce);
  using E = KernelOptErrc;
  expect_err(k, {}, {OptOp::kUpcast, 7, 2}, E::kBadAxis);
  expect_err(k, {}, {OptOp::kUpcast, -1, 2}, E::kBadAxis);
  expect_err(k, {}, {OptOp::kUpcast, r, 2}, E::kWrongAxisType);
  expect_err(k, {}, {OptOp::kUnroll, i, 2}, E::kWrongAxisType);
  expect_err(k, {}, {OptOp::kUpcast, i, 4}, E::kNotDivisible);
  expect_err(k, {}, {OptOp::kUpcast, i, 12}, E::kBadAmount);
  expect_err(k, {}, {OptOp::kUpcast, i, 1}, E::kBadAmount);
  expect_err(k, {}, {OptOp::kSwap, i, r}, E::kWrongAxisType);
  expect_err(k, {}, {OptOp::kSwap, i, i}, E::kBadAxis);
  expect_err(k, {}, {OptOp::kPadto, i, 3}, E::kNoEffect);
  expect_err(k, {}, {OptOp::kPadto, i, 100}, E::kBadAmount);
  expect_err(k, {{OptOp::kThread, i, 2}}, {OptOp::kThread, j + 1, 2}, E::kConflict);
  expect_err(k, {{OptOp::kUpcast, j, 0}, {OptOp::kUnroll, r, 16}}, {OptOp::kUpcast, i, 2},
             E::kTooLarge);
  expect_err(k, {}, {OptOp::kGroupTop, r, 4}, E::kUnsupported);
  expect_err(k, {{OptOp::kNoLocals, 0, 0}}, {OptOp::kLocal, i, 2}, E::kConflict);
  expect_err(k, {{OptOp::kLocal, i, 2}}, {OptOp::kGroup, r, 4}, E::kConflict);
  expect_err(k, {{OptOp::kGroup, r, 4}}, {OptOp::kGroup, r, 2}, E::kConflict);
  // Symbolic sizes cannot be split.
  Context c;
  const Ref n = c.var("n", 1, 64);
  const Ref rg = c.range(n, 0);
  const int64_t ba[] = {0, 64}, bb[] = {1, 64};
  const Ref out = c.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(ba));
  const Ref in = c.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(bb));
  const Ref ld =
      c.make(Op::kLoad, DType::kFloat32, {c.make(Op::kIndex, DType::kFloat32, {in, rg})});
  const Ref st =
      c.make(Op::kStore, DType::kVoid, {c.make(Op::kIndex, DType::kFloat32, {out, rg}), ld});
  const Ref sink = c.make(Op::kSink, DType::kVoid, {st});
  expect_err(sink, {}, {OptOp::kUpcast, 0, 2}, E::kSymbolicSize);
  expect_err(sink, {}, {OptOp::kPadto, 0, 2}, E::kSymbolicSize);
  // Not a kernel AST.
  EXPECT_FALSE(OptKernel::create(ld).ok());
  // Errors from other sources are not KernelOptErrors.
  EXPECT_FALSE(kernel_opt_errc(make_error(Errc::kParse, "x")).has_value());
}

TEST(Opt, OptTextRoundTrip) {
  for (const Opt& o : std::vector<Opt>{{OptOp::kUpcast, 1, 4},
                                       {OptOp::kSwap, 0, 2},
                                       {OptOp::kGroupTop, 3, 16},
                                       {OptOp::kNoLocals, 0, 0}}) {
    auto p = parse_opt(o.to_string());
    ASSERT_TRUE(p.ok()) << o.to_string();
    EXPECT_EQ(*p, o);
  }
  for (const char* bad : {"", "UPCAST", "UPCAST 1", "UPCAST 1 2 3", "FOO 1 2", "NOLOCALS 1"})
    EXPECT_EQ(parse_opt(bad).error().code(), Errc::kParse) << bad;
}

TEST(Opt, GpuLocalAndGroupReachGpuLower) {
  Tensor a = input({8, 16}), b = input({16, 32});
  const Ref k = single_kernel(a.matmul(b));
  ASSERT_TRUE(k);
  const int64_t i = axis_of(k, AxisType::kLoop, 0), j = axis_of(k, AxisType::kLoop, 1),
                r = axis_of(k, AxisType::kReduce);
  auto target = gpu_target("gfx1100");
  ASSERT_TRUE(target.ok());
  {
    auto kk = OptKernel::create(k);
    ASSERT_TRUE(kk.ok());
    ASSERT_TRUE(
        kk->apply_all(std::vector<Opt>{{OptOp::kLocal, i, 2}, {OptOp::kLocal, j, 16}}).ok());
    const GpuOptions go = kk->gpu_options();
    ASSERT_EQ(go.local.size(), 2u);
    auto g = gpu_lower(kk->ast(), *target, go);
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    EXPECT_EQ(g->local[0] * g->local[1] * g->local[2], 32);
  }
  {
    auto kk = OptKernel::create(k);
    ASSERT_TRUE(kk.ok());
    ASSERT_TRUE(kk->apply(Opt{OptOp::kGroup, r, 4}).ok());
    EXPECT_EQ(kk->gpu_options().group, 4);
    auto g = gpu_lower(kk->ast(), *target, kk->gpu_options());
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    bool grouped = false;
    for (const auto& s : g->applied_opts) grouped |= s.rfind("GROUP 4", 0) == 0;
    EXPECT_TRUE(grouped);
  }
  // The full compile records the opts so the kernel can be rebuilt.
  const std::vector<Opt> opts{
      {OptOp::kUpcast, j, 4}, {OptOp::kUnroll, r, 2}, {OptOp::kLocal, i, 4}};
  auto spec = compile_gpu_optimized(k, "mm_opt", *target, opts);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  EXPECT_FALSE(spec->binary.empty());
  auto back = rebuild_opts(spec->gpu.applied_opts);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, opts);
}

size_t count_ranges(Ref sink) {
  size_t n = 0;
  for (Ref x : sink->ctx().toposort(sink)) n += x->op() == Op::kRange;
  return n;
}

// The opts change the kernel's structure the way they claim (not just its results).
TEST(Opt, StructuralEffects) {
  Tensor a = input({6, 16}), b = input({16, 10});
  const Ref k = single_kernel(a.matmul(b));
  ASSERT_TRUE(k);
  const int64_t i = axis_of(k, AxisType::kLoop, 0), j = axis_of(k, AxisType::kLoop, 1),
                r = axis_of(k, AxisType::kReduce);
  ASSERT_EQ(count_ranges(k), 3u);
  {
    auto kk = OptKernel::create(k);
    ASSERT_TRUE(kk.ok());
    ASSERT_TRUE(kk->apply(Opt{OptOp::kUpcast, j, 0}).ok());
    EXPECT_EQ(count_ranges(kk->ast()), 2u);  // the j loop is gone: 10 stores per iteration
    size_t stores = 0;
    for (Ref x : kk->ast()->src()) stores += x->op() == Op::kStore;
    EXPECT_EQ(stores, 10u);
    ASSERT_TRUE(kk->apply(Opt{OptOp::kUnroll, r, 0}).ok());
    EXPECT_EQ(count_ranges(kk->ast()), 1u);
    for (Ref x : kk->ast()->ctx().toposort(kk->ast())) EXPECT_NE(x->op(), Op::kReduce);
  }
  {
    auto kk = OptKernel::create(k);
    ASSERT_TRUE(kk.ok());
    ASSERT_TRUE(kk->apply(Opt{OptOp::kThread, i, 3}).ok());
    EXPECT_EQ(kk->axes()[0].type, AxisType::kThread);
    auto p = linearize(kk->ast());
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    ASSERT_GE(p->parallel_loop, 0);
    const Ref loop = p->insts[size_t(p->parallel_loop)].node;
    EXPECT_TRUE(loop->src(0)->is_int_const(3)) << to_string(loop);
  }
}

// Random opt sequences on tiny kernels: each applies cleanly and matches, or fails typed and
// leaves the kernel unchanged.
TEST(Opt, RandomSequences) {
  const char* seed_env = std::getenv("RAWGPU_TEST_SEED");
  const uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : std::random_device{}();
  SCOPED_TRACE("RAWGPU_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Tensor a = input({4, 12}), b = input({12, 6});
  std::vector<Ref> ks{single_kernel(a.matmul(b)), single_kernel(a.sum({1})),
                      single_kernel(a * a + 1.0)};
  const OptOp ops[] = {OptOp::kUpcast, OptOp::kUnroll, OptOp::kThread, OptOp::kSwap, OptOp::kPadto};
  const int64_t amts[] = {0, 2, 3, 4, 5};
  int applied = 0;
  for (Ref k : ks) {
    ASSERT_TRUE(k);
    for (int seq = 0; seq < 4; ++seq) {
      auto kk = OptKernel::create(k);
      ASSERT_TRUE(kk.ok());
      for (int step = 0; step < 3; ++step) {
        const int64_t naxes = int64_t(kk->axes().size());
        Opt o{ops[rng() % std::size(ops)], int64_t(rng() % uint64_t(naxes + 1)),
              amts[rng() % std::size(amts)]};
        if (o.op == OptOp::kSwap) o.arg = int64_t(rng() % uint64_t(naxes));
        const std::string before = kk->to_string();
        auto st = kk->apply(o);
        if (!st.ok()) {
          EXPECT_TRUE(kernel_opt_errc(st.error()).has_value()) << st.error().to_string();
          EXPECT_EQ(kk->to_string(), before);
        }
      }
      applied += int(kk->applied().size());
      check_same(k, kk->applied());
    }
  }
  EXPECT_GT(applied, 0);
}

// PADTO on an output axis runs the padded iterations with zero (gated) loads; an integer
// division by such a loaded value must not trap (SIGFPE) there.
TEST(Opt, PadtoGuardsIntegerDivision) {
  Context c;
  const int64_t n = 10;
  const Ref i = c.range(n, 0);
  auto buf = [&](int64_t slot) {
    const int64_t a[] = {slot, n};
    return c.make(Op::kBuffer, DType::kInt32, {}, Arg::ints(a));
  };
  const Ref out = buf(0), x = buf(1), y = buf(2);
  auto load = [&](Ref b) {
    return c.make(Op::kLoad, DType::kInt32, {c.make(Op::kIndex, DType::kInt32, {b, i})});
  };
  const Ref q = load(x) / load(y) + load(x) % load(y);
  const Ref st = c.make(Op::kStore, DType::kVoid, {c.make(Op::kIndex, DType::kInt32, {out, i}), q});
  const Ref sink = c.make(Op::kSink, DType::kVoid, {st});
  auto run = [&](Ref ast) -> std::vector<int32_t> {
    auto k = runtime().compile(ast);
    EXPECT_TRUE(k.ok()) << k.error().to_string();
    if (!k.ok()) return {};
    CpuBuffer bo(DType::kInt32, n), bx(DType::kInt32, n), by(DType::kInt32, n);
    for (int64_t j = 0; j < n; ++j) {
      static_cast<int32_t*>(bx.data())[j] = int32_t(j * 7 - 20);
      static_cast<int32_t*>(by.data())[j] = int32_t(j % 3 + 1) * (j % 2 ? -1 : 1);
    }
    CpuBuffer* bufs[] = {&bo, &bx, &by};
    EXPECT_TRUE(runtime().launch(**k, bufs, {}).ok());
    const auto* p = static_cast<const int32_t*>(bo.data());
    return std::vector<int32_t>(p, p + n);
  };
  const auto want = run(sink);
  ASSERT_EQ(want.size(), size_t(n));
  EXPECT_EQ(want[0], -20 / 1 + -20 % 1);
  for (auto opts : std::vector<std::vector<Opt>>{{{OptOp::kPadto, 0, 4}},
                                                 {{OptOp::kPadto, 0, 4}, {OptOp::kUpcast, 0, 4}},
                                                 {{OptOp::kPadto, 0, 6}, {OptOp::kThread, 0, 2}}}) {
    auto k = OptKernel::create(sink);
    ASSERT_TRUE(k.ok());
    ASSERT_TRUE(k->apply_all(opts).ok());
    EXPECT_EQ(run(k->ast()), want) << k->to_string();
  }
}

// The CPU heuristic: its choices for a matmul and a reduction, and its kernels compute exactly
// what the plain kernels compute (dyadic inputs: every order of the sums is exact).
TEST(Opt, HeuristicMatmulChoices) {
  Tensor a = input({64, 48}), b = input({48, 96});
  const Ref k = single_kernel(a.matmul(b));
  ASSERT_TRUE(k);
  auto kk = OptKernel::create(k);
  ASSERT_TRUE(kk.ok());
  const int64_t i = axis_of(k, AxisType::kLoop, 0), j = axis_of(k, AxisType::kLoop, 1);
  HeuristicOptions ho;
  ho.threads = 2;
  const auto opts = hand_coded_opts(*kk, ho);
  // Register tile: 16 columns (the stride-1 axis of B and C) x 4 rows; the row loop inside
  // the column loop (SWAP); the 16 row tiles (now axis j) are split over 2 threads
  // (64*96*48 multiply-adds is enough work; blocks of 256 rows need a bigger matrix).
  const std::vector<Opt> want{{OptOp::kUpcast, j, 16},
                              {OptOp::kUpcast, i, 4},
                              {OptOp::kSwap, i, j},
                              {OptOp::kThread, j, 2}};
  EXPECT_EQ(opts, want) << to_string(k);
  check_same(k, opts);
  // A fresh kernel only: after any opt the heuristic stays out of the way.
  ASSERT_TRUE(kk->apply(Opt{OptOp::kUpcast, j, 2}).ok());
  EXPECT_TRUE(hand_coded_opts(*kk, ho).empty());
  // One thread: no THREAD opt.
  EXPECT_EQ(hand_coded_opts(*OptKernel::create(k), {}).size(), 3u);
  // Large row counts are cut into blocks of 256 rows (a power of two times the threads).
  Tensor big_a = input({1024, 64}), big_b = input({64, 32});
  const Ref big = single_kernel(big_a.matmul(big_b));
  ASSERT_TRUE(big);
  const auto big_opts = hand_coded_opts(*OptKernel::create(big), ho);
  ASSERT_EQ(big_opts.size(), 4u);
  EXPECT_EQ(big_opts.back(), (Opt{OptOp::kThread, 1, 4}));
}

// Operand packing: a large enough matmul reads B from a packed copy (column panels of the tile
// width, row after row); the runtime's two-kernel launch computes exactly what the plain kernel
// computes, also when both operands are the same buffer.
TEST(Opt, HeuristicPacksMatmulOperand) {
  Tensor a = input({128, 160}), b = input({160, 192}), sq = input({128, 128});
  CpuRuntimeOptions ro;
  ro.opt_level = 1;
  ro.threads = 2;
  ro.min_parallel_work = 0;
  ro.pack = true;
  ro.heuristic = true;
  auto rt = CpuRuntime::create(ro);
  ASSERT_TRUE(rt.ok());
  const char* noopt = std::getenv("RAWGPU_NOOPT");
  const char* nopack = std::getenv("RAWGPU_NOPACK");
  const bool packing =
      !(noopt && std::string(noopt) == "1") && !(nopack && std::string(nopack) == "1");
  // {matmul, elements of B, the packed copy's slot}: x @ x reads one buffer (slots 0, 1).
  struct Case {
    Tensor t;
    int64_t b_count, packed_slot;
  };
  const Case cases[] = {{a.matmul(b), 160 * 192, 3}, {sq.matmul(sq), 128 * 128, 2}};
  for (const auto& [t, b_count, packed_slot] : cases) {
    const Ref mm = single_kernel(t);
    ASSERT_TRUE(mm);
    auto p = pack_matmul_operand(mm);
    ASSERT_TRUE(p.has_value()) << to_string(mm);
    EXPECT_EQ(p->packed_slot, packed_slot);
    EXPECT_EQ(p->count, b_count);
    // The packed kernel reads slot 3 and still computes the matmul (slot 3 filled by the pack).
    auto plain = runtime().compile(mm);
    ASSERT_TRUE(plain.ok());
    auto want = run_kernel(mm, **plain);
    ASSERT_TRUE(want.ok()) << want.error().to_string();
    auto ck = (*rt)->compile_optimized(mm);
    ASSERT_TRUE(ck.ok()) << ck.error().to_string();
    if (!packing) continue;
    ASSERT_NE((*ck)->pack, nullptr);
    EXPECT_EQ((*ck)->buffer_counts, (*plain)->buffer_counts);
    EXPECT_EQ((*ck)->buffer_dtypes, (*plain)->buffer_dtypes);
    auto got = run_on(**rt, **ck, **plain);
    ASSERT_TRUE(got.ok()) << got.error().to_string();
    EXPECT_EQ(*got, *want);
    // A launch with the wrong buffers is refused before anything runs.
    CpuBuffer one(DType::kFloat32, 4);
    CpuBuffer* few[] = {&one};
    auto bad = (*rt)->launch(**ck, few, {});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code(), Errc::kInvalidArgument);
  }
  // Not packed: too small (pack_min), or B read through a padding gate.
  Tensor s1 = input({64, 48}), s2 = input({48, 96});
  EXPECT_FALSE(pack_matmul_operand(single_kernel(s1.matmul(s2))).has_value());
  Tensor bp = input({160, 190}).pad({{0, 0}, {1, 1}});
  const Ref masked = single_kernel(a.matmul(bp));
  ASSERT_TRUE(masked);
  EXPECT_FALSE(pack_matmul_operand(masked).has_value()) << to_string(masked);
  HeuristicOptions off;
  off.pack = false;
  EXPECT_FALSE(pack_matmul_operand(single_kernel(a.matmul(b)), off).has_value());
}

TEST(Opt, HeuristicReduceChoices) {
  Tensor a = input({16, 64});
  const Ref k = single_kernel(a.sum({1}));
  ASSERT_TRUE(k);
  auto kk = OptKernel::create(k);
  ASSERT_TRUE(kk.ok());
  const int64_t o = axis_of(k, AxisType::kLoop), r = axis_of(k, AxisType::kReduce);
  const auto opts = hand_coded_opts(*kk, {});
  // 8 output rows per iteration (independent accumulators), the 64-long reduce unrolled by 4.
  const std::vector<Opt> want{{OptOp::kUpcast, o, 8}, {OptOp::kUnroll, r, 4}};
  EXPECT_EQ(opts, want);
  check_same(k, opts);
  // A short reduce is unrolled completely.
  Tensor s = input({16, 6});
  const Ref k2 = single_kernel(s.max({1}));
  ASSERT_TRUE(k2);
  const auto opts2 = hand_coded_opts(*OptKernel::create(k2), {});
  ASSERT_FALSE(opts2.empty());
  EXPECT_EQ(opts2.back(), (Opt{OptOp::kUnroll, axis_of(k2, AxisType::kReduce), 0}));
  check_same(k2, opts2);
}

// The heuristic on every representative kernel, and the runtime applying it by default.
TEST(Opt, HeuristicKeepsResults) {
  Tensor x = input({2, 3, 8, 8}), w = input({4, 3, 3, 3});
  Tensor a = input({24, 40}), b = input({40, 36});
  std::vector<Tensor> ts{x.conv2d(w, nullptr, {1, 1}, {1, 1}),
                         a.matmul(b),
                         (a * a + 1.0).relu(),
                         a.sum({0}),
                         a.max({1}),
                         (a - a.max({1}, true)).exp().sum({1})};
  HeuristicOptions ho;
  ho.threads = 2;
  int with_opts = 0;
  for (const Tensor& t : ts)
    for (Ref k : kernels_of(t)) {
      auto kk = OptKernel::create(k);
      ASSERT_TRUE(kk.ok());
      const auto opts = hand_coded_opts(*kk, ho);
      with_opts += !opts.empty();
      check_same(k, opts);
    }
  EXPECT_GE(with_opts, 4);
  // CpuRuntime::compile_optimized applies it (unless RAWGPU_NOOPT=1 / heuristic = false).
  CpuRuntimeOptions ro;
  ro.opt_level = 1;
  ro.threads = 2;
  auto rt = CpuRuntime::create(ro);
  ASSERT_TRUE(rt.ok());
  const Ref mm = single_kernel(a.matmul(b));
  auto ck = (*rt)->compile_optimized(mm);
  ASSERT_TRUE(ck.ok()) << ck.error().to_string();
  const char* noopt = std::getenv("RAWGPU_NOOPT");
  if (!(noopt && std::string(noopt) == "1")) {
    EXPECT_TRUE((*rt)->heuristic());
    EXPECT_FALSE((*ck)->opts.empty());
  }
  auto plain = runtime().compile(mm);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE((*plain)->opts.empty());
}

}  // namespace
}  // namespace rawgpu::compiler
