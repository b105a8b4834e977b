// AMD firmware loader and header parsers (drivers/amd/firmware.h).
//
// Synthetic images (the builders of sim/firmware_images.h, on the generated ucode.h structs) run
// everywhere: every kind and header version, truncation at every length, fields past the end,
// overflowing offset + size, unknown versions, counts that cannot fit, overlaps, the crc32
// check, zstd good/corrupt, the loader's search and its missing-file message, the AM file set. The
// real files of Debian's firmware-amd-graphics (RAWGPU_FIRMWARE_DIR=<upstream>/firmware, as
// tests/autogen) are checked against amd.md §4.1 when present, and visibly SKIPPED otherwise.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "rawgpu/drivers/amd/firmware.h"
#include "rawgpu/sim/firmware_images.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::drivers::amd;
namespace uc = rawgpu::autogen::amd::ucode;
namespace psp = rawgpu::autogen::amd::psp;
namespace fs = std::filesystem;
namespace sim = rawgpu::sim;
using Bytes = std::vector<uint8_t>;

// --- synthetic images (the builders of sim/firmware_images.h) -----------------------------------

// Bitwise CRC-32 (zlib polynomial): an oracle independent of the parser's and the builders'.
uint32_t crc32_of(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

template <class T>
T get(const Bytes& b, size_t off = 0) {
  T t;
  std::memcpy(&t, b.data() + off, sizeof(T));
  return t;
}
template <class T>
void put(Bytes& b, size_t off, const T& t) {
  std::memcpy(b.data() + off, &t, sizeof(T));
}

// size_bytes = the image, crc32 = CRC-32 of [32, end).
void finish(Bytes& b) { sim::finish_firmware(b); }

// Edits the header struct H in place and refreshes size_bytes/crc32.
template <class H>
Bytes with(Bytes b, const std::function<void(H&)>& edit) {
  auto h = get<H>(b);
  edit(h);
  put(b, 0, h);
  finish(b);
  return b;
}

// Every image has its ucode array at 0x100.
Bytes gfx_v2() {  // RS64 MEC: code 0x400 at 0x100, stack 0x200 at 0x500
  sim::GfxV2Spec s;
  s.feature = 29;
  s.code_bytes = 0x400;
  s.data_bytes = 0x200;
  s.entry_point = 0x0007000000003000;
  return sim::gfx_v2_image(s);
}
Bytes gfx_v1() {  // F32 MEC: 0x440 bytes of ucode whose last 0x40 are the jump table
  sim::GfxV1Spec s;
  s.feature = 50;
  s.code_bytes = 0x400;
  s.jt_dwords = 0x10;
  return sim::gfx_v1_image(s);
}
Bytes imu_v1() {  // IRAM 0x200 at 0x100, DRAM 0x200 at 0x300
  sim::ImuV1Spec s;
  s.iram_bytes = s.dram_bytes = 0x200;
  return sim::imu_v1_image(s);
}
Bytes sdma_v1() {  // 0x300 bytes, jump table at dword 0x80
  sim::SdmaV1Spec s;
  s.feature = 44;
  s.ucode_bytes = 0x300;
  s.jt_offset = 0x80;
  s.jt_size = 0x10;
  return sim::sdma_v1_image(s);
}
Bytes sdma_v2() {  // TH0 0x200 at 0x100, TH1 0x100 at 0x300
  sim::SdmaV2Spec s;
  s.feature = 60;
  s.ctx_bytes = 0x200;
  s.ctx_jt_offset = 0x40;
  s.ctx_jt_size = 0x10;
  s.ctl_bytes = 0x100;
  return sim::sdma_v2_image(s);
}
Bytes sdma_v3() {  // TH0 0x200 at 0x100
  sim::SdmaV3Spec s;
  s.ucode_bytes = 0x200;
  return sim::sdma_v3_image(s);
}
// RLC v2.4: RLC_G 0x100 at 0x100, the register lists at 0x200 and 0x240, then every restore
// list, RAM and tap delay region from 0x280, 0x40 each.
Bytes rlc_v24() {
  sim::RlcV2Spec s;
  s.minor = 4;
  s.feature = 1;
  s.rlc_g_bytes = 0x100;
  return sim::rlc_v2_image(s);  // every other region: 0x40
}
Bytes mes_v1() {  // code 0x200 at 0x100, data 0x100 at 0x300
  sim::MesV1Spec s;
  s.code_bytes = 0x200;
  s.data_bytes = 0x100;
  s.code_start = 0xfffffffff0005000;
  s.data_start = 0xfffffffff0100000;
  return sim::mes_v1_image(s);
}

// PSP SOS v2.0/v2.1 or TA v2.0 with descriptors {type, offset, size} after the header; ucode
// array at 0x100. (TA v2.0 has the SOS v2.0 layout: a count, then the descriptors.)
Bytes psp_v2(int minor, const std::vector<sim::PspBin>& descs, uint32_t aux = 0) {
  return sim::psp_v2_image(static_cast<uint16_t>(minor), descs, aux);
}
Bytes sos_v20() {  // the gfx1100 layout: SYS_DRV, SOS, TOC, KDB, SPL, RL
  return psp_v2(0, {{2, 0, 0x100},
                    {1, 0x100, 0x100},
                    {4, 0x200, 0x40},
                    {3, 0x240, 0x40},
                    {5, 0x280, 0x40},
                    {6, 0x2c0, 0x40}});
}
Bytes sos_v21() {  // main [SYS_DRV, SOS, KDB], aux [SYS_DRV, SOS, KDB]
  return psp_v2(1,
                {{2, 0, 0x40},
                 {1, 0x40, 0x40},
                 {3, 0x80, 0x40},
                 {2, 0xc0, 0x40},
                 {1, 0x100, 0x40},
                 {3, 0x140, 0x40}},
                3);
}
Bytes ta_v2() { return psp_v2(0, {{1, 0, 0x80}, {3, 0x80, 0x40}, {8, 0xc0, 0x40}}); }
Bytes sos_v1() {  // SYS_DRV 0x100 at 0x100, SOS 0x100 at 0x200
  sim::PspV1Spec s;
  s.sys_drv_bytes = s.sos_bytes = 0x100;
  s.sos_version = 7;
  return sim::psp_v1_image(s);
}
Bytes toc_v1() { return sim::single_blob_image(0x80); }
Bytes smc_v20() {  // the SMU image 0x100 at 0x100, the pptable 0x80 at 0x200
  sim::SmcV20Spec s;
  s.start_addr = 0x20000;
  s.image_bytes = 0x100;
  s.pptable_bytes = 0x80;
  return sim::smc_v20_image(s);
}
// SMC v2.1: the SMU image, three entries at 0x100 + ucode_size, tables P2SA, P2SX, 0xe50 at
// 0x240, 0x280, 0x2c0 (with the 0x100-byte image).
Bytes smc_v21(uint32_t ucode_size = 0x100) {
  sim::SmcV21Spec s;
  s.start_addr = 0x20000;
  s.image_bytes = ucode_size;
  s.tables = {{0x50325341, 0x40}, {0x50325358, 0x40}, {0xe50, 0x40}};
  s.table_align = 0x40;
  return sim::smc_v21_image(s);
}

struct Synth {
  const char* name;
  FirmwareKind kind;
  Bytes (*build)();
};
const Synth kSynth[] = {
    {"sos_v20.bin", FirmwareKind::kPspSos, sos_v20},
    {"sos_v21.bin", FirmwareKind::kPspSos, sos_v21},
    {"sos_v1.bin", FirmwareKind::kPspSos, sos_v1},
    {"ta_v2.bin", FirmwareKind::kPspTa, ta_v2},
    {"toc_v1.bin", FirmwareKind::kPspToc, toc_v1},
    {"smc_v20.bin", FirmwareKind::kSmc, smc_v20},
    {"smc_v21.bin", FirmwareKind::kSmc, [] { return smc_v21(); }},
    {"sdma_v1.bin", FirmwareKind::kSdma, sdma_v1},
    {"sdma_v2.bin", FirmwareKind::kSdma, sdma_v2},
    {"sdma_v3.bin", FirmwareKind::kSdma, sdma_v3},
    {"gfx_v1_mec.bin", FirmwareKind::kGfxMec, gfx_v1},
    {"gfx_v2_mec.bin", FirmwareKind::kGfxMec, gfx_v2},
    {"gfx_v2_pfp.bin", FirmwareKind::kGfxPfp, gfx_v2},
    {"imu_v1.bin", FirmwareKind::kImu, imu_v1},
    {"rlc_v24.bin", FirmwareKind::kRlc, rlc_v24},
    {"mes_v1.bin", FirmwareKind::kMes, mes_v1},
    {"mes_kiq_v1.bin", FirmwareKind::kMesKiq, mes_v1},
};

std::vector<std::string_view> names(const FirmwareInfo& fw) {
  std::vector<std::string_view> n;
  for (const FirmwareBlob& b : fw.blobs) n.push_back(b.name);
  return n;
}
using Names = std::vector<std::string_view>;

// The parse fails with `code`, and the message names the file and each of `parts`.
void expect_error(const Bytes& b, FirmwareKind kind, Errc code,
                  std::initializer_list<const char*> parts, const ParseOptions& opt = {}) {
  auto r = parse_firmware(kind, b, "synthetic.bin", opt);
  ASSERT_FALSE(r.ok()) << "parsed although it should not";
  EXPECT_EQ(r.error().code(), code) << r.error().to_string();
  const std::string s = r.error().to_string();
  EXPECT_NE(s.find("synthetic.bin"), std::string::npos) << s;
  for (const char* p : parts)
    EXPECT_NE(s.find(p), std::string::npos) << "no '" << p << "' in " << s;
}

// --- synthetic: what each kind produces ---------------------------------------------------------

TEST(AmdFirmwareSynthetic, EveryKindParsesAndBlobsLieInTheFile) {
  for (const Synth& s : kSynth) {
    SCOPED_TRACE(s.name);
    const Bytes b = s.build();
    auto r = parse_firmware(s.kind, b, s.name);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_FALSE(r->blobs.empty());
    for (const FirmwareBlob& blob : r->blobs) {
      EXPECT_GT(blob.size, 0u);
      EXPECT_LE(blob.offset + blob.size, b.size());
      EXPECT_EQ(blob.bytes.data(), b.data() + blob.offset);
      EXPECT_EQ(blob.bytes.size(), blob.size);
    }
  }
}

TEST(AmdFirmwareSynthetic, PspSosV20InBootloaderOrder) {
  auto r = parse_firmware(FirmwareKind::kPspSos, sos_v20(), "x");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(names(*r), (Names{"KDB", "SPL", "SYS_DRV", "SOS", "TOC", "RL"}));
  EXPECT_EQ(r->blobs[0].path, BlobPath::kBootloader);
  EXPECT_EQ(r->blobs[0].component, uc::PSP_FW_TYPE_PSP_KDB);
  EXPECT_EQ(r->find_blob("TOC")->path, BlobPath::kToc);
  EXPECT_EQ(r->find_blob(psp::GFX_FW_TYPE_REG_LIST)->offset, 0x100u + 0x2c0);
  ASSERT_EQ(r->descriptors.size(), 6u);
  EXPECT_EQ(r->descriptors[0].type_name, "SYS_DRV");
  EXPECT_FALSE(r->aux_index.has_value());
  EXPECT_EQ(r->crc32_check, Crc32Check::kVerified);
}

TEST(AmdFirmwareSynthetic, PspSosV21AuxRule) {
  const Bytes b = sos_v21();
  auto main = parse_firmware(FirmwareKind::kPspSos, b, "x");
  ASSERT_TRUE(main.ok()) << main.error().to_string();
  EXPECT_EQ(main->aux_index, 3u);
  EXPECT_FALSE(main->aux_selected);
  EXPECT_EQ(names(*main), (Names{"KDB", "SYS_DRV", "SOS"}));
  EXPECT_EQ(main->find_blob("SOS")->offset, 0x140u);
  ParseOptions aux;
  aux.sos_aux = true;
  auto a = parse_firmware(FirmwareKind::kPspSos, b, "x", aux);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_TRUE(a->aux_selected);
  EXPECT_EQ(a->find_blob("SOS")->offset, 0x200u);
  EXPECT_TRUE(a->descriptors[4].aux && a->descriptors[4].loaded && !a->descriptors[1].loaded);
  // Linux: the aux set only on MP0 13.0.6 with PMFW < 85.115.0.
  EXPECT_TRUE(sos_aux_set_required({13, 0, 6}, 0x557200));
  EXPECT_FALSE(sos_aux_set_required({13, 0, 6}, 0x557300));
  EXPECT_FALSE(sos_aux_set_required({13, 0, 14}, 0x100000));
  // A repeated type inside one set, an aux index past the count, an empty set.
  expect_error(psp_v2(1, {{2, 0, 0x40}, {2, 0x40, 0x40}}, 2), FirmwareKind::kPspSos, Errc::kParse,
               {"descriptors 0 and 1 both have fw_type 2 (SYS_DRV)"});
  expect_error(psp_v2(1, {{2, 0, 0x40}}, 5), FirmwareKind::kPspSos, Errc::kParse,
               {"psp_aux_fw_bin_index 5 is past psp_fw_bin_count 1"});
  expect_error(psp_v2(1, {{2, 0, 0x40}}, 1), FirmwareKind::kPspSos, Errc::kParse,
               {"aux descriptor set [1, 1) is empty"}, aux);
}

TEST(AmdFirmwareSynthetic, OtherPspKinds) {
  auto v1 = parse_firmware(FirmwareKind::kPspSos, sos_v1(), "x");
  ASSERT_TRUE(v1.ok()) << v1.error().to_string();
  EXPECT_EQ(names(*v1), (Names{"SYS_DRV", "SOS"}));
  EXPECT_EQ(v1->blobs[1].offset, 0x200u);
  auto ta = parse_firmware(FirmwareKind::kPspTa, ta_v2(), "x");
  ASSERT_TRUE(ta.ok()) << ta.error().to_string();
  EXPECT_EQ(names(*ta), (Names{"ASD", "RAS"}));  // type 8 is kept as a descriptor, not loaded
  EXPECT_EQ(ta->blobs[0].path, BlobPath::kTa);
  EXPECT_EQ(ta->descriptors[2].type_name, "UNKNOWN");
  EXPECT_FALSE(ta->descriptors[2].loaded);
  auto toc = parse_firmware(FirmwareKind::kPspToc, toc_v1(), "x");
  ASSERT_TRUE(toc.ok()) << toc.error().to_string();
  EXPECT_EQ(toc->blobs.at(0).path, BlobPath::kToc);
  EXPECT_EQ(toc->blobs[0].size, 0x80u);
}

TEST(AmdFirmwareSynthetic, SmcImagePptablesAndP2s) {
  auto r = parse_firmware(FirmwareKind::kSmc, smc_v21(), "x");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(names(*r), (Names{"SMU", "P2S_TABLE"}));
  EXPECT_EQ(r->find_blob(psp::GFX_FW_TYPE_P2S_TABLE)->offset, 0x280u);  // P2SX
  ASSERT_EQ(r->pptables.size(), 3u);
  EXPECT_TRUE(r->pptables[0].p2s);
  EXPECT_FALSE(r->pptables[2].p2s);
  EXPECT_EQ(r->smu_start_addr, 0x20000u);
  ParseOptions apu;
  apu.p2s_table_id = 0x50325341;  // "P2SA"
  EXPECT_EQ(parse_firmware(FirmwareKind::kSmc, smc_v21(), "x", apu)->blobs[1].offset, 0x240u);
  apu.p2s_table_id = 0x50325303;
  expect_error(smc_v21(), FirmwareKind::kSmc, Errc::kNotFound,
               {"no P2S table with id 0x50325303", "0x50325341, 0x50325358"}, apu);
  // MI300's file: no SMU image.
  auto mi300 = parse_firmware(FirmwareKind::kSmc, smc_v21(0), "x");
  ASSERT_TRUE(mi300.ok()) << mi300.error().to_string();
  EXPECT_EQ(names(*mi300), (Names{"P2S_TABLE"}));
  using S0 = uc::smc_firmware_header_v2_0;  // neither an image nor a table: nothing to load
  expect_error(with<S0>(smc_v20(),
                        [](S0& h) {
                          h.v1_0.header.ucode_size_bytes = 0;
                          h.ppt_size_bytes = 0;
                        }),
               FirmwareKind::kSmc, Errc::kParse, {"nothing to load"});
  auto v20 = parse_firmware(FirmwareKind::kSmc, smc_v20(), "x");
  ASSERT_TRUE(v20.ok()) << v20.error().to_string();
  ASSERT_EQ(v20->pptables.size(), 1u);
  EXPECT_EQ(v20->pptables[0].offset, 0x200u);
  EXPECT_EQ(v20->pptables[0].bytes.size(), 0x80u);
}

TEST(AmdFirmwareSynthetic, SdmaGfxImuMes) {
  ParseOptions four;
  four.sdma_instances = 4;
  auto s1 = parse_firmware(FirmwareKind::kSdma, sdma_v1(), "x", four);
  ASSERT_TRUE(s1.ok()) << s1.error().to_string();
  EXPECT_EQ(names(*s1), (Names{"SDMA0", "SDMA1", "SDMA2", "SDMA3"}));
  EXPECT_EQ(s1->blobs[2].gfx_type, psp::GFX_FW_TYPE_SDMA2);
  four.sdma_instances = 9;
  expect_error(sdma_v1(), FirmwareKind::kSdma, Errc::kInvalidArgument, {"sdma_instances 9"}, four);
  auto s2 = parse_firmware(FirmwareKind::kSdma, sdma_v2(), "x");
  ASSERT_TRUE(s2.ok()) << s2.error().to_string();
  EXPECT_EQ(names(*s2), (Names{"SDMA_UCODE_TH0", "SDMA_UCODE_TH1"}));
  EXPECT_EQ(s2->blobs[1].offset, 0x300u);
  EXPECT_EQ(names(*parse_firmware(FirmwareKind::kSdma, sdma_v3(), "x")), Names{"SDMA_UCODE_TH0"});

  auto g2 = parse_firmware(FirmwareKind::kGfxMec, gfx_v2(), "x");
  ASSERT_TRUE(g2.ok()) << g2.error().to_string();
  EXPECT_EQ(names(*g2), (Names{"RS64_MEC", "RS64_MEC_P0_STACK"}));
  EXPECT_EQ(g2->entry_point, 0x0007000000003000ull);
  EXPECT_EQ(g2->feature_version, 29u);
  ParseOptions all;
  all.rs64_all_pipe_stacks = true;
  EXPECT_EQ(names(*parse_firmware(FirmwareKind::kGfxMec, gfx_v2(), "x", all)),
            (Names{"RS64_MEC", "RS64_MEC_P0_STACK", "RS64_MEC_P1_STACK", "RS64_MEC_P2_STACK",
                   "RS64_MEC_P3_STACK"}));
  EXPECT_EQ(names(*parse_firmware(FirmwareKind::kGfxMe, gfx_v2(), "x", all)),
            (Names{"RS64_ME", "RS64_ME_P0_STACK", "RS64_ME_P1_STACK"}));
  auto g1 = parse_firmware(FirmwareKind::kGfxMec, gfx_v1(), "x");
  ASSERT_TRUE(g1.ok()) << g1.error().to_string();
  EXPECT_EQ(names(*g1), (Names{"CP_MEC", "CP_MEC_ME1"}));
  EXPECT_EQ(g1->blobs[0].size, 0x400u);
  EXPECT_EQ(g1->blobs[1].offset, 0x500u);
  EXPECT_EQ(names(*parse_firmware(FirmwareKind::kGfxPfp, gfx_v1(), "x")), Names{"CP_PFP"});

  auto imu = parse_firmware(FirmwareKind::kImu, imu_v1(), "x");
  ASSERT_TRUE(imu.ok()) << imu.error().to_string();
  EXPECT_EQ(names(*imu), (Names{"IMU_I", "IMU_D"}));
  EXPECT_EQ(imu->blobs[1].offset, 0x300u);  // right after IRAM

  auto mes = parse_firmware(FirmwareKind::kMes, mes_v1(), "x");
  ASSERT_TRUE(mes.ok()) << mes.error().to_string();
  EXPECT_EQ(names(*mes), (Names{"CP_MES", "MES_STACK"}));
  EXPECT_EQ(mes->entry_point, 0xfffffffff0005000ull);
  EXPECT_EQ(mes->data_entry_point, 0xfffffffff0100000ull);
  EXPECT_EQ(names(*parse_firmware(FirmwareKind::kMesKiq, mes_v1(), "x")),
            (Names{"CP_MES_KIQ", "MES_KIQ_STACK"}));
}

TEST(AmdFirmwareSynthetic, RlcEveryRegionInPspOrderRlcGLast) {
  auto r = parse_firmware(FirmwareKind::kRlc, rlc_v24(), "x");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(names(*r), (Names{"GLOBAL_TAP_DELAYS", "SE0_TAP_DELAYS", "SE1_TAP_DELAYS",
                              "SE2_TAP_DELAYS", "SE3_TAP_DELAYS", "RLC_RESTORE_LIST_SRM_CNTL",
                              "RLC_RESTORE_LIST_GPM_MEM", "RLC_RESTORE_LIST_SRM_MEM", "RLC_IRAM",
                              "RLC_DRAM_BOOT", "RLC_P", "RLC_V", "RLC_G"}));
  EXPECT_EQ(r->blobs.back().offset, 0x100u);
  EXPECT_EQ(r->crc32_check, Crc32Check::kMatches);  // reported, not promised for RLC
  // An empty optional region is simply absent.
  Bytes b = with<uc::rlc_firmware_header_v2_4>(rlc_v24(), [](auto& h) {
    h.v2_3.rlcv_ucode_size_bytes = 0;
    h.v2_3.v2_2.v2_1.save_restore_list_cntl_size_bytes = 0;
  });
  auto r2 = parse_firmware(FirmwareKind::kRlc, b, "x");
  ASSERT_TRUE(r2.ok()) << r2.error().to_string();
  EXPECT_EQ(r2->find_blob("RLC_V"), nullptr);
  EXPECT_EQ(r2->find_blob(psp::GFX_FW_TYPE_RLC_RESTORE_LIST_SRM_CNTL), nullptr);
  EXPECT_EQ(r2->blobs.size(), 11u);
}

// --- synthetic: malformed inputs ----------------------------------------------------------------

TEST(AmdFirmwareMalformed, TruncatedAtEveryLength) {
  for (const Synth& s : kSynth) {
    SCOPED_TRACE(s.name);
    const Bytes full = s.build();
    for (size_t n = 0; n < full.size(); ++n) {
      Bytes cut(full.begin(), full.begin() + n);
      // As cut: size_bytes disagrees (or there is no header at all).
      auto r = parse_firmware(s.kind, cut, s.name);
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.error().code(), Errc::kParse) << n;
      // With size_bytes patched to the cut length, the deeper checks must catch it.
      if (n >= sizeof(uc::common_firmware_header)) {
        auto h = get<uc::common_firmware_header>(cut);
        h.size_bytes = static_cast<uint32_t>(n);
        put(cut, 0, h);
        auto r2 = parse_firmware(s.kind, cut, s.name);
        ASSERT_FALSE(r2.ok()) << n;
        EXPECT_EQ(r2.error().code(), Errc::kParse) << n << ": " << r2.error().to_string();
        EXPECT_NE(r2.error().message().find(s.name), std::string::npos);
      }
    }
  }
}

