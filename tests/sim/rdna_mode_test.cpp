// MODE denormal control and the GFX12 split barrier on the RDNA emulator (issue 9 items 2 and
// 4). LLVM IR kernels compiled with llc-19 for gfx1100 and gfx1201 with and without the
// "denormal-fp-math" attributes: the kernel descriptor's FLOAT_DENORM_MODE fields as parsed,
// and results bitwise against a host model that flushes denormal inputs and results only when
// the mode asks; LLVM's f32 division in a flushing function (s_denorm_mode toggles around the
// Newton steps); hand-written s_denorm_mode / s_setreg kernels; s_barrier_signal(_isfirst) /
// s_barrier_wait as separate phases. SKIPPED without llc-19 / ld.lld-19 / llvm-mc-19.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "rawgpu/base/format.h"
#include "rdna_e2e_fixture.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::BufferPlacement;
using drivers::amd::DeviceBuffer;
using testing::EndToEnd;

#define ASSERT_OK(expr)                                                  \
  do {                                                                   \
    Status st_ = (expr);                                                 \
    ASSERT_TRUE(st_) << (st_ ? std::string() : st_.error().to_string()); \
  } while (0)

// ---------------------------------------------------------------- host model
uint32_t ftz32(uint32_t x) { return (x & 0x7F800000u) == 0 ? x & 0x80000000u : x; }
uint64_t ftz64(uint64_t x) { return (x & 0x7FF0000000000000ull) == 0 ? x & (1ull << 63) : x; }
uint16_t ftz16(uint16_t x) { return (x & 0x7C00u) == 0 ? static_cast<uint16_t>(x & 0x8000u) : x; }
float F(uint32_t x) { return std::bit_cast<float>(x); }
uint32_t U(float x) { return std::bit_cast<uint32_t>(x); }
double D(uint64_t x) { return std::bit_cast<double>(x); }
uint64_t U(double x) { return std::bit_cast<uint64_t>(x); }
double H(uint16_t x) { return static_cast<double>(std::bit_cast<_Float16>(x)); }
uint16_t to_h(double v) { return std::bit_cast<uint16_t>(static_cast<_Float16>(v)); }

// The three attribute sets: LLVM's default (IEEE), f32 flushed only, everything flushed.
struct Variant {
  const char* name;
  const char* attrs;
  uint32_t mode32, mode16_64;  // expected FLOAT_DENORM_MODE_32 / _16_64
};
constexpr Variant kVariants[] = {
    {"ieee", "", 3, 3},
    {"f32-flush", "\"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\"", 0, 3},
    {"all-flush", "\"denormal-fp-math\"=\"preserve-sign,preserve-sign\"", 0, 0},
};

// A kernel over 256 elements (4 groups of 64): out[k * 256 + i] = op_k(a[i], b[i]).
std::string ops_kernel(const std::string& ty, const std::vector<std::string>& ops,
                       const char* attrs) {
  std::string ir = R"(
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare float @llvm.fma.f32(float, float, float)
declare double @llvm.fma.f64(double, double, double)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.ldexp.f32.i32(float, i32)
define amdgpu_kernel void @k(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %pa,
                             ptr addrspace(1) noalias %pb) #1 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ga = getelementptr inbounds T, ptr addrspace(1) %pa, i32 %i
  %gb = getelementptr inbounds T, ptr addrspace(1) %pb, i32 %i
  %a = load T, ptr addrspace(1) %ga
  %b = load T, ptr addrspace(1) %gb
)";
  for (size_t k = 0; k < ops.size(); ++k) {
    const std::string n = std::to_string(k);
    ir += "  %r" + n + " = " + ops[k] + "\n";
    ir += "  %o" + n + " = add i32 %i, " + std::to_string(256 * k) + "\n";
    ir += "  %g" + n + " = getelementptr inbounds T, ptr addrspace(1) %out, i32 %o" + n + "\n";
    ir += "  store T %r" + n + ", ptr addrspace(1) %g" + n + "\n";
  }
  ir += "  ret void\n}\nattributes #1 = { \"amdgpu-flat-work-group-size\"=\"64,64\" " +
        std::string(attrs) + " }\n";
  std::string out;
  for (char c : ir) {
    if (c == 'T')
      out += ty;
    else
      out += c;
  }
  return out;
}

