#include "rawgpu/compiler/ir.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

#include "rawgpu/base/error.h"
#include "rawgpu/base/format.h"

namespace rawgpu::compiler {

static_assert(std::is_trivially_destructible_v<Node>, "arena nodes are never destroyed");
static_assert(sizeof(Ref) == sizeof(void*) && alignof(Node) >= alignof(Ref));

namespace {

constexpr std::string_view kOpNames[] = {
#define RAWGPU_X(name) #name,
    RAWGPU_COMPILER_OPS(RAWGPU_X)
#undef RAWGPU_X
};

using i128 = __int128;
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// ---- hashing ---------------------------------------------------------------------------------
// A non-cryptographic 2x64-bit multiply-fold hash. Stable: it depends only on the words fed in.
constexpr uint64_t kK1 = 0x9e3779b97f4a7c15ULL, kK2 = 0xc2b2ae3d27d4eb4fULL,
                   kK3 = 0x165667b19e3779f9ULL, kK4 = 0x27d4eb2f165667c5ULL;
inline uint64_t fold_mul(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}
struct Hasher {
  uint64_t a = kK3, b = kK4;
  void add(uint64_t v) {
    a = fold_mul(a ^ v, kK1) + kK3;
    b = fold_mul(b ^ std::rotl(v, 29) ^ kK4, kK2) + a;
  }
  Hash128 finish() const {
    Hash128 h;
    h.lo = fold_mul(a ^ std::rotl(b, 17), kK2) ^ b;
    h.hi = fold_mul(b ^ kK1, a | 1) ^ a;
    return h;
  }
};

void hash_bytes(Hasher& h, const char* p, size_t n) {
  h.add(n);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h.add(w);
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  h.add(w);
}

void hash_arg(Hasher& h, const Arg& a) {
  h.add(static_cast<uint64_t>(a.kind()));
  switch (a.kind()) {
    case ArgKind::kNone:
    case ArgKind::kInvalid: break;
    case ArgKind::kInt: h.add(static_cast<uint64_t>(a.as_int())); break;
    case ArgKind::kFloat: h.add(a.float_bits()); break;
    case ArgKind::kOp: h.add(static_cast<uint64_t>(a.as_op())); break;
    case ArgKind::kInts: {
      const auto v = a.as_ints();
      h.add(v.size());
      for (int64_t x : v) h.add(static_cast<uint64_t>(x));
      break;
    }
    case ArgKind::kStr: {
      const auto s = a.as_str();
      hash_bytes(h, s.data(), s.size());
      break;
    }
    case ArgKind::kVar: {
      const auto& v = a.as_var();
      hash_bytes(h, v.name.data(), v.name.size());
      h.add(static_cast<uint64_t>(v.vmin));
      h.add(static_cast<uint64_t>(v.vmax));
      break;
    }
  }
}

// ---- bounds ----------------------------------------------------------------------------------
struct Bounds {
  i128 lo, hi;
};

Bounds full_range(DType t) {
  if (has_int_bounds(t)) return {dtype_min(t), dtype_max(t)};
  return {kI64Min, kI64Max};
}

i128 trunc_div(i128 a, i128 b) { return a / b; }  // C++ division truncates toward zero

Bounds corners(i128 a, i128 b, i128 c, i128 d) {
  return {std::min({a, b, c, d}), std::max({a, b, c, d})};
}

i128 abs128(i128 v) { return v < 0 ? -v : v; }

Bounds compute_bounds(Op op, DType dtype, std::span<const Ref> s, const Arg& arg) {
  if (!has_int_bounds(dtype)) return {kI64Min, kI64Max};
  const size_t n = s.size();
  auto B = [&](size_t i) -> Bounds { return {s[i]->vmin(), s[i]->vmax()}; };
  // Integer-valued source i (floats have no usable bounds).
  auto int_src = [&](size_t i) { return i < n && has_int_bounds(s[i]->dtype()); };
  switch (op) {
    case Op::kConst:
      if (arg.kind() == ArgKind::kInt) return {arg.as_int(), arg.as_int()};
      return full_range(dtype);
    case Op::kDefineVar:
      if (arg.kind() == ArgKind::kVar) return {arg.as_var().vmin, arg.as_var().vmax};
      return full_range(dtype);
    case Op::kRange:
    case Op::kSpecial:
      if (int_src(0)) return {0, std::max<i128>(0, i128{s[0]->vmax()} - 1)};
      return full_range(dtype);
    default: break;
  }
  if (ops::kBinary.has(op) && (n != 2 || !int_src(0) || !int_src(1))) {
    if (ops::kComparison.has(op)) return {0, 1};
    return full_range(dtype);
  }
  switch (op) {
    case Op::kAdd: return {B(0).lo + B(1).lo, B(0).hi + B(1).hi};
    case Op::kSub: return {B(0).lo - B(1).hi, B(0).hi - B(1).lo};
    case Op::kMul: {
      const Bounds a = B(0), b = B(1);
      return corners(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi);
    }
    case Op::kNeg:
      if (n == 1 && int_src(0)) return {-i128{s[0]->vmax()}, -i128{s[0]->vmin()}};
      break;
    case Op::kIDiv: {
      const Bounds a = B(0), b = B(1);
      if (b.lo > 0 || b.hi < 0)  // monotone in each operand: extremes at the corners
        return corners(trunc_div(a.lo, b.lo), trunc_div(a.lo, b.hi), trunc_div(a.hi, b.lo),
                       trunc_div(a.hi, b.hi));
      const i128 m = std::max(abs128(a.lo), abs128(a.hi));  // |a / b| <= |a|
      return {-m, m};
    }
    case Op::kMod: {
      const Bounds a = B(0), b = B(1);
      const i128 m = std::max(abs128(b.lo), abs128(b.hi));  // |a % b| < max |b|
      if (m == 0) break;
      if (b.lo == b.hi && b.lo != 0 && trunc_div(a.lo, b.lo) == trunc_div(a.hi, b.lo) &&
          (a.lo >= 0 || a.hi <= 0))
        return {a.lo % b.lo, a.hi % b.lo};  // one period, no sign change: exact
      const i128 lo = a.lo >= 0 ? 0 : std::max(a.lo, -(m - 1));
      const i128 hi = a.hi <= 0 ? 0 : std::min(a.hi, m - 1);
      return {lo, hi};
    }
    case Op::kShl:
      if (s[1]->vmin() == s[1]->vmax() && s[1]->vmin() >= 0 && s[1]->vmin() < 63) {
        const i128 f = i128{1} << s[1]->vmin();
        return {B(0).lo * f, B(0).hi * f};
      }
      break;
    case Op::kShr:
      if (s[1]->vmin() == s[1]->vmax() && s[1]->vmin() >= 0 && s[1]->vmin() < 64)
        return {B(0).lo >> s[1]->vmin(), B(0).hi >> s[1]->vmin()};
      break;
    case Op::kMax: return {std::max(B(0).lo, B(1).lo), std::max(B(0).hi, B(1).hi)};
    case Op::kAnd:
      if (dtype == DType::kBool) return {B(0).lo & B(1).lo, B(0).hi & B(1).hi};
      if (B(0).lo >= 0 && B(1).lo >= 0) return {0, std::min(B(0).hi, B(1).hi)};
      if (B(0).lo >= 0) return {0, B(0).hi};
      if (B(1).lo >= 0) return {0, B(1).hi};
      break;
    case Op::kOr:
    case Op::kXor:
      if (dtype == DType::kBool) {
        if (op == Op::kOr) return {B(0).lo | B(1).lo, B(0).hi | B(1).hi};
        if (B(0).lo == B(0).hi && B(1).lo == B(1).hi) return {B(0).lo ^ B(1).lo, B(0).lo ^ B(1).lo};
        return {0, 1};
      }
      if (B(0).lo >= 0 && B(1).lo >= 0) {
        const uint64_t top = static_cast<uint64_t>(std::max(B(0).hi, B(1).hi));
        const i128 mask = (i128{1} << std::bit_width(top)) - 1;
        return {op == Op::kOr ? std::max(B(0).lo, B(1).lo) : 0, mask};
      }
      break;
    case Op::kCmpLt: {
      if (B(0).hi < B(1).lo) return {1, 1};
      if (B(0).lo >= B(1).hi) return {0, 0};
      return {0, 1};
    }
    case Op::kCmpNe:
    case Op::kCmpEq: {
      const Bounds a = B(0), b = B(1);
      int64_t ne_lo = 0, ne_hi = 1;
      if (a.hi < b.lo || b.hi < a.lo) ne_lo = 1;
      if (a.lo == a.hi && b.lo == b.hi && a.lo == b.lo) ne_hi = 0;
      if (op == Op::kCmpNe) return {ne_lo, ne_hi};
      return {1 - ne_hi, 1 - ne_lo};
    }
    case Op::kWhere:
      if (n == 3 && int_src(1) && int_src(2)) {
        if (s[0]->vmin() == 1 && has_int_bounds(s[0]->dtype())) return B(1);
        if (s[0]->vmax() == 0 && has_int_bounds(s[0]->dtype())) return B(2);
        return {std::min(B(1).lo, B(2).lo), std::max(B(1).hi, B(2).hi)};
      }
      break;
    case Op::kMulAcc:
      if (n == 3 && int_src(0) && int_src(1) && int_src(2)) {
        const Bounds a = B(0), b = B(1), c = B(2);
        const Bounds m = corners(a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi);
        return {m.lo + c.lo, m.hi + c.hi};
      }
      break;
    case Op::kCast:
      if (n == 1 && int_src(0)) {
        const Bounds a = B(0);
        if (dtype == DType::kBool) {
          if (a.lo > 0 || a.hi < 0) return {1, 1};
          if (a.lo == 0 && a.hi == 0) return {0, 0};
          return {0, 1};
        }
        if (a.lo >= dtype_min(dtype) && a.hi <= dtype_max(dtype)) return a;
      }
      break;
    default: break;
  }
  return full_range(dtype);
}

// Bounds outside the dtype's range mean the value may wrap: fall back to the full range. Index
// arithmetic saturates at the int64 range instead (it is unbounded in principle).
void finish_bounds(Bounds b, DType dtype, int64_t& lo, int64_t& hi) {
  if (!has_int_bounds(dtype)) {
    lo = kI64Min;
    hi = kI64Max;
    return;
  }
  if (dtype == DType::kIndex || dtype == DType::kWeakInt) {
    lo = static_cast<int64_t>(std::clamp<i128>(b.lo, kI64Min, kI64Max));
    hi = static_cast<int64_t>(std::clamp<i128>(b.hi, kI64Min, kI64Max));
  } else if (b.lo < dtype_min(dtype) || b.hi > dtype_max(dtype) || b.lo > b.hi) {
    lo = dtype_min(dtype);
    hi = dtype_max(dtype);
  } else {
    lo = static_cast<int64_t>(b.lo);
    hi = static_cast<int64_t>(b.hi);
  }
  if (lo > hi) std::swap(lo, hi);
}

}  // namespace

std::string_view op_name(Op op) {
  static const auto upper = [] {
    std::vector<std::string> v;
    for (std::string_view n : kOpNames) {
      std::string s(n);
      for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      v.push_back(std::move(s));
    }
    return v;
  }();
  const size_t i = static_cast<size_t>(op);
  return i < upper.size() ? std::string_view(upper[i]) : std::string_view("?");
}

std::string Hash128::hex() const {
  return strformat("%016llx%016llx", (unsigned long long)hi, (unsigned long long)lo);
}

// ---- Arg -------------------------------------------------------------------------------------
Arg Arg::floating(double v) {
  Arg a(ArgKind::kFloat, 0, 0);
  a.bits_ = std::bit_cast<uint64_t>(v);
  return a;
}
Arg Arg::ints(std::span<const int64_t> v) {
  Arg a(ArgKind::kInts, static_cast<uint32_t>(v.size()), 0);
  a.ints_ = v.data();
  return a;
}
Arg Arg::str(std::string_view s) {
  Arg a(ArgKind::kStr, static_cast<uint32_t>(s.size()), 0);
  a.str_ = s.data();
  return a;
}
Arg Arg::var(const Var* v) {
  Arg a(ArgKind::kVar, 0, 0);
  a.var_ = v;
  return a;
}
int64_t Arg::as_int() const {
  RG_ASSERT(kind_ == ArgKind::kInt);
  return i_;
}
double Arg::as_float() const {
  RG_ASSERT(kind_ == ArgKind::kFloat);
  return std::bit_cast<double>(bits_);
}
uint64_t Arg::float_bits() const {
  RG_ASSERT(kind_ == ArgKind::kFloat);
  return bits_;
}
Op Arg::as_op() const {
  RG_ASSERT(kind_ == ArgKind::kOp);
  return static_cast<Op>(i_);
}
std::span<const int64_t> Arg::as_ints() const {
  if (kind_ != ArgKind::kInts) return {};
  return {ints_, len_};
}
std::string_view Arg::as_str() const {
  if (kind_ != ArgKind::kStr) return {};
  return {str_, len_};
}
const Arg::Var& Arg::as_var() const {
  RG_CHECK(kind_ == ArgKind::kVar);
  return *var_;
}

bool Arg::operator==(const Arg& o) const {
  if (kind_ != o.kind_ || len_ != o.len_) return false;
  switch (kind_) {
    case ArgKind::kNone:
    case ArgKind::kInvalid: return true;
    case ArgKind::kInt:
    case ArgKind::kOp: return i_ == o.i_;
    case ArgKind::kFloat: return bits_ == o.bits_;
    case ArgKind::kInts:
      return len_ == 0 || std::memcmp(ints_, o.ints_, len_ * sizeof(int64_t)) == 0;
    case ArgKind::kStr: return len_ == 0 || std::memcmp(str_, o.str_, len_) == 0;
    case ArgKind::kVar:
      return var_->name == o.var_->name && var_->vmin == o.var_->vmin && var_->vmax == o.var_->vmax;
  }
  return false;
}

std::string Arg::to_string() const {
  switch (kind_) {
    case ArgKind::kNone: return "";
    case ArgKind::kInvalid: return "Invalid";
    case ArgKind::kInt: return strformat("%lld", static_cast<long long>(i_));
    case ArgKind::kFloat: return strformat("%.17g", as_float());
    case ArgKind::kOp: return std::string(op_name(as_op()));
    case ArgKind::kInts: {
      std::string s = "(";
      for (uint32_t i = 0; i < len_; ++i)
        s += strformat(i ? ", %lld" : "%lld", static_cast<long long>(ints_[i]));
      return s + ")";
    }
    case ArgKind::kStr: return std::string(as_str());
    case ArgKind::kVar:
      return strformat("%.*s[%lld, %lld]", static_cast<int>(var_->name.size()), var_->name.data(),
                       static_cast<long long>(var_->vmin), static_cast<long long>(var_->vmax));
  }
  return "?";
}

// ---- Context ---------------------------------------------------------------------------------
Context::Context() : table_(1024, 0) {}

size_t Context::arena_bytes() const { return arena_bytes_; }

namespace {
// Arena chunks are recycled through a small per-thread pool: a compile creates and drops many
// Contexts, and fresh memory costs a page fault per 4 KiB on first touch.
constexpr size_t kChunkBytes = size_t{256} << 10;
constexpr size_t kMaxPooledChunks = 64;
std::vector<std::unique_ptr<std::byte[]>>& chunk_pool() {
  thread_local std::vector<std::unique_ptr<std::byte[]>> pool;
  return pool;
}
}  // namespace

Context::~Context() {
  auto& pool = chunk_pool();
  for (size_t i = 0; i < chunks_.size(); ++i)
    if (chunk_sizes_[i] == kChunkBytes && pool.size() < kMaxPooledChunks)
      pool.push_back(std::move(chunks_[i]));
}

void* Context::allocate(size_t bytes, size_t align) {
  size_t pad = (align - reinterpret_cast<uintptr_t>(cur_) % align) % align;
  if (cur_ == nullptr || pad + bytes > left_) {
    const size_t chunk = std::max(kChunkBytes, bytes + align);
    auto& pool = chunk_pool();
    if (chunk == kChunkBytes && !pool.empty()) {
      chunks_.push_back(std::move(pool.back()));
      pool.pop_back();
    } else {
      chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(chunk));
    }
    chunk_sizes_.push_back(chunk);
    cur_ = chunks_.back().get();
    left_ = chunk;
    arena_bytes_ += chunk;
    pad = (align - reinterpret_cast<uintptr_t>(cur_) % align) % align;
  }
  std::byte* p = cur_ + pad;
  cur_ = p + bytes;
  left_ -= pad + bytes;
  return p;
}

