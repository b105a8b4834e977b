// The TLSF allocator's address index: an open-addressing hash set of node ids keyed by a 64-bit
// address (linear probing, backward-shift deletion, Fibonacci hashing). Private to memory/
// (tlsf.cpp and its tests).
//
// A slot is just the 4-byte node id; the key is read through `key_of(id)` (the allocator reads
// it from the node, which free() touches next anyway, so a hit costs no extra cache line; KeyOf
// is a pointer-sized functor passed by value, so the inlined insert() does not spill it to the
// stack for the out-of-line rehash()). The load factor stays <= 1/16: the table then takes 64
// bytes per live allocation and probe chains are almost always one slot long, which keeps the
// probe loops predictable. Id 0 means "empty" and is never stored.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rawgpu::memory::detail {

template <class KeyOf>
class AddrIndex {
 public:
  static constexpr uint32_t kEmpty = 0;
  static constexpr unsigned kLoadShift = 4;  // size() <= capacity() / 16

  AddrIndex() { rehash(KeyOf{}, 64); }

  // The id stored under key, or kEmpty.
  uint32_t find(KeyOf key_of, uint64_t key) const {
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      const uint32_t n = slots_[i];
      if (n == kEmpty || key_of(n) == key) return n;
    }
  }
  // Makes room for one insert_reserved(): grows the table now if the next entry would pass the
  // load limit. The allocator calls it before it changes anything, so that a host bad_alloc
  // leaves it as it was (rehash either completes or changes nothing).
  void reserve_one(KeyOf key_of) {
    if (count_ >= grow_at_) [[unlikely]]
      rehash(key_of, (mask_ + 1) * 2);
  }
  // Adds id (not kEmpty) under key_of(id) == key, which must not be present.
  void insert(KeyOf key_of, uint64_t key, uint32_t id) {
    reserve_one(key_of);
    insert_reserved(key, id);
  }
  // insert() after reserve_one() (no allocation, cannot fail).
  void insert_reserved(uint64_t key, uint32_t id) {
    ++count_;
    uint32_t* s = slots_.data();
    size_t i = slot(key);
    while (s[i] != kEmpty) i = (i + 1) & mask_;
    s[i] = id;
  }
  // Removes key and returns its id, or kEmpty (nothing changed) if it is not present.
  uint32_t take(KeyOf key_of, uint64_t key) {
    uint32_t* s = slots_.data();
    size_t i = slot(key);
    uint32_t id;
    for (;; i = (i + 1) & mask_) {
      id = s[i];
      if (id == kEmpty) return kEmpty;
      if (key_of(id) == key) break;
    }
    // Backward shift: move later entries of the probe chain into the hole.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; s[j] != kEmpty; j = (j + 1) & mask_) {
      // Entry j may move to `hole` if its home is not in (hole, j] (cyclically). Whether it may
      // is a coin flip, so the move is done with selects: the hole's slot is rewritten with its
      // own value when the entry stays.
      const uint32_t e = s[j];
      const size_t home = slot(key_of(e));
      const size_t move = 0 - size_t{((j - home) & mask_) >= ((j - hole) & mask_)};  // all ones
      s[hole] ^= (s[hole] ^ e) & static_cast<uint32_t>(move);
      hole ^= (hole ^ j) & move;
    }
    s[hole] = kEmpty;
    --count_;
    return id;
  }
  size_t size() const { return count_; }
  size_t capacity() const { return mask_ + 1; }
  // Longest probe sequence (slots inspected by a successful find). O(capacity).
  size_t max_probe(KeyOf key_of) const {
    size_t worst = 0;
    for (size_t i = 0; i <= mask_; ++i)
      if (slots_[i] != kEmpty) worst = std::max(worst, ((i - slot(key_of(slots_[i]))) & mask_) + 1);
    return worst;
  }
  // Home slot of a key (tests use it to build colliding keys).
  size_t slot(uint64_t key) const { return home(key, shift_); }
  static constexpr uint64_t kFibonacci = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio, odd

 private:
  static size_t home(uint64_t key, unsigned shift) {
    return static_cast<size_t>((key * kFibonacci) >> shift);
  }
  // Strong guarantee: the new table is allocated before anything changes.
  [[gnu::noinline]] void rehash(KeyOf key_of, size_t capacity) {
    std::vector<uint32_t> fresh(capacity, kEmpty);
    const size_t mask = capacity - 1;
    const unsigned shift = 64u - static_cast<unsigned>(std::countr_zero(capacity));
    for (const uint32_t o : slots_) {
      if (o == kEmpty) continue;
      size_t i = home(key_of(o), shift);
      while (fresh[i] != kEmpty) i = (i + 1) & mask;
      fresh[i] = o;
    }
    slots_.swap(fresh);
    mask_ = mask;
    grow_at_ = capacity >> kLoadShift;
    shift_ = shift;
  }
  std::vector<uint32_t> slots_;
  size_t mask_ = 0;
  size_t grow_at_ = 0;  // capacity / 16: more entries than this trigger a rehash
  unsigned shift_ = 0;
  size_t count_ = 0;
};

}  // namespace rawgpu::memory::detail
