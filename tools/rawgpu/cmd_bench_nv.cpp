// `rawgpu bench launch --device sim:sm_*` and `rawgpu bench emulator --device sim:sm_*`: the
// NVIDIA path on the simulated kernel driver and GPU.
//
// launch: host nanoseconds of NvComputeQueue::launch — constant bank 0 and the QMD (with its
// 64-bit release) written into the kernarg ring, SEND_PCAS_A + SEND_SIGNALING_PCAS2_B into a
// pushbuffer, the GP entry, GPPut and the doorbell — for an empty kernel. The simulated GPU only
// runs when polled, so the timed region is host work alone; batches are drained (untimed)
// between timings. Then the same launch with its simulated completion waited for, and the replay
// of a bound NvGraph of --kernels kernels (host time of NvGraph::launch, per kernel).
// emulator: PTX thread-instructions per second of sim/ptx on the compiler's matmul example.
#include <llvm/Support/JSON.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "bench_stats.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/queues/nv_graph.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/nv_rm.h"
#include "rawgpu/sim/ptx.h"

namespace rawgpu::tools {
namespace {

Result<sim::NvArch> nv_arch(const std::string& dev) {
  if (const auto a = sim::nv_arch_of(dev)) return *a;
  return make_error(Errc::kNotFound,
                    "%s: the simulated NVIDIA GPUs are sim:sm_86, sim:sm_89 and sim:sm_90",
                    dev.c_str());
}

constexpr const char* kEmpty = R"(
.version 7.8
.target sm_86
.address_size 64
.visible .entry empty(.param .u64 p0)
{
	ret;
}
)";

struct NvLaunchResult {
  uint64_t ops = 0;
  double launch_ns = 0;     // host: QMD + cbuf0 + methods + GP entry + doorbell, median per op
  double completed_ns = 0;  // launch + the simulated GPU running it + the release seen
  uint32_t qmd_version = 3;
  uint32_t graph_kernels = 0, graph_replays = 0;
  double graph_replay_ns = 0;  // NvGraph::launch host time (patch + submit), median
  uint64_t graph_patched = 0;
};

Result<NvLaunchResult> run_nv_launch(sim::NvArch arch, uint64_t ops, uint32_t qmd_version,
                                     uint32_t kernels, uint32_t replays) {
  sim::SimNvConfig c;
  c.arch = arch;
  c.vram_bytes = 256ull << 20;
  auto kernel = RG_TRY(sim::SimNvKernel::create(c));
  auto rm = RG_TRY(nv::Rm::open(*kernel));
  auto gpu = RG_TRY(nv::RmGpu::open(*rm, 0));
  nv::NvMemory arena = RG_TRY(gpu->alloc_vram(1 << 20, true));
  NvLaunchResult r;
  {
    auto kernargs = RG_TRY(queues::KernargArena::create(*gpu, 1 << 20));
    queues::SignalPool pool(*gpu);
    const queues::Signal sig = RG_TRY(pool.alloc());
    queues::NvChannelQueue ch(*gpu, gpu->compute(), arena);
    queues::NvComputeQueue q(*gpu, ch, *kernargs);
    RG_TRY(q.set_qmd_version(qmd_version));
    RG_TRY(q.setup());
    r.qmd_version = q.qmd_version();
    queues::NvKernelInfo info;
    info.name = "empty";
    info.param_bytes = 8;
    auto prog = RG_TRY(queues::NvProgram::load_ptx(*gpu, info, kEmpty));
    const uint64_t zero = 0;
    queues::NvLaunch l;
    l.block = {32, 1, 1};
    l.params = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&zero), 8);
    uint64_t value = 0;
    // 1. Host cost: batches of 64 launches (the kernarg ring and GPFIFO hold them without
    // waiting), drained untimed.
    constexpr uint64_t kBatch = 64;
    std::vector<double> per_op;
    for (uint64_t done = 0; done < ops; done += kBatch) {
      const auto t0 = BClock::now();
      for (uint64_t i = 0; i < kBatch; ++i) RG_TRY(q.launch(prog, l, sig, ++value));
      per_op.push_back(ns_between(t0, BClock::now()) / kBatch);
      RG_TRY(queues::wait_signal(*gpu, sig, value, "bench launches"));
    }
    r.ops = per_op.size() * kBatch;
    r.launch_ns = median_of(per_op);
    // 2. One launch at a time, waited for.
    std::vector<double> done;
    for (int i = 0; i < 2000; ++i) {
      const auto t0 = BClock::now();
      RG_TRY(q.launch(prog, l, sig, ++value));
      RG_TRY(queues::wait_signal(*gpu, sig, value, "bench launch"));
      done.push_back(ns_between(t0, BClock::now()));
    }
    r.completed_ns = median_of(done);
    // 3. Graph replay: `kernels` unchanged kernels bound once, NvGraph::launch timed after the
    // previous replay has finished (so no waiting is included).
    nv::NvMemory copy_arena = RG_TRY(gpu->alloc_vram(64 << 10, true));
    {
      queues::NvChannelQueue copy(*gpu, gpu->copy(), copy_arena);
      auto g = RG_TRY(queues::NvGraph::create(*gpu, q, copy, pool));
      for (uint32_t i = 0; i < kernels; ++i) g->exec(prog, l, {}, {});
      RG_TRY(g->bind());
      queues::Timeline tl(RG_TRY(pool.alloc()), RG_TRY(pool.alloc()));
      std::vector<double> rep;
      for (uint32_t i = 0; i < replays; ++i) {
        if (i > 0) RG_TRY(queues::wait_signal(*gpu, tl.last_signal(), tl.last_value(), "graph"));
        const auto t0 = BClock::now();
        RG_TRY(g->launch(tl));
        rep.push_back(ns_between(t0, BClock::now()));
        r.graph_patched = std::max(r.graph_patched, g->last_patched());
      }
      RG_TRY(queues::wait_signal(*gpu, tl.last_signal(), tl.last_value(), "graph"));
      r.graph_kernels = kernels;
      r.graph_replays = replays;
      r.graph_replay_ns = median_of(rep);
    }
    RG_TRY(gpu->free(copy_arena));
    prog.release(*gpu);
  }
  RG_TRY(gpu->free(arena));
  return r;
}

