// `rawgpu fwinfo FILE`: decodes an amdgpu firmware file (.bin or .bin.zst) with the AM driver's
// own loader and parsers (drivers/amd/firmware.h): file, size, SHA-256, header and IP versions,
// ucode version and feature, the crc32 check, every blob in PSP order (load path, type, name,
// offset, size) and the kind's details (SOS descriptors and aux set, entry points, pptables, the
// raw header fields), as text or JSON.
#include <llvm/Support/JSON.h>

#include <sstream>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/firmware.h"

namespace rawgpu::tools {
namespace {

namespace amd = drivers::amd;
using ull = unsigned long long;

int64_t i64(uint64_t v) { return static_cast<int64_t>(v); }

std::string_view crc_text(amd::Crc32Check c) {
  switch (c) {
    case amd::Crc32Check::kVerified: return "verified";
    case amd::Crc32Check::kMatches: return "matches";
    case amd::Crc32Check::kNotChecked: return "not_checked";
  }
  return "unknown";
}

// "0x50325358 (P2SX)" for ids that read as four printable characters.
std::string pptable_id(uint32_t id) {
  std::string chars;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const char c = static_cast<char>((id >> shift) & 0xff);
    if (c < 0x20 || c > 0x7e) return strformat("0x%08x", id);
    chars += c;
  }
  return strformat("0x%08x (%s)", id, chars.c_str());
}

// The blob's type column: the psp_gfx_fw_type number, or the descriptor type it came from.
std::string blob_type(const amd::FirmwareBlob& b) {
  if (b.path == amd::BlobPath::kIpFw) return strformat("%u", unsigned(b.gfx_type));
  if (b.path == amd::BlobPath::kBootloader || b.path == amd::BlobPath::kToc)
    return strformat("sos %u", b.component);
  if (b.path == amd::BlobPath::kTa) return strformat("ta %u", b.component);
  return "-";
}

std::string text(const amd::FirmwareImage& img, const amd::FirmwareInfo& fw) {
  std::ostringstream os;
  const auto& h = fw.header;
  os << strformat("%s: %.*s firmware, header v%s, ip %u.%u\n", img.name.c_str(),
                  int(amd::firmware_kind_name(fw.kind).size()),
                  amd::firmware_kind_name(fw.kind).data(), fw.header_version().c_str(),
                  h.ip_version_major, h.ip_version_minor);
  os << strformat("  file          %s, %llu bytes", img.path.c_str(), ull(img.bytes.size()));
  if (img.compressed) os << strformat(" (zstd, %llu on disk)", ull(img.file_bytes));
  os << "\n  sha256        " << img.sha256 << "\n";
  os << strformat("  ucode         version 0x%x, feature %u; array 0x%x + 0x%x bytes\n",
                  h.ucode_version, fw.feature_version, h.ucode_array_offset_bytes,
                  h.ucode_size_bytes);
  os << strformat("  crc32         0x%08x: %s", h.crc32,
                  std::string(crc_text(fw.crc32_check)).c_str());
  if (fw.crc32_check == amd::Crc32Check::kNotChecked)
    os << strformat(" (CRC-32 of bytes [0x20, end) is 0x%08x; this kind's files do not carry it)",
                    fw.computed_crc32);
  os << "\n";
  if (fw.entry_point) os << strformat("  entry point   0x%016llx\n", ull(*fw.entry_point));
  if (fw.data_entry_point)
    os << strformat("  data start    0x%016llx\n", ull(*fw.data_entry_point));
  if (fw.smu_start_addr) os << strformat("  smu start     0x%08x\n", *fw.smu_start_addr);

  os << strformat("\n  %zu blob(s), in the order the PSP receives them:\n", fw.blobs.size());
  os << "    path        type     name                          offset        size\n";
  for (const amd::FirmwareBlob& b : fw.blobs)
    os << strformat("    %-10s  %-7s  %-28.*s  0x%08llx  0x%08llx\n",
                    std::string(amd::blob_path_name(b.path)).c_str(), blob_type(b).c_str(),
                    int(b.name.size()), b.name.data(), ull(b.offset), ull(b.size));

  if (!fw.descriptors.empty()) {
    os << strformat("\n  %zu descriptor(s)", fw.descriptors.size());
    if (fw.aux_index)
      os << strformat(", aux index %u (the %s set is loaded)", *fw.aux_index,
                      fw.aux_selected ? "aux" : "main");
    os << ":\n      #  type                  version       offset        size  loaded\n";
    for (const amd::PspDescriptor& d : fw.descriptors)
      os << strformat("    %3u  %2u %-17.*s  0x%08x  0x%08llx  0x%08llx  %s%s\n", d.index,
                      d.fw_type, int(d.type_name.size()), d.type_name.data(), d.fw_version,
                      ull(d.offset), ull(d.size), d.loaded ? "yes" : "no", d.aux ? " (aux)" : "");
  }
  if (!fw.pptables.empty()) {
    os << strformat("\n  %zu pptable(s):\n", fw.pptables.size());
    for (const amd::Pptable& t : fw.pptables)
      os << strformat("    id %-20s  offset 0x%08llx  size 0x%08llx%s\n", pptable_id(t.id).c_str(),
                      ull(t.offset), ull(t.size), t.p2s ? "  P2S" : "");
  }
  if (!fw.fields.empty()) {
    os << "\n  header fields:\n";
    for (const amd::HeaderField& f : fw.fields)
      os << strformat("    %-45.*s 0x%x\n", int(f.name.size()), f.name.data(), f.value);
  }
  return os.str();
}

std::string json(const amd::FirmwareImage& img, const amd::FirmwareInfo& fw) {
  auto sv = [](std::string_view s) { return llvm::StringRef(s.data(), s.size()); };
  const auto& h = fw.header;
  return json_document("fwinfo", [&](llvm::json::OStream& j) {
    j.attribute("file", img.name);
    j.attribute("path", img.path);
    j.attribute("size", i64(img.bytes.size()));
    j.attribute("compressed", img.compressed);
    j.attribute("file_bytes", i64(img.file_bytes));
    j.attribute("sha256", img.sha256);
    j.attribute("kind", sv(amd::firmware_kind_name(fw.kind)));
    j.attribute("header_version", fw.header_version());
    j.attribute("ip_version", strformat("%u.%u", h.ip_version_major, h.ip_version_minor));
    j.attribute("ucode_version", strformat("0x%x", h.ucode_version));
    j.attribute("feature_version", i64(fw.feature_version));
    j.attribute("ucode_array_offset", i64(h.ucode_array_offset_bytes));
    j.attribute("ucode_size", i64(h.ucode_size_bytes));
    j.attribute("crc32", strformat("0x%08x", h.crc32));
    j.attribute("computed_crc32", strformat("0x%08x", fw.computed_crc32));
    j.attribute("crc32_check", sv(crc_text(fw.crc32_check)));
    if (fw.entry_point) j.attribute("entry_point", strformat("0x%016llx", ull(*fw.entry_point)));
    if (fw.data_entry_point)
      j.attribute("data_entry_point", strformat("0x%016llx", ull(*fw.data_entry_point)));
    if (fw.smu_start_addr) j.attribute("smu_start_addr", strformat("0x%08x", *fw.smu_start_addr));
    j.attributeArray("blobs", [&] {
      for (const amd::FirmwareBlob& b : fw.blobs)
        j.object([&] {
          j.attribute("path", sv(amd::blob_path_name(b.path)));
          if (b.path == amd::BlobPath::kIpFw)
            j.attribute("gfx_fw_type", i64(b.gfx_type));
          else
            j.attribute("component", i64(b.component));
          j.attribute("name", sv(b.name));
          j.attribute("offset", i64(b.offset));
          j.attribute("size", i64(b.size));
        });
    });
    if (!fw.descriptors.empty()) {
      if (fw.aux_index) {
        j.attribute("aux_index", i64(*fw.aux_index));
        j.attribute("aux_selected", fw.aux_selected);
      }
      j.attributeArray("descriptors", [&] {
        for (const amd::PspDescriptor& d : fw.descriptors)
          j.object([&] {
            j.attribute("index", i64(d.index));
            j.attribute("fw_type", i64(d.fw_type));
            j.attribute("type_name", sv(d.type_name));
            j.attribute("fw_version", strformat("0x%x", d.fw_version));
            j.attribute("offset", i64(d.offset));
            j.attribute("size", i64(d.size));
            j.attribute("aux", d.aux);
            j.attribute("loaded", d.loaded);
          });
      });
    }
    if (!fw.pptables.empty())
      j.attributeArray("pptables", [&] {
        for (const amd::Pptable& t : fw.pptables)
          j.object([&] {
            j.attribute("id", strformat("0x%08x", t.id));
            j.attribute("p2s", t.p2s);
            j.attribute("offset", i64(t.offset));
            j.attribute("size", i64(t.size));
          });
      });
    j.attributeObject("fields", [&] {
      for (const amd::HeaderField& f : fw.fields) j.attribute(sv(f.name), i64(f.value));
    });
  });
}

}  // namespace

