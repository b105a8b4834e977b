// RDNA3/RDNA4 emulator: decoder tables against LLVM 19 (llvm-mc-19 assembles every table
// entry's text), and hand-written kernels (assembled at test time) run on the simulated GPU:
// launch state, SALU/VALU/memory semantics, barriers and LDS, strict waits, faults, budgets.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "rdna_tool.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::BufferPlacement;
using drivers::amd::DeviceBuffer;
using testing::assemble;
using testing::assemble_each;
using testing::have_tool;

#define ASSERT_OK(expr)                                                  \
  do {                                                                   \
    Status st_ = (expr);                                                 \
    ASSERT_TRUE(st_) << (st_ ? std::string() : st_.error().to_string()); \
  } while (0)

#define REQUIRE_MC() \
  if (!have_tool("llvm-mc-19")) GTEST_SKIP() << "SKIPPED: llvm-mc-19 not installed"

// ------------------------------------------------------------------------------- decoder

class DecoderTable : public ::testing::TestWithParam<Target> {};

TEST_P(DecoderTable, EveryEntryReassemblesAndDecodesToItself) {
  REQUIRE_MC();
  const Target t = GetParam();
  auto table = opcode_table(t);
  ASSERT_GT(table.size(), 1000u);
  // All samples in one llvm-mc run, one per line (the generator keeps only texts LLVM
  // assembles again, so every line must assemble).
  std::string text;
  for (const OpcodeInfo& e : table) text += std::string(e.sample) + "\n";
  std::string errors;
  auto insts = assemble_each(t, text, &errors);
  ASSERT_TRUE(insts.has_value()) << errors.substr(0, 4000);
  std::vector<const OpcodeInfo*> ok;
  for (const OpcodeInfo& e : table) ok.push_back(&e);
  // VOPD samples hold two entries each (X and Y) and assemble to one instruction.
  ASSERT_EQ(insts->size(), ok.size());
  size_t checked = 0;
  for (size_t i = 0; i < ok.size(); ++i) {
    const OpcodeInfo& e = *ok[i];
    const auto& bytes = (*insts)[i];
    std::vector<uint32_t> words((bytes.size() + 3) / 4);
    std::memcpy(words.data(), bytes.data(), bytes.size());
    auto d = decode(t, words);
    ASSERT_TRUE(static_cast<bool>(d)) << e.sample << ": " << d.error().to_string();
    EXPECT_EQ(d->size, bytes.size()) << e.sample;
    const OpcodeInfo* got = e.format == Format::kVOPDY ? d->info_y : d->info;
    ASSERT_NE(got, nullptr) << e.sample;
    EXPECT_EQ(std::string(got->mnemonic), e.mnemonic) << e.sample;
    EXPECT_EQ(got->opcode, e.opcode) << e.sample;
    // The decoded entry prints the same text as LLVM's disassembly of those bytes.
    EXPECT_EQ(std::string(got->sample), e.sample);
    ++checked;
  }
  EXPECT_EQ(checked, table.size());
  size_t implemented = 0;
  for (const OpcodeInfo& e : table) implemented += e.implemented;
  printf("%s: %zu table entries, %zu reassembled and decoded, %zu implemented\n", target_name(t),
         table.size(), checked, implemented);
}

