// End to end: LLVM IR → llc-19 (gfx1100 / gfx1201) → ld.lld-19 -shared → rawgpu's code-object
// parser → simulated VRAM → PM4 DISPATCH_DIRECT through queues::amd::ComputeQueue → the RDNA
// emulator; results compared with the same computation in C++. SKIPPED without llc-19/ld.lld-19.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "rdna_e2e_fixture.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::DeviceBuffer;
using testing::EndToEnd;
using testing::kHeader;
using testing::lane_operands_ir;

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

// Per-operation differential test: one kernel applies 20 operations to 256 (a, b) pairs built
// from edge values (±0, denormals, ±inf, NaN, INT_MIN/MAX, ±1, ...); results are compared
// bitwise with the same operations on the host (NaN: any NaN; minnum/maxnum: ±0 ties may
// differ in sign as LLVM allows either).
TEST_P(EndToEnd, OperationsOnEdgeValuesMatchHost) {
  const std::string ir = std::string(kHeader) + R"(
declare float @llvm.minnum.f32(float, float)
declare i32 @llvm.fptosi.sat.i32.f32(float)
declare i32 @llvm.fptoui.sat.i32.f32(float)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
define amdgpu_kernel void @ops(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %pa,
                               ptr addrspace(1) noalias %pb) #0 {
entry:
)" + lane_operands_ir("i32") +
                         R"(  %fa = bitcast i32 %a to float
  %fb = bitcast i32 %b to float
  %r0 = fadd float %fa, %fb
  %r1 = fmul float %fa, %fb
  %r2 = fdiv float %fa, %fb
  %r3 = call float @llvm.fma.f32(float %fa, float %fb, float %fa)
  %r4 = call float @llvm.minnum.f32(float %fa, float %fb)
  %r5 = call float @llvm.maxnum.f32(float %fa, float %fb)
  %r6 = call float @llvm.sqrt.f32(float %fa)
  %r7 = call i32 @llvm.fptosi.sat.i32.f32(float %fa)
  %r8 = call i32 @llvm.fptoui.sat.i32.f32(float %fa)
  %r9 = sitofp i32 %a to float
  %r10 = uitofp i32 %a to float
  %c11 = fcmp olt float %fa, %fb
  %r11 = zext i1 %c11 to i32
  %c12 = fcmp uno float %fa, %fb
  %r12 = zext i1 %c12 to i32
  %r13 = mul i32 %a, %b
  %bz = icmp eq i32 %b, 0
  %bm = icmp eq i32 %b, -1
  %bad = or i1 %bz, %bm
  %bs = select i1 %bad, i32 3, i32 %b
  %r14 = sdiv i32 %a, %bs
  %r15 = urem i32 %a, %bs
  %sh = and i32 %b, 31
  %r16 = ashr i32 %a, %sh
  %r17 = shl i32 %a, %sh
  %r18 = call i32 @llvm.smin.i32(i32 %a, i32 %b)
  %r19 = call i32 @llvm.umax.i32(i32 %a, i32 %b)
  %o0 = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %idx
  %b0 = bitcast float %r0 to i32
  store i32 %b0, ptr addrspace(1) %o0
  %o1 = getelementptr inbounds i32, ptr addrspace(1) %o0, i64 256
  %b1 = bitcast float %r1 to i32
  store i32 %b1, ptr addrspace(1) %o1
  %o2 = getelementptr inbounds i32, ptr addrspace(1) %o1, i64 256
  %b2 = bitcast float %r2 to i32
  store i32 %b2, ptr addrspace(1) %o2
  %o3 = getelementptr inbounds i32, ptr addrspace(1) %o2, i64 256
  %b3 = bitcast float %r3 to i32
  store i32 %b3, ptr addrspace(1) %o3
  %o4 = getelementptr inbounds i32, ptr addrspace(1) %o3, i64 256
  %b4 = bitcast float %r4 to i32
  store i32 %b4, ptr addrspace(1) %o4
  %o5 = getelementptr inbounds i32, ptr addrspace(1) %o4, i64 256
  %b5 = bitcast float %r5 to i32
  store i32 %b5, ptr addrspace(1) %o5
  %o6 = getelementptr inbounds i32, ptr addrspace(1) %o5, i64 256
  %b6 = bitcast float %r6 to i32
  store i32 %b6, ptr addrspace(1) %o6
  %o7 = getelementptr inbounds i32, ptr addrspace(1) %o6, i64 256
  store i32 %r7, ptr addrspace(1) %o7
  %o8 = getelementptr inbounds i32, ptr addrspace(1) %o7, i64 256
  store i32 %r8, ptr addrspace(1) %o8
  %o9 = getelementptr inbounds i32, ptr addrspace(1) %o8, i64 256
  %b9 = bitcast float %r9 to i32
  store i32 %b9, ptr addrspace(1) %o9
  %o10 = getelementptr inbounds i32, ptr addrspace(1) %o9, i64 256
  %b10 = bitcast float %r10 to i32
  store i32 %b10, ptr addrspace(1) %o10
  %o11 = getelementptr inbounds i32, ptr addrspace(1) %o10, i64 256
  store i32 %r11, ptr addrspace(1) %o11
  %o12 = getelementptr inbounds i32, ptr addrspace(1) %o11, i64 256
  store i32 %r12, ptr addrspace(1) %o12
  %o13 = getelementptr inbounds i32, ptr addrspace(1) %o12, i64 256
  store i32 %r13, ptr addrspace(1) %o13
  %o14 = getelementptr inbounds i32, ptr addrspace(1) %o13, i64 256
  store i32 %r14, ptr addrspace(1) %o14
  %o15 = getelementptr inbounds i32, ptr addrspace(1) %o14, i64 256
  store i32 %r15, ptr addrspace(1) %o15
  %o16 = getelementptr inbounds i32, ptr addrspace(1) %o15, i64 256
  store i32 %r16, ptr addrspace(1) %o16
  %o17 = getelementptr inbounds i32, ptr addrspace(1) %o16, i64 256
  store i32 %r17, ptr addrspace(1) %o17
  %o18 = getelementptr inbounds i32, ptr addrspace(1) %o17, i64 256
  store i32 %r18, ptr addrspace(1) %o18
  %o19 = getelementptr inbounds i32, ptr addrspace(1) %o18, i64 256
  store i32 %r19, ptr addrspace(1) %o19
  ret void
}
)";
  static constexpr uint32_t kEdges[16] = {
      0x00000000, 0x80000000, 0x00000001, 0x807FFFFF,   // ±0, denormals
      0x7F800000, 0xFF800000, 0x7FC00000, 0x3F800000,   // ±inf, qNaN, 1.0
      0xBF800000, 0x4F000000, 0xCF000001, 0x7F7FFFFF,   // -1.0, 2^31, < -2^31, FLT_MAX
      0x80000001, 0x7FFFFFFF, 0x40490FDB, 0x00800000};  // INT_MIN+1 bits, INT_MAX bits, π, FLT_MIN
  DeviceBuffer out = buffer(20 * 256 * 4), pa = buffer(1024), pb = buffer(1024);
  auto* a = reinterpret_cast<uint32_t*>(pa.cpu);
  auto* b = reinterpret_cast<uint32_t*>(pb.cpu);
  for (int i = 0; i < 256; ++i) a[i] = kEdges[i / 16], b[i] = kEdges[i % 16];
  launch(ir, "ops", {out.va.raw(), pa.va.raw(), pb.va.raw()}, 4, 64);
  if (HasFatalFailure()) return;
  auto* o = reinterpret_cast<uint32_t*>(out.cpu);
  auto f = [](uint32_t x) { return std::bit_cast<float>(x); };
  auto u = [](float x) { return std::bit_cast<uint32_t>(x); };
  auto sat_i = [](float x) -> uint32_t {
    if (std::isnan(x)) return 0;
    if (x <= -2147483648.0f) return 0x80000000u;
    if (x >= 2147483648.0f) return 0x7FFFFFFFu;
    return static_cast<uint32_t>(static_cast<int32_t>(x));
  };
  auto sat_u = [](float x) -> uint32_t {
    if (std::isnan(x) || x <= 0) return 0;
    if (x >= 4294967296.0f) return 0xFFFFFFFFu;
    return static_cast<uint32_t>(x);
  };
  const char* names[20] = {"fadd",   "fmul",     "fdiv",       "fma",        "minnum",
                           "maxnum", "sqrt",     "fptosi.sat", "fptoui.sat", "sitofp",
                           "uitofp", "fcmp olt", "fcmp uno",   "mul",        "sdiv",
                           "urem",   "ashr",     "shl",        "smin",       "umax"};
  int failures = 0;
  for (int i = 0; i < 256 && failures < 20; ++i) {
    const float x = f(a[i]), y = f(b[i]);
    const int32_t ia = static_cast<int32_t>(a[i]), ib = static_cast<int32_t>(b[i]);
    const int32_t bs = (ib == 0 || ib == -1) ? 3 : ib;
    const uint32_t want[20] = {u(x + y),
                               u(x * y),
                               u(x / y),
                               u(std::fma(x, y, x)),
                               u(std::fmin(x, y)),
                               u(std::fmax(x, y)),
                               u(std::sqrt(x)),
                               sat_i(x),
                               sat_u(x),
                               u(static_cast<float>(ia)),
                               u(static_cast<float>(a[i])),
                               x < y ? 1u : 0u,
                               (std::isnan(x) || std::isnan(y)) ? 1u : 0u,
                               a[i] * b[i],
                               static_cast<uint32_t>(ia / bs),
                               a[i] % static_cast<uint32_t>(bs),
                               static_cast<uint32_t>(ia >> (b[i] & 31)),
                               a[i] << (b[i] & 31),
                               static_cast<uint32_t>(std::min(ia, ib)),
                               std::max(a[i], b[i])};
    for (int k = 0; k < 20; ++k) {
      const uint32_t got = o[k * 256 + i];
      bool same = got == want[k];
      if (!same && k <= 6 && std::isnan(f(got)) && std::isnan(f(want[k]))) same = true;
      if (!same && (k == 4 || k == 5) && f(got) == f(want[k])) same = true;  // ±0 ties
      if (!same) {
        ++failures;
        ADD_FAILURE() << names[k] << "(" << hex(a[i]) << ", " << hex(b[i]) << ") = " << hex(got)
                      << ", host " << hex(want[k]);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, EndToEnd, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
