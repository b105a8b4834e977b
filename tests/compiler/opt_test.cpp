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
#include <unordered_map>

#include "../test_seed.h"
#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/linearize.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/schedule.h"
#include "rawgpu/compiler/spec.h"
#include "rawgpu/compiler/symbolic.h"
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
  // GROUPTOP: GROUP's preconditions.
  expect_err(k, {}, {OptOp::kGroupTop, i, 2}, E::kWrongAxisType);
  expect_err(k, {}, {OptOp::kGroupTop, r, 5}, E::kNotDivisible);
  expect_err(k, {}, {OptOp::kGroupTop, r, 1}, E::kBadAmount);
  expect_err(k, {{OptOp::kGroup, r, 4}}, {OptOp::kGroupTop, r, 2}, E::kConflict);
  expect_err(k, {{OptOp::kGroupTop, r, 4}}, {OptOp::kGroup, r, 2}, E::kConflict);
  expect_err(k, {{OptOp::kNoLocals, 0, 0}}, {OptOp::kGroupTop, r, 4}, E::kConflict);
  expect_err(k, {{OptOp::kLocal, i, 2}}, {OptOp::kGroupTop, r, 4}, E::kConflict);
  expect_err(k, {{OptOp::kGroupTop, r, 4}}, {OptOp::kLocal, i, 2}, E::kConflict);
  expect_err(k, {{OptOp::kGroupTop, r, 4}}, {OptOp::kNoLocals, 0, 0}, E::kConflict);
  expect_err(k, {}, {OptOp::kLocal, r, 2}, E::kWrongAxisType);
  expect_err(k, {}, {OptOp::kLocal, i, 4}, E::kNotDivisible);
  expect_err(k, {{OptOp::kLocal, i, 2}}, {OptOp::kLocal, j, 1024}, E::kBadAmount);
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
  const uint64_t seed = rawgpu::test_util::test_seed();
  SCOPED_TRACE("RAWGPU_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  Tensor a = input({4, 12}), b = input({12, 6});
  Tensor x = input({1, 2, 4, 4}), w = input({2, 2, 3, 3}), big = input({8, 32});
  std::vector<Ref> ks{single_kernel(a.matmul(b)), single_kernel(a.sum({1})),
                      single_kernel(a * a + 1.0), single_kernel(big * big + big),
                      single_kernel(big.sum({1}))};
  for (Ref ck : kernels_of(x.conv2d(w, nullptr, {1, 1}, {1, 1}))) ks.push_back(ck);
  // LOCAL/GROUP/GROUPTOP/NOLOCALS only retype axes for the GPU: on the CPU the kernel must
  // still compute the same values (and their preconditions are exercised).
  const OptOp ops[] = {OptOp::kUpcast,   OptOp::kUnroll, OptOp::kThread, OptOp::kSwap,
                       OptOp::kPadto,    OptOp::kLocal,  OptOp::kGroup,  OptOp::kGroupTop,
                       OptOp::kNoLocals, OptOp::kUpcast, OptOp::kUnroll};
  const int64_t amts[] = {0, 2, 3, 4, 5, 8, 16};
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

// PADTO then a full UPCAST of the padded output axis: the padded lane's store is gated by a
// constant-false compare, so its index simplifies to Invalid and the store must leave the kernel
// (found by RandomSequences, seed 3427865858: the spec rejected INDEX(buf, Invalid)).
TEST(Opt, PadtoThenFullUpcastDropsThePaddedStore) {
  Tensor big = input({8, 32});
  const Ref k = single_kernel(big.sum({1}));
  ASSERT_TRUE(k);
  const int64_t i = axis_of(k, AxisType::kLoop);
  ASSERT_GE(i, 0);
  const Opt opts[] = {Opt{OptOp::kPadto, i, 3}, Opt{OptOp::kUpcast, i, 0}};
  check_same(k, opts);
  auto kk = OptKernel::create(k);
  ASSERT_TRUE(kk.ok());
  ASSERT_TRUE(kk->apply_all(opts).ok());
  auto p = linearize(kk->ast());
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  size_t stores = 0;
  for (const Inst& in : p->insts) stores += in.kind == InstKind::kStore;
  EXPECT_EQ(stores, 8u) << p->to_string();  // 9 lanes, the 9th lies in the padding
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

// ---- vector loads and stores (memory coalescing, compiler/vectorize.cpp) ----------------------

// Vector-typed LOADs and vector STOREs of the linear program, as "float32x8" names.
struct VectorAccesses {
  std::vector<std::string> loads, stores;
  size_t scalar_loads = 0, scalar_stores = 0;
};
VectorAccesses vector_accesses(const Program& p) {
  VectorAccesses v;
  for (const Inst& in : p.insts) {
    if (in.kind == InstKind::kValue && in.node->op() == Op::kLoad) {
      if (is_vector(in.node->dtype()))
        v.loads.emplace_back(dtype_name(in.node->dtype()));
      else
        ++v.scalar_loads;
    }
    if (in.kind == InstKind::kStore) {
      if (is_vector(in.node->src(1)->dtype()))
        v.stores.emplace_back(dtype_name(in.node->src(1)->dtype()));
      else
        ++v.scalar_stores;
    }
  }
  return v;
}

Result<Program> linearize_vec(Ref ast, int bytes = 64) {
  LowerOptions lo;
  lo.max_vector_bytes = bytes;
  lo.buffer_align = 64;
  return linearize(ast, lo);
}

Ref optimized(Ref sink, std::vector<Opt> opts) {
  auto k = OptKernel::create(sink);
  EXPECT_TRUE(k.ok());
  if (!k.ok()) return Ref();
  auto st = k->apply_all(opts);
  EXPECT_TRUE(st.ok()) << st.error().to_string();
  return k->ast();
}

TEST(Vector, ContiguousAlignedUpcastIsOneVectorLoadAndStore) {
  Tensor a = input({64}), b = input({64});
  const Ref k = single_kernel(a * b + a);
  ASSERT_TRUE(k);
  const Ref ast = optimized(k, {{OptOp::kUpcast, 0, 8}});
  auto p = linearize_vec(ast);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  const auto v = vector_accesses(*p);
  // Two inputs, 8 lanes each: one <8 x float> load per input, one vector store.
  EXPECT_EQ(v.loads, (std::vector<std::string>{"float32x8", "float32x8"})) << p->to_string();
  EXPECT_EQ(v.stores, std::vector<std::string>{"float32x8"}) << p->to_string();
  EXPECT_EQ(v.scalar_loads, 0u);
  EXPECT_EQ(v.scalar_stores, 0u);
  EXPECT_EQ(p->buffer_align, 64);
  // 16-byte vectors: the 8 lanes become two <4 x float> accesses per buffer.
  auto p16 = linearize_vec(ast, 16);
  ASSERT_TRUE(p16.ok());
  EXPECT_EQ(vector_accesses(*p16).stores, (std::vector<std::string>{"float32x4", "float32x4"}));
  // Off: every access scalar, no alignment assumed.
  auto p0 = linearize_vec(ast, 0);
  ASSERT_TRUE(p0.ok());
  EXPECT_TRUE(vector_accesses(*p0).loads.empty());
  EXPECT_EQ(vector_accesses(*p0).scalar_stores, 8u);
  EXPECT_EQ(p0->buffer_align, 0);
  // The LLVM IR has the vector load/store with the vector's alignment.
  auto host = gpu_target("host");
  ASSERT_TRUE(host.ok());
  GpuOptions go;
  go.vector_bytes = 32;
  auto spec = compile_gpu(ast, "vec8", *host, go);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  EXPECT_NE(spec->llvm_ir.find("load <8 x float>"), std::string::npos) << spec->llvm_ir;
  EXPECT_NE(spec->llvm_ir.find("store <8 x float>"), std::string::npos) << spec->llvm_ir;
  EXPECT_NE(spec->llvm_ir.find("align 32"), std::string::npos) << spec->llvm_ir;
  // And it computes what the plain kernel computes.
  check_same(k, std::vector<Opt>{{OptOp::kUpcast, 0, 8}});
  check_same(k, std::vector<Opt>{{OptOp::kUpcast, 0, 16}});
  check_same(k, std::vector<Opt>{{OptOp::kThread, 0, 2}, {OptOp::kUpcast, 1, 4}});
}

TEST(Vector, MaskedStridedAndUnalignedStayScalar) {
  // Masked: PADTO 12 -> 16 gates the accesses with 8*o + u < 12. For lanes u < 4 the symbolic
  // engine proves the gate (o <= 1) and drops it: those 4 lanes become vectors; lanes 4..7 stay
  // gated and scalar.
  Tensor a = input({12}), b = input({12});
  const Ref k = single_kernel(a * b);
  ASSERT_TRUE(k);
  {
    const std::vector<Opt> opts{{OptOp::kPadto, 0, 8}, {OptOp::kUpcast, 0, 8}};
    auto p = linearize_vec(optimized(k, opts));
    ASSERT_TRUE(p.ok()) << p.error().to_string();
    const auto v = vector_accesses(*p);
    EXPECT_EQ(v.loads, (std::vector<std::string>{"float32x4", "float32x4"})) << p->to_string();
    EXPECT_EQ(v.stores, std::vector<std::string>{"float32x4"}) << p->to_string();
    EXPECT_EQ(v.scalar_loads, 8u);
    EXPECT_EQ(v.scalar_stores, 4u);
    for (const Inst& in : p->insts) {  // every remaining scalar access is the gated one
      if (in.kind != InstKind::kStore || is_vector(in.node->src(1)->dtype())) continue;
      EXPECT_EQ(in.node->src(0)->src(1)->op(), Op::kWhere) << p->to_string();
    }
    check_same(k, opts);
  }
  // Strided: upcasting the row axis of a matmul reads A with stride K: scalar A loads; B and C
  // are read/written along the column axis, which is not upcast: scalar too.
  Tensor x = input({8, 16}), y = input({16, 8});
  const Ref mm = single_kernel(x.matmul(y));
  ASSERT_TRUE(mm);
  const int64_t i = axis_of(mm, AxisType::kLoop, 0), j = axis_of(mm, AxisType::kLoop, 1);
  {
    const std::vector<Opt> opts{{OptOp::kUpcast, i, 4}};
    auto p = linearize_vec(optimized(mm, opts));
    ASSERT_TRUE(p.ok());
    const auto v = vector_accesses(*p);
    EXPECT_TRUE(v.loads.empty()) << p->to_string();
    EXPECT_TRUE(v.stores.empty()) << p->to_string();
    check_same(mm, opts);
  }
  // Upcasting the column axis instead: B loads and C stores are contiguous and aligned (the
  // whole 8-wide row of B; C's two rows of 8 are 16 consecutive elements: one store).
  {
    const std::vector<Opt> opts{{OptOp::kUpcast, j, 8}, {OptOp::kUpcast, i, 2}};
    auto p = linearize_vec(optimized(mm, opts));
    ASSERT_TRUE(p.ok());
    const auto v = vector_accesses(*p);
    EXPECT_EQ(v.loads, std::vector<std::string>{"float32x8"}) << p->to_string();
    EXPECT_EQ(v.stores, std::vector<std::string>{"float32x16"}) << p->to_string();
    EXPECT_EQ(v.scalar_loads, 2u);  // A: one element per row, stride 16
    check_same(mm, opts);
  }
  // Unaligned: 5 lanes from base 5*j are consecutive but 5*j is not a multiple of 2 or 4.
  Tensor z = input({10});
  const Ref k5 = single_kernel(z + z);
  ASSERT_TRUE(k5);
  {
    const std::vector<Opt> opts{{OptOp::kUpcast, 0, 5}};
    auto p = linearize_vec(optimized(k5, opts));
    ASSERT_TRUE(p.ok());
    const auto v = vector_accesses(*p);
    EXPECT_TRUE(v.loads.empty()) << p->to_string();
    EXPECT_TRUE(v.stores.empty()) << p->to_string();
    check_same(k5, opts);
  }
  // Offset by one (a shrunk view): lanes 1..4 of a 4-aligned base: only the aligned pair
  // (2, 3) may become a vector; no 4-wide access.
  Tensor s = input({4, 9});
  const Ref ks = single_kernel(s.shrink({{0, 4}, {1, 9}}) * 2.0);
  ASSERT_TRUE(ks);
  const int64_t sj = axis_of(ks, AxisType::kLoop, 1);
  if (sj >= 0) {
    const std::vector<Opt> opts{{OptOp::kUpcast, sj, 4}};
    auto p = linearize_vec(optimized(ks, opts));
    ASSERT_TRUE(p.ok());
    for (const auto& name : vector_accesses(*p).loads) EXPECT_EQ(name, "float32x2");
    check_same(ks, opts);
  }
}

TEST(Vector, VectorIrSpecAndAlignmentCheck) {
  Context c;
  const int64_t ba[] = {0, 8}, bb[] = {1, 8};
  const Ref out = c.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(ba));
  const Ref in = c.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(bb));
  const DType v4 = *vec(DType::kFloat32, 4);
  const Ref r = c.range(2, 0);
  const Ref ld = c.make(Op::kLoad, v4, {c.make(Op::kIndex, DType::kFloat32, {in, r * 4})});
  std::vector<Ref> lanes;
  for (int k = 0; k < 4; ++k) {
    const Ref g = c.make(Op::kGep, DType::kFloat32, {ld}, Arg::integer(k));
    lanes.push_back(g + g);
  }
  const Ref st = c.make(
      Op::kStore, DType::kVoid,
      {c.make(Op::kIndex, DType::kFloat32, {out, r * 4}), c.make(Op::kVectorize, v4, lanes)});
  const Ref sink = c.make(Op::kSink, DType::kVoid, {st});
  ASSERT_TRUE(verify(sink, Stage::kKernel).ok())
      << verify(sink, Stage::kKernel).error().to_string();
  // Broken forms are spec errors naming the rule.
  const Ref bad_vec = c.make(Op::kVectorize, v4, {lanes[0], lanes[1]});
  auto e1 = verify(c.make(Op::kSink, DType::kVoid,
                          {c.make(Op::kStore, DType::kVoid,
                                  {c.make(Op::kIndex, DType::kFloat32, {out, r * 4}), bad_vec})}),
                   Stage::kKernel);
  ASSERT_FALSE(e1.ok());
  EXPECT_NE(e1.error().message().find("vectorize"), std::string::npos) << e1.error().message();
  const Ref vadd = c.make(Op::kAdd, v4, {ld, ld});
  auto e2 = verify(c.make(Op::kSink, DType::kVoid,
                          {c.make(Op::kStore, DType::kVoid,
                                  {c.make(Op::kIndex, DType::kFloat32, {out, r * 4}), vadd})}),
                   Stage::kKernel);
  ASSERT_FALSE(e2.ok());
  const Ref bad_gep = c.make(Op::kGep, DType::kFloat32, {ld}, Arg::integer(4));
  auto e3 = verify(c.make(Op::kSink, DType::kVoid,
                          {c.make(Op::kStore, DType::kVoid,
                                  {c.make(Op::kIndex, DType::kFloat32, {out, r}), bad_gep})}),
                   Stage::kKernel);
  ASSERT_FALSE(e3.ok());
  // A vector load running past the buffer is an index-in-bounds error.
  const Ref far = c.make(Op::kLoad, v4, {c.make(Op::kIndex, DType::kFloat32, {in, r * 4 + 2})});
  const Ref st2 =
      c.make(Op::kStore, DType::kVoid, {c.make(Op::kIndex, DType::kFloat32, {out, r * 4}), far});
  auto p2 = linearize(c.make(Op::kSink, DType::kVoid, {st2}));
  ASSERT_FALSE(p2.ok());
  EXPECT_EQ(p2.error().code(), Errc::kOutOfRange) << p2.error().to_string();
  // Runs on the CPU: out = 2 * in; a misaligned borrowed buffer is a typed launch error.
  auto k = runtime().compile(sink);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_EQ((*k)->program.buffer_align, 64);
  CpuBuffer bo(DType::kFloat32, 8), bi(DType::kFloat32, 8);
  for (int j = 0; j < 8; ++j) static_cast<float*>(bi.data())[j] = float(j) - 3.5f;
  CpuBuffer* bufs[] = {&bo, &bi};
  ASSERT_TRUE(runtime().launch(**k, bufs, {}).ok());
  for (int j = 0; j < 8; ++j)
    EXPECT_EQ(static_cast<float*>(bo.data())[j], 2 * (float(j) - 3.5f)) << j;
  std::vector<float> raw(12, 1.0f);
  CpuBuffer odd = CpuBuffer::borrow(DType::kFloat32, 8, raw.data() + 1);
  CpuBuffer* bad[] = {&bo, &odd};
  const std::vector<float> before(static_cast<float*>(bo.data()),
                                  static_cast<float*>(bo.data()) + 8);
  auto st3 = runtime().launch(**k, bad, {});
  if (reinterpret_cast<uintptr_t>(raw.data() + 1) % 64 != 0) {
    ASSERT_FALSE(st3.ok());
    EXPECT_EQ(st3.error().code(), Errc::kInvalidArgument);
    EXPECT_NE(st3.error().message().find("aligned"), std::string::npos);
    EXPECT_EQ(
        std::vector<float>(static_cast<float*>(bo.data()), static_cast<float*>(bo.data()) + 8),
        before);
  }
}

