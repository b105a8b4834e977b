#include "rawgpu/compiler/rewrite.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rawgpu/base/log.h"

namespace rawgpu::compiler {
namespace {

using P = Pat;

TEST(Pattern, OpsDtypesArgsAndCaptures) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10), y = ctx.var("y", 0, 10);
  EXPECT_TRUE(PatternMatcher::matches(P::op(Op::kAdd), x + y));
  EXPECT_FALSE(PatternMatcher::matches(P::op(Op::kMul), x + y));
  EXPECT_TRUE(PatternMatcher::matches(P::ops({Op::kMul, Op::kAdd}), x + y));
  EXPECT_TRUE(PatternMatcher::matches(P::any().dtype(DType::kIndex), x));
  EXPECT_FALSE(PatternMatcher::matches(P::any().dtype(DType::kInt32), x));
  EXPECT_TRUE(PatternMatcher::matches(P::any().dtypes(dtypes::kInts), x));
  EXPECT_TRUE(PatternMatcher::matches(P::konst(3), ctx.cint(3)));
  EXPECT_FALSE(PatternMatcher::matches(P::konst(3), ctx.cint(4)));
  EXPECT_FALSE(PatternMatcher::matches(P::konst(3), ctx.cfloat(3.0)));
  EXPECT_TRUE(PatternMatcher::matches(P::cvar("c"), ctx.cfloat(3.0)));
  EXPECT_TRUE(PatternMatcher::matches(P::cvar("c", dtypes::kFloats), ctx.cfloat(3.0)));
  EXPECT_FALSE(PatternMatcher::matches(P::cvar("c", dtypes::kInts), ctx.cfloat(3.0)));
  EXPECT_TRUE(
      PatternMatcher::matches(P::op(Op::kReduce).arg(Arg::op(Op::kMax)),
                              ctx.make(Op::kReduce, DType::kIndex, {x}, Arg::op(Op::kMax))));
  EXPECT_FALSE(
      PatternMatcher::matches(P::op(Op::kReduce).arg(Arg::op(Op::kAdd)),
                              ctx.make(Op::kReduce, DType::kIndex, {x}, Arg::op(Op::kMax))));
  // A name used twice must bind the same node.
  const Pat twice = P::op(Op::kAdd).src(P::var("a"), P::var("a"));
  EXPECT_TRUE(PatternMatcher::matches(twice, x + x));
  EXPECT_FALSE(PatternMatcher::matches(twice, x + y));
  // Ordered children check arity.
  EXPECT_FALSE(PatternMatcher::matches(P::op(Op::kAdd).src(P::var("a")), x + y));
  EXPECT_TRUE(PatternMatcher::matches(P::op(Op::kWhere).src_prefix(P::op(Op::kCmpLt)),
                                      where(cmplt(x, y), x, y)));
  // Repeated children.
  const Pat all_const = P::ops(ops::kBinary).rsrc(P::cvar());
  EXPECT_TRUE(PatternMatcher::matches(all_const, ctx.cint(1) + ctx.cint(2)));
  EXPECT_FALSE(PatternMatcher::matches(all_const, ctx.cint(1) + x));
  // Alternatives.
  const Pat mul_or_var = P::any_of({P::op(Op::kMul), P::op(Op::kDefineVar)});
  EXPECT_TRUE(PatternMatcher::matches(mul_or_var, x));
  EXPECT_TRUE(PatternMatcher::matches(mul_or_var, x * y));
  EXPECT_FALSE(PatternMatcher::matches(mul_or_var, x + y));
}

TEST(Pattern, CommutativeMatchingTriesBothOrdersAndBacktracksCaptures) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10), y = ctx.var("y", 0, 10);
  PatternMatcher pm;
  std::vector<std::pair<Ref, Ref>> seen;
  pm.add(P::op(Op::kAdd).csrc(P::var("x"), P::cvar("c")), [&](const Match& m) {
    seen.push_back({m("x"), m("c")});
    return Ref();
  });
  (void)pm.rewrite(x + 3);
  (void)pm.rewrite(3 + x);
  (void)pm.rewrite(x + y);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, x);
  EXPECT_EQ(seen[0].second, ctx.cint(3));
  EXPECT_EQ(seen[1].first, x);
  EXPECT_EQ(seen[1].second, ctx.cint(3));
  // Backtracking: the first order binds a=x, then fails on the second child; the captures of
  // the failed order must not leak into the second one.
  const Pat p =
      P::op(Op::kAdd).csrc(P::var("a").named("a"), P::op(Op::kMul).src(P::var("a"), P::var("b")));
  EXPECT_TRUE(PatternMatcher::matches(p, x + x * y));
  EXPECT_TRUE(PatternMatcher::matches(p, x * y + x));
  EXPECT_FALSE(PatternMatcher::matches(p, y + x * y));
  // Three-way permutations.
  const Pat three = P::op(Op::kWhere).csrc(P::konst(1), P::konst(2), P::var("v"));
  EXPECT_TRUE(PatternMatcher::matches(
      three, ctx.make(Op::kWhere, DType::kIndex, {x, ctx.cint(2), ctx.cint(1)})));
}

