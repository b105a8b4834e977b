// The lazy Tensor API: graph building with shape/dtype checks, realize through the scheduler.
#include "rawgpu/frontend/tensor.h"
#include "rawgpu/base/env.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numbers>
#include <unordered_map>
#include <unordered_set>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/ir.h"
#include "rawgpu/compiler/schedule.h"
#include "rawgpu/compiler/search.h"

namespace rawgpu::frontend {

using compiler::CpuBuffer;
using compiler::Op;
using compiler::Ref;

struct Tensor::Impl {
  Ref node;
  Shape shape;
  Device* device = nullptr;
  std::vector<std::shared_ptr<Impl>> srcs;  // impls whose nodes this graph reads
  std::shared_ptr<Buffer> buf;              // once realized
  Ref buf_node;                             // the BUFFER node of buf
};

namespace {

struct Global {
  compiler::Context ctx;
  int64_t next_uid = 1;
  uint64_t seed = 0x5eed;
  uint64_t rng_counter = 0;
  Stats stats;
};
Global& g() {
  static Global* gl = new Global();  // never destroyed: tensors may outlive static destructors
  return *gl;
}

std::string dt(DType t) { return std::string(compiler::dtype_name(t)); }
std::string shp(const Shape& s) { return compiler::shape_string(s); }

}  // namespace

const Stats& stats() { return g().stats; }

// ---- op building helpers ------------------------------------------------------------------------
// The most elements a tensor may have: numel * itemsize (at most 8) stays below 2^63.
constexpr int64_t kMaxNumel = int64_t{1} << 60;
// Empty when the shape's element count is within kMaxNumel, else why not (overflow-checked: a
// product that wraps, e.g. 2^32 * 2^32 = 0 in 64 bits, is caught).
std::string numel_problem(std::span<const int64_t> s) {
  if (std::any_of(s.begin(), s.end(), [](int64_t d) { return d <= 0; }))
    return {};  // empty (or a negative dimension, which the callers that check report)
  uint64_t n = 1;
  for (int64_t d : s) {
    const Result<uint64_t> m = checked_mul(n, uint64_t(d));
    if (!m || *m > uint64_t(kMaxNumel))
      return "shape " + shp(Shape(s.begin(), s.end())) +
             " has more than 2^60 elements (the product of its dimensions overflows the "
             "tensor size limit)";
    n = *m;
  }
  return {};
}

struct Ops {
  using ImplP = std::shared_ptr<Tensor::Impl>;
  static const Tensor::Impl& I(const Tensor& t) { return *t.impl_; }

