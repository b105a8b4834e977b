#include "rawgpu/compiler/symbolic.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "../test_seed.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/spec.h"

namespace rawgpu::compiler {
namespace {

// Fresh seed per run unless RAWGPU_TEST_SEED is set; printed with every failure.
using rawgpu::test_util::test_seed;

int64_t eval1(Ref e, std::initializer_list<Binding> b) {
  auto r = eval_int(e, std::span<const Binding>(b.begin(), b.size()));
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->invalid);
  return r->value;
}

TEST(Eval, CSemanticsAndWrapping) {
  Context ctx;
  Ref x = ctx.var("x", -100, 100), y = ctx.var("y", -100, 100);
  EXPECT_EQ(eval1(x / y, {{x, -7}, {y, 2}}), -3);
  EXPECT_EQ(eval1(x % y, {{x, -7}, {y, 2}}), -1);
  EXPECT_EQ(eval1(x % y, {{x, 7}, {y, -2}}), 1);
  EXPECT_EQ(eval1(x / y, {{x, 7}, {y, -2}}), -3);
  EXPECT_EQ(eval1(max(x, y) + min(x, y) * 10, {{x, 3}, {y, -4}}), 3 - 40);
  EXPECT_EQ(eval1(where(cmplt(x, y), x, y), {{x, 3}, {y, -4}}), -4);
  EXPECT_EQ(eval1(cast(cmpne(x, 0), DType::kIndex), {{x, 0}, {y, 0}}), 0);
  // int8 wraps.
  Ref a = ctx.var("a", -128, 127, DType::kInt8);
  EXPECT_EQ(eval1(a + ctx.cint(100, DType::kInt8), {{a, 100}}), -56);
  EXPECT_EQ(eval1(a * ctx.cint(2, DType::kInt8), {{a, -128}}), 0);
  // Masked indices.
  Ref g = where(cmplt(x, 5), x * 2, ctx.invalid());
  auto in = eval_int(g, std::vector<Binding>{{x, 3}});
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(*in, (EvalResult{6, false}));
  auto out = eval_int(g + 1, std::vector<Binding>{{x, 7}});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->invalid);
  // Errors.
  auto div0 = eval_int(x / y, std::vector<Binding>{{x, 1}, {y, 0}});
  ASSERT_FALSE(div0.ok());
  EXPECT_TRUE(div0.error().is(Errc::kInvalidArgument));
  EXPECT_FALSE(eval_int(x + y, std::vector<Binding>{{x, 1}}).ok());
  EXPECT_FALSE(eval_int(ctx.cfloat(1.0), {}).ok());
}

TEST(Symbolic, IdentitiesAndFolding) {
  Context ctx;
  Ref x = ctx.var("x", 0, 100), y = ctx.var("y", 0, 100);
  Ref b = cmplt(x, 50);
  EXPECT_EQ(simplify(x + 0), x);
  EXPECT_EQ(simplify(0 + x), x);
  EXPECT_EQ(simplify(x * 1), x);
  EXPECT_EQ(simplify(x * 0), ctx.cint(0));
  EXPECT_EQ(simplify(x / 1), x);
  EXPECT_EQ(simplify(x % 1), ctx.cint(0));
  EXPECT_EQ(simplify(ctx.cint(6) * ctx.cint(7)), ctx.cint(42));
  EXPECT_EQ(simplify(ctx.cint(-7) / ctx.cint(2)), ctx.cint(-3));
  EXPECT_EQ(simplify(ctx.cint(100, DType::kInt8) + ctx.cint(100, DType::kInt8)),
            ctx.cint(-56, DType::kInt8));
  EXPECT_EQ(simplify(x - x), ctx.cint(0));
  EXPECT_EQ(simplify(max(x, x)), x);
  EXPECT_EQ(simplify(b & b), b);
  EXPECT_EQ(simplify(b & ctx.cbool(true)), b);
  EXPECT_EQ(simplify(b | ctx.cbool(true)), ctx.cbool(true));
  EXPECT_EQ(simplify(logical_not(logical_not(b))), b);
  EXPECT_EQ(simplify(cmplt(x, x)), ctx.cbool(false));
  EXPECT_EQ(simplify(where(b, y, y)), y);
  EXPECT_EQ(simplify(where(ctx.cbool(false), x, y)), y);
  EXPECT_EQ(simplify(where(logical_not(b), x, y)), where(b, y, x));
  EXPECT_EQ(simplify(cast(x, DType::kIndex)), x);
  EXPECT_EQ(simplify((x ^ y) ^ y), x);
}

