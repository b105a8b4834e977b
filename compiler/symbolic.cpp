#include "rawgpu/compiler/symbolic.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/rewrite.h"

namespace rawgpu::compiler {
namespace {

using P = Pat;
using i128 = __int128;
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// ---- scalar semantics ------------------------------------------------------------------------

// Wraps v to the dtype (two's complement for fixed-width ints, 0/1 for bool). Index and weak int
// are unbounded: nullopt when v leaves int64 (then nothing is folded).
std::optional<int64_t> wrap(i128 v, DType t) {
  if (t == DType::kBool) return v != 0 ? 1 : 0;
  if (t == DType::kIndex || t == DType::kWeakInt) {
    if (v < kI64Min || v > kI64Max) return std::nullopt;
    return static_cast<int64_t>(v);
  }
  const int bits = bitwidth(t);
  if (bits <= 0 || bits > 64) return std::nullopt;
  const unsigned __int128 m = bits == 64 ? ~static_cast<unsigned __int128>(0) >> 64
                                         : (static_cast<unsigned __int128>(1) << bits) - 1;
  unsigned __int128 u = static_cast<unsigned __int128>(v) & m;
  if (is_signed_int(t) && bits < 128 && (u >> (bits - 1)) & 1) {
    const i128 s = static_cast<i128>(u) - (static_cast<i128>(1) << bits);
    return static_cast<int64_t>(s);
  }
  if (u > static_cast<unsigned __int128>(kI64Max)) return std::nullopt;  // uint64 above 2^63
  return static_cast<int64_t>(u);
}

// The value of an integer/bool ALU op on constant operands; nullopt when undefined (division by
// zero, shift out of range) or not representable.
std::optional<int64_t> exec_alu(Op op, DType t, std::span<const int64_t> v) {
  auto a = [&] { return static_cast<i128>(v[0]); };
  auto b = [&] { return static_cast<i128>(v[1]); };
  switch (op) {
    case Op::kAdd: return wrap(a() + b(), t);
    case Op::kSub: return wrap(a() - b(), t);
    case Op::kMul: return wrap(a() * b(), t);
    case Op::kNeg: return wrap(-a(), t);
    case Op::kIDiv:
      if (b() == 0) return std::nullopt;
      return wrap(a() / b(), t);
    case Op::kMod:
      if (b() == 0) return std::nullopt;
      return wrap(a() % b(), t);
    case Op::kMax: return wrap(std::max(a(), b()), t);
    case Op::kShl:
      if (b() < 0 || b() >= bitwidth(t)) return std::nullopt;
      return wrap(a() << static_cast<int>(b()), t);
    case Op::kShr:
      if (b() < 0 || b() >= bitwidth(t)) return std::nullopt;
      return wrap(a() >> static_cast<int>(b()), t);
    case Op::kAnd: return wrap(a() & b(), t);
    case Op::kOr: return wrap(a() | b(), t);
    case Op::kXor: return wrap(a() ^ b(), t);
    case Op::kCmpLt: return a() < b() ? 1 : 0;
    case Op::kCmpNe: return a() != b() ? 1 : 0;
    case Op::kCmpEq: return a() == b() ? 1 : 0;
    case Op::kWhere: return v[0] ? v[1] : v[2];
    case Op::kMulAcc: return wrap(a() * b() + static_cast<i128>(v[2]), t);
    case Op::kCast: return wrap(a(), t);
    default: return std::nullopt;
  }
}

// ---- helpers ---------------------------------------------------------------------------------

bool is_int_const(Ref n) { return n->op() == Op::kConst && n->arg().kind() == ArgKind::kInt; }
int64_t cval(Ref n) { return n->arg().as_int(); }
// Index-like types: unbounded, so reassociation and distribution are exact.
bool unbounded(DType t) { return t == DType::kIndex || t == DType::kWeakInt; }
bool has_invalid_src(Ref n) {
  for (Ref s : n->src())
    if (s->is_invalid()) return true;
  return false;
}
Ref konst(Context& c, i128 v, DType t) {
  auto w = wrap(v, t);
  RG_CHECK(w.has_value(), "constant out of range");
  return c.cint(*w, t);
}
bool fits64(i128 v) { return v >= kI64Min && v <= kI64Max; }

// Total order on nodes for canonical operand order: by structural hash (stable across runs).
bool key_less(Ref a, Ref b) {
  if (a->hash().hi != b->hash().hi) return a->hash().hi < b->hash().hi;
  return a->hash().lo < b->hash().lo;
}

// A sum term: base * coef (MUL by a constant), or the node itself with coefficient 1.
struct Term {
  Ref base;
  i128 coef;
};
Term term_of(Ref n) {
  if (n->op() == Op::kMul && is_int_const(n->src(1))) return {n->src(0), cval(n->src(1))};
  return {n, 1};
}
Ref make_term(Context& c, Ref base, i128 coef) {
  if (coef == 0) return c.cint(0, base->dtype());
  if (coef == 1) return base;
  return base * konst(c, coef, base->dtype());
}

// Flattens a left-deep (or any) ADD tree into terms and a constant; at most `limit` terms.
bool flatten_sum(Ref n, std::vector<Term>& terms, i128& konst_sum, size_t limit) {
  std::vector<Ref> stack{n};
  while (!stack.empty()) {
    Ref x = stack.back();
    stack.pop_back();
    if (x->op() == Op::kAdd) {
      stack.push_back(x->src(1));
      stack.push_back(x->src(0));
    } else if (is_int_const(x)) {
      konst_sum += cval(x);
    } else {
      if (terms.size() >= limit) return false;
      terms.push_back(term_of(x));
    }
  }
  return true;
}

// The sum as a canonical chain; null when a coefficient or the constant does not fit int64.
Ref build_sum(Context& c, DType t, const std::vector<Term>& terms, i128 k) {
  if (!fits64(k)) return {};
  for (const Term& tm : terms)
    if (!fits64(tm.coef)) return {};
  Ref acc;
  for (const Term& tm : terms) {
    if (tm.coef == 0) continue;
    Ref x = make_term(c, tm.base, tm.coef);
    acc = acc ? acc + x : x;
  }
  if (!acc) return konst(c, k, t);
  if (k != 0) acc = acc + konst(c, k, t);
  return acc;
}

// Interval of sum(coef * base) + k; nullopt when the operands are too large to reason about in
// 128 bits (saturated bounds, huge coefficients).
std::optional<std::pair<i128, i128>> sum_bounds(const std::vector<Term>& terms, i128 k) {
  constexpr i128 kLimit = static_cast<i128>(1) << 62;
  i128 lo = k, hi = k;
  for (const Term& t : terms) {
    if (t.coef > kLimit || t.coef < -kLimit || t.base->vmin() < -kLimit || t.base->vmax() > kLimit)
      return std::nullopt;
    const i128 a = t.coef * t.base->vmin(), b = t.coef * t.base->vmax();
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  return std::pair<i128, i128>{lo, hi};
}

i128 floordiv(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
i128 floormod(i128 a, i128 b) { return a - floordiv(a, b) * b; }
i128 gcd128(i128 a, i128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const i128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// ---- layer A ---------------------------------------------------------------------------------

Ref fold_constants(const Match& m) {
  Ref n = m.root();
  if (!has_int_bounds(n->dtype()) || n->nsrc() > 3) return {};
  int64_t v[3];
  for (size_t i = 0; i < n->nsrc(); ++i) {
    Ref s = n->src(i);
    if (!is_int_const(s) || !has_int_bounds(s->dtype())) return {};
    v[i] = cval(s);
  }
  // Shifts and comparisons evaluate in the operand type.
  DType t = n->dtype();
  if (ops::kComparison.has(n->op())) t = n->src(0)->dtype();
  auto r = exec_alu(n->op(), t, std::span<const int64_t>(v, n->nsrc()));
  if (!r) return {};
  if (n->op() == Op::kCast) return m.ctx().cint(*r, n->dtype());
  return m.ctx().cint(ops::kComparison.has(n->op()) ? *r : *wrap(*r, n->dtype()), n->dtype());
}

// Any int/bool ALU node (or variable, loop index) whose bounds pin a single value.
Ref fold_by_bounds(const Match& m) {
  Ref n = m.root();
  if (!has_int_bounds(n->dtype()) || n->vmin() != n->vmax()) return {};
  if (n->may_be_invalid()) return {};
  // Saturated index bounds mean "beyond int64", not a value.
  if (unbounded(n->dtype()) && (n->vmin() == kI64Max || n->vmin() == kI64Min)) return {};
  return m.ctx().cint(n->vmin(), n->dtype());
}

PatternMatcher make_simple() {
  PatternMatcher pm;
  const DTypeSet ints = dtypes::kInts, ib = dtypes::kIntsAndBool;
  auto x = [] { return P::var("x"); };
  auto c = [](int64_t v) { return P::konst(v); };
  auto X = [](const Match& m) { return m("x"); };
  // Rules that replace x by a constant must keep masked indices masked.
  auto zero = [](const Match& m) -> Ref {
    if (m.root()->may_be_invalid()) return {};
    return m.ctx().cint(0, m.root()->dtype());
  };

  // Invalid: arithmetic on Invalid is Invalid; ops move inside index gates.
  pm.add(P::ops(ops::kBinary | OpSet{Op::kNeg, Op::kMulAcc}).dtype(DType::kIndex),
         [](const Match& m) -> Ref {
           Ref n = m.root();
           if (has_invalid_src(n)) return m.ctx().invalid(DType::kIndex);
           for (size_t i = 0; i < n->nsrc(); ++i) {
             Ref s = n->src(i);
             if (s->op() == Op::kWhere && s->src(2)->is_invalid()) {
               std::vector<Ref> src(n->src().begin(), n->src().end());
               src[i] = s->src(1);
               return where(s->src(0), m.ctx().replace_src(n, src), s->src(2));
             }
           }
           return {};
         });
  pm.add(P::op(Op::kWhere).src(P::var("c"), P::cvar("i"), P::var("x")), [](const Match& m) -> Ref {
    if (!m("i")->is_invalid() || m("x")->is_invalid()) return {};
    return where(logical_not(m("c")), m("x"), m("i"));
  });
  pm.add(P::op(Op::kWhere)
             .src(P::var("c1"), P::op(Op::kWhere).src(P::var("c2"), P::var("x"), P::cvar("i")),
                  P::cvar("i")),
         [](const Match& m) -> Ref {
           if (!m("i")->is_invalid()) return {};
           return where(m("c1") & m("c2"), m("x"), m("i"));
         });

  // Constant folding and bounds.
  pm.add(P::ops(ops::kAlu).rsrc(P::cvar()), fold_constants);
  pm.add(P::ops(ops::kAlu | OpSet{Op::kDefineVar, Op::kRange, Op::kSpecial}).dtypes(ib),
         fold_by_bounds);

  // Identities.
  pm.add(P::op(Op::kAdd).dtypes(ints).csrc(x(), c(0)), X);
  pm.add(P::op(Op::kMul).dtypes(ints).csrc(x(), c(1)), X);
  pm.add(P::op(Op::kMul).dtypes(ints).csrc(x(), c(0)), zero);
  pm.add(P::op(Op::kIDiv).src(x(), c(1)), X);
  pm.add(P::op(Op::kIDiv).src(x(), c(-1)), [](const Match& m) { return -m("x"); });
  pm.add(P::op(Op::kMod).src(x(), P::cvar("c")), [](const Match& m) -> Ref {
    if (m.root()->may_be_invalid()) return {};
    const int64_t c = cval(m("c"));
    return (c == 1 || c == -1) ? m.ctx().cint(0, m.root()->dtype()) : Ref();
  });
  pm.add(P::ops({Op::kXor, Op::kOr}).dtypes(ib).csrc(x(), c(0)), X);
  pm.add(P::ops({Op::kShl, Op::kShr}).src(x(), c(0)), X);
  pm.add(P::op(Op::kAnd).dtypes(ib).csrc(x(), c(0)), zero);
  pm.add(P::op(Op::kAnd).dtype(DType::kBool).csrc(x(), c(1)), X);
  pm.add(P::op(Op::kOr).dtype(DType::kBool).csrc(x(), c(1)),
         [](const Match& m) { return m.root()->may_be_invalid() ? Ref() : m.ctx().cbool(true); });
  pm.add(P::op(Op::kCmpNe).csrc(x().dtype(DType::kBool), c(0)), X);
  pm.add(P::op(Op::kCmpEq).csrc(x().dtype(DType::kBool), c(1)), X);
  pm.add(P::op(Op::kCmpNe).src(P::op(Op::kCmpNe).src(x().dtype(DType::kBool), c(1)), c(1)), X);
  pm.add(P::ops({Op::kAnd, Op::kOr, Op::kMax}).src(x(), x()), X);
  pm.add(P::ops({Op::kCmpLt, Op::kCmpNe}).src(x().dtypes(ib), x()),
         [](const Match& m) { return m.root()->may_be_invalid() ? Ref() : m.ctx().cbool(false); });
  pm.add(P::op(Op::kCmpEq).src(x().dtypes(ib), x()),
         [](const Match& m) { return m.root()->may_be_invalid() ? Ref() : m.ctx().cbool(true); });
  pm.add(P::op(Op::kXor).dtypes(ib).src(x(), x()), zero);
  pm.add(P::op(Op::kXor).dtypes(ib).csrc(P::op(Op::kXor).csrc(x(), P::var("y")), P::var("y")), X);
  pm.add(P::ops({Op::kIDiv, Op::kMod}).src(x(), x()), [](const Match& m) -> Ref {
    Ref v = m("x");
    if ((v->vmin() <= 0 && v->vmax() >= 0) || v->may_be_invalid()) return {};
    return m.ctx().cint(m.root()->op() == Op::kIDiv ? 1 : 0, m.root()->dtype());
  });
  pm.add(P::op(Op::kWhere).src(P::any(), x(), x()), X);
  pm.add(P::op(Op::kMax).dtypes(ib).src(x(), P::var("y")), [](const Match& m) -> Ref {
    if (m.root()->may_be_invalid()) return {};
    if (m("x")->vmin() >= m("y")->vmax()) return m("x");
    if (m("y")->vmin() >= m("x")->vmax()) return m("y");
    return {};
  });
  pm.add(P::op(Op::kWhere).src(P::cvar("c"), P::var("t"), P::var("f")), [](const Match& m) -> Ref {
    if (!is_int_const(m("c"))) return {};
    return cval(m("c")) ? m("t") : m("f");
  });
  pm.add(P::op(Op::kCast).src(x()), [](const Match& m) -> Ref {
    return m("x")->dtype() == m.root()->dtype() ? m("x") : Ref();
  });
  // Nested division and modulo by positive constants.
  pm.add(P::op(Op::kIDiv).src(P::op(Op::kIDiv).src(x(), P::cvar("a")), P::cvar("b")),
         [](const Match& m) -> Ref {
           const i128 a = cval(m("a")), b = cval(m("b"));
           if (a <= 0 || b <= 0 || !fits64(a * b)) return {};
           return m("x") / konst(m.ctx(), a * b, m.root()->dtype());
         });
  pm.add(P::op(Op::kMod).src(P::op(Op::kMod).src(x(), P::cvar("c")), P::cvar("c")),
         [](const Match& m) { return m.root()->src(0); });
  // Index subtraction and negation become multiplication by -1 (for term combination).
  pm.add(P::op(Op::kSub).dtypes({DType::kIndex, DType::kWeakInt}).src(x(), P::var("y")),
         [](const Match& m) { return m("x") + m("y") * -1; });
  pm.add(P::op(Op::kNeg).dtypes({DType::kIndex, DType::kWeakInt}).src(x()),
         [](const Match& m) { return m("x") * -1; });
  return pm;
}

// ---- layer B: canonical order and term combination -------------------------------------------

// Commutative ops: constant last, otherwise ordered by key. Sums and products of index type are
// handled by the chain rules below as well; this covers every dtype.
Ref canonical_commutative(const Match& m) {
  Ref n = m.root();
  if (n->nsrc() != 2) return {};
  Ref a = n->src(0), b = n->src(1);
  const bool ca = a->op() == Op::kConst, cb = b->op() == Op::kConst;
  bool swap = ca && !cb;
  if (!ca && !cb) {
    if (n->op() == Op::kAdd && unbounded(n->dtype())) {
      // Index sums stay left-deep chains ordered by term base; the chain rules sort longer ones.
      swap = a->op() != Op::kAdd && key_less(term_of(b).base, term_of(a).base);
    } else {
      swap = key_less(b, a);
    }
  }
  if (!swap) return {};
  const Ref src[] = {b, a};
  return m.ctx().replace_src(n, src);
}

// ADD chain rules for index math (see the file comment for the canonical form).
Ref sum_rules(const Match& m) {
  Ref n = m.root();
  Context& c = m.ctx();
  const DType t = n->dtype();
  Ref a = n->src(0), b = n->src(1);
  // x + (y + z) -> (x + y) + z
  if (b->op() == Op::kAdd) return (a + b->src(0)) + b->src(1);
  const bool b_const = is_int_const(b);
  if (a->op() == Op::kAdd) {
    Ref a1 = a->src(0), a2 = a->src(1);
    if (is_int_const(a2)) {
      // (x + c1) + c2 -> x + (c1 + c2);  (x + c) + y -> (x + y) + c
      if (b_const) {
        const i128 s = static_cast<i128>(cval(a2)) + cval(b);
        if (!fits64(s)) return {};
        return a1 + konst(c, s, t);
      }
      return (a1 + b) + a2;
    }
    if (!b_const) {
      const Term ta = term_of(a2), tb = term_of(b);
      if (ta.base == tb.base) {  // (y + x*c0) + x*c1 -> y + x*(c0+c1)
        const i128 s = ta.coef + tb.coef;
        if (!fits64(s)) return {};
        if (s == 0 && ta.base->may_be_invalid()) return {};
        return s == 0 ? a1 : a1 + make_term(c, ta.base, s);
      }
      if (key_less(tb.base, ta.base)) return (a1 + b) + a2;  // insertion sort
    }
    return {};
  }
  if (!b_const && a->op() != Op::kConst) {
    const Term ta = term_of(a), tb = term_of(b);
    if (ta.base == tb.base) {  // x*c0 + x*c1 -> x*(c0+c1)
      const i128 s = ta.coef + tb.coef;
      if (!fits64(s) || (s == 0 && ta.base->may_be_invalid())) return {};
      return make_term(c, ta.base, s);
    }
  }
  return {};
}

// (x%c)*m + (x//c)*(c*m) -> x*m anywhere in a sum of up to 16 terms.
Ref recombine_divmod(const Match& m) {
  Ref n = m.root();
  std::vector<Term> terms;
  i128 k = 0;
  if (!flatten_sum(n, terms, k, 16) || terms.size() < 2) return {};
  for (size_t i = 0; i < terms.size(); ++i) {
    const Ref mod = terms[i].base;
    if (mod->op() != Op::kMod || !is_int_const(mod->src(1))) continue;
    const Ref x = mod->src(0);
    const i128 cm = cval(mod->src(1));
    for (size_t j = 0; j < terms.size(); ++j) {
      const Ref div = terms[j].base;
      if (j == i || div->op() != Op::kIDiv || div->src(0) != x || div->src(1) != mod->src(1))
        continue;
      if (terms[j].coef != terms[i].coef * cm) continue;
      // x = (x // c) * c + x % c holds for truncating division too.
      const i128 mult = terms[i].coef;
      terms[i] = {x, mult};
      terms.erase(terms.begin() + static_cast<ptrdiff_t>(j));
      return build_sum(m.ctx(), n->dtype(), terms, k);
    }
  }
  return {};
}

Ref mul_rules(const Match& m) {
  Ref n = m.root();
  Context& c = m.ctx();
  Ref a = n->src(0), b = n->src(1);
  if (!is_int_const(b)) {
    // (x * c) * y -> (x * y) * c and y * (x * c) -> (y * x) * c
    if (a->op() == Op::kMul && is_int_const(a->src(1))) return (a->src(0) * b) * a->src(1);
    if (b->op() == Op::kMul && is_int_const(b->src(1)) && !is_int_const(a))
      return (a * b->src(0)) * b->src(1);
    return {};
  }
  const i128 k = cval(b);
  // (x * c1) * c2 -> x * (c1 * c2)
  if (a->op() == Op::kMul && is_int_const(a->src(1))) {
    const i128 p = k * cval(a->src(1));
    if (!fits64(p)) return {};
    return a->src(0) * konst(c, p, n->dtype());
  }
  // (x + y) * c -> x*c + y*c, when the partial products stay far from the int64 limits.
  if (a->op() == Op::kAdd) {
    constexpr i128 kLimit = static_cast<i128>(1) << 62;
    for (Ref t : a->src())
      for (i128 v : {static_cast<i128>(t->vmin()), static_cast<i128>(t->vmax())})
        if (v * k > kLimit || v * k < -kLimit) return {};
    return a->src(0) * b + a->src(1) * b;
  }
  return {};
}

// ---- layer C: division and modulo by a positive constant --------------------------------------

Ref divmod_rules(const Match& m) {
  Ref n = m.root();
  Context& ctx = m.ctx();
  const DType t = n->dtype();
  const bool is_mod = n->op() == Op::kMod;
  Ref x = n->src(0);
  const i128 c = cval(n->src(1));
  if (c <= 0 || x->may_be_invalid()) return {};
  // Quotient fixed by bounds: for x >= 0 (or x <= 0) throughout.
  if (x->vmin() >= 0 || x->vmax() <= 0) {
    const i128 q0 = static_cast<i128>(x->vmin()) / c, q1 = static_cast<i128>(x->vmax()) / c;
    if (q0 == q1) {
      if (!is_mod) return konst(ctx, q0, t);
      if (q0 == 0) return x;
      if (!fits64(q0 * c) || !fits64(-q0 * c)) return {};
      return x + konst(ctx, -q0 * c, t);
    }
  }
  std::vector<Term> terms;
  i128 k = 0;
  if (!flatten_sum(x, terms, k, 64)) return {};
  // gcd of everything: (g*y) // (g*c') -> y // c', (g*y) % (g*c') -> (y % c') * g.
  i128 g = c;
  for (const Term& tm : terms) g = gcd128(g, tm.coef);
  g = gcd128(g, k);
  if (g > 1) {
    std::vector<Term> reduced = terms;
    for (Term& tm : reduced) tm.coef /= g;
    Ref y = build_sum(ctx, t, reduced, k / g);
    if (!y) return {};
    Ref cg = konst(ctx, c / g, t);
    return is_mod ? (y % cg) * konst(ctx, g, t) : y / cg;
  }
  // (x % (j*c)) // c -> (x // c) % j and (x % (j*c)) % c -> x % c, for x >= 0.
  if (x->op() == Op::kMod && is_int_const(x->src(1)) && x->src(0)->vmin() >= 0) {
    const i128 outer = cval(x->src(1));
    if (outer > 0 && outer % c == 0) {
      Ref inner = x->src(0);
      if (is_mod) return inner % n->src(1);
      return (inner / n->src(1)) % konst(ctx, outer / c, t);
    }
  }
  if (x->vmin() < 0) return {};
  // Congruence folding over the sum's terms: coef = q*c + r. With x >= 0 truncation is floor.
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<Term> quot, rem;
    for (const Term& tm : terms) {
      i128 r = floormod(tm.coef, c);
      if (attempt == 1 && 2 * r > c) r -= c;  // smallest magnitude remainder
      const i128 q = (tm.coef - r) / c;
      if (q != 0) quot.push_back({tm.base, q});
      if (r != 0) rem.push_back({tm.base, r});
    }
    const i128 kr = floormod(k, c), kq = floordiv(k, c);
    const auto bounds = sum_bounds(rem, kr);
    if (!bounds) return {};
    const auto [lo, hi] = *bounds;
    if (floordiv(lo, c) == floordiv(hi, c)) {
      // The residual stays within one period: it is the remainder (shifted by whole periods).
      const i128 tq = floordiv(lo, c);
      if (is_mod) return build_sum(ctx, t, rem, kr - tq * c);
      return build_sum(ctx, t, quot, kq + tq);
    }
    if (attempt == 0 && lo >= 0 && (!quot.empty() || kq != 0)) {
      // Pull whole multiples of c out: the residual is non-negative.
      Ref r = build_sum(ctx, t, rem, kr);
      Ref q = build_sum(ctx, t, quot, kq);
      if (!r || !q) return {};
      if (is_mod) return r % n->src(1);
      return q + r / n->src(1);
    }
  }
  return {};
}

// ---- comparisons -----------------------------------------------------------------------------

i128 ceildiv(i128 a, i128 b) { return -floordiv(-a, b); }

Ref cmp_rules(const Match& m) {
  Ref n = m.root();
  Context& ctx = m.ctx();
  Ref x = n->src(0), k = n->src(1);
  if (!is_int_const(k) || !unbounded(x->dtype()) || x->may_be_invalid()) return {};
  const DType t = x->dtype();
  const i128 kv = cval(k);
  // (x + c0) op c1 -> x op (c1 - c0)
  if (x->op() == Op::kAdd && is_int_const(x->src(1))) {
    const i128 s = kv - cval(x->src(1));
    if (!fits64(s)) return {};
    return ctx.make(n->op(), DType::kBool, {x->src(0), konst(ctx, s, t)});
  }
  if (n->op() != Op::kCmpLt) return {};
  // x // d < c -> x < c*d for x >= 0, d > 0
  if (x->op() == Op::kIDiv && is_int_const(x->src(1)) && cval(x->src(1)) > 0 &&
      x->src(0)->vmin() >= 0) {
    const i128 p = kv * cval(x->src(1));
    if (!fits64(p)) return {};
    return cmplt(x->src(0), konst(ctx, p, t));
  }
  // sum(g*f_i*x_i) < k -> sum(f_i*x_i) < ceil(k/g)
  std::vector<Term> terms;
  i128 c0 = 0;
  if (!flatten_sum(x, terms, c0, 64) || c0 != 0 || terms.empty()) return {};
  i128 g = 0;
  for (const Term& tm : terms) g = gcd128(g, tm.coef);
  if (g <= 1) return {};
  for (Term& tm : terms) tm.coef /= g;
  Ref sum = build_sum(ctx, t, terms, 0);
  if (!sum) return {};
  return cmplt(sum, konst(ctx, ceildiv(kv, g), t));
}

// where(!c, t, f) -> where(c, f, t) (not for index gates, whose Invalid stays on the right).
Ref where_not(const Match& m) {
  if (m("t")->is_invalid() || m("f")->is_invalid()) return {};
  return where(m("c"), m("f"), m("t"));
}

// ---- layers D/E: simplification inside index gates -------------------------------------------

size_t graph_size(Ref n) { return n->ctx().toposort(n).size(); }

Ref gate_rules(const Match& m) {
  Ref gate = m("g"), x = m("x");
  Context& ctx = m.ctx();
  // Clauses of the gate and the bounds they put on their subject.
  std::vector<Ref> clauses, stack{gate};
  while (!stack.empty()) {
    Ref c = stack.back();
    stack.pop_back();
    if (c->op() == Op::kAnd && c->dtype() == DType::kBool) {
      stack.push_back(c->src(1));
      stack.push_back(c->src(0));
    } else {
      clauses.push_back(c);
    }
  }
  struct Bound {
    Ref subject;
    int64_t lo, hi;
  };
  std::vector<Bound> bounds;
  auto tighten = [&](Ref s, int64_t lo, int64_t hi) {
    for (Bound& b : bounds)
      if (b.subject == s) {
        b.lo = std::max(b.lo, lo);
        b.hi = std::min(b.hi, hi);
        return;
      }
    bounds.push_back({s, std::max(s->vmin(), lo), std::min(s->vmax(), hi)});
  };
  for (Ref c : clauses) {
    if (c->op() == Op::kCmpLt && is_int_const(c->src(1)) && has_int_bounds(c->src(0)->dtype()) &&
        cval(c->src(1)) > kI64Min) {
      tighten(c->src(0), kI64Min, cval(c->src(1)) - 1);
    } else if (c->op() == Op::kCmpNe && c->src(1)->is_int_const(1) &&
               c->src(0)->op() == Op::kCmpLt && is_int_const(c->src(0)->src(1))) {
      tighten(c->src(0)->src(0), cval(c->src(0)->src(1)), kI64Max);
    }
  }
  if (bounds.empty()) return {};
  for (const Bound& b : bounds)
    if (b.lo > b.hi) return ctx.invalid(m.root()->dtype());  // the gate is never true
  // Replace each constrained subject by a variable with the tightened bounds, simplify, and put
  // the subjects back. Kept only when the expression got smaller (guarantees termination).
  std::unordered_map<Ref, Ref> to_var, from_var;
  for (const Bound& b : bounds) {
    if (b.lo == b.subject->vmin() && b.hi == b.subject->vmax()) continue;
    Ref v = ctx.var(strformat("valid%u", b.subject->id()), b.lo, b.hi, b.subject->dtype());
    to_var[b.subject] = v;
    from_var[v] = b.subject;
  }
  if (to_var.empty()) return {};
  Ref y = substitute(simplify(substitute(x, to_var)), from_var);
  if (y == x || graph_size(y) >= graph_size(x)) return {};
  return where(gate, y, m.root()->src(2));
}

PatternMatcher make_full() {
  PatternMatcher pm = make_simple();
  const DTypeSet idx = {DType::kIndex, DType::kWeakInt};
  pm.add(P::op(Op::kAdd).dtypes(idx).src(P::any(), P::any()), sum_rules);
  pm.add(P::op(Op::kAdd).dtypes(idx), recombine_divmod);
  pm.add(P::op(Op::kMul).dtypes(idx).src(P::any(), P::any()), mul_rules);
  pm.add(P::ops(ops::kCommutative), canonical_commutative);
  pm.add(P::ops({Op::kIDiv, Op::kMod}).dtypes(idx).src(P::any(), P::cvar()), divmod_rules);
  pm.add(P::ops(ops::kComparison).src(P::any(), P::cvar()), cmp_rules);
  pm.add(P::op(Op::kWhere)
             .src(P::op(Op::kCmpNe).src(P::var("c").dtype(DType::kBool), P::konst(1)), P::var("t"),
                  P::var("f")),
         where_not);
  pm.add(P::op(Op::kWhere).dtype(DType::kIndex).src(P::var("g"), P::var("x"), P::cvar("i")),
         [](const Match& m) -> Ref { return m("i")->is_invalid() ? gate_rules(m) : Ref(); });
  return pm;
}

}  // namespace

const PatternMatcher& symbolic_simple() {
  static const PatternMatcher pm = make_simple();
  return pm;
}

const PatternMatcher& symbolic() {
  static const PatternMatcher pm = make_full();
  return pm;
}

Ref simplify(Ref e) {
  RewriteOptions o;
  o.pass = "symbolic";
  return rewrite_bottom_up(e, symbolic(), o);
}

// ---- layer F ---------------------------------------------------------------------------------

Ref narrow_index(Ref e) {
  Context& ctx = e->ctx();
  const std::vector<Ref> order = ctx.toposort(e);
  std::unordered_map<Ref, Ref> out;
  out.reserve(order.size());
  auto fits32 = [](Ref n) { return n->vmin() >= INT32_MIN && n->vmax() <= INT32_MAX; };
  for (Ref n : order) {
    std::vector<Ref> src;
    src.reserve(n->nsrc());
    for (Ref s : n->src()) src.push_back(out.at(s));
    DType t = n->dtype();
    // Operands of index type must agree: the widest wins.
    bool wide = false;
    for (size_t i = 0; i < n->nsrc(); ++i)
      if (n->src(i)->dtype() == DType::kIndex && src[i]->dtype() == DType::kInt64) wide = true;
    if (t == DType::kIndex) {
      // A gated index where(g, i, Invalid) has i's range (Invalid is not a value).
      const Ref value = (n->op() == Op::kWhere && n->src(2)->is_invalid()) ? n->src(1) : n;
      if (!n->is_invalid() && !fits32(value)) wide = true;
      t = wide ? DType::kInt64 : DType::kInt32;
    }
    const DType operand = wide ? DType::kInt64 : DType::kInt32;
    for (size_t i = 0; i < n->nsrc(); ++i) {
      if (n->src(i)->dtype() != DType::kIndex || src[i]->dtype() == operand) continue;
      Ref s = src[i];
      if (s->op() == Op::kConst) {
        src[i] = s->is_invalid() ? ctx.invalid(operand) : ctx.cint(cval(s), operand);
      } else {
        src[i] = cast(s, operand);
      }
    }
    Ref r;
    if (n->op() == Op::kDefineVar) {
      r = ctx.var(n->arg().as_var().name, n->arg().as_var().vmin, n->arg().as_var().vmax, t);
    } else {
      r = ctx.make(n->op(), t, src, n->arg(), n->tag());
    }
    out.emplace(n, r);
  }
  return out.at(e);
}

// ---- evaluation ------------------------------------------------------------------------------

IntEvaluator::IntEvaluator(Ref e) : order_(e->ctx().toposort(e)) {
  uint32_t max_id = 0;
  for (Ref n : order_) max_id = std::max(max_id, n->id());
  slot_.assign(max_id + 1, 0);
  for (uint32_t i = 0; i < order_.size(); ++i) {
    slot_[order_[i]->id()] = i;
    const Op op = order_[i]->op();
    if (op == Op::kDefineVar || op == Op::kRange || op == Op::kSpecial)
      leaves_.push_back(order_[i]);
  }
  std::sort(leaves_.begin(), leaves_.end(), [](Ref a, Ref b) { return a->id() < b->id(); });
  values_.resize(order_.size());
  undefined_.resize(order_.size());
}

Result<EvalResult> IntEvaluator::run(std::span<const int64_t> leaf_values) {
  if (leaf_values.size() != leaves_.size())
    return make_error(Errc::kInvalidArgument, "%zu leaf values for %zu leaves", leaf_values.size(),
                      leaves_.size());
  std::vector<size_t> leaf_slot(leaves_.size());
  for (size_t i = 0; i < leaves_.size(); ++i) leaf_slot[i] = slot_[leaves_[i]->id()];
  for (size_t i = 0; i < leaves_.size(); ++i) values_[leaf_slot[i]] = {leaf_values[i], false};
  for (uint32_t i = 0; i < order_.size(); ++i) {
    Ref n = order_[i];
    const Op op = n->op();
    if (op == Op::kDefineVar || op == Op::kRange || op == Op::kSpecial) {
      undefined_[i] = 0;
      continue;
    }
    if (op == Op::kConst) {
      undefined_[i] = 0;
      if (n->is_invalid()) {
        values_[i] = {0, true};
      } else if (n->arg().kind() == ArgKind::kInt) {
        values_[i] = {cval(n), false};
      } else {
        return make_error(Errc::kInvalidArgument, "%%%u: not an integer constant", n->id());
      }
      continue;
    }
    if (!ops::kAlu.has(op) || !has_int_bounds(n->dtype()) || n->nsrc() > 3)
      return make_error(Errc::kInvalidArgument, "%%%u: %s is not integer math", n->id(),
                        std::string(op_name(op)).c_str());
    int64_t v[3];
    bool invalid = false, undefined = false;
    for (size_t k = 0; k < n->nsrc(); ++k) {
      const uint32_t j = slot_[n->src(k)->id()];
      v[k] = values_[j].value;
      invalid |= values_[j].invalid;
      undefined |= undefined_[j] != 0;
      if (!has_int_bounds(n->src(k)->dtype()))
        return make_error(Errc::kInvalidArgument, "%%%u: float operand", n->id());
    }
    undefined_[i] = 0;
    if (op == Op::kWhere) {
      // A gate or select: only the taken branch matters (masked lanes may overflow freely).
      const uint32_t c = slot_[n->src(0)->id()];
      if (undefined_[c]) {
        undefined_[i] = 1;
        values_[i] = {0, false};
      } else if (values_[c].invalid) {
        values_[i] = {0, true};
      } else {
        const uint32_t taken = slot_[n->src(values_[c].value ? 1 : 2)->id()];
        values_[i] = values_[taken];
        undefined_[i] = undefined_[taken];
      }
      continue;
    }
    if (invalid) {
      values_[i] = {0, true};
      continue;
    }
    if (undefined) {
      undefined_[i] = 1;
      values_[i] = {0, false};
      continue;
    }
    DType t = n->dtype();
    if (ops::kComparison.has(op)) t = n->src(0)->dtype();
    auto r = exec_alu(op, t, std::span<const int64_t>(v, n->nsrc()));
    if (!r) {
      undefined_[i] = 1;
      values_[i] = {0, false};
      undefined_op_ = n;
      continue;
    }
    values_[i] = {*r, false};
  }
  if (undefined_.back())
    return make_error(Errc::kInvalidArgument, "%%%u: %s is undefined for these operands",
                      undefined_op_->id(), std::string(op_name(undefined_op_->op())).c_str());
  return values_.back();
}

Result<EvalResult> eval_int(Ref e, std::span<const Binding> bindings) {
  IntEvaluator ev(e);
  std::vector<int64_t> vals(ev.leaves().size());
  for (size_t i = 0; i < ev.leaves().size(); ++i) {
    bool found = false;
    for (const Binding& b : bindings)
      if (b.first == ev.leaves()[i]) {
        vals[i] = b.second;
        found = true;
      }
    if (!found)
      return make_error(Errc::kInvalidArgument, "no value for %s",
                        expr_string(ev.leaves()[i]).c_str());
  }
  return ev.run(vals);
}

}  // namespace rawgpu::compiler
