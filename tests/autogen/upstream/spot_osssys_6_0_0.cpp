// Spot check of autogen's osssys_6_0_0 against linux-source-6.12 asic_reg/oss/osssys_6_0_0_*.h.
#include "rawgpu/autogen/amd/regs/osssys_6_0_0.h"
#include "spot.h"

#include "asic_reg/oss/osssys_6_0_0_offset.h"
#include "asic_reg/oss/osssys_6_0_0_sh_mask.h"

using T_osssys_6_0_0 = rawgpu::autogen::amd::osssys_6_0_0;

TEST(AutogenUpstream, osssys_6_0_0) {
  SPOT_REG_P(T_osssys_6_0_0, reg, IH_RB_CNTL);
  SPOT_REG_P(T_osssys_6_0_0, reg, IH_RB_BASE);
  SPOT_REG_P(T_osssys_6_0_0, reg, IH_RB_WPTR);
  SPOT_REG_P(T_osssys_6_0_0, reg, IH_RB_RPTR);
  SPOT_REG_P(T_osssys_6_0_0, reg, IH_RB_CNTL_RING1);
  SPOT_REG_P(T_osssys_6_0_0, reg, IH_DOORBELL_RPTR);
  SPOT_FIELD(T_osssys_6_0_0, IH_RB_CNTL, RB_SIZE);
  SPOT_FIELD(T_osssys_6_0_0, IH_RB_CNTL, MC_SPACE);
  SPOT_FIELD(T_osssys_6_0_0, IH_RB_WPTR, OFFSET);
  SPOT_FIELD(T_osssys_6_0_0, IH_RB_WPTR, RB_OVERFLOW);
  SPOT_FIELD(T_osssys_6_0_0, IH_RB_CNTL, WPTR_OVERFLOW_CLEAR);
}
