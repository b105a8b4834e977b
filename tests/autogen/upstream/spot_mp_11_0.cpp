// Spot check of autogen's mp_11_0 against linux-source-6.12 asic_reg/mp/mp_11_0_*.h.
#include "rawgpu/autogen/amd/regs/mp_11_0.h"
#include "spot.h"

#include "asic_reg/mp/mp_11_0_offset.h"
#include "asic_reg/mp/mp_11_0_sh_mask.h"

using T_mp_11_0 = rawgpu::autogen::amd::mp_11_0;

TEST(AutogenUpstream, mp_11_0) {
  SPOT_REG_P(T_mp_11_0, mm, MP1_SMN_C2PMSG_66);
  SPOT_REG_P(T_mp_11_0, mm, MP1_SMN_C2PMSG_82);
  SPOT_REG_P(T_mp_11_0, mm, MP1_SMN_C2PMSG_90);
}
