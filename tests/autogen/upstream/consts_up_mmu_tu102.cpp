// Upstream side of the constant spot checks: mmu_tu102.
#include <cstdint>
#include "consts_lists.h"
#include "hwref/turing/tu102/dev_mmu.h"

#define V(n) static_cast<long long>(n),
#define F(n, a) static_cast<long long>(n(a)),
#define R(n) static_cast<long long>((1 ? n) * 1000 + (0 ? n)),
#define S(p, f)                                                                                   \
  static_cast<long long>((SDMA_PKT_##p##_##f##_offset * 32 + SDMA_PKT_##p##_##f##_shift) * 1000 + \
                         __builtin_popcountll(SDMA_PKT_##p##_##f##_mask)),

extern const long long rg_up_mmu_tu102[];
const long long rg_up_mmu_tu102[] = {RG_LIST_MMU_TU102(V, R)};
