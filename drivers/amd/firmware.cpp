// AMD firmware header parsers (firmware.h): common header, then one parser per kind and header
// version, each turning the file into the blobs the PSP receives and their metadata. Loading
// files, zstd, SHA-256 and the AM boot's file set are in firmware_loader.cpp.
#include "rawgpu/drivers/amd/firmware.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/CRC.h>

#include <algorithm>
#include <bit>
#include <cstdarg>
#include <cstddef>
#include <cstring>

#include "rawgpu/base/format.h"

namespace rawgpu::drivers::amd {

static_assert(std::endian::native == std::endian::little,
              "firmware headers are little-endian and read by memcpy");

namespace {

namespace uc = autogen::amd::ucode;
namespace psp = autogen::amd::psp;
using psp::psp_gfx_fw_type;

using ull = unsigned long long;

[[gnu::format(printf, 3, 4)]] Error fw_error(Errc code, const std::string& file, const char* fmt,
                                             ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string m = vstrformat(fmt, ap);
  va_end(ap);
  return Error(code, file + ": " + m);
}

std::string label(std::string_view file) {
  return file.empty() ? std::string("firmware") : std::string(file);
}

// A validated region of the file, for the overlap check.
struct Region {
  std::string_view name;
  uint64_t offset, size;
};

// State of one parse: the bytes, where the header ends, what has been produced so far.
class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, std::string file, const ParseOptions& options,
         FirmwareInfo& info)
      : bytes_(bytes), file_(std::move(file)), opt_(options), info_(info) {}

  const std::string& file() const { return file_; }
  const ParseOptions& opt() const { return opt_; }
  FirmwareInfo& info() { return info_; }
  uint64_t size() const { return bytes_.size(); }
  uint64_t ucode_offset() const { return info_.header.ucode_array_offset_bytes; }
  uint64_t ucode_size() const { return info_.header.ucode_size_bytes; }
  void set_header_end(uint64_t end) { header_end_ = std::max(header_end_, end); }

  // The per-kind header struct T, which header_size_bytes must cover.
  template <class T>
  Result<T> header(const char* struct_name) {
    if (info_.header.header_size_bytes < sizeof(T))
      return fw_error(
          Errc::kParse, file_, "header_size_bytes %u is smaller than %s (%zu bytes) for header v%s",
          info_.header.header_size_bytes, struct_name, sizeof(T), info_.header_version().c_str());
    return read<T>(0, struct_name);
  }

  template <class T>
  Result<T> read(uint64_t offset, const char* what) {
    if (offset > size() || size() - offset < sizeof(T))
      return fw_error(Errc::kParse, file_,
                      "%s (%zu bytes at 0x%llx) runs past the end of the file (0x%llx bytes)", what,
                      sizeof(T), ull(offset), ull(size()));
    T t;
    std::memcpy(&t, bytes_.data() + offset, sizeof(T));
    return t;
  }

  // [offset, offset + size) must lie after the header and inside the file. `off_desc` and
  // `size_desc` name the fields the numbers come from.
  Status check_region(std::string_view what, uint64_t offset, const char* off_desc, uint64_t len,
                      const char* size_desc) const {
    const uint64_t end = offset + len;  // both < 2^36: no wrap
    if (offset < header_end_)
      return fw_error(Errc::kParse, file_,
                      "%.*s: offset 0x%llx (%s) lies inside the header (0x%llx bytes)",
                      int(what.size()), what.data(), ull(offset), off_desc, ull(header_end_));
    if (end > size())
      return fw_error(Errc::kParse, file_,
                      "%.*s: offset 0x%llx (%s) + size 0x%llx (%s) = 0x%llx runs past the end of "
                      "the file (0x%llx bytes)",
                      int(what.size()), what.data(), ull(offset), off_desc, ull(len), size_desc,
                      ull(end), ull(size()));
    return ok_status();
  }

  // Registers a checked region that no other region may overlap.
  Status region(std::string_view what, uint64_t offset, const char* off_desc, uint64_t len,
                const char* size_desc) {
    RG_TRY(check_region(what, offset, off_desc, len, size_desc));
    if (len != 0) regions_.push_back({what, offset, len});
    return ok_status();
  }

  // A blob of the output (size must be non-zero: callers skip optional empty ones or report
  // a required one with require_nonzero). `replica` blobs repeat a region already registered.
  Status blob(BlobPath path, psp_gfx_fw_type type, uint32_t component, std::string_view name,
              uint64_t offset, const char* off_desc, uint64_t len, const char* size_desc,
              bool replica = false) {
    if (replica)
      RG_TRY(check_region(name, offset, off_desc, len, size_desc));
    else
      RG_TRY(region(name, offset, off_desc, len, size_desc));
    FirmwareBlob b;
    b.path = path;
    b.gfx_type = type;
    b.component = component;
    b.name = name;
    b.offset = offset;
    b.size = len;
    b.bytes = bytes_.subspan(offset, len);
    info_.blobs.push_back(b);
    return ok_status();
  }
  Status ip_blob(psp_gfx_fw_type type, uint64_t offset, const char* off_desc, uint64_t len,
                 const char* size_desc, bool replica = false) {
    return blob(BlobPath::kIpFw, type, 0, gfx_fw_type_name(type), offset, off_desc, len, size_desc,
                replica);
  }

  Status require_nonzero(std::string_view what, uint64_t value, const char* field) const {
    if (value == 0)
      return fw_error(Errc::kParse, file_, "%.*s: %s is 0", int(what.size()), what.data(), field);
    return ok_status();
  }

  // A (dword offset, dword size) table inside [base, base + limit) bytes, e.g. a jump table in
  // its ucode.
  Status check_dword_table(const char* what, uint64_t dw_offset, uint64_t dw_size, uint64_t limit,
                           const char* limit_desc) const {
    if (dw_size == 0) return ok_status();
    const uint64_t end = 4 * (dw_offset + dw_size);
    if (end > limit)
      return fw_error(Errc::kParse, file_,
                      "%s: dwords [0x%llx, +0x%llx) end at byte 0x%llx, past %s (0x%llx bytes)",
                      what, ull(dw_offset), ull(dw_size), ull(end), limit_desc, ull(limit));
    return ok_status();
  }

  // No two registered regions overlap.
  Status check_overlaps() {
    std::sort(regions_.begin(), regions_.end(), [](const Region& a, const Region& b) {
      return a.offset != b.offset ? a.offset < b.offset : a.size < b.size;
    });
    for (size_t i = 1; i < regions_.size(); ++i) {
      const Region& a = regions_[i - 1];
      const Region& b = regions_[i];
      if (b.offset < a.offset + a.size)
        return fw_error(Errc::kParse, file_, "%.*s [0x%llx, 0x%llx) overlaps %.*s [0x%llx, 0x%llx)",
                        int(b.name.size()), b.name.data(), ull(b.offset), ull(b.offset + b.size),
                        int(a.name.size()), a.name.data(), ull(a.offset), ull(a.offset + a.size));
    }
    return ok_status();
  }