Arg Context::copy_arg(const Arg& a) {
  switch (a.kind_) {
    case ArgKind::kInts: {
      if (a.len_ == 0) return Arg::ints({});
      auto* p = static_cast<int64_t*>(allocate(a.len_ * sizeof(int64_t), alignof(int64_t)));
      std::memcpy(p, a.ints_, a.len_ * sizeof(int64_t));
      return Arg::ints({p, a.len_});
    }
    case ArgKind::kStr: {
      if (a.len_ == 0) return Arg::str({});
      auto* p = static_cast<char*>(allocate(a.len_, 1));
      std::memcpy(p, a.str_, a.len_);
      return Arg::str({p, a.len_});
    }
    case ArgKind::kVar: {
      auto* name = static_cast<char*>(allocate(a.var_->name.size() + 1, 1));
      std::memcpy(name, a.var_->name.data(), a.var_->name.size());
      auto* v = new (allocate(sizeof(Arg::Var), alignof(Arg::Var)))
          Arg::Var{std::string_view(name, a.var_->name.size()), a.var_->vmin, a.var_->vmax};
      return Arg::var(v);
    }
    default: return a;
  }
}

// The intern table: open addressing with linear probing over 8-byte slots packing the low 32
// bits of the node's hash (also the probe start, so growing never touches the nodes) and
// id + 1 (0 = empty).
namespace {
inline uint64_t pack_slot(uint32_t tag, uint32_t id) {
  return (static_cast<uint64_t>(tag) << 32) | (static_cast<uint64_t>(id) + 1);
}
}  // namespace

