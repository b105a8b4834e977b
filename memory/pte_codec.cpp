#include "rawgpu/memory/pte_codec.h"

#include <array>

#include "rawgpu/base/bits.h"

namespace rawgpu::memory {

namespace {

// ---------------------------------------------------------------------------------------------
// AMD GMC (Linux 6.12 drivers/gpu/drm/amd/amdgpu/amdgpu_vm.h)
// ---------------------------------------------------------------------------------------------
namespace amd {
constexpr uint64_t kValid = uint64_t{1} << 0;       // AMDGPU_PTE_VALID
constexpr uint64_t kSystem = uint64_t{1} << 1;      // AMDGPU_PTE_SYSTEM
constexpr uint64_t kSnooped = uint64_t{1} << 2;     // AMDGPU_PTE_SNOOPED
constexpr uint64_t kExecutable = uint64_t{1} << 4;  // AMDGPU_PTE_EXECUTABLE
constexpr uint64_t kReadable = uint64_t{1} << 5;    // AMDGPU_PTE_READABLE
constexpr uint64_t kWriteable = uint64_t{1} << 6;   // AMDGPU_PTE_WRITEABLE
constexpr unsigned kFragShift = 7;                  // AMDGPU_PTE_FRAG(x): (x & 0x1f) << 7
constexpr uint64_t kFragMask = uint64_t{0x1f} << kFragShift;
constexpr uint64_t kPdePte = uint64_t{1} << 54;            // AMDGPU_PDE_PTE (gfx9 PDB1, gfx10/11)
constexpr uint64_t kTranslateFurther = uint64_t{1} << 56;  // AMDGPU_PTE_TF (gfx9)
constexpr unsigned kBfsShift = 59;                         // AMDGPU_PDE_BFS(a): a << 59 (gfx9)
constexpr uint64_t kPdePteGfx12 = uint64_t{1} << 63;       // AMDGPU_PDE_PTE_GFX12
constexpr uint64_t kAddrMask = 0x0000FFFFFFFFF000ull;      // page address bits 47:12
// MTYPE field positions: AMDGPU_PTE_MTYPE_VG10 (<< 57, 2 bits), _NV10 (<< 48, 3 bits),
// _GFX12 (<< 54, 2 bits). Values (vega10_enum.h, soc21_enum.h, soc24_enum.h): NC 0, CC 2, UC 3.
constexpr uint64_t kMtypeNc = 0;
constexpr uint64_t kMtypeUc = 3;

// The gfx9 block fragment size programmed on PDB1 table entries in translate-further mode:
// PDB0 entries then cover 2^(12 + 9) bytes (amd.md 5.3; Linux gmc_v9_0_get_vm_pde).
constexpr uint64_t kGfx9Bfs = 9;

constexpr std::array<LevelInfo, 4> kLevels = {{
    {"PDB2", 39, 512, 8, false},
    {"PDB1", 30, 512, 8, true},
    {"PDB0", 21, 512, 8, true},
    {"PTB", 12, 512, 8, true},
}};
constexpr unsigned kPdb1 = 1, kPdb0 = 2, kPtb = 3;

class AmdCodec final : public PteCodec {
 public:
  explicit AmdCodec(PageTableFormat f) : PteCodec(kLevels), format_(f) {
    switch (f) {
      case PageTableFormat::kAmdGfx9: mtype_shift_ = 57, mtype_bits_ = 2; break;
      case PageTableFormat::kAmdGfx10: mtype_shift_ = 48, mtype_bits_ = 3; break;
      default: mtype_shift_ = 54, mtype_bits_ = 2; break;
    }
  }
  PageTableFormat format() const override { return format_; }
  uint64_t phys_limit(Aperture) const override { return uint64_t{1} << 48; }
  bool has_fragment() const override { return true; }

  bool peer_by_bus_address() const override { return true; }

