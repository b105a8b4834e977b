// The PTX interpreter (sim/ptx.h): hand-written kernels for the control flow, shared memory,
// barriers and typed arithmetic, refusal of what it does not simulate, and every compiler
// example kernel compiled to PTX for sm_86 and sm_90 (no ptxas needed) and run against the host
// reference of gpu_example_data.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/sim/ptx.h"

namespace rawgpu::sim::ptx {
namespace {

// Global memory = host buffers at their own addresses, bounds-checked.
struct HostMemory {
  std::map<uint64_t, std::vector<uint8_t>*> buffers;
  Result<uint8_t*> operator()(uint64_t va, uint64_t n, bool) {
    auto it = buffers.upper_bound(va);
    if (it != buffers.begin()) {
      --it;
      const uint64_t base = it->first;
      if (va >= base && va + n <= base + it->second->size())
        return it->second->data() + (va - base);
    }
    return make_error(Errc::kOutOfRange, "unmapped global access [%s, +%llu)", hex(va).c_str(),
                      static_cast<unsigned long long>(n));
  }
  uint64_t add(std::vector<uint8_t>& b) {
    const auto va = reinterpret_cast<uint64_t>(b.data());
    buffers[va] = &b;
    return va;
  }
};

constexpr const char* kSaxpyShared = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1,
	.param .u32 k_param_2
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<12>;
	.reg .f32 	%f<6>;
	.reg .b64 	%rd<9>;
	.shared .align 4 .b8 tile[256];
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u64 	%rd2, [k_param_1];
	ld.param.u32 	%r1, [k_param_2];
	mov.u32 	%r2, %tid.x;
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mad.lo.s32 	%r5, %r3, %r4, %r2;
	setp.ge.u32 	%p1, %r5, %r1;
	mul.wide.u32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd2, %rd3;
	mov.f32 	%f1, 0f00000000;
	@%p1 bra 	$L__skip;
	ld.global.f32 	%f1, [%rd4];
$L__skip:
	mul.wide.u32 	%rd5, %r2, 4;
	mov.u64 	%rd6, tile;
	add.s64 	%rd7, %rd6, %rd5;
	st.shared.f32 	[%rd7], %f1;
	bar.sync 	0;
	// read the neighbour's value (reversed within the CTA)
	sub.s32 	%r6, 63, %r2;
	mul.wide.u32 	%rd8, %r6, 4;
	add.s64 	%rd8, %rd6, %rd8;
	ld.shared.f32 	%f2, [%rd8];
	fma.rn.f32 	%f3, %f2, 0f40000000, 0f3F800000;
	@%p1 bra 	$L__end;
	add.s64 	%rd4, %rd1, %rd3;
	st.global.f32 	[%rd4], %f3;
$L__end:
	ret;
}
)";

TEST(Ptx, ControlFlowSharedMemoryAndBarriers) {
  auto m = parse(kSaxpyShared);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  const Kernel* k = (*m)->find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->param_bytes, 20u);
  EXPECT_EQ(k->shared_bytes, 256u);
  const uint32_t n = 100;  // two CTAs of 64, the second partly masked
  std::vector<uint8_t> in(n * 4), out(128 * 4, 0xee);
  for (uint32_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(i) * 0.5f;
    std::memcpy(&in[i * 4], &v, 4);
  }
  HostMemory mem;
  const uint64_t ova = mem.add(out), iva = mem.add(in);
  std::vector<uint8_t> params(20);
  std::memcpy(&params[0], &ova, 8);
  std::memcpy(&params[8], &iva, 8);
  std::memcpy(&params[16], &n, 4);
  Launch L;
  L.grid = {2, 1, 1};
  L.block = {64, 1, 1};
  L.params = params;
  RunStats st;
  ASSERT_TRUE(run(*k, L, GlobalMemory(mem), &st).ok());
  EXPECT_EQ(st.ctas, 2u);
  EXPECT_GT(st.thread_instructions, 128u * 20);
  for (uint32_t i = 0; i < 128; ++i) {
    const uint32_t cta = i / 64, t = i % 64, src = cta * 64 + (63 - t);
    float got;
    std::memcpy(&got, &out[i * 4], 4);
    if (i >= n) {
      EXPECT_EQ(out[i * 4], 0xee) << i;  // masked threads store nothing
      continue;
    }
    const float want = src < n ? static_cast<float>(src) * 0.5f * 2 + 1 : 1.0f;
    EXPECT_EQ(got, want) << i;
  }
}

