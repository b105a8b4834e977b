#include "rawgpu/compiler/dtype.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>

namespace rawgpu::compiler {
namespace {

constexpr DType kAll[] = {DType::kBool,    DType::kInt8,    DType::kInt16,    DType::kInt32,
                          DType::kInt64,   DType::kUInt8,   DType::kUInt16,   DType::kUInt32,
                          DType::kUInt64,  DType::kFloat16, DType::kBFloat16, DType::kFloat32,
                          DType::kFloat64, DType::kWeakInt, DType::kWeakFloat};

TEST(DType, NamesRoundTripAndSizes) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    auto back = dtype_from_name(dtype_name(t));
    ASSERT_TRUE(back.has_value()) << dtype_name(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_FALSE(dtype_from_name("float8").has_value());
  EXPECT_EQ(itemsize(DType::kBool), 1);
  EXPECT_EQ(itemsize(DType::kInt16), 2);
  EXPECT_EQ(itemsize(DType::kBFloat16), 2);
  EXPECT_EQ(itemsize(DType::kFloat64), 8);
  EXPECT_EQ(itemsize(DType::kUInt32), 4);
  EXPECT_EQ(itemsize(DType::kWeakInt), 0);
  EXPECT_EQ(itemsize(DType::kIndex), 0);
  EXPECT_EQ(dtype_min(DType::kInt8), -128);
  EXPECT_EQ(dtype_max(DType::kUInt16), 65535);
  EXPECT_EQ(dtype_min(DType::kInt32), -2147483648LL);
  EXPECT_EQ(dtype_max(DType::kUInt32), 4294967295LL);
  EXPECT_TRUE(is_float(DType::kBFloat16));
  EXPECT_TRUE(is_float(DType::kWeakFloat));
  EXPECT_FALSE(is_int(DType::kBool));
  EXPECT_TRUE(is_int(DType::kIndex));
  EXPECT_TRUE(is_unsigned_int(DType::kUInt64));
  EXPECT_FALSE(is_signed_int(DType::kUInt8));
}

TEST(DType, PromotionTable) {
  struct Case {
    DType a, b, want;
  };
  // Written by hand from the lattice in compiler/README.md.
  const Case cases[] = {
      {DType::kBool, DType::kBool, DType::kBool},
      {DType::kInt8, DType::kUInt8, DType::kInt16},
      {DType::kInt8, DType::kInt64, DType::kInt64},
      {DType::kUInt8, DType::kUInt16, DType::kUInt16},
      {DType::kInt8, DType::kUInt16, DType::kInt32},
      {DType::kInt16, DType::kUInt32, DType::kInt64},
      {DType::kUInt32, DType::kInt32, DType::kInt64},
      {DType::kInt64, DType::kUInt64, DType::kFloat32},  // joins at weak float -> default
      {DType::kInt32, DType::kFloat16, DType::kFloat16},
      {DType::kUInt64, DType::kBFloat16, DType::kBFloat16},
      {DType::kFloat16, DType::kBFloat16, DType::kFloat32},
      {DType::kFloat32, DType::kFloat64, DType::kFloat64},
      {DType::kBool, DType::kFloat16, DType::kFloat16},
      {DType::kBool, DType::kUInt8, DType::kUInt8},
      {DType::kInt8, DType::kWeakInt, DType::kInt8},
      {DType::kUInt16, DType::kWeakInt, DType::kUInt16},
      {DType::kInt32, DType::kWeakFloat, DType::kFloat32},
      {DType::kInt8, DType::kWeakFloat, DType::kFloat32},
      {DType::kFloat16, DType::kWeakFloat, DType::kFloat16},
      {DType::kBFloat16, DType::kWeakInt, DType::kBFloat16},
      {DType::kFloat64, DType::kWeakFloat, DType::kFloat64},
      {DType::kWeakInt, DType::kWeakFloat, DType::kWeakFloat},
      {DType::kWeakInt, DType::kWeakInt, DType::kWeakInt},
      {DType::kBool, DType::kWeakInt, DType::kInt32},
      {DType::kBool, DType::kWeakFloat, DType::kFloat32},
      {DType::kIndex, DType::kWeakInt, DType::kIndex},
  };
  for (const Case& c : cases) {
    auto ab = promote(c.a, c.b);
    auto ba = promote(c.b, c.a);
    ASSERT_TRUE(ab.has_value()) << dtype_name(c.a) << "+" << dtype_name(c.b);
    EXPECT_EQ(*ab, c.want) << dtype_name(c.a) << "+" << dtype_name(c.b) << " gave "
                           << dtype_name(*ab);
    ASSERT_TRUE(ba.has_value());
    EXPECT_EQ(*ba, c.want);
  }
  EXPECT_FALSE(promote(DType::kIndex, DType::kFloat32).has_value());
  EXPECT_FALSE(promote(DType::kVoid, DType::kInt32).has_value());
  EXPECT_EQ(promote_float(DType::kInt16), DType::kFloat32);
  // n-ary promotion joins first and materialises once: int8 + uint64 + float16 is float16
  // (pairwise materialisation would give float32).
  const DType three[] = {DType::kInt8, DType::kUInt64, DType::kFloat16};
  EXPECT_EQ(promote(three), DType::kFloat16);
  EXPECT_EQ(promote_float(DType::kBFloat16), DType::kBFloat16);
}

TEST(DType, PromotionIsALatticeJoin) {
  // For every pair: defined, commutative, an upper bound of both (promote(a, r) == r), and
  // associative over all triples.
  for (DType a : kAll)
    for (DType b : kAll) {
      auto r = promote(a, b);
      ASSERT_TRUE(r.has_value()) << dtype_name(a) << "+" << dtype_name(b);
      EXPECT_EQ(promote(b, a), r);
      if (!is_weak(*r)) {
        EXPECT_EQ(promote(a, *r), r) << dtype_name(a) << " " << dtype_name(*r);
        EXPECT_EQ(promote(b, *r), r);
      }
      // A strong operand never yields a weak result.
      if (!is_weak(a) || !is_weak(b)) {
        EXPECT_FALSE(is_weak(*r));
      }
      // Floats never promote to integers, and a float operand keeps the result a float.
      if (is_float(a) || is_float(b)) {
        EXPECT_TRUE(is_float(*r));
      }
    }
  for (DType a : kAll)
    for (DType b : kAll)
      for (DType c : kAll) {
        EXPECT_EQ(join(*join(a, b), c), join(a, *join(b, c)))
            << dtype_name(a) << " " << dtype_name(b) << " " << dtype_name(c);
        const DType abc[] = {a, b, c}, cba[] = {c, b, a};
        EXPECT_EQ(promote(abc), promote(cba));
      }
}

// Independent reference: the binary16 value of a bit pattern by its definition.
double half_reference(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 31, mant = h & 1023;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);
  } else if (exp == 31) {
    v = mant ? std::nan("") : HUGE_VAL;
  } else {
    v = std::ldexp(1024.0 + mant, exp - 25);
  }
  return sign ? -v : v;
}