class Denorm : public EndToEnd {
 protected:
  // Checks the descriptor's FLOAT_DENORM_MODE fields for the IR as compiled.
  void expect_modes(const std::string& ir, const Variant& v) {
    std::string log;
    auto bytes = testing::compile(GetParam(), ir, &log);
    ASSERT_TRUE(bytes.has_value()) << log;
    auto co = drivers::amd::parse_code_object(*bytes);
    ASSERT_TRUE(static_cast<bool>(co)) << co.error().to_string();
    const drivers::amd::CodeObjectKernel* k = co->find("k");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->descriptor.rsrc1.float_denorm_mode_32, v.mode32) << v.name;
    EXPECT_EQ(k->descriptor.rsrc1.float_denorm_mode_16_64, v.mode16_64) << v.name;
    EXPECT_EQ((k->descriptor.compute_pgm_rsrc1 >> 16) & 3, v.mode32) << v.name;
    EXPECT_EQ((k->descriptor.compute_pgm_rsrc1 >> 18) & 3, v.mode16_64) << v.name;
  }
  // Runs the kernel on a[], b[] (element size es) and returns the ops × 256 results.
  std::vector<uint8_t> run_ops(const std::string& ir, const void* a, const void* b, size_t es,
                               size_t nops) {
    DeviceBuffer pa = buffer(256 * es), pb = buffer(256 * es), out = buffer(256 * es * nops);
    std::memcpy(pa.cpu, a, 256 * es);
    std::memcpy(pb.cpu, b, 256 * es);
    launch(ir, "k", {out.va.raw(), pa.va.raw(), pb.va.raw()}, 4, 64);
    std::vector<uint8_t> r(256 * es * nops);
    std::memcpy(r.data(), out.cpu, r.size());
    return r;
  }
};

// 16 values per type (zeros, denormals of both signs, the smallest normals, values whose
// products or differences are denormal, inf, NaN); element i pairs value i % 16 with i / 16.
constexpr uint32_t kF32[16] = {0x00000000,
                               0x80000000,
                               0x00000001,
                               0x007FFFFF,
                               0x80400000,
                               0x00800000,
                               0x00800001,
                               0x80800000,
                               0x3F800000,
                               0xBFC00000,
                               0x1C800000 /* 2^-70 */,
                               0x21800000 /* 2^-60 */,
                               0x40400000,
                               0x00C00000,
                               0x7F800000,
                               0x7FC00000};
constexpr uint64_t kF64[16] = {0,
                               1ull << 63,
                               1,
                               0x000FFFFFFFFFFFFFull,
                               0x8008000000000000ull,
                               0x0010000000000000ull,
                               0x0010000000000001ull,
                               0x8010000000000000ull,
                               0x3FF0000000000000ull,
                               0xBFF8000000000000ull,
                               0x1A70000000000000ull /* 2^-600 */,
                               0x20B0000000000000ull /* 2^-500 */,
                               0x4008000000000000ull,
                               0x0018000000000000ull,
                               0x7FF0000000000000ull,
                               0x7FF8000000000000ull};
constexpr uint16_t kF16[16] = {0x0000,
                               0x8000,
                               0x0001,
                               0x03FF,
                               0x8200,
                               0x0400,
                               0x0401,
                               0x8400,
                               0x3C00,
                               0xBE00,
                               0x1400 /* 2^-10 */,
                               0x2000 /* 2^-7 */,
                               0x4200,
                               0x0600,
                               0x7C00,
                               0x7E00};

// f32 arithmetic, min/max, ldexp and the fdiv expansion: flushed exactly when the function
// asks for f32 preserve-sign, bitwise IEEE otherwise (f16/f64 flushing does not touch f32).
TEST_P(Denorm, F32FlushesOnlyWhenAsked) {
  const std::vector<std::string> ops = {
      "fadd float %a, %b",
      "fsub float %a, %b",
      "fmul float %a, %b",
      "call float @llvm.fma.f32(float %a, float %b, float %b)",
      "call float @llvm.maxnum.f32(float %a, float %b)",
      "call float @llvm.minnum.f32(float %a, float %b)",
      "fdiv float %a, %b",
      "call float @llvm.ldexp.f32.i32(float %a, i32 -3)",
  };
  uint32_t a[256], b[256];
  for (int i = 0; i < 256; ++i) a[i] = kF32[i % 16], b[i] = kF32[i / 16];
  for (const Variant& v : kVariants) {
    const std::string ir = ops_kernel("float", ops, v.attrs);
    expect_modes(ir, v);
    const std::vector<uint8_t> r = run_ops(ir, a, b, 4, ops.size());
    if (HasFatalFailure()) return;
    const bool fl = v.mode32 == 0;
    unsigned flushed = 0;
    for (size_t k = 0; k < ops.size(); ++k)
      for (int i = 0; i < 256; ++i) {
        const float x = F(fl ? ftz32(a[i]) : a[i]), y = F(fl ? ftz32(b[i]) : b[i]);
        float want;
        switch (k) {
          case 0: want = x + y; break;
          case 1: want = x - y; break;
          case 2: want = x * y; break;
          case 3: want = std::fma(x, y, y); break;
          case 4: want = std::fmax(x, y); break;
          case 5: want = std::fmin(x, y); break;
          case 6: want = x / y; break;
          default: want = std::ldexp(x, -3); break;
        }
        uint32_t w = U(want);
        if (fl && ftz32(w) != w) ++flushed, w = ftz32(w);
        uint32_t got;
        std::memcpy(&got, &r[(k * 256 + i) * 4], 4);
        if (std::isnan(F(w))) {
          EXPECT_TRUE(std::isnan(F(got))) << v.name << " op " << ops[k] << " i " << i;
          continue;
        }
        if ((k == 4 || k == 5) && F(w) == 0 && F(got) == 0) continue;  // ±0 ties by value
        EXPECT_EQ(got, w) << v.name << ": " << ops[k] << " (" << hex(a[i]) << ", " << hex(b[i])
                          << ")";
      }
    if (fl) {
      EXPECT_GT(flushed, 50u) << "the values must produce denormal results";
    }
  }
}

