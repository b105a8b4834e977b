// Spot check of autogen's osssys_7_0_0 against linux-source-6.12 asic_reg/oss/osssys_7_0_0_*.h.
#include "rawgpu/autogen/amd/regs/osssys_7_0_0.h"
#include "spot.h"

#include "asic_reg/oss/osssys_7_0_0_offset.h"
#include "asic_reg/oss/osssys_7_0_0_sh_mask.h"

using T_osssys_7_0_0 = rawgpu::autogen::amd::osssys_7_0_0;

TEST(AutogenUpstream, osssys_7_0_0) {
  SPOT_REG_P(T_osssys_7_0_0, reg, IH_RB_CNTL);
  SPOT_REG_P(T_osssys_7_0_0, reg, IH_RB_WPTR);
  SPOT_REG_P(T_osssys_7_0_0, reg, IH_RB_RPTR);
  SPOT_FIELD(T_osssys_7_0_0, IH_RB_CNTL, RB_SIZE);
  SPOT_FIELD(T_osssys_7_0_0, IH_RB_WPTR, OFFSET);
}
