#include "rawgpu/sim/discovery_table.h"

#include <cstring>

#include "rawgpu/autogen/amd/discovery.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/sim/sim_bases.h"

namespace rawgpu::sim {
namespace {

namespace dt = autogen::amd::discovery;
namespace hw = autogen::amd::hwid;
using drivers::amd::GcInfo;
using drivers::amd::IpVersion;

template <size_t N>
std::vector<uint64_t> segs(const std::array<uint32_t, N>& b) {
  return {b.begin(), b.end()};
}
const std::vector<uint64_t> kGcBases = segs(bases::kGc);
const std::vector<uint64_t> kMmhubBases = segs(bases::kMmhub);
const std::vector<uint64_t> kNbioBases = segs(bases::kNbio);
const std::vector<uint64_t> kMpBases = segs(bases::kMp);
const std::vector<uint64_t> kHdpBases = segs(bases::kHdp);
const std::vector<uint64_t> kOssBases = segs(bases::kOsssys);

struct Versions {
  IpVersion gc, sdma, mp, nbio, mmhub, hdp, oss;
};

std::vector<SimIpRecord> rdna_die(const Versions& v) {
  auto r = [](uint32_t id, IpVersion ver, const std::vector<uint64_t>& b, uint8_t inst = 0) {
    SimIpRecord x;
    x.hw_id = static_cast<uint16_t>(id);
    x.instance = inst;
    x.version = ver;
    x.bases = b;
    return x;
  };
  return {r(hw::GC_HWID, v.gc, kGcBases),       r(hw::SDMA0_HWID, v.sdma, kGcBases),
          r(hw::SDMA1_HWID, v.sdma, kGcBases),  r(hw::MMHUB_HWID, v.mmhub, kMmhubBases),
          r(hw::NBIF_HWID, v.nbio, kNbioBases), r(hw::MP0_HWID, v.mp, kMpBases),
          r(hw::MP1_HWID, v.mp, kMpBases),      r(hw::HDP_HWID, v.hdp, kHdpBases),
          r(hw::OSSSYS_HWID, v.oss, kOssBases)};
}

// RDNA gc_info v1.x: wave32, 16 waves per SIMD, 64 KiB LDS.
GcInfo rdna_gc(uint16_t minor, uint32_t se, uint32_t sa_per_se, uint32_t wgp_per_half) {
  GcInfo g;
  g.version_major = 1;
  g.version_minor = minor;
  g.num_se = se;
  g.sa_per_se = sa_per_se;
  g.wgp0_per_sa = g.wgp1_per_sa = wgp_per_half;
  g.rb_per_se = 4;
  g.gl2c = 16;
  g.gprs = 1536;
  g.wave_size = 32;
  g.max_waves_per_simd = 16;
  g.max_scratch_slots_per_cu = 32;
  g.lds_size_kib = 64;
  g.sc_per_se = 1;
  return g;
}

SimDiscoverySpec mi300x() {
  SimDiscoverySpec s;
  s.base_addr_64 = true;
  // Four dies; die d holds XCCs 2d, 2d+1, SDMA instances 4d..4d+3 and one MMHUB. Bases above
  // die 0 carry the die in bits 32+ (a synthetic convention: register access uses the low 32).
  for (uint8_t d = 0; d < 4; ++d) {
    std::vector<SimIpRecord> die;
    auto with_die = [d](std::vector<uint64_t> b) {
      for (uint64_t& x : b) x |= uint64_t{d} << 32;
      return b;
    };
    auto add = [&](uint32_t id, IpVersion v, const std::vector<uint64_t>& b, uint8_t inst) {
      SimIpRecord x;
      x.hw_id = static_cast<uint16_t>(id);
      x.instance = inst;
      x.version = v;
      x.bases = with_die(b);
      die.push_back(std::move(x));
    };
    for (uint8_t x = 0; x < 2; ++x) add(hw::GC_HWID, {9, 4, 3}, kGcBases, 2 * d + x);
    for (uint8_t x = 0; x < 4; ++x) add(hw::SDMA0_HWID, {4, 4, 2}, kGcBases, 4 * d + x);
    add(hw::MMHUB_HWID, {1, 8, 0}, kMmhubBases, d);
    if (d == 0) {
      add(hw::NBIF_HWID, {7, 9, 0}, kNbioBases, 0);
      add(hw::MP0_HWID, {13, 0, 6}, kMpBases, 0);
      add(hw::MP1_HWID, {13, 0, 6}, kMpBases, 0);
      add(hw::HDP_HWID, {4, 4, 2}, kHdpBases, 0);
      add(hw::OSSSYS_HWID, {4, 4, 2}, kOssBases, 0);
    }
    s.dies.push_back(std::move(die));
  }
  GcInfo& g = s.gc;
  g.version_major = 2;
  g.version_minor = 1;
  g.num_se = 4;  // per XCC
  g.sa_per_se = 1;
  g.cu_per_sh = 10;  // 40 per XCC before harvesting; 38 enabled on MI300X
  g.rb_per_se = 4;
  g.gl2c = 16;
  g.gprs = 512;
  g.wave_size = 64;
  g.max_waves_per_simd = 8;
  g.max_scratch_slots_per_cu = 32;
  g.lds_size_kib = 64;
  g.sc_per_se = 1;
  return s;
}

class Writer {
 public:
  size_t size() const { return b_.size(); }
  void align(size_t a) { b_.resize((b_.size() + a - 1) / a * a, 0); }
  template <class T>
  size_t put(const T& t) {
    const size_t at = b_.size();
    b_.resize(at + sizeof(T));
    std::memcpy(b_.data() + at, &t, sizeof(T));
    return at;
  }
  template <class T>
  void patch(size_t at, const T& t) {
    std::memcpy(b_.data() + at, &t, sizeof(T));
  }
  uint16_t sum(size_t at, size_t n) const {
    return drivers::amd::discovery_checksum(std::span<const uint8_t>(b_).subspan(at, n));
  }
  std::vector<uint8_t> take() { return std::move(b_); }

