// Per-instruction differential tests (issue 9): one small LLVM IR function per operation × data
// type, `i64 @op_K(i64 %a, i64 %b)` (the operands are the low bits of a and b, the result is
// zero-extended), is compiled twice from the same text:
//   * for x86-64 with llc-19 + ld.lld-19 -shared (plus LLVM's compiler-rt builtins for the
//     half/bfloat conversion helpers), loaded with dlopen and run natively: the reference;
//   * for gfx1100 and gfx1201 with llc-19 + ld.lld-19, inlined into a kernel that calls every op
//     of a family once per lane, dispatched through queues::amd::ComputeQueue on the simulated
//     GPU and run by the wave emulator. The Uniform suite runs the same ops with uniform
//     operands (one wave loops over scalar-loaded inputs), so LLVM uses the SALU where it can.
// Inputs are all pairs of a type's edge values (±0, denormals, ±inf, quiet and signalling NaN,
// the extremes, rounding ties, INT_MIN/MAX, shift widths), or for the approximate operations
// sweeps over their range. Results are compared bitwise, except as documented per op:
//   kNan    float results: any NaN equals any NaN (neither ISA defines the same payload: x86
//           produces the negative default NaN, RDNA the positive one);
//   kTie    kNan, and +0/-0 equal (llvm.minnum/maxnum may return either zero for ±0); with a
//           signalling NaN operand, the other operand or a NaN (see same());
//   kApprox kNan, and within N ulps (distance in ordered bit patterns) or an absolute bound:
//           the approximate ops, with the bound taken from the instruction's documented or
//           derived precision (see each family).
// fmuladd accepts the fused or the unfused x86-64 result (Op::alt). Operations the emulator or
// LLVM 19 cannot run yet are not dropped silently: they sit in the pending() table below, which
// the test prints with each entry's status.
// SKIPPED without llc-19, ld.lld-19 or the compiler-rt builtins archive, or on a non-x86-64 host.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "rawgpu/base/format.h"
#include "rdna_e2e_fixture.h"

namespace rawgpu::sim::rdna {
namespace {

using drivers::amd::DeviceBuffer;
using testing::EndToEnd;
using testing::is_nan_bits;
using testing::lane_operands_ir;
using testing::run;
using testing::TempDir;
using u64 = uint64_t;

// ---------------------------------------------------------------- types

struct Ty {
  const char* ir;   // IR type
  const char* sfx;  // intrinsic suffix
  unsigned bits;
  bool fp;
};
constexpr Ty kI8{"i8", "i8", 8, false}, kI16{"i16", "i16", 16, false},
    kI32{"i32", "i32", 32, false}, kI64{"i64", "i64", 64, false}, kF16{"half", "f16", 16, true},
    kBF16{"bfloat", "bf16", 16, true}, kF32{"float", "f32", 32, true},
    kF64{"double", "f64", 64, true};

unsigned bits_of(std::string_view t) {
  for (const Ty* ty : {&kI8, &kI16, &kI32, &kI64, &kF16, &kBF16, &kF32, &kF64})
    if (t == ty->ir) return ty->bits;
  if (t == "i1") return 1;
  if (t == "i128") return 128;
  if (t == "<2 x half>" || t == "<2 x i16>") return 32;
  return 0;
}
// Types passed as a bitcast of their integer bits (floats and the packed vectors).
bool by_bitcast(std::string_view t) {
  return t[0] == '<' || t == "half" || t == "bfloat" || t == "float" || t == "double";
}
bool is_fp(std::string_view t) {
  return t == "half" || t == "bfloat" || t == "float" || t == "double";
}
u64 mask_of(unsigned bits) { return bits >= 64 ? ~u64{0} : (u64{1} << bits) - 1; }

// Float value of a result's bits (half/bfloat/float/double) as double.
double value_of(u64 x, std::string_view t) {
  if (t == "half") return static_cast<double>(std::bit_cast<_Float16>(static_cast<uint16_t>(x)));
  if (t == "bfloat") return std::bit_cast<float>(static_cast<uint32_t>(x << 16));
  if (t == "float") return std::bit_cast<float>(static_cast<uint32_t>(x));
  return std::bit_cast<double>(x);
}

// Position of a float's bit pattern on the number line (monotonic; -0 and +0 adjacent).
int64_t ordered(u64 x, unsigned bits) {
  const u64 sign = u64{1} << (bits - 1);
  const int64_t mag = static_cast<int64_t>(x & (sign - 1));
  return (x & sign) ? -mag - 1 : mag;
}

// ---------------------------------------------------------------- ops

enum class Kind : uint8_t { kExact, kNan, kTie, kApprox };
struct Cmp {
  Kind kind = Kind::kExact;
  double ulps = 0;  // kApprox: allowed ordered-bit-pattern distance
  double abs = 0;   // kApprox: or allowed absolute difference abs + per_x · |x|
  double per_x = 0;
};
constexpr Cmp kExact{}, kNanEq{Kind::kNan}, kTieEq{Kind::kTie};
Cmp ulps(double n) { return {Kind::kApprox, n, 0}; }

struct Op {
  std::string name;
  std::string ty, rty;  // operand and result IR types
  std::string body;     // IR computing %r from %x, %y (operands of type ty); %a, %b are the i64s
  Cmp cmp = kExact;
  // A second x86-64 reference whose result is accepted too (llvm.fmuladd may fuse or not).
  std::string alt = {};
  // Compare only where |x| <= max_abs_x or x is not finite (0: everywhere).
  double max_abs_x = 0;
  bool neg_y = false;  // the body negates y first (kTie's "other operand" is -y)
};

std::string replace_all(std::string s, std::string_view from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

// Expands {T} (IR type), {S} (intrinsic suffix), {W} (bits), {W1} (bits - 1), {I} (same-width
// integer type), {MIN} (signed minimum), {D} (double-width integer type).
std::string expand(std::string s, const Ty& t) {
  s = replace_all(s, "{T}", t.ir);
  s = replace_all(s, "{S}", t.sfx);
  s = replace_all(s, "{W1}", std::to_string(t.bits - 1));
  s = replace_all(s, "{W}", std::to_string(t.bits));
  s = replace_all(s, "{I}", "i" + std::to_string(t.bits));
  s = replace_all(s, "{D}", "i" + std::to_string(2 * t.bits));
  s = replace_all(
      s, "{MIN}",
      t.bits == 64 ? "-9223372036854775808" : std::to_string(-(int64_t{1} << (t.bits - 1))));
  return s;
}

// The IR function of one op: `i64 @op_K(i64 %a, i64 %b)`.
std::string function_ir(const Op& op, const std::string& name, const std::string& body,
                        const std::string& linkage, const std::string& attrs) {
  const unsigned w = bits_of(op.ty), rw = bits_of(op.rty);
  const std::string iw = "i" + std::to_string(w), irw = "i" + std::to_string(rw);
  std::string ir =
      "define " + linkage + "i64 @" + name + "(i64 %a, i64 %b)" + attrs + " {\nentry:\n";
  for (const char* v : {"x", "y"}) {
    const std::string src = v[0] == 'x' ? "%a" : "%b", dst = std::string("%") + v;
    std::string cur = src;
    if (w < 64) {
      ir += "  " + dst + "_t = trunc i64 " + src + " to " + iw + "\n";
      cur = dst + "_t";
    }
    if (by_bitcast(op.ty))
      ir += "  " + dst + " = bitcast " + iw + " " + cur + " to " + op.ty + "\n";
    else
      ir += "  " + dst + " = add " + iw + " " + cur + ", 0\n";
  }
  ir += "  " + replace_all(body, "\n", "\n  ") + "\n";
  std::string r = "%r";
  if (by_bitcast(op.rty)) {
    ir += "  %r_b = bitcast " + op.rty + " %r to " + irw + "\n";
    r = "%r_b";
  }
  if (rw < 64) {
    ir += "  %r_z = zext " + irw + " " + r + " to i64\n";
    r = "%r_z";
  }
  ir += "  ret i64 " + r + "\n}\n";
  return ir;
}

// Declarations of the intrinsics the bodies (and their alternatives) call.
std::string declarations(const std::vector<const Op*>& ops) {
  std::vector<std::string> bodies;
  for (const Op* op : ops) bodies.push_back(op->body + "\n" + op->alt);
  return testing::call_declarations(bodies);
}

std::string x86_module(const std::vector<const Op*>& ops) {
  std::string ir = "target triple = \"x86_64-unknown-linux-gnu\"\n";
  for (size_t k = 0; k < ops.size(); ++k) {
    const std::string n = "op_" + std::to_string(k);
    ir += function_ir(*ops[k], n, ops[k]->body, "", "");
    if (!ops[k]->alt.empty()) ir += function_ir(*ops[k], n + "_alt", ops[k]->alt, "", "");
  }
  return ir + declarations(ops);
}

// Lane i = group * 64 + tid: out[k * lanes + i] = op_k(a[i], b[i]). `uniform`: one workgroup
// loops over i < %n with i, a[i] and b[i] uniform (scalar loads), so LLVM computes what it can
// on the SALU (s_* integer ops; gfx1201's SALU float ops) and every lane stores the same value.
std::string gpu_module(const std::vector<const Op*>& ops, size_t lanes, bool uniform = false) {
  std::string ir = R"(target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
attributes #1 = { alwaysinline }
!0 = !{}
)";
  if (uniform)
    ir += R"(define amdgpu_kernel void @diff(ptr addrspace(1) noalias %out,
    ptr addrspace(1) noalias readonly %pa, ptr addrspace(1) noalias readonly %pb, i32 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%inext, %loop]
  %idx = zext i32 %i to i64
  %ga = getelementptr inbounds i64, ptr addrspace(1) %pa, i64 %idx
  %gb = getelementptr inbounds i64, ptr addrspace(1) %pb, i64 %idx
  %a = load i64, ptr addrspace(1) %ga, !invariant.load !0
  %b = load i64, ptr addrspace(1) %gb, !invariant.load !0
)";
  else
    ir +=
        R"(define amdgpu_kernel void @diff(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %pa,
                                ptr addrspace(1) noalias %pb) #0 {