TEST(AmdFirmwareMalformed, CommonHeader) {
  using H = uc::common_firmware_header;
  expect_error(Bytes(31), FirmwareKind::kImu, Errc::kParse, {"31 bytes", "common_firmware_header"});
  Bytes longer = imu_v1();
  longer.push_back(0);
  expect_error(longer, FirmwareKind::kImu, Errc::kParse,
               {"size_bytes 0x500 does not match the file size 0x501"});
  expect_error(with<H>(imu_v1(), [](H& h) { h.header_size_bytes = 0x10000; }), FirmwareKind::kImu,
               Errc::kParse, {"header_size_bytes 0x10000"});
  expect_error(with<H>(imu_v1(), [](H& h) { h.ucode_array_offset_bytes = 0xffffffff; }),
               FirmwareKind::kImu, Errc::kParse,
               {"ucode_array_offset_bytes 0xffffffff + ucode_size_bytes 0x400", "runs past"});
  expect_error(with<H>(imu_v1(), [](H& h) { h.ucode_array_offset_bytes = 0x10; }),
               FirmwareKind::kImu, Errc::kParse, {"lies inside the header"});
  expect_error(with<H>(imu_v1(), [](H& h) { h.header_size_bytes = 40; }), FirmwareKind::kImu,
               Errc::kParse, {"header_size_bytes 40 is smaller than imu_firmware_header_v1_0"});
}

