// End to end: LLVM IR → llc-19 (gfx1100 / gfx1201) → ld.lld-19 -shared → rawgpu's code-object
// parser → simulated VRAM → PM4 DISPATCH_DIRECT through queues::amd::ComputeQueue → the RDNA
// emulator; results compared with the same computation in C++. SKIPPED without llc-19/ld.lld-19.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rdna_tool.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::BufferPlacement;
using drivers::amd::DeviceBuffer;
using testing::have_tool;
using testing::run;
using testing::TempDir;

// Compiles IR to a linked code object; nullopt (with a message) on failure.
std::optional<std::vector<uint8_t>> compile(Target t, const std::string& ir, std::string* log) {
  TempDir dir;
  const std::string in = dir.file("k.ll", ir), obj = dir.path + "/k.o", so = dir.path + "/k.so";
  auto out = run("llc-19 -mtriple=amdgcn-amd-amdhsa -mcpu=" + std::string(target_name(t)) +
                 " -O2 -filetype=obj -o " + obj + " " + in + " 2>&1 && ld.lld-19 -shared -o " + so +
                 " " + obj + " 2>&1");
  if (!out) {
    *log = "llc-19/ld.lld-19 failed";
    return std::nullopt;
  }
  std::ifstream f(so, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

class EndToEnd : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    if (!have_tool("llc-19") || !have_tool("ld.lld-19"))
      GTEST_SKIP() << "SKIPPED: llc-19 / ld.lld-19 not installed";
    gpu_ = std::move(AmdGpu::create().value());
    emu_ = std::make_unique<Emulator>(*gpu_, GetParam());
    gpu_->set_executor(emu_.get());
    queue_ = std::move(queues::amd::ComputeQueue::create(*gpu_).value());
  }
  DeviceBuffer buffer(uint64_t bytes) {
    DeviceBuffer b = gpu_->alloc(bytes, BufferPlacement::kHost).value();
    std::memset(b.cpu, 0, bytes);
    return b;
  }
  // Compiles, loads and dispatches `kernel` with the given explicit kernel arguments (raw bytes
  // at the metadata offsets). Fails the test on any error.
  void launch(const std::string& ir, const std::string& kernel, const std::vector<uint64_t>& args,
              uint32_t groups, uint32_t group_size) {
    std::string log;
    auto bytes = compile(GetParam(), ir, &log);
    ASSERT_TRUE(bytes.has_value()) << log;
    auto co = drivers::amd::parse_code_object(*bytes);
    ASSERT_TRUE(static_cast<bool>(co)) << co.error().to_string();
    const drivers::amd::CodeObjectKernel* k = co->find(kernel);
    ASSERT_NE(k, nullptr);
    ASSERT_LE(co->image_align, 4096u);
    image_ = buffer(co->image.size());
    std::memcpy(image_.cpu, co->image.data(), co->image.size());
    // Kernel arguments at their metadata offsets (explicit ones, in order).
    kernargs_ = buffer(std::max<uint32_t>(k->metadata.kernarg_segment_size, 64));
    size_t ai = 0;
    for (const auto& a : k->metadata.args) {
      if (a.hidden()) continue;
      ASSERT_LT(ai, args.size());
      std::memcpy(kernargs_.cpu + a.offset, &args[ai++], a.size);
    }
    ASSERT_EQ(ai, args.size());
    const auto& d = k->descriptor;
    ASSERT_EQ(d.private_segment_fixed_size, 0u) << "scratch is not emulated yet";
    queues::amd::ExecParams p;
    p.code = image_.va + k->code_va;
    p.rsrc1 = d.compute_pgm_rsrc1;
    p.rsrc2 = d.compute_pgm_rsrc2 | (((d.group_segment_fixed_size + 511) / 512) << 15);
    p.rsrc3 = d.compute_pgm_rsrc3;
    p.user_data_count = d.rsrc2.user_sgpr_count;
    // User SGPRs in ABI order; only the kernarg pointer carries a value here.
    uint32_t pos = 0;
    const auto& pr = d.properties;
    if (pr.private_segment_buffer) pos += 4;
    if (pr.dispatch_ptr) pos += 2;
    if (pr.queue_ptr) pos += 2;
    ASSERT_TRUE(pr.kernarg_segment_ptr);
    ASSERT_LE(pos + 2, p.user_data_count);
    p.user_data[pos] = static_cast<uint32_t>(kernargs_.va.raw());
    p.user_data[pos + 1] = static_cast<uint32_t>(kernargs_.va.raw() >> 32);
    p.grid = {groups, 1, 1};
    p.workgroup = {group_size, 1, 1};
    emu_->options().kernel_name = kernel;
    ASSERT_TRUE(static_cast<bool>(queue_->exec(p)));
    Status st = queue_->submit();
    ASSERT_TRUE(st) << st.error().to_string();
    const QueueStatus qs = gpu_->queue_status(0);
    ASSERT_FALSE(qs.stopped) << qs.error;
  }

  std::unique_ptr<AmdGpu> gpu_;
  std::unique_ptr<Emulator> emu_;
  std::unique_ptr<queues::amd::ComputeQueue> queue_;
  DeviceBuffer image_, kernargs_;
};