// f64 and f16 arithmetic: flushed only with "denormal-fp-math" (FLOAT_DENORM_MODE_16_64 = 0).
TEST_P(Denorm, F64AndF16FlushOnlyWhenAsked) {
  const std::vector<std::string> ops64 = {
      "fadd double %a, %b", "fsub double %a, %b", "fmul double %a, %b",
      "call double @llvm.fma.f64(double %a, double %b, double %b)"};
  const std::vector<std::string> ops16 = {"fadd half %a, %b", "fsub half %a, %b",
                                          "fmul half %a, %b"};
  uint64_t a64[256], b64[256];
  uint16_t a16[256], b16[256];
  for (int i = 0; i < 256; ++i) {
    a64[i] = kF64[i % 16], b64[i] = kF64[i / 16];
    a16[i] = kF16[i % 16], b16[i] = kF16[i / 16];
  }
  for (const Variant& v : kVariants) {
    const bool fl = v.mode16_64 == 0;
    {
      const std::string ir = ops_kernel("double", ops64, v.attrs);
      expect_modes(ir, v);
      const std::vector<uint8_t> r = run_ops(ir, a64, b64, 8, ops64.size());
      if (HasFatalFailure()) return;
      for (size_t k = 0; k < ops64.size(); ++k)
        for (int i = 0; i < 256; ++i) {
          const double x = D(fl ? ftz64(a64[i]) : a64[i]), y = D(fl ? ftz64(b64[i]) : b64[i]);
          const double want = k == 0 ? x + y : k == 1 ? x - y : k == 2 ? x * y : std::fma(x, y, y);
          const uint64_t w = fl ? ftz64(U(want)) : U(want);
          uint64_t got;
          std::memcpy(&got, &r[(k * 256 + i) * 8], 8);
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(D(got))) << v.name << " " << ops64[k] << " i " << i;
            continue;
          }
          EXPECT_EQ(got, w) << v.name << ": " << ops64[k] << " (" << hex(a64[i]) << ", "
                            << hex(b64[i]) << ")";
        }
    }
    {
      const std::string ir = ops_kernel("half", ops16, v.attrs);
      const std::vector<uint8_t> r = run_ops(ir, a16, b16, 2, ops16.size());
      if (HasFatalFailure()) return;
      for (size_t k = 0; k < ops16.size(); ++k)
        for (int i = 0; i < 256; ++i) {
          const double x = H(fl ? ftz16(a16[i]) : a16[i]), y = H(fl ? ftz16(b16[i]) : b16[i]);
          const double want = k == 0 ? x + y : k == 1 ? x - y : x * y;  // exact in double
          const uint16_t w = fl ? ftz16(to_h(want)) : to_h(want);
          uint16_t got;
          std::memcpy(&got, &r[(k * 256 + i) * 2], 2);
          if (std::isnan(want)) {
            EXPECT_TRUE((got & 0x7FFF) > 0x7C00) << v.name << " " << ops16[k] << " i " << i;
            continue;
          }
          EXPECT_EQ(got, w) << v.name << ": " << ops16[k] << " (" << hex(a16[i]) << ", "
                            << hex(b16[i]) << ")";
        }
    }
  }
}

