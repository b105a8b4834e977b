// Fusion: how many kernels the scheduler makes for the targets, chains that must not
// fuse, compile-cache sharing of identical kernels, the arena plan, the tensor-graph spec.
#include <gtest/gtest.h>

#include <cmath>

#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/schedule.h"
#include "rawgpu/compiler/spec.h"
#include "rawgpu/frontend/tensor.h"

namespace rawgpu::frontend {
namespace {

using Ref_t = compiler::Ref;

size_t kernels(std::initializer_list<Tensor> ts) {
  std::vector<Tensor> v(ts);
  auto n = count_kernels(v);
  EXPECT_TRUE(n.ok()) << (n.ok() ? "" : n.error().to_string());
  return n.ok() ? *n : 0;
}

// Realizes and checks that the schedule really ran that many kernels.
size_t run_kernels(const Tensor& t) {
  const uint64_t before = stats().kernels_launched;
  Status s = t.realize();
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().to_string());
  return size_t(stats().kernels_launched - before);
}

TEST(Fusion, SoftmaxLastAxisAtMostThree) {
  Tensor x = Tensor::randn({5, 7});
  Tensor y = x.softmax(-1);
  const size_t planned = kernels({y});
  EXPECT_LE(planned, 3u);
  EXPECT_EQ(run_kernels(y), planned);
  EXPECT_EQ(kernels({y}), 0u);  // realized: nothing left to run
  auto v = y.sum({-1}).to_doubles();
  ASSERT_TRUE(v.ok());
  for (double s : *v) EXPECT_NEAR(s, 1.0, 1e-5);
}

TEST(Fusion, LogSoftmaxAtMostThree) {
  EXPECT_LE(kernels({Tensor::randn({4, 9}).log_softmax(-1)}), 3u);
}

TEST(Fusion, LayernormAtMostThree) {
  Tensor x = Tensor::randn({6, 10});
  Tensor w = Tensor::randn({10}), b = Tensor::randn({10});
  Tensor y = x.layernorm(1, 1e-5, &w, &b);
  EXPECT_LE(kernels({y}), 3u);
  EXPECT_LE(run_kernels(y), 3u);
}

TEST(Fusion, Conv2dBiasReluIsOneKernel) {
  Tensor x = Tensor::randn({2, 3, 9, 9}), w = Tensor::randn({4, 3, 3, 3}), b = Tensor::randn({4});
  ASSERT_TRUE(x.realize().ok());
  ASSERT_TRUE(w.realize().ok());
  ASSERT_TRUE(b.realize().ok());
  Tensor y = x.conv2d(w, &b, {1, 1}, {1, 1}).relu();
  EXPECT_EQ(kernels({y}), 1u);
  EXPECT_EQ(run_kernels(y), 1u);
}

TEST(Fusion, APlusATransposeIsOneKernel) {
  Tensor a = Tensor::randn({6, 6});
  ASSERT_TRUE(a.realize().ok());
  EXPECT_EQ(kernels({a + a.transpose()}), 1u);
}

TEST(Fusion, MlpOneKernelPerLayer) {
  Tensor x = Tensor::randn({4, 16});
  std::vector<Tensor> ws{Tensor::randn({16, 32}), Tensor::randn({32, 32}), Tensor::randn({32, 8})};
  std::vector<Tensor> bs{Tensor::randn({32}), Tensor::randn({32}), Tensor::randn({8})};
  for (auto* v : {&ws, &bs})
    for (auto& t : *v) ASSERT_TRUE(t.realize().ok());
  ASSERT_TRUE(x.realize().ok());
  Tensor h = x;
  for (size_t l = 0; l < 3; ++l) {
    h = h.matmul(ws[l]) + bs[l];
    if (l < 2) h = h.relu();
  }
  EXPECT_EQ(kernels({h}), 3u);
  EXPECT_EQ(run_kernels(h), 3u);
}

TEST(Fusion, ElementwiseChainsAndRandomFuse) {
  Tensor a = Tensor::rand({3, 4}), b = Tensor::randn({4});
  EXPECT_EQ(kernels({((a * 2.0 + b).exp().sigmoid() - a).abs()}), 1u);
  EXPECT_EQ(kernels({Tensor::eye(5) * Tensor::arange(0, 5, 1, DType::kFloat32)}), 1u);
}

TEST(Fusion, ContiguousForcesABuffer) {
  Tensor a = Tensor::randn({8});
  ASSERT_TRUE(a.realize().ok());
  EXPECT_EQ(kernels({(a + 1.0) * 2.0}), 1u);
  EXPECT_EQ(kernels({(a + 1.0).contiguous() * 2.0}), 2u);
}

TEST(Fusion, BroadcastAfterReduceDoesNotFuse) {
  Tensor a = Tensor::randn({4, 5});
  ASSERT_TRUE(a.realize().ok());
  EXPECT_EQ(kernels({a.sum({1})}), 1u);
  EXPECT_EQ(kernels({a - a.sum({1}, true)}), 2u);        // sum realized, then the subtraction
  EXPECT_EQ(kernels({a.sum({1}, true).exp() + a}), 2u);  // elementwise tail goes with the reduce
  EXPECT_EQ(kernels({a.matmul(a.transpose()).matmul(a)}), 2u);  // chained matmuls
}

TEST(Fusion, ReduceWithSeveralConsumersIsComputedOnce) {
  Tensor a = Tensor::randn({4, 5});
  ASSERT_TRUE(a.realize().ok());
  Tensor s = a.max({1});
  EXPECT_EQ(kernels({s + 1.0, s * 2.0}), 3u);
  // A reduce feeding a single consumer chain stays fused.
  EXPECT_EQ(kernels({(s + 1.0) * 2.0}), 1u);
}

TEST(Fusion, IdenticalKernelsShareOneCompile) {
  Tensor a = Tensor::randn({37}), b = Tensor::randn({37});
  ASSERT_TRUE(a.realize().ok());
  ASSERT_TRUE(b.realize().ok());
  ASSERT_TRUE(((a * 3.0).exp2() + 0.25).realize().ok());
  const size_t size = cpu_runtime().cache_size();
  const uint64_t hits = cpu_runtime().cache_hits();
  ASSERT_TRUE(((b * 3.0).exp2() + 0.25).realize().ok());  // other buffers, same kernel
  EXPECT_EQ(cpu_runtime().cache_size(), size);
  EXPECT_EQ(cpu_runtime().cache_hits(), hits + 1);
}

TEST(Fusion, SizeZeroNeedsNoKernel) {
  Tensor z = Tensor::zeros({0, 3});
  EXPECT_EQ(kernels({z + 1.0}), 0u);
  auto v = (z + 1.0).to_doubles();
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->empty());
}

