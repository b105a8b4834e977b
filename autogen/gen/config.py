"""What autogen emits: IP versions and per-IP register allow-lists.

Allow-lists are Python regular expressions matched against the whole register name (without
the `reg`/`mm` prefix). To expose another register, add its name (or a pattern) to the IP's
list and run `autogen/rawgpu-autogen generate`; the IP versions that define it get it.
"""

ASIC_REG = "drivers/gpu/drm/amd/include/asic_reg"

# (output name, directory under asic_reg, file base, allow-list key)
AMD_REG_TABLES = [
    ("gc_9_4_3", "gc", "gc_9_4_3", "gc"),
    ("gc_11_0_0", "gc", "gc_11_0_0", "gc"),
    ("gc_12_0_0", "gc", "gc_12_0_0", "gc"),
    ("mmhub_1_8_0", "mmhub", "mmhub_1_8_0", "mmhub"),
    ("mmhub_3_0_0", "mmhub", "mmhub_3_0_0", "mmhub"),
    ("mmhub_4_1_0", "mmhub", "mmhub_4_1_0", "mmhub"),
    ("nbio_4_3_0", "nbio", "nbio_4_3_0", "nbio"),
    ("nbio_7_9_0", "nbio", "nbio_7_9_0", "nbio"),
    ("nbif_6_3_1", "nbif", "nbif_6_3_1", "nbio"),
    ("mp_11_0", "mp", "mp_11_0", "mp"),
    ("mp_13_0_0", "mp", "mp_13_0_0", "mp"),
    ("mp_13_0_6", "mp", "mp_13_0_6", "mp"),
    ("mp_14_0_2", "mp", "mp_14_0_2", "mp"),
    ("osssys_4_4_2", "oss", "osssys_4_4_2", "osssys"),
    ("osssys_6_0_0", "oss", "osssys_6_0_0", "osssys"),
    ("osssys_7_0_0", "oss", "osssys_7_0_0", "osssys"),
    ("hdp_4_4_2", "hdp", "hdp_4_4_2", "hdp"),
    ("hdp_6_0_0", "hdp", "hdp_6_0_0", "hdp"),
    ("hdp_7_0_0", "hdp", "hdp_7_0_0", "hdp"),
    ("smuio_13_0_6", "smuio", "smuio_13_0_6", "smuio"),
    ("smuio_14_0_2", "smuio", "smuio_14_0_2", "smuio"),
    ("sdma_4_4_2", "sdma", "sdma_4_4_2", "sdma"),
]

