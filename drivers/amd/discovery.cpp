#include "rawgpu/drivers/amd/discovery.h"

#include <cstring>

#include "rawgpu/autogen/amd/discovery.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/base/format.h"

namespace rawgpu::drivers::amd {
namespace {

namespace dt = autogen::amd::discovery;
namespace hw = autogen::amd::hwid;

// Upper bounds no real table comes near; they keep a hostile table from making the parser
// allocate or loop without limit.
constexpr unsigned kMaxDies = 16;        // die_info[16]
constexpr unsigned kMaxBases = 32;       // bases per IP record
constexpr unsigned kMaxIpsPerDie = 512;  // records per die
constexpr unsigned kHarvestEntries = 32;

// A bounds-checked little-endian view of the binary.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> b) : b_(b) {}
  bool has(uint64_t off, uint64_t n) const { return off <= b_.size() && n <= b_.size() - off; }
  template <class T>
  Result<T> get(uint64_t off, const char* what) const {
    if (!has(off, sizeof(T)))
      return make_error(Errc::kParse,
                        "discovery: %s at offset 0x%llx (%zu bytes) runs past the end of the "
                        "%zu-byte table",
                        what, static_cast<unsigned long long>(off), sizeof(T), b_.size());
    T t;
    std::memcpy(static_cast<void*>(&t), b_.data() + off, sizeof t);
    return t;
  }
  std::span<const uint8_t> sub(uint64_t off, uint64_t n) const { return b_.subspan(off, n); }
  size_t size() const { return b_.size(); }