  Error unsupported_version() const {
    return fw_error(Errc::kUnsupported, file_, "header version %s is not a known %.*s header",
                    info_.header_version().c_str(), int(firmware_kind_name(info_.kind).size()),
                    firmware_kind_name(info_.kind).data());
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string file_;
  const ParseOptions& opt_;
  FirmwareInfo& info_;
  uint64_t header_end_ = sizeof(uc::common_firmware_header);
  std::vector<Region> regions_;
};

#define RG_FW_FIELD(h, member) p.info().fields.push_back({#member, (h).member})

// --- PSP ----------------------------------------------------------------------------------------

// The order the PSP bootloader takes SOS components in (amd.md §7.4), then the TOC (LOAD_TOC)
// and the register list (LOAD_IP_FW REG_LIST, GC 9).
constexpr uint32_t kSosOrder[] = {
    uc::PSP_FW_TYPE_PSP_KDB,     uc::PSP_FW_TYPE_PSP_SPL,          uc::PSP_FW_TYPE_PSP_SYS_DRV,
    uc::PSP_FW_TYPE_PSP_SOC_DRV, uc::PSP_FW_TYPE_PSP_INTF_DRV,     uc::PSP_FW_TYPE_PSP_DBG_DRV,
    uc::PSP_FW_TYPE_PSP_RAS_DRV, uc::PSP_FW_TYPE_PSP_IPKEYMGR_DRV, uc::PSP_FW_TYPE_PSP_SOS,
    uc::PSP_FW_TYPE_PSP_TOC,     uc::PSP_FW_TYPE_PSP_RL,
};

constexpr uint32_t kTaOrder[] = {
    uc::TA_FW_TYPE_PSP_ASD,           uc::TA_FW_TYPE_PSP_XGMI, uc::TA_FW_TYPE_PSP_RAS,
    uc::TA_FW_TYPE_PSP_HDCP,          uc::TA_FW_TYPE_PSP_DTM,  uc::TA_FW_TYPE_PSP_RAP,
    uc::TA_FW_TYPE_PSP_SECUREDISPLAY,
};

bool known_ta_type(uint32_t t) { return t > uc::TA_FW_TYPE_UNKOWN && t < uc::TA_FW_TYPE_MAX_INDEX; }

// The descriptor array of a PSP SOS/TA v2 header: `count` entries at `array_offset`.
Status read_descriptors(Parser& p, uint64_t array_offset, uint32_t count, bool sos) {
  const uint64_t limit = p.ucode_offset() > array_offset
                             ? (p.ucode_offset() - array_offset) / sizeof(uc::psp_fw_bin_desc)
                             : 0;
  if (count > limit)
    return fw_error(Errc::kParse, p.file(),
                    "%s %u: that many %zu-byte descriptors from 0x%llx do not fit before "
                    "ucode_array_offset_bytes 0x%llx (at most %llu)",
                    sos ? "psp_fw_bin_count" : "ta_fw_bin_count", count,
                    sizeof(uc::psp_fw_bin_desc), ull(array_offset), ull(p.ucode_offset()),
                    ull(limit));
  p.set_header_end(array_offset + uint64_t{count} * sizeof(uc::psp_fw_bin_desc));
  for (uint32_t i = 0; i < count; ++i) {
    const auto d = RG_TRY(p.read<uc::psp_fw_bin_desc>(
        array_offset + uint64_t{i} * sizeof(uc::psp_fw_bin_desc), "descriptor"));
    PspDescriptor pd;
    pd.index = i;
    pd.fw_type = d.fw_type;
    pd.type_name = sos ? psp_fw_type_name(d.fw_type) : ta_fw_type_name(d.fw_type);
    pd.fw_version = d.fw_version;
    pd.offset = p.ucode_offset() + d.offset_bytes;
    pd.size = d.size_bytes;
    const std::string what =
        strformat("descriptor %u (%.*s)", i, int(pd.type_name.size()), pd.type_name.data());
    RG_TRY(p.require_nonzero(what, pd.size, "size_bytes"));
    // Descriptor regions are registered once here; their blobs are replicas.
    RG_TRY(p.region(pd.type_name, pd.offset, "ucode_array_offset_bytes + offset_bytes", pd.size,
                    "size_bytes"));
    p.info().descriptors.push_back(pd);
  }
  return ok_status();
}

Status parse_sos_v2(Parser& p) {
  FirmwareInfo& info = p.info();
  const bool v21 = info.header.header_version_minor == 1;
  uint32_t count = 0;
  uint64_t array_offset = 0;
  if (v21) {
    const auto h = RG_TRY(p.header<uc::psp_firmware_header_v2_1>("psp_firmware_header_v2_1"));
    RG_FW_FIELD(h, psp_fw_bin_count);
    RG_FW_FIELD(h, psp_aux_fw_bin_index);
    count = h.psp_fw_bin_count;
    info.aux_index = h.psp_aux_fw_bin_index;
    array_offset = offsetof(uc::psp_firmware_header_v2_1, psp_fw_bin);
  } else {
    const auto h = RG_TRY(p.header<uc::psp_firmware_header_v2_0>("psp_firmware_header_v2_0"));
    RG_FW_FIELD(h, psp_fw_bin_count);
    count = h.psp_fw_bin_count;
    array_offset = offsetof(uc::psp_firmware_header_v2_0, psp_fw_bin);
  }
  RG_TRY(read_descriptors(p, array_offset, count, /*sos=*/true));

  // The selected set: all (v2.0), [0, aux) or [aux, count) (v2.1).
  uint32_t first = 0, last = count;
  if (info.aux_index) {
    if (*info.aux_index > count)
      return fw_error(Errc::kParse, p.file(), "psp_aux_fw_bin_index %u is past psp_fw_bin_count %u",
                      *info.aux_index, count);
    info.aux_selected = p.opt().sos_aux;
    if (p.opt().sos_aux)
      first = *info.aux_index;
    else
      last = *info.aux_index;
    for (PspDescriptor& d : info.descriptors) d.aux = d.index >= *info.aux_index;
  }
  if (first == last)
    return fw_error(Errc::kParse, p.file(), "the %s descriptor set [%u, %u) is empty",
                    info.aux_selected ? "aux" : "main", first, last);
  // One blob per type: a repeated type within the set is an error, not "the last one wins".
  for (uint32_t i = first; i < last; ++i)
    for (uint32_t j = first; j < i; ++j)
      if (info.descriptors[i].fw_type == info.descriptors[j].fw_type)
        return fw_error(Errc::kParse, p.file(), "descriptors %u and %u both have fw_type %u (%.*s)",
                        j, i, info.descriptors[i].fw_type,
                        int(info.descriptors[i].type_name.size()),
                        info.descriptors[i].type_name.data());
  for (uint32_t type : kSosOrder) {
    for (uint32_t i = first; i < last; ++i) {
      PspDescriptor& d = info.descriptors[i];
      if (d.fw_type != type) continue;
      d.loaded = true;
      const char* off = "ucode_array_offset_bytes + offset_bytes";
      if (type == uc::PSP_FW_TYPE_PSP_TOC)
        RG_TRY(p.blob(BlobPath::kToc, psp::GFX_FW_TYPE_NONE, type, d.type_name, d.offset, off,
                      d.size, "size_bytes", true));
      else if (type == uc::PSP_FW_TYPE_PSP_RL)
        RG_TRY(p.blob(BlobPath::kIpFw, psp::GFX_FW_TYPE_REG_LIST, type, d.type_name, d.offset, off,
                      d.size, "size_bytes", true));
      else
        RG_TRY(p.blob(BlobPath::kBootloader, psp::GFX_FW_TYPE_NONE, type, d.type_name, d.offset,
                      off, d.size, "size_bytes", true));
    }
  }
  return ok_status();
}

// SOS v1.0: SYS_DRV is the start of the ucode array, up to sos.offset_bytes; SOS follows.
Status parse_sos_v1(Parser& p) {
  const auto h = RG_TRY(p.header<uc::psp_firmware_header_v1_0>("psp_firmware_header_v1_0"));
  RG_FW_FIELD(h, sos.fw_version);
  RG_FW_FIELD(h, sos.offset_bytes);
  RG_FW_FIELD(h, sos.size_bytes);
  RG_TRY(p.require_nonzero("SYS_DRV", h.sos.offset_bytes, "sos.offset_bytes"));
  RG_TRY(p.require_nonzero("SOS", h.sos.size_bytes, "sos.size_bytes"));
  RG_TRY(p.blob(BlobPath::kBootloader, psp::GFX_FW_TYPE_NONE, uc::PSP_FW_TYPE_PSP_SYS_DRV,
                "SYS_DRV", p.ucode_offset(), "ucode_array_offset_bytes", h.sos.offset_bytes,
                "sos.offset_bytes"));
  return p.blob(BlobPath::kBootloader, psp::GFX_FW_TYPE_NONE, uc::PSP_FW_TYPE_PSP_SOS, "SOS",
                p.ucode_offset() + h.sos.offset_bytes,
                "ucode_array_offset_bytes + sos.offset_bytes", h.sos.size_bytes, "sos.size_bytes");
}

Status parse_ta(Parser& p) {
  const uint16_t major = p.info().header.header_version_major;
  const uint16_t minor = p.info().header.header_version_minor;
  if (major == 2 && minor == 0) {
    const auto h = RG_TRY(p.header<uc::ta_firmware_header_v2_0>("ta_firmware_header_v2_0"));
    RG_FW_FIELD(h, ta_fw_bin_count);
    RG_TRY(read_descriptors(p, offsetof(uc::ta_firmware_header_v2_0, ta_fw_bin), h.ta_fw_bin_count,
                            /*sos=*/false));
    auto& ds = p.info().descriptors;
    for (size_t i = 0; i < ds.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (ds[i].fw_type == ds[j].fw_type)
          return fw_error(Errc::kParse, p.file(),
                          "descriptors %zu and %zu both have fw_type %u (%.*s)", j, i,
                          ds[i].fw_type, int(ds[i].type_name.size()), ds[i].type_name.data());
    for (uint32_t type : kTaOrder)
      for (PspDescriptor& d : ds) {
        if (d.fw_type != type || !known_ta_type(type)) continue;
        d.loaded = true;
        RG_TRY(p.blob(BlobPath::kTa, psp::GFX_FW_TYPE_NONE, type, d.type_name, d.offset,
                      "ucode_array_offset_bytes + offset_bytes", d.size, "size_bytes", true));
      }
    return ok_status();
  }
  if (major == 1 && minor == 0) {
    // Each legacy descriptor's offset is relative to the ucode array; empty ones are absent.
    const auto h = RG_TRY(p.header<uc::ta_firmware_header_v1_0>("ta_firmware_header_v1_0"));
    struct Legacy {
      const uc::psp_fw_legacy_bin_desc& d;
      uint32_t type;
      const char *version, *off, *size;
    };
    const Legacy all[] = {
        {h.xgmi, uc::TA_FW_TYPE_PSP_XGMI, "xgmi.fw_version",
         "ucode_array_offset_bytes + xgmi.offset_bytes", "xgmi.size_bytes"},
        {h.ras, uc::TA_FW_TYPE_PSP_RAS, "ras.fw_version",
         "ucode_array_offset_bytes + ras.offset_bytes", "ras.size_bytes"},
        {h.hdcp, uc::TA_FW_TYPE_PSP_HDCP, "hdcp.fw_version",
         "ucode_array_offset_bytes + hdcp.offset_bytes", "hdcp.size_bytes"},
        {h.dtm, uc::TA_FW_TYPE_PSP_DTM, "dtm.fw_version",
         "ucode_array_offset_bytes + dtm.offset_bytes", "dtm.size_bytes"},
        {h.securedisplay, uc::TA_FW_TYPE_PSP_SECUREDISPLAY, "securedisplay.fw_version",
         "ucode_array_offset_bytes + securedisplay.offset_bytes", "securedisplay.size_bytes"},
    };
    for (const Legacy& l : all) {
      p.info().fields.push_back({l.version, l.d.fw_version});
      if (l.d.size_bytes == 0) continue;
      RG_TRY(p.blob(BlobPath::kTa, psp::GFX_FW_TYPE_NONE, l.type, ta_fw_type_name(l.type),
                    p.ucode_offset() + l.d.offset_bytes, l.off, l.d.size_bytes, l.size));
    }
    return ok_status();
  }
  return p.unsupported_version();
}

// A file whose ucode array is one blob (PSP TOC/ASD, GC TOC).
Status parse_single(Parser& p, BlobPath path, uint32_t component, std::string_view name) {
  if (p.info().header.header_version_major != 1 || p.info().header.header_version_minor != 0)
    return p.unsupported_version();
  if (p.info().kind != FirmwareKind::kGcToc) {
    const auto h = RG_TRY(p.header<uc::psp_firmware_header_v1_0>("psp_firmware_header_v1_0"));
    RG_FW_FIELD(h, sos.fw_version);
    RG_FW_FIELD(h, sos.offset_bytes);
    RG_FW_FIELD(h, sos.size_bytes);
  }
  RG_TRY(p.require_nonzero(name, p.ucode_size(), "ucode_size_bytes"));
  return p.blob(path, psp::GFX_FW_TYPE_NONE, component, name, p.ucode_offset(),
                "ucode_array_offset_bytes", p.ucode_size(), "ucode_size_bytes");
}

// --- SMC ----------------------------------------------------------------------------------------

bool is_p2s_id(uint32_t id) { return (id >> 8) == 0x503253; }  // "P2S?" read as a big-endian u32

Status parse_smc(Parser& p) {
  FirmwareInfo& info = p.info();
  const uint16_t major = info.header.header_version_major;
  const uint16_t minor = info.header.header_version_minor;
  if (!((major == 1 && minor == 0) || (major == 2 && minor <= 1))) return p.unsupported_version();
  const auto v1 = RG_TRY(p.header<uc::smc_firmware_header_v1_0>("smc_firmware_header_v1_0"));
  RG_FW_FIELD(v1, ucode_start_addr);
  info.smu_start_addr = v1.ucode_start_addr;
  // The SMU image; MI300's file has none (ucode_size_bytes 0).
  if (p.ucode_size() != 0)
    RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_SMU, p.ucode_offset(), "ucode_array_offset_bytes",
                     p.ucode_size(), "ucode_size_bytes"));
  if (major == 2 && minor == 0) {
    const auto h = RG_TRY(p.header<uc::smc_firmware_header_v2_0>("smc_firmware_header_v2_0"));
    RG_FW_FIELD(h, ppt_offset_bytes);
    RG_FW_FIELD(h, ppt_size_bytes);
    if (h.ppt_size_bytes != 0) {
      RG_TRY(p.region("pptable", h.ppt_offset_bytes, "ppt_offset_bytes", h.ppt_size_bytes,
                      "ppt_size_bytes"));
      info.pptables.push_back({0, false, h.ppt_offset_bytes, h.ppt_size_bytes, {}});
    }
  } else if (major == 2 && minor == 1) {
    const auto h = RG_TRY(p.header<uc::smc_firmware_header_v2_1>("smc_firmware_header_v2_1"));
    RG_FW_FIELD(h, pptable_count);
    RG_FW_FIELD(h, pptable_entry_offset);
    const uint64_t entry = sizeof(uc::smc_soft_pptable_entry);
    const uint64_t off = h.pptable_entry_offset;
    const uint64_t limit = off <= p.size() ? (p.size() - off) / entry : 0;
    if (h.pptable_count > limit)
      return fw_error(Errc::kParse, p.file(),
                      "pptable_count %u: that many %llu-byte entries from pptable_entry_offset "
                      "0x%llx do not fit in the file (0x%llx bytes; at most %llu)",
                      h.pptable_count, ull(entry), ull(off), ull(p.size()), ull(limit));
    if (h.pptable_count != 0)
      RG_TRY(p.region("pptable entries", off, "pptable_entry_offset", h.pptable_count * entry,
                      "pptable_count * 12"));
    for (uint32_t i = 0; i < h.pptable_count; ++i) {
      const auto e = RG_TRY(p.read<uc::smc_soft_pptable_entry>(off + i * entry, "pptable entry"));
      const std::string what = strformat("pptable %u (id 0x%x)", i, e.id);
      RG_TRY(p.require_nonzero(what, e.ppt_size_bytes, "ppt_size_bytes"));
      RG_TRY(p.region(is_p2s_id(e.id) ? "P2S table" : "pptable", e.ppt_offset_bytes,
                      "ppt_offset_bytes", e.ppt_size_bytes, "ppt_size_bytes"));
      for (const Pptable& t : info.pptables)
        if (t.id == e.id)
          return fw_error(Errc::kParse, p.file(), "two pptables have id 0x%x", e.id);
      info.pptables.push_back({e.id, is_p2s_id(e.id), e.ppt_offset_bytes, e.ppt_size_bytes, {}});
    }
    // P2S tables: the selected one is loaded (amd.md §4.2, SMC).
    bool any_p2s = false;
    std::string ids;
    for (const Pptable& t : info.pptables) {
      if (!t.p2s) continue;
      any_p2s = true;
      ids += strformat("%s0x%08x", ids.empty() ? "" : ", ", t.id);
    }
    if (any_p2s) {
      const Pptable* sel = info.find_pptable(p.opt().p2s_table_id);
      if (sel == nullptr)
        return fw_error(Errc::kNotFound, p.file(), "no P2S table with id 0x%08x (the file has %s)",
                        p.opt().p2s_table_id, ids.c_str());
      RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_P2S_TABLE, sel->offset, "ppt_offset_bytes", sel->size,
                       "ppt_size_bytes", /*replica=*/true));
    }
  }
  return ok_status();
}