ALLOW = {
    # GC: VM hub, CP/MEC/HQD, RLC, GRBM, shader memory config, compute dispatch, scratch,
    # the SDMA engines inside GC 11/12, clock gating bits the AM driver touches.
    "gc": [
        r"(GC)?VM_.*",
        r"(GC)?MC_VM_.*",
        r"GCUTCL2_.*",
        r"CP_(HQD|MQD)_.*",
        r"CP_MEC_.*",
        r"CP_(ME|PFP)_(CNTL|PRGRM_CNTR_START(_HI)?|IC_.*|RS64_.*)",
        r"CP_(STAT|BUSY_STAT|CPC_STATUS|CPC_BUSY_STAT.*|CPF_STATUS|CPC_STALLED_STAT1)",
        r"CP_(INT_CNTL.*|ME1_PIPE\d_INT_CNTL|RB_WPTR_POLL_CNTL|COHER_.*|DEVICE_ID|PQ_.*)",
        r"CP_(SOFT_RESET_CNTL|MES_CNTL|HPD_EOP_.*|HPD_STATUS0|INT_STAT.*|CPC_IC_BASE_.*)",
        r"RLC_(CNTL|STAT|SAFE_MODE|SRM_CNTL|SPM_MC_CNTL|CGCG_CGLS_CTRL|CGTT_MGCG_OVERRIDE)",
        r"RLC_(RLCS_BOOTLOAD_STATUS|GPM_STAT|CP_SCHEDULERS|GPM_THREAD_ENABLE|RLCS_GRBM_SOFT_RESET)",
        r"RLC_(CSIB_.*|PG_CNTL|LB_CNTL|SPARE_INT_\d|RLCS_(CP_INT_.*|IH_SEMAPHORE|GPM_STAT.*))",
        r"GRBM_(CNTL|GFX_CNTL|GFX_INDEX|SOFT_RESET|STATUS.*|READ_ERROR.*|GFX_INDEX_SR_.*)",
        r"SH_MEM_.*",
        r"COMPUTE_.*",
        r"SCRATCH_(REG\d+|ADDR|UMSK)",
        r"TCP_(CNTL|UTCL1_CNTL2)",
        r"GB_ADDR_CONFIG.*",
        r"SQ_(SHADER_TBA_.*|SHADER_TMA_.*|CMD|IND_INDEX|IND_DATA|CONFIG|DEBUG.*)",
        r"SDMA[01]_(F32_CNTL|MCU_CNTL|CNTL|UTCL1_.*|WATCHDOG_CNTL|STATUS\d?_REG|QUEUE0_.*)",
        r"SDMA[01]_(CHICKEN_BITS.*|RLC_CGCG_CTRL|FREEZE|UCODE_.*|ERROR_LOG|SEM_.*|PUB_DUMMY_REG\d)",
        r"SDMA[01]_(BROADCAST_.*|POWER_CNTL|CLK_CTRL|GB_ADDR_CONFIG.*|F32_COUNTER|VM_CNTL)",
        r"GCEA_(PROBE_MAP|SDP_.*CNTL.*)",
        r"SPI_(GDBG_.*|CONFIG_CNTL.*|COMPUTE_QUEUE_RESET)",
        r"GC_CAC_.*IND.*",
        r"GFX_IMU_(CORE_CTRL|CORE_STATUS|GFX_RESET_CTRL|RLC_BOOTLOADER_.*|C2PMSG_\d+|SCRATCH_\d+)",
        r"GFX_IMU_(I_RAM_.*|D_RAM_.*|GFX_ISO_CTRL|PWROKRAW|RESETN|STATUS)",
    ],
    "mmhub": [
        r"(MM)?VM_.*",
        r"(MM)?MC_VM_.*",
        r"(MM)?UTCL2_.*",
        r"MMEA\d?_(SDP_.*CNTL.*|PROBE_MAP)",
    ],
    "nbio": [
        r"RCC_DEV0_EPF[0-2]_(RCC_DOORBELL.*|STRAP\d+|RCC_CONFIG_MEMSIZE|RCC_CONFIG_.*)",
        r"RCC_CONFIG_MEMSIZE",
        r"BIF_BX\d?_(PCIE_INDEX.*|PCIE_DATA.*|REMAP_HDP_.*|BIF_DOORBELL.*|MM_INDEX.*|MM_DATA)",
        r"BIF_BX_PF\d?_(RSMU_.*|GPU_HDP_FLUSH_.*|MM_INDEX.*|MM_DATA|MAILBOX_.*)",
        r"BIFC_(DOORBELL_ACCESS_EN_PF|GFX_INT_MONITOR_MASK|MISC_CTRL\d)",
        r"S2A_DOORBELL_.*",
        r"GDC_S2A0_S2A_DOORBELL_.*",
        r"XCC_DOORBELL_FENCE",
        r"DOORBELL0_CTRL_ENTRY_\d+",
        r"PCIE_INDEX2?(_HI)?|PCIE_DATA2?",
    ],
    "mp": [
        r"MP[01]_SMN_(C2PMSG|IH_.*|PUB_.*)_?\d*",
        r"MPASP_SMN_(C2PMSG|IH_.*)_?\d*",
        r"MP1_(PUB_SCRATCH\d+|FIRMWARE_FLAGS|SMN_FPS_CNT|SMN_EXT_SCRATCH\d+)",
        r"MP0_(PUB_SCRATCH\d+|SMN_.*)",
    ],
    "osssys": [r"IH_.*", r"SEM_.*"],
    "hdp": [r"HDP_.*"],
    "smuio": [r"SMUIO_.*", r"ROM_.*", r"SMU_IO_.*", r"PWR_.*", r"GOLDEN_TSC_.*", r"MCM_CONFIG"],
    "sdma": [
        r"SDMA_(F32_CNTL|CNTL|UTCL1_.*|WATCHDOG_CNTL|STATUS\d?_REG|CHICKEN_BITS.*|FREEZE)",
        r"SDMA_(GFX_.*|PAGE_.*|UCODE_.*|SEM_.*|PUB_DUMMY_REG\d|POWER_CNTL|CLK_CTRL)",
        r"SDMA_(GB_ADDR_CONFIG.*|RLC_CGCG_CTRL|ERROR_LOG|VM_CNTL|F32_COUNTER|MMHUB_CNTL)",
    ],
}
