// Spec verifier: which ops, dtypes, sources and args are legal at each compiler stage.
//
// A spec is a table of rules (name, the ops it covers, a check). A node is legal when at least
// one rule covers its op and every covering rule's check passes. Violations are kInvalidArgument
// errors naming the node (as its listing line) and the rule:
//   "spec 'kernel': %7 = ADD int32 %3, %6: rule 'alu-same-dtype' violated: source 1 is index,
//    expected int32"
// Passes call maybe_verify() at their boundaries: on in debug builds (no NDEBUG) and whenever
// RAWGPU_SPEC=1, off with RAWGPU_SPEC=0.
#pragma once

#include <string_view>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/ir.h"

namespace rawgpu::compiler {

enum class Stage : uint8_t {
  kIndex,   // index/value expressions: constants, variables, ranges, ALU ops, Invalid gates
  kKernel,  // kernel AST: kIndex plus buffers, INDEX/LOAD/STORE, REDUCE, END, SINK, AFTER, GROUP
  // Tensor graph (schedule.h): buffers, scalar constants, iota, ALU ops on equal shapes,
  // movement ops, REDUCE_AXIS, CONTIGUOUS; every node must have a shape (rule 'tensor-shape').
  // The linear-program spec is verify_program() in linearize.h.
  kTensor,
};
std::string_view stage_name(Stage stage);

// Checks every node reachable from root (iteratively; any depth).
Status verify(Ref root, Stage stage);

// Whether maybe_verify checks: RAWGPU_SPEC=1/0 if set, else on exactly in debug builds.
bool spec_enabled();
// verify() when spec_enabled(); the error gains the context "after pass '<pass>'".
Status maybe_verify(Ref root, Stage stage, std::string_view after_pass);

}  // namespace rawgpu::compiler
