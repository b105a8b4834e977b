// Spot check of autogen's nbif_6_3_1 against linux-source-6.12 asic_reg/nbif/nbif_6_3_1_*.h.
#include "rawgpu/autogen/amd/regs/nbif_6_3_1.h"
#include "spot.h"

#include "asic_reg/nbif/nbif_6_3_1_offset.h"
#include "asic_reg/nbif/nbif_6_3_1_sh_mask.h"

using T_nbif_6_3_1 = rawgpu::autogen::amd::nbif_6_3_1;

TEST(AutogenUpstream, nbif_6_3_1) {
  SPOT_REG_P(T_nbif_6_3_1, reg, BIF_BX_PF0_RSMU_INDEX);
  SPOT_REG_P(T_nbif_6_3_1, reg, BIF_BX_PF0_RSMU_DATA);
  SPOT_REG_P(T_nbif_6_3_1, reg, BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL);
  SPOT_REG_P(T_nbif_6_3_1, reg, GDC_S2A0_S2A_DOORBELL_ENTRY_0_CTRL);
  SPOT_REG_P(T_nbif_6_3_1, reg, RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN);
  SPOT_FIELD(T_nbif_6_3_1, GDC_S2A0_S2A_DOORBELL_ENTRY_0_CTRL, S2A_DOORBELL_PORT0_ENABLE);
}
