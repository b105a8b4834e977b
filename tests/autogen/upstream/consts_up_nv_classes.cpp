// Upstream side of the constant spot checks: nv_classes.
#include <cstdint>
#include "clc56f.h"
#include "clc6b5.h"
#include "clc7b5.h"
#include "clc86f.h"
#include "clc8b5.h"
#include "consts_lists.h"
#include "nvtypes.h"

#define V(n) static_cast<long long>(n),
#define F(n, a) static_cast<long long>(n(a)),
#define R(n) static_cast<long long>((1 ? n) * 1000 + (0 ? n)),
#define S(p, f)                                                                                   \
  static_cast<long long>((SDMA_PKT_##p##_##f##_offset * 32 + SDMA_PKT_##p##_##f##_shift) * 1000 + \
                         __builtin_popcountll(SDMA_PKT_##p##_##f##_mask)),

extern const long long rg_up_nv_classes[];
const long long rg_up_nv_classes[] = {RG_LIST_NV_CLASSES(V, R)};
