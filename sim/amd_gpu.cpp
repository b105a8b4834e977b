#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/base/env.h"

#include <sys/mman.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/shared_memory.h"
#include "rawgpu/sim/discovery_table.h"
#include "sdma.h"

namespace rawgpu::sim {

namespace pm4 = autogen::amd::pm4_nvd;
using gc = autogen::amd::gc_11_0_0;
using gc12 = autogen::amd::gc_12_0_0;

namespace {
constexpr uint64_t kPage = 4096;
constexpr unsigned kMaxIbDepth = 2;  // the CP has IB1 and IB2 levels

// SOC21 IH client ids (amd.md §10.4): GC hub faults come from GFX (UTCL2), CP events from
// GRBM_CP.
constexpr uint32_t kIhClientGfx = 0x0a, kIhClientGrbmCp = 0x14;
// GCVM_L2_PROTECTION_FAULT_STATUS fields (amd.md §10.4).
constexpr uint32_t kFaultPermissionLsb = 1u << 4;
constexpr uint32_t kFaultMapping = 1u << 8;
constexpr uint32_t kFaultRw = 1u << 18;

template <class R>
constexpr uint32_t sh(R) {
  return R::kInfo.offset + drivers::amd::kGc11Seg0Base - pm4::PACKET3_SET_SH_REG_START;
}

// SQ wave-error types (SOC21 SQ_INTERRUPT_WORD_ERROR context 0 bits 24:21, emulation.md §2.11);
// the fault plan's rule value selects one (anything else: ILLEGAL_INST).
const char* wave_error_name(uint32_t type) {
  switch (type) {
    case 0: return "EDC_FUE";
    case 2: return "MEMVIOL";
    case 3: return "EDC_FED";
    default: return "ILLEGAL_INST";
  }
}

const char* opcode_name(uint32_t op) {
  switch (op) {
    case pm4::PACKET3_NOP: return "NOP";
    case pm4::PACKET3_WRITE_DATA: return "WRITE_DATA";
    case pm4::PACKET3_RELEASE_MEM: return "RELEASE_MEM";
    case pm4::PACKET3_WAIT_REG_MEM: return "WAIT_REG_MEM";
    case pm4::PACKET3_ACQUIRE_MEM: return "ACQUIRE_MEM";
    case pm4::PACKET3_EVENT_WRITE: return "EVENT_WRITE";
    case pm4::PACKET3_SET_SH_REG: return "SET_SH_REG";
    case pm4::PACKET3_SET_UCONFIG_REG: return "SET_UCONFIG_REG";
    case pm4::PACKET3_INDIRECT_BUFFER: return "INDIRECT_BUFFER";
    case pm4::PACKET3_DISPATCH_DIRECT: return "DISPATCH_DIRECT";
    case pm4::PACKET3_COPY_DATA: return "COPY_DATA";
    default: return "unknown";
  }
}
}  // namespace

struct AmdGpu::HostPage {
  uint8_t* cpu = nullptr;  // 4 KiB aligned
  uint64_t bus = 0;
  uint64_t size = 0;
};

namespace {
constexpr std::string_view kSimNames[] = {"sim:gfx1100", "sim:gfx1201"};
constexpr uint32_t kSimVersions[] = {110000, 120001};
}  // namespace

std::span<const std::string_view> sim_device_names() { return kSimNames; }

Result<AmdGpuConfig> parse_sim_device(std::string_view name) {
  for (size_t i = 0; i < std::size(kSimNames); ++i) {
    if (name == kSimNames[i]) {
      AmdGpuConfig c;
      c.gc_version = kSimVersions[i];
      return c;
    }
  }
  return make_error(Errc::kInvalidArgument, "unknown simulated device '%.*s'",
                    static_cast<int>(name.size()), name.data())
      .with_hint("use sim:gfx1100 or sim:gfx1201");
}

bool AmdGpuConfig::sim_thread_from_env() { return env::read_flag("RAWGPU_SIM_THREAD"); }

void AmdGpu::thread_main() {
  std::unique_lock<std::recursive_mutex> lock(mu_);
  while (!stop_) {
    const uint64_t seq = doorbell_seq_;
    for (auto& q : queues_)
      if (q->active) run_queue(*q);
    for (auto& q : sdma_queues_)
      if (q->active) run_sdma(*q);
    ++passes_;
    pass_cv_.notify_all();
    cv_.wait_for(lock, std::chrono::microseconds(20),
                 [&] { return stop_ || doorbell_seq_ != seq; });
  }
}

std::string AmdGpu::name() const {
  return config_.gc_version >= 120000 ? "sim:gfx1201" : "sim:gfx1100";
}

Result<std::unique_ptr<AmdGpu>> AmdGpu::create(const AmdGpuConfig& config, FaultPlan* faults) {
  if (config.gc_version != 110000 && config.gc_version != 120001) {
    return make_error(Errc::kUnsupported,
                      "simulated GC version %u: use 110000 (gfx1100) or "
                      "120001 (gfx1201)",
                      config.gc_version);
  }
  if (config.vram_size < (64ull << 20) || config.vram_size % (2ull << 20) != 0 ||
      config.vram_size > (1ull << 40)) {
    return make_error(Errc::kInvalidArgument,
                      "simulated VRAM size %s: must be a multiple of 2 MiB in [64 MiB, 1 TiB]",
                      format_bytes(config.vram_size).c_str());
  }
  std::unique_ptr<AmdGpu> gpu(new AmdGpu());
  gpu->config_ = config;
  gpu->faults_ = faults;
  // Flat, reserved but not committed: pages cost memory when first touched and read 0 before
  // (a BAR0 window hands out direct pointers into it).
  void* vram = mmap(nullptr, config.vram_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (vram == MAP_FAILED) {
    return make_error(Errc::kOutOfMemory, "cannot reserve %s of address space for simulated VRAM",
                      format_bytes(config.vram_size).c_str());
  }
  gpu->vram_base_ = static_cast<uint8_t*>(vram);
  gpu->vram_ =
      std::make_unique<memory::MappedVram>(CpuAddr::from(gpu->vram_base_), config.vram_size);
  // VM context start and size as the reference design programs them: a 48-bit space above
  // 0x200000000000 in the reference is not needed here; index 0 sits at VA 0x1000000000 (64 GiB).
  const memory::PageTableFormat format = config.gc_version >= 120000
                                             ? memory::PageTableFormat::kAmdGfx12
                                             : memory::PageTableFormat::kAmdGfx10;
  gpu->codec_ = memory::make_codec(format);  // the MMU's view of the PTE formats
  // What the board's firmware leaves at power-on: the IP discovery binary at VRAM - 64 KiB.
  gpu->discovery_ = build_discovery_table(RG_TRY(discovery_spec(config.gc_version)));
  std::memcpy(gpu->vram_base_ + config.vram_size - drivers::amd::kDiscoveryOffsetFromTop,
              gpu->discovery_.data(), gpu->discovery_.size());
  gpu->function_reset();  // power-on register state
  gpu->bus_master_ = true;
  // Bus addresses for host pages (the IOMMU-less DMA space of the simulated host).
  gpu->bus_ = std::make_unique<memory::AddressAllocator<BusAddr>>(
      RG_TRY(memory::AddressAllocator<BusAddr>::create(BusAddr(0x100000000), 1ull << 40, kPage)));
  if (config.device_thread) {
    gpu->threaded_ = true;
    AmdGpu* g = gpu.get();
    gpu->thread_ = std::thread([g] { g->thread_main(); });
  }
  return gpu;
}

AmdGpu::~AmdGpu() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::recursive_mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    pass_cv_.notify_all();  // a poll() waiting for a pass returns at once
    thread_.join();
  }
  vram_.reset();
  if (vram_base_ != nullptr) munmap(vram_base_, config_.vram_size);
}