TEST(Symbolic, CanonicalOrderAndTermCombination) {
  Context ctx;
  Ref x = ctx.var("x", 0, 100), y = ctx.var("y", 0, 100), z = ctx.var("z", 0, 100);
  EXPECT_EQ(simplify(x + y), simplify(y + x));
  EXPECT_EQ(simplify((x + 1) + y), simplify((y + x) + 1));
  EXPECT_EQ(simplify(((x + 1) + 2) + 3), x + 6);
  EXPECT_EQ(simplify(x + x), x * 2);
  EXPECT_EQ(simplify(x * 3 + x * 4), x * 7);
  EXPECT_EQ(simplify(x * 3 - x * 3), ctx.cint(0));
  EXPECT_EQ(simplify((x + y) + z), simplify(z + (y + x)));
  EXPECT_EQ(simplify((x + y * 2) + (x * 3 + y)), simplify(x * 4 + y * 3));
  EXPECT_EQ(simplify(((x + 5) * 2) * 3), simplify(x * 6 + 30));
  EXPECT_EQ(simplify(2 * (3 * x)), x * 6);
  EXPECT_EQ(simplify(x * y), simplify(y * x));
  // The constant is last in canonical sums.
  Ref s = simplify(7 + x);
  ASSERT_EQ(s->op(), Op::kAdd);
  EXPECT_EQ(s->src(1), ctx.cint(7));
}

TEST(Symbolic, DivModFolding) {
  Context ctx;
  Ref x = ctx.var("x", 0, 100), y = ctx.var("y", 0, 3);
  Ref r = ctx.range(16, 0), r2 = ctx.range(4, 1);
  EXPECT_EQ(simplify((x * 4 + y) / 4), x);
  EXPECT_EQ(simplify((x * 4 + y) % 4), y);
  EXPECT_EQ(simplify((x * 4 + y + 8) / 4), x + 2);
  EXPECT_EQ(simplify(r % 16), r);
  EXPECT_EQ(simplify(r / 16), ctx.cint(0));
  EXPECT_EQ(simplify((x / 2) / 3), x / 6);
  EXPECT_EQ(simplify((x % 6) % 6), x % 6);
  EXPECT_EQ(simplify((x % 12) % 4), x % 4);
  EXPECT_EQ(simplify((x % 12) / 4), (x / 4) % 3);
  EXPECT_EQ(simplify((x % 4) + (x / 4) * 4), x);
  EXPECT_EQ(simplify((x % 4) * 3 + (x / 4) * 12), x * 3);
  EXPECT_EQ(simplify((x * 6 + 4) / 2), simplify(x * 3 + 2));
  EXPECT_EQ(simplify((x * 6 + 4) % 2), ctx.cint(0));
  EXPECT_EQ(simplify((x * 4 + 6) % 4), ctx.cint(2));
  // Reshape-style index: (r*4 + r2) split back into r and r2.
  Ref flat = r * 4 + r2;
  EXPECT_EQ(simplify(flat / 4), r);
  EXPECT_EQ(simplify(flat % 4), r2);
  EXPECT_EQ(simplify((flat / 4) * 4 + flat % 4), simplify(flat));
  // Pulling multiples out when the rest spans several periods.
  Ref w = ctx.var("w", 0, 10);
  EXPECT_EQ(simplify((x * 8 + w) / 4), simplify(x * 2 + w / 4));
  EXPECT_EQ(simplify((x * 8 + w) % 4), w % 4);
  // Negative dividends are left alone where truncation differs from floor.
  Ref n = ctx.var("n", -10, 10);
  EXPECT_EQ(simplify((n * 4 + 1) / 4)->op(), Op::kIDiv);
}

TEST(Symbolic, Comparisons) {
  Context ctx;
  Ref x = ctx.var("x", 0, 100), y = ctx.var("y", 0, 100);
  EXPECT_EQ(simplify(cmplt(x + 3, ctx.cint(5))), cmplt(x, ctx.cint(2)));
  EXPECT_EQ(simplify(cmplt(x * 4, ctx.cint(10))), cmplt(x, ctx.cint(3)));
  EXPECT_EQ(simplify(cmplt(x * 4 + y * 6, ctx.cint(11))),
            simplify(cmplt(x * 2 + y * 3, ctx.cint(6))));
  EXPECT_EQ(simplify(cmplt(x / 4, ctx.cint(3))), cmplt(x, ctx.cint(12)));
  EXPECT_EQ(simplify(cmplt(x, ctx.cint(101))), ctx.cbool(true));
  EXPECT_EQ(simplify(cmplt(x, ctx.cint(0))), ctx.cbool(false));
  EXPECT_EQ(simplify(cmpne(x + 1, ctx.cint(0))), ctx.cbool(true));
  EXPECT_EQ(simplify(cmpeq(x + 2, ctx.cint(5))), cmpeq(x, ctx.cint(3)));
  EXPECT_EQ(simplify(max(x, ctx.cint(-1))), x);
}

