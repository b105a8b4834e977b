// Tensor-core matching and lowering (see rawgpu/compiler/tensor_core.h). No LLVM here: the
// WMMA/GEP ops are turned into intrinsics by llvm_codegen.cpp.
//
// Lane → element maps. Every map gives, for lane `l` and per-lane element `e`, the (row, col)
// of the element in the instruction's tile: A is m×k (row = m, col = k), B is k×n (row = k,
// col = n), C/D is m×n. Element e is the e-th scalar of the lane's operand vector in the order
// the intrinsic takes it (for 16-bit operands two elements share one 32-bit register, low half
// first).
//
// RDNA3 (gfx11) v_wmma_f32_16x16x16_{f16,bf16}, wave32 (RDNA3 ISA guide, "Wave Matrix Multiply
// Accumulate"; AMD GPUOpen "How to accelerate AI applications on RDNA 3 using WMMA"):
//   A: 16 halves per lane, lane l holds row l%16, all of K (e = k); lanes 16-31 must hold a copy
//      of lanes 0-15 (the operand replication across half-waves).
//   B: 16 halves per lane, lane l holds column l%16, all of K (e = k); replicated likewise.
//   C/D: 8 floats per lane, element e of lane l is row 2e + l/16, column l%16.
// RDNA4 (gfx12) same mnemonic on 8-element A/B (RDNA4 ISA guide, WMMA operand layouts; GPUOpen
// "Using the Matrix Cores of AMD RDNA 4 architecture GPUs"):
//   A: lane l holds row l%16, K = 8*(e/4) + 4*(l/16) + e%4: lanes 0-15 hold K 0-3 (VGPRs 0-1)
//      and K 8-11 (VGPRs 2-3), lanes 16-31 K 4-7 and K 12-15. (Cross-checked: the emulator's
//      independently written gfx12 WMMA semantics and the reference design's RDNA4 tensor-core
//      table, which runs on RDNA4 hardware, both use this order; an earlier "K = 8*(l/16) + e"
//      here was wrong.)
//   B: lane l holds column l%16, K as for A.
//   C/D: element e of lane l is row 8*(l/16) + e, column l%16.
// CDNA3 (gfx942) v_mfma_f32_16x16x16_f16 / _bf16, wave64 (AMD Instinct MI300 ISA, "Matrix
// fused multiply-add", and the AMD matrix instruction calculator's layout for 16x16x16):
//   A: 4 halves per lane, lane l holds row l%16, K = 4*(l/16) + e.
//   B: lane l holds column l%16, K = 4*(l/16) + e.
//   C/D: element e of lane l is row 4*(l/16) + e, column l%16.
// NVIDIA mma.sync.aligned.m16n8k16.row.col (PTX ISA, "Matrix Fragments for mma.m16n8k16 with
// floating point type"), groupID g = l/4, threadID_in_group t = l%4:
//   A (a0..a7): row g + 8*((e/2)%2), column 2t + e%2 + 8*(e/4).
//   B (b0..b3): row (k) 2t + e%2 + 8*(e/2), column g.
//   C/D (c0..c3): row g + 8*(e/2), column 2t + e%2.
#include "rawgpu/compiler/tensor_core.h"

#include <algorithm>
#include <cstdarg>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/rewrite.h"
#include "rawgpu/compiler/symbolic.h"

