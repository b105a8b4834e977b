// The compiler's IR: one hash-consed, immutable node type.
//
// A node is (op, dtype, sources, arg, tag). Nodes are created only through a Context, which
// interns them: building a node that is structurally equal to an existing one returns the
// existing node, so structural equality is pointer equality (Ref ==). Nodes live in the
// Context's arena until the Context is destroyed (one Context per graph/schedule/compile epoch).
//
// Per node, computed at construction and stored inline: a 128-bit structural hash (stable across
// processes and runs: it only depends on op, dtype, arg contents, tag and the children's hashes,
// never on addresses or ids), integer bounds vmin/vmax for bool and integer dtypes, and the set
// of the children's ops (for the rewrite engine's early reject). Computed lazily and cached: the
// open RANGEs a node depends on (ranges()).
//
// Thread-safety: a Context and its nodes are confined to one thread at a time (interning and the
// lazy caches are unsynchronised). Different Contexts are independent and may be used from
// different threads concurrently. Compiled kernels never reference IR nodes, so kernels may run
// on other threads while a thread compiles. A node handed to another thread must not be read
// while the owning thread may still intern or fill caches, unless the handover synchronises.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/compiler/dtype.h"

namespace rawgpu::compiler {

// Op order is fixed on purpose: op values are part of the structural hash (the compile-cache key)
// and of printed listings. Adding or reordering ops changes every hash, which invalidates
// on-disk caches; do it deliberately.
// clang-format off
// Binary IDiv and Mod truncate toward zero like C (the remainder has the dividend's sign).
#define RAWGPU_COMPILER_OPS(X)                                                   \
  /* definitions */                                                              \
  X(Special) X(DefineVar) X(Buffer) X(Param)                                     \
  /* structure */                                                                \
  X(Noop) X(Sink) X(Group) X(After) X(End)                                       \
  /* memory */                                                                   \
  X(Index) X(Load) X(Store)                                                      \
  /* unary */                                                                    \
  X(Cast) X(Bitcast) X(Exp2) X(Log2) X(Sin) X(Sqrt) X(Recip) X(Neg) X(Trunc)     \
  /* binary */                                                                   \
  X(Add) X(Mul) X(Shl) X(Shr) X(IDiv) X(Mod) X(Max) X(CmpLt) X(CmpNe) X(CmpEq)   \
  X(Xor) X(Or) X(And) X(Threefry) X(Sub) X(FDiv) X(Pow)                          \
  /* ternary */                                                                  \
  X(Where) X(MulAcc)                                                             \
  /* control */                                                                  \
  X(Barrier) X(Range) X(If) X(EndIf)                                             \
  /* leaves */                                                                   \
  X(Const)                                                                       \
  /* tensor graph only */                                                        \
  X(Contiguous) X(Detach) X(Copy) X(Reshape) X(Permute) X(Expand) X(Pad)         \
  X(Shrink) X(Flip) X(ReduceAxis) X(Reduce)                                     \
  /* tensor cores (appended: earlier op values and hashes are unchanged) */      \
  X(Wmma) X(Gep)                                                                 \
  /* vectors (appended): VECTORIZE packs scalar lanes into a vector value */     \
  X(Vectorize)
// clang-format on

enum class Op : uint8_t {
#define RAWGPU_X(name) k##name,
  RAWGPU_COMPILER_OPS(RAWGPU_X)
#undef RAWGPU_X
      kCount
};
inline constexpr int kNumOps = static_cast<int>(Op::kCount);
static_assert(kNumOps <= 128, "OpSet is 128 bits");

std::string_view op_name(Op op);  // "ADD", "CMPLT", ...

// A set of ops as a 128-bit mask.
struct OpSet {
  uint64_t lo = 0, hi = 0;
  constexpr OpSet() = default;
  constexpr OpSet(std::initializer_list<Op> ops) {
    for (Op o : ops) *this |= of(o);
  }
  static constexpr OpSet of(Op o) {
    OpSet s;
    const int i = static_cast<int>(o);
    if (i < 64) {
      s.lo = uint64_t{1} << i;
    } else {
      s.hi = uint64_t{1} << (i - 64);
    }
    return s;
  }
  static constexpr OpSet all() {
    OpSet s;
    for (int i = 0; i < kNumOps; ++i) s |= of(static_cast<Op>(i));
    return s;
  }
  constexpr bool has(Op o) const {
    const int i = static_cast<int>(o);
    return i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1;
  }
  constexpr bool empty() const { return lo == 0 && hi == 0; }
  constexpr OpSet& operator|=(OpSet o) {
    lo |= o.lo;
    hi |= o.hi;
    return *this;
  }
  friend constexpr OpSet operator|(OpSet a, OpSet b) { return a |= b; }
  friend constexpr OpSet operator&(OpSet a, OpSet b) {
    OpSet s;
    s.lo = a.lo & b.lo;
    s.hi = a.hi & b.hi;
    return s;
  }
  // True when every op of *this is in `o`.
  constexpr bool subset_of(OpSet o) const { return (lo & ~o.lo) == 0 && (hi & ~o.hi) == 0; }
  constexpr bool operator==(const OpSet&) const = default;
};

namespace ops {
inline constexpr OpSet kUnary = {Op::kCast, Op::kBitcast, Op::kExp2, Op::kLog2, Op::kSin,
                                 Op::kSqrt, Op::kRecip,   Op::kNeg,  Op::kTrunc};
inline constexpr OpSet kBinary = {Op::kAdd,  Op::kMul, Op::kShl,   Op::kShr,      Op::kIDiv,
                                  Op::kMod,  Op::kMax, Op::kCmpLt, Op::kCmpNe,    Op::kCmpEq,
                                  Op::kXor,  Op::kOr,  Op::kAnd,   Op::kThreefry, Op::kSub,
                                  Op::kFDiv, Op::kPow};
inline constexpr OpSet kTernary = {Op::kWhere, Op::kMulAcc};
inline constexpr OpSet kAlu = kUnary | kBinary | kTernary;
inline constexpr OpSet kCommutative = {Op::kAdd,   Op::kMul, Op::kMax, Op::kCmpNe,
                                       Op::kCmpEq, Op::kXor, Op::kAnd, Op::kOr};
inline constexpr OpSet kAssociative = {Op::kAdd, Op::kMul, Op::kAnd, Op::kOr, Op::kMax};
inline constexpr OpSet kIdempotent = {Op::kOr, Op::kAnd, Op::kMax};
inline constexpr OpSet kComparison = {Op::kCmpLt, Op::kCmpNe, Op::kCmpEq};
inline constexpr OpSet kMovement = {Op::kReshape, Op::kPermute, Op::kExpand,
                                    Op::kPad,     Op::kShrink,  Op::kFlip};
}  // namespace ops

// 128-bit structural hash.
struct Hash128 {
  uint64_t lo = 0, hi = 0;
  constexpr bool operator==(const Hash128&) const = default;
  std::string hex() const;  // 32 hex digits, hi first
};

enum class ArgKind : uint8_t {
  kNone,
  kInt,      // int64: integer and bool constants, axis ids
  kFloat,    // a float constant, stored by bit pattern of the double (-0.0 and NaN are stable)
  kInvalid,  // the Invalid marker of masked indices (arg of a bool CONST)
  kOp,       // an op (REDUCE)
  kInts,     // a tuple of int64 (RANGE axis/type, permutations, shapes)
  kStr,      // a name (SPECIAL, BUFFER)
  kVar,      // a scalar variable: name and inclusive bounds (DEFINE_VAR)
};

// An immutable op-specific payload. Args passed to Context::make may point into caller memory
// (ints, strings); the Context copies them into its arena when it creates the node, so args read
// from nodes stay valid for the Context's lifetime.
class Arg {
 public:
  constexpr Arg() : kind_(ArgKind::kNone), len_(0), i_(0) {}
  static constexpr Arg integer(int64_t v) { return Arg(ArgKind::kInt, 0, v); }
  static Arg floating(double v);
  static constexpr Arg invalid() { return Arg(ArgKind::kInvalid, 0, 0); }
  static constexpr Arg op(Op o) { return Arg(ArgKind::kOp, 0, static_cast<int64_t>(o)); }
  static Arg ints(std::span<const int64_t> v);
  static Arg str(std::string_view s);
  // Bounds are inclusive. `name` is copied on interning.
  struct Var {
    std::string_view name;
    int64_t vmin, vmax;
  };
  static Arg var(const Var* v);  // v must outlive the make() call

