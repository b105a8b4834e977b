// Firmware header smoke test: the generated amdgpu_ucode.h structs parse every PSP sOS, SMU,
// SDMA, MEC, RLC and IMU file of firmware-amd-graphics (bookworm-backports) for the supported
// ASICs. The files themselves are the oracle: each declares its header size and the extents of
// its payloads, which must agree with the generated struct sizes and the file size. (The full
// parsers belong to the AM driver.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "rawgpu/autogen/amd/ucode.h"

namespace {

namespace fs = std::filesystem;
using namespace rawgpu::autogen::amd::ucode;

template <class T>
T load(const std::vector<uint8_t>& d, size_t off = 0) {
  T t;
  EXPECT_LE(off + sizeof(T), d.size());
  std::memset(static_cast<void*>(&t), 0, sizeof t);
  if (off + sizeof(T) <= d.size()) std::memcpy(static_cast<void*>(&t), d.data() + off, sizeof t);
  return t;
}

bool in_file(uint64_t off, uint64_t size, const std::vector<uint8_t>& d) {
  return off + size <= d.size();
}

void check_file(const std::string& name, const std::vector<uint8_t>& d) {
  SCOPED_TRACE(name);
  ASSERT_GE(d.size(), sizeof(common_firmware_header));
  const auto h = load<common_firmware_header>(d);
  EXPECT_EQ(h.size_bytes, d.size());
  EXPECT_TRUE(in_file(h.ucode_array_offset_bytes, h.ucode_size_bytes, d));
  const unsigned maj = h.header_version_major, min = h.header_version_minor;
  const uint64_t arr = h.ucode_array_offset_bytes;
  auto expect_header = [&](size_t struct_size) {
    EXPECT_EQ(h.header_size_bytes, struct_size) << "v" << maj << "." << min;
    EXPECT_LE(struct_size, arr);
  };
  if (name.find("_imu.bin") != std::string::npos) {
    ASSERT_EQ(maj, 1u);
    expect_header(sizeof(imu_firmware_header_v1_0));
    const auto x = load<imu_firmware_header_v1_0>(d);
    EXPECT_TRUE(
        in_file(arr, uint64_t{x.imu_iram_ucode_size_bytes} + x.imu_dram_ucode_size_bytes, d));
  } else if (name.find("_mec.bin") != std::string::npos) {
    if (maj == 1) {
      expect_header(sizeof(gfx_firmware_header_v1_0));
      const auto x = load<gfx_firmware_header_v1_0>(d);
      EXPECT_LE(uint64_t{x.jt_offset} * 4 + uint64_t{x.jt_size} * 4, h.ucode_size_bytes);
    } else {
      ASSERT_EQ(maj, 2u);
      expect_header(sizeof(gfx_firmware_header_v2_0));
      const auto x = load<gfx_firmware_header_v2_0>(d);
      EXPECT_TRUE(in_file(arr, x.ucode_size_bytes, d));
      EXPECT_TRUE(in_file(x.data_offset_bytes, x.data_size_bytes, d));
      EXPECT_GT(x.data_size_bytes, 0u);
    }
  } else if (name.find("_rlc.bin") != std::string::npos) {
    ASSERT_EQ(maj, 2u);
    const size_t sizes[] = {sizeof(rlc_firmware_header_v2_0), sizeof(rlc_firmware_header_v2_1),
                            sizeof(rlc_firmware_header_v2_2), sizeof(rlc_firmware_header_v2_3),
                            sizeof(rlc_firmware_header_v2_4)};
    ASSERT_LT(min, 5u);
    expect_header(sizes[min]);
    if (min >= 1) {
      const auto x = load<rlc_firmware_header_v2_1>(d);
      EXPECT_TRUE(
          in_file(x.save_restore_list_gpm_offset_bytes, x.save_restore_list_gpm_size_bytes, d));
      EXPECT_TRUE(
          in_file(x.save_restore_list_srm_offset_bytes, x.save_restore_list_srm_size_bytes, d));
    }
    if (min >= 2) {
      const auto x = load<rlc_firmware_header_v2_2>(d);
      EXPECT_TRUE(in_file(x.rlc_iram_ucode_offset_bytes, x.rlc_iram_ucode_size_bytes, d));
      EXPECT_TRUE(in_file(x.rlc_dram_ucode_offset_bytes, x.rlc_dram_ucode_size_bytes, d));
    }
  } else if (name.find("_sos.bin") != std::string::npos) {
    ASSERT_EQ(maj, 2u);
    uint32_t count = 0;
    size_t descs = 0;
    if (min == 0) {
      expect_header(sizeof(psp_firmware_header_v2_0));
      count = load<psp_firmware_header_v2_0>(d).psp_fw_bin_count;
      descs = offsetof(psp_firmware_header_v2_0, psp_fw_bin);
    } else {
      ASSERT_EQ(min, 1u);
      expect_header(sizeof(psp_firmware_header_v2_1));
      const auto x = load<psp_firmware_header_v2_1>(d);
      count = x.psp_fw_bin_count;
      EXPECT_LT(x.psp_aux_fw_bin_index, count);
      descs = offsetof(psp_firmware_header_v2_1, psp_fw_bin);
    }
    EXPECT_GE(count, 4u);
    EXPECT_LE(descs + count * sizeof(psp_fw_bin_desc), arr);
    for (uint32_t i = 0; i < count; ++i) {
      const auto b = load<psp_fw_bin_desc>(d, descs + i * sizeof(psp_fw_bin_desc));
      EXPECT_TRUE(in_file(arr + b.offset_bytes, b.size_bytes, d)) << "descriptor " << i;
      EXPECT_GT(b.size_bytes, 0u) << "descriptor " << i;
    }
  } else if (name.rfind("smu_", 0) == 0) {
    ASSERT_EQ(maj, 2u);
    if (min == 0) {
      expect_header(sizeof(smc_firmware_header_v2_0));
      const auto x = load<smc_firmware_header_v2_0>(d);
      EXPECT_TRUE(in_file(x.ppt_offset_bytes, x.ppt_size_bytes, d));
    } else {
      ASSERT_EQ(min, 1u);
      expect_header(sizeof(smc_firmware_header_v2_1));
      const auto x = load<smc_firmware_header_v2_1>(d);
      EXPECT_GE(x.pptable_count, 1u);
      for (uint32_t i = 0; i < x.pptable_count; ++i) {
        const auto e = load<smc_soft_pptable_entry>(
            d, x.pptable_entry_offset + i * sizeof(smc_soft_pptable_entry));
        EXPECT_TRUE(in_file(e.ppt_offset_bytes, e.ppt_size_bytes, d)) << "pptable " << i;
      }
    }
  } else if (name.rfind("sdma_", 0) == 0) {
    if (maj == 1) {
      expect_header(min == 0 ? sizeof(sdma_firmware_header_v1_0)
                             : sizeof(sdma_firmware_header_v1_1));
    } else if (maj == 2) {
      expect_header(sizeof(sdma_firmware_header_v2_0));
      const auto x = load<sdma_firmware_header_v2_0>(d);
      EXPECT_TRUE(in_file(arr, x.ctx_ucode_size_bytes, d));
      EXPECT_TRUE(in_file(x.ctl_ucode_offset, x.ctl_ucode_size_bytes, d));
    } else {
      ASSERT_EQ(maj, 3u);
      expect_header(sizeof(sdma_firmware_header_v3_0));
      const auto x = load<sdma_firmware_header_v3_0>(d);
      EXPECT_TRUE(in_file(arr, x.ucode_size_bytes, d));
    }
  } else {
    ADD_FAILURE() << "unexpected file";
  }
}

TEST(AutogenFirmware, HeadersParseEveryFile) {
  const char* dir = std::getenv("RAWGPU_FIRMWARE_DIR");
  if (!dir || !fs::is_directory(fs::path(dir) / "amdgpu"))
    GTEST_SKIP() << "no firmware cache (autogen/rawgpu-autogen fetch extracts "
                    "firmware-amd-graphics into <upstream>/firmware)";
  const std::regex pat(
      "((gc_9_4_3|gc_11_0_[0-9]|gc_12_0_[0-9])_(mec|rlc|imu)|psp_(13_0_[0-9]+|14_0_[0-9])_sos|"
      "smu_(13_0_[0-9]+|14_0_[0-9])|sdma_(4_4_2|6_0_[0-9]|7_0_[0-9]))\\.bin");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "amdgpu"))
    if (std::regex_match(e.path().filename().string(), pat)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // gfx1100/1101/1102/1200/1201/942: at least sos+smu+sdma+mec+rlc per ASIC.
  EXPECT_GE(files.size(), 30u);
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::vector<uint8_t> d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    check_file(p.filename().string(), d);
  }
}

}  // namespace