TEST(Symbolic, InvalidGatesAndValidity) {
  Context ctx;
  Ref r = ctx.range(16, 0), x = ctx.var("x", 0, 100);
  Ref inv = ctx.invalid();
  // Arithmetic moves inside the gate.
  Ref g = where(cmplt(r, 8), r, inv);
  EXPECT_EQ(simplify(g * 2 + 1), where(cmplt(r, 8), simplify(r * 2 + 1), inv));
  EXPECT_EQ(simplify(inv + x), inv);
  // where(c, Invalid, v) -> where(!c, v, Invalid)
  EXPECT_EQ(simplify(where(cmplt(r, 8), inv, r)),
            simplify(where(logical_not(cmplt(r, 8)), r, inv)));
  // Nested gates merge.
  Ref nested = where(cmplt(r, 8), where(cmplt(x, 4), r, inv), inv);
  EXPECT_EQ(simplify(nested), simplify(where(cmplt(r, 8) & cmplt(x, 4), r, inv)));
  // Inside the gate r < 8, r % 8 is r and r // 8 is 0.
  EXPECT_EQ(simplify(where(cmplt(r, 8), r % 8 + (r / 8) * 100, inv)), where(cmplt(r, 8), r, inv));
  // A lower-bound clause: r >= 4 makes (r - 4) // 16 zero... and the gate keeps only what matters.
  Ref ge4 = logical_not(cmplt(r, 4));
  EXPECT_EQ(simplify(where(ge4, (r + 12) / 16, inv)), where(ge4, ctx.cint(1), inv));
  // An unsatisfiable gate is Invalid.
  EXPECT_EQ(simplify(where(cmplt(x, 3) & logical_not(cmplt(x, 5)), x, inv)), inv);
  // Constant gates.
  EXPECT_EQ(simplify(where(ctx.cbool(true), r, inv)), r);
  EXPECT_EQ(simplify(where(cmplt(r, 100), r, inv)), r);
}

TEST(Symbolic, IndexNarrowing) {
  Context ctx;
  Ref r = ctx.range(1024, 0), big = ctx.var("big", 0, int64_t{1} << 40);
  Ref small = narrow_index(r * 4 + 3);
  EXPECT_EQ(small->dtype(), DType::kInt32);
  EXPECT_EQ(small->src(0)->dtype(), DType::kInt32);
  EXPECT_TRUE(verify(small, Stage::kIndex).ok());
  Ref wide = narrow_index(big + r);
  EXPECT_EQ(wide->dtype(), DType::kInt64);
  for (Ref n : ctx.toposort(wide)) EXPECT_NE(n->dtype(), DType::kIndex) << expr_string(n);
  EXPECT_TRUE(verify(wide, Stage::kIndex).ok()) << verify(wide, Stage::kIndex).error().to_string();
  // r * 2^22 overflows int32 although r and the constant fit: the product is int64 and r is
  // cast up.
  Ref mixed = narrow_index(r * (int64_t{1} << 22));
  EXPECT_EQ(mixed->dtype(), DType::kInt64);
  EXPECT_EQ(mixed->src(0)->op(), Op::kCast);
  // The narrowed gate keeps its Invalid marker in the chosen width.
  Ref gated = narrow_index(where(cmplt(r, 10), r, ctx.invalid()));
  EXPECT_EQ(gated->dtype(), DType::kInt32);
  EXPECT_TRUE(gated->src(2)->is_invalid());
  EXPECT_TRUE(verify(gated, Stage::kIndex).ok());
  // Values are preserved. The narrowed leaves are the same leaves at their new widths.
  Ref r32 = ctx.range(ctx.cint(1024, DType::kInt32), 0);
  Ref big64 = ctx.var("big", 0, int64_t{1} << 40, DType::kInt64);
  for (int64_t v : {0, 1, 513, 1023}) {
    EXPECT_EQ(eval1(small, {{r32, v}}), v * 4 + 3);
    EXPECT_EQ(eval1(wide, {{r32, v}, {big64, (int64_t{1} << 40) - v}}), int64_t{1} << 40);
    EXPECT_EQ(eval1(mixed, {{r32, v}}), v << 22);
  }
}

