// RDNA emulator: the workgroups of a dispatch on several host threads (Options::threads) give
// the same memory, the same statistics and opcode-hit counters, and the same reported fault
// (the lowest failing workgroup's, also in the latched VM fault registers) as one thread.
// Kernels: float math + LDS + barrier + global atomics (llc-19), an out-of-bounds store from
// many workgroups, and the compiler's 256x256x256 f32 matmul (16x16 LDS tiles).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rawgpu/compiler/gpu.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/program.h"
#include "rawgpu/queues/signal.h"
#include "rdna_e2e_fixture.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::DeviceBuffer;
using testing::EndToEnd;
using testing::kHeader;

// What one run leaves behind: memory, counters, error text and latched fault.
struct Outcome {
  std::vector<std::vector<uint8_t>> memory;
  uint64_t instructions = 0, waves = 0, workgroups = 0;
  std::vector<std::pair<std::string, uint64_t>> hits;
  std::string error;
  bool faulted = false;
  uint64_t fault_page = 0;
  std::vector<uint32_t> fault_regs;
};

class Threads : public EndToEnd {
 protected:
  // A fresh simulated GPU whose emulator runs `threads` host threads (opcode counting on).
  void reset(unsigned threads) {
    Options o;
    o.threads = threads;
    o.count_opcodes = true;
    testing::start_sim(GetParam(), o, gpu_, emu_, queue_);
  }
  void collect(Outcome& out, const std::vector<DeviceBuffer>& bufs,
               const std::vector<uint64_t>& sizes) {
    for (size_t i = 0; i < bufs.size(); ++i)
      out.memory.emplace_back(bufs[i].cpu, bufs[i].cpu + sizes[i]);
    out.instructions = emu_->stats().instructions;
    out.waves = emu_->stats().waves;
    out.workgroups = emu_->stats().workgroups;
    for (const OpcodeHits& h : emu_->opcode_hits())
      out.hits.emplace_back(h.info->mnemonic, h.count);
    const drivers::amd::FaultState f = gpu_->fault_state();
    out.faulted = f.faulted;
    out.fault_page = f.address.raw();
    const uint32_t seg0 = drivers::amd::kGc11Seg0Base;
    const bool g12 = gpu_->gc_version() >= 120000;
    for (uint32_t r : {g12 ? 0x15d0u : 0x15c8u, g12 ? 0x15d2u : 0x15c9u, g12 ? 0x15d3u : 0x15cau})
      out.fault_regs.push_back(gpu_->read_reg(seg0 + r));
  }
  // The one-thread run is the reference; a run with more threads must match it.
  static void keep_or_compare(Outcome& ref, Outcome o, unsigned threads) {
    if (threads == 1)
      ref = std::move(o);
    else
      expect_same(ref, o, threads);
  }
  static void expect_same(const Outcome& a, const Outcome& b, unsigned threads) {
    ASSERT_EQ(a.memory.size(), b.memory.size());
    for (size_t i = 0; i < a.memory.size(); ++i)
      EXPECT_TRUE(a.memory[i] == b.memory[i])
          << "buffer " << i << " differs with " << threads << " threads";
    EXPECT_EQ(a.instructions, b.instructions);
    EXPECT_EQ(a.waves, b.waves);
    EXPECT_EQ(a.workgroups, b.workgroups);
    EXPECT_EQ(a.hits, b.hits);
    EXPECT_EQ(a.error, b.error);
    EXPECT_EQ(a.faulted, b.faulted);
    EXPECT_EQ(a.fault_page, b.fault_page);
    EXPECT_EQ(a.fault_regs, b.fault_regs);
  }
};

