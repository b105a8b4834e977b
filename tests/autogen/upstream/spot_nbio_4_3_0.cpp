// Spot check of autogen's nbio_4_3_0 against linux-source-6.12 asic_reg/nbio/nbio_4_3_0_*.h.
#include "rawgpu/autogen/amd/regs/nbio_4_3_0.h"
#include "spot.h"

#include "asic_reg/nbio/nbio_4_3_0_offset.h"
#include "asic_reg/nbio/nbio_4_3_0_sh_mask.h"

using T_nbio_4_3_0 = rawgpu::autogen::amd::nbio_4_3_0;

TEST(AutogenUpstream, nbio_4_3_0) {
  SPOT_REG_P(T_nbio_4_3_0, reg, BIF_BX_PF0_RSMU_INDEX);
  SPOT_REG_P(T_nbio_4_3_0, reg, BIF_BX_PF0_RSMU_DATA);
  SPOT_REG_P(T_nbio_4_3_0, reg, BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL);
  SPOT_REG_P(T_nbio_4_3_0, reg, BIF_BX_PF0_GPU_HDP_FLUSH_REQ);
  SPOT_REG_P(T_nbio_4_3_0, reg, RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN);
  SPOT_REG_P(T_nbio_4_3_0, reg, RCC_DEV0_EPF2_STRAP2);
  SPOT_REG_P(T_nbio_4_3_0, reg, S2A_DOORBELL_ENTRY_0_CTRL);
  SPOT_FIELD(T_nbio_4_3_0, S2A_DOORBELL_ENTRY_0_CTRL, S2A_DOORBELL_PORT0_ENABLE);
  SPOT_FIELD(T_nbio_4_3_0, S2A_DOORBELL_ENTRY_0_CTRL, S2A_DOORBELL_PORT0_AWADDR_31_28_VALUE);
  SPOT_FIELD(T_nbio_4_3_0, RCC_DEV0_EPF2_STRAP2, STRAP_NO_SOFT_RESET_DEV0_F2);
}
