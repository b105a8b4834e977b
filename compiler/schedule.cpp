// The scheduler: fusion decisions, kernel-AST rendering of tensor-graph nodes, memory planning.
#include "rawgpu/compiler/schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/linearize.h"
#include "rawgpu/compiler/spec.h"
#include "rawgpu/compiler/symbolic.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::compiler {
namespace {

using Set = std::unordered_set<const Node*>;

std::vector<int64_t> dims(Ref n) {
  auto s = n->shape();
  return s ? std::vector<int64_t>(s->begin(), s->end()) : std::vector<int64_t>{};
}

// The start of a movement chain: follows src 0 through movement ops.
Ref chain_base(Ref n) {
  while (ops::kMovement.has(n->op())) n = n->src(0);
  return n;
}

bool is_input(Ref n) { return n->op() == Op::kBuffer; }

// The identity of a reduction in dtype t.
Ref reduce_identity(Context& ctx, Op op, DType t) {
  if (op == Op::kAdd) return ctx.cconst(0, t);
  if (op == Op::kMul) return ctx.cconst(1, t);
  if (is_float(t)) return ctx.cfloat(-std::numeric_limits<double>::infinity(), t);
  return ctx.cint(dtype_min(t), t);
}

// Renders tensor-graph nodes at an index (one index expression per axis) into kernel-AST values.
class Renderer {
 public:
  Renderer(Context& ctx, const Set& realized, Ref self)
      : ctx_(ctx), realized_(realized), self_(self) {
    slots_.push_back(self);
  }

  Ref render(Ref n, const std::vector<Ref>& idx, Ref valid) {
    std::vector<const Node*> key{n.get(), valid.get()};
    for (Ref i : idx) key.push_back(i.get());
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    Ref r = render_uncached(n, idx, valid);
    memo_.emplace(std::move(key), r);
    return r;
  }

  Ref buffer(Ref n) {
    if (auto it = bufs_.find(n.get()); it != bufs_.end()) return it->second;
    int64_t slot = 0;
    if (n != self_) {
      slot = int64_t(slots_.size());
      slots_.push_back(n);
    }
    const int64_t a[] = {slot, shape_numel(dims(n))};
    Ref b = ctx_.make(Op::kBuffer, n->dtype(), {}, Arg::ints(a));
    bufs_.emplace(n.get(), b);
    return b;
  }

  Ref flat(std::span<const int64_t> shape, const std::vector<Ref>& idx) {
    Ref f = ctx_.cint(0);
    int64_t stride = 1;
    for (size_t k = shape.size(); k-- > 0;) {
      if (shape[k] != 1) f = f + idx[k] * stride;
      stride *= shape[k];
    }
    return f;
  }

  std::vector<Ref>& slots() { return slots_; }

 private:
  Ref load(Ref n, const std::vector<Ref>& idx, Ref valid) {
    Ref b = buffer(n);
    Ref i = flat(dims(n), idx);
    if (!valid) {
      // Movement ops keep indices in bounds by construction, but simplification can lose
      // precision (flip's n-1-i under a reshape's division: (3-r1-2*r0)//2 becomes
      // 1-r1-r0+(r1+1)//2, bounds [-1, 2] instead of [0, 1]) and the linearizer rejects
      // unmasked accesses whose bounds leave the buffer. Such loads get an explicit
      // (always true) bounds gate instead.
      const int64_t count = shape_numel(dims(n));
      Ref si = simplify(i);
      if (si->vmin() < 0 || si->vmax() >= count)
        valid = ctx_.make(Op::kAnd, DType::kBool, {logical_not(cmplt(i, 0)), cmplt(i, count)});
    }
    if (valid) i = where(valid, i, ctx_.invalid());
    return ctx_.make(Op::kLoad, n->dtype(), {ctx_.make(Op::kIndex, n->dtype(), {b, i})});
  }