 private:
  std::span<const uint8_t> b_;
};

Status check_sum(const Reader& r, const char* table, uint64_t off, uint64_t size,
                 uint16_t expected) {
  if (!r.has(off, size))
    return make_error(Errc::kParse,
                      "discovery: the %s table (offset 0x%llx, %llu bytes) runs past the end of "
                      "the %zu-byte binary",
                      table, static_cast<unsigned long long>(off),
                      static_cast<unsigned long long>(size), r.size());
  const uint16_t got = discovery_checksum(r.sub(off, size));
  if (got != expected)
    return make_error(Errc::kParse,
                      "discovery: %s checksum mismatch (stored 0x%04x, computed 0x%04x over %llu "
                      "bytes at 0x%llx): the table is corrupt or was read wrongly",
                      table, expected, got, static_cast<unsigned long long>(size),
                      static_cast<unsigned long long>(off))
        .with_hint(
            "re-read it (a small-BAR read through MM_INDEX/MM_DATA needs MM_INDEX_HI); "
            "on a USB4 card wait for MP0_SMN_C2PMSG_33 bit 31 (IFWI done) first");
  return {};
}

Status parse_ip_table(const Reader& r, const dt::binary_header& bh, Discovery& d) {
  const dt::table_info& ti = bh.table_list[dt::IP_DISCOVERY];
  const uint64_t off = ti.offset;
  const auto ih = RG_TRY(r.get<dt::ip_discovery_header>(off, "ip_discovery_header"));
  if (ih.signature != dt::DISCOVERY_TABLE_SIGNATURE)
    return make_error(Errc::kParse,
                      "discovery: IP discovery header at 0x%llx has signature 0x%08x, expected "
                      "0x%08x (\"IPDS\")",
                      static_cast<unsigned long long>(off), ih.signature,
                      dt::DISCOVERY_TABLE_SIGNATURE);
  RG_TRY(check_sum(r, "IP discovery", off, ih.size, ti.checksum));
  if (ih.version < 1 || ih.version > 4)
    return make_error(Errc::kUnsupported,
                      "discovery: IP discovery header version %u (rawgpu parses 1..4)", ih.version);
  if (ih.num_dies == 0 || ih.num_dies > kMaxDies)
    return make_error(Errc::kParse, "discovery: num_dies %u (expected 1..%u)", ih.num_dies,
                      kMaxDies);
  d.ip_version = ih.version;
  d.ip_table_id = ih.id;
  d.num_dies = ih.num_dies;
  d.base_addr_64 = ih.version >= 4 && ih.base_addr_64_bit != 0;
  const unsigned base_bytes = d.base_addr_64 ? 8 : 4;
  // The IP records live inside the IP discovery table's own extent.
  const uint64_t table_end = off + ih.size;
  for (unsigned i = 0; i < ih.num_dies; ++i) {
    const uint64_t die_off = ih.die_info[i].die_offset;
    const auto dh = RG_TRY(r.get<dt::die_header>(die_off, "die_header"));
    if (die_off < off || die_off + sizeof dh > table_end)
      return make_error(Errc::kParse,
                        "discovery: die %u header at 0x%llx lies outside the IP discovery table "
                        "[0x%llx, 0x%llx)",
                        i, static_cast<unsigned long long>(die_off),
                        static_cast<unsigned long long>(off),
                        static_cast<unsigned long long>(table_end));
    if (dh.num_ips > kMaxIpsPerDie)
      return make_error(Errc::kParse, "discovery: die %u lists %u IPs (at most %u)", i, dh.num_ips,
                        kMaxIpsPerDie);
    uint64_t ip_off = die_off + sizeof dh;
    for (unsigned j = 0; j < dh.num_ips; ++j) {
      const auto rec = RG_TRY(r.get<dt::ip_v3>(ip_off, "IP record"));
      if (rec.num_base_address > kMaxBases)
        return make_error(Errc::kParse,
                          "discovery: die %u IP record %u (hw_id %u) at 0x%llx has %u base "
                          "addresses (at most %u)",
                          i, j, rec.hw_id, static_cast<unsigned long long>(ip_off),
                          rec.num_base_address, kMaxBases);
      const uint64_t rec_bytes = sizeof rec + uint64_t{rec.num_base_address} * base_bytes;
      if (ip_off + rec_bytes > table_end)
        return make_error(Errc::kParse,
                          "discovery: die %u IP record %u (hw_id %u) at 0x%llx with %u bases "
                          "runs past the IP discovery table's end 0x%llx",
                          i, j, rec.hw_id, static_cast<unsigned long long>(ip_off),
                          rec.num_base_address, static_cast<unsigned long long>(table_end));
      IpBlock b;
      b.hw_id = rec.hw_id;
      b.instance = rec.instance_number;
      b.die = dh.die_id;
      b.version = {rec.major_, rec.minor_, rec.revision};
      uint8_t nibbles = 0;
      std::memcpy(&nibbles, reinterpret_cast<const uint8_t*>(&rec) + 7, 1);
      if (ih.version >= 3) {
        b.sub_revision = nibbles & 0xF;
        b.variant = nibbles >> 4;
      } else {
        b.harvested = (nibbles & 0xF) != 0;  // struct ip: harvest:4
      }
      b.bases.reserve(rec.num_base_address);
      for (unsigned k = 0; k < rec.num_base_address; ++k) {
        const uint64_t at = ip_off + sizeof rec + uint64_t{k} * base_bytes;
        if (d.base_addr_64)
          b.bases.push_back(RG_TRY(r.get<uint64_t>(at, "base address")));
        else
          b.bases.push_back(RG_TRY(r.get<uint32_t>(at, "base address")));
      }
      d.ips.push_back(std::move(b));
      ip_off += rec_bytes;
    }
  }
  return {};
}

Status parse_harvest(const Reader& r, const dt::binary_header& bh, Discovery& d) {
  const dt::table_info& ti = bh.table_list[dt::HARVEST_INFO];
  if (ti.offset == 0) return {};  // optional
  const auto ht = RG_TRY(r.get<dt::harvest_table>(ti.offset, "harvest table"));
  if (ht.header.signature != dt::HARVEST_TABLE_SIGNATURE)
    return make_error(Errc::kParse,
                      "discovery: harvest table at 0x%x has signature 0x%08x, expected 0x%08x "
                      "(\"HARV\")",
                      ti.offset, ht.header.signature, dt::HARVEST_TABLE_SIGNATURE);
  RG_TRY(check_sum(r, "harvest", ti.offset, sizeof(dt::harvest_table), ti.checksum));
  for (unsigned i = 0; i < kHarvestEntries; ++i) {
    const dt::harvest_info& e = ht.list[i];
    if (e.hw_id == 0) break;  // the list ends at the first empty entry
    d.harvest.push_back({e.hw_id, e.number_instance});
  }
  for (IpBlock& b : d.ips)
    for (const HarvestEntry& h : d.harvest)
      if (h.hw_id == b.hw_id && h.instance == b.instance) b.harvested = true;
  return {};
}

// The fields every gc_info version names alike.
template <class T>
void copy_common(const T& g, GcInfo& o) {
  o.num_se = g.gc_num_se;
  o.rb_per_se = g.gc_num_rb_per_se;
  o.gprs = g.gc_num_gprs;
  o.wave_size = g.gc_wave_size;
  o.max_waves_per_simd = g.gc_max_waves_per_simd;
  o.max_scratch_slots_per_cu = g.gc_max_scratch_slots_per_cu;
  o.lds_size_kib = g.gc_lds_size;
  o.sc_per_se = g.gc_num_sc_per_se;
}

template <class T>
void copy_v1(const T& g, GcInfo& o) {
  copy_common(g, o);
  o.wgp0_per_sa = g.gc_num_wgp0_per_sa;
  o.wgp1_per_sa = g.gc_num_wgp1_per_sa;
  o.gl2c = g.gc_num_gl2c;
}

template <class T>
void copy_v2(const T& g, GcInfo& o) {
  copy_common(g, o);
  o.cu_per_sh = g.gc_num_cu_per_sh;
  o.sa_per_se = g.gc_num_sh_per_se;
  o.gl2c = g.gc_num_tccs;
}

// Reads struct T of a gc_info whose header says `size` bytes: the struct must fit in both.
template <class T>
Result<T> gc_struct(const Reader& r, uint64_t off, uint32_t size, const char* name) {
  if (size < sizeof(T))
    return make_error(Errc::kParse, "discovery: %s declares %u bytes, its layout needs %zu", name,
                      size, sizeof(T));
  return r.get<T>(off, name);
}

Status parse_gc(const Reader& r, const dt::binary_header& bh, Discovery& d) {
  const dt::table_info& ti = bh.table_list[dt::GC];
  if (ti.offset == 0) return {};  // optional
  const auto h = RG_TRY(r.get<dt::gpu_info_header>(ti.offset, "gc_info header"));
  if (h.table_id != dt::GC_TABLE_ID)
    return make_error(Errc::kParse, "discovery: gc_info at 0x%x has id 0x%08x, expected 0x%08x",
                      ti.offset, h.table_id, dt::GC_TABLE_ID);
  RG_TRY(check_sum(r, "gc_info", ti.offset, h.size, ti.checksum));
  GcInfo g;
  g.version_major = h.version_major;
  g.version_minor = h.version_minor;
  const uint64_t off = ti.offset;
  if (h.version_major == 1) {
    switch (h.version_minor) {
      case 0:
        copy_v1(RG_TRY(gc_struct<dt::gc_info_v1_0>(r, off, h.size, "gc_info v1.0")), g);
        break;
      case 1:
        copy_v1(RG_TRY(gc_struct<dt::gc_info_v1_1>(r, off, h.size, "gc_info v1.1")), g);
        break;
      case 2: {
        const auto v = RG_TRY(gc_struct<dt::gc_info_v1_2>(r, off, h.size, "gc_info v1.2"));
        copy_v1(v, g);
        g.sa_per_se = v.gc_num_sa_per_se;
        break;
      }
      default: {  // v1.3 and later minors extend v1.3
        const auto v = RG_TRY(gc_struct<dt::gc_info_v1_3>(r, off, h.size, "gc_info v1.3"));
        copy_v1(v, g);
        g.sa_per_se = v.gc_num_sa_per_se;
        break;
      }
    }
  } else if (h.version_major == 2) {
    if (h.version_minor == 0)
      copy_v2(RG_TRY(gc_struct<dt::gc_info_v2_0>(r, off, h.size, "gc_info v2.0")), g);
    else
      copy_v2(RG_TRY(gc_struct<dt::gc_info_v2_1>(r, off, h.size, "gc_info v2.1")), g);
  } else {
    return make_error(Errc::kUnsupported,
                      "discovery: gc_info version %u.%u (rawgpu parses 1.x, 2.x)", h.version_major,
                      h.version_minor);
  }
  d.gc = g;
  return {};
}

}  // namespace

