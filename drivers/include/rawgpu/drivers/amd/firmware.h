// AMD firmware files (Debian firmware-amd-graphics, /lib/firmware/amdgpu): finding and loading
// them (NAME.bin or NAME.bin.zst), and parsing their headers into the blobs the PSP receives.
//
// Every file starts with the 32-byte common_firmware_header; a per-kind header follows (PSP
// SOS/TA, SMC, SDMA, GFX, IMU, RLC, MES), dispatched on (header_version_major, _minor). Layouts
// are the generated structs of autogen/amd/ucode.h (Linux amdgpu_ucode.h); the load types are
// psp_gfx_fw_type of autogen/amd/psp_gfx_if.h. Which region of a file is which blob, and in which
// order the PSP gets them, follows amd.md §4.2 (and Linux where amd.md says to).
//
// The parsers treat the bytes as untrusted: every size and offset is checked in 64-bit arithmetic
// against the file, regions may not overlap the header or each other, counts must fit; an
// inconsistency is a kParse error whose message names the file, the field, its value and the
// limit; an unknown header version for the kind is kUnsupported. Nothing is read out of bounds.
//
// The common header's crc32 is the CRC-32 (zlib polynomial) of bytes [32, size_bytes) in every
// PSP SOS/TA, GFX, IMU, MES and SDMA file of firmware-amd-graphics 20250410 and in gc_9_4_3_rlc;
// those kinds are verified (ParseOptions::verify_crc32). In the RLC v2.2/v2.3, SMC, PSP TOC/ASD
// and GC TOC files it covers something else (not found), so it is reported, never checked.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/autogen/amd/psp_gfx_if.h"
#include "rawgpu/autogen/amd/ucode.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/discovery.h"  // IpVersion

