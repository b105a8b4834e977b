// The simulated AMD GPU as a PCI function: its config space parses with the same parsers that
// read real devices (drivers/pci/config_space.h), BARs answer the sizing protocol and resize
// through the Resizable BAR capability, BAR5 is the register file (traced with upstream
// register names), BAR2 doorbells run queues, BAR0 is the VRAM, and the device reaches host
// memory only through the IOVA map (an unmapped bus address or bus mastering off is a recorded
// DMA fault).
#include "rawgpu/sim/amd_pci.h"
#include "rawgpu/sim/sim_gpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/drivers/amd/pci_device.h"
#include "rawgpu/drivers/pci/config_space.h"

namespace rawgpu::sim {
namespace {

namespace pm4 = autogen::amd::pm4_nvd;
using drivers::amd::BufferPlacement;

constexpr uint64_t kMiB = 1ull << 20;

bool has_line(const std::vector<std::string>& trace, const std::string& needle) {
  return std::any_of(trace.begin(), trace.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

class AmdPci : public testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    AmdPciConfig c;
    c.gpu.gc_version = GetParam();
    c.trace = true;
    auto f = AmdPciFunction::create(c);
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    fn_ = std::move(*f);
  }
  std::vector<uint8_t> config_bytes() {
    std::vector<uint8_t> b(pci::kConfigExtendedSize);
    for (uint32_t off = 0; off < b.size(); off += 4) {
      const uint32_t v = fn_->cfg_read(off, 4).value();
      std::memcpy(b.data() + off, &v, 4);
    }
    return b;
  }
  pci::ConfigSpace config() {
    auto cs = pci::parse_config_space(config_bytes());
    EXPECT_TRUE(cs.ok()) << cs.error().to_string();
    return *cs;
  }
  void enable_bus_master() {
    const uint32_t cmd = fn_->cfg_read(0x04, 2).value();
    ASSERT_TRUE(fn_->cfg_write(0x04, 2, cmd | 0x4));
  }
  // The driver over the function (memory, VM context, queues through the BARs).
  drivers::amd::PciAmdDevice& driver() {
    if (!drv_) {
      auto d = drivers::amd::PciAmdDevice::open(*fn_, sim::sim_driver_options(*fn_).value());
      EXPECT_TRUE(d.ok()) << d.error().to_string();
      drv_ = std::move(*d);
    }
    return *drv_;
  }
  std::unique_ptr<AmdPciFunction> fn_;
  std::unique_ptr<drivers::amd::PciAmdDevice> drv_;  // destroyed before the function
};

TEST_P(AmdPci, ConfigSpaceReadsAsTheRealBoard) {
  const pci::ConfigSpace cs = config();
  EXPECT_EQ(cs.vendor_id, 0x1002);
  EXPECT_EQ(cs.device_id, GetParam() == 110000 ? 0x744c : 0x7550);
  EXPECT_EQ(cs.class_code, 0x030000u);
  EXPECT_EQ(cs.header_type, 0);
  EXPECT_EQ(cs.bars[0].type, pci::BarType::kMemory64);
  EXPECT_TRUE(cs.bars[0].prefetchable);
  EXPECT_EQ(cs.bars[0].address, 0x4000000000ull);
  EXPECT_EQ(cs.bars[1].type, pci::BarType::kMemory64Upper);
  EXPECT_EQ(cs.bars[2].type, pci::BarType::kMemory64);
  EXPECT_EQ(cs.bars[4].type, pci::BarType::kIo);
  EXPECT_EQ(cs.bars[5].type, pci::BarType::kMemory32);
  EXPECT_FALSE(cs.bars[5].prefetchable);

  const pci::PcieCapability e = pci::decode_pcie(cs).value();
  EXPECT_EQ(e.port_type, 0);
  EXPECT_EQ(e.max_link_speed, 4);
  EXPECT_EQ(e.max_link_width, 16);
  EXPECT_EQ(e.link_speed, 4);
  EXPECT_EQ(e.link_width, 16);
  EXPECT_FALSE(e.downgraded());
  EXPECT_TRUE(e.aspm_l1_supported);
  EXPECT_FALSE(e.aspm_l1_enabled);
  EXPECT_EQ(e.supported_speeds, 0x1e);

  const pci::MsiCapability msi = pci::decode_msi(cs).value();
  EXPECT_FALSE(msi.enabled);
  EXPECT_EQ(msi.vectors_capable, 1u);
  EXPECT_TRUE(msi.address_64bit);

  ASSERT_EQ(cs.ext_capabilities.size(), 2u);  // vendor-specific, then Resizable BAR
  const pci::ResizableBar rb = pci::decode_resizable_bar(cs).value();
  ASSERT_EQ(rb.entries.size(), 1u);
  EXPECT_EQ(rb.entries[0].bar_index, 0);
  EXPECT_EQ(rb.entries[0].current_size(), 256 * kMiB);
  EXPECT_EQ(rb.entries[0].supported_sizes(),
            (std::vector<uint64_t>{256 * kMiB, 512 * kMiB, 1024 * kMiB}));  // up to 1 GiB VRAM

  const pci::BarInfo b0 = fn_->bar(0).value();
  EXPECT_EQ(b0.size, 256 * kMiB);
  EXPECT_TRUE(b0.is_64bit && b0.prefetchable && b0.mappable);
  EXPECT_EQ(fn_->bar(2).value().size, 2 * kMiB);
  EXPECT_TRUE(fn_->bar(4).value().io);
  EXPECT_EQ(fn_->bar(5).value().size, 1 * kMiB);
  EXPECT_EQ(fn_->bar(1).value().size, 0u);
  EXPECT_EQ(fn_->bar(6).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(fn_->map_bar(4).error().code(), Errc::kUnsupported);
  EXPECT_EQ(fn_->map_bar(3).error().code(), Errc::kUnsupported);
}

TEST_P(AmdPci, BarsAnswerTheSizingProtocol) {
  auto size_of = [&](uint32_t off) {
    const uint32_t saved = fn_->cfg_read(off, 4).value();
    EXPECT_TRUE(fn_->cfg_write(off, 4, 0xffffffffu));
    const uint32_t mask = fn_->cfg_read(off, 4).value();
    EXPECT_TRUE(fn_->cfg_write(off, 4, saved));
    EXPECT_EQ(fn_->cfg_read(off, 4).value(), saved);
    return mask;
  };
  EXPECT_EQ(size_of(0x10), 0xf000000cu);  // 256 MiB, 64-bit prefetchable
  EXPECT_EQ(size_of(0x14), 0xffffffffu);
  EXPECT_EQ(size_of(0x18), 0xffe0000cu);  // 2 MiB
  EXPECT_EQ(size_of(0x20), 0x0000ff01u);  // 256 bytes of I/O
  EXPECT_EQ(size_of(0x24), 0xfff00000u);  // 1 MiB
  // Read-only fields ignore writes.
  ASSERT_TRUE(fn_->cfg_write(0x00, 4, 0x12345678));
  EXPECT_EQ(fn_->cfg_read(0x00, 2).value(), 0x1002u);
  EXPECT_EQ(fn_->cfg_read(1, 2).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(fn_->cfg_read(4096, 1).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(fn_->cfg_write(2, 4, 0).error().code(), Errc::kInvalidArgument);
  EXPECT_TRUE(has_line(fn_->trace(), "cfg wr32 0x010 = 0xffffffff"));
}

TEST_P(AmdPci, Bar0ResizesThroughTheResizableBarCapability) {
  pci::Mmio* before = fn_->map_bar(0).value();
  EXPECT_EQ(before->size(), 256 * kMiB);
  ASSERT_TRUE(fn_->resize_bar(0, 1024 * kMiB));
  EXPECT_EQ(fn_->bar(0).value().size, 1024 * kMiB);
  const pci::ResizableBar rb = pci::decode_resizable_bar(config()).value();
  EXPECT_EQ(rb.entries[0].current_size(), 1024 * kMiB);
  pci::Mmio* after = fn_->map_bar(0).value();
  EXPECT_EQ(after->size(), 1024 * kMiB);
  EXPECT_NE(after->direct(900 * kMiB, 4096), nullptr);
  // The kernel's order: memory decode off, the size, memory decode on again.
  const auto& t = fn_->trace();
  auto at = [&](const std::string& s) {
    return std::find_if(t.begin(), t.end(),
                        [&](const std::string& l) { return l.find(s) != std::string::npos; }) -
           t.begin();
  };
  EXPECT_LT(at("cfg wr16 0x004 = 0x0001"), at("cfg wr32 0x208"));
  EXPECT_LT(at("cfg wr32 0x208"), at("cfg wr16 0x004 = 0x0003"));
  EXPECT_TRUE(has_line(t, "BAR0 resized to 1 GiB"));
  EXPECT_EQ(fn_->resize_bar(0, 2048 * kMiB).error().code(), Errc::kUnsupported);
  EXPECT_EQ(fn_->resize_bar(0, 3 * 256 * kMiB).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(fn_->resize_bar(2, 4 * kMiB).error().code(), Errc::kUnsupported);
  EXPECT_EQ(fn_->bar(0).value().size, 1024 * kMiB);  // a refused resize changes nothing
}

TEST_P(AmdPci, RegisterBarIsTheRegisterFileAndIsTracedByName) {
  pci::Mmio* regs = fn_->map_bar(5).value();
  EXPECT_EQ(regs->direct(0, 4), nullptr);  // register windows are never direct
  // HDP flush (NBIO/NBIF segment 2 + 0x106/0x107): the request completes at once.
  constexpr uint32_t kReq = 0xD20 + 0x106, kDone = 0xD20 + 0x107;
  EXPECT_EQ(regs->rd32(4 * kDone), 0u);
  regs->wr32(4 * kReq, 1);
  EXPECT_EQ(regs->rd32(4 * kDone), 1u);
  EXPECT_TRUE(
      has_line(fn_->trace(), "BAR5 wr32 0x003898 BIF_BX_PF0_GPU_HDP_FLUSH_REQ = 0x00000001"))
      << fn_->trace().back();
  EXPECT_TRUE(has_line(fn_->trace(), "BIF_BX_PF0_GPU_HDP_FLUSH_DONE -> 0x00000001"));
  // An untouched register reads 0, and a GC register is named from the GC table.
  constexpr uint32_t kScratch0 = 0xA000 + 0x2040;  // SCRATCH_REG0 (GC segment 1)
  EXPECT_EQ(regs->rd32(4 * kScratch0), 0u);
  regs->wr32(4 * kScratch0, 0xdeadbeef);
  EXPECT_EQ(regs->rd32(4 * kScratch0), 0xdeadbeefu);
  EXPECT_EQ(fn_->gpu().read_reg(kScratch0), 0xdeadbeefu);
  EXPECT_TRUE(has_line(fn_->trace(), "SCRATCH_REG0 = 0xdeadbeef"));
}

TEST_P(AmdPci, MemoryDecodeOffReadsAllOnes) {
  pci::Mmio* regs = fn_->map_bar(5).value();
  pci::Mmio* vram = fn_->map_bar(0).value();
  regs->wr32(0x100, 7);
  ASSERT_TRUE(fn_->cfg_write(0x04, 2, 0));
  EXPECT_TRUE(pci::reads_all_ones(regs->rd32(0x100)));
  EXPECT_EQ(vram->direct(0, 4096), nullptr);
  regs->wr32(0x100, 9);  // dropped
  EXPECT_TRUE(has_line(fn_->trace(), "(dropped: memory decode off)"));
  ASSERT_TRUE(fn_->cfg_write(0x04, 2, 0x2));
  EXPECT_EQ(regs->rd32(0x100), 7u);
}

TEST_P(AmdPci, VramBarIsTheGpusVram) {
  AmdGpu& gpu = fn_->gpu();
  auto buf = driver().alloc(8192, BufferPlacement::kVram).value();
  const memory::PageTable& pt = driver().memory_manager().page_table();
  const memory::MappedPage page = pt.translate(buf.va + 4096).value();
  ASSERT_EQ(page.attrs.aperture, memory::Aperture::kVram);
  const uint64_t pa = page.pa + (buf.va.raw() + 4096 - page.va.raw());
  pci::Mmio* vram = fn_->map_bar(0).value();
  ASSERT_LT(pa + 8, vram->size());
  vram->wr32(pa + 4, 0x12345678);
  EXPECT_EQ(gpu.read32(buf.va + 4096 + 4).value(), 0x12345678u);
  ASSERT_TRUE(gpu.write32(buf.va + 4096 + 8, 0xabcdef01));
  uint8_t* direct = vram->direct(pa, 4096);
  ASSERT_NE(direct, nullptr);
  uint32_t v;
  std::memcpy(&v, direct + 8, 4);
  EXPECT_EQ(v, 0xabcdef01u);
  std::vector<uint8_t> bulk(16);
  vram->read(pa, bulk);
  std::memcpy(&v, bulk.data() + 4, 4);
  EXPECT_EQ(v, 0x12345678u);
}

TEST_P(AmdPci, DoorbellBarRunsTheQueue) {
  AmdGpu& gpu = fn_->gpu();
  auto q = driver().create_compute_queue(4096).value();
  auto mem = driver().alloc(4096, BufferPlacement::kHost).value();
  const GpuVa dst = mem.va + 16;
  const uint32_t pkt[] = {(3u << 30) | (3u << 16) | (pm4::PACKET3_WRITE_DATA << 8),
                          pm4::WRITE_DATA_DST_SEL(5), static_cast<uint32_t>(dst.raw()),
                          static_cast<uint32_t>(dst.raw() >> 32), 0x600dcafe};
  std::memcpy(q.ring.cpu, pkt, sizeof(pkt));
  *q.wptr = 5;
  pci::Mmio* db = fn_->map_bar(2).value();
  db->wr64(8ull * q.doorbell, 5);
  uint32_t v;
  std::memcpy(&v, mem.cpu + 16, 4);
  EXPECT_EQ(v, 0x600dcafeu);
  EXPECT_EQ(gpu.queue_status(q.id).rptr, 5u);
  EXPECT_TRUE(has_line(fn_->trace(), "BAR2 wr64 0x" + hex(8ull * q.doorbell, 6).substr(2) +
                                         " doorbell " + std::to_string(q.doorbell) + " = 0x5"));
}

TEST_P(AmdPci, DmaReachesHostMemoryOnlyThroughTheIovaMap) {
  AmdGpu& gpu = fn_->gpu();
  pci::DmaBuffer d = fn_->alloc_dma(5000).value();
  ASSERT_EQ(d.size, 8192u);
  ASSERT_EQ(d.bus_pages.size(), 2u);
  EXPECT_EQ(d.bus_pages[0], 0x100000000ull);  // the IOVA base
  EXPECT_EQ(d.contiguous_bus_addr(), d.bus_pages[0]);
  EXPECT_EQ(d.host[100], 0);
  // Map the bus pages into the GPU's page table as the driver does, at a VA of its choice.
  const GpuVa va(0x200000000000ull + (512ull << 30));  // in the driver's VM context
  memory::PageAttrs attrs;
  attrs.aperture = memory::Aperture::kSystem;
  attrs.snooped = true;
  const AddrRange<BusAddr> chunk{BusAddr(d.bus_pages[0]), d.size};
  ASSERT_TRUE(driver().memory_manager().map_range(va, std::span(&chunk, 1), attrs));
  // Not yet visible: the GPU translates through the tables as of the last TLB invalidation.
  auto stale = gpu.write32(va, 1);
  ASSERT_FALSE(stale.ok());
  EXPECT_NE(stale.error().to_string().find("missing TLB flush"), std::string::npos)
      << stale.error().to_string();
  EXPECT_TRUE(gpu.dma_faults().empty());  // refused by the MMU, before any DMA
  gpu.clear_fault();
  const uint64_t before = gpu.tlb_invalidations();
  ASSERT_TRUE(driver().flush_tlb());
  EXPECT_EQ(gpu.tlb_invalidations(), before + 1);

  // Bus mastering off (the driver enabled it; clear it again): the access is a DMA fault.
  ASSERT_TRUE(fn_->cfg_write(0x04, 2, fn_->cfg_read(0x04, 2).value() & ~0x4u));
  auto off = gpu.write32(va + 4096, 1);
  ASSERT_FALSE(off.ok());
  auto faults = gpu.dma_faults();
  // The access, then the interrupt ring's entry for the VM fault (host memory too).
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].bus_addr, d.bus_pages[1]);
  EXPECT_TRUE(faults[0].write);
  EXPECT_EQ(faults[0].reason, "bus mastering disabled");
  EXPECT_EQ(faults[1].reason, "IH ring write with bus mastering disabled");
  gpu.clear_fault();

  enable_bus_master();
  ASSERT_TRUE(gpu.write32(va + 4096 + 12, 0x5a5a1234));
  uint32_t v;
  std::memcpy(&v, d.host + 4096 + 12, 4);
  EXPECT_EQ(v, 0x5a5a1234u);

  // Freed: the bus address is unmapped; the access faults with the address recorded.
  const uint64_t bus = d.bus_pages[0];
  ASSERT_TRUE(fn_->free_dma(d));
  auto gone = gpu.read32(va + 8);
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.error().message().find("unbacked bus address"), std::string::npos);
  faults = gpu.dma_faults();
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[2].bus_addr, bus + 8);
  EXPECT_FALSE(faults[2].write);
  EXPECT_EQ(faults[2].reason, "unmapped bus address");
  EXPECT_TRUE(gpu.fault_state().faulted);
  EXPECT_EQ(fn_->free_dma(d).error().code(), Errc::kNotFound);
  EXPECT_TRUE(has_line(fn_->trace(), "dma map 0x100000000 +0x2000"));
  EXPECT_TRUE(has_line(fn_->trace(), "dma unmap 0x100000000"));
  EXPECT_EQ(fn_->alloc_dma(0).error().code(), Errc::kInvalidArgument);
}

TEST_P(AmdPci, InterruptsNeedMsiAndTimeOutOnTheVirtualClock) {
  EXPECT_EQ(fn_->wait_irq(std::chrono::microseconds(5)).error().code(), Errc::kUnsupported);
  fn_->raise_irq();  // lost: MSI disabled
  EXPECT_EQ(fn_->pending_irqs(), 0u);
  ASSERT_TRUE(fn_->cfg_write(AmdPciLayout::kMsi + 2, 2, 1));
  EXPECT_TRUE(pci::decode_msi(config()).value().enabled);
  fn_->raise_irq();
  EXPECT_TRUE(fn_->wait_irq(std::chrono::seconds(1)));
  const Nanos t0 = fn_->clock().now();
  auto st = fn_->wait_irq(std::chrono::milliseconds(2));
  EXPECT_EQ(st.error().code(), Errc::kTimeout);
  EXPECT_GE(fn_->clock().now() - t0, std::chrono::milliseconds(2));
  fn_->poll();
  EXPECT_GT(fn_->clock().now(), t0 + std::chrono::milliseconds(2));
}

TEST_P(AmdPci, ResetDeactivatesQueuesAndClearsRegisters) {
  AmdGpu& gpu = fn_->gpu();
  auto q = driver().create_compute_queue(4096).value();
  pci::Mmio* regs = fn_->map_bar(5).value();
  regs->wr32(0x100, 42);
  ASSERT_TRUE(fn_->reset());
  EXPECT_EQ(regs->rd32(0x100), 0u);
  EXPECT_TRUE(gpu.queue_status(q.id).stopped);
  EXPECT_EQ(gpu.queue_status(q.id).error, "deactivated by a function reset");
  EXPECT_TRUE(fn_->bus_master());  // config space restored around the reset, as VFIO does
  EXPECT_TRUE(has_line(fn_->trace(), "function reset"));
}

// Hostile HQD programming through BAR5 (the CP_HQD_* offsets are the same in gc_11_0_0 and
// gc_12_0_0): the queue starts stopped with the reason, never undefined behaviour.
TEST_P(AmdPci, BadHqdProgrammingStartsAStoppedQueueWithTheReason) {
  using gc = autogen::amd::gc_11_0_0;
  pci::Mmio* regs = fn_->map_bar(5).value();
  auto wr = [&](uint32_t reg, uint32_t v) { regs->wr32(4ull * reg, v); };
  constexpr uint32_t kSeg0 = 0x1260, kSeg1 = 0xA000;
  using Sel = gc::GRBM_GFX_CNTL;
  using Db = gc::CP_HQD_PQ_DOORBELL_CONTROL;
  struct Case {
    uint32_t me, queue_size, doorbell;
    const char* want;
  };
  const Case cases[] = {
      {1, 63, Db::encode(Db::DOORBELL_OFFSET(6) | Db::DOORBELL_EN(1)), "QUEUE_SIZE 63"},
      {1, 9, Db::encode(Db::DOORBELL_OFFSET(6)), "DOORBELL_EN 0"},
      {1, 9, Db::encode(Db::DOORBELL_OFFSET(7) | Db::DOORBELL_EN(1)), "not a 64-bit doorbell"},
      {0, 9, Db::encode(Db::DOORBELL_OFFSET(6) | Db::DOORBELL_EN(1)), "MEID 0"},
  };
  for (const Case& c : cases) {
    wr(kSeg1 + Sel::kInfo.offset, Sel::encode(Sel::MEID(c.me) | Sel::QUEUEID(3)));
    wr(kSeg0 + gc::CP_HQD_PQ_CONTROL::kInfo.offset, c.queue_size);
    wr(kSeg0 + Db::kInfo.offset, c.doorbell);
    wr(kSeg0 + gc::CP_HQD_ACTIVE::kInfo.offset, 1);
    const uint32_t id = static_cast<uint32_t>(fn_->gpu().compute_queue_count() - 1);
    const QueueStatus st = fn_->gpu().queue_status(id);
    EXPECT_TRUE(st.stopped) << c.want;
    EXPECT_NE(st.error.find(c.want), std::string::npos) << st.error;
  }
  // The stop reasons of the queues still programmed reach a driver as decoded text; the earlier
  // ones were replaced in the same HQD slot and are gone.
  const std::string errors = fn_->gpu().queue_errors();
  EXPECT_NE(errors.find("MEID 0"), std::string::npos) << errors;
  EXPECT_EQ(errors.find("QUEUE_SIZE 63"), std::string::npos) << errors;
}

TEST(AmdPciConfig, RejectsABar0SizeTheFunctionCannotHave) {
  AmdPciConfig c;
  c.bar0_size = 128 * kMiB;
  EXPECT_EQ(AmdPciFunction::create(c).error().code(), Errc::kInvalidArgument);
  c.bar0_size = 2048 * kMiB;  // beyond the 1 GiB VRAM
  EXPECT_EQ(AmdPciFunction::create(c).error().code(), Errc::kInvalidArgument);
  c.bar0_size = 256 * kMiB;
  c.gpu.vram_size = 100 * kMiB + 4096;
  EXPECT_EQ(AmdPciFunction::create(c).error().code(), Errc::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Profiles, AmdPci, testing::Values(110000u, 120001u),
                         [](const testing::TestParamInfo<uint32_t>& i) {
                           return i.param == 110000 ? std::string("gfx1100")
                                                    : std::string("gfx1201");
                         });

}  // namespace
}  // namespace rawgpu::sim
