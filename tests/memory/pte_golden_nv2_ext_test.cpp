// NVIDIA MMU v2 (tu102 dev_mmu.h): peer-aperture PTEs and PDEs of page tables in system memory,
// assembled field by field from the upstream definitions (see pte_golden_nv2_test.cpp).
#include <gtest/gtest.h>

#include <array>

#include "rawgpu/base/bits.h"
#include "rawgpu/memory/pte_codec.h"

#ifdef RAWGPU_UPSTREAM_NV_HWREF
#include "turing/tu102/dev_mmu.h"
#endif

namespace rawgpu::memory {
namespace {

#ifdef RAWGPU_UPSTREAM_NV_HWREF
#define RG_FIELD(f) BitField::range(1 ? f, 0 ? f)
using W = std::array<uint64_t, 2>;
W put(W w, BitField f, uint64_t v) {
  set_bits(std::span<uint64_t>(w), f, v);
  return w;
}
const auto& codec() {
  static auto c = make_codec(PageTableFormat::kNvMmuV2);
  return *c;
}

TEST(PteGoldenNvExt, MmuV2PeerPte) {
  EXPECT_EQ(
      codec().phys_limit(Aperture::kPeer),
      uint64_t{1} << (NV_MMU_VER2_PTE_ADDRESS_SHIFT + RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID).width));
  PageAttrs a;
  a.aperture = Aperture::kPeer;
  a.peer_id = 5;
  const uint64_t pa = 0x0abcd000;
  W e{0, 0};
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_VALID), NV_MMU_VER2_PTE_VALID_TRUE);
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_APERTURE), NV_MMU_VER2_PTE_APERTURE_PEER_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID), pa >> NV_MMU_VER2_PTE_ADDRESS_SHIFT);
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID_PEER), NV_MMU_VER2_PTE_ADDRESS_VID_PEER_5);
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_KIND), NV_MMU_PTE_KIND_GENERIC_MEMORY);
  W w{0, 0};
  codec().encode_leaves(4, pa, 1, a, 0, w.data());
  EXPECT_EQ(w, e);
  const DecodedEntry d = codec().decode(4, w.data());
  EXPECT_EQ(d.kind, DecodedEntry::Kind::kLeaf);
  EXPECT_EQ(d.attrs, a);
  EXPECT_EQ(d.addr, pa);
}

TEST(PteGoldenNvExt, MmuV2SystemMemoryTables) {
  const uint64_t child = 0x3456789000ull;  // beyond ADDRESS_VID: needs ADDRESS_SYS
  for (bool snooped : {true, false}) {
    const TableLocation where{Aperture::kSystem, snooped};
    W p{0, 0};
    p = put(p, RG_FIELD(NV_MMU_VER2_PDE_IS_PTE), NV_MMU_VER2_PDE_IS_PTE_FALSE);
    p = put(p, RG_FIELD(NV_MMU_VER2_PDE_APERTURE),
            snooped ? NV_MMU_VER2_PDE_APERTURE_SYSTEM_COHERENT_MEMORY
                    : NV_MMU_VER2_PDE_APERTURE_SYSTEM_NON_COHERENT_MEMORY);
    p = put(p, RG_FIELD(NV_MMU_VER2_PDE_NO_ATS), NV_MMU_VER2_PDE_NO_ATS_TRUE);
    p = put(p, RG_FIELD(NV_MMU_VER2_PDE_ADDRESS_SYS), child >> NV_MMU_VER2_PDE_ADDRESS_SHIFT);
    W w{0, 0};
    codec().encode_table_in(1, child, where, w.data());
    EXPECT_EQ(w, p);
    DecodedEntry d = codec().decode(1, w.data());
    EXPECT_EQ(d.kind, DecodedEntry::Kind::kTable);
    EXPECT_EQ(d.addr, child);
    EXPECT_EQ(d.attrs.aperture, Aperture::kSystem);
    EXPECT_EQ(d.attrs.snooped, snooped);

    W q{0, 0};
    q = put(q, RG_FIELD(NV_MMU_VER2_DUAL_PDE_IS_PTE), NV_MMU_VER2_DUAL_PDE_IS_PTE_FALSE);
    q = put(q, RG_FIELD(NV_MMU_VER2_DUAL_PDE_NO_ATS), NV_MMU_VER2_DUAL_PDE_NO_ATS_TRUE);
    q = put(q, RG_FIELD(NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL),
            snooped ? NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL_SYSTEM_COHERENT_MEMORY
                    : NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL_SYSTEM_NON_COHERENT_MEMORY);
    q = put(q, RG_FIELD(NV_MMU_VER2_DUAL_PDE_ADDRESS_SMALL_SYS),
            child >> NV_MMU_VER2_DUAL_PDE_ADDRESS_SHIFT);
    W x{0, 0};
    codec().encode_table_in(3, child, where, x.data());
    EXPECT_EQ(x, q);
    d = codec().decode(3, x.data());
    EXPECT_EQ(d.kind, DecodedEntry::Kind::kTable);
    EXPECT_EQ(d.addr, child);
    EXPECT_EQ(d.attrs.snooped, snooped);
  }
}

