// NVIDIA graphs (queues/nv_graph.h) on the simulated GPU behind the simulated kernel driver:
// kernels on the compute channel and copies on the copy channel, cross-queue edges from the
// shared plan (graph_plan.h), bound once and replayed with only the epoch slots rewritten, the
// data checked after every replay; grid changes patched into the bound QMD; and the AMD graph's
// plan giving the same edges for the same recording.
#include <gtest/gtest.h>

#include <cstring>

#include "nv_rig.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/queues/nv_graph.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/nv_rm.h"

namespace rawgpu {
namespace {

// dst[i] = src[i] + 1 for i = ctaid.x * ntid.x + tid.x (u32).
constexpr const char* kAdd1 = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry add1(.param .u64 dst, .param .u64 src)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [dst];
	ld.param.u64 %rd2, [src];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %ctaid.x;
	mad.lo.s32 %r4, %r3, %r2, %r1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r5, [%rd4];
	add.s32 %r5, %r5, 1;
	add.s64 %rd5, %rd1, %rd3;
	st.global.u32 [%rd5], %r5;
	ret;
}
)";

using Rig = testing::NvRig;
Rig rig(sim::NvArch arch) { return testing::nv_rig(arch); }

uint32_t at(const nv::NvMemory& m, size_t i) {
  uint32_t v;
  std::memcpy(&v, m.cpu() + 4 * i, 4);
  return v;
}

struct GraphCase {
  sim::NvArch arch;
  uint32_t qmd;
};
class NvGraphTest : public ::testing::TestWithParam<GraphCase> {};

// b = a + 1 (kernel), c <- b (copy), d = c + 1 (kernel), e <- d (copy): every node depends on the
// one before it on the other channel, so the replay is right only if all three edges hold.
TEST_P(NvGraphTest, KernelsAndCopiesReplayInDependencyOrder) {
  Rig r = rig(GetParam().arch);
  ASSERT_TRUE(r.compute->set_qmd_version(GetParam().qmd).ok());
  nv::RmGpu& gpu = *r.gpu;
  constexpr uint32_t kN = 256;
  nv::NvMemory a = gpu.alloc_vram(4 * kN, true).value(), b = gpu.alloc_vram(4 * kN, true).value(),
               c = gpu.alloc_vram(4 * kN, true).value(), d = gpu.alloc_vram(4 * kN, true).value(),
               e = gpu.alloc_vram(4 * kN, true).value();
  queues::NvKernelInfo info;
  info.name = "add1";
  info.param_bytes = 16;
  auto prog = queues::NvProgram::load_ptx(gpu, info, kAdd1).value();
  auto g = queues::NvGraph::create(gpu, *r.compute, *r.copy_channel, *r.pool).value();
  auto range = [](const nv::NvMemory& m) { return queues::BufferRange{GpuVa(m.va), 4 * kN}; };
  uint64_t p1[2] = {b.va, a.va}, p2[2] = {d.va, c.va};
  queues::NvLaunch l;
  l.block = {64, 1, 1};
  l.grid = {kN / 64, 1, 1};
  l.params = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(p1), 16);
  const queues::BufferRange ra = range(a), rb = range(b), rc = range(c), rd = range(d);
  g->exec(prog, l, {&ra, 1}, {&rb, 1});
  g->copy(GpuVa(c.va), GpuVa(b.va), 4 * kN);
  l.params = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(p2), 16);
  g->exec(prog, l, {&rc, 1}, {&rd, 1});
  g->copy(GpuVa(e.va), GpuVa(d.va), 4 * kN);
  ASSERT_TRUE(g->bind().ok());
  EXPECT_EQ(g->cross_queue_waits(), 3u);
  queues::Timeline tl(r.pool->alloc().value(), r.pool->alloc().value());
  const uint64_t launches_before = r.k->launches();
  for (uint32_t rep = 0; rep < 3; ++rep) {
    for (uint32_t i = 0; i < kN; ++i) {
      const uint32_t v = rep * 1000 + i;
      std::memcpy(a.cpu() + 4 * i, &v, 4);
    }
    std::memset(e.cpu(), 0, 4 * kN);
    ASSERT_TRUE(g->launch(tl).ok()) << rep;
    ASSERT_TRUE(queues::wait_signal(gpu, tl.last_signal(), tl.last_value(), "graph").ok()) << rep;
    for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(at(e, i), rep * 1000 + i + 2) << rep << " " << i;
    // Each replay rewrites the epoch values only: 3 waits + 3 releases + the copy end, 2 dwords
    // each (the first launch writes the same slots from their epoch-0 placeholders).
    EXPECT_EQ(g->last_patched(), 2u * 7) << rep;
  }
  EXPECT_EQ(r.k->launches() - launches_before, 6u);
  EXPECT_TRUE(r.k->channel_errors().empty());

  // A new grid: only half the elements of d (and so e) are computed.
  ASSERT_TRUE(g->set_grid(2, {kN / 128, 1, 1}).ok());
  std::memset(d.cpu(), 0, 4 * kN);
  ASSERT_TRUE(g->launch(tl).ok());
  ASSERT_TRUE(queues::wait_signal(gpu, tl.last_signal(), tl.last_value(), "graph").ok());
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(at(e, i), i < kN / 2 ? 2000 + i + 2 : 0u) << i;
  EXPECT_GT(g->last_patched(), 2u * 7);
  // Bad edits are refused and change nothing.
  EXPECT_EQ(g->set_grid(1, {1, 1, 1}).error().code(), Errc::kInvalidArgument);  // a copy
  EXPECT_EQ(g->set_grid(9, {1, 1, 1}).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(g->set_grid(0, {0, 1, 1}).error().code(), Errc::kInvalidArgument);
  g.reset();
  prog.release(gpu);
}

