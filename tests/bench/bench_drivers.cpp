// Parse speed of the cubin and code object parsers on synthesized files (tests/drivers/
// synth_elf.h): issue 15's goal is 200,000 cubin sections well under a second, linear in size.
#include <benchmark/benchmark.h>

#include "../drivers/synth_elf.h"
#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/nv/cubin.h"

namespace rawgpu {
namespace {

// Arg: kernels (4 sections each): 50,000 = 200,000 sections.
void BM_ParseCubin(benchmark::State& state) {
  const auto bytes = testing::synth_cubin({size_t(state.range(0)), 90});
  for (auto _ : state) {
    auto r = drivers::nv::parse_cubin(bytes);
    if (!r.ok()) state.SkipWithError(r.error().to_string().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * int64_t(bytes.size()));
  state.counters["sections"] = double(state.range(0) * testing::kSynthCubinSectionsPerKernel);
}
BENCHMARK(BM_ParseCubin)->Arg(5000)->Arg(50000)->Unit(benchmark::kMillisecond);

// Arg: kernels, each with its own descriptor segment.
void BM_ParseCodeObject(benchmark::State& state) {
  testing::SynthCodeObjectOptions o;
  o.kernels = size_t(state.range(0));
  o.segment_per_descriptor = true;
  const auto bytes = testing::synth_code_object(o);
  for (auto _ : state) {
    auto r = drivers::amd::parse_code_object(bytes);
    if (!r.ok()) state.SkipWithError(r.error().to_string().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(state.iterations() * int64_t(bytes.size()));
}
BENCHMARK(BM_ParseCodeObject)->Arg(2900)->Arg(29000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rawgpu

BENCHMARK_MAIN();
