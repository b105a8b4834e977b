// The TLSF address index (memory/tlsf_index.h) on its own, with keys chosen to collide: the
// allocator's real addresses almost never collide (Fibonacci hashing spreads arithmetic
// progressions evenly), so long probe chains, wrap-around and backward-shift deletion inside
// chains are exercised here.
#include "../../memory/tlsf_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>
#include <vector>

namespace rawgpu::memory::detail {
namespace {

struct Keys {
  const std::vector<uint64_t>* keys = nullptr;
  uint64_t operator()(uint32_t id) const { return (*keys)[id]; }
};
using Index = AddrIndex<Keys>;

// The inverse of the (odd) Fibonacci multiplier mod 2^64, by Newton's iteration.
uint64_t inverse(uint64_t a) {
  uint64_t x = a;
  for (int i = 0; i < 6; ++i) x *= 2 - a * x;
  return x;
}

// A key whose hash product is p: key * kFibonacci == p (mod 2^64).
uint64_t key_with_product(uint64_t p) { return p * inverse(Index::kFibonacci); }

TEST(TlsfAddrIndex, CollidingKeysWrapAroundAndSurviveDeletions) {
  ASSERT_EQ(inverse(Index::kFibonacci) * Index::kFibonacci, 1u);
  std::vector<uint64_t> keys(1, 0);  // id 0 is "empty"
  Keys key_of{&keys};
  Index index;
  std::mt19937_64 rng(3);
  // 64 keys whose products share the top 16 bits, all ones: at every capacity up to 2^16 they
  // have the same home, the last slot, so the chain wraps around to slot 0 and beyond.
  constexpr int kN = 64;
  for (int k = 0; k < kN; ++k) {
    keys.push_back(key_with_product((uint64_t{0xFFFF} << 48) | (rng() >> 16)));
    index.insert(key_of, keys.back(), static_cast<uint32_t>(keys.size() - 1));
  }
  ASSERT_EQ(index.size(), size_t{kN});
  EXPECT_LE(index.size() << Index::kLoadShift, index.capacity());
  EXPECT_EQ(index.slot(keys[1]), index.capacity() - 1);
  EXPECT_EQ(index.max_probe(key_of), size_t{kN});  // one chain holding every key
  for (uint32_t id = 1; id <= kN; ++id) ASSERT_EQ(index.find(key_of, keys[id]), id);
  // A colliding key that is not present walks the whole chain and is not found.
  keys.push_back(key_with_product((uint64_t{0xFFFF} << 48) | 12345));
  EXPECT_EQ(index.find(key_of, keys.back()), Index::kEmpty);
  EXPECT_EQ(index.take(key_of, keys.back()), Index::kEmpty);
  EXPECT_EQ(index.size(), size_t{kN});
  // Delete in random order; after each deletion every remaining key is still found and the
  // deleted one is gone.
  std::vector<uint32_t> order;
  for (uint32_t id = 1; id <= kN; ++id) order.push_back(id);
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t k = 0; k < order.size(); ++k) {
    ASSERT_EQ(index.take(key_of, keys[order[k]]), order[k]);
    ASSERT_EQ(index.find(key_of, keys[order[k]]), Index::kEmpty);
    for (size_t r = k + 1; r < order.size(); ++r)
      ASSERT_EQ(index.find(key_of, keys[order[r]]), order[r]) << "after " << k << " deletions";
  }
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.max_probe(key_of), 0u);
}

// Random keys (with a few hot clusters) against std::unordered_map: inserts, deletions, misses,
// through several rehashes.
TEST(TlsfAddrIndex, RandomOperationsMatchAModel) {
  std::vector<uint64_t> keys(1, 0);
  Keys key_of{&keys};
  Index index;
  std::unordered_map<uint64_t, uint32_t> model;
  std::vector<uint64_t> present;
  std::mt19937_64 rng(11);
  size_t max_capacity = 0;
  for (int op = 0; op < 60000; ++op) {
    const unsigned r = rng() % 100;
    if (r < 55 || present.empty()) {
      // Half random keys, half keys sharing their top 12 hash bits with one of 8 hot products.
      const uint64_t key = rng() % 2 ? rng() & ~uint64_t{0xFF}
                                     : key_with_product(((rng() % 8) << 52) | (rng() >> 12));
      if (model.count(key)) continue;
      keys.push_back(key);
      const auto id = static_cast<uint32_t>(keys.size() - 1);
      index.insert(key_of, key, id);
      model[key] = id;
      present.push_back(key);
    } else if (r < 95) {
      const size_t k = rng() % present.size();
      const uint64_t key = present[k];
      present[k] = present.back();
      present.pop_back();
      ASSERT_EQ(index.take(key_of, key), model[key]);
      model.erase(key);
    } else {
      const uint64_t key = rng();
      ASSERT_EQ(index.find(key_of, key), model.count(key) ? model[key] : Index::kEmpty);
    }
    ASSERT_EQ(index.size(), model.size());
    max_capacity = std::max(max_capacity, index.capacity());
    if (op % 20000 == 0) {
      for (const auto& [key, id] : model) ASSERT_EQ(index.find(key_of, key), id);
    }
  }
  for (const auto& [key, id] : model) ASSERT_EQ(index.find(key_of, key), id);
  EXPECT_LE(index.size() << Index::kLoadShift, index.capacity());
  EXPECT_GE(max_capacity, size_t{1} << 15);  // grew through several rehashes
}

}  // namespace
}  // namespace rawgpu::memory::detail
