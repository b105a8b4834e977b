#include "rawgpu/base/bits.h"

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

namespace rawgpu {
namespace {

// Bit-at-a-time reference model for fields in word arrays.
template <class W>
uint64_t ref_get(const std::vector<W>& w, unsigned lo, unsigned width) {
  constexpr unsigned kBits = sizeof(W) * 8;
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lo + i;
    v |= static_cast<uint64_t>((w[bit / kBits] >> (bit % kBits)) & 1) << i;
  }
  return v;
}
template <class W>
void ref_set(std::vector<W>& w, unsigned lo, unsigned width, uint64_t value) {
  constexpr unsigned kBits = sizeof(W) * 8;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lo + i;
    const W m = static_cast<W>(W{1} << (bit % kBits));
    if ((value >> i) & 1)
      w[bit / kBits] |= m;
    else
      w[bit / kBits] &= static_cast<W>(~m);
  }
}

TEST(Bits, SingleWordHelpers) {
  EXPECT_EQ(low_mask(0), 0u);
  EXPECT_EQ(low_mask(12), 0xfffu);
  EXPECT_EQ(low_mask(64), ~uint64_t{0});
  EXPECT_EQ(extract_bits(0xabcd'1234'5678'9abcull, 16, 16), 0x5678u);
  EXPECT_EQ(extract_bits(0x8000'0000'0000'0000ull, 63, 1), 1u);
  EXPECT_EQ(deposit_bits(0xffff'ffffull, 8, 8, 0x12), 0xffff'12ffull);
  EXPECT_EQ(deposit_bits(0, 60, 8, 0xff), 0xf000'0000'0000'0000ull) << "bits above 63 drop";
  EXPECT_TRUE(fits_bits(0xff, 8));
  EXPECT_FALSE(fits_bits(0x100, 8));
  EXPECT_TRUE(fits_bits(~uint64_t{0}, 64));
}

TEST(Bits, PowersAndLogs) {
  EXPECT_TRUE(is_pow2(1));
  EXPECT_TRUE(is_pow2(uint64_t{1} << 63));
  EXPECT_FALSE(is_pow2(0));
  EXPECT_FALSE(is_pow2(6));
  EXPECT_EQ(log2_floor(1), 0u);
  EXPECT_EQ(log2_floor(4095), 11u);
  EXPECT_EQ(log2_floor(4096), 12u);
  EXPECT_EQ(log2_ceil(1), 0u);
  EXPECT_EQ(log2_ceil(4096), 12u);
  EXPECT_EQ(log2_ceil(4097), 13u);
  EXPECT_EQ(log2_ceil(~uint64_t{0}), 64u);
  EXPECT_EQ(*next_pow2(0), 1u);
  EXPECT_EQ(*next_pow2(3), 4u);
  EXPECT_EQ(*next_pow2(uint64_t{1} << 63), uint64_t{1} << 63);
  EXPECT_EQ(next_pow2((uint64_t{1} << 63) + 1).error().code(), Errc::kOverflow);
}

TEST(Bits, AlignmentIsOverflowChecked) {
  EXPECT_EQ(*align_up(0, 4096), 0u);
  EXPECT_EQ(*align_up(1, 4096), 4096u);
  EXPECT_EQ(*align_up(4096, 4096), 4096u);
  EXPECT_EQ(*align_up(~uint64_t{0} - 4095, 4096), ~uint64_t{0} - 4095);
  auto over = align_up(~uint64_t{0} - 4094, 4096);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code(), Errc::kOverflow);
  auto bad = align_up(10, 24);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(align_up(10, 0).error().code(), Errc::kInvalidArgument);
  EXPECT_TRUE(is_aligned(0x200000, 0x200000));
  EXPECT_FALSE(is_aligned(0x201000, 0x200000));
  EXPECT_FALSE(is_aligned(16, 3));
  EXPECT_EQ(align_down_pow2(0x201234, 0x1000), 0x201000u);
  static_assert(align_up_pow2(5, 4) == 8);
  EXPECT_EQ(*round_up(10, 24), 24u);
  EXPECT_EQ(*round_up(48, 24), 48u);
  EXPECT_EQ(round_up(~uint64_t{0}, 10).error().code(), Errc::kOverflow);
  EXPECT_EQ(round_up(1, 0).error().code(), Errc::kInvalidArgument);
}

TEST(Bits, CheckedArithmetic) {
  EXPECT_EQ(*checked_add(1, 2), 3u);
  EXPECT_EQ(checked_add(~uint64_t{0}, 1).error().code(), Errc::kOverflow);
  EXPECT_EQ(*checked_sub(5, 5), 0u);
  EXPECT_EQ(checked_sub(4, 5).error().code(), Errc::kOverflow);
  EXPECT_EQ(*checked_mul(uint64_t{1} << 32, (uint64_t{1} << 31)), uint64_t{1} << 63);
  EXPECT_EQ(checked_mul(uint64_t{1} << 32, uint64_t{1} << 32).error().code(), Errc::kOverflow);
  EXPECT_EQ(*checked_cast<uint32_t>(uint64_t{0xffffffff}), 0xffffffffu);
  EXPECT_EQ(checked_cast<uint32_t>(uint64_t{1} << 32).error().code(), Errc::kOverflow);
  EXPECT_EQ(checked_cast<uint8_t>(-1).error().code(), Errc::kOverflow);
  EXPECT_EQ(*checked_cast<int8_t>(-128), -128);
}

TEST(BitField, RangeNotation) {
  constexpr BitField f = BitField::range(63, 32);
  static_assert(f.lo == 32 && f.width == 32 && f.hi() == 63);
  constexpr BitField g = BitField::in_word(3, 15, 8);
  static_assert(g.lo == 3 * 32 + 8 && g.width == 8);
  EXPECT_TRUE(f.overlaps(BitField::range(40, 33)));
  EXPECT_FALSE(f.overlaps(BitField::range(31, 0)));
  EXPECT_TRUE(f.fits_in(2, 32));
  EXPECT_FALSE(f.fits_in(1, 32));
  EXPECT_FALSE((BitField{0, 0}).valid());
  EXPECT_FALSE((BitField{0, 65}).valid());
}

TEST(BitField, FieldsAcrossWordBoundaries) {
  // A QMD-like 32-bit array: a 40-bit address field starting at bit 20 spans words 0..1.
  std::array<uint32_t, 4> w{};
  const BitField addr{20, 40};
  set_bits(std::span<uint32_t>(w), addr, 0xab'cdef'0123ull);
  EXPECT_EQ(w[0], 0x12300000u);
  EXPECT_EQ(w[1], 0xabcdef0u);
  EXPECT_EQ(w[2], 0u);
  EXPECT_EQ(get_bits(std::span<const uint32_t>(w), addr), 0xab'cdef'0123ull);
  // Neighbouring bits survive.
  w = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
  set_bits(std::span<uint32_t>(w), addr, 0);
  EXPECT_EQ(w[0], 0x000fffffu);
  EXPECT_EQ(w[1], 0xf0000000u);
  EXPECT_EQ(w[2], 0xffffffffu);
  // A 64-bit field spanning three 32-bit words, and a 128-bit dual PDE in 64-bit words.
  std::array<uint32_t, 3> x{};
  set_bits(std::span<uint32_t>(x), BitField{16, 64}, 0x0123'4567'89ab'cdefull);
  EXPECT_EQ(get_bits(std::span<const uint32_t>(x), BitField{16, 64}), 0x0123'4567'89ab'cdefull);
  EXPECT_EQ(x[0], 0xcdef0000u);
  EXPECT_EQ(x[2], 0x00000123u);
  std::array<uint64_t, 2> pde{};
  set_bits(std::span<uint64_t>(pde), BitField::range(101, 72), 0x3fff'ffffu);
  EXPECT_EQ(pde[0], 0u);
  EXPECT_EQ(pde[1], 0x3fff'ffffull << 8);
}

template <class W>
void randomized_against_reference(uint32_t seed) {
  std::mt19937_64 rng(seed);
  constexpr unsigned kWords = 6;
  constexpr unsigned kBits = kWords * sizeof(W) * 8;
  std::vector<W> a(kWords), b(kWords);
  for (int iter = 0; iter < 20000; ++iter) {
    const unsigned width = 1 + static_cast<unsigned>(rng() % 64);
    if (width > kBits) continue;
    const unsigned lo = static_cast<unsigned>(rng() % (kBits - width + 1));
    const uint64_t value = rng() & low_mask(width);
    ref_set(a, lo, width, value);
    set_bits(std::span<W>(b), BitField{lo, width}, value);
    ASSERT_EQ(a, b) << "seed " << seed << " lo " << lo << " width " << width;
    const unsigned rw = 1 + static_cast<unsigned>(rng() % 64);
    if (rw > kBits) continue;
    const unsigned rlo = static_cast<unsigned>(rng() % (kBits - rw + 1));
    ASSERT_EQ(get_bits(std::span<const W>(b), BitField{rlo, rw}), ref_get(a, rlo, rw))
        << "seed " << seed << " lo " << rlo << " width " << rw;
  }
}

TEST(BitField, RandomizedAgainstBitReference) {
  const uint32_t seed = std::random_device{}();
  randomized_against_reference<uint8_t>(seed);
  randomized_against_reference<uint16_t>(seed);
  randomized_against_reference<uint32_t>(seed);
  randomized_against_reference<uint64_t>(seed);
}

TEST(BitField, CheckedSetRejectsAndLeavesWordsUnchanged) {
  std::array<uint32_t, 2> w{0x11111111u, 0x22222222u};
  const auto before = w;
  Status too_big = set_bits_checked(std::span<uint32_t>(w), BitField{28, 8}, 0x100);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().code(), Errc::kOutOfRange);
  EXPECT_NE(too_big.error().message().find("[35:28]"), std::string::npos)
      << too_big.error().message();
  EXPECT_EQ(w, before);
  Status outside = set_bits_checked(std::span<uint32_t>(w), BitField{60, 8}, 1);
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code(), Errc::kOutOfRange);
  EXPECT_EQ(w, before);
  ASSERT_TRUE(set_bits_checked(std::span<uint32_t>(w), BitField{28, 8}, 0xff).ok());
  EXPECT_EQ(w[0], 0xf1111111u);
  EXPECT_EQ(w[1], 0x2222222fu);
}

}  // namespace
}  // namespace rawgpu
