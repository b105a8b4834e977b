// Google Benchmarks for memory/: TLSF alloc+free pairs, page-table map/unmap, valloc/vfree.
// Speed goals (issue 3): mixed alloc+free pair <= 40 ns; 256 MiB of scattered 4 KiB pages mapped
// in <= 2 ms and unmapped in <= 1 ms; one aligned 256 MiB range in <= 50 us.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "rawgpu/memory/memory_manager.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::memory {
namespace {

constexpr uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30, kPage = 4096;

// Steady state: `live` allocations; each iteration frees a random one and allocates a new one.
void tlsf_pairs(benchmark::State& state, uint64_t min_size, uint64_t max_size, bool aligned) {
  TlsfConfig c;
  c.size = 16 * kGiB;
  auto t = *Tlsf::create(c);
  std::mt19937_64 rng(1);
  constexpr size_t kSizes = 4096;
  // Live allocations (a power of two): state.range(0), capped so the arena never fills up.
  const size_t kLive = std::min<uint64_t>(uint64_t(state.range(0)), c.size / (4 * max_size));
  std::vector<uint64_t> sizes(kSizes), aligns(kSizes);
  for (size_t i = 0; i < kSizes; ++i) {
    // Log-uniform sizes between min and max.
    const double lo = std::log2(double(min_size)), hi = std::log2(double(max_size));
    sizes[i] = uint64_t(std::exp2(lo + (hi - lo) * double(rng() % 10000) / 10000.0));
    aligns[i] = aligned ? uint64_t{256} << (rng() % 6) : 1;
  }
  std::vector<uint64_t> live(kLive);
  for (size_t i = 0; i < kLive; ++i) {
    auto a = t.alloc(sizes[i], aligns[i]);
    live[i] = a.ok() ? *a : *t.alloc(256);
  }
  size_t k = 0;
  for (auto _ : state) {
    const size_t victim = (k * 7919) & (kLive - 1);
    benchmark::DoNotOptimize(t.free(live[victim]).ok());
    auto a = t.alloc(sizes[k & (kSizes - 1)], aligns[k & (kSizes - 1)]);
    live[victim] = a.ok() ? *a : *t.alloc(256);
    ++k;
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::to_string(kLive) + " live");
  // Where the loop left the allocator (after timing): free-space fragmentation, free blocks, and
  // alignment padding kept inside allocations, as a fraction of the allocated bytes.
  const TlsfStats st = t.stats();
  state.counters["frag"] = st.fragmentation();
  state.counters["free_blocks"] = double(st.free_blocks);
  state.counters["pad_frac"] = double(st.padding) / double(std::max<uint64_t>(st.used, 1));
}
void BM_TlsfPairSmall(benchmark::State& s) { tlsf_pairs(s, 256, 64 * 1024, false); }
void BM_TlsfPairLarge(benchmark::State& s) { tlsf_pairs(s, 1 * kMiB, 256 * kMiB, false); }
void BM_TlsfPairMixed(benchmark::State& s) { tlsf_pairs(s, 256, 64 * kMiB, true); }
BENCHMARK(BM_TlsfPairSmall)->Arg(64)->Arg(1024);
BENCHMARK(BM_TlsfPairLarge)->Arg(64)->Arg(1024);
BENCHMARK(BM_TlsfPairMixed)->Arg(64)->Arg(1024);

// Growth, not steady state (issue 15): one iteration fills a fresh allocator with state.range(0)
// blocks of 256 B, so the node array grows the whole way. Time per allocation must stay flat from
// 10^4 to 10^6 live blocks (the quadratic regression of e6c8e80 made it grow with the count:
// ~140 us per allocation at 160k live blocks).
void BM_TlsfFillLive(benchmark::State& state) {
  const uint64_t live = uint64_t(state.range(0));
  TlsfConfig c;
  c.size = std::bit_ceil(live * 512);
  c.min_block = 256;
  for (auto _ : state) {
    state.PauseTiming();
    auto t = *Tlsf::create(c);
    state.ResumeTiming();
    for (uint64_t i = 0; i < live; ++i) benchmark::DoNotOptimize(t.alloc(256, 256).ok());
    state.PauseTiming();
    TlsfConfig small;
    small.size = 4096;
    t = *Tlsf::create(small);  // the teardown is not timed
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * int64_t(live));
  state.SetLabel(std::to_string(live) + " live");
}
BENCHMARK(BM_TlsfFillLive)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// Fragmentation, not speed: the mixed workload above (same sizes and alignments) with 1024 live
// allocations in an arena sized so that they fill state.range(0) percent of it.
// Counters, averaged over samples every 64 pairs after a warm-up: frag (1 - largest free block /
// free bytes), free_blocks, pad_frac (alignment padding / allocated bytes), failed (allocations
// that found no room, of 300 000).
void BM_TlsfFragMixed(benchmark::State& state) {
  constexpr size_t kSizes = 4096, kLive = 1024, kOps = 300000;
  std::mt19937_64 rng(1);
  std::vector<uint64_t> sizes(kSizes), aligns(kSizes);
  double mean = 0;
  for (size_t i = 0; i < kSizes; ++i) {
    const double lo = std::log2(256.0), hi = std::log2(double(64 * kMiB));
    sizes[i] = uint64_t(std::exp2(lo + (hi - lo) * double(rng() % 10000) / 10000.0));
    aligns[i] = uint64_t{256} << (rng() % 6);
    mean += double(sizes[i]) / kSizes;
  }
  double frag = 0, free_blocks = 0, pad = 0, failed = 0, samples = 0;
  for (auto _ : state) {
    TlsfConfig c;
    c.size = (uint64_t(mean * kLive * 100.0 / double(state.range(0))) + 255) & ~uint64_t{255};
    auto t = *Tlsf::create(c);
    std::vector<uint64_t> live(kLive, ~uint64_t{0});
    for (size_t k = 0; k < kOps; ++k) {
      const size_t victim = (k * 7919) % kLive;
      if (live[victim] != ~uint64_t{0}) benchmark::DoNotOptimize(t.free(live[victim]).ok());
      auto a = t.alloc(sizes[k % kSizes], aligns[k % kSizes]);
      live[victim] = a.ok() ? *a : ~uint64_t{0};
      failed += !a.ok();
      if (k % 64 == 0 && k > kOps / 10) {
        const TlsfStats st = t.stats();
        frag += st.fragmentation();
        free_blocks += double(st.free_blocks);
        pad += double(st.padding) / double(std::max<uint64_t>(st.used, 1));
        ++samples;
      }
    }
  }
  state.counters["frag"] = frag / samples;
  state.counters["free_blocks"] = free_blocks / samples;
  state.counters["pad_frac"] = pad / samples;
  state.counters["failed"] = failed / double(state.iterations());
}
BENCHMARK(BM_TlsfFragMixed)
    ->Arg(50)
    ->Arg(80)
    ->Arg(95)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

struct PtFixture {
  explicit PtFixture(PageTableFormat f)
      : vram(16 * kGiB),
        va(*AddressAllocator<GpuVa>::create(GpuVa(0x200000000000), 1ull << 44, kPage)) {
    MemoryManagerConfig c;
    c.format = f;
    c.vram_size = 16 * kGiB;
    c.va_base = GpuVa(0x200000000000);
    mm = std::move(*MemoryManager::create(c, vram, va));
    mm->finish_boot();
    scattered.resize(256 * kMiB / kPage);
    std::vector<uint64_t> perm(kGiB / kPage);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(1));
    for (size_t i = 0; i < scattered.size(); ++i)
      scattered[i] = {VramAddr(kGiB + perm[i] * kPage), kPage};
  }
  SparseVram vram;
  AddressAllocator<GpuVa> va;
  std::unique_ptr<MemoryManager> mm;
  std::vector<AddrRange<VramAddr>> scattered;
  const GpuVa base{0x200000000000 + 64 * kGiB};
};