TEST_P(DecoderTable, KnownEncodings) {
  const Target t = GetParam();
  if (t == Target::kGfx1100) {
    // Encodings from the reference notes (emulation.md §3.1), checked with llvm-mc-19.
    auto fma = decode(t, std::vector<uint32_t>{0xD6130005, 0x00160728});
    ASSERT_TRUE(static_cast<bool>(fma));
    EXPECT_STREQ(fma->info->mnemonic, "v_fma_f32");
    EXPECT_EQ(fma->size, 8);
    auto load = decode(t, std::vector<uint32_t>{0xDC520000, 0x287C0001});
    ASSERT_TRUE(static_cast<bool>(load));
    EXPECT_STREQ(load->info->mnemonic, "global_load_b32");
    auto inv = decode(t, std::vector<uint32_t>{0xE0AC0000, 0x00000000});
    ASSERT_TRUE(static_cast<bool>(inv));
    EXPECT_STREQ(inv->info->mnemonic, "buffer_gl0_inv");
    EXPECT_TRUE(inv->info->implemented);
    auto vopd = decode(t, std::vector<uint32_t>{0xC8E21703, 0x03020485});
    ASSERT_TRUE(static_cast<bool>(vopd));
    EXPECT_EQ(vopd->format, Format::kVOPDX);
    ASSERT_NE(vopd->info_y, nullptr);
  }
  // A literal makes the instruction 4 bytes longer; truncation is a typed error.
  auto mov = decode(t, std::vector<uint32_t>{0x7E0002FF, 0x3F800000});
  ASSERT_TRUE(static_cast<bool>(mov));
  EXPECT_TRUE(mov->has_literal);
  EXPECT_EQ(mov->literal, 0x3F800000u);
  EXPECT_EQ(mov->size, 8);
  auto cut = decode(t, std::vector<uint32_t>{0x7E0002FF});
  ASSERT_FALSE(static_cast<bool>(cut));
  EXPECT_EQ(cut.error().code(), Errc::kParse);
  auto none = decode(t, std::vector<uint32_t>{});
  EXPECT_FALSE(static_cast<bool>(none));
}

INSTANTIATE_TEST_SUITE_P(Targets, DecoderTable,
                         ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

// ------------------------------------------------------------------------------- execution

// RSRC2 fields (amd.md §10.2): USER_SGPR [5:1], TGID_X/Y/Z_EN 7..9, TIDIG_COMP_CNT [12:11].
constexpr uint32_t rsrc2(unsigned user_sgprs, bool tgid_x = true, unsigned tidig = 0,
                         bool tgid_y = false) {
  return (user_sgprs << 1) | (tgid_x ? 1u << 7 : 0) | (tgid_y ? 1u << 8 : 0) | (tidig << 11);
}
// RSRC1: 64 VGPRs (granule 8 → 7), float_mode 0xF0 (no denormal flushing), GFX11 DX10_CLAMP + IEEE.
constexpr uint32_t kRsrc1 = 7u | (0xF0u << 12) | (1u << 21) | (1u << 23);

class Exec : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    gpu_ = std::move(AmdGpu::create().value());
    emu_ = std::make_unique<Emulator>(*gpu_, GetParam());
    emu_->options().kernel_name = "test_kernel";
  }
  Target target() const { return GetParam(); }
  bool g12() const { return GetParam() == Target::kGfx1201; }
  DeviceBuffer buffer(uint64_t bytes) {
    DeviceBuffer b = gpu_->alloc(bytes, BufferPlacement::kHost).value();
    std::memset(b.cpu, 0, bytes);
    return b;
  }
  // Assembles and uploads `text` (target-specific spellings substituted by the caller).
  bool load(const std::string& text) {
    auto words = assemble(target(), text);
    if (!words) return false;
    code_ = buffer(words->size() * 4 + 256);
    std::memcpy(code_.cpu, words->data(), words->size() * 4);
    return true;
  }
  DispatchState state(std::vector<uint32_t> user, std::array<uint32_t, 3> grid,
                      std::array<uint32_t, 3> wg, uint32_t r2, uint32_t lds = 0) {
    DispatchState s;
    s.program = code_.va;
    s.rsrc1 = kRsrc1;
    s.rsrc2 = r2 | (((lds + 511) / 512) << 15);
    s.user_data = std::move(user);
    s.grid = grid;
    s.workgroup = wg;
    s.wave32 = true;
    s.lds_bytes = (lds + 511) / 512 * 512;
    return s;
  }
  static std::vector<uint32_t> ptr(GpuVa va) {
    return {static_cast<uint32_t>(va.raw()), static_cast<uint32_t>(va.raw() >> 32)};
  }
  // Kernel arguments: pointers packed as 64-bit words.
  DeviceBuffer kernargs(std::initializer_list<uint64_t> args) {
    DeviceBuffer b = buffer(256);
    size_t i = 0;
    for (uint64_t a : args) std::memcpy(b.cpu + 8 * i++, &a, 8);
    return b;
  }
  // Workgroup id X: s2 on gfx1100 (after the kernarg pointer), ttmp9 on gfx1201.
  std::string wgid() const { return g12() ? "ttmp9" : "s2"; }
  std::string wait_km() const { return g12() ? "s_wait_kmcnt 0x0" : "s_waitcnt lgkmcnt(0)"; }
  std::string wait_load() const { return g12() ? "s_wait_loadcnt 0x0" : "s_waitcnt vmcnt(0)"; }
  std::string wait_ds() const { return g12() ? "s_wait_dscnt 0x0" : "s_waitcnt lgkmcnt(0)"; }
  std::string barrier() const {
    return g12() ? "s_barrier_signal -1\ns_barrier_wait -1" : "s_barrier";
  }

  std::unique_ptr<AmdGpu> gpu_;
  std::unique_ptr<Emulator> emu_;
  DeviceBuffer code_;
};