TEST(AmdFirmwareMalformed, UnknownVersionsAreUnsupported) {
  using H = uc::common_firmware_header;
  for (const Synth& s : kSynth)  // no kind knows any of these versions
    for (auto [maj, min] : {std::pair{9, 0}, {0, 0}, {1, 7}, {2, 9}, {3, 3}}) {
      SCOPED_TRACE(s.name);
      expect_error(with<H>(s.build(),
                           [&](H& h) {
                             h.header_version_major = static_cast<uint16_t>(maj);
                             h.header_version_minor = static_cast<uint16_t>(min);
                           }),
                   s.kind, Errc::kUnsupported,
                   {strformat("header version %d.%d is not a known", maj, min).c_str()});
    }
  expect_error(with<H>(rlc_v24(), [](H& h) { h.header_version_minor = 5; }), FirmwareKind::kRlc,
               Errc::kUnsupported, {"header version 2.5 is not a known rlc header"});
}

TEST(AmdFirmwareMalformed, FieldsPastTheEndAndOverflow) {
  using G2 = uc::gfx_firmware_header_v2_0;
  expect_error(with<G2>(gfx_v2(), [](G2& h) { h.data_offset_bytes = 0x600; }),
               FirmwareKind::kGfxMec, Errc::kParse,
               {"RS64_MEC_P0_STACK", "data_offset_bytes", "0x600", "0x700 bytes"});
  expect_error(with<G2>(gfx_v2(),
                        [](G2& h) {
                          h.data_offset_bytes = 0xffffffff;
                          h.data_size_bytes = 0xffffffff;
                        }),
               FirmwareKind::kGfxMec, Errc::kParse, {"0x1fffffffe runs past the end"});
  expect_error(with<G2>(gfx_v2(), [](G2& h) { h.ucode_size_bytes = 0; }), FirmwareKind::kGfxMec,
               Errc::kParse, {"RS64_MEC: ucode_size_bytes is 0"});
  using G1 = uc::gfx_firmware_header_v1_0;
  expect_error(with<G1>(gfx_v1(), [](G1& h) { h.jt_size = 0xffffffff; }), FirmwareKind::kGfxMec,
               Errc::kParse, {"jump table", "past ucode_size_bytes"});
  expect_error(with<G1>(gfx_v1(), [](G1& h) { h.jt_offset = 0xf0; }), FirmwareKind::kGfxMec,
               Errc::kParse, {"CP_MEC_ME1", "overlaps CP_MEC"});
  using I = uc::imu_firmware_header_v1_0;
  expect_error(with<I>(imu_v1(), [](I& h) { h.imu_dram_ucode_size_bytes = 0x201; }),
               FirmwareKind::kImu, Errc::kParse,
               {"IMU_D", "ucode_array_offset_bytes + imu_iram_ucode_size_bytes"});
  using S2 = uc::sdma_firmware_header_v2_0;
  expect_error(with<S2>(sdma_v2(), [](S2& h) { h.ctl_ucode_offset = 0x2c0; }), FirmwareKind::kSdma,
               Errc::kParse, {"SDMA_UCODE_TH1", "overlaps SDMA_UCODE_TH0"});
  expect_error(with<S2>(sdma_v2(), [](S2& h) { h.ctx_jt_offset = 0x7f; }), FirmwareKind::kSdma,
               Errc::kParse, {"context jump table", "past ctx_ucode_size_bytes"});
  using R = uc::rlc_firmware_header_v2_4;
  expect_error(
      with<R>(rlc_v24(), [](R& h) { h.v2_3.v2_2.v2_1.save_restore_list_srm_offset_bytes = 0x5c0; }),
      FirmwareKind::kRlc, Errc::kParse,
      {"RLC_RESTORE_LIST_SRM_MEM", "save_restore_list_srm_offset_bytes", "0x5c0"});
  expect_error(with<R>(rlc_v24(), [](R& h) { h.se3_tap_delays_ucode_offset_bytes = 0x120; }),
               FirmwareKind::kRlc, Errc::kParse, {"SE3_TAP_DELAYS", "overlaps RLC_G"});
  expect_error(with<R>(rlc_v24(), [](R& h) { h.v2_3.v2_2.v2_1.v2_0.reg_list_size_bytes = 0x80; }),
               FirmwareKind::kRlc, Errc::kParse, {"overlaps reg_list"});
  using M = uc::mes_firmware_header_v1_0;
  expect_error(with<M>(mes_v1(), [](M& h) { h.mes_ucode_offset_bytes = 0x8; }), FirmwareKind::kMes,
               Errc::kParse, {"CP_MES", "lies inside the header"});
}

