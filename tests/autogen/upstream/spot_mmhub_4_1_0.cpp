// Spot check of autogen's mmhub_4_1_0 against linux-source-6.12 asic_reg/mmhub/mmhub_4_1_0_*.h.
#include "rawgpu/autogen/amd/regs/mmhub_4_1_0.h"
#include "spot.h"

#include "asic_reg/mmhub/mmhub_4_1_0_offset.h"
#include "asic_reg/mmhub/mmhub_4_1_0_sh_mask.h"

using T_mmhub_4_1_0 = rawgpu::autogen::amd::mmhub_4_1_0;

TEST(AutogenUpstream, mmhub_4_1_0) {
  SPOT_REG_P(T_mmhub_4_1_0, reg, MMVM_CONTEXT0_CNTL);
  SPOT_REG_P(T_mmhub_4_1_0, reg, MMVM_INVALIDATE_ENG17_SEM);
  SPOT_REG_P(T_mmhub_4_1_0, reg, MMVM_L2_CNTL);
  SPOT_REG_P(T_mmhub_4_1_0, reg, MMMC_VM_FB_LOCATION_BASE);
  SPOT_FIELD(T_mmhub_4_1_0, MMVM_CONTEXT0_CNTL, PAGE_TABLE_BLOCK_SIZE);
  SPOT_FIELD(T_mmhub_4_1_0, MMVM_L2_CNTL, ENABLE_L2_CACHE);
}