void Context::grow_table() {
  std::vector<uint64_t> old(table_.size() * 2, 0);
  old.swap(table_);
  const size_t mask = table_.size() - 1;
  for (uint64_t slot : old) {
    if (!slot) continue;
    size_t i = (slot >> 32) & mask;
    while (table_[i]) i = (i + 1) & mask;
    table_[i] = slot;
  }
}

Ref Context::make(Op op, DType dtype, std::span<const Ref> src, const Arg& arg, uint32_t tag) {
  Hasher h;
  h.add(static_cast<uint64_t>(op) | (static_cast<uint64_t>(dtype) << 8) |
        (static_cast<uint64_t>(tag) << 16) | (static_cast<uint64_t>(src.size()) << 48));
  hash_arg(h, arg);
  for (Ref s : src) {
    RG_ASSERT(s && &s->ctx() == this, "source from another Context or null");
    h.add(s->hash().lo);
    h.add(s->hash().hi);
  }
  const Hash128 hash = h.finish();

  const size_t mask = table_.size() - 1;
  const uint32_t hash_tag = static_cast<uint32_t>(hash.lo);
  size_t i = hash_tag & mask;
  for (; table_[i]; i = (i + 1) & mask) {
    if (static_cast<uint32_t>(table_[i] >> 32) != hash_tag) continue;
    const Node* n = nodes_[static_cast<uint32_t>(table_[i]) - 1];
    if (n->op_ != op || n->dtype_ != dtype || n->tag_ != tag || n->nsrc_ != src.size() ||
        !(n->hash_ == hash))
      continue;
    if (!std::equal(src.begin(), src.end(), n->srcs()) || !(n->arg_ == arg)) continue;
    return Ref(n);
  }

  void* mem = allocate(sizeof(Node) + src.size() * sizeof(Ref), alignof(Node));
  Node* n = new (mem) Node();
  n->op_ = op;
  n->dtype_ = dtype;
  n->id_ = static_cast<uint32_t>(nodes_.size());
  n->nsrc_ = static_cast<uint32_t>(src.size());
  n->tag_ = tag;
  n->arg_ = copy_arg(arg);
  n->hash_ = hash;
  n->ctx_ = this;
  OpSet child_ops;
  Ref* out = reinterpret_cast<Ref*>(n + 1);
  bool invalid = op == Op::kConst && arg.kind() == ArgKind::kInvalid;
  for (size_t k = 0; k < src.size(); ++k) {
    out[k] = src[k];
    child_ops |= OpSet::of(src[k]->op());
    invalid |= src[k]->may_be_invalid_;
  }
  n->may_be_invalid_ = invalid;
  n->src_ops_ = child_ops;
  finish_bounds(compute_bounds(op, dtype, src, arg), dtype, n->vmin_, n->vmax_);
  nodes_.push_back(n);
  table_[i] = pack_slot(hash_tag, n->id_);
  if (++table_used_ * 10 > table_.size() * 7) grow_table();
  return Ref(n);
}