// The memory planner reuses arena space once a buffer's last reader ran.
TEST(Schedule, ArenaReusesDeadIntermediates) {
  compiler::Context ctx;
  const int64_t n = 64;  // 256 bytes of float32
  Ref_t x = compiler::tensor_buffer(ctx, DType::kFloat32, 1, n);
  Ref_t one = compiler::tensor_expand(
      compiler::tensor_reshape(ctx.cfloat(1.0), std::vector<int64_t>{1}), std::vector<int64_t>{n});
  Ref_t v = x;
  for (int i = 0; i < 4; ++i)
    v = compiler::tensor_contiguous(ctx.make(compiler::Op::kAdd, DType::kFloat32, {v, one}));
  Ref_t out = ctx.make(compiler::Op::kAdd, DType::kFloat32, {v, one});
  Ref_t roots[] = {out};
  auto s = compiler::schedule(roots);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(s->kernels.size(), 5u);
  ASSERT_EQ(s->intermediates.size(), 4u);
  // Two buffers are live at a time (a kernel's input and output), never more.
  EXPECT_EQ(s->arena_bytes, 2u * 256u);
  for (size_t i = 1; i < 4; ++i) EXPECT_NE(s->offsets[i], s->offsets[i - 1]);
}

TEST(Schedule, TensorSpecRejectsMismatchedShapes) {
  compiler::Context ctx;
  Ref_t a = compiler::tensor_reshape(compiler::tensor_buffer(ctx, DType::kFloat32, 1, 6),
                                     std::vector<int64_t>{2, 3});
  Ref_t b = compiler::tensor_reshape(compiler::tensor_buffer(ctx, DType::kFloat32, 2, 6),
                                     std::vector<int64_t>{3, 2});
  Ref_t bad = ctx.make(compiler::Op::kAdd, DType::kFloat32, {a, b});
  EXPECT_FALSE(bad->shape().has_value());
  Status st = compiler::verify(bad, compiler::Stage::kTensor);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.error().is(Errc::kInvalidArgument));
  EXPECT_NE(st.error().message().find("tensor-shape"), std::string::npos) << st.error().message();
  EXPECT_NE(st.error().message().find("(2, 3) and (3, 2)"), std::string::npos)
      << st.error().message();
  Ref_t roots[] = {bad};
  EXPECT_FALSE(compiler::schedule(roots).ok());
  // Bad movement args are rejected too, naming the shapes.
  Ref_t r = compiler::tensor_reshape(a, std::vector<int64_t>{4, 2});
  Status st2 = compiler::verify(r, compiler::Stage::kTensor);
  ASSERT_FALSE(st2.ok());
  EXPECT_NE(st2.error().message().find("(2, 3) to (4, 2)"), std::string::npos)
      << st2.error().message();
  EXPECT_TRUE(compiler::verify(compiler::tensor_permute(a, std::vector<int64_t>{1, 0}),
                               compiler::Stage::kTensor)
                  .ok());
}

}  // namespace
}  // namespace rawgpu::frontend
