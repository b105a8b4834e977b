// Machine behaviour beyond plain ALU code, each through llc-19-compiled kernels on gfx1100 and
// gfx1201: scratch (a dynamically indexed private array LLVM places in scratch) and FLAT
// addresses in the LDS / private apertures. SKIPPED without llc-19 / ld.lld-19.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "rawgpu/queues/signal.h"
#include "rdna_e2e_fixture.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::DeviceBuffer;
using testing::EndToEnd;

class Isa : public EndToEnd {
 public:
  using EndToEnd::buffer;
  using EndToEnd::launch;
  using EndToEnd::prepare;
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

// ---------------------------------------------------------------- cross-lane operations
// Host model of DPP16 / DPP8 / ds_swizzle / v_permlane(x)16 for one wave32, written from the
// RDNA3 ISA guide's descriptions (rows of 16 lanes, banks of 4; an out-of-row source keeps the
// old value unless bound_ctrl, which reads 0).
uint32_t dpp16_host(const uint32_t* src, const uint32_t* old, unsigned l, unsigned ctrl,
                    unsigned row_mask, unsigned bank_mask, bool bound) {
  const unsigned row = l & ~15u, r = l & 15;
  if (!((row_mask >> (l / 16)) & 1) || !((bank_mask >> (r / 4)) & 1)) return old[l];
  int sl;
  if (ctrl <= 0xFF)
    sl = static_cast<int>((l & ~3u) + ((ctrl >> (2 * (l & 3))) & 3));
  else if (ctrl >= 0x101 && ctrl <= 0x10F)
    sl = r + (ctrl & 15) < 16 ? int(l + (ctrl & 15)) : -1;
  else if (ctrl >= 0x111 && ctrl <= 0x11F)
    sl = r >= (ctrl & 15) ? int(l - (ctrl & 15)) : -1;
  else if (ctrl >= 0x121 && ctrl <= 0x12F)
    sl = int(row + ((r - (ctrl & 15)) & 15));
  else if (ctrl == 0x140)
    sl = int(row + 15 - r);
  else if (ctrl == 0x141)
    sl = int((l & ~7u) + 7 - (l & 7));
  else if (ctrl >= 0x150 && ctrl <= 0x15F)
    sl = int(row + (ctrl & 15));
  else
    sl = int(row + (r ^ (ctrl & 15)));  // row_xmask
  if (sl < 0) return bound ? 0 : old[l];
  return src[sl];
}

TEST_P(Isa, DppSwizzleAndPermlaneMatchTheIsaDescription) {
  struct Dpp {
    unsigned ctrl, row_mask, bank_mask;
    bool bound;
  };
  const Dpp dpps[] = {{0x1B, 15, 15, false},  {0x101, 15, 15, false}, {0x10F, 15, 15, false},
                      {0x113, 15, 15, false}, {0x111, 15, 15, true},  {0x125, 15, 15, false},
                      {0x140, 15, 15, false}, {0x141, 15, 15, false}, {0x157, 15, 15, false},
                      {0x169, 15, 15, false}, {0x102, 5, 10, false},  {0x112, 2, 3, true}};
  const uint32_t dpp8s[] = {1234567, 0xA4C3B5};
  const uint32_t swizzles[] = {0x801F, 0x801B, 0x041F, 0x0078, 0x7C1F, 0x0010};
  const uint32_t s1 = 0x9E3779B9, s2 = 0x7F4A7C15;
  std::string ir = std::string(kDecls) + R"(
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)
declare i32 @llvm.amdgcn.mov.dpp8.i32(i32, i32)
declare i32 @llvm.amdgcn.ds.swizzle(i32, i32)
declare i32 @llvm.amdgcn.permlane16(i32, i32, i32, i32, i1, i1)
declare i32 @llvm.amdgcn.permlanex16(i32, i32, i32, i32, i1, i1)
define amdgpu_kernel void @lanes(ptr addrspace(1) noalias %out, i32 %s1, i32 %s2) #0 {
entry:
  %t = call i32 @llvm.amdgcn.workitem.id.x()
  %x = mul i32 %t, 2654435761
  %o = xor i32 %t, 12345
  %idx = zext i32 %t to i64
)";
  unsigned k = 0;
  auto store = [&](const std::string& v) {
    ir += "  %p" + std::to_string(k) + " = getelementptr i32, ptr addrspace(1) %out, i64 " +
          std::to_string(k * 64) + "\n  %q" + std::to_string(k) + " = getelementptr i32, ptr " +
          "addrspace(1) %p" + std::to_string(k) + ", i64 %idx\n  store i32 " + v +
          ", ptr addrspace(1) %q" + std::to_string(k) + "\n";
    ++k;
  };
  for (const Dpp& d : dpps) {
    const std::string r = "%d" + std::to_string(k);
    ir += "  " + r + " = call i32 @llvm.amdgcn.update.dpp.i32(i32 %o, i32 %x, i32 " +
          std::to_string(d.ctrl) + ", i32 " + std::to_string(d.row_mask) + ", i32 " +
          std::to_string(d.bank_mask) + ", i1 " + (d.bound ? "true" : "false") + ")\n";
    store(r);
  }
  // A DPP move with an undefined old value and bound_ctrl feeding an add: LLVM's DPP combiner
  // folds it into v_add_nc_u32_dpp (a VOP2 DPP).
  ir +=
      "  %cmb = call i32 @llvm.amdgcn.update.dpp.i32(i32 poison, i32 %x, i32 273, i32 15, i32 "
      "15, i1 true)\n  %cmbadd = add i32 %cmb, %o\n";
  store("%cmbadd");
  for (uint32_t sel : dpp8s) {
    const std::string r = "%e" + std::to_string(k);
    ir += "  " + r + " = call i32 @llvm.amdgcn.mov.dpp8.i32(i32 %x, i32 " + std::to_string(sel) +
          ")\n";
    store(r);
  }
  for (uint32_t sw : swizzles) {
    const std::string r = "%s" + std::to_string(k);
    ir +=
        "  " + r + " = call i32 @llvm.amdgcn.ds.swizzle(i32 %x, i32 " + std::to_string(sw) + ")\n";
    store(r);
  }
  for (const char* pl : {"permlane16", "permlanex16"}) {
    const std::string r = "%l" + std::to_string(k);
    ir += "  " + r + " = call i32 @llvm.amdgcn." + pl +
          "(i32 %o, i32 %x, i32 %s1, i32 %s2, i1 false, i1 false)\n";
    store(r);
  }
  ir += "  ret void\n}\n";
  DeviceBuffer out = buffer(k * 64 * 4);
  launch(ir, "lanes", {out.va.raw(), s1, s2}, 1, 64);
  if (HasFatalFailure()) return;
  const auto* po = reinterpret_cast<const uint32_t*>(out.cpu);
  int failures = 0;
  for (unsigned wave = 0; wave < 2; ++wave) {
    uint32_t x[32], o[32];
    for (unsigned l = 0; l < 32; ++l) {
      const uint32_t t = wave * 32 + l;
      x[l] = t * 2654435761u, o[l] = t ^ 12345;
    }
    for (unsigned l = 0; l < 32 && failures < 20; ++l) {
      std::vector<uint32_t> want;
      for (const Dpp& d : dpps)
        want.push_back(dpp16_host(x, o, l, d.ctrl, d.row_mask, d.bank_mask, d.bound));
      const uint32_t zero[32] = {};
      want.push_back(dpp16_host(x, zero, l, 0x111, 15, 15, true) + o[l]);
      for (uint32_t sel : dpp8s) want.push_back(x[(l & ~7u) + ((sel >> (3 * (l & 7))) & 7)]);
      for (uint32_t sw : swizzles) {
        const unsigned sl = sw & 0x8000
                                ? (l & ~3u) + ((sw >> (2 * (l & 3))) & 3)
                                : (((l & (sw & 31)) | ((sw >> 5) & 31)) ^ ((sw >> 10) & 31));
        want.push_back(x[sl]);
      }
      const uint64_t sel = uint64_t{s1} | uint64_t{s2} << 32;
      want.push_back(x[(l & ~15u) + ((sel >> (4 * (l & 15))) & 15)]);
      want.push_back(x[((l & ~15u) ^ 16u) + ((sel >> (4 * (l & 15))) & 15)]);
      ASSERT_EQ(want.size(), k);
      for (unsigned j = 0; j < k; ++j) {
        const uint32_t got = po[j * 64 + wave * 32 + l];
        if (got != want[j]) {
          ++failures;
          ADD_FAILURE() << "op " << j << " wave " << wave << " lane " << l << ": " << hex(got)
                        << ", host " << hex(want[j]);
        }
      }
    }
  }
}

