// Bound graphs on the simulator: recording with dependencies from buffer read/write sets across
// the compute and copy queues, one indirect buffer per queue per launch, patch-slot replay, and
// two simulated devices ordering work through each other's timeline signals.
#include <gtest/gtest.h>

#include <cstring>

#include "rawgpu/queues/graph.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

using drivers::amd::BufferPlacement;

// A test executor standing in for a kernel: it doubles `n` dwords from user_data[0..1] (src)
// into user_data[2..3] (dst) through the simulated MMU, and records each dispatch.
class Doubler final : public sim::DispatchExecutor {
 public:
  explicit Doubler(sim::AmdGpu& gpu) : gpu_(&gpu) {}
  Status execute(const sim::DispatchState& s) override {
    states.push_back(s);
    if (s.user_data.size() < 5) return {};
    const GpuVa src(s.user_data[0] | (uint64_t{s.user_data[1]} << 32));
    const GpuVa dst(s.user_data[2] | (uint64_t{s.user_data[3]} << 32));
    for (uint32_t i = 0; i < s.user_data[4]; ++i) {
      const uint32_t v = RG_TRY(gpu_->read32(src + 4 * i));
      RG_TRY(gpu_->write32(dst + 4 * i, 2 * v));
    }
    return {};
  }
  std::vector<sim::DispatchState> states;

 private:
  sim::AmdGpu* gpu_;
};

ExecParams doubler(GpuVa src, GpuVa dst, uint32_t n) {
  ExecParams p;
  p.code = GpuVa(0x7000000100);
  p.rsrc2 = 5u << 1;  // USER_SGPR = 5
  p.user_data_count = 5;
  p.user_data = {static_cast<uint32_t>(src.raw()), static_cast<uint32_t>(src.raw() >> 32),
                 static_cast<uint32_t>(dst.raw()), static_cast<uint32_t>(dst.raw() >> 32), n};
  p.workgroup = {64, 1, 1};
  return p;
}

class GraphTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    gpu_ = std::move(sim::SimGpu::create(GetParam()).value());  // through the PCI seam
    exec_ = std::make_unique<Doubler>(gpu_->hw());
    gpu_->set_executor(exec_.get());
    pool_ = std::make_unique<SignalPool>(*gpu_);
    cq_ = std::move(ComputeQueue::create(*gpu_).value());
    sq_ = std::move(CopyQueue::create(*gpu_).value());
    tl_ = std::make_unique<Timeline>(pool_->alloc().value(), pool_->alloc().value());
  }
  void TearDown() override {
    graph_.reset();
    cq_.reset();
    sq_.reset();
    pool_.reset();
  }
  Graph& graph() {
    graph_ = std::move(Graph::create(*gpu_, *cq_, *sq_, *pool_).value());
    return *graph_;
  }
  Status finish() { return wait_signal(*gpu_, tl_->last_signal(), tl_->last_value()); }
  std::unique_ptr<sim::SimGpu> gpu_;
  std::unique_ptr<Doubler> exec_;
  std::unique_ptr<SignalPool> pool_;
  std::unique_ptr<ComputeQueue> cq_;
  std::unique_ptr<CopyQueue> sq_;
  std::unique_ptr<Timeline> tl_;
  std::unique_ptr<Graph> graph_;
};

TEST_P(GraphTest, ReplaysWithOneIndirectBufferAndPatchesOnlyChanges) {
  Graph& g = graph();
  ExecParams p = doubler(GpuVa(0), GpuVa(0), 0);
  p.user_data[4] = 0;  // no memory traffic: dispatch state only
  for (uint32_t i = 0; i < 50; ++i) {
    p.grid = {i + 1, 1, 1};
    g.exec(p, {}, {});
  }
  ASSERT_TRUE(g.bind());
  EXPECT_EQ(g.cross_queue_waits(), 0u);
  uint64_t ring_before = cq_->wptr();
  ASSERT_TRUE(g.launch(*tl_));
  // wait (7) + INDIRECT_BUFFER (4) + signal (8): independent of the 50 kernels.
  EXPECT_EQ(cq_->wptr() - ring_before, 19u);
  EXPECT_EQ(sq_->wptr(), 0u);  // no copies: nothing on the copy queue
  ASSERT_TRUE(finish());
  ASSERT_EQ(exec_->states.size(), 50u);
  EXPECT_EQ(exec_->states[49].grid[0], 50u);
  EXPECT_EQ(g.last_patched(), 0u);
  // Unchanged replay: nothing rewritten.
  ASSERT_TRUE(g.launch(*tl_));
  ASSERT_TRUE(finish());
  EXPECT_EQ(g.last_patched(), 0u);
  EXPECT_EQ(exec_->states.size(), 100u);
  // Change one node's grid and user data: only those dwords are rewritten.
  ASSERT_TRUE(g.set_grid(7, {100, 1, 1}));
  ASSERT_TRUE(g.set_user_data(9, 4, 0));  // same value: not a change
  ASSERT_TRUE(g.set_user_data(9, 2, 0x1234));
  ring_before = cq_->wptr();
  ASSERT_TRUE(g.launch(*tl_));
  EXPECT_EQ(cq_->wptr() - ring_before, 19u);
  ASSERT_TRUE(finish());
  EXPECT_EQ(g.last_patched(), 2u);  // grid x and one user-data dword
  EXPECT_EQ(exec_->states[100 + 7].grid[0], 100u);
  EXPECT_EQ(exec_->states[100 + 9].user_data[2], 0x1234u);
  EXPECT_EQ(exec_->states[100 + 8].grid[0], 9u);
  EXPECT_EQ(tl_->last_value(), 3u);
}

