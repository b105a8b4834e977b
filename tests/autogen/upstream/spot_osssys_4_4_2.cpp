// Spot check of autogen's osssys_4_4_2 against linux-source-6.12 asic_reg/oss/osssys_4_4_2_*.h.
#include "rawgpu/autogen/amd/regs/osssys_4_4_2.h"
#include "spot.h"

#include "asic_reg/oss/osssys_4_4_2_offset.h"
#include "asic_reg/oss/osssys_4_4_2_sh_mask.h"

using T_osssys_4_4_2 = rawgpu::autogen::amd::osssys_4_4_2;

TEST(AutogenUpstream, osssys_4_4_2) {
  SPOT_REG_P(T_osssys_4_4_2, reg, IH_RB_CNTL);
  SPOT_REG_P(T_osssys_4_4_2, reg, IH_RB_WPTR);
  SPOT_FIELD(T_osssys_4_4_2, IH_RB_CNTL, RB_SIZE);
}
