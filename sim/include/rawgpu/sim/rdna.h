// RDNA3 (gfx1100) / RDNA4 (gfx1201) wave32 emulator: decoder, wave state, semantics, scheduler.
//
//  * Opcode tables are data generated from LLVM 19 (sim/rdna/gen_isa_tables.py →
//    sim/rdna/isa_<target>.inc): format, opcode, LLVM's mnemonic, operand widths, a sample text.
//    An entry is "implemented" when the emulator has semantics for its mnemonic.
//  * The Emulator is a sim::DispatchExecutor: it launches waves from the DispatchState the
//    simulated command processor built (program address, RSRC1/2, user SGPRs, grid, LDS) and
//    runs them against the simulated GPU's MMU. Each PC is decoded once per dispatch.
//  * Errors are typed and name the kernel, PC and mnemonic: unimplemented opcodes, memory faults
//    (with lane and address), reads of registers an outstanding load still owns (strict wait
//    mode), instruction budget, LDS out of range.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/sim/amd_gpu.h"

namespace rawgpu::sim::rdna {

enum class Target : uint8_t { kGfx1100, kGfx1201 };
const char* target_name(Target t);

enum class Format : uint8_t {
  kSOP2,
  kSOPK,
  kSOP1,
  kSOPC,
  kSOPP,
  kSMEM,
  kVOP1,
  kVOP2,
  kVOPC,
  kVOP3,
  kVOP3SD,
  kVOP3P,
  kVOPDX,
  kVOPDY,
  kDS,
  kFLAT,
  kSCRATCH,
  kGLOBAL,
  kMUBUF,
  kCount
};
const char* format_name(Format f);

// One opcode-table entry (generated from LLVM 19; see sim/rdna/README.md).
struct OpcodeInfo {
  Format format;
  uint16_t opcode;
  const char* mnemonic;           // as LLVM prints it, e.g. "v_add_f32_e32"
  std::array<uint8_t, 4> widths;  // dwords per printed operand (0: not a register)
  const char* sample;             // LLVM's text for the probe encoding
  bool implemented;               // the emulator has semantics for it
};
std::span<const OpcodeInfo> opcode_table(Target t);

// A decoded instruction: raw words (incl. a literal), its table entry (two for VOPD).
struct Instruction {
  Format format = Format::kCount;
  uint8_t size = 0;  // bytes, literal included
  std::array<uint32_t, 4> words{};
  const OpcodeInfo* info = nullptr;
  const OpcodeInfo* info_y = nullptr;  // VOPD Y half
  bool has_literal = false;
  uint32_t literal = 0;
};
// Decodes the instruction at words[0..]; kParse for an invalid or truncated encoding (never
// reads past `words`).
Result<Instruction> decode(Target t, std::span<const uint32_t> words);
// Mnemonic(s) of a decoded instruction ("v_dual_mul_f32 :: v_dual_add_f32" for VOPD).
std::string mnemonic(const Instruction& inst);
// The instruction in LLVM 19's assembly syntax (operands, modifiers, DPP controls, memory
// offsets and flags), e.g. "v_add_f32_e64 v1, -|v2|, s3 clamp". The decoder test compares it
// with llvm-mc-19's disassembly for every implemented opcode (sim/rdna/README.md).
std::string disassemble(Target t, const Instruction& inst);

struct Options {
  bool strict_wait = true;                 // outstanding-load destinations are unreadable
  uint64_t max_instructions = 1ull << 32;  // per dispatch (wave instructions)
  std::string kernel_name = "kernel";      // for error messages
  // Per-opcode hit counters (opcode_hits()); off: one predictable branch per instruction.
  bool count_opcodes = false;
  // Host threads running the workgroups of one dispatch (0: the RAWGPU_EMU_THREADS environment
  // variable, else 1). Results, counters and the reported error (the lowest failing workgroup's)
  // are the same for any count; see sim/rdna/README.md for what differs after an error.
  unsigned threads = 0;
};

// Executed wave instructions of one opcode-table entry (a VOPD pair counts both halves).
struct OpcodeHits {
  const OpcodeInfo* info;
  uint64_t count;
};

struct Stats {
  uint64_t instructions = 0;  // wave instructions executed (VOPD counts once)
  uint64_t waves = 0;
  uint64_t workgroups = 0;
  uint64_t dispatches = 0;
};

class Emulator final : public DispatchExecutor {
 public:
  Emulator(AmdGpu& gpu, Target target, Options options = {});
  ~Emulator() override;
  Emulator(const Emulator&) = delete;
  Emulator& operator=(const Emulator&) = delete;

  Status execute(const DispatchState& state) override;
  // Modelled duration: one instruction per SIMD per cycle, the waves spread over the chip's
  // SIMDs (gfx1100: 96 CUs x 2, gfx1201: 64 x 2) at 2.5 GHz, plus a fixed launch cost; in ticks
  // of the 100 MHz timestamp counter. Deterministic: a model for profiles, not a cycle count.
  uint64_t last_dispatch_ticks() const override { return last_ticks_; }
  const Stats& stats() const { return stats_; }
  Options& options() { return options_; }
  // Counters collected while options().count_opcodes was on, non-zero ones, most hit first.
  std::vector<OpcodeHits> opcode_hits() const;
  void reset_opcode_hits() { hits_.clear(); }
  // Host threads a dispatch uses (Options::threads, else RAWGPU_EMU_THREADS, else 1).
  unsigned thread_count() const;
  // Called by the interpreter for each executed instruction when counting (hits.cpp).
  void count_hit(const OpcodeInfo* info, const OpcodeInfo* info_y);

 private:
  struct Impl;
  std::vector<uint64_t> hits_;  // by opcode_table(target_) index
  AmdGpu* gpu_;
  Target target_;
  Options options_;
  Stats stats_;
  uint64_t last_ticks_ = 0;
};

}  // namespace rawgpu::sim::rdna
