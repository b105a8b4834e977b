// Tensor cores: matrix-multiply instructions that one wave (warp) executes together.
//
//   tc_match(sink)             recognises a matmul kernel: one STORE of (an expression of) a
//                              REDUCE ADD (f32) over MUL(CAST(LOAD a), CAST(LOAD b)) with a and b
//                              both f16 or both bf16, two constant output axes (M of a, N of b)
//                              and one constant reduction axis K read by both loads
//   tc_lower(sink, tc)         rewrites it for one tensor core: one wave per M×N tile
//                              (gidx1 = M/m, gidx0 = N/n, lidx0 = the wave's lanes); per K step
//                              each lane loads its A and B fragment elements, WMMA(A..., B...)
//                              multiplies the tiles, REDUCE ADD over the K steps accumulates the
//                              fragment (the back end feeds the accumulator into the instruction),
//                              and GEP(acc, e) stores each of the lane's C elements.
//
// The IR carries fragments as two ops: WMMA (dtype f32, sources = the lane's A elements then its B
// elements, arg ints {TcKind, a_elems, b_elems, c_elems}; its value is a vector of c_elems f32)
// and GEP (one element of a WMMA fragment or of a REDUCE over one, arg = the element). The
// lane→element maps of each instruction are in tensor_core.cpp with their sources.
//
// Errors are typed KernelOptErrors (kernel_opt_errc in opt.h): not a matmul / wrong dtypes →
// kUnsupported, sizes not multiples of the instruction tile → kNotDivisible, symbolic sizes →
// kSymbolicSize.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/compiler/ir.h"

namespace rawgpu::compiler {

enum class TcKind : uint8_t {
  kRdna3Wmma,  // gfx11: v_wmma_f32_16x16x16_{f16,bf16}, wave32, A/B replicated in both half-waves
  kRdna4Wmma,  // gfx12: same mnemonic, 8-element A/B vectors, K split across the half-waves
  kCdna3Mfma,  // gfx942: v_mfma_f32_16x16x16_f16 / v_mfma_f32_16x16x16_bf16 (the ".1k" form)
  kNvMmaSync,  // sm_80+: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
};

struct TensorCore {
  TcKind kind = TcKind::kRdna3Wmma;
  std::string_view name;         // "rdna3-wmma"
  std::string_view instruction;  // what the disassembly / PTX shows (f16 form)
  int64_t m = 16, n = 16, k = 16;
  uint32_t lanes = 32;
  int64_t a_elems = 0, b_elems = 0, c_elems = 0;  // per lane
};

// The tensor core of a target; kUnsupported (with the reason) for targets without one (host).
Result<TensorCore> tensor_core_for(const GpuTarget& target);
// By kind (for the code generator and tests).
const TensorCore& tensor_core(TcKind kind);

// The matmul found by tc_match.
struct MatmulMatch {
  Ref store, reduce;   // the one STORE and its REDUCE ADD
  Ref a_load, b_load;  // the f16/bf16 LOADs (A[m, k], B[k, n])
  Ref m_range, n_range, k_range;
  int64_t m = 0, n = 0, k = 0;
  DType input = DType::kFloat16;
};
Result<MatmulMatch> tc_match(Ref sink);

// The lowered AST (SPECIAL launch ids, so gpu_lower keeps its geometry). `notes` gets the applied
// steps. Errors: as tc_match, plus kNotDivisible when M, N, K are not multiples of the tile.
Result<Ref> tc_lower(Ref sink, const TensorCore& tc, std::vector<std::string>* notes = nullptr);

}  // namespace rawgpu::compiler
