// Spot-check lists for autogen's constants: each entry is compared between the upstream macro
// (compiled in a TU that includes only the upstream header) and the generated constant
// (compiled in a TU that includes only rawgpu's header), so the two never meet in one TU.
//   V(name)          integer constant
//   F(name, arg)     field helper macro applied to arg
//   R(name)          NVIDIA hi:lo bit range -> hi * 1000 + lo
//   S(pkt, field)    SDMA packet field -> (dword * 32 + shift) * 1000 + width
//   Q(ns, name)      integer constant the generated header puts in namespace ns (IH ids)
#pragma once

// clang-format off: long X-macro lists (clang-format does not reach a fixed point on them).

#define RG_LIST_PM4_NVD(V, F)                                                                      \
  V(PACKET3_NOP)                                                                                   \
  V(PACKET3_DISPATCH_DIRECT)                                                                       \
  V(PACKET3_PRED_EXEC) V(PACKET3_WAIT_REG_MEM) V(PACKET3_INDIRECT_BUFFER) V(PACKET3_COPY_DATA)     \
      V(PACKET3_EVENT_WRITE) V(PACKET3_RELEASE_MEM) V(PACKET3_ACQUIRE_MEM) V(PACKET3_SET_SH_REG)   \
          V(PACKET3_SET_UCONFIG_REG) V(PACKET3_SET_SH_REG_START) V(PACKET3_SET_UCONFIG_REG_START)  \
              V(PACKET3_RELEASE_MEM_GCR_GL2_WB) V(PACKET3_RELEASE_MEM_GCR_SEQ) V(PACKET_TYPE3)     \
                  V(INDIRECT_BUFFER_VALID) F(PACKET3_RELEASE_MEM_EVENT_INDEX, 5) F(                \
                      PACKET3_RELEASE_MEM_DATA_SEL, 3) F(PACKET3_RELEASE_MEM_INT_SEL, 2)           \
                      F(PACKET3_RELEASE_MEM_DST_SEL, 1) F(PACKET3_ACQUIRE_MEM_GCR_CNTL_GL2_INV, 1) \
                          F(PACKET3_ACQUIRE_MEM_GCR_CNTL_SEQ, 1) F(WAIT_REG_MEM_FUNCTION, 3)       \
                              F(WAIT_REG_MEM_MEM_SPACE, 1) F(WAIT_REG_MEM_OPERATION, 1)            \
                                  F(WAIT_REG_MEM_ENGINE, 1) F(EVENT_TYPE, 7) F(EVENT_INDEX, 4)

#define RG_LIST_PM4_SOC15(V, F)                                                                   \
  V(PACKET3_NOP)                                                                                  \
  V(PACKET3_RELEASE_MEM)                                                                          \
  V(PACKET3_ACQUIRE_MEM) V(PACKET3_SET_SH_REG) V(PACKET3_SET_SH_REG_START) V(EOP_TC_WB_ACTION_EN) \
      F(EVENT_INDEX, 5) F(DATA_SEL, 1) F(INT_SEL, 2)                                              \
          F(PACKET3_ACQUIRE_MEM_CP_COHER_CNTL_TC_WB_ACTION_ENA, 1) F(WAIT_REG_MEM_FUNCTION, 5)

#define RG_LIST_SDMA_V6(V, S)                                                                      \
  V(SDMA_OP_COPY)                                                                                  \
  V(SDMA_OP_WRITE)                                                                                 \
  V(SDMA_OP_INDIRECT) V(SDMA_OP_FENCE) V(SDMA_OP_TRAP) V(SDMA_OP_POLL_REGMEM) V(SDMA_OP_TIMESTAMP) \
      V(SDMA_SUBOP_TIMESTAMP_GET_GLOBAL) S(COPY_LINEAR, HEADER_op) S(COPY_LINEAR, HEADER_sub_op)   \
          S(COPY_LINEAR, COUNT_count) S(COPY_LINEAR, SRC_ADDR_LO_src_addr_31_0)                    \
              S(COPY_LINEAR, DST_ADDR_HI_dst_addr_63_32) S(INDIRECT, HEADER_vmid)                  \
                  S(INDIRECT, IB_SIZE_ib_size) S(FENCE, HEADER_mtype) S(FENCE, DATA_data)          \
                      S(POLL_REGMEM, HEADER_hdp_flush) S(POLL_REGMEM, HEADER_func)                 \
                          S(POLL_REGMEM, DW5_retry_count) S(TRAP, INT_CONTEXT_int_context)