entry:
)" + lane_operands_ir("i64");
  for (size_t k = 0; k < ops.size(); ++k) {
    const std::string n = std::to_string(k);
    ir += "  %r" + n + " = call i64 @op_" + n + "(i64 %a, i64 %b)\n";
    ir += "  %p" + n + " = getelementptr inbounds i64, ptr addrspace(1) %out, i64 " +
          std::to_string(k * lanes) + "\n";
    ir += "  %q" + n + " = getelementptr inbounds i64, ptr addrspace(1) %p" + n + ", i64 %idx\n";
    ir += "  store i64 %r" + n + ", ptr addrspace(1) %q" + n + "\n";
  }
  if (uniform)
    ir +=
        "  %inext = add i32 %i, 1\n  %done = icmp eq i32 %inext, %n\n"
        "  br i1 %done, label %exit, label %loop\nexit:\n";
  ir += "  ret void\n}\n";
  for (size_t k = 0; k < ops.size(); ++k)
    ir += function_ir(*ops[k], "op_" + std::to_string(k), ops[k]->body, "internal ", " #1");
  return ir + declarations(ops);
}

// ---------------------------------------------------------------- x86-64 reference

// LLVM's compiler-rt builtins for x86-64 (the half/bfloat conversion helpers LLVM calls on
// x86-64 without F16C/AVX512-BF16; libgcc 12 lacks the bfloat ones). Empty if not installed.
std::string builtins_archive() {
  static const std::string path = [] {
    std::vector<std::string> c;
    if (auto out = run("clang-19 -rtlib=compiler-rt -print-libgcc-file-name 2>/dev/null")) {
      std::string p = *out;
      while (!p.empty() && (p.back() == '\n' || p.back() == ' ')) p.pop_back();
      c.push_back(p);
    }
    c.push_back("/usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.builtins-x86_64.a");
    c.push_back("/usr/lib/llvm-19/lib/clang/19/lib/x86_64-pc-linux-gnu/libclang_rt.builtins.a");
    for (const std::string& p : c)
      if (!p.empty() && std::filesystem::exists(p)) return p;
    return std::string();
  }();
  return path;
}

using HostFn = u64 (*)(u64, u64);

// The ops compiled for x86-64 and loaded; fns empty with `error` set on failure.
struct HostModule {
  void* handle = nullptr;
  std::vector<HostFn> fns, alts;  // alts[k] null without an alternative reference
  std::string error;
  HostModule(const HostModule&) = delete;
  HostModule& operator=(const HostModule&) = delete;
  explicit HostModule(const std::vector<const Op*>& ops) {
    TempDir dir;
    const std::string in = dir.file("h.ll", x86_module(ops)), obj = dir.path + "/h.o",
                      so = dir.path + "/h.so";
    if (!run("llc-19 -mtriple=x86_64-unknown-linux-gnu -O2 -relocation-model=pic "
             "-filetype=obj -o " +
             obj + " " + in + " 2>&1 && ld.lld-19 -shared -o " + so + " " + obj + " " +
             builtins_archive() + " 2>&1")) {
      error = "llc-19/ld.lld-19 for x86-64 failed";
      return;
    }
    handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      error = std::string("dlopen: ") + dlerror();
      return;
    }
    for (size_t k = 0; k < ops.size(); ++k) {
      void* f = dlsym(handle, ("op_" + std::to_string(k)).c_str());
      if (f == nullptr) {
        error = "dlsym op_" + std::to_string(k);
        fns.clear();
        return;
      }
      fns.push_back(reinterpret_cast<HostFn>(f));
      alts.push_back(ops[k]->alt.empty()
                         ? nullptr
                         : reinterpret_cast<HostFn>(
                               dlsym(handle, ("op_" + std::to_string(k) + "_alt").c_str())));
    }
  }
  ~HostModule() {
    if (handle) dlclose(handle);
  }
};

bool is_snan_bits(u64 x, std::string_view t) {
  const unsigned w = bits_of(t);
  const unsigned mant = t == "half" ? 10 : t == "bfloat" ? 7 : t == "float" ? 23 : 52;
  return is_nan_bits(x & mask_of(w), t) && !((x >> (mant - 1)) & 1);
}