// ---------------------------------------------------------------- WMMA
// One wave builds its WMMA operands from row-major 16×16 matrices in memory following the
// documented register layouts (sim/rdna/README.md: gfx1100 per AMD GPUOpen's RDNA3 WMMA
// article, lanes 16–31 replicating lanes 0–15; gfx1201 per the RDNA4 ISA guide), calls
// llvm.amdgcn.wmma.{f32,f16,bf16}.16x16x16.{f16,bf16} and scatters D back. Small integer
// inputs make every product and sum exact, so D must equal the host matmul exactly.
TEST_P(Isa, WmmaMatchesHostMatmul) {
  const bool g12 = GetParam() == Target::kGfx1201;
  const unsigned nin = g12 ? 8 : 16;  // 16-bit A/B elements per lane
  const std::string hv = "<" + std::to_string(nin) + " x half>";
  const std::string iv = "<" + std::to_string(nin) + " x i16>";
  const std::string hs = g12 ? "v8f16" : "v16f16", is = g12 ? "v8i16" : "v16i16";
  // 16-bit accumulators: gfx1100 uses even elements of a 16-vector (OPSEL 0), gfx1201 8 packed.
  const unsigned nacc = g12 ? 8 : 16, astride = g12 ? 1 : 2;
  const std::string hacc = "<" + std::to_string(nacc) + " x half>";
  const std::string iacc = "<" + std::to_string(nacc) + " x i16>";
  std::string ir = R"(
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
attributes #1 = { "amdgpu-flat-work-group-size"="32,32" }
)";
  ir += "declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32." + hs + "(" + hv + ", " +
        hv + ", <8 x float>)\n";
  ir += "declare <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32." + is + "(" + iv + ", " +
        iv + ", <8 x float>)\n";
  ir += "declare " + hacc + " @llvm.amdgcn.wmma.f16.16x16x16.f16." + (g12 ? "v8f16" : "v16f16") +
        "." + hs + "(" + hv + ", " + hv + ", " + hacc + ", i1)\n";
  ir += "declare " + iacc + " @llvm.amdgcn.wmma.bf16.16x16x16.bf16." + (g12 ? "v8i16" : "v16i16") +
        "." + is + "(" + iv + ", " + iv + ", " + iacc + ", i1)\n";
  ir += R"(