INSTANTIATE_TEST_SUITE_P(Archs, NvGraphTest,
                         ::testing::Values(GraphCase{sim::NvArch::kAmpere, 3},
                                           GraphCase{sim::NvArch::kHopper, 3},
                                           GraphCase{sim::NvArch::kHopper, 4}),
                         [](const auto& info) {
                           return std::string(info.param.arch == sim::NvArch::kAmpere ? "ga102"
                                                                                      : "gh100") +
                                  "_qmd_v0" + std::to_string(info.param.qmd);
                         });

// Kernels in a row on the compute channel are chained behind one SEND_PCAS (each QMD schedules the
// next); the results are those of the unchained graph, in fewer pushbuffer dwords.
TEST(NvGraph, ConsecutiveKernelsAreChainedBehindOnePcas) {
  // Unchained and chained with QMD V03, chained with V04 (its dependent-QMD fields).
  uint32_t results[3][64];
  size_t dwords[3];
  for (int mode = 0; mode < 3; ++mode) {
    const int chaining = mode > 0 ? 1 : 0;
    Rig r = rig(sim::NvArch::kHopper);
    ASSERT_TRUE(r.compute->set_qmd_version(mode == 2 ? 4 : 3).ok());
    nv::RmGpu& gpu = *r.gpu;
    nv::NvMemory buf[4];
    for (auto& b : buf) b = gpu.alloc_vram(4096, true).value();
    for (uint32_t i = 0; i < 64; ++i) std::memcpy(buf[0].cpu() + 4 * i, &i, 4);
    queues::NvKernelInfo info;
    info.name = "add1";
    info.param_bytes = 16;
    auto prog = queues::NvProgram::load_ptx(gpu, info, kAdd1).value();
    auto g = queues::NvGraph::create(gpu, *r.compute, *r.copy_channel, *r.pool).value();
    g->set_chaining(chaining == 1);
    uint64_t p[3][2];
    for (int k = 0; k < 3; ++k) {
      p[k][0] = buf[k + 1].va;
      p[k][1] = buf[k].va;
      queues::NvLaunch l;
      l.block = {64, 1, 1};
      l.params = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(p[k]), 16);
      const queues::BufferRange rd{GpuVa(buf[k].va), 256}, wr{GpuVa(buf[k + 1].va), 256};
      g->exec(prog, l, {&rd, 1}, {&wr, 1});
    }
    ASSERT_TRUE(g->bind().ok());
    EXPECT_EQ(g->chained_kernels(), chaining == 1 ? 2u : 0u);
    dwords[mode] = g->pushbuffer_dwords(0);
    queues::Timeline tl(r.pool->alloc().value(), r.pool->alloc().value());
    const uint64_t before = r.k->launches();
    ASSERT_TRUE(g->launch(tl).ok());
    ASSERT_TRUE(queues::wait_signal(gpu, tl.last_signal(), tl.last_value(), "graph").ok());
    EXPECT_EQ(r.k->launches() - before, 3u);
    for (uint32_t i = 0; i < 64; ++i) results[mode][i] = at(buf[3], i);
    g.reset();
    prog.release(gpu);
  }
  for (uint32_t i = 0; i < 64; ++i) {
    for (int mode = 0; mode < 3; ++mode) EXPECT_EQ(results[mode][i], i + 3) << mode;
  }
  EXPECT_LT(dwords[1], dwords[0]);
  EXPECT_EQ(dwords[2], dwords[1]);
}