TEST(AmdFirmwareMalformed, CountsThatCannotFit) {
  Bytes sos = sos_v20();
  put<uint32_t>(sos, offsetof(uc::psp_firmware_header_v2_0, psp_fw_bin_count), 0xffffffff);
  finish(sos);
  expect_error(sos, FirmwareKind::kPspSos, Errc::kParse,
               {"psp_fw_bin_count 4294967295", "at most 13"});
  Bytes ta = ta_v2();
  put<uint32_t>(ta, offsetof(uc::ta_firmware_header_v2_0, ta_fw_bin_count), 14);
  finish(ta);
  expect_error(ta, FirmwareKind::kPspTa, Errc::kParse, {"ta_fw_bin_count 14"});
  using S = uc::smc_firmware_header_v2_1;
  expect_error(with<S>(smc_v21(), [](S& h) { h.pptable_count = 0x40000000; }), FirmwareKind::kSmc,
               Errc::kParse, {"pptable_count 1073741824", "at most 21"});
  expect_error(with<S>(smc_v21(), [](S& h) { h.pptable_entry_offset = 0xfffffff0; }),
               FirmwareKind::kSmc, Errc::kParse, {"pptable_count 3", "0xfffffff0"});
  // A descriptor past the end, a zero-size descriptor.
  Bytes far = sos_v20();  // descriptor 1 (SOS): offset and size 0xffffffff
  const size_t d1 =
      offsetof(uc::psp_firmware_header_v2_0, psp_fw_bin) + sizeof(uc::psp_fw_bin_desc);
  put<uint32_t>(far, d1 + offsetof(uc::psp_fw_bin_desc, offset_bytes), 0xffffffff);
  put<uint32_t>(far, d1 + offsetof(uc::psp_fw_bin_desc, size_bytes), 0xffffffff);
  finish(far);
  expect_error(far, FirmwareKind::kPspSos, Errc::kParse, {"SOS", "0x2000000fe runs past the end"});
  expect_error(psp_v2(0, {{2, 0, 0x40}, {1, 0x40, 0}}), FirmwareKind::kPspSos, Errc::kParse,
               {"descriptor 1 (SOS): size_bytes is 0"});
  expect_error(psp_v2(0, {{2, 0, 0x80}, {1, 0x40, 0x40}}), FirmwareKind::kPspSos, Errc::kParse,
               {"overlaps"});
}