namespace rawgpu::drivers::amd {

// What a file holds; parse_firmware() needs it because the GFX and MES headers do not say which
// engine they are for.
enum class FirmwareKind : uint8_t {
  kPspSos,  // psp_*_sos: the PSP bootloader components (SYS_DRV, SOS, KDB, SPL, TOC, ...)
  kPspTa,   // psp_*_ta: trusted applications
  kPspToc,  // psp_*_toc (APUs): a TOC alone
  kPspAsd,  // psp_*_asd (APUs): the ASD trusted application alone
  kSmc,     // smu_*: SMU image and pptables / P2S tables
  kSdma,    // sdma_*
  kGfxPfp,  // gc_*_pfp
  kGfxMe,   // gc_*_me
  kGfxMec,  // gc_*_mec, gc_*_sjt_mec
  kImu,     // gc_*_imu
  kRlc,     // gc_*_rlc, gc_*_rlc_N
  kMes,     // gc_*_mes, gc_*_mes_2, gc_*_uni_mes: the MES scheduler pipe
  kMesKiq,  // gc_*_mes1: the MES KIQ pipe
  kGcToc,   // gc_*_toc: the RLC autoload table of contents (not sent through PSP)
};
inline constexpr FirmwareKind kAllFirmwareKinds[] = {
    FirmwareKind::kPspSos, FirmwareKind::kPspTa, FirmwareKind::kPspToc, FirmwareKind::kPspAsd,
    FirmwareKind::kSmc,    FirmwareKind::kSdma,  FirmwareKind::kGfxPfp, FirmwareKind::kGfxMe,
    FirmwareKind::kGfxMec, FirmwareKind::kImu,   FirmwareKind::kRlc,    FirmwareKind::kMes,
    FirmwareKind::kMesKiq, FirmwareKind::kGcToc,
};

// "psp_sos", "gfx_mec", "rlc", ... (the names `rawgpu fwinfo --kind` takes).
std::string_view firmware_kind_name(FirmwareKind kind);
// The inverse of firmware_kind_name; kInvalidArgument listing the names otherwise.
Result<FirmwareKind> parse_firmware_kind(std::string_view name);
// The kind from a file name ("gc_11_0_0_mec.bin", "/x/psp_13_0_0_sos.bin.zst", "sdma_6_0_0");
// kUnsupported when the name is none of the patterns above.
Result<FirmwareKind> classify_firmware(std::string_view file_name);

// How the PSP receives a blob.
enum class BlobPath : uint8_t {
  kBootloader,  // the PSP bootloader mailbox before SOS runs; `component` is the psp_fw_type
  kToc,         // GFX_CMD_ID_LOAD_TOC
  kIpFw,        // GFX_CMD_ID_LOAD_IP_FW with `gfx_type`
  kTa,          // a trusted application (GFX_CMD_ID_LOAD_TA); `component` is the ta_fw_type
  kNone,        // not sent through PSP (GC TOC: the RLC autoload reads it)
};
std::string_view blob_path_name(BlobPath path);  // "bootloader", "toc", "ip_fw", "ta", "none"

struct FirmwareBlob {
  BlobPath path = BlobPath::kIpFw;
  // The PSP load type for kIpFw (GFX_FW_TYPE_RS64_MEC...); GFX_FW_TYPE_NONE otherwise.
  autogen::amd::psp::psp_gfx_fw_type gfx_type = autogen::amd::psp::GFX_FW_TYPE_NONE;
  uint32_t component = 0;          // kBootloader/kToc: psp_fw_type; kTa: ta_fw_type; else 0
  std::string_view name;           // "RS64_MEC", "RLC_G", "SOS", "TA_RAS" (static storage)
  uint64_t offset = 0;             // in the file
  uint64_t size = 0;               // never 0
  std::span<const uint8_t> bytes;  // view of the parsed bytes (valid while they are)
};

// One descriptor of a PSP SOS or TA v2 header, in file order.
struct PspDescriptor {
  uint32_t index = 0;
  uint32_t fw_type = 0;        // psp_fw_type (SOS) or ta_fw_type (TA)
  std::string_view type_name;  // "SYS_DRV", "KDB", "RAS", "UNKNOWN"
  uint32_t fw_version = 0;
  uint64_t offset = 0, size = 0;  // in the file (ucode_array_offset_bytes + offset_bytes)
  bool aux = false;               // SOS v2.1: index >= psp_aux_fw_bin_index
  bool loaded = false;            // it became a blob (the selected SOS set, and a known type)
};

// A pptable of an SMC v2.x file (v2.0 has one, with id 0).
struct Pptable {
  uint32_t id = 0;
  bool p2s = false;  // a P2S table: the id's top three bytes are "P2S"
  uint64_t offset = 0, size = 0;
  std::span<const uint8_t> bytes;
};

// A raw header field after the common header, by its generated struct member name.
struct HeaderField {
  std::string_view name;
  uint32_t value = 0;
};

enum class Crc32Check : uint8_t {
  kVerified,    // this kind carries the CRC-32 of [32, size_bytes) and it matches
  kMatches,     // not checked for this kind (or verify_crc32 off), but it matches
  kNotChecked,  // it does not match [32, size_bytes), and this kind's files do not promise it
};

struct FirmwareInfo {
  std::string file_name;
  FirmwareKind kind = FirmwareKind::kPspSos;
  uint64_t file_size = 0;
  autogen::amd::ucode::common_firmware_header header{};
  uint32_t feature_version = 0;  // ucode_feature_version where the kind has one (else 0)
  uint32_t computed_crc32 = 0;   // CRC-32 of [32, size_bytes)
  Crc32Check crc32_check = Crc32Check::kNotChecked;
  // What the PSP loads from this file, in the order it must receive them.
  std::vector<FirmwareBlob> blobs;
  std::vector<PspDescriptor> descriptors;    // PSP SOS/TA v2
  std::optional<uint32_t> aux_index;         // PSP SOS v2.1
  bool aux_selected = false;                 // the [aux_index, count) set became the blobs
  std::optional<uint64_t> entry_point;       // RS64 ucode start (hi<<32|lo); MES ucode start
  std::optional<uint64_t> data_entry_point;  // MES data start
  std::optional<uint32_t> smu_start_addr;    // SMC ucode_start_addr
  std::vector<Pptable> pptables;             // SMC v2.0/v2.1
  std::vector<HeaderField> fields;           // every per-kind header field, in struct order

