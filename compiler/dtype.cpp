#include "rawgpu/compiler/dtype.h"

#include <array>
#include <bit>
#include <cstring>
#include <limits>

namespace rawgpu::compiler {
namespace {

struct Info {
  std::string_view name;
  int itemsize;
  int bits;
  int64_t min;
  int64_t max;
};

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

constexpr std::array<Info, kNumDTypes> kInfo = {{
    {"void", 0, 0, 0, 0},
    {"bool", 1, 1, 0, 1},
    {"int8", 1, 8, -128, 127},
    {"int16", 2, 16, -32768, 32767},
    {"int32", 4, 32, -2147483648LL, 2147483647LL},
    {"int64", 8, 64, kI64Min, kI64Max},
    {"uint8", 1, 8, 0, 255},
    {"uint16", 2, 16, 0, 65535},
    {"uint32", 4, 32, 0, 4294967295LL},
    {"uint64", 8, 64, 0, kI64Max},
    {"float16", 2, 16, kI64Min, kI64Max},
    {"bfloat16", 2, 16, kI64Min, kI64Max},
    {"float32", 4, 32, kI64Min, kI64Max},
    {"float64", 8, 64, kI64Min, kI64Max},
    {"weakint", 0, 64, kI64Min, kI64Max},
    {"weakfloat", 0, 64, kI64Min, kI64Max},
    {"index", 0, 64, kI64Min, kI64Max},
}};

// Scalar info; a vector's lanes (an out-of-range scalar code, never made by vec(), reads void).
constexpr const Info& info(DType t) {
  const size_t i = static_cast<size_t>(scalar_of(t));
  return kInfo[i < kInfo.size() ? i : 0];
}

// "<base>x<lanes>" for every vector code (bits 5-7 = 1..4), built once.
struct VecNames {
  std::array<std::array<char, 16>, 256> names{};
  VecNames() {
    for (int code = 1; code <= 4; ++code)
      for (int b = 0; b < kNumDTypes; ++b) {
        auto& n = names[size_t(code << 5 | b)];
        const std::string_view base = kInfo[size_t(b)].name;
        std::memcpy(n.data(), base.data(), base.size());
        n[base.size()] = 'x';
        const int lanes = 1 << code;
        size_t k = base.size() + 1;
        if (lanes >= 10) n[k++] = char('0' + lanes / 10);
        n[k++] = char('0' + lanes % 10);
      }
  }
};
const VecNames& vec_names() {
  static const VecNames v;
  return v;
}

// The promotion lattice as "a -> its direct supertypes" edges (README: dtypes and promotion).
using Mask = uint32_t;
constexpr Mask bit(DType t) { return Mask{1} << static_cast<int>(t); }

constexpr Mask direct_supertypes(DType t) {
  switch (t) {
    case DType::kBool: return bit(DType::kWeakInt);
    case DType::kWeakInt: return bit(DType::kInt8) | bit(DType::kUInt8);
    case DType::kInt8: return bit(DType::kInt16);
    case DType::kInt16: return bit(DType::kInt32);
    case DType::kInt32: return bit(DType::kInt64);
    case DType::kInt64: return bit(DType::kWeakFloat);
    case DType::kUInt8: return bit(DType::kInt16) | bit(DType::kUInt16);
    case DType::kUInt16: return bit(DType::kInt32) | bit(DType::kUInt32);
    case DType::kUInt32: return bit(DType::kInt64) | bit(DType::kUInt64);
    case DType::kUInt64: return bit(DType::kWeakFloat);
    case DType::kWeakFloat: return bit(DType::kFloat16) | bit(DType::kBFloat16);
    case DType::kFloat16: return bit(DType::kFloat32);
    case DType::kBFloat16: return bit(DType::kFloat32);
    case DType::kFloat32: return bit(DType::kFloat64);
    default: return 0;
  }
}

// Reflexive-transitive closure: every type t may be promoted to.
constexpr std::array<Mask, kNumDTypes> make_upsets() {
  std::array<Mask, kNumDTypes> up{};
  for (int i = 0; i < kNumDTypes; ++i) up[i] = bit(static_cast<DType>(i));
  for (int round = 0; round < kNumDTypes; ++round)
    for (int i = 0; i < kNumDTypes; ++i) {
      Mask m = up[i];
      for (int j = 0; j < kNumDTypes; ++j)
        if (m & bit(static_cast<DType>(j))) m |= direct_supertypes(static_cast<DType>(j));
      up[i] = m;
    }
  return up;
}
constexpr std::array<Mask, kNumDTypes> kUpset = make_upsets();

constexpr bool in_lattice(DType t) { return t != DType::kVoid && t != DType::kIndex; }

}  // namespace

std::optional<DType> vec(DType base, int lanes) {
  if (is_vector(base) || static_cast<int>(base) >= kNumDTypes || base == DType::kBool ||
      itemsize(base) == 0)
    return std::nullopt;
  int code = 0;
  switch (lanes) {
    case 1: return base;
    case 2: code = 1; break;
    case 4: code = 2; break;
    case 8: code = 3; break;
    case 16: code = 4; break;
    default: return std::nullopt;
  }
  return static_cast<DType>(code << 5 | static_cast<int>(base));
}

int itemsize(DType t) { return info(t).itemsize * vcount(t); }
int bitwidth(DType t) { return info(t).bits * vcount(t); }
std::string_view dtype_name(DType t) {
  const size_t b = static_cast<size_t>(scalar_of(t));
  if (b >= kInfo.size() || vcount(t) > kMaxVecLanes) return "?";
  if (!is_vector(t)) return kInfo[b].name;
  return vec_names().names[static_cast<uint8_t>(t)].data();
}
std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].name == name) return static_cast<DType>(i);
  const size_t x = name.rfind('x');
  if (x == std::string_view::npos || x == 0) return std::nullopt;
  const std::string_view lanes = name.substr(x + 1);
  int n = 0;
  for (char ch : lanes) {
    if (ch < '0' || ch > '9' || n > kMaxVecLanes) return std::nullopt;
    n = n * 10 + (ch - '0');
  }
  if (lanes.empty() || lanes[0] == '0' || n == 1) return std::nullopt;
  const auto base = dtype_from_name(name.substr(0, x));
  if (!base || is_vector(*base)) return std::nullopt;
  return vec(*base, n);
}
int64_t dtype_min(DType t) { return info(t).min; }
int64_t dtype_max(DType t) { return info(t).max; }

