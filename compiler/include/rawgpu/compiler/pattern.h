// Patterns over IR nodes and the rule matcher.
//
//   Pat::op(Op::kAdd).csrc(Pat::var("x"), Pat::konst(0))      x + 0 and 0 + x
//   Pat::op(Op::kIDiv).src(Pat::var("x"), Pat::cvar("c"))     x // c for a constant c
//   Pat::ops(ops::kAlu).rsrc(Pat::cvar())                     ALU op with all-constant sources
//
// A pattern constrains: a set of ops, a set of dtypes, an exact arg, a capture name (a name used
// twice must bind the same node), and the children: ordered (src), any permutation (csrc: how
// commutative ops match both operand orders), one pattern repeated over all children (rsrc), an
// ordered prefix (src_prefix), or anything (the default). Pat::any_of gives alternatives.
//
// A PatternMatcher holds rules (pattern, callback). Rules are indexed by root op, and each has an
// early-reject set: the ops of its fixed single-op child patterns, which must all occur among the
// node's children (one 128-bit AND against Node::src_ops()). Rules are tried in insertion order;
// the first callback that returns a node different from the matched one wins.
#pragma once

#include <array>
#include <functional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/compiler/ir.h"

namespace rawgpu::compiler {

// A set of dtypes as a bit mask; empty means "any".
struct DTypeSet {
  uint32_t bits = 0;
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> ts) {
    for (DType t : ts) bits |= uint32_t{1} << static_cast<int>(t);
  }
  // Vector dtypes (dtype.h) are never members.
  constexpr bool has(DType t) const {
    return static_cast<int>(t) < 32 && ((bits >> static_cast<int>(t)) & 1);
  }
  constexpr bool any() const { return bits == 0; }
};
namespace dtypes {
inline constexpr DTypeSet kInts = {DType::kInt8,    DType::kInt16,  DType::kInt32,  DType::kInt64,
                                   DType::kUInt8,   DType::kUInt16, DType::kUInt32, DType::kUInt64,
                                   DType::kWeakInt, DType::kIndex};
inline constexpr DTypeSet kIntsAndBool = {
    DType::kInt8,   DType::kInt16,  DType::kInt32,   DType::kInt64, DType::kUInt8, DType::kUInt16,
    DType::kUInt32, DType::kUInt64, DType::kWeakInt, DType::kIndex, DType::kBool};
inline constexpr DTypeSet kFloats = {DType::kFloat16, DType::kBFloat16, DType::kFloat32,
                                     DType::kFloat64, DType::kWeakFloat};
}  // namespace dtypes

class Pat {
 public:
  static Pat any() { return Pat(); }
  static Pat var(std::string_view name) { return Pat().named(name); }
  static Pat op(Op o) { return ops(OpSet::of(o)); }
  static Pat ops(OpSet s) {
    Pat p;
    p.ops_ = s;
    return p;
  }
  // A CONST (any value), captured under `name` if not empty.
  static Pat cvar(std::string_view name = {}, DTypeSet dts = {}) {
    return op(Op::kConst).named(name).dtypes(dts);
  }
  // An integer or bool CONST with exactly this value.
  static Pat konst(int64_t v) { return op(Op::kConst).arg(Arg::integer(v)); }
  static Pat any_of(std::vector<Pat> alternatives);

  Pat&& named(std::string_view name) && {
    name_ = name;
    return std::move(*this);
  }
  Pat&& dtypes(DTypeSet s) && {
    dtypes_ = s;
    return std::move(*this);
  }
  Pat&& dtype(DType t) && { return std::move(*this).dtypes({t}); }
  // Args with out-of-line data (ints, str, var) cannot be matched exactly; use a callback.
  Pat&& arg(Arg a) &&;
  template <class... P>
  Pat&& src(P&&... children) && {
    return std::move(*this).set_children(Mode::kOrdered, {Pat(std::forward<P>(children))...});
  }
  template <class... P>
  Pat&& csrc(P&&... children) && {
    return std::move(*this).set_children(Mode::kPermute, {Pat(std::forward<P>(children))...});
  }
  template <class... P>
  Pat&& src_prefix(P&&... children) && {
    return std::move(*this).set_children(Mode::kPrefix, {Pat(std::forward<P>(children))...});
  }
  Pat&& rsrc(Pat child) && {
    return std::move(*this).set_children(Mode::kRepeat, {std::move(child)});
  }

