// AMDGPU code objects (HSA code object v5/v6, ELF64 EM_AMDGPU as produced by LLVM + lld):
// what a loader needs to place a code object in GPU memory and dispatch its kernels.
//
// `parse_code_object` validates the ELF (machine, OS/ABI, ABI version, type), finds every kernel
// by its `<name>.kd` symbol, decodes the 64-byte kernel descriptor (LLVM AMDGPUUsage, "Kernel
// Descriptor") into named fields, reads the NT_AMDGPU_METADATA msgpack note and cross-checks the
// two, and builds the loadable image from the PT_LOAD segments. Untrusted input: every failure is
// a typed Error (kParse for malformed bytes, kUnsupported for valid objects rawgpu cannot load),
// never a crash. No LLVM types appear here (the parser uses LLVM's Object library internally).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::drivers::amd {

// COMPUTE_PGM_RSRC1, decoded. Field meaning per LLVM AMDGPUUsage; generation-specific bits are
// decoded for the generation the object targets (others read as false/0).
struct PgmRsrc1 {
  uint32_t granulated_workitem_vgpr_count = 0;   // [5:0]
  uint32_t granulated_wavefront_sgpr_count = 0;  // [9:6]; reserved (must be 0) on gfx10+
  uint32_t priority = 0;                         // [11:10]
  uint32_t float_round_mode_32 = 0;              // [13:12]
  uint32_t float_round_mode_16_64 = 0;           // [15:14]
  uint32_t float_denorm_mode_32 = 0;             // [17:16]
  uint32_t float_denorm_mode_16_64 = 0;          // [19:18]
  bool priv = false;                             // 20
  bool dx10_clamp = false;                       // 21 (gfx6-gfx11; WG_RR_EN on gfx12)
  bool wg_rr_en = false;                         // 21 (gfx12+)
  bool debug_mode = false;                       // 22
  bool ieee_mode = false;                        // 23 (gfx6-gfx11; DISABLE_PERF on gfx12)
  bool disable_perf = false;                     // 23 (gfx12+)
  bool bulky = false;                            // 24
  bool cdbg_user = false;                        // 25
  bool fp16_ovfl = false;                        // 26 (gfx9+)
  bool wgp_mode = false;                         // 29 (gfx10+)
  bool mem_ordered = false;                      // 30 (gfx10+)
  bool fwd_progress = false;                     // 31 (gfx10+)
};

// COMPUTE_PGM_RSRC2, decoded.
struct PgmRsrc2 {
  bool enable_private_segment = false;          // 0 (SCRATCH_EN)
  uint32_t user_sgpr_count = 0;                 // [5:1]
  bool enable_trap_handler = false;             // 6 (gfx6-gfx11)
  bool enable_sgpr_workgroup_id_x = false;      // 7
  bool enable_sgpr_workgroup_id_y = false;      // 8
  bool enable_sgpr_workgroup_id_z = false;      // 9
  bool enable_sgpr_workgroup_info = false;      // 10
  uint32_t enable_vgpr_workitem_id = 0;         // [12:11]: 0 = x, 1 = x,y, 2 = x,y,z
  bool enable_exception_address_watch = false;  // 13
  bool enable_exception_memory = false;         // 14
  uint32_t granulated_lds_size = 0;             // [23:15]; LLVM leaves 0 (the dispatcher fills it)
  uint32_t exception_mask = 0;  // [30:24] IEEE exceptions and int divide by zero, bit 0 = 24
};

// COMPUTE_PGM_RSRC3 (gfx90a+ and gfx10+), decoded for the object's generation.
struct PgmRsrc3 {
  uint32_t accum_offset = 0;       // gfx90a/gfx942 [5:0]: first AGPR = (accum_offset + 1) * 4
  bool tg_split = false;           // gfx90a/gfx942 16
  uint32_t shared_vgpr_count = 0;  // gfx10-gfx11 [3:0]
  uint32_t inst_pref_size = 0;     // gfx11 [9:4], gfx12 [11:4]
  bool trap_on_start = false;      // gfx11 10
  bool trap_on_end = false;        // gfx11 11
  bool glg_en = false;             // gfx12 13
  bool image_op = false;           // gfx11+ 31
};

// kernel_code_properties (u16 at +56).
struct CodeProperties {
  bool private_segment_buffer = false;  // 0: 4 user SGPRs
  bool dispatch_ptr = false;            // 1: 2
  bool queue_ptr = false;               // 2: 2
  bool kernarg_segment_ptr = false;     // 3: 2
  bool dispatch_id = false;             // 4: 2
  bool flat_scratch_init = false;       // 5: 2
  bool private_segment_size = false;    // 6: 1
  bool wavefront_size32 = false;        // 10 (gfx10+)
  bool uses_dynamic_stack = false;      // 11
  // User SGPRs the enables above occupy, in ABI order (not counting kernarg preload or the
  // gfx11 padding LLVM adds; rsrc2.user_sgpr_count is the value to dispatch with).
  uint32_t user_sgprs() const;
};