  void encode_table(unsigned level, VramAddr child, uint64_t* out) const override {
    encode_table_in(level, child.raw(), TableLocation{}, out);
  }
  // A table in system memory: SYSTEM, plus SNOOPED when it is CPU-cache coherent (as Linux
  // amdgpu_ttm_tt_pde_flags does for page tables in GTT).
  void encode_table_in(unsigned level, uint64_t child, const TableLocation& where,
                       uint64_t* out) const override {
    RG_ASSERT(level < kPtb && (child & ~kAddrMask) == 0 && where.aperture != Aperture::kPeer);
    uint64_t e = child | kValid;
    if (where.aperture == Aperture::kSystem) e |= kSystem | (where.snooped ? kSnooped : 0);
    if (format_ == PageTableFormat::kAmdGfx9) {
      if (level == kPdb1) e |= kGfx9Bfs << kBfsShift;
      if (level == kPdb0) e |= kTranslateFurther;
    }
    out[0] = e;
  }

  uint64_t leaf_flags(unsigned level, const PageAttrs& a, unsigned fragment) const {
    uint64_t e = kValid;
    // A peer is reached through the system aperture at its bus address, never snooped.
    if (a.aperture != Aperture::kVram) e |= kSystem;
    if (a.snooped && a.aperture != Aperture::kPeer) e |= kSnooped;
    if (a.executable) e |= kExecutable;
    if (a.readable) e |= kReadable;
    if (a.writable) e |= kWriteable;
    e |= (uint64_t{fragment} << kFragShift) & kFragMask;
    e |= (a.uncached ? kMtypeUc : kMtypeNc) << mtype_shift_;
    if (level != kPtb) {
      switch (format_) {
        case PageTableFormat::kAmdGfx9:
          if (level == kPdb1) e |= kPdePte;  // a PDB0 leaf is marked by TF being clear
          break;
        case PageTableFormat::kAmdGfx10: e |= kPdePte; break;
        default: e |= kPdePteGfx12; break;
      }
    }
    return e;
  }

  void encode_leaves(unsigned level, uint64_t pa, uint64_t count, const PageAttrs& attrs,
                     unsigned fragment, uint64_t* out) const override {
    RG_ASSERT(level >= kPdb1 && level <= kPtb && fragment <= 31);
    const uint64_t span = levels()[level].span();
    RG_ASSERT((pa & (span - 1)) == 0 && pa + count * span <= phys_limit(attrs.aperture));
    const uint64_t flags = leaf_flags(level, attrs, fragment);
    for (uint64_t i = 0; i < count; ++i) out[i] = flags | (pa + i * span);
  }

  DecodedEntry decode(unsigned level, const uint64_t* words) const override {
    const uint64_t e = words[0];
    DecodedEntry d;
    if ((e & kValid) == 0) return d;
    d.addr = e & kAddrMask;
    bool leaf;
    if (level == 0) {
      leaf = false;
    } else if (level == kPtb) {
      leaf = true;
    } else if (format_ == PageTableFormat::kAmdGfx9) {
      leaf = level == kPdb1 ? (e & kPdePte) != 0 : (e & kTranslateFurther) == 0;
    } else if (format_ == PageTableFormat::kAmdGfx10) {
      leaf = (e & kPdePte) != 0;
    } else {
      leaf = (e & kPdePteGfx12) != 0;
    }
    if (!leaf) {
      d.kind = DecodedEntry::Kind::kTable;
      d.attrs.aperture = (e & kSystem) ? Aperture::kSystem : Aperture::kVram;
      d.attrs.snooped = (e & kSnooped) != 0;
      return d;
    }
    d.kind = DecodedEntry::Kind::kLeaf;
    d.attrs.aperture = (e & kSystem) ? Aperture::kSystem : Aperture::kVram;
    d.attrs.snooped = (e & kSnooped) != 0;
    d.attrs.executable = (e & kExecutable) != 0;
    d.attrs.readable = (e & kReadable) != 0;
    d.attrs.writable = (e & kWriteable) != 0;
    d.attrs.uncached = extract_bits(e, mtype_shift_, mtype_bits_) == kMtypeUc;
    d.fragment = static_cast<unsigned>((e & kFragMask) >> kFragShift);
    return d;
  }

