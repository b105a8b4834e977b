// The tensor graph and the scheduler: lazy tensor programs become a list of kernel ASTs that
// lower()/linearize()/CpuRuntime accept, plus a memory plan for the intermediate buffers.
//
// Tensor-graph nodes are ordinary IR nodes (same Context, same interning) with a shape
// (Node::shape(), computed lazily):
//   BUFFER  arg (uid, count)            a realized flat buffer, shape (count)
//   CONST   arg value                   a scalar, shape ()
//   RANGE   no sources, arg (n)         iota: element i is i (cast to the node's dtype), shape (n)
//   ALU ops (unary/binary/ternary)      sources of equal shape (broadcasting is explicit: EXPAND)
//   RESHAPE arg (dims...)               same element count
//   PERMUTE arg (perm...)               a permutation of the axes
//   EXPAND  arg (dims...)               same rank; each source dim is 1 or equal
//   PAD     src (x, CONST value) arg (before0, after0, before1, after1, ...), all >= 0
//   SHRINK  arg (begin0, end0, ...)     0 <= begin <= end <= dim
//   FLIP    arg (flag0, flag1, ...)     1 = reverse that axis
//   REDUCE_AXIS arg (op, axis...)       op ADD/MUL/MAX (as int), reduced axes keep size 1
//   CONTIGUOUS                          the value must be materialised in a buffer
// The spec stage Stage::kTensor checks exactly these forms.
//
// Scheduling (schedule()): a node is realized (gets its own kernel and buffer) when it is a root,
// a CONTIGUOUS, the base of a movement chain that broadcasts (EXPAND) a value still containing
// an unrealized reduction, or a reduction-containing value used by several consumers. Everything
// else fuses into its consumers: elementwise ops and reductions are recomputed inside the kernel
// that needs them, and movement ops become index arithmetic (PAD becomes gated loads). Each
// kernel writes slot 0 and numbers its inputs 1.. in the order it first reads them, so two
// kernels doing the same thing on different buffers are the same AST (one compile-cache entry).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/ir.h"

namespace rawgpu::compiler {

// Builders (no checking beyond what Node::shape() reports; the frontend validates user input).
Ref tensor_buffer(Context& ctx, DType dtype, int64_t uid, int64_t count);
Ref tensor_iota(Context& ctx, int64_t n, DType dtype);
Ref tensor_reshape(Ref x, std::span<const int64_t> shape);
Ref tensor_permute(Ref x, std::span<const int64_t> perm);
Ref tensor_expand(Ref x, std::span<const int64_t> shape);
Ref tensor_pad(Ref x, std::span<const int64_t> before_after, Ref value);
Ref tensor_shrink(Ref x, std::span<const int64_t> begin_end);
Ref tensor_flip(Ref x, std::span<const int64_t> flags);
Ref tensor_reduce(Ref x, Op op, std::span<const int64_t> axes);
Ref tensor_contiguous(Ref x);

// Why n has no shape ("" when it has one): names the node's op and the offending shapes/args.
std::string tensor_shape_problem(Ref n);
int64_t shape_numel(std::span<const int64_t> shape);
std::string shape_string(std::span<const int64_t> shape);  // "(2, 3)"

struct KernelCall {
  Ref ast;                   // SINK(STORE(...)); BUFFER args (slot, count)
  std::vector<Ref> buffers;  // the tensor node each slot holds; slot 0 is the output
};

struct Schedule {
  std::vector<KernelCall> kernels;  // in execution order
  // Per root: the node whose buffer holds the root's value after the kernels ran (the root
  // itself; a BUFFER root needs no kernel).
  std::vector<Ref> outputs;
  // Memory plan: realized nodes that are neither roots nor inputs live in one arena, at
  // `offsets[i]` (bytes, 64-byte aligned), assigned by a TLSF allocator by lifetime (allocated
  // before the producing kernel, freed after the last kernel reading it).
  std::vector<Ref> intermediates;
  std::vector<uint64_t> offsets;
  uint64_t arena_bytes = 0;
  std::string to_string() const;
};

// Checks the tensor-graph spec of the roots, decides fusion, renders one kernel AST per realized
// node and plans the arena. Errors: kInvalidArgument naming the node and rule (spec).
Result<Schedule> schedule(std::span<const Ref> roots);

}  // namespace rawgpu::compiler