namespace rawgpu::compiler {
namespace {

constexpr TensorCore kCores[] = {
    {TcKind::kRdna3Wmma, "rdna3-wmma", "v_wmma_f32_16x16x16_f16", 16, 16, 16, 32, 16, 16, 8},
    {TcKind::kRdna4Wmma, "rdna4-wmma", "v_wmma_f32_16x16x16_f16", 16, 16, 16, 32, 8, 8, 8},
    {TcKind::kCdna3Mfma, "cdna3-mfma", "v_mfma_f32_16x16x16_f16", 16, 16, 16, 64, 4, 4, 4},
    {TcKind::kNvMmaSync, "mma.sync", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16,
     32, 8, 4, 4},
};

template <class T>
struct Elem {
  T row, col;
};

template <class T>
Elem<T> a_elem(TcKind k, T l, int64_t e) {
  switch (k) {
    case TcKind::kRdna3Wmma: return {l % 16, l * 0 + e};
    case TcKind::kRdna4Wmma: return {l % 16, (l / 16) * 4 + (e % 4 + 8 * (e / 4))};
    case TcKind::kCdna3Mfma: return {l % 16, (l / 16) * 4 + e};
    case TcKind::kNvMmaSync:
      return {l / 4 + 8 * ((e / 2) % 2), (l % 4) * 2 + (e % 2 + 8 * (e / 4))};
  }
  return {l, l};
}

template <class T>
Elem<T> b_elem(TcKind k, T l, int64_t e) {
  switch (k) {
    case TcKind::kRdna3Wmma: return {l * 0 + e, l % 16};
    case TcKind::kRdna4Wmma: return {(l / 16) * 4 + (e % 4 + 8 * (e / 4)), l % 16};
    case TcKind::kCdna3Mfma: return {(l / 16) * 4 + e, l % 16};
    case TcKind::kNvMmaSync: return {(l % 4) * 2 + (e % 2 + 8 * (e / 2)), l / 4};
  }
  return {l, l};
}

template <class T>
Elem<T> c_elem(TcKind k, T l, int64_t e) {
  switch (k) {
    case TcKind::kRdna3Wmma: return {l / 16 + 2 * e, l % 16};
    case TcKind::kRdna4Wmma: return {(l / 16) * 8 + e, l % 16};
    case TcKind::kCdna3Mfma: return {(l / 16) * 4 + e, l % 16};
    case TcKind::kNvMmaSync: return {l / 4 + 8 * (e / 2), (l % 4) * 2 + e % 2};
  }
  return {l, l};
}

[[gnu::format(printf, 2, 3)]] Error tc_error(KernelOptErrc c, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string detail = vstrformat(fmt, ap);
  va_end(ap);
  const Errc code = c == KernelOptErrc::kUnsupported ? Errc::kUnsupported : Errc::kInvalidArgument;
  const std::string_view n = kernel_opt_errc_name(c);
  return Error(code,
               strformat("KernelOptError[%.*s]: TC: %s", int(n.size()), n.data(), detail.c_str()));
}

bool uses(Ref n, Ref r) {
  const auto rs = n->ranges();
  return std::find(rs.begin(), rs.end(), r) != rs.end();
}

// The f16/bf16 LOAD under an operand of the MUL (CAST(LOAD) to f32, or the LOAD itself).
Ref operand_load(Ref x) {
  if (x->op() == Op::kCast && x->dtype() == DType::kFloat32) x = x->src(0);
  if (x->op() == Op::kLoad && (x->dtype() == DType::kFloat16 || x->dtype() == DType::kBFloat16))
    return x;
  return {};
}

}  // namespace

const TensorCore& tensor_core(TcKind kind) { return kCores[size_t(kind)]; }

Result<TensorCore> tensor_core_for(const GpuTarget& t) {
  if (t.arch == GpuArch::kNv) return kCores[size_t(TcKind::kNvMmaSync)];
  if (t.arch == GpuArch::kAmd) {
    if (t.name.rfind("gfx11", 0) == 0) return kCores[size_t(TcKind::kRdna3Wmma)];
    if (t.name.rfind("gfx12", 0) == 0) return kCores[size_t(TcKind::kRdna4Wmma)];
    if (t.name == "gfx942") return kCores[size_t(TcKind::kCdna3Mfma)];
  }
  return tc_error(KernelOptErrc::kUnsupported,
                  "target %s has no tensor-core path (WMMA: gfx11/gfx12, MFMA: gfx942, "
                  "mma.sync: sm_80+)",
                  t.name.c_str());
}

Result<MatmulMatch> tc_match(Ref sink) {
  using E = KernelOptErrc;
  if (!sink || sink->op() != Op::kSink)
    return make_error(Errc::kInvalidArgument, "tc_match: the kernel root must be a SINK");
  Context& c = sink->ctx();
  if (sink->nsrc() != 1 || sink->src(0)->op() != Op::kStore)
    return tc_error(E::kUnsupported, "the kernel must have exactly one STORE (it has %zu roots)",
                    sink->nsrc());
  MatmulMatch m;
  m.store = sink->src(0);
  for (Ref n : c.toposort(sink)) {
    if (n->op() != Op::kReduce) continue;
    if (m.reduce) return tc_error(E::kUnsupported, "more than one REDUCE");
    m.reduce = n;
  }
  if (!m.reduce) return tc_error(E::kUnsupported, "no REDUCE: not a matmul");
  const Ref r = m.reduce;
  if (r->arg().as_op() != Op::kAdd || r->nsrc() != 2 || r->dtype() != DType::kFloat32)
    return tc_error(E::kUnsupported,
                    "the REDUCE must be an f32 ADD over one range (accumulate in f32)");
  const Ref mul = r->src(0);
  if (mul->op() != Op::kMul)
    return tc_error(E::kUnsupported, "the reduced value is %s, not MUL of two loads",
                    std::string(op_name(mul->op())).c_str());
  const Ref x = operand_load(mul->src(0)), y = operand_load(mul->src(1));
  if (!x || !y)
    return tc_error(E::kUnsupported, "the MUL operands must be f16 or bf16 LOADs (cast to f32)");
  if (x->dtype() != y->dtype())
    return tc_error(E::kUnsupported, "the inputs have different dtypes (%s, %s)",
                    std::string(dtype_name(x->dtype())).c_str(),
                    std::string(dtype_name(y->dtype())).c_str());
  m.input = x->dtype();
  m.k_range = r->src(1);
  const auto outs = m.store->ranges();
  if (outs.size() != 2)
    return tc_error(E::kUnsupported, "the output has %zu axes; TC needs exactly 2 (M, N)",
                    outs.size());
  // Which axes a load reads, judged on its simplified index: scheduled kernels index through
  // merged views, e.g. A[((i*64 + j) // 64)*48 + r], which reads only i.
  const Ref xs = simplify(x), ys = simplify(y);
  if (!uses(xs, m.k_range) || !uses(ys, m.k_range))
    return tc_error(E::kUnsupported, "both loads must read the reduction axis");
  // A reads (m, k), B reads (k, n): each load uses exactly one of the output axes.
  auto only_axis = [&](Ref ld) -> Ref {
    const bool u0 = uses(ld, outs[0]), u1 = uses(ld, outs[1]);
    if (u0 == u1) return {};
    return u0 ? outs[0] : outs[1];
  };
  const Ref rx = only_axis(xs), ry = only_axis(ys);
  if (!rx || !ry || rx == ry)
    return tc_error(E::kUnsupported,
                    "each load must read one distinct output axis (A[m,k], B[k,n])");
  m.a_load = x;
  m.b_load = y;
  m.m_range = rx;
  m.n_range = ry;
  for (Ref rr : {m.m_range, m.n_range, m.k_range})
    if (rr->src(0)->op() != Op::kConst)
      return tc_error(E::kSymbolicSize, "axis %lld has a symbolic size",
                      (long long)rr->arg().as_ints()[0]);
  m.m = m.m_range->src(0)->arg().as_int();
  m.n = m.n_range->src(0)->arg().as_int();
  m.k = m.k_range->src(0)->arg().as_int();
  return m;
}

Result<Ref> tc_lower(Ref sink, const TensorCore& tc, std::vector<std::string>* notes) {
  const MatmulMatch mm = RG_TRY(tc_match(sink));
  if (mm.m % tc.m || mm.n % tc.n || mm.k % tc.k)
    return tc_error(KernelOptErrc::kNotDivisible,
                    "matmul %lldx%lldx%lld (MxNxK) is not a multiple of the %.*s tile "
                    "%lldx%lldx%lld",
                    (long long)mm.m, (long long)mm.n, (long long)mm.k, int(tc.name.size()),
                    tc.name.data(), (long long)tc.m, (long long)tc.n, (long long)tc.k);
  Context& c = sink->ctx();
  const Ref lane =
      c.make(Op::kSpecial, DType::kIndex, {c.cint(int64_t(tc.lanes))}, Arg::str("lidx0"));
  const Ref tile_n = c.make(Op::kSpecial, DType::kIndex, {c.cint(mm.n / tc.n)}, Arg::str("gidx0"));
  const Ref tile_m = c.make(Op::kSpecial, DType::kIndex, {c.cint(mm.m / tc.m)}, Arg::str("gidx1"));
  const Ref kr = c.range(mm.k / tc.k, mm.k_range->arg().as_ints()[0], kAxisReduce);
  const Ref m0 = tile_m * tc.m, n0 = tile_n * tc.n, k0 = kr * tc.k;
  std::vector<Ref> src;
  for (int64_t e = 0; e < tc.a_elems; ++e) {
    const Elem<Ref> p = a_elem(tc.kind, lane, e);
    src.push_back(substitute(mm.a_load, {{mm.m_range, m0 + p.row}, {mm.k_range, k0 + p.col}}));
  }
  for (int64_t e = 0; e < tc.b_elems; ++e) {
    const Elem<Ref> p = b_elem(tc.kind, lane, e);
    src.push_back(substitute(mm.b_load, {{mm.k_range, k0 + p.row}, {mm.n_range, n0 + p.col}}));
  }
  const int64_t warg[] = {int64_t(tc.kind), tc.a_elems, tc.b_elems, tc.c_elems};
  const Ref w = c.make(Op::kWmma, DType::kFloat32, src, Arg::ints(warg));
  const Ref acc = c.make(Op::kReduce, DType::kFloat32, {w, kr}, Arg::op(Op::kAdd));
  std::vector<Ref> stores;
  for (int64_t e = 0; e < tc.c_elems; ++e) {
    const Elem<Ref> p = c_elem(tc.kind, lane, e);
    const Ref ge = c.make(Op::kGep, DType::kFloat32, {acc}, Arg::integer(e));
    stores.push_back(substitute(
        mm.store, {{mm.reduce, ge}, {mm.m_range, m0 + p.row}, {mm.n_range, n0 + p.col}}));
  }
  if (notes)
    notes->push_back(strformat(
        "TC %.*s %s %lldx%lldx%lld: %lld tiles of %lldx%lld, %lld K steps", int(tc.name.size()),
        tc.name.data(), std::string(dtype_name(mm.input)).c_str(), (long long)mm.m, (long long)mm.n,
        (long long)mm.k, (long long)(mm.m / tc.m * (mm.n / tc.n)), (long long)tc.m, (long long)tc.n,
        (long long)(mm.k / tc.k)));
  return c.make(Op::kSink, DType::kVoid, stores, sink->arg());
}

}  // namespace rawgpu::compiler
