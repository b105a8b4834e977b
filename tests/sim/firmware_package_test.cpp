// The simulated boards' firmware package (sim/firmware_images.h): for gfx1100, gfx1201 and
// gfx942 every file am_firmware_names() lists, in its order and kind, parses with the crc32
// verified, with the header versions and blob sets below; every blob carries its signature; the
// package is built once per process, the firmware directory is written once, loads through
// FirmwareLoader and is removed when its process exits. With the real firmware-amd-graphics
// files (RAWGPU_FIRMWARE_DIR=<upstream>/firmware, as tests/drivers/amd_firmware_test.cpp) each
// synthetic file's headers are compared with its namesake's; visibly SKIPPED without them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/firmware.h"
#include "rawgpu/sim/firmware_images.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::drivers::amd;
using namespace rawgpu::sim;
namespace fs = std::filesystem;
using Names = std::vector<std::string_view>;

constexpr uint32_t kProfiles[] = {110000, 120001, 90403};

std::vector<std::string_view> blob_names(const FirmwareInfo& fw) {
  std::vector<std::string_view> n;
  for (const FirmwareBlob& b : fw.blobs) n.push_back(b.name);
  return n;
}
std::vector<std::string> descriptor_names(const FirmwareInfo& fw) {
  std::vector<std::string> n;
  for (const PspDescriptor& d : fw.descriptors)
    n.push_back(std::string(d.type_name) + (d.aux ? "(aux)" : ""));
  return n;
}

// The region a signed blob names; "" when it has no signature.
std::string region_of(std::span<const uint8_t> bytes) {
  const auto sig = sim_blob_signature(bytes);
  return sig ? sig->region : std::string();
}

FirmwareInfo parse(const SimFirmwareFile& f, const ParseOptions& opt = {}) {
  auto r = parse_firmware(f.kind, f.bytes, f.name, opt);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? std::move(*r) : FirmwareInfo{};
}

TEST(SimFirmware, ProfilesIpVersions) {
  auto check = [](uint32_t gc, AmFirmwareIps want) {
    auto ips = sim_firmware_ips(gc);
    ASSERT_TRUE(ips.ok()) << ips.error().to_string();
    EXPECT_EQ(ips->mp0, want.mp0) << gc;
    EXPECT_EQ(ips->mp1, want.mp1) << gc;
    EXPECT_EQ(ips->sdma0, want.sdma0) << gc;
    EXPECT_EQ(ips->gc, want.gc) << gc;
  };
  check(110000, {{13, 0, 0}, {13, 0, 0}, {6, 0, 0}, {11, 0, 0}});
  check(120001, {{14, 0, 3}, {14, 0, 3}, {7, 0, 1}, {12, 0, 1}});
  check(90403, {{13, 0, 6}, {13, 0, 6}, {4, 4, 2}, {9, 4, 3}});
  EXPECT_EQ(sim_firmware_ips(100300).error().code(), Errc::kUnsupported);
}

TEST(SimFirmware, EveryFileParsesInAmFirmwareNamesOrder) {
  for (uint32_t gc : kProfiles) {
    SCOPED_TRACE(gc);
    const AmFirmwareIps ips = *sim_firmware_ips(gc);
    const auto names = am_firmware_names(ips);
    ASSERT_TRUE(names.ok()) << names.error().to_string();
    auto pkg = sim_firmware_package(ips);
    ASSERT_TRUE(pkg.ok()) << pkg.error().to_string();
    ASSERT_EQ(pkg->size(), names->size());
    for (size_t i = 0; i < names->size(); ++i) {
      const SimFirmwareFile& f = (*pkg)[i];
      SCOPED_TRACE(f.name);
      EXPECT_EQ(f.name, (*names)[i].name + ".bin");
      EXPECT_EQ(f.kind, (*names)[i].kind);
      EXPECT_EQ(*classify_firmware(f.name), f.kind);
      EXPECT_LT(f.bytes.size(), 8192u);  // small: a few hundred bytes per region
      const FirmwareInfo fw = parse(f);
      ASSERT_FALSE(fw.blobs.empty());
      // Every file carries the CRC-32 of [32, size), verified where the kind promises it.
      EXPECT_NE(fw.crc32_check, Crc32Check::kNotChecked);
      for (const FirmwareBlob& b : fw.blobs) {
        SCOPED_TRACE(b.name);
        const auto sig = sim_blob_signature(b.bytes);
        ASSERT_TRUE(sig.has_value());
        EXPECT_EQ(sig->file, f.name);
        EXPECT_EQ(sig->region, b.name);
        EXPECT_GE(b.size, 0x100u);
      }
    }
  }
}

struct Expected {
  const char* file;
  const char* version;
  Names blobs;
};

