// Cubin loading for real NVIDIA GPUs (queues/nv_compute NvProgram::load_cubin, nv.md 3.10) with
// ptxas's own output: the code placed where the QMD points, the launch facts (parameter base and
// size, registers, shared memory, stack) taken from .nv.info, relocations patched against the
// final addresses, constant banks bound, and the local-memory store sized from the stack. The
// simulated GPU executes PTX images, not SASS, so the launch of a cubin there ends in a decoded
// channel error; what the QMD says is checked field by field. SKIPPED without ptxas.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "../drivers/synth_elf.h"
#include "nv_rig.h"
#include "rawgpu/autogen/nv/qmd.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/drivers/nv/cubin.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/sim/nv_rm.h"

namespace rawgpu {
namespace {

namespace q3 = autogen::nv::qmd::v03;

using Rig = testing::NvRig;
Rig rig(sim::NvArch arch) { return testing::nv_rig(arch); }

// ptxas on a PTX text; empty when ptxas is absent (the caller skips) or fails (the test fails).
std::vector<uint8_t> assemble(const std::string& ptx, const std::string& arch) {
  const std::string ptxas = compiler::find_ptxas();
  if (ptxas.empty()) return {};
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() /
      ("rawgpu_cubin_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "_" + arch + "_" + std::to_string(std::hash<std::string>{}(ptx)));
  fs::create_directories(dir);
  std::ofstream(dir / "k.ptx") << ptx;
  const std::string cmd = ptxas + " -arch=" + arch + " -o " + (dir / "k.cubin").string() + " " +
                          (dir / "k.ptx").string() + " 2>" + (dir / "err.txt").string();
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream err(dir / "err.txt");
    ADD_FAILURE() << "ptxas failed: " << std::string(std::istreambuf_iterator<char>(err), {});
    return {};
  }
  std::ifstream in(dir / "k.cubin", std::ios::binary);
  std::vector<uint8_t> out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return out;
}

const char* target_of(sim::NvArch a) { return a == sim::NvArch::kAmpere ? "sm_86" : "sm_90"; }

class NvCubinExample : public ::testing::TestWithParam<sim::NvArch> {};

TEST_P(NvCubinExample, PtxasOutputIsPlacedAndTheQmdDescribesIt) {
  if (compiler::find_ptxas().empty()) GTEST_SKIP() << "SKIPPED: ptxas is not installed";
  const sim::NvArch arch = GetParam();
  Rig r = rig(arch);
  nv::RmGpu& gpu = *r.gpu;
  compiler::Context ctx;
  auto ex = compiler::gpu_example(ctx, "reduce_row");
  ASSERT_TRUE(ex.ok());
  auto target = compiler::gpu_target(gpu.gr().sm.target);
  ASSERT_TRUE(target.ok());
  compiler::GpuOptions opts = ex->options;
  opts.assemble = true;
  auto spec = compiler::compile_gpu(ex->sink, "reduce_row", *target, opts);
  ASSERT_TRUE(spec.ok()) << spec.error().to_string();
  ASSERT_EQ(spec->binary_kind, "cubin") << spec->binary_note;
  auto cb = drivers::nv::parse_cubin(spec->binary);
  ASSERT_TRUE(cb.ok()) << cb.error().to_string();
  const drivers::nv::CubinKernel* ck = cb->find("reduce_row");
  ASSERT_NE(ck, nullptr);

  auto prog = queues::NvProgram::load_cubin(gpu, spec->binary, "reduce_row");
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  const queues::NvKernelInfo& info = prog->info();
  EXPECT_EQ(info.param_base, arch == sim::NvArch::kHopper ? 0x210u : 0x160u);
  EXPECT_EQ(info.param_bytes, 8 * spec->program.buffers.size());
  EXPECT_GT(info.registers, 0u);
  EXPECT_EQ(info.registers, ck->registers);
  EXPECT_GE(info.bank0_bytes, info.param_base + info.param_bytes);
  // reduce_row keeps its partial sums in shared memory: what the kernel declares, with the
  // sm_90 cubin's built-in 1 KiB reserve taken out.
  EXPECT_EQ(info.shared_bytes,
            arch == sim::NvArch::kHopper ? ck->shared_bytes - 0x400 : ck->shared_bytes);
  EXPECT_EQ(prog->va() % 128, 0u);
  EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(prog->va()),
                        spec->binary.data() + ck->code_offset, ck->code_size),
            0);

