// Host-side cost of the PM4 compute queue: encoding exec + signal, and a full
// wait + exec + signal submission executed by the simulated gfx1100 (sim work included).
#include <benchmark/benchmark.h>

#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::queues::amd {
namespace {

class NullExecutor final : public sim::DispatchExecutor {
 public:
  Status execute(const sim::DispatchState&) override { return {}; }
};

ExecParams params() {
  ExecParams p;
  p.code = GpuVa(0x7000000100);
  p.rsrc2 = 2u << 1;
  p.user_data_count = 2;
  p.user_data[0] = 0x1000;
  p.workgroup = {64, 1, 1};
  p.grid = {128, 1, 1};
  return p;
}

// Encode exec + signal into a builder (no submission).
void BM_EncodeExecSignal(benchmark::State& state) {
  CmdBuilder b;
  const ExecParams p = params();
  const GpuVa sig(0x1000003000);
  uint32_t v = 1;
  for (auto _ : state) {
    b.clear();
    auto slots = exec(b, p);
    benchmark::DoNotOptimize(slots);
    release_mem_signal(b, sig, v++);
    benchmark::DoNotOptimize(b.dwords().data());
  }
}
BENCHMARK(BM_EncodeExecSignal);

// wait(v-1) + barrier + exec + signal(v), submitted and executed by the simulator.
void BM_LaunchOnSim(benchmark::State& state) {
  auto gpu = std::move(sim::SimGpu::create().value());  // the driver over the PCI function
  NullExecutor ex;
  gpu->set_executor(&ex);
  SignalPool pool(*gpu);
  Timeline tl(pool.alloc().value(), pool.alloc().value());
  auto q = std::move(ComputeQueue::create(*gpu, 1 << 20).value());
  const ExecParams p = params();
  for (auto _ : state) {
    q->wait(tl.wait_signal(), tl.wait_value()).memory_barrier();
    (void)q->exec(p);
    q->signal(tl.signal(), tl.next());
    if (!q->submit()) state.SkipWithError("submit failed");
    tl.advance();
  }
}
BENCHMARK(BM_LaunchOnSim);

}  // namespace
}  // namespace rawgpu::queues::amd

BENCHMARK_MAIN();