cli::Command fwinfo_command() {
  cli::Command c;
  c.name = "fwinfo";
  c.summary = "decode an amdgpu firmware file (header, blobs in PSP order, SHA-256)";
  c.description =
      "Reads FILE (an amdgpu firmware file from /lib/firmware/amdgpu, .bin or .bin.zst) and\n"
      "decodes it with the AM driver's own parsers: size, SHA-256 of the decompressed bytes,\n"
      "header and IP versions, ucode version and feature, the crc32 check, every blob the PSP\n"
      "receives (load path, psp_gfx_fw_type, name, offset, size) in the order it receives\n"
      "them, and the kind's details (SOS descriptors and aux set, RS64/MES entry points,\n"
      "pptables and P2S tables, the raw header fields). The kind comes from the file name\n"
      "(psp_13_0_0_sos, gc_11_0_0_mec, ...) unless --kind names it. Exit code 1 when the file\n"
      "cannot be read or is malformed (the message names the field, its value and the limit).";
  std::string kinds;
  for (amd::FirmwareKind k : amd::kAllFirmwareKinds)
    kinds += (kinds.empty() ? "" : ", ") + std::string(amd::firmware_kind_name(k));
  c.options = {
      {"json", 'j', "", "print JSON instead of text", ""},
      {"kind", 'k', "KIND", "parse as this kind: " + kinds, ""},
      {"sos-aux", 0, "", "PSP SOS v2.1: load the aux descriptor set (MP0 13.0.6, old PMFW)", ""},
      {"sdma-instances", 0, "N", "SDMA v1: one blob per engine, SDMA0..SDMA(N-1) (1..8)", "1"},
      {"all-pipe-stacks", 0, "", "RS64: also the P1 (PFP, ME) and P1..P3 (MEC) stacks, as Linux",
       ""},
  };
  c.positionals = {{"FILE", "firmware file (NAME.bin or NAME.bin.zst)", true, false}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    auto usage = [&](const std::string& msg) {
      io.err << "rawgpu fwinfo: " << msg << "\n";
      return cli::kExitUsage;
    };
    amd::ParseOptions opt;
    opt.sos_aux = args.flag("sos-aux");
    opt.rs64_all_pipe_stacks = args.flag("all-pipe-stacks");
    auto n = args.get_u64_in("sdma-instances", 1, 8);
    if (!n.ok()) return usage(n.error().message());
    opt.sdma_instances = static_cast<unsigned>(*n);
    std::optional<amd::FirmwareKind> kind;
    if (auto k = args.get("kind"); k && !k->empty()) {
      auto parsed = amd::parse_firmware_kind(*k);
      if (!parsed.ok()) return usage("--kind: " + parsed.error().message());
      kind = *parsed;
    }
    const std::string& file = args.positionals()[0];
    auto fail = [&](const Error& e) {
      io.err << "rawgpu fwinfo: " << e.to_string() << "\n";
      return cli::kExitFailure;
    };
    auto img = amd::FirmwareLoader::load_path(file);
    if (!img.ok()) return fail(img.error());
    if (!kind) {
      auto k = amd::classify_firmware(img->name);
      if (!k.ok()) return fail(k.error());
      kind = *k;
    }
    auto fw = amd::parse_firmware(*kind, img->bytes, img->name, opt);
    if (!fw.ok()) return fail(fw.error());
    io.out << (args.flag("json") ? json(*img, *fw) : text(*img, *fw));
    return cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
