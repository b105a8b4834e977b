// Scalar element types of the tensor compiler, their promotion lattice and the half/bfloat16
// conversions. See compiler/README.md ("dtypes and promotion") for the lattice.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rawgpu::compiler {

// Scalar element type. There are no vector or pointer dtypes: buffers carry their element type,
// memory space lives in the defining node's arg. The numeric values are stable (they feed the
// structural hash) and order canonical forms; append new types at the end.
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
inline constexpr int kNumDTypes = static_cast<int>(DType::kIndex) + 1;

constexpr bool is_bool(DType t) { return t == DType::kBool; }
constexpr bool is_float(DType t) {
  return (t >= DType::kFloat16 && t <= DType::kFloat64) || t == DType::kWeakFloat;
}
constexpr bool is_signed_int(DType t) {
  return (t >= DType::kInt8 && t <= DType::kInt64) || t == DType::kWeakInt || t == DType::kIndex;
}
constexpr bool is_unsigned_int(DType t) { return t >= DType::kUInt8 && t <= DType::kUInt64; }
// Integers including index and weak int, excluding bool.
constexpr bool is_int(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
constexpr bool is_weak(DType t) { return t == DType::kWeakInt || t == DType::kWeakFloat; }
// Types whose value bounds (vmin/vmax) the IR tracks exactly: bool and all integers.
constexpr bool has_int_bounds(DType t) { return is_bool(t) || is_int(t); }

// Size in bytes when stored; 0 for void and the types that cannot be stored (weak, index).
int itemsize(DType t);
// Bit width of the value (bool is 1; index and weak int are treated as 64 bits; void 0).
int bitwidth(DType t);
// "float32", "bfloat16", "weakint", "index", ...
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);

// Representable range of an integer or bool type (index and weak int: the int64 range; uint64's
// maximum is clamped to INT64_MAX because bounds are tracked as int64). Precondition:
// has_int_bounds(t).
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
