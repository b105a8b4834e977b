// bind_vfio / release / DeviceLock against a fake sysfs tree whose driver attributes act as the
// kernel's (sim/fake_vfio.h), with the sysfs write sequence as a golden trace.
#include <gtest/gtest.h>

#include <filesystem>

#include "fake_pci.h"
#include "golden.h"
#include "rawgpu/drivers/pci/takeover.h"
#include "rawgpu/sim/fake_vfio.h"

namespace rawgpu {
namespace {

namespace fs = std::filesystem;
using pci::Bdf;
using testing::FakePciFunction;
using testing::FakePciSystem;

FakePciFunction fn(const char* bdf, uint32_t cls, const char* driver, int group) {
  FakePciFunction f;
  f.bdf = bdf;
  f.vendor = 0x1002;
  f.device = cls == 0x030000 ? 0x744c : 0xab30;
  f.class_code = cls;
  f.driver = driver;
  f.iommu_group = group;
  return f;
}

class TakeoverTest : public ::testing::Test {
 protected:
  void build(std::vector<FakePciFunction> fns) {
    tree_ = std::make_unique<FakePciSystem>(std::move(fns));
    tree_->add_driver("amdgpu");
    tree_->add_driver("snd_hda_intel");
    fs::create_directories(tree_->root() / "lock");
    kernel_ = std::make_unique<sim::FakeVfioKernel>(tree_->dev_root(), tree_->sysfs_root());
  }
  void SetUp() override {
    build({fn("0000:03:00.0", 0x030000, "amdgpu", 12),
           fn("0000:03:00.1", 0x040300, "snd_hda_intel", 12)});
  }
  pci::SysfsOptions options() {
    pci::SysfsOptions o;
    o.sys = kernel_.get();
    o.sysfs_root = tree_->sysfs_root();
    o.proc_root = tree_->proc_root();
    o.dev_root = "/dev";
    o.lock_dir = (tree_->root() / "lock").string();
    return o;
  }
  std::string driver(const char* bdf) {
    return pci::bound_driver(Bdf::parse(bdf).value(), options()).value();
  }
  const Bdf gpu_ = Bdf::parse("0000:03:00.0").value();
  std::unique_ptr<FakePciSystem> tree_;
  std::unique_ptr<sim::FakeVfioKernel> kernel_;
};

TEST_F(TakeoverTest, BindsTheWholeGroupToVfioAndGivesItBack) {
  auto r = pci::bind_vfio(gpu_, options());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->functions, (std::vector<std::string>{"0000:03:00.0", "0000:03:00.1"}));
  EXPECT_EQ(r->previous, (std::vector<std::string>{"amdgpu", "snd_hda_intel"}));
  EXPECT_EQ(driver("0000:03:00.0"), "vfio-pci");
  EXPECT_EQ(driver("0000:03:00.1"), "vfio-pci");
  // Bound already: nothing to do.
  auto again = pci::bind_vfio(gpu_, options());
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->functions.empty());

  ASSERT_TRUE(pci::release(gpu_, options()));
  EXPECT_EQ(driver("0000:03:00.0"), "amdgpu");
  EXPECT_EQ(driver("0000:03:00.1"), "snd_hda_intel");
  EXPECT_TRUE(testing::matches_golden("takeover_bind_release.trace", kernel_->trace()));
}

TEST_F(TakeoverTest, RefusesAGpuInUseAndNamesTheProcesses) {
  auto f = fn("0000:03:00.0", 0x030000, "amdgpu", 12);
  f.drm_nodes = {"card0", "renderD128"};
  build({f});
  tree_->add_process(1234, "Xorg", {"/dev/dri/card0", "/dev/null"});
  tree_->add_process(77, "python3", {"/dev/dri/renderD128"});
  tree_->add_process(5, "bash", {"/dev/tty1"});
  auto r = pci::bind_vfio(gpu_, options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kBusy);
  EXPECT_NE(r.error().message().find("in use by amdgpu (1234 (Xorg), 77 (python3))"),
            std::string::npos)
      << r.error().message();
  EXPECT_EQ(driver("0000:03:00.0"), "amdgpu");  // untouched
  pci::BindOptions force;
  force.force = true;
  EXPECT_TRUE(pci::bind_vfio(gpu_, options(), force).ok());
}

TEST_F(TakeoverTest, RefusesTheBootDisplayUnlessForced) {
  auto f = fn("0000:03:00.0", 0x030000, "amdgpu", 12);
  f.boot_vga = true;
  build({f});
  auto r = pci::bind_vfio(gpu_, options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("drives the boot display"), std::string::npos);
}

TEST_F(TakeoverTest, AFailedStepGivesEverythingBack) {
  // vfio-pci takes the GPU, then unbinding the audio function fails: both go back.
  kernel_->fail_next("write:$SYS/bus/pci/drivers/snd_hda_intel/unbind", EBUSY);
  auto r = pci::bind_vfio(gpu_, options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kBusy) << r.error().to_string();
  EXPECT_NE(r.error().message().find("snd_hda_intel/unbind"), std::string::npos);
  EXPECT_EQ(driver("0000:03:00.0"), "amdgpu");
  EXPECT_EQ(driver("0000:03:00.1"), "snd_hda_intel");
}

TEST_F(TakeoverTest, NoVfioModuleIsAClearError) {
  fs::remove_all(fs::path(tree_->sysfs_root()) / "bus/pci/drivers/vfio-pci");
  auto r = pci::bind_vfio(gpu_, options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kHardware);
  EXPECT_NE(r.error().to_string().find("modprobe vfio-pci"), std::string::npos);
  EXPECT_EQ(driver("0000:03:00.0"), "amdgpu");  // given back
}

TEST_F(TakeoverTest, UnknownFunctionIsNotFound) {
  auto r = pci::bind_vfio(Bdf::parse("0000:04:00.0").value(), options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotFound);
}

TEST_F(TakeoverTest, OneProcessOwnsADevice) {
  auto a = pci::DeviceLock::acquire(gpu_, options());
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  // flock is per open file description: a second acquisition conflicts like another process.
  auto b = pci::DeviceLock::acquire(gpu_, options());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code(), Errc::kBusy);
  EXPECT_NE(b.error().message().find("(pid " + std::to_string(::getpid()) + ")"), std::string::npos)
      << b.error().message();
  a = pci::DeviceLock::acquire(Bdf::parse("0000:03:00.1").value(), options()).value();
  EXPECT_TRUE(pci::DeviceLock::acquire(gpu_, options()).ok());  // the first lock is gone
}

}  // namespace
}  // namespace rawgpu
