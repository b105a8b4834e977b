// NVIDIA RM (resource manager) kernel-driver ABI that rawgpu's `nv:` path speaks: the RM escape
// numbers of /dev/nvidiactl, the NVOS parameter blocks, class and control ids, the control
// parameter blocks, and the per-branch sizes and offsets of the structs that drifted between
// driver branches 535, 570 and 580.
//
// No Debian package ships these definitions (they live in open-gpu-kernel-modules `src/common`,
// which nvidia-open-kernel-source does not include). This file is data WRITTEN BY HAND from
// public documentation: NVIDIA open-gpu-kernel-modules `src/common/sdk/nvidia/inc/nvos.h`,
// `ctrl/*.h`, `class/*.h` and `alloc/*.h` at tags 535.113.01, 570.86.15 and 580.65.06, and the
// per-branch deltas recorded by gVisor's nvproxy (pkg/abi/nvgpu), summarised in
// shared/reference/nv.md §2. The 535 rows are checked against nouveau's copies of the 535.113.01
// headers (autogen/generated/.../nv/rm_535.h) in tests/autogen/nv_rm_abi_test.cpp; the 570/580
// rows are confirmed only by the device check on a real driver (scripts/device/nv_check.sh).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rawgpu::autogen::nv::rm {

// --- /dev/nvidiactl escapes (RM API). Frontend escapes 200+ are in nv_ioctl_numbers.h. --------
inline constexpr uint32_t NV_ESC_RM_ALLOC_MEMORY = 0x27;
inline constexpr uint32_t NV_ESC_RM_FREE = 0x29;
inline constexpr uint32_t NV_ESC_RM_CONTROL = 0x2a;
inline constexpr uint32_t NV_ESC_RM_ALLOC = 0x2b;
inline constexpr uint32_t NV_ESC_RM_MAP_MEMORY = 0x4e;
inline constexpr uint32_t NV_ESC_RM_UNMAP_MEMORY = 0x4f;
inline constexpr uint32_t NV_ESC_RM_MAP_MEMORY_DMA = 0x57;
inline constexpr uint32_t NV_ESC_RM_UNMAP_MEMORY_DMA = 0x58;
// Frontend escape added in 550 (absent from the 535 nv-ioctl-numbers.h).
inline constexpr uint32_t NV_ESC_WAIT_OPEN_COMPLETE = 218;

// _IOWR('F', nr, size): the kernel takes the copy size from the command word (14-bit field).
constexpr unsigned long ioctl_cmd(uint32_t nr, uint32_t size) {
  return (3ul << 30) | (static_cast<unsigned long>(size & 0x3fff) << 16) | ('F' << 8) | (nr & 0xff);
}
constexpr uint32_t ioctl_nr(unsigned long cmd) { return cmd & 0xff; }
constexpr uint32_t ioctl_size(unsigned long cmd) { return (cmd >> 16) & 0x3fff; }
constexpr uint32_t ioctl_type(unsigned long cmd) { return (cmd >> 8) & 0xff; }

// --- classes ----------------------------------------------------------------------------------
inline constexpr uint32_t NV01_ROOT_CLIENT = 0x41;
inline constexpr uint32_t NV01_DEVICE_0 = 0x80;
inline constexpr uint32_t NV20_SUBDEVICE_0 = 0x2080;
inline constexpr uint32_t NV01_MEMORY_SYSTEM = 0x3e;
inline constexpr uint32_t NV1_MEMORY_USER = 0x40;
inline constexpr uint32_t NV01_MEMORY_VIRTUAL = 0x70;
inline constexpr uint32_t NV01_MEMORY_SYSTEM_OS_DESCRIPTOR = 0x71;
inline constexpr uint32_t GT200_DEBUGGER = 0x83de;
inline constexpr uint32_t FERMI_CONTEXT_SHARE_A = 0x9067;
inline constexpr uint32_t FERMI_VASPACE_A = 0x90f1;
inline constexpr uint32_t KEPLER_CHANNEL_GROUP_A = 0xa06c;
inline constexpr uint32_t TURING_USERMODE_A = 0xc461;
inline constexpr uint32_t AMPERE_USERMODE_A = 0xc561;
inline constexpr uint32_t HOPPER_USERMODE_A = 0xc661;
inline constexpr uint32_t AMPERE_CHANNEL_GPFIFO_A = 0xc56f;
inline constexpr uint32_t HOPPER_CHANNEL_GPFIFO_A = 0xc86f;
inline constexpr uint32_t AMPERE_DMA_COPY_A = 0xc6b5;
inline constexpr uint32_t AMPERE_DMA_COPY_B = 0xc7b5;
inline constexpr uint32_t HOPPER_DMA_COPY_A = 0xc8b5;
inline constexpr uint32_t AMPERE_COMPUTE_A = 0xc6c0;
inline constexpr uint32_t AMPERE_COMPUTE_B = 0xc7c0;
inline constexpr uint32_t ADA_COMPUTE_A = 0xc9c0;
inline constexpr uint32_t HOPPER_COMPUTE_A = 0xcbc0;