define amdgpu_kernel void @wmma(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %pa,
                                ptr addrspace(1) noalias %pb, ptr addrspace(1) noalias %pc) #1 {
entry:
  %l = call i32 @llvm.amdgcn.workitem.id.x()
  %m = and i32 %l, 15
  %g = lshr i32 %l, 4
  %mrow = shl i32 %m, 4
)";
  unsigned tmp = 0;
  auto t = [&] { return "%t" + std::to_string(tmp++); };
  // Element index expressions: "<const> + <g term> + <lane term>".
  auto index = [&](unsigned c, const char* gmul, const char* lane_term) {
    std::string e = t();
    ir += "  " + e + " = add i32 " + lane_term + ", " + std::to_string(c) + "\n";
    if (gmul != nullptr) {
      const std::string gm = t(), r = t();
      ir +=
          "  " + gm + " = mul i32 %g, " + gmul + "\n  " + r + " = add i32 " + e + ", " + gm + "\n";
      e = r;
    }
    return e;
  };
  auto load_f = [&](const char* base, const std::string& idx) {
    const std::string p = t(), v = t();
    ir += "  " + p + " = getelementptr float, ptr addrspace(1) " + base + ", i32 " + idx + "\n  " +
          v + " = load float, ptr addrspace(1) " + p + "\n";
    return v;
  };
  // A and B fragments (as half and as bfloat bits).
  std::string ah = "poison", bh = "poison", ab = "poison", bb = "poison";
  for (unsigned i = 0; i < nin; ++i) {
    const unsigned k = g12 ? 8 * (i / 4) + i % 4 : i;
    const std::string ai = index(k, g12 ? "4" : nullptr, "%mrow");     // A[m][k]
    const std::string bi = index(16 * k, g12 ? "64" : nullptr, "%m");  // B[k][n], n = m
    const std::string af = load_f("%pa", ai), bf = load_f("%pb", bi);
    for (auto [f, hvec, bvec] : {std::tuple{af, &ah, &ab}, std::tuple{bf, &bh, &bb}}) {
      const std::string h = t(), b = t(), bi16 = t(), nh = t(), nb = t();
      ir += "  " + h + " = fptrunc float " + f + " to half\n  " + b + " = fptrunc float " + f +
            " to bfloat\n  " + bi16 + " = bitcast bfloat " + b + " to i16\n";
      ir += "  " + nh + " = insertelement " + hv + " " + *hvec + ", half " + h + ", i32 " +
            std::to_string(i) + "\n  " + nb + " = insertelement " + iv + " " + *bvec + ", i16 " +
            bi16 + ", i32 " + std::to_string(i) + "\n";
      *hvec = nh, *bvec = nb;
    }
  }
  // C / D positions: row = 2v + g (gfx1100) or 8g + v (gfx1201), column = l % 16.
  std::vector<std::string> cidx;
  for (unsigned v = 0; v < 8; ++v)
    cidx.push_back(g12 ? index(16 * v, "128", "%m") : index(32 * v, "16", "%m"));
  std::string c32 = "poison", c16 = "poison", cb16 = "zeroinitializer";
  c16 = "zeroinitializer";
  for (unsigned v = 0; v < 8; ++v) {
    const std::string cf = load_f("%pc", cidx[v]);
    const std::string n32 = t(), h = t(), n16 = t(), b = t(), bi = t(), nb = t();
    ir += "  " + n32 + " = insertelement <8 x float> " + c32 + ", float " + cf + ", i32 " +
          std::to_string(v) + "\n";
    ir += "  " + h + " = fptrunc float " + cf + " to half\n  " + n16 + " = insertelement " + hacc +
          " " + c16 + ", half " + h + ", i32 " + std::to_string(v * astride) + "\n";
    ir += "  " + b + " = fptrunc float " + cf + " to bfloat\n  " + bi + " = bitcast bfloat " + b +
          " to i16\n  " + nb + " = insertelement " + iacc + " " + cb16 + ", i16 " + bi + ", i32 " +
          std::to_string(v * astride) + "\n";
    c32 = n32, c16 = n16, cb16 = nb;
  }
  ir += "  %d0 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32." + hs + "(" + hv + " " +
        ah + ", " + hv + " " + bh + ", <8 x float> " + c32 + ")\n";
  ir += "  %d1 = call <8 x float> @llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32." + is + "(" + iv +
        " " + ab + ", " + iv + " " + bb + ", <8 x float> " + c32 + ")\n";
  ir += "  %d2 = call " + hacc + " @llvm.amdgcn.wmma.f16.16x16x16.f16." +
        (g12 ? "v8f16" : "v16f16") + "." + hs + "(" + hv + " " + ah + ", " + hv + " " + bh + ", " +
        hacc + " " + c16 + ", i1 false)\n";
  ir += "  %d3 = call " + iacc + " @llvm.amdgcn.wmma.bf16.16x16x16.bf16." +
        (g12 ? "v8i16" : "v16i16") + "." + is + "(" + iv + " " + ab + ", " + iv + " " + bb + ", " +
        iacc + " " + cb16 + ", i1 false)\n";
  for (unsigned v = 0; v < 8; ++v) {
    const std::string vs = std::to_string(v), es = std::to_string(v * astride);
    const std::string e0 = t(), e1 = t(), e2 = t(), e3 = t(), f2 = t(), b3 = t(), f3 = t();
    ir += "  " + e0 + " = extractelement <8 x float> %d0, i32 " + vs + "\n";
    ir += "  " + e1 + " = extractelement <8 x float> %d1, i32 " + vs + "\n";
    ir += "  " + e2 + " = extractelement " + hacc + " %d2, i32 " + es + "\n  " + f2 +
          " = fpext half " + e2 + " to float\n";
    ir += "  " + e3 + " = extractelement " + iacc + " %d3, i32 " + es + "\n  " + b3 +
          " = bitcast i16 " + e3 + " to bfloat\n  " + f3 + " = fpext bfloat " + b3 + " to float\n";
    const std::string* vals[4] = {&e0, &e1, &f2, &f3};
    for (unsigned j = 0; j < 4; ++j) {
      const std::string o = index(256 * j, nullptr, cidx[v].c_str()), p = t();
      ir += "  " + p + " = getelementptr float, ptr addrspace(1) %out, i32 " + o +
            "\n  store float " + *vals[j] + ", ptr addrspace(1) " + p + "\n";
    }
  }
  ir += "  ret void\n}\n";
  DeviceBuffer out = buffer(4 * 256 * 4), pa = buffer(256 * 4), pb = buffer(256 * 4),
               pc = buffer(256 * 4);
  auto* A = reinterpret_cast<float*>(pa.cpu);
  auto* B = reinterpret_cast<float*>(pb.cpu);
  auto* C = reinterpret_cast<float*>(pc.cpu);
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int>((seed >> 24) % 7) - 3);
  };
  for (int i = 0; i < 256; ++i) A[i] = rnd(), B[i] = rnd(), C[i] = rnd() * 5;
  launch(ir, "wmma", {out.va.raw(), pa.va.raw(), pb.va.raw(), pc.va.raw()}, 1, 32);
  if (HasFatalFailure()) return;
  const auto* D = reinterpret_cast<const float*>(out.cpu);
  const char* names[4] = {"f32_f16", "f32_bf16", "f16_f16", "bf16_bf16"};
  int failures = 0;
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      float want = C[m * 16 + n];
      for (int k = 0; k < 16; ++k) want += A[m * 16 + k] * B[k * 16 + n];
      for (int j = 0; j < 4 && failures < 20; ++j) {
        if (D[j * 256 + m * 16 + n] != want) {
          ++failures;
          ADD_FAILURE() << names[j] << " D[" << m << "][" << n << "] = " << D[j * 256 + m * 16 + n]
                        << ", host " << want;
        }
      }
    }
}