// x, y: the operands (kTie, kApprox with per_x).
bool same(const Op& op, u64 got, u64 want, u64 x = 0, u64 y = 0) {
  if (got == want) return true;
  if (op.rty == "<2 x half>") {  // per half
    Op h = op;
    h.ty = h.rty = "half";
    auto lo = [](u64 v) { return v & 0xFFFF; };
    auto hi = [](u64 v) { return (v >> 16) & 0xFFFF; };
    return same(h, lo(got), lo(want), lo(x), lo(y)) && same(h, hi(got), hi(want), hi(x), hi(y));
  }
  const Cmp& c = op.cmp;
  if (c.kind == Kind::kExact || !is_fp(op.rty)) return false;
  const bool gn = is_nan_bits(got, op.rty), wn = is_nan_bits(want, op.rty);
  // minnum/maxnum with a signalling NaN operand: LLVM 19 allows the IEEE 754-2008 minNum
  // result (a quiet NaN) as well as libm's fmin result (the other operand); both back ends
  // produce each in some type (x86-64 half: NaN; gfx bfloat, promoted to f32 without quieting:
  // NaN; the others: the other operand).
  if (c.kind == Kind::kTie && (is_snan_bits(x, op.ty) || is_snan_bits(y, op.ty))) {
    const u64 ny = op.neg_y ? y ^ (u64{1} << (bits_of(op.ty) - 1)) : y;
    const u64 other = is_snan_bits(x, op.ty) ? ny : x;
    if (gn || got == other) return true;
  }
  if (gn || wn) return gn && wn;
  const unsigned w = bits_of(op.rty);
  const u64 mag = (u64{1} << (w - 1)) - 1;
  if (c.kind == Kind::kTie && ((got | want) & mag) == 0) return true;
  if (c.kind != Kind::kApprox) return false;
  const int64_t d = ordered(got, w) - ordered(want, w);
  if (static_cast<double>(d < 0 ? -d : d) <= c.ulps) return true;
  const double g = value_of(got, op.rty), v = value_of(want, op.rty);
  const double xv = c.per_x > 0 ? std::fabs(value_of(x, op.ty)) : 0;
  return std::isfinite(g) && std::isfinite(v) && std::fabs(g - v) <= c.abs + c.per_x * xv;
}

// ---------------------------------------------------------------- families

struct Family {
  std::string name;
  std::vector<u64> a, b;  // one lane per (a[i], b[i])
  std::vector<Op> ops;
};

Family pairs(std::string name, const std::vector<u64>& edges, std::vector<Op> ops) {
  Family f{std::move(name), {}, {}, std::move(ops)};
  for (u64 x : edges)
    for (u64 y : edges) f.a.push_back(x), f.b.push_back(y);
  return f;
}

std::vector<u64> edges_of(const Ty& t) {
  if (!t.fp && t.bits == 8)
    return {0x00, 0x01, 0xFF, 0x7F, 0x80, 0x81, 0x02, 0x03,
            0x07, 0x08, 0x0F, 0x10, 0x55, 0xAA, 0x40, 0xC0};
  if (!t.fp && t.bits == 16)
    return {0x0000, 0x0001, 0xFFFF, 0x7FFF, 0x8000, 0x8001, 0x0002, 0x0003, 0x000F,
            0x0010, 0x0011, 0x00FF, 0x0100, 0x5555, 0xAAAA, 0x1234, 0xFFFE};
  if (!t.fp && t.bits == 32)
    return {0x00000000, 0x00000001, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x80000001,
            0x00000002, 0x00000003, 0x0000001F, 0x00000020, 0x00000021, 0x000000FF,
            0x00010000, 0x55555555, 0xAAAAAAAA, 0x12345678, 0xFFFFFFFE};
  if (!t.fp)
    return {0,
            1,
            ~u64{0},
            u64{1} << 63,
            ~(u64{1} << 63),
            (u64{1} << 63) + 1,
            2,
            3,
            63,
            64,
            65,
            u64{1} << 32,
            0xFFFFFFFFull,
            0x80000000ull,
            0x123456789ABCDEF0ull,
            0xFFFFFFFF00000000ull,
            0xAAAAAAAAAAAAAAAAull};
  if (t.bits == 16 && std::string_view(t.ir) == "half")
    return {0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x3C00, 0xBC00, 0x3800, 0xC100, 0x4248,
            0x3555, 0x5BF8, 0x7800, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01};
  if (t.bits == 16)  // bfloat
    return {0x0000, 0x8000, 0x0001, 0x807F, 0x0080, 0x3F80, 0xBF80, 0x3F00, 0xC020, 0x4049,
            0x3EAB, 0x4F00, 0xCF00, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x7F81};
  if (t.bits == 32)
    return {0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
            0x3F000000, 0xC0200000, 0x40490FDB, 0x3EAAAAAB, 0x4B800001, 0x4F000000, 0xCF000001,
            0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00001};
  return {0,
          u64{1} << 63,
          1,
          0x800FFFFFFFFFFFFFull,
          0x0010000000000000ull,
          0x3FF0000000000000ull,
          0xBFF0000000000000ull,
          0x3FE0000000000000ull,
          0xC004000000000000ull,
          0x400921FB54442D18ull,
          0x3FD5555555555555ull,
          0x4340000000000001ull,
          0x43E0000000000000ull,
          0xC1E0000000200000ull,
          0x7FEFFFFFFFFFFFFFull,
          0xFFEFFFFFFFFFFFFFull,
          0x7FF0000000000000ull,
          0xFFF0000000000000ull,
          0x7FF8000000000000ull,
          0x7FF0000000000001ull,
          0x01A56E1FC2F8F359ull};  // 1e-300
}

// Op templates over float types ({T}, {S}): the operation text as in LLVM IR.
struct Tmpl {
  const char* name;
  const char* rty;  // "" = same as the operand type
  const char* body;
  Cmp cmp;
  const char* alt = "";  // Op::alt
};

