// Transcendental lowering: EXP2, LOG2, SIN and POW rewritten into polynomial and range-reduction
// code made of plain IR ops (bit casts, integer shifts/masks, add/mul/fma, compares, where), for
// the (op, dtype) pairs a target's back end cannot lower itself. LLVM 19 has no float64
// exp2/log2/sin/pow for AMDGPU (no instructions, no libcalls) nor NVPTX (no f64 approximations
// in PTX, no pow at all), so those targets lower them here; the CPU keeps libm/LLVM intrinsics
// unless RAWGPU_SOFT_MATH=1.
//
// Accuracy (float64, measured against long-double libm by tests/compiler/transcendental_test.cpp,
// see compiler/README.md "Transcendental lowering"): exp2 and log2 within 1 ulp over the whole
// range (denormal inputs and results included), sin within 1 ulp for |x| < 2^20 (Cody-Waite
// reduction by pi/2 with a 4-part constant). For 2^20 <= |x| the reduction loses exactness: the
// result is sin of an argument within about ulp(x) of x (for |x| >= 2^52, where ulp(x) >= 1, that
// is any value in [-1, 1]). Special values follow C: exp2(-inf) = 0, exp2(+inf) = inf, overflow
// inf, gradual underflow; log2(+-0) = -inf, log2(x < 0) = NaN, log2(inf) = inf; sin(+-inf) = NaN,
// sin(-0) = -0; NaN in, NaN out. pow(x, y) = 2^(y*log2|x|) with log2 and the product in
// double-double: within 1.5 ulp (measured 0.96) while |y*log2(x)| < 64, within 32 ulp (measured
// 17, relative 4e-15) up to the overflow and underflow limits; C99's special cases exact.
#pragma once

#include <functional>

#include "rawgpu/compiler/gpu.h"
#include "rawgpu/compiler/ir.h"

namespace rawgpu::compiler {

// The expansions of one node's operation on x (built in x's Context). Null when x's dtype has no
// expansion (only float64 has one).
Ref soft_exp2(Ref x);
Ref soft_log2(Ref x);
Ref soft_sin(Ref x);
// pow(x, y): float64 directly, other float dtypes computed in float64 and rounded back.
Ref soft_pow(Ref x, Ref y);
// Whether `dtype` has an expansion of `op` (EXP2, LOG2, SIN on float64; POW on every float).
bool has_soft_math(Op op, DType dtype);

// The target hook: true when the back end of `target` cannot lower `op` on `dtype` natively and
// the expansion above must be used (AMD: float64 EXP2/LOG2/SIN/POW; NVIDIA: the same plus POW on
// every float dtype, which NVPTX cannot select). The host keeps its libm calls unless
// force_soft_math() (then the float64 ones are lowered).
bool needs_soft_math(const GpuTarget& target, Op op, DType dtype);
// RAWGPU_SOFT_MATH=1: lower on the CPU too (tests the expansions natively against libm).
bool force_soft_math();

// Replaces every EXP2/LOG2/SIN/POW node under `root` for which need(op, dtype) holds and an
// expansion exists; returns root itself when nothing changed.
using SoftMathPredicate = std::function<bool(Op, DType)>;
Ref lower_transcendentals(Ref root, const SoftMathPredicate& need);

}  // namespace rawgpu::compiler
