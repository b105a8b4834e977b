// Micro-benchmarks for base/ primitives used on hot paths (PTE/QMD encoding, error returns).
#include <benchmark/benchmark.h>

#include <array>
#include <random>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/error.h"

namespace rawgpu {
namespace {

void BM_SetGetBitsCrossWord(benchmark::State& state) {
  std::array<uint32_t, 64> words{};  // a 256-byte QMD
  std::mt19937 rng(1);
  std::array<BitField, 32> fields;
  for (auto& f : fields) {
    f.width = 1 + rng() % 40;
    f.lo = rng() % (64 * 32 - f.width);
  }
  uint64_t v = 0x1234;
  for (auto _ : state) {
    for (const BitField& f : fields) {
      set_bits(std::span<uint32_t>(words), f, v);
      v += get_bits(std::span<const uint32_t>(words), f);
    }
    benchmark::DoNotOptimize(words);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(fields.size()));
}
BENCHMARK(BM_SetGetBitsCrossWord);

Result<uint64_t> maybe_fail(uint64_t x) {
  if ((x & 0xffff) == 0xffff)
    return make_error(Errc::kInvalidArgument, "bad %llu", static_cast<unsigned long long>(x));
  return x * 3;
}

Result<uint64_t> chain(uint64_t x) {
  const uint64_t a = RG_TRY(maybe_fail(x));
  const uint64_t b = RG_TRY(align_up(a, 4096));
  return b;
}

void BM_ResultHappyPath(benchmark::State& state) {
  uint64_t x = 0;
  for (auto _ : state) {
    auto r = chain(x++ & 0xfff);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ResultHappyPath);

void BM_ResultErrorPath(benchmark::State& state) {
  for (auto _ : state) {
    auto r = chain(0xffff);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ResultErrorPath);

}  // namespace
}  // namespace rawgpu

BENCHMARK_MAIN();