constexpr const char* kMix = R"(
@lds = internal addrspace(3) global [64 x float] poison, align 4
define amdgpu_kernel void @mix(ptr addrspace(1) %out, ptr addrspace(1) %bins,
                               ptr addrspace(1) %acc) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %gid = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %gid, 64
  %g = add i32 %base, %tid
  %x = uitofp i32 %g to float
  %y = call float @llvm.fma.f32(float %x, float 0.375, float 1.5)
  %s = call float @llvm.sqrt.f32(float %y)
  %x1 = fadd float %x, 1.0
  %d = fdiv float %s, %x1
  %lp = getelementptr [64 x float], ptr addrspace(3) @lds, i32 0, i32 %tid
  store float %d, ptr addrspace(3) %lp
  call void @llvm.amdgcn.s.barrier()
  %rt = sub i32 63, %tid
  %rp = getelementptr [64 x float], ptr addrspace(3) @lds, i32 0, i32 %rt
  %r = load float, ptr addrspace(3) %rp
  %sum = fadd float %r, %d
  %op = getelementptr float, ptr addrspace(1) %out, i32 %g
  store float %sum, ptr addrspace(1) %op
  %bin = and i32 %g, 15
  %bp = getelementptr i32, ptr addrspace(1) %bins, i32 %bin
  %a0 = atomicrmw add ptr addrspace(1) %bp, i32 1 syncscope("agent") monotonic
  %a1 = atomicrmw max ptr addrspace(1) %acc, i32 %g syncscope("agent") monotonic
  %p1 = getelementptr i32, ptr addrspace(1) %acc, i32 1
  %g3 = mul i32 %g, 3
  %a2 = atomicrmw add ptr addrspace(1) %p1, i32 %g3 syncscope("agent") monotonic
  %p2 = getelementptr i32, ptr addrspace(1) %acc, i32 2
  %h = mul i32 %g, -1640531535
  %a3 = atomicrmw xor ptr addrspace(1) %p2, i32 %h syncscope("agent") monotonic
  ret void
}
)";

TEST_P(Threads, LdsAtomicsAndFloatMathMatchOneThread) {
  constexpr uint32_t kGroups = 64;
  Outcome ref;
  for (unsigned threads : {1u, 4u}) {
    reset(threads);
    DeviceBuffer out = buffer(kGroups * 64 * 4), bins = buffer(64), acc = buffer(64);
    launch(std::string(kHeader) + kMix, "mix", {out.va.raw(), bins.va.raw(), acc.va.raw()}, kGroups,
           64);
    if (HasFatalFailure()) return;
    Outcome o;
    collect(o, {out, bins, acc}, {kGroups * 64 * 4, 64, 64});
    // The atomics' totals are known: every bin counted 256 items, the max id, 3 * sum of ids.
    uint32_t b[16], a[3];
    std::memcpy(b, bins.cpu, sizeof b);
    std::memcpy(a, acc.cpu, sizeof a);
    for (uint32_t v : b) EXPECT_EQ(v, kGroups * 64 / 16) << threads << " threads";
    EXPECT_EQ(a[0], kGroups * 64 - 1);
    EXPECT_EQ(a[1], 3u * (kGroups * 64) * (kGroups * 64 - 1) / 2);
    EXPECT_EQ(o.workgroups, kGroups);
    EXPECT_FALSE(o.hits.empty());
    keep_or_compare(ref, std::move(o), threads);
  }
}

// Byte stores from neighbouring one-lane workgroups into the same dwords: each byte store is a
// read-modify-write of its dword in the emulator, which must not lose a neighbour's byte when
// the groups run on several threads.
constexpr const char* kBytes = R"(
define amdgpu_kernel void @bytes(ptr addrspace(1) %out) #0 {
entry:
  %gid = call i32 @llvm.amdgcn.workgroup.id.x()
  %v = trunc i32 %gid to i8
  %p = getelementptr i8, ptr addrspace(1) %out, i32 %gid
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %x = trunc i32 %i to i8
  %y = add i8 %x, %v
  store volatile i8 %y, ptr addrspace(1) %p
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, 64
  br i1 %more, label %loop, label %done
done:
  store volatile i8 %v, ptr addrspace(1) %p
  ret void
}
)";