 private:
  PageTableFormat format_;
  unsigned mtype_shift_ = 0;
  unsigned mtype_bits_ = 0;
};
}  // namespace amd

// ---------------------------------------------------------------------------------------------
// NVIDIA MMU v2 (hwref/turing/tu102/dev_mmu.h) and v3 (hwref/hopper/gh100/dev_mmu.h)
// ---------------------------------------------------------------------------------------------
namespace nv {
// Shared by both versions: VALID / IS_PTE 0:0, APERTURE 2:1.
constexpr uint64_t kValid = 1;  // NV_MMU_VER{2,3}_PTE_VALID, _PDE_IS_PTE
constexpr unsigned kApertureShift = 1;
// PTE apertures (NV_MMU_VER{2,3}_PTE_APERTURE_*).
constexpr uint64_t kPteApVideo = 0, kPteApSysCoherent = 2, kPteApSysNonCoherent = 3;
// PDE apertures (NV_MMU_VER{2,3}_PDE_APERTURE_*): 0 = invalid (not present).
constexpr uint64_t kPdeApVideo = 1;
constexpr uint64_t kKindGeneric = 6;  // NV_MMU_*_PTE_KIND_GENERIC_MEMORY
// v2 fields.
constexpr unsigned kV2Vol = 3;        // NV_MMU_VER2_PTE_VOL 3:3
constexpr unsigned kV2ReadOnly = 6;   // NV_MMU_VER2_PTE_READ_ONLY 6:6
constexpr unsigned kV2NoAts = 5;      // NV_MMU_VER2_PDE_NO_ATS 5:5 (also the dual PDE)
constexpr unsigned kV2AddrShift = 8;  // NV_MMU_VER2_{PTE,PDE}_ADDRESS_SYS 53:8, holds PA >> 12
constexpr unsigned kV2AddrBits = 46;
constexpr unsigned kV2VidAddrBits = 25;  // NV_MMU_VER2_PTE_ADDRESS_VID (35-3):8
constexpr unsigned kV2PeerShift = 33;    // NV_MMU_VER2_PTE_ADDRESS_VID_PEER 35:33
constexpr uint64_t kPteApPeer = 1;       // NV_MMU_VER{2,3}_PTE_APERTURE_PEER_MEMORY
// PDE apertures for tables in system memory (NV_MMU_VER{2,3}_PDE_APERTURE_SYSTEM_*).
constexpr uint64_t kPdeApSysCoherent = 2, kPdeApSysNonCoherent = 3;
constexpr unsigned kV2KindShift = 56;  // NV_MMU_VER2_PTE_KIND 63:56
// v3 fields.
constexpr unsigned kV3PcfShift = 3;           // NV_MMU_VER3_PTE_PCF 7:3, NV_MMU_VER3_PDE_PCF 5:3
constexpr uint64_t kV3PcfUncached = 1;        // PTE_PCF_REGULAR_RW_ATOMIC_UNCACHED_ACE
constexpr uint64_t kV3PcfReadOnly = 4;        // PTE_PCF_REGULAR_RO_ATOMIC_CACHED_ACE
constexpr uint64_t kV3PdePcfCachedNoAts = 2;  // PDE_PCF_VALID_CACHED_ATS_NOT_ALLOWED
constexpr unsigned kV3KindShift = 8;          // NV_MMU_VER3_PTE_KIND 11:8
constexpr uint64_t kV3AddrMask = 0x000FFFFFFFFFF000ull;  // NV_MMU_VER3_PTE_ADDRESS 51:12, in place
constexpr unsigned kV3VidBits = 40;                      // NV_MMU_VER3_PTE_ADDRESS_VID 39:12
constexpr unsigned kV3PeerIdShift = 61;                  // NV_MMU_VER3_PTE_PEER_ID 63:61
// The dual PDE's big-page half is the lower qword: APERTURE_BIG 2:1, VOL_BIG 3 (v2) / PCF_BIG
// 5:3 (v3), ADDRESS_BIG (v2: 32:4 video, 53:4 system, v3: 51:8) holding the table address >> 8
// (ADDRESS_BIG_SHIFT 8), i.e. in place on v3 and shifted right by 4 bits on v2.
constexpr unsigned kBigAddrShiftV2 = 4;
constexpr unsigned kBigPageShift = 16;  // 64 KiB big pages (UVM's default big-page size)
// The dual PDE's small-page half is the upper qword: APERTURE_SMALL 66:65, VOL_SMALL 67:67 (v2),
// PCF_SMALL 69:67 (v3), ADDRESS_SMALL 117:72 (v2, PA >> 12) / 115:76 (v3, in place). In the
// upper word these are the same positions as in a single PDE, shifted by 64.

constexpr std::array<LevelInfo, 5> kLevelsV2 = {{
    {"PDE3", 47, 4, 8, false},
    {"PDE2", 38, 512, 8, false},
    {"PDE1", 29, 512, 8, true},
    {"PDE0", 21, 256, 16, true},
    {"PT", 12, 512, 8, true},
}};
constexpr std::array<LevelInfo, 6> kLevelsV3 = {{
    {"PDE4", 56, 2, 8, false},
    {"PDE3", 47, 512, 8, false},
    {"PDE2", 38, 512, 8, false},
    {"PDE1", 29, 512, 8, true},
    {"PDE0", 21, 256, 16, true},
    {"PT", 12, 512, 8, true},
}};

class NvCodec final : public PteCodec {
 public:
  explicit NvCodec(bool v3)
      : PteCodec(v3 ? std::span<const LevelInfo>(kLevelsV3)
                    : std::span<const LevelInfo>(kLevelsV2)),
        v3_(v3) {}
  PageTableFormat format() const override {
    return v3_ ? PageTableFormat::kNvMmuV3 : PageTableFormat::kNvMmuV2;
  }
  // v2: ADDRESS_VID 32:8 (also for peers), ADDRESS_SYS 53:8, both PA >> 12. v3: ADDRESS_VID
  // 39:12, ADDRESS_SYS / ADDRESS_PEER 51:12.
  uint64_t phys_limit(Aperture a) const override {
    if (v3_) return uint64_t{1} << (a == Aperture::kVram ? kV3VidBits : 52);
    return uint64_t{1} << (12 + (a == Aperture::kSystem ? kV2AddrBits : kV2VidAddrBits));
  }

