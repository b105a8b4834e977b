// GPU lowering, barrier insertion and the compile-only device (see rawgpu/compiler/gpu.h).
// No LLVM here: code generation is behind gpu_llvm.h.
#include "rawgpu/compiler/gpu.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "gpu_llvm.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/process.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/symbolic.h"
#include "rawgpu/compiler/tensor_core.h"
#include "rawgpu/compiler/transcendental.h"
#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/nv/cubin.h"

namespace rawgpu::compiler {
namespace {

constexpr std::string_view kTargetNames[] = {"gfx1100", "gfx1200", "gfx1201", "gfx942", "sm_80",
                                             "sm_86",   "sm_89",   "sm_90",   "host"};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int64_t largest_divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

bool is_output_range(Ref r) {
  if (r->op() != Op::kRange) return false;
  const auto a = r->arg().as_ints();
  return a.size() < 2 || a[1] == kAxisLoop;
}

Ref base_buffer(Ref b) {
  while (b->op() == Op::kAfter) b = b->src(0);
  return b;
}

// Gates a store's index with `gate` (where(gate, idx, Invalid); merges an existing mask).
Ref gate_store(Ref store, Ref gate) {
  Context& c = store->ctx();
  const Ref index = store->src(0);
  Ref idx = index->src(1);
  if (idx->op() == Op::kWhere && idx->src(2)->is_invalid())
    idx = where(idx->src(0) & gate, idx->src(1), idx->src(2));
  else
    idx = where(gate, idx, c.invalid(idx->dtype()));
  const Ref srcs[] = {index->src(0), idx};
  const Ref new_index = c.replace_src(index, srcs);
  const Ref ssrc[] = {new_index, store->src(1)};
  return c.replace_src(store, ssrc);
}

}  // namespace

std::span<const std::string_view> gpu_target_names() { return kTargetNames; }

Result<GpuTarget> gpu_target(std::string_view name) {
  GpuTarget t;
  t.name = std::string(name);
  if (name == "gfx1100" || name == "gfx1200" || name == "gfx1201" || name == "gfx942") {
    t.arch = GpuArch::kAmd;
    t.wave = name == "gfx942" ? 64 : 32;
    t.max_threads = 1024;
    t.max_local = {1024, 1024, 1024};
    // Work-groups per dim: the AQL grid is in work-items (2^32 - 1); y and z are kept to
    // 65535 work-groups like the other targets (amd.md 7.4 limits).
    t.max_groups = {(1ull << 31) - 1, 65535, 65535};
    t.max_local_bytes = 64 * 1024;
    return t;
  }
  if (name == "sm_80" || name == "sm_86" || name == "sm_89" || name == "sm_90") {
    t.arch = GpuArch::kNv;
    t.wave = 32;
    t.max_threads = 1024;
    t.max_local = {1024, 1024, 64};
    t.max_groups = {(1ull << 31) - 1, 65535, 65535};
    t.max_local_bytes = 48 * 1024;  // static shared memory
    return t;
  }
  if (name == "host") return t;
  return std::move(
      make_error(Errc::kInvalidArgument, "unknown GPU target '%.*s'", int(name.size()), name.data())
          .with_hint("targets: gfx1100 gfx1200 gfx1201 gfx942 sm_80 sm_86 sm_89 "
                     "sm_90 host"));
}

// ---------------------------------------------------------------------------------------------
// GPU lowering

Result<GpuKernel> gpu_lower(Ref sink, const GpuTarget& target, const GpuOptions& opt) {
  if (!sink || sink->op() != Op::kSink)
    return make_error(Errc::kInvalidArgument, "gpu_lower: the kernel root must be a SINK");
  Context& c = sink->ctx();
  GpuKernel k;
  if (opt.tensor_cores) {
    if (!opt.local.empty() || opt.group > 1)
      return make_error(Errc::kInvalidArgument,
                        "gpu_lower: tensor cores cannot be combined with LOCAL/GROUP");
    const TensorCore tc = RG_TRY(tensor_core_for(target));
    sink = RG_TRY(tc_lower(sink, tc, &k.applied_opts));
  }
  if (target.arch == GpuArch::kHost) {
    k.ast = sink;
    return k;
  }
  auto order = c.toposort(sink);

  // Kernels written with launch ids already (SPECIAL gidx/lidx) keep them.
  bool premapped = false;
  for (Ref n : order)
    if (n->op() == Op::kSpecial) {
      premapped = true;
      const std::string_view nm = n->arg().as_str();
      if (nm.size() != 5 || (nm.substr(0, 4) != "gidx" && nm.substr(0, 4) != "lidx") ||
          nm[4] < '0' || nm[4] > '2' || n->src(0)->op() != Op::kConst)
        return make_error(Errc::kInvalidArgument,
                          "gpu_lower: SPECIAL '%.*s' must be gidx0..2 or lidx0..2 of constant "
                          "size",
                          int(nm.size()), nm.data());
      auto& dim = nm[0] == 'g' ? k.global : k.local;
      dim[size_t(nm[4] - '0')] = n->src(0)->arg().as_int();
    }
  if (premapped) {
    k.ast = sink;
    k.applied_opts.push_back("premapped launch ids");
  } else {
    int64_t max_axis = 0;
    for (Ref n : order)
      if (n->op() == Op::kRange) max_axis = std::max(max_axis, n->arg().as_ints()[0]);
    Ref lane;  // group-reduce lane (lidx0)
    int64_t lanes = 1;

    // GROUP: split single-range reductions across `group` lanes, partials through local
    // memory. Inner reductions first (their closed range must not be substituted).
    // Output axes the reductions read (they become grid dims under GROUP; the others are
    // strided across the lanes).
    std::unordered_set<const Node*> reduce_axes;
    for (Ref n : order)
      if (n->op() == Op::kReduce)
        for (Ref r : n->src(0)->ranges())
          if (is_output_range(r)) reduce_axes.insert(r.get());
    if (opt.group > 1) {
      lanes = opt.group;
      if (lanes > int64_t(target.max_threads))
        return make_error(Errc::kOutOfRange, "gpu_lower: GROUP %lld exceeds %u threads",
                          (long long)lanes, target.max_threads);
      lane = c.make(Op::kSpecial, DType::kIndex, {c.cint(lanes)}, Arg::str("lidx0"));
      std::unordered_set<const Node*> made;
      int64_t local_slot = 0;
      for (bool changed = true; changed;) {
        changed = false;
        for (Ref n : c.toposort(sink)) {
          if (n->op() != Op::kReduce || made.count(n.get()) || n->nsrc() != 2) continue;
          const Ref r = n->src(1);
          if (r->src(0)->op() != Op::kConst) continue;
          const int64_t size = r->src(0)->arg().as_int();
          if (size % lanes != 0 || size < lanes) continue;
          const Op rop = n->arg().as_op();
          // One element per lane (size == lanes): the lane's value is its partial; a REDUCE
          // over a range of size 1 would lose that range to simplification (a REDUCE must
          // close a RANGE).
          Ref partial;
          if (size == lanes) {
            partial = substitute(n->src(0), {{r, lane}});
          } else {
            const Ref r2 = c.range(size / lanes, ++max_axis, kAxisReduce);
            const Ref idx = opt.group_top ? lane * (size / lanes) + r2 : r2 * lanes + lane;
            const Ref v2 = substitute(n->src(0), {{r, idx}});
            partial = c.make(Op::kReduce, n->dtype(), {v2, r2}, Arg::op(rop));
          }
          const int64_t la[] = {local_slot++, lanes, kBufferLocal};
          const Ref lb = c.make(Op::kBuffer, n->dtype(), {}, Arg::ints(la));
          const Ref st = c.make(Op::kStore, DType::kVoid,
                                {c.make(Op::kIndex, n->dtype(), {lb, lane}), partial});
          const Ref after = c.make(Op::kAfter, n->dtype(), {lb, st});
          const Ref kr = c.range(lanes, ++max_axis, kAxisReduce);
          const Ref ld =
              c.make(Op::kLoad, n->dtype(), {c.make(Op::kIndex, n->dtype(), {after, kr})});
          const Ref total = c.make(Op::kReduce, n->dtype(), {ld, kr}, Arg::op(rop));
          made.insert(partial.get());
          made.insert(total.get());
          sink = substitute(sink, {{n, total}});
          k.applied_opts.push_back(strformat("%s %lld on reduce %%%u (%lld elements)",
                                             opt.group_top ? "GROUPTOP" : "GROUP", (long long)lanes,
                                             n->id(), (long long)size));
          changed = true;
          break;
        }
      }
      if (k.applied_opts.empty())
        return make_error(Errc::kInvalidArgument,
                          "gpu_lower: GROUP %lld applies to no reduction (needs one constant "
                          "range whose size it divides)",
                          (long long)lanes);
      k.local[0] = lanes;
    }

    // Output axes -> launch dims: groups of axes, each flattened; innermost group is x.
    std::vector<Ref> outs;
    for (Ref n : c.toposort(sink))
      if (is_output_range(n)) outs.push_back(n);
    std::sort(outs.begin(), outs.end(), [](Ref a, Ref b) {
      return a->arg().as_ints()[0] < b->arg().as_ints()[0] ||
             (a->arg().as_ints()[0] == b->arg().as_ints()[0] && a->id() < b->id());
    });
    // Symbolic output sizes (expressions of DEFINE_VARs) become symbolic work-group counts
    // (ceil(size / local)); the threads past the size are gated off every global access.
    for (Ref r : outs)
      if (r->src(0)->op() != Op::kConst && lanes > 1)
        return make_error(Errc::kUnsupported,
                          "gpu_lower: output axis %lld has a symbolic size; GROUP needs constant "
                          "output sizes",
                          (long long)r->arg().as_ints()[0]);
    std::unordered_map<Ref, Ref> sub;
    if (lanes > 1) {
      std::vector<Ref> grid;
      for (Ref r : outs) {
        const int64_t n = r->src(0)->arg().as_int();
        if (reduce_axes.count(r.get()) || n % lanes != 0) {
          grid.push_back(r);
          continue;
        }
        sub[r] = c.range(n / lanes, r->arg().as_ints()[0], kAxisLoop) * lanes + lane;
        k.applied_opts.push_back(strformat("output axis %lld strided over the %lld lanes",
                                           (long long)r->arg().as_ints()[0], (long long)lanes));
      }
      outs = std::move(grid);
    }
    std::vector<std::vector<Ref>> groups;
    for (Ref r : outs) groups.push_back({r});
    // Constant size of a group of axes, -1 when one is symbolic; gexpr: the size as a node.
    auto gsize = [](const std::vector<Ref>& g) {
      int64_t s = 1;
      for (Ref r : g) {
        if (r->src(0)->op() != Op::kConst) return int64_t(-1);
        s *= r->src(0)->arg().as_int();
      }
      return s;
    };
    auto gexpr = [&](const std::vector<Ref>& g) {
      Ref s;
      for (Ref r : g) s = s ? s * r->src(0) : r->src(0);
      return s;
    };
    while (groups.size() > 3) {  // too many dims: merge the outermost two
      groups[0].insert(groups[0].end(), groups[1].begin(), groups[1].end());
      groups.erase(groups.begin() + 1);
      k.applied_opts.push_back("merge outer output axes (more than 3 dims)");
    }
    // Local sizes per group, innermost first, within the thread budget.
    std::vector<int64_t> lsz(groups.size(), 1);
    if (!opt.local.empty()) {
      if (lanes > 1)
        return make_error(Errc::kInvalidArgument,
                          "gpu_lower: explicit local sizes and GROUP cannot be combined");
      if (opt.local.size() != outs.size() || outs.empty())
        return make_error(Errc::kInvalidArgument,
                          "gpu_lower: %zu local sizes given for %zu output axes", opt.local.size(),
                          outs.size());
      if (groups.size() != outs.size())
        return make_error(Errc::kUnsupported,
                          "gpu_lower: explicit local sizes need at most 3 output axes");
      for (size_t i = 0; i < outs.size(); ++i) {
        const bool sym = outs[i]->src(0)->op() != Op::kConst;
        const int64_t n = sym ? 0 : outs[i]->src(0)->arg().as_int();
        if (opt.local[i] < 1 || (!sym && n % opt.local[i] != 0))
          return make_error(Errc::kInvalidArgument,
                            "gpu_lower: local size %lld does not divide output axis %zu of "
                            "size %lld",
                            (long long)opt.local[i], i, (long long)n);
        lsz[i] = opt.local[i];
      }
    } else if (lanes == 1) {
      int64_t budget = std::min<int64_t>(opt.default_threads, target.max_threads);
      for (size_t gi = groups.size(); gi-- > 0;) {
        const size_t d = groups.size() - 1 - gi;
        const int64_t cap = std::min<int64_t>(budget, target.max_local[d]);
        if (gsize(groups[gi]) < 0) {
          // Symbolic: the largest power of two within the budget and the size's upper bound.
          const int64_t hi = gexpr(groups[gi])->vmax();
          lsz[gi] = 1;
          while (lsz[gi] * 2 <= cap && lsz[gi] * 2 <= hi) lsz[gi] *= 2;
        } else {
          lsz[gi] = largest_divisor_at_most(gsize(groups[gi]), cap);
        }
        budget /= lsz[gi];
      }
    }
    // Grid limits: a group whose work-group count exceeds its dim's limit merges inwards.
    for (bool again = true; again;) {
      again = false;
      for (size_t gi = 0; gi + 1 < groups.size(); ++gi) {
        const size_t d = groups.size() - 1 - gi;
        if (gsize(groups[gi]) >= 0 &&
            uint64_t(gsize(groups[gi]) / lsz[gi]) > target.max_groups[d]) {
          groups[gi + 1].insert(groups[gi + 1].begin(), groups[gi].begin(), groups[gi].end());
          lsz[gi + 1] *= lsz[gi];
          groups.erase(groups.begin() + long(gi));
          lsz.erase(lsz.begin() + long(gi));
          k.applied_opts.push_back("merge output axes (grid limit)");
          again = true;
          break;
        }
      }
    }
    int64_t threads = lanes;
    Ref sym_gate;  // flat < size for every symbolic group whose last work-group may overhang
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const size_t d = groups.size() - 1 - gi;
      const int64_t l = lsz[gi];
      const bool sym = gsize(groups[gi]) < 0;
      const Ref total_e = gexpr(groups[gi]);
      // Work-groups: a constant, or ceil(size / l) as an expression of the variables (its upper
      // bound goes into k.global, the expression into k.global_expr).
      const Ref count = sym ? (total_e + (l - 1)) / l : c.cint(gsize(groups[gi]) / l);
      const int64_t total = sym ? count->vmax() * l : gsize(groups[gi]);
      if (uint64_t(total / l) > target.max_groups[d])
        return make_error(Errc::kOutOfRange,
                          "gpu_lower: %lld work-groups exceed the target's limit on dim %zu",
                          (long long)(total / l), d);
      if (lanes > 1 && d == 0 && l > 1)
        return make_error(Errc::kInternal, "gpu_lower: GROUP lanes and LOCAL share dim 0");
      const Ref g = c.make(Op::kSpecial, DType::kIndex, {count}, Arg::str(strformat("gidx%zu", d)));
      if (sym) k.global_expr[d] = count;
      Ref flat = g;
      if (l > 1) {
        const Ref li =
            c.make(Op::kSpecial, DType::kIndex, {c.cint(l)}, Arg::str(strformat("lidx%zu", d)));
        flat = g * l + li;
        k.local[d] = l;
        threads *= l;
        k.applied_opts.push_back(strformat("LOCAL dim %zu -> %lld", d, (long long)l));
      }
      k.global[d] = total / l;
      // Recover each axis of the group: innermost is flat % n, outer ones divide.
      Ref stride;
      for (size_t a = groups[gi].size(); a-- > 0;) {
        const Ref r = groups[gi][a];
        Ref v = stride ? flat / stride : flat;
        if (a > 0) v = v % r->src(0);
        sub[r] = v;
        stride = stride ? stride * r->src(0) : r->src(0);
      }
      if (sym && l > 1) {
        const Ref in = cmplt(flat, total_e);
        sym_gate = sym_gate ? sym_gate & in : in;
      }
    }
    if (threads > int64_t(target.max_threads))
      return make_error(Errc::kOutOfRange, "gpu_lower: %lld threads per work-group exceed %u",
                        (long long)threads, target.max_threads);
    if (!sub.empty()) sink = substitute(sink, sub);
    if (sym_gate) {
      // Threads past a symbolic size neither load nor store: every global access is masked.
      std::unordered_map<Ref, Ref> gated;
      for (Ref n : c.toposort(sink)) {
        if (n->op() != Op::kIndex || is_local_buffer(base_buffer(n->src(0)))) continue;
        const Ref idx = n->src(1);
        const Ref g = idx->op() == Op::kWhere && idx->src(2)->is_invalid()
                          ? where(idx->src(0) & sym_gate, idx->src(1), idx->src(2))
                          : where(sym_gate, idx, c.invalid(idx->dtype()));
        const Ref srcs[] = {n->src(0), g};
        gated[n] = c.replace_src(n, srcs);
      }
      sink = substitute(sink, gated);
      k.applied_opts.push_back("gate global accesses to the symbolic launch size");
    }
    // Threads outside a local dimension the store does not use must not store: gate the
    // global stores that do not depend on the group lane.
    if (lane) {
      std::unordered_map<Ref, Ref> gates;
      for (Ref n : c.toposort(sink)) {
        if (n->op() != Op::kStore || is_local_buffer(base_buffer(n->src(0)->src(0)))) continue;
        bool uses_lane = false;
        for (Ref x : c.toposort(n->src(0)->src(1))) uses_lane |= x == lane;
        if (!uses_lane) gates[n] = gate_store(n, cmplt(lane, 1));
      }
      if (!gates.empty()) {
        sink = substitute(sink, gates);
        k.applied_opts.push_back("gate global stores to lane 0");
      }
    }
    k.ast = sink;
  }
  int64_t threads = k.local[0] * k.local[1] * k.local[2];
  for (size_t d = 0; d < 3; ++d)
    if (k.local[d] > int64_t(target.max_local[d]))
      return make_error(Errc::kOutOfRange, "gpu_lower: local size %lld on dim %zu exceeds %u",
                        (long long)k.local[d], d, target.max_local[d]);
  if (threads > int64_t(target.max_threads))
    return make_error(Errc::kOutOfRange, "gpu_lower: %lld threads per work-group exceed %u",
                      (long long)threads, target.max_threads);
  return k;
}