 private:
  std::vector<uint8_t> b_;
};

// The fields every gc_info version names alike.
template <class T>
void fill_common(T& t, const GcInfo& g) {
  t.gc_num_se = g.num_se;
  t.gc_num_rb_per_se = g.rb_per_se;
  t.gc_num_gprs = g.gprs;
  t.gc_wave_size = g.wave_size;
  t.gc_max_waves_per_simd = g.max_waves_per_simd;
  t.gc_max_scratch_slots_per_cu = g.max_scratch_slots_per_cu;
  t.gc_lds_size = g.lds_size_kib;
  t.gc_num_sc_per_se = g.sc_per_se;
}

template <class T>
void fill_v1(T& t, const GcInfo& g) {
  fill_common(t, g);
  t.gc_num_wgp0_per_sa = g.wgp0_per_sa;
  t.gc_num_wgp1_per_sa = g.wgp1_per_sa;
  t.gc_num_gl2c = g.gl2c;
  if constexpr (requires { t.gc_num_sa_per_se; }) t.gc_num_sa_per_se = g.sa_per_se;
}

template <class T>
void fill_v2(T& t, const GcInfo& g) {
  fill_common(t, g);
  t.gc_num_cu_per_sh = g.cu_per_sh;
  t.gc_num_sh_per_se = g.sa_per_se;
  t.gc_num_tccs = g.gl2c;
}

template <class T, class Fill>
size_t put_gc(Writer& w, const GcInfo& g, Fill fill) {
  T t;
  std::memset(static_cast<void*>(&t), 0, sizeof t);
  t.header.table_id = dt::GC_TABLE_ID;
  t.header.version_major = g.version_major;
  t.header.version_minor = g.version_minor;
  t.header.size = sizeof(T);
  fill(t, g);
  w.put(t);
  return sizeof(T);
}

}  // namespace

Result<SimDiscoverySpec> discovery_spec(uint32_t gc_version) {
  SimDiscoverySpec s;
  switch (gc_version) {
    case 110000:
      s.dies.push_back(rdna_die(
          {{11, 0, 0}, {6, 0, 0}, {13, 0, 0}, {4, 3, 0}, {3, 0, 0}, {6, 0, 0}, {6, 0, 0}}));
      s.gc = rdna_gc(2, 6, 2, 2);  // 6 SE x 2 SA x 8 CUs = 96 CUs
      return s;
    case 120001:
      s.dies.push_back(rdna_die(
          {{12, 0, 1}, {7, 0, 1}, {14, 0, 3}, {6, 3, 1}, {4, 1, 0}, {7, 0, 0}, {7, 0, 0}}));
      s.gc = rdna_gc(3, 4, 2, 2);  // 4 SE x 2 SA x 8 CUs = 64 CUs
      return s;
    case 90403: return mi300x();
    default:
      return make_error(Errc::kUnsupported,
                        "no simulated discovery profile for GC %u (110000, 120001, 90403)",
                        gc_version);
  }
}

std::vector<uint8_t> build_discovery_table(const SimDiscoverySpec& spec) {
  Writer w;
  dt::binary_header bh{};
  bh.binary_signature = dt::BINARY_SIGNATURE;
  bh.version_major = spec.binary_major;
  bh.version_minor = spec.binary_minor;
  w.put(bh);
  w.align(64);

  // IP discovery table: header, then each die's header and records.
  const size_t ip_off = w.size();
  dt::ip_discovery_header ih{};
  ih.signature = dt::DISCOVERY_TABLE_SIGNATURE;
  ih.version = spec.ip_version;
  ih.id = 0x1000;
  ih.num_dies = static_cast<uint16_t>(spec.dies.size());
  ih.base_addr_64_bit = spec.base_addr_64 ? 1 : 0;
  w.put(ih);
  for (size_t d = 0; d < spec.dies.size() && d < 16; ++d) {
    ih.die_info[d].die_id = static_cast<uint16_t>(d);
    ih.die_info[d].die_offset = static_cast<uint16_t>(w.size());
    dt::die_header dh{static_cast<uint16_t>(d), static_cast<uint16_t>(spec.dies[d].size())};
    w.put(dh);
    for (const SimIpRecord& r : spec.dies[d]) {
      dt::ip_v3 rec{};
      rec.hw_id = r.hw_id;
      rec.instance_number = r.instance;
      rec.num_base_address = static_cast<uint8_t>(r.bases.size());
      rec.major_ = r.version.major;
      rec.minor_ = r.version.minor;
      rec.revision = r.version.revision;
      rec.sub_revision = r.sub_revision & 0xF;
      rec.variant = r.variant & 0xF;
      w.put(rec);
      for (uint64_t b : r.bases) {
        if (spec.base_addr_64)
          w.put(b);
        else
          w.put(static_cast<uint32_t>(b));
      }
    }
  }
  ih.size = static_cast<uint16_t>(w.size() - ip_off);
  w.patch(ip_off, ih);
  bh.table_list[dt::IP_DISCOVERY] = {static_cast<uint16_t>(ip_off), w.sum(ip_off, ih.size), ih.size,
                                     0};
  w.align(16);

  if (spec.gc.version_major != 0) {
    const size_t off = w.size();
    const GcInfo& g = spec.gc;
    size_t n = 0;
    auto v1 = [](auto& t, const GcInfo& x) { fill_v1(t, x); };
    auto v2 = [](auto& t, const GcInfo& x) { fill_v2(t, x); };
    if (g.version_major == 1) {
      switch (g.version_minor) {
        case 0: n = put_gc<dt::gc_info_v1_0>(w, g, v1); break;
        case 1: n = put_gc<dt::gc_info_v1_1>(w, g, v1); break;
        case 2: n = put_gc<dt::gc_info_v1_2>(w, g, v1); break;
        default: n = put_gc<dt::gc_info_v1_3>(w, g, v1); break;
      }
    } else {
      n = g.version_minor == 0 ? put_gc<dt::gc_info_v2_0>(w, g, v2)
                               : put_gc<dt::gc_info_v2_1>(w, g, v2);
    }
    bh.table_list[dt::GC] = {static_cast<uint16_t>(off), w.sum(off, n), static_cast<uint16_t>(n),
                             0};
    w.align(16);
  }

  if (spec.harvest_table) {
    const size_t off = w.size();
    dt::harvest_table ht{};
    ht.header.signature = dt::HARVEST_TABLE_SIGNATURE;
    ht.header.version = 1;
    for (size_t i = 0; i < spec.harvest.size() && i < 32; ++i)
      ht.list[i] = {spec.harvest[i].hw_id, spec.harvest[i].instance, 0};
    w.put(ht);
    bh.table_list[dt::HARVEST_INFO] = {static_cast<uint16_t>(off), w.sum(off, sizeof ht),
                                       static_cast<uint16_t>(sizeof ht), 0};
    w.align(16);
  }

  bh.binary_size = static_cast<uint16_t>(w.size());
  w.patch(0, bh);
  constexpr size_t kSumFrom = offsetof(dt::binary_header, binary_checksum) + 2;
  bh.binary_checksum = w.sum(kSumFrom, bh.binary_size - kSumFrom);
  w.patch(0, bh);
  return w.take();
}

}  // namespace rawgpu::sim
