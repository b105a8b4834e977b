// A PTX interpreter for what LLVM's NVPTX back end emits for rawgpu's kernels
// (shared/reference/emulation.md §4): the PTX text is parsed into a compact instruction list per
// kernel (registers numbered, labels and symbols resolved, unsupported instructions refused by
// name at parse time), then executed thread by thread per CTA with bar.sync, warp-collective
// mma.sync, the special registers, shared memory and the kernel parameters as the QMD launch
// would give them. Global memory goes through a caller-supplied translation, so the simulated
// GPU's MMU decides what is mapped.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/base/function_ref.h"

namespace rawgpu::sim::ptx {

enum class Type : uint8_t {
  kNone,
  kPred,
  kB8,
  kB16,
  kB32,
  kB64,
  kU8,
  kU16,
  kU32,
  kU64,
  kS8,
  kS16,
  kS32,
  kS64,
  kF16,
  kF16x2,
  kBF16,
  kBF16x2,
  kF32,
  kF64,
};

// Bytes of a value of the type (1 for predicates; the x2 types and f32 are 4).
constexpr uint32_t type_bytes(Type t) {
  switch (t) {
    case Type::kB8:
    case Type::kU8:
    case Type::kS8:
    case Type::kPred: return 1;
    case Type::kB16:
    case Type::kU16:
    case Type::kS16:
    case Type::kF16:
    case Type::kBF16: return 2;
    case Type::kB64:
    case Type::kU64:
    case Type::kS64:
    case Type::kF64: return 8;
    case Type::kNone: return 0;
    default: return 4;
  }
}

enum class Op : uint8_t {
  kMov,
  kLd,
  kSt,
  kCvta,
  kAdd,
  kSub,
  kMul,
  kMad,
  kFma,
  kDiv,
  kRem,
  kMin,
  kMax,
  kNeg,
  kAbs,
  kAnd,
  kOr,
  kXor,
  kNot,
  kShl,
  kShr,
  kSetp,
  kSelp,
  kCvt,
  kCopysign,
  kRcp,
  kSqrt,
  kRsqrt,
  kEx2,
  kLg2,
  kSin,
  kCos,
  kTanh,
  kBra,
  kRet,
  kBar,
  kMma,
  kShf,
};

enum class Space : uint8_t { kGeneric, kGlobal, kShared, kParam, kLocal, kConst };

struct Operand {
  enum Kind : uint8_t { kNone, kReg, kImm, kSpecial, kAddr, kVec } kind = kNone;
  uint32_t reg = 0;  // kReg; kAddr base register (kNoReg: absolute)
  int64_t imm = 0;   // kImm bits; kAddr byte offset
  uint8_t special = 0;
  uint8_t count = 0;              // kVec
  std::array<uint32_t, 8> vec{};  // kVec registers
};
inline constexpr uint32_t kNoReg = 0xffffffffu;

struct Inst {
  Op op = Op::kMov;
  Type type = Type::kNone;   // the instruction's (destination) type
  Type type2 = Type::kNone;  // cvt source type / mma A-B type
  Space space = Space::kGeneric;
  uint8_t vec = 1;     // ld/st .v2/.v4
  uint8_t cmp = 0;     // setp comparison
  uint16_t flags = 0;  // kFlag*
  int32_t pred = -1;   // guard predicate register, -1 none
  bool pred_neg = false;
  uint8_t nops = 0;
  std::array<Operand, 4> o{};
  uint32_t target = 0;  // kBra: instruction index
  uint32_t line = 0;    // source line for messages
};
// Inst::flags
inline constexpr uint16_t kFlagWide = 1, kFlagLo = 2, kFlagHi = 4, kFlagFtz = 8, kFlagSat = 16,
                          kFlagNaN = 32, kFlagRz = 64, kFlagRm = 128, kFlagRp = 256,
                          kFlagIntRound = 512, kFlagApprox = 1024, kFlagRn = 2048, kFlagTo = 4096,
                          kFlagLeft = 8192, kFlagClamp = 16384;

struct Param {
  std::string name;
  uint32_t offset = 0, size = 0;
};

struct Kernel {
  std::string name;
  std::vector<Param> params;
  uint32_t param_bytes = 0;
  uint32_t shared_bytes = 0;  // static .shared
  uint32_t registers = 0;     // numbered registers (all banks)
  std::vector<Inst> code;
};

struct Module {
  std::string target;  // ".target sm_90"
  std::vector<Kernel> kernels;
  const Kernel* find(std::string_view name) const;
};

// kParse naming the line for malformed text, kUnsupported naming the instruction for anything
// outside the subset.
Result<std::shared_ptr<const Module>> parse(std::string_view text);

struct Launch {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  std::span<const uint8_t> params;  // the kernel's parameter block (Kernel::param_bytes)
  uint32_t dynamic_shared = 0;
};

struct RunStats {
  uint64_t thread_instructions = 0;
  uint64_t ctas = 0;
};

// Global memory: a host pointer for [va, va+n), or an error (an MMU fault) that stops the run.
using GlobalMemory = FunctionRef<Result<uint8_t*>(uint64_t va, uint64_t n, bool write)>;

// Runs every CTA of the grid. Errors: a fault (the translation's error with the instruction and
// thread), a barrier that cannot complete (threads exited while others wait), a division of
// the launch that does not fit the kernel (block > 1024 threads), kTimeout past `max_steps`
// thread-instructions (a kernel that never ends).
Status run(const Kernel& kernel, const Launch& launch, GlobalMemory global,
           RunStats* stats = nullptr, uint64_t max_steps = 1ull << 36);

// The generic address at which shared memory appears (cvta.shared and generic loads).
inline constexpr uint64_t kSharedWindow = 0x7294'0000'0000;

}  // namespace rawgpu::sim::ptx