Ref Context::replace_src(Ref n, std::span<const Ref> src) {
  if (src.size() == n->nsrc() && std::equal(src.begin(), src.end(), n->src().begin())) return n;
  return make(n->op(), n->dtype(), src, n->arg(), n->tag());
}

Ref Context::cint(int64_t v, DType dtype) {
  if (dtype == DType::kBool) v = v != 0;
  return make(Op::kConst, dtype, {}, Arg::integer(v));
}

Ref Context::cfloat(double v, DType dtype) {
  if (dtype == DType::kFloat32) v = static_cast<float>(v);
  if (dtype == DType::kFloat16) v = half_to_float(float_to_half(static_cast<float>(v)));
  if (dtype == DType::kBFloat16) v = bf16_to_float(float_to_bf16(static_cast<float>(v)));
  return make(Op::kConst, dtype, {}, Arg::floating(v));
}

Ref Context::cconst(double v, DType dtype) {
  if (is_float(dtype)) return cfloat(v, dtype);
  return cint(static_cast<int64_t>(v), dtype);
}

Ref Context::invalid(DType dtype) { return make(Op::kConst, dtype, {}, Arg::invalid()); }

Ref Context::var(std::string_view name, int64_t vmin, int64_t vmax, DType dtype) {
  const Arg::Var v{name, vmin, vmax};
  return make(Op::kDefineVar, dtype, {}, Arg::var(&v));
}

