// Fuzz target for the rewrite engine and the symbolic rules: the input bytes drive a generator of
// integer index expressions (sums, products, div/mod by constants and by a zero-free variable,
// max, comparisons, where, masked indices). Invariants beyond "no crash":
//   - the generated graph and its simplification pass the index-stage spec;
//   - simplification is a fixpoint and preserves the value (and Invalid-ness) of every
//     assignment of the variables;
//   - every node's value lies within its vmin/vmax;
//   - index narrowing preserves the value.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "rawgpu/compiler/spec.h"
#include "rawgpu/compiler/symbolic.h"

namespace {
using namespace rawgpu::compiler;

void require(bool cond, const char* what, Ref e) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_symbolic invariant violated: %s\n%s\n", what,
                 expr_string(e, 80).c_str());
    std::abort();
  }
}

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t next() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  int64_t range(int64_t lo, int64_t hi) { return lo + next() % (hi - lo + 1); }
};

struct Gen {
  Context& ctx;
  Bytes& in;
  std::vector<Ref> vars;
  int in_cond = 0;

  Ref leaf() {
    if (in.next() % 4 == 0) return ctx.cint(in.range(-12, 12));
    return vars[in.next() % vars.size()];
  }
  // Operands are generated into locals first: the order of evaluation of function arguments
  // differs between compilers, and the same bytes must give the same expression everywhere.
  Ref cond(int depth) {
    ++in_cond;
    Ref c;
    switch (in.next() % (depth > 0 ? 5 : 2)) {
      case 0: {
        Ref l = expr(depth - 1);
        c = cmplt(l, ctx.cint(in.range(-5, 20)));
        break;
      }
      case 1: {
        Ref l = expr(depth - 1), r = expr(depth - 1);
        c = cmpne(l, r);
        break;
      }
      case 2: {
        Ref l = cond(depth - 1), r = cond(depth - 1);
        c = l & r;
        break;
      }
      case 3: c = logical_not(cond(depth - 1)); break;
      default: {
        Ref l = expr(depth - 1), r = expr(depth - 1), o = cond(depth - 1);
        c = cmplt(l, r) | o;
        break;
      }
    }
    --in_cond;
    return c;
  }
  Ref expr(int depth) {
    if (depth <= 0) return leaf();
    const uint8_t sign = in.next();
    const int64_t k = in.range(1, 9) * (sign % 4 == 0 ? -1 : 1);
    const uint8_t what = in.next() % 12;
    if (what == 0) return leaf();
    if (what == 9) {
      Ref c = cond(depth - 1);
      Ref t = expr(depth - 1), f = expr(depth - 1);
      return where(c, t, f);
    }
    if (what == 11) {
      if (in_cond) return expr(depth - 1);
      Ref c = cond(depth - 1);
      Ref t = expr(depth - 1);
      return where(c, t, ctx.invalid());
    }
    Ref a = expr(depth - 1);
    switch (what) {
      case 1: {
        Ref b = expr(depth - 1);
        return a + b;
      }
      case 2: {
        Ref b = expr(depth - 1);
        return a - b;
      }
      case 3: return a * ctx.cint(in.range(-4, 8));
      case 4: {
        Ref b = expr(depth - 1);
        return a * b;
      }
      case 5: return a / ctx.cint(k);
      case 6: return a % ctx.cint(k);
      case 7: return (in.next() & 1) ? a / vars[2] : a % vars[2];
      case 8: {
        Ref b = expr(depth - 1);
        return max(a, b);
      }
      default: {
        Ref l = leaf();
        return (a * ctx.cint(std::abs(k)) + l) / ctx.cint(std::abs(k));
      }
    }
  }
};

// Values of e for all assignments (vars in `vars` order), checking bounds on the way. nullopt
// when e is undefined somewhere (int64 overflow of unbounded index math).
std::optional<std::vector<EvalResult>> all_values(Ref e, const std::vector<Ref>& vars) {
  IntEvaluator ev(e);
  std::vector<EvalResult> out;
  std::vector<int64_t> assign(vars.size());
  for (size_t i = 0; i < vars.size(); ++i) assign[i] = vars[i]->vmin();
  while (true) {
    std::vector<int64_t> vals;
    for (Ref l : ev.leaves()) {
      bool found = false;
      for (size_t i = 0; i < vars.size(); ++i) {
        // Leaves are matched by name so that narrowed copies of the variables bind too.
        if (l->arg().as_var().name == vars[i]->arg().as_var().name) {
          vals.push_back(assign[i]);
          found = true;
        }
      }
      require(found, "unknown leaf", e);
    }
    auto r = ev.run(vals);
    if (!r.ok()) return std::nullopt;
    for (size_t i = 0; i < ev.nodes().size(); ++i) {
      const EvalResult& v = ev.values()[i];
      Ref n = ev.nodes()[i];
      if (!v.invalid && !ev.undefined()[i] && has_int_bounds(n->dtype()))
        require(v.value >= n->vmin() && v.value <= n->vmax(), "value outside vmin/vmax", n);
    }
    out.push_back(*r);
    size_t i = 0;
    for (; i < vars.size(); ++i) {
      if (assign[i] < vars[i]->vmax()) {
        ++assign[i];
        break;
      }
      assign[i] = vars[i]->vmin();
    }
    if (i == vars.size()) return out;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 512) return 0;
  Bytes in{data, size};
  Context ctx;
  std::vector<Ref> vars = {ctx.var("a", 0, 11), ctx.var("b", -5, 5), ctx.var("d", 1, 4)};
  Gen gen{ctx, in, vars};
  Ref e = gen.expr(static_cast<int>(in.range(1, 6)));
  require(verify(e, Stage::kIndex).ok(), "generated graph fails the spec", e);
  // The symbolic rules are exact for unbounded integers; evaluation is in int64. Expressions
  // whose intermediate bounds approach the int64 limits are outside the contract.
  for (Ref n : ctx.toposort(e))
    if (has_int_bounds(n->dtype()) && !n->may_be_invalid() &&
        (n->vmin() < -(int64_t{1} << 62) || n->vmax() > (int64_t{1} << 62)))
      return 0;
  Ref s = simplify(e);
  require(verify(s, Stage::kIndex).ok(), "simplified graph fails the spec", s);
  require(simplify(s) == s, "simplify is not a fixpoint", e);
  const auto want_or = all_values(e, vars);
  if (!want_or) return 0;  // the input expression itself overflows: out of domain
  const auto& want = *want_or;
  const auto got_or = all_values(s, vars);
  if (!got_or) std::fprintf(stderr, "simplified: %s\n", expr_string(s, 80).c_str());
  require(got_or.has_value(), "simplified expression is undefined where the input is not", e);
  const auto& got = *got_or;
  for (size_t i = 0; i < want.size(); ++i) {
    require(want[i].invalid == got[i].invalid, "Invalid-ness changed", e);
    if (!want[i].invalid) require(want[i].value == got[i].value, "value changed", e);
  }
  Ref narrow = narrow_index(s);
  require(verify(narrow, Stage::kIndex).ok(), "narrowed graph fails the spec", narrow);
  const auto narrowed_or = all_values(narrow, vars);
  require(narrowed_or.has_value(), "narrowed expression is undefined", e);
  const auto& narrowed = *narrowed_or;
  for (size_t i = 0; i < want.size(); ++i) {
    require(want[i].invalid == narrowed[i].invalid, "narrowing changed Invalid-ness", e);
    if (!want[i].invalid)
      require(want[i].value == narrowed[i].value, "narrowing changed a value", e);
  }
  return 0;
}