  Ref render_uncached(Ref n, const std::vector<Ref>& idx, Ref valid) {
    if (is_input(n) || (n != self_ && realized_.count(n.get()))) return load(n, idx, valid);
    const auto out = dims(n);
    switch (n->op()) {
      case Op::kConst: return n;
      case Op::kRange: return cast(idx[0], n->dtype());
      case Op::kContiguous:
      case Op::kDetach: return render(n->src(0), idx, valid);
      case Op::kReshape: {
        const auto in = dims(n->src(0));
        Ref f = flat(out, idx);
        std::vector<Ref> s(in.size());
        int64_t stride = 1;
        for (size_t k = in.size(); k-- > 0;) {
          Ref v = f;
          if (in[k] == 1) {
            v = ctx_.cint(0);
          } else {
            if (stride != 1) v = v / stride;
            if (k != 0) v = v % in[k];
          }
          s[k] = v;
          stride *= in[k];
        }
        return render(n->src(0), s, valid);
      }
      case Op::kPermute: {
        const auto p = n->arg().as_ints();
        std::vector<Ref> s(idx.size());
        for (size_t k = 0; k < p.size(); ++k) s[size_t(p[k])] = idx[k];
        return render(n->src(0), s, valid);
      }
      case Op::kExpand: {
        const auto in = dims(n->src(0));
        std::vector<Ref> s(idx);
        for (size_t k = 0; k < in.size(); ++k)
          if (in[k] == 1) s[k] = ctx_.cint(0);
        return render(n->src(0), s, valid);
      }
      case Op::kShrink: {
        const auto a = n->arg().as_ints();
        std::vector<Ref> s(idx);
        for (size_t k = 0; k < s.size(); ++k)
          if (a[2 * k] != 0) s[k] = s[k] + a[2 * k];
        return render(n->src(0), s, valid);
      }
      case Op::kFlip: {
        const auto a = n->arg().as_ints();
        std::vector<Ref> s(idx);
        for (size_t k = 0; k < s.size(); ++k)
          if (a[k]) s[k] = ctx_.cint(out[k] - 1) - s[k];
        return render(n->src(0), s, valid);
      }
      case Op::kPad: {
        const auto a = n->arg().as_ints();
        const auto in = dims(n->src(0));
        std::vector<Ref> s(idx);
        Ref gate;
        auto conj = [&](Ref c) { gate = gate ? ctx_.make(Op::kAnd, DType::kBool, {gate, c}) : c; };
        for (size_t k = 0; k < s.size(); ++k) {
          const int64_t before = a[2 * k], after = a[2 * k + 1];
          // Index bounds decide statically when this axis only reads padding (then the value is
          // the pad constant: no load at all) or never does (no gate).
          if (in[k] == 0 || idx[k]->vmax() < before || idx[k]->vmin() >= before + in[k])
            return n->src(1);
          if (before > 0) {
            if (idx[k]->vmin() < before) conj(logical_not(cmplt(idx[k], before)));
            s[k] = s[k] - before;
          }
          if (after > 0 && idx[k]->vmax() >= before + in[k]) conj(cmplt(idx[k], before + in[k]));
        }
        if (!gate) return render(n->src(0), s, valid);
        Ref inner_valid = valid ? ctx_.make(Op::kAnd, DType::kBool, {valid, gate}) : gate;
        return where(gate, render(n->src(0), s, inner_valid), n->src(1));
      }
      case Op::kReduceAxis: {
        const auto a = n->arg().as_ints();
        const Op rop = static_cast<Op>(a[0]);
        const auto in = dims(n->src(0));
        std::vector<Ref> s(idx);
        std::vector<Ref> src{Ref()};
        for (size_t k = 1; k < a.size(); ++k) {
          const size_t ax = size_t(a[k]);
          if (in[ax] == 0) return reduce_identity(ctx_, rop, n->dtype());
          if (in[ax] == 1) {
            s[ax] = ctx_.cint(0);
            continue;
          }
          Ref r = ctx_.range(in[ax], next_axis_++, kAxisReduce);
          s[ax] = r;
          src.push_back(r);
        }
        Ref v = render(n->src(0), s, valid);
        if (src.size() == 1) return v;
        src[0] = v;
        return ctx_.make(Op::kReduce, n->dtype(), src, Arg::op(rop));
      }
      default: break;
    }
    // ALU
    std::vector<Ref> src;
    for (Ref c : n->src()) src.push_back(render(c, idx, valid));
    return ctx_.make(n->op(), n->dtype(), src, n->arg());
  }