std::string IpVersion::str() const { return strformat("%u.%u.%u", major, minor, revision); }

Result<uint32_t> IpBlock::reg_address(const char* name, uint32_t offset, uint32_t base_idx) const {
  if (base_idx >= bases.size())
    return make_error(Errc::kOutOfRange,
                      "register %s is in segment %u, but %s instance %u has %zu base "
                      "address(es) in the discovery table",
                      name, base_idx, hw_id_name(hw_id).c_str(), instance, bases.size());
  return static_cast<uint32_t>(bases[base_idx]) + offset;
}

uint32_t GcInfo::cu_per_sa() const {
  return version_major >= 2 ? cu_per_sh : 2 * (wgp0_per_sa + wgp1_per_sa);
}

const IpBlock* Discovery::find(uint16_t hw_id, uint8_t instance) const {
  for (const IpBlock& b : ips)
    if (b.hw_id == hw_id && b.instance == instance) return &b;
  return nullptr;
}

Result<const IpBlock*> Discovery::require(uint16_t hw_id, uint8_t instance) const {
  if (const IpBlock* b = find(hw_id, instance)) return b;
  return make_error(Errc::kNotFound, "the discovery table lists no %s instance %u",
                    hw_id_name(hw_id).c_str(), instance);
}

unsigned Discovery::count(uint16_t hw_id) const {
  unsigned n = 0;
  for (const IpBlock& b : ips) n += b.hw_id == hw_id && !b.harvested;
  return n;
}