const std::vector<Tmpl>& float_templates() {
  static const std::vector<Tmpl> t = {
      {"fadd", "", "%r = fadd {T} %x, %y", kNanEq},
      {"fsub", "", "%r = fsub {T} %x, %y", kNanEq},
      {"fmul", "", "%r = fmul {T} %x, %y", kNanEq},
      {"fdiv", "", "%r = fdiv {T} %x, %y", kNanEq},
      {"frem", "", "%r = frem {T} %x, %y", kNanEq},
      {"fneg", "", "%r = fneg {T} %x", kExact},
      {"fma", "", "%r = call {T} @llvm.fma.{S}({T} %x, {T} %y, {T} %x)", kNanEq},
      // fmuladd may fuse or not: x86-64 without FMA does not, RDNA does; both accepted.
      {"fmuladd", "", "%r = call {T} @llvm.fmuladd.{S}({T} %x, {T} %y, {T} %y)", kNanEq,
       "%r = call {T} @llvm.fma.{S}({T} %x, {T} %y, {T} %y)"},
      {"minnum", "", "%r = call {T} @llvm.minnum.{S}({T} %x, {T} %y)", kTieEq},
      {"maxnum", "", "%r = call {T} @llvm.maxnum.{S}({T} %x, {T} %y)", kTieEq},
      {"minimum", "", "%r = call {T} @llvm.minimum.{S}({T} %x, {T} %y)", kNanEq},
      {"maximum", "", "%r = call {T} @llvm.maximum.{S}({T} %x, {T} %y)", kNanEq},
      {"copysign", "", "%r = call {T} @llvm.copysign.{S}({T} %x, {T} %y)", kExact},
      {"fabs", "", "%r = call {T} @llvm.fabs.{S}({T} %x)", kExact},
      {"sqrt", "", "%r = call {T} @llvm.sqrt.{S}({T} %x)", kNanEq},
      {"floor", "", "%r = call {T} @llvm.floor.{S}({T} %x)", kNanEq},
      {"ceil", "", "%r = call {T} @llvm.ceil.{S}({T} %x)", kNanEq},
      {"trunc", "", "%r = call {T} @llvm.trunc.{S}({T} %x)", kNanEq},
      {"rint", "", "%r = call {T} @llvm.rint.{S}({T} %x)", kNanEq},
      {"nearbyint", "", "%r = call {T} @llvm.nearbyint.{S}({T} %x)", kNanEq},
      {"round", "", "%r = call {T} @llvm.round.{S}({T} %x)", kNanEq},
      {"roundeven", "", "%r = call {T} @llvm.roundeven.{S}({T} %x)", kNanEq},
      {"ldexp", "", "%e = trunc i64 %b to i32\n%r = call {T} @llvm.ldexp.{S}.i32({T} %x, i32 %e)",
       kNanEq},
      {"fcmp oeq", "i1", "%r = fcmp oeq {T} %x, %y", kExact},
      {"fcmp ogt", "i1", "%r = fcmp ogt {T} %x, %y", kExact},
      {"fcmp oge", "i1", "%r = fcmp oge {T} %x, %y", kExact},
      {"fcmp olt", "i1", "%r = fcmp olt {T} %x, %y", kExact},
      {"fcmp ole", "i1", "%r = fcmp ole {T} %x, %y", kExact},
      {"fcmp one", "i1", "%r = fcmp one {T} %x, %y", kExact},
      {"fcmp ord", "i1", "%r = fcmp ord {T} %x, %y", kExact},
      {"fcmp ueq", "i1", "%r = fcmp ueq {T} %x, %y", kExact},
      {"fcmp ugt", "i1", "%r = fcmp ugt {T} %x, %y", kExact},
      {"fcmp uge", "i1", "%r = fcmp uge {T} %x, %y", kExact},
      {"fcmp ult", "i1", "%r = fcmp ult {T} %x, %y", kExact},
      {"fcmp ule", "i1", "%r = fcmp ule {T} %x, %y", kExact},
      {"fcmp une", "i1", "%r = fcmp une {T} %x, %y", kExact},
      {"fcmp uno", "i1", "%r = fcmp uno {T} %x, %y", kExact},
      // is.fpclass masks: sNaN; ±subnormal; -inf|-normal|+zero|qNaN.
      {"is_fpclass snan", "i1", "%r = call i1 @llvm.is.fpclass.{S}({T} %x, i32 1)", kExact},
      {"is_fpclass sub", "i1", "%r = call i1 @llvm.is.fpclass.{S}({T} %x, i32 144)", kExact},
      {"is_fpclass mix", "i1", "%r = call i1 @llvm.is.fpclass.{S}({T} %x, i32 78)", kExact},
      {"fptosi.sat i8", "i8", "%r = call i8 @llvm.fptosi.sat.i8.{S}({T} %x)", kExact},
      {"fptoui.sat i8", "i8", "%r = call i8 @llvm.fptoui.sat.i8.{S}({T} %x)", kExact},
      {"fptosi.sat i16", "i16", "%r = call i16 @llvm.fptosi.sat.i16.{S}({T} %x)", kExact},
      {"fptoui.sat i16", "i16", "%r = call i16 @llvm.fptoui.sat.i16.{S}({T} %x)", kExact},
      {"fptosi.sat i32", "i32", "%r = call i32 @llvm.fptosi.sat.i32.{S}({T} %x)", kExact},
      {"fptoui.sat i32", "i32", "%r = call i32 @llvm.fptoui.sat.i32.{S}({T} %x)", kExact},
      {"fptosi.sat i64", "i64", "%r = call i64 @llvm.fptosi.sat.i64.{S}({T} %x)", kExact},
      {"fptoui.sat i64", "i64", "%r = call i64 @llvm.fptoui.sat.i64.{S}({T} %x)", kExact},
      {"select olt", "", "%c = fcmp olt {T} %x, %y\n%r = select i1 %c, {T} %x, {T} %y", kExact},
  };
  return t;
}

const std::vector<Tmpl>& int_templates() {
  // sdiv/srem: a zero divisor and INT_MIN / -1 (poison in LLVM IR) become divisor 3.
  static const char* kSGuard =
      "%z = icmp eq {T} %y, 0\n%m1 = icmp eq {T} %y, -1\n%mn = icmp eq {T} %x, {MIN}\n"
      "%ov = and i1 %m1, %mn\n%bad = or i1 %z, %ov\n%ys = select i1 %bad, {T} 3, {T} %y\n";
  static const char* kUGuard = "%z = icmp eq {T} %y, 0\n%ys = select i1 %z, {T} 3, {T} %y\n";
  static const std::string sdiv = std::string(kSGuard) + "%r = sdiv {T} %x, %ys",
                           srem = std::string(kSGuard) + "%r = srem {T} %x, %ys",
                           udiv = std::string(kUGuard) + "%r = udiv {T} %x, %ys",
                           urem = std::string(kUGuard) + "%r = urem {T} %x, %ys";
  static const std::vector<Tmpl> t = {
      {"add", "", "%r = add {T} %x, %y", kExact},
      {"sub", "", "%r = sub {T} %x, %y", kExact},
      {"mul", "", "%r = mul {T} %x, %y", kExact},
      {"sdiv", "", sdiv.c_str(), kExact},
      {"srem", "", srem.c_str(), kExact},
      {"udiv", "", udiv.c_str(), kExact},
      {"urem", "", urem.c_str(), kExact},
      {"and", "", "%r = and {T} %x, %y", kExact},
      {"or", "", "%r = or {T} %x, %y", kExact},
      {"xor", "", "%r = xor {T} %x, %y", kExact},
      {"shl", "", "%m = and {T} %y, {W1}\n%r = shl {T} %x, %m", kExact},
      {"lshr", "", "%m = and {T} %y, {W1}\n%r = lshr {T} %x, %m", kExact},
      {"ashr", "", "%m = and {T} %y, {W1}\n%r = ashr {T} %x, %m", kExact},
      {"icmp eq", "i1", "%r = icmp eq {T} %x, %y", kExact},
      {"icmp ne", "i1", "%r = icmp ne {T} %x, %y", kExact},
      {"icmp ugt", "i1", "%r = icmp ugt {T} %x, %y", kExact},
      {"icmp uge", "i1", "%r = icmp uge {T} %x, %y", kExact},
      {"icmp ult", "i1", "%r = icmp ult {T} %x, %y", kExact},
      {"icmp ule", "i1", "%r = icmp ule {T} %x, %y", kExact},
      {"icmp sgt", "i1", "%r = icmp sgt {T} %x, %y", kExact},
      {"icmp sge", "i1", "%r = icmp sge {T} %x, %y", kExact},
      {"icmp slt", "i1", "%r = icmp slt {T} %x, %y", kExact},
      {"icmp sle", "i1", "%r = icmp sle {T} %x, %y", kExact},
      {"smin", "", "%r = call {T} @llvm.smin.{S}({T} %x, {T} %y)", kExact},
      {"smax", "", "%r = call {T} @llvm.smax.{S}({T} %x, {T} %y)", kExact},
      {"umin", "", "%r = call {T} @llvm.umin.{S}({T} %x, {T} %y)", kExact},
      {"umax", "", "%r = call {T} @llvm.umax.{S}({T} %x, {T} %y)", kExact},
      {"abs", "", "%r = call {T} @llvm.abs.{S}({T} %x, i1 false)", kExact},
      {"sadd.sat", "", "%r = call {T} @llvm.sadd.sat.{S}({T} %x, {T} %y)", kExact},
      {"uadd.sat", "", "%r = call {T} @llvm.uadd.sat.{S}({T} %x, {T} %y)", kExact},
      {"ssub.sat", "", "%r = call {T} @llvm.ssub.sat.{S}({T} %x, {T} %y)", kExact},
      {"usub.sat", "", "%r = call {T} @llvm.usub.sat.{S}({T} %x, {T} %y)", kExact},
      {"sshl.sat", "", "%m = and {T} %y, {W1}\n%r = call {T} @llvm.sshl.sat.{S}({T} %x, {T} %m)",
       kExact},
      {"ushl.sat", "", "%m = and {T} %y, {W1}\n%r = call {T} @llvm.ushl.sat.{S}({T} %x, {T} %m)",
       kExact},
      {"ctpop", "", "%r = call {T} @llvm.ctpop.{S}({T} %x)", kExact},
      {"ctlz", "", "%r = call {T} @llvm.ctlz.{S}({T} %x, i1 false)", kExact},
      {"cttz", "", "%r = call {T} @llvm.cttz.{S}({T} %x, i1 false)", kExact},
      {"bitreverse", "", "%r = call {T} @llvm.bitreverse.{S}({T} %x)", kExact},
      {"fshl", "", "%r = call {T} @llvm.fshl.{S}({T} %x, {T} %y, {T} %y)", kExact},
      {"fshr", "", "%r = call {T} @llvm.fshr.{S}({T} %x, {T} %y, {T} %x)", kExact},
      {"uadd.with.overflow", "i1",
       "%p = call {{T}, i1} @llvm.uadd.with.overflow.{S}({T} %x, {T} %y)\n"
       "%r = extractvalue {{T}, i1} %p, 1",
       kExact},
      {"smul.with.overflow", "i1",
       "%p = call {{T}, i1} @llvm.smul.with.overflow.{S}({T} %x, {T} %y)\n"
       "%r = extractvalue {{T}, i1} %p, 1",
       kExact},
      {"umulhi", "",
       "%xe = zext {T} %x to {D}\n%ye = zext {T} %y to {D}\n%pr = mul {D} %xe, %ye\n"
       "%sh = lshr {D} %pr, {W}\n%r = trunc {D} %sh to {T}",
       kExact},
      {"smulhi", "",
       "%xe = sext {T} %x to {D}\n%ye = sext {T} %y to {D}\n%pr = mul {D} %xe, %ye\n"
       "%sh = ashr {D} %pr, {W}\n%r = trunc {D} %sh to {T}",
       kExact},
      {"select slt", "", "%c = icmp slt {T} %x, %y\n%r = select i1 %c, {T} %x, {T} %y", kExact},
      {"sitofp half", "half", "%r = sitofp {T} %x to half", kExact},
      {"uitofp half", "half", "%r = uitofp {T} %x to half", kExact},
      {"sitofp bfloat", "bfloat", "%r = sitofp {T} %x to bfloat", kExact},
      {"uitofp bfloat", "bfloat", "%r = uitofp {T} %x to bfloat", kExact},
      {"sitofp float", "float", "%r = sitofp {T} %x to float", kExact},
      {"uitofp float", "float", "%r = uitofp {T} %x to float", kExact},
      {"sitofp double", "double", "%r = sitofp {T} %x to double", kExact},
      {"uitofp double", "double", "%r = uitofp {T} %x to double", kExact},
  };
  return t;
}

