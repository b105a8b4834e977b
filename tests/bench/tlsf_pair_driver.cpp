// The BM_TlsfPair* loop (bench_memory.cpp) with a fixed number of pairs, for instruction and
// branch counts under callgrind, which Google Benchmark's adaptive iteration counts get in the way
// of:
//   valgrind --tool=callgrind --branch-sim=yes --toggle-collect='run_pairs*'
//            build-rel/tests/memory/tlsf_pair_driver mixed 200000   (one command line)
// then Ir / pairs = instructions per alloc+free pair (loop included), Bcm / pairs = mispredicts.
// Workloads: small, large, mixed (the benchmark's sizes and alignments), 64 live blocks.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "rawgpu/memory/tlsf.h"

using namespace rawgpu::memory;

[[gnu::noinline]] uint64_t run_pairs(Tlsf& t, std::vector<uint64_t>& live,
                                     const std::vector<uint64_t>& sizes,
                                     const std::vector<uint64_t>& aligns, size_t pairs) {
  const size_t n_live = live.size(), n_sizes = sizes.size();
  uint64_t freed = 0;
  for (size_t k = 0; k < pairs; ++k) {
    const size_t victim = (k * 7919) & (n_live - 1);
    freed += t.free(live[victim]).ok();
    auto a = t.alloc(sizes[k & (n_sizes - 1)], aligns[k & (n_sizes - 1)]);
    live[victim] = a.ok() ? *a : *t.alloc(256);
  }
  return freed;
}

int main(int argc, char** argv) {
  constexpr uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;
  const char* w = argc > 1 ? argv[1] : "mixed";
  const size_t pairs = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 200000;
  uint64_t lo = 256, hi = 64 * kMiB;
  bool aligned = true;
  if (std::strcmp(w, "small") == 0) {
    hi = 64 * 1024;
    aligned = false;
  } else if (std::strcmp(w, "large") == 0) {
    lo = kMiB;
    hi = 256 * kMiB;
    aligned = false;
  } else if (std::strcmp(w, "mixed") != 0) {
    std::fprintf(stderr, "usage: %s small|large|mixed [pairs]\n", argv[0]);
    return 2;
  }
  TlsfConfig c;
  c.size = 16 * kGiB;
  auto t = *Tlsf::create(c);
  std::mt19937_64 rng(1);
  constexpr size_t kSizes = 4096;
  const size_t n_live = std::min<uint64_t>(64, c.size / (4 * hi));
  std::vector<uint64_t> sizes(kSizes), aligns(kSizes);
  for (size_t i = 0; i < kSizes; ++i) {
    const double l = std::log2(double(lo)), h = std::log2(double(hi));
    sizes[i] = uint64_t(std::exp2(l + (h - l) * double(rng() % 10000) / 10000.0));
    aligns[i] = aligned ? uint64_t{256} << (rng() % 6) : 1;
  }
  std::vector<uint64_t> live(n_live);
  for (size_t i = 0; i < n_live; ++i) {
    auto a = t.alloc(sizes[i], aligns[i]);
    live[i] = a.ok() ? *a : *t.alloc(256);
  }
  const uint64_t freed = run_pairs(t, live, sizes, aligns, pairs);
  const TlsfStats s = t.stats();
  std::printf("%s: %zu pairs, %zu live, fragmentation %.4f, %llu free blocks, padding %llu B\n", w,
              pairs, n_live, s.fragmentation(), static_cast<unsigned long long>(s.free_blocks),
              static_cast<unsigned long long>(s.padding));
  const auto inv = t.check_invariants();
  if (!inv.ok() || freed != pairs) {
    std::fprintf(stderr, "%s\n", inv.ok() ? "a free failed" : inv.error().to_string().c_str());
    return 1;
  }
  return 0;
}