  Context& ctx_;
  const Set& realized_;
  Ref self_;
  std::vector<Ref> slots_;
  std::unordered_map<const Node*, Ref> bufs_;
  std::map<std::vector<const Node*>, Ref> memo_;
  int64_t next_axis_ = 64;

 public:
  void set_first_reduce_axis(int64_t a) { next_axis_ = a; }
};

// Which nodes get their own buffer.
Set decide_realized(Context& ctx, std::span<const Ref> roots, const std::vector<Ref>& order) {
  Set realized;
  for (Ref r : roots)
    if (!is_input(r)) realized.insert(r.get());
  std::unordered_map<const Node*, int> parents;
  for (Ref n : order) {
    std::vector<const Node*> seen;
    for (Ref c : n->src()) {
      if (std::find(seen.begin(), seen.end(), c.get()) != seen.end()) continue;
      seen.push_back(c.get());
      ++parents[c.get()];
    }
    if (n->op() == Op::kContiguous) realized.insert(n.get());
  }
  (void)ctx;
  std::unordered_map<const Node*, bool> hr;  // contains an unrealized reduction
  auto compute_hr = [&] {
    for (Ref n : order) {
      bool h = n->op() == Op::kReduceAxis;
      for (Ref c : n->src())
        if (!is_input(c) && !realized.count(c.get()) && hr[c.get()]) h = true;
      hr[n.get()] = h;
    }
  };
  auto pending = [&](Ref b) { return !is_input(b) && !realized.count(b.get()) && hr[b.get()]; };
  for (;;) {
    compute_hr();
    // Rule 1: a broadcast (EXPAND) of a value that still contains a reduction.
    const Node* add = nullptr;
    for (Ref n : order) {
      if (n->op() != Op::kExpand) continue;
      Ref b = chain_base(n);
      if (pending(b) && (!add || b->id() < add->id())) add = b.get();
    }
    // Rule 2: a reduction-containing value with several consumers (it would be computed twice).
    if (!add) {
      for (Ref n : order) {
        if (parents[n.get()] < 2) continue;
        Ref b = chain_base(n);
        if (pending(b)) {
          add = b.get();
          break;
        }
      }
    }
    if (!add) break;
    realized.insert(add);
  }
  return realized;
}

constexpr uint64_t kBlock = 64;  // arena granule: a cache line

Status plan_memory(Schedule& s) {
  std::unordered_map<const Node*, size_t> inter;
  for (size_t i = 0; i < s.intermediates.size(); ++i) inter[s.intermediates[i].get()] = i;
  s.offsets.assign(s.intermediates.size(), 0);
  s.arena_bytes = 0;
  if (s.intermediates.empty()) return ok_status();
  auto bytes_of = [](Ref n) {
    const uint64_t b = uint64_t(shape_numel(dims(n))) * uint64_t(std::max(itemsize(n->dtype()), 1));
    return std::max<uint64_t>((b + kBlock - 1) & ~(kBlock - 1), kBlock);
  };
  uint64_t total = 0;
  for (Ref n : s.intermediates) total += bytes_of(n);
  // Last kernel reading each intermediate.
  std::vector<size_t> last(s.intermediates.size(), 0);
  for (size_t k = 0; k < s.kernels.size(); ++k)
    for (size_t slot = 1; slot < s.kernels[k].buffers.size(); ++slot)
      if (auto it = inter.find(s.kernels[k].buffers[slot].get()); it != inter.end())
        last[it->second] = k;
  memory::TlsfConfig cfg;
  cfg.base = 0;
  cfg.size = total;
  cfg.min_block = kBlock;
  auto tlsf = RG_TRY_CTX(memory::Tlsf::create(cfg), "memory plan");
  for (size_t k = 0; k < s.kernels.size(); ++k) {
    if (auto it = inter.find(s.kernels[k].buffers[0].get()); it != inter.end()) {
      const Ref n = s.intermediates[it->second];
      const uint64_t off = RG_TRY_CTX(tlsf.alloc(bytes_of(n), kBlock), "memory plan");
      s.offsets[it->second] = off;
      s.arena_bytes = std::max(s.arena_bytes, off + bytes_of(n));
    }
    for (size_t i = 0; i < s.intermediates.size(); ++i)
      if (last[i] == k && tlsf.is_allocated(s.offsets[i])) RG_TRY(tlsf.free(s.offsets[i]));
  }
  return ok_status();
}

}  // namespace