TEST(AmdFirmwareMalformed, Crc32) {
  Bytes b = gfx_v2();
  b[0x300] ^= 1;  // payload only: structurally fine
  expect_error(b, FirmwareKind::kGfxMec, Errc::kParse,
               {"crc32", "does not match", "[0x20, 0x700)"});
  ParseOptions off;
  off.verify_crc32 = false;
  auto r = parse_firmware(FirmwareKind::kGfxMec, b, "x", off);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->crc32_check, Crc32Check::kNotChecked);
  EXPECT_EQ(r->computed_crc32, crc32_of(b.data() + 32, b.size() - 32));
  // Kinds whose real files do not carry this CRC are not refused for it.
  Bytes rlc = rlc_v24();
  rlc[0x120] ^= 1;
  auto rr = parse_firmware(FirmwareKind::kRlc, rlc, "x");
  ASSERT_TRUE(rr.ok()) << rr.error().to_string();
  EXPECT_EQ(rr->crc32_check, Crc32Check::kNotChecked);
}

// --- names, zstd, loader, the AM set ------------------------------------------------------------

TEST(AmdFirmwareNames, Classify) {
  const std::pair<const char*, FirmwareKind> ok[] = {
      {"psp_13_0_0_sos.bin", FirmwareKind::kPspSos}, {"psp_13_0_10_ta", FirmwareKind::kPspTa},
      {"psp_13_0_4_toc.bin", FirmwareKind::kPspToc}, {"psp_13_0_5_asd.bin", FirmwareKind::kPspAsd},
      {"smu_13_0_0.bin.zst", FirmwareKind::kSmc},    {"/a/b/sdma_6_0_0.bin", FirmwareKind::kSdma},
      {"gc_11_0_0_pfp.bin", FirmwareKind::kGfxPfp},  {"gc_12_0_1_me.bin", FirmwareKind::kGfxMe},
      {"gc_11_0_0_mec.bin", FirmwareKind::kGfxMec},  {"gc_9_4_3_sjt_mec", FirmwareKind::kGfxMec},
      {"gc_11_0_0_imu.bin", FirmwareKind::kImu},     {"gc_11_0_0_rlc_1.bin", FirmwareKind::kRlc},
      {"gc_11_0_0_mes_2.bin", FirmwareKind::kMes},   {"gc_12_0_0_uni_mes", FirmwareKind::kMes},
      {"gc_11_0_0_mes1.bin", FirmwareKind::kMesKiq}, {"gc_12_0_0_toc.bin", FirmwareKind::kGcToc},
  };
  for (const auto& [name, kind] : ok) {
    auto k = classify_firmware(name);
    ASSERT_TRUE(k.ok()) << name << ": " << k.error().to_string();
    EXPECT_EQ(*k, kind) << name;
  }
  for (const char* bad : {"", "navi10_sos.bin", "gc_11_0_mec.bin", "gc_11_0_0_foo.bin",
                          "smu_13_0_0_x.bin", "psp_a_0_0_sos.bin", "vcn_4_0_0.bin"})
    EXPECT_EQ(classify_firmware(bad).error().code(), Errc::kUnsupported) << bad;
  for (FirmwareKind k : kAllFirmwareKinds)
    EXPECT_EQ(*parse_firmware_kind(firmware_kind_name(k)), k);
  EXPECT_EQ(parse_firmware_kind("nope").error().code(), Errc::kInvalidArgument);
  EXPECT_EQ(gfx_fw_type_name(psp::GFX_FW_TYPE_RS64_MEC), "RS64_MEC");
  EXPECT_EQ(psp_fw_type_name(uc::PSP_FW_TYPE_PSP_IPKEYMGR_DRV), "IPKEYMGR_DRV");
}