  static Tensor make(Ref node, Device* dev, std::vector<ImplP> srcs) {
    auto s = node->shape();
    RG_CHECK(s.has_value(), "frontend built an ill-shaped node: %s",
             compiler::tensor_shape_problem(node).c_str());
    if (std::string why = numel_problem(*s); !why.empty()) return err(Errc::kOverflow, why);
    auto im = std::make_shared<Tensor::Impl>();
    im->node = node;
    im->shape.assign(s->begin(), s->end());
    im->device = dev;
    // Keep only unrealized-graph or buffer owners alive: dedupe sources.
    for (auto& p : srcs) {
      if (std::find(im->srcs.begin(), im->srcs.end(), p) == im->srcs.end()) im->srcs.push_back(p);
    }
    return Tensor(std::move(im));
  }
  // A tensor computed from one source's graph (unary op, movement).
  static Tensor derive(const Tensor& a, Ref node) { return make(node, I(a).device, {a.impl_}); }
  static Tensor derive2(const Tensor& a, const Tensor& b, Ref node) {
    return make(node, I(a).device, {a.impl_, b.impl_});
  }
  static Tensor err(Errc c, std::string msg) { return Tensor(Error(c, std::move(msg))); }
};

#define RG_TENSOR_OK(...)                     \
  do {                                        \
    for (const Tensor* rg_t_ : {__VA_ARGS__}) \
      if (!rg_t_->ok()) return *rg_t_;        \
  } while (0)

Tensor::Tensor() : err_(std::make_shared<Error>(Errc::kInvalidArgument, "uninitialised tensor")) {}
Tensor::Tensor(Error e) : err_(std::make_shared<Error>(std::move(e))) {}

Status Tensor::status() const {
  if (impl_) return ok_status();
  return *err_;
}
const Shape& Tensor::shape() const {
  static const Shape kEmpty;
  return impl_ ? impl_->shape : kEmpty;
}
int64_t Tensor::numel() const { return compiler::shape_numel(shape()); }
DType Tensor::dtype() const { return impl_ ? impl_->node->dtype() : DType::kVoid; }
std::string Tensor::device() const { return impl_ ? std::string(impl_->device->name()) : ""; }
std::string Tensor::to_string() const {
  if (!impl_) return "Tensor(error: " + err_->to_string() + ")";
  return "Tensor(" + dt(dtype()) + ", " + shp(shape()) + ", " + device() + ")";
}
const void* Tensor::graph_node() const { return impl_ ? impl_->node.get() : nullptr; }

namespace {

compiler::Context& C() { return g().ctx; }

bool storable(DType t) { return t != DType::kVoid && t != DType::kIndex && !compiler::is_weak(t); }

Result<Device*> device_for(std::string_view name) { return get_device(name); }

Status check_shape(const Shape& s, const char* what) {
  for (int64_t d : s)
    if (d < 0)
      return make_error(Errc::kInvalidArgument, "%s: negative dimension in shape %s", what,
                        shp(s).c_str());
  if (std::string why = numel_problem(s); !why.empty())
    return make_error(Errc::kOverflow, "%s: %s", what, why.c_str());
  return ok_status();
}

Ref scalar(double v, DType t) {
  if (t == DType::kBool) return C().cbool(v != 0);
  return C().cconst(v, t);
}

// A constant broadcast to shape.
Ref const_node(double v, DType t, const Shape& shape) {
  Ref c = scalar(v, t);
  if (shape.empty()) return c;
  Shape ones(shape.size(), 1);
  return compiler::tensor_expand(compiler::tensor_reshape(c, ones), shape);
}

Result<int64_t> norm_axis(int64_t axis, int64_t ndim, const char* op, const Shape& s) {
  if (axis < -ndim || axis >= ndim)
    return make_error(Errc::kOutOfRange, "%s: axis %lld out of range for shape %s", op,
                      static_cast<long long>(axis), shp(s).c_str());
  return axis < 0 ? axis + ndim : axis;
}

}  // namespace

// ---- creation ----------------------------------------------------------------------------------
Tensor Tensor::full(const Shape& shape, double value, DType dtype, std::string_view device) {
  auto dev = device_for(device);
  if (!dev.ok()) return Tensor(std::move(dev).take_error());
  if (auto s = check_shape(shape, "full"); !s.ok()) return Tensor(std::move(s).take_error());
  if (!storable(dtype))
    return Ops::err(Errc::kUnsupported, "full: dtype " + dt(dtype) + " cannot be stored");
  return Ops::make(const_node(value, dtype, shape), *dev, {});
}
Tensor Tensor::empty(const Shape& shape, DType dtype, std::string_view device) {
  return full(shape, 0, dtype, device);
}
Tensor Tensor::zeros(const Shape& shape, DType dtype, std::string_view device) {
  return full(shape, 0, dtype, device);
}
Tensor Tensor::ones(const Shape& shape, DType dtype, std::string_view device) {
  return full(shape, 1, dtype, device);
}
Tensor Tensor::to(std::string_view device) const {
  RG_TENSOR_OK(this);
  auto dev = device_for(device);
  if (!dev.ok()) return Tensor(std::move(dev).take_error());
  if (*dev == impl_->device) return *this;
  std::vector<std::byte> raw(size_t(numel()) * size_t(compiler::itemsize(dtype())));
  if (auto st = copy_to_host(raw); !st.ok()) return Tensor(std::move(st).take_error());
  return from_bytes(raw, shape(), dtype(), (*dev)->name());
}

Tensor Tensor::full_like(double value, std::optional<DType> dtype) const {
  RG_TENSOR_OK(this);
  const DType t = dtype.value_or(this->dtype());
  return Ops::make(const_node(value, t, shape()), impl_->device, {});
}

Tensor Tensor::arange(double start, double stop, double step, DType dtype,
                      std::string_view device) {
  auto dev = device_for(device);
  if (!dev.ok()) return Tensor(std::move(dev).take_error());
  if (step == 0 || !std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    return Ops::err(Errc::kInvalidArgument,
                    strformat("arange(%g, %g, %g): step must be non-zero and bounds finite", start,
                              stop, step));
  if (!storable(dtype)) return Ops::err(Errc::kUnsupported, "arange: dtype " + dt(dtype));
  const double count = std::ceil((stop - start) / step);  // may exceed int64 (1e19)
  if (!(count <= double(kMaxNumel)))
    return Ops::err(Errc::kOverflow,
                    strformat("arange(%g, %g, %g): %g elements, more than the 2^60 a tensor may "
                              "have",
                              start, stop, step, count));
  const int64_t n = std::max<int64_t>(0, int64_t(count));
  if (n > 0 && !compiler::is_float(dtype)) {
    const double last = start + double(n - 1) * step;
    const double lo = double(compiler::dtype_min(dtype)), hi = double(compiler::dtype_max(dtype));
    if (std::min(start, last) < lo || std::max(start, last) > hi)
      return Ops::err(Errc::kOutOfRange,
                      strformat("arange(%g, %g, %g): values up to %g do not fit %s; pass a wider "
                                "dtype (int64)",
                                start, stop, step, std::abs(last) > std::abs(start) ? last : start,
                                dt(dtype).c_str()));
  }
  const DType ct = compiler::is_float(dtype) ? DType::kFloat64 : DType::kInt64;
  Ref i = compiler::tensor_iota(C(), n, ct);
  Ref v = C().make(
      Op::kAdd, ct,
      {C().make(Op::kMul, ct, {i, const_node(step, ct, {n})}), const_node(start, ct, {n})});
  if (ct != dtype) v = compiler::cast(v, dtype);
  return Ops::make(v, *dev, {});
}

Tensor Tensor::eye(int64_t n, DType dtype, std::string_view device) {
  Tensor r = arange(0, double(n), 1, DType::kInt32, device);
  if (!r.ok()) return r;
  if (n < 0) return Ops::err(Errc::kInvalidArgument, "eye: negative size");
  return r.reshape({n, 1}).eq(r.reshape({1, n})).cast(dtype);
}

Tensor Tensor::from_bytes(std::span<const std::byte> bytes, const Shape& shape, DType dtype,
                          std::string_view device) {
  auto dev = device_for(device);
  if (!dev.ok()) return Tensor(std::move(dev).take_error());
  if (auto s = check_shape(shape, "from_bytes"); !s.ok()) return Tensor(std::move(s).take_error());
  if (!storable(dtype))
    return Ops::err(Errc::kUnsupported, "from_bytes: dtype " + dt(dtype) + " cannot be stored");
  const int64_t n = compiler::shape_numel(shape);
  if (bytes.size() != size_t(n) * size_t(compiler::itemsize(dtype)))
    return Ops::err(Errc::kInvalidArgument,
                    strformat("from_bytes: %zu bytes for shape %s of %s (need %lld)", bytes.size(),
                              shp(shape).c_str(), dt(dtype).c_str(),
                              static_cast<long long>(n * compiler::itemsize(dtype))));
  auto bufr = (*dev)->alloc(dtype, size_t(n));
  if (!bufr.ok()) return Tensor(std::move(bufr).take_error());
  std::shared_ptr<Buffer> buf = std::move(bufr).take_value();
  if (auto st = buf->copy_in(bytes); !st.ok()) return Tensor(std::move(st).take_error());
  auto im = std::make_shared<Impl>();
  im->buf = buf;
  im->buf_node = compiler::tensor_buffer(C(), dtype, g().next_uid++, n);
  im->node = shape.size() == 1 ? im->buf_node : compiler::tensor_reshape(im->buf_node, shape);
  im->shape = shape;
  im->device = *dev;
  return Tensor(std::move(im));
}

// ---- random ------------------------------------------------------------------------------------
void Tensor::manual_seed(uint64_t seed) {
  g().seed = seed;
  g().rng_counter = 0;
}

namespace {
// Threefry 2x32, 20 rounds, on uint32 graphs of shape (n).
std::pair<Ref, Ref> threefry(Ref x0, Ref x1, uint32_t k0, uint32_t k1, int64_t n) {
  const DType u = DType::kUInt32;
  auto k = [&](uint64_t v) { return const_node(double(v & 0xffffffffu), u, {n}); };
  auto add = [&](Ref a, Ref b) { return C().make(Op::kAdd, u, {a, b}); };
  auto rotl = [&](Ref a, int r) {
    return C().make(Op::kOr, u,
                    {C().make(Op::kShl, u, {a, k(uint64_t(r))}),
                     C().make(Op::kShr, u, {a, k(uint64_t(32 - r))})});
  };
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  x0 = add(x0, k(ks[0]));
  x1 = add(x1, k(ks[1]));
  for (int r = 0; r < 20; ++r) {
    x0 = add(x0, x1);
    x1 = rotl(x1, rot[r % 8]);
    x1 = C().make(Op::kXor, u, {x1, x0});
    if (r % 4 == 3) {
      const int j = r / 4 + 1;
      x0 = add(x0, k(ks[j % 3]));
      x1 = add(x1, k(uint64_t(ks[(j + 1) % 3]) + uint64_t(j)));
    }
  }
  return {x0, x1};
}

// Two streams of random uint32 bits for n elements (consumes one call counter).
std::pair<Ref, Ref> random_bits(int64_t n) {
  const uint64_t call = g().rng_counter++;
  Ref ctr = compiler::tensor_iota(C(), n, DType::kUInt32);
  Ref hi = const_node(double(call & 0xffffffffu), DType::kUInt32, {n});
  return threefry(ctr, hi, uint32_t(g().seed), uint32_t(g().seed >> 32) ^ uint32_t(call >> 32), n);
}

// uniform [0, 1) float32 from 32 random bits (23 mantissa bits).
Ref uniform01(Ref bits, int64_t n) {
  const DType u = DType::kUInt32;
  Ref m = C().make(Op::kOr, u,
                   {C().make(Op::kShr, u, {bits, const_node(9, u, {n})}),
                    const_node(double(0x3f800000u), u, {n})});
  Ref f = C().make(Op::kBitcast, DType::kFloat32, {m});
  return C().make(Op::kSub, DType::kFloat32, {f, const_node(1.0, DType::kFloat32, {n})});
}
}  // namespace

Tensor Tensor::rand(const Shape& shape, DType dtype) {
  if (auto s = check_shape(shape, "rand"); !s.ok()) return Tensor(std::move(s).take_error());
  if (!compiler::is_float(dtype))
    return Ops::err(Errc::kUnsupported, "rand: dtype " + dt(dtype) + " is not a float type");
  const int64_t n = compiler::shape_numel(shape);
  Ref v = uniform01(random_bits(n).first, n);
  if (dtype != DType::kFloat32) v = compiler::cast(v, dtype);
  auto dev = get_device({});
  if (!dev.ok()) return Tensor(std::move(dev).take_error());
  return Ops::make(v, *dev, {}).reshape(shape);
}

Tensor Tensor::randn(const Shape& shape, DType dtype) {
  if (auto s = check_shape(shape, "randn"); !s.ok()) return Tensor(std::move(s).take_error());
  if (!compiler::is_float(dtype))
    return Ops::err(Errc::kUnsupported, "randn: dtype " + dt(dtype) + " is not a float type");
  const int64_t n = compiler::shape_numel(shape);
  auto [b0, b1] = random_bits(n);
  auto dev = get_device({});
  if (!dev.ok()) return Tensor(std::move(dev).take_error());
  Tensor u1 = Ops::make(uniform01(b0, n), *dev, {}), u2 = Ops::make(uniform01(b1, n), *dev, {});
  Tensor z = ((1.0 - u1).log() * -2.0).sqrt() * (u2 * (2 * std::numbers::pi)).cos();
  return z.cast(dtype).reshape(shape);
}

Tensor Tensor::randint(const Shape& shape, int64_t low, int64_t high, DType dtype) {
  if (auto s = check_shape(shape, "randint"); !s.ok()) return Tensor(std::move(s).take_error());
  if (!compiler::is_int(dtype))
    return Ops::err(Errc::kUnsupported, "randint: dtype " + dt(dtype) + " is not an integer type");
  if (high <= low || high - low > (int64_t(1) << 32) || low < compiler::dtype_min(dtype) ||
      high - 1 > compiler::dtype_max(dtype))
    return Ops::err(
        Errc::kInvalidArgument,
        strformat("randint: empty or unrepresentable range [%lld, %lld) for %s",
                  static_cast<long long>(low), static_cast<long long>(high), dt(dtype).c_str()));
  const int64_t n = compiler::shape_numel(shape);
  Ref bits = compiler::cast(random_bits(n).first, DType::kInt64);
  Ref r =
      C().make(Op::kMod, DType::kInt64, {bits, const_node(double(high - low), DType::kInt64, {n})});
  r = C().make(Op::kAdd, DType::kInt64, {r, const_node(double(low), DType::kInt64, {n})});
  auto dev = get_device({});
  if (!dev.ok()) return Tensor(std::move(dev).take_error());
  return Ops::make(compiler::cast(r, dtype), *dev, {}).reshape(shape);
}

// ---- broadcasting + elementwise ----------------------------------------------------------------
namespace {
Result<Shape> broadcast_shape(const Shape& a, const Shape& b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      return make_error(Errc::kInvalidArgument, "%s: shapes %s and %s cannot broadcast", op,
                        shp(a).c_str(), shp(b).c_str());
    out[i] = da == 1 ? db : da;
  }
  return out;
}
}  // namespace

namespace {
Status same_device(const Tensor& a, const Tensor& b, const char* op) {
  if (a.device() != b.device())
    return make_error(Errc::kInvalidArgument, "%s: tensors on devices '%s' and '%s'", op,
                      a.device().c_str(), b.device().c_str());
  return ok_status();
}

// kinds: which dtypes an op accepts.
enum class Want { kAny, kFloat, kIntOrBool, kBool };

Tensor binary_op(const Tensor& a, const Tensor& b, Op op, const char* name, Want want,
                 bool result_bool = false) {
  RG_TENSOR_OK(&a, &b);
  if (auto s = same_device(a, b, name); !s.ok()) return Tensor(std::move(s).take_error());
  auto shape = broadcast_shape(a.shape(), b.shape(), name);
  if (!shape.ok()) return Tensor(std::move(shape).take_error());
  auto t = compiler::promote(a.dtype(), b.dtype());
  if (t && want == Want::kFloat) t = compiler::promote_float(*t);
  if (!t || !storable(*t))
    return Ops::err(Errc::kUnsupported, strformat("%s: no common dtype for %s and %s", name,
                                                  dt(a.dtype()).c_str(), dt(b.dtype()).c_str()));
  if (want == Want::kIntOrBool && compiler::is_float(*t))
    return Ops::err(Errc::kUnsupported,
                    strformat("%s: needs integer or bool operands, got %s", name, dt(*t).c_str()));
  if (want == Want::kBool && *t != DType::kBool)
    return Ops::err(Errc::kUnsupported,
                    strformat("%s: needs bool operands, got %s", name, dt(*t).c_str()));
  Tensor x = a.cast(*t).expand(*shape), y = b.cast(*t).expand(*shape);
  RG_TENSOR_OK(&x, &y);
  Ref n = C().make(op, result_bool ? DType::kBool : *t, {Ops::I(x).node, Ops::I(y).node});
  return Ops::derive2(x, y, n);
}

Tensor unary_op(const Tensor& a, Op op, bool to_float) {
  RG_TENSOR_OK(&a);
  Tensor x = to_float ? a.cast(*compiler::promote_float(a.dtype())) : a;
  return Ops::derive(x, C().make(op, x.dtype(), {Ops::I(x).node}));
}

Tensor scalar_like(const Tensor& a, double v) {
  if (!a.ok()) return a;
  const bool integral = std::floor(v) == v && std::isfinite(v);
  auto t = compiler::promote(a.dtype(), integral ? DType::kWeakInt : DType::kWeakFloat);
  DType r = t && storable(*t) ? *t : (integral ? compiler::kDefaultInt : compiler::kDefaultFloat);
  if (a.dtype() == DType::kBool && integral) r = compiler::kDefaultInt;
  return a.full_like(v, r);
}
}  // namespace

Tensor Tensor::add(const Tensor& o) const {
  return binary_op(*this, o, Op::kAdd, "add", Want::kAny);
}
Tensor Tensor::sub(const Tensor& o) const {
  return binary_op(*this, o, Op::kSub, "sub", Want::kAny);
}
Tensor Tensor::mul(const Tensor& o) const {
  return binary_op(*this, o, Op::kMul, "mul", Want::kAny);
}
Tensor Tensor::div(const Tensor& o) const {
  return binary_op(*this, o, Op::kFDiv, "div", Want::kFloat);
}
Tensor Tensor::pow(const Tensor& o) const {
  return binary_op(*this, o, Op::kPow, "pow", Want::kFloat);
}
Tensor Tensor::maximum(const Tensor& o) const {
  return binary_op(*this, o, Op::kMax, "maximum", Want::kAny);
}
Tensor Tensor::minimum(const Tensor& o) const {
  RG_TENSOR_OK(this, &o);
  const DType rt = binary_op(*this, o, Op::kMax, "minimum", Want::kAny).dtype();
  // A NaN on either side is the result (as maximum: llvm.maximum), in either argument order.
  Tensor pick_self = lt(o);
  if (compiler::is_float(rt)) pick_self = pick_self.logical_or(ne(*this));
  return where(pick_self, *this, o).cast(rt);
}
Tensor Tensor::lt(const Tensor& o) const {
  return binary_op(*this, o, Op::kCmpLt, "lt", Want::kAny, true);
}
Tensor Tensor::gt(const Tensor& o) const {
  return binary_op(o, *this, Op::kCmpLt, "gt", Want::kAny, true);
}
// IEEE: every ordered comparison with a NaN is false, so a <= b is (a < b) | (a == b), never
// !(a > b) (LLVM folds the pair into one ordered compare).
Tensor Tensor::le(const Tensor& o) const { return lt(o).logical_or(eq(o)); }
Tensor Tensor::ge(const Tensor& o) const { return gt(o).logical_or(eq(o)); }
Tensor Tensor::eq(const Tensor& o) const {
  return binary_op(*this, o, Op::kCmpEq, "eq", Want::kAny, true);
}
Tensor Tensor::ne(const Tensor& o) const {
  return binary_op(*this, o, Op::kCmpNe, "ne", Want::kAny, true);
}
Tensor Tensor::logical_and(const Tensor& o) const {
  return binary_op(cast(DType::kBool), o.cast(DType::kBool), Op::kAnd, "logical_and", Want::kBool);
}
Tensor Tensor::logical_or(const Tensor& o) const {
  return binary_op(cast(DType::kBool), o.cast(DType::kBool), Op::kOr, "logical_or", Want::kBool);
}
Tensor Tensor::logical_xor(const Tensor& o) const {
  return binary_op(cast(DType::kBool), o.cast(DType::kBool), Op::kXor, "logical_xor", Want::kBool);
}
Tensor Tensor::logical_not() const {
  Tensor b = cast(DType::kBool);
  RG_TENSOR_OK(&b);
  return Ops::derive(b, C().make(Op::kCmpNe, DType::kBool,
                                 {Ops::I(b).node, const_node(1, DType::kBool, shape())}));
}
Tensor Tensor::bitwise_and(const Tensor& o) const {
  return binary_op(*this, o, Op::kAnd, "bitwise_and", Want::kIntOrBool);
}
Tensor Tensor::bitwise_or(const Tensor& o) const {
  return binary_op(*this, o, Op::kOr, "bitwise_or", Want::kIntOrBool);
}
Tensor Tensor::bitwise_xor(const Tensor& o) const {
  return binary_op(*this, o, Op::kXor, "bitwise_xor", Want::kIntOrBool);
}

Tensor Tensor::where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  RG_TENSOR_OK(&cond, &a, &b);
  if (auto s = same_device(cond, a, "where"); !s.ok()) return Tensor(std::move(s).take_error());
  if (auto s = same_device(a, b, "where"); !s.ok()) return Tensor(std::move(s).take_error());
  auto s1 = broadcast_shape(a.shape(), b.shape(), "where");
  if (!s1.ok()) return Tensor(std::move(s1).take_error());
  auto s2 = broadcast_shape(cond.shape(), *s1, "where");
  if (!s2.ok()) return Tensor(std::move(s2).take_error());
  auto t = compiler::promote(a.dtype(), b.dtype());
  if (!t || !storable(*t))
    return Ops::err(Errc::kUnsupported,
                    "where: no common dtype for " + dt(a.dtype()) + " and " + dt(b.dtype()));
  Tensor c = cond.cast(DType::kBool).expand(*s2), x = a.cast(*t).expand(*s2),
         y = b.cast(*t).expand(*s2);
  RG_TENSOR_OK(&c, &x, &y);
  Ref n = C().make(Op::kWhere, *t, {Ops::I(c).node, Ops::I(x).node, Ops::I(y).node});
  return Ops::make(n, Ops::I(x).device, {c.impl_, x.impl_, y.impl_});
}

