// Spot check of autogen's mp_14_0_2 against linux-source-6.12 asic_reg/mp/mp_14_0_2_*.h.
#include "rawgpu/autogen/amd/regs/mp_14_0_2.h"
#include "spot.h"

#include "asic_reg/mp/mp_14_0_2_offset.h"
#include "asic_reg/mp/mp_14_0_2_sh_mask.h"

using T_mp_14_0_2 = rawgpu::autogen::amd::mp_14_0_2;

TEST(AutogenUpstream, mp_14_0_2) {
  SPOT_REG_P(T_mp_14_0_2, reg, MPASP_SMN_C2PMSG_35);
  SPOT_REG_P(T_mp_14_0_2, reg, MPASP_SMN_C2PMSG_81);
  SPOT_REG_P(T_mp_14_0_2, reg, MP1_SMN_C2PMSG_66);
  SPOT_REG_P(T_mp_14_0_2, reg, MP1_SMN_C2PMSG_82);
  SPOT_REG_P(T_mp_14_0_2, reg, MP1_SMN_C2PMSG_90);
}