  bool dual(unsigned level) const { return levels()[level].entry_bytes == 16; }

  unsigned big_page_shift() const override { return kBigPageShift; }

  void encode_big_table(unsigned level, uint64_t child, const TableLocation& where,
                        uint64_t* out) const override {
    RG_ASSERT(dual(level) && (child & (v3_ ? 0xff : 0xfff)) == 0 &&
              where.aperture != Aperture::kPeer);
    const uint64_t ap = where.aperture == Aperture::kVram
                            ? kPdeApVideo
                            : (where.snooped ? kPdeApSysCoherent : kPdeApSysNonCoherent);
    uint64_t e = ap << kApertureShift;
    if (v3_)
      e |= (kV3PdePcfCachedNoAts << kV3PcfShift) | (child & 0x000FFFFFFFFFFF00ull);
    else
      e |= (uint64_t{1} << kV2NoAts) | ((child >> 8) << kBigAddrShiftV2);
    out[0] = e;
  }

  DecodedEntry decode_big_table(unsigned level, const uint64_t* w) const override {
    DecodedEntry d;
    if (!dual(level) || (w[0] & kValid)) return d;  // a 2 MiB PTE is not a dual PDE
    const uint64_t ap = extract_bits(w[0], kApertureShift, 2);
    if (ap == 0) return d;
    d.kind = DecodedEntry::Kind::kTable;
    // v2: ADDRESS_BIG_SYS 53:4 overlaps NO_ATS 5:5 (tu102 dev_mmu.h); rawgpu keeps big-page
    // tables 4 KiB aligned, so the field's low four bits (address bits 11:8) are zero and bit 5
    // is NO_ATS alone.
    d.addr = v3_ ? (w[0] & 0x000FFFFFFFFFFF00ull)
                 : (extract_bits(w[0], kBigAddrShiftV2, kV2AddrBits + 4) << 8) & ~uint64_t{0xfff};
    d.attrs.aperture = ap == kPdeApVideo ? Aperture::kVram : Aperture::kSystem;
    d.attrs.snooped = ap == kPdeApSysCoherent;
    return d;
  }

  void encode_big_leaves(uint64_t pa, uint64_t count, const PageAttrs& attrs,
                         uint64_t* out) const override {
    const uint64_t span = uint64_t{1} << kBigPageShift;
    RG_ASSERT((pa & (span - 1)) == 0 && pa + count * span <= phys_limit(attrs.aperture));
    const uint64_t flags = pte_flags(attrs);
    for (uint64_t i = 0; i < count; ++i) out[i] = flags | pte_addr(pa + i * span);
  }