TEST_P(GraphTest, CrossQueueDependenciesFromReadWriteSets) {
  constexpr uint32_t kN = 300;
  auto a = gpu_->alloc(4096, BufferPlacement::kHost).value();
  auto b = gpu_->alloc(4096, BufferPlacement::kVram).value();
  auto c = gpu_->alloc(4096, BufferPlacement::kVram).value();
  auto d = gpu_->alloc(4096, BufferPlacement::kHost).value();
  Graph& g = graph();
  const BufferRange rb{b.va, 4 * kN}, rc{c.va, 4 * kN};
  g.copy(b.va, a.va, 4 * kN);                                             // copy: A -> B
  g.exec(doubler(b.va, c.va, kN), std::span(&rb, 1), std::span(&rc, 1));  // C = 2B
  g.exec(doubler(c.va, c.va, kN), std::span(&rc, 1), std::span(&rc, 1));  // C = 2C (same queue)
  g.copy(d.va, c.va, 4 * kN);                                             // copy: C -> D
  ASSERT_TRUE(g.bind());
  EXPECT_EQ(g.cross_queue_waits(), 2u);  // exec waits for copy 0, copy 3 waits for exec 2
  for (uint32_t round = 1; round <= 3; ++round) {
    for (uint32_t i = 0; i < kN; ++i) {
      const uint32_t v = i * 10 + round;
      std::memcpy(a.cpu + 4 * i, &v, 4);
    }
    ASSERT_TRUE(g.launch(*tl_));
    ASSERT_TRUE(finish());
    for (uint32_t i = 0; i < kN; ++i) {
      uint32_t v;
      std::memcpy(&v, d.cpu + 4 * i, 4);
      ASSERT_EQ(v, 4 * (i * 10 + round)) << "round " << round << " element " << i;
    }
    EXPECT_GT(g.last_patched(), 0u);  // epoch values of the cross-queue edges
    EXPECT_FALSE(gpu_->fault_state().queue_error) << gpu_->fault_state().description;
  }
}

// Regression (issue 15): `rawgpu bench launch --kernels 30000` aborted in indirect_buffer() on
// an INDIRECT_BUFFER over 0xfffff dwords. The stream is split into several indirect buffers.
TEST_P(GraphTest, LongGraphsSplitIntoSeveralIndirectBuffers) {
  constexpr uint32_t kKernels = 30000;
  Graph& g = graph();
  ExecParams p = doubler(GpuVa(0), GpuVa(0), 0);
  p.user_data[4] = 0;
  for (uint32_t i = 0; i < kKernels; ++i) {
    p.grid = {i % 1000 + 1, 1, 1};
    g.exec(p, {}, {});
  }
  ASSERT_TRUE(g.bind());
  const size_t ibs = g.indirect_buffers(Graph::QueueKind::kCompute);
  EXPECT_GE(ibs, 2u);
  const uint64_t ring_before = cq_->wptr();
  ASSERT_TRUE(g.launch(*tl_));
  // wait (7) + one INDIRECT_BUFFER (4) per buffer + signal (8).
  EXPECT_EQ(cq_->wptr() - ring_before, 15 + 4 * ibs);
  ASSERT_TRUE(finish());
  ASSERT_EQ(exec_->states.size(), kKernels);
  for (uint32_t i = 0; i < kKernels; i += 997) EXPECT_EQ(exec_->states[i].grid[0], i % 1000 + 1);
  EXPECT_EQ(exec_->states.back().grid[0], (kKernels - 1) % 1000 + 1);
  // A patch slot in a later buffer is rewritten where that buffer runs it.
  ASSERT_TRUE(g.set_grid(kKernels - 2, {7, 1, 1}));
  ASSERT_TRUE(g.launch(*tl_));
  ASSERT_TRUE(finish());
  EXPECT_EQ(exec_->states[2 * kKernels - 2].grid[0], 7u);
}

