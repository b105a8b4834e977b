// The seed of a randomized test: RAWGPU_TEST_SEED=N (decimal, or hex with 0x) replays a run,
// otherwise every run draws a fresh 64-bit seed. Tests print it (SCOPED_TRACE or the failure
// message) so that a failure seen once, e.g. in CI, can be replayed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>

namespace rawgpu::test_util {

inline uint64_t test_seed() {
  if (const char* s = std::getenv("RAWGPU_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  std::random_device rd;
  return rd() ^ (static_cast<uint64_t>(rd()) << 32);
}

}  // namespace rawgpu::test_util
