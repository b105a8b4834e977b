#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "fake_pci.h"
#include "rawgpu/drivers/pci/device_info.h"

namespace rawgpu::pci {
namespace {

using rawgpu::testing::FakePciFunction;
using rawgpu::testing::FakePciSystem;

// IORESOURCE_MEM | IORESOURCE_MEM_64 | IORESOURCE_PREFETCH, and MEM alone, as Linux prints them.
constexpr uint64_t kMem64Pref = 0x0014220c;
constexpr uint64_t kMem32 = 0x00040200;

FakePciFunction navi31() {
  FakePciFunction f;
  f.bdf = "0000:03:00.0";
  f.vendor = kVendorAmd;
  f.device = 0x744c;
  f.class_code = 0x030000;
  f.revision = 0xc8;
  f.subsys_vendor = 0x1da2;
  f.subsys_device = 0xe471;
  // BAR0: 64-bit prefetchable at 0x7800000000, BAR2: 64-bit prefetchable, BAR5: 32-bit MMIO.
  f.bar_registers = {{0, 0x0000000c}, {1, 0x78}, {2, 0x1000000c}, {3, 0x7c}, {5, 0xfcc00000}};
  f.driver = "vfio-pci";
  f.iommu_group = 17;
  f.resources = {{0x7800000000, 0x7fffffffff, kMem64Pref},
                 {0, 0, 0},
                 {0x7c10000000, 0x7c101fffff, kMem64Pref},
                 {0, 0, 0},
                 {0, 0, 0},
                 {0xfcc00000, 0xfccfffff, kMem32}};
  return f;
}

FakePciFunction h100() {
  FakePciFunction f;
  f.bdf = "0000:41:00.0";
  f.vendor = kVendorNvidia;
  f.device = 0x2330;
  f.class_code = 0x030200;  // 3D controller
  f.revision = 0xa1;
  f.bar_registers = {{0, 0xfb000000}, {1, 0x0000000c}, {2, 0x20}};
  f.driver = "nvidia";
  // no iommu_group, no resource file: sizes come from libpci (unknown for dumps)
  return f;
}

FakePciFunction audio() {
  FakePciFunction f;
  f.bdf = "0000:03:00.1";
  f.vendor = kVendorAmd;
  f.device = 0xab30;
  f.class_code = 0x040300;
  return f;
}

FakePciFunction unknown_nvidia() {
  FakePciFunction f;
  f.bdf = "0001:02:00.0";
  f.vendor = kVendorNvidia;
  f.device = 0x1234;
  f.class_code = 0x030000;
  return f;
}

TEST(PciEnumerate, FindsGpusWithSysfsDetails) {
  FakePciSystem sys({h100(), audio(), navi31(), unknown_nvidia()});
  EnumerateOptions o;
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.sysfs_root();
  auto devices = enumerate(o);
  ASSERT_TRUE(devices.ok()) << devices.error().to_string();
  ASSERT_EQ(devices->size(), 3u) << "display-class devices only";
  // Sorted by BDF.
  const DeviceInfo& amd = (*devices)[0];
  const DeviceInfo& nv = (*devices)[1];
  const DeviceInfo& other = (*devices)[2];
  EXPECT_EQ(amd.bdf.to_string(), "0000:03:00.0");
  EXPECT_EQ(nv.bdf.to_string(), "0000:41:00.0");
  EXPECT_EQ(other.bdf.to_string(), "0001:02:00.0");

  EXPECT_EQ(amd.vendor_id, kVendorAmd);
  EXPECT_EQ(amd.device_id, 0x744c);
  EXPECT_EQ(amd.revision, 0xc8);
  EXPECT_EQ(amd.class_code, 0x030000u);
  EXPECT_EQ(amd.subsystem_vendor_id, 0x1da2);
  EXPECT_EQ(amd.subsystem_id, 0xe471);
  EXPECT_EQ(amd.driver, "vfio-pci");
  EXPECT_EQ(amd.iommu_group, std::optional<int>(17));
  ASSERT_NE(amd.known, nullptr);
  EXPECT_STREQ(amd.known->target, "gfx1100");
  EXPECT_TRUE(amd.is_candidate_gpu());
  ASSERT_EQ(amd.bars.size(), 3u);
  EXPECT_EQ(amd.bars[0].index, 0);
  EXPECT_EQ(amd.bars[0].address, 0x7800000000u);
  EXPECT_EQ(amd.bars[0].size, 32ull << 30);
  EXPECT_TRUE(amd.bars[0].is_64bit);
  EXPECT_TRUE(amd.bars[0].prefetchable);
  EXPECT_EQ(amd.bars[1].index, 2);
  EXPECT_EQ(amd.bars[1].size, 2u << 20);
  EXPECT_EQ(amd.bars[2].index, 5);
  EXPECT_EQ(amd.bars[2].size, 1u << 20);
  EXPECT_FALSE(amd.bars[2].is_64bit);
  EXPECT_FALSE(amd.bars[2].prefetchable);

  EXPECT_EQ(nv.driver, "nvidia");
  EXPECT_FALSE(nv.iommu_group.has_value());
  ASSERT_NE(nv.known, nullptr);
  EXPECT_EQ(nv.known->family, GpuFamily::kNvHopper);
  // Without a sysfs resource file, BARs come from config space (libpci dump: no sizes).
  ASSERT_EQ(nv.bars.size(), 2u);
  EXPECT_EQ(nv.bars[0].address, 0xfb000000u);
  EXPECT_FALSE(nv.bars[0].is_64bit);
  EXPECT_EQ(nv.bars[1].index, 1);
  EXPECT_EQ(nv.bars[1].address, 0x2000000000u);
  EXPECT_TRUE(nv.bars[1].is_64bit);
  EXPECT_TRUE(nv.bars[1].prefetchable);

  EXPECT_EQ(other.known, nullptr);
  EXPECT_TRUE(other.is_candidate_gpu());
  EXPECT_EQ(other.bdf.domain, 1u);
}

// A malformed sysfs `resource` is not trusted at all: the BARs come from config space (the libpci
// dump has addresses, no sizes) instead of from the lines before the bad one.
TEST(PciEnumerate, MalformedSysfsResourceFallsBackToConfigSpace) {
  FakePciSystem sys({navi31()});
  {
    std::ofstream res(std::filesystem::path(sys.sysfs_root()) / "bus/pci/devices/0000:03:00.0" /
                      "resource");
    res << "0x0000007800000000 0x0000007fffffffff 0x000000000014220c\n"
        << "garbage\n";
  }
  EnumerateOptions o;
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.sysfs_root();
  auto devices = enumerate(o);
  ASSERT_TRUE(devices.ok()) << devices.error().to_string();
  ASSERT_EQ(devices->size(), 1u);
  const DeviceInfo& amd = (*devices)[0];
  ASSERT_EQ(amd.bars.size(), 3u);
  EXPECT_EQ(amd.bars[0].address, 0x7800000000u);
  EXPECT_EQ(amd.bars[0].size, 0u) << "sizes would have come from the resource file";
  EXPECT_EQ(amd.bars[2].index, 5);
}

// Capabilities from a 4096-byte config space: the PCIe link (trained x8 Gen3 of x16 Gen4, ASPM
// L1 on), MSI/MSI-X, resizable BAR0 (256 MiB now, 256 MiB..32 GiB); the IOMMU group's members.
TEST(PciEnumerate, ReadsLinkResizableBarAndGroupMembers) {
  FakePciFunction f = navi31();
  f.extended_config = true;
  auto le32 = [](uint32_t v) {
    return std::vector<uint8_t>{uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  };
  f.config_patches = {
      {0x06, {0x10, 0x00}},  // status: capability list
      {0x34, {0x40}},
      // PCIe capability v2, endpoint, next MSI at 0x80; Link Capabilities (+0x0c): 16 GT/s
      // (code 4), x16, ASPM L0s+L1 supported; Link Control (+0x10): ASPM L1 enabled; Link
      // Status (+0x12): 8 GT/s (code 3), x8.
      {0x40, {0x10, 0x80, 0x02, 0x00}},
      {0x4c, le32(4 | (16u << 4) | (3u << 10))},
      {0x50, {0x02, 0x00, 0x03 | (8 << 4), 0x00}},
      {0x80, {0x05, 0x90, 0x80, 0x00}},  // MSI, 64-bit, next MSI-X at 0x90
      {0x90, {0x11, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00}},  // 8
  };
  // Resizable BAR extended capability at 0x100: BAR0 supports 256 MiB (bit 8) .. 32 GiB (bit
  // 15) — capability bits 4+n for 2^n MiB — and its current size is 256 MiB (code 8).
  uint32_t sizes = 0;
  for (int n = 8; n <= 15; ++n) sizes |= 1u << (4 + n);
  f.config_patches.push_back({0x100, le32(0x15 | (1u << 16))});
  f.config_patches.push_back({0x104, le32(sizes)});
  f.config_patches.push_back({0x108, le32(0 | (1u << 5) | (8u << 8))});
  FakePciFunction audio_fn = audio();
  audio_fn.iommu_group = 17;
  FakePciSystem sys({f, audio_fn});
  EnumerateOptions o;
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.sysfs_root();
  auto devices = enumerate(o);
  ASSERT_TRUE(devices.ok()) << devices.error().to_string();
  ASSERT_EQ(devices->size(), 1u);
  const DeviceInfo& gpu = (*devices)[0];
  EXPECT_EQ(gpu.config_bytes, 4096u);
  ASSERT_TRUE(gpu.link.has_value());
  EXPECT_EQ(gpu.link->speed, 3);
  EXPECT_EQ(gpu.link->width, 8);
  EXPECT_EQ(gpu.link->max_speed, 4);
  EXPECT_EQ(gpu.link->max_width, 16);
  EXPECT_TRUE(gpu.link->downgraded());
  EXPECT_TRUE(gpu.link->aspm_l1);
  EXPECT_FALSE(gpu.link->aspm_l0s);
  EXPECT_TRUE(gpu.msi);
  EXPECT_TRUE(gpu.msix);
  ASSERT_EQ(gpu.resizable_bars.size(), 1u);
  EXPECT_EQ(gpu.resizable_bars[0].bar, 0);
  EXPECT_EQ(gpu.resizable_bars[0].current, 256ull << 20);
  ASSERT_EQ(gpu.resizable_bars[0].sizes.size(), 8u);
  EXPECT_EQ(gpu.resizable_bars[0].sizes.back(), 32ull << 30);
  EXPECT_EQ(gpu.iommu_group_devices, std::vector<std::string>{audio_fn.bdf});
}

TEST(PciEnumerate, AllDevicesOption) {
  FakePciSystem sys({audio(), navi31()});
  EnumerateOptions o;
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.sysfs_root();
  o.display_only = false;
  auto devices = enumerate(o);
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_FALSE((*devices)[1].is_display());
}

TEST(PciEnumerate, EmptyMachine) {
  FakePciSystem sys({audio()});
  EnumerateOptions o;
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.sysfs_root();
  auto devices = enumerate(o);
  ASSERT_TRUE(devices.ok());
  EXPECT_TRUE(devices->empty());
}

TEST(PciEnumerate, MissingInputsAreTypedErrors) {
  EnumerateOptions o;
  o.sysfs_root = "/nonexistent-rawgpu-sysfs";
  auto r = enumerate(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotFound);
  EXPECT_FALSE(r.error().hint().empty());
  o.libpci_dump = "/nonexistent-rawgpu.dump";
  EXPECT_EQ(enumerate(o).error().code(), Errc::kNotFound);
}

TEST(PciEnumerate, BadInputPathsSayWhatIsWrong) {
  FakePciSystem sys({navi31()});
  EnumerateOptions o;
  // A directory given as the dump (`rawgpu list --libpci-dump /tmp`): not "does not exist".
  o.libpci_dump = ::testing::TempDir();
  auto r = enumerate(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kInvalidArgument) << r.error().to_string();
  EXPECT_NE(r.error().message().find("is a directory, not a file"), std::string::npos)
      << r.error().to_string();
  // A real IO error: the OS's reason (ENOTDIR: a path below a regular file).
  o.libpci_dump = sys.dump_path() + "/below-a-file.dump";
  r = enumerate(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kIo) << r.error().to_string();
  EXPECT_NE(r.error().message().find(std::strerror(ENOTDIR)), std::string::npos)
      << r.error().to_string();
  o.libpci_dump = "/nonexistent-rawgpu.dump";
  r = enumerate(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kNotFound);
  EXPECT_NE(r.error().message().find("does not exist"), std::string::npos);
  // An explicitly given sysfs root next to a dump is checked too.
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.dump_path();  // a file
  r = enumerate(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kIo) << r.error().to_string();  // .../lspci.dump/bus: ENOTDIR
  o.sysfs_root = sys.sysfs_root();
  EXPECT_TRUE(enumerate(o).ok());
  if (::geteuid() != 0) {  // root reads anything
    const std::string locked = ::testing::TempDir() + "/rawgpu-locked.dump";
    std::FILE* f = std::fopen(locked.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    ::chmod(locked.c_str(), 0);
    o.libpci_dump = locked;
    r = enumerate(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), Errc::kPermission) << r.error().to_string();
    std::remove(locked.c_str());
  }
}

// A live PCI function with a bound driver (its BDF is used for a dumped device below), if any.
std::optional<std::string> live_function_with_driver() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/bus/pci/devices", ec))
    if (std::filesystem::is_symlink(e.path() / "driver", ec)) return e.path().filename().string();
  return std::nullopt;
}

TEST(PciEnumerate, DumpAloneTakesNothingFromTheLiveSysfs) {
  // A dump describes another machine: a dumped device whose address exists here too must not
  // pick up this machine's driver, IOMMU group or BARs.
  const auto live = live_function_with_driver();
  if (!live) GTEST_SKIP() << "SKIPPED: no PCI function with a bound driver on this machine";
  FakePciFunction f = navi31();
  f.bdf = *live;
  f.bar_registers = {{0, 0xfb000000}};
  FakePciSystem sys({f});
  EnumerateOptions o;
  o.libpci_dump = sys.dump_path();
  auto r = enumerate(o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->size(), 1u);
  const DeviceInfo& d = (*r)[0];
  EXPECT_EQ(d.bdf.to_string(), *live);
  EXPECT_EQ(d.driver, "") << "driver of the live " << *live;
  EXPECT_FALSE(d.iommu_group.has_value());
  ASSERT_EQ(d.bars.size(), 1u);  // the dump's BAR0, without a size (dumps have none)
  EXPECT_EQ(d.bars[0].address, 0xfb000000u);
  EXPECT_EQ(d.bars[0].size, 0u);
  EXPECT_NE(d.known, nullptr);
  // With the fake sysfs given explicitly, its data is used.
  o.sysfs_root = sys.sysfs_root();
  r = enumerate(o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ((*r)[0].driver, "vfio-pci");
  EXPECT_EQ((*r)[0].iommu_group, std::optional<int>(17));
}

TEST(PciEnumerate, MalformedDumpIsAnErrorNotAnExit) {
  // libpci reports malformed dumps through its fatal error callback; we must get an Error back
  // and stay alive.
  const std::string path = ::testing::TempDir() + "/rawgpu-bad.dump";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("0000:03:00.0 VGA\n00: 02 10 zz\n", f);  // not a hex byte
    std::fclose(f);
  }
  EnumerateOptions o;
  o.libpci_dump = path;
  auto r = enumerate(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kIo);
  EXPECT_NE(r.error().to_string().find("libpci"), std::string::npos) << r.error().to_string();
  // And the next enumeration still works.
  FakePciSystem sys({navi31()});
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.sysfs_root();
  EXPECT_TRUE(enumerate(o).ok());
  std::remove(path.c_str());
}

TEST(PciEnumerate, RealSystemDoesNotFail) {
  // On any Linux machine with sysfs (CI included) enumeration succeeds; GPUs may be absent.
  if (!std::filesystem::exists("/sys/bus/pci/devices")) GTEST_SKIP() << "no /sys/bus/pci here";
  EnumerateOptions o;
  o.display_only = false;
  auto r = enumerate(o);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  for (const DeviceInfo& d : *r) EXPECT_NE(d.vendor_id, 0xffff) << d.bdf.to_string();
}

TEST(Bdf, ParseAndFormat) {
  auto b = Bdf::parse("0000:03:00.0");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->bus, 3);
  EXPECT_EQ(b->to_string(), "0000:03:00.0");
  EXPECT_EQ(Bdf::parse("c1:1f.7")->to_string(), "0000:c1:1f.7");
  EXPECT_EQ(Bdf::parse("10000:00:01.0")->domain, 0x10000u);
  for (const char* bad : {"", "03:00", "03:20.0", "03:00.8", "xx:00.0", "0000:03:00.0.1",
                          "123:456:00.0", ":00.0", "0:0:0:0.0"}) {
    auto r = Bdf::parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code(), Errc::kParse) << bad;
  }
}

TEST(KnownGpus, TableIsConsistent) {
  std::set<std::pair<uint16_t, uint16_t>> seen;
  for (const KnownGpu& g : known_gpus()) {
    EXPECT_TRUE(seen.insert({g.vendor, g.device}).second) << std::hex << g.device;
    EXPECT_EQ(find_known_gpu(g.vendor, g.device), &g);
    const std::string_view t = g.target;
    if (g.vendor == kVendorAmd) {
      EXPECT_EQ(t.substr(0, 3), "gfx");
    } else {
      ASSERT_EQ(g.vendor, kVendorNvidia);
      EXPECT_EQ(t.substr(0, 3), "sm_");
    }
    EXPECT_NE(family_name(g.family), "unknown");
  }
  EXPECT_EQ(find_known_gpu(kVendorAmd, 0xffff), nullptr);
}

}  // namespace
}  // namespace rawgpu::pci
