// `rawgpu bench emulator`: wave instructions per second of the RDNA emulator (sim/rdna) on an
// ALU loop, one host thread.
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>

#include "commands.h"
#include "rawgpu/base/format.h"
#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/rdna.h"

namespace rawgpu::tools {
namespace {

// The loop below, assembled with llvm-mc-19 (-mcpu=gfx1100 / gfx1201; the targets differ only in
// v_max_f32 vs v_max_num_f32):
//   s_mov_b32 s2, 0 ; v_mov_b32 v1, 1.0 ; v_mov_b32 v2, 0.5 ; v_cvt_f32_u32 v3, v0
//   loop: v_fma_f32 v1, v1, v2, v3 ; v_mul_f32 v5, v1, 0.5 ; v_add_f32 v6, v5, v1
//         v_add_nc_u32 v4, v4, v0 ; v_xor_b32 v7, v4, v1 ; v_max_f32 v8, v1, v6
//         s_add_u32 s2, s2, 1 ; s_cmp_lg_u32 s2, s3 ; s_cbranch_scc1 loop
//   s_endpgm
// s3 (user SGPR 3) holds the iteration count; the values stay finite (v1 converges to 2 * tid).
constexpr uint32_t kLoopGfx1100[] = {
    0xbe820080, 0x7e0202f2, 0x7e0402f0, 0x7e060d00, 0xd6130001, 0x040e0501, 0xd5080005, 0x0001e101,
    0x060c0305, 0x4a080104, 0x3a0e0304, 0x20100d01, 0x80028102, 0xbf070302, 0xbfa2fff5, 0xbfb00000};
constexpr uint32_t kLoopGfx1201[] = {
    0xbe820080, 0x7e0202f2, 0x7e0402f0, 0x7e060d00, 0xd6130001, 0x040e0501, 0xd5080005, 0x0001e101,
    0x060c0305, 0x4a080104, 0x3a0e0304, 0x2c100d01, 0x80028102, 0xbf070302, 0xbfa2fff5, 0xbfb00000};

struct EmuResult {
  std::string target;
  uint64_t instructions = 0;
  double seconds = 0;
  double per_second = 0;
  double cpu_seconds = 0;  // this thread's CPU time (the build machines are shared)
  double per_cpu_second = 0;
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Result<EmuResult> run_loop(sim::rdna::Target t, uint32_t iterations, uint32_t waves, int repeats) {
  auto gpu = RG_TRY(sim::AmdGpu::create());
  auto code = RG_TRY(gpu->alloc(4096, drivers::amd::BufferPlacement::kHost));
  const auto& words = t == sim::rdna::Target::kGfx1100 ? kLoopGfx1100 : kLoopGfx1201;
  std::memcpy(code.cpu, words, sizeof(words));
  sim::rdna::Emulator emu(*gpu, t);
  sim::DispatchState s;
  s.program = code.va;
  s.rsrc1 = 7u | (0xF0u << 12) | (1u << 21) | (1u << 23);  // 64 VGPRs, no denormal flushing
  s.rsrc2 = 4u << 1;                                       // 4 user SGPRs
  s.user_data = {0, 0, 0, iterations};
  s.grid = {1, 1, 1};
  s.workgroup = {32 * waves, 1, 1};
  s.wave32 = true;
  std::vector<double> secs, cpu;
  uint64_t per_run = 0;
  for (int r = 0; r < repeats; ++r) {
    const uint64_t before = emu.stats().instructions;
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = thread_cpu_seconds();
    RG_TRY(emu.execute(s));
    cpu.push_back(thread_cpu_seconds() - c0);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    per_run = emu.stats().instructions - before;
  }
  std::sort(secs.begin(), secs.end());
  std::sort(cpu.begin(), cpu.end());
  EmuResult out;
  out.target = sim::rdna::target_name(t);
  out.instructions = per_run;
  out.seconds = secs[secs.size() / 2];
  out.per_second = static_cast<double>(per_run) / out.seconds;
  out.cpu_seconds = cpu[cpu.size() / 2];
  out.per_cpu_second = static_cast<double>(per_run) / out.cpu_seconds;
  return out;
}

}  // namespace

int bench_emulator(const cli::Args& args, cli::Io& io) {
  auto repeats = args.get_u64("repeats");
  if (!repeats.ok()) {
    io.err << "rawgpu bench emulator: " << repeats.error().to_string() << "\n";
    return 2;
  }
  const int reps = static_cast<int>(std::clamp<uint64_t>(*repeats, 1, 100));
  std::vector<EmuResult> results;
  for (auto t : {sim::rdna::Target::kGfx1100, sim::rdna::Target::kGfx1201}) {
    auto r = run_loop(t, 20000, 8, reps);
    if (!r.ok()) {
      io.err << "rawgpu bench emulator: " << r.error().to_string() << "\n";
      return 1;
    }
    results.push_back(*r);
  }
  if (args.flag("json")) {
    std::string s;
    llvm::raw_string_ostream os(s);
    llvm::json::OStream j(os, 2);
    j.array([&] {
      for (const EmuResult& r : results) {
        j.object([&] {
          j.attribute("benchmark", "alu_loop");
          j.attribute("target", r.target);
          j.attribute("wave_instructions", static_cast<int64_t>(r.instructions));
          j.attribute("seconds", r.seconds);
          j.attribute("wave_instructions_per_second", r.per_second);
          j.attribute("cpu_seconds", r.cpu_seconds);
          j.attribute("wave_instructions_per_cpu_second", r.per_cpu_second);
        });
      }
    });
    os << "\n";
    os.flush();
    io.out << s;
  } else {
    for (const EmuResult& r : results) {
      io.out << strformat(
          "%s ALU loop (8 waves x 20000 iterations, 9 instructions each, 1 thread): "
          "%llu wave instructions in %.3f s = %.1f M wave-instr/s wall, %.1f M per "
          "CPU second (medians of %d)\n",
          r.target.c_str(), static_cast<unsigned long long>(r.instructions), r.seconds,
          r.per_second / 1e6, r.per_cpu_second / 1e6, reps);
    }
  }
  return 0;
}

}  // namespace rawgpu::tools