#define LOAD_OR_SKIP(text)                                                             \
  do {                                                                                 \
    if (!have_tool("llvm-mc-19")) GTEST_SKIP() << "SKIPPED: llvm-mc-19 not installed"; \
    ASSERT_TRUE(load(text));                                                           \
  } while (0)

// out[i] = in[i] * 2 + 1 over 3 workgroups of 64: kernarg pointer, workgroup id, v0, SMEM,
// global load/store with an SGPR base, inline float constants.
std::string elementwise(const std::string& wg, const std::string& wait_km,
                        const std::string& wait_load) {
  return "s_load_b128 s[4:7], s[0:1], 0x0\n"
         "v_lshlrev_b32 v1, 2, v0\n"
         "s_lshl_b32 s3, " +
         wg + ", 8\n" + wait_km +
         "\n"
         "v_add_nc_u32 v1, s3, v1\n"
         "global_load_b32 v2, v1, s[4:5]\n" +
         wait_load +
         "\n"
         "v_fma_f32 v2, v2, 2.0, 1.0\n"
         "global_store_b32 v1, v2, s[6:7]\n"
         "s_endpgm\n";
}

TEST_P(Exec, ElementwiseKernel) {
  LOAD_OR_SKIP(elementwise(wgid(), wait_km(), wait_load()));
  DeviceBuffer in = buffer(192 * 4), out = buffer(192 * 4);
  auto* x = reinterpret_cast<float*>(in.cpu);
  for (int i = 0; i < 192; ++i) x[i] = static_cast<float>(i) - 50.5f;
  DeviceBuffer ka = kernargs({in.va.raw(), out.va.raw()});
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {3, 1, 1}, {64, 1, 1}, rsrc2(2))));
  auto* y = reinterpret_cast<float*>(out.cpu);
  for (int i = 0; i < 192; ++i) EXPECT_EQ(y[i], x[i] * 2 + 1) << i;
  EXPECT_EQ(emu_->stats().workgroups, 3u);
  EXPECT_EQ(emu_->stats().waves, 6u);
  EXPECT_EQ(emu_->stats().instructions, 6u * 10);
}

TEST_P(Exec, MissingVmWaitIsRejectedInStrictMode) {
  LOAD_OR_SKIP(elementwise(wgid(), wait_km(), "s_nop 0"));
  DeviceBuffer in = buffer(256), out = buffer(256);
  DeviceBuffer ka = kernargs({in.va.raw(), out.va.raw()});
  Status st = emu_->execute(state(ptr(ka.va), {1, 1, 1}, {64, 1, 1}, rsrc2(2)));
  ASSERT_FALSE(st);
  const std::string msg = st.error().to_string();
  EXPECT_NE(msg.find("strict wait"), std::string::npos) << msg;
  EXPECT_NE(msg.find("v_fma_f32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("global_load_b32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test_kernel"), std::string::npos) << msg;
  // Without strict mode the same kernel runs (loads complete at issue).
  emu_->options().strict_wait = false;
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {64, 1, 1}, rsrc2(2))));
}