// Conversions between widths and float formats (operand type, result type, instruction).
struct Conv {
  const char* from;
  const char* to;
  const char* inst;
  Cmp cmp;
};
const std::vector<Conv>& conversions() {
  static const std::vector<Conv> c = {
      {"i8", "i16", "sext", kExact},          {"i8", "i32", "sext", kExact},
      {"i8", "i64", "sext", kExact},          {"i8", "i16", "zext", kExact},
      {"i8", "i32", "zext", kExact},          {"i8", "i64", "zext", kExact},
      {"i16", "i32", "sext", kExact},         {"i16", "i64", "sext", kExact},
      {"i16", "i32", "zext", kExact},         {"i16", "i64", "zext", kExact},
      {"i16", "i8", "trunc", kExact},         {"i32", "i64", "sext", kExact},
      {"i32", "i64", "zext", kExact},         {"i32", "i8", "trunc", kExact},
      {"i32", "i16", "trunc", kExact},        {"i64", "i32", "trunc", kExact},
      {"i64", "i16", "trunc", kExact},        {"i64", "i8", "trunc", kExact},
      {"half", "float", "fpext", kNanEq},     {"half", "double", "fpext", kNanEq},
      {"bfloat", "float", "fpext", kNanEq},   {"bfloat", "double", "fpext", kNanEq},
      {"float", "double", "fpext", kNanEq},   {"float", "half", "fptrunc", kNanEq},
      {"float", "bfloat", "fptrunc", kNanEq}, {"double", "float", "fptrunc", kNanEq},
      {"double", "half", "fptrunc", kNanEq},  {"double", "bfloat", "fptrunc", kNanEq},
  };
  return c;
}

// Operations the emulator or LLVM 19's AMDGPU back end cannot run yet, per (type, op name):
// they are compiled and run one by one and their status printed, never compared silently.
struct Pending {
  const char* ty;
  const char* op;
  const char* why;
  const char* body = "";  // an op outside the templates: its IR (result of type ty)
  Cmp cmp = kNanEq;
};
const std::vector<Pending>& pending() {
  static const std::vector<Pending> p = {
      // LLVM 19's AMDGPU frem is x - trunc(x / y) * y (with fma): not IEEE fmod (frem(-0, y)
      // gives +0, frem(x, ±inf) NaN instead of x, large quotients lose the remainder). A
      // back-end expansion difference, not an emulator one.
      {"half", "frem", "LLVM 19 AMDGPU frem expansion is not fmod"},
      {"bfloat", "frem", "LLVM 19 AMDGPU frem expansion is not fmod"},
      {"float", "frem", "LLVM 19 AMDGPU frem expansion is not fmod"},
      {"double", "frem", "LLVM 19 AMDGPU frem expansion is not fmod"},
      // f64 transcendentals: LLVM 19's AMDGPU back end has no lowering (a libm call it cannot
      // link); device code gets them from a math library (ocml), which this test does not use.
      {"double", "exp2", "no AMDGPU lowering in LLVM 19",
       "%r = call double @llvm.exp2.f64(double %x)", ulps(1)},
      {"double", "log2", "no AMDGPU lowering in LLVM 19",
       "%r = call double @llvm.log2.f64(double %x)", ulps(1)},
      {"double", "sin", "no AMDGPU lowering in LLVM 19",
       "%r = call double @llvm.sin.f64(double %x)", ulps(1)},
  };
  return p;
}

bool is_pending(std::string_view ty, std::string_view op) {
  for (const Pending& p : pending())
    if (ty == p.ty && op == p.op) return true;
  return false;
}

Family type_family(const Ty& t, std::vector<Op>* pend) {
  std::vector<Op> ops;
  auto add = [&](Op op) {
    if (is_pending(t.ir, op.name))
      pend->push_back(std::move(op));
    else
      ops.push_back(std::move(op));
  };
  for (const Tmpl& m : t.fp ? float_templates() : int_templates()) {
    if (!t.fp && t.bits == 8 && std::string_view(m.name) == "bswap") continue;
    const std::string rty = *m.rty ? m.rty : t.ir;
    add({m.name, t.ir, rty, expand(m.body, t), m.cmp, *m.alt ? expand(m.alt, t) : ""});
  }
  if (!t.fp && t.bits > 8)
    add({"bswap", t.ir, t.ir, expand("%r = call {T} @llvm.bswap.{S}({T} %x)", t), kExact});
  if (std::string_view(t.ir) == "half") {
    // f32 fma of extended halves: v_fma_mix_f32 with a negated f32 (z: the bits x:y) or f16
    // source.
    const std::string z =
        "%ah = shl i64 %a, 16\n%ab = or i64 %ah, %b\n%zt = trunc i64 %ab to i32\n"
        "%z = bitcast i32 %zt to float\n%xe = fpext half %x to float\n"
        "%ye = fpext half %y to float\n";
    add({"fma mix -z", "half", "float",
         z + "%n = fneg float %z\n%r = call float @llvm.fma.f32(float %xe, float %ye, float %n)",
         kNanEq});
    add({"fma mix -y", "half", "float",
         z + "%n = fneg float %ye\n%r = call float @llvm.fma.f32(float %xe, float %n, float %z)",
         kNanEq});
  }
  for (const Conv& c : conversions())
    if (std::string_view(c.from) == t.ir)
      add({std::string(c.inst) + " " + c.to, c.from, c.to,
           std::string("%r = ") + c.inst + " " + c.from + " %x to " + c.to, c.cmp});
  for (const Pending& p : pending())
    if (*p.body && std::string_view(p.ty) == t.ir)
      pend->push_back({p.op, p.ty, p.ty, p.body, p.cmp});
  return pairs(t.ir, edges_of(t), std::move(ops));
}