Result<std::array<int64_t, 3>> launch_global(const ProgramSpec& s,
                                             std::span<const int64_t> var_values) {
  if (var_values.size() != s.vars.size())
    return make_error(Errc::kInvalidArgument, "%s: %zu variable values given, the kernel has %zu",
                      s.name.c_str(), var_values.size(), s.vars.size());
  std::map<std::string_view, int64_t> by_name;
  for (size_t i = 0; i < s.vars.size(); ++i) {
    const auto v = s.vars[i]->arg().as_var();
    if (var_values[i] < v.vmin || var_values[i] > v.vmax)
      return make_error(Errc::kOutOfRange, "%s: variable %.*s = %lld outside [%lld, %lld]",
                        s.name.c_str(), int(v.name.size()), v.name.data(), (long long)var_values[i],
                        (long long)v.vmin, (long long)v.vmax);
    by_name[v.name] = var_values[i];
  }
  std::array<int64_t, 3> g = s.gpu.global;
  for (size_t d = 0; d < 3; ++d) {
    if (!s.gpu.global_expr[d]) continue;
    // The expression holds the AST's variables; the program's (lowered, maybe narrowed) ones
    // carry the same names.
    std::vector<Binding> b;
    for (Ref n : s.gpu.global_expr[d]->ctx().toposort(s.gpu.global_expr[d]))
      if (n->op() == Op::kDefineVar) {
        const auto it = by_name.find(n->arg().as_var().name);
        if (it != by_name.end()) b.push_back({n, it->second});
      }
    const auto r = RG_TRY_CTX(eval_int(s.gpu.global_expr[d], b), "%s: work-groups of dim %zu",
                              s.name.c_str(), d);
    g[d] = r.value;
  }
  return g;
}