  const FirmwareBlob* find_blob(autogen::amd::psp::psp_gfx_fw_type type) const;
  const FirmwareBlob* find_blob(std::string_view name) const;
  const Pptable* find_pptable(uint32_t id) const;
  std::string header_version() const;  // "2.1"
};

struct ParseOptions {
  // PSP SOS v2.1: blobs from [psp_aux_fw_bin_index, count) instead of [0, aux_index). Linux
  // wants the aux set only on MP0 13.0.6 with an old PMFW: see sos_aux_set_required().
  bool sos_aux = false;
  // SDMA v1.x: the image once per engine, SDMA0..SDMA7 (MI300 loads 4: one AID's engines).
  unsigned sdma_instances = 1;
  // RS64 PFP/ME/MEC: amd.md sends the P0 stack only; Linux also sends the same data as the P1
  // (PFP, ME) and P1..P3 (MEC) stacks.
  bool rs64_all_pipe_stacks = false;
  // SMC v2.1 with P2S tables: the one loaded as P2S_TABLE (amd.md: "P2SX" 0x50325358; Linux
  // takes "P2SA" 0x50325341 on APUs and 0x50325303 when (device_id & 0xF) == 5).
  uint32_t p2s_table_id = 0x50325358;
  bool verify_crc32 = true;
};

// Linux's rule for the SOS v2.1 aux set: MP0 13.0.6 with a PMFW older than 85.115.0 (the
// version in MP1_PUB_SCRATCH0 < 0x557300).
bool sos_aux_set_required(IpVersion mp0, uint32_t pmfw_version);

// Parses a whole firmware file as `kind`. `file_name` only labels messages.
Result<FirmwareInfo> parse_firmware(FirmwareKind kind, std::span<const uint8_t> bytes,
                                    std::string_view file_name, const ParseOptions& options = {});
// Only the common header, checked against the file (size_bytes, header and ucode array in it).
Result<autogen::amd::ucode::common_firmware_header> parse_common_header(
    std::span<const uint8_t> bytes, std::string_view file_name);

// "SOS", "SYS_DRV", ... for a psp_fw_type; "ASD", "RAS", ... for a ta_fw_type; "UNKNOWN".
std::string_view psp_fw_type_name(uint32_t type);
std::string_view ta_fw_type_name(uint32_t type);
// "RS64_MEC", "RLC_G", ...: the psp_gfx_fw_type name without GFX_FW_TYPE_; "UNKNOWN".
std::string_view gfx_fw_type_name(autogen::amd::psp::psp_gfx_fw_type type);

// --- loading ------------------------------------------------------------------------------------

// Decompressed firmware files larger than this are refused (the largest amdgpu file is < 1 MiB).
inline constexpr uint64_t kMaxFirmwareBytes = 64ull << 20;

struct FirmwareImage {
  std::string name;  // "gc_11_0_0_mec.bin" (without .zst)
  std::string path;  // the file read ("/lib/firmware/amdgpu/gc_11_0_0_mec.bin.zst")
  bool compressed = false;
  uint64_t file_bytes = 0;     // on disk
  std::vector<uint8_t> bytes;  // decompressed
  std::string sha256;          // of `bytes`, 64 lower-case hex digits
};

// zstd frames (one or more) → bytes; kParse on corrupt or truncated input, kOutOfRange past
// max_bytes. `what` labels messages.
Result<std::vector<uint8_t>> decompress_zstd(std::span<const uint8_t> input, std::string_view what,
                                             uint64_t max_bytes = kMaxFirmwareBytes);
std::string sha256_hex(std::span<const uint8_t> bytes);

class FirmwareLoader {
 public:
  static constexpr std::string_view kDefaultDir = "/lib/firmware/amdgpu";
  FirmwareLoader() : dirs_{std::string(kDefaultDir)} {}
  explicit FirmwareLoader(std::vector<std::string> dirs) : dirs_(std::move(dirs)) {}
  const std::vector<std::string>& dirs() const { return dirs_; }

  // NAME ("gc_11_0_0_mec", ".bin" optional): the first of DIR/NAME.bin, DIR/NAME.bin.zst over the
  // search directories, or over `dir` alone when given. A missing file is kNotFound naming the
  // file, the directories searched and the Debian package that ships it.
  Result<FirmwareImage> load(std::string_view name, std::string_view dir = {}) const;
  // One explicit path; ".zst" files are decompressed.
  static Result<FirmwareImage> load_path(const std::string& path);

 private:
  std::vector<std::string> dirs_;
};

// --- the set the AM boot loads ------------------------------------------------------------------

struct AmFirmwareIps {
  IpVersion mp0, mp1, sdma0, gc;
};

struct FirmwareRequest {
  std::string name;  // "psp_13_0_0_sos" (no extension)
  FirmwareKind kind;
};

// The files the AM boot loads (amd.md §4.1), in load order: psp_<mp0>_sos, smu_<mp1>,
// sdma_<sdma0>, then gc_<gc>_{pfp,me (GC 12 only)}, _mec, _imu (GC ≥ 11), _rlc. kUnsupported for
// a GC major other than 9, 11, 12.
Result<std::vector<FirmwareRequest>> am_firmware_names(const AmFirmwareIps& ips);

// Move-only: `info`'s spans point into image.bytes (a move keeps that buffer, a copy would not).
struct LoadedFirmware {
  FirmwareImage image;
  FirmwareInfo info;
  LoadedFirmware() = default;
  LoadedFirmware(LoadedFirmware&&) = default;
  LoadedFirmware& operator=(LoadedFirmware&&) = default;
  LoadedFirmware(const LoadedFirmware&) = delete;
  LoadedFirmware& operator=(const LoadedFirmware&) = delete;
};

struct FirmwareSet {
  std::vector<LoadedFirmware> files;  // am_firmware_names order
  const LoadedFirmware* find(FirmwareKind kind) const;
};

// Loads and parses every file of am_firmware_names(ips); the first missing or malformed file is
// the error. `options.sos_aux` etc. apply to the files they concern.
Result<FirmwareSet> load_am_firmware(const FirmwareLoader& loader, const AmFirmwareIps& ips,
                                     const ParseOptions& options = {});

}  // namespace rawgpu::drivers::amd
