// Spot check of autogen's nbio_7_9_0 against linux-source-6.12 asic_reg/nbio/nbio_7_9_0_*.h.
#include "rawgpu/autogen/amd/regs/nbio_7_9_0.h"
#include "spot.h"

#include "asic_reg/nbio/nbio_7_9_0_offset.h"
#include "asic_reg/nbio/nbio_7_9_0_sh_mask.h"

using T_nbio_7_9_0 = rawgpu::autogen::amd::nbio_7_9_0;

TEST(AutogenUpstream, nbio_7_9_0) {
  SPOT_REG_P(T_nbio_7_9_0, reg, BIF_BX0_PCIE_INDEX2);
  SPOT_REG_P(T_nbio_7_9_0, reg, BIF_BX0_PCIE_DATA2);
  SPOT_REG_P(T_nbio_7_9_0, reg, XCC_DOORBELL_FENCE);
  SPOT_REG_P(T_nbio_7_9_0, reg, BIFC_DOORBELL_ACCESS_EN_PF);
  SPOT_REG_P(T_nbio_7_9_0, reg, BIFC_GFX_INT_MONITOR_MASK);
}
