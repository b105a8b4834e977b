// Linear program -> LLVM IR through llvm::IRBuilder, with target hooks. One of the two LLVM
// translation units of compiler/ (the other is cpu_jit.cpp): keep LLVM includes here.
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <unordered_map>

#include "llvm_target.h"
#include "rawgpu/base/format.h"

namespace rawgpu::compiler::llvmgen {
namespace {

// Packs scalars into a vector, bitcasting bfloat to i16 first when `bf16_as_i16` (the AMDGPU
// bf16 WMMA/MFMA intrinsics take their 16-bit operands as integer vectors).
llvm::Value* pack(llvm::IRBuilder<>& b, std::span<llvm::Value* const> xs, bool bf16_as_i16) {
  llvm::Type* et = xs[0]->getType();
  if (bf16_as_i16 && et->isBFloatTy()) et = b.getInt16Ty();
  llvm::Value* v = llvm::PoisonValue::get(llvm::FixedVectorType::get(et, unsigned(xs.size())));
  for (size_t i = 0; i < xs.size(); ++i) {
    llvm::Value* x = xs[i]->getType() == et ? xs[i] : b.CreateBitCast(xs[i], et);
    v = b.CreateInsertElement(v, x, b.getInt32(uint32_t(i)));
  }
  return v;
}

class HostTarget final : public TargetHooks {
 public:
  HostTarget(std::string triple, std::string dl) : triple_(std::move(triple)), dl_(std::move(dl)) {}
  std::string_view name() const override { return "cpu"; }
  std::string triple() const override { return triple_; }
  std::string data_layout() const override { return dl_; }
  unsigned global_address_space() const override { return 0; }
  unsigned private_address_space() const override { return 0; }
  llvm::Value* thread_id(llvm::IRBuilder<>&, int) const override { return nullptr; }
  llvm::Value* block_id(llvm::IRBuilder<>&, int) const override { return nullptr; }
  Status barrier(llvm::IRBuilder<>&) const override {
    return make_error(Errc::kUnsupported, "the CPU target has no workgroup barrier");
  }
  llvm::CallingConv::ID kernel_calling_conv() const override { return llvm::CallingConv::C; }
  llvm::Value* math(llvm::IRBuilder<>& b, Op op, llvm::Value* x) const override {
    llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
    switch (op) {
      case Op::kExp2: id = llvm::Intrinsic::exp2; break;
      case Op::kLog2: id = llvm::Intrinsic::log2; break;
      case Op::kSin: id = llvm::Intrinsic::sin; break;
      case Op::kSqrt: id = llvm::Intrinsic::sqrt; break;
      default: return nullptr;
    }
    return b.CreateUnaryIntrinsic(id, x);
  }

 private:
  std::string triple_, dl_;
};

// AMDGPU (LLVM AMDGPUUsage): global pointers in address space 1, LDS 3, private 5; ids from
// llvm.amdgcn.workitem.id.* / workgroup.id.*; workgroup-scope release/acquire fences around
// s_barrier; the work-group size as amdgpu-flat-work-group-size.
class AmdgpuTarget final : public TargetHooks {
 public:
  AmdgpuTarget(std::string gpu, std::string dl) : gpu_(std::move(gpu)), dl_(std::move(dl)) {}
  std::string_view name() const override { return gpu_; }
  std::string triple() const override { return "amdgcn-amd-amdhsa"; }
  std::string data_layout() const override { return dl_; }
  unsigned global_address_space() const override { return 1; }
  unsigned private_address_space() const override { return 5; }
  llvm::Value* thread_id(llvm::IRBuilder<>& b, int dim) const override {
    static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::amdgcn_workitem_id_x,
                                                  llvm::Intrinsic::amdgcn_workitem_id_y,
                                                  llvm::Intrinsic::amdgcn_workitem_id_z};
    return b.CreateIntrinsic(ids[dim], {}, {});
  }
  llvm::Value* block_id(llvm::IRBuilder<>& b, int dim) const override {
    static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::amdgcn_workgroup_id_x,
                                                  llvm::Intrinsic::amdgcn_workgroup_id_y,
                                                  llvm::Intrinsic::amdgcn_workgroup_id_z};
    return b.CreateIntrinsic(ids[dim], {}, {});
  }
  Status barrier(llvm::IRBuilder<>& b) const override {
    auto& ctx = b.getContext();
    const auto ws = ctx.getOrInsertSyncScopeID("workgroup");
    b.CreateFence(llvm::AtomicOrdering::Release, ws);
    b.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, {}, {});
    b.CreateFence(llvm::AtomicOrdering::Acquire, ws);
    return ok_status();
  }
  llvm::CallingConv::ID kernel_calling_conv() const override {
    return llvm::CallingConv::AMDGPU_KERNEL;
  }
  llvm::Value* math(llvm::IRBuilder<>& b, Op op, llvm::Value* x) const override {
    // v_exp/v_log/v_sqrt/v_sin (llvm.sin is range-reduced by LLVM with a 1/2pi multiply).
    // f64 has only sqrt in hardware; LLVM 19 aborts on sin.f64 ("Cannot select fsin") and has no
    // libcall for exp2/log2.f64: compile_gpu expands those before code generation
    // (transcendental.h), so one reaching here is a typed kUnsupported.
    if (x->getType()->isDoubleTy() && op != Op::kSqrt) return nullptr;
    switch (op) {
      case Op::kExp2: return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp2, x);
      case Op::kLog2: return b.CreateUnaryIntrinsic(llvm::Intrinsic::log2, x);
      case Op::kSin: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sin, x);
      case Op::kSqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
      default: return nullptr;
    }
  }
  bool is_gpu() const override { return true; }
  void annotate_kernel(llvm::Function& f, uint32_t max_threads) const override {
    f.addFnAttr("amdgpu-flat-work-group-size", strformat("1,%u", std::max(1u, max_threads)));
  }
  // gfx11/gfx12: llvm.amdgcn.wmma.f32.16x16x16.{f16,bf16} (overloaded on the D/C and A/B vector
  // types: 16 halves on gfx11, 8 on gfx12; bf16 operands as i16 vectors). gfx942:
  // llvm.amdgcn.mfma.f32.16x16x16f16 / .16x16x16bf16.1k on 4-element vectors with the three
  // broadcast-control immediates (cbsz, abid, blgp) zero.
  llvm::Value* mma(llvm::IRBuilder<>& b, int kind, DType in, std::span<llvm::Value* const> a,
                   std::span<llvm::Value* const> bv, llvm::Value* acc) const override {
    const bool gfx11 = gpu_.rfind("gfx11", 0) == 0, gfx12 = gpu_.rfind("gfx12", 0) == 0;
    const bool bf16 = in == DType::kBFloat16;
    llvm::Value* av = pack(b, a, true);
    llvm::Value* bvv = pack(b, bv, true);
    if ((kind == 0 && gfx11) || (kind == 1 && gfx12)) {
      const auto id = bf16 ? llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_bf16
                           : llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_f16;
      return b.CreateIntrinsic(id, {acc->getType(), av->getType()}, {av, bvv, acc});
    }
    if (kind == 2 && gpu_ == "gfx942") {
      const auto id = bf16 ? llvm::Intrinsic::amdgcn_mfma_f32_16x16x16bf16_1k
                           : llvm::Intrinsic::amdgcn_mfma_f32_16x16x16f16;
      return b.CreateIntrinsic(id, {}, {av, bvv, acc, b.getInt32(0), b.getInt32(0), b.getInt32(0)});
    }
    return nullptr;
  }

 private:
  std::string gpu_, dl_;
};

