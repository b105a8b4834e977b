// Memory coalescing (README "Vector loads and stores"): UPCAST/UNROLL expand an axis into
// scalar lanes whose accesses differ only in the constant term of their index. This pass finds
// runs of such accesses that are provably consecutive (same buffer, same base expression,
// offsets c, c+1, ...) and aligned (base + c a multiple of the lane count, decided by the
// symbolic engine), and turns each run into one vector LOAD (lanes read back through GEP) or one
// vector STORE of a VECTORIZE. Masked (gated), bool, non-consecutive and unaligned accesses stay
// scalar. ALU ops stay scalar: LLVM's SLP vectorizer packs the lane arithmetic itself once the
// memory accesses are vectors, and the GPU targets prefer scalar ALU code.
#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "rawgpu/compiler/linearize.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/symbolic.h"

namespace rawgpu::compiler {
namespace {

bool masked(Ref index) {
  return index->nsrc() == 2 && index->src(1)->op() == Op::kWhere &&
         index->src(1)->src(2)->is_invalid();
}

// idx = base + off, with off the constant term of the canonical sum (simplify puts it last);
// base is null for a constant index.
std::pair<Ref, int64_t> split_offset(Ref idx) {
  auto int_const = [](Ref n) { return n->op() == Op::kConst && n->arg().kind() == ArgKind::kInt; };
  if (int_const(idx)) return {Ref(), idx->arg().as_int()};
  if (idx->op() == Op::kAdd && int_const(idx->src(1)))
    return {idx->src(0), idx->src(1)->arg().as_int()};
  return {idx, 0};
}

// Whether base + off is a multiple of lanes for every value of its variables (the access is
// in bounds, so base + off >= 0 and C remainders agree with floor ones).
bool aligned(Ref base, int64_t off, int64_t lanes) {
  if (!base) return off % lanes == 0;
  const Ref e = off == 0 ? base : base + off;
  if (e->vmin() < 0) return false;
  return simplify(e % lanes)->is_int_const(0);
}

struct Lane {
  int64_t off;
  Ref node;  // the LOAD, or the STORE
};

// Splits `lanes` (sorted by offset, distinct) into maximal aligned power-of-two runs of
// consecutive offsets of at most max_lanes; calls make(first, count) for each run of >= 2.
template <typename F>
void for_each_run(Ref base, std::vector<Lane>& lanes, int max_lanes, F&& make) {
  std::sort(lanes.begin(), lanes.end(), [](const Lane& a, const Lane& b) { return a.off < b.off; });
  size_t i = 0;
  while (i < lanes.size()) {
    int w = max_lanes;
    for (; w >= 2; w /= 2) {
      if (i + size_t(w) > lanes.size()) continue;
      if (lanes[i + size_t(w) - 1].off != lanes[i].off + w - 1) continue;
      if (aligned(base, lanes[i].off, w)) break;
    }
    if (w >= 2) {
      make(i, w);
      i += size_t(w);
    } else {
      ++i;
    }
  }
}

int lanes_for(DType t, int max_bytes) {
  const int sz = itemsize(t);
  if (sz <= 0) return 1;
  int w = 1;
  while (w * 2 <= kMaxVecLanes && (w * 2) * sz <= max_bytes) w *= 2;
  return w;
}

}  // namespace

Ref coalesce_memory(Ref sink, int max_vector_bytes) {
  if (max_vector_bytes <= 0 || !sink || sink->op() != Op::kSink) return sink;
  Context& c = sink->ctx();
  // ---- loads ----
  // key: (buffer source of the INDEX, base expression, element dtype)
  using Key = std::tuple<const Node*, const Node*, DType>;
  std::map<Key, std::vector<Lane>> loads;
  for (Ref n : c.toposort(sink)) {
    if (n->op() != Op::kLoad || n->nsrc() != 1 || is_vector(n->dtype()) || is_bool(n->dtype()))
      continue;
    const Ref index = n->src(0);
    if (index->op() != Op::kIndex || index->nsrc() != 2 || masked(index)) continue;
    const auto [base, off] = split_offset(index->src(1));
    loads[{index->src(0).get(), base.get(), n->dtype()}].push_back({off, n});
  }
  std::unordered_map<Ref, Ref> repl;
  for (auto& [key, lanes] : loads) {
    if (lanes.size() < 2) continue;
    const DType t = std::get<2>(key);
    const Ref base(std::get<1>(key));
    for_each_run(base, lanes, lanes_for(t, max_vector_bytes), [&](size_t first, int w) {
      const DType vt = *vec(t, w);
      const Ref vl = c.make(Op::kLoad, vt, {lanes[first].node->src(0)});
      for (int k = 0; k < w; ++k)
        repl.emplace(lanes[first + size_t(k)].node, c.make(Op::kGep, t, {vl}, Arg::integer(k)));
    });
  }
  if (!repl.empty()) sink = substitute(sink, repl);

  // ---- stores (sources of the SINK, possibly inside an END) ----
  struct StoreAt {
    size_t pos;  // position in the SINK
    Ref end;     // the END around the store, or null
  };
  using SKey = std::tuple<const Node*, const Node*, DType, std::vector<const Node*>>;
  std::map<SKey, std::vector<Lane>> stores;
  std::unordered_map<const Node*, StoreAt> where_of;
  for (size_t i = 0; i < sink->nsrc(); ++i) {
    Ref s = sink->src(i), end;
    if (s->op() == Op::kEnd) {
      end = s;
      s = s->src(0);
    }
    if (s->op() != Op::kStore || s->nsrc() != 2) continue;
    const Ref index = s->src(0), v = s->src(1);
    if (index->op() != Op::kIndex || index->nsrc() != 2 || masked(index) || is_vector(v->dtype()) ||
        is_bool(v->dtype()) || where_of.count(s.get()))
      continue;
    std::vector<const Node*> closes;
    if (end)
      for (size_t j = 1; j < end->nsrc(); ++j) closes.push_back(end->src(j).get());
    const auto [base, off] = split_offset(index->src(1));
    stores[{index->src(0).get(), base.get(), v->dtype(), closes}].push_back({off, s});
    where_of[s.get()] = {i, end};
  }
  std::vector<Ref> out(sink->src().begin(), sink->src().end());
  std::vector<bool> drop(out.size(), false);
  bool changed = false;
  for (auto& [key, lanes] : stores) {
    if (lanes.size() < 2) continue;
    // The same element stored twice: leave the group alone (which write wins is the AST's).
    bool dup = false;
    for (size_t a = 0; a < lanes.size() && !dup; ++a)
      for (size_t b = a + 1; b < lanes.size(); ++b) dup |= lanes[a].off == lanes[b].off;
    if (dup) continue;
    const DType t = std::get<2>(key);
    const Ref base(std::get<1>(key));
    for_each_run(base, lanes, lanes_for(t, max_vector_bytes), [&](size_t first, int w) {
      const DType vt = *vec(t, w);
      std::vector<Ref> vals;
      for (int k = 0; k < w; ++k) vals.push_back(lanes[first + size_t(k)].node->src(1));
      // VECTORIZE(GEP(v, 0), ..., GEP(v, w-1)) is v itself (a copy).
      Ref value;
      if (vals[0]->op() == Op::kGep && vals[0]->src(0)->dtype() == vt) {
        value = vals[0]->src(0);
        for (int k = 0; k < w && value; ++k)
          if (vals[size_t(k)]->op() != Op::kGep || vals[size_t(k)]->src(0) != value ||
              vals[size_t(k)]->arg().as_int() != k)
            value = Ref();
      }
      if (!value) value = c.make(Op::kVectorize, vt, vals);
      const Ref st = lanes[first].node;
      Ref vs = c.make(Op::kStore, DType::kVoid, {st->src(0), value});
      const StoreAt& at = where_of.at(st.get());
      if (at.end) {
        std::vector<Ref> es(at.end->src().begin(), at.end->src().end());
        es[0] = vs;
        vs = c.replace_src(at.end, es);
      }
      out[at.pos] = vs;
      for (int k = 1; k < w; ++k) drop[where_of.at(lanes[first + size_t(k)].node.get()).pos] = true;
      changed = true;
    });
  }
  if (!changed) return sink;
  std::vector<Ref> kept;
  for (size_t i = 0; i < out.size(); ++i)
    if (!drop[i]) kept.push_back(out[i]);
  return c.make(Op::kSink, DType::kVoid, kept, sink->arg());
}

}  // namespace rawgpu::compiler
