// The hand-written RM ABI (autogen/include/rawgpu/autogen/nv/rm_abi.h) against the generated
// 535 structs (rm_535.h from nouveau's 535.113.01 headers, uvm_ioctl.h from nvidia-open 535;
// both layout-checked against the upstream headers in autogen-layout): the 535 row of the
// per-branch table and the offsets rawgpu writes by hand must agree with them.
#include <gtest/gtest.h>

#include <cstddef>

#include "rawgpu/autogen/nv/nv_status.h"
#include "rawgpu/autogen/nv/rm_535.h"
#include "rawgpu/autogen/nv/rm_abi.h"
#include "rawgpu/autogen/nv/uvm_ioctl.h"

namespace rawgpu::autogen::nv {
namespace {

TEST(NvRmAbi, The535RowMatchesThe535Headers) {
  const auto& b = rm::kBranch535;
  EXPECT_EQ(b.vaspace_size, sizeof(rm535::NV_VASPACE_ALLOCATION_PARAMETERS));
  EXPECT_EQ(b.channel_alloc_size, sizeof(rm535::NV_CHANNEL_ALLOC_PARAMS));
  EXPECT_EQ(b.schedule_size, sizeof(rm535::NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS));
  EXPECT_EQ(b.uvm_map_external_size, sizeof(uvm::UVM_MAP_EXTERNAL_ALLOCATION_PARAMS));
  EXPECT_EQ(b.uvm_map_external_slots, 32u);
  EXPECT_EQ(b.uvm_map_external_size - rm::kUvmMapExternalCountFromEnd,
            offsetof(uvm::UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, gpuAttributesCount));
  EXPECT_EQ(rm::kUvmMapExternalAttrsOffset,
            offsetof(uvm::UVM_MAP_EXTERNAL_ALLOCATION_PARAMS, perGpuAttributes));
  EXPECT_EQ(rm::kUvmGpuMappingAttributesSize, sizeof(uvm::UvmGpuMappingAttributes));
  EXPECT_FALSE(b.wait_open_complete);
}

TEST(NvRmAbi, StableStructsMatchThe535Headers) {
  EXPECT_EQ(sizeof(rm::NV0080_ALLOC_PARAMETERS), sizeof(rm535::NV0080_ALLOC_PARAMETERS));
  EXPECT_EQ(offsetof(rm::NV0080_ALLOC_PARAMETERS, vaSpaceSize),
            offsetof(rm535::NV0080_ALLOC_PARAMETERS, vaSpaceSize));
  EXPECT_EQ(offsetof(rm::NV0080_ALLOC_PARAMETERS, vaMode),
            offsetof(rm535::NV0080_ALLOC_PARAMETERS, vaMode));
  EXPECT_EQ(sizeof(rm::NV2080_CTRL_GPU_GET_GID_INFO_PARAMS),
            sizeof(rm535::NV2080_CTRL_GPU_GET_GID_INFO_PARAMS));
  EXPECT_EQ(offsetof(rm::NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, data),
            offsetof(rm535::NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, data));
  // The VA-space fields rawgpu sets, at the 535 offsets (580.65 only appends pasid).
  EXPECT_EQ(offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, flags),
            offsetof(rm535::NV_VASPACE_ALLOCATION_PARAMETERS, flags));
  EXPECT_EQ(offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, vaSize),
            offsetof(rm535::NV_VASPACE_ALLOCATION_PARAMETERS, vaSize));
  EXPECT_EQ(offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, vaBase),
            offsetof(rm535::NV_VASPACE_ALLOCATION_PARAMETERS, vaBase));
  EXPECT_EQ(offsetof(rm::NV_VASPACE_ALLOCATION_PARAMETERS, pasid),
            sizeof(rm535::NV_VASPACE_ALLOCATION_PARAMETERS));
  // The channel fields rawgpu writes by offset.
  using C = rm535::NV_CHANNEL_ALLOC_PARAMS;
  EXPECT_EQ(rm::kChannelAllocHObjectError, offsetof(C, hObjectError));
  EXPECT_EQ(rm::kChannelAllocHObjectBuffer, offsetof(C, hObjectBuffer));
  EXPECT_EQ(rm::kChannelAllocGpFifoOffset, offsetof(C, gpFifoOffset));
  EXPECT_EQ(rm::kChannelAllocGpFifoEntries, offsetof(C, gpFifoEntries));
  EXPECT_EQ(rm::kChannelAllocFlags, offsetof(C, flags));
  EXPECT_EQ(rm::kChannelAllocHContextShare, offsetof(C, hContextShare));
  EXPECT_EQ(rm::kChannelAllocHVASpace, offsetof(C, hVASpace));
  EXPECT_EQ(rm::kChannelAllocHUserdMemory, offsetof(C, hUserdMemory));
  EXPECT_EQ(rm::kChannelAllocUserdOffset, offsetof(C, userdOffset));
  EXPECT_EQ(rm::kChannelAllocEngineType, offsetof(C, engineType));
  // Class ids shared with the generated header.
  EXPECT_EQ(rm::NV01_DEVICE_0, rm535::NV01_DEVICE_0);
  EXPECT_EQ(rm::NV20_SUBDEVICE_0, rm535::NV20_SUBDEVICE_0);
  EXPECT_EQ(rm::FERMI_VASPACE_A, rm535::FERMI_VASPACE_A);
}

TEST(NvRmAbi, BranchRowsGrowOnlyWhereTheDriverGrew) {
  // Every later row is at least as large as the one before, and only the documented fields move.
  const rm::BranchLayouts* rows[] = {&rm::kBranch535, &rm::kBranch570, &rm::kBranch580Early,
                                     &rm::kBranch580};
  for (size_t i = 1; i < std::size(rows); ++i) {
    EXPECT_GE(rows[i]->memory_alloc_size, rows[i - 1]->memory_alloc_size);
    EXPECT_GE(rows[i]->vaspace_size, rows[i - 1]->vaspace_size);
    EXPECT_GE(rows[i]->channel_alloc_size, rows[i - 1]->channel_alloc_size);
    EXPECT_GE(rows[i]->nvos46_size, rows[i - 1]->nvos46_size);
    EXPECT_GE(rows[i]->uvm_map_external_size, rows[i - 1]->uvm_map_external_size);
    EXPECT_LT(rows[i]->nvos46_status + 4, rows[i]->nvos46_size + 1);
    EXPECT_LT(rows[i]->nvos46_dma_offset, rows[i]->nvos46_status);
  }
  EXPECT_EQ(rm::kBranch570.uvm_map_external_size,
            rm::kUvmMapExternalAttrsOffset +
                rm::kBranch570.uvm_map_external_slots * rm::kUvmGpuMappingAttributesSize + 24);
  EXPECT_EQ(rm::ioctl_size(rm::ioctl_cmd(rm::NV_ESC_RM_ALLOC, 32)), 32u);
  EXPECT_EQ(rm::ioctl_cmd(0x2b, 32), 0xc020462bul);
}

TEST(NvRmAbi, StatusNamesAreComplete) {
  EXPECT_EQ(status::name(status::NV_ERR_INVALID_CLASS), "NV_ERR_INVALID_CLASS");
  EXPECT_EQ(status::NV_ERR_INVALID_PARAM_STRUCT, 0x3au);
  EXPECT_EQ(status::NV_ERR_TIMEOUT_RETRY, 0x66u);
  EXPECT_EQ(status::NV_ERR_NO_MEMORY, 0x51u);
  for (const auto& c : status::kCodes) EXPECT_EQ(status::name(c.value), c.name);
}

}  // namespace
}  // namespace rawgpu::autogen::nv