// --- control commands: (class << 16) | (category << 8) | index --------------------------------
inline constexpr uint32_t NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2 = 0x13e;
inline constexpr uint32_t NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 = 0x205;
inline constexpr uint32_t NV0080_CTRL_CMD_GPU_GET_CLASSLIST = 0x800201;
inline constexpr uint32_t NV2080_CTRL_CMD_GPU_GET_GID_INFO = 0x2080014a;
inline constexpr uint32_t NV2080_CTRL_CMD_GR_GET_INFO = 0x20801201;
inline constexpr uint32_t NV2080_CTRL_CMD_FB_FLUSH_GPU_CACHE = 0x2080130e;
inline constexpr uint32_t NV2080_CTRL_CMD_PERF_BOOST = 0x2080200a;
inline constexpr uint32_t NVA06C_CTRL_CMD_GPFIFO_SCHEDULE = 0xa06c0101;
inline constexpr uint32_t NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN = 0xc36f0108;

// NV2080_CTRL_GR_INFO_INDEX_* (ctrl2080gr.h / ctrl0080gr.h).
inline constexpr uint32_t NV2080_CTRL_GR_INFO_INDEX_SM_VERSION = 0xc;
inline constexpr uint32_t NV2080_CTRL_GR_INFO_INDEX_MAX_WARPS_PER_SM = 0xd;
inline constexpr uint32_t NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_GPCS = 0x14;
inline constexpr uint32_t NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_TPC_PER_GPC = 0x17;
inline constexpr uint32_t NV2080_CTRL_GR_INFO_INDEX_LITTER_NUM_SM_PER_TPC = 0x20;

// NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT 1:1 = BINARY (1).
inline constexpr uint32_t NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY = 0x2;
// NV2080_ENGINE_TYPE_GRAPHICS / COPY0.
inline constexpr uint32_t NV2080_ENGINE_TYPE_GRAPHICS = 0x1;
inline constexpr uint32_t NV2080_ENGINE_TYPE_COPY0 = 0x9;
// FERMI_VASPACE_A flags (nvos.h NV_VASPACE_ALLOCATION_FLAGS_*).
inline constexpr uint32_t NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED = 1u << 3;
inline constexpr uint32_t NV_VASPACE_ALLOCATION_FLAGS_ENABLE_PAGE_FAULTING = 1u << 6;
// NV0080_ALLOC_PARAMETERS.vaMode: NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES (the device gets
// VA spaces of its own, FERMI_VASPACE_A). Unconfirmed on hardware.
inline constexpr uint32_t NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES = 2;
// NV_MEMORY_ALLOCATION_PARAMS.format for pitch-linear surfaces (tinygrad and CUDA use 6).
inline constexpr uint32_t kMemoryFormatPitch = 6;
// FERMI_CONTEXT_SHARE_A flags: NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC.
inline constexpr uint32_t NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC = 1;

