// VfioPciDevice — the code that owns a GPU through vfio-pci on a real machine — against the
// simulated kernel side (sim/fake_vfio.h) and a fake sysfs tree: the whole takeover, config
// space, BAR mapping, DMA through the IOMMU, MSI, reset and release, each failure path, and the
// ioctl sequences against golden traces.
#include <gtest/gtest.h>

#include <cstring>

#include "fake_pci.h"
#include "golden.h"
#include "rawgpu/drivers/pci/vfio.h"
#include "rawgpu/sim/fake_vfio.h"

namespace rawgpu {
namespace {

using pci::Bdf;
using pci::VfioOptions;
using pci::VfioPciDevice;
using testing::FakePciFunction;
using testing::FakePciSystem;

constexpr const char* kGpu = "0000:03:00.0";
constexpr const char* kAudio = "0000:03:00.1";
constexpr uint64_t kMiB = 1 << 20;

FakePciFunction navi31(std::string driver = "vfio-pci", int group = 12) {
  FakePciFunction f;
  f.bdf = kGpu;
  f.vendor = 0x1002;
  f.device = 0x744c;
  f.class_code = 0x030000;
  f.revision = 0xc8;
  // BAR0 VRAM 64-bit prefetchable at 0x70_0000_0000, BAR2 doorbells 64-bit prefetchable at
  // 0x78_1000_0000, BAR4 I/O at 0xe000, BAR5 registers 32-bit at 0xfcc0_0000.
  f.bar_registers = {{0, 0x0000000c}, {1, 0x70},       {2, 0x1000000c},
                     {3, 0x78},       {4, 0x0000e001}, {5, 0xfcc00000}};
  f.driver = std::move(driver);
  f.iommu_group = group;
  return f;
}

FakePciFunction hdmi_audio(std::string driver) {
  FakePciFunction f;
  f.bdf = kAudio;
  f.vendor = 0x1002;
  f.device = 0xab30;
  f.class_code = 0x040300;
  f.driver = std::move(driver);
  f.iommu_group = 12;
  return f;
}

class VfioTest : public ::testing::Test {
 protected:
  void build(std::vector<FakePciFunction> fns) {
    const FakePciFunction gpu = fns[0];
    tree_ = std::make_unique<FakePciSystem>(std::move(fns));
    kernel_ = std::make_unique<sim::FakeVfioKernel>(tree_->dev_root(), tree_->sysfs_root());
    kernel_->add_group(12);
    sim::FakeVfioFunction f;
    f.bdf = kGpu;
    const auto cfg = gpu.config_space();
    f.config.assign(cfg.begin(), cfg.end());
    f.bar_size = {256 * kMiB, 0, 2 * kMiB, 0, 256, kMiB};
    f.bar_mmap[4] = false;
    kernel_->add_function(12, f);
  }
  void SetUp() override { build({navi31(), hdmi_audio("vfio-pci")}); }
  void TearDown() override {
    if (kernel_) {
      EXPECT_TRUE(kernel_->violations().empty()) << ::testing::PrintToString(kernel_->violations());
      EXPECT_TRUE(kernel_->leaks().empty()) << ::testing::PrintToString(kernel_->leaks());
    }
  }
  VfioOptions options() {
    VfioOptions o;
    o.sys = kernel_.get();
    o.clock = &clock_;
    o.sysfs_root = tree_->sysfs_root();
    o.dev_root = tree_->dev_root();
    return o;
  }
  Result<std::unique_ptr<VfioPciDevice>> open() {
    return VfioPciDevice::open(Bdf::parse(kGpu).value(), options());
  }
  // The open fails with `code`, its message has `needle`, and nothing is left open.
  void expect_open_fails(Errc code, const std::string& needle) {
    auto d = open();
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().code(), code) << d.error().to_string();
    EXPECT_NE(d.error().to_string().find(needle), std::string::npos) << d.error().to_string();
    EXPECT_EQ(d.error().message().rfind(kGpu, 0), 0u)
        << "names the device first: " << d.error().message();
    EXPECT_TRUE(kernel_->leaks().empty()) << ::testing::PrintToString(kernel_->leaks());
  }