// Packed <2 x half> and <2 x i16> (v_pk_* on RDNA, two lanes of SSE on x86-64): the same-type
// float and integer templates that have a vector form. Inputs: 19 packed values pairing the
// half (or i16) edge values i and 7i + 3 (mod 19 / 17), all pairs of them.
Family packed_family(bool fp, std::vector<Op>* pend) {
  static const std::set<std::string> kFloat = {
      "fadd",   "fsub",   "fmul",    "fdiv",    "fneg",      "fma",   "fmuladd",
      "minnum", "maxnum", "minimum", "maximum", "copysign",  "fabs",  "sqrt",
      "floor",  "ceil",   "trunc",   "rint",    "nearbyint", "round", "roundeven"};
  static const std::set<std::string> kInt = {
      "add",  "sub",  "mul",  "and",  "or",  "xor",      "shl",      "lshr",     "ashr",
      "smin", "smax", "umin", "umax", "abs", "sadd.sat", "uadd.sat", "ssub.sat", "usub.sat"};
  const Ty vt{fp ? "<2 x half>" : "<2 x i16>", fp ? "v2f16" : "v2i16", 32, fp};
  std::vector<Op> ops;
  for (const Tmpl& m : fp ? float_templates() : int_templates()) {
    if (!(fp ? kFloat : kInt).count(m.name)) continue;
    // Vector shift masks: a splat constant instead of the scalar {W1}.
    const std::string body = replace_all(expand(m.body, vt), "%y, 31", "%y, <i16 15, i16 15>");
    Op op{std::string(m.name), vt.ir, vt.ir, body, m.cmp, *m.alt ? expand(m.alt, vt) : ""};
    if (is_pending(vt.ir, op.name))
      pend->push_back(std::move(op));
    else
      ops.push_back(std::move(op));
  }
  if (fp)  // negated operands: VOP3P neg_lo/neg_hi modifiers
    for (const char* fn : {"fma", "maximum", "minnum"}) {
      const std::string call = std::string(fn) == "fma"
                                   ? "fma.v2f16(<2 x half> %x, <2 x half> %n, <2 x half> %x)"
                                   : std::string(fn) + ".v2f16(<2 x half> %x, <2 x half> %n)";
      ops.push_back({std::string(fn) + " -y", vt.ir, vt.ir,
                     "%n = fneg <2 x half> %y\n%r = call <2 x half> @llvm." + call,
                     std::string(fn) == "minnum" ? kTieEq : kNanEq, "", 0, true});
    }
  const std::vector<u64> e = edges_of(fp ? kF16 : kI16);
  std::vector<u64> packed;
  for (size_t i = 0; i < e.size(); ++i) packed.push_back(e[i] | e[(7 * i + 3) % e.size()] << 16);
  return pairs(vt.ir, packed, std::move(ops));
}

// ---------------------------------------------------------------- approximate families

// Deterministic inputs (no seed from the clock: failures reproduce).
struct Lcg {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 32);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * (next() / 4294967296.0); }
};
u64 f32_bits(float f) { return std::bit_cast<uint32_t>(f); }

// f32 approximations. Inputs x: edge values, then uniform in [-160, 140] (exp2's whole range
// including denormal and overflowing results), then positive values with random exponents in
// [-149, 127] (log2 over normals and denormals). b holds two random normal values in
// ±[2^-60, 2^60]: y (low half) and w (high half), the operands of the afn forms.
Family f32_approx_family() {
  Family f{"float approx", {}, {}, {}};
  Lcg r{0x5eed1};
  for (u64 e : edges_of(kF32)) f.a.push_back(e);
  while (f.a.size() < 256) f.a.push_back(f32_bits(static_cast<float>(r.uniform(-160, 140))));
  while (f.a.size() < 512)
    f.a.push_back(f32_bits(
        std::ldexp(static_cast<float>(r.uniform(1, 2)), static_cast<int>(r.next() % 277) - 149)));
  auto normal = [&] {
    const float m = static_cast<float>(r.uniform(1, 2)) * ((r.next() & 1) ? -1.0f : 1.0f);
    return f32_bits(std::ldexp(m, static_cast<int>(r.next() % 121) - 60));
  };
  for (size_t i = 0; i < f.a.size(); ++i) f.b.push_back(normal() | normal() << 32);
  // v_exp_f32 / v_log_f32: 1 ulp (the precision LLVM's AMDGPU lowering of llvm.exp2/log2
  // relies on; it scales denormal inputs/outputs around them itself).
  f.ops.push_back({"exp2", "float", "float", "%r = call float @llvm.exp2.f32(float %x)", ulps(1)});
  f.ops.push_back({"log2", "float", "float", "%r = call float @llvm.log2.f32(float %x)", ulps(1)});
  // llvm.exp/log/log10: LLVM's extended-precision expansions around v_exp_f32 / v_log_f32.
  f.ops.push_back({"exp", "float", "float", "%r = call float @llvm.exp.f32(float %x)", ulps(2)});
  f.ops.push_back({"log", "float", "float", "%r = call float @llvm.log.f32(float %x)", ulps(2)});
  f.ops.push_back(
      {"log10", "float", "float", "%r = call float @llvm.log10.f32(float %x)", ulps(2)});
  // afn forms over normal operands: v_rcp_f32, v_sqrt_f32, v_rsq_f32, v_exp_f32, v_log_f32 are
  // 1 ulp; y * rcp(w) and rcp(sqrt(y)) add one more rounding (2 ulps). exp2/log2 afn over the
  // whole x sweep (the emulator's results stay within 1 ulp there too).
  const std::string w =
      "%wh = lshr i64 %b, 32\n%wt = trunc i64 %wh to i32\n"
      "%w = bitcast i32 %wt to float\n";
  f.ops.push_back({"fdiv afn", "float", "float", w + "%r = fdiv afn float %y, %w", ulps(2)});
  f.ops.push_back({"rcp afn", "float", "float", "%r = fdiv afn float 1.0, %y", ulps(1)});
  f.ops.push_back({"sqrt afn", "float", "float",
                   "%yn = call float @llvm.fabs.f32(float %y)\n"
                   "%r = call afn float @llvm.sqrt.f32(float %yn)",
                   ulps(1)});
  f.ops.push_back({"rsq afn", "float", "float",
                   "%yn = call float @llvm.fabs.f32(float %y)\n"
                   "%s = call afn float @llvm.sqrt.f32(float %yn)\n%r = fdiv afn float 1.0, %s",
                   ulps(2)});
  f.ops.push_back(
      {"exp2 afn", "float", "float", "%r = call afn float @llvm.exp2.f32(float %x)", ulps(1)});
  f.ops.push_back(
      {"log2 afn", "float", "float", "%r = call afn float @llvm.log2.f32(float %x)", ulps(1)});
  return f;
}