Ref Context::range(Ref size, int64_t axis, int64_t axis_type) {
  const int64_t a[] = {axis, axis_type};
  return make(Op::kRange, size->dtype(), {size}, Arg::ints(a));
}

std::vector<Ref> Context::toposort(Ref root) { return toposort(std::span<const Ref>(&root, 1)); }

std::vector<Ref> Context::toposort(std::span<const Ref> roots) {
  std::vector<Ref> order;
  if (mark_.size() < nodes_.size()) mark_.resize(nodes_.size() + nodes_.size() / 2 + 16, 0);
  if (++epoch_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    epoch_ = 1;
  }
  struct Frame {
    const Node* n;
    uint32_t next;
  };
  std::vector<Frame> stack;
  for (Ref r : roots) {
    if (mark_[r->id()] == epoch_) continue;
    mark_[r->id()] = epoch_;
    stack.push_back({r.get(), 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.n->nsrc()) {
        const Node* c = f.n->src(f.next++).get();
        if (mark_[c->id()] != epoch_) {
          mark_[c->id()] = epoch_;
          stack.push_back({c, 0});
        }
        continue;
      }
      order.push_back(Ref(f.n));
      stack.pop_back();
    }
  }
  return order;
}

std::span<const Ref> Node::ranges() const {
  if (!ranges_done_) ctx_->compute_ranges(Ref(this));
  return {ranges_, nranges_};
}