Result<BusAddr> AmdGpu::attach_dma(uint8_t* host, uint64_t size) {
  Guard guard(this);
  if (host == nullptr || reinterpret_cast<uintptr_t>(host) % kPage != 0 || size == 0 ||
      size % kPage != 0) {
    return make_error(Errc::kInvalidArgument,
                      "DMA memory must be 4 KiB aligned and a multiple of 4 KiB");
  }
  const BusAddr bus = RG_TRY(bus_->alloc(size, kPage));
  dma_pages_[bus.raw()] = HostPage{host, bus.raw(), size};
  return bus;
}

Status AmdGpu::detach_dma(BusAddr bus) {
  Guard guard(this);
  auto it = dma_pages_.find(bus.raw());
  if (it == dma_pages_.end()) {
    return make_error(Errc::kNotFound, "bus address %s is not a DMA mapping of this device",
                      hex(bus.raw()).c_str());
  }
  RG_TRY(bus_->free(bus));
  dma_pages_.erase(it);
  return {};
}

std::vector<DmaFault> AmdGpu::dma_faults() const {
  Guard guard(this);
  return dma_faults_;
}

void AmdGpu::set_bus_master(bool on) {
  Guard guard(this);
  bus_master_ = on;
}

void AmdGpu::function_reset() {
  Guard guard(this);
  for (auto& q : queues_) {
    q->status.stopped = true;
    q->status.error = "deactivated by a function reset";
  }
  for (auto& q : sdma_queues_) {
    q->status.stopped = true;
    q->status.error = "deactivated by a function reset";
  }
  for (auto& q : queues_) q->active = false;
  for (auto& q : sdma_queues_) q->active = false;
  // The PSP and SMU are outside the function's reset domain: their mailboxes keep their values.
  std::map<uint32_t, uint32_t> mailboxes;
  for (const auto& [reg, v] : regs_)
    if ((reg >= bases::kMp[0] && reg < bases::kMp[0] + 0x400) ||
        (reg >= bases::kMp[1] && reg < bases::kMp[1] + 0x400))
      mailboxes.emplace(reg, v);
  regs_ = std::move(mailboxes);
  hqd_regs_.clear();
  hqd_queue_.clear();
  sdma_queue_[0] = sdma_queue_[1] = ~0u;
  sdma_wedged_ = 0;
  vm_ = {};
  tlb_.clear();
  fault_status_ = 0;
  fault_addr_page_ = 0;
  fault_text_.clear();
  bus_master_ = false;  // the command register reads 0 until the driver enables the function
  // Straps the driver reads before IP discovery (emulation.md §2.2): VRAM size in MiB, and
  // the firmware's "init done" (the discovery table in VRAM survives the reset).
  regs_[kConfigMemsize] = static_cast<uint32_t>(config_.vram_size >> 20);
  regs_[kIfwiStatus] = 0x80000000u;
  // The engines the boot brings up are down again (GC, SDMA, IH); the RLC's autoload is gone.
  boot_.rlc_autoload = false;
  boot_power_on();
}

