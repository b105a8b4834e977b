#include "rawgpu/compiler/linearize.h"

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/spec.h"
#include "rawgpu/compiler/symbolic.h"

namespace rawgpu::compiler {
namespace {

std::string node_desc(Ref n) {
  return strformat("%%%u = %s %s", n->id(), std::string(op_name(n->op())).c_str(),
                   std::string(dtype_name(n->dtype())).c_str());
}

Error rule_error(Ref n, const char* rule, const std::string& why) {
  return make_error(Errc::kInvalidArgument, "spec 'linear': %s: rule '%s' violated: %s",
                    node_desc(n).c_str(), rule, why.c_str());
}

// Loop nesting order: output loops before reduction loops, then by axis, then by id.
bool range_before(Ref a, Ref b) {
  const auto ka = a->arg().as_ints(), kb = b->arg().as_ints();
  const int64_t ta = ka.size() > 1 ? ka[1] : 0, tb = kb.size() > 1 ? kb[1] : 0;
  if (ta != tb) return ta < tb;
  if (ka[0] != kb[0]) return ka[0] < kb[0];
  return a->id() < b->id();
}

std::vector<Ref> sorted_ranges(std::span<const Ref> rs) {
  std::vector<Ref> v(rs.begin(), rs.end());
  std::sort(v.begin(), v.end(), range_before);
  return v;
}

// GPU kernels add SPECIAL (launch ids), AFTER (a local buffer after its stores) and BARRIER
// (inserted into the linear program by the GPU lowering, see gpu.h).
constexpr OpSet kValueOps =
    ops::kAlu | OpSet{Op::kConst,   Op::kDefineVar, Op::kBuffer,  Op::kIndex,
                      Op::kLoad,    Op::kNoop,      Op::kSpecial, Op::kAfter,
                      Op::kBarrier, Op::kWmma,      Op::kGep,     Op::kVectorize};

// The BUFFER under an INDEX source (through AFTER).
Ref base_buffer(Ref b) {
  while (b->op() == Op::kAfter) b = b->src(0);
  return b;
}

// The values an instruction reads.
void inst_sources(const Inst& in, std::vector<Ref>& out) {
  out.clear();
  switch (in.kind) {
    case InstKind::kValue:
    case InstKind::kStore:
      for (Ref s : in.node->src()) out.push_back(s);
      break;
    case InstKind::kLoopBegin: out.push_back(in.node->src(0)); break;
    case InstKind::kAccUpdate: out.push_back(in.node->src(0)); break;
    case InstKind::kAccInit:
    case InstKind::kAccRead:
    case InstKind::kLoopEnd: break;
  }
}

struct Scope {
  Ref range;  // the loop this scope opens (null: the kernel body)
  int parent = -1;
  std::vector<int> children;
  std::vector<Inst> items;  // instructions placed directly in this scope
};

struct Linearizer {
  Ref sink;
  std::vector<Ref> order;
  std::unordered_map<Ref, std::vector<Ref>> path;  // node -> loop nest it is placed in
  std::vector<Scope> scopes;
  std::map<std::vector<uint32_t>, int> scope_of_path;

  int scope_for(const std::vector<Ref>& p) {
    std::vector<uint32_t> key;
    int cur = 0;
    for (Ref r : p) {
      key.push_back(r->id());
      auto it = scope_of_path.find(key);
      if (it == scope_of_path.end()) {
        const int s = static_cast<int>(scopes.size());
        scopes.push_back(Scope{r, cur, {}, {}});
        scopes[cur].children.push_back(s);
        scope_of_path.emplace(key, s);
        cur = s;
      } else {
        cur = it->second;
      }
    }
    return cur;
  }

