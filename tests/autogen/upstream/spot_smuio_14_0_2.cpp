// Spot check of autogen's smuio_14_0_2 against linux-source-6.12 asic_reg/smuio/smuio_14_0_2_*.h.
#include "rawgpu/autogen/amd/regs/smuio_14_0_2.h"
#include "spot.h"

#include "asic_reg/smuio/smuio_14_0_2_offset.h"
#include "asic_reg/smuio/smuio_14_0_2_sh_mask.h"

using T_smuio_14_0_2 = rawgpu::autogen::amd::smuio_14_0_2;

TEST(AutogenUpstream, smuio_14_0_2) { SPOT_REG_P(T_smuio_14_0_2, reg, SMUIO_MCM_CONFIG); }
