// `rawgpu bench launch`: host cost of the HCQ layer on a simulated AMD GPU — enqueueing
// exec + signal, replaying a bound graph (patch + submit, per kernel), and copy throughput
// between host memory and simulated VRAM through the SDMA staging path.
#include <llvm/Support/JSON.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "bench_stats.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/graph.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::tools {

namespace {

using namespace rawgpu::queues;
using namespace rawgpu::queues::amd;

class NullExecutor final : public sim::DispatchExecutor {
 public:
  Status execute(const sim::DispatchState&) override { return {}; }
};

ExecParams kernel_params() {
  ExecParams p;
  p.code = GpuVa(0x7000000100);
  p.rsrc2 = 2u << 1;
  p.user_data_count = 2;
  p.user_data[0] = 0x1000;
  p.workgroup = {64, 1, 1};
  p.grid = {128, 1, 1};
  return p;
}

struct LaunchResult {
  std::string device;
  uint64_t enqueue_ops = 0;
  double enqueue_ns = 0;  // exec + signal into the queue's builder, median per op
  double submit_ns = 0;   // wait + barrier + exec + signal + submit incl. simulation
  uint32_t graph_kernels = 0;
  uint32_t graph_replays = 0;
  double graph_replay_ns = 0;  // launch() host time (patch + submit), median
  double graph_ns_per_kernel = 0;
  uint64_t graph_patched = 0;  // slots rewritten per unchanged replay
  uint64_t copy_bytes = 0;
  double h2d_gbps = 0, d2h_gbps = 0;
};

// Replays of the graph when --replays is not given: 200, fewer for long graphs so that the
// simulator executes at most ~200k kernels for this part (each replay runs every kernel, a few
// microseconds each on the simulated GPU, while the host-side launch() being timed costs far
// less), and at least 5 for a median.
uint32_t default_replays(uint32_t kernels) {
  return std::clamp<uint32_t>(200'000 / std::max<uint32_t>(kernels, 1), 5, 200);
}

// Through the driver over the simulated PCI function (drivers::amd::PciAmdDevice: doorbells
// through BAR2, queues from HQD/SDMA registers, DMA memory), as every simulated device runs.
Result<LaunchResult> run_launch_bench(const sim::AmdGpuConfig& base_cfg, uint64_t ops,
                                      uint32_t kernels, uint32_t replays, uint64_t copy_bytes) {
  LaunchResult r;
  sim::AmdPciConfig pc;
  pc.gpu = base_cfg;
  pc.gpu.vram_size =
      RG_TRY(next_pow2(std::max<uint64_t>(1ull << 30, 2 * copy_bytes + (64ull << 20))));
  pc.gpu.process_on_doorbell = false;  // host cost only; the simulator runs in poll()
  pc.gpu.device_thread = false;
  NullExecutor ex;
  auto owned = RG_TRY(sim::SimGpu::create(pc));
  owned->set_executor(&ex);
  drivers::amd::AmdDevice* gpu = owned.get();
  r.device = gpu->name();
  SignalPool pool(*gpu);
  Timeline tl(RG_TRY(pool.alloc()), RG_TRY(pool.alloc()));
  auto q = RG_TRY(ComputeQueue::create(*gpu, 1 << 20));
  const ExecParams p = kernel_params();

  // 1. exec + signal enqueued into the queue (batches of 1000; median of the per-op times).
  constexpr uint64_t kBatch = 1000;
  std::vector<double> per_op;
  const Signal s = tl.signal();
  for (uint64_t done = 0; done < ops; done += kBatch) {
    q->commands().clear();
    const auto t0 = BClock::now();
    for (uint64_t i = 0; i < kBatch; ++i) {
      (void)q->exec(p);
      q->signal(s, static_cast<uint32_t>(i));
    }
    per_op.push_back(ns_between(t0, BClock::now()) / kBatch);
  }
  q->commands().clear();
  r.enqueue_ops = per_op.size() * kBatch;
  r.enqueue_ns = median_of(per_op);

  // 2. A full launch submitted and simulated (wait + barrier + exec + signal + submit + poll).
  std::vector<double> sub;
  for (int i = 0; i < 2000; ++i) {
    const auto t0 = BClock::now();
    q->wait(tl.wait_signal(), tl.wait_value()).memory_barrier();
    RG_TRY(q->exec(p));
    q->signal(tl.signal(), tl.next());
    RG_TRY(q->submit());
    gpu->poll();
    sub.push_back(ns_between(t0, BClock::now()));
    tl.advance();
  }
  r.submit_ns = median_of(sub);
  RG_TRY(wait_signal(*gpu, tl.last_signal(), tl.last_value(), "bench launches"));

  // 3. Graph replay: `kernels` unchanged kernels, launch() timed (the previous replay has
  // finished before each timed launch, so no waiting is included).
  auto cq = RG_TRY(CopyQueue::create(*gpu));
  auto g = RG_TRY(Graph::create(*gpu, *q, *cq, pool));
  for (uint32_t i = 0; i < kernels; ++i) g->exec(p, {}, {});
  RG_TRY(g->bind());
  std::vector<double> rep;
  for (uint32_t i = 0; i < replays; ++i) {
    RG_TRY(wait_signal(*gpu, tl.last_signal(), tl.last_value(), "bench graph"));
    const auto t0 = BClock::now();
    RG_TRY(g->launch(tl));
    rep.push_back(ns_between(t0, BClock::now()));
    r.graph_patched = std::max(r.graph_patched, g->last_patched());
  }
  RG_TRY(wait_signal(*gpu, tl.last_signal(), tl.last_value(), "bench graph"));
  r.graph_kernels = kernels;
  r.graph_replays = replays;
  r.graph_replay_ns = median_of(rep);
  r.graph_ns_per_kernel = r.graph_replay_ns / kernels;
  g.reset();

  // 4. Copies host <-> simulated VRAM through the staging buffers (wall time incl. simulation).
  r.copy_bytes = copy_bytes;
  CopierConfig cc;
  cc.staging_bytes = 4ull << 20;
  auto copier = RG_TRY(Copier::create(*gpu, pool, cc));
  auto vram = RG_TRY(gpu->alloc(copy_bytes, drivers::amd::BufferPlacement::kVram));
  std::vector<uint8_t> host(copy_bytes, 0x5a), back(copy_bytes);
  RG_TRY(copier->copy_in(vram.va, host));  // warm: touches the sparse VRAM pages
  std::vector<double> h2d, d2h;
  for (int i = 0; i < 3; ++i) {
    auto t0 = BClock::now();
    RG_TRY(copier->copy_in(vram.va, host));
    h2d.push_back(ns_between(t0, BClock::now()));
    t0 = BClock::now();
    RG_TRY(copier->copy_out(back, vram.va));
    d2h.push_back(ns_between(t0, BClock::now()));
  }
  if (back != host) return make_error(Errc::kInternal, "copy round trip lost data");
  r.h2d_gbps = copy_bytes / median_of(h2d);
  r.d2h_gbps = copy_bytes / median_of(d2h);
  copier.reset();
  RG_TRY(gpu->free(vram));
  return r;
}

}  // namespace

int bench_launch(const cli::Args& args, cli::Io& io) {
  auto usage = [&](const std::string& msg) {
    io.err << "rawgpu bench launch: " << msg << "\n";
    return cli::kExitUsage;
  };
  auto fail = [&](const Error& e) {
    io.err << "rawgpu bench launch: " << e.to_string() << "\n";
    return cli::kExitFailure;
  };
  const std::string dev = args.get("device").value_or("sim:gfx1100");
  if (dev.starts_with("sim:sm_")) return bench_launch_nv(dev, args, io);
  auto cfg = sim::parse_sim_device(dev);
  if (!cfg) return usage(cfg.error().message());
  auto ops = args.get_u64_in("ops", 1000, 100'000'000);
  if (!ops.ok()) return usage(ops.error().message());
  auto kernels = args.get_u64_in("kernels", 1, 100'000);
  if (!kernels.ok()) return usage(kernels.error().message());
  uint32_t replays = default_replays(static_cast<uint32_t>(*kernels));
  if (args.get("replays")) {
    auto n = args.get_u64_in("replays", 1, 1000);
    if (!n.ok()) return usage(n.error().message());
    replays = static_cast<uint32_t>(*n);
  }
  auto bytes = args.get_size("copy-size");
  if (!bytes.ok()) return usage(bytes.error().message());
  if (*bytes == 0 || *bytes > (4ull << 30)) return usage("--copy-size must be in (0, 4GiB]");
  auto r = run_launch_bench(*cfg, *ops, static_cast<uint32_t>(*kernels), replays, *bytes);
  if (!r) return fail(r.error());
  if (args.flag("json")) {
    io.out << json_document("bench launch", [&](llvm::json::OStream& j) {
      j.attribute("device", r->device);
      j.attribute("enqueue_exec_signal_ops", static_cast<int64_t>(r->enqueue_ops));
      j.attribute("enqueue_exec_signal_ns", r->enqueue_ns);
      j.attribute("launch_submit_simulated_ns", r->submit_ns);
      j.attribute("graph_kernels", static_cast<int64_t>(r->graph_kernels));
      j.attribute("graph_replays", static_cast<int64_t>(r->graph_replays));
      j.attribute("graph_replay_ns", r->graph_replay_ns);
      j.attribute("graph_replay_ns_per_kernel", r->graph_ns_per_kernel);
      j.attribute("graph_patched_slots", static_cast<int64_t>(r->graph_patched));
      j.attribute("copy_bytes", static_cast<int64_t>(r->copy_bytes));
      j.attribute("h2d_gbps", r->h2d_gbps);
      j.attribute("d2h_gbps", r->d2h_gbps);
    });
  } else {
    io.out << strformat("device %s (driver over the simulated PCI function)\n", r->device.c_str())
           << strformat("  enqueue exec+signal: %.1f ns (median per op, %llu ops; target <= 200)\n",
                        r->enqueue_ns, static_cast<unsigned long long>(r->enqueue_ops))
           << strformat("  wait+barrier+exec+signal submitted and simulated: %.1f ns (median)\n",
                        r->submit_ns)
           << strformat(
                  "  graph replay of %u unchanged kernels: %.1f ns = %.2f ns/kernel "
                  "(median of %u; patch + submit, %llu slots patched; target <= 30 ns/kernel)\n",
                  r->graph_kernels, r->graph_replay_ns, r->graph_ns_per_kernel, r->graph_replays,
                  static_cast<unsigned long long>(r->graph_patched))
           << strformat("  copies of %s host->sim %.2f GB/s, sim->host %.2f GB/s\n",
                        format_bytes(r->copy_bytes).c_str(), r->h2d_gbps, r->d2h_gbps);
  }
  return cli::kExitOk;
}

}  // namespace rawgpu::tools
