// Lowering and linearization: a kernel AST becomes a linear program of loops and instructions.
//
// Kernel AST accepted here (Stage::kKernel): SINK(STORE...) (an END(store, ranges...) around a
// store is accepted and means the same). Buffers are BUFFER nodes with arg (slot, ...); the
// ranges a STORE depends on are its output loops; REDUCE(value, ranges...) with arg ADD/MUL/MAX
// sums/multiplies/maximises `value` over its ranges. A masked access indexes with
// where(gate, idx, Invalid): a masked LOAD yields its second source (or 0) and reads nothing, a
// masked STORE writes nothing. RANGE args are (axis, axis_type); axis_type kAxisReduce marks a
// reduction loop, which the runtime never splits across threads.
//
// lower(): symbolic simplification of every index, then index narrowing (index -> int32 when
// bounds allow, else int64). Floor div/mod by constants is left to LLVM (it emits multiply-shift
// sequences on every target); transcendentals use LLVM intrinsics (libm on the CPU).
//
// linearize(): places every node in the shallowest loop nest that holds all its ranges and is
// visible to all its users (loop-invariant code is hoisted), turns each REDUCE into an
// accumulator (init before its loops, update in the innermost loop, read after), and orders each
// loop body by a priority topological sort (loads first, stores last, ties by node id, so the
// order is deterministic). verify_program() is the linear-program spec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/ir.h"

namespace rawgpu::compiler {

inline constexpr int64_t kAxisLoop = 0;    // an output loop (parallelisable)
inline constexpr int64_t kAxisReduce = 1;  // a reduction loop

enum class InstKind : uint8_t {
  kValue,      // compute `node` (an ALU op, CONST, LOAD, INDEX, DEFINE_VAR, BUFFER)
  kLoopBegin,  // open the loop of RANGE `node`; its value is the loop index
  kLoopEnd,    // close the loop of RANGE `node`
  kAccInit,    // set the accumulator of REDUCE `node` to the identity of its op
  kAccUpdate,  // acc = acc <op> src(0) of REDUCE `node`
  kAccRead,    // the value of REDUCE `node` (after its loops)
  kStore,      // STORE `node` (gated when its index is a masked index)
};
std::string_view inst_kind_name(InstKind k);

struct Inst {
  InstKind kind;
  Ref node;
  uint32_t depth;  // loops open around this instruction
};

struct Program {
  Ref sink;                  // the lowered kernel AST
  std::vector<Inst> insts;   // the linear program
  std::vector<Ref> buffers;  // BUFFER nodes by slot (slot i at [i]; gaps are null)
  std::vector<Ref> vars;     // DEFINE_VAR nodes, sorted by name: the scalar argument order
  std::vector<Ref> locals;   // GPU local (LDS/shared) BUFFER nodes, see is_local_buffer
  int parallel_loop = -1;    // index in insts of a kLoopBegin the runtime may split, or -1
  uint64_t flops = 0;        // ALU ops per full run (constant-size loops), for DEBUG=2
  uint64_t bytes = 0;        // bytes loaded + stored per full run
  // Base-address alignment (bytes) the vector accesses were emitted for: LowerOptions::
  // buffer_align when the program has a vector access, else 0. The runtime checks it at launch.
  int buffer_align = 0;
  std::string to_string() const;
};

// GPU local memory (LDS on AMD, shared memory on NVIDIA): a BUFFER whose arg is
// (slot, element count, kBufferLocal). Local slots are their own numbering (not kernel
// arguments); they live in Program::locals, not Program::buffers.
inline constexpr int64_t kBufferLocal = 1;
inline bool is_local_buffer(Ref b) {
  if (b->op() != Op::kBuffer || b->arg().kind() != ArgKind::kInts) return false;
  const auto a = b->arg().as_ints();
  return a.size() >= 3 && a[2] == kBufferLocal;
}

struct LowerOptions {
  // Memory coalescing (coalesce_memory): unmasked accesses to consecutive, aligned elements
  // become vector LOAD/STORE of at most this many bytes (0: every access stays scalar).
  int max_vector_bytes = 0;
  // Alignment in bytes the runtime guarantees for every buffer's base address; a vector access
  // is emitted with min(its size, this) (element alignment when 0). Recorded in Program.
  int buffer_align = 0;
};

// Simplification + index narrowing of a kernel AST; verifies the input and the output spec.
Result<Ref> lower(Ref sink, const LowerOptions& options = {});
// lower() then placement and ordering. Errors name the node and the rule.
Result<Program> linearize(Ref sink, const LowerOptions& options = {});
// The coalescing pass of lower() (vectorize.cpp), on a simplified kernel AST whose indices are
// still `index` typed: runs of unmasked loads (stores) of one buffer whose indices are base + c,
// base + c + 1, ... with base + c provably a multiple of the run length (a power of two <= 16,
// at most max_vector_bytes) become one vector LOAD read through GEP lanes (one vector STORE of
// a VECTORIZE). Masked, bool, strided and unaligned accesses stay scalar. Returns sink itself
// when nothing changes.
Ref coalesce_memory(Ref sink, int max_vector_bytes);
// The linear-program spec: balanced loops, every source defined earlier in a visible scope,
// accumulators initialised before use, only legal ops. Rules as in spec.h.
Status verify_program(const Program& p);

}  // namespace rawgpu::compiler