  // A single-qword PDE pointing to a table in VRAM or system memory (ADDRESS_VID and
  // ADDRESS_SYS share their low end: v2 bit 8 holding PA >> 12, v3 bit 12 in place).
  uint64_t pde(uint64_t child, const TableLocation& where) const {
    const uint64_t ap = where.aperture == Aperture::kVram
                            ? kPdeApVideo
                            : (where.snooped ? kPdeApSysCoherent : kPdeApSysNonCoherent);
    const uint64_t e = ap << kApertureShift;
    if (v3_) return e | (kV3PdePcfCachedNoAts << kV3PcfShift) | (child & kV3AddrMask);
    return e | (uint64_t{1} << kV2NoAts) | ((child >> 12) << kV2AddrShift);
  }

  void encode_table(unsigned level, VramAddr child, uint64_t* out) const override {
    encode_table_in(level, child.raw(), TableLocation{}, out);
  }
  void encode_table_in(unsigned level, uint64_t child, const TableLocation& where,
                       uint64_t* out) const override {
    RG_ASSERT(level < last_level() && (child & 0xfff) == 0 && where.aperture != Aperture::kPeer);
    if (dual(level)) {
      // Big-page half empty (v2 keeps NO_ATS there as the single PDE does); small half points
      // to the 4 KiB page table.
      out[0] = v3_ ? 0 : (uint64_t{1} << kV2NoAts);
      out[1] = pde(child, where) & ~(v3_ ? 0 : uint64_t{1} << kV2NoAts);
    } else {
      out[0] = pde(child, where);
    }
  }

  uint64_t pte_flags(const PageAttrs& a) const {
    uint64_t ap = kPteApVideo;
    if (a.aperture == Aperture::kSystem) ap = a.snooped ? kPteApSysCoherent : kPteApSysNonCoherent;
    if (a.aperture == Aperture::kPeer) ap = kPteApPeer;
    uint64_t e = kValid | (ap << kApertureShift);
    const uint64_t peer = a.aperture == Aperture::kPeer ? (a.peer_id & 7u) : 0;
    if (v3_) {
      uint64_t pcf = 0;
      if (a.uncached) pcf |= kV3PcfUncached;
      if (!a.writable) pcf |= kV3PcfReadOnly;
      return e | (pcf << kV3PcfShift) | (kKindGeneric << kV3KindShift) | (peer << kV3PeerIdShift);
    }
    e |= peer << kV2PeerShift;
    if (a.uncached) e |= uint64_t{1} << kV2Vol;
    if (!a.writable) e |= uint64_t{1} << kV2ReadOnly;
    return e | (kKindGeneric << kV2KindShift);
  }
  uint64_t pte_addr(uint64_t pa) const {
    return v3_ ? (pa & kV3AddrMask) : ((pa >> 12) << kV2AddrShift);
  }

  void encode_leaves(unsigned level, uint64_t pa, uint64_t count, const PageAttrs& attrs, unsigned,
                     uint64_t* out) const override {
    const LevelInfo& l = levels()[level];
    RG_ASSERT(l.leaf && (pa & (l.span() - 1)) == 0 &&
              pa + count * l.span() <= phys_limit(attrs.aperture));
    const uint64_t flags = pte_flags(attrs);
    if (dual(level)) {
      for (uint64_t i = 0; i < count; ++i) {
        out[2 * i] = flags | pte_addr(pa + i * l.span());
        out[2 * i + 1] = 0;
      }
    } else {
      for (uint64_t i = 0; i < count; ++i) out[i] = flags | pte_addr(pa + i * l.span());
    }
  }

  // A present PDE (or the small half of a dual PDE) with aperture `ap`.
  void table_entry(uint64_t ap, uint64_t e, DecodedEntry& d) const {
    d.kind = DecodedEntry::Kind::kTable;
    d.addr = addr_of(e);
    d.attrs.aperture = ap == kPdeApVideo ? Aperture::kVram : Aperture::kSystem;
    d.attrs.snooped = ap == kPdeApSysCoherent;
  }