// ---------------------------------------------------------------- faults
// A kernel storing far past its buffer: the emulated store faults in the simulated MMU, which
// latches the GC VM L2 protection-fault registers (status and page address, read back over
// MMIO as a driver would), the compute queue stops, and the host wait on the completion signal
// returns kHardware naming the fault address, the kernel, the PC and the lane.
TEST_P(Isa, OutOfBoundsStoreIsAGpuFaultSeenByTheHostWait) {
  const std::string ir = std::string(kDecls) + R"(
define amdgpu_kernel void @oob(ptr addrspace(1) %out, i64 %far) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %idx = zext i32 %tid to i64
  %i = add i64 %idx, %far
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %i
  store i32 %tid, ptr addrspace(1) %p
  ret void
}
)";
  DeviceBuffer out = buffer(4096);
  const uint64_t far = 1ull << 32;  // 16 GiB past the buffer: nothing is mapped there
  queues::amd::ExecParams p;
  prepare(ir, "oob", {out.va.raw(), far}, 1, 64, p);
  if (HasFatalFailure()) return;
  queues::SignalPool pool(*gpu_);
  queues::Signal done = pool.alloc().value();
  ASSERT_TRUE(static_cast<bool>(queue_->exec(p)));
  queue_->signal(done, 1);
  ASSERT_TRUE(queue_->submit());
  const Status st = queues::wait_signal(*gpu_, done, 1, "oob kernel");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kHardware);
  const std::string msg = st.error().to_string();
  const uint64_t va = out.va.raw() + far * 4;  // lane 0's address
  EXPECT_NE(msg.find("VM fault at " + hex(va & ~uint64_t{0xFFF})), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel 'oob' PC 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("memory fault in lane 0 at address " + hex(va)), std::string::npos) << msg;
  const drivers::amd::FaultState f = gpu_->fault_state();
  EXPECT_TRUE(f.faulted);
  EXPECT_TRUE(f.queue_error);
  EXPECT_EQ(f.address.raw(), va & ~uint64_t{0xFFF});
  // The registers a driver reads (GC segment 0 offsets from the autogen headers; the simulated
  // device's own GC version picks the gfx11 or gfx12 layout).
  const bool g12 = gpu_->gc_version() >= 120000;
  const uint32_t seg0 = drivers::amd::kGc11Seg0Base;
  const uint32_t status_reg = seg0 + (g12 ? 0x15d0u : 0x15c8u);
  const uint32_t lo_reg = seg0 + (g12 ? 0x15d2u : 0x15c9u),
                 hi_reg = seg0 + (g12 ? 0x15d3u : 0x15cau);
  EXPECT_NE(gpu_->read_reg(status_reg) & (1u << 8), 0u) << "MAPPING_ERROR";
  EXPECT_NE(gpu_->read_reg(status_reg) & (1u << 18), 0u) << "RW (a write)";
  EXPECT_EQ(gpu_->read_reg(lo_reg) | uint64_t{gpu_->read_reg(hi_reg)} << 32, va >> 12);
  EXPECT_TRUE(gpu_->queue_status(0).stopped);
}

INSTANTIATE_TEST_SUITE_P(Targets, Isa, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