TEST(AmdFirmwareNames, AmBootFileSets) {
  auto list = [](AmFirmwareIps ips) {
    std::vector<std::string> out;
    const auto requests = am_firmware_names(ips);
    for (const FirmwareRequest& r : *requests) out.push_back(r.name);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(list({{13, 0, 0}, {13, 0, 0}, {6, 0, 0}, {11, 0, 0}}),
            (V{"psp_13_0_0_sos", "smu_13_0_0", "sdma_6_0_0", "gc_11_0_0_mec", "gc_11_0_0_imu",
               "gc_11_0_0_rlc"}));
  EXPECT_EQ(list({{14, 0, 3}, {14, 0, 3}, {7, 0, 1}, {12, 0, 1}}),
            (V{"psp_14_0_3_sos", "smu_14_0_3", "sdma_7_0_1", "gc_12_0_1_pfp", "gc_12_0_1_me",
               "gc_12_0_1_mec", "gc_12_0_1_imu", "gc_12_0_1_rlc"}));
  EXPECT_EQ(list({{13, 0, 6}, {13, 0, 6}, {4, 4, 2}, {9, 4, 3}}),
            (V{"psp_13_0_6_sos", "smu_13_0_6", "sdma_4_4_2", "gc_9_4_3_mec", "gc_9_4_3_rlc"}));
  EXPECT_EQ(list({{13, 0, 10}, {13, 0, 10}, {6, 0, 3}, {11, 0, 3}})[0], "psp_13_0_10_sos");
  EXPECT_EQ(am_firmware_names({{11, 0, 0}, {11, 0, 0}, {5, 0, 0}, {10, 3, 0}}).error().code(),
            Errc::kUnsupported);
}

Bytes zstd_compress(const Bytes& in) {
  Bytes out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

TEST(AmdFirmwareZstd, GoodCorruptTruncatedTooBig) {
  const Bytes raw = rlc_v24();
  const Bytes z = zstd_compress(raw);
  auto back = decompress_zstd(z, "x.zst");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, raw);
  Bytes two = z;  // two concatenated frames
  two.insert(two.end(), z.begin(), z.end());
  EXPECT_EQ(decompress_zstd(two, "x")->size(), 2 * raw.size());
  for (size_t n : {size_t{0}, size_t{3}, size_t{10}, z.size() / 2, z.size() - 1}) {
    auto r = decompress_zstd(std::span(z.data(), n), "cut.zst");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().code(), Errc::kParse) << r.error().to_string();
    EXPECT_NE(r.error().message().find("cut.zst"), std::string::npos);
  }
  Bytes bad = z;
  bad[0] ^= 0xff;  // the magic
  EXPECT_EQ(decompress_zstd(bad, "x").error().code(), Errc::kParse);
  bad = z;
  bad[bad.size() - 2] ^= 0x55;  // the content checksum / last block
  auto corrupt = decompress_zstd(bad, "x");
  EXPECT_FALSE(corrupt.ok() && *corrupt == raw);
  EXPECT_EQ(decompress_zstd(z, "x", 100).error().code(), Errc::kOutOfRange);
  EXPECT_EQ(sha256_hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("abc"), 3)),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("rawgpu-fw-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const Bytes& b) const {
    std::ofstream(path_ / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

TEST(AmdFirmwareLoader, SearchZstdAndMissingFileMessage) {
  TempDir a, b;
  a.write("gc_11_0_0_imu.bin.zst", zstd_compress(imu_v1()));
  b.write("gc_11_0_0_imu.bin", sdma_v1());
  FirmwareLoader loader({a.path().string(), b.path().string()});
  auto img = loader.load("gc_11_0_0_imu");  // the first directory wins
  ASSERT_TRUE(img.ok()) << img.error().to_string();
  EXPECT_TRUE(img->compressed);
  EXPECT_EQ(img->name, "gc_11_0_0_imu.bin");
  EXPECT_EQ(img->bytes, imu_v1());
  EXPECT_EQ(img->sha256, sha256_hex(imu_v1()));
  EXPECT_EQ(img->sha256.size(), 64u);
  auto other = loader.load("gc_11_0_0_imu.bin", b.path().string());  // an explicit directory
  ASSERT_TRUE(other.ok()) << other.error().to_string();
  EXPECT_FALSE(other->compressed);
  EXPECT_EQ(other->bytes, sdma_v1());

  a.write("bad.bin.zst", Bytes{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3});
  EXPECT_EQ(loader.load("bad").error().code(), Errc::kParse);

  auto missing = loader.load("gc_11_0_0_mec");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
  const std::string s = missing.error().to_string();
  for (const std::string& part :
       {std::string("gc_11_0_0_mec.bin"), std::string("gc_11_0_0_mec.bin.zst"), a.path().string(),
        b.path().string(), std::string("firmware-amd-graphics"), std::string("bookworm-backports"),
        std::string("apt install -t bookworm-backports firmware-amd-graphics")})
    EXPECT_NE(s.find(part), std::string::npos) << "no '" << part << "' in " << s;
  EXPECT_EQ(FirmwareLoader().dirs(), std::vector<std::string>{"/lib/firmware/amdgpu"});
}

TEST(AmdFirmwareLoader, AmSetFromSyntheticFiles) {
  TempDir d;
  d.write("psp_13_0_0_sos.bin", sos_v20());
  d.write("smu_13_0_0.bin.zst", zstd_compress(smc_v21()));
  d.write("sdma_6_0_0.bin", sdma_v2());
  d.write("gc_11_0_0_mec.bin", gfx_v2());
  d.write("gc_11_0_0_rlc.bin", rlc_v24());
  const AmFirmwareIps ips{{13, 0, 0}, {13, 0, 0}, {6, 0, 0}, {11, 0, 0}};
  FirmwareLoader loader({d.path().string()});
  auto missing = load_am_firmware(loader, ips);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), Errc::kNotFound);
  EXPECT_NE(missing.error().message().find("gc_11_0_0_imu.bin"), std::string::npos);
  d.write("gc_11_0_0_imu.bin", imu_v1());
  auto set = load_am_firmware(loader, ips);
  ASSERT_TRUE(set.ok()) << set.error().to_string();
  ASSERT_EQ(set->files.size(), 6u);
  const LoadedFirmware* imu = set->find(FirmwareKind::kImu);
  ASSERT_NE(imu, nullptr);
  EXPECT_EQ(imu->info.blobs[0].bytes.data(), imu->image.bytes.data() + 0x100);
  EXPECT_TRUE(set->find(FirmwareKind::kSmc)->image.compressed);
  // A malformed member is reported with the file it came from.
  d.write("gc_11_0_0_mec.bin", Bytes(40));
  auto bad = load_am_firmware(loader, ips);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().to_string().find("gc_11_0_0_mec.bin"), std::string::npos);
}

// --- the real files -----------------------------------------------------------------------------

std::string firmware_dir() {
  const char* d = std::getenv("RAWGPU_FIRMWARE_DIR");
  if (!d || !fs::is_directory(fs::path(d) / "amdgpu")) return {};
  return (fs::path(d) / "amdgpu").string();
}
#define REQUIRE_FIRMWARE(dir)                                                                   \
  const std::string dir = firmware_dir();                                                       \
  if (dir.empty()) {                                                                            \
    GTEST_SKIP() << "SKIPPED: RAWGPU_FIRMWARE_DIR does not name a firmware cache with amdgpu/ " \
                    "(autogen/rawgpu-autogen fetch extracts firmware-amd-graphics into "        \
                    "<upstream>/firmware; scripts/test.sh --upstream)";                         \
  }

