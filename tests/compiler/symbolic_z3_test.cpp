// z3 as the equivalence oracle for symbolic simplification where brute force is too big
// (variables ranging over millions of values). Built with z3 when libz3-dev is installed;
// otherwise the test reports SKIPPED.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "../test_seed.h"
#include "rawgpu/compiler/symbolic.h"

#if RAWGPU_HAVE_Z3
#include <z3++.h>
#endif

namespace rawgpu::compiler {
namespace {

#if RAWGPU_HAVE_Z3

// A node as z3 terms: its value (Int or Bool) and whether it is valid (not a masked Invalid).
struct Z3Node {
  z3::expr value;
  z3::expr valid;
};

class Z3Encoder {
 public:
  explicit Z3Encoder(z3::context& z) : z_(z), bounds_(z.bool_val(true)) {}

  Z3Node encode(Ref root) {
    std::vector<Ref> order = root->ctx().toposort(root);
    for (Ref n : order) {
      if (done_.count(n->id())) continue;
      done_.emplace(n->id(), node(n));
    }
    return done_.at(root->id());
  }
  // Conjunction of the variables' bounds.
  const z3::expr& bounds() const { return bounds_; }

 private:
  Z3Node node(Ref n) {
    auto s = [&](size_t i) { return done_.at(n->src(i)->id()); };
    auto all_valid = [&] {
      z3::expr v = z_.bool_val(true);
      for (size_t i = 0; i < n->nsrc(); ++i) v = v && s(i).valid;
      return v;
    };
    auto as_int = [&](const z3::expr& e) {
      return e.is_bool() ? z3::ite(e, z_.int_val(1), z_.int_val(0)) : e;
    };
    switch (n->op()) {
      case Op::kConst:
        if (n->is_invalid()) return {z_.int_val(0), z_.bool_val(false)};
        if (n->dtype() == DType::kBool)
          return {z_.bool_val(n->arg().as_int() != 0), z_.bool_val(true)};
        return {z_.int_val(static_cast<int64_t>(n->arg().as_int())), z_.bool_val(true)};
      case Op::kDefineVar:
      case Op::kRange: {
        z3::expr v = z_.int_const(("v" + std::to_string(n->id())).c_str());
        bounds_ = bounds_ && v >= z_.int_val(n->vmin()) && v <= z_.int_val(n->vmax());
        return {v, z_.bool_val(true)};
      }
      case Op::kAdd: return {s(0).value + s(1).value, all_valid()};
      case Op::kSub: return {s(0).value - s(1).value, all_valid()};
      case Op::kMul: return {s(0).value * s(1).value, all_valid()};
      case Op::kNeg: return {-s(0).value, all_valid()};
      case Op::kMax:
        return {z3::ite(s(0).value >= s(1).value, s(0).value, s(1).value), all_valid()};
      case Op::kIDiv:
      case Op::kMod: {
        const z3::expr a = s(0).value, b = s(1).value;
        // C truncation from z3's Euclidean division.
        const z3::expr q = z3::ite(a >= 0, z3::ite(b > 0, a / b, -(a / -b)),
                                   z3::ite(b > 0, -((-a) / b), (-a) / (-b)));
        return {n->op() == Op::kIDiv ? q : a - b * q, all_valid()};
      }
      case Op::kCmpLt: return {as_int(s(0).value) < as_int(s(1).value), all_valid()};
      case Op::kCmpNe:
        if (s(0).value.is_bool()) return {s(0).value != s(1).value, all_valid()};
        return {s(0).value != s(1).value, all_valid()};
      case Op::kCmpEq: return {s(0).value == s(1).value, all_valid()};
      case Op::kAnd: return {s(0).value && s(1).value, all_valid()};
      case Op::kOr: return {s(0).value || s(1).value, all_valid()};
      case Op::kXor: return {s(0).value != s(1).value, all_valid()};
      case Op::kWhere:
        return {z3::ite(s(0).value, s(1).value, s(2).value),
                s(0).valid && z3::ite(s(0).value, s(1).valid, s(2).valid)};
      case Op::kCast: return {as_int(s(0).value), all_valid()};
      default:
        ADD_FAILURE() << "no z3 encoding for " << op_name(n->op());
        return {z_.int_val(0), z_.bool_val(false)};
    }
  }