// sin/cos: v_sin_f32 / v_cos_f32 take revolutions; LLVM multiplies by 1/(2π) (f32) first. The
// product's rounding moves the angle by up to |x| · 2^-23 (two roundings of 2^-24: the constant
// and the product), so the bound is |x| · 2^-23 + 2 ulps absolute of the result (2^-23 for
// |result| ≤ 1), checked for |x| ≤ 32π plus the edge values (NaN, ±inf → NaN; ±0; denormals).
Family f32_trig_family() {
  Family f{"float sin/cos", {}, {}, {}};
  Lcg r{0x5eed2};
  for (u64 e : edges_of(kF32)) f.a.push_back(e);
  while (f.a.size() < 512) f.a.push_back(f32_bits(static_cast<float>(r.uniform(-100.5, 100.5))));
  f.b = f.a;
  const Cmp bound{Kind::kApprox, 2, 0x1p-22, 0x1p-23};
  for (const char* fn : {"sin", "cos"})
    for (const char* fmf : {"", "afn "})
      f.ops.push_back({std::string(fn) + (*fmf ? " afn" : ""), "float", "float",
                       std::string("%r = call ") + fmf + "float @llvm." + fn + ".f32(float %x)",
                       bound, "", 100.5});
  return f;
}

// f16 transcendentals over every f16 bit pattern (65536 lanes): v_exp_f16, v_log_f16,
// v_sqrt_f16, v_rsq_f16, v_rcp_f16 1 ulp (the f16 instructions are 1 ulp per the ISA guide's
// f16 transcendental note; the emulator computes them in double and rounds once); sin/cos
// through f16 revolutions (x · 1/(2π) rounded to f16 moves the angle by up to |x| · 2^-10):
// bound |x| · 2^-10 + 2^-10 for |x| ≤ 64, any value beyond (not compared).
Family f16_approx_family() {
  Family f{"half approx", {}, {}, {}};
  for (u64 x = 0; x < 65536; ++x) f.a.push_back(x), f.b.push_back(x);
  f.ops.push_back({"exp2", "half", "half", "%r = call half @llvm.exp2.f16(half %x)", ulps(1)});
  f.ops.push_back({"log2", "half", "half", "%r = call half @llvm.log2.f16(half %x)", ulps(1)});
  f.ops.push_back({"sqrt", "half", "half", "%r = call half @llvm.sqrt.f16(half %x)", ulps(1)});
  f.ops.push_back({"rcp afn", "half", "half", "%r = fdiv afn half 1.0, %x", ulps(1)});
  f.ops.push_back({"rsq afn", "half", "half",
                   "%s = call afn half @llvm.sqrt.f16(half %x)\n%r = fdiv afn half 1.0, %s",
                   ulps(2)});
  f.ops.push_back({"exp", "half", "half", "%r = call half @llvm.exp.f16(half %x)", ulps(1)});
  // llvm.log.f16 is v_log_f16 then an f16 multiply by ln 2 (0x398C): three f16 roundings.
  f.ops.push_back({"log", "half", "half", "%r = call half @llvm.log.f16(half %x)", ulps(2)});
  for (const char* fn : {"sin", "cos"})
    f.ops.push_back({fn,
                     "half",
                     "half",
                     std::string("%r = call half @llvm.") + fn + ".f16(half %x)",
                     {Kind::kApprox, 2, 0x1p-10, 0x1p-10},
                     "",
                     64});
  return f;
}

// f64 afn forms: LLVM 19 refines v_rcp_f64 / v_rsq_f64 with Newton-Raphson steps in fma, so
// the bound is the refined result's (2 ulps), not the instructions' own precision. Operands:
// normal values with random exponents in [-500, 500].
Family f64_approx_family() {
  Family f{"double approx", {}, {}, {}};
  Lcg r{0x5eed3};
  auto rnd = [&] {
    const double m = r.uniform(1, 2) * ((r.next() & 1) ? -1.0 : 1.0);
    return std::bit_cast<u64>(std::ldexp(m, static_cast<int>(r.next() % 1001) - 500));
  };
  while (f.a.size() < 512) f.a.push_back(rnd()), f.b.push_back(rnd());
  f.ops.push_back({"fdiv afn", "double", "double", "%r = fdiv afn double %x, %y", ulps(2)});
  f.ops.push_back({"rcp afn", "double", "double", "%r = fdiv afn double 1.0, %y", ulps(2)});
  f.ops.push_back({"sqrt afn", "double", "double",
                   "%yn = call double @llvm.fabs.f64(double %y)\n"
                   "%r = call afn double @llvm.sqrt.f64(double %yn)",
                   ulps(2)});
  f.ops.push_back({"rsq afn", "double", "double",
                   "%yn = call double @llvm.fabs.f64(double %y)\n"
                   "%s = call afn double @llvm.sqrt.f64(double %yn)\n"
                   "%r = fdiv afn double 1.0, %s",
                   ulps(2)});
  return f;
}

// ---------------------------------------------------------------- the test

class Diff : public EndToEnd {
 protected:
  void SetUp() override {
#if !defined(__x86_64__)
    GTEST_SKIP() << "SKIPPED: the reference runs natively on x86-64 only";
#endif
    if (builtins_archive().empty())
      GTEST_SKIP() << "SKIPPED: LLVM 19's compiler-rt builtins (libclang_rt.builtins-x86_64.a) "
                      "not installed";
    EndToEnd::SetUp();
  }

  // Compiles `ops` into one kernel and runs it over the family's inputs on the emulator;
  // results per op, lane-major. Returns an error text instead of failing the test when `soft`.
  std::vector<u64> run_gpu(const Family& f, const std::vector<const Op*>& ops, bool soft,
                           std::string* error) {
    const size_t n = f.a.size(), lanes = (n + 63) / 64 * 64;
    const std::string ir = gpu_module(ops, lanes, uniform_);
    if (soft) {
      std::string log;
      if (!testing::compile(GetParam(), ir, &log)) {
        *error = "llc-19 cannot compile it for " + std::string(target_name(GetParam()));
        return {};
      }
    }
    DeviceBuffer out = buffer(ops.size() * lanes * 8), pa = buffer(lanes * 8),
                 pb = buffer(lanes * 8);
    std::memcpy(pa.cpu, f.a.data(), n * 8);
    std::memcpy(pb.cpu, f.b.data(), n * 8);
    std::vector<uint64_t> args = {out.va.raw(), pa.va.raw(), pb.va.raw()};
    if (uniform_) args.push_back(n);
    const auto groups = uniform_ ? 1u : static_cast<uint32_t>(lanes / 64);
    if (!soft) {
      launch(ir, "diff", args, groups, 64);
      if (HasFatalFailure()) return {};
    } else {
      queues::amd::ExecParams p;
      prepare(ir, "diff", args, groups, 64, p);
      if (HasFatalFailure()) return {};
      Status st;
      {
        queues::SignalPool pool(*gpu_);  // released before a restart below
        const queues::Signal done = pool.alloc().value();
        auto slots = queue_->exec(p);
        st = slots ? Status{} : Status(slots.error());
        if (st) {
          queue_->signal(done, 1);
          st = queue_->submit();
        }
        if (st) st = queues::wait_signal(*gpu_, done, 1, "diff");
      }
      if (!st) {
        *error = "emulator: " + st.error().to_string();
        testing::start_sim(GetParam(), {}, gpu_, emu_, queue_);  // the queue stopped
        return {};
      }
    }
    std::vector<u64> r(ops.size() * lanes);
    std::memcpy(r.data(), out.cpu, r.size() * 8);
    return r;
  }