  Status place() {
    std::unordered_map<Ref, std::vector<std::vector<Ref>>> uses;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const Ref n = *it;
      std::vector<Ref> p;
      if (n->op() == Op::kSink) {
        // root
      } else if (n->op() == Op::kStore || n->op() == Op::kEnd) {
        p = sorted_ranges(n->ranges());
        if (n->op() == Op::kStore) {
          // An END around the store decides the nesting of the closed loops.
          auto u = uses.find(n);
          if (u != uses.end() && !u->second.empty()) p = u->second.front();
        }
      } else if (n->op() == Op::kRange) {
        if (!n->src(0)->ranges().empty())
          return make_error(Errc::kUnsupported,
                            "linearize: %s: loop bounds that depend on other loops are not "
                            "supported",
                            node_desc(n).c_str());
      } else {
        auto u = uses.find(n);
        if (u == uses.end() || u->second.empty())
          return make_error(Errc::kInternal, "linearize: %s has no users", node_desc(n).c_str());
        // Longest common prefix of the users' loop nests ...
        std::vector<Ref> lcp = u->second.front();
        for (const auto& q : u->second) {
          size_t k = 0;
          while (k < lcp.size() && k < q.size() && lcp[k] == q[k]) ++k;
          lcp.resize(k);
        }
        // ... cut to the shortest prefix that holds all of the node's ranges (hoisting).
        const auto need = n->ranges();
        size_t have = 0, k = 0;
        while (have < need.size() && k < lcp.size()) {
          if (std::find(need.begin(), need.end(), lcp[k]) != need.end()) ++have;
          ++k;
        }
        if (have < need.size())
          return make_error(Errc::kUnsupported,
                            "linearize: %s: its users' loop nests do not contain all its loops",
                            node_desc(n).c_str());
        lcp.resize(k);
        p = std::move(lcp);
      }
      // What each source sees as its user's nest.
      std::vector<Ref> inner = p;
      if (n->op() == Op::kReduce || n->op() == Op::kEnd) {
        std::vector<Ref> closed(n->src().begin() + 1, n->src().end());
        for (Ref r : sorted_ranges(closed)) inner.push_back(r);
      }
      for (size_t i = 0; i < n->nsrc() && n->op() != Op::kSink; ++i) {
        const Ref s = n->src(i);
        if (s->op() == Op::kRange) {
          if ((n->op() == Op::kReduce || n->op() == Op::kEnd) && i > 0) continue;
        }
        uses[s].push_back(i == 0 ? inner : p);
      }
      path[n] = std::move(p);
    }
    return ok_status();
  }

  void build_scopes() {
    scopes.push_back(Scope{});
    for (Ref n : order) {
      const auto& p = path[n];
      switch (n->op()) {
        case Op::kSink:
        case Op::kRange:
        case Op::kEnd: break;
        case Op::kStore: scopes[scope_for(p)].items.push_back({InstKind::kStore, n, 0}); break;
        case Op::kReduce: {
          const int s = scope_for(p);
          scopes[s].items.push_back({InstKind::kAccInit, n, 0});
          scopes[s].items.push_back({InstKind::kAccRead, n, 0});
          std::vector<Ref> inner = p;
          std::vector<Ref> closed(n->src().begin() + 1, n->src().end());
          for (Ref r : sorted_ranges(closed)) inner.push_back(r);
          scopes[scope_for(inner)].items.push_back({InstKind::kAccUpdate, n, 0});
          break;
        }
        default: scopes[scope_for(p)].items.push_back({InstKind::kValue, n, 0}); break;
      }
    }
  }

  // Priority class: constants and addresses first, loads next, stores last.
  static int priority(const Inst& in) {
    if (in.kind == InstKind::kAccInit) return 0;
    if (in.kind == InstKind::kStore) return 4;
    if (in.kind == InstKind::kValue) {
      const Op o = in.node->op();
      if (o == Op::kConst || o == Op::kDefineVar || o == Op::kBuffer) return 0;
      if (o == Op::kLoad) return 1;
    }
    return 2;
  }