TEST(Pattern, RulesAreIndexedByRootAndTriedInOrder) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  int calls_mul = 0;
  PatternMatcher pm;
  pm.add(P::op(Op::kMul).src(P::var("x"), P::konst(1)), [&](const Match& m) {
    ++calls_mul;
    return m("x");
  });
  pm.add(P::op(Op::kAdd).src(P::var("x"), P::konst(0)), [](const Match& m) { return m("x"); });
  pm.add(P::op(Op::kAdd).src(P::var("x"), P::cvar("c")), [](const Match& m) { return m("c"); });
  EXPECT_EQ(pm.rewrite(x + 0), x);  // the first matching rule wins
  EXPECT_EQ(pm.rewrite(x + 5), ctx.cint(5));
  EXPECT_EQ(pm.rewrite(x * 1), x);
  EXPECT_EQ(calls_mul, 1);
  EXPECT_FALSE(pm.rewrite(x * 2));
  EXPECT_EQ(calls_mul, 1);  // early reject / match failure: callback not reached
  EXPECT_FALSE(pm.rewrite(x));
  // A callback returning the root or null means "no rewrite".
  PatternMatcher same;
  same.add(P::any(), [](const Match& m) { return m.root(); });
  EXPECT_FALSE(same.rewrite(x));
  EXPECT_EQ(pm.size(), 3u);
  EXPECT_NE(pm.rule_name(0).find("rewrite_test.cpp:"), std::string::npos) << pm.rule_name(0);
}

// Folds (x + c1) + c2 and c1 + c2.
PatternMatcher fold_adds() {
  PatternMatcher pm;
  pm.add(P::op(Op::kAdd).src(P::cvar("a"), P::cvar("b")), [](const Match& m) {
    return m.ctx().cint(m("a")->arg().as_int() + m("b")->arg().as_int(), m.root()->dtype());
  });
  pm.add(P::op(Op::kAdd).src(P::op(Op::kAdd).src(P::var("x"), P::cvar("a")), P::cvar("b")),
         [](const Match& m) {
           return m("x") +
                  m.ctx().cint(m("a")->arg().as_int() + m("b")->arg().as_int(), m.root()->dtype());
         });
  pm.add(P::op(Op::kAdd).src(P::var("x"), P::konst(0)), [](const Match& m) { return m("x"); });
  return pm;
}

TEST(Rewrite, BottomUpFixpointFoldsAndShares) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  const PatternMatcher pm = fold_adds();
  EXPECT_EQ(rewrite_bottom_up(((x + 1) + 2) + 3, pm), x + 6);
  EXPECT_EQ(rewrite_bottom_up((x + 1) + -1, pm), x);
  // A shared subgraph is rewritten once and the result is shared.
  Ref shared = (x + 1) + 1;
  RewriteStats stats;
  RewriteOptions o;
  o.stats = &stats;
  Ref out = rewrite_bottom_up(shared * shared, pm, o);
  EXPECT_EQ(out, (x + 2) * (x + 2));
  EXPECT_EQ(stats.rule_hits, 1u);
  // Constants nested below other ops are folded too (rebuilt parents are re-matched).
  EXPECT_EQ(rewrite_bottom_up((ctx.cint(2) + ctx.cint(3)) * x, pm), ctx.cint(5) * x);
}

TEST(Rewrite, DeepChainsAreIterative) {
  constexpr int kDepth = 100000;
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  Ref chain = x;
  for (int i = 0; i < kDepth; ++i) chain = chain + 1;
  EXPECT_EQ(rewrite_bottom_up(chain, fold_adds()), x + kDepth);

  // Top-down: double negation removed before descending.
  PatternMatcher neg;
  neg.add(P::op(Op::kNeg).src(P::op(Op::kNeg).src(P::var("x"))),
          [](const Match& m) { return m("x"); });
  Ref negs = x;
  for (int i = 0; i < kDepth; ++i) negs = -negs;
  EXPECT_EQ(rewrite_top_down(negs, neg), x);
  EXPECT_EQ(rewrite_top_down(-negs, neg), -x);
  EXPECT_EQ(rewrite_bottom_up(negs, neg), x);

  // Walk and substitute over the same depth.
  PatternMatcher bump;
  bump.add(P::cvar("c", dtypes::kInts), [](const Match& m) {
    return m.ctx().cint(m("c")->arg().as_int() * 10, m("c")->dtype());
  });
  Ref walked = rewrite_walk(chain, bump);
  EXPECT_EQ(walked->src(1), ctx.cint(10));
  Ref y = ctx.var("y", 0, 10);
  Ref subst = substitute(chain, {{x, y}});
  Ref expect = y;
  for (int i = 0; i < kDepth; ++i) expect = expect + 1;
  EXPECT_EQ(subst, expect);
}