// LLVM's f32 fdiv in a flushing function enables denormals (s_denorm_mode 15) for the Newton
// steps, whose residuals are often denormal for tiny operands, and restores the flushing mode
// (s_denorm_mode 12) for v_div_fmas/v_div_fixup. Quotients must be IEEE-correct where normal
// and ±0 where denormal; the same kernel without the attribute keeps denormal quotients.
TEST_P(Denorm, F32DivisionInFlushModeIsCorrectlyRounded) {
  const int n = 2048;
  std::mt19937 rng(12345);
  std::vector<uint32_t> a(n), b(n);
  auto val = [&](int lo, int hi) {
    const uint32_t m = rng() & 0x7FFFFF, s = rng() & 0x80000000u;
    const int e = lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
    return s | static_cast<uint32_t>(e + 127) << 23 | m;
  };
  for (int i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0: a[i] = val(-126, -100), b[i] = val(0, 26); break;  // denormal or tiny quotients
      case 1: a[i] = val(-120, -90), b[i] = val(-12, 12); break;
      case 2: a[i] = val(-30, 30), b[i] = val(100, 127); break;  // huge denominators
      default: a[i] = val(-126, 127), b[i] = val(-126, 127); break;
    }
  }
  const std::string src = R"(
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %pa,
                             ptr addrspace(1) noalias %pb) #1 {
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 6
  %i = add i32 %base, %tid
  %ga = getelementptr inbounds float, ptr addrspace(1) %pa, i32 %i
  %gb = getelementptr inbounds float, ptr addrspace(1) %pb, i32 %i
  %go = getelementptr inbounds float, ptr addrspace(1) %out, i32 %i
  %x = load float, ptr addrspace(1) %ga
  %y = load float, ptr addrspace(1) %gb
  %q = fdiv float %x, %y
  store float %q, ptr addrspace(1) %go
  ret void
}
attributes #1 = { "amdgpu-flat-work-group-size"="64,64" ATTRS }
)";
  for (const Variant& v : {kVariants[0], kVariants[1]}) {
    std::string ir = src;
    ir.replace(ir.find("ATTRS"), 5, v.attrs);
    DeviceBuffer pa = buffer(n * 4), pb = buffer(n * 4), out = buffer(n * 4);
    std::memcpy(pa.cpu, a.data(), n * 4);
    std::memcpy(pb.cpu, b.data(), n * 4);
    launch(ir, "k", {out.va.raw(), pa.va.raw(), pb.va.raw()}, n / 64, 64);
    if (HasFatalFailure()) return;
    const bool fl = v.mode32 == 0;
    unsigned zeroed = 0, tiny_normal = 0, denormal = 0;
    for (int i = 0; i < n; ++i) {
      const uint32_t q = U(F(a[i]) / F(b[i]));
      const uint32_t want = fl ? ftz32(q) : q;
      zeroed += want != q;
      denormal += (q & 0x7F800000u) == 0 && (q & 0x7FFFFFu);
      tiny_normal += (want & 0x7F800000u) != 0 && (want & 0x7F800000u) < (28u << 23);
      uint32_t got;
      std::memcpy(&got, out.cpu + 4 * i, 4);
      EXPECT_EQ(got, want) << v.name << ": " << hex(a[i]) << " / " << hex(b[i]);
    }
    EXPECT_GT(denormal, 100u);
    EXPECT_GT(tiny_normal, 100u);  // below 2^-99: Newton residuals below 2^-126
    if (fl) {
      EXPECT_EQ(zeroed, denormal);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Denorm, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

// ---------------------------------------------------------------- hand-written kernels
// RSRC1: 64 VGPRs, float_mode 0xF0 (IEEE denormals), GFX11 DX10_CLAMP + IEEE.
constexpr uint32_t kRsrc1 = 7u | (0xF0u << 12) | (1u << 21) | (1u << 23);

class Asm : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    if (!testing::have_tool("llvm-mc-19")) GTEST_SKIP() << "SKIPPED: llvm-mc-19 not installed";
    gpu_ = std::move(SimGpu::create(GetParam() == Target::kGfx1201 ? 120001u : 110000u).value());
    emu_ = std::make_unique<Emulator>(gpu_->hw(), GetParam());
    emu_->options().kernel_name = "mode_kernel";
  }
  DeviceBuffer buffer(uint64_t bytes) {
    DeviceBuffer b = gpu_->alloc(bytes, BufferPlacement::kHost).value();
    std::memset(b.cpu, 0, bytes);
    return b;
  }
  // Assembles `text` and runs one workgroup of `threads` with s[0:1] = out's address.
  Status run(const std::string& text, const DeviceBuffer& out, uint32_t threads, uint32_t lds = 0) {
    auto words = testing::assemble(GetParam(), text);
    if (!words) return make_error(Errc::kParse, "assembling failed");
    code_ = buffer(words->size() * 4 + 256);
    std::memcpy(code_.cpu, words->data(), words->size() * 4);
    DispatchState s;
    s.program = code_.va;
    s.rsrc1 = kRsrc1;
    s.rsrc2 = (2u << 1) | (((lds + 511) / 512) << 15);
    s.user_data = {static_cast<uint32_t>(out.va.raw()), static_cast<uint32_t>(out.va.raw() >> 32)};
    s.grid = {1, 1, 1};
    s.workgroup = {threads, 1, 1};
    s.wave32 = true;
    s.lds_bytes = (lds + 511) / 512 * 512;
    return emu_->execute(s);
  }

  std::unique_ptr<SimGpu> gpu_;
  std::unique_ptr<Emulator> emu_;
  DeviceBuffer code_;
};