// A dependent-QMD chain that returns to a QMD it ran stops the channel with a decoded error
// instead of looping.
TEST(NvGraph, AQmdChainCycleIsAChannelError) {
  Rig r = rig(sim::NvArch::kAmpere);
  nv::RmGpu& gpu = *r.gpu;
  nv::NvMemory a = gpu.alloc_vram(4096, true).value(), b = gpu.alloc_vram(4096, true).value();
  queues::NvKernelInfo info;
  info.name = "add1";
  info.param_bytes = 16;
  auto prog = queues::NvProgram::load_ptx(gpu, info, kAdd1).value();
  uint64_t p[2] = {b.va, a.va};
  queues::NvLaunch l;
  l.block = {32, 1, 1};
  l.params = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(p), 16);
  auto at_layout = r.compute->prepare(prog, l);
  ASSERT_TRUE(at_layout.ok());
  nv::NvMemory mem = gpu.alloc_vram(4096, true).value();
  std::vector<uint32_t> qmd(at_layout->qmd_bytes / 4);
  const queues::Signal s = r.signal();
  r.compute->write_launch(prog, l, *at_layout, mem.cpu(), mem.va, &s, 1, qmd);
  const uint64_t qmd_va = mem.va + at_layout->qmd_offset;
  r.compute->chain(qmd, qmd_va);  // schedules itself
  std::memcpy(mem.cpu() + at_layout->qmd_offset, qmd.data(), qmd.size() * 4);
  queues::NvPushBuffer pb(gpu.classes().gpfifo, gpu.classes().copy);
  queues::NvComputeQueue::push_pcas(pb, qmd_va);
  ASSERT_TRUE(r.channel->submit(pb).ok());
  auto w = queues::nv_wait_value(gpu, r.sig(), 2, "cycle");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code(), Errc::kHardware);
  ASSERT_EQ(r.k->channel_errors().size(), 1u);
  EXPECT_NE(r.k->channel_errors()[0].find("a cycle"), std::string::npos)
      << r.k->channel_errors()[0];
  EXPECT_EQ(r.k->launches(), 1u);  // the grid ran once
  prog.release(gpu);
}

// Independent work gets no edges; a kernel-only graph submits no copy channel work.
TEST(NvGraph, IndependentNodesNeedNoCrossQueueWaits) {
  Rig r = rig(sim::NvArch::kAda);
  nv::RmGpu& gpu = *r.gpu;
  nv::NvMemory a = gpu.alloc_vram(4096, true).value(), b = gpu.alloc_vram(4096, true).value(),
               c = gpu.alloc_vram(4096, true).value(), d = gpu.alloc_vram(4096, true).value();
  queues::NvKernelInfo info;
  info.name = "add1";
  info.param_bytes = 16;
  auto prog = queues::NvProgram::load_ptx(gpu, info, kAdd1).value();
  auto g = queues::NvGraph::create(gpu, *r.compute, *r.copy_channel, *r.pool).value();
  uint64_t p[2] = {b.va, a.va};
  queues::NvLaunch l;
  l.block = {32, 1, 1};
  l.params = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(p), 16);
  const queues::BufferRange ra{GpuVa(a.va), 128}, rb{GpuVa(b.va), 128};
  g->exec(prog, l, {&ra, 1}, {&rb, 1});
  g->copy(GpuVa(d.va), GpuVa(c.va), 4096);
  ASSERT_TRUE(g->bind().ok());
  EXPECT_EQ(g->cross_queue_waits(), 0u);
  queues::Timeline tl(r.pool->alloc().value(), r.pool->alloc().value());
  std::memset(c.cpu(), 7, 4096);
  ASSERT_TRUE(g->launch(tl).ok());
  ASSERT_TRUE(queues::wait_signal(gpu, tl.last_signal(), tl.last_value(), "graph").ok());
  EXPECT_EQ(at(b, 31), at(a, 31) + 1);
  EXPECT_EQ(at(d, 1000), 0x07070707u);
  EXPECT_EQ(queues::NvGraph::create(gpu, *r.compute, *r.copy_channel, *r.pool)
                .value()
                ->bind()
                .error()
                .code(),
            Errc::kInvalidArgument);  // empty
  g.reset();
  prog.release(gpu);
}

// The plan is the AMD graph's too: the same recording gives the same edges.
TEST(GraphPlan, EdgesFollowReadWriteConflictsAcrossQueues) {
  const queues::BufferRange x{GpuVa(0x1000), 256}, y{GpuVa(0x2000), 256}, z{GpuVa(0x3000), 256};
  const queues::PlanNode nodes[] = {
      {0, {&x, 1}, {&y, 1}},  // 0 compute: y = f(x)
      {1, {&y, 1}, {&z, 1}},  // 1 copy: z <- y        (RAW on y: waits for 0)
      {0, {&x, 1}, {&x, 1}},  // 2 compute: x = f(x)   (WAR? node 1 reads y, not x: no edge)
      {1, {&z, 1}, {&x, 1}},  // 3 copy: x <- z        (WAW/WAR with 2 on x: waits for 2)
  };
  const queues::CrossQueuePlan p = queues::plan_cross_queue(nodes);
  EXPECT_EQ(p.waits, (std::vector<int64_t>{-1, 0, -1, 2}));
  EXPECT_EQ(p.signals, (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(p.cross_waits, 2u);
}

}  // namespace
}  // namespace rawgpu
