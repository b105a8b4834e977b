#include "rawgpu/compiler/spec.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace rawgpu::compiler {
namespace {

// Expects a spec violation whose message names the node's listing line and the rule.
void expect_violation(Ref root, Stage stage, const std::string& node_line,
                      const std::string& rule) {
  Status s = verify(root, stage);
  ASSERT_FALSE(s.ok()) << "accepted:\n" << to_string(root);
  EXPECT_TRUE(s.error().is(Errc::kInvalidArgument));
  const std::string msg = s.error().message();
  EXPECT_NE(msg.find(node_line), std::string::npos) << msg;
  EXPECT_NE(msg.find(rule), std::string::npos) << msg;
}

TEST(Spec, AcceptsLegalIndexExpressions) {
  Context ctx;
  Ref i = ctx.range(16, 0), n = ctx.var("n", 1, 100);
  Ref idx = where(cmplt(i * 4 + n, 50), (i * 4 + n) % 7, ctx.invalid());
  ASSERT_TRUE(verify(idx, Stage::kIndex).ok()) << verify(idx, Stage::kIndex).error().to_string();
  Ref f = cast(i, DType::kFloat32) * ctx.cfloat(0.5);
  EXPECT_TRUE(verify(f, Stage::kIndex).ok());
  EXPECT_TRUE(verify(ctx.make(Op::kExp2, DType::kFloat32, {f}), Stage::kIndex).ok());
}

Ref buffer(Context& ctx, int64_t slot, DType t) {
  const int64_t a[] = {slot};
  return ctx.make(Op::kBuffer, t, {}, Arg::ints(a));
}

TEST(Spec, AcceptsLegalKernel) {
  Context ctx;
  Ref in = buffer(ctx, 0, DType::kFloat32), out = buffer(ctx, 1, DType::kFloat32);
  Ref i = ctx.range(16, 0), k = ctx.range(8, 1);
  Ref ld = ctx.make(Op::kLoad, DType::kFloat32,
                    {ctx.make(Op::kIndex, DType::kFloat32, {in, i * 8 + k})});
  Ref red = ctx.make(Op::kReduce, DType::kFloat32, {ld, k}, Arg::op(Op::kAdd));
  Ref st =
      ctx.make(Op::kStore, DType::kVoid, {ctx.make(Op::kIndex, DType::kFloat32, {out, i}), red});
  Ref sink = ctx.make(Op::kSink, DType::kVoid, {ctx.make(Op::kEnd, DType::kVoid, {st, i})});
  Status s = verify(sink, Stage::kKernel);
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  // The kernel is not a pure index expression.
  Status idx = verify(sink, Stage::kIndex);
  ASSERT_FALSE(idx.ok());
  EXPECT_NE(idx.error().message().find("is not legal at this stage"), std::string::npos);
  EXPECT_TRUE(maybe_verify(sink, Stage::kKernel, "test").ok());
}

TEST(Spec, RejectsIllegalGraphsNamingNodeAndRule) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  Ref x32 = ctx.var("y", 0, 10, DType::kInt32);
  Ref bad_add = ctx.make(Op::kAdd, DType::kInt32, {x32, x});
  expect_violation(bad_add, Stage::kIndex,
                   "%" + std::to_string(bad_add->id()) + " = ADD int32 %" +
                       std::to_string(x32->id()) + ", %" + std::to_string(x->id()),
                   "rule 'alu-operands' violated: source 1 is index, expected int32");
  expect_violation(ctx.make(Op::kCmpLt, DType::kIndex, {x, x}), Stage::kIndex, "= CMPLT index",
                   "comparison result must be bool");
  expect_violation(ctx.make(Op::kAdd, DType::kIndex, {x}), Stage::kIndex, "= ADD index",
                   "has 1 sources, expected 2");
  expect_violation(ctx.make(Op::kFDiv, DType::kIndex, {x, x}), Stage::kIndex, "= FDIV index",
                   "FDIV needs a float dtype");
  expect_violation(ctx.make(Op::kMod, DType::kFloat32, {ctx.cfloat(1), ctx.cfloat(2)}),
                   Stage::kIndex, "= MOD float32", "integer division of float32");
  expect_violation(ctx.cint(300, DType::kInt8), Stage::kIndex, "= CONST int8 [300]",
                   "value 300 does not fit int8");
  expect_violation(ctx.var("e", 5, 4), Stage::kIndex, "= DEFINEVAR index", "empty bounds");
  expect_violation(x + ctx.invalid(), Stage::kIndex, "= ADD index",
                   "rule 'invalid-only-in-index-gates'");
  expect_violation(where(x, x, x), Stage::kIndex, "= WHERE index",
                   "source 0 is index, expected bool");
  expect_violation(ctx.make(Op::kLoad, DType::kFloat32, {x}), Stage::kIndex, "= LOAD float32",
                   "op LOAD is not legal at this stage");
  // Kernel stage.
  Ref buf = buffer(ctx, 0, DType::kFloat32);
  Ref idx = ctx.make(Op::kIndex, DType::kFloat32, {buf, x});
  expect_violation(ctx.make(Op::kStore, DType::kVoid, {idx, ctx.cint(1, DType::kInt32)}),
                   Stage::kKernel, "= STORE void", "source 1 is int32, expected float32");
  expect_violation(ctx.make(Op::kLoad, DType::kFloat32, {buf}), Stage::kKernel, "= LOAD float32",
                   "rule 'load' violated: source 0 must be an INDEX");
  expect_violation(ctx.make(Op::kReduce, DType::kIndex, {x, x}, Arg::op(Op::kAdd)), Stage::kKernel,
                   "= REDUCE index", "source 1 must be a RANGE");
  expect_violation(ctx.make(Op::kReduce, DType::kIndex, {x}, Arg::op(Op::kSub)), Stage::kKernel,
                   "= REDUCE index", "reduce op must be ADD, MUL or MAX");
  expect_violation(ctx.cint(3, DType::kWeakInt) + ctx.cint(1, DType::kWeakInt), Stage::kKernel,
                   "= CONST weakint", "weak type weakint must be resolved by now");
  expect_violation(buffer(ctx, 2, DType::kIndex), Stage::kKernel, "= BUFFER index",
                   "cannot be stored");
  // maybe_verify adds the pass name as context when enabled.
  if (spec_enabled()) {
    Status s = maybe_verify(bad_add, Stage::kIndex, "symbolic");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().to_string().find("after pass 'symbolic'"), std::string::npos);
  }
}

TEST(Spec, EnabledInDebugBuildsUnlessOverridden) {
  if (std::getenv("RAWGPU_SPEC")) GTEST_SKIP() << "RAWGPU_SPEC is set in the environment";
#ifdef NDEBUG
  EXPECT_FALSE(spec_enabled());
#else
  EXPECT_TRUE(spec_enabled());
#endif
}

TEST(Spec, DeepGraphsVerifyIteratively) {
  Context ctx;
  Ref n = ctx.var("x", 0, 10);
  for (int i = 0; i < 100000; ++i) n = n + 1;
  EXPECT_TRUE(verify(n, Stage::kIndex).ok());
}

}  // namespace
}  // namespace rawgpu::compiler