  // Producer instruction location of a value: scope and (kind, node).
  struct Loc {
    int scope;
    InstKind kind;
  };

  std::vector<int> depth_of;
  std::vector<Inst> out;

  bool ancestor_or_self(int a, int s) const {
    for (; s >= 0; s = scopes[s].parent)
      if (s == a) return true;
    return false;
  }
  // The direct child of `a` on the way to descendant `s`.
  int child_towards(int a, int s) const {
    while (scopes[s].parent != a) s = scopes[s].parent;
    return s;
  }

  Status emit(int s, uint32_t depth) {
    Scope& sc = scopes[s];
    // Items: own instructions (0..n-1) then child loops.
    const size_t nown = sc.items.size();
    const size_t nitems = nown + sc.children.size();
    std::vector<std::vector<size_t>> succ(nitems);
    std::vector<int> indeg(nitems, 0);
    std::unordered_map<const Node*, size_t> value_item, read_item, init_item;
    for (size_t i = 0; i < nown; ++i) {
      const Inst& in = sc.items[i];
      if (in.kind == InstKind::kValue) value_item[in.node.get()] = i;
      if (in.kind == InstKind::kStore) value_item[in.node.get()] = i;  // AFTER(buf, store)
      if (in.kind == InstKind::kAccRead) read_item[in.node.get()] = i;
      if (in.kind == InstKind::kAccInit) init_item[in.node.get()] = i;
    }
    std::vector<int> child_index(scopes.size(), -1);
    for (size_t c = 0; c < sc.children.size(); ++c) child_index[sc.children[c]] = int(nown + c);
    // Which item of this scope produces value v (or -1: an enclosing scope / a loop index).
    auto producer = [&](Ref v, InstKind want) -> long {
      if (v->op() == Op::kRange) return -1;
      const int ps = v->op() == Op::kReduce && want == InstKind::kAccUpdate
                         ? scope_of_inner(v)
                         : scope_for_path(path[v]);
      if (ps == s) {
        auto& m = want == InstKind::kAccInit   ? init_item
                  : want == InstKind::kAccRead ? read_item
                                               : value_item;
        auto it = m.find(v.get());
        return it == m.end() ? -1 : long(it->second);
      }
      if (ps >= 0 && ancestor_or_self(s, ps)) return child_index[child_towards(s, ps)];
      return -1;
    };
    auto add_edge = [&](long from, size_t to) {
      if (from < 0 || size_t(from) == to) return;
      succ[size_t(from)].push_back(to);
      ++indeg[to];
    };
    // Dependencies of every instruction in the subtree, mapped to this scope's items.
    std::vector<Ref> srcs;
    auto visit = [&](const Inst& in, size_t item) {
      inst_sources(in, srcs);
      for (Ref v : srcs)
        add_edge(producer(v, v->op() == Op::kReduce ? InstKind::kAccRead : InstKind::kValue), item);
      if (in.kind == InstKind::kAccUpdate) add_edge(producer(in.node, InstKind::kAccInit), item);
      if (in.kind == InstKind::kAccRead) add_edge(producer(in.node, InstKind::kAccUpdate), item);
    };
    for (size_t i = 0; i < nown; ++i) visit(sc.items[i], i);
    for (size_t c = 0; c < sc.children.size(); ++c) {
      std::vector<int> stack{sc.children[c]};
      while (!stack.empty()) {
        const int t = stack.back();
        stack.pop_back();
        Inst begin{InstKind::kLoopBegin, scopes[t].range, 0};
        visit(begin, nown + c);
        for (const Inst& in : scopes[t].items) visit(in, nown + c);
        for (int g : scopes[t].children) stack.push_back(g);
      }
    }
    auto key = [&](size_t i) -> std::pair<int, uint32_t> {
      if (i < nown) return {priority(sc.items[i]), sc.items[i].node->id()};
      return {3, scopes[sc.children[i - nown]].range->id()};
    };
    auto cmp = [&](size_t a, size_t b) { return key(a) > key(b); };
    std::priority_queue<size_t, std::vector<size_t>, decltype(cmp)> ready(cmp);
    for (size_t i = 0; i < nitems; ++i)
      if (indeg[i] == 0) ready.push(i);
    size_t done = 0;
    while (!ready.empty()) {
      const size_t i = ready.top();
      ready.pop();
      ++done;
      if (i < nown) {
        Inst in = sc.items[i];
        in.depth = depth;
        out.push_back(in);
      } else {
        const int c = sc.children[i - nown];
        out.push_back({InstKind::kLoopBegin, scopes[c].range, depth});
        RG_TRY(emit(c, depth + 1));
        out.push_back({InstKind::kLoopEnd, scopes[c].range, depth});
      }
      for (size_t j : succ[i])
        if (--indeg[j] == 0) ready.push(j);
    }
    if (done != nitems)
      return make_error(Errc::kUnsupported,
                        "linearize: cyclic dependency between the loops of one nest (a value "
                        "needed both before and after a loop)");
    return ok_status();
  }