// Exact bounds of single ops against brute force.
TEST(Bounds, ExactForBasicOpsByBruteForce) {
  Context ctx;
  std::mt19937_64 rng(test_seed());
  for (int iter = 0; iter < 300; ++iter) {
    auto rnd = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    const int64_t alo = rnd(-20, 20), ahi = alo + rnd(0, 15);
    const int64_t blo = rnd(-20, 20), bhi = blo + rnd(0, 15);
    Ref a = ctx.var("a", alo, ahi), b = ctx.var("b", blo, bhi);
    const int64_t c = rnd(1, 9) * (rnd(0, 3) == 0 ? -1 : 1);
    std::vector<Ref> exprs = {a + b,     a - b, a * b,       a * c,       a / c,
                              max(a, b), -a,    cmplt(a, b), cmpne(a, b), cmpeq(a, b)};
    // (WHERE bounds are the union of the branches: sound, checked by the random tests, but not
    // exact when the condition correlates with a branch.)
    // Modulo within one period of the divisor is exact too.
    if (alo >= 0 && alo / std::abs(c) == ahi / std::abs(c)) exprs.push_back(a % c);
    if (blo > 0 || bhi < 0) exprs.push_back(a / b);
    for (Ref e : exprs) {
      IntEvaluator ev(e);
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (int64_t va = alo; va <= ahi; ++va)
        for (int64_t vb = blo; vb <= bhi; ++vb) {
          std::vector<int64_t> vals;
          for (Ref l : ev.leaves()) vals.push_back(l == a ? va : vb);
          auto r = ev.run(vals);
          ASSERT_TRUE(r.ok());
          lo = std::min(lo, r->value);
          hi = std::max(hi, r->value);
        }
      EXPECT_EQ(e->vmin(), lo) << expr_string(e) << " a in [" << alo << "," << ahi << "] b in ["
                               << blo << "," << bhi << "]";
      EXPECT_EQ(e->vmax(), hi) << expr_string(e) << " a in [" << alo << "," << ahi << "] b in ["
                               << blo << "," << bhi << "]";
    }
  }
}

// ---- random expressions: simplification must preserve every value ----------------------------

struct ExprGen {
  Context& ctx;
  std::mt19937_64 rng;
  std::vector<Ref> vars;
  Ref divisor;  // a variable with a zero-free range
  bool nonneg;  // index-style expressions: non-negative leaves, positive divisors
  // Masked indices are index values: never inside conditions (comparing an Invalid index has no
  // meaning and the spec rejects it).
  int in_cond = 0;