  z3::context& z_;
  z3::expr bounds_;
  std::unordered_map<uint32_t, Z3Node> done_;
};

struct LinearGen {
  Context& ctx;
  std::mt19937_64 rng;
  std::vector<Ref> vars;
  int in_cond = 0;
  int64_t rnd(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  Ref leaf() { return rnd(0, 3) == 0 ? ctx.cint(rnd(-50, 300)) : vars[rnd(0, vars.size() - 1)]; }
  Ref cond(int d) {
    ++in_cond;
    Ref c = rnd(0, 2) == 0 && d > 0 ? cond(d - 1) & cmplt(expr(d - 1), ctx.cint(rnd(0, 5000)))
                                    : cmplt(expr(d - 1), ctx.cint(rnd(-100, 100000)));
    if (rnd(0, 3) == 0) c = logical_not(c);
    --in_cond;
    return c;
  }
  Ref expr(int d) {
    if (d <= 0) return leaf();
    const int64_t k =
        std::vector<int64_t>{2, 3, 4, 6, 8, 12, 16, 24, 32, 100, 128, 1000}[rnd(0, 11)];
    switch (rnd(0, 10)) {
      case 0: return leaf();
      case 1:
      case 2: return expr(d - 1) + expr(d - 1);
      case 3: return expr(d - 1) * ctx.cint(rnd(-3, 64));
      case 4: return expr(d - 1) / ctx.cint(k);
      case 5: return expr(d - 1) % ctx.cint(k);
      case 6: return (expr(d - 1) * ctx.cint(k) + expr(d - 1) % ctx.cint(k)) / ctx.cint(k);
      case 7: return max(expr(d - 1), expr(d - 1));
      case 8: return where(cond(d - 1), expr(d - 1), expr(d - 1));
      case 9: return expr(d - 1) - expr(d - 1);
      default: return in_cond ? expr(d - 1) : where(cond(d - 1), expr(d - 1), ctx.invalid());
    }
  }
};

TEST(SymbolicZ3, SimplificationIsEquivalentOnLargeRanges) {
  const uint64_t seed = rawgpu::test_util::test_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Context ctx;
  std::vector<Ref> vars = {ctx.var("a", 0, 1000000), ctx.var("b", -5000, 5000), ctx.range(4096, 0)};
  LinearGen gen{ctx, std::mt19937_64(seed), vars};
  int proven = 0, unknown = 0, changed = 0;
  for (int i = 0; i < 150; ++i) {
    Ref e = gen.expr(static_cast<int>(gen.rnd(1, 4)));
    Ref s = simplify(e);
    if (s == e) continue;
    ++changed;
    z3::context z;
    Z3Encoder enc(z);
    const Z3Node a = enc.encode(e), b = enc.encode(s);
    z3::solver solver(z);
    z3::params p(z);
    p.set("timeout", 1000u);
    solver.set(p);
    solver.add(enc.bounds());
    solver.add(a.valid != b.valid || (a.valid && a.value != b.value));
    switch (solver.check()) {
      case z3::unsat: ++proven; break;
      case z3::unknown: ++unknown; break;
      case z3::sat:
        FAIL() << "counterexample " << solver.get_model() << "\n  " << expr_string(e, 60) << "\n  "
               << expr_string(s, 60);
    }
    // The simplified root's bounds are sound too.
    if (!s->may_be_invalid() && has_int_bounds(s->dtype()) && s->dtype() != DType::kBool) {
      z3::solver bs(z);
      bs.set(p);
      bs.add(enc.bounds());
      bs.add(b.value < z.int_val(s->vmin()) || b.value > z.int_val(s->vmax()));
      ASSERT_NE(bs.check(), z3::sat) << "bounds of " << expr_string(s, 60);
    }
  }
  std::printf("z3: %d simplified expressions, %d proven equivalent, %d unknown (timeout)\n",
              changed, proven, unknown);
  RecordProperty("proven", proven);
  RecordProperty("unknown", unknown);
  EXPECT_GT(proven, changed / 2) << "z3 proved " << proven << " of " << changed << " (" << unknown
                                 << " unknown)";
}

#else

TEST(SymbolicZ3, SimplificationIsEquivalentOnLargeRanges) {
  GTEST_SKIP() << "built without z3 (install libz3-dev and reconfigure)";
}

#endif

}  // namespace
}  // namespace rawgpu::compiler
