// Upstream side of the constant spot checks: gsp (nouveau's nvrm 535.113.01 headers).
// No <cstdint>: the kernel-type shim provides the fixed-width types these headers use. The
// include order matters (shim, then nvtypes.h, then the nvrm headers).
// clang-format off
#include "rg_kernel_shim.h"
#include <nvrm/nvtypes.h>
#include <nvrm/535.113.01/nvidia/arch/nvalloc/common/inc/gsp/gsp_fw_wpr_meta.h>
#include <nvrm/535.113.01/nvidia/inc/kernel/gpu/gsp/gsp_static_config.h>
// clang-format on

#include "consts_lists.h"

#define V(n) static_cast<long long>(n),

extern const long long rg_up_gsp[];
const long long rg_up_gsp[] = {RG_LIST_GSP(V)};
