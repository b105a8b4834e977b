// Tensor-graph nodes: builders and shape inference (Node::shape()).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/schedule.h"

namespace rawgpu::compiler {

int64_t shape_numel(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_string(std::span<const int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += strformat("%s%lld", i ? ", " : "", static_cast<long long>(shape[i]));
  if (shape.size() == 1) s += ",";
  return s + ")";
}

namespace {

const OpSet kTensorOps =
    ops::kAlu | ops::kMovement |
    OpSet{Op::kConst, Op::kBuffer, Op::kRange, Op::kReduceAxis, Op::kContiguous, Op::kDetach};

// The shape of n from its children's cached shapes; `why` gets the problem when there is none.
bool infer(const Node& n, std::vector<int64_t>& out, std::string& why) {
  out.clear();
  const std::string op(op_name(n.op()));
  if (!kTensorOps.has(n.op())) {
    why = op + " is not a tensor-graph op";
    return false;
  }
  std::vector<std::span<const int64_t>> in;
  const size_t want_shaped = n.op() == Op::kPad ? 1 : n.nsrc();
  for (size_t i = 0; i < want_shaped; ++i) {
    auto s = n.src(i)->shape();
    if (!s) {
      why = strformat("%s: source %zu (%s) has no shape", op.c_str(), i,
                      std::string(op_name(n.src(i)->op())).c_str());
      return false;
    }
    in.push_back(*s);
  }
  const auto arg = [&]() -> std::span<const int64_t> {
    return n.arg().kind() == ArgKind::kInts ? n.arg().as_ints() : std::span<const int64_t>{};
  };
  switch (n.op()) {
    case Op::kConst:
      if (n.nsrc() != 0 || n.arg().kind() == ArgKind::kInvalid) {
        why = "CONST must be a plain scalar";
        return false;
      }
      return true;
    case Op::kBuffer:
      if (arg().size() != 2 || arg()[1] < 0) {
        why = "BUFFER arg must be (uid, count >= 0)";
        return false;
      }
      out.push_back(arg()[1]);
      return true;
    case Op::kRange:
      if (n.nsrc() != 0 || arg().size() != 1 || arg()[0] < 0) {
        why = "a tensor-graph RANGE (iota) has no sources and arg (n >= 0)";
        return false;
      }
      out.push_back(arg()[0]);
      return true;
    case Op::kContiguous:
    case Op::kDetach:
      if (n.nsrc() != 1) {
        why = op + " has one source";
        return false;
      }
      out.assign(in[0].begin(), in[0].end());
      return true;
    case Op::kReshape: {
      if (n.nsrc() != 1) break;
      for (int64_t d : arg())
        if (d < 0) {
          why = "RESHAPE to " + shape_string(arg()) + ": negative dimension";
          return false;
        }
      if (shape_numel(arg()) != shape_numel(in[0])) {
        why = "RESHAPE of " + shape_string(in[0]) + " to " + shape_string(arg()) +
              ": element counts differ";
        return false;
      }
      out.assign(arg().begin(), arg().end());
      return true;
    }
    case Op::kPermute: {
      if (n.nsrc() != 1) break;
      std::vector<int64_t> p(arg().begin(), arg().end());
      std::sort(p.begin(), p.end());
      bool okp = p.size() == in[0].size();
      for (size_t i = 0; okp && i < p.size(); ++i) okp = p[i] == int64_t(i);
      if (!okp) {
        why = "PERMUTE of " + shape_string(in[0]) + " by " + shape_string(arg()) +
              ": not a permutation of the axes";
        return false;
      }
      for (int64_t a : arg()) out.push_back(in[0][size_t(a)]);
      return true;
    }
    case Op::kExpand: {
      if (n.nsrc() != 1) break;
      bool oke = arg().size() == in[0].size();
      for (size_t i = 0; oke && i < arg().size(); ++i)
        oke = arg()[i] >= 0 && (in[0][i] == arg()[i] || in[0][i] == 1);
      if (!oke) {
        why = "EXPAND of " + shape_string(in[0]) + " to " + shape_string(arg()) +
              ": each dimension must be 1 or equal";
        return false;
      }
      out.assign(arg().begin(), arg().end());
      return true;
    }
    case Op::kPad: {
      if (n.nsrc() != 2 || n.src(1)->op() != Op::kConst || n.src(1)->dtype() != n.dtype() ||
          n.src(0)->dtype() != n.dtype()) {
        why = "PAD has sources (x, CONST value) of the node's dtype";
        return false;
      }
      bool okp = arg().size() == 2 * in[0].size();
      for (int64_t v : arg()) okp = okp && v >= 0;
      if (!okp) {
        why = "PAD of " + shape_string(in[0]) + " by " + shape_string(arg()) +
              ": need (before, after) >= 0 per axis";
        return false;
      }
      for (size_t i = 0; i < in[0].size(); ++i)
        out.push_back(in[0][i] + arg()[2 * i] + arg()[2 * i + 1]);
      return true;
    }
    case Op::kShrink: {
      if (n.nsrc() != 1) break;
      bool oks = arg().size() == 2 * in[0].size();
      for (size_t i = 0; oks && i < in[0].size(); ++i)
        oks = 0 <= arg()[2 * i] && arg()[2 * i] <= arg()[2 * i + 1] && arg()[2 * i + 1] <= in[0][i];
      if (!oks) {
        why = "SHRINK of " + shape_string(in[0]) + " to " + shape_string(arg()) +
              ": need 0 <= begin <= end <= dim per axis";
        return false;
      }
      for (size_t i = 0; i < in[0].size(); ++i) out.push_back(arg()[2 * i + 1] - arg()[2 * i]);
      return true;
    }
    case Op::kFlip: {
      if (n.nsrc() != 1) break;
      if (arg().size() != in[0].size()) {
        why = "FLIP of " + shape_string(in[0]) + ": need one flag per axis";
        return false;
      }
      out.assign(in[0].begin(), in[0].end());
      return true;
    }
    case Op::kReduceAxis: {
      if (n.nsrc() != 1) break;
      if (arg().empty()) {
        why = "REDUCE_AXIS arg must be (op, axis...)";
        return false;
      }
      const Op r = static_cast<Op>(arg()[0]);
      if (arg()[0] < 0 || arg()[0] >= kNumOps ||
          (r != Op::kAdd && r != Op::kMul && r != Op::kMax)) {
        why = "REDUCE_AXIS op must be ADD, MUL or MAX";
        return false;
      }
      if (n.src(0)->dtype() != n.dtype()) {
        why = "REDUCE_AXIS keeps its source's dtype";
        return false;
      }
      out.assign(in[0].begin(), in[0].end());
      for (size_t i = 1; i < arg().size(); ++i) {
        const int64_t a = arg()[i];
        if (a < 0 || a >= int64_t(out.size())) {
          why = strformat("REDUCE_AXIS of %s: axis %lld out of range", shape_string(in[0]).c_str(),
                          static_cast<long long>(a));
          return false;
        }
        out[size_t(a)] = 1;
      }
      return true;
    }
    default: {
      // ALU: every source has the same shape (or is a scalar CONST only when all are scalars).
      for (size_t i = 1; i < in.size(); ++i)
        if (!std::equal(in[i].begin(), in[i].end(), in[0].begin(), in[0].end())) {
          why = strformat("%s: source shapes %s and %s differ (broadcast explicitly)", op.c_str(),
                          shape_string(in[0]).c_str(), shape_string(in[i]).c_str());
          return false;
        }
      if (in.empty()) {
        why = op + " without sources";
        return false;
      }
      out.assign(in[0].begin(), in[0].end());
      return true;
    }
  }
  why = op + " has one source";
  return false;
}

}  // namespace

std::optional<std::span<const int64_t>> Node::shape() const {
  if (ndim_ == -2) ctx_->compute_shapes(Ref(this));
  if (ndim_ < 0) return std::nullopt;
  return std::span<const int64_t>(shape_, size_t(ndim_));
}

void Context::compute_shapes(Ref root) {
  std::vector<int64_t> dims;
  std::string why;
  for (Ref r : toposort(root)) {
    const Node* n = r.get();
    if (n->ndim_ != -2) continue;
    if (!infer(*n, dims, why)) {
      n->ndim_ = -1;
      continue;
    }
    if (!dims.empty()) {
      auto* p = static_cast<int64_t*>(allocate(dims.size() * sizeof(int64_t), alignof(int64_t)));
      std::copy(dims.begin(), dims.end(), p);
      n->shape_ = p;
    }
    n->ndim_ = static_cast<int32_t>(dims.size());
  }
}

std::string tensor_shape_problem(Ref n) {
  if (n->shape()) return {};
  // Report the deepest problem: the first node (children first) without a shape.
  std::vector<int64_t> dims;
  std::string why;
  for (Ref r : n->ctx().toposort(n)) {
    if (r->shape()) continue;
    infer(*r, dims, why);
    return strformat("%%%u %s: %s", r->id(), std::string(op_name(r->op())).c_str(), why.c_str());
  }
  return "no shape";
}

Ref tensor_buffer(Context& ctx, DType dtype, int64_t uid, int64_t count) {
  const int64_t a[] = {uid, count};
  return ctx.make(Op::kBuffer, dtype, {}, Arg::ints(a));
}
Ref tensor_iota(Context& ctx, int64_t n, DType dtype) {
  const int64_t a[] = {n};
  return ctx.make(Op::kRange, dtype, {}, Arg::ints(a));
}
Ref tensor_reshape(Ref x, std::span<const int64_t> shape) {
  return x->ctx().make(Op::kReshape, x->dtype(), {x}, Arg::ints(shape));
}
Ref tensor_permute(Ref x, std::span<const int64_t> perm) {
  return x->ctx().make(Op::kPermute, x->dtype(), {x}, Arg::ints(perm));
}
Ref tensor_expand(Ref x, std::span<const int64_t> shape) {
  return x->ctx().make(Op::kExpand, x->dtype(), {x}, Arg::ints(shape));
}
Ref tensor_pad(Ref x, std::span<const int64_t> before_after, Ref value) {
  return x->ctx().make(Op::kPad, x->dtype(), {x, value}, Arg::ints(before_after));
}
Ref tensor_shrink(Ref x, std::span<const int64_t> begin_end) {
  return x->ctx().make(Op::kShrink, x->dtype(), {x}, Arg::ints(begin_end));
}
Ref tensor_flip(Ref x, std::span<const int64_t> flags) {
  return x->ctx().make(Op::kFlip, x->dtype(), {x}, Arg::ints(flags));
}
Ref tensor_reduce(Ref x, Op op, std::span<const int64_t> axes) {
  std::vector<int64_t> a{static_cast<int64_t>(op)};
  a.insert(a.end(), axes.begin(), axes.end());
  return x->ctx().make(Op::kReduceAxis, x->dtype(), {x}, Arg::ints(a));
}
Ref tensor_contiguous(Ref x) { return x->ctx().make(Op::kContiguous, x->dtype(), {x}); }

}  // namespace rawgpu::compiler