// --- SDMA ---------------------------------------------------------------------------------------

constexpr psp_gfx_fw_type kSdmaTypes[8] = {
    psp::GFX_FW_TYPE_SDMA0, psp::GFX_FW_TYPE_SDMA1, psp::GFX_FW_TYPE_SDMA2, psp::GFX_FW_TYPE_SDMA3,
    psp::GFX_FW_TYPE_SDMA4, psp::GFX_FW_TYPE_SDMA5, psp::GFX_FW_TYPE_SDMA6, psp::GFX_FW_TYPE_SDMA7,
};

Status parse_sdma(Parser& p) {
  FirmwareInfo& info = p.info();
  const uint16_t major = info.header.header_version_major;
  const uint16_t minor = info.header.header_version_minor;
  if (major == 1 && minor <= 1) {
    const auto h = RG_TRY(p.header<uc::sdma_firmware_header_v1_0>("sdma_firmware_header_v1_0"));
    RG_FW_FIELD(h, ucode_feature_version);
    RG_FW_FIELD(h, ucode_change_version);
    RG_FW_FIELD(h, jt_offset);
    RG_FW_FIELD(h, jt_size);
    if (minor == 1) {
      const auto h1 = RG_TRY(p.header<uc::sdma_firmware_header_v1_1>("sdma_firmware_header_v1_1"));
      RG_FW_FIELD(h1, digest_size);
    }
    info.feature_version = h.ucode_feature_version;
    RG_TRY(p.require_nonzero("SDMA", p.ucode_size(), "ucode_size_bytes"));
    RG_TRY(p.check_dword_table("jump table (jt_offset, jt_size)", h.jt_offset, h.jt_size,
                               p.ucode_size(), "ucode_size_bytes"));
    const unsigned n = p.opt().sdma_instances;
    if (n < 1 || n > 8)
      return fw_error(Errc::kInvalidArgument, p.file(),
                      "sdma_instances %u: the PSP has load types for SDMA0..SDMA7 only", n);
    // The same image once per engine.
    for (unsigned i = 0; i < n; ++i)
      RG_TRY(p.ip_blob(kSdmaTypes[i], p.ucode_offset(), "ucode_array_offset_bytes", p.ucode_size(),
                       "ucode_size_bytes", /*replica=*/i > 0));
    return ok_status();
  }
  if (major == 2 && minor == 0) {
    const auto h = RG_TRY(p.header<uc::sdma_firmware_header_v2_0>("sdma_firmware_header_v2_0"));
    RG_FW_FIELD(h, ucode_feature_version);
    RG_FW_FIELD(h, ctx_ucode_size_bytes);
    RG_FW_FIELD(h, ctx_jt_offset);
    RG_FW_FIELD(h, ctx_jt_size);
    RG_FW_FIELD(h, ctl_ucode_offset);
    RG_FW_FIELD(h, ctl_ucode_size_bytes);
    RG_FW_FIELD(h, ctl_jt_offset);
    RG_FW_FIELD(h, ctl_jt_size);
    info.feature_version = h.ucode_feature_version;
    RG_TRY(p.require_nonzero("SDMA_UCODE_TH0", h.ctx_ucode_size_bytes, "ctx_ucode_size_bytes"));
    RG_TRY(p.check_dword_table("context jump table (ctx_jt_offset, ctx_jt_size)", h.ctx_jt_offset,
                               h.ctx_jt_size, h.ctx_ucode_size_bytes, "ctx_ucode_size_bytes"));
    RG_TRY(p.check_dword_table("control jump table (ctl_jt_offset, ctl_jt_size)", h.ctl_jt_offset,
                               h.ctl_jt_size, h.ctl_ucode_size_bytes, "ctl_ucode_size_bytes"));
    // TH0 (context) at the ucode array; TH1 (control) at its own file offset.
    RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_SDMA_UCODE_TH0, p.ucode_offset(), "ucode_array_offset_bytes",
                     h.ctx_ucode_size_bytes, "ctx_ucode_size_bytes"));
    if (h.ctl_ucode_size_bytes != 0)
      RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_SDMA_UCODE_TH1, h.ctl_ucode_offset, "ctl_ucode_offset",
                       h.ctl_ucode_size_bytes, "ctl_ucode_size_bytes"));
    return ok_status();
  }
  if (major == 3 && minor == 0) {
    const auto h = RG_TRY(p.header<uc::sdma_firmware_header_v3_0>("sdma_firmware_header_v3_0"));
    RG_FW_FIELD(h, ucode_feature_version);
    RG_FW_FIELD(h, ucode_offset_bytes);
    RG_FW_FIELD(h, ucode_size_bytes);
    info.feature_version = h.ucode_feature_version;
    RG_TRY(p.check_region("ucode (sdma_firmware_header_v3_0)", h.ucode_offset_bytes,
                          "ucode_offset_bytes", h.ucode_size_bytes, "ucode_size_bytes"));
    RG_TRY(p.require_nonzero("SDMA_UCODE_TH0", p.ucode_size(), "ucode_size_bytes"));
    return p.ip_blob(psp::GFX_FW_TYPE_SDMA_UCODE_TH0, p.ucode_offset(), "ucode_array_offset_bytes",
                     p.ucode_size(), "ucode_size_bytes");
  }
  return p.unsupported_version();
}

