// The example kernels' data (gpu_example_data: inputs, host references, tolerances): consistent
// with each kernel's buffers and variables, deterministic per seed, and the output check.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

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

}  // namespace
}  // namespace rawgpu::compiler