  int scope_for_path(const std::vector<Ref>& p) const {
    if (p.empty()) return 0;
    std::vector<uint32_t> key;
    for (Ref r : p) key.push_back(r->id());
    auto it = scope_of_path.find(key);
    return it == scope_of_path.end() ? -1 : it->second;
  }
  int scope_of_inner(Ref reduce) {
    std::vector<Ref> inner = path[reduce];
    std::vector<Ref> closed(reduce->src().begin() + 1, reduce->src().end());
    for (Ref r : sorted_ranges(closed)) inner.push_back(r);
    return scope_for_path(inner);
  }
};

// Iterations of a loop: its size's upper bound (exact for constants), capped to keep products
// of nested loops from overflowing.
uint64_t loop_trips(Ref r) {
  const int64_t v = r->src(0)->vmax();
  return v <= 0 ? 0 : uint64_t(std::min<int64_t>(v, int64_t{1} << 20));
}

}  // namespace

std::string_view inst_kind_name(InstKind k) {
  switch (k) {
    case InstKind::kValue: return "value";
    case InstKind::kLoopBegin: return "loop";
    case InstKind::kLoopEnd: return "endloop";
    case InstKind::kAccInit: return "acc.init";
    case InstKind::kAccUpdate: return "acc.update";
    case InstKind::kAccRead: return "acc.read";
    case InstKind::kStore: return "store";
  }
  return "?";
}

std::string Program::to_string() const {
  std::string s;
  for (const Inst& in : insts) {
    s.append(2 * in.depth, ' ');
    s += std::string(inst_kind_name(in.kind)) + " " + node_desc(in.node);
    for (size_t i = 0; i < in.node->nsrc(); ++i)
      s += strformat("%s%%%u", i ? ", " : " ", in.node->src(i)->id());
    if (!in.node->arg().is_none()) s += " [" + in.node->arg().to_string() + "]";
    s += "\n";
  }
  return s;
}

namespace {
// A load whose gate simplified to always-false (its masked index became a bare Invalid, e.g. a
// read that lies entirely inside padding once the loop ranges are known) reads nothing: it
// becomes the value of a failed gated load, 0, exactly as the back ends produce it.
Ref drop_dead_loads(Ref root) {
  std::unordered_map<Ref, Ref> dead;
  for (Ref n : root->ctx().toposort(root)) {
    if (n->op() != Op::kLoad || n->nsrc() < 1) continue;
    const Ref idx = n->src(0);
    if (idx->op() == Op::kIndex && idx->nsrc() == 2 && idx->src(1)->is_invalid())
      dead.emplace(n, root->ctx().cconst(0.0, n->dtype()));
  }
  return dead.empty() ? root : simplify(substitute(root, dead));
}

// Likewise a store whose gate simplified to always-false (e.g. the padded lane of an output axis
// that PADTO grew and UPCAST then expanded) writes nothing: it leaves the kernel, together with
// the END that closes loops around it.
Ref drop_dead_stores(Ref sink) {
  auto dead = [](Ref x) {
    while (x->op() == Op::kEnd && x->nsrc() >= 1) x = x->src(0);
    if (x->op() != Op::kStore || x->nsrc() < 1) return false;
    const Ref idx = x->src(0);
    return idx->op() == Op::kIndex && idx->nsrc() == 2 && idx->src(1)->is_invalid();
  };
  std::vector<Ref> keep;
  for (Ref s : sink->src())
    if (!dead(s)) keep.push_back(s);
  return keep.size() == sink->nsrc() ? sink : sink->ctx().replace_src(sink, keep);
}
}  // namespace

