// Fuzz target for the AMD firmware parsers and the zstd path (drivers/amd/firmware.h).
//
// Input: byte 0 picks the kind (one of kAllFirmwareKinds, or the zstd path: decompress, then
// parse the result as every kind); byte 1 holds ParseOptions bits (bit 0 sos_aux, bit 1 all RS64
// pipe stacks, bit 2 verify_crc32, bits 3-5 sdma_instances - 1, bit 6 the APU P2S id); the rest
// is the file. Inputs shorter than two bytes are parsed as every kind. Beyond "no crash": a
// failure is a typed error whose message names the file; an accepted file is self-consistent
// (blobs non-empty, inside the file, their spans the file's bytes; descriptors and pptables
// inside the file; a verified crc32 really matches).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "rawgpu/drivers/amd/firmware.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::drivers::amd;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_amd_firmware invariant violated: %s\n", what);
    std::abort();
  }
}

constexpr size_t kKinds = sizeof(kAllFirmwareKinds) / sizeof(kAllFirmwareKinds[0]);

void check(FirmwareKind kind, std::span<const uint8_t> bytes, const ParseOptions& opt) {
  auto r = parse_firmware(kind, bytes, "fuzz.bin", opt);
  if (!r.ok()) {
    const Errc c = r.error().code();
    require(c == Errc::kParse || c == Errc::kUnsupported || c == Errc::kNotFound, "error code");
    require(r.error().message().find("fuzz.bin") != std::string::npos, "message names the file");
    return;
  }
  const FirmwareInfo& fw = *r;
  require(fw.kind == kind && fw.file_size == bytes.size(), "kind and size");
  require(fw.header.size_bytes == bytes.size(), "size_bytes");
  require(!fw.blobs.empty(), "blobs");
  for (const FirmwareBlob& b : fw.blobs) {
    require(b.size > 0 && b.offset + b.size <= bytes.size(), "blob inside the file");
    require(b.offset >= fw.header.header_size_bytes, "blob after the header");
    require(b.bytes.data() == bytes.data() + b.offset && b.bytes.size() == b.size, "blob span");
    require(!b.name.empty(), "blob name");
    require((b.path == BlobPath::kIpFw) == (b.gfx_type != autogen::amd::psp::GFX_FW_TYPE_NONE),
            "ip_fw blobs and only they carry a gfx_fw_type");
  }
  for (const PspDescriptor& d : fw.descriptors)
    require(d.size > 0 && d.offset + d.size <= bytes.size(), "descriptor inside the file");
  for (const Pptable& t : fw.pptables)
    require(t.offset + t.size <= bytes.size() && t.bytes.size() == t.size, "pptable");
  for (const HeaderField& f : fw.fields) require(!f.name.empty(), "field name");
  if (fw.crc32_check != Crc32Check::kNotChecked)
    require(fw.computed_crc32 == fw.header.crc32, "a matching crc32");
  if (fw.aux_index) require(*fw.aux_index <= fw.descriptors.size(), "aux index");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  ParseOptions opt;
  if (size < 2) {
    for (FirmwareKind k : kAllFirmwareKinds) check(k, in, opt);
    return 0;
  }
  const unsigned sel = data[0] % (kKinds + 1);
  const uint8_t flags = data[1];
  opt.sos_aux = flags & 1;
  opt.rs64_all_pipe_stacks = flags & 2;
  opt.verify_crc32 = flags & 4;
  opt.sdma_instances = ((flags >> 3) & 7) + 1;
  if (flags & 64) opt.p2s_table_id = 0x50325341;
  const std::span<const uint8_t> file = in.subspan(2);
  if (sel < kKinds) {
    check(kAllFirmwareKinds[sel], file, opt);
    return 0;
  }
  auto z = decompress_zstd(file, "fuzz.bin.zst", 1 << 20);
  if (!z.ok()) {
    const Errc c = z.error().code();
    require(c == Errc::kParse || c == Errc::kOutOfRange, "zstd error code");
    require(!z.error().message().empty(), "zstd error message");
    return 0;
  }
  require(z->size() <= (1u << 20), "zstd limit");
  for (FirmwareKind k : kAllFirmwareKinds) check(k, *z, opt);
  return 0;
}