  uint64_t addr_of(uint64_t e) const {
    return v3_ ? (e & kV3AddrMask) : (extract_bits(e, kV2AddrShift, kV2AddrBits) << 12);
  }

  DecodedEntry decode(unsigned level, const uint64_t* w) const override {
    DecodedEntry d;
    const bool last = level == last_level();
    if (last || (levels()[level].leaf && (w[0] & kValid))) {
      if ((w[0] & kValid) == 0) return d;
      const uint64_t e = w[0];
      d.kind = DecodedEntry::Kind::kLeaf;
      d.addr = addr_of(e);
      const uint64_t ap = extract_bits(e, kApertureShift, 2);
      d.attrs.aperture = ap == kPteApVideo ? Aperture::kVram : Aperture::kSystem;
      d.attrs.snooped = ap == kPteApSysCoherent;
      if (ap == kPteApPeer) {
        d.attrs.aperture = Aperture::kPeer;
        if (v3_) {
          d.attrs.peer_id = static_cast<uint8_t>(extract_bits(e, kV3PeerIdShift, 3));
        } else {
          d.attrs.peer_id = static_cast<uint8_t>(extract_bits(e, kV2PeerShift, 3));
          d.addr = extract_bits(e, kV2AddrShift, kV2VidAddrBits) << 12;
        }
      }
      if (v3_) {
        const uint64_t pcf = extract_bits(e, kV3PcfShift, 5);
        d.attrs.uncached = (pcf & kV3PcfUncached) != 0;
        d.attrs.writable = (pcf & kV3PcfReadOnly) == 0;
      } else {
        d.attrs.uncached = (e >> kV2Vol) & 1;
        d.attrs.writable = ((e >> kV2ReadOnly) & 1) == 0;
      }
      return d;
    }
    if (dual(level)) {
      const uint64_t small_ap = extract_bits(w[1], kApertureShift, 2);
      const uint64_t big_ap = extract_bits(w[0], kApertureShift, 2);
      (void)big_ap;  // the big-page half: decode_big_table
      if (small_ap == 0) return d;
      table_entry(small_ap, w[1], d);
      return d;
    }
    const uint64_t ap = extract_bits(w[0], kApertureShift, 2);
    if (ap == 0) return d;
    table_entry(ap, w[0], d);
    return d;
  }

 private:
  bool v3_;
};
}  // namespace nv

}  // namespace

unsigned PteCodec::va_bits() const { return levels_[0].shift + log2_floor(levels_[0].entries); }

std::string_view format_name(PageTableFormat format) {
  switch (format) {
    case PageTableFormat::kAmdGfx9: return "gfx9";
    case PageTableFormat::kAmdGfx10: return "gfx11";
    case PageTableFormat::kAmdGfx12: return "gfx12";
    case PageTableFormat::kNvMmuV2: return "nv-mmu-v2";
    case PageTableFormat::kNvMmuV3: return "nv-mmu-v3";
  }
  return "unknown";
}

Result<PageTableFormat> parse_format(std::string_view name) {
  if (name == "gfx9") return PageTableFormat::kAmdGfx9;
  if (name == "gfx10" || name == "gfx11") return PageTableFormat::kAmdGfx10;
  if (name == "gfx12") return PageTableFormat::kAmdGfx12;
  if (name == "nv-mmu-v2") return PageTableFormat::kNvMmuV2;
  if (name == "nv-mmu-v3") return PageTableFormat::kNvMmuV3;
  return make_error(Errc::kInvalidArgument,
                    "unknown page-table format '%.*s' (valid: gfx9, gfx10, gfx11, gfx12, "
                    "nv-mmu-v2, nv-mmu-v3)",
                    static_cast<int>(name.size()), name.data());
}

std::unique_ptr<PteCodec> make_codec(PageTableFormat format) {
  switch (format) {
    case PageTableFormat::kNvMmuV2: return std::make_unique<nv::NvCodec>(false);
    case PageTableFormat::kNvMmuV3: return std::make_unique<nv::NvCodec>(true);
    default: return std::make_unique<amd::AmdCodec>(format);
  }
}

}  // namespace rawgpu::memory
