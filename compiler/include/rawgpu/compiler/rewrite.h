// Graph rewrite drivers. All are iterative (explicit stacks, flat memo tables indexed by node id):
// graph depth is limited only by memory. Shared subgraphs are processed once per call.
//
//   rewrite_bottom_up   children first, then the node; every replacement is itself rewritten
//                       until no rule fires (fixpoint). The default for simplification passes.
//   rewrite_top_down    the node first (rules applied until none fires), then its children;
//                       a node rebuilt with new children is processed again (fixpoint).
//   rewrite_graph       both at once: `pre` rules on the way down, `post` rules on the way up.
//   rewrite_walk        one pass, children first, each node offered to the rules once; results
//                       are not revisited (final substitutions, parameter binding).
//   substitute          replaces nodes by a map, top-down, without descending into replacements.
//
// A rule set that never reaches a fixpoint (a cycle, or a rule that returns a graph containing
// the node it rewrote) is a bug in the rules: the drivers detect it and abort with the rule name.
// RAWGPU_DEBUG=rewrite=5 (or 5) logs every rule hit as "rule file:line: before -> after".
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>

#include "rawgpu/compiler/pattern.h"

namespace rawgpu::compiler {

struct RewriteStats {
  uint64_t nodes_visited = 0;
  uint64_t rule_hits = 0;
};

struct RewriteOptions {
  void* user = nullptr;                        // passed to callbacks as Match::user<T>()
  std::string_view pass = {};                  // name for traces
  RewriteStats* stats = nullptr;               // optional counters
  uint64_t max_rewrites_per_node = 100000000;  // top-down rewrites of one node: a runaway rule
};

Ref rewrite_graph(Ref root, const PatternMatcher* pre, const PatternMatcher* post,
                  const RewriteOptions& options = {});
inline Ref rewrite_bottom_up(Ref root, const PatternMatcher& pm, const RewriteOptions& o = {}) {
  return rewrite_graph(root, nullptr, &pm, o);
}
inline Ref rewrite_top_down(Ref root, const PatternMatcher& pm, const RewriteOptions& o = {}) {
  return rewrite_graph(root, &pm, nullptr, o);
}
Ref rewrite_walk(Ref root, const PatternMatcher& pm, const RewriteOptions& options = {});
Ref substitute(Ref root, const std::unordered_map<Ref, Ref>& replacements);

}  // namespace rawgpu::compiler
