// Upstream side of the constant spot checks: smu_v13_0_6.
#include <cstdint>
#include "consts_lists.h"
#include "pm/swsmu/inc/pmfw_if/smu_v13_0_6_ppsmc.h"

#define V(n) static_cast<long long>(n),
#define F(n, a) static_cast<long long>(n(a)),
#define R(n) static_cast<long long>((1 ? n) * 1000 + (0 ? n)),
#define S(p, f)                                                                                   \
  static_cast<long long>((SDMA_PKT_##p##_##f##_offset * 32 + SDMA_PKT_##p##_##f##_shift) * 1000 + \
                         __builtin_popcountll(SDMA_PKT_##p##_##f##_mask)),

extern const long long rg_up_smu_v13_0_6[];
const long long rg_up_smu_v13_0_6[] = {RG_LIST_SMU(V)};
