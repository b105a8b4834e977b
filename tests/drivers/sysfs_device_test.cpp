// SysfsPciDevice against a fake sysfs tree (real files; the driver attributes act as the kernel's
// through sim/fake_vfio.h): takeover (unbind, sibling removal, enable), config space, BARs mapped
// from resourceN files, resizable BAR, DMA only when unprotected DMA is allowed.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "fake_pci.h"
#include "golden.h"
#include "rawgpu/drivers/pci/sysfs_device.h"
#include "rawgpu/sim/fake_vfio.h"

namespace rawgpu {
namespace {

namespace fs = std::filesystem;
using pci::Bdf;
using testing::FakePciFunction;
using testing::FakePciSystem;

constexpr uint64_t kMem64Pref = 0x0014220c, kMem32 = 0x00040200, kIo = 0x00040101;

FakePciFunction gpu(const char* driver) {
  FakePciFunction f;
  f.bdf = "0000:03:00.0";
  f.vendor = 0x1002;
  f.device = 0x7550;
  f.class_code = 0x030000;
  f.bar_registers = {{0, 0x0000000c}, {1, 0x70}, {2, 0x1000000c}, {3, 0x78}, {5, 0xfcc00000}};
  f.resources = {{0x7000000000, 0x700fffffff, kMem64Pref},
                 {0, 0, 0},
                 {0x7810000000, 0x78101fffff, kMem64Pref},
                 {0, 0, 0},
                 {0xe000, 0xe0ff, kIo},
                 {0xfcc00000, 0xfccfffff, kMem32}};
  f.resize_masks = {{0, 0x3f00}};  // 256 MiB .. 8 GiB
  f.driver = driver;
  f.iommu_group = 5;
  return f;
}

FakePciFunction audio() {
  FakePciFunction f;
  f.bdf = "0000:03:00.1";
  f.vendor = 0x1002;
  f.device = 0xab40;
  f.class_code = 0x040300;
  f.driver = "snd_hda_intel";
  f.iommu_group = 5;
  return f;
}

class SysfsDeviceTest : public ::testing::Test {
 protected:
  void build(std::vector<FakePciFunction> fns) {
    tree_ = std::make_unique<FakePciSystem>(std::move(fns));
    tree_->add_driver("amdgpu");
    tree_->add_driver("snd_hda_intel");
    fs::create_directories(tree_->root() / "lock");
    kernel_ = std::make_unique<sim::FakeVfioKernel>(tree_->dev_root(), tree_->sysfs_root());
  }
  void SetUp() override { build({gpu("amdgpu"), audio()}); }
  pci::SysfsDeviceOptions options() {
    pci::SysfsDeviceOptions o;
    o.sysfs.sys = kernel_.get();
    o.sysfs.sysfs_root = tree_->sysfs_root();
    o.sysfs.proc_root = tree_->proc_root();
    o.sysfs.lock_dir = (tree_->root() / "lock").string();
    return o;
  }
  fs::path dev(const char* bdf) { return fs::path(tree_->sysfs_root()) / "bus/pci/devices" / bdf; }
  const Bdf bdf_ = Bdf::parse("0000:03:00.0").value();
  std::unique_ptr<FakePciSystem> tree_;
  std::unique_ptr<sim::FakeVfioKernel> kernel_;
};

TEST_F(SysfsDeviceTest, TakesOverMapsResizesAndRefusesUnprotectedDma) {
  {
    auto d = pci::SysfsPciDevice::open(bdf_, options());
    ASSERT_TRUE(d.ok()) << d.error().to_string();
    pci::SysfsPciDevice& g = **d;
    EXPECT_EQ(g.previous_driver(), "amdgpu");
    EXPECT_FALSE(fs::is_symlink(dev("0000:03:00.0") / "driver"));  // unbound
    EXPECT_TRUE(fs::exists(dev("0000:03:00.0") / "config"));
    EXPECT_FALSE(fs::is_symlink(dev("0000:03:00.1")));  // the sibling is removed
    EXPECT_FALSE(fs::exists(fs::path(tree_->sysfs_root()) / "kernel/iommu_groups/5/devices" /
                            "0000:03:00.1"));
    std::string enable;
    std::ifstream(dev("0000:03:00.0") / "enable") >> enable;
    EXPECT_EQ(enable, "1");

    EXPECT_EQ(g.cfg_read(0, 4).value(), 0x75501002u);
    EXPECT_EQ(g.cfg_read(0x100, 4).error().code(), Errc::kInvalidArgument);  // 256-byte file
    const pci::BarInfo b0 = g.bar(0).value();
    EXPECT_EQ(b0.size, 256ull << 20);
    EXPECT_TRUE(b0.is_64bit && b0.prefetchable && b0.mappable);
    EXPECT_TRUE(g.bar(4).value().io);
    EXPECT_EQ(g.map_bar(4).error().code(), Errc::kUnsupported);

    pci::Mmio* regs = g.map_bar(5).value();
    regs->wr32(0x40, 0x12345678);
    uint32_t v = 0;
    std::ifstream(dev("0000:03:00.0") / "resource5", std::ios::binary)
        .seekg(0x40)
        .read(reinterpret_cast<char*>(&v), 4);
    EXPECT_EQ(v, 0x12345678u);  // the write reached the resource file
    EXPECT_EQ(regs->direct(0, 4), nullptr);

    // Resize BAR0 to 8 GiB: its window is dropped and remapped at the new size.
    ASSERT_TRUE(g.map_bar(0).ok());
    const Status bad = g.resize_bar(0, 16ull << 30);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message().find("supports 256 MiB, 512 MiB"), std::string::npos)
        << bad.error().message();
    ASSERT_TRUE(g.resize_bar(0, 8ull << 30)) << g.resize_bar(0, 8ull << 30).error().to_string();
    EXPECT_EQ(g.bar(0).value().size, 8ull << 30);
    EXPECT_EQ(g.map_bar(0).value()->size(), 8ull << 30);
    EXPECT_EQ(g.resize_bar(2, 4ull << 20).error().code(), Errc::kUnsupported);  // not resizable

    auto dma = g.alloc_dma(4096);
    ASSERT_FALSE(dma.ok());
    EXPECT_EQ(dma.error().code(), Errc::kPermission);
    EXPECT_NE(dma.error().to_string().find("rawgpu bind"), std::string::npos);
    EXPECT_EQ(g.wait_irq(std::chrono::milliseconds(1)).error().code(), Errc::kUnsupported);
    ASSERT_TRUE(g.reset());
  }
  EXPECT_TRUE(kernel_->leaks().empty()) << ::testing::PrintToString(kernel_->leaks());
  EXPECT_TRUE(testing::matches_golden("sysfs_takeover.trace", kernel_->trace()));
}

TEST_F(SysfsDeviceTest, UnprotectedDmaUsesPhysicalPagesWhenAllowed) {
  pci::SysfsDeviceOptions o = options();
  o.allow_unprotected_dma = true;
  auto d = pci::SysfsPciDevice::open(bdf_, o);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  auto b = (*d)->alloc_dma(10000);
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(b->size, 12288u);
  ASSERT_EQ(b->bus_pages.size(), 3u);
  for (uint64_t a : b->bus_pages) EXPECT_EQ(a % 4096, 0u);
  ASSERT_TRUE((*d)->free_dma(*b));
  EXPECT_EQ((*d)->free_dma(*b).error().code(), Errc::kNotFound);
}

TEST_F(SysfsDeviceTest, RefusesAGpuInUseAndASecondOwner) {
  auto f = gpu("amdgpu");
  f.drm_nodes = {"card1"};
  build({f});
  tree_->add_process(4321, "gnome-shell", {"/dev/dri/card1"});
  auto d = pci::SysfsPciDevice::open(bdf_, options());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), Errc::kBusy);
  EXPECT_NE(d.error().message().find("4321 (gnome-shell)"), std::string::npos);
  EXPECT_TRUE(fs::exists(dev("0000:03:00.0") / "driver"));  // nothing was done

  pci::SysfsDeviceOptions o = options();
  o.force = true;
  auto first = pci::SysfsPciDevice::open(bdf_, o);
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  auto second = pci::SysfsPciDevice::open(bdf_, o);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code(), Errc::kBusy);
  EXPECT_NE(second.error().message().find("owned by another rawgpu process"), std::string::npos);
}

TEST_F(SysfsDeviceTest, FailuresAreTypedAndNameTheStep) {
  kernel_->fail_next("write:$SYS/bus/pci/drivers/amdgpu/unbind", EACCES);
  auto d = pci::SysfsPciDevice::open(bdf_, options());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), Errc::kPermission) << d.error().to_string();
  EXPECT_NE(d.error().message().find("unbinding amdgpu"), std::string::npos);
  auto missing = pci::SysfsPciDevice::open(Bdf::parse("0000:07:00.0").value(), options());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
}

}  // namespace
}  // namespace rawgpu