// NVOS32 (memory allocation) type, flags, attr and attr2 fields (nvos.h).
inline constexpr uint32_t NVOS32_TYPE_IMAGE = 0;
inline constexpr uint32_t NVOS32_TYPE_NOTIFIER = 13;
inline constexpr uint32_t NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT = 0x1;
inline constexpr uint32_t NVOS32_ALLOC_FLAGS_ALIGNMENT_FORCE = 0x100;
inline constexpr uint32_t NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED = 0x4000;
inline constexpr uint32_t NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED = 0x8000;
inline constexpr uint32_t NVOS32_ALLOC_FLAGS_PERSISTENT_VIDMEM = 0x10000;
inline constexpr uint32_t NVOS32_ATTR_PAGE_SIZE_SHIFT = 23;        // 24:23: 1 4 KiB, 2 big, 3 huge
inline constexpr uint32_t NVOS32_ATTR_LOCATION_SHIFT = 25;         // 26:25: 0 vidmem, 1 PCI
inline constexpr uint32_t NVOS32_ATTR_PHYSICALITY_SHIFT = 27;      // 28:27: 2 contiguous, 3 allow
inline constexpr uint32_t NVOS32_ATTR2_GPU_CACHEABLE_SHIFT = 2;    // 3:2: 1 yes, 2 no
inline constexpr uint32_t NVOS32_ATTR2_PAGE_SIZE_HUGE_SHIFT = 20;  // 21:20: 1 2 MiB
// NVOS02 flags (OS-descriptor memory): physicality 5:4, coherency 15:12, mapping 31:30.
inline constexpr uint32_t NVOS02_FLAGS_PHYSICALITY_NONCONTIGUOUS = 1u << 4;
inline constexpr uint32_t NVOS02_FLAGS_COHERENCY_CACHED = 3u << 12;
inline constexpr uint32_t NVOS02_FLAGS_MAPPING_NO_MAP = 1u << 30;
// NVOS33 (map to CPU) flags: caching type 25:23 (2 write-combined).
inline constexpr uint32_t NVOS33_FLAGS_CACHING_TYPE_SHIFT = 23;
// NVOS46 (map into GPU VA) flags: page size 11:8 (1 4 KiB), cache snoop 4, DMA_OFFSET_FIXED 15.
inline constexpr uint32_t NVOS46_FLAGS_PAGE_SIZE_4KB = 1u << 8;
inline constexpr uint32_t NVOS46_FLAGS_CACHE_SNOOP_ENABLE = 1u << 4;
inline constexpr uint32_t NVOS46_FLAGS_DMA_OFFSET_FIXED = 1u << 15;

// --- parameter blocks that did not change between 535 and 610 ----------------------------------
struct NVOS00_PARAMETERS {  // NV_ESC_RM_FREE
  uint32_t hRoot;
  uint32_t hObjectParent;
  uint32_t hObjectOld;
  uint32_t status;
};
static_assert(sizeof(NVOS00_PARAMETERS) == 16);

struct NVOS21_PARAMETERS {  // NV_ESC_RM_ALLOC (the 32-byte form)
  uint32_t hRoot;
  uint32_t hObjectParent;
  uint32_t hObjectNew;
  uint32_t hClass;
  uint64_t pAllocParms;
  uint32_t paramsSize;  // ignored by RM: it sizes alloc parameters from its own class table
  uint32_t status;
};
static_assert(sizeof(NVOS21_PARAMETERS) == 32);
static_assert(offsetof(NVOS21_PARAMETERS, pAllocParms) == 16);
static_assert(offsetof(NVOS21_PARAMETERS, status) == 28);

struct NVOS54_PARAMETERS {  // NV_ESC_RM_CONTROL
  uint32_t hClient;
  uint32_t hObject;
  uint32_t cmd;
  uint32_t flags;
  uint64_t params;
  uint32_t paramsSize;  // checked: anything but the control's exported size is rejected
  uint32_t status;
};
static_assert(sizeof(NVOS54_PARAMETERS) == 32);
static_assert(offsetof(NVOS54_PARAMETERS, paramsSize) == 24);

