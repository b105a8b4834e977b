// Spot check of autogen's gc_9_4_3 against linux-source-6.12 asic_reg/gc/gc_9_4_3_*.h.
#include "rawgpu/autogen/amd/regs/gc_9_4_3.h"
#include "spot.h"

#include "asic_reg/gc/gc_9_4_3_offset.h"
#include "asic_reg/gc/gc_9_4_3_sh_mask.h"

using T_gc_9_4_3 = rawgpu::autogen::amd::gc_9_4_3;

TEST(AutogenUpstream, gc_9_4_3) {
  SPOT_REG_P(T_gc_9_4_3, reg, VM_CONTEXT0_CNTL);
  SPOT_REG_P(T_gc_9_4_3, reg, VM_L2_CNTL);
  SPOT_REG_P(T_gc_9_4_3, reg, CP_MEC_CNTL);
  SPOT_REG_P(T_gc_9_4_3, reg, CP_HQD_ACTIVE);
  SPOT_REG_P(T_gc_9_4_3, reg, SCRATCH_REG7);
  SPOT_REG_P(T_gc_9_4_3, reg, SH_MEM_CONFIG);
  SPOT_REG_P(T_gc_9_4_3, reg, GB_ADDR_CONFIG);
  SPOT_REG_P(T_gc_9_4_3, reg, TCP_UTCL1_CNTL2);
  SPOT_REG_P(T_gc_9_4_3, reg, COMPUTE_PGM_LO);
  SPOT_FIELD(T_gc_9_4_3, VM_CONTEXT0_CNTL, PAGE_TABLE_BLOCK_SIZE);
  SPOT_FIELD(T_gc_9_4_3, CP_MEC_CNTL, MEC_ME1_HALT);
  SPOT_FIELD(T_gc_9_4_3, CP_HQD_PQ_CONTROL, QUEUE_SIZE);
  SPOT_FIELD(T_gc_9_4_3, SH_MEM_CONFIG, RETRY_DISABLE);
  SPOT_FIELD(T_gc_9_4_3, GRBM_GFX_CNTL, PIPEID);
}
