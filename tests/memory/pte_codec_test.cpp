// PTE codecs against hand-written golden values. Each expected word is assembled by hand from
// the documented bit positions (Linux amdgpu_vm.h AMDGPU_PTE_*/AMDGPU_PDE_*, NVIDIA dev_mmu.h
// NV_MMU_VER2_*/NV_MMU_VER3_*; summarized in shared/reference amd.md 5.3 and nv.md 4.2), so
// these run without the upstream headers. pte_golden_test.cpp repeats the check against the
// headers themselves when they are available.
#include "rawgpu/memory/pte_codec.h"

#include <gtest/gtest.h>

#include <array>

namespace rawgpu::memory {
namespace {

using Kind = DecodedEntry::Kind;

std::array<uint64_t, 2> leaf(PageTableFormat f, unsigned level, uint64_t pa, PageAttrs a = {},
                             unsigned frag = 0) {
  std::array<uint64_t, 2> w{~uint64_t{0}, ~uint64_t{0}};
  auto c = make_codec(f);
  c->encode_leaves(level, pa, 1, a, frag, w.data());
  if (c->levels()[level].entry_bytes == 8) w[1] = 0;
  return w;
}
std::array<uint64_t, 2> table(PageTableFormat f, unsigned level, uint64_t child) {
  std::array<uint64_t, 2> w{~uint64_t{0}, ~uint64_t{0}};
  auto c = make_codec(f);
  c->encode_table(level, VramAddr(child), w.data());
  if (c->levels()[level].entry_bytes == 8) w[1] = 0;
  return w;
}
PageAttrs uncached() {
  PageAttrs a;
  a.uncached = true;
  return a;
}
PageAttrs system(bool snooped) {
  PageAttrs a;
  a.aperture = Aperture::kSystem;
  a.snooped = snooped;
  return a;
}
PageAttrs read_only() {
  PageAttrs a;
  a.writable = false;
  return a;
}
using W = std::array<uint64_t, 2>;

TEST(PteCodec, Names) {
  EXPECT_EQ(*parse_format("gfx10"), PageTableFormat::kAmdGfx10);
  EXPECT_EQ(*parse_format("gfx11"), PageTableFormat::kAmdGfx10);
  EXPECT_EQ(*parse_format("nv-mmu-v3"), PageTableFormat::kNvMmuV3);
  auto bad = parse_format("gfx8");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("gfx12"), std::string::npos);
  EXPECT_EQ(format_name(PageTableFormat::kAmdGfx12), "gfx12");
}

TEST(PteCodec, Geometry) {
  auto amd = make_codec(PageTableFormat::kAmdGfx10);
  ASSERT_EQ(amd->levels().size(), 4u);
  EXPECT_EQ(amd->va_bits(), 48u);
  EXPECT_EQ(amd->levels()[0].shift, 39);
  EXPECT_FALSE(amd->levels()[0].leaf);
  EXPECT_EQ(amd->levels()[1].span(), 1ull << 30);
  EXPECT_EQ(amd->levels()[2].span(), 2ull << 20);
  auto v2 = make_codec(PageTableFormat::kNvMmuV2);
  ASSERT_EQ(v2->levels().size(), 5u);
  EXPECT_EQ(v2->va_bits(), 49u);
  EXPECT_EQ(v2->levels()[0].entries, 4);
  EXPECT_EQ(v2->levels()[3].entry_bytes, 16);
  EXPECT_EQ(v2->levels()[3].entries, 256);
  EXPECT_EQ(v2->levels()[2].span(), 512ull << 20);
  auto v3 = make_codec(PageTableFormat::kNvMmuV3);
  ASSERT_EQ(v3->levels().size(), 6u);
  EXPECT_EQ(v3->va_bits(), 57u);
  EXPECT_EQ(v3->levels()[0].entries, 2);
  for (auto f : {PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx12, PageTableFormat::kNvMmuV2,
                 PageTableFormat::kNvMmuV3}) {
    auto c = make_codec(f);
    for (const LevelInfo& l : c->levels()) EXPECT_LE(l.table_bytes(), 4096u) << l.name;
    EXPECT_EQ(c->page_size(), 4096u);
  }
}

// AMD: VALID 0, SYSTEM 1, SNOOPED 2, EXECUTABLE 4, READABLE 5, WRITEABLE 6, FRAG 11:7.
TEST(PteCodec, AmdGfx11Golden) {
  const auto f = PageTableFormat::kAmdGfx10;
  EXPECT_EQ(leaf(f, 3, 0x12345000), (W{0x0000000012345071, 0}));
  EXPECT_EQ(leaf(f, 3, 0x12345000, uncached()), (W{0x0003000012345071, 0}));  // MTYPE UC 50:48
  EXPECT_EQ(leaf(f, 3, 0x800001000, system(true)), (W{0x0000000800001077, 0}));
  EXPECT_EQ(leaf(f, 3, 0x800001000, system(false)), (W{0x0000000800001073, 0}));
  EXPECT_EQ(leaf(f, 3, 0x12345000, read_only()), (W{0x0000000012345031, 0}));
  // 2 MiB at PDB0 with fragment 9, PDE_PTE (54).
  EXPECT_EQ(leaf(f, 2, 0x40000000, {}, 9), (W{0x00400000400004F1, 0}));
  // 1 GiB at PDB1, fragment 18.
  EXPECT_EQ(leaf(f, 1, 0x40000000, {}, 18), (W{0x0040000040000971, 0}));
  EXPECT_EQ(table(f, 0, 0x3000), (W{0x3001, 0}));
  EXPECT_EQ(table(f, 2, 0xfedcb000), (W{0xfedcb001, 0}));
}

TEST(PteCodec, AmdGfx12Golden) {
  const auto f = PageTableFormat::kAmdGfx12;
  EXPECT_EQ(leaf(f, 3, 0x12345000), (W{0x0000000012345071, 0}));  // no IS_PTE on PTB leaves
  EXPECT_EQ(leaf(f, 3, 0x12345000, uncached()), (W{0x00C0000012345071, 0}));  // MTYPE 55:54
  EXPECT_EQ(leaf(f, 2, 0x40000000, {}, 9), (W{0x80000000400004F1, 0}));       // PDE_PTE_GFX12 63
  EXPECT_EQ(table(f, 1, 0x5000), (W{0x5001, 0}));
}

TEST(PteCodec, AmdGfx9Golden) {
  const auto f = PageTableFormat::kAmdGfx9;
  EXPECT_EQ(leaf(f, 3, 0x12345000, uncached()), (W{0x0600000012345071, 0}));  // MTYPE 58:57
  EXPECT_EQ(table(f, 1, 0x5000), (W{0x4800000000005001, 0}));  // BFS(9) at 63:59 on PDB1
  EXPECT_EQ(table(f, 2, 0x5000), (W{0x0100000000005001, 0}));  // TF (56) on PDB0 tables
  EXPECT_EQ(table(f, 0, 0x5000), (W{0x5001, 0}));
  EXPECT_EQ(leaf(f, 2, 0x40000000, {}, 9), (W{0x00000000400004F1, 0}));   // PDB0 leaf: TF clear
  EXPECT_EQ(leaf(f, 1, 0x40000000, {}, 18), (W{0x0040000040000971, 0}));  // PDB1 leaf: PDE_PTE
}

// NV v2: VALID 0, APERTURE 2:1, VOL 3, READ_ONLY 6, ADDRESS 53:8 = PA >> 12, KIND 63:56.
TEST(PteCodec, NvMmuV2Golden) {
  const auto f = PageTableFormat::kNvMmuV2;
  EXPECT_EQ(leaf(f, 4, 0x12345000), (W{0x0600000001234501, 0}));
  EXPECT_EQ(leaf(f, 4, 0x12345000, uncached()), (W{0x0600000001234509, 0}));
  EXPECT_EQ(leaf(f, 4, 0x12345000, read_only()), (W{0x0600000001234541, 0}));
  EXPECT_EQ(leaf(f, 4, 0x100000000, system(true)), (W{0x0600000010000005, 0}));
  EXPECT_EQ(leaf(f, 4, 0x100000000, system(false)), (W{0x0600000010000007, 0}));
  // 2 MiB page in the PDE0 dual slot: PTE in the low qword.
  EXPECT_EQ(leaf(f, 3, 0x40000000), (W{0x0600000004000001, 0}));
  EXPECT_EQ(leaf(f, 2, 0x20000000), (W{0x0600000002000001, 0}));  // 512 MiB at PDE1
  // PDE: APERTURE video (1) 2:1, NO_ATS 5, ADDRESS 53:8.
  EXPECT_EQ(table(f, 0, 0x2000), (W{0x222, 0}));
  // Dual PDE: small half APERTURE_SMALL 66:65, ADDRESS_SMALL 117:72.
  EXPECT_EQ(table(f, 3, 0x3000), (W{0x20, 0x302}));
}

// NV v3: VALID 0, APERTURE 2:1, PCF 7:3, KIND 11:8, ADDRESS 51:12 in place.
TEST(PteCodec, NvMmuV3Golden) {
  const auto f = PageTableFormat::kNvMmuV3;
  EXPECT_EQ(leaf(f, 5, 0x12345000), (W{0x12345601, 0}));
  EXPECT_EQ(leaf(f, 5, 0x12345000, uncached()), (W{0x12345609, 0}));
  EXPECT_EQ(leaf(f, 5, 0x12345000, read_only()), (W{0x12345621, 0}));
  EXPECT_EQ(leaf(f, 5, 0x100000000, system(true)), (W{0x0000000100000605, 0}));
  EXPECT_EQ(leaf(f, 4, 0x40000000), (W{0x40000601, 0}));
  EXPECT_EQ(table(f, 0, 0x2000), (W{0x2012, 0}));  // PDE PCF 2 (cached, no ATS) 5:3
  EXPECT_EQ(table(f, 4, 0x3000), (W{0, 0x3012}));  // dual: 66:65, PCF_SMALL 69:67
}

// Every format decodes what it encodes, at every level, with every attribute combination.
TEST(PteCodec, RoundTrip) {
  for (auto f : {PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx10, PageTableFormat::kAmdGfx12,
                 PageTableFormat::kNvMmuV2, PageTableFormat::kNvMmuV3}) {
    auto c = make_codec(f);
    const bool amd = c->has_fragment();
    for (unsigned l = 0; l < c->levels().size(); ++l) {
      const LevelInfo& li = c->levels()[l];
      uint64_t w[2] = {0, 0};
      EXPECT_EQ(c->decode(l, w).kind, Kind::kInvalid);
      if (l < c->last_level()) {
        c->encode_table(l, VramAddr(0x7654000), w);
        const DecodedEntry d = c->decode(l, w);
        EXPECT_EQ(d.kind, Kind::kTable) << c->name() << " " << li.name;
        EXPECT_EQ(d.addr, 0x7654000u);
      }
      if (!li.leaf) continue;
      for (int bits = 0; bits < 16; ++bits) {
        PageAttrs a;
        a.aperture = (bits & 1) ? Aperture::kSystem : Aperture::kVram;
        a.snooped = (bits & 1) && (bits & 2);
        a.uncached = bits & 4;
        a.writable = !(bits & 8);
        if (amd) a.executable = !(bits & 2);
        const uint64_t pa = li.span() * 3;
        const unsigned frag = amd ? 5 : 0;
        uint64_t e[4] = {0, 0, 0, 0};
        c->encode_leaves(l, pa, 2, a, frag, e);
        for (unsigned k = 0; k < 2; ++k) {
          const DecodedEntry d = c->decode(l, e + k * (li.entry_bytes / 8));
          ASSERT_EQ(d.kind, Kind::kLeaf) << c->name() << " " << li.name << " bits " << bits;
          EXPECT_EQ(d.addr, pa + k * li.span());
          EXPECT_EQ(d.attrs, a) << c->name() << " " << li.name << " bits " << bits;
          EXPECT_EQ(d.fragment, frag);
        }
      }
    }
  }
}

TEST(PteCodec, PhysicalLimits) {
  EXPECT_EQ(make_codec(PageTableFormat::kAmdGfx10)->phys_limit(Aperture::kVram), 1ull << 48);
  // v2 video addresses: ADDRESS_VID (35-3):8 = 25 bits of PA >> 12.
  EXPECT_EQ(make_codec(PageTableFormat::kNvMmuV2)->phys_limit(Aperture::kVram), 1ull << 37);
  EXPECT_EQ(make_codec(PageTableFormat::kNvMmuV2)->phys_limit(Aperture::kSystem), 1ull << 58);
  // v3: ADDRESS_VID 39:12, ADDRESS_SYS 51:12.
  EXPECT_EQ(make_codec(PageTableFormat::kNvMmuV3)->phys_limit(Aperture::kVram), 1ull << 40);
  EXPECT_EQ(make_codec(PageTableFormat::kNvMmuV3)->phys_limit(Aperture::kSystem), 1ull << 52);
}

TEST(PteCodec, ForeignEntries) {
  // A dual PDE with only the big-page half present: the small half is empty, the big half
  // points to a big-page table (ADDRESS_BIG holds the address >> 8 at bit 4 on v2).
  auto v2 = make_codec(PageTableFormat::kNvMmuV2);
  uint64_t w[2] = {0x2 /* APERTURE_BIG video */ | (0x50ull << 4), 0};
  EXPECT_EQ(v2->decode(3, w).kind, Kind::kInvalid);
  EXPECT_EQ(v2->decode_big_table(3, w).kind, Kind::kTable);
  EXPECT_EQ(v2->decode_big_table(3, w).addr, 0x5000u);
  // A peer-aperture PTE is a leaf in the peer's memory (v2: peer id in ADDRESS_VID_PEER 35:33).
  uint64_t peer[2] = {0x1 | (1 << 1) /* peer aperture */ | (0x55ull << 8) | (6ull << 33), 0};
  const DecodedEntry d = v2->decode(4, peer);
  EXPECT_EQ(d.kind, Kind::kLeaf);
  EXPECT_EQ(d.attrs.aperture, Aperture::kPeer);
  EXPECT_EQ(d.attrs.peer_id, 6);
  EXPECT_EQ(d.addr, 0x55000u);
}

}  // namespace
}  // namespace rawgpu::memory