  std::vector<uint8_t> params(info.param_bytes, 0);
  queues::NvLaunch l;
  l.block = {32, 1, 1};
  l.params = params;
  ASSERT_TRUE(r.compute->launch(*prog, l, r.signal(), 1).ok());
  std::span<const uint32_t> q = r.compute->last_qmd();
  EXPECT_EQ((get_bits(q, q3::PROGRAM_ADDRESS_UPPER.at()) << 32) |
                get_bits(q, q3::PROGRAM_ADDRESS_LOWER.at()),
            prog->va());
  EXPECT_EQ(get_bits(q, q3::REGISTER_COUNT_V.at()), ck->registers);
  EXPECT_EQ(get_bits(q, q3::CONSTANT_BUFFER_SIZE_SHIFTED4.at(0)), (info.bank0_bytes + 15) / 16);
  EXPECT_EQ(get_bits(q, q3::SHARED_MEMORY_SIZE.at()),
            (0x400u + info.shared_bytes + 127) / 128 * 128);
  // The simulated GPU executes PTX images: SASS is refused with a decoded channel error.
  auto w = queues::nv_wait_value(gpu, r.sig(), 1, "cubin kernel");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code(), Errc::kHardware);
  ASSERT_EQ(r.k->channel_errors().size(), 1u);
  EXPECT_NE(r.k->channel_errors()[0].find("not SASS"), std::string::npos)
      << r.k->channel_errors()[0];
  prog->release(gpu);
}

INSTANTIATE_TEST_SUITE_P(Archs, NvCubinExample,
                         ::testing::Values(sim::NvArch::kAmpere, sim::NvArch::kHopper),
                         [](const auto& info) { return std::string(target_of(info.param)); });

// A kernel that takes the address of an initialised global table and keeps a local array it
// indexes dynamically (so ptxas gives it a stack frame).
std::string reloc_ptx(const char* target) {
  return std::string(".version 7.8\n.target ") + target + R"(
.address_size 64
.global .align 4 .u32 table[4] = {11, 22, 33, 44};
.visible .entry k(.param .u64 out, .param .u32 idx)
{
	.local .align 4 .b8 buf[256];
	.reg .b32 %r<8>;
	.reg .b64 %rd<10>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [idx];
	mov.u64 %rd2, table;
	mov.u32 %r2, %tid.x;
	and.b32 %r3, %r1, 3;
	mul.wide.u32 %rd3, %r3, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r4, [%rd4];
	mov.u64 %rd5, buf;
	and.b32 %r5, %r2, 63;
	mul.wide.u32 %rd6, %r5, 4;
	add.s64 %rd7, %rd5, %rd6;
	st.local.u32 [%rd7], %r4;
	and.b32 %r6, %r1, 63;
	mul.wide.u32 %rd8, %r6, 4;
	add.s64 %rd9, %rd5, %rd8;
	ld.local.u32 %r7, [%rd9];
	st.global.u32 [%rd1], %r7;
	ret;
}
)";
}

TEST(NvCubin, RelocationsAreAppliedAgainstTheLoadedImageAndLocalMemoryIsSized) {
  if (compiler::find_ptxas().empty()) GTEST_SKIP() << "SKIPPED: ptxas is not installed";
  Rig r = rig(sim::NvArch::kHopper);
  nv::RmGpu& gpu = *r.gpu;
  const std::vector<uint8_t> bin = assemble(reloc_ptx("sm_90"), "sm_90");
  ASSERT_FALSE(bin.empty());
  auto cb = drivers::nv::parse_cubin(bin);
  ASSERT_TRUE(cb.ok()) << cb.error().to_string();
  ASSERT_FALSE(cb->relocations.empty()) << "ptxas emitted no relocation for &table";
  auto prog = queues::NvProgram::load_cubin(gpu, bin, "k");
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  const uint64_t base = prog->va() - cb->find("k")->code_offset;  // the file image's address
  bool saw_table = false;
  for (const drivers::nv::Relocation& rel : cb->relocations) {
    ASSERT_TRUE(rel.symbol_in_file) << rel.symbol;
    const uint64_t want = base + rel.symbol_file_offset + static_cast<uint64_t>(rel.addend);
    const auto* at = reinterpret_cast<const uint8_t*>(base + rel.file_offset);
    if (rel.type == 2) {
      uint64_t got;
      std::memcpy(&got, at, 8);
      EXPECT_EQ(got, want) << rel.symbol;
    } else {
      uint32_t got;
      std::memcpy(&got, at + 4, 4);
      EXPECT_EQ(got,
                rel.type == 0x38 ? static_cast<uint32_t>(want) : static_cast<uint32_t>(want >> 32))
          << rel.symbol;
    }
    if (rel.symbol == "table") {
      saw_table = true;
      uint32_t first;
      std::memcpy(&first, reinterpret_cast<const void*>(want), 4);
      EXPECT_EQ(first, 11u);  // the relocated address holds the initialised table
    }
  }
  EXPECT_TRUE(saw_table);
  // Every bank other than 0 is bound at a 256-byte aligned copy of its (relocated) contents.
  for (const queues::NvConstantBank& b : prog->info().banks) {
    EXPECT_EQ(b.va % 256, 0u);
    EXPECT_NE(b.bank, 0u);
  }

  // The stack: the QMD's per-thread local size and the store behind it.
  ASSERT_GT(prog->info().local_bytes, 0u);
  std::vector<uint8_t> params(prog->info().param_bytes, 0);
  queues::NvLaunch l;
  l.params = params;
  ASSERT_TRUE(r.compute->launch(*prog, l, r.signal(), 1).ok());
  const uint32_t slm = (prog->info().local_bytes + 0x240 + 31) / 32 * 32;
  EXPECT_EQ(r.compute->local_per_thread(), slm);
  EXPECT_EQ(get_bits(r.compute->last_qmd(), q3::SHADER_LOCAL_MEMORY_HIGH_SIZE.at()), slm);
  const nv::NvGrInfo& gr = gpu.gr();
  const uint64_t per_tpc =
      ((uint64_t{slm} * 32 + 0x1ff) / 0x200 * 0x200 * gr.max_warps_per_sm * gr.sm_per_tpc +
       0x7fff) /
      0x8000 * 0x8000;
  EXPECT_GE(r.compute->local_memory().size, per_tpc * gr.tpc_per_gpc * gr.num_gpcs);
  for (const queues::NvConstantBank& b : prog->info().banks) {
    EXPECT_EQ(get_bits(r.compute->last_qmd(), q3::CONSTANT_BUFFER_VALID.at(b.bank)), 1u);
    EXPECT_EQ(get_bits(r.compute->last_qmd(), q3::CONSTANT_BUFFER_ADDR_LOWER.at(b.bank)),
              b.va & 0xffffffffu);
  }
  (void)queues::nv_wait_value(gpu, r.sig(), 1, "cubin kernel");  // SASS: a channel error
  prog->release(gpu);
}

