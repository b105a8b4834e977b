#include "rawgpu/queues/graph.h"

#include <algorithm>
#include <cstring>

#include "rawgpu/base/format.h"

namespace rawgpu::queues::amd {

namespace {
constexpr size_t kCompute = 0, kCopy = 1;
size_t qi(Graph::QueueKind q) { return q == Graph::QueueKind::kCompute ? kCompute : kCopy; }
}  // namespace

Result<std::unique_ptr<Graph>> Graph::create(drivers::amd::AmdDevice& device, ComputeQueue& compute,
                                             CopyQueue& copy, SignalPool& signals) {
  std::unique_ptr<Graph> g(new Graph(device, compute, copy, signals));
  g->sync_[kCompute] = RG_TRY(signals.alloc());
  g->sync_[kCopy] = RG_TRY(signals.alloc());
  return g;
}

Graph::~Graph() {
  if (last_launch_ && !device_->fault_state().queue_error) {
    (void)wait_signal(*device_, last_launch_->first, last_launch_->second, "graph teardown");
  }
  for (auto& m : ib_mem_) {
    if (m.valid()) (void)device_->free(m);
  }
  for (auto& s : sync_) {
    if (s.valid()) signals_->release(s);
  }
}

uint32_t Graph::exec(const ExecParams& params, std::span<const BufferRange> reads,
                     std::span<const BufferRange> writes) {
  RG_CHECK(!bound_, "recording into a bound graph");
  Node n;
  n.queue = QueueKind::kCompute;
  n.exec = params;
  n.exec.gen = compute_->gen();
  n.reads.assign(reads.begin(), reads.end());
  n.writes.assign(writes.begin(), writes.end());
  nodes_.push_back(std::move(n));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

uint32_t Graph::copy(GpuVa dst, GpuVa src, uint64_t bytes) {
  RG_CHECK(!bound_, "recording into a bound graph");
  RG_CHECK(bytes > 0, "graph copy of 0 bytes");
  Node n;
  n.queue = QueueKind::kCopy;
  n.dst = dst;
  n.src = src;
  n.bytes = bytes;
  n.reads.push_back({src, bytes});
  n.writes.push_back({dst, bytes});
  nodes_.push_back(std::move(n));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

Status Graph::check_kernel_node(uint32_t node, const char* what) const {
  if (node >= nodes_.size())
    return make_error(Errc::kInvalidArgument, "%s: node %u does not exist (the graph has %zu)",
                      what, node, nodes_.size());
  if (nodes_[node].queue != QueueKind::kCompute)
    return make_error(Errc::kInvalidArgument, "%s: node %u is a copy, not a kernel", what, node);
  return ok_status();
}

Status Graph::set_grid(uint32_t node, std::array<uint32_t, 3> grid) {
  RG_TRY(check_kernel_node(node, "set_grid"));
  for (uint32_t g : grid)
    if (g == 0)
      return make_error(Errc::kInvalidArgument, "set_grid: node %u grid %ux%ux%u has a 0 dimension",
                        node, grid[0], grid[1], grid[2]);
  Node& n = nodes_[node];
  n.exec.grid = grid;
  if (bound_) {
    n.grid_dirty = true;
    dirty_.push_back(node);
  }
  return ok_status();
}

Status Graph::set_user_data(uint32_t node, uint32_t index, uint32_t value) {
  RG_TRY(check_kernel_node(node, "set_user_data"));
  Node& n = nodes_[node];
  if (index >= n.exec.user_data_count)
    return make_error(Errc::kInvalidArgument,
                      "set_user_data: node %u has %u user-data dwords, index %u is past them", node,
                      n.exec.user_data_count, index);
  if (n.exec.user_data[index] == value) return ok_status();
  n.exec.user_data[index] = value;
  if (bound_) {
    n.user_data_changes.emplace_back(index, value);
    dirty_.push_back(node);
  }
  return ok_status();
}

void Graph::set_indirect_limit(uint32_t dwords) {
  RG_CHECK(!bound_, "setting the indirect-buffer limit of a bound graph");
  RG_CHECK(dwords == 0 || dwords >= 64, "indirect-buffer limit of %u dwords", dwords);
  indirect_limit_ = dwords;
}

Status Graph::bind() {
  if (bound_) return make_error(Errc::kInvalidArgument, "graph is already bound");
  if (nodes_.empty()) return make_error(Errc::kInvalidArgument, "binding an empty graph");
  const size_t n = nodes_.size();
  // Pass 1: the cross-queue edges (graph_plan.h).
  std::vector<PlanNode> plan_nodes(n);
  for (size_t j = 0; j < n; ++j)
    plan_nodes[j] = {static_cast<uint32_t>(qi(nodes_[j].queue)), nodes_[j].reads, nodes_[j].writes};
  const CrossQueuePlan plan = plan_cross_queue(plan_nodes);
  const std::vector<int64_t>& waits = plan.waits;
  const std::vector<bool>& signals = plan.signals;
  // Pass 2: the streams. Epoch values are placeholders (epoch 0) until launch patches them.
  // Each queue's stream is cut between nodes into indirect buffers of at most `limit[q]` dwords:
  // a node that does not fit the current one is rolled back and emitted again at the start of
  // a new one (SDMA indirect buffers start and end on 8-dword boundaries: NOP padding).
  const uint32_t hw_limit[2] = {kPm4IndirectMaxDwords, sdma_indirect_max_dwords()};
  uint32_t limit[2];
  for (size_t q = 0; q < 2; ++q)
    limit[q] = indirect_limit_ ? std::min(indirect_limit_, hw_limit[q]) : hw_limit[q];
  limit[kCopy] &= ~7u;
  CmdBuilder ib[2];
  std::vector<Chunk> chunks[2];
  uint32_t chunk_start[2] = {0, 0};
  std::vector<EpochSlot> eslots;
  uint32_t cross = 0;
  auto pad = [&](size_t q) {
    if (q == kCopy)
      while (ib[q].size() % 8 != 0) sdma_nop(ib[q]);  // SDMA IBs are padded to 8 dwords
  };
  auto close_chunk = [&](size_t q) {
    pad(q);
    const uint32_t end = static_cast<uint32_t>(ib[q].size());
    if (end > chunk_start[q]) chunks[q].push_back({chunk_start[q], end - chunk_start[q]});
    chunk_start[q] = end;
  };
  for (size_t j = 0; j < n; ++j) {
    Node& nd = nodes_[j];
    const size_t q = qi(nd.queue);
    const size_t node_start = ib[q].size(), eslots_start = eslots.size();
    const uint32_t cross_start = cross;
    for (int attempt = 0;; ++attempt) {
      if (waits[j] >= 0) {
        const size_t other = 1 - q;
        const uint32_t off = static_cast<uint32_t>(waits[j]) + 1;
        PatchSlot s = q == kCompute ? wait_reg_mem(ib[q], sync_[other].va(), off, 0xffffffffu,
                                                   WaitFunc::kGreaterEq)
                                    : sdma_poll_regmem(ib[q], sync_[other].va(), off, 0xffffffffu,
                                                       SdmaPollFunc::kGreaterEq);
        eslots.push_back({nd.queue, s, off});
        ++cross;
      }
      if (q == kCompute) {
        auto slots = amd::exec(ib[q], nd.exec);
        if (!slots) {
          return std::move(slots).take_error().with_context(
              strformat("while binding graph node %zu", j));
        }
        nd.slots = *slots;
        nd.grid = nd.exec.grid;
      } else {
        sdma_copy_linear(ib[q], nd.dst, nd.src, nd.bytes);
      }
      if (signals[j]) {
        const uint32_t off = static_cast<uint32_t>(j) + 1;
        PatchSlot s = q == kCompute ? release_mem_signal(ib[q], sync_[q].va(), off, true)
                                    : sdma_fence(ib[q], sync_[q].va(), off);
        eslots.push_back({nd.queue, s, off});
      }
      // The copy queue's last node also carries the end fence and padding (below): reserve 16.
      const size_t reserve = q == kCopy ? 16 : 0;
      if (ib[q].size() + reserve - chunk_start[q] <= limit[q]) break;
      if (attempt > 0 || node_start == chunk_start[q]) {
        return make_error(Errc::kInvalidArgument,
                          "graph node %zu needs %zu command dwords, more than one indirect buffer "
                          "holds (%u)",
                          j, ib[q].size() - node_start, limit[q] - static_cast<uint32_t>(reserve));
      }
      ib[q].truncate(node_start);
      eslots.resize(eslots_start);
      cross = cross_start;
      close_chunk(q);
    }
  }
  // The copy queue reports its end; the compute queue's ring part waits for it.
  if (!ib[kCopy].empty()) {
    const uint32_t off = static_cast<uint32_t>(n) + 1;
    eslots.push_back({QueueKind::kCopy, sdma_fence(ib[kCopy], sync_[kCopy].va(), off), off});
  }
  for (size_t q = 0; q < 2; ++q) close_chunk(q);
  drivers::amd::DeviceBuffer mem[2];
  for (size_t q = 0; q < 2; ++q) {
    if (ib[q].empty()) continue;
    auto m = device_->alloc(ib[q].size() * 4, drivers::amd::BufferPlacement::kHost);
    if (!m) {
      if (mem[0].valid()) (void)device_->free(mem[0]);
      return std::move(m).take_error().with_context("while binding a graph");
    }
    mem[q] = *m;
    std::memcpy(mem[q].cpu, ib[q].dwords().data(), ib[q].size() * 4);
  }
  for (size_t q = 0; q < 2; ++q) {
    ib_[q] = std::move(ib[q]);
    ib_mem_[q] = mem[q];
    chunks_[q] = std::move(chunks[q]);
  }
  epoch_slots_ = std::move(eslots);
  cross_waits_ = cross;
  bound_ = true;
  return {};
}

void Graph::write_slot(QueueKind q, PatchSlot s, uint32_t value) {
  const size_t i = qi(q);
  if (ib_[i][s.offset] == value) return;
  ib_[i].patch(s, value);
  reinterpret_cast<uint32_t*>(ib_mem_[i].cpu)[s.offset] = value;
  ++last_patched_;
}

Status Graph::launch(Timeline& tl, const WaitOptions& wait) {
  if (!bound_) return make_error(Errc::kInvalidArgument, "launching an unbound graph");
  // The bound buffers are rewritten below: the previous launch must be done with them.
  if (last_launch_) {
    RG_TRY(wait_signal(*device_, last_launch_->first, last_launch_->second, "previous graph launch",
                       wait));
  }
  const uint32_t base = epochs_.next(nodes_.size(), sync_);
  last_patched_ = 0;
  for (const EpochSlot& e : epoch_slots_) write_slot(e.queue, e.slot, base + e.offset);
  for (uint32_t i : dirty_) {  // only nodes changed since the last launch
    Node& n = nodes_[i];
    if (n.grid_dirty) {
      for (int d = 0; d < 3; ++d) write_slot(n.queue, n.slots.grid[d], n.exec.grid[d]);
      n.grid_dirty = false;
    }
    for (const auto& [index, value] : n.user_data_changes) {
      write_slot(n.queue, PatchSlot{n.slots.user_data.offset + index, 1}, value);
    }
    n.user_data_changes.clear();
  }
  dirty_.clear();
  const bool has_copy = !ib_[kCopy].empty(), has_compute = !ib_[kCompute].empty();
  if (has_copy) {
    copy_->wait(tl.wait_signal(), tl.wait_value());
    for (const Chunk& c : chunks_[kCopy])
      sdma_indirect(copy_->commands(), ib_mem_[kCopy].va + uint64_t{c.start} * 4, c.dwords);
    RG_TRY(copy_->submit(wait.timeout, wait.clock));
  }
  compute_->wait(tl.wait_signal(), tl.wait_value());
  if (has_compute) {
    for (const Chunk& c : chunks_[kCompute])
      indirect_buffer(compute_->commands(), ib_mem_[kCompute].va + uint64_t{c.start} * 4, c.dwords);
  }
  if (has_copy) compute_->wait(sync_[kCopy], base + static_cast<uint32_t>(nodes_.size()) + 1);
  compute_->signal(tl.signal(), tl.next());
  RG_TRY(compute_->submit(wait.timeout, wait.clock));
  last_launch_ = {tl.signal(), tl.next()};
  tl.advance();
  return {};
}

}  // namespace rawgpu::queues::amd
