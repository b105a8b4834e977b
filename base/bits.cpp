#include "rawgpu/base/bits.h"

namespace rawgpu {

namespace {
unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }
}  // namespace

Result<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return make_error(Errc::kOverflow, "0x%llx + 0x%llx overflows 64 bits", ull(a), ull(b));
  return r;
}

Result<uint64_t> checked_sub(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return make_error(Errc::kOverflow, "0x%llx - 0x%llx is negative", ull(a), ull(b));
  return r;
}

Result<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return make_error(Errc::kOverflow, "0x%llx * 0x%llx overflows 64 bits", ull(a), ull(b));
  return r;
}

Result<uint64_t> align_up(uint64_t x, uint64_t align) {
  if (!is_pow2(align))
    return make_error(Errc::kInvalidArgument, "alignment 0x%llx is not a power of two", ull(align));
  uint64_t r;
  if (__builtin_add_overflow(x, align - 1, &r))
    return make_error(Errc::kOverflow, "aligning 0x%llx up to 0x%llx overflows 64 bits", ull(x),
                      ull(align));
  return r & ~(align - 1);
}

Result<uint64_t> round_up(uint64_t x, uint64_t multiple) {
  if (multiple == 0)
    return make_error(Errc::kInvalidArgument, "cannot round up to a multiple of 0");
  const uint64_t rem = x % multiple;
  if (rem == 0) return x;
  uint64_t r;
  if (__builtin_add_overflow(x, multiple - rem, &r))
    return make_error(Errc::kOverflow, "rounding 0x%llx up to a multiple of 0x%llx overflows",
                      ull(x), ull(multiple));
  return r;
}

Result<uint64_t> next_pow2(uint64_t x) {
  if (x <= 1) return uint64_t{1};
  if (x > (uint64_t{1} << 63))
    return make_error(Errc::kOverflow, "no 64-bit power of two is >= 0x%llx", ull(x));
  return uint64_t{1} << log2_ceil(x);
}

}  // namespace rawgpu