// GROUPTOP: lane l of G reduces the contiguous chunk [l*N/G, (l+1)*N/G); GROUP interleaves.
// Checked on the lowered AST: the global load index at (lane, step) for every lane and step,
// with the output axis at 0, must enumerate 0..N-1 exactly once, in the claimed order.
TEST(Opt, GroupTopSplitsContiguousChunks) {
  Tensor a = input({4, 64});
  const Ref k = single_kernel(a.sum({1}));
  ASSERT_TRUE(k);
  const int64_t r = axis_of(k, AxisType::kReduce);
  auto target = gpu_target("gfx1100");
  ASSERT_TRUE(target.ok());
  for (const OptOp op : {OptOp::kGroup, OptOp::kGroupTop}) {
    SCOPED_TRACE(std::string(opt_op_name(op)));
    auto kk = OptKernel::create(k);
    ASSERT_TRUE(kk.ok());
    ASSERT_TRUE(kk->apply(Opt{op, r, 4}).ok());
    EXPECT_EQ(kk->gpu_options().group_top, op == OptOp::kGroupTop);
    auto g = gpu_lower(kk->ast(), *target, kk->gpu_options());
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    // The partial REDUCE: a REDUCE whose value loads the global input (slot 1).
    Ref partial, load;
    Context& c = g->ast->ctx();
    for (Ref n : c.toposort(g->ast)) {
      if (n->op() != Op::kReduce || partial) continue;  // the first (innermost) one
      for (Ref x : c.toposort(n->src(0)))
        if (x->op() == Op::kLoad && x->src(0)->src(0)->op() == Op::kBuffer &&
            x->src(0)->src(0)->arg().as_ints()[0] == 1) {
          partial = n;
          load = x;
        }
    }
    ASSERT_TRUE(partial && load) << to_string(g->ast);
    ASSERT_EQ(partial->nsrc(), 2u);
    const Ref step = partial->src(1);
    ASSERT_TRUE(step->src(0)->is_int_const(16)) << to_string(g->ast);
    std::vector<int> seen(64, 0);
    for (int64_t lane = 0; lane < 4; ++lane)
      for (int64_t s = 0; s < 16; ++s) {
        std::unordered_map<Ref, Ref> m{{step, c.cint(s)}};
        for (Ref x : c.toposort(load))
          if (x->op() == Op::kSpecial)
            m.emplace(x, c.cint(x->arg().as_str() == "lidx0" ? lane : 0));
          else if (x->op() == Op::kRange && x != step)
            m.emplace(x, c.cint(0));
        Ref idx = load->src(0)->src(1);
        if (idx->op() == Op::kWhere) idx = idx->src(1);
        const Ref v = simplify(substitute(idx, m));
        ASSERT_EQ(v->op(), Op::kConst) << expr_string(v);
        const int64_t e = v->arg().as_int();
        ASSERT_GE(e, 0);
        ASSERT_LT(e, 64);
        ++seen[size_t(e)];
        EXPECT_EQ(e, op == OptOp::kGroupTop ? lane * 16 + s : s * 4 + lane);
      }
    for (int x : seen) EXPECT_EQ(x, 1);
    bool noted = false;
    for (const auto& s : g->applied_opts)
      noted |= s.rfind(op == OptOp::kGroupTop ? "GROUPTOP 4" : "GROUP 4", 0) == 0;
    EXPECT_TRUE(noted);
  }
  // The whole compile for every GPU target family.
  for (const char* t : {"gfx1100", "gfx942", "sm_80"}) {
    auto tg = gpu_target(t);
    ASSERT_TRUE(tg.ok());
    auto spec =
        compile_gpu_optimized(k, "sum_grouptop", *tg, std::vector<Opt>{{OptOp::kGroupTop, r, 16}});
    ASSERT_TRUE(spec.ok()) << t << ": " << spec.error().to_string();
    EXPECT_FALSE(spec->assembly.empty());
  }
}