TEST_P(Threads, ByteStoresToSharedDwordsAreNotLost) {
  constexpr uint32_t kGroups = 256;
  Outcome ref;
  for (unsigned threads : {1u, 4u}) {
    reset(threads);
    DeviceBuffer out = buffer(kGroups);
    std::memset(out.cpu, 0xEE, kGroups);
    launch(std::string(kHeader) + kBytes, "bytes", {out.va.raw()}, kGroups, 1);
    if (HasFatalFailure()) return;
    for (uint32_t g = 0; g < kGroups; ++g)
      ASSERT_EQ(out.cpu[g], static_cast<uint8_t>(g))
          << "byte " << g << ", " << threads << " threads";
    Outcome o;
    collect(o, {out}, {kGroups});
    keep_or_compare(ref, std::move(o), threads);
  }
}

constexpr const char* kFault = R"(
define amdgpu_kernel void @oob(ptr addrspace(1) %out, i64 %far) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %gid = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %gid, 64
  %g = add i32 %base, %tid
  %slow = icmp eq i32 %gid, 5
  br i1 %slow, label %loop, label %store
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %x = phi i32 [ %g, %entry ], [ %x1, %loop ]
  %x3 = mul i32 %x, 3
  %x1 = add i32 %x3, %gid
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, 3000
  br i1 %more, label %loop, label %store
store:
  %v = phi i32 [ %g, %entry ], [ %x1, %loop ]
  %gz = zext i32 %g to i64
  %bad = icmp uge i32 %gid, 5
  %gid64 = zext i32 %gid to i64
  %farg = mul i64 %far, %gid64
  %off = select i1 %bad, i64 %farg, i64 0
  %idx = add i64 %gz, %off
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %idx
  store i32 %v, ptr addrspace(1) %p
  ret void
}
)";

// Workgroups 5..63 all store far outside any mapping (each at its own address); group 5 first
// spins 3000 iterations, so with 4 threads groups 6-8 fault earlier in time. The reported
// error and the latched fault registers are still group 5's, as with one thread.
TEST_P(Threads, FaultOfTheLowestWorkgroupIsReported) {
  Outcome ref;
  for (unsigned threads : {1u, 4u}) {
    reset(threads);
    DeviceBuffer out = buffer(64 * 64 * 4);
    const uint64_t far = 1ull << 32;
    queues::amd::ExecParams p;
    prepare(std::string(kHeader) + kFault, "oob", {out.va.raw(), far}, 64, 64, p);
    if (HasFatalFailure()) return;
    queues::SignalPool pool(*gpu_);
    const queues::Signal done = pool.alloc().value();
    ASSERT_TRUE(static_cast<bool>(queue_->exec(p)));
    queue_->signal(done, 1);
    ASSERT_TRUE(static_cast<bool>(queue_->submit()));
    // The wait ends with the device's fault once the queue stopped (also when the dispatch runs
    // on the simulated device thread, RAWGPU_SIM_THREAD=1).
    const Status waited = queues::wait_signal(*gpu_, done, 1, "oob");
    ASSERT_FALSE(waited.ok());
    EXPECT_TRUE(waited.error().is(Errc::kHardware)) << waited.error().to_string();
    const QueueStatus qs = gpu_->queue_status(0);
    ASSERT_TRUE(qs.stopped);
    Outcome o;
    o.error = qs.error;
    collect(o, {out}, {5 * 64 * 4});  // groups 0-4 stored; later ones may have run or not
    const uint64_t va = out.va.raw() + (5 * far + 5 * 64) * 4;  // group 5, lane 0
    EXPECT_NE(o.error.find("memory fault in lane 0 at address " + hex(va)), std::string::npos)
        << o.error;
    EXPECT_TRUE(o.faulted);
    EXPECT_EQ(o.fault_page, va & ~uint64_t{0xFFF});
    o.instructions = o.waves = o.workgroups = 0;  // groups past the fault may have run
    o.hits.clear();
    keep_or_compare(ref, std::move(o), threads);
  }
}

