// Kernarg arena (wrap-around reuse tied to signal values) and Program (code object loading
// onto the simulator) on the committed gfx1100/gfx1201 code objects of the code_object corpus
// (built by llc-19 + ld.lld-19 from the parser's test kernel `add`).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/program.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

using drivers::amd::BufferPlacement;

std::vector<uint8_t> read_corpus(const char* name) {
  std::ifstream f(std::string(RAWGPU_FUZZ_CORPUS) + "/code_object/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

TEST(KernargArena, AlignsAndWaitsForRangesStillInFlight) {
  auto gpu = std::move(sim::SimGpu::create().value());
  SignalPool pool(*gpu);
  Signal done = pool.alloc().value();
  auto arena = KernargArena::create(*gpu, 4096).value();
  std::vector<Kernargs> got;
  for (uint64_t i = 1; i <= 4; ++i) {
    auto k = arena->alloc(1000, done, i);
    ASSERT_TRUE(k);
    EXPECT_EQ(k->va.raw() % 16, 0u);
    EXPECT_EQ(k->size, 1000u);
    got.push_back(*k);
  }
  EXPECT_EQ(arena->in_flight(), 4u);
  // The 5th wraps onto the 1st, which is still in flight (done < 1): times out, unchanged.
  ManualClock clock;
  WaitOptions o;
  o.clock = &clock;
  o.timeout = std::chrono::milliseconds(2);
  auto late = arena->alloc(1000, done, 5, o);
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code(), Errc::kTimeout);
  EXPECT_NE(late.error().to_string().find("kernarg range reuse"), std::string::npos);
  EXPECT_EQ(arena->in_flight(), 4u);
  done.set(1);
  auto k5 = arena->alloc(1000, done, 5, o);
  ASSERT_TRUE(k5);
  EXPECT_EQ(k5->va, got[0].va);  // reused the first range
  EXPECT_EQ(arena->wraps(), 1u);
  EXPECT_EQ(arena->in_flight(), 4u);
  EXPECT_FALSE(arena->alloc(0, done, 6));
  EXPECT_FALSE(arena->alloc(8192, done, 6));
  done.set(5);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(arena->alloc(700, done, 5));  // all free: no waits
}

// A range of an earlier lap that starts in the alignment gap before a new allocation and reaches
// into it must be waited for too (a scan that stopped at the first range below the new offset
// missed it and handed out bytes still in flight).
TEST(KernargArena, WaitsForAnEarlierLapsRangeThatStartsInTheAlignmentGap) {
  auto gpu = std::move(sim::SimGpu::create().value());
  SignalPool pool(*gpu);
  Signal done = pool.alloc().value();
  auto arena = KernargArena::create(*gpu, 4096).value();
  // Lap 1: [0,1000) [1008,2008) [2016,3016) [3024,4024), values 1..4.
  for (uint64_t i = 1; i <= 4; ++i) ASSERT_TRUE(arena->alloc(1000, done, i));
  done.set(1);
  // Lap 2: [0,900) reuses the first range; then 100 bytes at 1024-byte alignment land at
  // [1024,1124), inside [1008,2008), which is still in flight (value 2).
  auto first = arena->alloc(900, done, 5);
  ASSERT_TRUE(first);
  EXPECT_EQ(arena->wraps(), 1u);
  ManualClock clock;
  WaitOptions o;
  o.clock = &clock;
  o.timeout = std::chrono::milliseconds(2);
  auto inside = arena->alloc(100, done, 6, o, 1024);
  ASSERT_FALSE(inside) << "handed out [1024, 1124) while [1008, 2008) was in flight";
  EXPECT_EQ(inside.error().code(), Errc::kTimeout);
  done.set(2);
  auto k = arena->alloc(100, done, 6, o, 1024);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->va.raw() % 1024, 0u);
  EXPECT_EQ(k->va, first->va + 1024);
}

class ProgramTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string dev = GetParam();
    gpu_ = std::move(sim::SimGpu::create(sim::parse_sim_device(dev).value().gc_version).value());
    gpu_->set_executor(&rec_);
    pool_ = std::make_unique<SignalPool>(*gpu_);
    copier_ = std::move(Copier::create(*gpu_, *pool_).value());
    co_ = read_corpus(dev == "sim:gfx1100" ? "add_gfx1100.co" : "add_gfx1201.co");
    ASSERT_FALSE(co_.empty()) << "missing corpus file under " << RAWGPU_FUZZ_CORPUS;
  }
  void TearDown() override {
    copier_.reset();
    pool_.reset();
  }
  class Rec final : public sim::DispatchExecutor {
   public:
    Status execute(const sim::DispatchState& s) override {
      states.push_back(s);
      return {};
    }
    std::vector<sim::DispatchState> states;
  };
  std::unique_ptr<sim::SimGpu> gpu_;
  Rec rec_;
  std::unique_ptr<SignalPool> pool_;
  std::unique_ptr<Copier> copier_;
  std::vector<uint8_t> co_;
};

