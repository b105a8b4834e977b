// NVIDIA MMU v2 encodings checked against the field definitions of nvidia-open-kernel-source
// kernel-open/nvidia-uvm/hwref/turing/tu102/dev_mmu.h (NV_MMU_VER2_*), found in the upstream
// cache (see the top-level meson.build, upstream_dir). Fields are "hi:lo" ranges; the expected
// words are assembled field by field from those ranges.
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
W encode_leaf(unsigned level, uint64_t pa, const PageAttrs& a) {
  W w{0, 0};
  auto c = make_codec(PageTableFormat::kNvMmuV2);
  c->encode_leaves(level, pa, 1, a, 0, w.data());
  if (c->levels()[level].entry_bytes == 8) w[1] = 0;
  return w;
}
W encode_table(unsigned level, uint64_t child) {
  W w{0, 0};
  auto c = make_codec(PageTableFormat::kNvMmuV2);
  c->encode_table(level, VramAddr(child), w.data());
  if (c->levels()[level].entry_bytes == 8) w[1] = 0;
  return w;
}
TEST(PteGoldenNv, MmuV2) {
  EXPECT_EQ(NV_MMU_VER2_PTE__SIZE, 8);
  EXPECT_EQ(NV_MMU_VER2_DUAL_PDE__SIZE, 16);
  // Physical limits follow the address field widths.
  auto c = make_codec(PageTableFormat::kNvMmuV2);
  EXPECT_EQ(
      c->phys_limit(Aperture::kVram),
      uint64_t{1} << (NV_MMU_VER2_PTE_ADDRESS_SHIFT + RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID).width));
  EXPECT_EQ(
      c->phys_limit(Aperture::kSystem),
      uint64_t{1} << (NV_MMU_VER2_PTE_ADDRESS_SHIFT + RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_SYS).width));

  const uint64_t pa = 0x12345000;
  W e{0, 0};
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_VALID), NV_MMU_VER2_PTE_VALID_TRUE);
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_APERTURE), NV_MMU_VER2_PTE_APERTURE_VIDEO_MEMORY);
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID), pa >> NV_MMU_VER2_PTE_ADDRESS_SHIFT);
  e = put(e, RG_FIELD(NV_MMU_VER2_PTE_KIND), NV_MMU_PTE_KIND_GENERIC_MEMORY);
  EXPECT_EQ(encode_leaf(4, pa, {}), e);
  EXPECT_EQ(
      encode_leaf(3, 0x40000000, {}),  // 2 MiB PTE in the PDE0 slot, low qword
      put(put(e, RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID), 0), RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_VID),
          0x40000000 >> NV_MMU_VER2_PTE_ADDRESS_SHIFT));

  PageAttrs a;
  a.aperture = Aperture::kSystem;
  a.snooped = true;
  a.uncached = true;
  a.writable = false;
  W s{0, 0};
  s = put(s, RG_FIELD(NV_MMU_VER2_PTE_VALID), NV_MMU_VER2_PTE_VALID_TRUE);
  s = put(s, RG_FIELD(NV_MMU_VER2_PTE_APERTURE), NV_MMU_VER2_PTE_APERTURE_SYSTEM_COHERENT_MEMORY);
  s = put(s, RG_FIELD(NV_MMU_VER2_PTE_VOL), NV_MMU_VER2_PTE_VOL_TRUE);
  s = put(s, RG_FIELD(NV_MMU_VER2_PTE_READ_ONLY), NV_MMU_VER2_PTE_READ_ONLY_TRUE);
  s = put(s, RG_FIELD(NV_MMU_VER2_PTE_ADDRESS_SYS),
          0x3456789000ull >> NV_MMU_VER2_PTE_ADDRESS_SHIFT);
  s = put(s, RG_FIELD(NV_MMU_VER2_PTE_KIND), NV_MMU_PTE_KIND_GENERIC_MEMORY);
  EXPECT_EQ(encode_leaf(4, 0x3456789000ull, a), s);
  a.snooped = false;
  EXPECT_EQ(encode_leaf(4, 0x3456789000ull, a),
            put(s, RG_FIELD(NV_MMU_VER2_PTE_APERTURE),
                NV_MMU_VER2_PTE_APERTURE_SYSTEM_NON_COHERENT_MEMORY));

  W p{0, 0};
  p = put(p, RG_FIELD(NV_MMU_VER2_PDE_IS_PTE), NV_MMU_VER2_PDE_IS_PTE_FALSE);
  p = put(p, RG_FIELD(NV_MMU_VER2_PDE_APERTURE), NV_MMU_VER2_PDE_APERTURE_VIDEO_MEMORY);
  p = put(p, RG_FIELD(NV_MMU_VER2_PDE_NO_ATS), NV_MMU_VER2_PDE_NO_ATS_TRUE);
  p = put(p, RG_FIELD(NV_MMU_VER2_PDE_ADDRESS_VID), 0x7000 >> NV_MMU_VER2_PDE_ADDRESS_SHIFT);
  EXPECT_EQ(encode_table(0, 0x7000), p);
  EXPECT_EQ(encode_table(2, 0x7000), p);

  W d{0, 0};
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_IS_PTE), NV_MMU_VER2_DUAL_PDE_IS_PTE_FALSE);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_APERTURE_BIG),
          NV_MMU_VER2_DUAL_PDE_APERTURE_BIG_INVALID);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_NO_ATS), NV_MMU_VER2_DUAL_PDE_NO_ATS_TRUE);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL),
          NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL_VIDEO_MEMORY);
  d = put(d, RG_FIELD(NV_MMU_VER2_DUAL_PDE_ADDRESS_SMALL_VID),
          0x7000 >> NV_MMU_VER2_DUAL_PDE_ADDRESS_SHIFT);
  EXPECT_EQ(encode_table(3, 0x7000), d);
}
#else
TEST(PteGoldenNv, MmuV2) {
  GTEST_SKIP() << "nvidia-open hwref/turing/tu102/dev_mmu.h not found under the upstream cache ("
               << RAWGPU_UPSTREAM_DIR
               << "/nvidia-open); the hand-written golden values in "
                  "pte_codec_test.cpp still ran";
}
#endif

}  // namespace
}  // namespace rawgpu::memory