TEST(Rewrite, TopDownSeesParentsBeforeChildren) {
  Context ctx;
  Ref a = ctx.var("a", 0, 10), b = ctx.var("b", 0, 10);
  // -(p + q) -> (-p) + (-q), applied from the top; bottom-up would see the inner sums first.
  PatternMatcher pm;
  std::vector<std::string> order;
  pm.add(P::op(Op::kNeg).src(P::op(Op::kAdd).src(P::var("p"), P::var("q"))), [&](const Match& m) {
    order.push_back(expr_string(m.root()));
    return (-m("p")) + (-m("q"));
  });
  Ref e = -((a + b) + (b + a));
  Ref out = rewrite_top_down(e, pm);
  EXPECT_EQ(out, ((-a) + (-b)) + ((-b) + (-a)));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], "neg(((a+b)+(b+a)))");
}

TEST(Rewrite, PreAndPostRulesInOneTraversal) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  PatternMatcher pre;  // -(-a) -> a, before descending
  pre.add(P::op(Op::kNeg).src(P::op(Op::kNeg).src(P::var("a"))),
          [](const Match& m) { return m("a"); });
  const PatternMatcher post = fold_adds();
  // --((x + 1) + 2) + 3: the pre rule strips the negations, the post rules fold the constants.
  Ref e = -(-((x + 1) + 2)) + 3;
  EXPECT_EQ(rewrite_graph(e, &pre, &post), x + 6);
  // Neither alone reaches that form.
  EXPECT_NE(rewrite_top_down(e, pre), x + 6);
  EXPECT_NE(rewrite_bottom_up(e, post), x + 6);
}

TEST(Rewrite, WalkDoesNotRevisitResults) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  // c -> c + 1 would never reach a fixpoint; a walk applies it once per original node.
  PatternMatcher pm;
  pm.add(P::cvar("c", dtypes::kInts),
         [](const Match& m) { return m.ctx().cint(m("c")->arg().as_int() + 1, m("c")->dtype()); });
  EXPECT_EQ(rewrite_walk(x * 3 + 5, pm), x * 4 + 6);
  EXPECT_EQ(rewrite_walk(x * 3 + 3, pm), x * 4 + 4);  // the shared constant once
}

TEST(Rewrite, SubstituteDoesNotDescendIntoReplacements) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10), y = ctx.var("y", 0, 10);
  Ref e = (x + y) * x;
  EXPECT_EQ(substitute(e, {{x, y}, {y, x}}), (y + x) * y);
  EXPECT_EQ(substitute(e, {{x + y, x}}), x * x);
  EXPECT_EQ(substitute(e, {}), e);
}

TEST(Rewrite, UserContextReachesCallbacks) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  struct Counter {
    int hits = 0;
  } counter;
  PatternMatcher pm;
  pm.add(P::op(Op::kMul).src(P::var("x"), P::konst(1)), [](const Match& m) {
    ++m.user<Counter>()->hits;
    return m("x");
  });
  RewriteOptions o;
  o.user = &counter;
  EXPECT_EQ(rewrite_bottom_up((x * 1) * 1 + (x * 1), pm, o), x + x);
  // x*1 is shared and rewritten once; (x*1)*1 rebuilt over x is x*1 again, already memoized.
  EXPECT_EQ(counter.hits, 1);
  EXPECT_EQ(rewrite_bottom_up((x * 1) + (x * 1) * 2, pm, o), x + x * 2);
  EXPECT_EQ(counter.hits, 2);
}

TEST(Rewrite, TracesRuleHitsAtDebugLevel5) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  std::vector<std::string> lines;
  auto old_sink = log::set_sink([&](std::string_view tag, int, std::string_view msg) {
    if (tag == "rewrite") lines.emplace_back(msg);
  });
  const log::Config old = log::config();
  log::Config c;
  c.global_level = 5;
  log::set_config(c);
  RewriteOptions o;
  o.pass = "testpass";
  (void)rewrite_bottom_up(x + 0, fold_adds(), o);
  log::set_config(old);
  log::set_sink(old_sink);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("testpass rule rewrite_test.cpp:"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("(x+0) -> x"), std::string::npos) << lines[0];
}

TEST(RewriteDeathTest, RuleCycleIsReported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Context ctx;
  Ref x = ctx.var("x", 0, 10), y = ctx.var("y", 0, 10);
  PatternMatcher pm;  // swaps operands forever
  pm.add(P::op(Op::kAdd).src(P::var("a"), P::var("b")),
         [](const Match& m) { return m("b") + m("a"); });
  EXPECT_DEATH((void)rewrite_bottom_up(x + y, pm), "the rule set has a cycle");
  EXPECT_DEATH((void)rewrite_top_down(x + y, pm), "the rule set has a cycle");
}

}  // namespace
}  // namespace rawgpu::compiler