double bf16_reference(uint16_t b) {
  const int sign = b >> 15, exp = (b >> 7) & 255, mant = b & 127;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -133);
  } else if (exp == 255) {
    v = mant ? std::nan("") : HUGE_VAL;
  } else {
    v = std::ldexp(128.0 + mant, exp - 134);
  }
  return sign ? -v : v;
}

bool same_value(double want, float got) {
  if (std::isnan(want)) return std::isnan(got);
  return static_cast<double>(got) == want && std::signbit(want) == std::signbit(got);
}

TEST(DType, HalfToFloatAllPatterns) {
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_TRUE(same_value(half_reference(static_cast<uint16_t>(h)),
                           half_to_float(static_cast<uint16_t>(h))))
        << std::hex << h;
}

TEST(DType, Bf16ToFloatAllPatterns) {
  for (uint32_t b = 0; b < 65536; ++b)
    ASSERT_TRUE(same_value(bf16_reference(static_cast<uint16_t>(b)),
                           bf16_to_float(static_cast<uint16_t>(b))))
        << std::hex << b;
}

// Checks float -> 16-bit rounding for every pattern: exact values round-trip, and around each
// pair of neighbouring finite values the midpoint ties to the even pattern while the floats just
// below/above it round down/up. `to16` is the conversion, `ref` the reference decoder.
template <class To16, class Ref>
void check_rounding(To16 to16, Ref ref, uint16_t max_finite) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t p = static_cast<uint16_t>(h);
    const double v = ref(p);
    if (std::isnan(v)) {
      const uint16_t q = to16(static_cast<float>(v));
      ASSERT_TRUE(std::isnan(ref(q))) << std::hex << h;
      continue;
    }
    ASSERT_EQ(to16(static_cast<float>(v)), p) << std::hex << h;
    const uint16_t mag = p & 0x7fff;
    if (mag >= max_finite) continue;
    // Next pattern away from zero (same sign) and the midpoint between them; the midpoint of two
    // neighbouring 16-bit values is exact in float.
    const uint16_t next = static_cast<uint16_t>(p + 1);
    const double mid = (v + ref(next)) / 2;
    const float fmid = static_cast<float>(mid);
    ASSERT_EQ(static_cast<double>(fmid), mid);
    const uint16_t even = (p & 1) ? next : p;
    ASSERT_EQ(to16(fmid), even) << std::hex << h;
    const float toward = std::nextafter(fmid, 0.0f);
    const float away = std::nextafter(fmid, std::signbit(fmid) ? -INFINITY : INFINITY);
    ASSERT_EQ(to16(toward), p) << std::hex << h;
    ASSERT_EQ(to16(away), next) << std::hex << h;
  }
}