// Without ptxas: a synthesized sm_90 cubin (tests/drivers/synth_elf.h) with two kernels loads,
// each kernel's facts come from its own .nv.info records, and the code sits where the QMD will
// point.
TEST(NvCubin, ASynthesizedCubinLoadsPerKernel) {
  Rig r = rig(sim::NvArch::kHopper);
  testing::SynthCubinOptions o;
  o.kernels = 2;
  o.sm = 90;
  const std::vector<uint8_t> bin = testing::synth_cubin(o);
  auto cb = drivers::nv::parse_cubin(bin);
  ASSERT_TRUE(cb.ok()) << cb.error().to_string();
  for (const char* name : {"k0", "k1"}) {
    auto prog = queues::NvProgram::load_cubin(*r.gpu, bin, name);
    ASSERT_TRUE(prog.ok()) << prog.error().to_string();
    const drivers::nv::CubinKernel* k = cb->find(name);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(prog->info().registers, k->registers) << name;
    EXPECT_EQ(prog->info().param_bytes, 8u);
    EXPECT_EQ(prog->info().param_base, k->param_offset);
    EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(prog->va()), bin.data() + k->code_offset,
                          k->code_size),
              0);
    prog->release(*r.gpu);
  }
  EXPECT_NE(queues::NvProgram::load_cubin(*r.gpu, bin, "k0")->info().registers,
            queues::NvProgram::load_cubin(*r.gpu, bin, "k1")->info().registers);
  // An Ampere GPU refuses it by SM.
  Rig a = rig(sim::NvArch::kAmpere);
  EXPECT_EQ(queues::NvProgram::load_cubin(*a.gpu, bin, "k0").error().code(),
            Errc::kInvalidArgument);
}

TEST(NvCubin, AWrongArchitectureOrKernelIsATypedError) {
  if (compiler::find_ptxas().empty()) GTEST_SKIP() << "SKIPPED: ptxas is not installed";
  Rig r = rig(sim::NvArch::kHopper);
  const std::vector<uint8_t> bin86 = assemble(reloc_ptx("sm_86"), "sm_86");
  ASSERT_FALSE(bin86.empty());
  auto wrong = queues::NvProgram::load_cubin(*r.gpu, bin86, "k");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code(), Errc::kInvalidArgument);
  EXPECT_NE(wrong.error().message().find("sm_86"), std::string::npos) << wrong.error().message();
  const std::vector<uint8_t> bin90 = assemble(reloc_ptx("sm_90"), "sm_90");
  auto missing = queues::NvProgram::load_cubin(*r.gpu, bin90, "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
  EXPECT_NE(missing.error().message().find("it has: k"), std::string::npos);
  std::vector<uint8_t> cut(bin90.begin(), bin90.begin() + 100);
  EXPECT_EQ(queues::NvProgram::load_cubin(*r.gpu, cut, "k").error().code(), Errc::kParse);
}

}  // namespace
}  // namespace rawgpu