// NVPTX: ptx_kernel calling convention, %tid/%ctaid special registers, bar.sync 0, shared
// memory in address space 3. LLVM 19 cannot lower llvm.exp2/log2/sin.f32 for NVPTX, so those
// use the approximate PTX instructions (ex2/lg2/sin.approx.f32; f16/bf16 through f32; f64 is
// expanded by compile_gpu before code generation, transcendental.h).
class NvptxTarget final : public TargetHooks {
 public:
  NvptxTarget(std::string gpu, std::string dl) : gpu_(std::move(gpu)), dl_(std::move(dl)) {}
  std::string_view name() const override { return gpu_; }
  std::string triple() const override { return "nvptx64-nvidia-cuda"; }
  std::string data_layout() const override { return dl_; }
  unsigned global_address_space() const override { return 1; }
  unsigned private_address_space() const override { return 0; }
  llvm::Value* thread_id(llvm::IRBuilder<>& b, int dim) const override {
    static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
    return b.CreateIntrinsic(ids[dim], {}, {});
  }
  llvm::Value* block_id(llvm::IRBuilder<>& b, int dim) const override {
    static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
    return b.CreateIntrinsic(ids[dim], {}, {});
  }
  Status barrier(llvm::IRBuilder<>& b) const override {
    b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
    return ok_status();
  }
  llvm::CallingConv::ID kernel_calling_conv() const override {
    return llvm::CallingConv::PTX_Kernel;
  }
  llvm::Value* math(llvm::IRBuilder<>& b, Op op, llvm::Value* x) const override {
    if (op == Op::kSqrt) return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
    switch (op) {
      case Op::kExp2: id = llvm::Intrinsic::nvvm_ex2_approx_f; break;
      case Op::kLog2: id = llvm::Intrinsic::nvvm_lg2_approx_f; break;
      case Op::kSin: id = llvm::Intrinsic::nvvm_sin_approx_f; break;
      default: return nullptr;
    }
    llvm::Type* ty = x->getType();
    llvm::Value* f = ty->isFloatTy() ? x : b.CreateFPCast(x, b.getFloatTy());
    llvm::Value* r = b.CreateIntrinsic(id, {}, {f});
    return ty->isFloatTy() ? r : b.CreateFPCast(r, ty);
  }
  bool is_gpu() const override { return true; }
  void annotate_kernel(llvm::Function& f, uint32_t max_threads) const override {
    // !nvvm.annotations {ptr @k, !"maxntidx", i32 N}: .maxntid N, 1, 1 in the PTX.
    auto& ctx = f.getContext();
    auto* i32 = llvm::Type::getInt32Ty(ctx);
    llvm::Metadata* md[] = {
        llvm::ValueAsMetadata::get(&f), llvm::MDString::get(ctx, "maxntidx"),
        llvm::ValueAsMetadata::get(llvm::ConstantInt::get(i32, std::max(1u, max_threads)))};
    f.getParent()
        ->getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(ctx, md));
  }
  // mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 through
  // llvm.nvvm.mma.m16n8k16.row.col.f32.f32 (f16: A as 4 x <2 x half>, B as 2 x <2 x half>) and
  // .row.col.bf16 (A as 4 x i32, B as 2 x i32, each a pair of bf16, low half first); C and D are
  // 4 floats (the result is a struct of 4).
  llvm::Value* mma(llvm::IRBuilder<>& b, int kind, DType in, std::span<llvm::Value* const> a,
                   std::span<llvm::Value* const> bv, llvm::Value* acc) const override {
    if (kind != 3 || a.size() != 8 || bv.size() != 4) return nullptr;
    const bool bf16 = in == DType::kBFloat16;
    std::vector<llvm::Value*> args;
    auto pairs = [&](std::span<llvm::Value* const> xs) {
      for (size_t i = 0; i + 1 < xs.size(); i += 2) {
        llvm::Value* v = pack(b, xs.subspan(i, 2), false);
        args.push_back(bf16 ? b.CreateBitCast(v, b.getInt32Ty()) : v);
      }
    };
    pairs(a);
    pairs(bv);
    for (unsigned i = 0; i < 4; ++i) args.push_back(b.CreateExtractElement(acc, b.getInt32(i)));
    const auto id = bf16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
                         : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32;
    llvm::Value* d = b.CreateIntrinsic(id, {}, args);
    llvm::Value* out = llvm::PoisonValue::get(acc->getType());
    for (unsigned i = 0; i < 4; ++i)
      out = b.CreateInsertElement(out, b.CreateExtractValue(d, {i}), b.getInt32(i));
    return out;
  }

 private:
  std::string gpu_, dl_;
};

