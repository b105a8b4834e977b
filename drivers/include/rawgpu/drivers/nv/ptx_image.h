// The program image rawgpu loads on an NVIDIA device that executes PTX rather than SASS (the
// simulated GPU, sim/nv): the PTX text travels in GPU memory at the QMD's program address, so
// the simulator runs exactly what the driver loaded. A real GPU gets the cubin's code instead.
//
// Layout (little-endian): u32 magic 'RGPX', u32 version 1, u32 name bytes, u32 PTX bytes, u64
// FNV-1a hash of the PTX, then the kernel name and the PTX text (neither NUL-terminated).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::nv {

inline constexpr uint32_t kPtxImageMagic = 0x58504752;  // "RGPX"
inline constexpr uint32_t kPtxImageHeaderBytes = 24;
inline constexpr uint32_t kPtxImageMaxBytes = 64u << 20;

std::vector<uint8_t> make_ptx_image(std::string_view kernel, std::string_view ptx);

struct PtxImage {
  std::string_view kernel;
  std::string_view ptx;
  uint64_t hash = 0;
};
// The total image size from its header (kParse for a bad magic, version or size).
Result<uint64_t> ptx_image_size(std::span<const uint8_t> header);
// Views into `bytes` (which must outlive the result); kParse for anything malformed.
Result<PtxImage> parse_ptx_image(std::span<const uint8_t> bytes);

}  // namespace rawgpu::nv