TEST_P(Exec, MissingScalarWaitIsRejected) {
  LOAD_OR_SKIP(elementwise(wgid(), "s_nop 0", wait_load()));
  DeviceBuffer in = buffer(256), out = buffer(256);
  DeviceBuffer ka = kernargs({in.va.raw(), out.va.raw()});
  Status st = emu_->execute(state(ptr(ka.va), {1, 1, 1}, {64, 1, 1}, rsrc2(2)));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().to_string().find("s_load_b128"), std::string::npos)
      << st.error().to_string();
}

// LDS + barrier across two waves: each thread stores its id, then reads its mirror's.
TEST_P(Exec, BarrierOrdersLdsAcrossWaves) {
  const std::string body =
      "v_lshlrev_b32 v1, 2, v0\n"
      "ds_store_b32 v1, v0\n" +
      wait_ds() +
      "\nBARRIER\n"
      "v_sub_nc_u32 v2, 63, v0\n"
      "v_lshlrev_b32 v2, 2, v2\n"
      "ds_load_b32 v3, v2\n"
      "s_load_b64 s[4:5], s[0:1], 0x0\n" +
      wait_km() + "\n" + wait_ds() +
      "\n"
      "global_store_b32 v1, v3, s[4:5]\n"
      "s_endpgm\n";
  auto with = [&](const std::string& b) {
    std::string s = body;
    s.replace(s.find("BARRIER"), 7, b);
    return s;
  };
  LOAD_OR_SKIP(with(barrier()));
  DeviceBuffer out = buffer(64 * 4);
  DeviceBuffer ka = kernargs({out.va.raw()});
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {64, 1, 1}, rsrc2(2, false), 256)));
  auto* y = reinterpret_cast<uint32_t*>(out.cpu);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(y[i], 63 - i) << i;
  // Without the barrier wave 0 reads wave 1's half before wave 1 ran: zeros there.
  ASSERT_TRUE(load(with("s_nop 0")));
  std::memset(out.cpu, 0xFF, 256);
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {64, 1, 1}, rsrc2(2, false), 256)));
  EXPECT_EQ(y[0], 0u);
  EXPECT_EQ(y[63], 0u);
}

TEST_P(Exec, LdsOutOfRangeIsAnError) {
  LOAD_OR_SKIP("v_mov_b32 v1, 0x1000\nds_store_b32 v1, v0\ns_endpgm\n");
  Status st = emu_->execute(state({}, {1, 1, 1}, {32, 1, 1}, rsrc2(0, false), 512));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kOutOfRange);
  EXPECT_NE(st.error().to_string().find("LDS"), std::string::npos);
}

// Partial last wave, 2-D workgroup ids and packed work-item ids in v0.
TEST_P(Exec, LaunchStatePackedIdsAndPartialWave) {
  // out[flat] = v0 (packed id) where flat = tid.y * 8 + tid.x; out2[flat] = exec.
  const std::string text =
      "s_load_b64 s[4:5], s[0:1], 0x0\n"
      "v_and_b32 v1, 0x3ff, v0\n"
      "v_bfe_u32 v2, v0, 10, 10\n"
      "v_lshl_add_u32 v3, v2, 3, v1\n"
      "v_lshlrev_b32 v3, 2, v3\n" +
      wait_km() +
      "\n"
      "global_store_b32 v3, v0, s[4:5]\n"
      "v_mov_b32 v4, exec_lo\n"
      "global_store_b32 v3, v4, s[4:5] offset:1024\n"
      "s_endpgm\n";
  LOAD_OR_SKIP(text);
  DeviceBuffer out = buffer(4096);
  DeviceBuffer ka = kernargs({out.va.raw()});
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {8, 5, 1}, rsrc2(2, false, 1))));
  auto* y = reinterpret_cast<uint32_t*>(out.cpu);
  for (uint32_t ty = 0; ty < 5; ++ty)
    for (uint32_t tx = 0; tx < 8; ++tx) EXPECT_EQ(y[ty * 8 + tx], tx | ty << 10);
  EXPECT_EQ(y[256 + 0], 0xFFFFFFFFu);
  EXPECT_EQ(y[256 + 39], 0xFFu);  // the second wave holds 8 threads
  EXPECT_EQ(y[40], 0u);           // no thread 40
}