std::string desc(Ref n) {
  return strformat("%%%u = %s %s", n->id(), std::string(op_name(n->op())).c_str(),
                   std::string(dtype_name(n->dtype())).c_str());
}

struct Gen {
  const Program& p;
  const TargetHooks& target;
  llvm::LLVMContext& ctx;
  llvm::Module& mod;
  llvm::IRBuilder<> b;
  llvm::Function* fn = nullptr;
  llvm::BasicBlock* entry = nullptr;
  std::unordered_map<const Node*, llvm::Value*> val;
  std::unordered_map<const Node*, llvm::AllocaInst*> acc;
  std::vector<llvm::Value*> buf_args, var_args;
  std::unordered_map<const Node*, llvm::Value*> locals;
  llvm::Value* tid = nullptr;
  llvm::Value* nthreads = nullptr;
  struct Loop {
    llvm::BasicBlock* header;
    llvm::BasicBlock* exit;
    llvm::PHINode* phi;
    llvm::Value* end;
  };
  std::vector<Loop> loops;

  Gen(const Program& prog, const TargetHooks& t, llvm::LLVMContext& c, llvm::Module& m)
      : p(prog), target(t), ctx(c), mod(m), b(c) {}

  // Register type (bool is i1) and memory type (bool is i8). Vectors: <lanes x lane type>.
  Result<llvm::Type*> reg_type(DType t) {
    if (is_vector(t)) {
      llvm::Type* lane = RG_TRY(reg_type(scalar_of(t)));
      return static_cast<llvm::Type*>(llvm::FixedVectorType::get(lane, unsigned(vcount(t))));
    }
    switch (t) {
      case DType::kBool: return b.getInt1Ty();
      case DType::kInt8:
      case DType::kUInt8: return b.getInt8Ty();
      case DType::kInt16:
      case DType::kUInt16: return b.getInt16Ty();
      case DType::kInt32:
      case DType::kUInt32: return b.getInt32Ty();
      case DType::kInt64:
      case DType::kUInt64:
      case DType::kIndex: return b.getInt64Ty();
      case DType::kFloat16: return b.getHalfTy();
      case DType::kBFloat16: return b.getBFloatTy();
      case DType::kFloat32: return b.getFloatTy();
      case DType::kFloat64: return b.getDoubleTy();
      default:
        return make_error(Errc::kUnsupported, "llvm: dtype %s has no machine type",
                          std::string(dtype_name(t)).c_str());
    }
  }
  Result<llvm::Type*> mem_type(DType t) {
    if (t == DType::kBool) return b.getInt8Ty();
    return reg_type(t);
  }

  // Alignment of a vector access: its INDEX is a multiple of the lane count (coalesce_memory
  // proves it), so the address is aligned to the vector's size as far as the buffer's base is.
  llvm::Align access_align(DType t) {
    const int lane = itemsize(scalar_of(t));
    const int want = std::min(itemsize(t), std::max(p.buffer_align, lane));
    return llvm::Align(uint64_t(std::max(want, lane)));
  }

  Result<llvm::Value*> get(Ref n) {
    auto it = val.find(n.get());
    if (it == val.end())
      return make_error(Errc::kInternal, "llvm: %s used before it was generated", desc(n).c_str());
    return it->second;
  }

  llvm::Value* to_i64(llvm::Value* v, bool is_signed) {
    if (v->getType() == b.getInt64Ty()) return v;
    return is_signed ? b.CreateSExt(v, b.getInt64Ty()) : b.CreateZExt(v, b.getInt64Ty());
  }

