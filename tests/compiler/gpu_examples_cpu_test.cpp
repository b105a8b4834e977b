// The example kernels' data (gpu_example_data: inputs, host references, tolerances) and their
// numerics on the CPU back end: every example whose AST the CPU runs (all but the tiled matmul,
// written with GPU launch ids and local tiles) is compiled by CpuRuntime, plain and with the
// heuristic's opts, and its output compared with the host reference. This both checks the CPU
// code generation of the examples and the references themselves (independently written loops).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/gpu.h"

namespace rawgpu::compiler {
namespace {

struct SlotInfo {
  DType dtype;
  int64_t count;
};

// The global buffers of an example AST by slot, and how many scalar variables it has.
std::vector<SlotInfo> slots_of(Context& ctx, Ref sink, size_t* vars) {
  std::vector<SlotInfo> s;
  *vars = 0;
  for (Ref n : ctx.toposort(sink)) {
    if (n->op() == Op::kDefineVar) ++*vars;
    if (n->op() != Op::kBuffer || is_local_buffer(n)) continue;
    const auto a = n->arg().as_ints();
    if (size_t(a[0]) >= s.size()) s.resize(size_t(a[0]) + 1, {DType::kVoid, -1});
    s[size_t(a[0])] = {n->dtype(), a[1]};
  }
  return s;
}

TEST(GpuExampleData, EveryExampleMatchesItsKernelsBuffers) {
  for (std::string_view name : gpu_example_names()) {
    SCOPED_TRACE(std::string(name));
    Context ctx;
    auto ex = gpu_example(ctx, name);
    ASSERT_TRUE(ex.ok()) << ex.error().to_string();
    auto d = gpu_example_data(name);
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    size_t vars = 0;
    const auto slots = slots_of(ctx, ex->sink, &vars);
    ASSERT_EQ(d->dtypes.size(), slots.size());
    ASSERT_EQ(d->buffers.size(), slots.size());
    for (size_t i = 0; i < slots.size(); ++i) {
      EXPECT_EQ(d->dtypes[i], slots[i].dtype) << "slot " << i;
      EXPECT_EQ(d->buffers[i].size(), size_t(slots[i].count) * size_t(itemsize(slots[i].dtype)))
          << "slot " << i;
    }
    EXPECT_EQ(d->dtypes[0], DType::kFloat32);
    for (uint8_t b : d->buffers[0]) ASSERT_EQ(b, 0) << "slot 0 starts zeroed";
    EXPECT_EQ(d->var_values.size(), vars);
    EXPECT_GT(d->expected_count, 0u);
    EXPECT_EQ(d->expected.size(), d->expected_count);
    EXPECT_LE(d->expected_count, size_t(slots[0].count));
    for (float v : d->expected) ASSERT_TRUE(std::isfinite(v));
    // Inputs are not all zero, the reference not constant.
    std::set<float> distinct(d->expected.begin(), d->expected.end());
    EXPECT_GT(distinct.size(), 10u);
    // Deterministic per seed; another seed gives other inputs.
    auto again = gpu_example_data(name);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->buffers, d->buffers);
    EXPECT_EQ(again->expected, d->expected);
    auto other = gpu_example_data(name, 2);
    ASSERT_TRUE(other.ok());
    EXPECT_NE(other->buffers[1], d->buffers[1]);
  }
}

TEST(GpuExampleData, UnknownNameIsTheExamplesError) {
  Context ctx;
  auto ex = gpu_example(ctx, "nope");
  auto d = gpu_example_data("nope");
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(d.error().is(Errc::kNotFound));
  EXPECT_EQ(d.error().to_string(), ex.error().to_string());
}

TEST(GpuExampleData, CheckCountsErrorsNaNsAndShortOutputs) {
  GpuExampleData d;
  d.expected = {1.0f, -2.0f, 0.0f, 4.0f};
  d.expected_count = 4;
  d.atol = 0.01;
  d.rtol = 0.1;
  std::vector<float> out = d.expected;
  auto bytes = [&] {
    std::vector<uint8_t> b(out.size() * 4);
    std::memcpy(b.data(), out.data(), b.size());
    return b;
  };
  EXPECT_TRUE(check_gpu_example(d, bytes()).ok());
  out[3] = 4.4f;  // within 0.01 + 0.4
  auto c = check_gpu_example(d, bytes());
  EXPECT_TRUE(c.ok()) << c.summary();
  EXPECT_NEAR(c.max_abs_err, 0.4, 1e-6);
  EXPECT_NEAR(c.max_rel_err, 0.1, 1e-6);
  out[2] = 0.02f;  // outside atol 0.01 (want 0)
  c = check_gpu_example(d, bytes());
  EXPECT_EQ(c.failures, 1u);
  EXPECT_EQ(c.worst, 2u);
  out[2] = NAN;
  c = check_gpu_example(d, bytes());
  EXPECT_EQ(c.failures, 1u);
  EXPECT_TRUE(std::isinf(c.max_abs_err));
  out[2] = 0;
  out.pop_back();  // one element short
  c = check_gpu_example(d, bytes());
  EXPECT_EQ(c.checked, 3u);
  EXPECT_EQ(c.failures, 1u);
  EXPECT_FALSE(c.ok());
  EXPECT_FALSE(check_gpu_example(d, {}).ok());
}

CpuRuntime& runtime() {
  static std::unique_ptr<CpuRuntime> rt = [] {
    auto r = CpuRuntime::create({.threads = 2});
    if (!r.ok()) {
      ADD_FAILURE() << r.error().to_string();
      std::abort();
    }
    return std::move(r).take_value();
  }();
  return *rt;
}

// Input seed for gpu_example_data: RAWGPU_EXAMPLE_SEED, else 1 (the tolerances are derived
// bounds, not fitted to one seed).
uint64_t example_seed() {
  const char* s = std::getenv("RAWGPU_EXAMPLE_SEED");
  return s ? std::strtoull(s, nullptr, 0) : 1;
}

class CpuNumerics : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuNumerics, ExampleMatchesHostReference) {
  const std::string& name = GetParam();
  Context ctx;
  auto ex = gpu_example(ctx, name);
  ASSERT_TRUE(ex.ok()) << ex.error().to_string();
  auto d = gpu_example_data(name, example_seed());
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  for (bool optimized : {false, true}) {
    SCOPED_TRACE(optimized ? "heuristic opts" : "plain");
    const auto t0 = std::chrono::steady_clock::now();
    auto k = optimized ? runtime().compile_optimized(ex->sink) : runtime().compile(ex->sink);
    ASSERT_TRUE(k.ok()) << k.error().to_string();
    std::vector<CpuBuffer> bufs;
    for (size_t i = 0; i < d->buffers.size(); ++i) {
      bufs.emplace_back(d->dtypes[i], d->buffers[i].size() / size_t(itemsize(d->dtypes[i])));
      ASSERT_TRUE(bufs.back().copy_in(std::as_bytes(std::span(d->buffers[i]))).ok());
    }
    std::vector<CpuBuffer*> ptrs;
    for (auto& b : bufs) ptrs.push_back(&b);
    const Status st = runtime().launch(**k, ptrs, d->var_values);
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    const auto* out = static_cast<const uint8_t*>(bufs[0].data());
    const auto c = check_gpu_example(*d, std::span(out, bufs[0].nbytes()));
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(c.ok()) << name << " on the CPU, RAWGPU_EXAMPLE_SEED=" << example_seed() << ": "
                        << c.summary();
    std::printf("[ numerics ] cpu %s %s seed %llu (%zu opts; atol %g rtol %g, %.0f ms): %s\n",
                name.c_str(), optimized ? "heuristic" : "plain",
                static_cast<unsigned long long>(example_seed()), (*k)->opts.size(), d->atol,
                d->rtol, ms, c.summary().c_str());
    if (name == "elementwise_n") {  // the masked tail is never written
      for (size_t i = d->expected_count * 4; i < bufs[0].nbytes(); ++i)
        ASSERT_EQ(out[i], 0) << "byte " << i << " past n written";
    }
  }
}

std::vector<std::string> cpu_examples() {
  std::vector<std::string> v;
  // The tiled matmul uses SPECIAL launch ids and local tiles: GPU only (the host target rejects
  // it, GpuCompile.ExampleCompilesAndLoads). The tensor-core matmuls' ASTs are plain f16/bf16
  // matmuls, which the CPU runs (tensor cores are a GPU option).
  for (std::string_view n : gpu_example_names())
    if (n != "matmul") v.emplace_back(n);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Examples, CpuNumerics, ::testing::ValuesIn(cpu_examples()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rawgpu::compiler
