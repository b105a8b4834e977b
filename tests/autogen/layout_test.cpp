// Struct layouts: every size, alignment, member offset and bit-field position of the generated
// structs equals the upstream struct compiled (as C, with the same shims) from the upstream
// cache. Each group contributes an upstream-side function (autogen/generated/layout/*.c) and a
// rawgpu-side function (*.cpp) filling the same list.
#include <gtest/gtest.h>

#include <vector>

#define RG_LAYOUT_DECL(g)                                       \
  extern "C" void rg_layout_##g##_upstream(unsigned long* out); \
  extern const unsigned long rg_layout_##g##_count;             \
  extern const char* const rg_layout_##g##_names[];             \
  void rg_layout_##g##_rawgpu(unsigned long* out);

#define RG_LAYOUT_TEST(g)                                                                      \
  TEST(AutogenLayout, g) {                                                                     \
    const unsigned long n = rg_layout_##g##_count;                                             \
    ASSERT_GT(n, 0u);                                                                          \
    std::vector<unsigned long> up(n, ~0ul), rg(n, ~0ul);                                       \
    rg_layout_##g##_upstream(up.data());                                                       \
    rg_layout_##g##_rawgpu(rg.data());                                                         \
    for (unsigned long i = 0; i < n; ++i) EXPECT_EQ(rg[i], up[i]) << rg_layout_##g##_names[i]; \
  }

#ifdef RG_HAVE_UPSTREAM_LINUX
#define RG_LINUX_GROUPS(X) \
  X(discovery)             \
  X(ucode)                 \
  X(psp)                   \
  X(mqd_v9)                \
  X(mqd_v11)               \
  X(mqd_v12)               \
  X(kfd_pm4_ai)            \
  X(gsp_rm)                \
  X(nv_rm_535)
RG_LINUX_GROUPS(RG_LAYOUT_DECL)
RG_LINUX_GROUPS(RG_LAYOUT_TEST)
#else
TEST(AutogenLayout, Linux) {
  GTEST_SKIP() << "no upstream linux cache (autogen/rawgpu-autogen fetch)";
}
#endif

#ifdef RG_HAVE_UPSTREAM_NVIDIA
#define RG_NVIDIA_GROUPS(X) \
  X(nv_uvm_ioctl)           \
  X(nv_ioctl)
RG_NVIDIA_GROUPS(RG_LAYOUT_DECL)
RG_NVIDIA_GROUPS(RG_LAYOUT_TEST)
#else
TEST(AutogenLayout, Nvidia) {
  GTEST_SKIP() << "no upstream nvidia-open cache (autogen/rawgpu-autogen fetch)";
}
#endif