  // The tensor-core instruction of WMMA node `w` accumulating onto `acc` (a zero fragment when
  // the WMMA is used directly).
  Result<llvm::Value*> wmma(Ref w, llvm::Value* acc) {
    const auto a = w->arg().as_ints();
    std::vector<llvm::Value*> xs;
    for (Ref s : w->src()) xs.push_back(RG_TRY(get(s)));
    if (!acc) acc = llvm::Constant::getNullValue(frag_type(w));
    const std::span<llvm::Value* const> all(xs);
    llvm::Value* r = target.mma(b, int(a[0]), w->src(0)->dtype(), all.subspan(0, size_t(a[1])),
                                all.subspan(size_t(a[1]), size_t(a[2])), acc);
    if (!r)
      return make_error(Errc::kUnsupported,
                        "llvm: %s: tensor core kind %lld has no lowering on target %s",
                        desc(w).c_str(), (long long)a[0], std::string(target.name()).c_str());
    return r;
  }
  llvm::Type* frag_type(Ref w) {
    return llvm::FixedVectorType::get(b.getFloatTy(), unsigned(w->arg().as_ints()[3]));
  }

  Result<llvm::Value*> identity(Ref reduce) {
    const DType t = reduce->dtype();
    llvm::Type* ty = RG_TRY(reg_type(t));
    switch (reduce->arg().as_op()) {
      case Op::kAdd: return llvm::Constant::getNullValue(ty);
      case Op::kMul:
        return is_float(t) ? llvm::ConstantFP::get(ty, 1.0) : llvm::ConstantInt::get(ty, 1);
      case Op::kMax:
        if (is_float(t)) return llvm::ConstantFP::getInfinity(ty, /*Negative=*/true);
        if (t == DType::kBool) return b.getFalse();
        return llvm::ConstantInt::get(ty, static_cast<uint64_t>(dtype_min(t)), true);
      default:
        return make_error(Errc::kUnsupported, "llvm: %s: reduce op %s", desc(reduce).c_str(),
                          std::string(op_name(reduce->arg().as_op())).c_str());
    }
  }

