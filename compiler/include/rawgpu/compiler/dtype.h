// Scalar element types of the tensor compiler, their promotion lattice and the half/bfloat16
// conversions. See compiler/README.md ("dtypes and promotion") for the lattice.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rawgpu::compiler {

// Element type. Scalars are the enumerators below; a vector type (vec(base, n): n lanes of a
// scalar base, n in 2, 4, 8, 16) packs log2(n) into bits 5-7 of the same byte, so a DType stays
// one byte and every scalar keeps its value. There are no pointer dtypes: buffers carry their
// element type, memory space lives in the defining node's arg. The numeric values are stable
// (they feed the structural hash) and order canonical forms; append new scalars at the end
// (at most 32).
enum class DType : uint8_t {
  kVoid = 0,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  // Weak types: the type of a literal scalar ("x + 3", "x * 0.5"). They adopt the other
  // operand's type under promotion and cannot be stored in a buffer.
  kWeakInt,
  kWeakFloat,
  // Index arithmetic: an unbounded integer that index narrowing later commits to int32/int64.
  kIndex,
};
inline constexpr int kNumDTypes = static_cast<int>(DType::kIndex) + 1;  // scalar types

// Vector types (see above). The kind predicates below (is_float, is_int, ...) describe the
// lanes, so is_float(vec(kFloat32, 4)) holds; has_int_bounds is false for vectors.
inline constexpr int kMaxVecLanes = 16;
constexpr DType scalar_of(DType t) { return static_cast<DType>(static_cast<uint8_t>(t) & 31u); }
constexpr bool is_vector(DType t) { return (static_cast<uint8_t>(t) >> 5) != 0; }
// Lanes: 1 for a scalar.
constexpr int vcount(DType t) { return 1 << (static_cast<uint8_t>(t) >> 5); }
// The vector of `lanes` x `base` (lanes 1: base itself); nullopt unless base is a storable
// non-bool scalar (ints, floats) and lanes is 1, 2, 4, 8 or 16.
std::optional<DType> vec(DType base, int lanes);

constexpr bool is_bool(DType t) { return scalar_of(t) == DType::kBool; }
constexpr bool is_float(DType t) {
  const DType s = scalar_of(t);
  return (s >= DType::kFloat16 && s <= DType::kFloat64) || s == DType::kWeakFloat;
}
constexpr bool is_signed_int(DType t) {
  const DType s = scalar_of(t);
  return (s >= DType::kInt8 && s <= DType::kInt64) || s == DType::kWeakInt || s == DType::kIndex;
}
constexpr bool is_unsigned_int(DType t) {
  return scalar_of(t) >= DType::kUInt8 && scalar_of(t) <= DType::kUInt64;
}
// Integers including index and weak int, excluding bool.
constexpr bool is_int(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
constexpr bool is_weak(DType t) { return t == DType::kWeakInt || t == DType::kWeakFloat; }
// Types whose value bounds (vmin/vmax) the IR tracks exactly: scalar bool and all integers.
constexpr bool has_int_bounds(DType t) { return !is_vector(t) && (is_bool(t) || is_int(t)); }

// Size in bytes when stored; 0 for void and the types that cannot be stored (weak, index).
// Vectors: lanes x the base's size.
int itemsize(DType t);
// Bit width of the value (bool is 1; index and weak int are treated as 64 bits; void 0).
// Vectors: lanes x the base's width.
int bitwidth(DType t);
// "float32", "bfloat16", "weakint", "index", "float32x4", ...
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);

// Representable range of an integer or bool type (index and weak int: the int64 range; uint64's
// maximum is clamped to INT64_MAX because bounds are tracked as int64); a vector's lane range.
// Precondition: has_int_bounds(scalar_of(t)).
int64_t dtype_min(DType t);
int64_t dtype_max(DType t);

// The strong types a weak type becomes when it must be materialised: int32 and float32.
inline constexpr DType kDefaultInt = DType::kInt32;
inline constexpr DType kDefaultFloat = DType::kFloat32;

// Least upper bound of two types in the promotion lattice (README: "dtypes and promotion"),
// possibly a weak type. Associative and commutative. nullopt for void, and for index with
// anything but index, weak int and bool.
std::optional<DType> join(DType a, DType b);
// The result type of an operation on operands of these types: the join of all of them; if that
// is weak although some operand was strong, the default strong type of that kind (int64 +
// uint64 = float32). Weak types therefore adopt the strong operand's type (int8 + 3 is int8).
std::optional<DType> promote(std::span<const DType> types);
std::optional<DType> promote(DType a, DType b);
// promote() to at least a float type (for division, exp, ...).
std::optional<DType> promote_float(DType a);

// IEEE binary16 and bfloat16 conversions. float -> 16 bit rounds to nearest, ties to even,
// overflows to infinity, keeps the sign of zeros and turns NaNs into quiet NaNs (payload
// truncated, never into infinity). 16 bit -> float is exact.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t b);
uint16_t float_to_bf16(float f);

}  // namespace rawgpu::compiler
