#include "rawgpu/queues/nv_compute.h"

#include <algorithm>
#include <cstring>

#include "rawgpu/autogen/nv/compute_classes.h"
#include "rawgpu/autogen/nv/qmd_layouts.h"
#include "rawgpu/autogen/nv/rm_abi.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/nv/cubin.h"
#include "rawgpu/drivers/nv/ptx_image.h"

namespace rawgpu::queues {

namespace cc = autogen::nv::clc6c0;
namespace rm = autogen::nv::rm;

namespace {

constexpr uint32_t kReservedShared = 0x400;  // the hardware's per-CTA reserve
constexpr uint32_t kInitialStack = 0xfffdc0;
// The stack pointer starts 0x240 below the top of the thread's window (kInitialStack), so a
// thread's local memory holds the cubin's stack plus this much.
constexpr uint32_t kStackReserve = 0x240;
constexpr uint64_t kLimit40 = 1ull << 40;

using autogen::nv::qmd::Layout;
using autogen::nv::qmd::ReleaseSlot;
using autogen::nv::qmd::Role;

// Writes a role's field; roles the layout does not have are skipped.
void put(std::span<uint32_t> q, const Role& r, uint64_t v) {
  if (r.present()) set_bits(q, r.at(), v);
}

// SM carve-out codes (KiB / 4 + 1) of the configurations each architecture offers (CUDA tuning
// guides), smallest first.
std::span<const uint32_t> carveouts_kib(uint32_t sm) {
  static constexpr uint32_t kSm90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  static constexpr uint32_t kSm80[] = {0, 8, 16, 32, 64, 100, 132, 164};
  static constexpr uint32_t kSm8x[] = {0, 8, 16, 32, 64, 100};
  if (sm == 0x900) return kSm90;
  if (sm == 0x800) return kSm80;
  return kSm8x;
}

// 86 for "sm_86" (and "sm_90a").
uint32_t sm_number(std::string_view target) {
  uint32_t n = 0;
  for (char ch : target.substr(target.starts_with("sm_") ? 3 : 0)) {
    if (ch < '0' || ch > '9') break;
    n = n * 10 + static_cast<uint32_t>(ch - '0');
  }
  return n;
}

}  // namespace

Result<uint32_t> nv_param_base(uint32_t sm) {
  if (sm >= 0x800 && sm < 0x900) return 0x160;
  if (sm == 0x900) return 0x210;
  return make_error(Errc::kUnsupported, "no constant-bank parameter base known for SM 0x%x", sm);
}

Result<NvProgram> NvProgram::load_ptx(nv::RmGpu& gpu, const NvKernelInfo& info,
                                      std::string_view ptx) {
  const std::vector<uint8_t> img = nv::make_ptx_image(info.name, ptx);
  NvProgram p;
  p.info_ = info;
  // Instruction prefetch runs past the end of the code: keep 4 KiB of slack after it.
  p.image_ = RG_TRY(gpu.alloc_vram(img.size() + 4096, true));
  std::memcpy(p.image_.cpu(), img.data(), img.size());
  std::memset(p.image_.cpu() + img.size(), 0, p.image_.size - img.size());
  return p;
}

Result<NvProgram> NvProgram::load_cubin(nv::RmGpu& gpu, std::span<const uint8_t> bytes,
                                        std::string_view kernel) {
  const drivers::nv::Cubin cb = RG_TRY_CTX(drivers::nv::parse_cubin(bytes), "cubin for %.*s",
                                           static_cast<int>(kernel.size()), kernel.data());
  const uint32_t want = sm_number(gpu.gr().sm.target);
  if (cb.sm != want) {
    return make_error(Errc::kInvalidArgument,
                      "the cubin for %.*s was built for sm_%u; this GPU is %s (re-run ptxas "
                      "with -arch=%s)",
                      static_cast<int>(kernel.size()), kernel.data(), cb.sm,
                      gpu.gr().sm.target.c_str(), gpu.gr().sm.target.c_str());
  }
  const drivers::nv::CubinKernel* k = cb.find(kernel);
  if (k == nullptr) {
    std::string have;
    for (const auto& other : cb.kernels) have += (have.empty() ? "" : ", ") + other.name;
    return make_error(Errc::kNotFound, "the cubin has no kernel %.*s (it has: %s)",
                      static_cast<int>(kernel.size()), kernel.data(), have.c_str());
  }
  if (k->code_offset % 128 != 0) {
    return make_error(Errc::kUnsupported,
                      "kernel %s: code at file offset 0x%llx is not 128-byte aligned (ptxas "
                      "aligns it; this cubin was rewritten by another tool)",
                      k->name.c_str(), static_cast<unsigned long long>(k->code_offset));
  }
  // What the QMD can carry (the cubin is untrusted: a value too wide for its field would be cut
  // silently): 255 registers, 64 KiB per constant bank, 512 KiB of stack per thread.
  if (k->registers > 255 || k->stack_bytes > (512u << 10) - kStackReserve) {
    return make_error(Errc::kUnsupported,
                      "kernel %s: %u registers and %u stack bytes per thread (a QMD takes at most "
                      "255 registers and 512 KiB of local memory)",
                      k->name.c_str(), k->registers, k->stack_bytes);
  }
  for (const drivers::nv::ConstantBank& b : k->banks) {
    if (b.size > (64u << 10)) {
      return make_error(Errc::kUnsupported,
                        "kernel %s: constant bank %u of %llu bytes (at most 64 KiB)",
                        k->name.c_str(), b.bank, static_cast<unsigned long long>(b.size));
    }
  }
  // The file image, then the constant banks the kernel binds (other than bank 0, which every
  // launch writes), each in a 256-byte aligned slot.
  const uint64_t file_bytes = (bytes.size() + 255) / 256 * 256;
  uint64_t total = file_bytes + 4096;
  std::vector<std::pair<const drivers::nv::ConstantBank*, uint64_t>> slots;
  for (const drivers::nv::ConstantBank& b : k->banks) {
    if (b.bank == 0) continue;
    if (b.bank > 7)
      return make_error(Errc::kUnsupported, "kernel %s binds constant bank %u; a QMD has 8",
                        k->name.c_str(), b.bank);
    slots.emplace_back(&b, total);
    total += (b.size + 255) / 256 * 256;
  }
  NvProgram p;
  p.image_ = RG_TRY(gpu.alloc_vram(total, true));
  uint8_t* cpu = p.image_.cpu();
  std::memcpy(cpu, bytes.data(), bytes.size());
  std::memset(cpu + bytes.size(), 0, total - bytes.size());
  for (const drivers::nv::Relocation& r : cb.relocations) {
    if (!r.symbol_in_file) {
      (void)gpu.free(p.image_);
      return make_error(Errc::kUnsupported,
                        "kernel %s: relocation in %s at +0x%llx against %s, which has no "
                        "contents in the cubin (device globals in .nv.global are not placed yet)",
                        k->name.c_str(), r.section.c_str(),
                        static_cast<unsigned long long>(r.offset), r.symbol.c_str());
    }
    const uint64_t target = p.image_.va + r.symbol_file_offset + static_cast<uint64_t>(r.addend);
    if (r.type == 2) {  // R_CUDA_64
      std::memcpy(cpu + r.file_offset, &target, 8);
    } else {  // R_CUDA_ABS32_LO_32 / HI_32: the instruction's immediate, at byte +4
      const uint32_t half =
          r.type == 0x38 ? static_cast<uint32_t>(target) : static_cast<uint32_t>(target >> 32);
      std::memcpy(cpu + r.file_offset + 4, &half, 4);
    }
  }
  NvKernelInfo& info = p.info_;
  info.name = k->name;
  info.param_base = k->param_offset;
  info.param_bytes = k->param_size;
  info.registers = k->registers;
  info.local_bytes = k->stack_bytes;
  // sm_90 cubins count the 1 KiB reserve in .nv.shared.<k>; sm_8x cubins do not (nv.md 3.9).
  info.shared_bytes = k->shared_bytes;
  if (cb.sm >= 90) info.shared_bytes = k->shared_bytes >= 0x400 ? k->shared_bytes - 0x400 : 0;
  for (const drivers::nv::ConstantBank& b : k->banks) {
    if (b.bank == 0 && b.per_kernel) info.bank0_bytes = static_cast<uint32_t>(b.size);
  }
  for (const auto& [b, off] : slots) {
    if (b->nobits)
      std::memset(cpu + off, 0, b->size);
    else  // the parser checked the bank lies inside the file
      std::memcpy(cpu + off, cpu + b->file_offset, b->size);
    info.banks.push_back({b->bank, p.image_.va + off, static_cast<uint32_t>(b->size)});
  }
  p.code_offset_ = k->code_offset;
  return p;
}

NvComputeQueue::NvComputeQueue(nv::RmGpu& gpu, NvChannelQueue& channel, KernargArena& kernargs)
    : gpu_(gpu),
      channel_(channel),
      kernargs_(kernargs),
      launch_pb_(gpu.classes().gpfifo, gpu.classes().copy),
      layout_(&autogen::nv::qmd::kV03) {}

uint32_t NvComputeQueue::qmd_version() const { return layout_->version; }

Status NvComputeQueue::set_qmd_version(uint32_t version) {
  if (version == 3) {
    layout_ = &autogen::nv::qmd::kV03;
    return ok_status();
  }
  if (version == 4) {
    if (gpu_.classes().compute < rm::HOPPER_COMPUTE_A) {
      return make_error(Errc::kUnsupported,
                        "QMD V04 needs Hopper's compute class (0x%x); this GPU has 0x%x",
                        rm::HOPPER_COMPUTE_A, gpu_.classes().compute);
    }
    layout_ = &autogen::nv::qmd::kV04;
    return ok_status();
  }
  return make_error(Errc::kUnsupported, "QMD version %u: rawgpu builds V03 and V04 (Hopper)",
                    version);
}

NvComputeQueue::~NvComputeQueue() {
  if (local_.handle != 0) (void)gpu_.free(local_);
}

Status NvComputeQueue::ensure_local_memory(uint32_t per_thread) {
  const uint32_t slm = (per_thread + 31) / 32 * 32;
  if (slm <= local_per_thread_) return ok_status();
  const nv::NvGrInfo& gr = gpu_.gr();
  if (gr.max_warps_per_sm == 0 || gr.sm_per_tpc == 0 || gr.tpc_per_gpc == 0 || gr.num_gpcs == 0)
    return make_error(Errc::kInternal, "local memory: the GPU reported no GR geometry");
  const uint64_t per_warp = (uint64_t{slm} * 32 + 0x1ff) / 0x200 * 0x200;
  const uint64_t per_tpc =
      (per_warp * gr.max_warps_per_sm * gr.sm_per_tpc + 0x7fff) / 0x8000 * 0x8000;
  const uint64_t bytes = (per_tpc * gr.tpc_per_gpc * gr.num_gpcs + 0x1ffff) / 0x20000 * 0x20000;
  // Kernels still running may use the old store: wait for the last launch (the channel runs its
  // launches in order) before replacing it.
  if (last_signal_.valid())
    RG_TRY_CTX(wait_signal(gpu_, last_signal_, last_value_, "local memory resize"),
               "growing local memory");
  nv::NvMemory store =
      RG_TRY_CTX(gpu_.alloc_vram(bytes, false), "local memory of %u bytes per thread", slm);
  NvPushBuffer pb(gpu_.classes().gpfifo, gpu_.classes().copy);
  pb.inc(kNvSubchCompute, cc::NVC6C0_SET_SHADER_LOCAL_MEMORY_A,
         {static_cast<uint32_t>(store.va >> 32), static_cast<uint32_t>(store.va)});
  pb.inc(kNvSubchCompute, cc::NVC6C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A,
         {static_cast<uint32_t>(per_tpc >> 32), static_cast<uint32_t>(per_tpc), 0xff});
  if (Status s = channel_.submit(pb); !s.ok()) {
    (void)gpu_.free(store);
    return s;
  }
  if (local_.handle != 0) (void)gpu_.free(local_);
  local_ = store;
  local_per_thread_ = slm;
  return ok_status();
}

Status NvComputeQueue::setup() {
  if (kernargs_.va().raw() + kernargs_.size() > kLimit40) {
    return make_error(Errc::kOutOfRange,
                      "kernarg arena at %s: SEND_PCAS_A takes QMD addresses below 2^40 (allocate "
                      "it from the GPU's low VA window)",
                      hex(kernargs_.va().raw()).c_str());
  }
  NvPushBuffer pb(gpu_.classes().gpfifo, gpu_.classes().copy);
  pb.set_object(kNvSubchCompute, gpu_.classes().compute);
  pb.inc(kNvSubchCompute, cc::NVC6C0_SET_SHADER_SHARED_MEMORY_WINDOW_A,
         {static_cast<uint32_t>(kNvSharedWindow >> 32), static_cast<uint32_t>(kNvSharedWindow)});
  pb.inc(kNvSubchCompute, cc::NVC6C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A,
         {static_cast<uint32_t>(kNvLocalWindow >> 32), static_cast<uint32_t>(kNvLocalWindow)});
  pb.inc(kNvSubchCompute, cc::NVC6C0_INVALIDATE_SKED_CACHES, {0});
  RG_TRY(channel_.submit(pb));
  set_up_ = true;
  return {};
}

Status NvComputeQueue::build_template(const NvProgram& program, uint32_t dynamic_shared,
                                      uint64_t key) {
  const NvKernelInfo& info = program.info();
  const uint32_t sm = gpu_.gr().sm.raw;
  NvProgram::QmdTemplate& t = program.qmd_;
  t.valid = false;
  t.param_base = info.param_base != 0 ? info.param_base : RG_TRY(nv_param_base(sm));
  if (t.param_base < 0x30)
    return make_error(Errc::kInvalidArgument,
                      "%s: parameters at c[0x0][0x%x] overlap the driver words (0x0-0x2f)",
                      info.name.c_str(), t.param_base);
  t.bank0_bytes = (std::max(info.bank0_bytes, t.param_base + info.param_bytes) + 15) / 16 * 16;
  t.qmd_offset = (t.bank0_bytes + 255) / 256 * 256;
  const Layout& L = *layout_;
  t.words.assign(L.bytes / 4, 0);
  std::span<uint32_t> q(t.words);
  const uint32_t shared = (kReservedShared + info.shared_bytes + dynamic_shared + 127) / 128 * 128;
  const std::span<const uint32_t> carveouts = carveouts_kib(sm);
  uint32_t carve = 0;
  for (uint32_t kib : carveouts) {
    if (uint64_t{kib} * 1024 >= shared) {
      carve = kib / 4 + 1;
      break;
    }
  }
  if (carve == 0) {
    return make_error(Errc::kInvalidArgument,
                      "%s needs %s of shared memory per CTA: more than "
                      "SM 0x%x offers",
                      info.name.c_str(), format_bytes(shared).c_str(), sm);
  }
  put(q, L.group_id, 0x3f);
  put(q, L.qmd_type, autogen::nv::qmd::v04::QMD_TYPE_GRID_CTA);
  put(q, L.sm_global_caching, 1);
  for (const Role& r : L.invalidate) put(q, r, 1);
  put(q, L.membar_type, 1);  // L1_SYSMEMBAR
  put(q, L.api_visible_call_limit, 1);
  put(q, L.sampler_index, 1);
  put(q, L.shared_size, shared);
  put(q, L.min_carveout, carve);
  put(q, L.target_carveout, carve);
  put(q, L.max_carveout, carveouts.back() / 4 + 1);
  put(q, L.major_version, L.version);
  auto bind = [&](uint32_t bank, uint64_t bva, uint32_t bytes) {
    const uint64_t a = bva >> L.cb_addr_shift;
    set_bits(q, L.cb_valid->at(bank), 1);
    set_bits(q, L.cb_addr_lo->at(bank), a & 0xffffffffu);
    set_bits(q, L.cb_addr_hi->at(bank), a >> 32);
    set_bits(q, L.cb_size->at(bank), (bytes + 15) / 16);
    set_bits(q, L.cb_invalidate->at(bank), 1);
  };
  bind(0, 0, t.bank0_bytes);  // the address is the launch's
  for (const NvConstantBank& b : info.banks) bind(b.bank, b.va, b.bytes);
  if (info.local_bytes != 0) put(q, L.local_high_size, local_per_thread_);
  put(q, L.program_lo, program.va() & 0xffffffffu);
  put(q, L.program_hi, program.va() >> 32);
  put(q, L.register_count, info.registers != 0 ? info.registers : 255);
  put(q, L.barrier_count, std::max<uint32_t>(info.barriers, 1));
  put(q, L.sass_version, gpu_.gr().sm.sass);
  const ReleaseSlot& r0 = L.release[0];
  put(q, r0.enable, 1);
  put(q, r0.structure_size, 0);  // four words: payload, then the timestamp
  put(q, r0.payload64, 1);
  t.key = key;
  t.valid = true;
  return ok_status();
}

Result<NvLaunchLayout> NvComputeQueue::prepare(const NvProgram& program, const NvLaunch& l) {
  if (!set_up_) RG_TRY(setup());
  const NvKernelInfo& info = program.info();
  const uint64_t threads = uint64_t{l.block[0]} * l.block[1] * l.block[2];
  if (threads == 0 || threads > 1024 || l.block[0] > 1024 || l.block[1] > 1024 || l.block[2] > 64 ||
      l.grid[0] == 0 || l.grid[1] == 0 || l.grid[2] == 0 || l.grid[0] > 0x7fffffffu ||
      l.grid[1] > 65535 || l.grid[2] > 65535) {
    return make_error(Errc::kInvalidArgument,
                      "launch of %s with block %ux%ux%u, grid %ux%ux%u is outside the limits "
                      "(block <= 1024 threads, dims <= 1024x1024x64; grid <= 2^31-1 x 65535 x "
                      "65535)",
                      info.name.c_str(), l.block[0], l.block[1], l.block[2], l.grid[0], l.grid[1],
                      l.grid[2]);
  }
  if (l.params.size() != info.param_bytes) {
    return make_error(Errc::kInvalidArgument, "launch of %s with %zu parameter bytes; it takes %u",
                      info.name.c_str(), l.params.size(), info.param_bytes);
  }
  if (info.local_bytes != 0) RG_TRY(ensure_local_memory(info.local_bytes + kStackReserve));
  NvProgram::QmdTemplate& t = program.qmd_;
  const uint64_t key =
      (uint64_t{layout_->version} << 56) | (uint64_t{local_per_thread_} << 32) | l.dynamic_shared;
  if (!t.valid || t.key != key) RG_TRY(build_template(program, l.dynamic_shared, key));
  return NvLaunchLayout{t.qmd_offset, t.qmd_offset + layout_->bytes, layout_->bytes};
}

Status NvComputeQueue::check_release(const Signal& signal) const {
  const uint64_t signal_va = signal.va().raw();
  const uint64_t release_limit = layout_->version == 3 ? kLimit40 : 1ull << 57;
  if (signal_va % 8 != 0 || signal_va + 16 > release_limit) {
    return make_error(Errc::kOutOfRange,
                      "QMD V0%u releases reach %d bits and need 8-byte alignment: signal at %s",
                      layout_->version, layout_->version == 3 ? 40 : 57, hex(signal_va).c_str());
  }
  return ok_status();
}

void NvComputeQueue::write_launch(const NvProgram& program, const NvLaunch& l,
                                  const NvLaunchLayout& at, uint8_t* cpu, uint64_t va,
                                  const Signal* signal, uint64_t value,
                                  std::span<uint32_t> qmd_out) {
  const NvProgram::QmdTemplate& t = program.qmd_;
  RG_CHECK(t.valid && at.qmd_offset == t.qmd_offset, "write_launch without prepare()");
  const Layout& L = *layout_;
  // Constant bank 0 (written, never read: the memory may be write-combined): driver words,
  // zeros up to the parameters, the parameters.
  uint32_t words[12] = {l.block[0], l.block[1], l.block[2], l.grid[0], l.grid[1], l.grid[2]};
  const uint64_t sw = kNvSharedWindow, lw = kNvLocalWindow;
  std::memcpy(&words[6], &sw, 8);
  std::memcpy(&words[8], &lw, 8);
  words[10] = kInitialStack;
  words[11] = l.dynamic_shared;
  std::memcpy(cpu, words, sizeof(words));
  std::memset(cpu + sizeof(words), 0, t.param_base - sizeof(words));
  if (!l.params.empty()) std::memcpy(cpu + t.param_base, l.params.data(), l.params.size());
  const uint32_t params_end = t.param_base + static_cast<uint32_t>(l.params.size());
  std::memset(cpu + params_end, 0, t.qmd_offset - params_end);

  // The QMD: the program's template, then what differs per launch, built in host memory and
  // copied out once.
  RG_CHECK(qmd_out.size() * 4 >= L.bytes);
  std::memcpy(qmd_out.data(), t.words.data(), L.bytes);
  std::span<uint32_t> q(qmd_out.data(), L.bytes / 4);
  for (int d = 0; d < 3; ++d) {
    put(q, L.grid[d], l.grid[d]);
    put(q, L.block[d], l.block[d]);
  }
  const uint64_t cb = va >> L.cb_addr_shift;
  set_bits(q, L.cb_addr_lo->at(0), cb & 0xffffffffu);
  set_bits(q, L.cb_addr_hi->at(0), cb >> 32);
  const ReleaseSlot& r0 = L.release[0];
  if (signal != nullptr) {
    const uint64_t signal_va = signal->va().raw();
    put(q, r0.addr_lo, signal_va & 0xffffffffu);
    put(q, r0.addr_hi, signal_va >> 32);
    put(q, r0.payload_lo, value & 0xffffffffu);
    put(q, r0.payload_hi, value >> 32);
  } else {
    put(q, r0.enable, 0);
  }
  std::memcpy(cpu + t.qmd_offset, qmd_out.data(), L.bytes);
}

void NvComputeQueue::patch_grid(std::span<uint32_t> qmd, std::array<uint32_t, 3> grid) const {
  for (int d = 0; d < 3; ++d) put(qmd, layout_->grid[d], grid[d]);
}

void NvComputeQueue::chain(std::span<uint32_t> qmd, uint64_t next_qmd_va) const {
  const Layout& L = *layout_;
  put(qmd, L.dep_pointer, next_qmd_va >> 8);
  put(qmd, L.dep_action, 1);  // QMD_SCHEDULE
  put(qmd, L.dep_prefetch, 1);
  put(qmd, L.dep_enable, 1);
}

void NvComputeQueue::push_pcas(NvPushBuffer& pb, uint64_t qmd_va) {
  pb.inc(kNvSubchCompute, cc::NVC6C0_SEND_PCAS_A, {static_cast<uint32_t>(qmd_va >> 8)});
  pb.inc(kNvSubchCompute, cc::NVC6C0_SEND_SIGNALING_PCAS2_B,
         {cc::NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE});
}

Status NvComputeQueue::launch(const NvProgram& program, const NvLaunch& l, const Signal& signal,
                              uint64_t value) {
  RG_CHECK(signal.valid());
  const NvLaunchLayout at = RG_TRY(prepare(program, l));
  RG_TRY(check_release(signal));
  const Kernargs ka = RG_TRY(kernargs_.alloc(at.bytes, signal, value, wait_, 256));
  write_launch(program, l, at, ka.cpu, ka.va.raw(), &signal, value, last_qmd_);
  last_qmd_bytes_ = at.qmd_bytes;
  NvPushBuffer& pb = launch_pb_;
  pb.clear();
  push_pcas(pb, ka.va.raw() + at.qmd_offset);
  RG_TRY(channel_.submit(pb));
  last_signal_ = signal;
  last_value_ = value;
  return {};
}

}  // namespace rawgpu::queues
