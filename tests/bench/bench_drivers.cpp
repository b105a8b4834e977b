// Parse speed of the cubin and code object parsers on synthesized files (tests/drivers/
// synth_elf.h): issue 15's goal is 200,000 cubin sections well under a second, linear in size.
#include <benchmark/benchmark.h>

#include <memory>

#include "../drivers/fake_pci.h"
#include "../drivers/synth_elf.h"
#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/nv/cubin.h"
#include "rawgpu/drivers/pci/vfio.h"
#include "rawgpu/sim/fake_vfio.h"

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

// DMA map of 256 MiB through VfioPciDevice on the simulated vfio kernel side, as buffers of
// Arg bytes (4 KiB: 65,536 buffers, 256 MiB: one). Host cost of the driver and the ioctl count
// (one VFIO_IOMMU_MAP_DMA per buffer); a real kernel adds page pinning, which this cannot show.
void BM_VfioDmaMap256MiB(benchmark::State& state) {
  const uint64_t chunk = uint64_t(state.range(0)), total = 256ull << 20;
  testing::FakePciFunction f;
  f.bdf = "0000:03:00.0";
  f.vendor = 0x1002;
  f.device = 0x744c;
  f.class_code = 0x030000;
  f.driver = "vfio-pci";
  f.iommu_group = 12;
  testing::FakePciSystem tree({f});
  sim::FakeVfioKernel kernel(tree.dev_root(), tree.sysfs_root());
  kernel.add_group(12);
  sim::FakeVfioFunction ff;
  ff.bdf = f.bdf;
  const auto cfg = f.config_space();
  ff.config.assign(cfg.begin(), cfg.end());
  ff.bar_size = {256ull << 20, 0, 2ull << 20, 0, 0, 1ull << 20};
  kernel.add_function(12, ff);
  pci::VfioOptions o;
  o.sys = &kernel;
  o.sysfs_root = tree.sysfs_root();
  o.dev_root = tree.dev_root();
  auto dev = pci::VfioPciDevice::open(pci::Bdf::parse(f.bdf).value(), o);
  if (!dev) {
    state.SkipWithError(dev.error().to_string().c_str());
    return;
  }
  kernel.set_dma_entry_limit(1u << 20);
  std::vector<pci::DmaBuffer> bufs;
  uint64_t ioctls = 0;
  for (auto _ : state) {
    const uint64_t before = (*dev)->dma_ioctls();
    for (uint64_t done = 0; done < total; done += chunk) {
      auto b = (*dev)->alloc_dma(chunk);
      if (!b) {
        state.SkipWithError(b.error().to_string().c_str());
        return;
      }
      bufs.push_back(std::move(*b));
    }
    ioctls = (*dev)->dma_ioctls() - before;
    state.PauseTiming();
    for (const auto& b : bufs) (void)(*dev)->free_dma(b);
    bufs.clear();
    state.ResumeTiming();
  }
  state.counters["map_ioctls"] = double(ioctls);
}
BENCHMARK(BM_VfioDmaMap256MiB)
    ->Arg(4096)
    ->Arg(2 << 20)
    ->Arg(256 << 20)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rawgpu

BENCHMARK_MAIN();