TEST_P(Exec, ScalarLoopAndCompareBranches) {
  // sum = Σ_{i<10} i*i via SALU, compares, conditional branches; VCC from v_cmp and cndmask.
  const std::string text =
      "s_load_b64 s[4:5], s[0:1], 0x0\n"
      "s_mov_b32 s6, 0\n"
      "s_mov_b32 s7, 0\n"
      "loop:\n"
      "s_mul_i32 s8, s7, s7\n"
      "s_add_u32 s6, s6, s8\n"
      "s_add_u32 s7, s7, 1\n"
      "s_cmp_lt_u32 s7, 10\n"
      "s_cbranch_scc1 loop\n"
      "v_mov_b32 v1, s6\n"
      "v_cmp_gt_u32 vcc_lo, 16, v0\n"
      "v_cndmask_b32 v2, 7, v1, vcc_lo\n"
      "v_lshlrev_b32 v3, 2, v0\n" +
      wait_km() +
      "\n"
      "global_store_b32 v3, v2, s[4:5]\n"
      "s_endpgm\n";
  LOAD_OR_SKIP(text);
  DeviceBuffer out = buffer(128);
  DeviceBuffer ka = kernargs({out.va.raw()});
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {32, 1, 1}, rsrc2(2, false))));
  auto* y = reinterpret_cast<uint32_t*>(out.cpu);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(y[i], i < 16 ? 285u : 7u) << i;
}

TEST_P(Exec, InlineConstantOneOverTwoPiIsNotAliased) {
  const std::string text =
      "s_load_b64 s[4:5], s[0:1], 0x0\n"
      "v_mov_b32 v1, 0.15915494\n"
      "v_add_f32 v2, 0.15915494, 0\n"
      "s_getreg_b32 s9, hwreg(HW_REG_MODE, 0, 32)\n"
      "v_mov_b32 v4, s9\n"
      "v_mov_b32 v3, 0\n" +
      wait_km() +
      "\n"
      "global_store_b32 v3, v1, s[4:5]\n"
      "global_store_b32 v3, v2, s[4:5] offset:4\n"
      "global_store_b32 v3, v4, s[4:5] offset:8\n"
      "s_endpgm\n";
  LOAD_OR_SKIP(text);
  DeviceBuffer out = buffer(64);
  DeviceBuffer ka = kernargs({out.va.raw()});
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {1, 1, 1}, rsrc2(2, false))));
  auto* y = reinterpret_cast<uint32_t*>(out.cpu);
  EXPECT_EQ(y[0], 0x3E22F983u);
  EXPECT_EQ(y[1], 0x3E22F983u);
  // MODE from RSRC1: denormals preserved (0xF0), DX10_CLAMP and IEEE on gfx1100.
  EXPECT_EQ(y[2] & 0xFF, 0xF0u);
  EXPECT_EQ((y[2] >> 8) & 3, g12() ? 0u : 3u);
}

TEST_P(Exec, MemoryFaultNamesLaneAndAddress) {
  LOAD_OR_SKIP(
      "s_mov_b32 s4, 0x12340000\ns_mov_b32 s5, 0x7f\nv_lshlrev_b32 v1, 2, v0\n"
      "global_store_b32 v1, v0, s[4:5]\ns_endpgm\n");
  Status st = emu_->execute(state({}, {1, 1, 1}, {32, 1, 1}, rsrc2(0, false)));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kHardware);
  const std::string msg = st.error().to_string();
  EXPECT_NE(msg.find("lane 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x7f12340000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("global_store_b32"), std::string::npos) << msg;
}

TEST_P(Exec, InstructionBudgetStopsAHang) {
  LOAD_OR_SKIP("loop:\ns_branch loop\n");
  emu_->options().max_instructions = 1000;
  Status st = emu_->execute(state({}, {1, 1, 1}, {32, 1, 1}, rsrc2(0, false)));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kTimeout);
  EXPECT_NE(st.error().to_string().find("budget"), std::string::npos);
}