Tensor Tensor::neg() const {
  RG_TENSOR_OK(this);
  if (dtype() == DType::kBool) return logical_not();
  return unary_op(*this, Op::kNeg, false);
}
Tensor Tensor::abs() const {
  RG_TENSOR_OK(this);
  if (!compiler::is_float(dtype()) && !compiler::is_signed_int(dtype())) return *this;
  return where(lt(full_like(0)), neg(), *this);
}
// 16-bit floats (float16, bfloat16): the transcendental ops and the activations built from them
// compute in float32 and round to the input's type once, at the end (PyTorch's "opmath"). In 16
// bits every step of a composite rounds: the constants (log2 e becomes 1.4424, pi/2 1.5703), the
// scaled arguments, and the cancellations in cos, tanh and gelu. Measured over every float16
// input before this: exp 3 ulp at 2.953, cos 3062 ulp at 1.5713, tanh 2559 ulp near 0, gelu 135
// ulp at -2.98, sin on the GPUs 9.9 ulp. `f` runs once, on float32 for 16-bit inputs (the
// composites inside it then see float32 and do not convert again).
namespace {
bool is_float16ish(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }
template <class F>
Tensor opmath(const Tensor& t, F&& f) {
  RG_TENSOR_OK(&t);
  if (!is_float16ish(t.dtype())) return f(t);
  return f(t.cast(DType::kFloat32)).cast(t.dtype());
}
}  // namespace
Tensor Tensor::exp2() const {
  return opmath(*this, [](const Tensor& x) { return unary_op(x, Op::kExp2, true); });
}
Tensor Tensor::log2() const {
  return opmath(*this, [](const Tensor& x) { return unary_op(x, Op::kLog2, true); });
}
Tensor Tensor::sqrt() const {
  return opmath(*this, [](const Tensor& x) { return unary_op(x, Op::kSqrt, true); });
}
Tensor Tensor::sin() const {
  return opmath(*this, [](const Tensor& x) { return unary_op(x, Op::kSin, true); });
}
Tensor Tensor::reciprocal() const {
  return opmath(*this, [](const Tensor& x) { return unary_op(x, Op::kRecip, true); });
}
// exp(x) = exp2(x log2 e), log(x) = log2(x) ln 2.
Tensor Tensor::exp() const {
  return opmath(*this, [](const Tensor& x) { return (x * (1.0 / std::numbers::ln2)).exp2(); });
}
Tensor Tensor::log() const {
  return opmath(*this, [](const Tensor& x) { return x.log2() * std::numbers::ln2; });
}
Tensor Tensor::rsqrt() const {
  return opmath(*this, [](const Tensor& x) { return x.sqrt().reciprocal(); });
}
Tensor Tensor::cos() const {
  return opmath(*this, [](const Tensor& x) {
    return (x.cast(*compiler::promote_float(x.dtype())) + std::numbers::pi / 2).sin();
  });
}
Tensor Tensor::tan() const {
  return opmath(*this, [](const Tensor& x) { return x.sin() / x.cos(); });
}
Tensor Tensor::relu() const { return maximum(full_like(0)); }
Tensor Tensor::leaky_relu(double slope) const {
  RG_TENSOR_OK(this);
  return where(gt(full_like(0)), *this, *this * slope);
}
Tensor Tensor::sigmoid() const {
  return opmath(*this, [](const Tensor& x) { return (1.0 + x.neg().exp()).reciprocal(); });
}
Tensor Tensor::tanh() const {
  return opmath(*this, [](const Tensor& x) { return (x * 2.0).sigmoid() * 2.0 - 1.0; });
}
Tensor Tensor::gelu() const {
  return opmath(*this, [](const Tensor& x) {
    const double k = std::sqrt(2.0 / std::numbers::pi);
    return x * 0.5 * (1.0 + ((x + x * x * x * 0.044715) * k).tanh());
  });
}
Tensor Tensor::silu() const {
  return opmath(*this, [](const Tensor& x) { return x * x.sigmoid(); });
}

