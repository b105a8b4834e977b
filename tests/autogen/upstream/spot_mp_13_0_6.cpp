// Spot check of autogen's mp_13_0_6 against linux-source-6.12 asic_reg/mp/mp_13_0_6_*.h.
#include "rawgpu/autogen/amd/regs/mp_13_0_6.h"
#include "spot.h"

#include "asic_reg/mp/mp_13_0_6_offset.h"
#include "asic_reg/mp/mp_13_0_6_sh_mask.h"

using T_mp_13_0_6 = rawgpu::autogen::amd::mp_13_0_6;

TEST(AutogenUpstream, mp_13_0_6) {
  SPOT_REG_P(T_mp_13_0_6, reg, MP0_SMN_C2PMSG_35);
  SPOT_REG_P(T_mp_13_0_6, reg, MP0_SMN_C2PMSG_81);
  SPOT_REG_P(T_mp_13_0_6, reg, MP1_SMN_C2PMSG_66);
  SPOT_REG_P(T_mp_13_0_6, reg, MP1_SMN_C2PMSG_90);
}