size_t AmdGpu::compute_queue_count() const {
  Guard guard(this);
  return queues_.size();
}
size_t AmdGpu::copy_queue_count() const {
  Guard guard(this);
  return sdma_queues_.size();
}

void AmdGpu::record_dma_fault(uint64_t bus, bool write, const char* reason) {
  constexpr size_t kKept = 256;
  if (dma_faults_.size() < kKept) dma_faults_.push_back({bus, write, reason});
}

void AmdGpu::ring_doorbell(uint32_t index, uint64_t value) {
  Guard guard(this);
  if (threaded_) {
    for (auto& q : queues_) {
      if (q->active && q->doorbell == index) q->doorbell_wptr = value;
    }
    for (auto& q : sdma_queues_) {
      if (q->active && q->doorbell == index) q->doorbell_wptr = value;
    }
    ++doorbell_seq_;
    cv_.notify_one();
    return;
  }
  for (auto& q : queues_) {
    if (q->active && q->doorbell == index) {
      q->doorbell_wptr = value;
      if (config_.process_on_doorbell) run_queue(*q);
    }
  }
  for (auto& q : sdma_queues_) {
    if (q->active && q->doorbell == index) {
      q->doorbell_wptr = value;
      if (config_.process_on_doorbell) run_sdma(*q);
    }
  }
}

void AmdGpu::poll() {
  if (threaded_) {
    // The device thread holds mu_ for a whole pass, so the next pass to finish began after
    // this point: wait for it (waking the thread from its 20 us wait).
    std::unique_lock<std::recursive_mutex> lock(mu_);
    const uint64_t want = passes_ + 1;
    ++doorbell_seq_;
    cv_.notify_one();
    pass_cv_.wait_for(lock, std::chrono::milliseconds(20),
                      [&] { return stop_ || passes_ >= want; });
    return;
  }
  for (auto& q : queues_)
    if (q->active) run_queue(*q);
  for (auto& q : sdma_queues_)
    if (q->active) run_sdma(*q);
}

QueueStatus AmdGpu::queue_status(uint32_t queue_id) const {
  Guard guard(this);
  RG_CHECK(queue_id < queues_.size());
  QueueStatus s = queues_[queue_id]->status;
  s.rptr = queues_[queue_id]->rptr;
  return s;
}

drivers::amd::FaultState AmdGpu::fault_state() const {
  Guard guard(this);
  drivers::amd::FaultState f;
  f.faulted = fault_status_ != 0;
  f.address = GpuVa(fault_addr_page_ << 12);
  f.status = fault_status_;
  const std::string queues = queue_errors();
  f.queue_error = !queues.empty();
  f.description = f.faulted ? fault_text_ : std::string();
  if (!queues.empty()) f.description += (f.description.empty() ? "" : "; ") + queues;
  return f;
}

std::string AmdGpu::queue_errors() const {
  Guard guard(this);
  std::string text;
  // Only queues still active: a dequeued or reset queue is gone from the hardware.
  for (const auto& q : queues_) {
    if (!q->status.stopped || !q->active) continue;
    if (!text.empty()) text += "; ";
    text += strformat("queue %u stopped: %s", q->id, q->status.error.c_str());
  }
  for (const auto& q : sdma_queues_) {
    if (!q->status.stopped || !q->active) continue;
    if (!text.empty()) text += "; ";
    text += strformat("copy queue %u stopped: %s", q->id, q->status.error.c_str());
  }
  return text;
}

void AmdGpu::clear_fault() {
  Guard guard(this);
  fault_status_ = 0;
  fault_addr_page_ = 0;
  fault_text_.clear();
}

void AmdGpu::record_fault(GpuVa va, uint32_t status) {
  if (fault_status_ != 0) return;  // the registers latch the first fault until cleared
  fault_status_ = status;
  fault_addr_page_ = va.raw() >> 12;
  // The GC VM L2 protection-fault registers as the driver reads them over MMIO (GC segment 0;
  // gfx12 splits STATUS into LO32/HI32 and moves the address registers).
  const bool g12 = config_.gc_version >= 120000;
  const uint32_t seg0 = drivers::amd::kGc11Seg0Base;
  regs_[seg0 + (g12 ? gc12::GCVM_L2_PROTECTION_FAULT_STATUS_LO32::kInfo.offset
                    : gc::GCVM_L2_PROTECTION_FAULT_STATUS::kInfo.offset)] = status;
  regs_[seg0 + (g12 ? gc12::GCVM_L2_PROTECTION_FAULT_ADDR_LO32::kInfo.offset
                    : gc::GCVM_L2_PROTECTION_FAULT_ADDR_LO32::kInfo.offset)] =
      static_cast<uint32_t>(fault_addr_page_);
  regs_[seg0 + (g12 ? gc12::GCVM_L2_PROTECTION_FAULT_ADDR_HI32::kInfo.offset
                    : gc::GCVM_L2_PROTECTION_FAULT_ADDR_HI32::kInfo.offset)] =
      static_cast<uint32_t>(fault_addr_page_ >> 32) & 0xF;
  // The UTCL2 fault interrupt: page address bits 43:12 in context 0, 47:44 in context 1.
  ih_post(kIhClientGfx, 0, 0, 0,
          {static_cast<uint32_t>(fault_addr_page_),
           static_cast<uint32_t>(fault_addr_page_ >> 32) & 0xf, 0, 0});
  fault_text_ = strformat("VM fault at %s (%s, %s)", hex(va.raw()).c_str(),
                          (status & kFaultMapping) ? "page not mapped" : "permission",
                          (status & kFaultRw) ? "write" : "read");
}

