/* rawgpu autogen shim for amdgpu_ucode.h: its firmware-header structs are plain data, but the
 * header also declares driver-side state and functions that need these kernel names. */
#ifndef RG_UCODE_SHIM_H
#define RG_UCODE_SHIM_H
#include "rg_kernel_shim.h"
struct mutex {
  int rg_unused;
};
#define __printf(a, b)
#endif
