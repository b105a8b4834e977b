// GPU code generation (compile-only): every example kernel for every target, GPU lowering and
// barrier insertion, the AMDGPU code objects (parsed by drivers/amd, disassembled by
// llvm-objdump-19) and the NVPTX PTX (assembled by ptxas when installed, the cubin parsed by
// drivers/nv and cross-checked with `ptxas -v`).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "rawgpu/base/process.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/compiler/symbolic.h"
#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/nv/cubin.h"

namespace rawgpu::compiler {
namespace {

namespace fs = std::filesystem;

size_t count_barriers(const Program& p) {
  size_t n = 0;
  for (const Inst& in : p.insts) n += in.kind == InstKind::kValue && in.node->op() == Op::kBarrier;
  return n;
}

uint64_t local_bytes(const Program& p) {
  uint64_t b = 0;
  for (Ref l : p.locals) b += uint64_t(l->arg().as_ints()[1]) * itemsize(l->dtype());
  return b;
}

std::string objdump(const std::vector<uint8_t>& co, const std::string& mcpu) {
  const auto tool = find_executable("llvm-objdump-19", {"/usr/lib/llvm-19/bin"});
  if (!tool) return "SKIP";
  const fs::path p = fs::temp_directory_path() /
                     ("rawgpu_gpu_test_" + std::to_string(::getpid()) + "_" + mcpu + ".co");
  {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(co.data()), std::streamsize(co.size()));
  }
  auto r = run_command({*tool, "-d", "--mcpu=" + mcpu, p.string()});
  fs::remove(p);
  if (!r.ok()) return "FAILED: " + r.error().to_string();
  return (r->exit_code == 0 ? "" : "FAILED: ") + r->output;
}

struct Case {
  std::string target, example;
};

class GpuCompile : public ::testing::TestWithParam<Case> {};

TEST_P(GpuCompile, ExampleCompilesAndLoads) {
  const Case& tc = GetParam();
  Context ctx;
  auto ex = gpu_example(ctx, tc.example);
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  auto target = gpu_target(tc.target);
  ASSERT_TRUE(target.ok());
  auto spec = compile_gpu(ex->sink, tc.example, *target, ex->options);
  if (target->arch == GpuArch::kHost &&
      (tc.example == "matmul" || tc.example.rfind("matmul_tc", 0) == 0)) {
    // Written with launch ids and local tiles: a GPU-only kernel.
    ASSERT_FALSE(spec.ok());
    EXPECT_TRUE(spec.error().is(Errc::kUnsupported)) << spec.error().to_string();
    return;
  }
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  const ProgramSpec& s = *spec;
  EXPECT_EQ(s.name, tc.example);
  EXPECT_FALSE(s.llvm_ir.empty());
  EXPECT_FALSE(s.assembly.empty());
  EXPECT_FALSE(s.buffers.empty());
  EXPECT_TRUE(s.buffers[0].output);
  EXPECT_GT(s.flops, 0u);
  EXPECT_GT(s.bytes, 0u);
  const uint64_t lds = local_bytes(s.program);
  const int64_t threads = s.gpu.local[0] * s.gpu.local[1] * s.gpu.local[2];
  if (target->arch == GpuArch::kAmd) {
    ASSERT_EQ(s.binary_kind, "code object");
    auto co = drivers::amd::parse_code_object(s.binary);
    ASSERT_TRUE(co.ok()) << co.error().to_string();
    const auto* k = co->find(tc.example);
    ASSERT_NE(k, nullptr);
    // No hidden kernel arguments: the segment is exactly the buffer pointers.
    EXPECT_EQ(k->descriptor.kernarg_size, 8 * s.program.buffers.size() + 8 * s.vars.size());
    for (const auto& a : k->metadata.args) EXPECT_FALSE(a.hidden()) << a.value_kind;
    EXPECT_EQ(k->descriptor.group_segment_fixed_size, lds);
    EXPECT_EQ(k->descriptor.private_segment_fixed_size, 0u) << "scratch in " << tc.example;
    EXPECT_EQ(k->metadata.wavefront_size, target->wave);
    EXPECT_EQ(k->metadata.max_flat_workgroup_size, uint32_t(threads));
    EXPECT_FALSE(k->descriptor.properties.dispatch_ptr);
    EXPECT_FALSE(k->descriptor.properties.queue_ptr);
    EXPECT_EQ(s.loaded.local_bytes, lds);
    if (target->name != "gfx942") {
      EXPECT_FALSE(k->descriptor.rsrc1.wgp_mode);  // +cumode
    }
    const std::string dis = objdump(s.binary, tc.target);
    if (dis != "SKIP") {
      EXPECT_EQ(dis.find("FAILED"), std::string::npos) << dis;
      EXPECT_EQ(dis.find("<unknown>"), std::string::npos) << dis;
      EXPECT_NE(dis.find("s_endpgm"), std::string::npos) << dis;
      if (lds) {
        EXPECT_NE(dis.find("s_barrier"), std::string::npos) << dis;
        EXPECT_NE(dis.find("ds_"), std::string::npos) << dis;
      }
    }
  } else if (target->arch == GpuArch::kNv) {
    EXPECT_NE(s.assembly.find(".entry " + tc.example), std::string::npos);
    EXPECT_NE(s.assembly.find(".maxntid " + std::to_string(threads) + ", 1, 1"), std::string::npos)
        << s.assembly.substr(0, 2000);
    if (lds) {
      EXPECT_NE(s.assembly.find("bar.sync"), std::string::npos);
      EXPECT_NE(s.assembly.find(".shared"), std::string::npos);
    }
    if (s.binary_kind != "cubin") {
      EXPECT_EQ(s.binary_kind, "ptx only");
      GTEST_SKIP() << "ptxas not installed: PTX checked, cubin step SKIPPED";
    }
    auto cb = drivers::nv::parse_cubin(s.binary);
    ASSERT_TRUE(cb.ok()) << cb.error().to_string();
    const auto* k = cb->find(tc.example);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(cb->sm, uint32_t(std::stoi(tc.target.substr(3))));
    EXPECT_EQ(k->param_size, 8 * s.program.buffers.size() + 8 * s.vars.size());
    EXPECT_EQ(k->param_offset, tc.target == "sm_90" ? 0x210u : 0x160u);
    EXPECT_EQ(k->max_threads[0], uint32_t(threads));
    EXPECT_EQ(k->params.size(), s.program.buffers.size() + s.vars.size());
    // Cross-check with ptxas -v: "Used N registers, ... M bytes smem".
    std::smatch m;
    ASSERT_TRUE(std::regex_search(s.binary_note, m, std::regex("Used (\\d+) registers")))
        << s.binary_note;
    EXPECT_EQ(k->registers, uint32_t(std::stoul(m[1])));
    uint32_t smem = 0;
    if (std::regex_search(s.binary_note, m, std::regex("(\\d+) bytes smem")))
      smem = uint32_t(std::stoul(m[1]));
    EXPECT_EQ(smem, lds);
    // sm_90 cubins include the 1 KiB reserved shared memory in .nv.shared.<k> (nv.md 3.9).
    if (lds) {
      EXPECT_EQ(k->shared_bytes, smem + (tc.target == "sm_90" ? 0x400u : 0u));
    }
  } else {
    EXPECT_EQ(s.binary_kind, "host object");
    EXPECT_GT(s.binary.size(), 64u);
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (auto t : gpu_target_names())
    for (auto e : gpu_example_names()) v.push_back({std::string(t), std::string(e)});
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, GpuCompile, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return info.param.target + "_" + info.param.example;
});

TEST(GpuLower, LaunchGeometryOfExamples) {
  Context ctx;
  auto t = gpu_target("gfx1100");
  ASSERT_TRUE(t.ok());
  auto ew = gpu_example(ctx, "elementwise");
  ASSERT_TRUE(ew.ok());
  auto k = gpu_lower(ew->sink, *t, ew->options);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_EQ(k->local, (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(k->global, (std::array<int64_t, 3>{256, 1, 1}));

  auto rr = gpu_example(ctx, "reduce_row");
  ASSERT_TRUE(rr.ok());
  k = gpu_lower(rr->sink, *t, rr->options);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_EQ(k->local, (std::array<int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(k->global, (std::array<int64_t, 3>{256, 1, 1}));
  auto p = linearize(k->ast);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->locals.size(), 1u);
  EXPECT_EQ(insert_barriers(*p), 1u);  // read after write of the partials
  EXPECT_TRUE(verify_program(*p).ok());

  // Four output axes (n, co, y, x) become three launch dims.
  auto cv = gpu_example(ctx, "conv2d");
  ASSERT_TRUE(cv.ok());
  k = gpu_lower(cv->sink, *t, cv->options);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_EQ(k->global[0] * k->local[0] * k->global[1] * k->local[1] * k->global[2] * k->local[2],
            2 * 32 * 32 * 32);
  bool merged = false;
  for (const auto& o : k->applied_opts) merged |= o.find("merge") != std::string::npos;
  EXPECT_TRUE(merged);
}

TEST(GpuLower, MatmulBarriersRawAndWar) {
  Context ctx;
  auto mm = gpu_example(ctx, "matmul");
  ASSERT_TRUE(mm.ok());
  auto t = gpu_target("sm_80");
  ASSERT_TRUE(t.ok());
  auto k = gpu_lower(mm->sink, *t, mm->options);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_EQ(k->local, (std::array<int64_t, 3>{16, 16, 1}));
  auto p = linearize(k->ast);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  // Inside the tile loop: one barrier after the tile stores (RAW), one at the end of the
  // body before the next iteration overwrites the tiles (WAR).
  EXPECT_EQ(insert_barriers(*p), 2u) << p->to_string();
  int depth_of_loop = -1;
  std::vector<uint32_t> barrier_depths;
  for (const Inst& in : p->insts) {
    if (in.kind == InstKind::kLoopBegin && depth_of_loop < 0) depth_of_loop = int(in.depth);
    if (in.kind == InstKind::kValue && in.node->op() == Op::kBarrier)
      barrier_depths.push_back(in.depth);
  }
  ASSERT_EQ(barrier_depths.size(), 2u);
  EXPECT_EQ(barrier_depths[0], uint32_t(depth_of_loop + 1));  // in the tile loop, not deeper
  EXPECT_EQ(barrier_depths[1], uint32_t(depth_of_loop + 1));
  EXPECT_TRUE(verify_program(*p).ok());
  EXPECT_EQ(count_barriers(*p), 2u);
  EXPECT_EQ(insert_barriers(*p), 0u);  // idempotent
}

TEST(GpuLower, AttentionIsOneFusedKernel) {
  // Three key loops (max, sum, P.V), each with a nested head-dim loop for the Q.K dot product;
  // the query and head-dim output axes become the launch grid. No local memory, no barriers.
  Context ctx;
  auto at = gpu_example(ctx, "attention");
  ASSERT_TRUE(at.ok()) << at.error().to_string();
  auto t = gpu_target("gfx1100");
  ASSERT_TRUE(t.ok());
  auto k = gpu_lower(at->sink, *t, at->options);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_EQ(k->global[0] * k->local[0] * k->global[1] * k->local[1], 128 * 64);
  auto p = linearize(k->ast);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  size_t loops = 0;
  for (const Inst& in : p->insts) loops += in.kind == InstKind::kLoopBegin;
  EXPECT_EQ(loops, 6u) << p->to_string();
  EXPECT_EQ(p->buffers.size(), 4u);
  EXPECT_TRUE(p->locals.empty());
  EXPECT_EQ(insert_barriers(*p), 0u);
  EXPECT_TRUE(verify_program(*p).ok());
}

TEST(GpuLower, ErrorsAreTyped) {
  Context ctx;
  EXPECT_TRUE(gpu_target("gfx9000").error().is(Errc::kInvalidArgument));
  auto t = gpu_target("gfx942");
  ASSERT_TRUE(t.ok());
  auto ew = gpu_example(ctx, "elementwise");
  ASSERT_TRUE(ew.ok());
  GpuOptions o;
  o.local = {100};  // does not divide 65536
  auto k = gpu_lower(ew->sink, *t, o);
  ASSERT_FALSE(k.ok());
  EXPECT_TRUE(k.error().is(Errc::kInvalidArgument)) << k.error().to_string();
  o.local = {2048};  // divides, but exceeds 1024 threads
  k = gpu_lower(ew->sink, *t, o);
  ASSERT_FALSE(k.ok());
  EXPECT_TRUE(k.error().is(Errc::kOutOfRange)) << k.error().to_string();
  o = {};
  o.group = 64;  // no reduction in the kernel
  EXPECT_TRUE(gpu_lower(ew->sink, *t, o).error().is(Errc::kInvalidArgument));
  EXPECT_TRUE(gpu_example(ctx, "nope").error().is(Errc::kNotFound));
}

TEST(GpuLower, GridLimitMergesAxes) {
  // 2^17 x 2: the outer axis would need 131072 work-groups on dim 1 (limit 65535) and merges
  // into x.
  Context ctx;
  const int64_t a0[] = {0, 1 << 18}, a1[] = {1, 1 << 18};
  Ref out = ctx.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(a0));
  Ref in = ctx.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(a1));
  Ref i = ctx.range(1 << 17, 0, kAxisLoop), j = ctx.range(2, 1, kAxisLoop);
  Ref idx = i * 2 + j;
  Ref ld = ctx.make(Op::kLoad, DType::kFloat32, {ctx.make(Op::kIndex, DType::kFloat32, {in, idx})});
  Ref sink = ctx.make(Op::kSink, DType::kVoid,
                      {ctx.make(Op::kStore, DType::kVoid,
                                {ctx.make(Op::kIndex, DType::kFloat32, {out, idx}), ld})});
  auto t = gpu_target("sm_86");
  ASSERT_TRUE(t.ok());
  GpuOptions o;
  o.default_threads = 2;
  auto k = gpu_lower(sink, *t, o);
  ASSERT_TRUE(k.ok()) << k.error().to_string();
  EXPECT_LE(uint64_t(k->global[1]), 65535u);
  EXPECT_EQ(k->global[0] * k->local[0] * k->global[1] * k->local[1], int64_t(1) << 18);
  auto s = compile_gpu(sink, "wide", *t, o);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
}

}  // namespace
}  // namespace rawgpu::compiler