void AmdGpu::snapshot_page_tables() {
  ++invalidations_;
  tlb_.clear();
  if (!vm_.base_valid) return;
  const memory::PteCodec& codec = *codec_;
  // Depth-first over the table pages reachable from the root.
  std::vector<std::pair<uint64_t, unsigned>> todo{{vm_.root, 0}};
  while (!todo.empty()) {
    const auto [addr, level] = todo.back();
    todo.pop_back();
    if (level > codec.last_level() || addr % kPage != 0 || addr + kPage > vram_->size() ||
        tlb_.count(addr) != 0)
      continue;
    const memory::LevelInfo& info = codec.levels()[level];
    const uint64_t bytes = info.entries * info.entry_bytes;
    const uint64_t* w = vram_->words(VramAddr(addr), bytes);
    std::vector<uint64_t>& copy = tlb_[addr];
    copy.assign(w, w + bytes / 8);
    if (level == codec.last_level()) continue;
    for (uint64_t i = 0; i < info.entries; ++i) {
      const memory::DecodedEntry e = codec.decode(level, copy.data() + i * info.entry_bytes / 8);
      if (e.kind == memory::DecodedEntry::Kind::kTable) todo.push_back({e.addr, level + 1});
    }
  }
}

const char* AmdGpu::walk(GpuVa va, Leaf& leaf, uint32_t& status) {
  const memory::PteCodec& codec = *codec_;
  status = kFaultMapping;
  if (!vm_.hub_on)
    return "with the GC hub off (GCMC_VM_MX_L1_TLB_CNTL.ENABLE_L1_TLB and "
           "GCVM_L2_CNTL.ENABLE_L2_CACHE not both set)";
  if (!vm_.enabled) return "with VM context 0 disabled (GCVM_CONTEXT0_CNTL.ENABLE_CONTEXT 0)";
  if (!vm_.base_valid) return "with no valid page-table base (GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR)";
  if (vm_.depth != codec.last_level() || vm_.block_size != 0)
    return "with GCVM_CONTEXT0_CNTL's page-table depth or block size not matching the tables";
  if (va.raw() < vm_.start || va.raw() > vm_.last) return "outside the VM context";
  const uint64_t off = va.raw() - vm_.start;
  if (vm_.root % kPage != 0 || vm_.root + kPage > vram_->size()) return "table outside VRAM";
  VramAddr table(vm_.root);
  for (unsigned level = 0; level <= codec.last_level(); ++level) {
    const memory::LevelInfo& info = codec.levels()[level];
    const uint64_t idx = (off >> info.shift) & (info.entries - 1u);
    auto cached = tlb_.find(table.raw());
    if (cached == tlb_.end() || (idx + 1) * info.entry_bytes > cached->second.size() * 8)
      return level == 0 ? "with no translation in the TLB (the page-table root was never "
                          "invalidated in: write GCVM_INVALIDATE_ENG17_REQ after programming VM "
                          "context 0)"
                        : "through a page-table page the TLB has never seen (written after the "
                          "last GCVM_INVALIDATE_ENG17_REQ: a missing TLB flush)";
    const uint64_t* words = cached->second.data() + idx * info.entry_bytes / 8;
    const memory::DecodedEntry e = codec.decode(level, words);
    // A valid entry in VRAM that the TLB copy lacks: the driver forgot the invalidate.
    if (e.kind == memory::DecodedEntry::Kind::kInvalid &&
        codec.decode(level, vram_->words(table + idx * info.entry_bytes, info.entry_bytes)).kind !=
            memory::DecodedEntry::Kind::kInvalid)
      return "with a stale TLB entry (the PTE was written after the last "
             "GCVM_INVALIDATE_ENG17_REQ: a missing TLB flush)";
    if (e.kind == memory::DecodedEntry::Kind::kTable) {
      if (level == codec.last_level()) return "table entry at the last level";
      if (e.addr + kPage > vram_->size()) return "table outside VRAM";
      table = VramAddr(e.addr);
      continue;
    }
    if (e.kind != memory::DecodedEntry::Kind::kLeaf) return "unmapped page";
    leaf.attrs = e.attrs;
    leaf.span = info.span();
    leaf.pa = e.addr + (off & (info.span() - 1));
    leaf.va_off = off;
    return nullptr;
  }
  return "unmapped page";
}