struct Real {
  LoadedFirmware f;
  const FirmwareInfo* operator->() const { return &f.info; }
};
Real real(const std::string& dir, const std::string& name, const ParseOptions& opt = {}) {
  Real r;
  auto img = FirmwareLoader({dir}).load(name);
  EXPECT_TRUE(img.ok()) << img.error().to_string();
  if (!img.ok()) return r;
  r.f.image = std::move(*img);
  auto info = parse_firmware(*classify_firmware(name), r.f.image.bytes, name, opt);
  EXPECT_TRUE(info.ok()) << info.error().to_string();
  if (info.ok()) r.f.info = std::move(*info);
  return r;
}
std::vector<std::string_view> desc_types(const FirmwareInfo& fw) {
  std::vector<std::string_view> v;
  for (const PspDescriptor& d : fw.descriptors) v.push_back(d.type_name);
  return v;
}

TEST(AmdFirmwareReal, EveryFileParses) {
  REQUIRE_FIRMWARE(dir);
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    SCOPED_TRACE(name);
    auto kind = classify_firmware(name);
    ASSERT_TRUE(kind.ok()) << kind.error().to_string();
    auto img = FirmwareLoader::load_path(e.path().string());
    ASSERT_TRUE(img.ok()) << img.error().to_string();
    auto fw = parse_firmware(*kind, img->bytes, name);
    ASSERT_TRUE(fw.ok()) << fw.error().to_string();
    ++n;
    EXPECT_EQ(fw->header.size_bytes, img->bytes.size());
    EXPECT_FALSE(fw->blobs.empty());
    for (const FirmwareBlob& b : fw->blobs) {
      EXPECT_GT(b.size, 0u);
      EXPECT_LE(b.offset + b.size, img->bytes.size());
      EXPECT_GE(b.offset, fw->header.header_size_bytes);
    }
    const bool promised = *kind != FirmwareKind::kRlc && *kind != FirmwareKind::kSmc &&
                          *kind != FirmwareKind::kPspToc && *kind != FirmwareKind::kPspAsd &&
                          *kind != FirmwareKind::kGcToc;
    if (promised) {
      EXPECT_EQ(fw->crc32_check, Crc32Check::kVerified);
    }
    // Every RS64 file: the same entry point.
    if (fw->find_blob("RS64_MEC") || fw->find_blob("RS64_PFP") || fw->find_blob("RS64_ME")) {
      EXPECT_EQ(fw->entry_point, 0x0007000000003000ull);
    }
  }
  EXPECT_GE(n, 100u);
}

TEST(AmdFirmwareReal, Gfx1100) {
  REQUIRE_FIRMWARE(dir);
  auto sos = real(dir, "psp_13_0_0_sos");
  EXPECT_EQ(sos->file_size, 268304u);
  EXPECT_EQ(sos->header_version(), "2.0");
  EXPECT_EQ(desc_types(*sos.operator->()), (Names{"SYS_DRV", "SOS", "TOC", "KDB", "SPL", "RL"}));
  EXPECT_EQ(names(*sos.operator->()), (Names{"KDB", "SPL", "SYS_DRV", "SOS", "TOC", "RL"}));
  auto smu = real(dir, "smu_13_0_0");
  EXPECT_EQ(smu->file_size, 292452u);
  EXPECT_EQ(smu->header_version(), "2.1");
  EXPECT_EQ(smu->pptables.size(), 6u);
  EXPECT_EQ(names(*smu.operator->()), Names{"SMU"});
  auto sdma = real(dir, "sdma_6_0_0");
  EXPECT_EQ(sdma->file_size, 34560u);
  EXPECT_EQ(sdma->header_version(), "2.0");
  ASSERT_EQ(sdma->blobs.size(), 2u);
  EXPECT_EQ(sdma->blobs[1].offset, 0x4500u);  // ctl_ucode_offset is file-relative
  auto mec = real(dir, "gc_11_0_0_mec");
  EXPECT_EQ(mec->file_size, 406528u);
  ASSERT_EQ(mec->blobs.size(), 2u);
  EXPECT_EQ(mec->blobs[0].size, 0x41300u);
  EXPECT_EQ(mec->blobs[1].size, 0x22000u);
  EXPECT_EQ(mec->entry_point, 0x0007000000003000ull);
  auto imu = real(dir, "gc_11_0_0_imu");
  EXPECT_EQ(imu->file_size, 132352u);
  EXPECT_EQ(imu->find_blob("IMU_D")->offset, 0x100u + 0x10200);
  auto rlc = real(dir, "gc_11_0_0_rlc");
  EXPECT_EQ(rlc->file_size, 185376u);
  EXPECT_EQ(rlc->header_version(), "2.3");
  EXPECT_EQ(rlc->find_blob("RLC_RESTORE_LIST_GPM_MEM")->size, 0xa00u);
  EXPECT_EQ(rlc->find_blob("RLC_RESTORE_LIST_SRM_MEM")->size, 0x8f20u);
  EXPECT_EQ(rlc->blobs.back().name, "RLC_G");
  auto set =
      load_am_firmware(FirmwareLoader({dir}), {{13, 0, 0}, {13, 0, 0}, {6, 0, 0}, {11, 0, 0}});
  ASSERT_TRUE(set.ok()) << set.error().to_string();
  EXPECT_EQ(set->files.size(), 6u);
}

TEST(AmdFirmwareReal, Gfx1201) {
  REQUIRE_FIRMWARE(dir);
  auto sos = real(dir, "psp_14_0_3_sos");
  EXPECT_EQ(sos->file_size, 435632u);
  EXPECT_EQ(desc_types(*sos.operator->()),
            (Names{"KDB", "SYS_DRV", "SOS", "SOC_DRV", "INTF_DRV", "DBG_DRV", "TOC", "IPKEYMGR_DRV",
                   "SPL", "RAS_DRV", "RL"}));
  EXPECT_EQ(names(*sos.operator->())[0], "KDB");
  EXPECT_EQ(names(*sos.operator->())[1], "SPL");
  auto smu = real(dir, "smu_14_0_3");
  EXPECT_EQ(smu->file_size, 333236u);
  EXPECT_EQ(smu->header_version(), "2.0");
  EXPECT_EQ(smu->pptables.size(), 1u);
  auto sdma = real(dir, "sdma_7_0_1");
  EXPECT_EQ(sdma->file_size, 46336u);
  EXPECT_EQ(sdma->header_version(), "3.0");
  EXPECT_EQ(names(*sdma.operator->()), Names{"SDMA_UCODE_TH0"});
  EXPECT_EQ(real(dir, "gc_12_0_1_pfp")->file_size, 351696u);
  EXPECT_EQ(real(dir, "gc_12_0_1_me")->file_size, 422656u);
  auto mec = real(dir, "gc_12_0_1_mec");
  EXPECT_EQ(mec->file_size, 447456u);
  EXPECT_EQ(mec->blobs.at(0).size, 0x2d2e0u);
  EXPECT_EQ(mec->blobs.at(1).size, 0x40000u);
  auto rlc = real(dir, "gc_12_0_1_rlc");
  EXPECT_EQ(rlc->file_size, 150848u);
  EXPECT_EQ(rlc->header_version(), "2.2");
  EXPECT_NE(rlc->find_blob("RLC_IRAM"), nullptr);
  EXPECT_NE(rlc->find_blob("RLC_DRAM_BOOT"), nullptr);
  auto set =
      load_am_firmware(FirmwareLoader({dir}), {{14, 0, 3}, {14, 0, 3}, {7, 0, 1}, {12, 0, 1}});
  ASSERT_TRUE(set.ok()) << set.error().to_string();
  EXPECT_EQ(set->files.size(), 8u);
}