  // Lvalue forms.
  Pat named(std::string_view n) const& { return Pat(*this).named(n); }

 private:
  friend class PatternMatcher;
  enum class Mode : uint8_t { kAny, kOrdered, kPermute, kPrefix, kRepeat, kAlternatives };
  Pat&& set_children(Mode m, std::vector<Pat> c) && {
    mode_ = m;
    children_ = std::move(c);
    return std::move(*this);
  }
  OpSet ops_;  // empty = any
  DTypeSet dtypes_;
  bool has_arg_ = false;
  Arg arg_;
  std::string name_;
  Mode mode_ = Mode::kAny;
  std::vector<Pat> children_;
};

inline constexpr int kMaxCaptures = 16;

// What a callback sees: the matched root and the named captures.
class Match {
 public:
  Ref root() const { return root_; }
  Context& ctx() const { return root_->ctx(); }
  // The node captured under `name` (a pattern name of this rule; checked).
  Ref operator()(std::string_view name) const;
  // The pass's user context given to the driver (nullptr if none).
  template <class T>
  T* user() const {
    return static_cast<T*>(user_);
  }

 private:
  friend class PatternMatcher;
  Ref root_;
  void* user_ = nullptr;
  const std::vector<std::string>* names_ = nullptr;
  std::array<Ref, kMaxCaptures> slots_{};
};

// Returns the replacement, or a null Ref (or the root itself) for "no rewrite".
using RewriteFn = std::function<Ref(const Match&)>;

class PatternMatcher {
 public:
  PatternMatcher() = default;
  // Adds a rule; its name for traces is the caller's file:line unless given.
  PatternMatcher& add(const Pat& pattern, RewriteFn fn,
                      std::source_location loc = std::source_location::current());
  PatternMatcher& add_named(std::string name, const Pat& pattern, RewriteFn fn);
  // Appends all rules of `other` (after this matcher's own rules).
  PatternMatcher& extend(const PatternMatcher& other);

  // Applies the first matching rule to n. Null if none fired.
  Ref rewrite(Ref n, void* user = nullptr) const;
  // Same, also reporting which rule fired (index into rule names) for tracing.
  Ref rewrite(Ref n, void* user, int* rule_index) const;

  size_t size() const { return rules_.size(); }
  const std::string& rule_name(size_t i) const { return rules_[i].name; }
  // Does `pattern` match n? For tests and ad-hoc queries; captures are discarded.
  static bool matches(const Pat& pattern, Ref n);

 private:
  struct PNode {
    OpSet ops;
    DTypeSet dtypes;
    bool has_arg = false;
    Arg arg;
    int8_t slot = -1;
    Pat::Mode mode = Pat::Mode::kAny;
    uint16_t first = 0, count = 0;  // children in `nodes`
  };
  struct Rule {
    std::vector<PNode> nodes;  // nodes[0] is the root
    std::vector<std::string> names;
    OpSet early_reject;
    RewriteFn fn;
    std::string name;
    bool any_root = false;
  };
  static void compile(const Pat& p, Rule& r, size_t at);
  static bool match(const Rule& r, const PNode& p, Ref n, std::array<Ref, kMaxCaptures>& s);
  void index_rule(uint32_t i);

  std::vector<Rule> rules_;
  std::array<std::vector<uint32_t>, kNumOps> by_op_;
};

}  // namespace rawgpu::compiler