uint8_t* AmdGpu::backing(const Leaf& leaf, uint64_t pa, uint64_t bytes) {
  if (leaf.attrs.aperture == memory::Aperture::kVram) {
    if (pa >= vram_->size()) return nullptr;
    return reinterpret_cast<uint8_t*>(vram_->words(VramAddr(pa & ~uint64_t{7}), 8)) + (pa & 7);
  }
  auto it = dma_pages_.upper_bound(pa);
  if (it == dma_pages_.begin()) return nullptr;
  --it;
  if (pa - it->first >= it->second.size || bytes > it->second.size - (pa - it->first)) {
    return nullptr;
  }
  return it->second.cpu + (pa - it->first);
}

Result<uint8_t*> AmdGpu::translate(GpuVa va, bool write, bool exec) {
  const uint32_t rw = write ? kFaultRw : 0;
  auto fault = [&](uint32_t status, const char* what) -> Error {
    record_fault(GpuVa(va.raw() & ~(kPage - 1)), status | rw);
    return make_error(Errc::kHardware, "VM fault: %s %s at %s", write ? "write" : "read", what,
                      hex(va.raw()).c_str());
  };
  if (faults_ != nullptr && faults_->watches(FaultRule::Trigger::kVaAccess)) {
    FaultRule r;
    if (faults_->fire(FaultRule::Trigger::kVaAccess, 0, &r, va.raw()) &&
        r.action == FaultRule::Action::kVmFault)
      return fault(kFaultPermissionLsb, "refused by the fault plan");
  }
  Leaf leaf;
  uint32_t status = 0;
  if (const char* what = walk(va, leaf, status)) return fault(status, what);
  if ((write && !leaf.attrs.writable) || (!write && !leaf.attrs.readable) ||
      (exec && !leaf.attrs.executable)) {
    return fault(kFaultPermissionLsb, "without permission");
  }
  if (leaf.attrs.aperture != memory::Aperture::kVram && !bus_master_) {
    record_dma_fault(leaf.pa, write, "bus mastering disabled");
    return fault(kFaultMapping, "to host memory with bus mastering disabled");
  }
  if (uint8_t* p = backing(leaf, leaf.pa, 1)) return p;
  if (leaf.attrs.aperture != memory::Aperture::kVram)
    record_dma_fault(leaf.pa, write, "unmapped bus address");
  return fault(kFaultMapping, leaf.attrs.aperture == memory::Aperture::kVram
                                  ? "beyond VRAM"
                                  : "to an unbacked bus address");
}

std::optional<AmdGpu::PageHost> AmdGpu::page_host(GpuVa va) {
  Guard guard(this);
  // A page the fault plan watches goes through translate() on every access.
  if (faults_ != nullptr && faults_->covers(va.raw() & ~(kPage - 1), kPage)) return std::nullopt;
  Leaf leaf;
  uint32_t status = 0;
  if (walk(va, leaf, status) != nullptr) return std::nullopt;
  // The whole 4 KiB page must lie in the leaf and start a 4 KiB physical page: the flat VRAM
  // never moves; a host buffer is one contiguous range.
  const uint64_t in_page = va.raw() & (kPage - 1);
  if (leaf.span < kPage || (leaf.va_off & (kPage - 1)) != in_page) return std::nullopt;
  const uint64_t pa = leaf.pa - in_page;
  if (pa % kPage != 0) return std::nullopt;
  if (leaf.attrs.aperture == memory::Aperture::kVram && pa + kPage > vram_->size())
    return std::nullopt;
  if (leaf.attrs.aperture != memory::Aperture::kVram && !bus_master_) return std::nullopt;
  uint8_t* p = backing(leaf, pa, kPage);
  if (p == nullptr) return std::nullopt;
  return PageHost{p, leaf.attrs.readable, leaf.attrs.writable};
}

Result<uint32_t> AmdGpu::read32(GpuVa va, bool exec) {
  Guard guard(this);
  if (va.raw() % 4)
    return make_error(Errc::kHardware, "misaligned read at %s", hex(va.raw()).c_str());
  uint8_t* p = RG_TRY(translate(va, false, exec));
  // The host may write the same dword meanwhile (a polled flag, a signal): see shared_memory.h.
  return load_acquire(reinterpret_cast<uint32_t*>(p));
}
Result<uint64_t> AmdGpu::read64(GpuVa va) {
  Guard guard(this);
  if (va.raw() % 8 == 0) {  // one access (never torn), as write64; 8-aligned: one page
    uint8_t* p = RG_TRY(translate(va, false, false));
    return load_acquire(reinterpret_cast<uint64_t*>(p));
  }
  const uint64_t lo = RG_TRY(read32(va));
  const uint64_t hi = RG_TRY(read32(va + 4));
  return lo | (hi << 32);
}
Status AmdGpu::write32(GpuVa va, uint32_t value) {
  Guard guard(this);
  if (va.raw() % 4)
    return make_error(Errc::kHardware, "misaligned write at %s", hex(va.raw()).c_str());
  uint8_t* p = RG_TRY(translate(va, true, false));
  store_release(reinterpret_cast<uint32_t*>(p), value);  // publishes what this queue wrote before
  return {};
}
Status AmdGpu::write64(GpuVa va, uint64_t value) {
  Guard guard(this);
  // Check both halves before writing either (a 64-bit write never half-lands in the sim).
  if (va.raw() % 8)
    return make_error(Errc::kHardware, "misaligned 64-bit write at %s", hex(va.raw()).c_str());
  uint8_t* p = RG_TRY(translate(va, true, false));
  store_release(reinterpret_cast<uint64_t*>(p), value);  // 8-aligned: never crosses a page
  return {};
}

