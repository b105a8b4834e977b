#include "rawgpu/compiler/pattern.h"

#include <algorithm>
#include <bit>

#include "rawgpu/base/error.h"
#include "rawgpu/base/format.h"

namespace rawgpu::compiler {

Pat Pat::any_of(std::vector<Pat> alternatives) {
  RG_CHECK(!alternatives.empty(), "any_of needs alternatives");
  Pat p;
  p.mode_ = Mode::kAlternatives;
  p.children_ = std::move(alternatives);
  return p;
}

Pat&& Pat::arg(Arg a) && {
  RG_CHECK(a.kind() == ArgKind::kNone || a.kind() == ArgKind::kInt || a.kind() == ArgKind::kFloat ||
               a.kind() == ArgKind::kInvalid || a.kind() == ArgKind::kOp,
           "patterns match only inline args");
  has_arg_ = true;
  arg_ = a;
  return std::move(*this);
}

Ref Match::operator()(std::string_view name) const {
  for (size_t i = 0; i < names_->size(); ++i)
    if ((*names_)[i] == name) return slots_[i];
  RG_CHECK(false, "rule has no capture named '%.*s'", static_cast<int>(name.size()), name.data());
  return {};
}

namespace {
int popcount(OpSet s) { return std::popcount(s.lo) + std::popcount(s.hi); }
}  // namespace

void PatternMatcher::compile(const Pat& p, Rule& r, size_t at) {
  PNode n;
  n.ops = p.ops_;
  n.dtypes = p.dtypes_;
  n.has_arg = p.has_arg_;
  n.arg = p.arg_;
  n.mode = p.mode_;
  if (!p.name_.empty()) {
    auto it = std::find(r.names.begin(), r.names.end(), p.name_);
    if (it == r.names.end()) {
      RG_CHECK(r.names.size() < kMaxCaptures, "too many captures in one pattern");
      r.names.push_back(p.name_);
      it = r.names.end() - 1;
    }
    n.slot = static_cast<int8_t>(it - r.names.begin());
  }
  if (p.mode_ == Pat::Mode::kPermute)
    RG_CHECK(p.children_.size() <= 6, "permutation patterns take at most 6 children");
  n.first = static_cast<uint16_t>(r.nodes.size());
  n.count = static_cast<uint16_t>(p.children_.size());
  r.nodes[at] = n;
  r.nodes.resize(r.nodes.size() + p.children_.size());
  for (size_t i = 0; i < p.children_.size(); ++i) compile(p.children_[i], r, n.first + i);
}

bool PatternMatcher::match(const Rule& r, const PNode& p, Ref n, std::array<Ref, kMaxCaptures>& s) {
  if (!p.ops.empty() && !p.ops.has(n->op())) return false;
  if (!p.dtypes.any() && !p.dtypes.has(n->dtype())) return false;
  if (p.has_arg && !(n->arg() == p.arg)) return false;
  if (p.slot >= 0) {
    if (s[p.slot] && s[p.slot] != n) return false;
    s[p.slot] = n;
  }
  const PNode* c = r.nodes.data() + p.first;
  const auto src = n->src();
  switch (p.mode) {
    case Pat::Mode::kAny: return true;
    case Pat::Mode::kOrdered:
      if (src.size() != p.count) return false;
      [[fallthrough]];
    case Pat::Mode::kPrefix:
      if (src.size() < p.count) return false;
      for (size_t i = 0; i < p.count; ++i)
        if (!match(r, c[i], src[i], s)) return false;
      return true;
    case Pat::Mode::kRepeat:
      for (Ref x : src)
        if (!match(r, c[0], x, s)) return false;
      return true;
    case Pat::Mode::kAlternatives: {
      const auto saved = s;
      for (size_t i = 0; i < p.count; ++i) {
        if (match(r, c[i], n, s)) return true;
        s = saved;
      }
      return false;
    }
    case Pat::Mode::kPermute: {
      if (src.size() != p.count) return false;
      std::array<uint8_t, 6> perm{0, 1, 2, 3, 4, 5};
      const auto saved = s;
      do {
        bool ok = true;
        for (size_t i = 0; i < p.count && ok; ++i) ok = match(r, c[i], src[perm[i]], s);
        if (ok) return true;
        s = saved;
      } while (std::next_permutation(perm.begin(), perm.begin() + p.count));
      return false;
    }
  }
  return false;
}

PatternMatcher& PatternMatcher::add(const Pat& pattern, RewriteFn fn, std::source_location loc) {
  std::string_view file = loc.file_name();
  if (auto slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  return add_named(strformat("%.*s:%u", static_cast<int>(file.size()), file.data(),
                             static_cast<unsigned>(loc.line())),
                   pattern, std::move(fn));
}

PatternMatcher& PatternMatcher::add_named(std::string name, const Pat& pattern, RewriteFn fn) {
  Rule r;
  r.nodes.resize(1);
  compile(pattern, r, 0);
  r.fn = std::move(fn);
  r.name = std::move(name);
  const PNode& root = r.nodes[0];
  if (root.mode == Pat::Mode::kOrdered || root.mode == Pat::Mode::kPermute ||
      root.mode == Pat::Mode::kPrefix) {
    for (size_t i = 0; i < root.count; ++i) {
      const PNode& c = r.nodes[root.first + i];
      if (popcount(c.ops) == 1) r.early_reject |= c.ops;
    }
  }
  rules_.push_back(std::move(r));
  index_rule(static_cast<uint32_t>(rules_.size() - 1));
  return *this;
}

void PatternMatcher::index_rule(uint32_t i) {
  const Rule& r = rules_[i];
  const PNode& root = r.nodes[0];
  OpSet roots = root.ops;
  if (root.mode == Pat::Mode::kAlternatives) {
    roots = OpSet();
    for (size_t k = 0; k < root.count; ++k) {
      const OpSet alt = r.nodes[root.first + k].ops;
      roots |= alt.empty() ? OpSet::all() : alt;
    }
  }
  if (roots.empty()) roots = OpSet::all();
  for (int o = 0; o < kNumOps; ++o)
    if (roots.has(static_cast<Op>(o))) by_op_[o].push_back(i);
}

PatternMatcher& PatternMatcher::extend(const PatternMatcher& other) {
  for (const Rule& r : other.rules_) {
    rules_.push_back(r);
    index_rule(static_cast<uint32_t>(rules_.size() - 1));
  }
  return *this;
}

Ref PatternMatcher::rewrite(Ref n, void* user) const { return rewrite(n, user, nullptr); }

Ref PatternMatcher::rewrite(Ref n, void* user, int* rule_index) const {
  const auto& list = by_op_[static_cast<size_t>(n->op())];
  if (list.empty()) return {};
  const OpSet have = n->src_ops();
  Match m;
  m.root_ = n;
  m.user_ = user;
  for (uint32_t i : list) {
    const Rule& r = rules_[i];
    if (!r.early_reject.subset_of(have)) continue;
    m.slots_.fill(Ref());
    if (!match(r, r.nodes[0], n, m.slots_)) continue;
    m.names_ = &r.names;
    Ref out = r.fn(m);
    if (out && out != n) {
      if (rule_index) *rule_index = static_cast<int>(i);
      return out;
    }
  }
  return {};
}

bool PatternMatcher::matches(const Pat& pattern, Ref n) {
  Rule r;
  r.nodes.resize(1);
  compile(pattern, r, 0);
  std::array<Ref, kMaxCaptures> s{};
  return match(r, r.nodes[0], n, s);
}

}  // namespace rawgpu::compiler
