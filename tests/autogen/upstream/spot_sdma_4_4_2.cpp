// Spot check of autogen's sdma_4_4_2 against linux-source-6.12 asic_reg/sdma/sdma_4_4_2_*.h.
#include "rawgpu/autogen/amd/regs/sdma_4_4_2.h"
#include "spot.h"

#include "asic_reg/sdma/sdma_4_4_2_offset.h"
#include "asic_reg/sdma/sdma_4_4_2_sh_mask.h"

using T_sdma_4_4_2 = rawgpu::autogen::amd::sdma_4_4_2;

TEST(AutogenUpstream, sdma_4_4_2) {
  SPOT_REG_P(T_sdma_4_4_2, reg, SDMA_GFX_RB_CNTL);
  SPOT_REG_P(T_sdma_4_4_2, reg, SDMA_GFX_RB_BASE);
  SPOT_REG_P(T_sdma_4_4_2, reg, SDMA_GFX_DOORBELL);
  SPOT_REG_P(T_sdma_4_4_2, reg, SDMA_CNTL);
  SPOT_REG_P(T_sdma_4_4_2, reg, SDMA_F32_CNTL);
  SPOT_FIELD(T_sdma_4_4_2, SDMA_GFX_RB_CNTL, RB_SIZE);
  SPOT_FIELD(T_sdma_4_4_2, SDMA_CNTL, TRAP_ENABLE);
  SPOT_FIELD(T_sdma_4_4_2, SDMA_F32_CNTL, HALT);
}