TEST_P(Exec, UnimplementedOpcodeStopsWithMnemonicAndPc) {
  LOAD_OR_SKIP("s_nop 0\nv_sad_u8 v0, v1, v2, v3\ns_endpgm\n");
  Status st = emu_->execute(state({}, {1, 1, 1}, {32, 1, 1}, rsrc2(0, false)));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), Errc::kUnsupported);
  const std::string msg = st.error().to_string();
  EXPECT_NE(msg.find("v_sad_u8"), std::string::npos) << msg;
  EXPECT_NE(msg.find(hex(code_.va.raw() + 4)), std::string::npos) << msg;
  EXPECT_NE(msg.find("test_kernel"), std::string::npos) << msg;
}

TEST_P(Exec, IntegerAndCarryOps) {
  // 64-bit add through v_add_co_u32 / v_add_co_ci_u32, mul_hi, 24-bit multiply, shifts.
  const std::string text =
      "s_load_b64 s[4:5], s[0:1], 0x0\n"
      "v_mov_b32 v1, -1\n"
      "v_mov_b32 v2, 5\n"
      "v_add_co_u32 v3, vcc_lo, v1, v0\n"
      "v_add_co_ci_u32_e32 v4, vcc_lo, 0, v2, vcc_lo\n"
      "v_mul_hi_u32 v5, v1, v1\n"
      "v_mul_u32_u24 v6, 0x1000003, v0\n"
      "v_ashrrev_i32 v7, 1, v1\n"
      "v_lshlrev_b32 v8, 5, v0\n" +
      wait_km() +
      "\n"
      "global_store_b128 v8, v[3:6], s[4:5]\n"
      "global_store_b32 v8, v7, s[4:5] offset:16\n"
      "s_endpgm\n";
  LOAD_OR_SKIP(text);
  DeviceBuffer out = buffer(32 * 32);
  DeviceBuffer ka = kernargs({out.va.raw()});
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {32, 1, 1}, rsrc2(2, false))));
  auto* y = reinterpret_cast<uint32_t*>(out.cpu);
  for (uint32_t i = 0; i < 32; ++i) {
    const uint64_t sum = 0x5FFFFFFFFull + i;
    EXPECT_EQ(y[i * 8 + 0], static_cast<uint32_t>(sum)) << i;
    EXPECT_EQ(y[i * 8 + 1], static_cast<uint32_t>(sum >> 32)) << i;
    EXPECT_EQ(y[i * 8 + 2], 0xFFFFFFFEu);
    EXPECT_EQ(y[i * 8 + 3], 3u * i);
    EXPECT_EQ(y[i * 8 + 4], 0xFFFFFFFFu);
  }
}

// VOPD halves read before either writes; v_cmp writes VCC, the X half's cndmask reads it.
TEST_P(Exec, VopdCompareAndSelect) {
  const std::string text =
      "s_load_b64 s[4:5], s[0:1], 0x0\n"
      "s_mov_b32 s2, 7\n"
      "v_mov_b32 v2, v0\n"
      "v_mov_b32 v1, 0\n"
      "v_subrev_nc_u32 v4, s2, v2\n"
      "v_cmp_le_u32 vcc_lo, s2, v2\n"
      "v_dual_cndmask_b32 v2, v2, v4 :: v_dual_add_nc_u32 v3, 1, v1\n"
      "v_dual_cndmask_b32 v1, v1, v3 :: v_dual_lshlrev_b32 v0, 2, v0\n"
      "v_mad_u32_u24 v1, 0x3e8, v1, v2\n" +
      wait_km() +
      "\n"
      "global_store_b32 v0, v1, s[4:5]\n"
      "s_endpgm\n";
  LOAD_OR_SKIP(text);
  DeviceBuffer out = buffer(128);
  DeviceBuffer ka = kernargs({out.va.raw()});
  ASSERT_OK(emu_->execute(state(ptr(ka.va), {1, 1, 1}, {32, 1, 1}, rsrc2(2, false))));
  auto* y = reinterpret_cast<uint32_t*>(out.cpu);
  for (uint32_t i = 0; i < 14; ++i) EXPECT_EQ(y[i], i >= 7 ? 1000 + i - 7 : i) << i;
}

INSTANTIATE_TEST_SUITE_P(Targets, Exec, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
