// The kernel optimizer's data model and opt actions (see opt.h and README "Kernel optimizer").
#include "rawgpu/compiler/opt.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/symbolic.h"
#include "rawgpu/compiler/tensor_core.h"

namespace rawgpu::compiler {

namespace {

constexpr std::string_view kAxisNames[] = {"global", "thread", "local",  "loop",
                                           "group",  "reduce", "upcast", "unroll"};
constexpr std::string_view kOpNames[] = {"UPCAST", "UNROLL", "THREAD",   "SWAP",     "PADTO",
                                         "LOCAL",  "GROUP",  "GROUPTOP", "NOLOCALS", "TC"};
constexpr std::string_view kErrNames[] = {"bad_axis",      "wrong_axis_type", "bad_amount",
                                          "not_divisible", "symbolic_size",   "too_large",
                                          "conflict",      "no_effect",       "unsupported"};
constexpr std::string_view kErrPrefix = "KernelOptError[";

[[gnu::format(printf, 3, 4)]] Error opt_error(const Opt& opt, KernelOptErrc c, const char* fmt,
                                              ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string detail = vstrformat(fmt, ap);
  va_end(ap);
  const Errc code = c == KernelOptErrc::kUnsupported ? Errc::kUnsupported : Errc::kInvalidArgument;
  return Error(code, strformat("%.*s%.*s]: %s: %s", int(kErrPrefix.size()), kErrPrefix.data(),
                               int(kErrNames[size_t(c)].size()), kErrNames[size_t(c)].data(),
                               opt.to_string().c_str(), detail.c_str()));
}

int64_t range_kind(AxisType t) { return is_reduce_axis(t) ? kAxisReduce : kAxisLoop; }

bool is_output_axis(AxisType t) {
  return t == AxisType::kGlobal || t == AxisType::kLoop || t == AxisType::kLocal ||
         t == AxisType::kThread;
}

// Replaces RANGE r by `expr` everywhere in root; a REDUCE or END closing r closes `closes`
// instead. Iterative (toposort) with a memo.
Ref replace_range(Ref root, Ref r, Ref expr, std::span<const Ref> closes) {
  Context& c = root->ctx();
  std::unordered_map<const Node*, Ref> m;
  for (Ref n : c.toposort(root)) {
    if (n == r) {
      m[n.get()] = expr;
      continue;
    }
    std::vector<Ref> src;
    src.reserve(n->nsrc() + closes.size());
    const bool closer = n->op() == Op::kReduce || n->op() == Op::kEnd;
    for (size_t i = 0; i < n->nsrc(); ++i) {
      const Ref s = n->src(i);
      if (closer && i > 0 && s == r)
        src.insert(src.end(), closes.begin(), closes.end());
      else
        src.push_back(m.at(s.get()));
    }
    m[n.get()] = c.replace_src(n, src);
  }
  return m.at(root.get());
}

Ref reduce_identity(Context& c, Op rop, DType dt) {
  if (rop == Op::kAdd) return c.cconst(0, dt);
  if (rop == Op::kMul) return c.cconst(1, dt);
  if (is_float(dt)) return c.cconst(-std::numeric_limits<double>::infinity(), dt);
  return c.cconst(double(dtype_min(dt)), dt);  // Max: the dtype's own minimum (0 unsigned)
}

Ref combine(Op rop, Ref a, Ref b) {
  if (rop == Op::kAdd) return a + b;
  if (rop == Op::kMul) return a * b;
  return max(a, b);
}

bool closes(Ref n, Ref r) {
  for (size_t i = 1; i < n->nsrc(); ++i)
    if (n->src(i) == r) return true;
  return false;
}

}  // namespace

std::string_view axis_type_name(AxisType t) { return kAxisNames[size_t(t)]; }
std::string_view opt_op_name(OptOp op) { return kOpNames[size_t(op)]; }
std::string_view kernel_opt_errc_name(KernelOptErrc c) { return kErrNames[size_t(c)]; }

std::optional<KernelOptErrc> kernel_opt_errc(const Error& e) {
  const std::string& m = e.message();
  if (m.compare(0, kErrPrefix.size(), kErrPrefix) != 0) return std::nullopt;
  const size_t end = m.find(']');
  if (end == std::string::npos) return std::nullopt;
  const std::string_view name(m.data() + kErrPrefix.size(), end - kErrPrefix.size());
  for (size_t i = 0; i < std::size(kErrNames); ++i)
    if (kErrNames[i] == name) return KernelOptErrc(i);
  return std::nullopt;
}

std::string Opt::to_string() const {
  const std::string_view n = opt_op_name(op);
  if (op == OptOp::kNoLocals) return std::string(n);
  return strformat("%.*s %lld %lld", int(n.size()), n.data(), (long long)axis, (long long)arg);
}

Result<Opt> parse_opt(std::string_view text) {
  const size_t sp = text.find(' ');
  const std::string_view name = text.substr(0, sp);
  Opt o;
  size_t i = 0;
  for (; i < std::size(kOpNames); ++i)
    if (kOpNames[i] == name) break;
  if (i == std::size(kOpNames))
    return make_error(Errc::kParse, "parse_opt: unknown opt '%.*s'", int(name.size()), name.data());
  o.op = OptOp(i);
  if (o.op == OptOp::kNoLocals) {
    if (sp != std::string_view::npos)
      return make_error(Errc::kParse, "parse_opt: NOLOCALS takes no arguments");
    return o;
  }
  long long a = 0, b = 0;
  int used = 0;
  const std::string rest(sp == std::string_view::npos ? "" : text.substr(sp + 1));
  if (std::sscanf(rest.c_str(), "%lld %lld%n", &a, &b, &used) != 2 || size_t(used) != rest.size())
    return make_error(Errc::kParse, "parse_opt: '%.*s': expected '<OP> <axis> <amount>'",
                      int(text.size()), text.data());
  o.axis = a;
  o.arg = b;
  return o;
}

int64_t KernelAxis::size() const {
  const Ref s = range->src(0);
  return s->op() == Op::kConst && s->arg().kind() == ArgKind::kInt ? s->arg().as_int() : -1;
}

Result<OptKernel> OptKernel::create(Ref sink) {
  if (!sink || sink->op() != Op::kSink)
    return make_error(Errc::kInvalidArgument, "OptKernel: the kernel root must be a SINK");
  for (Ref s : sink->src())
    if (s->op() != Op::kStore && s->op() != Op::kEnd)
      return make_error(Errc::kInvalidArgument,
                        "OptKernel: SINK source %%%u is %.*s, expected STORE or END", s->id(),
                        int(op_name(s->op()).size()), op_name(s->op()).data());
  OptKernel k;
  k.sink_ = sink;
  std::vector<Ref> ranges;
  for (Ref n : sink->ctx().toposort(sink))
    if (n->op() == Op::kRange) {
      const auto a = n->arg().as_ints();
      if (a.empty())
        return make_error(Errc::kInvalidArgument, "OptKernel: RANGE %%%u has no axis id", n->id());
      ranges.push_back(n);
      k.next_axis_id_ = std::max(k.next_axis_id_, a[0] + 1);
    }
  auto kind = [](Ref r) {
    const auto a = r->arg().as_ints();
    return a.size() >= 2 ? a[1] : kAxisLoop;
  };
  // (std::sort: clang-19 rejects libstdc++ 12's stable_sort, get_temporary_buffer is deprecated)
  std::sort(ranges.begin(), ranges.end(), [&](Ref a, Ref b) {
    if (kind(a) != kind(b)) return kind(a) < kind(b);
    const int64_t xa = a->arg().as_ints()[0], xb = b->arg().as_ints()[0];
    return xa != xb ? xa < xb : a->id() < b->id();
  });
  for (Ref r : ranges)
    k.axes_.push_back({r, kind(r) == kAxisReduce ? AxisType::kReduce : AxisType::kLoop, 0});
  return k;
}

// Splits axis i (constant size n, amt | n) into the old axis (size n/amt) and a new axis of
// size amt and type new_type: r = outer*amt + inner (top: r = inner*(n/amt) + outer). The new
// axis is appended (top: inserted at 0). Returns the new RANGE.
Ref OptKernel::split(size_t i, int64_t amt, AxisType new_type, bool top) {
  Context& c = sink_->ctx();
  const int64_t n = axes_[i].size();
  const Ref old = axes_[i].range;
  const Ref outer = c.range(n / amt, next_axis_id_++, range_kind(axes_[i].type));
  const Ref inner = c.range(amt, next_axis_id_++, range_kind(new_type));
  const Ref expr = top ? inner * (n / amt) + outer : outer * amt + inner;
  const Ref closes_new[] = {outer, inner};
  sink_ = replace_range(sink_, old, expr, closes_new);
  axes_[i].range = outer;
  const KernelAxis na{inner, new_type, 0};
  if (top)
    axes_.insert(axes_.begin(), na);
  else
    axes_.push_back(na);
  return inner;
}

Status OptKernel::apply(const Opt& opt) {
  OptKernel saved = *this;
  Status st = apply_impl(opt);
  if (!st.ok()) {
    *this = std::move(saved);
    return st;
  }
  applied_.push_back(opt);
  return ok_status();
}

Status OptKernel::apply_all(std::span<const Opt> opts) {
  for (size_t i = 0; i < opts.size(); ++i)
    RG_TRY_CTX(apply(opts[i]), "opt %zu of %zu", i + 1, opts.size());
  return ok_status();
}

// TC: validated here against the strictest tile (16x16x16); gpu_lower re-checks per target.
Status OptKernel::apply_tc(const Opt& opt) {
  using E = KernelOptErrc;
  if (!applied_.empty()) return opt_error(opt, E::kConflict, "TC must be the first opt");
  if (opt.axis != 0 || opt.arg != 0)
    return opt_error(opt, E::kBadAmount, "TC takes axis 0 and amount 0");
  const MatmulMatch m = RG_TRY(tc_match(sink_));
  if (m.m % 16 || m.n % 16 || m.k % 16)
    return opt_error(opt, E::kNotDivisible, "matmul %lldx%lldx%lld is not a multiple of 16",
                     (long long)m.m, (long long)m.n, (long long)m.k);
  tc_ = true;
  return ok_status();
}

Status OptKernel::apply_impl(const Opt& opt) {
  using E = KernelOptErrc;
  if (tc_) return opt_error(opt, E::kConflict, "no opt may follow TC");
  if (opt.op == OptOp::kTc) return apply_tc(opt);
  if (opt.op == OptOp::kNoLocals) {
    for (const KernelAxis& a : axes_)
      if (a.type == AxisType::kLocal || a.type == AxisType::kGroupReduce)
        return opt_error(opt, E::kConflict, "a LOCAL/GROUP opt was already applied");
    if (nolocals_) return opt_error(opt, E::kConflict, "NOLOCALS was already applied");
    nolocals_ = true;
    return ok_status();
  }
  if (opt.axis < 0 || opt.axis >= int64_t(axes_.size()))
    return opt_error(opt, E::kBadAxis, "axis %lld does not exist (the kernel has %zu axes)",
                     (long long)opt.axis, axes_.size());
  const size_t i = size_t(opt.axis);
  KernelAxis& ax = axes_[i];
  const AxisType t = ax.type;
  const int64_t n = ax.size();
  const std::string_view tn = axis_type_name(t);
  auto need_type = [&](bool ok, const char* what) -> Status {
    if (!ok)
      return opt_error(opt, E::kWrongAxisType, "axis %zu is a %.*s axis, expected %s", i,
                       int(tn.size()), tn.data(), what);
    return ok_status();
  };
  auto need_split = [&](int64_t amt) -> Status {
    if (n < 0)
      return opt_error(opt, E::kSymbolicSize, "axis %zu has a symbolic size (%s)", i,
                       expr_string(ax.range->src(0)).c_str());
    if (amt <= 1 || amt > n)
      return opt_error(opt, E::kBadAmount, "amount %lld must be in [2, %lld] for axis %zu",
                       (long long)amt, (long long)n, i);
    if (n % amt != 0)
      return opt_error(opt, E::kNotDivisible, "axis %zu (size %lld) is not a multiple of %lld", i,
                       (long long)n, (long long)amt);
    return ok_status();
  };
  auto expand_product = [&]() {
    int64_t p = 1;
    for (const KernelAxis& a : axes_)
      if (a.type == AxisType::kUpcast || a.type == AxisType::kUnroll) p *= a.size();
    return p;
  };

  switch (opt.op) {
    case OptOp::kUpcast:
    case OptOp::kUnroll: {
      const bool up = opt.op == OptOp::kUpcast;
      RG_TRY(
          need_type(up ? (t == AxisType::kLoop || t == AxisType::kGlobal) : t == AxisType::kReduce,
                    up ? "an output (loop) axis" : "a reduction axis"));
      const int64_t amt = opt.arg == 0 ? n : opt.arg;
      if (opt.arg == 0 && n < 0)
        return opt_error(opt, E::kSymbolicSize, "axis %zu has a symbolic size", i);
      if (!(opt.arg == 0 && n == 1)) RG_TRY(need_split(amt));
      if (expand_product() * amt > kMaxExpand)
        return opt_error(opt, E::kTooLarge, "%lld x %lld values per iteration exceed %lld",
                         (long long)expand_product(), (long long)amt, (long long)kMaxExpand);
      const AxisType nt = up ? AxisType::kUpcast : AxisType::kUnroll;
      if (amt == n) {
        ax.type = nt;  // the whole axis: retyped in place (no index changes)
      } else {
        split(i, amt, nt, false);
      }
      return ok_status();
    }
    case OptOp::kThread: {
      RG_TRY(need_type(t == AxisType::kLoop || t == AxisType::kGlobal, "an output (loop) axis"));
      for (const KernelAxis& a : axes_)
        if (a.type == AxisType::kThread)
          return opt_error(opt, E::kConflict, "the kernel already has a THREAD axis");
      if (opt.arg > kMaxThreads)
        return opt_error(opt, E::kTooLarge, "%lld threads exceed %lld", (long long)opt.arg,
                         (long long)kMaxThreads);
      RG_TRY(need_split(opt.arg));
      if (opt.arg == n) {
        KernelAxis moved = ax;
        moved.type = AxisType::kThread;
        axes_.erase(axes_.begin() + int64_t(i));
        axes_.insert(axes_.begin(), moved);
      } else {
        split(i, opt.arg, AxisType::kThread, true);
      }
      return ok_status();
    }
    case OptOp::kSwap: {
      if (opt.arg < 0 || opt.arg >= int64_t(axes_.size()) || opt.arg == opt.axis)
        return opt_error(opt, E::kBadAxis, "cannot swap axis %lld with axis %lld",
                         (long long)opt.axis, (long long)opt.arg);
      const AxisType u = axes_[size_t(opt.arg)].type;
      const bool both_out = (t == AxisType::kLoop || t == AxisType::kGlobal) &&
                            (u == AxisType::kLoop || u == AxisType::kGlobal);
      const bool both_red = t == AxisType::kReduce && u == AxisType::kReduce;
      if (!both_out && !both_red)
        return opt_error(opt, E::kWrongAxisType,
                         "SWAP needs two output (loop) axes or two reduction axes, got %.*s "
                         "and %.*s",
                         int(tn.size()), tn.data(), int(axis_type_name(u).size()),
                         axis_type_name(u).data());
      std::swap(axes_[i], axes_[size_t(opt.arg)]);
      return ok_status();
    }
    case OptOp::kPadto: {
      RG_TRY(need_type(t == AxisType::kLoop || t == AxisType::kGlobal || t == AxisType::kReduce,
                       "a loop or reduction axis"));
      if (n < 0) return opt_error(opt, E::kSymbolicSize, "axis %zu has a symbolic size", i);
      if (opt.arg <= 1)
        return opt_error(opt, E::kBadAmount, "amount %lld must be at least 2", (long long)opt.arg);
      if (n % opt.arg == 0)
        return opt_error(opt, E::kNoEffect, "axis %zu (size %lld) is already a multiple of %lld", i,
                         (long long)n, (long long)opt.arg);
      const int64_t padded = (n + opt.arg - 1) / opt.arg * opt.arg;
      if (padded > 2 * n)
        return opt_error(opt, E::kBadAmount,
                         "padding axis %zu from %lld to %lld more than doubles it", i, (long long)n,
                         (long long)padded);
      Context& c = sink_->ctx();
      const Ref old = ax.range;
      const Ref nr = c.range(padded, next_axis_id_++, range_kind(t));
      const Ref closes_new[] = {nr};
      Ref s = replace_range(sink_, old, nr, closes_new);
      const Ref valid = cmplt(nr, n);
      // Gate every access whose index depends on the padded range, and make a padded reduction
      // iteration contribute the identity of its op.
      std::unordered_map<const Node*, Ref> m;
      for (Ref x : c.toposort(s)) {
        std::vector<Ref> src;
        for (Ref y : x->src()) src.push_back(m.at(y.get()));
        Ref y = c.replace_src(x, src);
        if (y->op() == Op::kIndex && y->nsrc() >= 2) {
          const auto rs = y->src(1)->ranges();
          if (std::find(rs.begin(), rs.end(), nr) != rs.end()) {
            std::vector<Ref> s2(y->src().begin(), y->src().end());
            const Ref idx = s2[1];
            if (idx->op() == Op::kWhere && idx->src(2)->is_invalid())
              s2[1] = where(valid & idx->src(0), idx->src(1), idx->src(2));
            else
              s2[1] = where(valid, idx, c.invalid(idx->dtype()));
            y = c.replace_src(y, s2);
          }
        } else if ((y->op() == Op::kIDiv || y->op() == Op::kMod) && is_int(y->dtype()) &&
                   y->src(1)->op() != Op::kConst) {
          // A padded iteration reads zeros: an integer division by a value that depends on the
          // padded range would trap (SIGFPE) there. Divide by 1 instead outside the valid range.
          const auto rs = y->src(1)->ranges();
          if (std::find(rs.begin(), rs.end(), nr) != rs.end()) {
            const Ref d = y->src(1);
            const Ref safe = where(valid, d, c.cconst(1, d->dtype()));
            y = c.replace_src(y, std::vector<Ref>{y->src(0), safe});
          }
        } else if (y->op() == Op::kReduce && closes(y, nr)) {
          std::vector<Ref> s2(y->src().begin(), y->src().end());
          s2[0] = where(valid, s2[0], reduce_identity(c, y->arg().as_op(), y->dtype()));
          y = c.replace_src(y, s2);
        }
        m[x.get()] = y;
      }
      sink_ = m.at(s.get());
      ax.range = nr;
      return ok_status();
    }
    case OptOp::kLocal: {
      RG_TRY(need_type(t == AxisType::kLoop || t == AxisType::kGlobal, "an output (loop) axis"));
      if (nolocals_) return opt_error(opt, E::kConflict, "NOLOCALS was applied");
      if (group_) return opt_error(opt, E::kConflict, "GROUP gives output axes work-group size 1");
      RG_TRY(need_split(opt.arg));
      int64_t threads = opt.arg;
      for (const KernelAxis& a : axes_)
        if (a.type == AxisType::kLocal) threads *= a.local;
      if (threads > kMaxLocal)
        return opt_error(opt, E::kTooLarge, "%lld threads per work-group exceed %lld",
                         (long long)threads, (long long)kMaxLocal);
      ax.type = AxisType::kLocal;
      ax.local = opt.arg;
      return ok_status();
    }
    case OptOp::kGroup:
    case OptOp::kGroupTop: {
      if (group_) return opt_error(opt, E::kConflict, "the kernel already has a GROUP axis");
      RG_TRY(need_type(t == AxisType::kReduce, "a reduction axis"));
      if (nolocals_) return opt_error(opt, E::kConflict, "NOLOCALS was applied");
      for (const KernelAxis& a : axes_)
        if (a.type == AxisType::kLocal)
          return opt_error(opt, E::kConflict, "GROUP gives output axes work-group size 1");
      RG_TRY(need_split(opt.arg));
      if (opt.arg > kMaxLocal)
        return opt_error(opt, E::kTooLarge, "%lld lanes exceed %lld", (long long)opt.arg,
                         (long long)kMaxLocal);
      for (Ref x : sink_->ctx().toposort(sink_))
        if (x->op() == Op::kReduce && closes(x, ax.range) && x->nsrc() != 2)
          return opt_error(opt, E::kUnsupported,
                           "the REDUCE %%%u closes %zu axes; GROUP needs its only axis", x->id(),
                           x->nsrc() - 1);
      ax.type = AxisType::kGroupReduce;
      group_ = opt.arg;
      group_top_ = opt.op == OptOp::kGroupTop;
      return ok_status();
    }
    case OptOp::kNoLocals:
    case OptOp::kTc: break;
  }
  return opt_error(opt, E::kUnsupported, "unknown opt");
}

Ref OptKernel::ast() const {
  Context& c = sink_->ctx();
  Ref s = sink_;
  // UNROLL: each REDUCE closing an unrolled axis reduces the op-combination of its values.
  for (const KernelAxis& a : axes_) {
    if (a.type != AxisType::kUnroll) continue;
    const Ref u = a.range;
    const int64_t n = a.size();
    std::unordered_map<const Node*, Ref> m;
    for (Ref x : c.toposort(s)) {
      std::vector<Ref> src;
      for (Ref y : x->src()) src.push_back(m.count(y.get()) ? m.at(y.get()) : y);
      if (x->op() == Op::kReduce && closes(x, u)) {
        const Op rop = x->arg().as_op();
        Ref v;
        for (int64_t k = 0; k < n; ++k) {
          const Ref vk = substitute(src[0], {{u, c.cint(k)}});
          v = v ? combine(rop, v, vk) : vk;
        }
        std::vector<Ref> rest{v};
        for (size_t j = 1; j < src.size(); ++j)
          if (x->src(j) != u) rest.push_back(src[j]);
        m[x.get()] = rest.size() == 1 ? v : c.make(Op::kReduce, x->dtype(), rest, x->arg());
      } else {
        m[x.get()] = c.replace_src(x, src);
      }
    }
    s = m.at(s.get());
  }
  // UPCAST: each store depending on an upcast axis becomes one store per value of the axis.
  for (const KernelAxis& a : axes_) {
    if (a.type != AxisType::kUpcast) continue;
    const Ref u = a.range;
    std::vector<Ref> stores;
    for (Ref st : s->src()) {
      Ref body = st;
      if (st->op() == Op::kEnd && closes(st, u)) {
        std::vector<Ref> src{st->src(0)};
        for (size_t j = 1; j < st->nsrc(); ++j)
          if (st->src(j) != u) src.push_back(st->src(j));
        body = src.size() == 1 ? src[0] : c.replace_src(st, src);
      }
      const auto rs = body->ranges();
      if (std::find(rs.begin(), rs.end(), u) == rs.end()) {
        stores.push_back(body);
        continue;
      }
      for (int64_t k = 0; k < a.size(); ++k) stores.push_back(substitute(body, {{u, c.cint(k)}}));
    }
    s = c.make(Op::kSink, DType::kVoid, stores, s->arg());
  }
  // Renumber the remaining axes by position (the linearizer nests loops by kind, then axis id).
  std::unordered_map<Ref, Ref> ren;
  int64_t pos = 0;
  for (const KernelAxis& a : axes_) {
    if (a.type == AxisType::kUpcast || a.type == AxisType::kUnroll) continue;
    const auto old = a.range->arg().as_ints();
    ren[a.range] = c.range(a.range->src(0), pos++, old.size() >= 2 ? old[1] : kAxisLoop);
  }
  return ren.empty() ? s : substitute(s, ren);
}

GpuOptions OptKernel::gpu_options() const {
  GpuOptions o;
  o.group = group_;
  o.group_top = group_top_;
  o.tensor_cores = tc_;
  bool any_local = nolocals_;
  std::vector<int64_t> local;
  for (const KernelAxis& a : axes_) {
    if (!is_output_axis(a.type)) continue;
    local.push_back(a.type == AxisType::kLocal ? a.local : 1);
    any_local |= a.type == AxisType::kLocal;
  }
  if (any_local) o.local = std::move(local);
  return o;
}

std::string OptKernel::to_string() const {
  std::string s = "axes:";
  for (size_t i = 0; i < axes_.size(); ++i) {
    const std::string_view tn = axis_type_name(axes_[i].type);
    const int64_t n = axes_[i].size();
    s += strformat(" %zu:%.*s(%s)", i, int(tn.size()), tn.data(),
                   n < 0 ? expr_string(axes_[i].range->src(0)).c_str() : std::to_string(n).c_str());
  }
  s += " | opts:";
  for (const Opt& o : applied_) s += " [" + o.to_string() + "]";
  return s;
}

// ---- CPU heuristic ------------------------------------------------------------------------
namespace {

bool depends_on(Ref n, Ref r) {
  const auto rs = n->ranges();
  return std::find(rs.begin(), rs.end(), r) != rs.end();
}

// The value under CASTs.
Ref strip_casts(Ref n) {
  while (n->op() == Op::kCast) n = n->src(0);
  return n;
}

// The (unmasked) index expression of an INDEX node.
Ref index_expr(Ref index) {
  Ref i = index->src(1);
  if (i->op() == Op::kWhere && i->src(2)->is_invalid()) i = i->src(1);
  return i;
}

// Whether stepping range r by one moves index expression `i` by exactly one element.
bool stride_one(Ref i, Ref r) {
  if (!depends_on(i, r)) return false;
  const Ref next = substitute(i, {{r, r + r->ctx().cint(1)}});
  return simplify(next - i)->is_int_const(1);
}

struct KernelFacts {
  std::vector<Ref> loads, stores, reduces;
};
KernelFacts facts(Ref sink) {
  KernelFacts f;
  for (Ref n : sink->ctx().toposort(sink)) {
    if (n->op() == Op::kLoad) f.loads.push_back(n);
    if (n->op() == Op::kStore) f.stores.push_back(n);
    if (n->op() == Op::kReduce) f.reduces.push_back(n);
  }
  return f;
}

// Applies o to k if legal; returns whether it did (an illegal step is simply skipped).
bool try_apply(OptKernel& k, std::vector<Opt>& out, const Opt& o) {
  if (!k.apply(o).ok()) return false;
  out.push_back(o);
  return true;
}

int64_t first_divisor(int64_t n, std::initializer_list<int64_t> cands) {
  for (int64_t c : cands)
    if (c > 1 && n >= c && n % c == 0) return c;
  return 0;
}

// The two operands and output axes of a matmul-like kernel (see step 2 below); all null when
// `f` is not one.
struct MatmulAxes {
  Ref a, b;  // LOAD nodes (under casts): a reads m, b reads n with stride 1
  Ref m, n;  // output RANGEs
};
MatmulAxes find_matmul(const KernelFacts& f, const std::vector<Ref>& outputs,
                       const std::vector<Ref>& reduces) {
  if (f.reduces.size() != 1 || reduces.size() != 1 || f.reduces[0]->arg().as_op() != Op::kAdd ||
      !is_float(f.reduces[0]->dtype()))
    return {};
  const Ref v = strip_casts(f.reduces[0]->src(0));
  if (v->op() != Op::kMul) return {};
  const Ref a = strip_casts(v->src(0)), b = strip_casts(v->src(1));
  if (a->op() != Op::kLoad || b->op() != Op::kLoad) return {};
  auto store_stride_one = [&](Ref r) {
    for (Ref st : f.stores)
      if (stride_one(index_expr(st->src(0)), r)) return true;
    return false;
  };
  for (int pass = 0; pass < 2; ++pass) {
    const Ref A = pass == 0 ? a : b, B = pass == 0 ? b : a;
    Ref cn, cm;
    for (Ref r : outputs) {
      if (!depends_on(A, r) && stride_one(index_expr(B->src(0)), r) && (!cn || store_stride_one(r)))
        cn = r;
      if (!depends_on(B, r) && depends_on(A, r)) cm = r;
    }
    if (cn && cm) return {A, B, cm, cn};
  }
  return {};
}

int64_t matmul_tile_cols(int64_t n, const HeuristicOptions& o) {
  return first_divisor(n, {o.tile_cols, o.tile_cols / 2, o.tile_cols / 4, 4});
}

}  // namespace

// CPU heuristic, step by step. Axis indices are looked up again after every opt because splits
// append new axes.
//  1. Only fresh kernels (no opts yet) with constant-size output axes are considered.
//  2. Matmul-like: one ADD REDUCE over MUL(load A, load B) (through casts), an output axis `n`
//     that A does not read and B reads with stride 1 (the store's stride-1 axis too when
//     possible), and an output axis `m` that B does not read. Register tile: UPCAST n by
//     tile_cols and m by tile_rows (falling back to smaller powers of two that divide), so
//     each iteration of the reduce loop loads tile_rows values of A and tile_cols contiguous
//     values of B and does tile_rows x tile_cols multiply-adds into accumulators that stay in
//     registers (the back end fuses them into FMAs and LLVM's SLP vectorizer packs the
//     contiguous columns into vector registers). The reduce loop itself stays a loop (LLVM
//     unrolls it); unrolling it here would turn the FMA chains into add trees. The default
//     4x16 f32 tile is 8 ymm accumulators + 2 B vectors + broadcasts of A, which fits the 16
//     AVX2 registers (4x32 spilled: 16 accumulators alone fill them). Then SWAP puts the row
//     loop inside the column loop (one K x 16 panel of B stays in L2 for all row tiles) and
//     THREAD cuts the row tiles into blocks of >= 256 rows, a power of two times the thread
//     count (the outermost loop; a block of A stays in L3 while the column loop sweeps B).
//     The runtime also packs B for such kernels (pack_matmul_operand).
//  3. Other kernels with a reduction: UPCAST the store's stride-1 output axis by 4 or 8 (several
//     independent accumulators, contiguous stores), then UNROLL the innermost reduce axis fully
//     when it has at most 32 iterations, else by 4 (shorter dependency chains per iteration).
//     Upcasts stop at 64 values per iteration.
//  4. Masked axes: an output axis of size <= 7 that appears in a WHERE gate of a load (conv
//     padding) is fully UPCAST when the product of such upcasts stays <= 49, so the gates
//     become compile-time constants per value.
//  5. Threads: THREAD the outermost remaining output loop by `threads` when it divides and the
//     kernel has at least 2^16 multiply-adds or elements per thread; the runtime then gives
//     each pool thread one contiguous block. Elementwise kernels without a reduction are left
//     alone otherwise: LLVM's loop vectorizer already vectorizes their stride-1 inner loop.
std::vector<Opt> hand_coded_opts(const OptKernel& k0, const HeuristicOptions& o) {
  std::vector<Opt> out;
  if (!k0.applied().empty()) return out;
  for (const KernelAxis& a : k0.axes())
    if (a.size() < 0) return out;
  OptKernel k = k0;
  // Facts from the simplified AST: the scheduler's raw indices mention ranges they do not
  // really depend on ((i*96 + j) // 96). RANGE leaves are unchanged by simplify.
  const KernelFacts f = facts(simplify(k.sink()));
  auto axis_index = [&](Ref r) -> int64_t {
    for (size_t i = 0; i < k.axes().size(); ++i)
      if (k.axes()[i].range == r) return int64_t(i);
    return -1;
  };
  auto expand = [&]() {
    int64_t p = 1;
    for (const KernelAxis& a : k.axes())
      if (a.type == AxisType::kUpcast || a.type == AxisType::kUnroll) p *= a.size();
    return p;
  };
  auto store_stride_one = [&](Ref r) {
    for (Ref st : f.stores)
      if (stride_one(index_expr(st->src(0)), r)) return true;
    return false;
  };
  // Ranges of the original kernel axes (k0's ranges are the ones in sink before any opt).
  std::vector<Ref> outputs, reduces;
  for (const KernelAxis& a : k0.axes())
    (a.type == AxisType::kReduce ? reduces : outputs).push_back(a.range);
  int64_t out_elems = 1, red_elems = 1;
  for (Ref r : outputs) out_elems *= r->src(0)->arg().as_int();
  for (Ref r : reduces) red_elems *= r->src(0)->arg().as_int();

  // Step 2: matmul-like.
  const MatmulAxes mmx = find_matmul(f, outputs, reduces);
  const bool matmul = bool(mmx.n);
  if (matmul) {
    // Splits keep the split axis at its index (the new axis is appended): ni and mi stay valid.
    int64_t ni = axis_index(mmx.n), mi = axis_index(mmx.m);
    const int64_t nn = mmx.n->src(0)->arg().as_int(), mm = mmx.m->src(0)->arg().as_int();
    const int64_t cols = matmul_tile_cols(nn, o);
    if (cols) try_apply(k, out, {OptOp::kUpcast, ni, cols});
    const int64_t rows = first_divisor(mm, {o.tile_rows, o.tile_rows / 2, 2});
    if (rows && expand() * rows <= OptKernel::kMaxExpand)
      try_apply(k, out, {OptOp::kUpcast, mi, rows});
    // Loop order: the row loop inside the column loop, so one column panel of B (K x cols)
    // stays in L2 while every row tile of A passes by.
    if (mi < ni && try_apply(k, out, {OptOp::kSwap, mi, ni})) std::swap(mi, ni);
    // Row blocks of ~256 rows as the outermost (THREAD) loop: a block of A (256 x K) stays in
    // L3 while the column loop sweeps B, and the blocks are what the pool threads share out.
    // With one thread the blocks are just the outermost loop.
    const int64_t threads = std::max(o.threads, 1);
    if (out_elems * red_elems / threads >= (int64_t{1} << 16)) {
      const int64_t tiles = k.axes()[size_t(mi)].size();
      const int64_t row_tile = rows ? rows : 1;
      int64_t blocks = threads;
      while (tiles % (blocks * 2) == 0 && tiles / (blocks * 2) * row_tile >= 256) blocks *= 2;
      if (blocks > 1 && tiles % blocks == 0) try_apply(k, out, {OptOp::kThread, mi, blocks});
    }
  }
  // Step 3: other reductions.
  if (!matmul && !reduces.empty()) {
    for (Ref r : outputs) {
      if (!store_stride_one(r)) continue;
      const int64_t amt = first_divisor(r->src(0)->arg().as_int(), {8, 4});
      if (amt) try_apply(k, out, {OptOp::kUpcast, axis_index(r), amt});
      break;
    }
    const Ref last = reduces.back();
    const int64_t rn = last->src(0)->arg().as_int();
    if (rn > 1 && expand() * rn <= 64 && rn <= 32)
      try_apply(k, out, {OptOp::kUnroll, axis_index(last), 0});
    else if (rn % 4 == 0 && expand() * 4 <= 64)
      try_apply(k, out, {OptOp::kUnroll, axis_index(last), 4});
  }
  // Step 4: small masked axes.
  {
    int64_t prod = 1;
    for (Ref r : outputs) {
      const int64_t idx = axis_index(r);
      if (idx < 0 || k.axes()[size_t(idx)].type != AxisType::kLoop) continue;
      const int64_t n = r->src(0)->arg().as_int();
      if (n < 2 || n > 7 || prod * n > 49 || expand() * n > 64) continue;
      bool gated = false;
      for (Ref l : f.loads) {
        const Ref i = l->src(0)->src(1);
        gated |= i->op() == Op::kWhere && i->src(2)->is_invalid() && depends_on(i->src(0), r);
      }
      if (gated && try_apply(k, out, {OptOp::kUpcast, idx, 0})) prod *= n;
    }
  }
  // Step 5: threads.
  if (o.threads > 1) {
    const int64_t work = out_elems * red_elems;
    if (work / o.threads >= (int64_t{1} << 16)) {
      for (size_t i = 0; i < k.axes().size(); ++i) {
        const KernelAxis& a = k.axes()[i];
        if (a.type != AxisType::kLoop) continue;
        if (a.size() % o.threads == 0) try_apply(k, out, {OptOp::kThread, int64_t(i), o.threads});
        break;
      }
    }
  }
  return out;
}

std::optional<PackedOperand> pack_matmul_operand(Ref sink, const HeuristicOptions& o) {
  if (!o.pack) return std::nullopt;
  auto k = OptKernel::create(sink);
  if (!k.ok()) return std::nullopt;
  std::vector<Ref> outputs, reduces;
  for (const KernelAxis& a : k->axes()) {
    if (a.size() < 0) return std::nullopt;
    (a.type == AxisType::kReduce ? reduces : outputs).push_back(a.range);
  }
  const Ref simple = simplify(sink);
  const KernelFacts f = facts(simple);
  const MatmulAxes mm = find_matmul(f, outputs, reduces);
  if (!mm.n) return std::nullopt;
  const int64_t kk = reduces[0]->src(0)->arg().as_int();
  const int64_t rows = mm.m->src(0)->arg().as_int(), cols = mm.n->src(0)->arg().as_int();
  const int64_t w = matmul_tile_cols(cols, o);
  // Packing costs one pass over B; it pays when every B element is reused by many rows.
  if (w == 0 || kk < o.pack_min || rows < o.pack_min) return std::nullopt;
  const Ref index = mm.b->src(0);
  const Ref buf = index->src(0);
  const Ref p = index->src(1);
  if (buf->op() != Op::kBuffer || p->op() == Op::kWhere) return std::nullopt;  // masked: no
  const auto barg = buf->arg().as_ints();
  if (barg.size() != 2) return std::nullopt;  // a local buffer (GPU) or no count
  const int64_t count = barg[1];
  // The row stride of B: how far one step of the reduction moves its index.
  Context& c = sink->ctx();
  const Ref kr = reduces[0];
  const Ref step = simplify(substitute(p, {{kr, kr + c.cint(1)}}) - p);
  if (step->op() != Op::kConst || step->arg().kind() != ArgKind::kInt) return std::nullopt;
  const int64_t s = step->arg().as_int();
  if (s < w || s % w != 0 || count % s != 0) return std::nullopt;
  const int64_t r = count / s;
  // Packed layout: B seen as r rows of s elements, cut into s/w column panels of width w, each
  // panel stored row after row: element (row, col) at (col / w) * (r * w) + row * w + col % w.
  auto packed = [&](Ref row, Ref col) { return col / w * (r * w) + row * w + col % w; };
  const Ref np = simplify(packed(p / s, p % s));
  // Once the heuristic upcasts n by w (n = n' * w + lane), the packed index must be affine
  // again (no division or modulo left), else packing only adds work.
  {
    int64_t next = 0;
    for (Ref x : c.toposort(sink))
      if (x->op() == Op::kRange) next = std::max(next, x->arg().as_ints()[0] + 1);
    const Ref split = c.range(cols / w, next, kAxisLoop) * w + c.range(w, next + 1, kAxisLoop);
    for (Ref x : c.toposort(simplify(substitute(np, {{mm.n, split}}))))
      if (x->op() == Op::kIDiv || x->op() == Op::kMod) return std::nullopt;
  }
  int64_t slots = 0;
  for (Ref x : c.toposort(sink))
    if (x->op() == Op::kBuffer) slots = std::max(slots, x->arg().as_ints()[0] + 1);
  const int64_t nb[] = {slots, count};
  const Ref pbuf = c.make(Op::kBuffer, buf->dtype(), {}, Arg::ints(nb));
  const Ref nindex = c.make(Op::kIndex, index->dtype(), {pbuf, np});
  // Only this load reads the packed copy (the other operand may read the same buffer).
  const Ref nload = c.replace_src(mm.b, std::vector<Ref>{nindex});
  PackedOperand out;
  out.kernel = substitute(simple, {{mm.b, nload}});
  if (out.kernel == simple) return std::nullopt;
  out.slot = barg[0];
  out.packed_slot = slots;
  out.count = count;
  // The pack kernel: slot 0 the packed copy, slot 1 the operand; rows outermost, each row
  // read front to back, its w-wide pieces written to their panels.
  const Ref row = c.range(r, 0, kAxisLoop), panel = c.range(s / w, 1, kAxisLoop),
            lane = c.range(w, 2, kAxisLoop);
  const int64_t d0[] = {0, count}, d1[] = {1, count};
  const Ref dst = c.make(Op::kBuffer, buf->dtype(), {}, Arg::ints(d0));
  const Ref src = c.make(Op::kBuffer, buf->dtype(), {}, Arg::ints(d1));
  const Ref v = c.make(Op::kLoad, mm.b->dtype(),
                       {c.make(Op::kIndex, index->dtype(), {src, row * s + panel * w + lane})});
  const Ref st =
      c.make(Op::kStore, DType::kVoid,
             {c.make(Op::kIndex, index->dtype(), {dst, panel * (r * w) + row * w + lane}), v});
  out.pack = c.make(Op::kSink, DType::kVoid, {st});
  return out;
}

Result<ProgramSpec> compile_gpu_optimized(Ref sink, std::string_view name, const GpuTarget& target,
                                          std::span<const Opt> opts, GpuOptions base) {
  auto k = RG_TRY(OptKernel::create(sink));
  RG_TRY(k.apply_all(opts));
  const GpuOptions go = k.gpu_options();
  base.local = go.local;
  base.group = go.group;
  base.group_top = go.group_top;
  base.tensor_cores = go.tensor_cores;
  auto spec = RG_TRY(compile_gpu(k.ast(), name, target, base));
  std::vector<std::string> notes;
  for (const Opt& o : k.applied()) notes.push_back("OPT " + o.to_string());
  notes.insert(notes.end(), spec.gpu.applied_opts.begin(), spec.gpu.applied_opts.end());
  spec.gpu.applied_opts = std::move(notes);
  spec.ast = sink;
  return spec;
}

Result<std::vector<Opt>> rebuild_opts(std::span<const std::string> applied_opts) {
  std::vector<Opt> out;
  for (const std::string& s : applied_opts) {
    if (s.rfind("OPT ", 0) != 0) continue;
    auto o = RG_TRY(parse_opt(std::string_view(s).substr(4)));
    out.push_back(o);
  }
  return out;
}

}  // namespace rawgpu::compiler