uint16_t discovery_checksum(std::span<const uint8_t> bytes) {
  uint32_t sum = 0;
  for (uint8_t b : bytes) sum += b;
  return static_cast<uint16_t>(sum);
}

Result<Discovery> parse_discovery(std::span<const uint8_t> bytes) {
  const Reader r(bytes);
  const auto bh = RG_TRY(r.get<dt::binary_header>(0, "binary_header"));
  if (bh.binary_signature != dt::BINARY_SIGNATURE)
    return make_error(Errc::kParse,
                      "discovery: binary signature 0x%08x, expected 0x%08x: no discovery table "
                      "at VRAM - 64 KiB (the GPU's firmware has not run, or VRAM was overwritten)",
                      bh.binary_signature, dt::BINARY_SIGNATURE);
  if (bh.version_major < 1 || bh.version_major > 2)
    return make_error(Errc::kUnsupported,
                      "discovery: binary header version %u.%u (rawgpu parses 1.x, 2.x)",
                      bh.version_major, bh.version_minor);
  constexpr uint64_t kSumFrom = offsetof(dt::binary_header, binary_checksum) + 2;
  if (bh.binary_size < sizeof bh || bh.binary_size > bytes.size())
    return make_error(Errc::kParse,
                      "discovery: binary_size %u is outside [%zu, %zu] (the header, the bytes "
                      "read)",
                      bh.binary_size, sizeof bh, bytes.size());
  RG_TRY(check_sum(r, "binary", kSumFrom, bh.binary_size - kSumFrom, bh.binary_checksum));
  Discovery d;
  d.binary_major = bh.version_major;
  d.binary_minor = bh.version_minor;
  d.binary_bytes = bh.binary_size;
  // Tables must lie inside binary_size (the checksummed extent).
  const Reader in(bytes.first(bh.binary_size));
  RG_TRY(parse_ip_table(in, bh, d));
  RG_TRY(parse_harvest(in, bh, d));
  RG_TRY(parse_gc(in, bh, d));
  return d;
}