// The 64-byte kernel descriptor, raw values and decoded fields.
struct KernelDescriptor {
  uint32_t group_segment_fixed_size = 0;      // +0: static LDS bytes
  uint32_t private_segment_fixed_size = 0;    // +4: scratch bytes per work-item
  uint32_t kernarg_size = 0;                  // +8
  int64_t kernel_code_entry_byte_offset = 0;  // +16, relative to the descriptor's address
  uint32_t compute_pgm_rsrc3 = 0;             // +44
  // +48 as it should be dispatched: on gfx10+ LLVM 19.1.7's direct object emission writes a
  // nonzero GRANULATED_WAVEFRONT_SGPR_COUNT ([9:6]), a reserved field there (fixed upstream by
  // llvm-project PR #154666); the parser clears those bits here and keeps the raw word below.
  uint32_t compute_pgm_rsrc1 = 0;
  uint32_t compute_pgm_rsrc1_raw = 0;   // +48 exactly as stored in the object
  uint32_t compute_pgm_rsrc2 = 0;       // +52
  uint16_t kernel_code_properties = 0;  // +56
  uint16_t kernarg_preload = 0;         // +58: [6:0] length (dwords), [15:7] offset
  PgmRsrc1 rsrc1;                       // decoded from compute_pgm_rsrc1 (masked)
  PgmRsrc2 rsrc2;
  PgmRsrc3 rsrc3;
  CodeProperties properties;
  // True when reserved rsrc1 bits were found set and cleared (the LLVM 19.1.7 issue above).
  bool rsrc1_reserved_bits_cleared = false;
};

// One kernel argument from the metadata note.
struct KernelArg {
  std::string name;           // may be empty
  std::string value_kind;     // "global_buffer", "by_value", "hidden_block_count_x", ...
  std::string address_space;  // "global", "generic", ... or empty
  uint32_t offset = 0;
  uint32_t size = 0;
  bool hidden() const { return value_kind.rfind("hidden_", 0) == 0; }
};

// The kernel's entry in the NT_AMDGPU_METADATA note (amdhsa.kernels[i]).
struct KernelMetadata {
  std::string name;
  std::string symbol;  // "<name>.kd"
  uint32_t kernarg_segment_size = 0;
  uint32_t kernarg_segment_align = 0;
  uint32_t group_segment_fixed_size = 0;
  uint32_t private_segment_fixed_size = 0;
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;
  uint32_t agpr_count = 0;  // gfx90a/gfx942; 0 elsewhere
  uint32_t sgpr_spill_count = 0;
  uint32_t vgpr_spill_count = 0;
  uint32_t wavefront_size = 0;
  uint32_t max_flat_workgroup_size = 0;
  bool uses_dynamic_stack = false;
  std::vector<KernelArg> args;
};

struct CodeObjectKernel {
  std::string name;
  uint64_t descriptor_va = 0;  // address of `<name>.kd` in the image (64-byte aligned)
  uint64_t code_va = 0;        // descriptor_va + kernel_code_entry_byte_offset (256-aligned)
  uint64_t code_size = 0;      // size of the `<name>` function symbol (0 if absent)
  KernelDescriptor descriptor;
  KernelMetadata metadata;
};

// One PT_LOAD segment.
struct LoadSegment {
  uint64_t vaddr = 0;
  uint64_t file_offset = 0;
  uint64_t file_size = 0;
  uint64_t mem_size = 0;  // >= file_size; the rest is zero-filled
  uint64_t align = 0;
  bool readable = false, writable = false, executable = false;
};

struct CodeObject {
  std::string target;      // from e_flags, e.g. "gfx1100"
  std::string target_id;   // from the note's amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx1100"
  uint32_t gfx_major = 0;  // 9 for gfx942, 11 for gfx1100, 12 for gfx1201
  uint32_t e_flags = 0;
  uint8_t abi_version = 0;                 // ELF e_ident[EI_ABIVERSION]: 3 = code object v5, 4 = v6
  uint32_t code_object_version = 0;        // 5 or 6
  std::vector<uint32_t> metadata_version;  // amdhsa.version, e.g. {1, 2}
  std::vector<LoadSegment> segments;
  // Loadable image: bytes [0, image.size()) correspond to virtual addresses [0, image.size());
  // every PT_LOAD segment is copied to its vaddr, the rest is zero. Place it at any base whose
  // alignment is at least `image_align` (the entry offsets are relative, and lld emits no
  // dynamic relocations for these objects; objects that need some are rejected).
  std::vector<uint8_t> image;
  uint64_t image_align = 0;
  std::vector<CodeObjectKernel> kernels;  // in symbol-table order

  const CodeObjectKernel* find(std::string_view name) const;
};

// How much work a parse did: one step per program header, section, symbol, note, msgpack
// object, metadata entry and kernel the parser visits. Deterministic (unlike a clock), so tests
// can assert that parsing stays linear in the size of the input.
struct CodeObjectParseStats {
  uint64_t steps = 0;
};

// Parses a linked code object (ET_DYN, as `ld.lld -shared` writes it). Relocatable objects
// (ET_REL) are rejected with kUnsupported: link them first. Kernels are matched with their
// metadata entries and code symbols through indexes built once, and segment checks sort once:
// parse time is O(n log n) in the number of segments, symbols and kernels. A metadata note that
// lists one kernel symbol twice is a parse error. Names quoted in error messages are escaped and
// cut to 80 bytes.
Result<CodeObject> parse_code_object(std::span<const uint8_t> bytes,
                                     CodeObjectParseStats* stats = nullptr);

// Decoders, usable on their own (gfx_major selects generation-specific fields).
PgmRsrc1 decode_rsrc1(uint32_t value, uint32_t gfx_major);
PgmRsrc2 decode_rsrc2(uint32_t value, uint32_t gfx_major);
PgmRsrc3 decode_rsrc3(uint32_t value, uint32_t gfx_major, bool is_gfx90a_plus);
CodeProperties decode_code_properties(uint16_t value);

// One-paragraph human-readable summary of a kernel (descriptor + metadata), for CLI output.
std::string describe(const CodeObjectKernel& kernel);

}  // namespace rawgpu::drivers::amd