Result<Ref> lower(Ref sink, const LowerOptions& options) {
  if (!sink || sink->op() != Op::kSink)
    return make_error(Errc::kInvalidArgument, "lower: the kernel root must be a SINK");
  RG_TRY_CTX(verify(sink, Stage::kKernel), "lower: input kernel AST");
  Ref out = narrow_index(
      coalesce_memory(drop_dead_stores(drop_dead_loads(simplify(sink))), options.max_vector_bytes));
  RG_TRY_CTX(verify(out, Stage::kKernel), "lower: after simplification and index narrowing");
  return out;
}

Result<Program> linearize(Ref sink, const LowerOptions& options) {
  Ref lowered = RG_TRY(lower(sink, options));
  Linearizer L;
  L.sink = lowered;
  L.order = lowered->ctx().toposort(lowered);
  Program p;
  p.sink = lowered;
  for (Ref n : L.order) {
    // A vector access covers lanes - 1 elements past its INDEX: still inside the buffer.
    const DType vt = n->op() == Op::kLoad    ? n->dtype()
                     : n->op() == Op::kStore ? n->src(n->nsrc() - 1)->dtype()
                                             : DType::kVoid;
    if (is_vector(vt)) p.buffer_align = options.buffer_align;
    if (is_vector(vt) && n->src(0)->op() == Op::kIndex && n->src(0)->nsrc() == 2) {
      const Ref index = n->src(0);
      const auto a = base_buffer(index->src(0))->arg().as_ints();
      if (a.size() > 1 && index->src(1)->vmax() + vcount(vt) > a[1])
        return make_error(Errc::kOutOfRange,
                          "linearize: %s: rule 'index-in-bounds' violated: %d lanes from index "
                          "%lld leave buffer slot %lld of %lld elements",
                          node_desc(n).c_str(), vcount(vt),
                          static_cast<long long>(index->src(1)->vmax()),
                          static_cast<long long>(a[0]), static_cast<long long>(a[1]));
    }
    const Op o = n->op();
    if (!kValueOps.has(o) && o != Op::kRange && o != Op::kReduce && o != Op::kStore &&
        o != Op::kEnd && o != Op::kSink)
      return make_error(Errc::kUnsupported, "linearize: %s: op %s is not supported yet",
                        node_desc(n).c_str(), std::string(op_name(o)).c_str());
    if (o == Op::kIndex && n->nsrc() != 2)
      return make_error(Errc::kUnsupported,
                        "linearize: %s: multi-operand INDEX must be flattened to one index",
                        node_desc(n).c_str());
    if (o == Op::kIndex && !(n->src(1)->op() == Op::kWhere && n->src(1)->src(2)->is_invalid())) {
      // An unmasked access must stay inside the buffer's declared element count.
      const auto a = base_buffer(n->src(0))->arg().as_ints();
      const Ref i = n->src(1);
      if (a.size() > 1 && (i->vmin() < 0 || i->vmax() >= a[1]))
        return make_error(Errc::kOutOfRange,
                          "linearize: %s: rule 'index-in-bounds' violated: index range [%lld, "
                          "%lld] is outside buffer slot %lld of %lld elements (mask the access "
                          "with where(gate, idx, Invalid))",
                          node_desc(n).c_str(), static_cast<long long>(i->vmin()),
                          static_cast<long long>(i->vmax()), static_cast<long long>(a[0]),
                          static_cast<long long>(a[1]));
    }
    if (o == Op::kStore && n->nsrc() != 2)
      return make_error(Errc::kUnsupported,
                        "linearize: %s: STORE takes (INDEX, value); gate "
                        "it through a masked index",
                        node_desc(n).c_str());
    if (o == Op::kBuffer && is_local_buffer(n)) {
      p.locals.push_back(n);
      continue;
    }
    if (o == Op::kBuffer) {
      const auto slot = n->arg().as_ints()[0];
      if (slot < 0 || slot > 4096)
        return rule_error(n, "buffer-slot",
                          strformat("slot %lld out of 0..4096", static_cast<long long>(slot)));
      if (p.buffers.size() <= size_t(slot)) p.buffers.resize(size_t(slot) + 1);
      if (p.buffers[size_t(slot)] && p.buffers[size_t(slot)] != n)
        return rule_error(n, "buffer-slot", "two different buffers use the same slot");
      p.buffers[size_t(slot)] = n;
    }
    if (o == Op::kDefineVar) p.vars.push_back(n);
  }
  std::sort(p.vars.begin(), p.vars.end(),
            [](Ref a, Ref b) { return a->arg().as_var().name < b->arg().as_var().name; });
  for (size_t i = 1; i < p.vars.size(); ++i)
    if (p.vars[i]->arg().as_var().name == p.vars[i - 1]->arg().as_var().name)
      return rule_error(p.vars[i], "unique-var-names", "two variables share a name");
  RG_TRY(L.place());
  L.build_scopes();
  RG_TRY(L.emit(0, 0));
  p.insts = std::move(L.out);

  // Parallel split: the kernel body is one output loop holding every store.
  int loops = 0, cand = -1;
  bool root_side_effects = false;
  for (size_t i = 0; i < p.insts.size(); ++i) {
    const Inst& in = p.insts[i];
    if (in.depth != 0) continue;
    if (in.kind == InstKind::kLoopBegin) {
      ++loops;
      cand = int(i);
    }
    if (in.kind == InstKind::kStore || in.kind == InstKind::kAccInit) root_side_effects = true;
  }
  if (loops == 1 && !root_side_effects) {
    const auto a = p.insts[size_t(cand)].node->arg().as_ints();
    if ((a.size() < 2 || a[1] == kAxisLoop)) p.parallel_loop = cand;
  }
  // Cost estimates (symbolic loop sizes at their upper bound).
  std::vector<uint64_t> mult{1};
  for (const Inst& in : p.insts) {
    if (in.kind == InstKind::kLoopBegin) {
      mult.push_back(mult.back() * loop_trips(in.node));
      continue;
    }
    if (in.kind == InstKind::kLoopEnd) {
      mult.pop_back();
      continue;
    }
    if (in.kind == InstKind::kAccUpdate) p.flops += mult.back();
    if (in.kind == InstKind::kValue && ops::kAlu.has(in.node->op()) && is_float(in.node->dtype()))
      p.flops += mult.back();
    if (in.kind == InstKind::kValue && in.node->op() == Op::kLoad)
      p.bytes += mult.back() * uint64_t(itemsize(in.node->dtype()));
    if (in.kind == InstKind::kStore)
      p.bytes += mult.back() * uint64_t(itemsize(in.node->src(1)->dtype()));
  }
  RG_TRY(verify_program(p));
  return p;
}