TEST_P(ProgramTest, LoadsUploadsAndDispatches) {
  auto prog = Program::load(*gpu_, *copier_, co_, "add");
  ASSERT_TRUE(prog) << prog.error().to_string();
  Program& p = **prog;
  const auto parsed = drivers::amd::parse_code_object(co_).value();
  // The image in VRAM is the parsed image.
  std::vector<uint8_t> back(p.image_size());
  ASSERT_TRUE(copier_->copy_out(back, p.base()));
  EXPECT_EQ(back, parsed.image);
  const auto* k = parsed.find("add");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(p.entry(), p.base() + k->code_va);
  EXPECT_EQ(p.entry().raw() % 256, 0u);
  EXPECT_EQ(p.descriptor_va(), p.base() + k->descriptor_va);
  EXPECT_EQ(p.kernarg_size(), k->metadata.kernarg_segment_size);
  EXPECT_GE(p.args().size(), 3u);  // a, b, n (+ hidden arguments)
  EXPECT_EQ(p.args()[0].value_kind, "global_buffer");
  EXPECT_EQ(p.args()[2].value_kind, "by_value");
  EXPECT_EQ(p.kernarg_alloc_size() % 16, 0u);
  EXPECT_GE(p.kernarg_alloc_size(), p.kernarg_size());
  // Launch it: the dispatch state carries the program's entry, descriptor words and kernargs.
  Signal done = pool_->alloc().value();
  auto arena = KernargArena::create(*gpu_, 64 * 1024).value();
  Kernargs ka = arena->alloc(p.kernarg_alloc_size(), done, 1).value();
  const ExecParams e = p.exec_params(ka, {7, 1, 1}, {64, 1, 1});
  auto q = ComputeQueue::create(*gpu_).value();
  ASSERT_TRUE(q->exec(e));
  ASSERT_TRUE(q->signal(done, 1).submit());
  ASSERT_TRUE(wait_signal(*gpu_, done, 1));
  ASSERT_EQ(rec_.states.size(), 1u);
  const sim::DispatchState& s = rec_.states[0];
  EXPECT_EQ(s.program, p.entry());
  EXPECT_EQ(s.rsrc2 & 0x3e, p.descriptor().compute_pgm_rsrc2 & 0x3e);  // USER_SGPR [5:1]
  EXPECT_EQ(s.rsrc3, p.descriptor().compute_pgm_rsrc3);
  EXPECT_EQ(s.wave32, p.descriptor().properties.wavefront_size32);
  ASSERT_GE(s.user_data.size(), 2u);
  const uint32_t at = p.wants_dispatch_ptr() ? 2 : 0;
  EXPECT_EQ(s.user_data[at] | (uint64_t{s.user_data[at + 1]} << 32), ka.va.raw());
  EXPECT_EQ(s.grid[0], 7u);
  EXPECT_EQ(s.workgroup[0], 64u);
  EXPECT_EQ(s.lds_bytes, (p.descriptor().group_segment_fixed_size + 511) / 512 * 512);
  if (std::string_view(GetParam()) == "sim:gfx1100") {
    EXPECT_NE(s.rsrc1 & (1u << 20), 0u);  // PRIV on GC 11
  }
}

TEST_P(ProgramTest, RejectsWrongKernelWrongTargetAndGarbage) {
  auto missing = Program::load(*gpu_, *copier_, co_, "nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
  EXPECT_NE(missing.error().to_string().find("add"), std::string::npos);
  const bool gfx11 = std::string_view(GetParam()) == "sim:gfx1100";
  const auto other = read_corpus(gfx11 ? "add_gfx1201.co" : "add_gfx1100.co");
  auto wrong = Program::load(*gpu_, *copier_, other, "add");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code(), Errc::kUnsupported);
  std::vector<uint8_t> junk(co_.begin(), co_.begin() + 100);
  EXPECT_FALSE(Program::load(*gpu_, *copier_, junk, "add"));
}

INSTANTIATE_TEST_SUITE_P(Sim, ProgramTest, ::testing::Values("sim:gfx1100", "sim:gfx1201"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(n.find(':') + 1);
                         });

}  // namespace
}  // namespace rawgpu::queues::amd
