#include "rawgpu/compiler/rewrite.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/base/log.h"

namespace rawgpu::compiler {
namespace {

// Per-node memo for one driver call: result (null = not done) and an in-progress flag, indexed
// by node id. The arrays live in a per-thread pool, one set per nesting depth (rules may run a
// driver themselves, e.g. simplify inside a validity rule), and every call takes a fresh
// generation number: an entry whose stamp is not the current generation reads as empty. A call
// therefore costs O(nodes it touches), not O(nodes in the Context): allocating and clearing
// Context-sized arrays per call made nested rewrites quadratic in large graphs.
class Memo {
 public:
  explicit Memo(const Context& ctx) {
    auto& pool = t_pool_;
    if (t_depth_ == pool.size()) pool.push_back(std::make_unique<Store>());
    s_ = pool[t_depth_++].get();
    if (++s_->gen == 0) {  // wrapped: old stamps could alias the new generation
      std::fill(s_->stamp.begin(), s_->stamp.end(), 0u);
      s_->gen = 1;
    }
    if (s_->stamp.size() < ctx.num_nodes()) grow(ctx.num_nodes());
  }
  ~Memo() { --t_depth_; }
  Memo(const Memo&) = delete;
  Memo& operator=(const Memo&) = delete;

  const Node* get(const Node* n) {
    const uint32_t i = n->id();
    return i < s_->stamp.size() && s_->stamp[i] == s_->gen ? s_->slots[i].result : nullptr;
  }
  bool in_progress(const Node* n) {
    const uint32_t i = n->id();
    return i < s_->stamp.size() && s_->stamp[i] == s_->gen && s_->slots[i].busy;
  }
  void start(const Node* n) { slot(n).busy = true; }
  // n's final form is v. In fixpoint drivers v is its own final form too (`v_is_fixpoint`).
  void finish(const Node* n, const Node* v, bool v_is_fixpoint = true) {
    Slot& a = slot(n);
    a.result = v;
    a.busy = false;
    if (v_is_fixpoint) {
      Slot& b = slot(v);
      if (!b.busy && !b.result) b.result = v;
    }
  }
  // Records a result directly (substitute: no in-progress state).
  void set(const Node* n, const Node* v) { slot(n).result = v; }

 private:
  struct Slot {
    const Node* result;
    bool busy;
  };
  struct Store {
    std::vector<uint32_t> stamp;
    std::vector<Slot> slots;
    uint32_t gen = 0;
  };
  Slot& slot(const Node* n) {
    const uint32_t i = n->id();
    if (i >= s_->stamp.size()) grow(n->ctx().num_nodes());
    if (s_->stamp[i] != s_->gen) {
      s_->stamp[i] = s_->gen;
      s_->slots[i] = Slot{nullptr, false};
    }
    return s_->slots[i];
  }
  void grow(size_t n) {
    const size_t size = n + n / 2 + 64;
    s_->stamp.resize(size, 0u);
    s_->slots.resize(size);
  }
  static inline thread_local std::vector<std::unique_ptr<Store>> t_pool_;
  static inline thread_local size_t t_depth_ = 0;
  Store* s_;
};

struct Frame {
  const Node* n;    // the node whose final form is being computed
  const Node* cur;  // what it currently stands for
  uint8_t stage;
};

[[noreturn]] void cycle(const RewriteOptions& o, const Node* n, const char* why) {
  fatal_error(__FILE__, __LINE__,
              strformat("rewrite pass '%.*s': %s at node %%%u (%s): the rule set has a cycle",
                        static_cast<int>(o.pass.size()), o.pass.data(), why, n->id(),
                        expr_string(Ref(n), 6).c_str()));
}

Ref apply(const PatternMatcher& pm, const Node* n, const RewriteOptions& o) {
  int rule = -1;
  Ref r = pm.rewrite(Ref(n), o.user, &rule);
  if (r) {
    if (o.stats) ++o.stats->rule_hits;
    if (log::enabled("rewrite", 5))
      log::writef("rewrite", 5, "%.*s rule %s: %s -> %s", static_cast<int>(o.pass.size()),
                  o.pass.data(), pm.rule_name(static_cast<size_t>(rule)).c_str(),
                  expr_string(Ref(n), 8).c_str(), expr_string(r, 8).c_str());
  }
  return r;
}

// n with every child replaced by its memoised final form (n itself when none changed).
// `scratch` is reused across calls to avoid an allocation per node.
Ref with_final_children(Context& ctx, Memo& memo, const Node* n, std::vector<Ref>& scratch) {
  scratch.clear();
  for (Ref c : n->src()) scratch.push_back(Ref(memo.get(c.get())));
  return ctx.replace_src(Ref(n), scratch);
}

}  // namespace

Ref rewrite_graph(Ref root, const PatternMatcher* pre, const PatternMatcher* post,
                  const RewriteOptions& o) {
  Context& ctx = root->ctx();
  Memo memo(ctx);
  std::vector<Frame> stack{{root.get(), root.get(), 0}};
  std::vector<Ref> new_src;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.stage == 0) {
      if (memo.get(f.n)) {
        stack.pop_back();
        continue;
      }
      if (memo.in_progress(f.n)) cycle(o, f.n, "node reached again while being rewritten");
      memo.start(f.n);
      if (o.stats) ++o.stats->nodes_visited;
      const Node* cur = f.n;
      if (pre) {
        // Rules applied until none fires. Long chains of fresh nodes are fine (-(-(-(-x))));
        // revisiting a node is a cycle (checked with a set once the chain gets long).
        uint64_t count = 0;
        std::unordered_set<const Node*> seen;
        while (Ref r = apply(*pre, cur, o)) {
          cur = r.get();
          if (++count > 64 && !seen.insert(cur).second)
            cycle(o, f.n, "top-down rewrites returned to an earlier node");
          if (count > o.max_rewrites_per_node) cycle(o, f.n, "too many top-down rewrites");
        }
      }
      if (cur != f.n) {
        if (const Node* done = memo.get(cur)) {
          memo.finish(f.n, done);
          stack.pop_back();
          continue;
        }
      }
      f.stage = 1;
      f.cur = cur;
      const size_t base = stack.size();
      for (size_t i = cur->nsrc(); i-- > 0;) {
        const Node* c = cur->src(i).get();
        if (memo.get(c)) continue;
        if (memo.in_progress(c)) cycle(o, c, "rewrite result contains the node being rewritten");
        stack.push_back({c, c, 0});
      }
      (void)base;
      continue;
    }
    if (f.stage == 1) {
      const Node* cur = f.cur;
      const Ref rebuilt = with_final_children(ctx, memo, cur, new_src);
      Ref next;
      if (rebuilt.get() != cur) {
        next = rebuilt;
      } else if (post) {
        next = apply(*post, cur, o);
      }
      if (!next) {
        memo.finish(f.n, cur);
        stack.pop_back();
        continue;
      }
      if (const Node* done = memo.get(next.get())) {
        memo.finish(f.n, done);
        stack.pop_back();
        continue;
      }
      f.stage = 2;
      f.cur = next.get();
      const Node* nn = next.get();
      if (memo.in_progress(nn)) cycle(o, nn, "rewrite returned a node that is being rewritten");
      stack.push_back({nn, nn, 0});
      continue;
    }
    // Stage 2: the replacement is final; it is n's final form too.
    memo.finish(f.n, memo.get(f.cur));
    stack.pop_back();
  }
  return Ref(memo.get(root.get()));
}