  ArgKind kind() const { return kind_; }
  bool is_none() const { return kind_ == ArgKind::kNone; }
  int64_t as_int() const;       // kInt
  double as_float() const;      // kFloat
  uint64_t float_bits() const;  // kFloat
  Op as_op() const;             // kOp
  std::span<const int64_t> as_ints() const;
  std::string_view as_str() const;
  const Var& as_var() const;

  bool operator==(const Arg& o) const;
  std::string to_string() const;

 private:
  friend class Context;
  constexpr Arg(ArgKind k, uint32_t len, int64_t i) : kind_(k), len_(len), i_(i) {}
  ArgKind kind_;
  uint32_t len_;  // elements of kInts, bytes of kStr
  union {
    int64_t i_;
    uint64_t bits_;
    const int64_t* ints_;
    const char* str_;
    const Var* var_;
  };
};

class Node;
class Context;

// A handle to an interned node: a pointer. == compares identity, which for interned nodes is
// structural equality. Arithmetic operators build nodes in the operands' Context.
class Ref {
 public:
  constexpr Ref() = default;
  constexpr Ref(std::nullptr_t) {}
  explicit constexpr Ref(const Node* n) : n_(n) {}
  const Node* operator->() const { return n_; }
  const Node& operator*() const { return *n_; }
  const Node* get() const { return n_; }
  explicit operator bool() const { return n_ != nullptr; }
  bool operator==(const Ref&) const = default;