  std::unique_ptr<FakePciSystem> tree_;
  std::unique_ptr<sim::FakeVfioKernel> kernel_;
  ManualClock clock_;
};

TEST_F(VfioTest, TakesOverMapsDmaInterruptsResetsAndReleases) {
  {
    auto dev = open();
    ASSERT_TRUE(dev.ok()) << dev.error().to_string();
    VfioPciDevice& d = **dev;
    EXPECT_EQ(d.name(), kGpu);
    EXPECT_FALSE(d.no_iommu());

    // Config space and BARs read back as the device's.
    EXPECT_EQ(d.cfg_read(0x00, 2).value(), 0x1002u);
    EXPECT_EQ(d.cfg_read(0x02, 2).value(), 0x744cu);
    EXPECT_EQ(d.cfg_read(0x0b, 1).value(), 0x03u);
    EXPECT_EQ(d.cfg_read(0x03, 2).error().code(), Errc::kInvalidArgument);   // misaligned
    EXPECT_EQ(d.cfg_read(0x100, 4).error().code(), Errc::kInvalidArgument);  // past 256 bytes
    ASSERT_TRUE(d.cfg_write(0x04, 2, 0x0006));                               // memory + bus master
    EXPECT_EQ(kernel_->config(kGpu)[4], 0x06);
    const pci::BarInfo b0 = d.bar(0).value();
    EXPECT_EQ(b0.size, 256 * kMiB);
    EXPECT_TRUE(b0.is_64bit && b0.prefetchable && b0.mappable);
    EXPECT_EQ(b0.bus_addr, 0x7000000000u);
    EXPECT_EQ(d.bar(2).value().bus_addr, 0x7810000000u);
    EXPECT_TRUE(d.bar(4).value().io);
    EXPECT_EQ(d.bar(1).value().size, 0u);
    const pci::BarInfo b5 = d.bar(5).value();
    EXPECT_FALSE(b5.is_64bit || b5.prefetchable);
    EXPECT_EQ(b5.bus_addr, 0xfcc00000u);
    EXPECT_EQ(d.bar(6).error().code(), Errc::kInvalidArgument);

    // BAR windows: registers observable (no direct pointer), VRAM direct.
    pci::Mmio* regs = d.map_bar(5).value();
    EXPECT_EQ(regs->size(), kMiB);
    EXPECT_EQ(regs->direct(0, 4), nullptr);
    regs->wr32(0x1000, 0xdeadbeef);
    uint32_t seen;
    std::memcpy(&seen, kernel_->bar_memory(kGpu, 5).data() + 0x1000, 4);
    EXPECT_EQ(seen, 0xdeadbeefu);
    EXPECT_EQ(regs->rd32(0x1000), 0xdeadbeefu);
    EXPECT_EQ(d.map_bar(5).value(), regs);  // one window per BAR
    pci::Mmio* vram = d.map_bar(0).value();
    ASSERT_NE(vram->direct(4096, 16), nullptr);
    vram->wr64(8, 0x0123456789abcdefull);
    EXPECT_EQ(vram->rd64(8), 0x0123456789abcdefull);
    EXPECT_EQ(d.map_bar(1).error().code(), Errc::kUnsupported);
    EXPECT_EQ(d.map_bar(4).error().code(), Errc::kUnsupported);

    // DMA: one IOMMU mapping per buffer, contiguous bus addresses, reachable by the device;
    // anything else is a DMA fault, not a host access.
    auto buf = d.alloc_dma(3 * kMiB + 5);
    ASSERT_TRUE(buf.ok()) << buf.error().to_string();
    EXPECT_EQ(buf->size, 3 * kMiB + 4096);
    EXPECT_EQ(buf->bus_pages.size(), buf->size / 4096);
    const uint64_t bus = buf->contiguous_bus_addr();
    EXPECT_GE(bus, uint64_t{1} << 32);
    EXPECT_EQ(bus % (2 * kMiB), 0u);
    uint8_t* dev_view = kernel_->device_dma(bus + 100, 8);
    ASSERT_EQ(dev_view, buf->host + 100);
    std::memcpy(dev_view, "written", 8);
    EXPECT_STREQ(reinterpret_cast<char*>(buf->host + 100), "written");
    EXPECT_EQ(kernel_->device_dma(bus + buf->size - 4, 8), nullptr);  // runs past the end
    ASSERT_EQ(kernel_->dma_faults().size(), 1u);
    EXPECT_NE(kernel_->dma_faults()[0].find("is not mapped"), std::string::npos);
    auto small = d.alloc_dma(100);
    ASSERT_TRUE(small.ok());
    EXPECT_NE(small->contiguous_bus_addr(), bus);
    EXPECT_EQ(d.dma_ioctls(), 2u);
    ASSERT_TRUE(d.free_dma(*small));
    EXPECT_EQ(d.free_dma(*small).error().code(), Errc::kNotFound);  // twice
    EXPECT_EQ(kernel_->dma_mappings(), 1u);

    // MSI through the eventfd; a wait with nothing pending times out on the driver's clock.
    ASSERT_TRUE(kernel_->raise_irq(kGpu));
    EXPECT_TRUE(d.wait_irq(std::chrono::milliseconds(10)));
    const Nanos before = clock_.now();
    Status t = d.wait_irq(std::chrono::milliseconds(250));
    EXPECT_EQ(t.error().code(), Errc::kTimeout) << t.error().to_string();
    EXPECT_GE(clock_.now() - before, std::chrono::milliseconds(250));

    ASSERT_TRUE(d.reset());
    EXPECT_TRUE(kernel_->was_reset(kGpu));
    // The device is closed with the 3 MiB buffer still allocated: release unmaps it.
  }
  EXPECT_EQ(kernel_->dma_mappings(), 0u);
  EXPECT_TRUE(testing::matches_golden("vfio_takeover.trace", kernel_->trace()));
}

TEST_F(VfioTest, GroupWithAnotherDriverIsNotViableAndNamesIt) {
  build({navi31(), hdmi_audio("snd_hda_intel")});
  kernel_->set_group_viable(12, false);
  expect_open_fails(Errc::kPermission, "0000:03:00.1 (bound to snd_hda_intel)");
}

TEST_F(VfioTest, DeviceBoundToAnotherDriverSaysHowToBindIt) {
  build({navi31("amdgpu")});
  expect_open_fails(Errc::kBusy, "bound to amdgpu, not vfio-pci");
  auto d = open();
  EXPECT_NE(d.error().to_string().find("rawgpu bind 0000:03:00.0 --vfio"), std::string::npos);
  build({navi31("")});
  expect_open_fails(Errc::kBusy, "not bound to vfio-pci (no driver)");
}

TEST_F(VfioTest, MissingFunctionAndMissingIommuAreClear) {
  auto d = VfioPciDevice::open(Bdf::parse("0000:09:00.0").value(), options());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), Errc::kNotFound) << d.error().to_string();
  EXPECT_NE(d.error().to_string().find("no such PCI function"), std::string::npos);
  build({navi31("vfio-pci", -1)});
  expect_open_fails(Errc::kUnsupported, "the IOMMU is off");
}