void Context::compute_ranges(Ref root) {
  // Children-first over the nodes whose ranges are not cached yet.
  std::vector<const Node*> order;
  std::vector<std::pair<const Node*, uint32_t>> stack{{root.get(), 0}};
  if (mark_.size() < nodes_.size()) mark_.resize(nodes_.size() + nodes_.size() / 2 + 16, 0);
  if (++epoch_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0);
    epoch_ = 1;
  }
  mark_[root->id()] = epoch_;
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next < n->nsrc()) {
      const Node* c = n->src(next++).get();
      if (!c->ranges_done_ && mark_[c->id()] != epoch_) {
        mark_[c->id()] = epoch_;
        stack.push_back({c, 0});
      }
      continue;
    }
    order.push_back(n);
    stack.pop_back();
  }
  std::vector<Ref> acc;
  for (const Node* n : order) {
    acc.clear();
    for (Ref c : n->src()) acc.insert(acc.end(), c->ranges_, c->ranges_ + c->nranges_);
    if (n->op() == Op::kRange) acc.push_back(Ref(n));
    std::sort(acc.begin(), acc.end(), [](Ref a, Ref b) { return a->id() < b->id(); });
    acc.erase(std::unique(acc.begin(), acc.end()), acc.end());
    if (n->op() == Op::kReduce || n->op() == Op::kEnd) {
      for (size_t k = 1; k < n->nsrc(); ++k)
        acc.erase(std::remove(acc.begin(), acc.end(), n->src(k)), acc.end());
    }
    if (!acc.empty()) {
      auto* p = static_cast<Ref*>(allocate(acc.size() * sizeof(Ref), alignof(Ref)));
      std::copy(acc.begin(), acc.end(), p);
      n->ranges_ = p;
    }
    n->nranges_ = static_cast<uint32_t>(acc.size());
    n->ranges_done_ = true;
  }
}