#define RG_LIST_SDMA_V4(V, S)                                                                  \
  V(SDMA_OP_COPY)                                                                              \
  V(SDMA_OP_FENCE)                                                                             \
  V(SDMA_OP_POLL_REGMEM) S(COPY_LINEAR, COUNT_count) S(COPY_LINEAR, DST_ADDR_LO_dst_addr_31_0) \
      S(INDIRECT, IB_SIZE_ib_size) S(FENCE, DATA_data) S(POLL_REGMEM, HEADER_mem_poll)

#define RG_LIST_SMU(V)                                                                           \
  V(PPSMC_MSG_GetSmuVersion)                                                                     \
  V(PPSMC_MSG_EnableAllSmuFeatures)                                                              \
  V(PPSMC_MSG_SetDriverDramAddrHigh) V(PPSMC_MSG_SetDriverDramAddrLow)                           \
      V(PPSMC_MSG_SetSoftMinByFreq) V(PPSMC_MSG_SetSoftMaxByFreq) V(PPSMC_MSG_GetDpmFreqByIndex) \
          V(PPSMC_MSG_SetPptLimit) V(PPSMC_Result_OK) V(PPSMC_Result_Failed)

#define RG_LIST_HWID(V)                                                                      \
  V(MP1_HWID)                                                                                \
  V(SMUIO_HWID)                                                                              \
  V(GC_HWID) V(MMHUB_HWID) V(OSSSYS_HWID) V(HDP_HWID) V(SDMA0_HWID) V(NBIF_HWID) V(MP0_HWID) \
      V(UMC_HWID) V(DF_HWID) V(ATHUB_HWID)

#define RG_LIST_NV_CLASSES(V, R)                                                                  \
  V(AMPERE_CHANNEL_GPFIFO_A)                                                                      \
  V(HOPPER_CHANNEL_GPFIFO_A)                                                                      \
  V(AMPERE_DMA_COPY_A) V(AMPERE_DMA_COPY_B) V(HOPPER_DMA_COPY_A) V(NVC56F_SEM_ADDR_LO) V(         \
      NVC56F_SEM_EXECUTE) V(NVC56F_SEM_EXECUTE_OPERATION_RELEASE) V(NVC56F_NON_STALL_INTERRUPT)   \
      V(NVC56F_MEM_OP_B) V(NVC86F_SEM_PAYLOAD_HI) V(NVC6B5_LAUNCH_DMA) V(NVC6B5_OFFSET_IN_UPPER)  \
          V(NVC7B5_SET_SEMAPHORE_PAYLOAD_UPPER) V(NVC8B5_LAUNCH_DMA) R(NVC56F_GP_ENTRY1_LENGTH)   \
              R(NVC56F_GP_ENTRY0_GET) R(NVC56F_SEM_EXECUTE_OPERATION)                             \
                  R(NVC56F_SEM_EXECUTE_PAYLOAD_SIZE) R(NVC86F_SEM_EXECUTE_RELEASE_TIMESTAMP)      \
                      R(NVC6B5_LAUNCH_DMA_DATA_TRANSFER_TYPE) R(NVC8B5_LAUNCH_DMA_SEMAPHORE_TYPE) \
                          R(NVC6B5_OFFSET_IN_UPPER_UPPER) R(NVC7B5_LAUNCH_DMA_FLUSH_ENABLE)

#define RG_LIST_MMU_TU102(V, R)                                                             \
  V(NV_MMU_VER2_PTE_APERTURE_VIDEO_MEMORY)                                                  \
  V(NV_MMU_VER2_PTE__SIZE)                                                                  \
  R(NV_MMU_VER2_PTE_VALID) R(NV_MMU_VER2_PTE_APERTURE) R(NV_MMU_VER2_PTE_ADDRESS_SYS)       \
      R(NV_MMU_VER2_PTE_ADDRESS_VID) R(NV_MMU_VER2_PTE_KIND) R(NV_MMU_VER2_PDE_ADDRESS_SYS) \
          R(NV_MMU_VER2_DUAL_PDE_ADDRESS_BIG_SYS) R(NV_MMU_VER2_DUAL_PDE_APERTURE_SMALL)    \
              R(NV_MMU_VER2_PTE_VOL)