TEST_F(VfioTest, EachFailingStepIsTypedAndLeavesNothingOpen) {
  struct Case {
    const char* step;
    int err;
    Errc code;
    const char* needle;
  };
  const Case cases[] = {
      {"open:vfio/vfio", ENOENT, Errc::kNotFound, "modprobe vfio-pci"},
      {"open:vfio/vfio", EACCES, Errc::kPermission, "run as root"},
      {"open:vfio/12", EBUSY, Errc::kBusy, "fuser -v"},
      {"open:vfio/12", EPERM, Errc::kPermission, "opening"},
      {"VFIO_GROUP_GET_STATUS", EIO, Errc::kIo, "VFIO_GROUP_GET_STATUS"},
      {"VFIO_GROUP_SET_CONTAINER", EBUSY, Errc::kBusy, "VFIO_GROUP_SET_CONTAINER"},
      {"VFIO_SET_IOMMU", ENODEV, Errc::kNotFound, "VFIO_SET_IOMMU"},
      {"VFIO_IOMMU_GET_INFO", EFAULT, Errc::kIo, "VFIO_IOMMU_GET_INFO"},
      {"VFIO_GROUP_GET_DEVICE_FD", EBUSY, Errc::kBusy, "open in another process"},
      {"VFIO_GROUP_GET_DEVICE_FD", ENODEV, Errc::kNotFound, "VFIO_GROUP_GET_DEVICE_FD"},
      {"VFIO_DEVICE_GET_INFO", EIO, Errc::kIo, "VFIO_DEVICE_GET_INFO"},
      {"VFIO_DEVICE_GET_REGION_INFO", EINVAL, Errc::kIo, "VFIO_DEVICE_GET_REGION_INFO"},
      {"pread:config", 0, Errc::kHardware, "returned 2 of 4 bytes"},
      {"VFIO_DEVICE_GET_IRQ_INFO", EIO, Errc::kIo, "VFIO_DEVICE_GET_IRQ_INFO"},
      {"VFIO_DEVICE_SET_IRQS", EINVAL, Errc::kIo, "VFIO_DEVICE_SET_IRQS"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.step);
    kernel_->fail_next(c.step, c.err);
    expect_open_fails(c.code, c.needle);
  }
  auto d = open();  // and afterwards the device opens normally
  ASSERT_TRUE(d.ok()) << d.error().to_string();
}

