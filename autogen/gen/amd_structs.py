"""AMD structs: IP discovery, firmware headers, PSP interface, MQDs, KFD PM4 packets."""

import os
from .cstructs import Group, generate_group

AMD = "drivers/gpu/drm/amd"
LINC = "@UP@/linux/" + AMD


def _groups(upstream):
    shim = '#include "rg_kernel_shim.h"\n'
    return [
        Group("discovery", "rawgpu::autogen::amd::discovery", "amd/discovery.h",
              [f"{AMD}/include/discovery.h"], "linux-source-6.12",
              shim + '#include "discovery.h"\n', [f"{LINC}/include"],
              defines=["LITTLEENDIAN_CPU"],
              const_files=[f"{LINC}/include/discovery.h"],
              what="AMD IP discovery table structs (discovery.h, little-endian layout)"),
        Group("ucode", "rawgpu::autogen::amd::ucode", "amd/ucode.h",
              [f"{AMD}/amdgpu/amdgpu_ucode.h (firmware header structs only)"],
              "linux-source-6.12", '#include "rg_ucode_shim.h"\n#include "amdgpu_ucode.h"\n',
              [f"{LINC}/amdgpu"],
              keep=r"common_firmware_header|\w*firmware_header\w*|psp_fw_\w+|"
                   r"smc_soft_pptable_entry|ta_fw_type|AMDGPU_UCODE_ID|gpu_info_\w+",
              what="AMD firmware file header structs (amdgpu_ucode.h)"),
        Group("psp", "rawgpu::autogen::amd::psp", "amd/psp_gfx_if.h",
              [f"{AMD}/amdgpu/psp_gfx_if.h"], "linux-source-6.12",
              shim + '#include "psp_gfx_if.h"\n', [f"{LINC}/amdgpu"],
              const_files=[f"{LINC}/amdgpu/psp_gfx_if.h"],
              what="AMD PSP GFX interface: command/response buffers, ring frames, fw types"),
        Group("mqd_v9", "rawgpu::autogen::amd::mqd_v9", "amd/v9_structs.h",
              [f"{AMD}/include/v9_structs.h"], "linux-source-6.12",
              shim + '#include "v9_structs.h"\n', [f"{LINC}/include"],
              what="AMD GC 9 MQD structs (v9_structs.h)"),
        Group("mqd_v11", "rawgpu::autogen::amd::mqd_v11", "amd/v11_structs.h",
              [f"{AMD}/include/v11_structs.h"], "linux-source-6.12",
              shim + '#include "v11_structs.h"\n', [f"{LINC}/include"],
              what="AMD GC 11 MQD structs (v11_structs.h)"),
        Group("mqd_v12", "rawgpu::autogen::amd::mqd_v12", "amd/v12_structs.h",
              [f"{AMD}/include/v12_structs.h"], "linux-source-6.12",
              shim + '#include "v12_structs.h"\n', [f"{LINC}/include"],
              what="AMD GC 12 MQD structs (v12_structs.h)"),
        Group("kfd_pm4_ai", "rawgpu::autogen::amd::kfd_pm4_ai", "amd/kfd_pm4_headers_ai.h",
              [f"{AMD}/amdkfd/kfd_pm4_headers_ai.h"], "linux-source-6.12",
              shim + '#include "kfd_pm4_headers_ai.h"\n', [f"{LINC}/amdkfd"],
              what="AMD KFD PM4 packets for GC 9+ (kfd_pm4_headers_ai.h; MAP_QUEUES etc.)"),
    ]


def generate(upstream):
    out = {}
    stats = []
    for g in _groups(upstream):
        header, up_c, cpp, (nr, ne, nc, nchk) = generate_group(upstream, g)
        out[os.path.join("include", "rawgpu", "autogen", g.out_rel)] = header
        out[os.path.join("layout", f"{g.name}_upstream.c")] = up_c
        out[os.path.join("layout", f"{g.name}_rawgpu.cpp")] = cpp
        stats.append(f"{g.name}: {nr} records, {ne} enums, {nc} constants, "
                     f"{nchk} layout facts")
    return out, stats