TEST(SimFirmware, HeaderVersionsAndBlobSets) {
  const Expected all[] = {
      {"psp_13_0_0_sos.bin", "2.0", {"KDB", "SPL", "SYS_DRV", "SOS", "TOC", "RL"}},
      {"smu_13_0_0.bin", "2.1", {"SMU"}},
      {"sdma_6_0_0.bin", "2.0", {"SDMA_UCODE_TH0", "SDMA_UCODE_TH1"}},
      {"gc_11_0_0_mec.bin", "2.0", {"RS64_MEC", "RS64_MEC_P0_STACK"}},
      {"gc_11_0_0_imu.bin", "1.0", {"IMU_I", "IMU_D"}},
      {"gc_11_0_0_rlc.bin",
       "2.3",
       {"RLC_RESTORE_LIST_GPM_MEM", "RLC_RESTORE_LIST_SRM_MEM", "RLC_IRAM", "RLC_DRAM_BOOT",
        "RLC_P", "RLC_V", "RLC_G"}},
      {"psp_14_0_3_sos.bin",
       "2.0",
       {"KDB", "SPL", "SYS_DRV", "SOC_DRV", "INTF_DRV", "DBG_DRV", "RAS_DRV", "IPKEYMGR_DRV", "SOS",
        "TOC", "RL"}},
      {"smu_14_0_3.bin", "2.0", {"SMU"}},
      {"sdma_7_0_1.bin", "3.0", {"SDMA_UCODE_TH0"}},
      {"gc_12_0_1_pfp.bin", "2.0", {"RS64_PFP", "RS64_PFP_P0_STACK"}},
      {"gc_12_0_1_me.bin", "2.0", {"RS64_ME", "RS64_ME_P0_STACK"}},
      {"gc_12_0_1_mec.bin", "2.0", {"RS64_MEC", "RS64_MEC_P0_STACK"}},
      {"gc_12_0_1_imu.bin", "1.0", {"IMU_I", "IMU_D"}},
      {"gc_12_0_1_rlc.bin",
       "2.2",
       {"RLC_RESTORE_LIST_GPM_MEM", "RLC_RESTORE_LIST_SRM_MEM", "RLC_IRAM", "RLC_DRAM_BOOT",
        "RLC_G"}},
      {"psp_13_0_6_sos.bin",
       "2.1",
       {"KDB", "SYS_DRV", "SOC_DRV", "INTF_DRV", "DBG_DRV", "RAS_DRV", "SOS", "RL"}},
      {"smu_13_0_6.bin", "2.1", {"P2S_TABLE"}},
      {"sdma_4_4_2.bin", "1.0", {"SDMA0"}},
      {"gc_9_4_3_mec.bin", "1.0", {"CP_MEC", "CP_MEC_ME1"}},
      {"gc_9_4_3_rlc.bin",
       "2.1",
       {"RLC_RESTORE_LIST_SRM_CNTL", "RLC_RESTORE_LIST_GPM_MEM", "RLC_RESTORE_LIST_SRM_MEM",
        "RLC_G"}},
  };
  std::vector<std::string> seen;
  for (const Expected& e : all) {
    SCOPED_TRACE(e.file);
    auto f = sim_firmware_file(e.file);
    ASSERT_TRUE(f.ok()) << f.error().to_string();
    const FirmwareInfo fw = parse(*f);
    EXPECT_EQ(fw.header_version(), e.version);
    EXPECT_EQ(blob_names(fw), e.blobs);
    for (const FirmwareBlob& b : fw.blobs) {
      if (b.name.starts_with("RS64_")) {
        EXPECT_EQ(fw.entry_point, 0x0007000000003000ull);
      }
    }
    seen.push_back(e.file);
  }
  EXPECT_EQ(seen, sim_firmware_names());

  // The layouts behind those blob lists: descriptors, pptables, the aux set.
  const SimFirmwareFile sos_file = *sim_firmware_file("psp_13_0_0_sos");
  const FirmwareInfo sos = parse(sos_file);
  EXPECT_EQ(descriptor_names(sos),
            (std::vector<std::string>{"SYS_DRV", "SOS", "TOC", "KDB", "SPL", "RL"}));
  const SimFirmwareFile smu_file = *sim_firmware_file("smu_13_0_0");
  const FirmwareInfo smu = parse(smu_file);
  ASSERT_EQ(smu.pptables.size(), 6u);
  EXPECT_EQ(smu.pptables[0].id, 0xe50u);
  EXPECT_FALSE(smu.pptables[5].p2s);
  EXPECT_EQ(smu.smu_start_addr, 0x20000u);
  const SimFirmwareFile p2s_file = *sim_firmware_file("smu_13_0_6");
  const FirmwareInfo p2s = parse(p2s_file);
  EXPECT_EQ(p2s.header.ucode_size_bytes, 0u);  // no SMU image on MI300
  ASSERT_EQ(p2s.pptables.size(), 3u);
  EXPECT_TRUE(p2s.pptables[0].p2s && p2s.pptables[1].p2s && p2s.pptables[2].p2s);
  const SimFirmwareFile mi300_sos = *sim_firmware_file("psp_13_0_6_sos.bin");
  const FirmwareInfo main = parse(mi300_sos);
  EXPECT_EQ(main.aux_index, 8u);
  EXPECT_EQ(main.descriptors.size(), 16u);
  EXPECT_EQ(main.header.ucode_array_offset_bytes, 0x200u);  // 16 descriptors do not fit in 0x100
  ParseOptions aux;
  aux.sos_aux = true;
  const FirmwareInfo a = parse(mi300_sos, aux);
  EXPECT_EQ(region_of(a.find_blob("SOS")->bytes), "SOS(aux)");
  EXPECT_EQ(region_of(main.find_blob("SOS")->bytes), "SOS");
}