struct PtxEmuResult {
  std::string target;
  uint64_t instructions = 0;
  double seconds = 0;
  double per_second = 0;
};

// The compiler's matmul example compiled for `target` and run by the interpreter over host
// memory, `reps` times; the fastest run counts.
Result<PtxEmuResult> run_ptx_matmul(const std::string& target, int reps) {
  compiler::Context ctx;
  auto ex = RG_TRY(compiler::gpu_example(ctx, "matmul"));
  auto t = RG_TRY(compiler::gpu_target(target));
  compiler::GpuOptions o = ex.options;
  o.assemble = false;
  auto spec = RG_TRY(compiler::compile_gpu(ex.sink, "matmul", t, o));
  auto mod = RG_TRY(sim::ptx::parse(spec.assembly));
  if (mod->kernels.size() != 1)
    return make_error(Errc::kInternal, "matmul compiled to %zu kernels", mod->kernels.size());
  const sim::ptx::Kernel& k = mod->kernels[0];
  auto data = RG_TRY(compiler::gpu_example_data("matmul"));
  std::vector<std::vector<uint8_t>> bufs = data.buffers;
  // Buffers at distinct fake VAs; the translation maps them back.
  std::vector<uint64_t> vas;
  for (size_t i = 0; i < bufs.size(); ++i) vas.push_back((uint64_t{i} + 1) << 40);
  std::vector<uint8_t> params(k.param_bytes, 0);
  for (size_t i = 0; i < k.params.size() && i < vas.size(); ++i)
    std::memcpy(params.data() + k.params[i].offset, &vas[i], 8);
  auto groups = RG_TRY(compiler::launch_global(spec, data.var_values));
  sim::ptx::Launch L;
  for (int d = 0; d < 3; ++d) {
    L.grid[d] = static_cast<uint32_t>(groups[d]);
    L.block[d] = static_cast<uint32_t>(spec.gpu.local[d]);
  }
  L.params = params;
  auto global = [&](uint64_t va, uint64_t n, bool) -> Result<uint8_t*> {
    const size_t i = (va >> 40) - 1;
    const uint64_t off = va & ((1ull << 40) - 1);
    if (i >= bufs.size() || off > bufs[i].size() || n > bufs[i].size() - off)
      return make_error(Errc::kHardware, "GPU MMU fault at 0x%llx",
                        static_cast<unsigned long long>(va));
    return bufs[i].data() + off;
  };
  PtxEmuResult r;
  r.target = target;
  r.seconds = 1e30;
  for (int i = 0; i < reps; ++i) {
    sim::ptx::RunStats stats;
    const auto t0 = BClock::now();
    RG_TRY(sim::ptx::run(k, L, sim::ptx::GlobalMemory(global), &stats));
    const double s = ns_between(t0, BClock::now()) * 1e-9;
    if (s < r.seconds) {
      r.seconds = s;
      r.instructions = stats.thread_instructions;
    }
  }
  r.per_second = r.instructions / r.seconds;
  return r;
}

}  // namespace