// The compiler's matmul example (C = A @ B, 256^3 f32, A/B tiles in LDS), exact inputs.
TEST_P(Threads, CompilerMatmulMatchesOneThread) {
  compiler::Context ctx;
  auto ex = compiler::gpu_example(ctx, "matmul");
  ASSERT_TRUE(static_cast<bool>(ex)) << ex.error().to_string();
  auto target = compiler::gpu_target(target_name(GetParam()));
  ASSERT_TRUE(static_cast<bool>(target));
  auto spec = compiler::compile_gpu(ex->sink, "matmul", *target, ex->options);
  ASSERT_TRUE(static_cast<bool>(spec)) << spec.error().to_string();  // lld is a required dependency
  constexpr size_t N = 256;
  std::vector<float> a(N * N), b(N * N);
  for (size_t i = 0; i < N * N; ++i) {
    a[i] = float(int(i * 7 % 17) - 8) * 0.25f;
    b[i] = float(int(i * 5 % 13) - 6) * 0.25f;
  }
  Outcome ref;
  for (unsigned threads : {1u, 4u}) {
    reset(threads);
    queues::SignalPool pool(*gpu_);
    auto copier = queues::amd::Copier::create(*gpu_, pool);
    ASSERT_TRUE(static_cast<bool>(copier));
    auto prog = queues::amd::Program::load(*gpu_, **copier, spec->binary, "matmul");
    ASSERT_TRUE(static_cast<bool>(prog)) << prog.error().to_string();
    auto arena = queues::KernargArena::create(*gpu_, 64 * 1024);
    ASSERT_TRUE(static_cast<bool>(arena));
    std::vector<DeviceBuffer> bufs;  // C, A, B
    for (int i = 0; i < 3; ++i) bufs.push_back(buffer(N * N * 4));
    std::memcpy(bufs[1].cpu, a.data(), N * N * 4);
    std::memcpy(bufs[2].cpu, b.data(), N * N * 4);
    const queues::Signal done = pool.alloc().value();
    std::array<uint32_t, 3> grid{}, local{};
    for (size_t d = 0; d < 3; ++d) {
      grid[d] = uint32_t(spec->gpu.global[d]);
      local[d] = uint32_t(spec->gpu.local[d]);
    }
    queues::Kernargs ka = (*arena)->alloc((*prog)->kernarg_alloc_size(), done, 1).value();
    std::memset(ka.cpu, 0, ka.size);
    size_t ai = 0;
    for (const auto& arg : (*prog)->args()) {
      if (arg.hidden() || ai >= 3) continue;
      const uint64_t va = bufs[ai++].va.raw();
      std::memcpy(ka.cpu + arg.offset, &va, 8);
    }
    ASSERT_TRUE(static_cast<bool>(queue_->exec((*prog)->exec_params(ka, grid, local))));
    queue_->signal(done, 1);
    ASSERT_TRUE(static_cast<bool>(queue_->submit()));
    const Status st = queues::wait_signal(*gpu_, done, 1, "matmul");
    ASSERT_TRUE(st) << st.error().to_string();
    Outcome o;
    collect(o, bufs, {N * N * 4, N * N * 4, N * N * 4});
    const float* c = reinterpret_cast<const float*>(bufs[0].cpu);
    for (size_t i = 0; i < N; i += 37)
      for (size_t j = 0; j < N; ++j) {
        float want = 0;
        for (size_t k = 0; k < N; ++k) want += a[i * N + k] * b[k * N + j];
        ASSERT_EQ(c[i * N + j], want) << i << "," << j << " with " << threads << " threads";
      }
    EXPECT_GT(o.workgroups, 1u);
    keep_or_compare(ref, std::move(o), threads);
  }
}

TEST_P(Threads, ThreadCountComesFromOptionsOrEnvironment) {
  reset(3);
  EXPECT_EQ(emu_->thread_count(), 3u);
  emu_->options().threads = 0;
  const char* old = std::getenv("RAWGPU_EMU_THREADS");
  const std::string saved = old ? old : "";
  ::setenv("RAWGPU_EMU_THREADS", "2", 1);
  EXPECT_EQ(emu_->thread_count(), 2u);
  ::setenv("RAWGPU_EMU_THREADS", "zero", 1);
  EXPECT_EQ(emu_->thread_count(), 1u);
  ::unsetenv("RAWGPU_EMU_THREADS");
  EXPECT_EQ(emu_->thread_count(), 1u);
  if (old) ::setenv("RAWGPU_EMU_THREADS", saved.c_str(), 1);
}

INSTANTIATE_TEST_SUITE_P(Targets, Threads, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
