#include "rawgpu/drivers/amd/pci_device.h"

#include <bit>
#include <chrono>
#include <cstring>
#include <type_traits>

#include "am_boot.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/nbif_6_3_1.h"
#include "rawgpu/autogen/amd/regs/nbio_4_3_0.h"
#include "rawgpu/autogen/amd/v11_structs.h"
#include "rawgpu/autogen/amd/v12_structs.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/amd/discover.h"
#include "rawgpu/drivers/pci/device_info.h"

namespace rawgpu::drivers::amd {
namespace {

using gc11 = autogen::amd::gc_11_0_0;
using gc12 = autogen::amd::gc_12_0_0;
constexpr uint64_t kPage = 4096;
// VRAM at the top that holds the firmware's regions (discovery table, TMR): never allocated.
constexpr uint64_t kReservedTop = 64ull << 20;
// The VM context the driver gives its address space: 16 TiB from 32 TiB, clear of the
// framebuffer's MC range (the system aperture, which VMID 0 accesses would hit instead of the
// page tables) wherever the firmware puts it below that.
constexpr uint64_t kVaBase = 0x200000000000ull;
constexpr uint64_t kVaSize = 1ull << 44;
// Doorbell indices (64-bit doorbells, amd.md §8): MEC rings from 3, SDMA engines 0x100 + 0xA·n.
constexpr uint32_t kMecDoorbell = 3;
constexpr uint32_t kSdmaDoorbell = 0x100, kSdmaDoorbellStep = 0xA;
constexpr uint32_t kMaxComputeQueues = 32;  // pipes 0..3 x queues 0..7 of ME 1
// The destructor dequeues with the gc_11_0_0 offsets for both profiles: they are the same.
template <class A, class B>
constexpr bool same_reg() {
  return A::kInfo.offset == B::kInfo.offset && A::kInfo.base_idx == B::kInfo.base_idx;
}
static_assert(same_reg<gc11::CP_HQD_ACTIVE, gc12::CP_HQD_ACTIVE>() &&
              same_reg<gc11::GRBM_GFX_CNTL, gc12::GRBM_GFX_CNTL>());

// A queue's descriptor: the pointer page holds rptr at +0 and wptr at +8.
template <class Desc>
Desc queue_desc(const DeviceBuffer& ring, const DeviceBuffer& ptrs, uint32_t doorbell,
                uint32_t id) {
  Desc d;
  d.ring = ring;
  d.rptr = reinterpret_cast<volatile uint64_t*>(ptrs.cpu);
  d.wptr = reinterpret_cast<volatile uint64_t*>(ptrs.cpu + 8);
  d.doorbell = doorbell;
  d.id = id;
  return d;
}

}  // namespace

PciAmdDevice::PciAmdDevice(pci::PciDevice& dev, PciAmdOptions options)
    : dev_(dev), options_(std::move(options)) {}

PciAmdDevice::~PciAmdDevice() {
  // Queues first (dequeue), then their memory and every buffer still allocated.
  if (regs_ != nullptr) {
    for (uint32_t slot = 0; slot < compute_queues_; ++slot) {
      using G = gc11::GRBM_GFX_CNTL;  // the same register and fields in gc_12_0_0
      wreg(gc<G>(), G::encode(G::MEID(1) | G::PIPEID(slot / 8) | G::QUEUEID(slot % 8)));
      wreg(gc<gc11::CP_HQD_ACTIVE>(), 0);
    }
    wreg(gc<gc11::GRBM_GFX_CNTL>(), 0);
    for (unsigned e = 0; e < copy_queues_; ++e) {
      if (gc_version_ >= 120000)
        wreg(sdma<gc12::SDMA0_QUEUE0_RB_CNTL, gc12::SDMA1_QUEUE0_RB_CNTL>(e), 0);
      else
        wreg(sdma<gc11::SDMA0_QUEUE0_RB_CNTL, gc11::SDMA1_QUEUE0_RB_CNTL>(e), 0);
    }
    // The blocks' fini (the IH stops writing into host memory), then the clean-exit mark a
    // later warm boot checks: 0 unless a queue or VM fault was seen.
    // A boot that failed part-way leaves 1 too, so no later process warm-boots over it.
    if (boot_ != nullptr && boot_report_.steps.size() > 0) {
      scan_interrupts();
      boot_->fini(booted_ && ih_errors_.empty() ? 0 : 1);
    }
  }
  // One TLB flush for all of them (the queues are gone; nothing translates meanwhile).
  batch_flush_ = true;
  for (auto& [h, a] : allocations_) (void)free_allocation(a);
  if (regs_ != nullptr && !allocations_.empty()) (void)flush_tlb_now();
}

Result<std::unique_ptr<PciAmdDevice>> PciAmdDevice::open(pci::PciDevice& dev,
                                                         const PciAmdOptions& options) {
  std::unique_ptr<PciAmdDevice> d(new PciAmdDevice(dev, options));
  RG_TRY_CTX(d->init(), "%s: opening the AMD GPU", dev.name().c_str());
  return d;
}

Status PciAmdDevice::init() {
  name_ = options_.name.empty() ? dev_.name() : options_.name;
  // Memory decode and bus mastering (the command register's bits 1 and 2).
  const uint32_t cmd = RG_TRY(dev_.cfg_read(0x04, 2));
  if ((cmd & 0x6) != 0x6) RG_TRY(dev_.cfg_write(0x04, 2, cmd | 0x6));
  regs_ = RG_TRY(dev_.map_bar(5));
  // What the GPU is comes from its IP discovery table, not from its PCI id.
  DiscoveryRead dr = RG_TRY(read_discovery(dev_));
  discovery_ = std::move(dr.discovery);
  vram_size_ = dr.vram_size;
  const IpBlock* gc = RG_TRY(discovery_.require(autogen::amd::hwid::GC_HWID));
  gc_version_ = gc->version.packed();
  target_ = std::string(gc_target(gc->version));
  if (gc->version.major != 11 && gc->version.major != 12)
    return make_error(Errc::kUnsupported,
                      "IP discovery reports GC %s (%s): this driver programs GC 11 (RDNA3) and "
                      "GC 12 (RDNA4) only",
                      gc->version.str().c_str(),
                      target_.empty() ? "unknown target" : target_.c_str());
  if (target_.empty())
    return make_error(Errc::kUnsupported,
                      "IP discovery reports GC %s, which has no known LLVM target: add it to "
                      "gc_target() (drivers/amd/discovery.cpp) once its ISA is known",
                      gc->version.str().c_str());
  // The registers used below are in GC segments 0 and 1.
  if (gc->bases.size() < 2 || gc->bases.size() > gc_bases_.size())
    return make_error(Errc::kUnsupported,
                      "IP discovery gives GC %zu base-address segments (this driver needs 2..%zu)",
                      gc->bases.size(), gc_bases_.size());
  for (size_t i = 0; i < gc->bases.size(); ++i) gc_bases_[i] = static_cast<uint32_t>(gc->bases[i]);
  {
    using Req = autogen::amd::nbio_4_3_0::BIF_BX_PF0_GPU_HDP_FLUSH_REQ;  // same in nbif_6_3_1
    using Done = autogen::amd::nbio_4_3_0::BIF_BX_PF0_GPU_HDP_FLUSH_DONE;
    static_assert(same_reg<Req, autogen::amd::nbif_6_3_1::BIF_BX_PF0_GPU_HDP_FLUSH_REQ>() &&
                  same_reg<Done, autogen::amd::nbif_6_3_1::BIF_BX_PF0_GPU_HDP_FLUSH_DONE>());
    const IpBlock* nbio = RG_TRY(discovery_.require(autogen::amd::hwid::NBIF_HWID));
    hdp_flush_req_ = RG_TRY(nbio->reg<Req>());
    hdp_flush_done_ = RG_TRY(nbio->reg<Done>());
  }
  // All of VRAM through BAR0: page tables and VRAM buffers are written through it.
  const pci::BarInfo b0 = RG_TRY(dev_.bar(0));
  if (b0.size < vram_size_) {
    return make_error(Errc::kUnsupported,
                      "BAR0 is %s but VRAM is %s, and resizing BAR0 failed (%s): this path "
                      "needs all of VRAM in BAR0 (enable Resizable BAR / Above 4G decoding in the "
                      "firmware; `rawgpu doctor` checks it)",
                      format_bytes(b0.size).c_str(), format_bytes(vram_size_).c_str(),
                      dr.resize_error.empty() ? "not attempted" : dr.resize_error.c_str());
  }
  vram_bar_ = RG_TRY(dev_.map_bar(0));
  uint8_t* vram = vram_bar_->size() >= vram_size_ ? vram_bar_->direct(0, vram_size_) : nullptr;
  if (vram == nullptr)
    return make_error(Errc::kUnsupported, "BAR0 gives no direct mapping of the %s of VRAM",
                      format_bytes(vram_size_).c_str());
  doorbells_ = RG_TRY(dev_.map_bar(2));

  vram_ = std::make_unique<memory::MappedVram>(CpuAddr::from(vram), vram_size_);
  va_base_ = GpuVa(kVaBase);
  va_size_ = kVaSize;
  va_ = std::make_unique<memory::AddressAllocator<GpuVa>>(
      RG_TRY(memory::AddressAllocator<GpuVa>::create(va_base_, va_size_, kPage)));
  memory::MemoryManagerConfig mc;
  mc.format = gc_version_ >= 120000 ? memory::PageTableFormat::kAmdGfx12
                                    : memory::PageTableFormat::kAmdGfx10;
  mc.vram_size = vram_size_;
  mc.boot_size = 32ull << 20;  // the root table, then the boot allocations (am_boot.h)
  mc.reserved = kReservedTop;
  mc.va_base = va_base_;
  mm_ = RG_TRY(memory::MemoryManager::create(mc, *vram_, *va_));
  // The boot: every block, cold or warm (VM context 0 is programmed by GFX, after the RLC).
  counted_ = std::make_unique<CountingMmio>(*regs_);
  {
    using Index = autogen::amd::nbio_4_3_0::BIF_BX_PF0_RSMU_INDEX;  // same in nbif_6_3_1
    using Data = autogen::amd::nbio_4_3_0::BIF_BX_PF0_RSMU_DATA;
    static_assert(same_reg<Index, autogen::amd::nbif_6_3_1::BIF_BX_PF0_RSMU_INDEX>() &&
                  same_reg<Data, autogen::amd::nbif_6_3_1::BIF_BX_PF0_RSMU_DATA>());
    const IpBlock* nbio = RG_TRY(discovery_.require(autogen::amd::hwid::NBIF_HWID));
    counted_->set_indirect(RG_TRY(nbio->reg<Index>()), RG_TRY(nbio->reg<Data>()));
  }
  regs_ = counted_.get();
  boot_ = std::make_unique<AmBoot>(*this, options_.boot);
  boot_->counter = counted_.get();
  RG_TRY(boot_->run(boot_report_));
  booted_ = true;
  mm_->finish_boot();
  RG_LOG("amd", 1, "%s: %s boot of %s (GC %s) in %s, %s VRAM through a %s BAR0, page tables at %s",
         name_.c_str(), std::string(boot_kind_name(boot_report_.kind)).c_str(), target_.c_str(),
         gc->version.str().c_str(), format_duration(boot_report_.host).c_str(),
         format_bytes(vram_size_).c_str(), format_bytes(b0.size).c_str(),
         hex(mm_->page_table().root().raw()).c_str());
  return {};
}

template <class GC>
void PciAmdDevice::program_vm(uint64_t root, GpuVa start, uint64_t size) {
  using Cntl = typename GC::GCVM_CONTEXT0_CNTL;
  const uint64_t first = start.raw() >> 12, last = (start.raw() + size - 1) >> 12;
  // Disabled while the base and range change; enabled last.
  wreg(gc<Cntl>(), 0);
  wreg(gc<typename GC::GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32>(),
       static_cast<uint32_t>(root) | 1u);  // PDE valid
  wreg(gc<typename GC::GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32>(),
       static_cast<uint32_t>(root >> 32));
  wreg(gc<typename GC::GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32>(), static_cast<uint32_t>(first));
  wreg(gc<typename GC::GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32>(),
       static_cast<uint32_t>(first >> 32));
  wreg(gc<typename GC::GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32>(), static_cast<uint32_t>(last));
  wreg(gc<typename GC::GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32>(),
       static_cast<uint32_t>(last >> 32));
  wreg(gc<Cntl>(), Cntl::encode(Cntl::ENABLE_CONTEXT(1) |
                                Cntl::PAGE_TABLE_DEPTH(mm_->page_table().codec().last_level()) |
                                Cntl::PAGE_TABLE_BLOCK_SIZE(0)));
}

// The GC hub's VM context programming is called by the boot's GFX block (am_gfx.cpp).
template void PciAmdDevice::program_vm<gc11>(uint64_t, GpuVa, uint64_t);
template void PciAmdDevice::program_vm<gc12>(uint64_t, GpuVa, uint64_t);

Status PciAmdDevice::flush_tlb() { return batch_flush_ ? Status{} : flush_tlb_now(); }

Status PciAmdDevice::flush_tlb_now() {
  PollOptions po;
  po.timeout = std::chrono::milliseconds(100);
  po.clock = &dev_.clock();
  // HDP: the CPU's page-table writes through BAR0 out to VRAM (request bit 0, its done bit).
  wreg(hdp_flush_req_, 1);
  uint32_t done = 0;
  RG_TRY_CTX(poll_until(
                 "the HDP flush (BIF_BX_PF0_GPU_HDP_FLUSH_DONE bit 0)",
                 [&]() -> Result<bool> {
                   done = rreg(hdp_flush_done_);
                   if (pci::reads_all_ones(done))
                     return pci::fell_off_bus(name_, "BIF_BX_PF0_GPU_HDP_FLUSH_DONE");
                   return (done & 1) != 0;
                 },
                 po, [&] { return strformat("DONE = 0x%08x", done); }),
             "%s: flushing the TLB", name_.c_str());
  return gc_version_ >= 120000 ? invalidate_tlb<gc12>(po) : invalidate_tlb<gc11>(po);
}

template <class GC>
Status PciAmdDevice::invalidate_tlb(const PollOptions& po) {
  // The GC hub's engine 17, VMID 0: every level of cached translation (amd.md §7.2).
  using Req = typename GC::GCVM_INVALIDATE_ENG17_REQ;
  using Ack = typename GC::GCVM_INVALIDATE_ENG17_ACK;
  wreg(gc<Req>(), Req::encode(Req::PER_VMID_INVALIDATE_REQ(1) | Req::FLUSH_TYPE(0) |
                              Req::INVALIDATE_L2_PTES(1) | Req::INVALIDATE_L2_PDE0(1) |
                              Req::INVALIDATE_L2_PDE1(1) | Req::INVALIDATE_L2_PDE2(1) |
                              Req::INVALIDATE_L1_PTES(1)));
  uint32_t ack = 0;
  RG_TRY_CTX(poll_until(
                 "the TLB invalidation (GCVM_INVALIDATE_ENG17_ACK bit 0)",
                 [&]() -> Result<bool> {
                   ack = rreg(gc<Ack>());
                   if (pci::reads_all_ones(ack))
                     return pci::fell_off_bus(name_, "GCVM_INVALIDATE_ENG17_ACK");
                   return (Ack::PER_VMID_INVALIDATE_ACK.get(ack) & 1) != 0;
                 },
                 po, [&] { return strformat("ACK = 0x%08x", ack); }),
             "%s: flushing the TLB", name_.c_str());
  return {};
}

Result<DeviceBuffer> PciAmdDevice::alloc(uint64_t size, BufferPlacement placement) {
  if (size == 0) return make_error(Errc::kInvalidArgument, "%s: buffer of 0 bytes", name_.c_str());
  const uint64_t bytes = RG_TRY(checked_add(size, kPage - 1)) & ~(kPage - 1);
  if (placement == BufferPlacement::kHost) return map_host(RG_TRY(dev_.alloc_dma(bytes)));
  Allocation a;
  a.size = bytes;
  a.vram = RG_TRY(mm_->valloc(bytes));
  a.va = a.vram->va;
  if (Status st = flush_tlb(); !st) {
    (void)mm_->vfree(*a.vram);
    return std::move(st).take_error();
  }
  DeviceBuffer b;
  b.va = a.va;
  b.size = bytes;
  b.placement = placement;
  b.handle = next_handle_++;
  allocations_.emplace(b.handle, std::move(a));
  return b;
}

Result<DeviceBuffer> PciAmdDevice::map_external(uint8_t* host, uint64_t size) {
  return map_host(RG_TRY(dev_.map_dma(host, size)));
}

Result<DeviceBuffer> PciAmdDevice::map_host(pci::DmaBuffer dma) {
  Allocation a;
  a.size = dma.size;
  a.dma = std::move(dma);
  auto va = va_->alloc(a.size, kPage);
  if (!va) {
    (void)dev_.free_dma(*a.dma);
    return std::move(va).take_error();
  }
  a.va = *va;
  // The bus pages as runs of contiguous addresses (one run under an IOMMU).
  std::vector<AddrRange<BusAddr>> runs;
  for (uint64_t bus : a.dma->bus_pages) {
    if (!runs.empty() && runs.back().base.raw() + runs.back().size == bus)
      runs.back().size += kPage;
    else
      runs.push_back({BusAddr(bus), kPage});
  }
  memory::PageAttrs attrs;
  attrs.aperture = memory::Aperture::kSystem;
  attrs.snooped = true;
  if (Status st = mm_->map_range(a.va, runs, attrs); !st) {
    (void)va_->free(a.va);
    (void)dev_.free_dma(*a.dma);
    return std::move(st).take_error();
  }
  if (Status st = flush_tlb(); !st) {
    (void)mm_->unmap_range(a.va, a.size);
    (void)va_->free(a.va);
    (void)dev_.free_dma(*a.dma);
    return std::move(st).take_error();
  }
  DeviceBuffer b;
  b.cpu = a.dma->host;
  b.va = a.va;
  b.size = a.size;
  b.placement = BufferPlacement::kHost;
  b.handle = next_handle_++;
  allocations_.emplace(b.handle, std::move(a));
  return b;
}

Status PciAmdDevice::alloc_all(std::initializer_list<uint64_t> sizes,
                               std::vector<DeviceBuffer>& out) {
  // All the buffers' mappings, then one TLB flush for them.
  auto undo = [&] {
    for (const DeviceBuffer& done : out) (void)free(done);
    out.clear();
  };
  batch_flush_ = true;
  for (uint64_t size : sizes) {
    auto b = alloc(size, BufferPlacement::kHost);
    if (!b) {
      undo();
      batch_flush_ = false;
      (void)flush_tlb_now();
      return std::move(b).take_error();
    }
    out.push_back(*b);
  }
  batch_flush_ = false;
  if (Status st = flush_tlb_now(); !st) {
    undo();
    return st;
  }
  return {};
}

Status PciAmdDevice::free_allocation(Allocation& a) {
  // Unmapped, then flushed before the pages or VA can be reused.
  if (a.vram) {
    RG_TRY(mm_->vfree(*a.vram));
    return flush_tlb();
  }
  RG_TRY(mm_->unmap_range(a.va, a.size));
  const Status flushed = flush_tlb();
  RG_TRY(va_->free(a.va));
  RG_TRY(dev_.free_dma(*a.dma));
  return flushed;
}

Status PciAmdDevice::free(const DeviceBuffer& buffer) {
  auto it = allocations_.find(buffer.handle);
  if (it == allocations_.end())
    return make_error(Errc::kNotFound, "%s: no buffer with handle %llu", name_.c_str(),
                      static_cast<unsigned long long>(buffer.handle));
  RG_TRY(free_allocation(it->second));
  allocations_.erase(it);
  return {};
}

template <class GC, class Mqd>
Status PciAmdDevice::program_hqd(uint32_t slot, const DeviceBuffer& ring, const DeviceBuffer& ptrs,
                                 const DeviceBuffer& mqd_buf, uint32_t doorbell) {
  using Ctl = typename GC::CP_HQD_PQ_CONTROL;
  using Db = typename GC::CP_HQD_PQ_DOORBELL_CONTROL;
  using Sel = typename GC::GRBM_GFX_CNTL;
  const uint64_t base = ring.va.raw() >> 8;
  const GpuVa rptr = ptrs.va, wptr = ptrs.va + 8;
  const unsigned order = static_cast<unsigned>(std::countr_zero(ring.size / 4));  // dwords
  // The MQD: what the CP saves and restores the queue from (and what KIQ/MES would map).
  Mqd m{};
  m.cp_mqd_base_addr_lo = static_cast<uint32_t>(mqd_buf.va.raw());
  m.cp_mqd_base_addr_hi = static_cast<uint32_t>(mqd_buf.va.raw() >> 32);
  m.cp_hqd_pq_base_lo = static_cast<uint32_t>(base);
  m.cp_hqd_pq_base_hi = static_cast<uint32_t>(base >> 32);
  m.cp_hqd_pq_control = Ctl::encode(Ctl::QUEUE_SIZE(order - 1));
  m.cp_hqd_pq_rptr_report_addr_lo = static_cast<uint32_t>(rptr.raw());
  m.cp_hqd_pq_rptr_report_addr_hi = static_cast<uint32_t>(rptr.raw() >> 32);
  m.cp_hqd_pq_wptr_poll_addr_lo = static_cast<uint32_t>(wptr.raw());
  m.cp_hqd_pq_wptr_poll_addr_hi = static_cast<uint32_t>(wptr.raw() >> 32);
  m.cp_hqd_pq_doorbell_control = Db::encode(Db::DOORBELL_OFFSET(doorbell * 2) | Db::DOORBELL_EN(1));
  m.cp_hqd_active = 1;
  std::memcpy(mqd_buf.cpu, &m, sizeof(m));
  // The HQD registers from the MQD, through BAR5, with the queue selected.
  wreg(gc<Sel>(), Sel::encode(Sel::MEID(1) | Sel::PIPEID(slot / 8) | Sel::QUEUEID(slot % 8)));
  wreg(gc<typename GC::CP_HQD_ACTIVE>(), 0);
  wreg(gc<typename GC::CP_MQD_BASE_ADDR>(), m.cp_mqd_base_addr_lo);
  wreg(gc<typename GC::CP_MQD_BASE_ADDR_HI>(), m.cp_mqd_base_addr_hi);
  wreg(gc<typename GC::CP_HQD_PQ_BASE>(), m.cp_hqd_pq_base_lo);
  wreg(gc<typename GC::CP_HQD_PQ_BASE_HI>(), m.cp_hqd_pq_base_hi);
  wreg(gc<typename GC::CP_HQD_PQ_RPTR_REPORT_ADDR>(), m.cp_hqd_pq_rptr_report_addr_lo);
  wreg(gc<typename GC::CP_HQD_PQ_RPTR_REPORT_ADDR_HI>(), m.cp_hqd_pq_rptr_report_addr_hi);
  wreg(gc<typename GC::CP_HQD_PQ_WPTR_POLL_ADDR>(), m.cp_hqd_pq_wptr_poll_addr_lo);
  wreg(gc<typename GC::CP_HQD_PQ_WPTR_POLL_ADDR_HI>(), m.cp_hqd_pq_wptr_poll_addr_hi);
  wreg(gc<Db>(), m.cp_hqd_pq_doorbell_control);
  wreg(gc<Ctl>(), m.cp_hqd_pq_control);
  wreg(gc<typename GC::CP_HQD_ACTIVE>(), GC::CP_HQD_ACTIVE::encode(GC::CP_HQD_ACTIVE::ACTIVE(1)));
  wreg(gc<Sel>(), 0);
  return {};
}

Result<ComputeQueueDesc> PciAmdDevice::create_compute_queue(uint64_t ring_bytes) {
  if (ring_bytes < kPage || !is_pow2(ring_bytes) || ring_bytes > (1ull << 30))
    return make_error(Errc::kInvalidArgument,
                      "%s: ring size 0x%llx: must be a power of two in [4 KiB, 1 GiB]",
                      name_.c_str(), static_cast<unsigned long long>(ring_bytes));
  if (compute_queues_ >= kMaxComputeQueues)
    return make_error(Errc::kBusy, "%s: all %u compute HQDs of ME 1 are in use", name_.c_str(),
                      kMaxComputeQueues);
  std::vector<DeviceBuffer> mem;  // ring, pointers, MQD: all or nothing
  RG_TRY(alloc_all({ring_bytes, kPage, kPage}, mem));
  const DeviceBuffer ring = mem[0], ptrs = mem[1], mqd = mem[2];
  const uint32_t slot = compute_queues_++;
  const uint32_t doorbell = kMecDoorbell + slot;
  if (gc_version_ >= 120000)
    RG_TRY((program_hqd<gc12, autogen::amd::mqd_v12::v12_compute_mqd>(slot, ring, ptrs, mqd,
                                                                      doorbell)));
  else
    RG_TRY((program_hqd<gc11, autogen::amd::mqd_v11::v11_compute_mqd>(slot, ring, ptrs, mqd,
                                                                      doorbell)));
  return queue_desc<ComputeQueueDesc>(ring, ptrs, doorbell, slot);
}

template <class GC>
void PciAmdDevice::program_sdma(unsigned e, const DeviceBuffer& ring, const DeviceBuffer& ptrs,
                                uint32_t doorbell) {
  using Cntl = typename GC::SDMA0_QUEUE0_RB_CNTL;
  using Db = typename GC::SDMA0_QUEUE0_DOORBELL;
  using DbOff = typename GC::SDMA0_QUEUE0_DOORBELL_OFFSET;
  const uint64_t base = ring.va.raw() >> 8;
  const unsigned order = static_cast<unsigned>(std::countr_zero(ring.size / 4));
  const uint32_t cntl = Cntl::encode(Cntl::RB_SIZE(order) | Cntl::RPTR_WRITEBACK_ENABLE(1));
  wreg(sdma<Cntl, typename GC::SDMA1_QUEUE0_RB_CNTL>(e), cntl);  // disabled while programmed
  wreg(sdma<typename GC::SDMA0_QUEUE0_RB_BASE, typename GC::SDMA1_QUEUE0_RB_BASE>(e),
       static_cast<uint32_t>(base));
  wreg(sdma<typename GC::SDMA0_QUEUE0_RB_BASE_HI, typename GC::SDMA1_QUEUE0_RB_BASE_HI>(e),
       static_cast<uint32_t>(base >> 32));
  wreg(
      sdma<typename GC::SDMA0_QUEUE0_RB_RPTR_ADDR_LO, typename GC::SDMA1_QUEUE0_RB_RPTR_ADDR_LO>(e),
      static_cast<uint32_t>(ptrs.va.raw()));
  wreg(
      sdma<typename GC::SDMA0_QUEUE0_RB_RPTR_ADDR_HI, typename GC::SDMA1_QUEUE0_RB_RPTR_ADDR_HI>(e),
      static_cast<uint32_t>(ptrs.va.raw() >> 32));
  wreg(sdma<typename GC::SDMA0_QUEUE0_RB_WPTR_POLL_ADDR_LO,
            typename GC::SDMA1_QUEUE0_RB_WPTR_POLL_ADDR_LO>(e),
       static_cast<uint32_t>((ptrs.va + 8).raw()));
  wreg(sdma<typename GC::SDMA0_QUEUE0_RB_WPTR_POLL_ADDR_HI,
            typename GC::SDMA1_QUEUE0_RB_WPTR_POLL_ADDR_HI>(e),
       static_cast<uint32_t>((ptrs.va + 8).raw() >> 32));
  wreg(sdma<DbOff, typename GC::SDMA1_QUEUE0_DOORBELL_OFFSET>(e),
       DbOff::encode(DbOff::OFFSET(doorbell * 2)));
  wreg(sdma<Db, typename GC::SDMA1_QUEUE0_DOORBELL>(e), Db::encode(Db::ENABLE(1)));
  wreg(sdma<Cntl, typename GC::SDMA1_QUEUE0_RB_CNTL>(e), Cntl::update(cntl, Cntl::RB_ENABLE(1)));
}

Result<CopyQueueDesc> PciAmdDevice::create_copy_queue(uint64_t ring_bytes) {
  if (ring_bytes < kPage || !is_pow2(ring_bytes) || ring_bytes > (1ull << 30))
    return make_error(Errc::kInvalidArgument,
                      "%s: SDMA ring size 0x%llx: must be a power of two in [4 KiB, 1 GiB]",
                      name_.c_str(), static_cast<unsigned long long>(ring_bytes));
  if (copy_queues_ >= 2)
    return make_error(Errc::kBusy,
                      "%s: both SDMA engines' queue 0 are in use (more queues need MES)",
                      name_.c_str());
  std::vector<DeviceBuffer> mem;
  RG_TRY(alloc_all({ring_bytes, kPage}, mem));
  const DeviceBuffer ring = mem[0], ptrs = mem[1];
  const unsigned e = copy_queues_++;
  const uint32_t doorbell = kSdmaDoorbell + kSdmaDoorbellStep * e;
  if (gc_version_ >= 120000)
    program_sdma<gc12>(e, ring, ptrs, doorbell);
  else
    program_sdma<gc11>(e, ring, ptrs, doorbell);
  return queue_desc<CopyQueueDesc>(ring, ptrs, doorbell, e);
}

void PciAmdDevice::ring_doorbell(uint32_t index, uint64_t value) {
  doorbells_->wr64(uint64_t{index} * 8, value);
}

template <class GC>
FaultState PciAmdDevice::read_fault() const {
  using St = std::conditional_t<std::is_same_v<GC, gc12>,
                                typename gc12::GCVM_L2_PROTECTION_FAULT_STATUS_LO32,
                                typename gc11::GCVM_L2_PROTECTION_FAULT_STATUS>;
  FaultState f;
  const uint32_t status = rreg(gc<St>());
  if (pci::reads_all_ones(status)) {
    f.faulted = true;
    f.description = pci::fell_off_bus(name_, "GCVM_L2_PROTECTION_FAULT_STATUS").message();
    return f;
  }
  const uint64_t page =
      rreg(gc<typename GC::GCVM_L2_PROTECTION_FAULT_ADDR_LO32>()) |
      (uint64_t{rreg(gc<typename GC::GCVM_L2_PROTECTION_FAULT_ADDR_HI32>()) & 0xf} << 32);
  f.faulted = status != 0;
  f.status = status;
  f.address = GpuVa(page << 12);
  if (f.faulted)
    f.description = strformat("VM fault at %s (%s, %s)", hex(page << 12).c_str(),
                              St::MAPPING_ERROR.get(status) ? "page not mapped" : "permission",
                              St::RW.get(status) ? "write" : "read");
  return f;
}

void PciAmdDevice::scan_interrupts() const {
  if (boot_ == nullptr || boot_->ih == nullptr) return;
  for (const IhEntry& e : boot_->ih->scan()) {
    ++ih_entries_;
    if (!classify_ih_entry(e, gc_version_).error) continue;  // end-of-pipe, SDMA traps: routine
    if (ih_errors_.size() < 64) ih_errors_.push_back(describe(e, gc_version_));
  }
}

FaultState PciAmdDevice::fault_state() const {
  scan_interrupts();
  FaultState f = gc_version_ >= 120000 ? read_fault<gc12>() : read_fault<gc11>();
  // With retry faults off, a VM fault halts the queue that took it: waiters must not wait on.
  f.queue_error = f.faulted;
  if (options_.diagnostics) {
    const std::string q = options_.diagnostics();
    if (!q.empty()) {
      f.queue_error = true;
      f.description = f.description.empty() ? q : f.description + "; " + q;
    }
  }
  // The interrupt ring says what happened, decoded (the fault registers latch only the first).
  if ((f.faulted || f.queue_error) && !ih_errors_.empty())
    f.description += "; interrupt: " + ih_errors_.back();
  return f;
}

}  // namespace rawgpu::drivers::amd
