// Spot check of autogen's mmhub_1_8_0 against linux-source-6.12 asic_reg/mmhub/mmhub_1_8_0_*.h.
#include "rawgpu/autogen/amd/regs/mmhub_1_8_0.h"
#include "spot.h"

#include "asic_reg/mmhub/mmhub_1_8_0_offset.h"
#include "asic_reg/mmhub/mmhub_1_8_0_sh_mask.h"

using T_mmhub_1_8_0 = rawgpu::autogen::amd::mmhub_1_8_0;

TEST(AutogenUpstream, mmhub_1_8_0) {
  SPOT_REG_P(T_mmhub_1_8_0, reg, VM_CONTEXT0_CNTL);
  SPOT_REG_P(T_mmhub_1_8_0, reg, VM_L2_CNTL);
  SPOT_REG_P(T_mmhub_1_8_0, reg, MC_VM_FB_LOCATION_BASE);
  SPOT_REG_P(T_mmhub_1_8_0, reg, VM_INVALIDATE_ENG17_REQ);
  SPOT_FIELD(T_mmhub_1_8_0, VM_CONTEXT0_CNTL, PAGE_TABLE_BLOCK_SIZE);
  SPOT_FIELD(T_mmhub_1_8_0, VM_L2_CNTL, ENABLE_L2_CACHE);
}