// Small buffers force splits on both queues, with cross-queue edges on either side of a cut;
// results stay exact across launches.
TEST_P(GraphTest, SplitBuffersKeepCrossQueueOrder) {
  constexpr uint32_t kN = 64, kRounds = 12;
  auto a = gpu_->alloc(4096, BufferPlacement::kHost).value();
  auto b = gpu_->alloc(4096, BufferPlacement::kVram).value();
  auto d = gpu_->alloc(4096, BufferPlacement::kHost).value();
  Graph& g = graph();
  g.set_indirect_limit(64);
  const BufferRange rb{b.va, 4 * kN};
  for (uint32_t r = 0; r < kRounds; ++r) {
    g.copy(b.va, a.va, 4 * kN);                                             // B = A
    g.exec(doubler(b.va, b.va, kN), std::span(&rb, 1), std::span(&rb, 1));  // B = 2B
    g.exec(doubler(b.va, b.va, kN), std::span(&rb, 1), std::span(&rb, 1));  // B = 2B
    g.copy(a.va, b.va, 4 * kN);                                             // A = B
  }
  g.copy(d.va, a.va, 4 * kN);
  ASSERT_TRUE(g.bind());
  EXPECT_GE(g.indirect_buffers(Graph::QueueKind::kCompute), 4u);
  EXPECT_GE(g.indirect_buffers(Graph::QueueKind::kCopy), 4u);
  for (uint32_t launch = 1; launch <= 2; ++launch) {
    for (uint32_t i = 0; i < kN; ++i) {
      const uint32_t v = i + launch;
      std::memcpy(a.cpu + 4 * i, &v, 4);
    }
    ASSERT_TRUE(g.launch(*tl_));
    ASSERT_TRUE(finish());
    ASSERT_FALSE(gpu_->fault_state().queue_error) << gpu_->fault_state().description;
    for (uint32_t i = 0; i < kN; ++i) {
      uint32_t v;
      std::memcpy(&v, d.cpu + 4 * i, 4);
      ASSERT_EQ(v, (i + launch) << (2 * kRounds)) << "launch " << launch << " element " << i;
    }
  }
}

TEST_P(GraphTest, NodeLargerThanAnIndirectBufferIsATypedError) {
  Graph& g = graph();
  g.set_indirect_limit(64);
  ExecParams p = doubler(GpuVa(0), GpuVa(0), 0);
  p.user_data_count = 5;
  g.exec(p, {}, {});
  auto big = gpu_->alloc(4096, BufferPlacement::kHost).value();
  // 200 GiB in 1 GiB packets: far more than 64 dwords for one node.
  g.copy(big.va, big.va, uint64_t{200} << 30);
  Status s = g.bind();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.error().is(Errc::kInvalidArgument)) << s.error().to_string();
  EXPECT_NE(s.error().message().find("node 1"), std::string::npos) << s.error().message();
  EXPECT_FALSE(g.bound());
}

