// Graphs: a recorded sequence of kernel launches and copies across one compute (PM4) and one
// copy (SDMA) queue, bound once into GPU memory as one command buffer per queue and replayed
// with only the changed patch slots rewritten and one INDIRECT_BUFFER / INDIRECT per queue
// submitted (the reference design's bound HCQ graph). A command buffer longer than one indirect
// packet can run (2^20 - 1 dwords, ~25,000 kernels) is split between nodes into several indirect
// buffers, each submitted with its own packet.
//
// Dependencies come from buffer read/write sets (graph_plan.h, shared with the NVIDIA graph): a
// node waits for the latest earlier node on the other queue whose writes overlap its reads or
// writes, or whose reads overlap its writes (RAW, WAW, WAR). Work on one queue runs in order (exec
// ends with CS_PARTIAL_FLUSH, SDMA is in order). Cross-queue edges are a RELEASE_MEM/FENCE of an
// epoch-based value on a per-queue sync signal and a WAIT_REG_MEM/POLL_REGMEM on it; the epoch
// changes every launch, so those values are patch slots rewritten per launch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/amd_sdma.h"
#include "rawgpu/queues/graph_plan.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues::amd {

using queues::BufferRange;

class Graph {
 public:
  enum class QueueKind : uint8_t { kCompute, kCopy };

  // The graph submits on `compute` and `copy` (either may be unused) and takes two sync
  // signals from `signals`.
  static Result<std::unique_ptr<Graph>> create(drivers::amd::AmdDevice& device,
                                               ComputeQueue& compute, CopyQueue& copy,
                                               SignalPool& signals);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Recording (before bind; recording into a bound graph or a copy of 0 bytes is a programming
  // error and aborts). Return the node index; exec parameters are checked by bind().
  uint32_t exec(const ExecParams& params, std::span<const BufferRange> reads,
                std::span<const BufferRange> writes);
  uint32_t copy(GpuVa dst, GpuVa src, uint64_t bytes);

  // Builds the command streams and copies them into GPU memory. kInvalidArgument for an empty
  // graph, invalid exec parameters or one node needing more dwords than an indirect buffer
  // holds; the graph stays unbound on error.
  Status bind();
  // The most dwords per indirect buffer (default and upper bound: what the packets encode).
  // Smaller values exercise the split in tests. Before bind().
  void set_indirect_limit(uint32_t dwords);
  // Indirect buffers per launch on each queue (after bind).
  size_t indirect_buffers(QueueKind q) const {
    return chunks_[q == QueueKind::kCompute ? 0 : 1].size();
  }
  bool bound() const { return bound_; }

  // Changes for the next launch (before or after bind). After bind, these rewrite the node's
  // patch slots in the bound buffer at the next launch only if the value changed. The values
  // come from user shapes and arguments: kInvalidArgument (the graph unchanged) for a node that
  // is not a kernel, a user-data index past the node's user_data_count, or a grid dimension 0.
  Status set_grid(uint32_t node, std::array<uint32_t, 3> grid);
  Status set_user_data(uint32_t node, uint32_t index, uint32_t value);

  // Submits one launch: both queues wait on the timeline's previous value, run their bound IB,
  // and the compute queue signals the timeline's next value once the copy queue is done too.
  // Waits for the previous launch of this graph before rewriting patch slots. Advances `tl`.
  Status launch(Timeline& tl, const WaitOptions& wait = {});

  size_t nodes() const { return nodes_.size(); }
  // Dword slots rewritten by the last launch (epoch values + changed node values).
  uint64_t last_patched() const { return last_patched_; }
  // Cross-queue waits inserted by bind().
  uint32_t cross_queue_waits() const { return cross_waits_; }
  QueueKind queue_of(uint32_t node) const { return nodes_[node].queue; }

 private:
  Status check_kernel_node(uint32_t node, const char* what) const;
  Graph(drivers::amd::AmdDevice& device, ComputeQueue& compute, CopyQueue& copy,
        SignalPool& signals)
      : device_(&device), compute_(&compute), copy_(&copy), signals_(&signals) {}
  struct Node {
    QueueKind queue;
    ExecParams exec;
    GpuVa dst, src;
    uint64_t bytes = 0;
    std::vector<BufferRange> reads, writes;
    ExecSlots slots;                                               // after bind (exec nodes)
    std::array<uint32_t, 3> grid{};                                // value in the bound buffer
    std::vector<std::pair<uint32_t, uint32_t>> user_data_changes;  // (index, value) pending
    bool grid_dirty = false;
  };
  // A slot whose value is epoch * kEpochStride + offset.
  struct EpochSlot {
    QueueKind queue;
    PatchSlot slot;
    uint32_t offset;
  };
  void write_slot(QueueKind q, PatchSlot s, uint32_t value);

  drivers::amd::AmdDevice* device_;
  ComputeQueue* compute_;
  CopyQueue* copy_;
  SignalPool* signals_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> dirty_;  // nodes with pending changes (bound graphs)
  Signal sync_[2];               // per queue: progress through the graph (epoch-based values)
  CmdBuilder ib_[2];
  drivers::amd::DeviceBuffer ib_mem_[2];
  struct Chunk {
    uint32_t start, dwords;
  };
  std::vector<Chunk> chunks_[2];  // the indirect buffers within ib_[q]
  uint32_t indirect_limit_ = 0;   // 0: the packets' limit
  std::vector<EpochSlot> epoch_slots_;
  GraphEpochs epochs_;
  bool bound_ = false;
  uint32_t cross_waits_ = 0;
  uint64_t last_patched_ = 0;
  std::optional<std::pair<Signal, uint32_t>> last_launch_;
};

}  // namespace rawgpu::queues::amd
