// The kernel optimizer's data model: the axes (RANGE loops) of one kernel AST, typed, and the
// opt actions that reshape them (split an axis, mark part of it for unrolling, reorder, pad).
//
//   OptKernel k = OptKernel::create(sink)      axes from the AST's RANGEs: output axes kLoop,
//                                              reduction axes kReduce (by kind, then axis id)
//   k.apply({OptOp::kUpcast, axis, 4})        validated; on failure a typed error (KernelOptErrc
//                                              in the message, see kernel_opt_errc) and k unchanged
//   k.ast()                                    the rewritten kernel AST (UPCAST/UNROLL expanded
//                                              into several scalar values per thread) for
//                                              lower()/linearize()/CpuRuntime/compile_gpu
//   k.gpu_options()                            LOCAL/GROUP/NOLOCALS as GpuOptions for gpu_lower
//   k.applied()                                the opts, in order: replaying them on the same AST
//                                              rebuilds the same kernel (same structural hash)
//
// Opts address axes by their current index in axes() (splits insert new axes, see apply()).
// Semantics (all amounts are constants; an axis with a symbolic size cannot be split):
//   UPCAST  a amt   output axis a: its innermost `amt` iterations become `amt` values computed by
//                   one iteration (amt 0 or the size: the axis itself is retyped in place,
//                   else a new kUpcast axis is appended).
//   UNROLL  a amt   reduction axis a: the same for a reduction (the REDUCE sums `amt` values per
//                   iteration; floating-point results may differ by reassociation).
//   THREAD  a amt   output axis a split so its outermost `amt` iterations are the parallel loop
//                   the CPU runtime splits across threads. New kThread axis at index 0.
//   SWAP    a b     exchange the nesting order of two output axes (or two reduction axes).
//   PADTO   a amt   round axis a up to a multiple of amt; the extra iterations read nothing
//                   (gated loads), write nothing (gated stores) and reduce the identity.
//   LOCAL   a amt   GPU: work-group size amt on output axis a (GpuOptions::local).
//   GROUP   a amt   GPU: reduction axis a (the only axis of its REDUCE) split over amt lanes of a
//                   work-group (GpuOptions::group); lanes are interleaved (strided).
//   GROUPTOP a amt  like GROUP, but lane l reduces the contiguous chunk [l*n/amt, (l+1)*n/amt)
//                   (GpuOptions::group_top); same preconditions and errors as GROUP.
//   NOLOCALS        GPU: work-group size 1 on every axis; no later LOCAL/GROUP.
//   TC      0 0     GPU: the kernel's matmul (f16/bf16 inputs, f32 accumulate) on the target's
//                   tensor cores (tensor_core.h); must be the only opt; M, N, K multiples of 16
//                   (every target's tile divides 16), else KernelOptError[not_divisible].
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/compiler/ir.h"

namespace rawgpu::compiler {

enum class AxisType : uint8_t {
  kGlobal,       // output axis mapped to GPU work-groups (reserved: gpu_lower maps kLoop axes)
  kThread,       // output axis split across CPU threads (outermost loop)
  kLocal,        // output axis with a GPU work-group size (LOCAL)
  kLoop,         // output axis: a loop
  kGroupReduce,  // reduction axis split over work-group lanes (GROUP)
  kReduce,       // reduction axis: a loop
  kUpcast,       // output axis expanded into values (no loop)
  kUnroll,       // reduction axis expanded into values (no loop)
};
std::string_view axis_type_name(AxisType t);
inline bool is_reduce_axis(AxisType t) {
  return t == AxisType::kGroupReduce || t == AxisType::kReduce || t == AxisType::kUnroll;
}

enum class OptOp : uint8_t {
  kUpcast,
  kUnroll,
  kThread,
  kSwap,
  kPadto,
  kLocal,
  kGroup,
  kGroupTop,
  kNoLocals,
  kTc,  // tensor cores (tensor_core.h): GpuOptions::tensor_cores; the first opt, "TC 0 0"
};
std::string_view opt_op_name(OptOp op);

struct Opt {
  OptOp op = OptOp::kUpcast;
  int64_t axis = 0;  // index into OptKernel::axes() (ignored by NOLOCALS)
  int64_t arg = 0;   // amount, or the other axis for SWAP
  bool operator==(const Opt&) const = default;
  std::string to_string() const;  // "UPCAST 1 4", "NOLOCALS"
};
// Inverse of Opt::to_string. Errors: kParse.
Result<Opt> parse_opt(std::string_view text);

// Why an opt was refused. The Error carries Errc::kInvalidArgument (kUnsupported for
// kUnsupported) and a message starting "KernelOptError[<name>]: ".
enum class KernelOptErrc : uint8_t {
  kBadAxis,        // axis index out of range (or SWAP with itself)
  kWrongAxisType,  // e.g. UPCAST on a reduction axis, UNROLL on an output axis
  kBadAmount,      // amount < 0, 1 where it changes nothing, or larger than the axis
  kNotDivisible,   // the axis size is not a multiple of the amount
  kSymbolicSize,   // the axis size is not a constant
  kTooLarge,       // expansion (upcast x unroll) beyond kMaxExpand values, or too many threads
  kConflict,       // a second THREAD/GROUP, LOCAL after NOLOCALS, GROUP with LOCAL, ...
  kNoEffect,       // PADTO on an axis that is already a multiple
  kUnsupported,    // valid request the lowering cannot do yet (GROUP/GROUPTOP of a REDUCE
                   // over several axes)
};
std::string_view kernel_opt_errc_name(KernelOptErrc c);
// The KernelOptErrc of an error produced by OptKernel::apply, or nullopt for other errors.
std::optional<KernelOptErrc> kernel_opt_errc(const Error& e);

struct KernelAxis {
  Ref range;  // the RANGE node in the current AST (unique axis id while optimizing)
  AxisType type = AxisType::kLoop;
  int64_t local = 0;     // LOCAL work-group size (kLocal), else 0
  int64_t size() const;  // constant size, or -1 when symbolic
};

class OptKernel {
 public:
  static constexpr int64_t kMaxExpand = 256;    // upcast x unroll values per iteration
  static constexpr int64_t kMaxLocal = 1024;    // threads per work-group (LOCAL product, GROUP)
  static constexpr int64_t kMaxThreads = 1024;  // THREAD amount

