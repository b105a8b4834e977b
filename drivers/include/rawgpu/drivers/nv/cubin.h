// NVIDIA cubins (ELF64, EM_CUDA = 190, as ptxas writes them): what a loader needs to place the
// code and build a launch (nv.md 3.9/3.10). Untrusted input: typed errors, never a crash. The
// parser uses LLVM's Object library internally; no LLVM types appear here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::drivers::nv {

// .nv.info attribute ids (EIATTR_*) rawgpu reads, numbering as in public cubin tooling.
enum class NvInfoAttr : uint8_t {
  kMaxThreads = 0x05,
  kParamCbank = 0x0a,
  kFrameSize = 0x11,
  kMinStackSize = 0x12,
  kKparamInfo = 0x17,
  kCbankParamSize = 0x19,
  kMaxRegCount = 0x1b,
  kExitInstrOffsets = 0x1c,
  kRegCount = 0x2f,
  kCudaApiVersion = 0x37,
};

struct CubinParam {
  uint32_t ordinal = 0;
  uint32_t offset = 0;  // relative to the parameter base in bank 0
  uint32_t size = 0;
};

struct ConstantBank {
  uint32_t bank = 0;  // N of .nv.constant<N>[.<kernel>]
  uint64_t file_offset = 0;
  uint64_t size = 0;
  bool per_kernel = false;
  bool nobits = false;  // SHT_NOBITS: no contents in the file (zero-initialised)
};

struct Relocation {
  uint32_t type = 0;         // 2 R_CUDA_64, 0x38 R_CUDA_ABS32_LO_32, 0x39 R_CUDA_ABS32_HI_32
  std::string section;       // the section patched (e.g. ".text.k")
  uint64_t offset = 0;       // within that section
  uint64_t file_offset = 0;  // of the patched bytes in the file (the section's + offset)
  std::string symbol;
  int64_t addend = 0;
  // Where the symbol's definition lies in the file (its section's file offset + st_value);
  // false for an undefined symbol or one in a section without file contents (.nv.global), which
  // a loader must place itself.
  bool symbol_in_file = false;
  uint64_t symbol_file_offset = 0;
};

struct CubinKernel {
  std::string name;
  uint64_t code_offset = 0;  // of .text.<name> in the file
  uint64_t code_size = 0;
  uint32_t code_align = 0;
  uint32_t registers = 0;               // REGCOUNT (.nv.info, by the kernel's symbol)
  uint32_t stack_bytes = 0;             // MIN_STACK_SIZE
  uint32_t frame_bytes = 0;             // FRAME_SIZE
  uint32_t param_offset = 0;            // PARAM_CBANK: parameter base in constant bank 0
  uint32_t param_size = 0;              // PARAM_CBANK size (== CBANK_PARAM_SIZE)
  uint32_t max_threads[3] = {0, 0, 0};  // MAX_THREADS (.maxntid); 0 when absent
  uint32_t shared_bytes = 0;        // size of .nv.shared.<name> (sm_90: includes the 1 KiB reserve)
  std::vector<CubinParam> params;   // KPARAM_INFO, by ordinal
  std::vector<ConstantBank> banks;  // banks bound for this kernel (its own and global ones)
  std::vector<uint32_t> exit_offsets;
};

struct Cubin {
  uint32_t sm = 0;  // e.g. 80, 90 (from e_flags)
  uint32_t e_flags = 0;
  std::vector<CubinKernel> kernels;
  std::vector<Relocation> relocations;  // against loaded sections (debug sections skipped)
  const CubinKernel* find(std::string_view name) const;
};

// How much work a parse did: one step per section, symbol, .nv.info record, constant bank,
// parameter and relocation the parser visits. Deterministic (unlike a clock), so tests can
// assert that parsing stays linear in the size of the input.
struct CubinParseStats {
  uint64_t steps = 0;
};

// Every per-kernel lookup (symbol, .nv.info.<name>, .nv.shared.<name>, .nv.constant<N>.<name>)
// goes through an index built once: parse time is linear in the number of sections. Duplicate
// kernel sections (two .text.<name>, .nv.info.<name>, .nv.shared.<name> or constant banks with
// one number for one kernel) are parse errors. Names quoted in error messages are escaped and
// cut to 80 bytes.
Result<Cubin> parse_cubin(std::span<const uint8_t> bytes, CubinParseStats* stats = nullptr);

std::string describe(const CubinKernel& k);

}  // namespace rawgpu::drivers::nv