std::string hw_id_name(uint16_t hw_id) {
  switch (hw_id) {
    case hw::MP1_HWID: return "MP1";
    case hw::MP2_HWID: return "MP2";
    case hw::THM_HWID: return "THM";
    case hw::SMUIO_HWID: return "SMUIO";
    case hw::FUSE_HWID: return "FUSE";
    case hw::CLKA_HWID: return "CLKA";
    case hw::PWR_HWID: return "PWR";
    case hw::GC_HWID: return "GC";
    case hw::VCN_HWID: return "VCN";
    case hw::DMU_HWID: return "DMU";
    case hw::DCI_HWID: return "DCI";
    case hw::DCO_HWID: return "DCO";
    case hw::XDMA_HWID: return "XDMA";
    case hw::NTB_HWID: return "NTB";
    case hw::VPE_HWID: return "VPE";
    case hw::IOHC_HWID: return "IOHC";
    case hw::L2IMU_HWID: return "L2IMU";
    case hw::MMHUB_HWID: return "MMHUB";
    case hw::ATHUB_HWID: return "ATHUB";
    case hw::OSSSYS_HWID: return "OSSSYS";
    case hw::HDP_HWID: return "HDP";
    case hw::SDMA0_HWID: return "SDMA0";
    case hw::SDMA1_HWID: return "SDMA1";
    case hw::ISP_HWID: return "ISP";
    case hw::DF_HWID: return "DF";
    case hw::CLKB_HWID: return "CLKB";
    case hw::FCH_HWID: return "FCH";
    case hw::NBIF_HWID: return "NBIF";
    case hw::UMC_HWID: return "UMC";
    case hw::MP0_HWID: return "MP0";
    default: return strformat("HWID 0x%x", hw_id);
  }
}

std::string_view gc_target(IpVersion gc, uint8_t rev_id) {
  struct Row {
    uint8_t major, minor, rev;
    const char* target;
  };
  static constexpr Row kRows[] = {
      {9, 4, 4, "gfx942"},   {10, 1, 10, "gfx1010"}, {10, 3, 0, "gfx1030"}, {11, 0, 0, "gfx1100"},
      {11, 0, 1, "gfx1103"}, {11, 0, 2, "gfx1102"},  {11, 0, 3, "gfx1101"}, {11, 0, 4, "gfx1103"},
      {11, 5, 0, "gfx1150"}, {11, 5, 1, "gfx1151"},  {12, 0, 0, "gfx1200"}, {12, 0, 1, "gfx1201"},
  };
  if (gc == IpVersion{9, 4, 3}) return rev_id >= 1 ? "gfx942" : "gfx941";
  for (const Row& r : kRows)
    if (gc == IpVersion{r.major, r.minor, r.rev}) return r.target;
  return {};
}

std::string describe(const Discovery& d) {
  std::string s = strformat(
      "discovery binary v%u.%u, IP table v%u (%s bases), %u die(s), %zu IPs\n", d.binary_major,
      d.binary_minor, d.ip_version, d.base_addr_64 ? "64-bit" : "32-bit", d.num_dies, d.ips.size());
  for (const IpBlock& b : d.ips) {
    s += strformat("  %-7s %-9s inst %u die %u%s bases", hw_id_name(b.hw_id).c_str(),
                   b.version.str().c_str(), b.instance, b.die, b.harvested ? " HARVESTED" : "");
    for (uint64_t base : b.bases) s += strformat(" 0x%llx", static_cast<unsigned long long>(base));
    s += "\n";
  }
  if (d.gc) {
    const GcInfo& g = *d.gc;
    s += strformat(
        "  gc_info v%u.%u: %u SE x %u SA, %u CU/SA (%u CUs), wave%u, %u waves/SIMD, LDS %u KiB\n",
        g.version_major, g.version_minor, g.num_se, g.sa_per_se, g.cu_per_sa(), g.cu_count(),
        g.wave_size, g.max_waves_per_simd, g.lds_size_kib);
  }
  for (const HarvestEntry& h : d.harvest)
    s += strformat("  harvested: %s instance %u\n", hw_id_name(h.hw_id).c_str(), h.instance);
  return s;
}

}  // namespace rawgpu::drivers::amd