TEST(DType, FloatToHalfRoundingAllPatterns) {
  check_rounding(float_to_half, half_reference, 0x7bff);
  // Above the largest finite half (65504) the midpoint to the next binade (65520) ties to even,
  // which is infinity; just below it stays finite.
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
  EXPECT_EQ(float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7bff);
  EXPECT_EQ(float_to_half(-1e30f), 0xfc00);
  EXPECT_EQ(float_to_half(1e-30f), 0x0000);
  EXPECT_EQ(float_to_half(-1e-30f), 0x8000);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 2^-24 -> 0
  EXPECT_EQ(float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::denorm_min()), 0x0000);
  // Signalling NaN with a payload only in the low bits stays a NaN.
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::bit_cast<float>(0x7f800001u)))));
}

TEST(DType, FloatToBf16RoundingAllPatterns) {
  check_rounding(float_to_bf16, bf16_reference, 0x7f7f);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to infinity
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x7f800001u)) & 0x7fc0, 0x7fc0);  // quiet NaN
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0xff800001u)) & 0xffc0, 0xffc0);
}

#if defined(__FLT16_MAX__) && (defined(__x86_64__) || defined(__aarch64__))
// Second, independent oracle: the compiler's own _Float16 conversions (libgcc/compiler-rt).
TEST(DType, FloatToHalfMatchesCompilerFloat16) {
  uint32_t seed = 12345;
  for (int i = 0; i < 1 << 20; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const float f = std::bit_cast<float>(seed);
    if (std::isnan(f)) continue;
    const _Float16 h = static_cast<_Float16>(f);
    ASSERT_EQ(float_to_half(f), std::bit_cast<uint16_t>(h)) << std::hex << seed;
  }
}
#endif

// Vector dtypes: vec(base, lanes) for storable non-bool scalars and 2/4/8/16 lanes; the kind
// predicates describe the lanes; sizes scale; names round-trip.
TEST(DType, VectorTypes) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType b = static_cast<DType>(i);
    EXPECT_FALSE(is_vector(b));
    EXPECT_EQ(vcount(b), 1);
    EXPECT_EQ(scalar_of(b), b);
    for (int lanes : {2, 4, 8, 16}) {
      const auto v = vec(b, lanes);
      const bool ok = itemsize(b) > 0 && b != DType::kBool;
      ASSERT_EQ(v.has_value(), ok) << dtype_name(b) << " x" << lanes;
      if (!ok) continue;
      EXPECT_TRUE(is_vector(*v));
      EXPECT_EQ(vcount(*v), lanes);
      EXPECT_EQ(scalar_of(*v), b);
      EXPECT_EQ(itemsize(*v), lanes * itemsize(b));
      EXPECT_EQ(bitwidth(*v), lanes * bitwidth(b));
      EXPECT_EQ(is_float(*v), is_float(b));
      EXPECT_EQ(is_int(*v), is_int(b));
      EXPECT_EQ(is_signed_int(*v), is_signed_int(b));
      EXPECT_FALSE(has_int_bounds(*v));
      EXPECT_FALSE(vec(*v, 2).has_value());  // no vectors of vectors
      EXPECT_FALSE(join(*v, b).has_value());
      EXPECT_EQ(join(*v, *v), *v);
      const std::string name(dtype_name(*v));
      EXPECT_EQ(name, std::string(dtype_name(b)) + "x" + std::to_string(lanes));
      EXPECT_EQ(dtype_from_name(name), v);
    }
    EXPECT_EQ(vec(b, 1),
              itemsize(b) > 0 && b != DType::kBool ? std::optional<DType>(b) : std::nullopt);
    for (int lanes : {0, 3, 5, 32, -4}) EXPECT_FALSE(vec(b, lanes).has_value()) << lanes;
  }
  EXPECT_EQ(dtype_name(*vec(DType::kFloat32, 4)), "float32x4");
  EXPECT_EQ(dtype_name(*vec(DType::kFloat16, 16)), "float16x16");
  for (const char* bad : {"float32x3", "float32x1", "float32x", "x4", "boolx4", "float32x04",
                          "indexx4", "float32x4x2", "float32x999999999999"})
    EXPECT_FALSE(dtype_from_name(bad).has_value()) << bad;
}

}  // namespace
}  // namespace rawgpu::compiler
