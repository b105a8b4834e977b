// Tensor cores (tensor_core.h): compile-only checks that every GPU target emits its matrix
// instruction (llvm-objdump-19 for the AMD code objects, the PTX and ptxas for NVIDIA), typed
// errors, and a CPU model of each instruction that executes the *generated* index expressions:
// every lane's fragment elements are loaded from A and B exactly where the lowered kernel's LOAD
// indices point, the instruction is modelled from the vendor's documented register layouts
// (written here independently of compiler/tensor_core.cpp), and the lanes' C elements are stored
// where the kernel's STORE indices point. The result must equal a plain matmul, so a wrong lane
// mapping in the lowering fails these tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "rawgpu/base/process.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/spec.h"
#include "rawgpu/compiler/symbolic.h"
#include "rawgpu/compiler/tensor_core.h"

namespace rawgpu::compiler {
namespace {

namespace fs = std::filesystem;

Ref buffer(Context& c, int64_t slot, int64_t count, DType t) {
  const int64_t a[] = {slot, count};
  return c.make(Op::kBuffer, t, {}, Arg::ints(a));
}
Ref load(Context& c, Ref b, Ref i) {
  return c.make(Op::kLoad, b->dtype(), {c.make(Op::kIndex, b->dtype(), {b, i})});
}

// C[i, j] = sum_k A[i, k] * B[k, j] (or B[j, k] when b_transposed), M×N×K, inputs `in`.
Ref matmul(Context& c, int64_t m, int64_t n, int64_t k, DType in, bool b_transposed = false) {
  Ref out = buffer(c, 0, m * n, DType::kFloat32), a = buffer(c, 1, m * k, in),
      b = buffer(c, 2, k * n, in);
  Ref i = c.range(m, 0, kAxisLoop), j = c.range(n, 1, kAxisLoop), r = c.range(k, 2, kAxisReduce);
  Ref bi = b_transposed ? j * k + r : r * n + j;
  Ref prod = cast(load(c, a, i * k + r), DType::kFloat32) * cast(load(c, b, bi), DType::kFloat32);
  Ref red = c.make(Op::kReduce, DType::kFloat32, {prod, r}, Arg::op(Op::kAdd));
  Ref st = c.make(Op::kStore, DType::kVoid,
                  {c.make(Op::kIndex, DType::kFloat32, {out, i * n + j}), red});
  return c.make(Op::kSink, DType::kVoid, {st});
}

// --- The instructions as documented ------------------------------------------------------------
// Per instruction: the tile shape and, for register element e of lane l, the (row, col) it holds
// in A (m×k), B (k×n) and C/D (m×n). Written from the public layouts, phrased per register:
struct Cell {
  int64_t row, col;
};
struct HwModel {
  int64_t m, n, k, lanes, na, nb, nc;
  Cell (*a)(int64_t l, int64_t e);
  Cell (*b)(int64_t l, int64_t e);
  Cell (*c)(int64_t l, int64_t e);
};

// RDNA3 ISA, WMMA: 16-bit A in 8 VGPRs, VGPR v of lane l holds row (l mod 16), K = 2v and 2v+1
// (low/high half); lanes 16-31 repeat lanes 0-15. B likewise with columns. 32-bit D: VGPR v holds
// row 2v in lanes 0-15 and row 2v+1 in lanes 16-31, column l mod 16.
const HwModel kRdna3{16,
                     16,
                     16,
                     32,
                     16,
                     16,
                     8,
                     [](int64_t l, int64_t e) { return Cell{l & 15, (e >> 1) * 2 + (e & 1)}; },
                     [](int64_t l, int64_t e) { return Cell{(e >> 1) * 2 + (e & 1), l & 15}; },
                     [](int64_t l, int64_t v) { return Cell{2 * v + (l >= 16 ? 1 : 0), l & 15}; }};
// RDNA4 ISA, WMMA: 16-bit A in 4 VGPRs; VGPRs 0-1 hold K 0..3 in lanes 0-15 and K 4..7 in lanes
// 16-31, VGPRs 2-3 hold K 8..11 / 12..15 (two K per VGPR, low half first); D: VGPR v holds row v
// (lanes 0-15) and row v+8 (lanes 16-31).
const HwModel kRdna4{16,
                     16,
                     16,
                     32,
                     8,
                     8,
                     8,
                     [](int64_t l, int64_t e) {
                       return Cell{l & 15, (e >= 4 ? 8 : 0) + (l >= 16 ? 4 : 0) + (e & 3)};
                     },
                     [](int64_t l, int64_t e) {
                       return Cell{(e >= 4 ? 8 : 0) + (l >= 16 ? 4 : 0) + (e & 3), l & 15};
                     },
                     [](int64_t l, int64_t v) { return Cell{v + (l >= 16 ? 8 : 0), l & 15}; }};
// CDNA3 MFMA 16x16x16 (wave64): lane l supplies row (l mod 16) of A and column (l mod 16) of B
// for the K block 4*(l div 16) .. +3; D: 4 VGPRs, lane l holds rows 4*(l div 16) .. +3 of column
// l mod 16.
const HwModel kCdna3{16,
                     16,
                     16,
                     64,
                     4,
                     4,
                     4,
                     [](int64_t l, int64_t e) { return Cell{l % 16, (l / 16) * 4 + e}; },
                     [](int64_t l, int64_t e) { return Cell{(l / 16) * 4 + e, l % 16}; },
                     [](int64_t l, int64_t v) { return Cell{(l / 16) * 4 + v, l % 16}; }};
// PTX ISA, mma.m16n8k16 .f16/.bf16: registers a0..a3 (two elements each, e = 2r + h), groupID
// g = l>>2, tig = l&3: a0 (g, 2tig+h), a1 (g+8, ..), a2 (g, 2tig+8+h), a3 (g+8, 2tig+8+h);
// b0 (k = 2tig+h, n = g), b1 (k = 2tig+8+h, n = g); c0/c1 row g, c2/c3 row g+8, col 2tig+(e&1).
const HwModel kSm80{
    16,
    8,
    16,
    32,
    8,
    4,
    4,
    [](int64_t l, int64_t e) {
      const int64_t r = e >> 1, h = e & 1;
      return Cell{(l >> 2) + ((r & 1) ? 8 : 0), 2 * (l & 3) + ((r & 2) ? 8 : 0) + h};
    },
    [](int64_t l, int64_t e) {
      const int64_t r = e >> 1, h = e & 1;
      return Cell{2 * (l & 3) + (r ? 8 : 0) + h, l >> 2};
    },
    [](int64_t l, int64_t e) { return Cell{(l >> 2) + (e >= 2 ? 8 : 0), 2 * (l & 3) + (e & 1)}; }};

const HwModel& model_for(TcKind k) {
  switch (k) {
    case TcKind::kRdna3Wmma: return kRdna3;
    case TcKind::kRdna4Wmma: return kRdna4;
    case TcKind::kCdna3Mfma: return kCdna3;
    case TcKind::kNvMmaSync: return kSm80;
  }
  return kRdna3;
}

int64_t eval(Ref e, const std::vector<Binding>& b) {
  auto r = eval_int(e, b);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  EXPECT_TRUE(!r.ok() || !r->invalid);
  return r.ok() ? r->value : -1;
}

// Runs the lowered kernel of `sink` for `target` on the CPU: fragment loads and stores through
// the generated (simplified) index expressions, the instruction through its documented model.
void run_model(const std::string& target_name, int64_t m, int64_t n, int64_t k, bool bt) {
  SCOPED_TRACE(target_name + " " + std::to_string(m) + "x" + std::to_string(n) + "x" +
               std::to_string(k) + (bt ? " B^T" : ""));
  Context c;
  const Ref sink = matmul(c, m, n, k, DType::kFloat16, bt);
  auto target = gpu_target(target_name);
  ASSERT_TRUE(target.ok());
  GpuOptions o;
  o.tensor_cores = true;
  auto gk = gpu_lower(sink, *target, o);
  ASSERT_TRUE(gk.ok()) << gk.error().to_string();
  auto low = lower(gk->ast);  // what the code generator sees (simplified, narrowed indices)
  ASSERT_TRUE(low.ok()) << low.error().to_string();
  Ref w, lane, g0, g1, kr;
  std::vector<Ref> stores;
  for (Ref x : c.toposort(*low)) {
    if (x->op() == Op::kWmma) w = x;
    if (x->op() == Op::kStore) stores.push_back(x);
    if (x->op() == Op::kRange) kr = x;
    if (x->op() == Op::kSpecial) {
      const std::string_view nm = x->arg().as_str();
      (nm == "lidx0" ? lane : nm == "gidx0" ? g0 : g1) = x;
    }
  }
  ASSERT_TRUE(w && lane && kr);  // gidx0/1 of size 1 fold to 0
  const HwModel& hw = model_for(TcKind(w->arg().as_ints()[0]));
  ASSERT_EQ(int64_t(w->nsrc()), hw.na + hw.nb);
  ASSERT_EQ(int64_t(stores.size()), hw.nc);
  ASSERT_EQ(lane->src(0)->arg().as_int(), hw.lanes);
  ASSERT_EQ(gk->global[0] * hw.n, n);
  ASSERT_EQ(gk->global[1] * hw.m, m);

  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<double> A(size_t(m * k)), B(size_t(k * n)), ref(size_t(m * n), 0.0);
  for (auto& x : A) x = d(rng);
  for (auto& x : B) x = d(rng);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t r = 0; r < k; ++r)
        ref[size_t(i * n + j)] += A[size_t(i * k + r)] * B[size_t(bt ? j * k + r : r * n + j)];
  std::vector<double> out(size_t(m * n), std::nan(""));
  auto slot_of = [](Ref ld) {
    Ref b = ld->src(0)->src(0);
    while (b->op() == Op::kAfter) b = b->src(0);
    return b->arg().as_ints()[0];
  };
  for (int64_t t1 = 0; t1 < m / hw.m; ++t1)
    for (int64_t t0 = 0; t0 < n / hw.n; ++t0) {
      std::vector<std::vector<double>> acc(size_t(hw.lanes), std::vector<double>(size_t(hw.nc)));
      for (int64_t ks = 0; ks < kr->src(0)->arg().as_int(); ++ks) {
        std::vector<double> ta(size_t(hw.m * hw.k), std::nan("")),
            tb(size_t(hw.k * hw.n), std::nan(""));
        for (int64_t l = 0; l < hw.lanes; ++l) {
          std::vector<Binding> bind{{lane, l}, {kr, ks}};
          if (g0) bind.push_back({g0, t0});
          if (g1) bind.push_back({g1, t1});
          for (int64_t e = 0; e < hw.na + hw.nb; ++e) {
            const Ref ld = w->src(size_t(e));
            ASSERT_EQ(ld->op(), Op::kLoad);
            const int64_t idx = eval(ld->src(0)->src(1), bind);
            const bool is_a = e < hw.na;
            ASSERT_EQ(slot_of(ld), is_a ? 1 : 2);
            const double v = is_a ? A.at(size_t(idx)) : B.at(size_t(idx));
            const Cell cell = is_a ? hw.a(l, e) : hw.b(l, e - hw.na);
            double& slot = is_a ? ta[size_t(cell.row * hw.k + cell.col)]
                                : tb[size_t(cell.row * hw.n + cell.col)];
            // A cell held by several lanes (RDNA3's half-wave replication) must agree.
            if (!std::isnan(slot)) {
              ASSERT_EQ(slot, v) << "lanes disagree on a replicated cell";
            }
            slot = v;
          }
        }
        for (double x : ta) ASSERT_FALSE(std::isnan(x)) << "A tile cell not loaded by any lane";
        for (double x : tb) ASSERT_FALSE(std::isnan(x)) << "B tile cell not loaded by any lane";
        for (int64_t l = 0; l < hw.lanes; ++l)
          for (int64_t e = 0; e < hw.nc; ++e) {
            const Cell cc = hw.c(l, e);
            double s = 0;
            for (int64_t r = 0; r < hw.k; ++r)
              s += ta[size_t(cc.row * hw.k + r)] * tb[size_t(r * hw.n + cc.col)];
            acc[size_t(l)][size_t(e)] += s;
          }
      }
      for (int64_t l = 0; l < hw.lanes; ++l) {
        std::vector<Binding> bind{{lane, l}};
        if (g0) bind.push_back({g0, t0});
        if (g1) bind.push_back({g1, t1});
        for (Ref st : stores) {
          ASSERT_EQ(st->src(1)->op(), Op::kGep);
          const int64_t e = st->src(1)->arg().as_int();
          out.at(size_t(eval(st->src(0)->src(1), bind))) = acc[size_t(l)][size_t(e)];
        }
      }
    }
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], ref[i]) << "element " << i << " (row " << i / size_t(n) << ", col "
                              << i % size_t(n) << ")";
}