TEST(Ptx, UnsupportedAndMalformedTextIsRefusedByLine) {
  auto a = parse(".visible .entry k()\n{\n\tatom.global.add.u32 %r1, [%rd1], 1;\n}\n");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code(), Errc::kUnsupported);
  EXPECT_NE(a.error().message().find("atom.global.add.u32"), std::string::npos);
  EXPECT_NE(a.error().message().find("line 3"), std::string::npos) << a.error().message();
  auto b = parse(".visible .entry k()\n{\n\tmov.u32 %r1, %tid.x;\n}\n");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message().find("undeclared register %r1"), std::string::npos);
  auto c = parse(".visible .entry k()\n{\n\t.reg .pred %p<2>;\n\tbra $L__nowhere;\n}\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("no label"), std::string::npos);
  EXPECT_EQ(parse("// nothing\n").error().code(), Errc::kParse);
}

TEST(Ptx, MalformedOperandsAreRefusedBeforeTheyRun) {
  // PTX images come from GPU memory: shapes the executor would misread are parse errors.
  const char* bad[] = {
      "mov.u32 5, %r1;",                       // immediate destination
      "add.s32 %r1, %r2;",                     // too few operands
      "ld.global.v4.f32 {%f1, %f2}, [%rd1];",  // vector shorter than .v4
      "ld.global.f32 %f1, %rd1;",              // no address
      "st.global.f32 %f1, [%rd1];",            // address in the wrong place
      "add.f32 %f1, [%rd1], %f2;",             // address as an ALU source
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r1}, {%f1};",
      // Found by fuzz_ptx: each read past the end of its statement.
      ".shared .align 4 .b8 tile[",  // a shared array cut at '[' (a ';' inside the brackets)
      "mov.u32 %r1, %tid.;",         // a special register with nothing after the dot
      "@%r1",                        // a guard with no instruction
      "ld.global.f32 %f1, [];",      // an address without a base
      ".reg .b32 %q<99999999>;",     // more registers than the interpreter keeps
      ".shared .align 3 .b8 t[4];",  // an alignment that is not a power of two
      ".shared .b8 t[999999999];",   // more shared memory than a CTA has
  };
  for (const char* b : bad) {
    const std::string text = std::string(
                                 ".visible .entry k()\n{\n.reg .b32 %r<4>;\n"
                                 ".reg .f32 %f<4>;\n.reg .b64 %rd<4>;\n") +
                             b + "\n}\n";
    auto m = parse(text);
    ASSERT_FALSE(m.ok()) << b;
    EXPECT_EQ(m.error().code(), Errc::kParse) << b << ": " << m.error().to_string();
  }
}

TEST(Ptx, FaultsAndRunawayKernelsAreErrorsNotHangs) {
  constexpr const char* kLoop = R"(
.visible .entry spin(.param .u64 p)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p];
$L__top:
	bra $L__top;
}
.visible .entry poke(.param .u64 p)
{
	.reg .b64 %rd<2>;
	.reg .b32 %r<2>;
	ld.param.u64 %rd1, [p];
	st.global.u32 [%rd1+4096], %r1;
	ret;
}
)";
  auto m = parse(kLoop);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  std::vector<uint8_t> buf(64);
  HostMemory mem;
  const uint64_t va = mem.add(buf);
  std::vector<uint8_t> params(8);
  std::memcpy(params.data(), &va, 8);
  Launch L;
  L.params = params;
  auto s = run(*(*m)->find("spin"), L, GlobalMemory(mem), nullptr, 100000);
  EXPECT_EQ(s.error().code(), Errc::kTimeout);
  auto f = run(*(*m)->find("poke"), L, GlobalMemory(mem));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), Errc::kHardware);
  EXPECT_NE(f.error().message().find("unmapped global access"), std::string::npos);
  L.block = {2048, 1, 1};
  EXPECT_EQ(run(*(*m)->find("poke"), L, GlobalMemory(mem)).error().code(), Errc::kInvalidArgument);
}

