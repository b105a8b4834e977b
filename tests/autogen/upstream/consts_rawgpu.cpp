// rawgpu side of the constant spot checks (generated headers only), and the comparison.
#include <gtest/gtest.h>

#include <cstddef>

#include "consts_lists.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/autogen/amd/ih_ids.h"
#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/pm4_soc15.h"
#include "rawgpu/autogen/amd/sdma_v4.h"
#include "rawgpu/autogen/amd/sdma_v6.h"
#include "rawgpu/autogen/amd/smu_v13_0_0_ppsmc.h"
#include "rawgpu/autogen/amd/smu_v13_0_6_ppsmc.h"
#include "rawgpu/autogen/amd/smu_v14_0_2_ppsmc.h"
#include "rawgpu/autogen/nv/clc56f.h"
#include "rawgpu/autogen/nv/clc6b5.h"
#include "rawgpu/autogen/nv/clc7b5.h"
#include "rawgpu/autogen/nv/clc86f.h"
#include "rawgpu/autogen/nv/clc8b5.h"
#include "rawgpu/autogen/nv/dev_mmu_gh100.h"
#include "rawgpu/autogen/nv/dev_mmu_tu102.h"
#include "rawgpu/autogen/nv/gsp_rm_535.h"
#include "rawgpu/autogen/nv/nv_ioctl_numbers.h"
#include "rawgpu/autogen/nv/uvm_ioctl_numbers.h"

#define DECL(tag) extern const long long rg_up_##tag[];
DECL(pm4_nvd)
DECL(pm4_soc15)
DECL(sdma_v6)
DECL(sdma_v4)
DECL(smu_v13_0_0)
DECL(smu_v13_0_6)
DECL(smu_v14_0_2)
DECL(hwid)
DECL(ih)
DECL(nv_classes)
DECL(mmu_tu102)
DECL(mmu_gh100)
DECL(nv_ioctl)
DECL(uvm_ioctl)
DECL(gsp)
#undef DECL

namespace {

namespace amd = rawgpu::autogen::amd;
namespace nv = rawgpu::autogen::nv;

#define NAME_V(n) #n,
#define NAME_F(n, a) #n "(" #a ")",
#define NAME_R(n) #n " hi:lo",
#define NAME_S(p, f) #p "::" #f,
#define NAME_Q(ns, n) #ns "::" #n,

#define RG_CHECK_LIST(tag, LIST, NAMES, VALUES)                                    \
  TEST(AutogenUpstreamConsts, tag) {                                               \
    static const char* const names[] = {NAMES};                                    \
    const long long mine[] = {VALUES};                                             \
    constexpr size_t n = sizeof(mine) / sizeof(mine[0]);                           \
    static_assert(sizeof(names) / sizeof(names[0]) == n);                          \
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(mine[i], rg_up_##tag[i]) << names[i]; \
  }

}  // namespace

// Per-list value macros (NS fixed per list).
#define V_NVD(n) static_cast<long long>(amd::pm4_nvd::n),
#define F_NVD(n, a) static_cast<long long>(amd::pm4_nvd::n(a)),
RG_CHECK_LIST(pm4_nvd, , RG_LIST_PM4_NVD(NAME_V, NAME_F), RG_LIST_PM4_NVD(V_NVD, F_NVD))
#define V_SOC(n) static_cast<long long>(amd::pm4_soc15::n),
#define F_SOC(n, a) static_cast<long long>(amd::pm4_soc15::n(a)),
RG_CHECK_LIST(pm4_soc15, , RG_LIST_PM4_SOC15(NAME_V, NAME_F), RG_LIST_PM4_SOC15(V_SOC, F_SOC))
#define V_S6(n) static_cast<long long>(amd::sdma_v6::n),
#define S_S6(p, f) static_cast<long long>(amd::sdma_v6::p::f.lo * 1000 + amd::sdma_v6::p::f.width),
RG_CHECK_LIST(sdma_v6, , RG_LIST_SDMA_V6(NAME_V, NAME_S), RG_LIST_SDMA_V6(V_S6, S_S6))
#define V_S4(n) static_cast<long long>(amd::sdma_v4::n),
#define S_S4(p, f) static_cast<long long>(amd::sdma_v4::p::f.lo * 1000 + amd::sdma_v4::p::f.width),
RG_CHECK_LIST(sdma_v4, , RG_LIST_SDMA_V4(NAME_V, NAME_S), RG_LIST_SDMA_V4(V_S4, S_S4))
#define V_M0(n) static_cast<long long>(amd::smu_v13_0_0::n),
RG_CHECK_LIST(smu_v13_0_0, , RG_LIST_SMU(NAME_V), RG_LIST_SMU(V_M0))
#define V_M6(n) static_cast<long long>(amd::smu_v13_0_6::n),
RG_CHECK_LIST(smu_v13_0_6, , RG_LIST_SMU(NAME_V), RG_LIST_SMU(V_M6))
#define V_M14(n) static_cast<long long>(amd::smu_v14_0_2::n),
RG_CHECK_LIST(smu_v14_0_2, , RG_LIST_SMU(NAME_V), RG_LIST_SMU(V_M14))
#define V_HW(n) static_cast<long long>(amd::hwid::n),
RG_CHECK_LIST(hwid, , RG_LIST_HWID(NAME_V), RG_LIST_HWID(V_HW))
#define Q_IH(ns, n) static_cast<long long>(amd::ns::n),
RG_CHECK_LIST(ih, , RG_LIST_IH(NAME_Q), RG_LIST_IH(Q_IH))
#define V_GSP(n) static_cast<long long>(nv::gsp::n),
RG_CHECK_LIST(gsp, , RG_LIST_GSP(NAME_V), RG_LIST_GSP(V_GSP))
#ifdef RG_HAVE_UPSTREAM_NVIDIA
using namespace nv::clc56f;
using namespace nv::clc86f;
using namespace nv::clc6b5;
using namespace nv::clc7b5;
using namespace nv::clc8b5;
#define V_CL(n) static_cast<long long>(n),
#define R_CL(n) static_cast<long long>(n.hi() * 1000 + n.lo),
RG_CHECK_LIST(nv_classes, , RG_LIST_NV_CLASSES(NAME_V, NAME_R), RG_LIST_NV_CLASSES(V_CL, R_CL))
#define V_TU(n) static_cast<long long>(nv::mmu_tu102::n),
#define R_TU(n) static_cast<long long>(nv::mmu_tu102::n.hi() * 1000 + nv::mmu_tu102::n.lo),
RG_CHECK_LIST(mmu_tu102, , RG_LIST_MMU_TU102(NAME_V, NAME_R), RG_LIST_MMU_TU102(V_TU, R_TU))
#define V_GH(n) static_cast<long long>(nv::mmu_gh100::n),
#define R_GH(n) static_cast<long long>(nv::mmu_gh100::n.hi() * 1000 + nv::mmu_gh100::n.lo),
RG_CHECK_LIST(mmu_gh100, , RG_LIST_MMU_GH100(NAME_V, NAME_R), RG_LIST_MMU_GH100(V_GH, R_GH))
#define V_IO(n) static_cast<long long>(nv::ioctl::n),
RG_CHECK_LIST(nv_ioctl, , RG_LIST_NV_IOCTL(NAME_V), RG_LIST_NV_IOCTL(V_IO))
#define V_UV(n) static_cast<long long>(nv::uvm::n),
RG_CHECK_LIST(uvm_ioctl, , RG_LIST_UVM_IOCTL(NAME_V), RG_LIST_UVM_IOCTL(V_UV))
#endif  // RG_HAVE_UPSTREAM_NVIDIA