TEST(TensorCoreModel, GeneratedFragmentsComputeTheMatmul) {
  for (const char* t : {"gfx1100", "gfx1201", "gfx942", "sm_80"}) {
    run_model(t, 32, 48, 64, false);
    run_model(t, 16, 32, 32, true);  // B stored transposed: the lowering follows any index
  }
}

// The models above are the documented layouts: each covers its tiles exactly once per lane set.
TEST(TensorCoreModel, DocumentedLayoutsAreBijective) {
  for (TcKind kind :
       {TcKind::kRdna3Wmma, TcKind::kRdna4Wmma, TcKind::kCdna3Mfma, TcKind::kNvMmaSync}) {
    const HwModel& hw = model_for(kind);
    const TensorCore& tc = tensor_core(kind);
    EXPECT_EQ(tc.m, hw.m);
    EXPECT_EQ(tc.n, hw.n);
    EXPECT_EQ(tc.k, hw.k);
    EXPECT_EQ(int64_t(tc.lanes), hw.lanes);
    std::map<std::pair<int64_t, int64_t>, int> cnt;
    for (int64_t l = 0; l < hw.lanes; ++l)
      for (int64_t e = 0; e < hw.nc; ++e) ++cnt[{hw.c(l, e).row, hw.c(l, e).col}];
    EXPECT_EQ(int64_t(cnt.size()), hw.m * hw.n);
    for (auto& [cell, n] : cnt) EXPECT_EQ(n, 1);
  }
}