  Result<llvm::Value*> binary(Op op, DType t, llvm::Value* x, llvm::Value* y, Ref n) {
    const bool f = is_float(t), s = is_signed_int(t);
    switch (op) {
      case Op::kAdd: return f ? b.CreateFAdd(x, y) : b.CreateAdd(x, y);
      case Op::kSub: return f ? b.CreateFSub(x, y) : b.CreateSub(x, y);
      case Op::kMul:
        if (t == DType::kBool) return b.CreateAnd(x, y);
        return f ? b.CreateFMul(x, y) : b.CreateMul(x, y);
      case Op::kFDiv: return b.CreateFDiv(x, y);
      case Op::kIDiv: return s ? b.CreateSDiv(x, y) : b.CreateUDiv(x, y);
      case Op::kMod: return s ? b.CreateSRem(x, y) : b.CreateURem(x, y);
      case Op::kMax:
        // llvm.maximum, not maxnum: a NaN operand gives NaN (PyTorch's max/relu), and -0 < +0.
        if (f) return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, x, y);
        if (t == DType::kBool) return b.CreateOr(x, y);
        return b.CreateSelect(s ? b.CreateICmpSGT(x, y) : b.CreateICmpUGT(x, y), x, y);
      case Op::kXor: return b.CreateXor(x, y);
      case Op::kOr: return b.CreateOr(x, y);
      case Op::kAnd: return b.CreateAnd(x, y);
      case Op::kPow: return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
      default:
        return make_error(Errc::kUnsupported, "llvm: %s: op not supported by the code generator",
                          desc(n).c_str());
    }
  }

  Result<llvm::Value*> cast(llvm::Value* x, DType from, DType to) {
    llvm::Type* ty = RG_TRY(reg_type(to));
    if (from == to) return x;
    if (to == DType::kBool) {
      return is_float(from) ? b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0))
                            : b.CreateICmpNE(x, llvm::Constant::getNullValue(x->getType()));
    }
    if (is_float(from) && is_float(to)) {
      if ((from == DType::kBFloat16 && to == DType::kFloat16) ||
          (from == DType::kFloat16 && to == DType::kBFloat16)) {
        // bf16 <-> half: same width, no single instruction; through float (exact, then one
        // rounding). Every other pair is one fpext/fptrunc (f64 -> bf16 rounds once).
        return b.CreateFPTrunc(b.CreateFPExt(x, b.getFloatTy()), ty);
      }
      if (from == DType::kFloat64 && to == DType::kBFloat16) {
        // One rounding without a libcall (x86 needs __truncdfbf2, which GCC 12's libgcc lacks):
        // f64 -> f32 rounded to odd (truncate toward zero, set the last bit when inexact), then
        // f32 -> bf16 to nearest-even; 16 spare bits make the pair exact-once rounding.
        llvm::Type* f32 = b.getFloatTy();
        llvm::Type* i32 = b.getInt32Ty();
        llvm::Value* t = b.CreateFPTrunc(x, f32);
        llvm::Value* back = b.CreateFPExt(t, x->getType());
        llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
        llvm::Value* aback = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back);
        llvm::Value* bits = b.CreateBitCast(t, i32);
        bits = b.CreateSelect(b.CreateFCmpOGT(aback, ax), b.CreateSub(bits, b.getInt32(1)), bits);
        bits = b.CreateSelect(b.CreateFCmpUNE(back, x), b.CreateOr(bits, b.getInt32(1)), bits);
        return b.CreateFPTrunc(b.CreateBitCast(bits, f32), ty);
      }
      return bitwidth(to) > bitwidth(from) ? b.CreateFPExt(x, ty) : b.CreateFPTrunc(x, ty);
    }
    if (is_float(from)) return is_signed_int(to) ? b.CreateFPToSI(x, ty) : b.CreateFPToUI(x, ty);
    if (is_float(to)) return is_signed_int(from) ? b.CreateSIToFP(x, ty) : b.CreateUIToFP(x, ty);
    return b.CreateIntCast(x, ty, is_signed_int(from));
  }

  Result<llvm::Value*> value(Ref n) {
    const DType t = n->dtype();
    auto src = [&](size_t i) { return get(n->src(i)); };
    switch (n->op()) {
      case Op::kConst: {
        llvm::Type* ty = RG_TRY(reg_type(t));
        if (n->arg().kind() == ArgKind::kFloat)
          return llvm::ConstantFP::get(ty, n->arg().as_float());
        if (n->arg().kind() == ArgKind::kInvalid) return llvm::Constant::getNullValue(ty);
        if (is_float(t)) return llvm::ConstantFP::get(ty, double(n->arg().as_int()));
        return llvm::ConstantInt::get(ty, static_cast<uint64_t>(n->arg().as_int()), true);
      }
      case Op::kDefineVar: {
        size_t i = 0;
        while (p.vars[i] != n) ++i;
        llvm::Type* ty = RG_TRY(reg_type(t));
        return b.CreateIntCast(var_args[i], ty, true);
      }
      case Op::kBuffer:
        if (is_local_buffer(n)) return locals.at(n.get());
        return buf_args[size_t(n->arg().as_ints()[0])];
      case Op::kSpecial: {
        // "gidx<d>" (work-group id) or "lidx<d>" (work-item id), d in 0..2.
        const std::string_view nm = n->arg().as_str();
        const int dim = nm.size() == 5 ? nm[4] - '0' : -1;
        llvm::Value* id = nullptr;
        if (dim >= 0 && dim < 3 && nm.substr(0, 4) == "gidx") id = target.block_id(b, dim);
        if (dim >= 0 && dim < 3 && nm.substr(0, 4) == "lidx") id = target.thread_id(b, dim);
        if (!id)
          return make_error(Errc::kUnsupported, "llvm: %s: launch index '%s' on target %s",
                            desc(n).c_str(), std::string(nm).c_str(),
                            std::string(target.name()).c_str());
        return b.CreateIntCast(id, RG_TRY(reg_type(t)), false);
      }
      case Op::kAfter: return src(0);
      case Op::kWmma: return wmma(n, nullptr);
      case Op::kGep:
        return b.CreateExtractElement(RG_TRY(src(0)), b.getInt32(uint32_t(n->arg().as_int())));
      case Op::kVectorize: {
        llvm::Value* v = llvm::PoisonValue::get(RG_TRY(reg_type(t)));
        for (size_t i = 0; i < n->nsrc(); ++i)
          v = b.CreateInsertElement(v, RG_TRY(src(i)), b.getInt32(uint32_t(i)));
        return v;
      }
      case Op::kBarrier: RG_TRY(target.barrier(b)); return static_cast<llvm::Value*>(nullptr);
      case Op::kNoop:
        if (n->nsrc()) return src(0);
        return static_cast<llvm::Value*>(nullptr);
      case Op::kIndex: {
        llvm::Type* ety = RG_TRY(mem_type(t));
        llvm::Value* base = RG_TRY(src(0));
        llvm::Value* idx = RG_TRY(src(1));
        const Ref ie = n->src(1);
        llvm::Value* off = to_i64(idx, is_signed_int(ie->dtype()));
        // Unmasked accesses were checked to lie inside the buffer (linearize's
        // index-in-bounds rule): an inbounds GEP.
        if (!(ie->op() == Op::kWhere && ie->src(2)->is_invalid()) && ie->vmin() >= 0)
          return b.CreateInBoundsGEP(ety, base, off);
        return b.CreateGEP(ety, base, off);
      }
      case Op::kLoad: {
        const Ref index = n->src(0);
        llvm::Type* mty = RG_TRY(mem_type(t));
        llvm::Type* rty = RG_TRY(reg_type(t));
        llvm::Value* ptr = RG_TRY(get(index));
        auto do_load = [&]() -> llvm::Value* {
          llvm::Value* v = is_vector(t) ? b.CreateAlignedLoad(mty, ptr, access_align(t))
                                        : b.CreateLoad(mty, ptr);
          return t == DType::kBool ? b.CreateICmpNE(v, b.getInt8(0)) : v;
        };
        const Ref i = index->src(1);
        if (!(i->op() == Op::kWhere && i->src(2)->is_invalid())) return do_load();
        // Gated load: read only when the gate holds, else the alternative value (or 0).
        llvm::Value* gate = RG_TRY(get(i->src(0)));
        llvm::Value* alt = n->nsrc() > 1 ? RG_TRY(src(1)) : llvm::Constant::getNullValue(rty);
        llvm::BasicBlock* from = b.GetInsertBlock();
        auto* then = llvm::BasicBlock::Create(ctx, "gated.load", fn);
        auto* join = llvm::BasicBlock::Create(ctx, "gated.join", fn);
        b.CreateCondBr(gate, then, join);
        b.SetInsertPoint(then);
        llvm::Value* v = do_load();
        llvm::BasicBlock* then_end = b.GetInsertBlock();
        b.CreateBr(join);
        b.SetInsertPoint(join);
        llvm::PHINode* phi = b.CreatePHI(rty, 2);
        phi->addIncoming(v, then_end);
        phi->addIncoming(alt, from);
        return phi;
      }
      case Op::kWhere:
        if (n->src(2)->is_invalid()) return src(1);  // a masked index: INDEX/LOAD/STORE gate it
        return b.CreateSelect(RG_TRY(src(0)), RG_TRY(src(1)), RG_TRY(src(2)));
      case Op::kMulAcc: {
        llvm::Value *x = RG_TRY(src(0)), *y = RG_TRY(src(1)), *z = RG_TRY(src(2));
        if (is_float(t))
          return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()}, {x, y, z});
        return b.CreateAdd(b.CreateMul(x, y), z);
      }
      case Op::kCast: return cast(RG_TRY(src(0)), n->src(0)->dtype(), t);
      case Op::kBitcast: {
        if (t == DType::kBool || n->src(0)->dtype() == DType::kBool)
          return make_error(Errc::kUnsupported, "llvm: %s: bitcast of bool", desc(n).c_str());
        return b.CreateBitCast(RG_TRY(src(0)), RG_TRY(reg_type(t)));
      }
      case Op::kNeg: {
        llvm::Value* x = RG_TRY(src(0));
        if (t == DType::kBool) return b.CreateNot(x);
        return is_float(t) ? b.CreateFNeg(x) : b.CreateNeg(x);
      }
      case Op::kRecip: {
        llvm::Value* x = RG_TRY(src(0));
        return b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), x);
      }
      case Op::kTrunc: {
        llvm::Value* x = RG_TRY(src(0));
        return is_float(t) ? b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x) : x;
      }
      case Op::kExp2:
      case Op::kLog2:
      case Op::kSin:
      case Op::kSqrt: {
        llvm::Value* r = target.math(b, n->op(), RG_TRY(src(0)));
        if (!r)
          return make_error(Errc::kUnsupported, "llvm: %s: no math lowering on target %s",
                            desc(n).c_str(), std::string(target.name()).c_str());
        return r;
      }
      case Op::kCmpLt:
      case Op::kCmpNe:
      case Op::kCmpEq: {
        llvm::Value *x = RG_TRY(src(0)), *y = RG_TRY(src(1));
        const DType st = n->src(0)->dtype();
        if (is_float(st)) {
          if (n->op() == Op::kCmpLt) return b.CreateFCmpOLT(x, y);
          return n->op() == Op::kCmpNe ? b.CreateFCmpUNE(x, y) : b.CreateFCmpOEQ(x, y);
        }
        if (n->op() == Op::kCmpLt)
          return is_signed_int(st) ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y);
        return n->op() == Op::kCmpNe ? b.CreateICmpNE(x, y) : b.CreateICmpEQ(x, y);
      }
      case Op::kShl:
      case Op::kShr: {
        llvm::Value* x = RG_TRY(src(0));
        llvm::Value* y = b.CreateIntCast(RG_TRY(src(1)), x->getType(), false);
        if (n->op() == Op::kShl) return b.CreateShl(x, y);
        return is_signed_int(t) ? b.CreateAShr(x, y) : b.CreateLShr(x, y);
      }
      default:
        if (ops::kBinary.has(n->op())) {
          llvm::Value* v = RG_TRY(binary(n->op(), t, RG_TRY(src(0)), RG_TRY(src(1)), n));
          // Index arithmetic (narrowed to int32/int64) and any signed ADD/SUB/MUL whose bounds
          // are tighter than its type's range cannot wrap: say so (nsw), so LLVM can prove
          // that neighbouring lanes' addresses are consecutive (vector loads/stores).
          if (auto* bo = llvm::dyn_cast<llvm::BinaryOperator>(v);
              bo && is_signed_int(t) && t != DType::kBool &&
              (n->op() == Op::kAdd || n->op() == Op::kSub || n->op() == Op::kMul) &&
              (n->vmin() > dtype_min(t) || n->vmax() < dtype_max(t)))
            bo->setHasNoSignedWrap(true);
          return v;
        }
        return make_error(Errc::kUnsupported, "llvm: %s: op not supported by the code generator",
                          desc(n).c_str());
    }
  }

  Status store(Ref n) {
    const Ref index = n->src(0);
    llvm::Value* ptr = RG_TRY(get(index));
    llvm::Value* v = RG_TRY(get(n->src(1)));
    if (n->src(1)->dtype() == DType::kBool) v = b.CreateZExt(v, b.getInt8Ty());
    const Ref i = index->src(1);
    if (!(i->op() == Op::kWhere && i->src(2)->is_invalid())) {
      if (is_vector(n->src(1)->dtype()))
        b.CreateAlignedStore(v, ptr, access_align(n->src(1)->dtype()));
      else
        b.CreateStore(v, ptr);
      return ok_status();
    }
    llvm::Value* gate = RG_TRY(get(i->src(0)));
    auto* then = llvm::BasicBlock::Create(ctx, "gated.store", fn);
    auto* join = llvm::BasicBlock::Create(ctx, "gated.join", fn);
    b.CreateCondBr(gate, then, join);
    b.SetInsertPoint(then);
    b.CreateStore(v, ptr);
    b.CreateBr(join);
    b.SetInsertPoint(join);
    return ok_status();
  }

  Status loop_begin(Ref r, bool parallel) {
    llvm::Value* size = RG_TRY(get(r->src(0)));
    llvm::Type* ty = size->getType();
    llvm::Value* start = llvm::ConstantInt::get(ty, 0);
    llvm::Value* end = size;
    if (parallel) {
      // This thread's share [size*t/n, size*(t+1)/n) of the outermost output loop.
      llvm::Value* n64 = to_i64(size, true);
      llvm::Value* s = b.CreateSDiv(b.CreateMul(n64, tid), nthreads);
      llvm::Value* e = b.CreateSDiv(b.CreateMul(n64, b.CreateAdd(tid, b.getInt64(1))), nthreads);
      start = b.CreateIntCast(s, ty, true);
      end = b.CreateIntCast(e, ty, true);
    }
    llvm::BasicBlock* pre = b.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(ctx, strformat("loop%u", r->id()), fn);
    auto* body = llvm::BasicBlock::Create(ctx, strformat("body%u", r->id()), fn);
    auto* exit = llvm::BasicBlock::Create(ctx, strformat("exit%u", r->id()), fn);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    llvm::PHINode* phi = b.CreatePHI(ty, 2, strformat("r%u", r->id()));
    phi->addIncoming(start, pre);
    b.CreateCondBr(b.CreateICmpSLT(phi, end), body, exit);
    b.SetInsertPoint(body);
    val[r.get()] = phi;
    loops.push_back({header, exit, phi, end});
    return ok_status();
  }

  void loop_end() {
    Loop l = loops.back();
    loops.pop_back();
    llvm::Value* next = b.CreateAdd(l.phi, llvm::ConstantInt::get(l.phi->getType(), 1), "",
                                    /*HasNUW=*/true, /*HasNSW=*/true);
    l.phi->addIncoming(next, b.GetInsertBlock());
    b.CreateBr(l.header);
    b.SetInsertPoint(l.exit);
  }

  Status run(const std::string& entry_name, uint32_t max_threads) {
    mod.setTargetTriple(target.triple());
    mod.setDataLayout(target.data_layout());
    if (!p.locals.empty() && !target.is_gpu())
      return make_error(Errc::kUnsupported, "llvm: local buffers need a GPU target, not %s",
                        std::string(target.name()).c_str());
    for (Ref l : p.locals) {
      const auto a = l->arg().as_ints();
      llvm::Type* ety = RG_TRY(mem_type(l->dtype()));
      auto* aty = llvm::ArrayType::get(ety, uint64_t(std::max<int64_t>(a[1], 1)));
      auto* gv = new llvm::GlobalVariable(
          mod, aty, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(aty),
          strformat("local%lld", (long long)a[0]), nullptr, llvm::GlobalValue::NotThreadLocal,
          target.local_address_space());
      gv->setAlignment(llvm::Align(16));
      locals[l.get()] = gv;
    }
    const unsigned gas = target.global_address_space();
    llvm::Type* ptr = b.getPtrTy(gas);
    // The kernel body: typed, noalias buffer pointers; variables; thread split.
    std::vector<llvm::Type*> params;
    for (size_t i = 0; i < p.buffers.size(); ++i) params.push_back(ptr);
    for (size_t i = 0; i < p.vars.size(); ++i) params.push_back(b.getInt64Ty());
    params.push_back(b.getInt64Ty());
    params.push_back(b.getInt64Ty());
    auto* fty = llvm::FunctionType::get(b.getVoidTy(), params, false);
    fn = llvm::Function::Create(fty, llvm::Function::InternalLinkage, entry_name + ".body", mod);
    fn->addFnAttr(llvm::Attribute::AlwaysInline);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      fn->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
      buf_args.push_back(fn->getArg(unsigned(i)));
    }
    for (size_t i = 0; i < p.vars.size(); ++i)
      var_args.push_back(fn->getArg(unsigned(p.buffers.size() + i)));
    tid = fn->getArg(unsigned(p.buffers.size() + p.vars.size()));
    nthreads = fn->getArg(unsigned(p.buffers.size() + p.vars.size() + 1));
    entry = llvm::BasicBlock::Create(ctx, "entry", fn);
    b.SetInsertPoint(entry);
    for (size_t k = 0; k < p.insts.size(); ++k) {
      const Inst& in = p.insts[k];
      const Ref n = in.node;
      switch (in.kind) {
        case InstKind::kValue: {
          llvm::Value* v = RG_TRY(value(n));
          if (v) val[n.get()] = v;
          break;
        }
        case InstKind::kStore: RG_TRY(store(n)); break;
        case InstKind::kLoopBegin: RG_TRY(loop_begin(n, int(k) == p.parallel_loop)); break;
        case InstKind::kLoopEnd: loop_end(); break;
        case InstKind::kAccInit: {
          const bool frag = n->src(0)->op() == Op::kWmma;
          llvm::Type* ty = frag ? frag_type(n->src(0)) : RG_TRY(reg_type(n->dtype()));
          llvm::IRBuilder<> eb(entry, entry->begin());
          llvm::AllocaInst* a = eb.CreateAlloca(ty, target.private_address_space(), nullptr,
                                                strformat("acc%u", n->id()));
          acc[n.get()] = a;
          b.CreateStore(frag ? llvm::Constant::getNullValue(ty) : RG_TRY(identity(n)), a);
          break;
        }
        case InstKind::kAccUpdate: {
          llvm::AllocaInst* a = acc.at(n.get());
          llvm::Value* cur = b.CreateLoad(a->getAllocatedType(), a);
          const Ref v = n->src(0);
          if (v->op() == Op::kWmma) {  // the accumulator is the instruction's C operand
            b.CreateStore(RG_TRY(wmma(v, cur)), a);
            break;
          }
          if (n->arg().as_op() == Op::kAdd && is_float(n->dtype()) && v->op() == Op::kMul &&
              v->dtype() == n->dtype()) {
            // acc += x*y as one fused multiply-add (llvm.fmuladd: an FMA where the target has
            // one). This is the matmul inner loop; the unfused product stays dead.
            llvm::Value* x = RG_TRY(get(v->src(0)));
            llvm::Value* y = RG_TRY(get(v->src(1)));
            b.CreateStore(
                b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {cur->getType()}, {x, y, cur}), a);
            break;
          }
          llvm::Value* x = RG_TRY(get(v));
          b.CreateStore(RG_TRY(binary(n->arg().as_op(), n->dtype(), cur, x, n)), a);
          break;
        }
        case InstKind::kAccRead: {
          llvm::AllocaInst* a = acc.at(n.get());
          val[n.get()] = b.CreateLoad(a->getAllocatedType(), a);
          break;
        }
      }
    }
    b.CreateRetVoid();

    if (target.is_gpu()) {
      // The GPU kernel: buffers, then variables, as kernel arguments; the body is inlined.
      std::vector<llvm::Type*> kparams;
      for (size_t i = 0; i < p.buffers.size(); ++i) kparams.push_back(ptr);
      for (size_t i = 0; i < p.vars.size(); ++i) kparams.push_back(b.getInt64Ty());
      auto* kty = llvm::FunctionType::get(b.getVoidTy(), kparams, false);
      auto* k = llvm::Function::Create(kty, llvm::Function::ExternalLinkage, entry_name, mod);
      k->setCallingConv(target.kernel_calling_conv());
      k->addFnAttr(llvm::Attribute::NoUnwind);
      target.annotate_kernel(*k, max_threads);
      b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", k));
      std::vector<llvm::Value*> args;
      for (size_t i = 0; i < p.buffers.size(); ++i) {
        k->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
        if (p.buffers[i]) k->getArg(unsigned(i))->setName(strformat("data%zu", i));
        args.push_back(k->getArg(unsigned(i)));
      }
      for (size_t i = 0; i < p.vars.size(); ++i) {
        llvm::Argument* a = k->getArg(unsigned(p.buffers.size() + i));
        a->setName(std::string(p.vars[i]->arg().as_var().name));
        args.push_back(a);
      }
      args.push_back(b.getInt64(0));
      args.push_back(b.getInt64(1));
      b.CreateCall(fn, args);
      b.CreateRetVoid();
      std::string err;
      llvm::raw_string_ostream os(err);
      if (llvm::verifyModule(mod, &os))
        return make_error(Errc::kInternal, "llvm: generated module fails verification: %s",
                          os.str().c_str());
      return ok_status();
    }

    // The uniform entry wrapper.
    llvm::Type* host_ptr = b.getPtrTy();
    auto* wty = llvm::FunctionType::get(
        b.getVoidTy(), {host_ptr, host_ptr, b.getInt64Ty(), b.getInt64Ty()}, false);
    auto* w = llvm::Function::Create(wty, llvm::Function::ExternalLinkage, entry_name, mod);
    w->setCallingConv(target.kernel_calling_conv());
    w->addFnAttr(llvm::Attribute::NoUnwind);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", w));
    std::vector<llvm::Value*> args;
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      llvm::Value* slot = b.CreateConstGEP1_64(host_ptr, w->getArg(0), i);
      llvm::Value* bp = b.CreateLoad(host_ptr, slot, strformat("buf%zu", i));
      args.push_back(gas == 0 ? bp : b.CreateAddrSpaceCast(bp, ptr));
    }
    for (size_t i = 0; i < p.vars.size(); ++i)
      args.push_back(b.CreateLoad(b.getInt64Ty(),
                                  b.CreateConstGEP1_64(b.getInt64Ty(), w->getArg(1), i),
                                  std::string(p.vars[i]->arg().as_var().name)));
    args.push_back(w->getArg(2));
    args.push_back(w->getArg(3));
    b.CreateCall(fn, args);
    b.CreateRetVoid();

    std::string err;
    llvm::raw_string_ostream os(err);
    if (llvm::verifyModule(mod, &os))
      return make_error(Errc::kInternal, "llvm: generated module fails verification: %s",
                        os.str().c_str());
    return ok_status();
  }
};

}  // namespace

std::unique_ptr<TargetHooks> make_host_target(std::string triple, std::string data_layout) {
  return std::make_unique<HostTarget>(std::move(triple), std::move(data_layout));
}
std::unique_ptr<TargetHooks> make_amdgpu_target(std::string gpu, std::string data_layout) {
  return std::make_unique<AmdgpuTarget>(std::move(gpu), std::move(data_layout));
}
std::unique_ptr<TargetHooks> make_nvptx_target(std::string gpu, std::string data_layout) {
  return std::make_unique<NvptxTarget>(std::move(gpu), std::move(data_layout));
}

Result<std::unique_ptr<llvm::Module>> generate(const Program& p, const TargetHooks& target,
                                               llvm::LLVMContext& ctx,
                                               const std::string& entry_name,
                                               uint32_t max_threads) {
  auto mod = std::make_unique<llvm::Module>(entry_name, ctx);
  Gen g(p, target, ctx, *mod);
  RG_TRY(g.run(entry_name, max_threads));
  return mod;
}

}  // namespace rawgpu::compiler::llvmgen