TEST(SimFirmware, SignaturesOfTheOtherRegions) {
  const SimFirmwareFile smu_file = *sim_firmware_file("smu_13_0_0");
  const FirmwareInfo smu = parse(smu_file);
  for (const Pptable& t : smu.pptables)
    EXPECT_EQ(region_of(t.bytes), strformat("PPTABLE_0x%08x", t.id));
  const SimFirmwareFile p2s_file = *sim_firmware_file("smu_13_0_6");
  const FirmwareInfo p2s = parse(p2s_file);
  EXPECT_EQ(region_of(p2s.find_pptable(0x50325341)->bytes), "PPTABLE_0x50325341");
  EXPECT_EQ(region_of(p2s.find_blob("P2S_TABLE")->bytes), "P2S_TABLE");
  // The builders' own images are unsigned; junk is no signature.
  const FirmwareBytes plain = gfx_v2_image({});
  EXPECT_FALSE(sim_blob_signature(std::span(plain).subspan(0x100)).has_value());
  auto sig_of = [](const std::string& s) {
    return sim_blob_signature(std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  };
  EXPECT_FALSE(sig_of("x.bin:SOS").has_value());  // no NUL
  for (const char* s : {"", "x.bin:", ".bin:SOS", "nope:SOS", "a b.bin:SOS", "x.bin:S\tS"})
    EXPECT_FALSE(sig_of(std::string(s) + '\0').has_value()) << s;
  const std::string good("x.bin:SOS\0tail", 14);
  const auto sig = sig_of(good);
  ASSERT_TRUE(sig.has_value());
  EXPECT_EQ(sig->file, "x.bin");
  EXPECT_EQ(sig->region, "SOS");
}

TEST(SimFirmware, UnknownFilesAndIps) {
  auto f = sim_firmware_file("gc_10_3_0_mec");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), Errc::kUnsupported);
  EXPECT_NE(f.error().message().find("psp_13_0_0_sos"), std::string::npos) << f.error().message();
  auto p = sim_firmware_package(AmFirmwareIps{{13, 0, 7}, {13, 0, 7}, {6, 0, 2}, {11, 0, 2}});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("psp_13_0_7_sos"), std::string::npos) << p.error().message();
  EXPECT_EQ(sim_firmware_package(AmFirmwareIps{{11, 0, 0}, {11, 0, 0}, {5, 0, 0}, {10, 3, 0}})
                .error()
                .code(),
            Errc::kUnsupported);
}

TEST(SimFirmware, PackageBuiltOncePerProcess) {
  const SimFirmwareFile* first = sim_firmware_package(110000)->data();
  std::vector<const SimFirmwareFile*> got(8);
  std::vector<std::string> dirs(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      got[i] = sim_firmware_package(110000)->data();
      dirs[i] = *sim_firmware_dir();
    });
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], first);
    EXPECT_EQ(dirs[i], dirs[0]);
  }
  EXPECT_NE(sim_firmware_package(120001)->data(), first);
  EXPECT_EQ(sim_firmware_package(*sim_firmware_ips(120001))->data(),
            sim_firmware_package(120001)->data());
}

TEST(SimFirmwareDir, LoadsThroughFirmwareLoader) {
  auto dir = sim_firmware_dir();
  ASSERT_TRUE(dir.ok()) << dir.error().to_string();
  EXPECT_TRUE(fs::is_directory(*dir));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(*dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  std::vector<std::string> want = sim_firmware_names();
  std::sort(want.begin(), want.end());
  EXPECT_EQ(files, want);
  const FirmwareLoader loader({*dir});
  for (uint32_t gc : kProfiles) {
    SCOPED_TRACE(gc);
    auto set = load_am_firmware(loader, *sim_firmware_ips(gc));
    ASSERT_TRUE(set.ok()) << set.error().to_string();
    const auto pkg = *sim_firmware_package(gc);
    ASSERT_EQ(set->files.size(), pkg.size());
    for (size_t i = 0; i < pkg.size(); ++i) {
      EXPECT_EQ(set->files[i].image.name, pkg[i].name);
      EXPECT_EQ(set->files[i].image.bytes, pkg[i].bytes);
      EXPECT_EQ(set->files[i].image.sha256, sha256_hex(pkg[i].bytes));
    }
  }
  // A forked child that exits leaves the parent's directory alone.
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) std::exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(fs::is_directory(*dir));
}

