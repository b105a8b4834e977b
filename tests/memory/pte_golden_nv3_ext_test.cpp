// NVIDIA MMU v3 (gh100 dev_mmu.h): peer-aperture PTEs and PDEs of page tables in system memory,
// assembled field by field from the upstream definitions (see pte_golden_nv3_test.cpp).
#include <gtest/gtest.h>

#include <array>

#include "rawgpu/base/bits.h"
#include "rawgpu/memory/pte_codec.h"

#ifdef RAWGPU_UPSTREAM_NV_HWREF
#include "hopper/gh100/dev_mmu.h"
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
  static auto c = make_codec(PageTableFormat::kNvMmuV3);
  return *c;
}

TEST(PteGoldenNvExt, MmuV3PeerPte) {
  EXPECT_EQ(codec().phys_limit(Aperture::kPeer),
            uint64_t{1} << (RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_PEER).width +
                            NV_MMU_VER3_PTE_ADDRESS_SHIFT));
  PageAttrs a;
  a.aperture = Aperture::kPeer;
  a.peer_id = 7;
  a.writable = false;
  const uint64_t pa = 0x9876543000ull;
  W e{0, 0};
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_VALID), NV_MMU_VER3_PTE_VALID_TRUE);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_APERTURE), NV_MMU_VER3_PTE_APERTURE_PEER_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_PCF), NV_MMU_VER3_PTE_PCF_REGULAR_RO_ATOMIC_CACHED_ACE);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_KIND), NV_MMU_PTE_KIND_GENERIC_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_PEER), pa >> NV_MMU_VER3_PTE_ADDRESS_SHIFT);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_PEER_ID), NV_MMU_VER3_PTE_PEER_ID_7);
  W w{0, 0};
  codec().encode_leaves(5, pa, 1, a, 0, w.data());
  EXPECT_EQ(w, e);
  const DecodedEntry d = codec().decode(5, w.data());
  EXPECT_EQ(d.kind, DecodedEntry::Kind::kLeaf);
  EXPECT_EQ(d.attrs, a);
  EXPECT_EQ(d.addr, pa);
}

TEST(PteGoldenNvExt, MmuV3SystemMemoryTables) {
  const uint64_t child = 0x3456789000ull;
  for (bool snooped : {true, false}) {
    const TableLocation where{Aperture::kSystem, snooped};
    W p{0, 0};
    p = put(p, RG_FIELD(NV_MMU_VER3_PDE_IS_PTE), NV_MMU_VER3_PDE_IS_PTE_FALSE);
    p = put(p, RG_FIELD(NV_MMU_VER3_PDE_APERTURE),
            snooped ? NV_MMU_VER3_PDE_APERTURE_SYSTEM_COHERENT_MEMORY
                    : NV_MMU_VER3_PDE_APERTURE_SYSTEM_NON_COHERENT_MEMORY);
    p = put(p, RG_FIELD(NV_MMU_VER3_PDE_PCF), NV_MMU_VER3_PDE_PCF_VALID_CACHED_ATS_NOT_ALLOWED);
    p = put(p, RG_FIELD(NV_MMU_VER3_PDE_ADDRESS), child >> NV_MMU_VER3_PDE_ADDRESS_SHIFT);
    W w{0, 0};
    codec().encode_table_in(2, child, where, w.data());
    EXPECT_EQ(w, p);
    DecodedEntry d = codec().decode(2, w.data());
    EXPECT_EQ(d.kind, DecodedEntry::Kind::kTable);
    EXPECT_EQ(d.addr, child);
    EXPECT_EQ(d.attrs.aperture, Aperture::kSystem);
    EXPECT_EQ(d.attrs.snooped, snooped);

    W q{0, 0};
    q = put(q, RG_FIELD(NV_MMU_VER3_DUAL_PDE_IS_PTE), NV_MMU_VER3_DUAL_PDE_IS_PTE_FALSE);
    q = put(q, RG_FIELD(NV_MMU_VER3_DUAL_PDE_APERTURE_SMALL),
            snooped ? NV_MMU_VER3_DUAL_PDE_APERTURE_SMALL_SYSTEM_COHERENT_MEMORY
                    : NV_MMU_VER3_DUAL_PDE_APERTURE_SMALL_SYSTEM_NON_COHERENT_MEMORY);
    q = put(q, RG_FIELD(NV_MMU_VER3_DUAL_PDE_PCF_SMALL),
            NV_MMU_VER3_DUAL_PDE_PCF_SMALL_VALID_CACHED_ATS_NOT_ALLOWED);
    q = put(q, RG_FIELD(NV_MMU_VER3_DUAL_PDE_ADDRESS_SMALL),
            child >> NV_MMU_VER3_DUAL_PDE_ADDRESS_SHIFT);
    W x{0, 0};
    codec().encode_table_in(4, child, where, x.data());
    EXPECT_EQ(x, q);
    d = codec().decode(4, x.data());
    EXPECT_EQ(d.kind, DecodedEntry::Kind::kTable);
    EXPECT_EQ(d.addr, child);
    EXPECT_EQ(d.attrs.snooped, snooped);
  }
}