  // Lanes of op k that differ from the x86-64 reference (the first few described in `first`).
  static size_t compare(const Family& f, const HostModule& host, const std::vector<u64>& got,
                        size_t k, const Op& op, std::vector<std::string>* first, size_t* compared,
                        int64_t* max_ulps = nullptr, double* max_abs = nullptr) {
    const size_t n = f.a.size(), lanes = (n + 63) / 64 * 64;
    const u64 m = mask_of(bits_of(op.ty)), rm = mask_of(bits_of(op.rty));
    size_t bad = 0;
    *compared = 0;
    if (max_ulps) *max_ulps = 0, *max_abs = 0;
    for (size_t i = 0; i < n; ++i) {
      const u64 x = f.a[i] & m, y = f.b[i] & m;
      if (op.max_abs_x > 0) {
        const double v = value_of(x, op.ty);
        if (std::isfinite(v) && std::fabs(v) > op.max_abs_x) continue;
      }
      ++*compared;
      const u64 want = host.fns[k](f.a[i], f.b[i]) & rm, g = got[k * lanes + i];
      if (max_ulps && is_fp(op.rty) && !is_nan_bits(g, op.rty) && !is_nan_bits(want, op.rty)) {
        const int64_t d = ordered(g, bits_of(op.rty)) - ordered(want, bits_of(op.rty));
        *max_ulps = std::max(*max_ulps, d < 0 ? -d : d);
        const double e = std::fabs(value_of(g, op.rty) - value_of(want, op.rty));
        if (std::isfinite(e)) *max_abs = std::max(*max_abs, e);
      }
      if (same(op, g, want, x, y)) continue;
      if (host.alts[k] && same(op, g, host.alts[k](f.a[i], f.b[i]) & rm, x, y)) continue;
      if (++bad <= 4)
        first->push_back(f.name + " " + op.name + "(" + hex(x) + ", " + hex(y) + ") = " + hex(g) +
                         ", x86-64 " + hex(want));
    }
    return bad;
  }

  // Every op of `f` must match; `pend` (the family's pending ops) are run one by one and their
  // status printed.
  void check(const Family& f, const std::vector<Op>& pend = {}) {
    std::vector<const Op*> ops;
    for (const Op& op : f.ops) ops.push_back(&op);
    HostModule host(ops);
    ASSERT_TRUE(host.error.empty()) << f.name << ": " << host.error;
    std::string error;
    const std::vector<u64> got = run_gpu(f, ops, false, &error);
    if (HasFatalFailure()) return;
    size_t mismatches = 0;
    for (size_t k = 0; k < ops.size(); ++k) {
      std::vector<std::string> first;
      size_t compared = 0;
      int64_t max_ulps = 0;
      double max_abs = 0;
      const size_t bad = compare(f, host, got, k, *ops[k], &first, &compared, &max_ulps, &max_abs);
      const Cmp& c = ops[k]->cmp;
      if (c.kind == Kind::kApprox)
        std::printf(
            "  %s %s: max %lld ulps, max |error| %g (bound: %g ulps or |error| <= %g + "
            "%g |x|)\n",
            f.name.c_str(), ops[k]->name.c_str(), static_cast<long long>(max_ulps), max_abs, c.ulps,
            c.abs, c.per_x);
      for (const std::string& s : first) ADD_FAILURE() << s;
      if (bad)
        std::printf("  %s %s: %zu of %zu lanes differ\n", f.name.c_str(), ops[k]->name.c_str(), bad,
                    compared);
      if (compared < f.a.size())
        std::printf("  %s %s: %zu inputs beyond |x| <= %g not compared\n", f.name.c_str(),
                    ops[k]->name.c_str(), f.a.size() - compared, ops[k]->max_abs_x);
      mismatches += bad;
    }
    std::printf("%s%s on %s: %zu ops x %zu inputs, %zu mismatches\n", f.name.c_str(),
                uniform_ ? " (uniform)" : "", target_name(GetParam()), ops.size(), f.a.size(),
                mismatches);
    if (!uniform_)  // the per-lane run prints them
      for (const Op& op : pend) run_pending(f, op);
  }

  void run_pending(const Family& f, const Op& op) {
    const char* why = "";
    for (const Pending& p : pending())
      if (op.ty == p.ty && op.name == p.op) why = p.why;
    const std::vector<const Op*> one = {&op};
    HostModule host(one);
    std::string status;
    if (!host.error.empty()) {
      status = "x86-64: " + host.error;
    } else {
      std::string error;
      const std::vector<u64> got = run_gpu(f, one, true, &error);
      if (HasFatalFailure()) return;
      if (!error.empty()) {
        status = error;
      } else {
        std::vector<std::string> first;
        size_t compared = 0;
        const size_t bad = compare(f, host, got, 0, op, &first, &compared);
        status = bad == 0 ? "PASSES now: enable it"
                          : std::to_string(bad) + " of " + std::to_string(compared) +
                                " lanes differ, e.g. " + first.front();
      }
    }
    std::printf("PENDING %s %s%s on %s (%s): %s\n", op.ty.c_str(), op.name.c_str(),
                uniform_ ? " (uniform)" : "", target_name(GetParam()), why, status.c_str());
  }

  void check_type(const Ty& t) {
    std::vector<Op> pend;
    const Family f = type_family(t, &pend);
    check(f, pend);
  }

  bool uniform_ = false;  // gpu_module's uniform form
};

TEST_P(Diff, I8) { check_type(kI8); }
TEST_P(Diff, I16) { check_type(kI16); }
TEST_P(Diff, I32) { check_type(kI32); }
TEST_P(Diff, I64) { check_type(kI64); }
TEST_P(Diff, F16) { check_type(kF16); }
TEST_P(Diff, BF16) { check_type(kBF16); }
TEST_P(Diff, F32) { check_type(kF32); }
TEST_P(Diff, F64) { check_type(kF64); }
TEST_P(Diff, PackedF16) {
  std::vector<Op> pend;
  const Family f = packed_family(true, &pend);
  check(f, pend);
}
TEST_P(Diff, PackedI16) {
  std::vector<Op> pend;
  const Family f = packed_family(false, &pend);
  check(f, pend);
}
// The type and packed families again with uniform operands (SALU where LLVM can use it, the
// results of VALU ops read back through v_readfirstlane).
class Uniform : public Diff {
 protected:
  void SetUp() override {
    Diff::SetUp();
    uniform_ = true;
  }
};
TEST_P(Uniform, I8) { check_type(kI8); }
TEST_P(Uniform, I16) { check_type(kI16); }
TEST_P(Uniform, I32) { check_type(kI32); }
TEST_P(Uniform, I64) { check_type(kI64); }
TEST_P(Uniform, F16) { check_type(kF16); }
TEST_P(Uniform, BF16) { check_type(kBF16); }
TEST_P(Uniform, F32) { check_type(kF32); }
TEST_P(Uniform, F64) { check_type(kF64); }
TEST_P(Uniform, PackedF16) {
  std::vector<Op> pend;
  check(packed_family(true, &pend));
}
TEST_P(Uniform, PackedI16) {
  std::vector<Op> pend;
  check(packed_family(false, &pend));
}
TEST_P(Diff, F32Approx) { check(f32_approx_family()); }
TEST_P(Diff, F32SinCos) { check(f32_trig_family()); }
TEST_P(Diff, F16Approx) { check(f16_approx_family()); }
TEST_P(Diff, F64Approx) { check(f64_approx_family()); }

INSTANTIATE_TEST_SUITE_P(Targets, Diff, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });
INSTANTIATE_TEST_SUITE_P(Targets, Uniform, ::testing::Values(Target::kGfx1100, Target::kGfx1201),
                         [](const auto& info) { return std::string(target_name(info.param)); });

}  // namespace
}  // namespace rawgpu::sim::rdna
