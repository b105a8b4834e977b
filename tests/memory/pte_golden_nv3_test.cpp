// NVIDIA MMU v3 encodings checked against the field definitions of nvidia-open-kernel-source
// kernel-open/nvidia-uvm/hwref/hopper/gh100/dev_mmu.h (NV_MMU_VER3_*), found in the upstream
// cache (see the top-level meson.build, upstream_dir). Fields are "hi:lo" ranges; the expected
// words are assembled field by field from those ranges.
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
W encode_leaf(unsigned level, uint64_t pa, const PageAttrs& a) {
  W w{0, 0};
  auto c = make_codec(PageTableFormat::kNvMmuV3);
  c->encode_leaves(level, pa, 1, a, 0, w.data());
  if (c->levels()[level].entry_bytes == 8) w[1] = 0;
  return w;
}
W encode_table(unsigned level, uint64_t child) {
  W w{0, 0};
  auto c = make_codec(PageTableFormat::kNvMmuV3);
  c->encode_table(level, VramAddr(child), w.data());
  if (c->levels()[level].entry_bytes == 8) w[1] = 0;
  return w;
}
TEST(PteGoldenNv, MmuV3) {
  EXPECT_EQ(NV_MMU_VER3_PTE__SIZE, 8);
  EXPECT_EQ(NV_MMU_VER3_DUAL_PDE__SIZE, 16);
  auto c = make_codec(PageTableFormat::kNvMmuV3);
  EXPECT_EQ(c->phys_limit(Aperture::kVram),
            uint64_t{1} << (RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_VID).hi() + 1));
  EXPECT_EQ(c->phys_limit(Aperture::kSystem),
            uint64_t{1} << (RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_SYS).hi() + 1));

  const uint64_t pa = 0x12345000;
  W e{0, 0};
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_VALID), NV_MMU_VER3_PTE_VALID_TRUE);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_APERTURE), NV_MMU_VER3_PTE_APERTURE_VIDEO_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_PCF), NV_MMU_VER3_PTE_PCF_REGULAR_RW_ATOMIC_CACHED_ACE);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_KIND), NV_MMU_PTE_KIND_GENERIC_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_VID), pa >> NV_MMU_VER3_PTE_ADDRESS_SHIFT);
  EXPECT_EQ(encode_leaf(5, pa, {}), e);
  PageAttrs a;
  a.uncached = true;
  EXPECT_EQ(encode_leaf(5, pa, a), put(e, RG_FIELD(NV_MMU_VER3_PTE_PCF),
                                       NV_MMU_VER3_PTE_PCF_REGULAR_RW_ATOMIC_UNCACHED_ACE));
  a.writable = false;
  EXPECT_EQ(encode_leaf(5, pa, a), put(e, RG_FIELD(NV_MMU_VER3_PTE_PCF),
                                       NV_MMU_VER3_PTE_PCF_REGULAR_RO_ATOMIC_UNCACHED_ACE));
  a = {};
  a.aperture = Aperture::kSystem;
  a.snooped = true;
  W s = put(e, RG_FIELD(NV_MMU_VER3_PTE_APERTURE), NV_MMU_VER3_PTE_APERTURE_SYSTEM_COHERENT_MEMORY);
  s = put(s, RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_SYS),
          0x3456789000ull >> NV_MMU_VER3_PTE_ADDRESS_SHIFT);
  EXPECT_EQ(encode_leaf(5, 0x3456789000ull, a), s);
  EXPECT_EQ(
      encode_leaf(3, 0x20000000, {}),  // 512 MiB at PDE1
      put(e, RG_FIELD(NV_MMU_VER3_PTE_ADDRESS_VID), 0x20000000 >> NV_MMU_VER3_PTE_ADDRESS_SHIFT));

  W p{0, 0};
  p = put(p, RG_FIELD(NV_MMU_VER3_PDE_IS_PTE), NV_MMU_VER3_PDE_IS_PTE_FALSE);
  p = put(p, RG_FIELD(NV_MMU_VER3_PDE_APERTURE), NV_MMU_VER3_PDE_APERTURE_VIDEO_MEMORY);
  p = put(p, RG_FIELD(NV_MMU_VER3_PDE_PCF), NV_MMU_VER3_PDE_PCF_VALID_CACHED_ATS_NOT_ALLOWED);
  p = put(p, RG_FIELD(NV_MMU_VER3_PDE_ADDRESS), 0x7000 >> NV_MMU_VER3_PDE_ADDRESS_SHIFT);
  EXPECT_EQ(encode_table(0, 0x7000), p);
  EXPECT_EQ(encode_table(3, 0x7000), p);

  W d{0, 0};
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_APERTURE_SMALL),
          NV_MMU_VER3_DUAL_PDE_APERTURE_SMALL_VIDEO_MEMORY);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_PCF_SMALL),
          NV_MMU_VER3_DUAL_PDE_PCF_SMALL_VALID_CACHED_ATS_NOT_ALLOWED);
  d = put(d, RG_FIELD(NV_MMU_VER3_DUAL_PDE_ADDRESS_SMALL),
          0x7000 >> NV_MMU_VER3_DUAL_PDE_ADDRESS_SHIFT);
  EXPECT_EQ(encode_table(4, 0x7000), d);
}
#else
TEST(PteGoldenNv, MmuV3) {
  GTEST_SKIP() << "nvidia-open hwref/hopper/gh100/dev_mmu.h not found under the upstream cache ("
               << RAWGPU_UPSTREAM_DIR
               << "/nvidia-open); the hand-written golden values in "
                  "pte_codec_test.cpp still ran";
}
#endif

}  // namespace
}  // namespace rawgpu::memory