// s_denorm_mode and s_setreg on HW_REG_MODE change what later VALU instructions flush; moves
// ignore the mode; s_getreg reads the fields back.
TEST_P(Asm, DenormModeAndSetregSelectFlushing) {
  const std::string text =
      "v_lshlrev_b32 v10, 2, v0\n"
      "v_mov_b32 v1, 0x400000\n"  // 2^-127 (f32 denormal)
      "v_mov_b32 v12, 0x200\n"    // 2^-15 (f16 denormal)
      "v_mul_f32 v2, v1, 2.0\n"   // IEEE: 2^-126
      "v_mul_f32 v3, v1, 0.5\n"   // IEEE: 2^-128
      "v_mul_f16 v13, v12, 2.0\n"
      "s_denorm_mode 0\n"  // flush inputs and outputs, all types
      "v_mul_f32 v4, v1, 2.0\n"
      "v_mov_b32 v5, v1\n"
      "v_mul_f16 v14, v12, 2.0\n"
      "s_denorm_mode 1\n"  // f32: inputs kept, outputs flushed; f16/f64 flushed
      "v_mul_f32 v6, v1, 2.0\n"
      "v_mul_f32 v7, v1, 0.5\n"
      "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 2\n"  // f32: inputs flushed, outputs kept
      "v_mul_f32 v8, v1, 2.0\n"
      "v_sub_f32 v9, 0x800001, v2\n"  // 2^-149
      "s_getreg_b32 s6, hwreg(HW_REG_MODE, 0, 8)\n"
      "v_mov_b32 v11, s6\n"
      "global_store_b32 v10, v2, s[0:1]\n"
      "global_store_b32 v10, v3, s[0:1] offset:128\n"
      "global_store_b32 v10, v4, s[0:1] offset:256\n"
      "global_store_b32 v10, v5, s[0:1] offset:384\n"
      "global_store_b32 v10, v6, s[0:1] offset:512\n"
      "global_store_b32 v10, v7, s[0:1] offset:640\n"
      "global_store_b32 v10, v8, s[0:1] offset:768\n"
      "global_store_b32 v10, v9, s[0:1] offset:896\n"
      "global_store_b32 v10, v11, s[0:1] offset:1024\n"
      "global_store_b32 v10, v13, s[0:1] offset:1152\n"
      "global_store_b32 v10, v14, s[0:1] offset:1280\n"
      "s_endpgm\n";
  DeviceBuffer out = buffer(4096);
  ASSERT_OK(run(text, out, 32));
  const uint32_t want[] = {0x00800000, 0x00200000, 0,
                           0x00400000, 0x00800000, 0,
                           0,          0x00000001, 0x20 /* f32 2, f16/f64 0 */,
                           0x0400,     0};
  const auto* o = reinterpret_cast<const uint32_t*>(out.cpu);
  for (unsigned k = 0; k < std::size(want); ++k)
    for (unsigned l = 0; l < 32; ++l) ASSERT_EQ(o[k * 32 + l], want[k]) << "value " << k;
}

// f16/f64 field on its own (f32 kept IEEE): results only (1) or inputs only (2) flushed; a
// high-half f16 result (op_sel) is flushed without touching the low half's denormal, packed
// f16 per half.
TEST_P(Asm, DenormModeF16HalvesAndPackedResults) {
  const std::string text =
      "v_lshlrev_b32 v10, 2, v0\n"
      "v_mov_b32 v12, 0x200\n"  // f16 2^-15 (denormal)
      "v_mov_b32 v17, 0x3c00\n"
      "v_mov_b32 v18, 0\n"
      "v_mov_b32 v15, 0x201\n"  // low half: a denormal the high-half writes must keep
      "v_mov_b32 v16, 0x201\n"
      "v_mov_b32 v19, 0x2003c00\n"  // packed (2^-15, 1.0)
      "v_mov_b32 v20, 0x3c003c00\n"
      "v_mov_b32 v26, 0x400\n"
      "v_mov_b32 v27, 0x401\n"
      "s_denorm_mode 7\n"  // f32 IEEE; f16/f64: inputs kept, results flushed
      "v_fma_f16 v15, v12, v17, v18 op_sel:[0,0,0,1]\n"
      "v_pk_mul_f16 v21, v19, v20\n"
      "v_mul_f32 v22, 0x400000, 1.0\n"
      "s_denorm_mode 0xb\n"  // f32 IEEE; f16/f64: inputs flushed, results kept
      "v_fma_f16 v16, v12, v17, v18 op_sel:[0,0,0,1]\n"
      "v_pk_mul_f16 v23, v19, v20\n"
      "v_sub_f16 v25, v27, v26\n"  // 2^-24
      "global_store_b32 v10, v15, s[0:1]\n"
      "global_store_b32 v10, v21, s[0:1] offset:128\n"
      "global_store_b32 v10, v22, s[0:1] offset:256\n"
      "global_store_b32 v10, v16, s[0:1] offset:384\n"
      "global_store_b32 v10, v23, s[0:1] offset:512\n"
      "global_store_b32 v10, v25, s[0:1] offset:640\n"
      "s_endpgm\n";
  DeviceBuffer out = buffer(4096);
  ASSERT_OK(run(text, out, 32));
  const uint32_t want[] = {0x00000201, 0x00003C00, 0x00400000, 0x00000201, 0x00003C00, 0x00000001};
  const auto* o = reinterpret_cast<const uint32_t*>(out.cpu);
  for (unsigned k = 0; k < std::size(want); ++k)
    for (unsigned l = 0; l < 32; ++l) ASSERT_EQ(o[k * 32 + l], want[k]) << "value " << k;
}

