// Bit and alignment helpers.
//
// Hardware structures (PTEs, QMDs, PM4 packets, descriptors) are arrays of 32- or 64-bit words
// with fields that may straddle a word boundary. BitField names a field by absolute bit position
// in such an array; get_bits/set_bits read and write it for any unsigned word type.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

#include "rawgpu/base/error.h"

namespace rawgpu {

// ---------------------------------------------------------------------------------------------
// Single-value helpers
// ---------------------------------------------------------------------------------------------

// Mask with the low `width` bits set; width may be 0..64.
constexpr uint64_t low_mask(unsigned width) {
  return width >= 64 ? ~uint64_t{0} : ((uint64_t{1} << width) - 1);
}
// Bits [lo, lo+width) of v, shifted down.
constexpr uint64_t extract_bits(uint64_t v, unsigned lo, unsigned width) {
  return lo >= 64 ? 0 : (v >> lo) & low_mask(width);
}
// v with bits [lo, lo+width) replaced by the low bits of x.
constexpr uint64_t deposit_bits(uint64_t v, unsigned lo, unsigned width, uint64_t x) {
  const uint64_t m = low_mask(width) << lo;
  return (v & ~m) | ((x << lo) & m);
}
// True if x is representable in `width` unsigned bits.
constexpr bool fits_bits(uint64_t x, unsigned width) { return (x & ~low_mask(width)) == 0; }

constexpr bool is_pow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }
// floor(log2(x)); x must be nonzero.
constexpr unsigned log2_floor(uint64_t x) {
  RG_ASSERT(x != 0);
  return 63u - static_cast<unsigned>(std::countl_zero(x));
}
// ceil(log2(x)); x must be nonzero.
constexpr unsigned log2_ceil(uint64_t x) {
  RG_ASSERT(x != 0);
  return x == 1 ? 0u : 64u - static_cast<unsigned>(std::countl_zero(x - 1));
}
constexpr bool is_aligned(uint64_t x, uint64_t align) {
  return is_pow2(align) && (x & (align - 1)) == 0;
}
constexpr uint64_t align_down_pow2(uint64_t x, uint64_t align) {
  RG_ASSERT(is_pow2(align));
  return x & ~(align - 1);
}
// Unchecked: for compile-time constants and values already known to fit.
constexpr uint64_t align_up_pow2(uint64_t x, uint64_t align) {
  RG_ASSERT(is_pow2(align));
  return (x + align - 1) & ~(align - 1);
}

// Checked arithmetic on sizes and addresses: an error names the operation and the operands.
Result<uint64_t> checked_add(uint64_t a, uint64_t b);
Result<uint64_t> checked_sub(uint64_t a, uint64_t b);
Result<uint64_t> checked_mul(uint64_t a, uint64_t b);
// Rounds x up to a multiple of align (a power of two): kInvalidArgument if align is not a power
// of two, kOverflow if the result does not fit in 64 bits.
Result<uint64_t> align_up(uint64_t x, uint64_t align);
// Rounds x up to a multiple of any nonzero `multiple`.
Result<uint64_t> round_up(uint64_t x, uint64_t multiple);
// Smallest power of two >= x (x = 0 gives 1); kOverflow above 2^63.
Result<uint64_t> next_pow2(uint64_t x);
// Narrowing conversion that fails instead of truncating.
template <class To, class From>
Result<To> checked_cast(From v) {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  if (!std::in_range<To>(v))
    return make_error(Errc::kOverflow, "value %lld does not fit in a %zu-byte %s integer",
                      static_cast<long long>(v), sizeof(To),
                      std::is_signed_v<To> ? "signed" : "unsigned");
  return static_cast<To>(v);
}

// ---------------------------------------------------------------------------------------------
// Fields in word arrays
// ---------------------------------------------------------------------------------------------

// A field of `width` bits (1..64) starting at absolute bit `lo` of a little-endian array of
// words (bit 0 = bit 0 of word 0; bit 32 = bit 0 of word 1 for 32-bit words).
struct BitField {
  uint32_t lo = 0;
  uint32_t width = 0;

