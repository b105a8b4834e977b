#include "rawgpu/queues/graph_plan.h"

namespace rawgpu::queues {

CrossQueuePlan plan_cross_queue(std::span<const PlanNode> nodes) {
  const size_t n = nodes.size();
  CrossQueuePlan p;
  p.waits.assign(n, -1);
  p.signals.assign(n, false);
  int64_t waited[2] = {-1, -1};       // per queue: latest other-queue node already waited for
  std::vector<uint32_t> on_queue[2];  // node indexes per queue, in order
  for (size_t j = 0; j < n; ++j) {
    const uint32_t q = nodes[j].queue;
    const PlanNode& b = nodes[j];
    int64_t dep = -1;
    // Only other-queue nodes after the last one this queue already waited for can add an edge.
    const std::vector<uint32_t>& other = on_queue[1 - q];
    for (size_t k = other.size(); k-- > 0;) {
      const uint32_t i = other[k];
      if (static_cast<int64_t>(i) <= waited[q]) break;
      const PlanNode& a = nodes[i];
      bool conflict = false;
      for (const auto& w : a.writes) {
        for (const auto& r : b.reads) conflict |= w.overlaps(r);
        for (const auto& w2 : b.writes) conflict |= w.overlaps(w2);
      }
      for (const auto& r : a.reads) {
        for (const auto& w2 : b.writes) conflict |= r.overlaps(w2);
      }
      if (conflict) {
        dep = static_cast<int64_t>(i);
        break;
      }
    }
    on_queue[q].push_back(static_cast<uint32_t>(j));
    if (dep > waited[q]) {
      p.waits[j] = dep;
      p.signals[static_cast<size_t>(dep)] = true;
      waited[q] = dep;
      ++p.cross_waits;
    }
  }
  return p;
}

uint32_t GraphEpochs::next(size_t nodes, std::span<Signal> sync) {
  const uint32_t stride = static_cast<uint32_t>(nodes) + 2;
  if (uint64_t{epoch_ + 1} * stride + stride >= Timeline::kWrapAt) {
    for (Signal& s : sync) s.set(0);
    epoch_ = 0;
  }
  ++epoch_;
  return epoch_ * stride;
}

}  // namespace rawgpu::queues