TEST_P(GraphTest, RejectsEmptyAndDoubleBind) {
  Graph& g = graph();
  EXPECT_EQ(g.bind().error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(g.launch(*tl_).error().code(), Errc::kInvalidArgument);
  ExecParams bad;
  bad.code = GpuVa(0x7000000101);  // not 256-byte aligned
  g.exec(bad, {}, {});
  EXPECT_EQ(g.bind().error().code(), Errc::kInvalidArgument);
  EXPECT_FALSE(g.bound());
}

// Patch values come from user shapes: a bad node, index or a 0 grid is a typed error that leaves
// the bound graph as it was (the next launch still runs the old values).
TEST_P(GraphTest, BadPatchesAreTypedErrorsAndChangeNothing) {
  Graph& g = graph();
  ExecParams p = doubler(GpuVa(0), GpuVa(0), 0);
  p.user_data[4] = 0;
  p.grid = {3, 1, 1};
  g.exec(p, {}, {});
  auto buf = gpu_->alloc(4096, BufferPlacement::kHost).value();
  g.copy(buf.va, buf.va + 2048, 64);
  ASSERT_TRUE(g.bind());
  ASSERT_TRUE(g.launch(*tl_));
  ASSERT_TRUE(finish());
  const uint64_t unchanged_patches = g.last_patched();  // the cross-queue epoch
  auto expect_invalid = [](const Status& s, const char* needle) {
    ASSERT_FALSE(s.ok()) << needle;
    EXPECT_TRUE(s.error().is(Errc::kInvalidArgument)) << s.error().to_string();
    EXPECT_NE(s.error().message().find(needle), std::string::npos) << s.error().message();
  };
  expect_invalid(g.set_grid(0, {0, 1, 1}), "0 dimension");
  expect_invalid(g.set_grid(0, {1, 1, 0}), "0 dimension");
  expect_invalid(g.set_grid(2, {1, 1, 1}), "node 2 does not exist");
  expect_invalid(g.set_grid(1, {1, 1, 1}), "node 1 is a copy");
  expect_invalid(g.set_user_data(0, p.user_data_count, 7), "index 5 is past them");
  expect_invalid(g.set_user_data(1, 0, 7), "node 1 is a copy");
  ASSERT_TRUE(g.launch(*tl_));
  ASSERT_TRUE(finish());
  EXPECT_EQ(g.last_patched(), unchanged_patches);
  ASSERT_EQ(exec_->states.size(), 2u);
  EXPECT_EQ(exec_->states[1].grid[0], 3u);
  EXPECT_EQ(exec_->states[1].grid[2], 1u);
  ASSERT_TRUE(gpu_->free(buf));
}
// Maps `s` (a signal of another device) into `gpu`: same host memory, this device's VA.
Signal import_signal(sim::SimGpu& gpu, const Signal& s,
                     std::vector<drivers::amd::DeviceBuffer>& keep) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(s.cpu());
  const uintptr_t page = p & ~uintptr_t{4095};
  auto m = gpu.map_external(reinterpret_cast<uint8_t*>(page), 4096).value();
  keep.push_back(m);
  return Signal(s.cpu(), m.va + (p - page));
}

TEST(MultiDevice, TwoDevicesOrderThroughEachOthersTimelineSignals) {
  auto a = std::move(sim::SimGpu::create("sim:gfx1100").value());
  auto b = std::move(sim::SimGpu::create("sim:gfx1201").value());
  if (a->threaded()) {
    GTEST_SKIP() << "asserts the deterministic poll order of two devices; the device-thread "
                    "run cannot hold a device still";
  }
  {
    SignalPool pa(*a), pb(*b);
    Timeline ta(pa.alloc().value(), pa.alloc().value());
    Timeline tb(pb.alloc().value(), pb.alloc().value());
    Signal gate = pa.alloc().value();
    std::vector<drivers::amd::DeviceBuffer> keep_a, keep_b;
    const Signal a_in_b = import_signal(*b, ta.signal(), keep_b);
    const Signal b_in_a = import_signal(*a, tb.signal(), keep_a);
    EXPECT_NE(a_in_b.va(), ta.signal().va());  // same memory, B's own mapping
    auto qa = ComputeQueue::create(*a).value();
    auto qb = ComputeQueue::create(*b).value();
    // B waits for A's timeline value 1, then signals its own 1.
    ASSERT_TRUE(qb->wait(a_in_b, ta.next()).signal(tb.signal(), tb.next()).submit());
    // A waits for a host gate, signals 1, then waits for B's 1 and signals 2.
    qa->wait(gate, 1).signal(ta.signal(), ta.next());
    ta.advance();
    ASSERT_TRUE(qa->wait(b_in_a, tb.next()).signal(ta.signal(), ta.next()).submit());
    tb.advance();
    ta.advance();
    for (int i = 0; i < 3; ++i) {
      a->poll();
      b->poll();
    }
    EXPECT_EQ(tb.signal().value(), 0u);  // B is blocked behind A, A behind the gate
    EXPECT_EQ(ta.signal().value(), 0u);
    gate.set(1);
    a->poll();
    EXPECT_EQ(ta.signal().value(), 1u);  // A ran up to its wait on B
    EXPECT_EQ(tb.signal().value(), 0u);  // B has not been polled yet
    b->poll();
    EXPECT_EQ(tb.signal().value(), 1u);
    EXPECT_EQ(ta.signal().value(), 1u);  // A has not seen it yet
    ASSERT_TRUE(wait_signal(*a, ta.signal(), 2));
    EXPECT_FALSE(a->fault_state().queue_error);
    EXPECT_FALSE(b->fault_state().queue_error);
    for (auto& m : keep_a) ASSERT_TRUE(a->free(m));
    for (auto& m : keep_b) ASSERT_TRUE(b->free(m));
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, GraphTest, ::testing::Values(110000u, 120001u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           return std::string(i.param == 110000 ? "gfx1100" : "gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::queues::amd
