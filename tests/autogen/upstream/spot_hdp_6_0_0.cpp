// Spot check of autogen's hdp_6_0_0 against linux-source-6.12 asic_reg/hdp/hdp_6_0_0_*.h.
#include "rawgpu/autogen/amd/regs/hdp_6_0_0.h"
#include "spot.h"

#include "asic_reg/hdp/hdp_6_0_0_offset.h"
#include "asic_reg/hdp/hdp_6_0_0_sh_mask.h"

using T_hdp_6_0_0 = rawgpu::autogen::amd::hdp_6_0_0;

TEST(AutogenUpstream, hdp_6_0_0) {
  SPOT_REG_P(T_hdp_6_0_0, reg, HDP_MEM_POWER_CTRL);
  SPOT_REG_P(T_hdp_6_0_0, reg, HDP_MISC_CNTL);
  SPOT_FIELD(T_hdp_6_0_0, HDP_MEM_POWER_CTRL, ATOMIC_MEM_POWER_CTRL_EN);
}