bool AmdGpu::hang_injected(FaultRule::Trigger t, Queue& q) {
  if (faults_ == nullptr || !faults_->watches(t)) return false;
  FaultRule r;
  if (!faults_->fire(t, q.id, &r) || r.action != FaultRule::Action::kHang) return false;
  q.status.hung = q.status.waiting = true;  // busy forever: only a reset ends it
  return true;
}

void AmdGpu::run_queue(Queue& q) {
  if ((mec_pipes_ & (1u << q.pipe)) == 0) return;  // MEC pipe halted, in reset or not loaded
  const bool was_stopped = q.status.stopped;
  const uint32_t faults_before = fault_status_;
  while (!q.status.stopped && !q.status.hung) {
    if (q.ibs.empty()) {
      if (q.rptr == q.doorbell_wptr) break;
      const uint64_t ring_dw = q.ring_bytes / 4;
      if (q.doorbell_wptr < q.rptr || q.doorbell_wptr - q.rptr > ring_dw) {
        q.status.stopped = true;
        q.status.error = strformat("wptr %llu is not within one ring (%llu dwords) of rptr %llu",
                                   static_cast<unsigned long long>(q.doorbell_wptr),
                                   static_cast<unsigned long long>(ring_dw),
                                   static_cast<unsigned long long>(q.rptr));
        break;
      }
    }
    if (!step(q)) break;
  }
  // The read pointer goes back to host memory by DMA, through the page tables.
  if (Status st = write64(q.rptr_report, q.rptr); !st && !q.status.stopped) {
    q.status.stopped = true;
    q.status.error = "read-pointer writeback: " + st.error().message();
  }
  // A queue that stopped raises its interrupt (a VM fault raised its own UTCL2 entry).
  if (q.status.stopped && !was_stopped && (faults_before != 0 || fault_status_ == 0))
    ih_post(kIhClientGrbmCp, q.stop_source, q.ring_id, 0, {q.stop_ctx[0], q.stop_ctx[1], 0, 0});
}