struct NVOS02_PARAMETERS {  // NV_ESC_RM_ALLOC_MEMORY (OS-descriptor memory)
  uint32_t hRoot;
  uint32_t hObjectParent;
  uint32_t hObjectNew;
  uint32_t hClass;
  uint32_t flags;
  uint32_t pad0;
  uint64_t pMemory;
  uint64_t limit;
  uint32_t status;
  uint32_t pad1;
};
static_assert(sizeof(NVOS02_PARAMETERS) == 48);
static_assert(offsetof(NVOS02_PARAMETERS, pMemory) == 24);
static_assert(offsetof(NVOS02_PARAMETERS, status) == 40);
struct nv_ioctl_nvos02_parameters_with_fd {  // issued on the /dev/nvidiaN fd
  NVOS02_PARAMETERS params;
  int32_t fd;
  uint32_t pad;
};
static_assert(sizeof(nv_ioctl_nvos02_parameters_with_fd) == 56);

struct NVOS33_PARAMETERS {  // NV_ESC_RM_MAP_MEMORY (to the CPU)
  uint32_t hClient;
  uint32_t hDevice;
  uint32_t hMemory;
  uint32_t pad0;
  uint64_t offset;
  uint64_t length;
  uint64_t pLinearAddress;
  uint32_t status;
  uint32_t flags;
};
static_assert(sizeof(NVOS33_PARAMETERS) == 48);
static_assert(offsetof(NVOS33_PARAMETERS, status) == 40);
struct nv_ioctl_nvos33_parameters_with_fd {  // fd: the /dev/nvidiaN (or ctl) fd to mmap next
  NVOS33_PARAMETERS params;
  int32_t fd;
  uint32_t pad;
};
static_assert(sizeof(nv_ioctl_nvos33_parameters_with_fd) == 56);

struct NVOS34_PARAMETERS {  // NV_ESC_RM_UNMAP_MEMORY
  uint32_t hClient;
  uint32_t hDevice;
  uint32_t hMemory;
  uint32_t pad0;
  uint64_t pLinearAddress;
  uint32_t status;
  uint32_t flags;
};
static_assert(sizeof(NVOS34_PARAMETERS) == 32);

// Alloc parameters of the object classes rawgpu creates, stable across the branches.
struct NV0080_ALLOC_PARAMETERS {
  uint32_t deviceId;
  uint32_t hClientShare;
  uint32_t hTargetClient;
  uint32_t hTargetDevice;
  uint32_t flags;
  uint32_t pad0;
  uint64_t vaSpaceSize;
  uint64_t vaStartInternal;
  uint64_t vaLimitInternal;
  uint32_t vaMode;
  uint32_t pad1;
};
static_assert(sizeof(NV0080_ALLOC_PARAMETERS) == 56);
struct NV2080_ALLOC_PARAMETERS {
  uint32_t subDeviceId;
};
struct NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS {  // NV01_MEMORY_VIRTUAL
  uint64_t offset;
  uint64_t limit;
  uint32_t hVASpace;
  uint32_t pad;
};
static_assert(sizeof(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS) == 24);
struct NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS {  // KEPLER_CHANNEL_GROUP_A
  uint32_t hObjectError;
  uint32_t hObjectEccError;
  uint32_t hVASpace;
  uint32_t engineType;
  uint8_t bIsCallingContextVgpuPlugin;
  uint8_t pad[3];
};
static_assert(sizeof(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS) == 20);
struct NV_CTXSHARE_ALLOCATION_PARAMETERS {  // FERMI_CONTEXT_SHARE_A
  uint32_t hVASpace;
  uint32_t flags;
  uint32_t subctxId;
};
static_assert(sizeof(NV_CTXSHARE_ALLOCATION_PARAMETERS) == 12);
struct NVB0B5_ALLOCATION_PARAMETERS {  // copy classes: which copy engine
  uint32_t version;                    // 1
  uint32_t engineType;
};