TEST_F(VfioTest, FailedMapsAndBarMmapsLeaveTheDeviceUsable) {
  auto dev = open();
  ASSERT_TRUE(dev.ok());
  VfioPciDevice& d = **dev;
  kernel_->fail_next("mmap:BAR0", ENOMEM);
  auto w = d.map_bar(0);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code(), Errc::kOutOfMemory);
  EXPECT_NE(w.error().message().find("mmap of BAR0 (256 MiB)"), std::string::npos);
  EXPECT_TRUE(d.map_bar(0).ok());  // a retry maps it

  kernel_->fail_next("VFIO_IOMMU_MAP_DMA", ENOMEM);
  auto b = d.alloc_dma(kMiB);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code(), Errc::kOutOfMemory);
  EXPECT_NE(b.error().to_string().find("ulimit -l"), std::string::npos);
  EXPECT_EQ(kernel_->dma_mappings(), 0u);
  auto first = d.alloc_dma(kMiB);  // the IOVA the failed map took is free again
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->contiguous_bus_addr(), uint64_t{1} << 32);

  kernel_->set_dma_entry_limit(2);
  auto second = d.alloc_dma(4096);
  ASSERT_TRUE(second.ok());
  auto third = d.alloc_dma(4096);
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.error().message().find("VFIO_IOMMU_MAP_DMA"), std::string::npos);
  ASSERT_TRUE(d.free_dma(*second));
  EXPECT_TRUE(d.alloc_dma(4096).ok());
  EXPECT_EQ(d.alloc_dma(0).error().code(), Errc::kInvalidArgument);
}