// ---------------------------------------------------------------------------------------------
// Barriers

size_t insert_barriers(Program& p) {
  if (!p.sink) return 0;
  Context& c = p.sink->ctx();
  const Ref bar = c.make(Op::kBarrier, DType::kVoid, {});
  std::vector<Inst> out;
  std::set<const Node*> written, read;  // local buffers touched since the last barrier
  struct Frame {
    std::set<const Node*> written, read;
  };
  std::vector<Frame> frames;
  size_t inserted = 0;
  auto barrier = [&](uint32_t depth) {
    out.push_back({InstKind::kValue, bar, depth});
    written.clear();
    read.clear();
    ++inserted;
  };
  auto note = [&](const Node* buf, bool is_write) {
    (is_write ? written : read).insert(buf);
    for (auto& f : frames) (is_write ? f.written : f.read).insert(buf);
  };
  for (const Inst& in : p.insts) {
    const Ref n = in.node;
    if (in.kind == InstKind::kValue && n->op() == Op::kBarrier) {
      out.push_back(in);
      written.clear();
      read.clear();
      continue;
    }
    if (in.kind == InstKind::kLoopBegin) frames.push_back({});
    if (in.kind == InstKind::kLoopEnd) {
      Frame f = std::move(frames.back());
      frames.pop_back();
      bool war = false;
      for (const Node* b : f.written) war |= f.read.count(b) && read.count(b);
      if (war) barrier(in.depth + 1);  // end of the body: next iteration's stores wait
    }
    // AFTER(local, stores): the reads that follow must see every thread's stores.
    if (in.kind == InstKind::kValue && n->op() == Op::kAfter) {
      const Node* b = base_buffer(n).get();
      if (is_local_buffer(base_buffer(n)) && written.count(b)) barrier(in.depth);
    }
    if (in.kind == InstKind::kValue && n->op() == Op::kLoad) {
      const Ref b = base_buffer(n->src(0)->src(0));
      if (is_local_buffer(b)) {
        if (written.count(b.get())) barrier(in.depth);
        note(b.get(), false);
      }
    }
    if (in.kind == InstKind::kStore) {
      const Ref b = base_buffer(n->src(0)->src(0));
      if (is_local_buffer(b)) {
        if (read.count(b.get())) barrier(in.depth);
        note(b.get(), true);
      }
    }
    out.push_back(in);
  }
  p.insts = std::move(out);
  return inserted;
}