std::string objdump(const std::vector<uint8_t>& co, const std::string& mcpu) {
  const auto tool = find_executable("llvm-objdump-19", {"/usr/lib/llvm-19/bin"});
  if (!tool) return "SKIP";
  const fs::path p = fs::temp_directory_path() /
                     ("rawgpu_tc_test_" + std::to_string(::getpid()) + "_" + mcpu + ".co");
  {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(co.data()), std::streamsize(co.size()));
  }
  auto r = run_command({*tool, "-d", "--mcpu=" + mcpu, p.string()});
  fs::remove(p);
  if (!r.ok() || r->exit_code != 0) return "FAILED";
  return r->output;
}

struct TcCase {
  std::string target;
  DType in;
};

class TensorCoreCompile : public ::testing::TestWithParam<TcCase> {};

TEST_P(TensorCoreCompile, EmitsTheMatrixInstruction) {
  const TcCase& p = GetParam();
  const bool bf = p.in == DType::kBFloat16;
  Context c;
  auto target = gpu_target(p.target);
  ASSERT_TRUE(target.ok());
  GpuOptions o;
  o.tensor_cores = true;
  auto spec = compile_gpu(matmul(c, 64, 64, 64, p.in), "mm_tc", *target, o);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  EXPECT_EQ(spec->loaded.scratch_bytes, 0u) << "fragments must stay in registers";
  EXPECT_EQ(spec->gpu.local[0], int64_t(target->wave));
  if (target->arch == GpuArch::kAmd) {
    const std::string insn =
        std::string(target->name == "gfx942" ? "v_mfma_f32_16x16x16_" : "v_wmma_f32_16x16x16_") +
        (bf ? "bf16" : "f16");
    EXPECT_NE(spec->assembly.find(insn), std::string::npos) << spec->assembly.substr(0, 3000);
    const std::string dis = objdump(spec->binary, p.target);
    if (dis == "SKIP") GTEST_SKIP() << "llvm-objdump-19 not installed: disassembly SKIPPED";
    ASSERT_NE(dis, "FAILED");
    EXPECT_NE(dis.find(insn), std::string::npos) << dis;
    EXPECT_EQ(dis.find("<unknown>"), std::string::npos) << dis;
    return;
  }
  const std::string insn = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
                           (bf ? "bf16.bf16" : "f16.f16") + ".f32";
  EXPECT_NE(spec->assembly.find(insn), std::string::npos) << spec->assembly;
  if (spec->binary_kind != "cubin")
    GTEST_SKIP() << "ptxas not installed: PTX checked, cubin (ptxas) step SKIPPED";
  EXPECT_GT(spec->loaded.registers, 0u);
}