  // NVIDIA-style "hi:lo" inclusive bit range, e.g. bit_range(63, 32).
  static constexpr BitField range(uint32_t hi, uint32_t lo) { return {lo, hi - lo + 1}; }
  // Field inside word `word` (of `word_bits` bits) at bits [hi:lo] of that word.
  static constexpr BitField in_word(uint32_t word, uint32_t hi, uint32_t lo,
                                    uint32_t word_bits = 32) {
    return {word * word_bits + lo, hi - lo + 1};
  }
  constexpr uint32_t hi() const { return lo + width - 1; }
  constexpr uint64_t max_value() const { return low_mask(width); }
  constexpr bool valid() const { return width >= 1 && width <= 64; }
  // True if the field lies within `words` words of `word_bits` bits.
  constexpr bool fits_in(size_t words, uint32_t word_bits) const {
    return valid() && uint64_t{lo} + width <= uint64_t{words} * word_bits;
  }
  constexpr bool overlaps(const BitField& o) const {
    return lo < o.lo + o.width && o.lo < lo + width;
  }
  friend constexpr bool operator==(const BitField&, const BitField&) = default;
};

template <class W>
concept HardwareWord = std::is_same_v<W, uint8_t> || std::is_same_v<W, uint16_t> ||
                       std::is_same_v<W, uint32_t> || std::is_same_v<W, uint64_t>;

// Reads a field. Precondition: f.fits_in(words.size(), bits of W) (asserted).
template <HardwareWord W>
constexpr uint64_t get_bits(std::span<const W> words, BitField f) {
  constexpr unsigned kWordBits = sizeof(W) * 8;
  RG_ASSERT(f.fits_in(words.size(), kWordBits));
  uint64_t out = 0;
  unsigned done = 0;
  while (done < f.width) {
    const unsigned bit = f.lo + done;
    const unsigned in_word = bit % kWordBits;
    const unsigned take = std::min<unsigned>(kWordBits - in_word, f.width - done);
    out |= extract_bits(words[bit / kWordBits], in_word, take) << done;
    done += take;
  }
  return out;
}
template <HardwareWord W>
constexpr uint64_t get_bits(std::span<W> words, BitField f) {
  return get_bits(std::span<const W>(words), f);
}

// Writes the low f.width bits of `value` into the field, leaving other bits untouched.
// Precondition: the field fits in the array (asserted). Bits of `value` above the field width
// are dropped: use set_bits_checked for values that come from outside.
template <HardwareWord W>
constexpr void set_bits(std::span<W> words, BitField f, uint64_t value) {
  constexpr unsigned kWordBits = sizeof(W) * 8;
  RG_ASSERT(f.fits_in(words.size(), kWordBits));
  unsigned done = 0;
  while (done < f.width) {
    const unsigned bit = f.lo + done;
    const unsigned in_word = bit % kWordBits;
    const unsigned take = std::min<unsigned>(kWordBits - in_word, f.width - done);
    W& w = words[bit / kWordBits];
    w = static_cast<W>(deposit_bits(w, in_word, take, value >> done));
    done += take;
  }
}

// Like set_bits but returns kOutOfRange if the field does not fit in the array or `value` does
// not fit in the field; the words are unchanged on error.
template <HardwareWord W>
Status set_bits_checked(std::span<W> words, BitField f, uint64_t value) {
  constexpr unsigned kWordBits = sizeof(W) * 8;
  if (!f.fits_in(words.size(), kWordBits))
    return make_error(Errc::kOutOfRange, "bit field [%u:%u] lies outside a %zu-bit structure",
                      f.valid() ? f.hi() : f.lo, f.lo, words.size() * kWordBits);
  if (!fits_bits(value, f.width))
    return make_error(Errc::kOutOfRange,
                      "value 0x%llx does not fit in the %u-bit field [%u:%u] (max 0x%llx)",
                      static_cast<unsigned long long>(value), f.width, f.hi(), f.lo,
                      static_cast<unsigned long long>(f.max_value()));
  set_bits(words, f, value);
  return {};
}

}  // namespace rawgpu