bool AmdGpu::step(Queue& q) {
  const bool in_ib = !q.ibs.empty();
  const uint64_t ring_dw = q.ring_bytes / 4;
  // Where the packet starts and how many dwords are available to it.
  uint64_t avail = in_ib ? q.ibs.back().size - q.ibs.back().pos : q.doorbell_wptr - q.rptr;
  auto addr_of = [&](uint64_t i) -> GpuVa {
    if (in_ib) return q.ibs.back().base + 4 * (q.ibs.back().pos + i);
    return q.ring + 4 * ((q.rptr + i) % ring_dw);  // PM4 packets may straddle the end
  };
  auto stop = [&](std::string why) {
    // Formatted only on error: the hot path builds no strings.
    const std::string where =
        in_ib ? strformat("IB %s dword %u", hex(q.ibs.back().base.raw()).c_str(), q.ibs.back().pos)
              : strformat("ring dword %llu", static_cast<unsigned long long>(q.rptr));
    q.status.stopped = true;
    q.status.error = where + ": " + why;
    return false;
  };
  auto hdr_r = read32(addr_of(0));
  if (!hdr_r) return stop(hdr_r.error().message());
  const uint32_t hdr = *hdr_r;
  const uint32_t type = hdr >> 30;
  uint32_t total = 1;
  if (hdr == pm4::CP_PACKET2) {
    total = 1;  // type-2 filler
  } else if (type != pm4::PACKET_TYPE3) {
    return stop(strformat("unsupported PM4 type-%u packet header %s", type, hex(hdr).c_str()));
  } else {
    const uint32_t op = (hdr >> 8) & 0xff;
    const uint32_t n = ((hdr >> 16) & 0x3fff) + 1;  // body dwords
    total = 1 + n;
    if (total > avail) {
      return stop(strformat("%s (0x%02x) needs %u dwords but only %llu were submitted",
                            opcode_name(op), op, total, static_cast<unsigned long long>(avail)));
    }
    body_.resize(n);  // reused across packets
    std::vector<uint32_t>& body = body_;
    for (uint32_t i = 0; i < n; ++i) {
      auto d = read32(addr_of(1 + i));
      if (!d) return stop(d.error().message());
      body[i] = *d;
    }
    auto need = [&](uint32_t want) -> bool { return n == want; };
    auto bad_len = [&](uint32_t want) {
      return stop(strformat("%s with %u body dwords (expected %u)", opcode_name(op), n, want));
    };
    switch (op) {
      case pm4::PACKET3_NOP:
      case pm4::PACKET3_EVENT_WRITE: break;
      case pm4::PACKET3_ACQUIRE_MEM:
        if (!need(7)) return bad_len(7);
        q.status.last_gcr_cntl = body[6];  // recorded; the simulator has no caches
        ++q.status.acquires;
        break;
      case pm4::PACKET3_COPY_DATA: {
        if (!need(5)) return bad_len(5);
        const uint32_t src_sel = body[0] & 0xf, dst_sel = (body[0] >> 8) & 0xf;
        const bool bit64 = (body[0] >> 16) & 1;
        const uint64_t src = body[1] | (uint64_t{body[2]} << 32);
        const GpuVa dst(body[3] | (uint64_t{body[4]} << 32));
        uint64_t v = 0;
        switch (src_sel) {
          case 0:
            if (bit64) return stop("COPY_DATA: 64-bit register source is not simulated");
            v = read_reg(body[1]);
            break;
          case 1: {
            if (src % (bit64 ? 8 : 4)) return stop("COPY_DATA: misaligned memory source");
            if (bit64) {
              auto r = read64(GpuVa(src));
              if (!r) return stop("COPY_DATA: " + r.error().message());
              v = *r;
            } else {
              auto r = read32(GpuVa(src));
              if (!r) return stop("COPY_DATA: " + r.error().message());
              v = *r;
            }
            break;
          }
          case 5: v = bit64 ? src : body[1]; break;
          case 9: v = timestamp(); break;
          default: return stop(strformat("COPY_DATA src_sel %u not simulated", src_sel));
        }
        if (dst_sel == 0) {
          if (bit64) return stop("COPY_DATA: 64-bit register destination is not simulated");
          write_reg(body[3], static_cast<uint32_t>(v));
        } else if (dst_sel == 5) {
          Status st = bit64 ? write64(dst, v) : write32(dst, static_cast<uint32_t>(v));
          if (!st) return stop("COPY_DATA: " + st.error().message());
        } else {
          return stop(strformat("COPY_DATA dst_sel %u not simulated", dst_sel));
        }
        break;
      }
      case pm4::PACKET3_WRITE_DATA: {
        if (n < 4) return stop(strformat("WRITE_DATA with %u body dwords (at least 4)", n));
        const uint32_t dst_sel = (body[0] >> 8) & 0xf;
        if (dst_sel != 5)
          return stop(strformat("WRITE_DATA dst_sel %u not supported (5 = memory)", dst_sel));
        const GpuVa dst(body[1] | (uint64_t{body[2]} << 32));
        for (uint32_t i = 3; i < n; ++i) {
          const bool one_addr = (body[0] & pm4::WR_ONE_ADDR) != 0;
          if (Status st = write32(one_addr ? dst : dst + 4 * (i - 3), body[i]); !st) {
            return stop("WRITE_DATA: " + st.error().message());
          }
        }
        break;
      }
      case pm4::PACKET3_RELEASE_MEM: {
        if (!need(7)) return bad_len(7);
        const uint32_t data_sel = (body[1] >> 29) & 7;
        const uint32_t int_sel = (body[1] >> 24) & 7;
        const GpuVa dst(body[2] | (uint64_t{body[3]} << 32));
        const uint64_t data = body[4] | (uint64_t{body[5]} << 32);
        Status st;
        switch (data_sel) {
          case 0: break;
          case 1: st = write32(dst, body[4]); break;
          case 2: st = write64(dst, data); break;
          case 3: st = write64(dst, timestamp()); break;
          default: return stop(strformat("RELEASE_MEM data_sel %u not supported", data_sel));
        }
        if (!st) return stop("RELEASE_MEM: " + st.error().message());
        if (int_sel > 2) return stop(strformat("RELEASE_MEM int_sel %u invalid", int_sel));
        break;
      }
      case pm4::PACKET3_WAIT_REG_MEM: {
        if (!need(6)) return bad_len(6);
        if (!q.status.waiting && hang_injected(FaultRule::Trigger::kWaitRegMem, q)) return false;
        const uint32_t fn = body[0] & 7;
        const bool mem = (body[0] & (1u << 4)) != 0;
        const uint32_t operation = (body[0] >> 6) & 3;
        if (fn > 6) return stop(strformat("WAIT_REG_MEM function %u invalid", fn));
        uint32_t cur = 0;
        if (mem) {
          if (operation != 0)
            return stop("WAIT_REG_MEM write-wait-write on memory is not simulated");
          auto v = read32(GpuVa(body[1] | (uint64_t{body[2]} << 32)));
          if (!v) return stop("WAIT_REG_MEM: " + v.error().message());
          cur = *v;
        } else if (operation == 0) {
          cur = read_reg(body[1]);
        } else if (operation == 1) {
          if (!q.status.waiting) write_reg(body[1], body[3]);  // the first write, once
          cur = read_reg(body[2]);
        } else {
          return stop(strformat("WAIT_REG_MEM operation %u not simulated", operation));
        }
        const uint32_t val = cur & body[4], ref = body[3];
        const std::optional<bool> cmp = wait_compare(fn, val, ref);
        if (!cmp) return stop(strformat("WAIT_REG_MEM function %u invalid", fn));
        if (!*cmp) {
          q.status.waiting = true;  // re-polled on the next doorbell or poll()
          return false;
        }
        q.status.waiting = false;
        break;
      }
      case pm4::PACKET3_SET_SH_REG:
      case pm4::PACKET3_SET_UCONFIG_REG: {
        const bool is_sh = op == pm4::PACKET3_SET_SH_REG;
        const uint32_t window = is_sh ? kShWindow : kUconfigWindow;
        if (n < 2) return stop(strformat("%s without values", opcode_name(op)));
        const uint32_t reg = body[0] & 0xffff;
        if (reg >= window || n - 1 > window - reg) {
          return stop(strformat("%s writes registers 0x%x..+%u outside the window (0x%x dwords)",
                                opcode_name(op), reg, n - 1, window));
        }
        uint32_t* regs = is_sh ? q.sh.data() : q.uconfig.data();
        for (uint32_t i = 1; i < n; ++i) regs[reg + i - 1] = body[i];
        break;
      }
      case pm4::PACKET3_INDIRECT_BUFFER: {
        if (!need(3)) return bad_len(3);
        if ((body[2] & pm4::INDIRECT_BUFFER_VALID) == 0)
          return stop("INDIRECT_BUFFER without VALID");
        if (body[0] & 3) return stop("INDIRECT_BUFFER base not dword aligned");
        if (q.ibs.size() >= kMaxIbDepth) return stop("INDIRECT_BUFFER nested deeper than IB2");
        const uint32_t size = body[2] & 0xfffff;
        // Advance past the IB packet first; the IB runs next.
        if (in_ib) {
          q.ibs.back().pos += total;
        } else {
          q.rptr += total;
        }
        ++q.status.packets;
        if (size != 0) q.ibs.push_back({GpuVa(body[0] | (uint64_t{body[1]} << 32)), 0, size});
        return true;
      }
      case pm4::PACKET3_DISPATCH_DIRECT: {
        if (!need(4)) return bad_len(4);
        DispatchState s;
        auto r = [&](uint32_t idx) { return q.sh[idx]; };
        s.program = GpuVa((uint64_t{r(sh(gc::COMPUTE_PGM_HI{}))} << 40) |
                          (uint64_t{r(sh(gc::COMPUTE_PGM_LO{}))} << 8));
        s.rsrc1 = r(sh(gc::COMPUTE_PGM_RSRC1{}));
        s.rsrc2 = r(sh(gc::COMPUTE_PGM_RSRC2{}));
        s.rsrc3 = r(sh(gc::COMPUTE_PGM_RSRC3{}));
        s.tmpring_size = r(sh(gc::COMPUTE_TMPRING_SIZE{}));
        s.scratch_base = GpuVa((uint64_t{r(sh(gc::COMPUTE_DISPATCH_SCRATCH_BASE_HI{}))} << 40) |
                               (uint64_t{r(sh(gc::COMPUTE_DISPATCH_SCRATCH_BASE_LO{}))} << 8));
        s.resource_limits = r(sh(gc::COMPUTE_RESOURCE_LIMITS{}));
        const uint32_t nsgpr = static_cast<uint32_t>(gc::COMPUTE_PGM_RSRC2::USER_SGPR.get(s.rsrc2));
        for (uint32_t i = 0; i < nsgpr; ++i)
          s.user_data.push_back(r(sh(gc::COMPUTE_USER_DATA_0{}) + i));
        for (uint32_t i = 0; i < 3; ++i) {
          s.start[i] = r(sh(gc::COMPUTE_START_X{}) + i);
          s.workgroup[i] = r(sh(gc::COMPUTE_NUM_THREAD_X{}) + i);
          s.grid[i] = body[i];
        }
        s.initiator = body[3];
        s.wave32 = gc::COMPUTE_DISPATCH_INITIATOR::CS_W32_EN.get(body[3]) != 0;
        s.lds_bytes = static_cast<uint32_t>(gc::COMPUTE_PGM_RSRC2::LDS_SIZE.get(s.rsrc2)) * 512;
        if (gc::COMPUTE_DISPATCH_INITIATOR::COMPUTE_SHADER_EN.get(body[3]) == 0) {
          return stop("DISPATCH_DIRECT without COMPUTE_SHADER_EN");
        }
        if (executor_ == nullptr)
          return stop("DISPATCH_DIRECT but no dispatch executor is installed");
        if (faults_ != nullptr && faults_->watches(FaultRule::Trigger::kDispatch)) {
          FaultRule r;
          if (faults_->fire(FaultRule::Trigger::kDispatch, q.id, &r)) {
            if (r.action == FaultRule::Action::kHang) {
              q.status.hung = q.status.waiting = true;
              return false;
            }
            if (r.action == FaultRule::Action::kWaveError) {
              // SOC21 SQ_INTERRUPT_WORD_ERROR: ctx1[7:6] = 2 (error), ctx0[24:21] the type.
              q.stop_source = 239;
              q.stop_ctx = {(r.value & 0xf) << 21, 2u << 6};
              return stop(
                  strformat("dispatch: wave error %s (fault plan)", wave_error_name(r.value)));
            }
          }
        }
        if (Status st = executor_->execute(s); !st)
          return stop("dispatch: " + st.error().to_string());
        clock_ += executor_->last_dispatch_ticks();
        break;
      }
      default:
        return stop(strformat("unknown PM4 opcode 0x%02x (header %s)", op, hex(hdr).c_str()));
    }
    ++q.status.packets;
  }
  if (in_ib) {
    q.ibs.back().pos += total;
    if (q.ibs.back().pos == q.ibs.back().size) q.ibs.pop_back();
  } else {
    q.rptr += total;
  }
  return true;
}

}  // namespace rawgpu::sim