#define RG_LIST_MMU_GH100(V, R)                                                     \
  V(NV_MMU_VER3_PTE_APERTURE_VIDEO_MEMORY)                                          \
  V(NV_MMU_VER3_PTE__SIZE)                                                          \
  R(NV_MMU_VER3_PTE_VALID) R(NV_MMU_VER3_PTE_APERTURE) R(NV_MMU_VER3_PTE_PCF)       \
      R(NV_MMU_VER3_PTE_KIND) R(NV_MMU_VER3_PTE_ADDRESS) R(NV_MMU_VER3_PDE_ADDRESS) \
          R(NV_MMU_VER3_DUAL_PDE_ADDRESS_BIG) R(NV_MMU_VER3_DUAL_PDE_PCF_SMALL)

#define RG_LIST_NV_IOCTL(V)                                                                  \
  V(NV_IOCTL_MAGIC)                                                                          \
  V(NV_IOCTL_BASE)                                                                           \
  V(NV_ESC_CARD_INFO) V(NV_ESC_REGISTER_FD) V(NV_ESC_ATTACH_GPUS_TO_FD) V(NV_ESC_SYS_PARAMS) \
      V(NV_ESC_EXPORT_TO_DMABUF_FD)

#define RG_LIST_UVM_IOCTL(V)                                                        \
  V(UVM_INITIALIZE)                                                                 \
  V(UVM_DEINITIALIZE)                                                               \
  V(UVM_REGISTER_GPU) V(UVM_CREATE_RANGE_GROUP) V(UVM_MAP_EXTERNAL_ALLOCATION)      \
      V(UVM_REGISTER_GPU_VASPACE) V(UVM_CREATE_EXTERNAL_RANGE) V(UVM_MM_INITIALIZE) \
          V(UVM_PAGEABLE_MEM_ACCESS)
#define RG_LIST_GSP(V) V(GSP_FW_WPR_META_MAGIC) V(GSP_FW_WPR_META_REVISION) V(MAX_GPC_COUNT)
#define RG_LIST_IH(Q) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_IH) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_ATHUB) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_BIF) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_DCN) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_ISP) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_MP3) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_RLC) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_GFX) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_IMU) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_VCN1) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_THM) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_VCN) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_VPE1) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_VMC) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_GRBM_CP) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_ROM_SMUIO) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_DF) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_VPE) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_PWR) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_LSDMA) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_MP0) \
  Q(soc21_ih_clientid, SOC21_IH_CLIENTID_MP1) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_GRBM_CP) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SE0SH) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SE3SH) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA0) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA1) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA2) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA3) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA4) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA5) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA6) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_SDMA7) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_VMC) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_VMC1) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_UTCL2) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_MP1) \
  Q(soc15_ih_clientid, SOC15_IH_CLIENTID_MAX) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__UTCL2_FAULT) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__SDMA_TRAP) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__SDMA_PAGE_FAULT) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__SDMA_SEM_WAIT_FAIL_TIMEOUT) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__CP_EOP_INTERRUPT) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__CP_BAD_OPCODE_ERROR) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__CP_PRIV_REG_FAULT) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__CP_PRIV_INSTR_FAULT) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__RLC_GC_FED_INTERRUPT) \
  Q(irqsrcs_gfx_11_0_0, GFX_11_0_0__SRCID__SQ_INTERRUPT_ID) \
  Q(irqsrcs_gfx_10_1, GFX_10_1__SRCID__CP_GENERIC_INT) \
  Q(irqsrcs_gfx_10_1, GFX_10_1__SRCID__CP_IB1_INTERRUPT_PKT) \
  Q(irqsrcs_gfx_10_1, GFX_10_1__SRCID__SQ_INTERRUPT_ID) \
  Q(irqsrcs_gfx_9_0, GFX_9_0__SRCID__CP_EOP_INTERRUPT) \
  Q(irqsrcs_gfx_9_0, GFX_9_0__SRCID__CP_BAD_OPCODE_ERROR) \
  Q(irqsrcs_gfx_9_0, GFX_9_0__SRCID__SQ_INTERRUPT_ID) \
  Q(irqsrcs_vmc_1_0, VMC_1_0__SRCID__VM_FAULT) \
  Q(irqsrcs_vmc_1_0, VMC_1_0__SRCID__VM_CONTEXT1_ALL) \
  Q(irqsrcs_vmc_1_0, UTCL2_1_0__SRCID__FAULT) \
  Q(irqsrcs_sdma0_4_0, SDMA0_4_0__SRCID__SDMA_TRAP) \
  Q(irqsrcs_sdma0_4_0, SDMA0_4_0__SRCID__SDMA_PAGE_FAULT) \
  Q(irqsrcs_sdma0_4_0, SDMA0_4_0__SRCID__SDMA_SRBMWRITE)
// clang-format on