// --- GFX (PFP, ME, MEC) -------------------------------------------------------------------------

Status parse_gfx(Parser& p) {
  FirmwareInfo& info = p.info();
  const FirmwareKind kind = info.kind;
  const uint16_t major = info.header.header_version_major;
  const uint16_t minor = info.header.header_version_minor;
  if (major == 1 && minor == 0) {
    // F32 engines: PFP and ME take the whole ucode; MEC's jump table (the ucode's tail) goes
    // separately as MEC_ME1.
    const auto h = RG_TRY(p.header<uc::gfx_firmware_header_v1_0>("gfx_firmware_header_v1_0"));
    RG_FW_FIELD(h, ucode_feature_version);
    RG_FW_FIELD(h, jt_offset);
    RG_FW_FIELD(h, jt_size);
    info.feature_version = h.ucode_feature_version;
    RG_TRY(p.check_dword_table("jump table (jt_offset, jt_size)", h.jt_offset, h.jt_size,
                               p.ucode_size(), "ucode_size_bytes"));
    if (kind != FirmwareKind::kGfxMec) {
      const psp_gfx_fw_type t =
          kind == FirmwareKind::kGfxPfp ? psp::GFX_FW_TYPE_CP_PFP : psp::GFX_FW_TYPE_CP_ME;
      RG_TRY(p.require_nonzero(gfx_fw_type_name(t), p.ucode_size(), "ucode_size_bytes"));
      return p.ip_blob(t, p.ucode_offset(), "ucode_array_offset_bytes", p.ucode_size(),
                       "ucode_size_bytes");
    }
    RG_TRY(p.require_nonzero("CP_MEC", p.ucode_size(), "ucode_size_bytes"));
    const uint64_t jt_bytes = 4 * uint64_t{h.jt_size};
    if (jt_bytes >= p.ucode_size())
      return fw_error(Errc::kParse, p.file(),
                      "CP_MEC: jt_size %u dwords (0x%llx bytes) leaves no code in "
                      "ucode_size_bytes 0x%llx",
                      h.jt_size, ull(jt_bytes), ull(p.ucode_size()));
    RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_CP_MEC, p.ucode_offset(), "ucode_array_offset_bytes",
                     p.ucode_size() - jt_bytes, "ucode_size_bytes - 4 * jt_size"));
    if (h.jt_size != 0)
      RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_CP_MEC_ME1, p.ucode_offset() + 4 * uint64_t{h.jt_offset},
                       "ucode_array_offset_bytes + 4 * jt_offset", jt_bytes, "4 * jt_size"));
    return ok_status();
  }
  if (major == 2 && minor == 0) {
    // RS64: code at the ucode array, stack/data at data_offset_bytes, a 64-bit entry point.
    const auto h = RG_TRY(p.header<uc::gfx_firmware_header_v2_0>("gfx_firmware_header_v2_0"));
    RG_FW_FIELD(h, ucode_feature_version);
    RG_FW_FIELD(h, ucode_size_bytes);
    RG_FW_FIELD(h, ucode_offset_bytes);
    RG_FW_FIELD(h, data_size_bytes);
    RG_FW_FIELD(h, data_offset_bytes);
    RG_FW_FIELD(h, ucode_start_addr_lo);
    RG_FW_FIELD(h, ucode_start_addr_hi);
    info.feature_version = h.ucode_feature_version;
    info.entry_point = uint64_t{h.ucode_start_addr_hi} << 32 | h.ucode_start_addr_lo;
    psp_gfx_fw_type code, stacks[4];
    unsigned pipes;
    if (kind == FirmwareKind::kGfxPfp) {
      code = psp::GFX_FW_TYPE_RS64_PFP;
      stacks[0] = psp::GFX_FW_TYPE_RS64_PFP_P0_STACK;
      stacks[1] = psp::GFX_FW_TYPE_RS64_PFP_P1_STACK;
      pipes = 2;
    } else if (kind == FirmwareKind::kGfxMe) {
      code = psp::GFX_FW_TYPE_RS64_ME;
      stacks[0] = psp::GFX_FW_TYPE_RS64_ME_P0_STACK;
      stacks[1] = psp::GFX_FW_TYPE_RS64_ME_P1_STACK;
      pipes = 2;
    } else {
      code = psp::GFX_FW_TYPE_RS64_MEC;
      stacks[0] = psp::GFX_FW_TYPE_RS64_MEC_P0_STACK;
      stacks[1] = psp::GFX_FW_TYPE_RS64_MEC_P1_STACK;
      stacks[2] = psp::GFX_FW_TYPE_RS64_MEC_P2_STACK;
      stacks[3] = psp::GFX_FW_TYPE_RS64_MEC_P3_STACK;
      pipes = 4;
    }
    RG_TRY(p.require_nonzero(gfx_fw_type_name(code), h.ucode_size_bytes, "ucode_size_bytes"));
    RG_TRY(p.ip_blob(code, p.ucode_offset(), "ucode_array_offset_bytes", h.ucode_size_bytes,
                     "ucode_size_bytes (gfx_firmware_header_v2_0)"));
    if (h.data_size_bytes != 0) {
      if (!p.opt().rs64_all_pipe_stacks) pipes = 1;
      for (unsigned i = 0; i < pipes; ++i)
        RG_TRY(p.ip_blob(stacks[i], h.data_offset_bytes, "data_offset_bytes", h.data_size_bytes,
                         "data_size_bytes", /*replica=*/i > 0));
    }
    return ok_status();
  }
  return p.unsupported_version();
}