// Run by RemovedWhenItsProcessExits in a child process: writes its directory's path to
// $SIM_FIRMWARE_TEST_OUT.
TEST(SimFirmwareDir, DISABLED_ChildWritesItsPath) {
  const char* out = std::getenv("SIM_FIRMWARE_TEST_OUT");
  if (out == nullptr) GTEST_SKIP() << "run by SimFirmwareDir.RemovedWhenItsProcessExits";
  std::ofstream(out) << *sim_firmware_dir();
}

TEST(SimFirmwareDir, RemovedWhenItsProcessExits) {
  const fs::path out = fs::temp_directory_path() /
                       ("rawgpu-sim-firmware-test-" + std::to_string(::getpid()) + ".txt");
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string cmd = "SIM_FIRMWARE_TEST_OUT='" + out.string() + "' '" + self +
                          "' --gtest_also_run_disabled_tests "
                          "--gtest_filter=SimFirmwareDir.DISABLED_ChildWritesItsPath >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string child_dir;
  std::ifstream(out) >> child_dir;
  fs::remove(out);
  ASSERT_FALSE(child_dir.empty());
  EXPECT_NE(child_dir, *sim_firmware_dir());
  EXPECT_FALSE(fs::exists(child_dir)) << child_dir;
}

// --- against the real files ---------------------------------------------------------------------

std::string firmware_dir() {
  const char* d = std::getenv("RAWGPU_FIRMWARE_DIR");
  if (!d || !fs::is_directory(fs::path(d) / "amdgpu")) return {};
  return (fs::path(d) / "amdgpu").string();
}

TEST(SimFirmwareReal, HeadersMatchTheRealFiles) {
  const std::string dir = firmware_dir();
  if (dir.empty())
    GTEST_SKIP() << "SKIPPED: RAWGPU_FIRMWARE_DIR does not name a firmware cache with amdgpu/ "
                    "(autogen/rawgpu-autogen fetch extracts firmware-amd-graphics into "
                    "<upstream>/firmware; scripts/test.sh --upstream)";
  const FirmwareLoader loader({dir});
  ParseOptions aux;
  aux.sos_aux = true;
  for (uint32_t gc : kProfiles) {
    const auto pkg = sim_firmware_package(gc);
    ASSERT_TRUE(pkg.ok()) << pkg.error().to_string();
    for (const SimFirmwareFile& f : *pkg) {
      SCOPED_TRACE(f.name);
      auto img = loader.load(f.name);
      ASSERT_TRUE(img.ok()) << img.error().to_string();
      for (const ParseOptions& opt : {ParseOptions{}, aux}) {
        auto real = parse_firmware(f.kind, img->bytes, f.name, opt);
        ASSERT_TRUE(real.ok()) << real.error().to_string();
        const FirmwareInfo sim = parse(f, opt);
        EXPECT_EQ(sim.header_version(), real->header_version());
        EXPECT_EQ(sim.header.header_size_bytes, real->header.header_size_bytes);
        EXPECT_EQ(sim.header.ucode_array_offset_bytes, real->header.ucode_array_offset_bytes);
        EXPECT_EQ(sim.header.ip_version_major, real->header.ip_version_major);
        EXPECT_EQ(sim.header.ip_version_minor, real->header.ip_version_minor);
        EXPECT_EQ(sim.feature_version, real->feature_version);
        EXPECT_EQ(blob_names(sim), blob_names(*real));
        EXPECT_EQ(descriptor_names(sim), descriptor_names(*real));
        EXPECT_EQ(sim.aux_index, real->aux_index);
        EXPECT_EQ(sim.entry_point, real->entry_point);
        EXPECT_EQ(sim.smu_start_addr, real->smu_start_addr);
        EXPECT_EQ(sim.header.ucode_size_bytes == 0, real->header.ucode_size_bytes == 0);
        ASSERT_EQ(sim.pptables.size(), real->pptables.size());
        for (size_t i = 0; i < sim.pptables.size(); ++i) {
          EXPECT_EQ(sim.pptables[i].id, real->pptables[i].id);
          EXPECT_EQ(sim.pptables[i].p2s, real->pptables[i].p2s);
        }
      }
    }
  }
}

}  // namespace