// The big-page half of the dual PDE (64 KiB pages): APERTURE_BIG, PCF_BIG, ADDRESS_BIG holding
// the table address >> ADDRESS_BIG_SHIFT; big-page PTEs use the ordinary PTE format.
TEST(PteGoldenNvExt, MmuV3BigPages) {
  const uint64_t big_table = 0x7000, small_table = 0x9000;
  W w{0, 0};
  codec().encode_table_in(4, small_table, {}, w.data());
  codec().encode_big_table(4, big_table, {}, w.data());
  W d{0, 0};
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_IS_PTE), NV_MMU_VER3_DUAL_PDE_IS_PTE_FALSE);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_APERTURE_BIG),
          NV_MMU_VER3_DUAL_PDE_APERTURE_BIG_VIDEO_MEMORY);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_PCF_BIG),
          NV_MMU_VER3_DUAL_PDE_PCF_BIG_VALID_CACHED_ATS_NOT_ALLOWED);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_ADDRESS_BIG),
          big_table >> NV_MMU_VER3_DUAL_PDE_ADDRESS_BIG_SHIFT);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_APERTURE_SMALL),
          NV_MMU_VER3_DUAL_PDE_APERTURE_SMALL_VIDEO_MEMORY);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_PCF_SMALL),
          NV_MMU_VER3_DUAL_PDE_PCF_SMALL_VALID_CACHED_ATS_NOT_ALLOWED);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_ADDRESS_SMALL),
          small_table >> NV_MMU_VER3_DUAL_PDE_ADDRESS_SHIFT);
  EXPECT_EQ(w, d);
  const DecodedEntry b = codec().decode_big_table(4, w.data());
  EXPECT_EQ(b.kind, DecodedEntry::Kind::kTable);
  EXPECT_EQ(b.addr, big_table);
  EXPECT_EQ(codec().decode(4, w.data()).addr, small_table);
  const uint64_t sys = 0x3456789000ull;
  W x{0, 0};
  codec().encode_big_table(4, sys, {Aperture::kSystem, false}, x.data());
  W e{0, 0};
  e = put(e, RG_FIELD(NV_MMU_VER3_DUAL_PDE_APERTURE_BIG),
          NV_MMU_VER3_DUAL_PDE_APERTURE_BIG_SYSTEM_NON_COHERENT_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER3_DUAL_PDE_PCF_BIG),
          NV_MMU_VER3_DUAL_PDE_PCF_BIG_VALID_CACHED_ATS_NOT_ALLOWED);
  e = put(e, RG_FIELD(NV_MMU_VER3_DUAL_PDE_ADDRESS_BIG),
          sys >> NV_MMU_VER3_DUAL_PDE_ADDRESS_BIG_SHIFT);
  EXPECT_EQ(x, e);
  EXPECT_EQ(codec().decode_big_table(4, x.data()).addr, sys);
  uint64_t ptes[2] = {0, 0};
  codec().encode_big_leaves(0x40010000, 2, {}, ptes);
  for (unsigned i = 0; i < 2; ++i) {
    W p{0, 0};
    p = put(p, RG_FIELD(NV_MMU_VER3_PTE_VALID), NV_MMU_VER3_PTE_VALID_TRUE);
    p = put(p, RG_FIELD(NV_MMU_VER3_PTE_APERTURE), NV_MMU_VER3_PTE_APERTURE_VIDEO_MEMORY);
    p = put(p, RG_FIELD(NV_MMU_VER3_PTE_PCF), NV_MMU_VER3_PTE_PCF_REGULAR_RW_ATOMIC_CACHED_ACE);
    p = put(p, RG_FIELD(NV_MMU_VER3_PTE_KIND), NV_MMU_PTE_KIND_GENERIC_MEMORY);
    p = put(p, RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_VID),
            (0x40010000 + i * 0x10000) >> NV_MMU_VER3_PTE_ADDRESS_SHIFT);
    EXPECT_EQ(ptes[i], p[0]);
  }
}
#else
TEST(PteGoldenNvExt, MmuV3) {
  GTEST_SKIP() << "nvidia-open hwref/hopper/gh100/dev_mmu.h not found under the upstream cache ("
               << RAWGPU_UPSTREAM_DIR << "/nvidia-open)";
}
#endif

}  // namespace
}  // namespace rawgpu::memory
