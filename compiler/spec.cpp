#include "rawgpu/compiler/spec.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/schedule.h"

namespace rawgpu::compiler {
namespace {

// A check returns an empty string when the node is fine, else what is wrong.
using Check = std::string (*)(const Node& n);

struct Rule {
  const char* name;
  OpSet ops;
  Check check;
};

std::string dt(DType t) { return std::string(dtype_name(t)); }

std::string want_src(const Node& n, size_t lo, size_t hi) {
  if (n.nsrc() < lo || n.nsrc() > hi)
    return lo == hi ? strformat("has %zu sources, expected %zu", n.nsrc(), lo)
                    : strformat("has %zu sources, expected %zu..%zu", n.nsrc(), lo, hi);
  return {};
}

std::string src_dtype_is(const Node& n, size_t i, DType t) {
  if (n.src(i)->dtype() != t)
    return strformat("source %zu is %s, expected %s", i, dt(n.src(i)->dtype()).c_str(),
                     dt(t).c_str());
  return {};
}

#define RG_SPEC_TRY(expr)                     \
  do {                                        \
    std::string rg_spec_e = (expr);           \
    if (!rg_spec_e.empty()) return rg_spec_e; \
  } while (0)

std::string check_const(const Node& n) {
  RG_SPEC_TRY(want_src(n, 0, 0));
  switch (n.arg().kind()) {
    case ArgKind::kInt:
      if (!has_int_bounds(n.dtype())) return "integer constant with dtype " + dt(n.dtype());
      if (n.arg().as_int() < dtype_min(n.dtype()) || n.arg().as_int() > dtype_max(n.dtype()))
        return strformat("value %lld does not fit %s", static_cast<long long>(n.arg().as_int()),
                         dt(n.dtype()).c_str());
      return {};
    case ArgKind::kFloat:
      if (!is_float(n.dtype())) return "float constant with dtype " + dt(n.dtype());
      return {};
    case ArgKind::kInvalid:
      if (!is_int(n.dtype()) && n.dtype() != DType::kBool)
        return "Invalid must be an integer or bool, not " + dt(n.dtype());
      return {};
    default: return "arg must be an int, float or Invalid";
  }
}

std::string check_var(const Node& n) {
  RG_SPEC_TRY(want_src(n, 0, 0));
  if (n.arg().kind() != ArgKind::kVar) return "arg must be a variable (name, min, max)";
  if (!is_int(n.dtype())) return "variables are integers, not " + dt(n.dtype());
  const auto& v = n.arg().as_var();
  if (v.vmin > v.vmax) return "empty bounds";
  if (v.name.empty()) return "unnamed variable";
  return {};
}

std::string check_range(const Node& n) {
  RG_SPEC_TRY(want_src(n, 1, 1));
  if (!is_int(n.dtype())) return "loop index must be an integer, not " + dt(n.dtype());
  RG_SPEC_TRY(src_dtype_is(n, 0, n.dtype()));
  if (n.op() == Op::kRange && (n.arg().kind() != ArgKind::kInts || n.arg().as_ints().size() < 1))
    return "arg must be (axis, ...)";
  if (n.op() == Op::kSpecial && (n.arg().kind() != ArgKind::kStr || n.arg().as_str().empty()))
    return "arg must be the launch index name";
  return {};
}

std::string check_alu(const Node& n) {
  const bool unary = ops::kUnary.has(n.op()), ternary = ops::kTernary.has(n.op());
  RG_SPEC_TRY(want_src(n, unary ? 1 : ternary ? 3 : 2, unary ? 1 : ternary ? 3 : 2));
  if (n.dtype() == DType::kVoid) return "ALU result cannot be void";
  if (n.op() == Op::kCast || n.op() == Op::kBitcast) {
    if (n.op() == Op::kBitcast && itemsize(n.dtype()) != itemsize(n.src(0)->dtype()))
      return "bitcast between different sizes";
    return {};
  }
  if (ops::kComparison.has(n.op())) {
    if (n.dtype() != DType::kBool) return "comparison result must be bool";
    return src_dtype_is(n, 1, n.src(0)->dtype());
  }
  if (n.op() == Op::kWhere) {
    RG_SPEC_TRY(src_dtype_is(n, 0, DType::kBool));
    RG_SPEC_TRY(src_dtype_is(n, 1, n.dtype()));
    return src_dtype_is(n, 2, n.dtype());
  }
  if (n.op() == Op::kShl || n.op() == Op::kShr) {
    if (!is_int(n.dtype())) return "shifts are integer ops";
    return src_dtype_is(n, 0, n.dtype());
  }
  for (size_t i = 0; i < n.nsrc(); ++i) RG_SPEC_TRY(src_dtype_is(n, i, n.dtype()));
  if ((n.op() == Op::kIDiv || n.op() == Op::kMod) && !is_int(n.dtype()))
    return "integer division of " + dt(n.dtype());
  if ((n.op() == Op::kFDiv || n.op() == Op::kExp2 || n.op() == Op::kLog2 || n.op() == Op::kSin ||
       n.op() == Op::kSqrt || n.op() == Op::kRecip || n.op() == Op::kPow) &&
      !is_float(n.dtype()))
    return std::string(op_name(n.op())) + " needs a float dtype, not " + dt(n.dtype());
  if ((n.op() == Op::kAnd || n.op() == Op::kOr || n.op() == Op::kXor) && is_float(n.dtype()))
    return "bitwise op on " + dt(n.dtype());
  return {};
}

// Invalid may only appear as the false branch of an index WHERE (a masked index).
std::string check_invalid_use(const Node& n) {
  for (size_t i = 0; i < n.nsrc(); ++i) {
    if (!n.src(i)->is_invalid()) continue;
    if (n.op() == Op::kWhere && i == 2 && is_int(n.dtype())) continue;
    return strformat("Invalid used as source %zu (only where(gate, index, Invalid) is legal)", i);
  }
  return {};
}

std::string check_buffer(const Node& n) {
  RG_SPEC_TRY(want_src(n, 0, 0));
  if (n.arg().kind() != ArgKind::kInts || n.arg().as_ints().empty())
    return "arg must be (slot, ...)";
  if (itemsize(n.dtype()) == 0) return "buffer element type " + dt(n.dtype()) + " cannot be stored";
  return {};
}

std::string check_index(const Node& n) {
  if (n.nsrc() < 2) return want_src(n, 2, 64);
  const Op b = n.src(0)->op();
  if (b != Op::kBuffer && b != Op::kParam && b != Op::kAfter)
    return "source 0 must be a BUFFER, PARAM or AFTER";
  if (n.dtype() != n.src(0)->dtype()) return "INDEX dtype must be the buffer's element type";
  for (size_t i = 1; i < n.nsrc(); ++i)
    if (!is_int(n.src(i)->dtype())) return strformat("index operand %zu is not an integer", i);
  return {};
}

// A vector LOAD (dtype vec(T, n)) reads n consecutive elements starting at its INDEX (of
// element type T); a vector STORE writes its vector value likewise. Neither may be masked (the
// coalescing pass keeps gated accesses scalar).
bool masked_index(const Node& index) {
  return index.nsrc() == 2 && index.src(1)->op() == Op::kWhere &&
         index.src(1)->src(2)->is_invalid();
}

std::string check_load(const Node& n) {
  RG_SPEC_TRY(want_src(n, 1, 2));
  if (n.src(0)->op() != Op::kIndex) return "source 0 must be an INDEX";
  if (is_vector(n.dtype())) {
    if (n.nsrc() != 1 || masked_index(*n.src(0))) return "a vector LOAD cannot be masked";
    if (scalar_of(n.dtype()) != n.src(0)->dtype())
      return "vector LOAD lanes must be the INDEX's element type";
    return {};
  }
  return src_dtype_is(n, 0, n.dtype());
}

std::string check_store(const Node& n) {
  RG_SPEC_TRY(want_src(n, 2, 3));
  if (n.dtype() != DType::kVoid) return "STORE is void";
  if (n.src(0)->op() != Op::kIndex) return "source 0 must be an INDEX";
  if (is_vector(n.src(1)->dtype())) {
    if (masked_index(*n.src(0))) return "a vector STORE cannot be masked";
    if (scalar_of(n.src(1)->dtype()) != n.src(0)->dtype())
      return "vector STORE lanes must be the INDEX's element type";
    return {};
  }
  return src_dtype_is(n, 1, n.src(0)->dtype());
}

// VECTORIZE: n scalar sources of the lane type, dtype vec(T, n). Vector values exist only as
// LOAD and VECTORIZE results, read by GEP (one lane) and STORE (ALU ops stay scalar).
std::string check_vectorize(const Node& n) {
  if (!is_vector(n.dtype())) return "VECTORIZE dtype must be a vector type";
  if (n.nsrc() != size_t(vcount(n.dtype())))
    return strformat("%zu sources for %d lanes", n.nsrc(), vcount(n.dtype()));
  for (size_t i = 0; i < n.nsrc(); ++i) RG_SPEC_TRY(src_dtype_is(n, i, scalar_of(n.dtype())));
  return {};
}

std::string check_vector_values(const Node& n) {
  if (is_vector(n.dtype()) && n.op() != Op::kLoad && n.op() != Op::kVectorize)
    return "only LOAD and VECTORIZE produce vector values";
  return {};
}

std::string check_closing(const Node& n) {
  if (n.nsrc() < 1) return "needs a value";
  for (size_t i = 1; i < n.nsrc(); ++i)
    if (n.src(i)->op() != Op::kRange) return strformat("source %zu must be a RANGE", i);
  if (n.op() == Op::kReduce) {
    if (n.arg().kind() != ArgKind::kOp) return "arg must be the reduce op";
    const Op r = n.arg().as_op();
    if (r != Op::kAdd && r != Op::kMul && r != Op::kMax) return "reduce op must be ADD, MUL or MAX";
    return src_dtype_is(n, 0, n.dtype());
  }
  return {};
}

std::string check_structure(const Node& n) {
  if (n.op() == Op::kSink && n.dtype() != DType::kVoid) return "SINK is void";
  if (n.op() == Op::kAfter && n.nsrc() < 1) return "AFTER needs a value";
  return {};
}

// WMMA: f32 fragment of a tensor-core product; sources are the lane's A then B elements (all
// f16 or all bf16), arg {kind, a_elems, b_elems, c_elems}. GEP: one element of a WMMA fragment
// or of a REDUCE over one.
std::string check_tensor_core(const Node& n) {
  if (n.op() == Op::kWmma) {
    if (n.dtype() != DType::kFloat32) return "WMMA accumulates in float32";
    if (n.arg().kind() != ArgKind::kInts || n.arg().as_ints().size() != 4)
      return "arg must be {kind, a_elems, b_elems, c_elems}";
    const auto a = n.arg().as_ints();
    if (a[1] < 1 || a[2] < 1 || a[3] < 1 || size_t(a[1] + a[2]) != n.nsrc())
      return "sources must be a_elems A elements then b_elems B elements";
    const DType in = n.src(0)->dtype();
    if (in != DType::kFloat16 && in != DType::kBFloat16)
      return "inputs must be float16 or bfloat16";
    for (size_t i = 0; i < n.nsrc(); ++i)
      if (n.src(i)->dtype() != in) return strformat("source %zu is not %s", i, dt(in).c_str());
    return {};
  }
  if (n.nsrc() != 1 || n.arg().kind() != ArgKind::kInt)
    return "GEP takes one source and an element";
  if (is_vector(n.src(0)->dtype())) {  // a lane of a vector value
    if (n.arg().as_int() < 0 || n.arg().as_int() >= vcount(n.src(0)->dtype()))
      return "lane out of the vector";
    if (n.dtype() != scalar_of(n.src(0)->dtype())) return "GEP dtype must be the vector's lanes";
    return {};
  }
  Ref f = n.src(0);
  if (f->op() == Op::kReduce) f = f->src(0);
  if (f->op() != Op::kWmma) return "GEP source must be a WMMA fragment (or a REDUCE over one)";
  if (f->arg().kind() != ArgKind::kInts || f->arg().as_ints().size() != 4)
    return "GEP source WMMA has no fragment size";
  if (n.arg().as_int() < 0 || n.arg().as_int() >= f->arg().as_ints()[3])
    return "element out of the fragment";
  if (n.dtype() != f->dtype()) return "GEP dtype must be the fragment's";
  return {};
}

std::string check_no_weak(const Node& n) {
  if (is_weak(n.dtype())) return "weak type " + dt(n.dtype()) + " must be resolved by now";
  return {};
}

constexpr OpSet kIndexOps = ops::kAlu | OpSet{Op::kConst, Op::kDefineVar, Op::kRange, Op::kSpecial};

const Rule kIndexRules[] = {
    {"const", OpSet::of(Op::kConst), check_const},
    {"variable", OpSet::of(Op::kDefineVar), check_var},
    {"loop-index", {Op::kRange, Op::kSpecial}, check_range},
    {"alu-operands", ops::kAlu, check_alu},
    {"invalid-only-in-index-gates", kIndexOps, check_invalid_use},
};

const Rule kKernelRules[] = {
    {"const", OpSet::of(Op::kConst), check_const},
    {"variable", OpSet::of(Op::kDefineVar), check_var},
    {"loop-index", {Op::kRange, Op::kSpecial}, check_range},
    {"alu-operands", ops::kAlu, check_alu},
    {"invalid-only-in-index-gates", OpSet::all(), check_invalid_use},
    {"buffer", {Op::kBuffer, Op::kParam}, check_buffer},
    {"index", OpSet::of(Op::kIndex), check_index},
    {"load", OpSet::of(Op::kLoad), check_load},
    {"store", OpSet::of(Op::kStore), check_store},
    {"closes-ranges", {Op::kReduce, Op::kEnd}, check_closing},
    {"structure", {Op::kSink, Op::kGroup, Op::kAfter, Op::kNoop, Op::kBarrier}, check_structure},
    {"tensor-core", {Op::kWmma, Op::kGep}, check_tensor_core},
    {"vectorize", OpSet::of(Op::kVectorize), check_vectorize},
    {"vector-values", OpSet::all(), check_vector_values},
    {"no-weak-types", OpSet::all(), check_no_weak},
};

std::string check_tensor_shape(const Node& n) {
  if (n.shape()) return {};
  return tensor_shape_problem(Ref(&n));
}

const Rule kTensorRules[] = {
    {"const", OpSet::of(Op::kConst), check_const},
    {"alu-operands", ops::kAlu, check_alu},
    {"buffer", OpSet::of(Op::kBuffer), check_buffer},
    {"tensor-shape",
     ops::kAlu | ops::kMovement |
         OpSet{Op::kConst, Op::kBuffer, Op::kRange, Op::kReduceAxis, Op::kContiguous, Op::kDetach},
     check_tensor_shape},
    {"no-weak-types", OpSet::all(), check_no_weak},
};

std::span<const Rule> rules_for(Stage s) {
  switch (s) {
    case Stage::kIndex: return kIndexRules;
    case Stage::kKernel: return kKernelRules;
    case Stage::kTensor: return kTensorRules;
  }
  return {};
}

std::string describe(const Node& n) {
  std::string s = strformat("%%%u = %s %s", n.id(), std::string(op_name(n.op())).c_str(),
                            dt(n.dtype()).c_str());
  for (size_t i = 0; i < n.nsrc(); ++i) s += strformat("%s%%%u", i ? ", " : " ", n.src(i)->id());
  if (!n.arg().is_none()) s += " [" + n.arg().to_string() + "]";
  return s;
}

}  // namespace

std::string_view stage_name(Stage stage) {
  switch (stage) {
    case Stage::kIndex: return "index";
    case Stage::kKernel: return "kernel";
    case Stage::kTensor: return "tensor";
  }
  return "?";
}

Status verify(Ref root, Stage stage) {
  const auto rules = rules_for(stage);
  OpSet legal;
  for (const Rule& r : rules)
    if (!(r.ops == OpSet::all())) legal |= r.ops;
  for (Ref n : root->ctx().toposort(root)) {
    if (!legal.has(n->op()))
      return make_error(Errc::kInvalidArgument, "spec '%s': %s: op %s is not legal at this stage",
                        std::string(stage_name(stage)).c_str(), describe(*n).c_str(),
                        std::string(op_name(n->op())).c_str());
    for (const Rule& r : rules) {
      if (!r.ops.has(n->op())) continue;
      const std::string why = r.check(*n);
      if (!why.empty())
        return make_error(Errc::kInvalidArgument, "spec '%s': %s: rule '%s' violated: %s",
                          std::string(stage_name(stage)).c_str(), describe(*n).c_str(), r.name,
                          why.c_str());
    }
  }
  return ok_status();
}

bool spec_enabled() {
  static const bool enabled = [] {
    const char* e = std::getenv("RAWGPU_SPEC");
    if (e && *e) return std::strcmp(e, "0") != 0;
#ifdef NDEBUG
    return false;
#else
    return true;
#endif
  }();
  return enabled;
}

Status maybe_verify(Ref root, Stage stage, std::string_view after_pass) {
  if (!spec_enabled()) return ok_status();
  return verify(root, stage).context([&] {
    return strformat("after pass '%.*s'", static_cast<int>(after_pass.size()), after_pass.data());
  });
}

}  // namespace rawgpu::compiler
