// NVIDIA GPFIFO queues (queues/nv_gpfifo.h): encodings field by field against the generated
// class headers, then pushbuffers run by the simulated GPU's Host and copy engine behind the
// simulated kernel driver, on Ampere, Ada and Hopper.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "rawgpu/autogen/nv/clc56f.h"
#include "rawgpu/autogen/nv/clc86f.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/sim/nv_rm.h"

namespace rawgpu {
namespace {

namespace h = autogen::nv::clc56f;
using queues::NvChannelQueue;
using queues::NvPushBuffer;
using queues::NvSecOp;

uint32_t get(uint32_t w, BitField f) {
  return static_cast<uint32_t>(extract_bits(w, f.lo, f.width));
}

TEST(NvGpfifoEncode, MethodHeadersInEveryForm) {
  const uint32_t inc = queues::nv_method(NvSecOp::kInc, 4, 0x400, 4);
  EXPECT_EQ(get(inc, h::NVC56F_DMA_SEC_OP), h::NVC56F_DMA_SEC_OP_INC_METHOD);
  EXPECT_EQ(get(inc, h::NVC56F_DMA_INCR_COUNT), 4u);
  EXPECT_EQ(get(inc, h::NVC56F_DMA_INCR_SUBCHANNEL), 4u);
  EXPECT_EQ(get(inc, h::NVC56F_DMA_INCR_ADDRESS), 0x400u / 4);
  const uint32_t non = queues::nv_method(NvSecOp::kNonInc, 1, 0x1b4, 100);
  EXPECT_EQ(get(non, h::NVC56F_DMA_NONINCR_OPCODE), h::NVC56F_DMA_SEC_OP_NON_INC_METHOD);
  EXPECT_EQ(get(non, h::NVC56F_DMA_NONINCR_COUNT), 100u);
  const uint32_t one = queues::nv_method(NvSecOp::kOneInc, 7, 0x8, 3);
  EXPECT_EQ(get(one, h::NVC56F_DMA_ONEINCR_OPCODE), h::NVC56F_DMA_SEC_OP_ONE_INC);
  EXPECT_EQ(get(one, h::NVC56F_DMA_ONEINCR_SUBCHANNEL), 7u);
  const uint32_t imm = queues::nv_method(NvSecOp::kImmediate, 0, h::NVC56F_WFI, 0x1abc);
  EXPECT_EQ(get(imm, h::NVC56F_DMA_IMMD_OPCODE), h::NVC56F_DMA_SEC_OP_IMMD_DATA_METHOD);
  EXPECT_EQ(get(imm, h::NVC56F_DMA_IMMD_DATA), 0x1abcu);
  EXPECT_EQ(get(imm, h::NVC56F_DMA_IMMD_ADDRESS), h::NVC56F_WFI / 4);
  EXPECT_EQ(get(queues::nv_method(NvSecOp::kEndSegment, 0, 0, 0), h::NVC56F_DMA_ENDSEG_OPCODE),
            h::NVC56F_DMA_SEC_OP_END_PB_SEGMENT);
}

TEST(NvGpfifoEncode, GpEntriesCarry40BitsAndTheLength) {
  const uint64_t va = 0xab'1234'5678;
  auto e = queues::nv_gp_entry(va, 0x1234, true);
  ASSERT_TRUE(e.ok());
  const auto lo = static_cast<uint32_t>(*e), hi = static_cast<uint32_t>(*e >> 32);
  EXPECT_EQ(uint64_t{get(lo, h::NVC56F_GP_ENTRY0_GET)} << 2, va & 0xffffffffu);
  EXPECT_EQ(get(hi, h::NVC56F_GP_ENTRY1_GET_HI), 0xabu);
  EXPECT_EQ(get(hi, h::NVC56F_GP_ENTRY1_LENGTH), 0x1234u);
  EXPECT_EQ(get(hi, h::NVC56F_GP_ENTRY1_SYNC), h::NVC56F_GP_ENTRY1_SYNC_WAIT);
  EXPECT_EQ(get(hi, h::NVC56F_GP_ENTRY1_LEVEL), h::NVC56F_GP_ENTRY1_LEVEL_MAIN);
  // 62:42 as the reference lays the 64-bit entry out.
  EXPECT_EQ((*e >> 42) & 0x1fffff, 0x1234u);
  EXPECT_EQ(queues::nv_gp_entry(1ull << 40, 1).error().code(), Errc::kOutOfRange);
  EXPECT_EQ(queues::nv_gp_entry((1ull << 40) - 4, 2).error().code(), Errc::kOutOfRange);
  EXPECT_EQ(queues::nv_gp_entry(0x1000, 0).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(queues::nv_gp_entry(0x1002, 1).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(queues::nv_gp_entry(0x1000, 1u << 21).error().code(), Errc::kOutOfRange);
  const uint64_t c = queues::nv_gp_control(h::NVC56F_GP_ENTRY1_OPCODE_NOP);
  EXPECT_EQ(get(static_cast<uint32_t>(c >> 32), h::NVC56F_GP_ENTRY1_LENGTH), 0u);
}

TEST(NvGpfifoEncode, SemaphoreReachDependsOnTheChannelClass) {
  NvPushBuffer ampere(0xc56f, 0xc7b5), hopper(0xc86f, 0xc8b5);
  EXPECT_TRUE(ampere.signal(0xff'ffff'fff8, 1).ok());
  EXPECT_EQ(ampere.signal(0x100'0000'0000, 1).error().code(), Errc::kOutOfRange);
  EXPECT_TRUE(hopper.signal(0x100'0000'0000, 1).ok());
  EXPECT_EQ(hopper.wait(0x1004, 1).error().code(), Errc::kInvalidArgument);
  // SEM_EXECUTE of a signal: release, 64-bit, timestamp, WFI.
  NvPushBuffer pb(0xc56f, 0xc7b5);
  ASSERT_TRUE(pb.signal(0x10'0000'0000, 7).ok());
  const uint32_t exec = pb.cmds()[5];
  EXPECT_EQ(get(exec, h::NVC56F_SEM_EXECUTE_OPERATION), h::NVC56F_SEM_EXECUTE_OPERATION_RELEASE);
  EXPECT_EQ(get(exec, h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE),
            h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE_64BIT);
  EXPECT_EQ(get(exec, h::NVC56F_SEM_EXECUTE_RELEASE_TIMESTAMP), 1u);
  EXPECT_EQ(get(exec, h::NVC56F_SEM_EXECUTE_RELEASE_WFI), 1u);
  // c6b5 releases 32 bits only.
  NvPushBuffer a(0xc56f, 0xc6b5);
  EXPECT_EQ(a.copy_signal(0x10'0000'0000, 1ull << 32).error().code(), Errc::kOutOfRange);
  EXPECT_TRUE(a.copy_signal(0x10'0000'0000, 5).ok());
}

struct Gpu {
  std::unique_ptr<sim::SimNvKernel> k;
  std::unique_ptr<nv::Rm> rm;
  std::unique_ptr<nv::RmGpu> gpu;
  nv::NvMemory arena, signals;
};

Gpu bring_up(sim::NvArch arch) {
  Gpu g;
  sim::SimNvConfig c;
  c.arch = arch;
  c.version = arch == sim::NvArch::kHopper ? "580.95.05" : "570.86.15";
  c.vram_bytes = 256ull << 20;
  g.k = sim::SimNvKernel::create(c).value();
  g.rm = nv::Rm::open(*g.k).value();
  auto gpu = nv::RmGpu::open(*g.rm, 0);
  EXPECT_TRUE(gpu.ok()) << gpu.error().to_string();
  g.gpu = std::move(gpu).value();
  g.arena = g.gpu->alloc_vram(64 << 10, true).value();
  g.signals = g.gpu->alloc_host(4096).value();
  std::memset(g.signals.cpu(), 0, 4096);
  return g;
}

uint64_t* sig(Gpu& g, int i) { return reinterpret_cast<uint64_t*>(g.signals.cpu() + 16 * i); }
uint64_t sig_va(Gpu& g, int i) { return g.signals.va + 16 * i; }

class NvQueueSim : public ::testing::TestWithParam<sim::NvArch> {};

TEST_P(NvQueueSim, CopyEngineCopiesAndSignals) {
  Gpu g = bring_up(GetParam());
  nv::RmGpu& gpu = *g.gpu;
  NvChannelQueue q(gpu, gpu.copy(), g.arena);
  const uint64_t n = (3ull << 20) + 4093;  // not a multiple of anything
  auto src = gpu.alloc_vram(n, true).value();
  auto dst = gpu.alloc_vram(n, false).value();
  auto back = gpu.alloc_host(n).value();
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < n; ++i) src.cpu()[i] = static_cast<uint8_t>(rng());
  NvPushBuffer pb(gpu.classes().gpfifo, gpu.classes().copy);
  pb.set_object(queues::kNvSubchCopy, gpu.classes().copy);
  ASSERT_TRUE(pb.copy(dst.va, src.va, n).ok());
  ASSERT_TRUE(pb.copy(back.va, dst.va, n).ok());
  ASSERT_TRUE(pb.copy_signal(sig_va(g, 0), 0x1'0000'0003ull).ok());
  ASSERT_TRUE(q.submit(pb).ok());
  ASSERT_TRUE(queues::nv_wait_value(gpu, sig(g, 0), 0x1'0000'0003ull, "copy done").ok());
  EXPECT_EQ(*sig(g, 0), 0x1'0000'0003ull);  // both payload words
  EXPECT_NE(sig(g, 0)[1], 0u);              // the four-word release's timestamp
  EXPECT_EQ(std::memcmp(back.cpu(), src.cpu(), n), 0);
  EXPECT_EQ(q.gp_get(), q.gp_put());
  EXPECT_TRUE(g.k->channel_errors().empty());
}

TEST_P(NvQueueSim, HostSemaphoresReleaseWithTimestampAndAcquireStallsOnlyItsChannel) {
  Gpu g = bring_up(GetParam());
  nv::RmGpu& gpu = *g.gpu;
  nv::NvMemory arena2 = gpu.alloc_vram(64 << 10, true).value();
  NvChannelQueue compute(gpu, gpu.compute(), g.arena);
  NvChannelQueue copy(gpu, gpu.copy(), arena2);
  // compute: wait for signal 0 >= 5, then release signal 1 = 1.
  NvPushBuffer a(gpu.classes().gpfifo, gpu.classes().copy);
  ASSERT_TRUE(a.wait(sig_va(g, 0), 5).ok());
  ASSERT_TRUE(a.signal(sig_va(g, 1), 1).ok());
  ASSERT_TRUE(compute.submit(a).ok());
  // copy: release signal 2 = 9, which must not wait behind the blocked compute channel.
  NvPushBuffer b(gpu.classes().gpfifo, gpu.classes().copy);
  ASSERT_TRUE(b.signal(sig_va(g, 2), 9).ok());
  ASSERT_TRUE(copy.submit(b).ok());
  ASSERT_TRUE(queues::nv_wait_value(gpu, sig(g, 2), 9, "copy channel").ok());
  for (int i = 0; i < 10; ++i) g.k->poll();
  EXPECT_EQ(*sig(g, 1), 0u);
  *sig(g, 0) = 4;  // not yet
  for (int i = 0; i < 10; ++i) g.k->poll();
  EXPECT_EQ(*sig(g, 1), 0u);
  *sig(g, 0) = 5;
  ASSERT_TRUE(queues::nv_wait_value(gpu, sig(g, 1), 1, "compute channel").ok());
  EXPECT_NE(sig(g, 1)[1], 0u);
  EXPECT_GT(g.k->nonstall_interrupts(), 0u);
}

TEST_P(NvQueueSim, GpPutAloneDoesNotWakeTheChannel) {
  Gpu g = bring_up(GetParam());
  nv::RmGpu& gpu = *g.gpu;
  // Publish an entry by hand without ringing the doorbell.
  NvPushBuffer pb(gpu.classes().gpfifo, gpu.classes().copy);
  ASSERT_TRUE(pb.signal(sig_va(g, 0), 3).ok());
  std::memcpy(g.arena.cpu(), pb.cmds().dwords().data(), pb.size() * 4);
  const auto& area = gpu.gpfifo_area();
  const nv::NvChannel& ch = gpu.compute();
  auto* ring = reinterpret_cast<uint64_t*>(area.cpu() + (ch.ring_va - area.va));
  auto* userd = reinterpret_cast<uint32_t*>(area.cpu() + (ch.userd_va - area.va));
  ring[0] = queues::nv_gp_entry(g.arena.va, static_cast<uint32_t>(pb.size())).value();
  userd[0x8c / 4] = 1;
  for (int i = 0; i < 10; ++i) g.k->poll();
  EXPECT_EQ(*sig(g, 0), 0u);
  gpu.ring_doorbell(ch);
  g.k->poll();
  EXPECT_EQ(*sig(g, 0), 3u);
  EXPECT_EQ(userd[0x88 / 4], 1u);  // GPGet caught up
}

TEST_P(NvQueueSim, ManySubmissionsWrapTheArenaWithNothingLostOrDuplicated) {
  Gpu g = bring_up(GetParam());
  nv::RmGpu& gpu = *g.gpu;
  NvChannelQueue q(gpu, gpu.compute(), g.arena);  // 64 KiB arena
  // Submission i adds i to signal 0 with a semaphore reduction and releases signal 1 = i: a
  // pushbuffer overwritten before Host fetched it would change the sum.
  for (uint64_t i = 1; i <= 3000; ++i) {
    NvPushBuffer pb(gpu.classes().gpfifo, gpu.classes().copy);
    pb.inc(0, h::NVC56F_SEM_ADDR_LO,
           {static_cast<uint32_t>(sig_va(g, 0)), static_cast<uint32_t>(sig_va(g, 0) >> 32),
            static_cast<uint32_t>(i), 0,
            static_cast<uint32_t>(deposit_bits(
                deposit_bits(
                    h::NVC56F_SEM_EXECUTE_OPERATION_REDUCTION, h::NVC56F_SEM_EXECUTE_REDUCTION.lo,
                    h::NVC56F_SEM_EXECUTE_REDUCTION.width, h::NVC56F_SEM_EXECUTE_REDUCTION_IADD),
                h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE.lo, 1, 1))});
    for (int pad = 0; pad < 40; ++pad) pb.immediate(0, h::NVC56F_WFI, 0);
    ASSERT_TRUE(pb.signal(sig_va(g, 1), i).ok());
    ASSERT_TRUE(q.submit(pb).ok()) << i;
  }
  ASSERT_TRUE(queues::nv_wait_value(gpu, sig(g, 1), 3000, "last submission").ok());
  EXPECT_EQ(*sig(g, 0), 3000u * 3001u / 2);
  EXPECT_EQ(q.stats().submissions, 3000u);
}

TEST_P(NvQueueSim, AFullArenaMakesSubmitWaitInsteadOfOverwriting) {
  Gpu g = bring_up(GetParam());
  nv::RmGpu& gpu = *g.gpu;
  NvChannelQueue q(gpu, gpu.compute(), g.arena);  // 64 KiB arena
  // The channel blocks on signal 2 first, so nothing after it is fetched.
  NvPushBuffer gate(gpu.classes().gpfifo, gpu.classes().copy);
  ASSERT_TRUE(gate.wait(sig_va(g, 2), 1).ok());
  ASSERT_TRUE(q.submit(gate).ok());
  uint64_t submitted = 0;
  for (uint64_t i = 1; i <= 1000; ++i) {
    NvPushBuffer pb(gpu.classes().gpfifo, gpu.classes().copy);
    pb.inc(0, h::NVC56F_SEM_ADDR_LO,
           {static_cast<uint32_t>(sig_va(g, 0)), static_cast<uint32_t>(sig_va(g, 0) >> 32),
            static_cast<uint32_t>(i), 0,
            static_cast<uint32_t>(deposit_bits(
                deposit_bits(
                    h::NVC56F_SEM_EXECUTE_OPERATION_REDUCTION, h::NVC56F_SEM_EXECUTE_REDUCTION.lo,
                    h::NVC56F_SEM_EXECUTE_REDUCTION.width, h::NVC56F_SEM_EXECUTE_REDUCTION_IADD),
                h::NVC56F_SEM_EXECUTE_PAYLOAD_SIZE.lo, 1, 1))});
    for (int pad = 0; pad < 200; ++pad) pb.immediate(0, h::NVC56F_WFI, 0);
    ASSERT_TRUE(pb.signal(sig_va(g, 1), i).ok());
    auto s = q.submit(pb, std::chrono::milliseconds(5));
    if (!s.ok()) {
      EXPECT_EQ(s.error().code(), Errc::kTimeout) << s.error().to_string();
      break;
    }
    submitted = i;
  }
  // About 64 KiB / 836 bytes fit; the next one must wait, not overwrite the unfetched ones.
  EXPECT_GT(submitted, 50u);
  EXPECT_LT(submitted, 80u);
  *sig(g, 2) = 1;
  ASSERT_TRUE(queues::nv_wait_value(gpu, sig(g, 1), submitted, "last submission").ok());
  EXPECT_EQ(*sig(g, 0), submitted * (submitted + 1) / 2);
}

TEST_P(NvQueueSim, AnMmuFaultReachesTheWaiterDecoded) {
  Gpu g = bring_up(GetParam());
  nv::RmGpu& gpu = *g.gpu;
  NvChannelQueue q(gpu, gpu.copy(), g.arena);
  auto dst = gpu.alloc_vram(4096, true).value();
  NvPushBuffer pb(gpu.classes().gpfifo, gpu.classes().copy);
  pb.set_object(queues::kNvSubchCopy, gpu.classes().copy);
  ASSERT_TRUE(pb.copy(dst.va, 0x30'0000'0000, 4096).ok());  // nothing mapped there
  ASSERT_TRUE(pb.copy_signal(sig_va(g, 0), 1).ok());
  ASSERT_TRUE(q.submit(pb).ok());
  auto s = queues::nv_wait_value(gpu, sig(g, 0), 1, "copy done");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), Errc::kHardware);
  EXPECT_NE(s.error().message().find("MMU fault"), std::string::npos) << s.error().to_string();
  ASSERT_EQ(g.k->channel_errors().size(), 1u);
  EXPECT_NE(g.k->channel_errors()[0].find("0x3000000000"), std::string::npos)
      << g.k->channel_errors()[0];
}

TEST_P(NvQueueSim, BadPushbuffersStopTheChannelWithTheReason) {
  Gpu g = bring_up(GetParam());
  nv::RmGpu& gpu = *g.gpu;
  NvChannelQueue q(gpu, gpu.copy(), g.arena);
  NvPushBuffer pb(gpu.classes().gpfifo, gpu.classes().copy);
  pb.set_object(queues::kNvSubchCopy, gpu.classes().compute);  // not this channel's engine
  ASSERT_TRUE(pb.signal(sig_va(g, 0), 1).ok());
  ASSERT_TRUE(q.submit(pb).ok());
  EXPECT_EQ(queues::nv_wait_value(gpu, sig(g, 0), 1, "x").error().code(), Errc::kHardware);
  ASSERT_EQ(g.k->channel_errors().size(), 1u);
  EXPECT_NE(g.k->channel_errors()[0].find("SET_OBJECT"), std::string::npos);
}

TEST_P(NvQueueSim, AWaitThatNeverEndsTimesOutSayingWhatItSaw) {
  Gpu g = bring_up(GetParam());
  auto s = queues::nv_wait_value(*g.gpu, sig(g, 0), 1, "nothing", std::chrono::milliseconds(20));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code(), Errc::kTimeout);
  EXPECT_NE(s.error().message().find("actual 0"), std::string::npos) << s.error().to_string();
  EXPECT_NE(s.error().message().find("no fault recorded"), std::string::npos)
      << s.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(Arches, NvQueueSim,
                         ::testing::Values(sim::NvArch::kAmpere, sim::NvArch::kAda,
                                           sim::NvArch::kHopper),
                         [](const auto& info) {
                           switch (info.param) {
                             case sim::NvArch::kAmpere: return std::string("ga102");
                             case sim::NvArch::kAda: return std::string("ad102");
                             case sim::NvArch::kHopper: break;
                           }
                           return std::string("gh100");
                         });

}  // namespace
}  // namespace rawgpu