Status verify_program(const Program& p) {
  // Scope instances: each loop body is one; a definition is visible while its scope is open.
  std::vector<uint32_t> open{0};  // stack of scope instance ids
  std::vector<Ref> open_ranges;
  uint32_t next_scope = 1;
  std::unordered_map<const Node*, uint32_t> defined, acc_init;
  std::unordered_map<const Node*, bool> acc_updated;
  auto visible = [&](Ref v) {
    auto it = defined.find(v.get());
    return it != defined.end() && std::find(open.begin(), open.end(), it->second) != open.end();
  };
  std::vector<Ref> srcs;
  for (const Inst& in : p.insts) {
    const Ref n = in.node;
    // A loop's begin and end sit at the depth outside the loop.
    const size_t want_depth =
        open_ranges.size() - (in.kind == InstKind::kLoopEnd && !open_ranges.empty() ? 1 : 0);
    if (in.depth != want_depth)
      return rule_error(
          n, "depth",
          strformat("depth %u, but %zu loops are open around it", in.depth, want_depth));
    inst_sources(in, srcs);
    for (Ref v : srcs) {
      if (v->op() == Op::kReduce ? !acc_updated.count(v.get()) || !visible(v) : !visible(v))
        return rule_error(n, "defined-before-use",
                          strformat("%s reads %%%u, which is not defined in an enclosing scope",
                                    std::string(inst_kind_name(in.kind)).c_str(), v->id()));
    }
    switch (in.kind) {
      case InstKind::kValue:
        if (!kValueOps.has(n->op()))
          return rule_error(n, "value-op", "not a value op of the linear program");
        defined[n.get()] = open.back();
        break;
      case InstKind::kStore:
        if (n->op() != Op::kStore) return rule_error(n, "store", "not a STORE");
        defined[n.get()] = open.back();  // AFTER(local, store) orders reads after it
        break;
      case InstKind::kLoopBegin:
        if (n->op() != Op::kRange) return rule_error(n, "balanced-loops", "loop of a non-RANGE");
        if (std::find(open_ranges.begin(), open_ranges.end(), n) != open_ranges.end())
          return rule_error(n, "balanced-loops", "loop opened twice");
        open_ranges.push_back(n);
        open.push_back(next_scope++);
        defined[n.get()] = open.back();
        break;
      case InstKind::kLoopEnd:
        if (open_ranges.empty() || open_ranges.back() != n)
          return rule_error(n, "balanced-loops", "closes a loop that is not the innermost one");
        open_ranges.pop_back();
        open.pop_back();
        break;
      case InstKind::kAccInit:
        if (n->op() != Op::kReduce) return rule_error(n, "accumulator", "not a REDUCE");
        acc_init[n.get()] = open.back();
        acc_updated.erase(n.get());
        break;
      case InstKind::kAccUpdate: {
        auto it = acc_init.find(n.get());
        if (it == acc_init.end() || std::find(open.begin(), open.end(), it->second) == open.end())
          return rule_error(n, "accumulator", "update before the accumulator is initialised");
        for (size_t i = 1; i < n->nsrc(); ++i)
          if (std::find(open_ranges.begin(), open_ranges.end(), n->src(i)) == open_ranges.end())
            return rule_error(n, "accumulator", "update outside the loops it reduces over");
        acc_updated[n.get()] = true;
        break;
      }
      case InstKind::kAccRead: {
        auto it = acc_init.find(n.get());
        if (it == acc_init.end() || it->second != open.back() || !acc_updated.count(n.get()))
          return rule_error(n, "accumulator",
                            "read outside the scope of its init or before any update");
        for (size_t i = 1; i < n->nsrc(); ++i)
          if (std::find(open_ranges.begin(), open_ranges.end(), n->src(i)) != open_ranges.end())
            return rule_error(n, "accumulator", "read inside a loop it reduces over");
        defined[n.get()] = open.back();
        break;
      }
    }
  }
  if (!open_ranges.empty())
    return rule_error(open_ranges.back(), "balanced-loops", "loop never closed");
  return ok_status();
}

}  // namespace rawgpu::compiler