Ref rewrite_walk(Ref root, const PatternMatcher& pm, const RewriteOptions& o) {
  Context& ctx = root->ctx();
  Memo memo(ctx);
  std::vector<Frame> stack{{root.get(), root.get(), 0}};
  std::vector<Ref> new_src;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.stage == 0) {
      if (memo.get(f.n)) {
        stack.pop_back();
        continue;
      }
      f.stage = 1;
      const Node* n = f.n;
      for (size_t i = n->nsrc(); i-- > 0;)
        if (!memo.get(n->src(i).get())) stack.push_back({n->src(i).get(), nullptr, 0});
      continue;
    }
    const Node* n = f.n;
    stack.pop_back();
    if (memo.get(n)) continue;  // reached twice before completion (shared child)
    const Ref rebuilt = with_final_children(ctx, memo, n, new_src);
    if (o.stats) ++o.stats->nodes_visited;
    const Ref r = apply(pm, rebuilt.get(), o);
    // A walk does not revisit results, so the result is not recorded as its own final form.
    memo.finish(n, (r ? r : rebuilt).get(), /*v_is_fixpoint=*/false);
  }
  return Ref(memo.get(root.get()));
}

Ref substitute(Ref root, const std::unordered_map<Ref, Ref>& replacements) {
  Context& ctx = root->ctx();
  Memo result(ctx);
  std::vector<Frame> stack{{root.get(), nullptr, 0}};
  std::vector<Ref> new_src;
  while (!stack.empty()) {
    Frame& f = stack.back();
    const Node* n = f.n;
    if (f.stage == 0) {
      if (result.get(n)) {
        stack.pop_back();
        continue;
      }
      if (auto it = replacements.find(Ref(n)); it != replacements.end()) {
        result.set(n, it->second.get());
        stack.pop_back();
        continue;
      }
      f.stage = 1;
      for (size_t i = n->nsrc(); i-- > 0;)
        if (!result.get(n->src(i).get())) stack.push_back({n->src(i).get(), nullptr, 0});
      continue;
    }
    stack.pop_back();
    if (result.get(n)) continue;
    new_src.clear();
    for (Ref c : n->src()) new_src.push_back(Ref(result.get(c.get())));
    result.set(n, ctx.replace_src(Ref(n), new_src).get());
  }
  return Ref(result.get(root.get()));
}

}  // namespace rawgpu::compiler