// ---- expression building ---------------------------------------------------------------------
namespace {
Ref binary(Op op, Ref a, Ref b) { return a->ctx().make(op, a->dtype(), {a, b}); }
Ref konst(Ref like, int64_t v) { return like->ctx().cconst(static_cast<double>(v), like->dtype()); }
Ref konst_exact(Ref like, int64_t v) {
  if (is_float(like->dtype())) return like->ctx().cfloat(static_cast<double>(v), like->dtype());
  return like->ctx().cint(v, like->dtype());
}
Ref compare(Op op, Ref a, Ref b) { return a->ctx().make(op, DType::kBool, {a, b}); }
}  // namespace

Ref operator+(Ref a, Ref b) { return binary(Op::kAdd, a, b); }
Ref operator-(Ref a, Ref b) { return binary(Op::kSub, a, b); }
Ref operator*(Ref a, Ref b) { return binary(Op::kMul, a, b); }
Ref operator/(Ref a, Ref b) { return binary(is_float(a->dtype()) ? Op::kFDiv : Op::kIDiv, a, b); }
Ref operator%(Ref a, Ref b) { return binary(Op::kMod, a, b); }
Ref operator&(Ref a, Ref b) { return binary(Op::kAnd, a, b); }
Ref operator|(Ref a, Ref b) { return binary(Op::kOr, a, b); }
Ref operator^(Ref a, Ref b) { return binary(Op::kXor, a, b); }
Ref operator-(Ref a) { return a->ctx().make(Op::kNeg, a->dtype(), {a}); }
Ref operator+(Ref a, int64_t b) { return a + konst_exact(a, b); }
Ref operator-(Ref a, int64_t b) { return a - konst_exact(a, b); }
Ref operator*(Ref a, int64_t b) { return a * konst_exact(a, b); }
Ref operator/(Ref a, int64_t b) { return a / konst_exact(a, b); }
Ref operator%(Ref a, int64_t b) { return a % konst_exact(a, b); }
Ref operator+(int64_t a, Ref b) { return konst_exact(b, a) + b; }
Ref operator*(int64_t a, Ref b) { return konst_exact(b, a) * b; }
Ref max(Ref a, Ref b) { return binary(Op::kMax, a, b); }
Ref min(Ref a, Ref b) { return -max(-a, -b); }
Ref cmplt(Ref a, Ref b) { return compare(Op::kCmpLt, a, b); }
Ref cmplt(Ref a, int64_t b) { return cmplt(a, konst(a, b)); }
Ref cmpne(Ref a, Ref b) { return compare(Op::kCmpNe, a, b); }
Ref cmpne(Ref a, int64_t b) { return cmpne(a, konst(a, b)); }
Ref cmpeq(Ref a, Ref b) { return compare(Op::kCmpEq, a, b); }
Ref cmpeq(Ref a, int64_t b) { return cmpeq(a, konst(a, b)); }
Ref logical_not(Ref a) { return cmpne(a, a->ctx().cbool(true)); }
Ref where(Ref c, Ref t, Ref f) { return c->ctx().make(Op::kWhere, t->dtype(), {c, t, f}); }
Ref cast(Ref a, DType dtype) { return a->ctx().make(Op::kCast, dtype, {a}); }

