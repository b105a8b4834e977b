// The simulated NVIDIA GPU's compute engine: a QMD launch decoded with the same autogen tables
// the driver encodes with (V03, which Ampere, Ada and Hopper accept), constant bank 0 checked
// against the QMD (driver words, size, parameter base of the architecture), the program image
// at the QMD's program address parsed as PTX and run by sim/ptx over the GPU's mappings, then
// the QMD's releases.
#include <chrono>
#include <cstring>

#include "rawgpu/autogen/nv/qmd.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/nv/ptx_image.h"
#include "rawgpu/sim/ptx.h"
#include "state.h"

namespace rawgpu::sim {

namespace q3 = autogen::nv::qmd::v03;

namespace {

constexpr uint32_t kRcGrException = 13;
constexpr uint32_t kRcMmuFault = 31;
constexpr uint32_t kReservedShared = 0x400;

uint64_t get(std::span<const uint32_t> q, const autogen::nv::qmd::QmdField& f, uint32_t i = 0) {
  return get_bits(q, f.at(i));
}

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

bool SimNvKernel::compute_launch(Object& ch, uint64_t qmd_va) {
  std::vector<uint32_t> qmd(q3::kBytes / 4);
  if (!read_mem(ch, qmd_va, qmd.data(), q3::kBytes, "QMD fetch")) return false;
  std::span<const uint32_t> q(qmd);
  auto fail = [&](const std::string& what) {
    channel_error(ch, kRcGrException,
                  strformat("QMD at %s: %s", hex(qmd_va).c_str(), what.c_str()));
    return false;
  };
  if (get(q, q3::QMD_MAJOR_VERSION) != 3) {
    return fail(strformat("QMD_MAJOR_VERSION %llu (this simulator decodes V03)",
                          static_cast<unsigned long long>(get(q, q3::QMD_MAJOR_VERSION))));
  }
  ptx::Launch L;
  L.grid = {static_cast<uint32_t>(get(q, q3::CTA_RASTER_WIDTH)),
            static_cast<uint32_t>(get(q, q3::CTA_RASTER_HEIGHT)),
            static_cast<uint32_t>(get(q, q3::CTA_RASTER_DEPTH))};
  L.block = {static_cast<uint32_t>(get(q, q3::CTA_THREAD_DIMENSION0)),
             static_cast<uint32_t>(get(q, q3::CTA_THREAD_DIMENSION1)),
             static_cast<uint32_t>(get(q, q3::CTA_THREAD_DIMENSION2))};
  // Constant bank 0.
  if (get(q, q3::CONSTANT_BUFFER_VALID, 0) == 0) return fail("constant bank 0 is not bound");
  const uint64_t cb_va =
      (get(q, q3::CONSTANT_BUFFER_ADDR_UPPER, 0) << 32) | get(q, q3::CONSTANT_BUFFER_ADDR_LOWER, 0);
  const uint64_t cb_size = get(q, q3::CONSTANT_BUFFER_SIZE_SHIFTED4, 0) * 16;
  std::vector<uint8_t> cb(cb_size);
  if (cb_size < 0x30)
    return fail(
        strformat("constant bank 0 of %llu bytes", static_cast<unsigned long long>(cb_size)));
  if (!read_mem(ch, cb_va, cb.data(), cb_size, "constant bank 0")) return false;
  uint32_t words[6];
  std::memcpy(words, cb.data(), sizeof(words));
  for (int d = 0; d < 3; ++d) {
    if (words[d] != L.block[d] || words[3 + d] != L.grid[d]) {
      return fail(
          strformat("constant bank 0 says block %ux%ux%u grid %ux%ux%u, the QMD block "
                    "%ux%ux%u grid %ux%ux%u (kernels read %%ntid/%%nctaid from the bank)",
                    words[0], words[1], words[2], words[3], words[4], words[5], L.block[0],
                    L.block[1], L.block[2], L.grid[0], L.grid[1], L.grid[2]));
    }
  }
  uint32_t dynamic = 0;
  std::memcpy(&dynamic, cb.data() + 0x2c, 4);
  L.dynamic_shared = dynamic;
  // The program.
  const uint64_t prog_va =
      (get(q, q3::PROGRAM_ADDRESS_UPPER) << 32) | get(q, q3::PROGRAM_ADDRESS_LOWER);
  std::vector<uint8_t> head(nv::kPtxImageHeaderBytes);
  if (!read_mem(ch, prog_va, head.data(), head.size(), "program fetch")) return false;
  auto total = nv::ptx_image_size(head);
  if (!total.ok()) return fail(total.error().message());
  auto bytes = translate(prog_va, *total);
  if (!bytes.ok()) {
    channel_error(ch, kRcMmuFault, "MMU fault: program fetch: " + bytes.error().message());
    return false;
  }
  auto img = nv::parse_ptx_image(std::span<const uint8_t>(*bytes, *total));
  if (!img.ok()) return fail(img.error().message());
  std::shared_ptr<const ptx::Module> mod;
  if (auto it = ptx_cache_.find(img->hash); it != ptx_cache_.end()) {
    mod = std::static_pointer_cast<const ptx::Module>(it->second);
  } else {
    auto parsed = ptx::parse(img->ptx);
    if (!parsed.ok()) return fail(parsed.error().message());
    mod = *parsed;
    ptx_cache_[img->hash] = mod;
  }
  const ptx::Kernel* k = mod->find(img->kernel);
  if (k == nullptr)
    return fail(strformat("the PTX image has no kernel %.*s", static_cast<int>(img->kernel.size()),
                          img->kernel.data()));
  // Shared memory: the QMD must give at least the 1 KiB reserve plus what the kernel declares.
  const uint64_t qshared = get(q, q3::SHARED_MEMORY_SIZE);
  if (qshared < kReservedShared + k->shared_bytes + dynamic) {
    return fail(strformat(
        "SHARED_MEMORY_SIZE %llu is less than the %u the kernel %s needs (1 KiB "
        "reserved + %u static + %u dynamic)",
        static_cast<unsigned long long>(qshared), kReservedShared + k->shared_bytes + dynamic,
        k->name.c_str(), k->shared_bytes, dynamic));
  }
  // Parameters at the architecture's base in bank 0.
  const uint32_t base = config_.arch == NvArch::kHopper ? 0x210 : 0x160;
  if (base + k->param_bytes > cb_size) {
    return fail(
        strformat("constant bank 0 is %llu bytes; kernel %s's %u parameter bytes start at "
                  "0x%x",
                  static_cast<unsigned long long>(cb_size), k->name.c_str(), k->param_bytes, base));
  }
  L.params = std::span<const uint8_t>(cb.data() + base, k->param_bytes);
  ptx::RunStats stats;
  auto global = [&](uint64_t va, uint64_t n, bool) -> Result<uint8_t*> { return translate(va, n); };
  Status s = ptx::run(*k, L, ptx::GlobalMemory(global), &stats);
  thread_instructions_ += stats.thread_instructions;
  if (!s.ok()) {
    const bool mmu = s.error().message().find("GPU MMU fault") != std::string::npos;
    channel_error(ch, mmu ? kRcMmuFault : kRcGrException,
                  strformat("%s%s", mmu ? "MMU fault: " : "", s.error().message().c_str()));
    return false;
  }
  ++launches_;
  // Releases, in slot order.
  struct Slot {
    const autogen::nv::qmd::QmdField &enable, &size, &p64, &alo, &ahi, &plo, &phi;
  };
  const Slot slots[] = {
      {q3::RELEASE0_ENABLE, q3::RELEASE0_STRUCTURE_SIZE, q3::RELEASE0_PAYLOAD64B,
       q3::RELEASE0_ADDRESS_LOWER, q3::RELEASE0_ADDRESS_UPPER, q3::RELEASE0_PAYLOAD_LOWER,
       q3::RELEASE0_PAYLOAD_UPPER},
      {q3::RELEASE1_ENABLE, q3::RELEASE1_STRUCTURE_SIZE, q3::RELEASE1_PAYLOAD64B,
       q3::RELEASE1_ADDRESS_LOWER, q3::RELEASE1_ADDRESS_UPPER, q3::RELEASE1_PAYLOAD_LOWER,
       q3::RELEASE1_PAYLOAD_UPPER},
  };
  for (const Slot& r : slots) {
    if (get(q, r.enable) == 0) continue;
    const uint64_t va = (get(q, r.ahi) << 32) | get(q, r.alo);
    const bool wide = get(q, r.p64) != 0;
    const uint64_t payload = wide ? (get(q, r.phi) << 32) | get(q, r.plo) : get(q, r.plo);
    if (!write_mem(ch, va, &payload, wide ? 8 : 4, "QMD release")) return false;
    if (get(q, r.size) == 0) {  // four words: the timestamp follows
      const uint64_t ts = now_ns();
      if (!write_mem(ch, va + 8, &ts, 8, "QMD release timestamp")) return false;
    }
  }
  return true;
}

}  // namespace rawgpu::sim