std::vector<TcCase> tc_cases() {
  std::vector<TcCase> v;
  for (const char* t :
       {"gfx1100", "gfx1200", "gfx1201", "gfx942", "sm_80", "sm_86", "sm_89", "sm_90"})
    for (DType d : {DType::kFloat16, DType::kBFloat16}) v.push_back({t, d});
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, TensorCoreCompile, ::testing::ValuesIn(tc_cases()),
                         [](const auto& info) {
                           return info.param.target + "_" +
                                  (info.param.in == DType::kFloat16 ? "f16" : "bf16");
                         });

TEST(TensorCoreErrors, TypedKernelOptErrors) {
  Context c;
  auto t = gpu_target("gfx1100");
  ASSERT_TRUE(t.ok());
  GpuOptions o;
  o.tensor_cores = true;
  // Not a multiple of the tile.
  auto r = gpu_lower(matmul(c, 24, 32, 32, DType::kFloat16), *t, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(kernel_opt_errc(r.error()), KernelOptErrc::kNotDivisible) << r.error().to_string();
  // f32 inputs: no f32 tensor core here.
  r = gpu_lower(matmul(c, 32, 32, 32, DType::kFloat32), *t, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(kernel_opt_errc(r.error()), KernelOptErrc::kUnsupported) << r.error().to_string();
  EXPECT_TRUE(r.error().is(Errc::kUnsupported));
  // Host: no tensor core.
  auto h = gpu_target("host");
  ASSERT_TRUE(h.ok());
  r = gpu_lower(matmul(c, 32, 32, 32, DType::kFloat16), *h, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(kernel_opt_errc(r.error()), KernelOptErrc::kUnsupported);
  // Not a matmul (elementwise).
  Ref out = buffer(c, 0, 64, DType::kFloat32), a = buffer(c, 1, 64, DType::kFloat16);
  Ref i = c.range(64, 0, kAxisLoop);
  Ref ew = c.make(Op::kSink, DType::kVoid,
                  {c.make(Op::kStore, DType::kVoid,
                          {c.make(Op::kIndex, DType::kFloat32, {out, i}),
                           cast(load(c, a, i), DType::kFloat32)})});
  r = gpu_lower(ew, *t, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(kernel_opt_errc(r.error()), KernelOptErrc::kUnsupported);
  // With LOCAL: refused.
  o.local = {16, 16};
  r = gpu_lower(matmul(c, 32, 32, 32, DType::kFloat16), *t, o);
  EXPECT_FALSE(r.ok());
}

TEST(TensorCoreOpt, TcOptThroughTheOptimizer) {
  Context c;
  const Ref mm = matmul(c, 32, 64, 32, DType::kBFloat16);
  auto k = OptKernel::create(mm);
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(k->apply({OptOp::kTc, 0, 0}).ok());
  EXPECT_TRUE(k->gpu_options().tensor_cores);
  auto again = k->apply({OptOp::kUpcast, 0, 4});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(kernel_opt_errc(again.error()), KernelOptErrc::kConflict);
  // Not divisible by 16 / TC after another opt.
  auto k2 = OptKernel::create(matmul(c, 48, 40, 32, DType::kFloat16));
  ASSERT_TRUE(k2.ok());
  auto e = k2->apply({OptOp::kTc, 0, 0});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(kernel_opt_errc(e.error()), KernelOptErrc::kNotDivisible);
  auto k3 = OptKernel::create(mm);
  ASSERT_TRUE(k3->apply({OptOp::kUpcast, 0, 2}).ok());
  e = k3->apply({OptOp::kTc, 0, 0});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(kernel_opt_errc(e.error()), KernelOptErrc::kConflict);
  // The recorded opt replays; the program carries the fragment ops.
  auto t = gpu_target("sm_86");
  ASSERT_TRUE(t.ok());
  GpuOptions base;
  base.assemble = false;
  const Opt tc{OptOp::kTc, 0, 0};
  auto spec = compile_gpu_optimized(mm, "mm_tc_opt", *t, {&tc, 1}, base);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  EXPECT_EQ(spec->gpu.applied_opts.front(), "OPT TC 0 0");
  auto replay = rebuild_opts(spec->gpu.applied_opts);
  ASSERT_TRUE(replay.ok());
  ASSERT_EQ(replay->size(), 1u);
  EXPECT_EQ((*replay)[0], tc);
  EXPECT_NE(spec->assembly.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
            std::string::npos);
  size_t acc_updates = 0;
  for (const Inst& in : spec->program.insts)
    acc_updates += in.kind == InstKind::kAccUpdate && in.node->src(0)->op() == Op::kWmma;
  EXPECT_EQ(acc_updates, 1u);
}

TEST(TensorCoreSpec, FragmentOpsAreVerified) {
  Context c;
  Ref a = buffer(c, 1, 16, DType::kFloat32);
  Ref i = c.range(16, 0, kAxisLoop);
  const int64_t arg[] = {0, 1, 1, 8};
  // f32 inputs: rejected by the spec.
  Ref w = c.make(Op::kWmma, DType::kFloat32, {load(c, a, i), load(c, a, i)}, Arg::ints(arg));
  Ref out = buffer(c, 0, 16, DType::kFloat32);
  Ref g = c.make(Op::kGep, DType::kFloat32, {w}, Arg::integer(0));
  Ref s = c.make(
      Op::kSink, DType::kVoid,
      {c.make(Op::kStore, DType::kVoid, {c.make(Op::kIndex, DType::kFloat32, {out, i}), g})});
  auto st = verify(s, Stage::kKernel);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("tensor-core"), std::string::npos) << st.error().message();
  // GEP beyond the fragment.
  Ref h = buffer(c, 2, 16, DType::kFloat16);
  Ref w2 = c.make(Op::kWmma, DType::kFloat32, {load(c, h, i), load(c, h, i)}, Arg::ints(arg));
  Ref g2 = c.make(Op::kGep, DType::kFloat32, {w2}, Arg::integer(8));
  Ref s2 = c.make(
      Op::kSink, DType::kVoid,
      {c.make(Op::kStore, DType::kVoid, {c.make(Op::kIndex, DType::kFloat32, {out, i}), g2})});
  st = verify(s2, Stage::kKernel);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("out of the fragment"), std::string::npos);
}

}  // namespace
}  // namespace rawgpu::compiler