Tensor Tensor::cast(DType t) const {
  RG_TENSOR_OK(this);
  if (!storable(t))
    return Ops::err(Errc::kUnsupported, "cast of " + shp(shape()) + " " + dt(dtype()) + " to " +
                                            dt(t) + ": not a storable dtype");
  if (t == dtype()) return *this;
  return Ops::derive(*this, compiler::cast(impl_->node, t));
}
Tensor Tensor::bitcast(DType t) const {
  RG_TENSOR_OK(this);
  if (!storable(t) || t == DType::kBool || dtype() == DType::kBool ||
      compiler::itemsize(t) != compiler::itemsize(dtype()))
    return Ops::err(Errc::kUnsupported,
                    "bitcast of " + dt(dtype()) + " to " + dt(t) + ": sizes differ or bool");
  if (t == dtype()) return *this;
  return Ops::derive(*this, C().make(Op::kBitcast, t, {impl_->node}));
}

Tensor operator+(const Tensor& a, const Tensor& b) { return a.add(b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return a.sub(b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return a.mul(b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return a.div(b); }
Tensor operator-(const Tensor& a) { return a.neg(); }
Tensor operator+(const Tensor& a, double b) { return a.add(scalar_like(a, b)); }
Tensor operator-(const Tensor& a, double b) { return a.sub(scalar_like(a, b)); }
Tensor operator*(const Tensor& a, double b) { return a.mul(scalar_like(a, b)); }
Tensor operator/(const Tensor& a, double b) { return a.div(scalar_like(a, b)); }
Tensor operator+(double a, const Tensor& b) { return scalar_like(b, a).add(b); }
Tensor operator-(double a, const Tensor& b) { return scalar_like(b, a).sub(b); }
Tensor operator*(double a, const Tensor& b) { return scalar_like(b, a).mul(b); }
Tensor operator/(double a, const Tensor& b) { return scalar_like(b, a).div(b); }

// ---- reductions ---------------------------------------------------------------------------------
namespace {
Result<Axes> norm_axes(const Axes& axes, const Shape& s, const char* op) {
  Axes out;
  const int64_t nd = int64_t(s.size());
  if (axes.empty())
    for (int64_t i = 0; i < nd; ++i) out.push_back(i);
  for (int64_t a : axes) {
    if (a < -nd || a >= nd)
      return make_error(Errc::kOutOfRange, "%s: axis %lld out of range for shape %s", op,
                        static_cast<long long>(a), shp(s).c_str());
    const int64_t n = a < 0 ? a + nd : a;
    if (std::find(out.begin(), out.end(), n) != out.end())
      return make_error(Errc::kInvalidArgument, "%s: axis %lld repeated for shape %s", op,
                        static_cast<long long>(a), shp(s).c_str());
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Tensor reduce_op(const Tensor& x, Op op, const Axes& axes, bool keepdim, const char* name) {
  RG_TENSOR_OK(&x);
  auto ax = norm_axes(axes, x.shape(), name);
  if (!ax.ok()) return Tensor(std::move(ax).take_error());
  Tensor r = Ops::derive(x, compiler::tensor_reduce(Ops::I(x).node, op, *ax));
  if (keepdim) return r;
  Shape s;
  for (size_t i = 0; i < x.shape().size(); ++i)
    if (std::find(ax->begin(), ax->end(), int64_t(i)) == ax->end()) s.push_back(x.shape()[i]);
  return r.reshape(s);
}

DType acc_dtype(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kInt16: return DType::kInt32;
    case DType::kUInt8:
    case DType::kUInt16: return DType::kUInt32;
    case DType::kFloat16:
    case DType::kBFloat16: return DType::kFloat32;
    default: return t;
  }
}

// ~x: order-reversing on every integer dtype and never overflows (unlike -x at the minimum of
// a signed type). Unsigned types go through their signed twin (all-ones is -1 there).
Tensor bitnot(const Tensor& x) {
  const DType t = x.dtype();
  if (t == DType::kBool) return x.logical_not();
  if (compiler::is_signed_int(t)) return x.bitwise_xor(x.full_like(-1));
  DType s = DType::kInt64;
  switch (t) {
    case DType::kUInt8: s = DType::kInt8; break;
    case DType::kUInt16: s = DType::kInt16; break;
    case DType::kUInt32: s = DType::kInt32; break;
    default: break;
  }
  const Tensor y = x.bitcast(s);
  return y.bitwise_xor(y.full_like(-1)).bitcast(t);
}

int64_t reduced_count(const Tensor& x, const Axes& axes) {
  auto ax = norm_axes(axes, x.shape(), "count");
  if (!ax.ok()) return 1;
  int64_t n = 1;
  for (int64_t a : *ax) n *= x.shape()[size_t(a)];
  return n;
}
}  // namespace

Tensor Tensor::sum(const Axes& axes, bool keepdim) const {
  RG_TENSOR_OK(this);
  const DType a = acc_dtype(dtype());
  Tensor r = reduce_op(cast(a), Op::kAdd, axes, keepdim, "sum");
  return compiler::is_float(dtype()) ? r.cast(dtype()) : r;
}
Tensor Tensor::prod(const Axes& axes, bool keepdim) const {
  RG_TENSOR_OK(this);
  const DType a = acc_dtype(dtype());
  Tensor r = reduce_op(cast(a), Op::kMul, axes, keepdim, "prod");
  return compiler::is_float(dtype()) ? r.cast(dtype()) : r;
}
Tensor Tensor::max(const Axes& axes, bool keepdim) const {
  return reduce_op(*this, Op::kMax, axes, keepdim, "max");
}
Tensor Tensor::min(const Axes& axes, bool keepdim) const {
  RG_TENSOR_OK(this);
  if (compiler::is_float(dtype())) return neg().max(axes, keepdim).neg();
  return bitnot(bitnot(*this).max(axes, keepdim));  // integers: exact at the type's minimum
}
Tensor Tensor::mean(const Axes& axes, bool keepdim) const {
  RG_TENSOR_OK(this);
  Tensor x = cast(*compiler::promote_float(dtype()));
  const int64_t n = reduced_count(*this, axes);
  return x.sum(axes, keepdim) / double(std::max<int64_t>(n, 1)) * (n == 0 ? NAN : 1.0);
}
Tensor Tensor::var(const Axes& axes, bool keepdim, int64_t correction) const {
  RG_TENSOR_OK(this);
  Tensor x = cast(*compiler::promote_float(dtype()));
  Tensor m = x.mean(axes, true);
  Tensor d = x - m;
  const int64_t n = reduced_count(*this, axes);
  return (d * d).sum(axes, keepdim) / double(std::max<int64_t>(n - correction, 0));
}
Tensor Tensor::std(const Axes& axes, bool keepdim, int64_t correction) const {
  return var(axes, keepdim, correction).sqrt();
}
Tensor Tensor::argmax(std::optional<int64_t> axis, bool keepdim) const {
  RG_TENSOR_OK(this);
  if (!axis) {
    Tensor r = flatten().argmax(0, false);
    return keepdim ? r.reshape(Shape(shape().size(), 1)) : r;
  }
  auto a = norm_axis(*axis, ndim(), "argmax", shape());
  if (!a.ok()) return Tensor(std::move(a).take_error());
  const int64_t n = shape()[size_t(*a)];
  if (n == 0)
    return Ops::err(Errc::kInvalidArgument, "argmax: empty axis in shape " + shp(shape()));
  Tensor m = max({*a}, true);
  Shape is(shape().size(), 1);
  is[size_t(*a)] = n;
  Tensor idx = arange(0, double(n), 1, DType::kInt32, device()).reshape(is);
  // The first maximum; for floats the first NaN (max propagates NaN; NaN == NaN is false).
  Tensor hit = eq(m);
  if (compiler::is_float(dtype())) hit = hit.logical_or(ne(*this));
  Tensor cand = where(hit, double(n) - idx, full_like(0, DType::kInt32));
  return double(n) - cand.max({*a}, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> axis, bool keepdim) const {
  RG_TENSOR_OK(this);
  if (compiler::is_float(dtype())) return neg().argmax(axis, keepdim);
  return bitnot(*this).argmax(axis, keepdim);
}

// ---- movement -----------------------------------------------------------------------------------
Tensor Tensor::reshape(const Shape& shape_in) const {
  RG_TENSOR_OK(this);
  Shape s = shape_in;
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer >= 0)
        return Ops::err(Errc::kInvalidArgument, "reshape of " + shp(shape()) + " to " +
                                                    shp(shape_in) + ": more than one -1");
      infer = int64_t(i);
    } else if (s[i] < 0) {
      return Ops::err(Errc::kInvalidArgument, "reshape of " + shp(shape()) + " to " +
                                                  shp(shape_in) + ": negative dimension");
    } else {
      known *= s[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel() % known != 0)
      return Ops::err(Errc::kInvalidArgument,
                      "reshape of " + shp(shape()) + " to " + shp(shape_in) + ": cannot infer -1");
    s[size_t(infer)] = numel() / known;
  }
  if (compiler::shape_numel(s) != numel())
    return Ops::err(
        Errc::kInvalidArgument,
        strformat("reshape of %s (%lld elements) to %s: element counts differ",
                  shp(shape()).c_str(), static_cast<long long>(numel()), shp(shape_in).c_str()));
  if (s == shape()) return *this;
  return Ops::derive(*this, compiler::tensor_reshape(impl_->node, s));
}
Tensor Tensor::permute(const Axes& order) const {
  RG_TENSOR_OK(this);
  if (int64_t(order.size()) != ndim())
    return Ops::err(Errc::kInvalidArgument,
                    "permute of " + shp(shape()) + " by " + shp(order) + ": wrong number of axes");
  Axes p;
  for (int64_t a : order) {
    auto n = norm_axis(a, ndim(), "permute", shape());
    if (!n.ok()) return Tensor(std::move(n).take_error());
    if (std::find(p.begin(), p.end(), *n) != p.end())
      return Ops::err(Errc::kInvalidArgument,
                      "permute of " + shp(shape()) + " by " + shp(order) + ": repeated axis");
    p.push_back(*n);
  }
  bool id = true;
  for (size_t i = 0; i < p.size(); ++i) id = id && p[i] == int64_t(i);
  if (id) return *this;
  return Ops::derive(*this, compiler::tensor_permute(impl_->node, p));
}
Tensor Tensor::transpose(int64_t a, int64_t b) const {
  RG_TENSOR_OK(this);
  auto x = norm_axis(a, ndim(), "transpose", shape());
  if (!x.ok()) return Tensor(std::move(x).take_error());
  auto y = norm_axis(b, ndim(), "transpose", shape());
  if (!y.ok()) return Tensor(std::move(y).take_error());
  Axes p;
  for (int64_t i = 0; i < ndim(); ++i) p.push_back(i);
  std::swap(p[size_t(*x)], p[size_t(*y)]);
  return permute(p);
}
Tensor Tensor::expand(const Shape& to) const {
  RG_TENSOR_OK(this);
  if (to.size() < shape().size())
    return Ops::err(Errc::kInvalidArgument,
                    "expand of " + shp(shape()) + " to " + shp(to) + ": fewer dimensions");
  const size_t lead = to.size() - shape().size();
  Shape mid(lead, 1), out(to);
  mid.insert(mid.end(), shape().begin(), shape().end());
  for (size_t i = 0; i < to.size(); ++i) {
    if (to[i] == -1) {
      if (i < lead)
        return Ops::err(Errc::kInvalidArgument, "expand of " + shp(shape()) + " to " + shp(to) +
                                                    ": -1 for a new dimension");
      out[i] = mid[i];
    }
    if (out[i] < 0 || (mid[i] != out[i] && mid[i] != 1))
      return Ops::err(Errc::kInvalidArgument, "expand of " + shp(shape()) + " to " + shp(to) +
                                                  ": dimension " + std::to_string(i) +
                                                  " must be 1 or equal");
  }
  Tensor r = reshape(mid);
  if (out == mid) return r;
  return Ops::derive(r, compiler::tensor_expand(r.impl_->node, out));
}
Tensor Tensor::pad(const std::vector<std::pair<int64_t, int64_t>>& pads, double value) const {
  RG_TENSOR_OK(this);
  if (pads.size() > shape().size())
    return Ops::err(Errc::kInvalidArgument,
                    strformat("pad of %s: %zu pairs for %zu axes", shp(shape()).c_str(),
                              pads.size(), shape().size()));
  std::vector<int64_t> a;
  std::vector<std::pair<int64_t, int64_t>> shr;
  bool any = false, neg = false;
  for (size_t i = 0; i < shape().size(); ++i) {
    auto p = i < pads.size() ? pads[i] : std::pair<int64_t, int64_t>{0, 0};
    a.push_back(std::max<int64_t>(p.first, 0));
    a.push_back(std::max<int64_t>(p.second, 0));
    any = any || p.first > 0 || p.second > 0;
    neg = neg || p.first < 0 || p.second < 0;
    const int64_t dim = shape()[i] + a[a.size() - 2] + a.back();
    shr.push_back({std::max<int64_t>(-p.first, 0), dim - std::max<int64_t>(-p.second, 0)});
    if (shr.back().first > shr.back().second)
      return Ops::err(Errc::kInvalidArgument,
                      "pad of " + shp(shape()) + ": negative padding larger than the axis");
  }
  Tensor r = *this;
  if (any) r = Ops::derive(*this, compiler::tensor_pad(impl_->node, a, scalar(value, dtype())));
  return neg ? r.shrink(shr) : r;
}
Tensor Tensor::shrink(const std::vector<std::pair<int64_t, int64_t>>& ranges) const {
  RG_TENSOR_OK(this);
  if (ranges.size() != shape().size())
    return Ops::err(Errc::kInvalidArgument,
                    strformat("shrink of %s: %zu ranges for %zu axes", shp(shape()).c_str(),
                              ranges.size(), shape().size()));
  std::vector<int64_t> a;
  bool id = true;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto [b, e] = ranges[i];
    if (b < 0 || b > e || e > shape()[i])
      return Ops::err(Errc::kOutOfRange, strformat("shrink of %s: range [%lld, %lld) on axis %zu",
                                                   shp(shape()).c_str(), static_cast<long long>(b),
                                                   static_cast<long long>(e), i));
    id = id && b == 0 && e == shape()[i];
    a.push_back(b);
    a.push_back(e);
  }
  if (id) return *this;
  return Ops::derive(*this, compiler::tensor_shrink(impl_->node, a));
}
Tensor Tensor::slice(int64_t axis, int64_t start, int64_t stop, int64_t step) const {
  RG_TENSOR_OK(this);
  auto ax = norm_axis(axis, ndim(), "slice", shape());
  if (!ax.ok()) return Tensor(std::move(ax).take_error());
  if (step == 0) return Ops::err(Errc::kInvalidArgument, "slice: step 0");
  const int64_t n = shape()[size_t(*ax)];
  // Python's slice.indices().
  auto fix = [&](int64_t v, int64_t dflt, int64_t lo, int64_t hi) {
    if (v == kNone) return dflt;
    if (v < 0) v += n;
    return std::clamp(v, lo, hi);
  };
  int64_t b, e;
  if (step > 0) {
    b = fix(start, 0, 0, n);
    e = fix(stop, n, 0, n);
  } else {
    b = fix(start, n - 1, -1, n - 1);
    e = fix(stop, -1, -1, n - 1);
  }
  Tensor x = *this;
  int64_t len;
  if (step > 0) {
    len = e > b ? (e - b + step - 1) / step : 0;
  } else {
    len = b > e ? (b - e + (-step) - 1) / (-step) : 0;
    // reverse: index j of the flipped axis is n-1-j
    x = x.flip({*ax});
    b = n - 1 - b;
    step = -step;
  }
  const size_t A = size_t(*ax);
  std::vector<std::pair<int64_t, int64_t>> r;
  for (size_t i = 0; i < shape().size(); ++i) r.push_back({0, shape()[i]});
  if (len == 0) {
    r[A] = {0, 0};
    return x.shrink(r);
  }
  // elements b, b+step, ..., b+(len-1)*step: shrink [b, b+len*step) (padding past the end).
  const int64_t end = b + len * step;
  std::vector<std::pair<int64_t, int64_t>> pads(shape().size(), {0, 0});
  if (end > n) pads[A].second = end - n;
  x = x.pad(pads);
  r[A] = {b, end};
  x = x.shrink(r);
  if (step == 1) return x;
  Shape s = x.shape();
  s[A] = len;
  s.insert(s.begin() + int64_t(A) + 1, step);
  x = x.reshape(s);
  std::vector<std::pair<int64_t, int64_t>> r2;
  for (size_t i = 0; i < s.size(); ++i) r2.push_back({0, s[i]});
  r2[A + 1] = {0, 1};
  s.erase(s.begin() + int64_t(A) + 1);
  return x.shrink(r2).reshape(s);
}
Tensor Tensor::flip(const Axes& axes) const {
  RG_TENSOR_OK(this);
  std::vector<int64_t> f(shape().size(), 0);
  for (int64_t a : axes) {
    auto n = norm_axis(a, ndim(), "flip", shape());
    if (!n.ok()) return Tensor(std::move(n).take_error());
    if (f[size_t(*n)])
      return Ops::err(Errc::kInvalidArgument,
                      strformat("flip of %s: axis %lld repeated in the axes", shp(shape()).c_str(),
                                static_cast<long long>(a)));
    f[size_t(*n)] = 1;
  }
  if (std::all_of(f.begin(), f.end(), [](int64_t v) { return v == 0; })) return *this;
  return Ops::derive(*this, compiler::tensor_flip(impl_->node, f));
}
Tensor Tensor::squeeze(std::optional<int64_t> axis) const {
  RG_TENSOR_OK(this);
  Shape s;
  if (!axis) {
    for (int64_t d : shape())
      if (d != 1) s.push_back(d);
    return reshape(s);
  }
  auto a = norm_axis(*axis, ndim(), "squeeze", shape());
  if (!a.ok()) return Tensor(std::move(a).take_error());
  if (shape()[size_t(*a)] != 1) return *this;
  s = shape();
  s.erase(s.begin() + *a);
  return reshape(s);
}
Tensor Tensor::unsqueeze(int64_t axis) const {
  RG_TENSOR_OK(this);
  auto a = norm_axis(axis, ndim() + 1, "unsqueeze", shape());
  if (!a.ok()) return Tensor(std::move(a).take_error());
  Shape s = shape();
  s.insert(s.begin() + *a, 1);
  return reshape(s);
}
Tensor Tensor::flatten(int64_t start, int64_t end) const {
  RG_TENSOR_OK(this);
  if (ndim() == 0) return reshape({1});
  auto a = norm_axis(start, ndim(), "flatten", shape());
  if (!a.ok()) return Tensor(std::move(a).take_error());
  auto b = norm_axis(end, ndim(), "flatten", shape());
  if (!b.ok()) return Tensor(std::move(b).take_error());
  if (*a > *b) return Ops::err(Errc::kInvalidArgument, "flatten: start after end");
  Shape s(shape().begin(), shape().begin() + *a);
  int64_t m = 1;
  for (int64_t i = *a; i <= *b; ++i) m *= shape()[size_t(i)];
  s.push_back(m);
  s.insert(s.end(), shape().begin() + *b + 1, shape().end());
  return reshape(s);
}
Tensor Tensor::repeat(const Shape& times) const {
  RG_TENSOR_OK(this);
  if (times.size() < shape().size())
    return Ops::err(Errc::kInvalidArgument, "repeat of " + shp(shape()) + " by " + shp(times) +
                                                ": fewer repeats than axes");
  for (int64_t t : times)
    if (t < 0) return Ops::err(Errc::kInvalidArgument, "repeat: negative count in " + shp(times));
  Shape base(times.size() - shape().size(), 1);
  base.insert(base.end(), shape().begin(), shape().end());
  Shape mid, ex, fin;
  for (size_t i = 0; i < base.size(); ++i) {
    mid.push_back(1);
    mid.push_back(base[i]);
    ex.push_back(times[i]);
    ex.push_back(base[i]);
    fin.push_back(times[i] * base[i]);
  }
  return reshape(mid).expand(ex).reshape(fin);
}
Tensor Tensor::contiguous() const {
  RG_TENSOR_OK(this);
  return Ops::derive(*this, compiler::tensor_contiguous(impl_->node));
}
Tensor Tensor::cat(const std::vector<Tensor>& ts, int64_t axis) {
  if (ts.empty()) return Ops::err(Errc::kInvalidArgument, "cat: no tensors");
  for (const Tensor& t : ts)
    if (!t.ok()) return t;
  const Tensor& f = ts[0];
  auto a = norm_axis(axis, f.ndim(), "cat", f.shape());
  if (!a.ok()) return Tensor(std::move(a).take_error());
  std::vector<DType> types;
  int64_t total = 0;
  for (const Tensor& t : ts) {
    types.push_back(t.dtype());
    bool okshape = t.ndim() == f.ndim();
    for (size_t i = 0; okshape && i < f.shape().size(); ++i)
      okshape = int64_t(i) == *a || t.shape()[i] == f.shape()[i];
    if (!okshape)
      return Ops::err(Errc::kInvalidArgument, "cat along axis " + std::to_string(*a) + ": shapes " +
                                                  shp(f.shape()) + " and " + shp(t.shape()) +
                                                  " differ");
    total += t.shape()[size_t(*a)];
  }
  auto dtp = compiler::promote(types);
  if (!dtp || !storable(*dtp)) return Ops::err(Errc::kUnsupported, "cat: no common dtype");
  Tensor acc;
  int64_t off = 0;
  for (const Tensor& t : ts) {
    std::vector<std::pair<int64_t, int64_t>> p(f.shape().size(), {0, 0});
    const int64_t d = t.shape()[size_t(*a)];
    p[size_t(*a)] = {off, total - off - d};
    off += d;
    Tensor part = t.cast(*dtp).pad(p);
    acc = acc.ok() ? (*dtp == DType::kBool ? acc.logical_or(part) : acc + part) : part;
  }
  return acc;
}
Tensor Tensor::stack(const std::vector<Tensor>& ts, int64_t axis) {
  if (ts.empty()) return Ops::err(Errc::kInvalidArgument, "stack: no tensors");
  std::vector<Tensor> u;
  for (const Tensor& t : ts) {
    if (!t.ok()) return t;
    if (t.shape() != ts[0].shape())
      return Ops::err(Errc::kInvalidArgument,
                      "stack: shapes " + shp(ts[0].shape()) + " and " + shp(t.shape()) + " differ");
    u.push_back(t.unsqueeze(axis));
    if (!u.back().ok()) return u.back();
  }
  return cat(u, axis);
}

// ---- composite ----------------------------------------------------------------------------------
Tensor Tensor::matmul(const Tensor& o) const {
  RG_TENSOR_OK(this, &o);
  if (ndim() == 0 || o.ndim() == 0)
    return Ops::err(Errc::kInvalidArgument,
                    "matmul of " + shp(shape()) + " and " + shp(o.shape()) + ": scalar operand");
  Tensor a = ndim() == 1 ? unsqueeze(0) : *this;
  Tensor b = o.ndim() == 1 ? o.unsqueeze(1) : o;
  const int64_t K = a.shape().back(), K2 = b.shape()[b.shape().size() - 2];
  if (K != K2)
    return Ops::err(Errc::kInvalidArgument,
                    strformat("matmul of %s and %s: inner dimensions %lld and %lld differ",
                              shp(shape()).c_str(), shp(o.shape()).c_str(),
                              static_cast<long long>(K), static_cast<long long>(K2)));
  // a (..., M, 1, K) * b^T (..., 1, N, K) summed over K.
  Tensor x = a.unsqueeze(-2), y = b.transpose(-1, -2).unsqueeze(-3);
  Tensor r = (x * y).sum({-1});
  if (ndim() == 1) r = r.squeeze(-2);
  if (o.ndim() == 1) r = r.squeeze(-1);
  return r;
}

namespace {
// Sliding windows over the last two axes: (..., H, W) -> (..., OH, OW, KH, KW). x is padded.
Tensor windows(const Tensor& x, std::pair<int64_t, int64_t> k, std::pair<int64_t, int64_t> s,
               std::pair<int64_t, int64_t> d) {
  Tensor r = x;
  const int64_t nd = x.ndim();
  // One spatial axis at a time: axis ax (size L) -> (KH, OH) placed at ax, ax+1.
  auto one = [&](Tensor t, int64_t ax, int64_t kk, int64_t ss, int64_t dd) {
    const int64_t L = t.shape()[size_t(ax)];
    const int64_t O = (L - dd * (kk - 1) - 1) / ss + 1;
    const int64_t L2 = std::max(L, O * ss);
    std::vector<std::pair<int64_t, int64_t>> p(size_t(t.ndim()), {0, 0});
    p[size_t(ax)] = {0, L2 - L};
    t = t.pad(p);
    const int64_t e = (kk * (L2 + dd) + L2 - 1) / L2;
    // repeat e times along a new axis before ax, flatten.
    Shape s1 = t.shape();
    s1.insert(s1.begin() + ax, 1);
    Shape s2 = s1;
    s2[size_t(ax)] = e;
    t = t.reshape(s1).expand(s2);
    Shape s3 = t.shape();
    s3[size_t(ax)] = e * L2;
    s3.erase(s3.begin() + ax + 1);
    t = t.reshape(s3);
    std::vector<std::pair<int64_t, int64_t>> r1;
    for (int64_t v : t.shape()) r1.push_back({0, v});
    r1[size_t(ax)] = {0, kk * (L2 + dd)};
    t = t.shrink(r1);
    Shape s4 = t.shape();
    s4[size_t(ax)] = kk;
    s4.insert(s4.begin() + ax + 1, L2 + dd);
    t = t.reshape(s4);
    std::vector<std::pair<int64_t, int64_t>> r2;
    for (int64_t v : t.shape()) r2.push_back({0, v});
    r2[size_t(ax) + 1] = {0, O * ss};
    t = t.shrink(r2);
    Shape s5 = t.shape();
    s5[size_t(ax) + 1] = O;
    s5.insert(s5.begin() + ax + 2, ss);
    t = t.reshape(s5);
    std::vector<std::pair<int64_t, int64_t>> r3;
    for (int64_t v : t.shape()) r3.push_back({0, v});
    r3[size_t(ax) + 2] = {0, 1};
    t = t.shrink(r3);
    Shape s6 = t.shape();
    s6.erase(s6.begin() + ax + 2);
    return t.reshape(s6);  // (..., KK, O, ...)
  };
  // (..., H, W) -> (..., KH, OH, W) -> (..., KH, OH, KW, OW)
  r = one(r, nd - 2, k.first, s.first, d.first);
  r = one(r, nd, k.second, s.second, d.second);
  Axes p;
  for (int64_t i = 0; i < nd - 2; ++i) p.push_back(i);
  p.push_back(nd - 1);  // OH
  p.push_back(nd + 1);  // OW
  p.push_back(nd - 2);  // KH
  p.push_back(nd);      // KW
  return r.permute(p);
}

Status pool_args(const Tensor& x, std::pair<int64_t, int64_t> k, std::pair<int64_t, int64_t> s,
                 std::pair<int64_t, int64_t> p, std::pair<int64_t, int64_t> d, const char* op) {
  if (x.ndim() < 2)
    return make_error(Errc::kInvalidArgument, "%s of %s: needs at least 2 axes", op,
                      shp(x.shape()).c_str());
  if (k.first < 1 || k.second < 1 || s.first < 1 || s.second < 1 || d.first < 1 || d.second < 1 ||
      p.first < 0 || p.second < 0)
    return make_error(Errc::kInvalidArgument,
                      "%s of %s: kernel, stride, dilation must be >= 1 and padding >= 0", op,
                      shp(x.shape()).c_str());
  const int64_t H = x.shape()[size_t(x.ndim() - 2)] + 2 * p.first,
                W = x.shape().back() + 2 * p.second;
  if (H < d.first * (k.first - 1) + 1 || W < d.second * (k.second - 1) + 1)
    return make_error(
        Errc::kInvalidArgument, "%s of %s: kernel (%lld, %lld) larger than the padded input", op,
        shp(x.shape()).c_str(), static_cast<long long>(k.first), static_cast<long long>(k.second));
  return ok_status();
}

std::vector<std::pair<int64_t, int64_t>> spatial_pad(const Tensor& x,
                                                     std::pair<int64_t, int64_t> p) {
  std::vector<std::pair<int64_t, int64_t>> v(size_t(x.ndim()), {0, 0});
  v[size_t(x.ndim() - 2)] = {p.first, p.first};
  v[size_t(x.ndim() - 1)] = {p.second, p.second};
  return v;
}
}  // namespace

Tensor Tensor::conv2d(const Tensor& w, const Tensor* bias, std::pair<int64_t, int64_t> stride,
                      std::pair<int64_t, int64_t> padding, std::pair<int64_t, int64_t> dilation,
                      int64_t groups) const {
  RG_TENSOR_OK(this, &w);
  if (bias) RG_TENSOR_OK(bias);
  if (ndim() != 4 || w.ndim() != 4 || groups < 1)
    return Ops::err(Errc::kInvalidArgument,
                    "conv2d of " + shp(shape()) + " with weight " + shp(w.shape()) +
                        ": need (N, Cin, H, W), (Cout, Cin/groups, KH, KW), groups >= 1");
  const int64_t N = shape()[0], Cin = shape()[1], Cout = w.shape()[0];
  const int64_t KH = w.shape()[2], KW = w.shape()[3];
  if (Cin % groups != 0 || Cout % groups != 0 || w.shape()[1] != Cin / groups)
    return Ops::err(
        Errc::kInvalidArgument,
        strformat("conv2d of %s with weight %s, groups %lld: channel counts do not match",
                  shp(shape()).c_str(), shp(w.shape()).c_str(), static_cast<long long>(groups)));
  if (bias && (bias->ndim() != 1 || bias->shape()[0] != Cout))
    return Ops::err(Errc::kInvalidArgument, "conv2d: bias " + shp(bias->shape()) + " must be (" +
                                                std::to_string(Cout) + ",)");
  if (auto s = pool_args(*this, {KH, KW}, stride, padding, dilation, "conv2d"); !s.ok())
    return Tensor(std::move(s).take_error());
  Tensor win = windows(pad(spatial_pad(*this, padding)), {KH, KW}, stride, dilation);
  const int64_t OH = win.shape()[2], OW = win.shape()[3];
  const int64_t G = groups, CI = Cin / G, CO = Cout / G;
  // (N, G, 1, CI, OH, OW, KH, KW) * (1, G, CO, CI, 1, 1, KH, KW)
  Tensor xw = win.reshape({N, G, 1, CI, OH, OW, KH, KW});
  Tensor ww = w.reshape({1, G, CO, CI, 1, 1, KH, KW});
  Tensor r = (xw * ww).sum({3, 6, 7}).reshape({N, Cout, OH, OW});
  if (bias) r = r + bias->reshape({1, Cout, 1, 1});
  return r;
}

Tensor Tensor::max_pool2d(std::pair<int64_t, int64_t> k, std::pair<int64_t, int64_t> s,
                          std::pair<int64_t, int64_t> p, std::pair<int64_t, int64_t> d) const {
  RG_TENSOR_OK(this);
  if (s.first == 0) s = k;
  if (auto st = pool_args(*this, k, s, p, d, "max_pool2d"); !st.ok())
    return Tensor(std::move(st).take_error());
  const double lowest =
      compiler::is_float(dtype()) ? -INFINITY : double(compiler::dtype_min(dtype()));
  return windows(pad(spatial_pad(*this, p), lowest), k, s, d).max({-2, -1});
}
Tensor Tensor::avg_pool2d(std::pair<int64_t, int64_t> k, std::pair<int64_t, int64_t> s,
                          std::pair<int64_t, int64_t> p) const {
  RG_TENSOR_OK(this);
  if (s.first == 0) s = k;
  if (auto st = pool_args(*this, k, s, p, {1, 1}, "avg_pool2d"); !st.ok())
    return Tensor(std::move(st).take_error());
  return windows(pad(spatial_pad(*this, p)), k, s, {1, 1}).mean({-2, -1});
}

Tensor Tensor::softmax(int64_t axis) const {
  RG_TENSOR_OK(this);
  Tensor x = cast(*compiler::promote_float(dtype()));
  Tensor e = (x - x.max({axis}, true)).exp();
  return e / e.sum({axis}, true);
}
Tensor Tensor::log_softmax(int64_t axis) const {
  RG_TENSOR_OK(this);
  Tensor x = cast(*compiler::promote_float(dtype()));
  Tensor d = x - x.max({axis}, true);
  return d - d.exp().sum({axis}, true).log();
}
Tensor Tensor::layernorm(int64_t axes, double eps, const Tensor* weight, const Tensor* bias) const {
  RG_TENSOR_OK(this);
  if (axes < 1 || axes > ndim())
    return Ops::err(Errc::kOutOfRange, "layernorm of " + shp(shape()) + ": " +
                                           std::to_string(axes) + " normalised axes");
  Axes ax;
  for (int64_t i = ndim() - axes; i < ndim(); ++i) ax.push_back(i);
  Tensor x = cast(*compiler::promote_float(dtype()));
  Tensor xc = x - x.mean(ax, true);
  Tensor r = xc * ((xc * xc).mean(ax, true) + eps).rsqrt();
  if (weight) r = r * *weight;
  if (bias) r = r + *bias;
  return r;
}
Tensor Tensor::cumsum(int64_t axis) const {
  RG_TENSOR_OK(this);
  if (ndim() == 0) return *this;
  auto a = norm_axis(axis, ndim(), "cumsum", shape());
  if (!a.ok()) return Tensor(std::move(a).take_error());
  const int64_t n = shape()[size_t(*a)];
  // out[..., i] = sum_j x[..., j] * (j <= i): x moved to the last axis, expanded to (..., n, n).
  Tensor x = transpose(*a, -1).unsqueeze(-2);
  Shape es = x.shape();
  es[es.size() - 2] = n;
  Tensor i = arange(0, double(n), 1, DType::kInt32, device());
  Tensor mask = i.reshape({n, 1}).ge(i.reshape({1, n}));
  Tensor z = x.full_like(0);
  return where(mask, x.expand(es), z.expand(es)).sum({-1}).transpose(*a, -1);
}
Tensor Tensor::gather(int64_t axis, const Tensor& index) const {
  RG_TENSOR_OK(this, &index);
  auto a = norm_axis(axis, ndim(), "gather", shape());
  if (!a.ok()) return Tensor(std::move(a).take_error());
  if (!compiler::is_int(index.dtype()))
    return Ops::err(Errc::kInvalidArgument,
                    "gather: index dtype " + dt(index.dtype()) + " is not an integer type");
  if (index.ndim() != ndim())
    return Ops::err(Errc::kInvalidArgument, "gather of " + shp(shape()) + " with index " +
                                                shp(index.shape()) + ": ranks differ");
  std::vector<std::pair<int64_t, int64_t>> r;
  for (size_t i = 0; i < shape().size(); ++i) {
    if (int64_t(i) != *a && index.shape()[i] > shape()[i])
      return Ops::err(Errc::kInvalidArgument, "gather of " + shp(shape()) + " with index " +
                                                  shp(index.shape()) + ": index larger on axis " +
                                                  std::to_string(i));
    r.push_back({0, int64_t(i) == *a ? shape()[i] : index.shape()[i]});
  }
  const int64_t D = shape()[size_t(*a)];
  Tensor x = shrink(r).transpose(*a, -1).unsqueeze(-2);                   // (..., 1, D)
  Tensor ix = index.cast(DType::kInt32).transpose(*a, -1).unsqueeze(-1);  // (..., M, 1)
  Shape es = ix.shape();
  es.back() = D;
  Tensor mask = ix.expand(es).eq(arange(0, double(D), 1, DType::kInt32, device()).expand(es));
  return where(mask, x.expand(es), x.full_like(0).expand(es))
      .sum({-1})
      .cast(dtype())
      .transpose(*a, -1);
}

// ---- execution ----------------------------------------------------------------------------------
namespace {
// Every buffer reachable from the impls (realized ones), by BUFFER node.
void collect_buffers(const std::vector<const Tensor::Impl*>& roots,
                     std::unordered_map<const compiler::Node*, Buffer*>& out) {
  std::vector<const Tensor::Impl*> stack(roots);
  std::unordered_set<const Tensor::Impl*> seen;
  while (!stack.empty()) {
    const Tensor::Impl* im = stack.back();
    stack.pop_back();
    if (!seen.insert(im).second) continue;
    if (im->buf) out[im->buf_node.get()] = im->buf.get();
    for (auto& s : im->srcs) stack.push_back(s.get());
  }
}

Status realize_impls(const std::vector<Tensor::Impl*>& impls) {
  std::vector<Ref> roots;
  std::vector<Tensor::Impl*> todo;
  for (Tensor::Impl* im : impls) {
    if (im->buf) continue;
    todo.push_back(im);
    roots.push_back(im->node);
  }
  if (todo.empty()) return ok_status();
  Device* dev = todo[0]->device;
  for (Tensor::Impl* im : todo)
    if (im->device != dev)
      return make_error(Errc::kInvalidArgument,
                        "realize: tensors on devices %.*s and %.*s in one call; realize them "
                        "separately",
                        int(dev->name().size()), dev->name().data(), int(im->device->name().size()),
                        im->device->name().data());
  auto sched = RG_TRY(compiler::schedule(roots));
  std::unordered_map<const compiler::Node*, Buffer*> bufs;
  collect_buffers(std::vector<const Tensor::Impl*>(todo.begin(), todo.end()), bufs);
  std::unordered_map<const compiler::Node*, std::shared_ptr<Buffer>> outs;
  for (Tensor::Impl* im : todo) {
    if (outs.count(im->node.get())) continue;
    auto b = RG_TRY(dev->alloc(im->node->dtype(), size_t(compiler::shape_numel(im->shape))));
    outs[im->node.get()] = b;
    bufs[im->node.get()] = b.get();
  }
  std::shared_ptr<Buffer> arena = RG_TRY(dev->alloc(DType::kUInt8, size_t(sched.arena_bytes)));
  std::vector<std::shared_ptr<Buffer>> views;
  views.reserve(sched.intermediates.size());
  for (size_t i = 0; i < sched.intermediates.size(); ++i) {
    Ref n = sched.intermediates[i];
    views.push_back(RG_TRY(dev->view(arena, size_t(sched.offsets[i]), n->dtype(),
                                     size_t(compiler::shape_numel(*n->shape())))));
    bufs[n.get()] = views.back().get();
  }
  size_t kernel_index = 0;
  for (const auto& k : sched.kernels) {
    std::vector<Buffer*> args;
    for (Ref b : k.buffers) {
      auto it = bufs.find(b.get());
      if (it == bufs.end())
        return make_error(Errc::kInternal, "realize: no buffer for %%%u %s", b->id(),
                          std::string(compiler::op_name(b->op())).c_str());
      args.push_back(it->second);
    }
    runtime::RunContext ctx;  // for the BEAM progress display
    ctx.kernel_index = kernel_index++;
    ctx.kernel_count = sched.kernels.size();
    RG_TRY(dev->run(k.ast, args, ctx));
    ++g().stats.kernels_launched;
  }
  ++g().stats.schedules;
  g().stats.last_schedule_kernels = sched.kernels.size();
  g().stats.last_arena_bytes = sched.arena_bytes;
  for (Tensor::Impl* im : todo) {
    im->buf = outs[im->node.get()];
    const int64_t n = compiler::shape_numel(im->shape);
    im->buf_node = compiler::tensor_buffer(C(), im->node->dtype(), g().next_uid++, n);
    im->node =
        im->shape.size() == 1 ? im->buf_node : compiler::tensor_reshape(im->buf_node, im->shape);
    // srcs stay: lazy tensors built earlier still read this tensor's former graph.
  }
  return ok_status();
}
}  // namespace

Status Tensor::realize() const {
  if (!impl_) return *err_;
  return realize_impls({impl_.get()});
}
Status Tensor::realize_all(std::span<const Tensor> ts) {
  std::vector<Impl*> v;
  for (const Tensor& t : ts) {
    if (!t.ok()) return t.status();
    v.push_back(t.impl_.get());
  }
  return realize_impls(v);
}

Result<compiler::Schedule> schedule_tensors(std::span<const Tensor> ts) {
  std::vector<Ref> roots;
  for (const Tensor& t : ts) {
    RG_TRY(t.status());
    if (!Ops::I(t).buf) roots.push_back(Ops::I(t).node);
  }
  return compiler::schedule(roots);
}

Result<size_t> count_kernels(std::span<const Tensor> ts) {
  std::vector<Ref> roots;
  for (const Tensor& t : ts) {
    RG_TRY(t.status());
    if (!Ops::I(t).buf) roots.push_back(Ops::I(t).node);  // realized tensors need no kernel
  }
  auto s = RG_TRY(compiler::schedule(roots));
  return s.kernels.size();
}

Status Tensor::check_host_type(size_t size, bool is_fp, bool is_bool, bool is_signed) const {
  RG_TRY(status());
  const DType t = dtype();
  const bool half = t == DType::kFloat16 || t == DType::kBFloat16;
  const bool okk = size == size_t(compiler::itemsize(t)) &&
                   (half ? (!is_fp && !is_bool && !is_signed)
                         : (is_fp == compiler::is_float(t) && is_bool == (t == DType::kBool) &&
                            (is_fp || is_bool || is_signed == compiler::is_signed_int(t))));
  if (!okk)
    return make_error(Errc::kInvalidArgument, "to_host: host type does not match dtype %s",
                      dt(t).c_str());
  return ok_status();
}
Status Tensor::copy_to_host(std::span<std::byte> out) const {
  RG_TRY(realize());
  return impl_->buf->copy_out(out);
}

Result<std::vector<double>> Tensor::to_doubles() const {
  RG_TRY(realize());
  const size_t n = size_t(numel());
  std::vector<std::byte> raw(n * size_t(compiler::itemsize(dtype())));
  RG_TRY(impl_->buf->copy_out(raw));
  std::vector<double> out(n);
  const std::byte* p = raw.data();
  for (size_t i = 0; i < n; ++i) {
    auto rd = [&](auto v) {
      std::memcpy(&v, p + i * sizeof(v), sizeof(v));
      return v;
    };
    switch (dtype()) {
      case DType::kBool: out[i] = double(rd(uint8_t{})); break;
      case DType::kInt8: out[i] = rd(int8_t{}); break;
      case DType::kInt16: out[i] = rd(int16_t{}); break;
      case DType::kInt32: out[i] = rd(int32_t{}); break;
      case DType::kInt64: out[i] = double(rd(int64_t{})); break;
      case DType::kUInt8: out[i] = rd(uint8_t{}); break;
      case DType::kUInt16: out[i] = rd(uint16_t{}); break;
      case DType::kUInt32: out[i] = rd(uint32_t{}); break;
      case DType::kUInt64: out[i] = double(rd(uint64_t{})); break;
      case DType::kFloat16: out[i] = compiler::half_to_float(rd(uint16_t{})); break;
      case DType::kBFloat16: out[i] = compiler::bf16_to_float(rd(uint16_t{})); break;
      case DType::kFloat32: out[i] = rd(float{}); break;
      case DType::kFloat64: out[i] = rd(double{}); break;
      default: return make_error(Errc::kUnsupported, "to_doubles: dtype %s", dt(dtype()).c_str());
    }
  }
  return out;
}

Result<double> Tensor::item() const {
  RG_TRY(status());
  if (numel() != 1)
    return make_error(Errc::kInvalidArgument, "item() of shape %s: not one element",
                      shp(shape()).c_str());
  auto v = RG_TRY(to_doubles());
  return v[0];
}

}  // namespace rawgpu::frontend