std::optional<DType> join(DType a, DType b) {
  if (a == b) return a;
  if (is_vector(a) || is_vector(b)) return std::nullopt;
  if (a == DType::kIndex || b == DType::kIndex) {
    const DType other = a == DType::kIndex ? b : a;
    if (other == DType::kWeakInt || other == DType::kBool) return DType::kIndex;
    return std::nullopt;
  }
  if (!in_lattice(a) || !in_lattice(b)) return std::nullopt;
  const Mask common = kUpset[static_cast<int>(a)] & kUpset[static_cast<int>(b)];
  // The join is the member of `common` whose own upset is all of `common` (the lattice has a
  // unique least element in every common upset; tests check this for all pairs).
  for (int i = 0; i < kNumDTypes; ++i)
    if ((common & bit(static_cast<DType>(i))) && kUpset[i] == common) return static_cast<DType>(i);
  return std::nullopt;
}

std::optional<DType> promote(std::span<const DType> types) {
  if (types.empty()) return std::nullopt;
  DType acc = types[0];
  bool any_strong = !is_weak(acc);
  for (size_t i = 1; i < types.size(); ++i) {
    auto j = join(acc, types[i]);
    if (!j) return std::nullopt;
    acc = *j;
    any_strong |= !is_weak(types[i]);
  }
  if (any_strong && is_weak(acc)) return acc == DType::kWeakInt ? kDefaultInt : kDefaultFloat;
  return acc;
}

std::optional<DType> promote(DType a, DType b) {
  const DType both[] = {a, b};
  return promote(both);
}

std::optional<DType> promote_float(DType a) {
  if (is_float(a)) return a;
  return promote(a, DType::kWeakFloat);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal: renormalise. The value is mant * 2^-24; the leading one moves to bit 10.
    int e = 127 - 15 + 1;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    bits = sign | (static_cast<uint32_t>(e) << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

namespace {
// Rounds `m >> shift` to nearest, ties to even.
inline uint32_t shift_rne(uint32_t m, int shift) {
  if (shift >= 32) return 0;
  const uint32_t q = m >> shift;
  const uint32_t rem = m & ((uint32_t{1} << shift) - 1);
  const uint32_t half = uint32_t{1} << (shift - 1);
  return q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0);
}
}  // namespace

uint16_t float_to_half(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t exp = (u >> 23) & 0xffu;
  const uint32_t mant = u & 0x7fffffu;
  if (exp == 0xff) {
    if (mant == 0) return sign | 0x7c00u;
    return static_cast<uint16_t>(sign | 0x7e00u | (mant >> 13));  // quiet, payload kept in part
  }
  const int e = static_cast<int>(exp) - 127;
  if (e > 15) return sign | 0x7c00u;
  if (e >= -14) {
    // Normal range: the carry of the rounding may bump the exponent (up to infinity).
    const uint32_t v = (static_cast<uint32_t>(e + 15) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    const uint32_t r = v + ((rem > 0x1000u || (rem == 0x1000u && (v & 1))) ? 1 : 0);
    return static_cast<uint16_t>(sign | r);
  }
  if (exp == 0) return sign;  // float subnormals are far below half's smallest subnormal
  // Half subnormal (or zero): value / 2^-24 = (1.mant * 2^23) * 2^(e + 1).
  return static_cast<uint16_t>(sign | shift_rne(mant | 0x800000u, -(e + 1)));
}

float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_bf16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace rawgpu::compiler