// NV_MEMORY_ALLOCATION_PARAMS (NV1_MEMORY_USER, NV01_MEMORY_SYSTEM): 120 bytes on 535, 128 from
// 545 (numaNode @120). Offsets of the fields below are the same in both.
struct NV_MEMORY_ALLOCATION_PARAMS {
  uint32_t owner;
  uint32_t type;
  uint32_t flags;
  uint32_t width;
  uint32_t height;
  int32_t pitch;
  uint32_t attr;
  uint32_t attr2;
  uint32_t format;
  uint32_t comprCovg;
  uint32_t zcullCovg;
  uint32_t pad0;
  uint64_t rangeLo;
  uint64_t rangeHi;
  uint64_t size;
  uint64_t alignment;
  uint64_t offset;
  uint64_t limit;
  uint64_t address;
  uint32_t ctagOffset;
  uint32_t hVASpace;
  uint32_t internalflags;
  uint32_t tag;
  int32_t numaNode;  // 545 and later
  uint32_t pad1;
};
static_assert(sizeof(NV_MEMORY_ALLOCATION_PARAMS) == 128);
static_assert(offsetof(NV_MEMORY_ALLOCATION_PARAMS, rangeLo) == 48);
static_assert(offsetof(NV_MEMORY_ALLOCATION_PARAMS, numaNode) == 120);

// FERMI_VASPACE_A: 48 bytes up to 580.65.06, then 56 (pasid @48).
struct NV_VASPACE_ALLOCATION_PARAMETERS {
  uint32_t index;
  uint32_t flags;
  uint64_t vaSize;
  uint64_t vaStartInternal;
  uint64_t vaLimitInternal;
  uint32_t bigPageSize;
  uint32_t pad0;
  uint64_t vaBase;
  uint32_t pasid;  // 580.65.06 and later
  uint32_t pad1;
};
static_assert(sizeof(NV_VASPACE_ALLOCATION_PARAMETERS) == 56);
static_assert(offsetof(NV_VASPACE_ALLOCATION_PARAMETERS, vaBase) == 40);

// NV_CHANNEL_ALLOC_PARAMS: the fields rawgpu sets sit at the same offsets in every branch; the
// struct is 360 bytes on 535 and 368 from 570 (tpcConfigID @360). Offsets only.
inline constexpr uint32_t kChannelAllocHObjectError = 0;
inline constexpr uint32_t kChannelAllocHObjectBuffer = 4;
inline constexpr uint32_t kChannelAllocGpFifoOffset = 8;
inline constexpr uint32_t kChannelAllocGpFifoEntries = 16;
inline constexpr uint32_t kChannelAllocFlags = 20;
inline constexpr uint32_t kChannelAllocHContextShare = 24;
inline constexpr uint32_t kChannelAllocHVASpace = 28;
inline constexpr uint32_t kChannelAllocHUserdMemory = 32;  // [8] handles
inline constexpr uint32_t kChannelAllocUserdOffset = 64;   // [8] u64
inline constexpr uint32_t kChannelAllocEngineType = 128;

// --- control parameter blocks ------------------------------------------------------------------
// SYSTEM_GET_BUILD_VERSION_V2: four 256-byte strings (driverVersion, version, driverBranch,
// title) and two changelist numbers from 560 on (1032 bytes); three strings without
// driverBranch before (776 bytes). driverVersionBuffer is first in both.
inline constexpr uint32_t kBuildVersionV2Size = 1032;
inline constexpr uint32_t kBuildVersionV2SizeBefore560 = 776;
inline constexpr uint32_t kBuildVersionStringLength = 256;

struct NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS {
  uint32_t gpuId;
  uint32_t gpuFlags;
  uint32_t deviceInstance;
  uint32_t subDeviceInstance;
  uint32_t sliStatus;
  uint32_t boardId;
  uint32_t gpuInstance;
  int32_t numaId;
};
static_assert(sizeof(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS) == 32);

struct NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS {
  uint32_t numClasses;
  uint32_t pad;
  uint64_t classList;  // user pointer to numClasses u32s; 0 asks for the count
};
static_assert(sizeof(NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS) == 16);

struct NV2080_CTRL_GR_INFO {
  uint32_t index;
  uint32_t data;
};
struct NV2080_CTRL_GR_ROUTE_INFO {
  uint32_t flags;
  uint32_t pad;
  uint64_t route;
};
struct NV2080_CTRL_GR_GET_INFO_PARAMS {
  uint32_t grInfoListSize;
  uint32_t pad;
  uint64_t grInfoList;  // user pointer to grInfoListSize NV2080_CTRL_GR_INFO
  NV2080_CTRL_GR_ROUTE_INFO grRouteInfo;
};
static_assert(sizeof(NV2080_CTRL_GR_GET_INFO_PARAMS) == 32);

