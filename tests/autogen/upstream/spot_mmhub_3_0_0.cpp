// Spot check of autogen's mmhub_3_0_0 against linux-source-6.12 asic_reg/mmhub/mmhub_3_0_0_*.h.
#include "rawgpu/autogen/amd/regs/mmhub_3_0_0.h"
#include "spot.h"

#include "asic_reg/mmhub/mmhub_3_0_0_offset.h"
#include "asic_reg/mmhub/mmhub_3_0_0_sh_mask.h"

using T_mmhub_3_0_0 = rawgpu::autogen::amd::mmhub_3_0_0;

TEST(AutogenUpstream, mmhub_3_0_0) {
  SPOT_REG_P(T_mmhub_3_0_0, reg, MMVM_CONTEXT0_CNTL);
  SPOT_REG_P(T_mmhub_3_0_0, reg, MMVM_INVALIDATE_ENG17_SEM);
  SPOT_REG_P(T_mmhub_3_0_0, reg, MMVM_INVALIDATE_ENG17_REQ);
  SPOT_REG_P(T_mmhub_3_0_0, reg, MMVM_INVALIDATE_ENG17_ACK);
  SPOT_REG_P(T_mmhub_3_0_0, reg, MMMC_VM_FB_LOCATION_BASE);
  SPOT_REG_P(T_mmhub_3_0_0, reg, MMVM_L2_CNTL);
  SPOT_REG_P(T_mmhub_3_0_0, reg, MMMC_VM_SYSTEM_APERTURE_LOW_ADDR);
  SPOT_FIELD(T_mmhub_3_0_0, MMVM_CONTEXT0_CNTL, PAGE_TABLE_BLOCK_SIZE);
  SPOT_FIELD(T_mmhub_3_0_0, MMVM_L2_CNTL, ENABLE_L2_CACHE);
  SPOT_FIELD(T_mmhub_3_0_0, MMVM_INVALIDATE_ENG17_REQ, PER_VMID_INVALIDATE_REQ);
  SPOT_FIELD(T_mmhub_3_0_0, MMMC_VM_MX_L1_TLB_CNTL, SYSTEM_ACCESS_MODE);
}