TEST_F(VfioTest, IovasComeFromTheRangesTheIommuReports) {
  // A reserved hole (the x86 MSI window) below 4 GiB and usable space from 0x1_2000_0000.
  kernel_->set_iova_ranges({{0, 0xfedfffff}, {0x120000000, (uint64_t{1} << 39) - 1}});
  {
    auto dev = open();
    ASSERT_TRUE(dev.ok()) << dev.error().to_string();
    auto b = (*dev)->alloc_dma(64 * kMiB);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b->contiguous_bus_addr(), 0x120000000u);
  }
  kernel_->set_iova_ranges({{0, 0xfedfffff}});
  expect_open_fails(Errc::kUnsupported, "no usable IOVA range above 0x100000000");
}

TEST_F(VfioTest, BigBuffersCostOneMapIoctl) {
  auto dev = open();
  ASSERT_TRUE(dev.ok());
  const uint64_t before = kernel_->ioctl_count();
  auto b = (*dev)->alloc_dma(256 * kMiB);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(kernel_->ioctl_count() - before, 1u);
  EXPECT_EQ(b->bus_pages.size(), 65536u);
  EXPECT_NE(b->contiguous_bus_addr(), 0u);
  ASSERT_TRUE((*dev)->free_dma(*b));
  EXPECT_EQ(kernel_->ioctl_count() - before, 2u);
}

// map_dma: memory the caller owns (a peer device's signal page) enters the IOMMU with one
// MAP_DMA ioctl; free_dma unmaps it and leaves the memory alone.
TEST_F(VfioTest, MapDmaMapsTheCallersMemoryAndFreeLeavesIt) {
  auto dev = open();
  ASSERT_TRUE(dev.ok());
  VfioPciDevice& d = **dev;
  alignas(4096) static uint8_t page[2 * 4096];
  const uint64_t before = kernel_->ioctl_count();
  auto b = d.map_dma(page, sizeof page);
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(b->host, page);
  ASSERT_EQ(b->bus_pages.size(), 2u);
  EXPECT_NE(b->contiguous_bus_addr(), 0u);
  EXPECT_EQ(kernel_->ioctl_count() - before, 1u);
  EXPECT_EQ(kernel_->dma_mappings(), 1u);
  EXPECT_EQ(d.map_dma(page, 4096).error().code(), Errc::kInvalidArgument);  // mapped already
  EXPECT_EQ(d.map_dma(page + 8, 4096).error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(d.map_dma(page, 100).error().code(), Errc::kInvalidArgument);
  ASSERT_TRUE(d.free_dma(*b));
  EXPECT_EQ(kernel_->dma_mappings(), 0u);
  EXPECT_EQ(kernel_->ioctl_count() - before, 2u);
  page[4096] = 7;  // still the caller's memory
  EXPECT_EQ(page[4096], 7);
  EXPECT_EQ(d.free_dma(*b).error().code(), Errc::kNotFound);
}

TEST_F(VfioTest, NoIommuModeOnlyWhenAllowed) {
  kernel_->set_no_iommu(true);
  expect_open_fails(Errc::kNotFound, "--no-iommu");
  kernel_->clear_trace();
  VfioOptions o = options();
  o.allow_no_iommu = true;
  {
    auto dev = VfioPciDevice::open(Bdf::parse(kGpu).value(), o);
    ASSERT_TRUE(dev.ok()) << dev.error().to_string();
    EXPECT_TRUE((*dev)->no_iommu());
    auto b = (*dev)->alloc_dma(3 * 4096);
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    ASSERT_EQ(b->bus_pages.size(), 3u);
    for (uint64_t a : b->bus_pages) {
      EXPECT_NE(a, 0u);
      EXPECT_EQ(a % 4096, 0u);
    }
    EXPECT_EQ((*dev)->dma_ioctls(), 0u);  // nothing to map: there is no IOMMU
    alignas(4096) static uint8_t foreign[4096];
    EXPECT_EQ((*dev)->map_dma(foreign, 4096).error().code(), Errc::kUnsupported);
  }
  EXPECT_TRUE(testing::matches_golden("vfio_noiommu.trace", kernel_->trace()));
}

}  // namespace
}  // namespace rawgpu