// GPU targets with vector_bytes 16: the contiguous upcast becomes 128-bit global accesses.
TEST(Vector, GpuTargetsUseVectorAccesses) {
  Tensor a = input({1024}), b = input({1024});
  const Ref k = single_kernel(a * b + a);
  ASSERT_TRUE(k);
  GpuOptions go;
  go.vector_bytes = 16;
  struct Case {
    const char* target;
    const char* insn;
  };
  for (const Case& cs : {Case{"gfx1100", "global_load_b128"}, Case{"gfx942", "global_load_dwordx4"},
                         Case{"sm_80", ".v4.f32"}}) {
    SCOPED_TRACE(cs.target);
    auto tg = gpu_target(cs.target);
    ASSERT_TRUE(tg.ok());
    auto spec = compile_gpu_optimized(k, "vec4", *tg, std::vector<Opt>{{OptOp::kUpcast, 0, 4}}, go);
    ASSERT_TRUE(spec.ok()) << spec.error().to_string();
    EXPECT_NE(spec->assembly.find(cs.insn), std::string::npos) << spec->assembly;
    GpuOptions scalar;
    auto s0 =
        compile_gpu_optimized(k, "vec4", *tg, std::vector<Opt>{{OptOp::kUpcast, 0, 4}}, scalar);
    ASSERT_TRUE(s0.ok());
    EXPECT_TRUE(vector_accesses(s0->program).loads.empty());
  }
}

}  // namespace
}  // namespace rawgpu::compiler