constexpr const char* kHeader = R"(
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.sqrt.f32(float)
declare float @llvm.maxnum.f32(float, float)
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
)";

// out[i] = max(sqrt(fma(a, x, y) / y), 0.5) for i < n: fdiv (div_scale/rcp/fmas/fixup), the
// correctly rounded sqrt expansion, maxnum, a bounds check with a partially active last group.
TEST_P(EndToEnd, FloatElementwiseMatchesHost) {
  const std::string ir = std::string(kHeader) + R"(
define amdgpu_kernel void @ew(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %x,
                              ptr addrspace(1) noalias %y, float %a, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %end
body:
  %idx = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %idx
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %idx
  %vx = load float, ptr addrspace(1) %px
  %vy = load float, ptr addrspace(1) %py
  %f = call float @llvm.fma.f32(float %a, float %vx, float %vy)
  %d = fdiv float %f, %vy
  %s = call float @llvm.sqrt.f32(float %d)
  %m = call float @llvm.maxnum.f32(float %s, float 0.5)
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %idx
  store float %m, ptr addrspace(1) %po
  br label %end
end:
  ret void
}
)";
  const int n = 200;
  DeviceBuffer out = buffer(256 * 4), x = buffer(256 * 4), y = buffer(256 * 4);
  auto* px = reinterpret_cast<float*>(x.cpu);
  auto* py = reinterpret_cast<float*>(y.cpu);
  auto* po = reinterpret_cast<float*>(out.cpu);
  for (int i = 0; i < 256; ++i) {
    px[i] = 0.37f * static_cast<float>(i) + 0.01f;
    py[i] = 1.0f + static_cast<float>(i % 13) * 0.731f;
    po[i] = -7.0f;
  }
  const float a = 1.75f;
  uint32_t abits;
  std::memcpy(&abits, &a, 4);
  launch(ir, "ew", {out.va.raw(), x.va.raw(), y.va.raw(), abits, static_cast<uint64_t>(n)}, 4, 64);
  if (HasFatalFailure()) return;
  for (int i = 0; i < 256; ++i) {
    const float want =
        i < n ? std::fmax(std::sqrt(std::fma(a, px[i], py[i]) / py[i]), 0.5f) : -7.0f;
    EXPECT_EQ(po[i], want) << i;
  }
}

// Workgroup reduction through LDS: every thread stores x[i]*x[i], barrier, thread 0 sums the
// 64 values in order and writes out[group]. Integer division/remainder by a runtime value.
TEST_P(EndToEnd, LdsReductionAndIntegerDivisionMatchHost) {
  const std::string ir = std::string(kHeader) + R"(
@lds = internal addrspace(3) global [64 x float] undef, align 4
define amdgpu_kernel void @red(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %x,
                               ptr addrspace(1) noalias %q, i32 %div) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %idx = zext i32 %i to i64
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %idx
  %v = load float, ptr addrspace(1) %px
  %sq = fmul float %v, %v
  %pl = getelementptr inbounds [64 x float], ptr addrspace(3) @lds, i32 0, i32 %tid
  store float %sq, ptr addrspace(3) %pl
  %qd = udiv i32 %i, %div
  %qr = urem i32 %i, %div
  %qq = mul i32 %qd, 1000
  %qv = add i32 %qq, %qr
  %pq = getelementptr inbounds i32, ptr addrspace(1) %q, i64 %idx
  store i32 %qv, ptr addrspace(1) %pq
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %sum, label %end
sum:
  %k = phi i32 [ 0, %entry ], [ %k1, %sum ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %sum ]
  %pk = getelementptr inbounds [64 x float], ptr addrspace(3) @lds, i32 0, i32 %k
  %e = load float, ptr addrspace(3) %pk
  %acc1 = fadd float %acc, %e
  %k1 = add i32 %k, 1
  %more = icmp ult i32 %k1, 64
  br i1 %more, label %sum, label %store
store:
  %wgx = zext i32 %wg to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %wgx
  store float %acc1, ptr addrspace(1) %po
  br label %end
end:
  ret void
}
)";
  DeviceBuffer out = buffer(64), x = buffer(192 * 4), q = buffer(192 * 4);
  auto* px = reinterpret_cast<float*>(x.cpu);
  for (int i = 0; i < 192; ++i) px[i] = std::sin(static_cast<float>(i)) * 3.0f;
  const uint32_t div = 7;
  launch(ir, "red", {out.va.raw(), x.va.raw(), q.va.raw(), div}, 3, 64);
  if (HasFatalFailure()) return;
  auto* po = reinterpret_cast<float*>(out.cpu);
  auto* pq = reinterpret_cast<uint32_t*>(q.cpu);
  for (int g = 0; g < 3; ++g) {
    float acc = 0.0f;
    for (int k = 0; k < 64; ++k) acc += px[g * 64 + k] * px[g * 64 + k];
    EXPECT_EQ(po[g], acc) << g;
  }
  for (uint32_t i = 0; i < 192; ++i) EXPECT_EQ(pq[i], i / div * 1000 + i % div) << i;
  EXPECT_EQ(emu_->stats().workgroups, 3u);
}

INSTANTIATE_TEST_SUITE_P(Targets, EndToEnd, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