// The big-page half of the dual PDE (64 KiB pages): APERTURE_BIG, NO_ATS, ADDRESS_BIG_VID/SYS
// holding the table address >> ADDRESS_BIG_SHIFT; big-page PTEs use the ordinary PTE format.
TEST(PteGoldenNvExt, MmuV2BigPages) {
  const uint64_t big_table = 0x7000, small_table = 0x9000;
  W w{0, 0};
  codec().encode_table_in(3, small_table, {}, w.data());
  codec().encode_big_table(3, big_table, {}, w.data());
  W d{0, 0};
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_IS_PTE), NV_MMU_VER2_DUAL_PDE_IS_PTE_FALSE);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_APERTURE_BIG),
          NV_MMU_VER2_DUAL_PDE_APERTURE_BIG_VIDEO_MEMORY);
  // ADDRESS_BIG_* (from bit 4) overlaps NO_ATS (bit 5) in dev_mmu.h: the address goes first,
  // NO_ATS on top; tables are 4 KiB aligned so the overlapping address bit is zero anyway.
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_ADDRESS_BIG_VID),
          big_table >> NV_MMU_VER2_DUAL_PDE_ADDRESS_BIG_SHIFT);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_NO_ATS), NV_MMU_VER2_DUAL_PDE_NO_ATS_TRUE);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL),
          NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL_VIDEO_MEMORY);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_ADDRESS_SMALL_VID),
          small_table >> NV_MMU_VER2_DUAL_PDE_ADDRESS_SHIFT);
  EXPECT_EQ(w, d);
  const DecodedEntry b = codec().decode_big_table(3, w.data());
  EXPECT_EQ(b.kind, DecodedEntry::Kind::kTable);
  EXPECT_EQ(b.addr, big_table);
  EXPECT_EQ(codec().decode(3, w.data()).addr, small_table);
  // A big-page table in coherent system memory.
  const uint64_t sys = 0x3456789000ull;
  W x{0, 0};
  codec().encode_big_table(3, sys, {Aperture::kSystem, true}, x.data());
  W e{0, 0};
  e = put(e, RG_FIELD(NV_MMU_VER2_DUAL_PDE_APERTURE_BIG),
          NV_MMU_VER2_DUAL_PDE_APERTURE_BIG_SYSTEM_COHERENT_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER2_DUAL_PDE_ADDRESS_BIG_SYS),
          sys >> NV_MMU_VER2_DUAL_PDE_ADDRESS_BIG_SHIFT);
  e = put(e, RG_FIELD(NV_MMU_VER2_DUAL_PDE_NO_ATS), NV_MMU_VER2_DUAL_PDE_NO_ATS_TRUE);
  EXPECT_EQ(x, e);
  EXPECT_EQ(codec().decode_big_table(3, x.data()).addr, sys);
  // 64 KiB PTEs: the PTE format, consecutive entries 64 KiB apart.
  uint64_t ptes[2] = {0, 0};
  codec().encode_big_leaves(0x40010000, 2, {}, ptes);
  for (unsigned i = 0; i < 2; ++i) {
    W p{0, 0};
    p = put(p, RG_FIELD(NV_MMU_VER2_PTE_VALID), NV_MMU_VER2_PTE_VALID_TRUE);
    p = put(p, RG_FIELD(NV_MMU_VER2_PTE_APERTURE), NV_MMU_VER2_PTE_APERTURE_VIDEO_MEMORY);
    p = put(p, RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID),
            (0x40010000 + i * 0x10000) >> NV_MMU_VER2_PTE_ADDRESS_SHIFT);
    p = put(p, RG_FIELD(NV_MMU_VER2_PTE_KIND), NV_MMU_PTE_KIND_GENERIC_MEMORY);
    EXPECT_EQ(ptes[i], p[0]);
  }
}
#else
TEST(PteGoldenNvExt, MmuV2) {
  GTEST_SKIP() << "nvidia-open hwref/turing/tu102/dev_mmu.h not found under the upstream cache ("
               << RAWGPU_UPSTREAM_DIR << "/nvidia-open)";
}
#endif

}  // namespace
}  // namespace rawgpu::memory