// ---- printing --------------------------------------------------------------------------------
std::string to_string(Ref root) {
  std::string out;
  for (Ref n : root->ctx().toposort(root)) {
    out += strformat("%%%u = %s %s", n->id(), std::string(op_name(n->op())).c_str(),
                     std::string(dtype_name(n->dtype())).c_str());
    for (size_t i = 0; i < n->nsrc(); ++i)
      out += strformat("%s%%%u", i ? ", " : " ", n->src(i)->id());
    if (!n->arg().is_none()) out += " [" + n->arg().to_string() + "]";
    if (n->tag()) out += strformat(" tag=%u", n->tag());
    out += "\n";
  }
  return out;
}

namespace {
const char* infix(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kIDiv: return "//";
    case Op::kFDiv: return "/";
    case Op::kMod: return "%";
    case Op::kCmpLt: return "<";
    case Op::kCmpNe: return "!=";
    case Op::kCmpEq: return "==";
    case Op::kAnd: return "&";
    case Op::kOr: return "|";
    case Op::kXor: return "^";
    case Op::kShl: return "<<";
    case Op::kShr: return ">>";
    default: return nullptr;
  }
}
void expr_rec(Ref n, int depth, std::string& out) {
  if (depth <= 0) {
    out += strformat("%%%u", n->id());
    return;
  }
  switch (n->op()) {
    case Op::kConst: out += n->arg().to_string(); return;
    case Op::kDefineVar: out += std::string(n->arg().as_var().name); return;
    case Op::kRange:
      out += strformat("r%lld", static_cast<long long>(n->arg().as_ints()[0]));
      return;
    case Op::kSpecial: out += std::string(n->arg().as_str()); return;
    default: break;
  }
  if (const char* sym = infix(n->op()); sym && n->nsrc() == 2) {
    out += "(";
    expr_rec(n->src(0), depth - 1, out);
    out += sym;
    expr_rec(n->src(1), depth - 1, out);
    out += ")";
    return;
  }
  std::string name(op_name(n->op()));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  out += name + "(";
  for (size_t i = 0; i < n->nsrc(); ++i) {
    if (i) out += ", ";
    expr_rec(n->src(i), depth - 1, out);
  }
  if (n->op() == Op::kCast) out += std::string(", ") + std::string(dtype_name(n->dtype()));
  out += ")";
}
}  // namespace

std::string expr_string(Ref root, int max_depth) {
  std::string out;
  expr_rec(root, max_depth, out);
  return out;
}

}  // namespace rawgpu::compiler
