// The device-independent half of a graph (queues/graph.h on AMD, queues/nv_graph.h on NVIDIA):
// which node of one queue must wait for which node of the other, from the buffer ranges each
// node reads and writes, and the epoch scheme of the per-queue sync values the waits compare.
//
// Two queues (0: compute, 1: copy) each run their nodes in order. Node b waits for the latest
// earlier node a on the other queue whose writes overlap b's reads or writes, or whose reads
// overlap b's writes (RAW, WAW, WAR), unless b's queue already waits for a later node of that
// queue. Node a then signals its progress (value epoch * stride + a + 1 on its queue's sync
// signal) and b waits for that value; a queue's last node may also report the queue's end.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues {

struct BufferRange {
  GpuVa va;
  uint64_t size = 0;
  bool overlaps(const BufferRange& o) const {
    return va.raw() < o.va.raw() + o.size && o.va.raw() < va.raw() + size;
  }
};

struct PlanNode {
  uint32_t queue = 0;  // 0 or 1
  std::span<const BufferRange> reads, writes;
};

struct CrossQueuePlan {
  std::vector<int64_t> waits;  // per node: the other queue's node it waits for, or -1
  std::vector<bool> signals;   // per node: a node of the other queue waits for it
  uint32_t cross_waits = 0;
};

CrossQueuePlan plan_cross_queue(std::span<const PlanNode> nodes);

// Sync values of one launch: node j's progress is base + j + 1, the copy queue's end
// base + n + 1, with base = epoch * (n + 2). Epochs restart (and the sync signals reset to 0)
// before a value would reach 2^31, the limit of 32-bit GPU compares.
class GraphEpochs {
 public:
  // The next launch's base for a graph of `nodes` nodes; resets `sync` first when the epochs
  // restart (the caller has waited for its previous launch: nothing of it is in flight).
  uint32_t next(size_t nodes, std::span<Signal> sync);

 private:
  uint32_t epoch_ = 0;
};

}  // namespace rawgpu::queues
