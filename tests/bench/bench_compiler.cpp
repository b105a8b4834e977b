// Compile-path micro-benchmarks: interning, rewriting large graphs, symbolic simplification.
//   meson compile -C build benchmarks && build/tests/compiler/bench_compiler
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/ir.h"
#include "rawgpu/compiler/linearize.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/search.h"
#include "rawgpu/compiler/symbolic.h"
#include "rawgpu/frontend/tensor.h"

namespace rawgpu::compiler {
namespace {

// Creating fresh nodes: a chain x+1+2+3... (every node new).
void BM_InternNew(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    Context ctx;
    Ref x = ctx.var("x", 0, 100);
    for (int i = 0; i < n; ++i) x = ctx.make(Op::kAdd, DType::kIndex, {x, ctx.cint(i)});
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations() * n * 2);  // an ADD and a CONST lookup per step
}
BENCHMARK(BM_InternNew)->Arg(1000)->Arg(100000);

// Looking up existing nodes (the common case while rewriting).
void BM_InternHit(benchmark::State& state) {
  Context ctx;
  std::vector<Ref> leaves;
  for (int i = 0; i < 1024; ++i) leaves.push_back(ctx.var("v" + std::to_string(i), 0, 100));
  for (int i = 0; i < 1024; ++i) (void)(leaves[i] + leaves[(i * 7) & 1023]);
  int i = 0;
  for (auto _ : state) {
    Ref r = ctx.make(Op::kAdd, DType::kIndex, {leaves[i & 1023], leaves[((i & 1023) * 7) & 1023]});
    benchmark::DoNotOptimize(r);
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_InternHit);

PatternMatcher fold_rules() {
  PatternMatcher pm;
  pm.add(
      Pat::op(Op::kAdd).src(Pat::op(Op::kAdd).src(Pat::var("x"), Pat::cvar("a")), Pat::cvar("b")),
      [](const Match& m) {
        return m("x") + m.ctx().cint(m("a")->arg().as_int() + m("b")->arg().as_int());
      });
  pm.add(Pat::op(Op::kMul).csrc(Pat::var("x"), Pat::konst(1)),
         [](const Match& m) { return m("x"); });
  return pm;
}

// Bottom-up fixpoint rewrite of a deep chain where every node fires a rule.
void BM_RewriteChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const PatternMatcher pm = fold_rules();
  for (auto _ : state) {
    state.PauseTiming();
    auto ctx = std::make_unique<Context>();
    Ref x = ctx->var("x", 0, 100);
    for (int i = 0; i < n; ++i) x = x + 1;
    state.ResumeTiming();
    Ref r = rewrite_bottom_up(x, pm);
    benchmark::DoNotOptimize(r);
    state.PauseTiming();
    ctx.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_RewriteChain)->Arg(100000)->Unit(benchmark::kMillisecond);

// A wide DAG where no rule fires (the matcher's early reject and memo are what is measured).
void BM_RewriteNoMatch(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const PatternMatcher pm = fold_rules();
  Context ctx;
  std::vector<Ref> layer;
  for (int i = 0; i < 64; ++i) layer.push_back(ctx.var("v" + std::to_string(i), 0, 100));
  std::mt19937 rng(1);
  Ref last;
  for (int i = 0; i < n; ++i) {
    last = ctx.make(i % 2 ? Op::kMax : Op::kMul, DType::kIndex,
                    {layer[rng() % layer.size()], layer[rng() % layer.size()]});
    layer[rng() % layer.size()] = last;
  }
  Ref root = ctx.make(Op::kSink, DType::kVoid, layer);
  for (auto _ : state) benchmark::DoNotOptimize(rewrite_bottom_up(root, pm));
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_RewriteNoMatch)->Arg(100000)->Unit(benchmark::kMillisecond);

// Symbolic simplification of reshape-style index expressions (fresh Context per iteration).
void BM_SymbolicIndex(benchmark::State& state) {
  int64_t nodes = 0;
  for (auto _ : state) {
    Context ctx;
    Ref r0 = ctx.range(32, 0), r1 = ctx.range(16, 1), r2 = ctx.range(8, 2), r3 = ctx.range(3, 3);
    Ref flat = ((r0 * 16 + r1) * 8 + r2) * 3 + r3;
    Ref e = ((flat / 3) % 8) * 100 + (flat / 24) % 16 + (flat / 384) * 7 + flat % 3;
    Ref g = where(cmplt(r0 * 2 + r1, 40), e, ctx.invalid());
    Ref s = simplify(g);
    benchmark::DoNotOptimize(s);
    nodes += static_cast<int64_t>(ctx.num_nodes());
  }
  state.counters["nodes_created"] =
      benchmark::Counter(static_cast<double>(nodes) / state.iterations());
}
BENCHMARK(BM_SymbolicIndex)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rawgpu::compiler

// C[i, j] = sum_k A[i, k] * B[k, j] as a kernel AST (float32, n x n).
rawgpu::compiler::Ref matmul_ast(rawgpu::compiler::Context& ctx, int64_t n) {
  using namespace rawgpu::compiler;
  auto buf = [&](int64_t slot) {
    const int64_t a[] = {slot, n * n};
    return ctx.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(a));
  };
  Ref c = buf(0), a = buf(1), b = buf(2);
  Ref i = ctx.range(n, 0, kAxisLoop), j = ctx.range(n, 1, kAxisLoop),
      k = ctx.range(n, 2, kAxisReduce);
  auto load = [&](Ref bf, Ref idx) {
    return ctx.make(Op::kLoad, DType::kFloat32, {ctx.make(Op::kIndex, DType::kFloat32, {bf, idx})});
  };
  Ref prod = ctx.make(Op::kMul, DType::kFloat32, {load(a, i * n + k), load(b, k * n + j)});
  Ref red = ctx.make(Op::kReduce, DType::kFloat32, {prod, k}, Arg::op(Op::kAdd));
  Ref st = ctx.make(Op::kStore, DType::kVoid,
                    {ctx.make(Op::kIndex, DType::kFloat32, {c, i * n + j}), red});
  return ctx.make(Op::kSink, DType::kVoid, {st});
}

// Lowering + linearization of a matmul kernel (no LLVM).
void BM_LinearizeMatmul(benchmark::State& state) {
  for (auto _ : state) {
    rawgpu::compiler::Context ctx;
    auto p = rawgpu::compiler::linearize(matmul_ast(ctx, 64));
    benchmark::DoNotOptimize(p.ok());
  }
}
BENCHMARK(BM_LinearizeMatmul)->Unit(benchmark::kMicrosecond);

// Full compile (lower, linearize, IRBuilder, O3, ORC link) of a fresh kernel per iteration.
void BM_CpuCompileMatmul(benchmark::State& state) {
  auto rt = std::move(rawgpu::compiler::CpuRuntime::create({.threads = 1})).take_value();
  int64_t n = 16;
  for (auto _ : state) {
    rawgpu::compiler::Context ctx;
    auto k = rt->compile(matmul_ast(ctx, n++));  // a new size: never a cache hit
    benchmark::DoNotOptimize(k.ok());
  }
}
BENCHMARK(BM_CpuCompileMatmul)->Unit(benchmark::kMillisecond);

// Running the compiled n x n matmul on all pool threads; reports FLOP/s.
void BM_CpuRunMatmul(benchmark::State& state) {
  using namespace rawgpu::compiler;
  const int64_t n = state.range(0);
  auto rt = std::move(CpuRuntime::create({})).take_value();
  Context ctx;
  const CpuKernel* k = std::move(rt->compile(matmul_ast(ctx, n))).take_value();
  CpuBuffer c(DType::kFloat32, size_t(n * n)), a(DType::kFloat32, size_t(n * n)),
      b(DType::kFloat32, size_t(n * n));
  CpuBuffer* bufs[] = {&c, &a, &b};
  for (auto _ : state) benchmark::DoNotOptimize(rt->launch(*k, bufs, {}).ok());
  state.counters["FLOPS"] = benchmark::Counter(double(2 * n * n * n) * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CpuRunMatmul)->Arg(256)->UseRealTime()->Unit(benchmark::kMillisecond);

// Vector loads/stores from memory coalescing, A/B in one binary (args: kernel, vector bytes;
// one thread): 0 = elementwise out = a*b + a over 2^20 floats with UPCAST 16 (one <16 x float>
// load per input, one store), 1 = row sums of a 1024 x 1024 matrix with UNROLL 16 of the row
// (one <16 x float> load per iteration), 2 = the 256^3 matmul with the CPU heuristic's opts
// (4 x 32 register tile: two <16 x float> loads of B, eight stores of C per tile). Reports bytes
// or FLOPs per second.
void BM_CpuRunVectorized(benchmark::State& state) {
  using namespace rawgpu::compiler;
  const int64_t which = state.range(0);
  CpuRuntimeOptions ro;
  ro.threads = 1;
  ro.vector_bytes = int(state.range(1));
  auto rt = std::move(CpuRuntime::create(ro)).take_value();
  Context ctx;
  const int64_t n = which == 0 ? int64_t{1} << 20 : which == 1 ? 1024 : 256;
  auto buf = [&](int64_t slot, int64_t count) {
    const int64_t a[] = {slot, count};
    return ctx.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(a));
  };
  auto load = [&](Ref bf, Ref idx) {
    return ctx.make(Op::kLoad, DType::kFloat32, {ctx.make(Op::kIndex, DType::kFloat32, {bf, idx})});
  };
  Ref sink;
  std::vector<Opt> opts;
  std::vector<int64_t> counts;
  if (which == 0) {
    const Ref i = ctx.range(n, 0);
    const Ref a = load(buf(1, n), i), b = load(buf(2, n), i);
    sink = ctx.make(Op::kSink, DType::kVoid,
                    {ctx.make(Op::kStore, DType::kVoid,
                              {ctx.make(Op::kIndex, DType::kFloat32, {buf(0, n), i}), a * b + a})});
    opts = {{OptOp::kUpcast, 0, 16}};
    counts = {n, n, n};
  } else if (which == 1) {
    const Ref r = ctx.range(n, 0), k = ctx.range(n, 1, kAxisReduce);
    const Ref red = ctx.make(Op::kReduce, DType::kFloat32, {load(buf(1, n * n), r * n + k), k},
                             Arg::op(Op::kAdd));
    sink = ctx.make(Op::kSink, DType::kVoid,
                    {ctx.make(Op::kStore, DType::kVoid,
                              {ctx.make(Op::kIndex, DType::kFloat32, {buf(0, n), r}), red})});
    opts = {{OptOp::kUnroll, 1, 16}};
    counts = {n, n * n};
  } else {
    sink = matmul_ast(ctx, n);
    opts = hand_coded_opts(std::move(OptKernel::create(sink)).take_value(), {});
    counts = {n * n, n * n, n * n};
  }
  const CpuKernel* k = std::move(rt->compile_with_opts(sink, opts)).take_value();
  std::vector<CpuBuffer> bufs;
  for (int64_t c : counts) bufs.emplace_back(DType::kFloat32, size_t(c));
  std::vector<CpuBuffer*> ptrs;
  for (auto& b : bufs) ptrs.push_back(&b);
  for (auto _ : state) benchmark::DoNotOptimize(rt->launch(*k, ptrs, {}).ok());
  if (which == 2)
    state.counters["FLOPS"] = benchmark::Counter(double(2 * n * n * n) * double(state.iterations()),
                                                 benchmark::Counter::kIsRate);
  else
    state.counters["bytes"] = benchmark::Counter(
        double(k->program.bytes) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CpuRunVectorized)
    ->ArgsProduct({{0, 1, 2}, {0, 64}})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// The rewrite engine on a large symbolic graph: 2000 distinct reshape/permute-style masked index
// expressions under one SINK (sharing their RANGEs), rewritten bottom-up to a fixpoint with the
// full symbolic rule set (= simplify()). items/s = the driver's node visits per second
// (RewriteStats::nodes_visited: every node of the input graph and every node a rule creates
// that is itself rewritten). Fresh Context per iteration, built untimed.
void BM_RewriteSymbolicGraph(benchmark::State& state) {
  using namespace rawgpu::compiler;
  const int exprs = static_cast<int>(state.range(0));
  int64_t graph = 0, created = 0;
  RewriteStats stats;
  for (auto _ : state) {
    state.PauseTiming();
    auto ctx = std::make_unique<Context>();
    std::vector<Ref> roots;
    for (int i = 0; i < exprs; ++i) {
      const int64_t a = 2 + i % 7, b = 3 + i % 5, c = 4 + i % 3;
      Ref r0 = ctx->range(a * 4, 0), r1 = ctx->range(b, 1), r2 = ctx->range(c, 2),
          r3 = ctx->range(8, 3 + i % 4);
      Ref flat = ((r0 * b + r1) * c + r2) * 8 + r3;
      Ref e = ((flat / 8) % c) * (100 + i) + (flat / (8 * c)) % b + (flat / (8 * b * c)) * 7 +
              flat % 8 + i;
      roots.push_back(where(cmplt(r0 * 2 + r1, a * 5 + i % 11), e, ctx->invalid()));
    }
    Ref sink = ctx->make(Op::kSink, DType::kVoid, roots);
    graph += static_cast<int64_t>(ctx->toposort(sink).size());
    const size_t before = ctx->num_nodes();
    RewriteOptions o;
    o.stats = &stats;
    state.ResumeTiming();
    Ref s = rewrite_bottom_up(sink, symbolic(), o);
    benchmark::DoNotOptimize(s);
    state.PauseTiming();
    created += static_cast<int64_t>(ctx->num_nodes() - before);
    ctx.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(stats.nodes_visited));
  const double it = double(state.iterations());
  state.counters["graph_nodes"] = benchmark::Counter(double(graph) / it);
  state.counters["visits"] = benchmark::Counter(double(stats.nodes_visited) / it);
  state.counters["rule_hits"] = benchmark::Counter(double(stats.rule_hits) / it);
  state.counters["nodes_created"] = benchmark::Counter(double(created) / it);
}
BENCHMARK(BM_RewriteSymbolicGraph)->Arg(2000)->Unit(benchmark::kMillisecond);

// The scheduler (fusion, kernel ASTs with simplified indices, memory plan) on the forward passes
// of `rawgpu bench compile`: arg 0 = 3-layer MLP 784-512-512-10 (batch 128), 1 = transformer
// block (d_model 256, 4 heads, seq 128, batch 4). The graph is rebuilt untimed per iteration
// (fresh input buffers, so nothing is cached from the previous iteration).
rawgpu::frontend::Tensor bench_param(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  auto t = rawgpu::frontend::Tensor::from(std::vector<float>(size_t(n), 0.01f), shape);
  (void)t.realize();
  return t;
}
rawgpu::frontend::Tensor bench_workload(int which) {
  using rawgpu::frontend::Tensor;
  if (which == 0) {
    Tensor x = bench_param({128, 784});
    Tensor h = (x.matmul(bench_param({784, 512})) + bench_param({512})).relu();
    h = (h.matmul(bench_param({512, 512})) + bench_param({512})).relu();
    return h.matmul(bench_param({512, 10})) + bench_param({10});
  }
  const int64_t B = 4, T = 128, D = 256, H = 4, Dh = 64, F = 1024;
  Tensor x = bench_param({B, T, D});
  Tensor h = x.layernorm(1);
  Tensor qkv = h.matmul(bench_param({D, 3 * D})) + bench_param({3 * D});
  auto head = [&](int64_t i) {
    return qkv.slice(2, i * D, (i + 1) * D).reshape({B, T, H, Dh}).permute({0, 2, 1, 3});
  };
  Tensor att = (head(0).matmul(head(1).transpose(-2, -1)) * 0.125).softmax(-1).matmul(head(2));
  Tensor x2 = x + att.permute({0, 2, 1, 3}).reshape({B, T, D}).matmul(bench_param({D, D}));
  Tensor m = x2.layernorm(1).matmul(bench_param({D, F})).gelu().matmul(bench_param({F, D}));
  return x2 + m;
}
void BM_Schedule(benchmark::State& state) {
  size_t kernels = 0;
  for (auto _ : state) {
    state.PauseTiming();
    rawgpu::frontend::Tensor out[] = {bench_workload(static_cast<int>(state.range(0)))};
    state.ResumeTiming();
    auto s = rawgpu::frontend::schedule_tensors(out);
    benchmark::DoNotOptimize(s.ok());
    if (s.ok()) kernels = s->kernels.size();
  }
  state.counters["kernels"] = benchmark::Counter(double(kernels));
}
BENCHMARK(BM_Schedule)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// BEAM search (width 2, no disk cache) on an n x n x n float32 matmul AST: one search per
// iteration on a fresh runtime; reports the unoptimized and the chosen kernel's time, the
// candidates timed and the search's wall time; the second argument is the number of threads
// compiling each round's candidates (compile_s: the wall time of the compile phases).
void BM_BeamMatmul(benchmark::State& state) {
  using namespace rawgpu::compiler;
  const int64_t n = state.range(0);
  const int workers = int(state.range(1));
  BeamResult last;
  for (auto _ : state) {
    auto rt = std::move(CpuRuntime::create({})).take_value();
    Context ctx;
    BeamOptions o;
    o.width = 2;
    o.use_cache = false;
    o.compile_workers = workers;
    auto r = beam_search(matmul_ast(ctx, n), *rt, o);
    if (!r.ok()) {
      state.SkipWithError(r.error().to_string().c_str());
      return;
    }
    last = *r;
  }
  state.counters["base_us"] = last.base_us;
  state.counters["best_us"] = last.best_us;
  state.counters["speedup"] = last.best_us > 0 ? last.base_us / last.best_us : 0;
  state.counters["candidates"] = last.candidates;
  state.counters["rounds"] = last.rounds;
  state.counters["compile_s"] = last.compile_s;
  state.counters["time_s"] = last.time_s;
  state.counters["workers"] = last.compile_workers;
  std::string opts;
  for (const Opt& op : last.opts) opts += (opts.empty() ? "" : ", ") + op.to_string();
  state.SetLabel(opts);
}
BENCHMARK(BM_BeamMatmul)
    ->Args({256, 1})
    ->Args({256, 2})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);

BENCHMARK_MAIN();