// --- IMU ----------------------------------------------------------------------------------------

Status parse_imu(Parser& p) {
  if (p.info().header.header_version_major != 1 || p.info().header.header_version_minor != 0)
    return p.unsupported_version();
  const auto h = RG_TRY(p.header<uc::imu_firmware_header_v1_0>("imu_firmware_header_v1_0"));
  RG_FW_FIELD(h, imu_iram_ucode_size_bytes);
  RG_FW_FIELD(h, imu_iram_ucode_offset_bytes);
  RG_FW_FIELD(h, imu_dram_ucode_size_bytes);
  RG_FW_FIELD(h, imu_dram_ucode_offset_bytes);
  // IRAM at the ucode array, DRAM right after it (amd.md; Linux ignores the offset fields).
  RG_TRY(p.require_nonzero("IMU_I", h.imu_iram_ucode_size_bytes, "imu_iram_ucode_size_bytes"));
  RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_IMU_I, p.ucode_offset(), "ucode_array_offset_bytes",
                   h.imu_iram_ucode_size_bytes, "imu_iram_ucode_size_bytes"));
  if (h.imu_dram_ucode_size_bytes != 0)
    RG_TRY(p.ip_blob(psp::GFX_FW_TYPE_IMU_D, p.ucode_offset() + h.imu_iram_ucode_size_bytes,
                     "ucode_array_offset_bytes + imu_iram_ucode_size_bytes",
                     h.imu_dram_ucode_size_bytes, "imu_dram_ucode_size_bytes"));
  return ok_status();
}

