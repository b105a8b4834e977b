// AMD firmware files by name (firmware.h): kinds and load-type names, telling a file's kind from
// its name, FirmwareInfo's lookups, the search directories, NAME.bin / NAME.bin.zst, zstd
// decompression with a size cap, the SHA-256 that is logged for every file loaded, and the set of
// files the AM boot needs for a given set of IP versions. The header parsers are in firmware.cpp.
#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/SHA256.h>
#include <sys/stat.h>
#include <zstd.h>

#include <algorithm>
#include <memory>

#include "rawgpu/base/file.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/drivers/amd/firmware.h"

namespace rawgpu::drivers::amd {

namespace {
namespace uc = autogen::amd::ucode;
namespace psp = autogen::amd::psp;
}  // namespace

// --- names --------------------------------------------------------------------------------------

std::string_view firmware_kind_name(FirmwareKind kind) {
  switch (kind) {
    case FirmwareKind::kPspSos: return "psp_sos";
    case FirmwareKind::kPspTa: return "psp_ta";
    case FirmwareKind::kPspToc: return "psp_toc";
    case FirmwareKind::kPspAsd: return "psp_asd";
    case FirmwareKind::kSmc: return "smc";
    case FirmwareKind::kSdma: return "sdma";
    case FirmwareKind::kGfxPfp: return "gfx_pfp";
    case FirmwareKind::kGfxMe: return "gfx_me";
    case FirmwareKind::kGfxMec: return "gfx_mec";
    case FirmwareKind::kImu: return "imu";
    case FirmwareKind::kRlc: return "rlc";
    case FirmwareKind::kMes: return "mes";
    case FirmwareKind::kMesKiq: return "mes_kiq";
    case FirmwareKind::kGcToc: return "gc_toc";
  }
  return "unknown";
}

Result<FirmwareKind> parse_firmware_kind(std::string_view name) {
  std::string all;
  for (FirmwareKind k : kAllFirmwareKinds) {
    if (firmware_kind_name(k) == name) return k;
    all += (all.empty() ? "" : ", ") + std::string(firmware_kind_name(k));
  }
  return make_error(Errc::kInvalidArgument, "unknown firmware kind %s (known: %s)",
                    quote(name).c_str(), all.c_str());
}

namespace {
bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 3 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
}  // namespace

Result<FirmwareKind> classify_firmware(std::string_view file_name) {
  std::string_view n = file_name;
  if (const size_t slash = n.rfind('/'); slash != std::string_view::npos)
    n.remove_prefix(slash + 1);
  if (n.ends_with(".zst")) n.remove_suffix(4);
  if (n.ends_with(".bin")) n.remove_suffix(4);
  // <ip>_<maj>_<min>_<rev>[_<what>]
  std::vector<std::string_view> parts;
  for (size_t pos = 0;;) {
    const size_t us = n.find('_', pos);
    parts.push_back(n.substr(pos, us == std::string_view::npos ? us : us - pos));
    if (us == std::string_view::npos) break;
    pos = us + 1;
  }
  auto unknown = [&] {
    return std::move(make_error(Errc::kUnsupported,
                                "cannot tell the firmware kind from the name %s",
                                quote(file_name).c_str())
                         .with_hint("amdgpu firmware files are named <ip>_<major>_<minor>_<rev>"
                                    "[_<part>].bin (psp_13_0_0_sos, smu_13_0_0, sdma_6_0_0, "
                                    "gc_11_0_0_mec); `rawgpu fwinfo --kind` overrides"));
  };
  if (parts.size() < 4 || !all_digits(parts[1]) || !all_digits(parts[2]) || !all_digits(parts[3]))
    return unknown();
  const std::string_view ip = parts[0];
  std::string what;
  for (size_t i = 4; i < parts.size(); ++i) what += (i > 4 ? "_" : "") + std::string(parts[i]);
  if (ip == "smu" && what.empty()) return FirmwareKind::kSmc;
  if (ip == "sdma" && what.empty()) return FirmwareKind::kSdma;
  if (ip == "psp") {
    if (what == "sos") return FirmwareKind::kPspSos;
    if (what == "ta") return FirmwareKind::kPspTa;
    if (what == "toc") return FirmwareKind::kPspToc;
    if (what == "asd") return FirmwareKind::kPspAsd;
  }
  if (ip == "gc") {
    if (what == "pfp") return FirmwareKind::kGfxPfp;
    if (what == "me") return FirmwareKind::kGfxMe;
    if (what == "mec" || what == "sjt_mec") return FirmwareKind::kGfxMec;
    if (what == "imu") return FirmwareKind::kImu;
    if (what == "rlc" || (what.starts_with("rlc_") && all_digits(what.substr(4))))
      return FirmwareKind::kRlc;
    if (what == "mes" || what == "uni_mes" ||
        (what.starts_with("mes_") && all_digits(what.substr(4))))
      return FirmwareKind::kMes;
    if (what == "mes1") return FirmwareKind::kMesKiq;
    if (what == "toc") return FirmwareKind::kGcToc;
  }
  return unknown();
}

std::string_view blob_path_name(BlobPath path) {
  switch (path) {
    case BlobPath::kBootloader: return "bootloader";
    case BlobPath::kToc: return "toc";
    case BlobPath::kIpFw: return "ip_fw";
    case BlobPath::kTa: return "ta";
    case BlobPath::kNone: return "none";
  }
  return "unknown";
}

std::string_view psp_fw_type_name(uint32_t type) {
  switch (type) {
    case uc::PSP_FW_TYPE_PSP_SOS: return "SOS";
    case uc::PSP_FW_TYPE_PSP_SYS_DRV: return "SYS_DRV";
    case uc::PSP_FW_TYPE_PSP_KDB: return "KDB";
    case uc::PSP_FW_TYPE_PSP_TOC: return "TOC";
    case uc::PSP_FW_TYPE_PSP_SPL: return "SPL";
    case uc::PSP_FW_TYPE_PSP_RL: return "RL";
    case uc::PSP_FW_TYPE_PSP_SOC_DRV: return "SOC_DRV";
    case uc::PSP_FW_TYPE_PSP_INTF_DRV: return "INTF_DRV";
    case uc::PSP_FW_TYPE_PSP_DBG_DRV: return "DBG_DRV";
    case uc::PSP_FW_TYPE_PSP_RAS_DRV: return "RAS_DRV";
    case uc::PSP_FW_TYPE_PSP_IPKEYMGR_DRV: return "IPKEYMGR_DRV";
    default: return "UNKNOWN";
  }
}

std::string_view ta_fw_type_name(uint32_t type) {
  switch (type) {
    case uc::TA_FW_TYPE_PSP_ASD: return "ASD";
    case uc::TA_FW_TYPE_PSP_XGMI: return "XGMI";
    case uc::TA_FW_TYPE_PSP_RAS: return "RAS";
    case uc::TA_FW_TYPE_PSP_HDCP: return "HDCP";
    case uc::TA_FW_TYPE_PSP_DTM: return "DTM";
    case uc::TA_FW_TYPE_PSP_RAP: return "RAP";
    case uc::TA_FW_TYPE_PSP_SECUREDISPLAY: return "SECUREDISPLAY";
    default: return "UNKNOWN";
  }
}

std::string_view gfx_fw_type_name(psp::psp_gfx_fw_type type) {
  switch (type) {
#define RG_NAME(t) \
  case psp::GFX_FW_TYPE_##t: return #t
    RG_NAME(NONE);
    RG_NAME(CP_ME);
    RG_NAME(CP_PFP);
    RG_NAME(CP_MEC);
    RG_NAME(CP_MEC_ME1);
    RG_NAME(RLC_V);
    RG_NAME(RLC_G);
    RG_NAME(SDMA0);
    RG_NAME(SDMA1);
    RG_NAME(SDMA2);
    RG_NAME(SDMA3);
    RG_NAME(SDMA4);
    RG_NAME(SDMA5);
    RG_NAME(SDMA6);
    RG_NAME(SDMA7);
    RG_NAME(SMU);
    RG_NAME(RLC_RESTORE_LIST_GPM_MEM);
    RG_NAME(RLC_RESTORE_LIST_SRM_MEM);
    RG_NAME(RLC_RESTORE_LIST_SRM_CNTL);
    RG_NAME(TOC);
    RG_NAME(RLC_P);
    RG_NAME(RLC_IRAM);
    RG_NAME(GLOBAL_TAP_DELAYS);
    RG_NAME(SE0_TAP_DELAYS);
    RG_NAME(SE1_TAP_DELAYS);
    RG_NAME(SE2_TAP_DELAYS);
    RG_NAME(SE3_TAP_DELAYS);
    RG_NAME(CP_MES);
    RG_NAME(MES_STACK);
    RG_NAME(CP_MES_KIQ);
    RG_NAME(MES_KIQ_STACK);
    RG_NAME(RLC_DRAM_BOOT);
    RG_NAME(REG_LIST);
    RG_NAME(IMU_I);
    RG_NAME(IMU_D);
    RG_NAME(SDMA_UCODE_TH0);
    RG_NAME(SDMA_UCODE_TH1);
    RG_NAME(PPTABLE);
    RG_NAME(RS64_PFP);
    RG_NAME(RS64_ME);
    RG_NAME(RS64_MEC);
    RG_NAME(RS64_PFP_P0_STACK);
    RG_NAME(RS64_PFP_P1_STACK);
    RG_NAME(RS64_ME_P0_STACK);
    RG_NAME(RS64_ME_P1_STACK);
    RG_NAME(RS64_MEC_P0_STACK);
    RG_NAME(RS64_MEC_P1_STACK);
    RG_NAME(RS64_MEC_P2_STACK);
    RG_NAME(RS64_MEC_P3_STACK);
    RG_NAME(P2S_TABLE);
#undef RG_NAME
    default: return "UNKNOWN";
  }
}

bool sos_aux_set_required(IpVersion mp0, uint32_t pmfw_version) {
  return mp0 == IpVersion{13, 0, 6} && pmfw_version < 0x557300;
}

// --- FirmwareInfo -------------------------------------------------------------------------------

const FirmwareBlob* FirmwareInfo::find_blob(psp::psp_gfx_fw_type type) const {
  for (const FirmwareBlob& b : blobs)
    if (b.path == BlobPath::kIpFw && b.gfx_type == type) return &b;
  return nullptr;
}

const FirmwareBlob* FirmwareInfo::find_blob(std::string_view name) const {
  for (const FirmwareBlob& b : blobs)
    if (b.name == name) return &b;
  return nullptr;
}

const Pptable* FirmwareInfo::find_pptable(uint32_t id) const {
  for (const Pptable& t : pptables)
    if (t.id == id) return &t;
  return nullptr;
}

std::string FirmwareInfo::header_version() const {
  return strformat("%u.%u", header.header_version_major, header.header_version_minor);
}

namespace {

constexpr std::string_view kPackageHint =
    "apt install -t bookworm-backports firmware-amd-graphics (the bookworm-backports suite and "
    "the non-free-firmware component must be in the apt sources; scripts/setup-deps.sh adds "
    "them)";

std::string basename_of(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string join_dir(std::string_view dir, std::string_view name) {
  std::string s(dir);
  if (!s.empty() && s.back() != '/') s += '/';
  return s + std::string(name);
}

}  // namespace

std::string sha256_hex(std::span<const uint8_t> bytes) {
  const std::array<uint8_t, 32> digest =
      llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (uint8_t b : digest) {
    s += kHex[b >> 4];
    s += kHex[b & 15];
  }
  return s;
}

Result<std::vector<uint8_t>> decompress_zstd(std::span<const uint8_t> input, std::string_view what,
                                             uint64_t max_bytes) {
  const std::string name(what);
  if (input.empty()) return make_error(Errc::kParse, "%s: empty zstd input", name.c_str());
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) return make_error(Errc::kOutOfMemory, "%s: ZSTD_createDCtx failed", name.c_str());
  std::vector<uint8_t> out;
  std::vector<uint8_t> chunk(ZSTD_DStreamOutSize());
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  for (;;) {
    ZSTD_outBuffer ob{chunk.data(), chunk.size(), 0};
    const size_t ret = ZSTD_decompressStream(ctx.get(), &ob, &in);
    if (ZSTD_isError(ret))
      return make_error(Errc::kParse, "%s: corrupt zstd data (input byte %zu of %zu): %s",
                        name.c_str(), in.pos, in.size, ZSTD_getErrorName(ret));
    if (out.size() + ob.pos > max_bytes)
      return make_error(Errc::kOutOfRange,
                        "%s: decompresses to more than %llu bytes (the limit for a firmware file)",
                        name.c_str(), static_cast<unsigned long long>(max_bytes));
    out.insert(out.end(), chunk.data(), chunk.data() + ob.pos);
    if (in.pos == in.size) {
      if (ret == 0) break;   // the last frame is complete and flushed
      if (ob.pos < ob.size)  // the decoder wants more input: none is left
        return make_error(Errc::kParse,
                          "%s: truncated zstd data (the frame ends after %zu input bytes)",
                          name.c_str(), in.size);
    }
  }
  return out;
}

Result<FirmwareImage> FirmwareLoader::load_path(const std::string& path) {
  FirmwareImage img;
  img.path = path;
  img.compressed = path.ends_with(".zst");
  img.name = basename_of(path);
  if (img.compressed) img.name.resize(img.name.size() - 4);
  ReadLimits limits;
  limits.max_bytes = kMaxFirmwareBytes;
  limits.too_big_hint = "amdgpu firmware files are well under 1 MiB: is this the right file?";
  const std::string raw = RG_TRY(read_file(path, limits));
  img.file_bytes = raw.size();
  const auto* data = reinterpret_cast<const uint8_t*>(raw.data());
  if (img.compressed)
    img.bytes = RG_TRY(decompress_zstd(std::span(data, raw.size()), path));
  else
    img.bytes.assign(data, data + raw.size());
  img.sha256 = sha256_hex(img.bytes);
  RG_LOG("amd", 1, "firmware %s: %zu bytes%s, sha256 %s", path.c_str(), img.bytes.size(),
         img.compressed ? " (zstd)" : "", img.sha256.c_str());
  return img;
}

Result<FirmwareImage> FirmwareLoader::load(std::string_view name, std::string_view dir) const {
  std::string file(name);
  if (file.ends_with(".zst")) file.resize(file.size() - 4);
  if (!file.ends_with(".bin")) file += ".bin";
  const std::vector<std::string> dirs = dir.empty() ? dirs_ : std::vector{std::string(dir)};
  std::string searched;
  for (const std::string& d : dirs) {
    for (const std::string& candidate : {join_dir(d, file), join_dir(d, file + ".zst")})
      if (exists(candidate)) return load_path(candidate);
    searched += (searched.empty() ? "" : ", ") + d;
  }
  return std::move(
      make_error(Errc::kNotFound,
                 "firmware %s not found (looked for %s and %s.zst in %s); it ships in the Debian "
                 "package firmware-amd-graphics from bookworm-backports",
                 file.c_str(), file.c_str(), file.c_str(),
                 searched.empty() ? "no directory" : searched.c_str())
          .with_hint(std::string(kPackageHint)));
}

// --- the AM boot's files ------------------------------------------------------------------------

Result<std::vector<FirmwareRequest>> am_firmware_names(const AmFirmwareIps& ips) {
  auto v = [](const char* ip, IpVersion x) {
    return strformat("%s_%u_%u_%u", ip, unsigned(x.major), unsigned(x.minor), unsigned(x.revision));
  };
  const unsigned gc = ips.gc.major;
  if (gc != 9 && gc != 11 && gc != 12)
    return make_error(Errc::kUnsupported,
                      "GC %u.%u.%u: the AM driver boots GC 9.4.x, 11.x and 12.x only",
                      unsigned(ips.gc.major), unsigned(ips.gc.minor), unsigned(ips.gc.revision));
  std::vector<FirmwareRequest> out = {
      {v("psp", ips.mp0) + "_sos", FirmwareKind::kPspSos},
      {v("smu", ips.mp1), FirmwareKind::kSmc},
      {v("sdma", ips.sdma0), FirmwareKind::kSdma},
  };
  const std::string g = v("gc", ips.gc);
  if (gc == 12) {
    // GC 12 also loads the graphics front end; compute-only GC 11 does without it.
    out.push_back({g + "_pfp", FirmwareKind::kGfxPfp});
    out.push_back({g + "_me", FirmwareKind::kGfxMe});
  }
  out.push_back({g + "_mec", FirmwareKind::kGfxMec});
  if (gc >= 11) out.push_back({g + "_imu", FirmwareKind::kImu});
  out.push_back({g + "_rlc", FirmwareKind::kRlc});
  return out;
}

const LoadedFirmware* FirmwareSet::find(FirmwareKind kind) const {
  for (const LoadedFirmware& f : files)
    if (f.info.kind == kind) return &f;
  return nullptr;
}

Result<FirmwareSet> load_am_firmware(const FirmwareLoader& loader, const AmFirmwareIps& ips,
                                     const ParseOptions& options) {
  FirmwareSet set;
  const std::vector<FirmwareRequest> names = RG_TRY(am_firmware_names(ips));
  for (const FirmwareRequest& r : names) {
    LoadedFirmware f;
    f.image = RG_TRY(loader.load(r.name));
    f.info = RG_TRY_CTX(parse_firmware(r.kind, f.image.bytes, f.image.name, options),
                        "while loading %s", f.image.path.c_str());
    set.files.push_back(std::move(f));  // moving keeps image.bytes' buffer: the spans stay valid
  }
  return set;
}

}  // namespace rawgpu::drivers::amd