// ---------------------------------------------------------------------------------------------
// Symbolic launch sizes: out[i] = a[i] * 2 + 1 for i < n (a DEFINE_VAR), and a 2-D kernel with a
// symbolic row count.

namespace rawgpu::compiler {
namespace {

Ref sym_buffer(Context& c, int64_t slot, int64_t count) {
  const int64_t a[] = {slot, count};
  return c.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(a));
}

Ref sym_elementwise(Context& c, int64_t max_n) {
  Ref n = c.var("n", 1, max_n);
  Ref out = sym_buffer(c, 0, max_n), a = sym_buffer(c, 1, max_n);
  Ref i = c.range(n, 0, kAxisLoop);
  Ref v = c.make(Op::kLoad, DType::kFloat32, {c.make(Op::kIndex, DType::kFloat32, {a, i})}) *
              c.cfloat(2.0) +
          c.cfloat(1.0);
  return c.make(
      Op::kSink, DType::kVoid,
      {c.make(Op::kStore, DType::kVoid, {c.make(Op::kIndex, DType::kFloat32, {out, i}), v})});
}

// The elements the lowered kernel stores for n: every thread of the launch, store indices
// evaluated (masked ones skipped); each must be written exactly once.
std::map<int64_t, int> stored_elements(const ProgramSpec& s, int64_t n) {
  std::map<int64_t, int> seen;
  auto low = lower(s.gpu.ast);
  EXPECT_TRUE(low.ok());
  if (!low.ok()) return seen;
  Ref st, gid, lid, var;
  for (Ref x : low->get()->ctx().toposort(*low)) {
    if (x->op() == Op::kStore) st = x;
    if (x->op() == Op::kDefineVar) var = x;
    if (x->op() == Op::kSpecial) (x->arg().as_str() == "gidx0" ? gid : lid) = x;
  }
  const int64_t vals[] = {n};
  auto g = launch_global(s, vals);
  EXPECT_TRUE(g.ok());
  if (!st || !gid || !lid || !var || !g.ok()) return seen;
  for (int64_t b = 0; b < (*g)[0]; ++b)
    for (int64_t t = 0; t < s.gpu.local[0]; ++t) {
      const Binding bind[] = {{gid, b}, {lid, t}, {var, n}};
      auto r = eval_int(st->src(0)->src(1), bind);
      EXPECT_TRUE(r.ok());
      if (r.ok() && !r->invalid) ++seen[r->value];
    }
  return seen;
}

TEST(GpuSymbolic, ElementwiseOverNCompilesForEveryTarget) {
  for (auto tn : gpu_target_names()) {
    SCOPED_TRACE(std::string(tn));
    Context c;
    auto t = gpu_target(tn);
    ASSERT_TRUE(t.ok());
    auto spec = compile_gpu(sym_elementwise(c, 1 << 20), "ew_n", *t);
    ASSERT_TRUE(spec.ok()) << spec.error().to_string();
    ASSERT_EQ(spec->vars.size(), 1u);
    if (t->arch == GpuArch::kHost) {
      EXPECT_FALSE(spec->gpu.global_expr[0]);
      continue;
    }
    ASSERT_TRUE(spec->gpu.global_expr[0]);
    EXPECT_EQ(spec->gpu.local[0], 256);
    const int64_t v1000[] = {1000}, v256[] = {256}, v1[] = {1}, vbad[] = {0};
    auto g = launch_global(*spec, v1000);
    ASSERT_TRUE(g.ok()) << g.error().to_string();
    EXPECT_EQ((*g)[0], 4);  // ceil(1000 / 256)
    EXPECT_EQ((*g)[1], 1);
    EXPECT_EQ((*launch_global(*spec, v256))[0], 1);
    EXPECT_EQ((*launch_global(*spec, v1))[0], 1);
    EXPECT_EQ(spec->gpu.global[0], (1 << 20) / 256);  // the upper bound
    EXPECT_TRUE(launch_global(*spec, vbad).error().is(Errc::kOutOfRange));
    EXPECT_TRUE(launch_global(*spec, {}).error().is(Errc::kInvalidArgument));
    if (t->arch == GpuArch::kAmd) {
      EXPECT_EQ(spec->loaded.kernarg_bytes, 8u * 2 + 8u);  // two buffers and n
      const std::string dis = objdump(spec->binary, t->name);
      if (dis != "SKIP") {
        EXPECT_EQ(dis.find("FAILED"), std::string::npos) << dis;
        EXPECT_NE(dis.find("v_cmp"), std::string::npos) << dis;  // the n gate
      }
    } else {
      EXPECT_NE(spec->assembly.find("setp."), std::string::npos) << spec->assembly;
      if (spec->binary_kind == "cubin") {
        EXPECT_EQ(spec->loaded.kernarg_bytes, 8u * 2 + 8u);
      }
    }
  }
}

TEST(GpuSymbolic, GatedStoresCoverExactlyN) {
  Context c;
  auto t = gpu_target("gfx1100");
  ASSERT_TRUE(t.ok());
  GpuOptions o;
  o.assemble = false;
  auto spec = compile_gpu(sym_elementwise(c, 4096), "ew_n", *t, o);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  for (int64_t n : {1, 255, 256, 257, 1000, 4096}) {
    SCOPED_TRACE(n);
    const auto seen = stored_elements(*spec, n);
    ASSERT_EQ(int64_t(seen.size()), n);
    EXPECT_EQ(seen.begin()->first, 0);
    EXPECT_EQ(seen.rbegin()->first, n - 1);
    for (auto& [i, cnt] : seen) EXPECT_EQ(cnt, 1) << i;
  }
}

TEST(GpuSymbolic, TwoDimsWithSymbolicRows) {
  Context c;
  Ref m = c.var("m", 1, 4096);
  Ref out = sym_buffer(c, 0, 4096 * 48), a = sym_buffer(c, 1, 4096 * 48);
  Ref r = c.range(m, 0, kAxisLoop), col = c.range(48, 1, kAxisLoop);
  Ref v =
      c.make(Op::kLoad, DType::kFloat32, {c.make(Op::kIndex, DType::kFloat32, {a, r * 48 + col})});
  Ref sink = c.make(Op::kSink, DType::kVoid,
                    {c.make(Op::kStore, DType::kVoid,
                            {c.make(Op::kIndex, DType::kFloat32, {out, r * 48 + col}), v + v})});
  for (const char* tn : {"gfx942", "sm_90"}) {
    auto t = gpu_target(tn);
    ASSERT_TRUE(t.ok());
    auto spec = compile_gpu(sink, "rows_m", *t);
    ASSERT_TRUE(spec.ok()) << spec.error().to_string();
    // x: the 48 columns (constant, local 48); y: m rows, symbolic.
    EXPECT_FALSE(spec->gpu.global_expr[0]);
    ASSERT_TRUE(spec->gpu.global_expr[1]);
    const int64_t v10[] = {10};
    auto g = launch_global(*spec, v10);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ((*g)[0] * spec->gpu.local[0], 48);
    EXPECT_GE((*g)[1] * spec->gpu.local[1], 10);
    EXPECT_LT(((*g)[1] - 1) * spec->gpu.local[1], 10);
  }
  // GROUP with a symbolic output size: typed error.
  GpuOptions o;
  o.group = 16;
  auto t = gpu_target("gfx1100");
  Ref n = c.var("n", 1, 1024);
  Ref i = c.range(n, 0, kAxisLoop), k = c.range(64, 1, kAxisReduce);
  Ref red = c.make(
      Op::kReduce, DType::kFloat32,
      {c.make(Op::kLoad, DType::kFloat32, {c.make(Op::kIndex, DType::kFloat32, {a, i * 64 + k})}),
       k},
      Arg::op(Op::kAdd));
  Ref rs = c.make(
      Op::kSink, DType::kVoid,
      {c.make(Op::kStore, DType::kVoid, {c.make(Op::kIndex, DType::kFloat32, {out, i}), red})});
  auto bad = gpu_lower(rs, *t, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.error().is(Errc::kUnsupported)) << bad.error().to_string();
}

}  // namespace
}  // namespace rawgpu::compiler