void BM_MapScattered4K(benchmark::State& state) {
  PtFixture f(static_cast<PageTableFormat>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.mm->map_range(f.base, f.scattered, {}).ok());
    state.PauseTiming();
    (void)f.mm->unmap_range(f.base, 256 * kMiB).ok();
    state.ResumeTiming();
  }
  state.SetLabel(std::string(format_name(static_cast<PageTableFormat>(state.range(0)))));
}
void BM_UnmapScattered4K(benchmark::State& state) {
  PtFixture f(static_cast<PageTableFormat>(state.range(0)));
  for (auto _ : state) {
    state.PauseTiming();
    (void)f.mm->map_range(f.base, f.scattered, {}).ok();
    state.ResumeTiming();
    benchmark::DoNotOptimize(f.mm->unmap_range(f.base, 256 * kMiB).ok());
  }
  state.SetLabel(std::string(format_name(static_cast<PageTableFormat>(state.range(0)))));
}
void BM_MapUnmapAligned256M(benchmark::State& state) {
  PtFixture f(static_cast<PageTableFormat>(state.range(0)));
  const AddrRange<VramAddr> r{VramAddr(4 * kGiB), 256 * kMiB};
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.mm->map_range(f.base, std::span(&r, 1), {}).ok());
    benchmark::DoNotOptimize(f.mm->unmap_range(f.base, 256 * kMiB).ok());
  }
  state.SetLabel(std::string(format_name(static_cast<PageTableFormat>(state.range(0)))) +
                 " map+unmap");
}
void BM_VallocVfree1G(benchmark::State& state) {
  PtFixture f(static_cast<PageTableFormat>(state.range(0)));
  for (auto _ : state) {
    auto v = f.mm->valloc(kGiB);
    benchmark::DoNotOptimize(f.mm->vfree(*v).ok());
  }
  state.SetLabel(std::string(format_name(static_cast<PageTableFormat>(state.range(0)))));
}
#define RG_FORMATS DenseRange(0, 4)->Unit(benchmark::kMicrosecond)
BENCHMARK(BM_MapScattered4K)->RG_FORMATS;
BENCHMARK(BM_UnmapScattered4K)->RG_FORMATS;
BENCHMARK(BM_MapUnmapAligned256M)->RG_FORMATS;
BENCHMARK(BM_VallocVfree1G)->RG_FORMATS;

}  // namespace
}  // namespace rawgpu::memory

BENCHMARK_MAIN();