INSTANTIATE_TEST_SUITE_P(Targets, Asm, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

// GFX12's SALU float operations (LLVM selects them for uniform f32/f16 values) follow the
// denormal mode as their VALU forms do: sources, an fmac's accumulator and the result by the
// type's field; moves and compares are exempt.
class SaluAsm : public Asm {};

TEST_P(SaluAsm, SaluFloatOpsFollowTheDenormMode) {
  const std::string text =
      "v_lshlrev_b32 v10, 2, v0\n"
      "s_mov_b32 s4, 0x400000\n"    // f32 2^-127 (denormal)
      "s_mov_b32 s5, 0x200\n"       // f16 2^-15 (denormal)
      "s_mov_b32 s17, 0x2000000\n"  // the same f16 in the high half
      "s_mul_f32 s6, s4, 2.0\n"     // IEEE: 2^-126
      "s_mul_f32 s7, s4, 0.5\n"     // IEEE: 2^-128
      "s_denorm_mode 0\n"           // flush inputs and outputs, all types
      "s_mul_f32 s8, s4, 2.0\n"
      "s_mov_b32 s9, s4\n"
      "s_mul_f16 s10, s5, 2.0\n"
      "s_cmp_gt_f32 s4, 0\n"  // compares see the denormal
      "s_cselect_b32 s11, 1, 0\n"
      "s_denorm_mode 1\n"  // f32: inputs kept, results flushed
      "s_mul_f32 s12, s4, 2.0\n"
      "s_mul_f32 s13, s4, 0.5\n"
      "s_denorm_mode 2\n"  // f32: inputs flushed, results kept; f16/f64 flushed
      "s_mov_b32 s14, s4\n"
      "s_fmac_f32 s14, 0, 0\n"         // the denormal accumulator flushed
      "s_sub_f32 s15, 0x800001, s6\n"  // 2^-149 kept
      "s_cvt_f32_f16 s16, s5\n"
      "s_cvt_hi_f32_f16 s18, s17\n"
      "s_denorm_mode 15\n"
      "s_cvt_f32_f16 s19, s5\n"
      "s_cvt_hi_f32_f16 s20, s17\n"
      "s_fmaak_f32 s21, 1.0, 0, 0x400000\n"  // K = 2^-127 kept
      "s_denorm_mode 14\n"                   // f32 inputs flushed
      "s_fmaak_f32 s22, 1.0, 0, 0x400000\n"  // K flushed
      "v_mov_b32 v1, s6\n"
      "v_mov_b32 v2, s7\n"
      "v_mov_b32 v3, s8\n"
      "v_mov_b32 v4, s9\n"
      "v_mov_b32 v5, s10\n"
      "v_mov_b32 v6, s11\n"
      "v_mov_b32 v7, s12\n"
      "v_mov_b32 v8, s13\n"
      "v_mov_b32 v9, s14\n"
      "v_mov_b32 v11, s15\n"
      "v_mov_b32 v12, s16\n"
      "v_mov_b32 v13, s18\n"
      "v_mov_b32 v14, s19\n"
      "v_mov_b32 v15, s20\n"
      "v_mov_b32 v16, s21\n"
      "v_mov_b32 v17, s22\n"
      "global_store_b32 v10, v1, s[0:1]\n"
      "global_store_b32 v10, v2, s[0:1] offset:128\n"
      "global_store_b32 v10, v3, s[0:1] offset:256\n"
      "global_store_b32 v10, v4, s[0:1] offset:384\n"
      "global_store_b32 v10, v5, s[0:1] offset:512\n"
      "global_store_b32 v10, v6, s[0:1] offset:640\n"
      "global_store_b32 v10, v7, s[0:1] offset:768\n"
      "global_store_b32 v10, v8, s[0:1] offset:896\n"
      "global_store_b32 v10, v9, s[0:1] offset:1024\n"
      "global_store_b32 v10, v11, s[0:1] offset:1152\n"
      "global_store_b32 v10, v12, s[0:1] offset:1280\n"
      "global_store_b32 v10, v13, s[0:1] offset:1408\n"
      "global_store_b32 v10, v14, s[0:1] offset:1536\n"
      "global_store_b32 v10, v15, s[0:1] offset:1664\n"
      "global_store_b32 v10, v16, s[0:1] offset:1792\n"
      "global_store_b32 v10, v17, s[0:1] offset:1920\n"
      "s_endpgm\n";
  DeviceBuffer out = buffer(4096);
  ASSERT_OK(run(text, out, 32));
  const uint32_t want[] = {0x00800000, 0x00200000, 0,          0x00400000, 0, 1,
                           0x00800000, 0,          0,          0x00000001, 0, 0,
                           0x38000000, 0x38000000, 0x00400000, 0};
  const auto* o = reinterpret_cast<const uint32_t*>(out.cpu);
  for (unsigned k = 0; k < std::size(want); ++k)
    for (unsigned l = 0; l < 32; ++l) ASSERT_EQ(o[k * 32 + l], want[k]) << "value " << k;
}

// The GFX12 split barrier (s_barrier_signal / s_barrier_wait; gfx1100 has only s_barrier).
class SplitBarrier : public Asm {};

// Split barrier: each wave stores to LDS, signals, does independent work (a store to a second
// LDS array and a global store), waits, then reads another wave's values from both arrays.
TEST_P(SplitBarrier, Phases) {
  const std::string text =
      "v_lshlrev_b32 v10, 2, v0\n"
      "ds_store_b32 v10, v0\n"  // lds[t] = t
      "s_wait_dscnt 0x0\n"
      "s_barrier_signal -1\n"
      "v_add_nc_u32 v1, 1000, v0\n"
      "ds_store_b32 v10, v1 offset:512\n"  // after the signal: lds[128 + t] = t + 1000
      "global_store_b32 v10, v1, s[0:1] offset:1024\n"
      "s_wait_dscnt 0x0\n"
      "s_barrier_wait -1\n"
      "s_barrier_signal -1\n"  // phase 2 orders the post-signal stores
      "s_barrier_wait -1\n"
      "v_sub_nc_u32 v2, 127, v0\n"
      "v_lshlrev_b32 v2, 2, v2\n"
      "ds_load_b32 v3, v2\n"
      "ds_load_b32 v4, v2 offset:512\n"
      "s_wait_dscnt 0x0\n"
      "global_store_b32 v10, v3, s[0:1]\n"
      "global_store_b32 v10, v4, s[0:1] offset:512\n"
      "s_endpgm\n";
  for (unsigned threads : {128u, 100u}) {  // 4 waves; a partial last wave
    DeviceBuffer out = buffer(4096);
    ASSERT_OK(run(text, out, threads, 1024));
    const auto* o = reinterpret_cast<const uint32_t*>(out.cpu);
    for (unsigned t = 0; t < threads; ++t) {
      const unsigned m = 127 - t;  // an unlaunched thread's slots stay 0
      EXPECT_EQ(o[t], m < threads ? m : 0u) << t;
      EXPECT_EQ(o[128 + t], m < threads ? m + 1000 : 0u) << t;
      EXPECT_EQ(o[256 + t], t + 1000) << t;
    }
  }
}

// s_barrier_signal_isfirst: SCC = 1 in exactly one wave per phase; a wave that ends without
// waiting (wave 1 leaves after its signal) does not hold back the others' release.
TEST_P(SplitBarrier, IsFirstAndEndedWaves) {
  const std::string text =
      "v_lshlrev_b32 v10, 2, v0\n"
      "s_barrier_signal_isfirst -1\n"
      "s_cselect_b32 s6, 1, 0\n"
      "v_cmp_lt_u32 s8, 63, v0\n"  // s8 != 0 in waves 2 and 3
      "s_barrier_wait -1\n"
      "s_barrier_signal_isfirst -1\n"
      "s_cselect_b32 s7, 1, 0\n"
      "s_cmp_eq_u32 s8, 0\n"  // waves 0 and 1 end here, wave 1 without waiting
      "s_cbranch_scc1 end\n"
      "s_barrier_wait -1\n"
      "s_barrier_signal -1\n"  // phase 3: only waves 2 and 3 are live
      "s_barrier_wait -1\n"
      "end:\n"
      "v_mov_b32 v1, s6\n"
      "v_mov_b32 v2, s7\n"
      "global_store_b32 v10, v1, s[0:1]\n"
      "global_store_b32 v10, v2, s[0:1] offset:512\n"
      "s_endpgm\n";
  DeviceBuffer out = buffer(4096);
  ASSERT_OK(run(text, out, 128));
  const auto* o = reinterpret_cast<const uint32_t*>(out.cpu);
  for (unsigned phase = 0; phase < 2; ++phase) {
    unsigned firsts = 0;
    for (unsigned w = 0; w < 4; ++w) {
      for (unsigned l = 1; l < 32; ++l)
        ASSERT_EQ(o[phase * 128 + w * 32 + l], o[phase * 128 + w * 32]) << "uniform per wave";
      firsts += o[phase * 128 + w * 32];
    }
    EXPECT_EQ(firsts, 1u) << "phase " << phase;
  }
}

// "First" belongs to the phase: a wave that signaled first and then ended without waiting still
// took it, so no later wave of that phase is told it is first (each wave here runs to its end
// before the next starts, since a signal does not block).
TEST_P(SplitBarrier, IsFirstStaysTakenAfterTheFirstWaveEnded) {
  const std::string text =
      "v_lshlrev_b32 v10, 2, v0\n"
      "s_barrier_signal_isfirst -1\n"
      "s_cselect_b32 s6, 1, 0\n"
      "v_mov_b32 v1, s6\n"
      "global_store_b32 v10, v1, s[0:1]\n"
      "s_endpgm\n";
  DeviceBuffer out = buffer(1024);
  ASSERT_OK(run(text, out, 128));
  const auto* o = reinterpret_cast<const uint32_t*>(out.cpu);
  unsigned firsts = 0;
  for (unsigned w = 0; w < 4; ++w) firsts += o[w * 32];
  EXPECT_EQ(firsts, 1u);
  EXPECT_EQ(o[0], 1u) << "wave 0 signals first";
}

// A wave that waits without having signaled in the phase can never be released: a typed error
// naming the kernel and the instruction; so is a second signal before the phase completed.
TEST_P(SplitBarrier, MisuseIsAnError) {
  DeviceBuffer out = buffer(256);
  for (const char* text : {"s_barrier_wait -1\ns_endpgm\n",
                           "s_barrier_signal -1\ns_barrier_wait -1\ns_barrier_wait -1\ns_endpgm\n",
                           "s_barrier_signal -1\ns_barrier_signal -1\ns_endpgm\n"}) {
    Status st = run(text, out, 64);
    ASSERT_FALSE(st) << text;
    const std::string msg = st.error().to_string();
    EXPECT_EQ(st.error().code(), Errc::kHardware) << msg;
    EXPECT_NE(msg.find("mode_kernel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("s_barrier_"), std::string::npos) << msg;
    EXPECT_NE(msg.find("phase"), std::string::npos) << msg;
  }
}

// LLVM's split-barrier intrinsics: a 256-thread LDS reduction where every thread stores x²,
// signals, runs an independent loop and a global store before its wait (llc-19 keeps them
// between s_barrier_signal and s_barrier_wait), then thread 0 sums the LDS in order.
class SplitBarrierE2E : public EndToEnd {};

TEST_P(SplitBarrierE2E, LdsReductionAcrossSignalAndWait) {
  const std::string ir = R"(
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier.signal(i32)
declare void @llvm.amdgcn.s.barrier.wait(i16)
declare float @llvm.fma.f32(float, float, float)
@lds = internal addrspace(3) global [256 x float] undef, align 4
define amdgpu_kernel void @k(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %x,
                             ptr addrspace(1) noalias %y) #1 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %wg = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = shl i32 %wg, 8
  %i = add i32 %base, %tid
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i32 %i
  %v = load float, ptr addrspace(1) %px
  %sq = fmul float %v, %v
  %pl = getelementptr inbounds [256 x float], ptr addrspace(3) @lds, i32 0, i32 %tid
  store float %sq, ptr addrspace(3) %pl
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier.signal(i32 -1)
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi float [ %v, %entry ], [ %acc1, %loop ]
  %acc1 = call float @llvm.fma.f32(float %acc, float 0.5, float 1.0)
  %k1 = add i32 %k, 1
  %c = icmp ult i32 %k1, 16
  br i1 %c, label %loop, label %after
after:
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i32 %i
  store float %acc1, ptr addrspace(1) %py
  call void @llvm.amdgcn.s.barrier.wait(i16 -1)
  fence syncscope("workgroup") acquire
  %z = icmp eq i32 %tid, 0
  br i1 %z, label %sum, label %end
sum:
  %j = phi i32 [ 0, %after ], [ %j1, %sum ]
  %s = phi float [ 0.0, %after ], [ %s1, %sum ]
  %pj = getelementptr inbounds [256 x float], ptr addrspace(3) @lds, i32 0, i32 %j
  %lv = load float, ptr addrspace(3) %pj
  %s1 = fadd float %s, %lv
  %j1 = add i32 %j, 1
  %cj = icmp ult i32 %j1, 256
  br i1 %cj, label %sum, label %store
store:
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i32 %wg
  store float %s1, ptr addrspace(1) %po
  br label %end
end:
  ret void
}
attributes #1 = { "amdgpu-flat-work-group-size"="256,256" }
)";
  const int groups = 3, n = 256 * groups;
  DeviceBuffer out = buffer(64), x = buffer(n * 4), y = buffer(n * 4);
  auto* px = reinterpret_cast<float*>(x.cpu);
  for (int i = 0; i < n; ++i) px[i] = 0.25f * static_cast<float>(i % 97) - 7.0f;
  launch(ir, "k", {out.va.raw(), x.va.raw(), y.va.raw()}, groups, 256);
  if (HasFatalFailure()) return;
  const auto* po = reinterpret_cast<const float*>(out.cpu);
  const auto* py = reinterpret_cast<const float*>(y.cpu);
  for (int g = 0; g < groups; ++g) {
    float s = 0;
    for (int t = 0; t < 256; ++t) s += px[g * 256 + t] * px[g * 256 + t];
    EXPECT_EQ(po[g], s) << g;
  }
  for (int i = 0; i < n; ++i) {
    float acc = px[i];
    for (int k = 0; k < 16; ++k) acc = std::fma(acc, 0.5f, 1.0f);
    EXPECT_EQ(py[i], acc) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, SaluAsm, ::testing::Values(Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });
INSTANTIATE_TEST_SUITE_P(Targets, SplitBarrier, ::testing::Values(Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });
INSTANTIATE_TEST_SUITE_P(Targets, SplitBarrierE2E, ::testing::Values(Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