 private:
  const Node* n_ = nullptr;
};

class Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  Op op() const { return op_; }
  DType dtype() const { return dtype_; }
  // Dense per-Context id, in creation order: children always have smaller ids than parents.
  uint32_t id() const { return id_; }
  uint32_t tag() const { return tag_; }
  const Arg& arg() const { return arg_; }
  std::span<const Ref> src() const { return {srcs(), nsrc_}; }
  Ref src(size_t i) const { return srcs()[i]; }
  size_t nsrc() const { return nsrc_; }
  Context& ctx() const { return *ctx_; }

  const Hash128& hash() const { return hash_; }
  // Inclusive value bounds. Exact facts for bool and integer dtypes (has_int_bounds); for other
  // dtypes [INT64_MIN, INT64_MAX]. Index arithmetic saturates at the int64 range.
  int64_t vmin() const { return vmin_; }
  int64_t vmax() const { return vmax_; }
  // The ops of the direct children.
  OpSet src_ops() const { return src_ops_; }

  bool is_const() const { return op_ == Op::kConst; }
  bool is_int_const(int64_t v) const {
    return op_ == Op::kConst && arg_.kind() == ArgKind::kInt && arg_.as_int() == v;
  }
  bool is_invalid() const { return op_ == Op::kConst && arg_.kind() == ArgKind::kInvalid; }
  // Whether an Invalid marker occurs anywhere below (or at) this node: its value may be a masked
  // index, so rules must not fold it to a value (x * 0 is not 0 when x may be Invalid).
  bool may_be_invalid() const { return may_be_invalid_; }

  // The open RANGE nodes this node depends on, sorted by id: the union over the children minus
  // the ranges this node closes (REDUCE and END close their src[1:]). Lazily computed, cached.
  std::span<const Ref> ranges() const;

  // Tensor-graph shape (tensor_graph.cpp, README "Tensor graph"): the dims of the value this node
  // denotes, or nullopt when the node is not a well-formed tensor-graph node (index math, kernel
  // AST structure, mismatched sources). CONST is a scalar (no dims), BUFFER is (count). Lazily
  // computed and cached; iterative, any depth.
  std::optional<std::span<const int64_t>> shape() const;

 private:
  friend class Context;
  Node() = default;
  const Ref* srcs() const { return reinterpret_cast<const Ref*>(this + 1); }

  Op op_;
  DType dtype_;
  uint32_t id_;
  uint32_t nsrc_;
  uint32_t tag_;
  mutable uint32_t nranges_ = 0;
  mutable bool ranges_done_ = false;
  bool may_be_invalid_ = false;
  Arg arg_;
  Hash128 hash_;
  int64_t vmin_, vmax_;
  OpSet src_ops_;
  Context* ctx_;
  mutable const Ref* ranges_ = nullptr;
  mutable const int64_t* shape_ = nullptr;
  mutable int32_t ndim_ = -2;  // -2 not computed, -1 no shape
  // followed by nsrc_ Refs
};

