// NVIDIA graphs: a recorded sequence of kernel launches (compute channel) and copies (copy
// channel), bound once into GPU memory — every kernel's constant bank 0 and QMD in one block, one
// pushbuffer per channel — and replayed with one GP entry per channel plus a few dwords of
// timeline wait and signal, rewriting only the patch slots whose values changed (the reference
// design's bound HCQ graph; graph.h is the AMD one). The cross-queue edges come from the same
// plan (graph_plan.h): a node waits with a Host semaphore acquire on the other channel's sync
// signal for an epoch-based value, which the other channel releases after the node it waits for.
//
// Order within a channel: consecutive kernels with no cross-queue wait or release between them
// are chained (each QMD's DEPENDENT_QMD0 schedules the next when its grid completes, nv.md 3.7),
// so a run of kernels costs one SEND_PCAS; a Host WFI after the run lets a release or a wait
// that follows see every grid finished. On a real GPU, that WFI waits for chained compute grids
// (and not only for the front end) is unconfirmed.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/graph_plan.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues {

class NvGraph {
 public:
  // Kernels go to `compute`'s channel, copies to `copy` (a channel of the copy class); two sync
  // signals come from `signals`.
  static Result<std::unique_ptr<NvGraph>> create(nv::RmGpu& gpu, NvComputeQueue& compute,
                                                 NvChannelQueue& copy, SignalPool& signals);
  ~NvGraph();
  NvGraph(const NvGraph&) = delete;
  NvGraph& operator=(const NvGraph&) = delete;

  // Recording (before bind; the program must outlive the graph). The launch's parameter bytes
  // are copied. Returns the node index; launches are checked by bind().
  uint32_t exec(const NvProgram& program, const NvLaunch& launch,
                std::span<const BufferRange> reads, std::span<const BufferRange> writes);
  uint32_t copy(GpuVa dst, GpuVa src, uint64_t bytes);

  // Writes every kernel's bank 0 and QMD and both pushbuffers into GPU memory. kInvalidArgument
  // for an empty graph, a bad launch, or a pushbuffer longer than a GP entry fetches; the graph
  // stays unbound on error.
  Status bind();
  bool bound() const { return bound_; }
  // Chain consecutive kernels (default) or launch each with its own SEND_PCAS + WFI. Before bind.
  void set_chaining(bool on);
  uint32_t chained_kernels() const { return chained_; }  // kernels scheduled by a dependent QMD

  // A new grid for a kernel node, written into its QMD and bank 0 at the next launch.
  // kInvalidArgument (nothing changed) for a copy node, a missing node or a 0 / too large
  // dimension.
  Status set_grid(uint32_t node, std::array<uint32_t, 3> grid);

  // Submits one launch: both channels wait on the timeline's previous value, run their bound
  // pushbuffer, and the compute channel releases the timeline's next value once the copy channel
  // is done too. Waits for the previous launch of this graph before rewriting patch slots.
  // Advances `tl`.
  Status launch(Timeline& tl, const WaitOptions& wait = {});

  size_t nodes() const { return nodes_.size(); }
  uint64_t last_patched() const { return last_patched_; }  // dwords rewritten by the last launch
  uint32_t cross_queue_waits() const { return cross_waits_; }
  size_t pushbuffer_dwords(uint32_t queue) const { return pb_[queue].size(); }

 private:
  NvGraph(nv::RmGpu& gpu, NvComputeQueue& compute, NvChannelQueue& copy, SignalPool& signals);
  struct Node {
    uint32_t queue = 0;  // 0 compute, 1 copy
    const NvProgram* program = nullptr;
    NvLaunch launch;
    std::vector<uint8_t> params;
    GpuVa dst, src;
    uint64_t bytes = 0;
    std::vector<BufferRange> reads, writes;
    uint64_t launch_offset = 0;  // of bank 0 in the launch block (kernel nodes, after bind)
    NvLaunchLayout layout;
    std::vector<uint32_t> qmd;  // host copy of the bound QMD
    bool grid_dirty = false;
  };
  struct EpochSlot {
    uint32_t queue;
    PatchSlot slot;
    uint32_t offset;
  };
  void write_slot(uint32_t queue, PatchSlot s, uint64_t value);

  nv::RmGpu* gpu_;
  NvComputeQueue* compute_;
  NvChannelQueue* copy_;
  SignalPool* signals_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> dirty_;
  Signal sync_[2];
  NvPushBuffer pb_[2];
  nv::NvMemory pb_mem_[2], launch_mem_;
  std::vector<EpochSlot> epoch_slots_;
  GraphEpochs epochs_;
  bool bound_ = false;
  uint32_t cross_waits_ = 0;
  uint32_t chained_ = 0;
  bool chaining_ = true;
  uint64_t last_patched_ = 0;
  NvPushBuffer pre_[2], post_;
  std::optional<std::pair<Signal, uint32_t>> last_launch_;
};

}  // namespace rawgpu::queues