int bench_launch_nv(const std::string& dev, const cli::Args& args, cli::Io& io) {
  auto arch = nv_arch(dev);
  if (!arch) {
    io.err << "rawgpu bench launch: " << arch.error().message() << "\n";
    return cli::kExitUsage;
  }
  auto ops = args.get_u64_in("ops", 1000, 100'000'000);
  if (!ops.ok()) {
    io.err << "rawgpu bench launch: " << ops.error().message() << "\n";
    return cli::kExitUsage;
  }
  auto kernels = args.get_u64_in("kernels", 1, 100'000);
  if (!kernels.ok()) {
    io.err << "rawgpu bench launch: " << kernels.error().message() << "\n";
    return cli::kExitUsage;
  }
  // Each replay runs every kernel on the simulated GPU (~1 us each): at most ~200k in all.
  uint32_t replays = std::clamp<uint32_t>(200'000 / static_cast<uint32_t>(*kernels), 5, 200);
  if (args.get("replays")) {
    auto n = args.get_u64_in("replays", 1, 1000);
    if (!n.ok()) {
      io.err << "rawgpu bench launch: " << n.error().message() << "\n";
      return cli::kExitUsage;
    }
    replays = static_cast<uint32_t>(*n);
  }
  std::vector<NvLaunchResult> results;
  for (uint32_t v : {3u, 4u}) {
    if (v == 4 && *arch != sim::NvArch::kHopper) continue;
    auto r = run_nv_launch(*arch, *ops, v, static_cast<uint32_t>(*kernels), replays);
    if (!r) {
      io.err << "rawgpu bench launch: " << r.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    results.push_back(*r);
  }
  if (args.flag("json")) {
    io.out << json_document("bench launch", [&](llvm::json::OStream& j) {
      j.attribute("device", dev);
      j.attributeArray("results", [&] {
        for (const NvLaunchResult& r : results)
          j.object([&] {
            j.attribute("qmd_version", static_cast<int64_t>(r.qmd_version));
            j.attribute("launch_release_ops", static_cast<int64_t>(r.ops));
            j.attribute("launch_release_ns", r.launch_ns);
            j.attribute("launch_completed_simulated_ns", r.completed_ns);
            j.attribute("graph_kernels", static_cast<int64_t>(r.graph_kernels));
            j.attribute("graph_replays", static_cast<int64_t>(r.graph_replays));
            j.attribute("graph_replay_ns", r.graph_replay_ns);
            j.attribute("graph_replay_ns_per_kernel", r.graph_replay_ns / r.graph_kernels);
            j.attribute("graph_patched_dwords", static_cast<int64_t>(r.graph_patched));
          });
      });
    });
    return cli::kExitOk;
  }
  io.out << strformat("device %s (RM path on the simulated kernel driver)\n", dev.c_str());
  for (const NvLaunchResult& r : results) {
    io.out << strformat(
        "  QMD V0%u launch + 64-bit release (cbuf0, QMD, PCAS methods, GP entry, doorbell): "
        "%.1f ns (median per op, %llu ops; target <= 100)\n",
        r.qmd_version, r.launch_ns, static_cast<unsigned long long>(r.ops));
    io.out << strformat("  QMD V0%u launch waited for, simulated: %.1f ns (median)\n",
                        r.qmd_version, r.completed_ns);
    io.out << strformat(
        "  QMD V0%u graph replay of %u unchanged kernels: %.1f ns = %.2f ns/kernel (median of "
        "%u; patch + submit, %llu dwords patched; target <= 10 ns/kernel)\n",
        r.qmd_version, r.graph_kernels, r.graph_replay_ns, r.graph_replay_ns / r.graph_kernels,
        r.graph_replays, static_cast<unsigned long long>(r.graph_patched));
  }
  return cli::kExitOk;
}

int bench_emulator_nv(const std::string& dev, const cli::Args& args, cli::Io& io) {
  auto arch = nv_arch(dev);
  if (!arch) {
    io.err << "rawgpu bench emulator: " << arch.error().message() << "\n";
    return cli::kExitUsage;
  }
  auto repeats = args.get_u64_in("repeats", 1, 100);
  if (!repeats.ok()) {
    io.err << "rawgpu bench emulator: " << repeats.error().message() << "\n";
    return cli::kExitUsage;
  }
  auto r = run_ptx_matmul(dev.substr(4), static_cast<int>(*repeats));
  if (!r) {
    io.err << "rawgpu bench emulator: " << r.error().to_string() << "\n";
    return cli::kExitFailure;
  }
  if (args.flag("json")) {
    io.out << json_document("bench emulator", [&](llvm::json::OStream& j) {
      j.attribute("device", dev);
      j.attribute("benchmark", "ptx_matmul");
      j.attribute("target", r->target);
      j.attribute("thread_instructions", static_cast<int64_t>(r->instructions));
      j.attribute("seconds", r->seconds);
      j.attribute("thread_instructions_per_second", r->per_second);
    });
    return cli::kExitOk;
  }
  io.out << strformat(
      "PTX interpreter (sim/ptx), %s, compiler's matmul example: %.1f M thread-instructions/s "
      "(%llu in %.3f s, best of %llu; target >= 5 M/s on one core)\n",
      r->target.c_str(), r->per_second * 1e-6, static_cast<unsigned long long>(r->instructions),
      r->seconds, static_cast<unsigned long long>(*repeats));
  return cli::kExitOk;
}

}  // namespace rawgpu::tools