  int64_t rnd(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  Ref leaf() {
    if (rnd(0, 3) == 0) return ctx.cint(nonneg ? rnd(0, 12) : rnd(-12, 12));
    return vars[rnd(0, vars.size() - 1)];
  }
  Ref cond(int depth) {
    ++in_cond;
    Ref c = cond_inner(depth);
    --in_cond;
    return c;
  }
  Ref cond_inner(int depth) {
    switch (rnd(0, depth > 0 ? 5 : 2)) {
      case 0: return cmplt(expr(depth - 1), ctx.cint(rnd(-5, 20)));
      case 1: return cmplt(expr(depth - 1), expr(depth - 1));
      case 2: return cmpne(expr(depth - 1), ctx.cint(rnd(0, 8)));
      case 3: return cond(depth - 1) & cond(depth - 1);
      case 4: return logical_not(cond(depth - 1));
      default: return cmpeq(expr(depth - 1), expr(depth - 1)) | cond(depth - 1);
    }
  }
  Ref expr(int depth) {
    if (depth <= 0 || rnd(0, 6) == 0) return leaf();
    const int64_t k = rnd(1, 9);
    switch (rnd(0, 13)) {
      case 0:
      case 1: return expr(depth - 1) + expr(depth - 1);
      case 2:
        return nonneg ? expr(depth - 1) + ctx.cint(rnd(0, 20)) : expr(depth - 1) - expr(depth - 1);
      case 3: return expr(depth - 1) * ctx.cint(nonneg ? k : rnd(-4, 6));
      case 4: return expr(depth - 1) * expr(depth - 1);
      case 5:
      case 6: return expr(depth - 1) / ctx.cint(nonneg ? k : k * (rnd(0, 3) == 0 ? -1 : 1));
      case 7:
      case 8: return expr(depth - 1) % ctx.cint(nonneg ? k : k * (rnd(0, 3) == 0 ? -1 : 1));
      case 9: return rnd(0, 1) ? expr(depth - 1) / divisor : expr(depth - 1) % divisor;
      case 10: return max(expr(depth - 1), expr(depth - 1));
      case 11:
        return nonneg
                   ? (expr(depth - 1) * ctx.cint(k) + expr(depth - 1) % ctx.cint(k)) / ctx.cint(k)
                   : min(expr(depth - 1), expr(depth - 1));
      case 12: return where(cond(depth - 1), expr(depth - 1), expr(depth - 1));
      default:
        if (in_cond) return expr(depth - 1);
        return where(cond(depth - 1), expr(depth - 1), ctx.invalid());
    }
  }
};

// Evaluates `orig` and `simp` on every assignment of the variables and checks that they agree
// (Invalid included) and that every node's value lies within its vmin/vmax.
void check_equivalent(Ref orig, Ref simp, const std::vector<Ref>& vars, uint64_t seed) {
  IntEvaluator eo(orig), es(simp);
  std::vector<int64_t> assign(vars.size());
  for (size_t i = 0; i < vars.size(); ++i) assign[i] = vars[i]->vmin();
  auto pick = [&](IntEvaluator& ev) {
    std::vector<int64_t> v;
    for (Ref l : ev.leaves())
      for (size_t i = 0; i < vars.size(); ++i)
        if (vars[i] == l) v.push_back(assign[i]);
    return v;
  };
  while (true) {
    auto a = eo.run(pick(eo));
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    auto b = es.run(pick(es));
    ASSERT_TRUE(b.ok()) << b.error().to_string() << "\nseed " << seed << "\n"
                        << expr_string(simp, 60);
    std::string where_text;
    for (size_t i = 0; i < vars.size(); ++i)
      where_text += expr_string(vars[i]) + "=" + std::to_string(assign[i]) + " ";
    ASSERT_EQ(a->invalid, b->invalid) << "seed " << seed << " at " << where_text << "\n  "
                                      << expr_string(orig, 60) << "\n  " << expr_string(simp, 60);
    if (!a->invalid) {
      ASSERT_EQ(a->value, b->value) << "seed " << seed << " at " << where_text << "\n  "
                                    << expr_string(orig, 60) << "\n  " << expr_string(simp, 60);
    }
    for (IntEvaluator* ev : {&eo, &es})
      for (size_t i = 0; i < ev->nodes().size(); ++i) {
        const EvalResult& v = ev->values()[i];
        Ref n = ev->nodes()[i];
        if (v.invalid || ev->undefined()[i] || !has_int_bounds(n->dtype())) continue;
        ASSERT_GE(v.value, n->vmin())
            << "seed " << seed << " " << expr_string(n) << " at " << where_text;
        ASSERT_LE(v.value, n->vmax())
            << "seed " << seed << " " << expr_string(n) << " at " << where_text;
      }
    size_t i = 0;
    for (; i < vars.size(); ++i) {
      if (assign[i] < vars[i]->vmax()) {
        ++assign[i];
        break;
      }
      assign[i] = vars[i]->vmin();
    }
    if (i == vars.size()) break;
  }
}

void random_equivalence(bool nonneg, int count) {
  const uint64_t seed = test_seed();
  SCOPED_TRACE(::testing::Message()
               << "seed " << seed << " (rerun with RAWGPU_TEST_SEED=" << seed << ")");
  Context ctx;
  std::vector<Ref> vars =
      nonneg ? std::vector<Ref>{ctx.var("a", 0, 11), ctx.range(7, 0), ctx.var("d", 1, 4)}
             : std::vector<Ref>{ctx.var("a", 0, 11), ctx.var("b", -5, 5), ctx.var("d", 1, 4)};
  ExprGen gen{ctx, std::mt19937_64(seed), vars, vars[2], nonneg};
  size_t changed = 0;
  for (int i = 0; i < count; ++i) {
    Ref e = gen.expr(static_cast<int>(gen.rnd(1, 5)));
    Status in_spec = verify(e, Stage::kIndex);
    ASSERT_TRUE(in_spec.ok()) << in_spec.error().to_string();
    Ref s = simplify(e);
    if (s != e) ++changed;
    ASSERT_EQ(simplify(s), s) << "not a fixpoint: " << expr_string(e, 60);
    ASSERT_NO_FATAL_FAILURE(check_equivalent(e, s, vars, seed)) << "expression #" << i;
    Status spec = verify(s, Stage::kIndex);
    ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  }
  EXPECT_GT(changed, static_cast<size_t>(count / 4));  // the rules actually did something
}

TEST(SymbolicRandom, EquivalentOnAllAssignmentsSigned) { random_equivalence(false, 2000); }
TEST(SymbolicRandom, EquivalentOnAllAssignmentsIndexStyle) { random_equivalence(true, 2000); }

}  // namespace
}  // namespace rawgpu::compiler