TEST(AmdFirmwareReal, Gfx942) {
  REQUIRE_FIRMWARE(dir);
  auto sos = real(dir, "psp_13_0_6_sos");
  EXPECT_EQ(sos->file_size, 782944u);
  EXPECT_EQ(sos->header_version(), "2.1");
  EXPECT_EQ(sos->descriptors.size(), 16u);
  EXPECT_EQ(sos->aux_index, 8u);
  EXPECT_EQ(sos->blobs.size(), 8u);
  ParseOptions aux;
  aux.sos_aux = true;
  auto sos_aux = real(dir, "psp_13_0_6_sos", aux);
  EXPECT_TRUE(sos_aux->aux_selected);
  EXPECT_EQ(sos_aux->find_blob("SOS")->offset, sos->descriptors[9].offset);
  EXPECT_NE(sos_aux->find_blob("SOS")->offset, sos->find_blob("SOS")->offset);
  auto smu = real(dir, "smu_13_0_6");
  EXPECT_EQ(smu->file_size, 3748u);
  EXPECT_EQ(smu->header.ucode_size_bytes, 0u);
  EXPECT_EQ(smu->pptables.size(), 3u);
  EXPECT_EQ(names(*smu.operator->()), Names{"P2S_TABLE"});
  EXPECT_EQ(smu->find_blob("P2S_TABLE")->offset, smu->find_pptable(0x50325358)->offset);
  ParseOptions four;
  four.sdma_instances = 4;
  auto sdma = real(dir, "sdma_4_4_2", four);
  EXPECT_EQ(sdma->file_size, 34304u);
  EXPECT_EQ(names(*sdma.operator->()), (Names{"SDMA0", "SDMA1", "SDMA2", "SDMA3"}));
  auto mec = real(dir, "gc_9_4_3_mec");
  EXPECT_EQ(mec->file_size, 268736u);
  EXPECT_EQ(names(*mec.operator->()), (Names{"CP_MEC", "CP_MEC_ME1"}));
  EXPECT_EQ(mec->blobs[1].offset, 0x100u + 4 * 0x10510);  // the ucode's tail
  EXPECT_EQ(mec->blobs[1].size, 4u * 0x120);
  EXPECT_EQ(mec->blobs[1].offset + mec->blobs[1].size, mec->file_size);
  auto rlc = real(dir, "gc_9_4_3_rlc");
  EXPECT_EQ(rlc->file_size, 38708u);
  EXPECT_EQ(names(*rlc.operator->()),
            (Names{"RLC_RESTORE_LIST_SRM_CNTL", "RLC_RESTORE_LIST_GPM_MEM",
                   "RLC_RESTORE_LIST_SRM_MEM", "RLC_G"}));
  auto set =
      load_am_firmware(FirmwareLoader({dir}), {{13, 0, 6}, {13, 0, 6}, {4, 4, 2}, {9, 4, 3}}, four);
  ASSERT_TRUE(set.ok()) << set.error().to_string();
  EXPECT_EQ(set->files.size(), 5u);
}

TEST(AmdFirmwareReal, OtherAsicsOfTheTable) {
  REQUIRE_FIRMWARE(dir);
  struct Row {
    const char* name;
    uint64_t size;
    const char* version;
  };
  for (const Row& r : {Row{"psp_13_0_7_sos", 248496, "2.0"}, Row{"psp_13_0_10_sos", 360352, "2.0"},
                       Row{"psp_14_0_2_sos", 421216, "2.0"}, Row{"smu_13_0_7", 287080, "2.1"},
                       Row{"smu_13_0_10", 271520, "2.1"}, Row{"smu_14_0_2", 333236, "2.0"},
                       Row{"sdma_6_0_2", 34560, "2.0"}, Row{"sdma_6_0_3", 34560, "2.0"},
                       Row{"sdma_7_0_0", 45824, "3.0"}, Row{"gc_11_0_2_rlc", 178848, "2.3"},
                       Row{"gc_11_0_3_rlc", 179104, "2.3"}, Row{"gc_12_0_0_rlc", 150704, "2.2"},
                       Row{"gc_11_0_2_mec", 406528, "2.0"}, Row{"gc_12_0_0_mec", 447456, "2.0"},
                       Row{"gc_12_0_0_imu", 132352, "1.0"}}) {
    SCOPED_TRACE(r.name);
    auto f = real(dir, r.name);
    EXPECT_EQ(f->file_size, r.size);
    EXPECT_EQ(f->header_version(), r.version);
  }
  EXPECT_EQ(desc_types(*real(dir, "psp_13_0_7_sos").operator->()),
            (Names{"SYS_DRV", "SOS", "TOC", "KDB", "SPL"}));
  EXPECT_EQ(real(dir, "psp_13_0_10_sos")->descriptors.size(), 9u);
  EXPECT_EQ(real(dir, "smu_13_0_7")->pptables.size(), 5u);
  EXPECT_EQ(real(dir, "smu_13_0_10")->pptables.size(), 2u);
  auto mec = real(dir, "gc_12_0_0_mec");
  EXPECT_EQ(mec->blobs.at(0).size, 0x2d2e0u);
  EXPECT_EQ(mec->blobs.at(1).size, 0x40000u);
}

TEST(AmdFirmwareReal, MutatedCopies) {
  REQUIRE_FIRMWARE(dir);
  auto load = [&](const char* n) { return FirmwareLoader({dir}).load(n)->bytes; };
  using R = uc::rlc_firmware_header_v2_3;
  expect_error(with<R>(load("gc_11_0_0_rlc"),
                       [](R& h) { h.v2_2.v2_1.save_restore_list_srm_offset_bytes = 0x2d000; }),
               FirmwareKind::kRlc, Errc::kParse,
               {"RLC_RESTORE_LIST_SRM_MEM", "save_restore_list_srm_offset_bytes", "0x2d000"});
  Bytes sos = load("psp_13_0_0_sos");
  put<uint32_t>(sos, offsetof(uc::psp_firmware_header_v2_0, psp_fw_bin_count), 1000);
  finish(sos);
  expect_error(sos, FirmwareKind::kPspSos, Errc::kParse, {"psp_fw_bin_count 1000"});
  using G = uc::gfx_firmware_header_v2_0;
  expect_error(with<G>(load("gc_11_0_0_mec"), [](G& h) { h.data_size_bytes += 4; }),
               FirmwareKind::kGfxMec, Errc::kParse, {"RS64_MEC_P0_STACK", "data_size_bytes"});
  Bytes mec = load("gc_11_0_0_mec");
  mec[0x1000] ^= 0x80;
  expect_error(mec, FirmwareKind::kGfxMec, Errc::kParse, {"crc32 0x775ac2a9 does not match"});
  // Truncated copies with size_bytes patched: never accepted, never out of bounds.
  const Bytes rlc = load("gc_11_0_0_rlc");
  for (size_t n = 0; n < rlc.size(); n += 997) {
    Bytes cut(rlc.begin(), rlc.begin() + n);
    if (n >= 32) {
      auto h = get<uc::common_firmware_header>(cut);
      h.size_bytes = static_cast<uint32_t>(n);
      put(cut, 0, h);
    }
    EXPECT_FALSE(parse_firmware(FirmwareKind::kRlc, cut, "cut").ok()) << n;
  }
}

}  // namespace