struct ExampleCase {
  std::string target, example;
};
void PrintTo(const ExampleCase& c, std::ostream* os) { *os << c.target << " " << c.example; }

class PtxExamples : public ::testing::TestWithParam<ExampleCase> {};

TEST_P(PtxExamples, MatchesTheHostReference) {
  const auto& tc = GetParam();
  compiler::Context ctx;
  auto ex = compiler::gpu_example(ctx, tc.example);
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  auto target = compiler::gpu_target(tc.target);
  ASSERT_TRUE(target.ok());
  compiler::GpuOptions opts = ex->options;
  opts.assemble = false;  // the interpreter runs the PTX; ptxas is not needed
  auto spec = compiler::compile_gpu(ex->sink, tc.example, *target, opts);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  auto m = parse(spec->assembly);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_EQ((*m)->kernels.size(), 1u);
  const Kernel& k = (*m)->kernels[0];
  auto data = compiler::gpu_example_data(tc.example);
  ASSERT_TRUE(data.ok());
  std::vector<std::vector<uint8_t>> bufs = data->buffers;
  HostMemory mem;
  std::vector<uint64_t> vas;
  for (auto& b : bufs) vas.push_back(mem.add(b));
  ASSERT_EQ(k.params.size(), bufs.size() + data->var_values.size());
  std::vector<uint8_t> params(k.param_bytes);
  for (size_t i = 0; i < k.params.size(); ++i) {
    ASSERT_EQ(k.params[i].size, 8u);
    const uint64_t v =
        i < vas.size() ? vas[i] : static_cast<uint64_t>(data->var_values[i - vas.size()]);
    std::memcpy(&params[k.params[i].offset], &v, 8);
  }
  auto groups = compiler::launch_global(*spec, data->var_values);
  ASSERT_TRUE(groups.ok());
  Launch L;
  for (int d = 0; d < 3; ++d) {
    L.grid[d] = static_cast<uint32_t>((*groups)[d]);
    L.block[d] = static_cast<uint32_t>(spec->gpu.local[d]);
  }
  L.params = params;
  RunStats st;
  auto r = run(k, L, GlobalMemory(mem), &st);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  size_t bad = 0;
  for (size_t i = 0; i < data->expected_count; ++i) {
    float got;
    std::memcpy(&got, bufs[0].data() + 4 * i, 4);
    const double want = data->expected[i];
    if (std::isnan(got) || std::fabs(got - want) > data->atol + data->rtol * std::fabs(want)) {
      if (bad++ < 5) ADD_FAILURE() << "element " << i << ": got " << got << ", want " << want;
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << data->expected_count;
  std::printf("[ numerics ] %s %s: %llu thread-instructions\n", tc.target.c_str(),
              tc.example.c_str(), static_cast<unsigned long long>(st.thread_instructions));
}

std::vector<ExampleCase> cases() {
  std::vector<ExampleCase> out;
  for (const char* t : {"sm_86", "sm_90"}) {
    for (std::string_view name : compiler::gpu_example_names()) {
      if (name == "attention" && std::string_view(t) == "sm_86") continue;  // one target is enough
      out.push_back({t, std::string(name)});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Examples, PtxExamples, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.target + "_" + info.param.example;
});

}  // namespace
}  // namespace rawgpu::sim::ptx