struct NV2080_CTRL_GPU_GET_GID_INFO_PARAMS {
  uint32_t index;
  uint32_t flags;
  uint32_t length;
  uint8_t data[256];
};
static_assert(sizeof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS) == 268);

struct NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS {
  uint32_t workSubmitToken;
};

// NVA06C/NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS: {bEnable, bSkipSubmit} (2 bytes), plus bSkipEnable
// from 575 (3 bytes).
inline constexpr uint32_t kScheduleSize = 2;
inline constexpr uint32_t kScheduleSizeFrom575 = 3;

// NV_ESC_WAIT_OPEN_COMPLETE payload (550 and later).
struct nv_ioctl_wait_open_complete {
  int32_t rc;
  uint32_t adapterStatus;
};

// --- the structs that drifted, as per-branch offsets --------------------------------------------
// NVOS46 (MAP_MEMORY_DMA): hClient @0, hDevice @4, hDma @8, hMemory @12, offset @16, length @24,
// flags @32 in every branch; 535-580.65 exclusive: dmaOffset @40, status @48, 56 bytes; from
// 580.65.06: flags2 @36, kindOverride @40, dmaOffset @48, status @56, 64 bytes.
// NVOS47 (UNMAP_MEMORY_DMA): hClient, hDevice, hDma, hMemory, flags @16, dmaOffset @24; 535:
// status @32, 40 bytes; from 550.40: size @32, status @40, 48 bytes.
// UVM_MAP_EXTERNAL_ALLOCATION_PARAMS: 32 GPU attribute slots (1200 bytes, gpuAttributesCount
// @1176, rmCtrlFd @1184, hClient @1188, hMemory @1192, rmStatus @1196) on 535; 256 slots (9264
// bytes, count @9240) from 550.54.
struct BranchLayouts {
  const char* name;             // "535", "570", "580.65+"
  bool wait_open_complete;      // NV_ESC_WAIT_OPEN_COMPLETE exists
  uint32_t build_version_size;  // SYSTEM_GET_BUILD_VERSION_V2
  uint32_t memory_alloc_size;   // NV_MEMORY_ALLOCATION_PARAMS
  uint32_t vaspace_size;        // NV_VASPACE_ALLOCATION_PARAMETERS
  uint32_t channel_alloc_size;  // NV_CHANNEL_ALLOC_PARAMS
  uint32_t nvos46_size, nvos46_dma_offset, nvos46_status;
  uint32_t nvos47_size, nvos47_status;
  uint32_t schedule_size;  // NVA06C/NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS
  uint32_t uvm_map_external_size, uvm_map_external_slots;
};

inline constexpr BranchLayouts kBranch535{
    "535", false, kBuildVersionV2SizeBefore560, 120, 48, 360, 56, 40, 48, 40, 32, kScheduleSize,
    1200,  32};
inline constexpr BranchLayouts kBranch570{
    "570", true, kBuildVersionV2Size, 128, 48, 368, 56, 40, 48, 48, 40, kScheduleSize, 9264, 256};
// 580 before 580.65.06: the 570 layouts plus the 575 schedule size.
inline constexpr BranchLayouts kBranch580Early{
    "580", true, kBuildVersionV2Size,  128,  48, 368, 56, 40, 48,
    48,    40,   kScheduleSizeFrom575, 9264, 256};
inline constexpr BranchLayouts kBranch580{
    "580.65+", true, kBuildVersionV2Size,  128,  56, 368, 64, 48, 56,
    48,        40,   kScheduleSizeFrom575, 9264, 256};

// UVM_MAP_EXTERNAL_ALLOCATION_PARAMS fields after the attribute array, relative to the count.
inline constexpr uint32_t kUvmMapExternalAttrsOffset = 24;  // after base, length, offset
inline constexpr uint32_t kUvmGpuMappingAttributesSize = 36;
inline constexpr uint32_t kUvmMapExternalCountFromEnd = 24;  // count @ size - 24
// UvmGpuMappingType: 1 ReadWriteAtomic.
inline constexpr uint32_t UvmGpuMappingTypeReadWriteAtomic = 1;

}  // namespace rawgpu::autogen::nv::rm