// Owns nodes: arena, intern table. Not thread-safe; see the file comment.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The interned node (op, dtype, src, arg, tag). Sources must belong to this Context.
  Ref make(Op op, DType dtype, std::span<const Ref> src, const Arg& arg = Arg(), uint32_t tag = 0);
  Ref make(Op op, DType dtype, std::initializer_list<Ref> src, const Arg& arg = Arg(),
           uint32_t tag = 0) {
    return make(op, dtype, std::span<const Ref>(src.begin(), src.size()), arg, tag);
  }
  // The same node with other sources (re-interned); returns n itself when nothing changed.
  Ref replace_src(Ref n, std::span<const Ref> src);

  Ref cint(int64_t v, DType dtype = DType::kIndex);
  Ref cfloat(double v, DType dtype = DType::kFloat32);
  Ref cbool(bool v) { return cint(v ? 1 : 0, DType::kBool); }
  // A constant of `dtype` with the value v (cast to the dtype's kind).
  Ref cconst(double v, DType dtype);
  // The Invalid marker: a bool CONST (index where(valid, idx, Invalid) is dtype index).
  Ref invalid(DType dtype = DType::kIndex);
  // A scalar variable with inclusive bounds.
  Ref var(std::string_view name, int64_t vmin, int64_t vmax, DType dtype = DType::kIndex);
  // A loop over [0, size): arg (axis id, axis type).
  Ref range(Ref size, int64_t axis, int64_t axis_type = 0);
  Ref range(int64_t size, int64_t axis, int64_t axis_type = 0) {
    return range(cint(size, DType::kIndex), axis, axis_type);
  }

  size_t num_nodes() const { return nodes_.size(); }
  Ref node(uint32_t id) const { return Ref(nodes_[id]); }
  size_t arena_bytes() const;

  // Children-first topological order of everything reachable from root (root last).
  // Iterative; fine for arbitrarily deep graphs.
  std::vector<Ref> toposort(Ref root);
  std::vector<Ref> toposort(std::span<const Ref> roots);

 private:
  friend class Node;
  void* allocate(size_t bytes, size_t align);
  Arg copy_arg(const Arg& a);
  void grow_table();
  void compute_ranges(Ref root);
  void compute_shapes(Ref root);

  std::vector<uint64_t> table_;  // (hash tag << 32) | (id + 1); 0 = empty
  size_t table_used_ = 0;
  std::vector<Node*> nodes_;
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::vector<size_t> chunk_sizes_;
  std::byte* cur_ = nullptr;
  size_t left_ = 0;
  size_t arena_bytes_ = 0;
  std::vector<uint32_t> mark_;
  uint32_t epoch_ = 0;
};

// Expression building (index math and tests). Binary operators with an int64 operand make a
// constant of the other operand's dtype. Comparisons are functions (== on Ref is identity).
Ref operator+(Ref a, Ref b);
Ref operator-(Ref a, Ref b);
Ref operator*(Ref a, Ref b);
Ref operator/(Ref a, Ref b);  // IDiv (integers) or FDiv (floats)
Ref operator%(Ref a, Ref b);
Ref operator&(Ref a, Ref b);
Ref operator|(Ref a, Ref b);
Ref operator^(Ref a, Ref b);
Ref operator-(Ref a);  // NEG
Ref operator+(Ref a, int64_t b);
Ref operator-(Ref a, int64_t b);
Ref operator*(Ref a, int64_t b);
Ref operator/(Ref a, int64_t b);
Ref operator%(Ref a, int64_t b);
Ref operator+(int64_t a, Ref b);
Ref operator*(int64_t a, Ref b);
Ref max(Ref a, Ref b);
Ref min(Ref a, Ref b);  // -max(-a, -b)
Ref cmplt(Ref a, Ref b);
Ref cmplt(Ref a, int64_t b);
Ref cmpne(Ref a, Ref b);
Ref cmpne(Ref a, int64_t b);
Ref cmpeq(Ref a, Ref b);
Ref cmpeq(Ref a, int64_t b);
Ref logical_not(Ref a);  // a != true
Ref where(Ref cond, Ref t, Ref f);
Ref cast(Ref a, DType dtype);

// Text forms. to_string: one line per node ("%12 = ADD index %3, %11"), for any graph size.
// expr_string: infix for small expressions ("((x*4)+(y//2))"), nodes by id beyond `max_depth`.
std::string to_string(Ref root);
std::string expr_string(Ref root, int max_depth = 24);

}  // namespace rawgpu::compiler

template <>
struct std::hash<rawgpu::compiler::Ref> {
  size_t operator()(rawgpu::compiler::Ref r) const noexcept {
    return std::hash<const void*>()(r.get());
  }
};
