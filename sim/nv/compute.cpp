// The simulated NVIDIA GPU's compute engine: a QMD launch decoded with the same autogen tables
// the driver encodes with (V03 on every architecture, V04 on Hopper), constant bank 0 checked
// against the QMD (driver words, size, parameter base of the architecture), the program image
// at the QMD's program address parsed as PTX and run by sim/ptx over the GPU's mappings, then
// the QMD's releases.
#include <chrono>
#include <cstring>
#include <unordered_set>

#include "rawgpu/autogen/nv/qmd_layouts.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/nv/ptx_image.h"
#include "rawgpu/sim/ptx.h"
#include "state.h"

namespace rawgpu::sim {

namespace qmd = autogen::nv::qmd;

namespace {

constexpr uint32_t kRcGrException = 13;
constexpr uint32_t kRcMmuFault = 31;
constexpr uint32_t kReservedShared = 0x400;

uint64_t get(std::span<const uint32_t> q, const qmd::Role& r) {
  return r.present() ? get_bits(q, r.at()) : 0;
}

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

// A launch and the QMDs chained behind it (DEPENDENT_QMD0 with action SCHEDULE: the next grid
// starts when this one completes, nv.md 3.7), in order. A chain that comes back to a QMD it ran
// is a channel error (the hardware would loop forever; the simulator must not hang).
bool SimNvKernel::compute_launch(Object& ch, uint64_t qmd_va) {
  std::unordered_set<uint64_t> seen;  // filled only once a chain follows a dependent QMD
  const uint64_t first = qmd_va;
  for (bool chained = false; qmd_va != 0; chained = true) {
    if (chained && seen.empty()) seen.insert(first);
    if (chained && !seen.insert(qmd_va).second) {
      channel_error(ch, kRcGrException,
                    strformat("QMD at %s: the dependent-QMD chain returns to this QMD after %zu "
                              "grids (a cycle)",
                              hex(qmd_va).c_str(), seen.size()));
      return false;
    }
    uint64_t next = 0;
    if (!run_qmd(ch, qmd_va, next)) return false;
    qmd_va = next;
  }
  return true;
}

bool SimNvKernel::run_qmd(Object& ch, uint64_t qmd_va, uint64_t& next) {
  // The first 256 bytes say which layout this is (QMD_MAJOR_VERSION sits at 583:580 in V03 and
  // V04); V04 is 384 bytes.
  std::vector<uint32_t> qw(qmd::v04::kBytes / 4, 0);
  if (!read_mem(ch, qmd_va, qw.data(), qmd::v03::kBytes, "QMD fetch")) return false;
  auto fail = [&](const std::string& what) {
    channel_error(ch, kRcGrException,
                  strformat("QMD at %s: %s", hex(qmd_va).c_str(), what.c_str()));
    return false;
  };
  const uint64_t major = get_bits(std::span<const uint32_t>(qw), qmd::v03::QMD_MAJOR_VERSION.at());
  if (major == 4) {
    if (config_.arch != NvArch::kHopper)
      return fail("QMD_MAJOR_VERSION 4 (V04 is Hopper's layout; this GPU's class decodes V03)");
    if (!read_mem(ch, qmd_va, qw.data(), qmd::v04::kBytes, "QMD fetch")) return false;
  }
  std::span<const uint32_t> q(qw);
  const qmd::Layout* layout = qmd::layout_of(q);
  if (layout == nullptr) {
    return fail(strformat("QMD_MAJOR_VERSION %llu (this simulator decodes V03, and V04 on Hopper)",
                          static_cast<unsigned long long>(major)));
  }
  const qmd::Layout& Q = *layout;
  ptx::Launch L;
  for (int d = 0; d < 3; ++d) {
    L.grid[d] = static_cast<uint32_t>(get(q, Q.grid[d]));
    L.block[d] = static_cast<uint32_t>(get(q, Q.block[d]));
  }
  if (Q.qmd_type.present() && get(q, Q.qmd_type) != qmd::v04::QMD_TYPE_GRID_CTA) {
    return fail(strformat("QMD_TYPE %llu (the simulator runs GRID_CTA grids)",
                          static_cast<unsigned long long>(get(q, Q.qmd_type))));
  }
  // Constant bank 0.
  if (get_bits(q, Q.cb_valid->at(0)) == 0) return fail("constant bank 0 is not bound");
  const uint64_t cb_va =
      ((get_bits(q, Q.cb_addr_hi->at(0)) << 32) | get_bits(q, Q.cb_addr_lo->at(0)))
      << Q.cb_addr_shift;
  const uint64_t cb_size = get_bits(q, Q.cb_size->at(0)) * 16;
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
  const uint64_t prog_va = (get(q, Q.program_hi) << 32) | get(q, Q.program_lo);
  std::vector<uint8_t> head(nv::kPtxImageHeaderBytes);
  if (!read_mem(ch, prog_va, head.data(), head.size(), "program fetch")) return false;
  auto total = nv::ptx_image_size(head);
  if (!total.ok()) {
    return fail(
        strformat("the program at %s is not a PTX image (%s); the simulated GPU executes "
                  "PTX images, not SASS",
                  hex(prog_va).c_str(), total.error().message().c_str()));
  }
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
  const uint64_t qshared = get(q, Q.shared_size);
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
  for (const qmd::ReleaseSlot& r : Q.release) {
    if (get(q, r.enable) == 0) continue;
    const uint64_t va = (get(q, r.addr_hi) << 32) | get(q, r.addr_lo);
    const bool wide = get(q, r.payload64) != 0;
    const uint64_t payload =
        wide ? (get(q, r.payload_hi) << 32) | get(q, r.payload_lo) : get(q, r.payload_lo);
    if (!write_mem(ch, va, &payload, wide ? 8 : 4, "QMD release")) return false;
    if (get(q, r.structure_size) == 0) {  // four words: the timestamp follows
      const uint64_t ts = now_ns();
      if (!write_mem(ch, va + 8, &ts, 8, "QMD release timestamp")) return false;
    }
  }
  // The dependent QMD.
  if (get(q, Q.dep_enable) != 0) {
    const uint64_t action = get(q, Q.dep_action);
    if (action != 1) {  // QMD_SCHEDULE
      return fail(strformat("DEPENDENT_QMD0 action %llu (the simulator schedules action 1 only)",
                            static_cast<unsigned long long>(action)));
    }
    next = get(q, Q.dep_pointer) << 8;
    if (next == 0) return fail("DEPENDENT_QMD0 is enabled with a null pointer");
  }
  return true;
}

}  // namespace rawgpu::sim
