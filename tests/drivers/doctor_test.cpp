// host_checks / device_checks on fake sysfs, procfs and /dev trees and hand-made devices: each
// condition is reported with its level and what to do.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fake_pci.h"
#include "rawgpu/drivers/pci/doctor.h"

namespace rawgpu {
namespace {

namespace fs = std::filesystem;
using pci::CheckLevel;
using pci::CheckResult;

const CheckResult* find(const std::vector<CheckResult>& v, const std::string& name) {
  for (const CheckResult& c : v)
    if (c.name == name) return &c;
  return nullptr;
}

TEST(Doctor, HostChecksReadTheMachineState) {
  testing::FakePciFunction f;
  f.bdf = "0000:03:00.0";
  f.iommu_group = 3;
  testing::FakePciSystem tree({f});
  const fs::path root = tree.root();
  fs::create_directories(root / "proc");
  std::ofstream(root / "proc/cmdline") << "BOOT_IMAGE=/vmlinuz iommu=pt quiet\n";
  fs::create_directories(root / "sys/kernel/security");
  std::ofstream(root / "sys/kernel/security/lockdown") << "none [integrity] confidentiality\n";
  fs::create_directories(root / "sys/kernel/mm/hugepages/hugepages-2048kB");
  std::ofstream(root / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages") << "64\n";
  fs::create_directories(root / "sys/module/vfio/parameters");
  std::ofstream(root / "sys/module/vfio/parameters/enable_unsafe_noiommu_mode") << "Y\n";
  pci::DoctorOptions o;
  o.sysfs_root = (root / "sys").string();
  o.proc_root = (root / "proc").string();
  o.dev_root = (root / "dev").string();
  o.euid = 1000;
  auto checks = pci::host_checks(o);
  ASSERT_NE(find(checks, "iommu"), nullptr);
  EXPECT_EQ(find(checks, "iommu")->level, CheckLevel::kOk);
  EXPECT_NE(find(checks, "iommu")->detail.find("passthrough"), std::string::npos);
  EXPECT_EQ(find(checks, "vfio-pci")->level, CheckLevel::kOk);  // the fake tree loads it
  EXPECT_EQ(find(checks, "vfio-noiommu")->level, CheckLevel::kWarn);
  EXPECT_EQ(find(checks, "dev-vfio")->level, CheckLevel::kWarn);
  EXPECT_EQ(find(checks, "dev-vfio")->fix, "modprobe vfio-pci");
  EXPECT_EQ(find(checks, "root")->level, CheckLevel::kInfo);
  EXPECT_EQ(find(checks, "lockdown")->level, CheckLevel::kWarn);
  EXPECT_NE(find(checks, "lockdown")->detail.find("'integrity'"), std::string::npos);
  EXPECT_EQ(find(checks, "hugepages")->level, CheckLevel::kOk);

  fs::remove_all(root / "sys/kernel/iommu_groups");
  fs::remove_all(root / "sys/bus/pci/drivers/vfio-pci");
  checks = pci::host_checks(o);
  EXPECT_EQ(find(checks, "iommu")->level, CheckLevel::kWarn);
  EXPECT_NE(find(checks, "iommu")->fix.find("intel_iommu=on"), std::string::npos);
  EXPECT_EQ(find(checks, "vfio-pci")->level, CheckLevel::kWarn);
}

pci::DeviceInfo navi31() {
  pci::DeviceInfo d;
  d.bdf = pci::Bdf::parse("0000:03:00.0").value();
  d.vendor_id = pci::kVendorAmd;
  d.device_id = 0x744c;
  d.class_code = 0x030000;
  d.driver = "amdgpu";
  d.iommu_group = 12;
  d.config_bytes = 4096;
  d.bars = {{0, 0x7800000000, 256ull << 20, false, true, true}};
  d.resizable_bars = {{0, {256ull << 20, 512ull << 20, 32ull << 30}, 256ull << 20}};
  d.link = pci::PcieLink{3, 4, 8, 16, false, true};
  d.msi = true;
  return d;
}

TEST(Doctor, DeviceChecksNameEachProblemAndItsFix) {
  const pci::DoctorOptions o;
  auto checks = pci::device_checks(navi31(), o);
  EXPECT_EQ(find(checks, "driver")->level, CheckLevel::kInfo);
  EXPECT_NE(find(checks, "driver")->fix.find("rawgpu bind 0000:03:00.0 --vfio"), std::string::npos);
  EXPECT_EQ(find(checks, "bar")->level, CheckLevel::kInfo);
  EXPECT_NE(find(checks, "bar")->detail.find("resizable up to 32 GiB"), std::string::npos);
  EXPECT_EQ(find(checks, "aspm")->level, CheckLevel::kWarn);
  EXPECT_NE(find(checks, "aspm")->fix.find("pcie_aspm=off"), std::string::npos);
  EXPECT_EQ(find(checks, "link")->level, CheckLevel::kWarn);
  EXPECT_NE(find(checks, "link")->detail.find("x8"), std::string::npos);
  EXPECT_EQ(find(checks, "msi"), nullptr);

  pci::DeviceInfo d = navi31();
  d.resizable_bars.clear();
  d.link = pci::PcieLink{4, 4, 16, 16, false, false};
  d.driver = "vfio-pci";
  checks = pci::device_checks(d, o);
  EXPECT_EQ(find(checks, "driver")->level, CheckLevel::kOk);
  EXPECT_EQ(find(checks, "bar")->level, CheckLevel::kWarn);
  EXPECT_NE(find(checks, "bar")->fix.find("Resizable BAR"), std::string::npos);
  EXPECT_EQ(find(checks, "aspm")->level, CheckLevel::kOk);
  EXPECT_EQ(find(checks, "link")->level, CheckLevel::kOk);

  d.config_bytes = 64;  // not root: capabilities unknown, said so
  checks = pci::device_checks(d, o);
  EXPECT_EQ(find(checks, "aspm"), nullptr);
  EXPECT_EQ(find(checks, "capabilities")->level, CheckLevel::kInfo);
  d.iommu_group.reset();
  checks = pci::device_checks(d, o);
  EXPECT_EQ(find(checks, "iommu-group")->level, CheckLevel::kWarn);
}

}  // namespace
}  // namespace rawgpu
