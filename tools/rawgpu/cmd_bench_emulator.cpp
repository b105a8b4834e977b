// `rawgpu bench emulator`: wave instructions per second of the RDNA emulator (sim/rdna) on an
// ALU loop and on the compiler's 256x256x256 f32 matmul kernel (16x16 LDS tiles; compiled with
// compile_gpu, loaded by queues/, launched with PM4), one host thread.
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/program.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/rdna.h"
#include "rawgpu/sim/sim_gpu.h"

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
  std::string benchmark = "alu_loop";
  std::string target;
  uint64_t instructions = 0;
  double seconds = 0;
  double per_second = 0;
  double cpu_seconds = 0;  // this thread's CPU time (the process's with several threads)
  double per_cpu_second = 0;
  unsigned threads = 1;
};

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Result<EmuResult> run_loop(sim::rdna::Target t, uint32_t iterations, uint32_t waves, int repeats) {
  auto gpu = RG_TRY(sim::SimGpu::create(t == sim::rdna::Target::kGfx1201 ? 120001u : 110000u));
  auto code = RG_TRY(gpu->alloc(4096, drivers::amd::BufferPlacement::kHost));
  const auto& words = t == sim::rdna::Target::kGfx1100 ? kLoopGfx1100 : kLoopGfx1201;
  std::memcpy(code.cpu, words, sizeof(words));
  sim::rdna::Emulator emu(gpu->hw(), t);
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

// The compiler's matmul example (C = A @ B, 256^3 f32, 16x16 work-groups, A/B tiles in LDS)
// compiled for the target and launched through PM4 on a simulated GPU; the result is checked
// exactly (inputs are multiples of 1/4 in [-2, 2], so every f32 sum is exact).
Result<EmuResult> run_matmul(sim::rdna::Target t, int repeats, unsigned threads) {
  compiler::Context ctx;
  const compiler::GpuExample ex = RG_TRY(compiler::gpu_example(ctx, "matmul"));
  const compiler::GpuTarget target = RG_TRY(compiler::gpu_target(sim::rdna::target_name(t)));
  const compiler::ProgramSpec spec =
      RG_TRY(compiler::compile_gpu(ex.sink, "matmul", target, ex.options));
  auto gpu = RG_TRY(sim::SimGpu::create(std::string("sim:") + sim::rdna::target_name(t)));
  sim::rdna::Emulator emu(gpu->hw(), t);
  emu.options().kernel_name = "matmul";
  emu.options().threads = threads;
  const unsigned used = emu.thread_count();
  gpu->set_executor(&emu);
  queues::SignalPool pool(*gpu);
  auto copier = RG_TRY(queues::amd::Copier::create(*gpu, pool));
  auto prog = RG_TRY(queues::amd::Program::load(*gpu, *copier, spec.binary, "matmul"));
  auto queue = RG_TRY(queues::amd::ComputeQueue::create(*gpu));
  auto arena = RG_TRY(queues::KernargArena::create(*gpu, 64 * 1024));
  constexpr size_t N = 256;
  std::vector<float> a(N * N), b(N * N), c(N * N);
  for (size_t i = 0; i < N * N; ++i) {
    a[i] = float(int(i * 7 % 17) - 8) * 0.25f;
    b[i] = float(int(i * 5 % 13) - 6) * 0.25f;
  }
  drivers::amd::DeviceBuffer bufs[3];  // C, A, B: the kernel's buffer slots
  for (auto& m : bufs) m = RG_TRY(gpu->alloc(N * N * 4, drivers::amd::BufferPlacement::kVram));
  RG_TRY(copier->copy_in(bufs[1].va, {reinterpret_cast<const uint8_t*>(a.data()), N * N * 4}));
  RG_TRY(copier->copy_in(bufs[2].va, {reinterpret_cast<const uint8_t*>(b.data()), N * N * 4}));
  const queues::Signal done = RG_TRY(pool.alloc());
  std::array<uint32_t, 3> grid{}, local{};
  for (size_t d = 0; d < 3; ++d) {
    grid[d] = uint32_t(spec.gpu.global[d]);
    local[d] = uint32_t(spec.gpu.local[d]);
  }
  std::vector<double> secs, cpu;
  uint64_t per_run = 0;
  for (int r = 0; r < repeats; ++r) {
    const uint32_t value = uint32_t(r + 1);
    queues::Kernargs ka = RG_TRY(arena->alloc(prog->kernarg_alloc_size(), done, value));
    std::memset(ka.cpu, 0, ka.size);
    size_t ai = 0;
    for (const auto& arg : prog->args()) {
      if (arg.hidden() || ai >= 3) continue;
      const uint64_t va = bufs[ai++].va.raw();
      std::memcpy(ka.cpu + arg.offset, &va, 8);
    }
    const uint64_t before = emu.stats().instructions;
    const auto t0 = std::chrono::steady_clock::now();
    // CPU time of all the emulator's threads (the process's) when it runs more than one.
    const double c0 = used > 1 ? process_cpu_seconds() : thread_cpu_seconds();
    RG_TRY(queue->exec(prog->exec_params(ka, grid, local)));
    queue->signal(done, value);
    RG_TRY(queue->submit());
    RG_TRY(queues::wait_signal(*gpu, done, value, "matmul"));
    cpu.push_back((used > 1 ? process_cpu_seconds() : thread_cpu_seconds()) - c0);
    secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    per_run = emu.stats().instructions - before;
  }
  RG_TRY(copier->copy_out({reinterpret_cast<uint8_t*>(c.data()), N * N * 4}, bufs[0].va));
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      float want = 0;
      for (size_t k = 0; k < N; ++k) want += a[i * N + k] * b[k * N + j];
      if (c[i * N + j] != want)
        return make_error(Errc::kInternal, "matmul on %s: C[%zu][%zu] = %g, want %g",
                          sim::rdna::target_name(t), i, j, double(c[i * N + j]), double(want));
    }
  for (auto& m : bufs) RG_TRY(gpu->free(m));
  std::sort(secs.begin(), secs.end());
  std::sort(cpu.begin(), cpu.end());
  EmuResult out;
  out.benchmark = "matmul_256";
  out.threads = used;
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
  if (const auto dev = args.get("device"); dev && !dev->empty())
    return bench_emulator_nv(*dev, args, io);
  auto repeats = args.get_u64_in("repeats", 1, 100);
  if (!repeats.ok()) {
    io.err << "rawgpu bench emulator: " << repeats.error().message() << "\n";
    return cli::kExitUsage;
  }
  const int reps = static_cast<int>(*repeats);
  auto threads = args.get_u64_in("threads", 0, 256);
  if (!threads.ok()) {
    io.err << "rawgpu bench emulator: " << threads.error().message() << "\n";
    return cli::kExitUsage;
  }
  std::vector<EmuResult> results;
  for (auto t : {sim::rdna::Target::kGfx1100, sim::rdna::Target::kGfx1201}) {
    auto r = run_loop(t, 20000, 8, reps);
    if (!r.ok()) {
      io.err << "rawgpu bench emulator: " << r.error().to_string() << "\n";
      return 1;
    }
    results.push_back(*r);
  }
  for (auto t : {sim::rdna::Target::kGfx1100, sim::rdna::Target::kGfx1201}) {
    auto r = run_matmul(t, std::min(reps, 3), static_cast<unsigned>(*threads));
    if (!r.ok()) {
      io.err << "rawgpu bench emulator: " << r.error().to_string() << "\n";
      return 1;
    }
    results.push_back(*r);
  }
  if (args.flag("json")) {
    io.out << json_document("bench emulator", [&](llvm::json::OStream& j) {
      j.attribute("repeats", reps);
      j.attribute("matmul_repeats", std::min(reps, 3));
      j.attributeArray("results", [&] {
        for (const EmuResult& r : results) {
          j.object([&] {
            j.attribute("benchmark", r.benchmark);
            j.attribute("target", r.target);
            j.attribute("wave_instructions", static_cast<int64_t>(r.instructions));
            j.attribute("seconds", r.seconds);
            j.attribute("wave_instructions_per_second", r.per_second);
            j.attribute("cpu_seconds", r.cpu_seconds);
            j.attribute("wave_instructions_per_cpu_second", r.per_cpu_second);
            j.attribute("threads", static_cast<int64_t>(r.threads));
          });
        }
      });
    });
  } else {
    for (const EmuResult& r : results) {
      if (r.benchmark != "alu_loop") {
        io.out << strformat(
            "%s matmul 256x256x256 f32 (compiler kernel, 16x16 LDS tiles, PM4 launch, %u "
            "thread%s): %llu wave instructions in %.3f s = %.1f M wave-instr/s wall, %.1f M per "
            "CPU second (medians of %d; result checked)\n",
            r.target.c_str(), r.threads, r.threads == 1 ? "" : "s",
            static_cast<unsigned long long>(r.instructions), r.seconds, r.per_second / 1e6,
            r.per_cpu_second / 1e6, std::min(reps, 3));
        continue;
      }
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
