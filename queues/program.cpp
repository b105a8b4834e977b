#include "rawgpu/queues/program.h"

#include <cstring>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"

namespace rawgpu::queues::amd {

namespace {
constexpr uint32_t kLdsGranule = 512;      // RSRC2 LDS_SIZE unit on GFX7-GFX12 (amd.md §10.2)
constexpr uint32_t kMaxLds = 64 * 1024;    // per workgroup on gfx11/gfx12
constexpr uint32_t kRsrc1Priv = 1u << 20;  // GC 11 (amd.md §10.2)
constexpr uint32_t kRsrc2LdsShift = 15;    // GRANULATED_LDS_SIZE [23:15]
constexpr uint32_t kRsrc2LdsMask = 0x1ffu << kRsrc2LdsShift;
constexpr uint64_t round16(uint64_t v) { return (v + 15) & ~uint64_t{15}; }
}  // namespace

Result<std::unique_ptr<Program>> Program::load(drivers::amd::AmdDevice& device, Copier& copier,
                                               std::span<const uint8_t> code_object,
                                               std::string_view kernel) {
  const GcGen gen = RG_TRY(gc_gen(device.gc_version()));
  drivers::amd::CodeObject co =
      RG_TRY_CTX(drivers::amd::parse_code_object(code_object), "while loading a program");
  const uint32_t want_major = gen == GcGen::kGfx11 ? 11 : 12;
  if (co.gfx_major != want_major) {
    return make_error(Errc::kUnsupported, "code object for %s cannot run on %s (GC %u)",
                      co.target.c_str(), device.name().c_str(), want_major);
  }
  const drivers::amd::CodeObjectKernel* k = co.find(kernel);
  if (k == nullptr) {
    std::string names;
    for (const auto& kk : co.kernels) names += (names.empty() ? "" : ", ") + kk.name;
    return make_error(Errc::kNotFound, "no kernel '%.*s' in the code object (it has: %s)",
                      static_cast<int>(kernel.size()), kernel.data(), names.c_str());
  }
  const drivers::amd::CodeProperties& p = k->descriptor.properties;
  if (p.private_segment_buffer || p.queue_ptr || p.dispatch_id || p.flat_scratch_init) {
    return make_error(Errc::kUnsupported,
                      "kernel %s wants user SGPRs this loader does not provide (private segment "
                      "buffer, queue ptr, dispatch id or flat scratch init)",
                      k->name.c_str());
  }
  const uint32_t abi_sgprs = (p.dispatch_ptr ? 2 : 0) + (p.kernarg_segment_ptr ? 2 : 0);
  if (abi_sgprs > k->descriptor.rsrc2.user_sgpr_count || k->descriptor.rsrc2.user_sgpr_count > 16) {
    return make_error(Errc::kParse, "kernel %s: RSRC2.USER_SGPR = %u but the ABI needs %u (max 16)",
                      k->name.c_str(), k->descriptor.rsrc2.user_sgpr_count, abi_sgprs);
  }
  if (k->descriptor.group_segment_fixed_size > kMaxLds) {
    return make_error(Errc::kInvalidArgument, "kernel %s asks for %u bytes of LDS (max %u)",
                      k->name.c_str(), k->descriptor.group_segment_fixed_size, kMaxLds);
  }
  if (co.image.empty()) return make_error(Errc::kParse, "code object has an empty image");
  std::unique_ptr<Program> prog(new Program(device));
  prog->gen_ = gen;
  prog->kernel_ = *k;
  prog->image_size_ = co.image.size();
  // VRAM allocations are 4 KiB aligned, enough for any image_align lld emits (checked).
  if (co.image_align > 4096) {
    return make_error(Errc::kUnsupported, "code object image alignment %llu above 4 KiB",
                      static_cast<unsigned long long>(co.image_align));
  }
  prog->image_ = RG_TRY(device.alloc(co.image.size(), drivers::amd::BufferPlacement::kVram));
  if (Status st = copier.copy_in(prog->image_.va, co.image); !st) {
    return std::move(st).take_error().with_context("while uploading the code object image");
  }
  return prog;
}

Program::~Program() {
  if (image_.valid()) (void)device_->free(image_);
}

uint64_t Program::kernarg_alloc_size() const {
  const uint64_t args = round16(std::max<uint32_t>(kernarg_size(), 1));
  return wants_dispatch_ptr() ? args + kDispatchPacketBytes : args;
}

ExecParams Program::exec_params(const Kernargs& kernargs, std::array<uint32_t, 3> grid,
                                std::array<uint32_t, 3> workgroup) const {
  RG_CHECK(kernargs.size >= kernarg_alloc_size(), "kernarg allocation too small");
  const drivers::amd::KernelDescriptor& d = kernel_.descriptor;
  ExecParams e;
  e.code = entry();
  e.gen = gen_;
  e.rsrc1 = d.compute_pgm_rsrc1 | (gen_ == GcGen::kGfx11 ? kRsrc1Priv : 0);
  const uint32_t lds = (d.group_segment_fixed_size + kLdsGranule - 1) / kLdsGranule;
  e.rsrc2 = (d.compute_pgm_rsrc2 & ~kRsrc2LdsMask) | (lds << kRsrc2LdsShift);
  e.rsrc3 = d.compute_pgm_rsrc3;
  e.wave32 = d.properties.wavefront_size32;
  e.grid = grid;
  e.workgroup = workgroup;
  uint32_t n = 0;
  auto push64 = [&](uint64_t v) {
    e.user_data[n++] = static_cast<uint32_t>(v);
    e.user_data[n++] = static_cast<uint32_t>(v >> 32);
  };
  if (d.properties.dispatch_ptr) {
    const uint64_t at = round16(std::max<uint32_t>(kernarg_size(), 1));
    uint8_t* pkt = kernargs.cpu + at;
    std::memset(pkt, 0, kDispatchPacketBytes);
    const uint16_t setup = 3;  // dimensions
    std::memcpy(pkt + 2, &setup, 2);
    for (int i = 0; i < 3; ++i) {
      const uint16_t wg = static_cast<uint16_t>(workgroup[i]);
      const uint32_t g = grid[i] * workgroup[i];  // grid size in work-items
      std::memcpy(pkt + 4 + 2 * i, &wg, 2);
      std::memcpy(pkt + 12 + 4 * i, &g, 4);
    }
    std::memcpy(pkt + 24, &d.private_segment_fixed_size, 4);
    std::memcpy(pkt + 28, &d.group_segment_fixed_size, 4);
    const uint64_t kd = descriptor_va().raw(), ka = kernargs.va.raw();
    std::memcpy(pkt + 32, &kd, 8);
    std::memcpy(pkt + 40, &ka, 8);
    push64(kernargs.va.raw() + at);
  }
  if (d.properties.kernarg_segment_ptr) push64(kernargs.va.raw());
  const uint32_t count = d.rsrc2.user_sgpr_count;
  RG_CHECK(n <= count && count <= e.user_data.size(),
           "kernel %s: %u ABI user SGPRs but RSRC2.USER_SGPR = %u", kernel_.name.c_str(), n, count);
  e.user_data_count = count;  // the rest (preload/padding) stays 0
  return e;
}

}  // namespace rawgpu::queues::amd
