// Machine behaviour beyond plain ALU code, each through llc-19-compiled kernels on gfx1100 and
// gfx1201: scratch (a dynamically indexed private array LLVM places in scratch) and FLAT
// addresses in the LDS / private apertures. SKIPPED without llc-19 / ld.lld-19.
#include <gtest/gtest.h>

#include <cstring>

#include "rdna_e2e_fixture.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::DeviceBuffer;
using testing::EndToEnd;

class Isa : public EndToEnd {
 public:
  using EndToEnd::buffer;
  using EndToEnd::launch;
  using EndToEnd::scratch_;
  static bool HasFatalFailure() { return ::testing::Test::HasFatalFailure(); }
};

constexpr const char* kDecls = R"(
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
)";

// arr[k] = k * tid + wg for k < n in a private array, then out[i] = arr[in[i] % n] +
// arr[(in[i] >> 7) % n]. LLVM keeps a 16-entry array in VGPRs indexed through M0
// (v_movreld_b32 / v_movrels_b32) and puts a 64-entry one in scratch (scratch_store/load).
std::string private_array_ir(unsigned n) {
  std::string ir = std::string(kDecls) + R"(
define amdgpu_kernel void @priv(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %in) #0 {
entry:
  %arr = alloca [NN x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  br label %fill
fill:
  %k = phi i32 [0, %entry], [%k1, %fill]
  %p = getelementptr [NN x i32], ptr addrspace(5) %arr, i32 0, i32 %k
  %m = mul i32 %k, %tid
  %v = add i32 %m, %wg
  store i32 %v, ptr addrspace(5) %p
  %k1 = add i32 %k, 1
  %c = icmp ult i32 %k1, NN
  br i1 %c, label %fill, label %done
done:
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %idx = zext i32 %i to i64
  %gi = getelementptr i32, ptr addrspace(1) %in, i64 %idx
  %j = load i32, ptr addrspace(1) %gi
  %j0 = urem i32 %j, NN
  %js = lshr i32 %j, 7
  %j1 = urem i32 %js, NN
  %q0 = getelementptr [NN x i32], ptr addrspace(5) %arr, i32 0, i32 %j0
  %q1 = getelementptr [NN x i32], ptr addrspace(5) %arr, i32 0, i32 %j1
  %r0 = load i32, ptr addrspace(5) %q0
  %r1 = load i32, ptr addrspace(5) %q1
  %r = add i32 %r0, %r1
  %go = getelementptr i32, ptr addrspace(1) %out, i64 %idx
  store i32 %r, ptr addrspace(1) %go
  ret void
}
)";
  for (size_t p = ir.find("NN"); p != std::string::npos; p = ir.find("NN", p))
    ir.replace(p, 2, std::to_string(n));
  return ir;
}

void check_private(Isa& t, unsigned n) {
  DeviceBuffer out = t.buffer(192 * 4), in = t.buffer(192 * 4);
  auto* pin = reinterpret_cast<uint32_t*>(in.cpu);
  for (uint32_t i = 0; i < 192; ++i) pin[i] = (i * 2654435761u) >> 7;
  t.launch(private_array_ir(n), "priv", {out.va.raw(), in.va.raw()}, 3, 64);
  if (t.HasFatalFailure()) return;
  const auto* po = reinterpret_cast<const uint32_t*>(out.cpu);
  for (uint32_t i = 0; i < 192; ++i) {
    const uint32_t tid = i % 64, wg = i / 64;
    const uint32_t want = (pin[i] % n) * tid + wg + ((pin[i] >> 7) % n) * tid + wg;
    ASSERT_EQ(po[i], want) << i;
  }
}

TEST_P(Isa, SmallPrivateArrayIndexedThroughM0) {
  check_private(*this, 16);
  EXPECT_EQ(scratch_.cpu, nullptr) << "expected LLVM to keep 16 entries in VGPRs";
}

TEST_P(Isa, DynamicallyIndexedPrivateArrayUsesScratch) {
  check_private(*this, 64);
  if (HasFatalFailure()) return;
  ASSERT_NE(scratch_.cpu, nullptr) << "the kernel did not use scratch";
  // The last group's wave 0, lane 1 wrote arr[k] = k + 2 at private byte 4k (+ LLVM's frame
  // offset): dword-interleaved per lane, so lane 1's consecutive words are 128 bytes apart.
  const auto* ps = reinterpret_cast<const uint32_t*>(scratch_.cpu);
  bool found = false;
  for (uint32_t base = 0; base + 64 <= 72 && !found; ++base) {
    bool all = true;
    for (uint32_t k = 0; k < 64 && all; ++k) all = ps[(base + k) * 32 + 1] == k + 2;
    found = all;
  }
  EXPECT_TRUE(found) << "lane 1's private array is not dword-interleaved in its wave's slot";
}

// A generic (flat) pointer chosen at run time between an LDS array and a private array: flat
// loads/stores whose address lies in the shared (src_shared_base) or private
// (src_private_base) aperture reach LDS or scratch.
TEST_P(Isa, FlatAddressesInLdsAndPrivateApertures) {
  const std::string ir = std::string(kDecls) + R"(
@lds = internal addrspace(3) global [64 x i32] poison, align 4
define amdgpu_kernel void @apert(ptr addrspace(1) noalias %out, i32 %sel) #0 {
entry:
  %arr = alloca [64 x i32], align 4, addrspace(5)
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %pl = getelementptr [64 x i32], ptr addrspace(3) @lds, i32 0, i32 %tid
  %pp = getelementptr [64 x i32], ptr addrspace(5) %arr, i32 0, i32 %tid
  %gl = addrspacecast ptr addrspace(3) %pl to ptr
  %gp = addrspacecast ptr addrspace(5) %pp to ptr
  %use_lds = icmp eq i32 %sel, 0
  %g = select i1 %use_lds, ptr %gl, ptr %gp
  %v = mul i32 %tid, 3
  %v1 = add i32 %v, %sel
  store volatile i32 %v1, ptr %g
  %r = load volatile i32, ptr %g
  ; read back through the specific address space as well
  %rl = load volatile i32, ptr addrspace(3) %pl
  %rp = load volatile i32, ptr addrspace(5) %pp
  %rr = select i1 %use_lds, i32 %rl, i32 %rp
  %s = shl i32 %rr, 16
  %o = or i32 %r, %s
  %idx = zext i32 %tid to i64
  %go = getelementptr i32, ptr addrspace(1) %out, i64 %idx
  store i32 %o, ptr addrspace(1) %go
  ret void
}
)";
  for (uint32_t sel : {0u, 1u}) {
    DeviceBuffer out = buffer(64 * 4);
    launch(ir, "apert", {out.va.raw(), sel}, 1, 64);
    if (HasFatalFailure()) return;
    const auto* po = reinterpret_cast<const uint32_t*>(out.cpu);
    for (uint32_t t = 0; t < 64; ++t) {
      const uint32_t v = t * 3 + sel;
      ASSERT_EQ(po[t], v | v << 16) << "sel " << sel << " lane " << t;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Isa, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
