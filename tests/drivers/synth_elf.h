// Synthesized ELF files for parser tests and benchmarks: a cubin and an AMDGPU code object with
// as many kernels (and sections, segments) as asked, built byte by byte so the tests can measure
// how the parsers scale without ptxas or LLVM. The files are minimal but valid for the parsers:
// every kernel has its code, its .nv.info records / kernel descriptor and metadata entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace rawgpu::testing {

struct SynthCubinOptions {
  size_t kernels = 1;
  uint32_t sm = 90;
  std::string name_prefix = "k";  // kernel N is <prefix>N
  bool kernel_symbols = true;     // false: no function symbols (every kernel lacks its symbol)
  // EXIT_INSTR_OFFSETS entries in the per-kernel .nv.info records. All kernels' .nv.info.kN
  // headers point at one shared copy of these records (as they do at one code block).
  size_t exit_offsets = 1;
};

// Sections per kernel: .text.kN, .nv.info.kN, .nv.constant0.kN, .nv.shared.kN (kernel N has 8
// parameter bytes: one pointer; REGCOUNT = 16 + N % 64; shared = 256 B; MAX_THREADS 128,1,1).
// More than 0xff00 sections use the SHN_XINDEX extensions (e_shnum = 0, e_shstrndx in sh_link).
inline constexpr size_t kSynthCubinSectionsPerKernel = 4;
std::vector<uint8_t> synth_cubin(const SynthCubinOptions& options);

struct SynthCodeObjectOptions {
  size_t kernels = 1;
  // Every kernel descriptor gets its own read-only PT_LOAD segment (the code is in one executable
  // segment at the end), so the object has kernels + 1 loadable segments.
  bool segment_per_descriptor = false;
  // Further read/write segments of 64 zero-filled bytes (no file data) after the loaded bytes.
  size_t extra_segments = 0;
  // Metadata entries in the reverse of the symbol-table order.
  bool reverse_metadata = true;
  std::string name_prefix = "k";       // kernel N is <prefix>N
  size_t metadata_kernels = SIZE_MAX;  // metadata entries for only the first ones
  size_t symtab_copies = 1;            // SHT_SYMTAB section headers, all for the one table
  size_t note_copies = 1;              // PT_NOTE program headers, all for the one note
};

// gfx1100, code object v5: kernel N is `kN` with one 8-byte global_buffer argument, kernarg 8 B,
// wave32, no LDS or scratch (names: see name_prefix); all kernels share one 256-byte s_endpgm code
// block.
std::vector<uint8_t> synth_code_object(const SynthCodeObjectOptions& options);

}  // namespace rawgpu::testing
