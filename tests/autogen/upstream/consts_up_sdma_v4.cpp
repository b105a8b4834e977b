// Upstream side of the constant spot checks: sdma_v4.
#include <cstdint>
#include "amdgpu/vega10_sdma_pkt_open.h"
#include "consts_lists.h"

#define V(n) static_cast<long long>(n),
#define F(n, a) static_cast<long long>(n(a)),
#define R(n) static_cast<long long>((1 ? n) * 1000 + (0 ? n)),
#define S(p, f)                                                                                   \
  static_cast<long long>((SDMA_PKT_##p##_##f##_offset * 32 + SDMA_PKT_##p##_##f##_shift) * 1000 + \
                         __builtin_popcountll(SDMA_PKT_##p##_##f##_mask)),

extern const long long rg_up_sdma_v4[];
const long long rg_up_sdma_v4[] = {RG_LIST_SDMA_V4(V, S)};
