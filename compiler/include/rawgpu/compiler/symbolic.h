// Symbolic algebra over index expressions (integer and bool nodes).
//
// Semantics: index is a mathematical integer (no overflow; rules may reassociate freely),
// IDIV truncates toward zero and MOD takes the dividend's sign, as in C. Fixed-width integer
// dtypes get the same rules except those that reassociate or distribute (they could change
// where wrap-around happens); constant folding wraps to the dtype. A masked index is
// where(gate, idx, Invalid): Invalid poisons arithmetic (ops move inside the gate), and inside
// the gate the index is simplified under the gate's bounds.
//
// Canonical form produced by symbolic(): sums are left-deep chains ((t1 + t2) + t3) + c with
// like terms combined, terms ordered by structural hash and the constant last; products put
// their constant last; commutative operands are ordered the same way; subtraction and integer
// negation become multiplication by -1.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/pattern.h"

namespace rawgpu::compiler {

// Layer A: Invalid propagation, identities and constant folding.
const PatternMatcher& symbolic_simple();
// Layers A-E: plus canonical order, term combination, bounds folding, div/mod folding,
// comparison folding and validity (gate) simplification. The default for index math.
const PatternMatcher& symbolic();

// rewrite_bottom_up(e, symbolic()).
Ref simplify(Ref e);

// Layer F: commits every index-typed node to int32 when its bounds and its operands' bounds fit
// int32, else to int64 (casting narrower operands up; constants take their consumer's width).
Ref narrow_index(Ref e);

// The value of an integer/bool expression for given variable values (DEFINE_VAR, RANGE and
// SPECIAL nodes). `invalid` is set when the expression is a masked index whose gate is false.
struct EvalResult {
  int64_t value = 0;
  bool invalid = false;
  bool operator==(const EvalResult&) const = default;
};
using Binding = std::pair<Ref, int64_t>;
// Errors: kInvalidArgument for an unbound leaf, an op that is not integer math (loads, floats), or
// a division by zero / int64 overflow that the result depends on (in the untaken branch of a
// where, or under a false gate, it does not matter).
Result<EvalResult> eval_int(Ref e, std::span<const Binding> bindings);

// Evaluates one expression for many assignments (the graph is walked once, at construction).
class IntEvaluator {
 public:
  explicit IntEvaluator(Ref e);
  // Values for the leaves in leaves() order.
  Result<EvalResult> run(std::span<const int64_t> leaf_values);
  // The DEFINE_VAR, RANGE and SPECIAL nodes of the expression, sorted by id.
  const std::vector<Ref>& leaves() const { return leaves_; }
  // Every node of the expression, children first, and its value from the last run().
  const std::vector<Ref>& nodes() const { return order_; }
  const std::vector<EvalResult>& values() const { return values_; }
  // Per node: 1 when its value was undefined (overflow, division by zero) in the last run().
  const std::vector<uint8_t>& undefined() const { return undefined_; }

 private:
  std::vector<Ref> order_;
  std::vector<uint32_t> slot_;  // node id -> position in order_ (ids of this graph only)
  std::vector<Ref> leaves_;
  std::vector<EvalResult> values_;
  std::vector<uint8_t> undefined_;  // overflow or division by zero (only an error if selected)
  Ref undefined_op_;
};

}  // namespace rawgpu::compiler