  // Errors: kInvalidArgument when `sink` is not a SINK of stores.
  static Result<OptKernel> create(Ref sink);

  std::span<const KernelAxis> axes() const { return axes_; }
  // The current AST before UPCAST/UNROLL expansion and renumbering (axes()' ranges occur in it).
  Ref sink() const { return sink_; }
  const std::vector<Opt>& applied() const { return applied_; }
  // Validates and applies one opt. On failure returns the typed error and leaves *this unchanged.
  Status apply(const Opt& opt);
  Status apply_all(std::span<const Opt> opts);

  // The optimized kernel AST: UPCAST/UNROLL axes expanded, every remaining axis renumbered by
  // its position in axes() (which fixes the loop nesting), THREAD outermost. Deterministic:
  // equal opts on an equal AST give the identical node.
  Ref ast() const;
  // LOCAL/GROUP/NOLOCALS for gpu_lower on ast() (other fields default).
  GpuOptions gpu_options() const;
  std::string to_string() const;  // "axes: 0:loop(16) 1:reduce(8) 2:upcast(4) | opts: ..."

 private:
  Ref sink_;
  std::vector<KernelAxis> axes_;
  std::vector<Opt> applied_;
  int64_t next_axis_id_ = 0;
  int64_t group_ = 0;
  bool group_top_ = false;
  bool nolocals_ = false;
  bool tc_ = false;
  Status apply_impl(const Opt& opt);
  Status apply_tc(const Opt& opt);
  Ref split(size_t i, int64_t amt, AxisType new_type, bool top);
};

// The hand-written CPU heuristic (applied by CpuRuntime::compile unless RAWGPU_NOOPT=1; see
// opt.cpp "CPU heuristic" for the steps). Returns the opts it chose, each already validated on
// a copy of `k` (so apply_all(result) on k succeeds); empty when nothing helps or when `k`
// already has opts applied. Only reassociates reductions; never changes what is computed.
struct HeuristicOptions {
  int threads = 1;  // CPU threads the runtime splits the parallel loop over
  // Register tile for matmul-like kernels: rows (the axis the first operand depends on) x
  // columns (the stride-1 output axis). Overridable with RAWGPU_GEMM_TILE=RxC for experiments.
  int64_t tile_rows = 4;
  int64_t tile_cols = 16;
  // pack_matmul_operand: on, and the least reduction length and row count that make it pay.
  bool pack = true;
  int64_t pack_min = 128;
};
std::vector<Opt> hand_coded_opts(const OptKernel& k, const HeuristicOptions& o = {});

// Operand packing for matmul-like kernels on the CPU. B (the operand read with stride 1 along
// the output columns) is usually read a row at a time down the reduction: row-major B with a
// power-of-two row length puts every row of a column panel in the same few cache sets (4 KiB
// aliasing) and on its own page. Packing copies B into column panels as wide as the register
// tile (matmul_tile_cols), each stored row after row, so the kernel reads one contiguous
// stream per panel. Returns nullopt when the kernel is not matmul-like, B's index is masked or
// not affine in the packed layout, or the matmul is too small (pack_min).
struct PackedOperand {
  Ref kernel;                // the kernel reading B's packed copy from slot `packed_slot`
  Ref pack;                  // the copy kernel: slot 0 = packed copy, slot 1 = B
  int64_t slot = -1;         // B's slot in the original kernel
  int64_t packed_slot = -1;  // one past the original kernel's last slot
  int64_t count = 0;         // elements of B (and of the packed copy)
};
std::optional<PackedOperand> pack_matmul_operand(Ref sink, const HeuristicOptions& o = {});

// compile_gpu of the optimized kernel: spec.gpu.applied_opts starts with one "OPT <opt>" entry
// per opt (then gpu_lower's own notes), so rebuild_opts(spec) + apply_all reproduces it.
Result<ProgramSpec> compile_gpu_optimized(Ref sink, std::string_view name, const GpuTarget& target,
                                          std::span<const Opt> opts, GpuOptions base = {});
// The opts recorded in applied_opts (entries starting "OPT "). Errors: kParse.
Result<std::vector<Opt>> rebuild_opts(std::span<const std::string> applied_opts);

}  // namespace rawgpu::compiler
