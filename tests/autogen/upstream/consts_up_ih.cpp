// Upstream side of the constant spot checks: IH client ids (C enums) and source ids.
#include <cstdint>
#include "consts_lists.h"
#include "include/ivsrcid/gfx/irqsrcs_gfx_10_1.h"
#include "include/ivsrcid/gfx/irqsrcs_gfx_11_0_0.h"
#include "include/ivsrcid/gfx/irqsrcs_gfx_9_0.h"
#include "include/ivsrcid/sdma0/irqsrcs_sdma0_4_0.h"
#include "include/ivsrcid/vmc/irqsrcs_vmc_1_0.h"
#include "include/soc15_ih_clientid.h"

#define Q(ns, n) static_cast<long long>(n),

extern const long long rg_up_ih[];
const long long rg_up_ih[] = {RG_LIST_IH(Q)};