// ---------------------------------------------------------------------------------------------
// Compile-only device

std::string find_ptxas() {
  if (const char* e = std::getenv("RAWGPU_PTXAS"); e && *e) return e;
  auto p = find_executable("ptxas", {"/usr/local/cuda/bin"});
  return p ? *p : std::string();
}

Result<ProgramSpec> compile_gpu(Ref sink, std::string_view name, const GpuTarget& target,
                                const GpuOptions& options) {
  ProgramSpec s;
  s.name = std::string(name);
  s.target = target;
  s.ast = sink;
  auto t0 = std::chrono::steady_clock::now();
  s.gpu = RG_TRY_CTX(gpu_lower(sink, target, options), "compiling %s for %s", s.name.c_str(),
                     target.name.c_str());
  // Transcendentals the target's back end cannot lower (float64 on AMDGPU/NVPTX) become
  // polynomial code here (transcendental.h).
  s.gpu.ast = lower_transcendentals(s.gpu.ast,
                                    [&](Op op, DType t) { return needs_soft_math(target, op, t); });
  s.times.lower_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  // GPU vector accesses are at most 16 bytes (global_load_b128, ld.global.v4) and may not
  // promise more alignment than buffers get (arena views are 64-byte, LDS 16-byte aligned);
  // the host target allows up to the 64-byte arena granule.
  const int max_vec = target.arch == GpuArch::kHost ? 64 : 16;
  if (options.vector_bytes != 0 && (options.vector_bytes < 0 || options.vector_bytes > max_vec ||
                                    (options.vector_bytes & (options.vector_bytes - 1)) != 0))
    return make_error(Errc::kInvalidArgument,
                      "compiling %s for %s: GpuOptions::vector_bytes %d is not 0 or a power of "
                      "two up to %d",
                      s.name.c_str(), target.name.c_str(), options.vector_bytes, max_vec);
  LowerOptions lo;
  lo.max_vector_bytes = options.vector_bytes;
  lo.buffer_align = options.vector_bytes;
  s.program = RG_TRY_CTX(linearize(s.gpu.ast, lo), "compiling %s for %s", s.name.c_str(),
                         target.name.c_str());
  if (target.arch != GpuArch::kHost) {
    if (const size_t nb = insert_barriers(s.program))
      s.gpu.applied_opts.push_back(strformat("%zu barrier(s)", nb));
    RG_TRY(verify_program(s.program));
  }
  s.times.linearize_ms = ms_since(t0);
  s.vars = s.program.vars;
  // The linear program's estimates are per thread: scale by the launch.
  uint64_t launched = 1;
  for (size_t d = 0; d < 3; ++d) launched *= uint64_t(s.gpu.global[d] * s.gpu.local[d]);
  s.flops = s.program.flops * launched;
  s.bytes = s.program.bytes * launched;
  // Buffers: ins and outs from the loads and stores.
  std::map<int64_t, BufferUse> uses;
  uint64_t local_bytes = 0;
  for (Ref l : s.program.locals)
    local_bytes += uint64_t(l->arg().as_ints()[1]) * uint64_t(itemsize(l->dtype()));
  if (local_bytes > target.max_local_bytes && target.arch != GpuArch::kHost)
    return make_error(Errc::kOutOfRange, "%s: %llu bytes of local memory exceed %s's %u",
                      s.name.c_str(), (unsigned long long)local_bytes, target.name.c_str(),
                      target.max_local_bytes);
  for (Ref n : s.program.sink->ctx().toposort(s.program.sink)) {
    if (n->op() != Op::kLoad && n->op() != Op::kStore) continue;
    const Ref b = base_buffer(n->src(0)->src(0));
    if (b->op() != Op::kBuffer || is_local_buffer(b)) continue;
    const auto a = b->arg().as_ints();
    BufferUse& u = uses[a[0]];
    u.slot = a[0];
    u.dtype = b->dtype();
    u.count = a.size() > 1 ? a[1] : 0;
    (n->op() == Op::kLoad ? u.input : u.output) = true;
  }
  for (auto& [slot, u] : uses) {
    s.buffers.push_back(u);
    s.memory_bytes += uint64_t(u.count) * uint64_t(itemsize(u.dtype));
  }

  const uint32_t threads = uint32_t(s.gpu.local[0] * s.gpu.local[1] * s.gpu.local[2]);
  const gpullvm::Kind kind = target.arch == GpuArch::kAmd  ? gpullvm::Kind::kAmdgpu
                             : target.arch == GpuArch::kNv ? gpullvm::Kind::kNvptx
                                                           : gpullvm::Kind::kHost;
  auto out =
      RG_TRY_CTX(gpullvm::compile(s.program, kind, target.arch == GpuArch::kHost ? "" : target.name,
                                  s.name, threads, options.opt_level),
                 "compiling %s for %s", s.name.c_str(), target.name.c_str());
  s.llvm_ir = std::move(out.ir);
  s.assembly = std::move(out.assembly);
  s.times.llvm_ir_ms = out.ir_ms;
  s.times.opt_ms = out.opt_ms;
  s.times.codegen_ms = out.codegen_ms;

  if (target.arch == GpuArch::kAmd) {
    t0 = std::chrono::steady_clock::now();
    s.binary = RG_TRY_CTX(gpullvm::lld_link_amdgpu(out.object), "linking %s for %s", s.name.c_str(),
                          target.name.c_str());
    s.times.link_ms = ms_since(t0);
    s.binary_kind = "code object";
    t0 = std::chrono::steady_clock::now();
    auto co =
        RG_TRY_CTX(drivers::amd::parse_code_object(s.binary),
                   "loading the code object of %s for %s", s.name.c_str(), target.name.c_str());
    s.times.parse_ms = ms_since(t0);
    const auto* kk = co.find(s.name);
    if (!kk)
      return make_error(Errc::kInternal, "%s: the code object has no kernel of that name",
                        s.name.c_str());
    const auto& d = kk->descriptor;
    s.loaded.kernarg_bytes = d.kernarg_size;
    s.loaded.local_bytes = d.group_segment_fixed_size;
    s.loaded.scratch_bytes = d.private_segment_fixed_size;
    s.loaded.sgprs = kk->metadata.sgpr_count;
    s.loaded.vgprs = kk->metadata.vgpr_count;
    s.loaded.wave = kk->metadata.wavefront_size;
    s.loaded.max_threads = kk->metadata.max_flat_workgroup_size;
    s.loaded.descriptor = drivers::amd::describe(*kk);
  } else if (target.arch == GpuArch::kNv) {
    const std::string ptxas = options.assemble ? find_ptxas() : std::string();
    if (ptxas.empty()) {
      s.binary_kind = "ptx only";
      s.binary_note = options.assemble ? "ptxas not installed: no cubin (PTX is the artifact)"
                                       : "assembly not requested";
      s.binary.assign(s.assembly.begin(), s.assembly.end());
      // Static shared memory as the PTX declares it: each local array 16-byte aligned (what the
      // NVPTX back end emits), so a launch sizes its shared memory without a cubin.
      uint64_t shared = 0;
      for (Ref l : s.program.locals)
        shared += (uint64_t(l->arg().as_ints()[1]) * uint64_t(itemsize(l->dtype())) + 15) / 16 * 16;
      s.loaded.local_bytes = static_cast<uint32_t>(shared);
    } else {
      namespace fs = std::filesystem;
      std::string tmpl = (fs::temp_directory_path() / "rawgpu-ptxas-XXXXXX").string();
      if (!::mkdtemp(tmpl.data()))
        return make_error(Errc::kIo, "ptxas: cannot create a temporary directory in %s: %s",
                          fs::temp_directory_path().c_str(), std::strerror(errno));
      struct Cleanup {
        fs::path d;
        ~Cleanup() {
          std::error_code ec;
          fs::remove_all(d, ec);
        }
      } cleanup{tmpl};
      const std::string in = tmpl + "/k.ptx", outp = tmpl + "/k.cubin";
      {
        std::ofstream f(in);
        f << s.assembly;
        f.close();
        if (!f)
          return make_error(Errc::kIo, "ptxas: cannot write %s: %s", in.c_str(),
                            std::strerror(errno));
      }
      t0 = std::chrono::steady_clock::now();
      auto r = RG_TRY(run_command({ptxas, "-arch=" + target.name, "-O3", "-v", in, "-o", outp},
                                  {.timeout = std::chrono::milliseconds(60000)}));
      s.times.assemble_ms = ms_since(t0);
      if (r.exit_code != 0)
        return make_error(Errc::kInternal, "ptxas failed on %s for %s: %s", s.name.c_str(),
                          target.name.c_str(), r.output.c_str());
      s.binary_note = r.output;  // ptxas -v: registers, shared/constant bytes
      std::ifstream f(outp, std::ios::binary);
      s.binary.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
      s.binary_kind = "cubin";
      t0 = std::chrono::steady_clock::now();
      auto cb = RG_TRY_CTX(drivers::nv::parse_cubin(s.binary), "loading the cubin of %s for %s",
                           s.name.c_str(), target.name.c_str());
      s.times.parse_ms = ms_since(t0);
      const auto* kk = cb.find(s.name);
      if (!kk)
        return make_error(Errc::kInternal, "%s: the cubin has no kernel of that name",
                          s.name.c_str());
      s.loaded.kernarg_bytes = kk->param_size;
      s.loaded.param_offset = kk->param_offset;
      s.loaded.local_bytes = kk->shared_bytes;
      s.loaded.scratch_bytes = kk->stack_bytes;
      s.loaded.registers = kk->registers;
      s.loaded.max_threads =
          kk->max_threads[0] * std::max(1u, kk->max_threads[1]) * std::max(1u, kk->max_threads[2]);
      s.loaded.wave = 32;
      s.loaded.descriptor = drivers::nv::describe(*kk);
    }
  } else {
    s.binary = std::move(out.object);
    s.binary_kind = "host object";
  }
  return s;
}

}  // namespace rawgpu::compiler
