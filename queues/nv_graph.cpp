#include "rawgpu/queues/nv_graph.h"

#include <cstring>

#include "rawgpu/base/format.h"

namespace rawgpu::queues {

namespace {
constexpr uint32_t kCompute = 0, kCopy = 1;
constexpr uint64_t kGpEntryMaxDwords = (1u << 21) - 1;
}  // namespace

NvGraph::NvGraph(nv::RmGpu& gpu, NvComputeQueue& compute, NvChannelQueue& copy, SignalPool& signals)
    : gpu_(&gpu),
      compute_(&compute),
      copy_(&copy),
      signals_(&signals),
      pb_{NvPushBuffer(gpu.classes().gpfifo, gpu.classes().copy),
          NvPushBuffer(gpu.classes().gpfifo, gpu.classes().copy)},
      pre_{NvPushBuffer(gpu.classes().gpfifo, gpu.classes().copy),
           NvPushBuffer(gpu.classes().gpfifo, gpu.classes().copy)},
      post_(gpu.classes().gpfifo, gpu.classes().copy) {}

Result<std::unique_ptr<NvGraph>> NvGraph::create(nv::RmGpu& gpu, NvComputeQueue& compute,
                                                 NvChannelQueue& copy, SignalPool& signals) {
  std::unique_ptr<NvGraph> g(new NvGraph(gpu, compute, copy, signals));
  g->sync_[kCompute] = RG_TRY(signals.alloc());
  g->sync_[kCopy] = RG_TRY(signals.alloc());
  return g;
}

NvGraph::~NvGraph() {
  if (last_launch_ && !gpu_->hcq_fault().queue_error)
    (void)wait_signal(*gpu_, last_launch_->first, last_launch_->second, "graph teardown");
  for (nv::NvMemory* m : {&pb_mem_[0], &pb_mem_[1], &launch_mem_}) {
    if (m->handle != 0) (void)gpu_->free(*m);
  }
  for (const Signal& s : sync_) {
    if (s.valid()) signals_->release(s);
  }
}

uint32_t NvGraph::exec(const NvProgram& program, const NvLaunch& launch,
                       std::span<const BufferRange> reads, std::span<const BufferRange> writes) {
  RG_CHECK(!bound_, "recording into a bound graph");
  Node n;
  n.queue = kCompute;
  n.program = &program;
  n.launch = launch;
  n.params.assign(launch.params.begin(), launch.params.end());
  n.launch.params = {};
  n.reads.assign(reads.begin(), reads.end());
  n.writes.assign(writes.begin(), writes.end());
  nodes_.push_back(std::move(n));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

uint32_t NvGraph::copy(GpuVa dst, GpuVa src, uint64_t bytes) {
  RG_CHECK(!bound_, "recording into a bound graph");
  RG_CHECK(bytes > 0, "graph copy of 0 bytes");
  Node n;
  n.queue = kCopy;
  n.dst = dst;
  n.src = src;
  n.bytes = bytes;
  n.reads.push_back({src, bytes});
  n.writes.push_back({dst, bytes});
  nodes_.push_back(std::move(n));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

Status NvGraph::set_grid(uint32_t node, std::array<uint32_t, 3> grid) {
  if (node >= nodes_.size())
    return make_error(Errc::kInvalidArgument,
                      "set_grid: node %u does not exist (the graph has %zu)", node, nodes_.size());
  Node& n = nodes_[node];
  if (n.queue != kCompute)
    return make_error(Errc::kInvalidArgument, "set_grid: node %u is a copy, not a kernel", node);
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || grid[0] > 0x7fffffffu || grid[1] > 65535 ||
      grid[2] > 65535)
    return make_error(Errc::kInvalidArgument,
                      "set_grid: node %u grid %ux%ux%u is outside 1..2^31-1 x 1..65535 x 1..65535",
                      node, grid[0], grid[1], grid[2]);
  if (n.launch.grid == grid) return ok_status();
  n.launch.grid = grid;
  if (bound_ && !n.grid_dirty) {
    n.grid_dirty = true;
    dirty_.push_back(node);
  }
  return ok_status();
}

void NvGraph::set_chaining(bool on) {
  RG_CHECK(!bound_, "changing how a bound graph launches its kernels");
  chaining_ = on;
}

Status NvGraph::bind() {
  if (bound_) return make_error(Errc::kInvalidArgument, "graph is already bound");
  if (nodes_.empty()) return make_error(Errc::kInvalidArgument, "binding an empty graph");
  const size_t n = nodes_.size();
  std::vector<PlanNode> plan_nodes(n);
  for (size_t j = 0; j < n; ++j)
    plan_nodes[j] = {nodes_[j].queue, nodes_[j].reads, nodes_[j].writes};
  const CrossQueuePlan plan = plan_cross_queue(plan_nodes);

  // Every kernel's bank 0 and QMD, one 256-byte aligned piece each, in one CPU-visible block
  // below 2^40 (QMD addresses are >> 8 in 32 bits).
  uint64_t total = 0;
  for (size_t j = 0; j < n; ++j) {
    Node& nd = nodes_[j];
    if (nd.queue != kCompute) continue;
    nd.launch.params = nd.params;
    nd.layout = RG_TRY_CTX(compute_->prepare(*nd.program, nd.launch), "graph node %zu", j);
    nd.launch_offset = total;
    total += (nd.layout.bytes + 255) / 256 * 256;
  }
  nv::NvMemory launch_mem;
  if (total > 0) launch_mem = RG_TRY_CTX(gpu_->alloc_vram(total, true), "binding a graph");
  NvPushBuffer pb[2] = {NvPushBuffer(gpu_->classes().gpfifo, gpu_->classes().copy),
                        NvPushBuffer(gpu_->classes().gpfifo, gpu_->classes().copy)};
  std::vector<EpochSlot> eslots;
  auto fail = [&](Error e) -> Status {
    if (launch_mem.handle != 0) (void)gpu_->free(launch_mem);
    return e;
  };
  bool copy_class_bound = false;
  // The open chain on the compute channel: the last kernel launched or chained, whose grid the
  // WFI that closes the chain waits for.
  int64_t chain_tail = -1;
  uint32_t chained = 0;
  auto close_chain = [&] {
    if (chain_tail >= 0) pb[kCompute].wfi();
    chain_tail = -1;
  };
  for (size_t j = 0; j < n; ++j) {
    Node& nd = nodes_[j];
    const uint32_t q = nd.queue;
    if (q == kCopy && !copy_class_bound) {
      // The copy channel's engine object on its subchannel (every replay: a few dwords).
      pb[q].set_object(kNvSubchCopy, gpu_->classes().copy);
      copy_class_bound = true;
    }
    if (plan.waits[j] >= 0) {
      if (q == kCompute) close_chain();
      const uint32_t off = static_cast<uint32_t>(plan.waits[j]) + 1;
      auto s = pb[q].wait_slot(sync_[1 - q].va().raw(), off);
      if (!s) return fail(std::move(s).take_error());
      eslots.push_back({q, *s, off});
    }
    if (q == kCompute) {
      // prepare() again right before writing: a program's QMD template follows its last
      // prepare (two nodes of one program may differ in dynamic shared memory).
      auto at = compute_->prepare(*nd.program, nd.launch);
      if (!at) return fail(std::move(at).take_error());
      nd.qmd.assign(at->qmd_bytes / 4, 0);
      const uint64_t va = launch_mem.va + nd.launch_offset;
      compute_->write_launch(*nd.program, nd.launch, *at, launch_mem.cpu() + nd.launch_offset, va,
                             nullptr, 0, nd.qmd);
      if (chaining_ && chain_tail >= 0) {
        // The previous kernel schedules this one when its grid completes.
        Node& tail = nodes_[static_cast<size_t>(chain_tail)];
        compute_->chain(tail.qmd, va + at->qmd_offset);
        std::memcpy(launch_mem.cpu() + tail.launch_offset + tail.layout.qmd_offset, tail.qmd.data(),
                    tail.qmd.size() * 4);
        ++chained;
      } else {
        close_chain();
        NvComputeQueue::push_pcas(pb[q], va + at->qmd_offset);
      }
      chain_tail = static_cast<int64_t>(j);
    } else if (Status s = pb[q].copy(nd.dst.raw(), nd.src.raw(), nd.bytes); !s) {
      return fail(std::move(s).take_error().with_context(strformat("graph node %zu", j)));
    }
    if (plan.signals[j]) {
      if (q == kCompute) close_chain();
      const uint32_t off = static_cast<uint32_t>(j) + 1;
      auto s = pb[q].signal_slot(sync_[q].va().raw(), off);
      if (!s) return fail(std::move(s).take_error());
      eslots.push_back({q, *s, off});
    }
  }
  close_chain();
  // The copy channel reports its end; the compute channel's tail waits for it.
  if (!pb[kCopy].cmds().empty()) {
    const uint32_t off = static_cast<uint32_t>(n) + 1;
    auto s = pb[kCopy].signal_slot(sync_[kCopy].va().raw(), off);
    if (!s) return fail(std::move(s).take_error());
    eslots.push_back({kCopy, *s, off});
  }
  nv::NvMemory mem[2];
  for (uint32_t q = 0; q < 2; ++q) {
    const size_t dw = pb[q].size();
    if (dw == 0) continue;
    if (dw > kGpEntryMaxDwords) {
      for (nv::NvMemory* m : {&mem[0], &mem[1]})
        if (m->handle != 0) (void)gpu_->free(*m);
      return fail(Error(Errc::kInvalidArgument,
                        strformat("the graph's %s pushbuffer has %zu dwords; a GP entry fetches "
                                  "at most %llu",
                                  q == kCompute ? "compute" : "copy", dw,
                                  static_cast<unsigned long long>(kGpEntryMaxDwords))));
    }
    auto m = gpu_->alloc_vram(dw * 4, true);
    if (!m) {
      if (mem[0].handle != 0) (void)gpu_->free(mem[0]);
      return fail(std::move(m).take_error().with_context("binding a graph"));
    }
    mem[q] = *m;
    std::memcpy(mem[q].cpu(), pb[q].cmds().dwords().data(), dw * 4);
  }
  for (uint32_t q = 0; q < 2; ++q) {
    pb_[q] = std::move(pb[q]);
    pb_mem_[q] = mem[q];
  }
  launch_mem_ = launch_mem;
  epoch_slots_ = std::move(eslots);
  cross_waits_ = plan.cross_waits;
  chained_ = chained;
  bound_ = true;
  return ok_status();
}

void NvGraph::write_slot(uint32_t q, PatchSlot s, uint64_t value) {
  CmdBuilder& c = pb_[q].cmds();
  const uint64_t cur = uint64_t{c[s.offset]} | (uint64_t{c[s.offset + 1]} << 32);
  if (cur == value) return;
  c.patch(s, value);
  auto* words = reinterpret_cast<uint32_t*>(pb_mem_[q].cpu());
  words[s.offset] = static_cast<uint32_t>(value);
  words[s.offset + 1] = static_cast<uint32_t>(value >> 32);
  last_patched_ += 2;
}

Status NvGraph::launch(Timeline& tl, const WaitOptions& wait) {
  if (!bound_) return make_error(Errc::kInvalidArgument, "launching an unbound graph");
  // The bound memory is rewritten below: the previous launch must be done with it.
  if (last_launch_)
    RG_TRY(wait_signal(*gpu_, last_launch_->first, last_launch_->second, "previous graph launch",
                       wait));
  const uint32_t base = epochs_.next(nodes_.size(), sync_);
  last_patched_ = 0;
  for (const EpochSlot& e : epoch_slots_) write_slot(e.queue, e.slot, base + e.offset);
  for (uint32_t i : dirty_) {  // only kernels whose grid changed since the last launch
    Node& nd = nodes_[i];
    compute_->patch_grid(nd.qmd, nd.launch.grid);
    uint8_t* cpu = launch_mem_.cpu() + nd.launch_offset;
    std::memcpy(cpu + 12, nd.launch.grid.data(), 12);  // bank 0: gridDim at 0x0c
    std::memcpy(cpu + nd.layout.qmd_offset, nd.qmd.data(), nd.qmd.size() * 4);
    last_patched_ += 3 + nd.qmd.size();
    nd.grid_dirty = false;
  }
  dirty_.clear();
  const bool has_copy = pb_[kCopy].size() != 0, has_compute = pb_[kCompute].size() != 0;
  NvChannelQueue& cch = compute_->channel();
  if (has_copy) {
    pre_[kCopy].clear();
    if (tl.wait_value() > 0) RG_TRY(pre_[kCopy].wait(tl.wait_signal().va().raw(), tl.wait_value()));
    if (pre_[kCopy].size() != 0) RG_TRY(copy_->submit(pre_[kCopy], wait.timeout));
    RG_TRY(copy_->submit_indirect(pb_mem_[kCopy].va, static_cast<uint32_t>(pb_[kCopy].size()),
                                  wait.timeout));
  }
  pre_[kCompute].clear();
  if (tl.wait_value() > 0)
    RG_TRY(pre_[kCompute].wait(tl.wait_signal().va().raw(), tl.wait_value()));
  if (pre_[kCompute].size() != 0) RG_TRY(cch.submit(pre_[kCompute], wait.timeout));
  if (has_compute)
    RG_TRY(cch.submit_indirect(pb_mem_[kCompute].va, static_cast<uint32_t>(pb_[kCompute].size()),
                               wait.timeout));
  post_.clear();
  if (has_copy)
    RG_TRY(post_.wait(sync_[kCopy].va().raw(), base + static_cast<uint32_t>(nodes_.size()) + 1));
  RG_TRY(post_.signal(tl.signal().va().raw(), tl.next()));
  RG_TRY(cch.submit(post_, wait.timeout));
  last_launch_ = {tl.signal(), tl.next()};
  tl.advance();
  return ok_status();
}

}  // namespace rawgpu::queues