Result<Schedule> schedule(std::span<const Ref> roots) {
  Schedule s;
  if (roots.empty()) return s;
  Context& ctx = roots[0]->ctx();
  for (Ref r : roots) RG_TRY(verify(r, Stage::kTensor));
  const std::vector<Ref> order = ctx.toposort(roots);
  const Set realized = decide_realized(ctx, roots, order);
  Set is_root;
  for (Ref r : roots) is_root.insert(r.get());
  std::unordered_set<const Node*> done;
  for (Ref n : order) {
    if (!realized.count(n.get()) || done.count(n.get())) continue;
    done.insert(n.get());
    const auto out = dims(n);
    if (!is_root.count(n.get())) s.intermediates.push_back(n);
    if (shape_numel(out) == 0) {
      s.kernels.push_back({Ref(), {n}});  // nothing to compute; removed below
      continue;
    }
    Renderer rd(ctx, realized, n);
    rd.set_first_reduce_axis(int64_t(out.size()));
    std::vector<Ref> idx;
    for (size_t k = 0; k < out.size(); ++k)
      idx.push_back(out[k] == 1 ? ctx.cint(0) : ctx.range(out[k], int64_t(k), kAxisLoop));
    Ref v = rd.render(n, idx, Ref());
    Ref out_buf = rd.buffer(n);
    Ref st = ctx.make(Op::kStore, DType::kVoid,
                      {ctx.make(Op::kIndex, n->dtype(), {out_buf, rd.flat(out, idx)}), v});
    Ref sink = ctx.make(Op::kSink, DType::kVoid, {st});
    RG_TRY(maybe_verify(sink, Stage::kKernel, "schedule"));
    s.kernels.push_back({sink, rd.slots()});
  }
  for (Ref r : roots) s.outputs.push_back(r);
  RG_TRY(plan_memory(s));
  // Empty outputs need no kernel (their buffers hold no elements).
  std::erase_if(s.kernels, [](const KernelCall& k) { return !k.ast; });
  RG_LOG("schedule", 3, "%s", s.to_string().c_str());
  return s;
}

std::string Schedule::to_string() const {
  std::string out =
      strformat("%zu kernels, %zu intermediates in %llu arena bytes\n", kernels.size(),
                intermediates.size(), static_cast<unsigned long long>(arena_bytes));
  for (size_t k = 0; k < kernels.size(); ++k) {
    out += strformat("kernel %zu %s:", k, kernels[k].ast->hash().hex().substr(0, 16).c_str());
    for (size_t i = 0; i < kernels[k].buffers.size(); ++i) {
      Ref b = kernels[k].buffers[i];
      out += strformat(" [%zu]=%%%u %s%s", i, b->id(), std::string(op_name(b->op())).c_str(),
                       shape_string(dims(b)).c_str());
    }
    out += "\n";
  }
  return out;
}

}  // namespace rawgpu::compiler