// --- RLC ----------------------------------------------------------------------------------------

// A region of an RLC header named by its `<prefix>_size_bytes` / `<prefix>_offset_bytes` pair
// (file offsets).
struct RlcRegion {
  psp_gfx_fw_type type;
  const char* name;
  uint32_t offset, size;
  const char *off_desc, *size_desc;
};
#define RG_RLC_REGION(type, h, prefix)                          \
  RlcRegion{psp::GFX_FW_TYPE_##type,   #prefix,                 \
            (h).prefix##_offset_bytes, (h).prefix##_size_bytes, \
            #prefix "_offset_bytes",   #prefix "_size_bytes"}
#define RG_FW_PAIR(h, prefix)          \
  RG_FW_FIELD(h, prefix##_size_bytes); \
  RG_FW_FIELD(h, prefix##_offset_bytes)
#define RG_FW_LIST(h, prefix)                               \
  RG_FW_FIELD(h, save_restore_list_##prefix##_ucode_ver);   \
  RG_FW_FIELD(h, save_restore_list_##prefix##_feature_ver); \
  RG_FW_PAIR(h, save_restore_list_##prefix)

Status parse_rlc(Parser& p) {
  FirmwareInfo& info = p.info();
  const uint16_t minor = info.header.header_version_minor;
  if (info.header.header_version_major != 2 || minor > 4) return p.unsupported_version();
  const auto h0 = RG_TRY(p.header<uc::rlc_firmware_header_v2_0>("rlc_firmware_header_v2_0"));
  RG_FW_FIELD(h0, ucode_feature_version);
  RG_FW_FIELD(h0, jt_offset);
  RG_FW_FIELD(h0, jt_size);
  RG_FW_FIELD(h0, save_and_restore_offset);
  RG_FW_FIELD(h0, clear_state_descriptor_offset);
  RG_FW_FIELD(h0, avail_scratch_ram_locations);
  RG_FW_FIELD(h0, reg_restore_list_size);
  RG_FW_FIELD(h0, reg_list_format_start);
  RG_FW_FIELD(h0, reg_list_format_separate_start);
  RG_FW_FIELD(h0, starting_offsets_start);
  RG_FW_FIELD(h0, reg_list_format_size_bytes);
  RG_FW_FIELD(h0, reg_list_format_array_offset_bytes);
  RG_FW_FIELD(h0, reg_list_size_bytes);
  RG_FW_FIELD(h0, reg_list_array_offset_bytes);
  RG_FW_FIELD(h0, reg_list_format_separate_size_bytes);
  RG_FW_FIELD(h0, reg_list_format_separate_array_offset_bytes);
  RG_FW_FIELD(h0, reg_list_separate_size_bytes);
  RG_FW_FIELD(h0, reg_list_separate_array_offset_bytes);
  info.feature_version = h0.ucode_feature_version;
  RG_TRY(p.require_nonzero("RLC_G", p.ucode_size(), "ucode_size_bytes"));
  RG_TRY(p.check_dword_table("jump table (jt_offset, jt_size)", h0.jt_offset, h0.jt_size,
                             p.ucode_size(), "ucode_size_bytes"));
  // The register lists the driver programs itself, when present: in the file, overlapping
  // nothing, but not PSP blobs.
#define RG_RLC_LIST(list)                                       \
  RlcRegion{psp::GFX_FW_TYPE_NONE,        #list,                \
            h0.list##_array_offset_bytes, h0.list##_size_bytes, \
            #list "_array_offset_bytes",  #list "_size_bytes"}
  const RlcRegion lists[] = {RG_RLC_LIST(reg_list_format), RG_RLC_LIST(reg_list),
                             RG_RLC_LIST(reg_list_format_separate), RG_RLC_LIST(reg_list_separate)};
#undef RG_RLC_LIST
  for (const RlcRegion& l : lists)
    if (l.size != 0) RG_TRY(p.region(l.name, l.offset, l.off_desc, l.size, l.size_desc));

  // Every optional region goes out when its size is non-zero, in PSP order: tap delays (v2.4),
  // restore lists (v2.1+; Linux sends them for every minor >= 1, tinygrad only for 2.1), IRAM
  // and DRAM (v2.2+), RLC_P and RLC_V (v2.3+), RLC_G last.
  std::vector<RlcRegion> taps, rest;
  if (minor >= 1) {
    const auto h = RG_TRY(p.header<uc::rlc_firmware_header_v2_1>("rlc_firmware_header_v2_1"));
    RG_FW_FIELD(h, reg_list_format_direct_reg_list_length);
    RG_FW_LIST(h, cntl);
    RG_FW_LIST(h, gpm);
    RG_FW_LIST(h, srm);
    rest.push_back(RG_RLC_REGION(RLC_RESTORE_LIST_SRM_CNTL, h, save_restore_list_cntl));
    rest.push_back(RG_RLC_REGION(RLC_RESTORE_LIST_GPM_MEM, h, save_restore_list_gpm));
    rest.push_back(RG_RLC_REGION(RLC_RESTORE_LIST_SRM_MEM, h, save_restore_list_srm));
  }
  if (minor >= 2) {
    const auto h = RG_TRY(p.header<uc::rlc_firmware_header_v2_2>("rlc_firmware_header_v2_2"));
    RG_FW_PAIR(h, rlc_iram_ucode);
    RG_FW_PAIR(h, rlc_dram_ucode);
    rest.push_back(RG_RLC_REGION(RLC_IRAM, h, rlc_iram_ucode));
    rest.push_back(RG_RLC_REGION(RLC_DRAM_BOOT, h, rlc_dram_ucode));
  }
  if (minor >= 3) {
    const auto h = RG_TRY(p.header<uc::rlc_firmware_header_v2_3>("rlc_firmware_header_v2_3"));
    RG_FW_FIELD(h, rlcp_ucode_version);
    RG_FW_FIELD(h, rlcp_ucode_feature_version);
    RG_FW_PAIR(h, rlcp_ucode);
    RG_FW_FIELD(h, rlcv_ucode_version);
    RG_FW_FIELD(h, rlcv_ucode_feature_version);
    RG_FW_PAIR(h, rlcv_ucode);
    rest.push_back(RG_RLC_REGION(RLC_P, h, rlcp_ucode));
    rest.push_back(RG_RLC_REGION(RLC_V, h, rlcv_ucode));
  }
  if (minor >= 4) {
    const auto h = RG_TRY(p.header<uc::rlc_firmware_header_v2_4>("rlc_firmware_header_v2_4"));
    RG_FW_PAIR(h, global_tap_delays_ucode);
    RG_FW_PAIR(h, se0_tap_delays_ucode);
    RG_FW_PAIR(h, se1_tap_delays_ucode);
    RG_FW_PAIR(h, se2_tap_delays_ucode);
    RG_FW_PAIR(h, se3_tap_delays_ucode);
    taps = {RG_RLC_REGION(GLOBAL_TAP_DELAYS, h, global_tap_delays_ucode),
            RG_RLC_REGION(SE0_TAP_DELAYS, h, se0_tap_delays_ucode),
            RG_RLC_REGION(SE1_TAP_DELAYS, h, se1_tap_delays_ucode),
            RG_RLC_REGION(SE2_TAP_DELAYS, h, se2_tap_delays_ucode),
            RG_RLC_REGION(SE3_TAP_DELAYS, h, se3_tap_delays_ucode)};
  }
  for (const auto* group : {&taps, &rest})
    for (const RlcRegion& r : *group)
      if (r.size != 0) RG_TRY(p.ip_blob(r.type, r.offset, r.off_desc, r.size, r.size_desc));
  return p.ip_blob(psp::GFX_FW_TYPE_RLC_G, p.ucode_offset(), "ucode_array_offset_bytes",
                   p.ucode_size(), "ucode_size_bytes");
}

// --- MES ----------------------------------------------------------------------------------------

Status parse_mes(Parser& p) {
  FirmwareInfo& info = p.info();
  if (info.header.header_version_major != 1 || info.header.header_version_minor != 0)
    return p.unsupported_version();
  const auto h = RG_TRY(p.header<uc::mes_firmware_header_v1_0>("mes_firmware_header_v1_0"));
  RG_FW_FIELD(h, mes_ucode_version);
  RG_FW_FIELD(h, mes_ucode_size_bytes);
  RG_FW_FIELD(h, mes_ucode_offset_bytes);
  RG_FW_FIELD(h, mes_ucode_data_version);
  RG_FW_FIELD(h, mes_ucode_data_size_bytes);
  RG_FW_FIELD(h, mes_ucode_data_offset_bytes);
  RG_FW_FIELD(h, mes_uc_start_addr_lo);
  RG_FW_FIELD(h, mes_uc_start_addr_hi);
  RG_FW_FIELD(h, mes_data_start_addr_lo);
  RG_FW_FIELD(h, mes_data_start_addr_hi);
  info.entry_point = uint64_t{h.mes_uc_start_addr_hi} << 32 | h.mes_uc_start_addr_lo;
  info.data_entry_point = uint64_t{h.mes_data_start_addr_hi} << 32 | h.mes_data_start_addr_lo;
  const bool kiq = info.kind == FirmwareKind::kMesKiq;
  const psp_gfx_fw_type code = kiq ? psp::GFX_FW_TYPE_CP_MES_KIQ : psp::GFX_FW_TYPE_CP_MES;
  const psp_gfx_fw_type data = kiq ? psp::GFX_FW_TYPE_MES_KIQ_STACK : psp::GFX_FW_TYPE_MES_STACK;
  RG_TRY(p.require_nonzero(gfx_fw_type_name(code), h.mes_ucode_size_bytes, "mes_ucode_size_bytes"));
  RG_TRY(p.ip_blob(code, h.mes_ucode_offset_bytes, "mes_ucode_offset_bytes", h.mes_ucode_size_bytes,
                   "mes_ucode_size_bytes"));
  if (h.mes_ucode_data_size_bytes != 0)
    RG_TRY(p.ip_blob(data, h.mes_ucode_data_offset_bytes, "mes_ucode_data_offset_bytes",
                     h.mes_ucode_data_size_bytes, "mes_ucode_data_size_bytes"));
  return ok_status();
}

// Kinds whose every firmware-amd-graphics file carries the CRC-32 of [32, size_bytes).
bool crc32_promised(FirmwareKind k) {
  switch (k) {
    case FirmwareKind::kPspSos:
    case FirmwareKind::kPspTa:
    case FirmwareKind::kSdma:
    case FirmwareKind::kGfxPfp:
    case FirmwareKind::kGfxMe:
    case FirmwareKind::kGfxMec:
    case FirmwareKind::kImu:
    case FirmwareKind::kMes:
    case FirmwareKind::kMesKiq: return true;
    default: return false;  // RLC v2.2/2.3, SMC, TOC, ASD: something else, not found
  }
}

}  // namespace

// --- entry points -------------------------------------------------------------------------------

Result<uc::common_firmware_header> parse_common_header(std::span<const uint8_t> bytes,
                                                       std::string_view file_name) {
  const std::string file = label(file_name);
  using H = uc::common_firmware_header;
  if (bytes.size() < sizeof(H))
    return fw_error(Errc::kParse, file,
                    "file is %zu bytes, shorter than the %zu-byte common_firmware_header",
                    bytes.size(), sizeof(H));
  H h;
  std::memcpy(&h, bytes.data(), sizeof(H));
  const uint64_t size = bytes.size();
  // Linux (amdgpu_ucode_validate) and every firmware-amd-graphics file: size_bytes is the file.
  if (h.size_bytes != size)
    return fw_error(Errc::kParse, file, "size_bytes 0x%x does not match the file size 0x%llx%s",
                    h.size_bytes, ull(size),
                    h.size_bytes > size ? " (truncated file?)" : " (trailing bytes?)");
  if (h.header_size_bytes < sizeof(H) || h.header_size_bytes > size)
    return fw_error(Errc::kParse, file,
                    "header_size_bytes 0x%x is outside [0x%zx, file size 0x%llx]",
                    h.header_size_bytes, sizeof(H), ull(size));
  const uint64_t uo = h.ucode_array_offset_bytes, us = h.ucode_size_bytes;
  if (uo + us > size)
    return fw_error(Errc::kParse, file,
                    "ucode_array_offset_bytes 0x%llx + ucode_size_bytes 0x%llx = 0x%llx runs "
                    "past the end of the file (0x%llx bytes)",
                    ull(uo), ull(us), ull(uo + us), ull(size));
  if (us != 0 && uo < h.header_size_bytes)
    return fw_error(Errc::kParse, file,
                    "ucode_array_offset_bytes 0x%llx lies inside the header (header_size_bytes "
                    "0x%x)",
                    ull(uo), h.header_size_bytes);
  return h;
}

Result<FirmwareInfo> parse_firmware(FirmwareKind kind, std::span<const uint8_t> bytes,
                                    std::string_view file_name, const ParseOptions& options) {
  FirmwareInfo info;
  info.file_name = label(file_name);
  info.kind = kind;
  info.file_size = bytes.size();
  info.header = RG_TRY(parse_common_header(bytes, file_name));
  Parser p(bytes, info.file_name, options, info);
  p.set_header_end(info.header.header_size_bytes);
  const uint16_t major = info.header.header_version_major;
  const uint16_t minor = info.header.header_version_minor;
  Status st;
  switch (kind) {
    case FirmwareKind::kPspSos:
      if (major == 2 && minor <= 1)
        st = parse_sos_v2(p);
      else if (major == 1 && minor == 0)
        st = parse_sos_v1(p);
      else
        st = p.unsupported_version();
      break;
    case FirmwareKind::kPspTa: st = parse_ta(p); break;
    case FirmwareKind::kPspToc: st = parse_single(p, BlobPath::kToc, 0, "TOC"); break;
    case FirmwareKind::kPspAsd:
      st = parse_single(p, BlobPath::kTa, uc::TA_FW_TYPE_PSP_ASD, "ASD");
      break;
    case FirmwareKind::kGcToc: st = parse_single(p, BlobPath::kNone, 0, "RLC_TOC"); break;
    case FirmwareKind::kSmc: st = parse_smc(p); break;
    case FirmwareKind::kSdma: st = parse_sdma(p); break;
    case FirmwareKind::kGfxPfp:
    case FirmwareKind::kGfxMe:
    case FirmwareKind::kGfxMec: st = parse_gfx(p); break;
    case FirmwareKind::kImu: st = parse_imu(p); break;
    case FirmwareKind::kRlc: st = parse_rlc(p); break;
    case FirmwareKind::kMes:
    case FirmwareKind::kMesKiq: st = parse_mes(p); break;
  }
  if (!st.ok()) return std::move(st).take_error();
  if (info.blobs.empty())  // e.g. an SMC file without image and without P2S table
    return fw_error(Errc::kParse, info.file_name,
                    "nothing to load: no region of this %.*s file has a non-zero size",
                    int(firmware_kind_name(kind).size()), firmware_kind_name(kind).data());
  RG_TRY(p.check_overlaps());
  for (Pptable& t : info.pptables) t.bytes = bytes.subspan(t.offset, t.size);

  // crc32: checked last, so a structural error is reported as such.
  info.computed_crc32 = llvm::crc32(llvm::ArrayRef<uint8_t>(bytes.data(), bytes.size())
                                        .drop_front(sizeof(uc::common_firmware_header)));
  const bool match = info.computed_crc32 == info.header.crc32;
  if (crc32_promised(kind) && options.verify_crc32) {
    if (!match)
      return std::move(
          fw_error(Errc::kParse, info.file_name,
                   "crc32 0x%08x does not match the CRC-32 0x%08x of bytes [0x20, 0x%llx)",
                   info.header.crc32, info.computed_crc32, ull(bytes.size()))
              .with_hint("the file is corrupt or was modified; reinstall firmware-amd-graphics"));
    info.crc32_check = Crc32Check::kVerified;
  } else {
    info.crc32_check = match ? Crc32Check::kMatches : Crc32Check::kNotChecked;
  }
  return info;
}

}  // namespace rawgpu::drivers::amd
