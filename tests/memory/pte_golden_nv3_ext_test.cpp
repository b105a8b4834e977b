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
#else
TEST(PteGoldenNvExt, MmuV3) {
  GTEST_SKIP() << "nvidia-open hwref/hopper/gh100/dev_mmu.h not found under the upstream cache ("
               << RAWGPU_UPSTREAM_DIR << "/nvidia-open)";
}
#endif

}  // namespace
}  // namespace rawgpu::memory
