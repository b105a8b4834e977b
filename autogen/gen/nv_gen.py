"""NVIDIA definitions from nvidia-open-kernel-source: GPFIFO/host and copy-engine classes, MMU
page-table formats (hwref dev_mmu.h), frontend and UVM ioctl numbers."""

import os
import re

from . import cmacros
from .emit import header_preamble, cpp_ident

NVK = "modules/nvidia-open-kernel"

CLASSES = [
    # (file, name prefix, class-id macro)
    ("clc56f", "NVC56F_", "AMPERE_CHANNEL_GPFIFO_A"),
    ("clc86f", "NVC86F_", "HOPPER_CHANNEL_GPFIFO_A"),
    ("clc6b5", "NVC6B5_", "AMPERE_DMA_COPY_A"),
    ("clc7b5", "NVC7B5_", "AMPERE_DMA_COPY_B"),
    ("clc8b5", "NVC8B5_", "HOPPER_DMA_COPY_A"),
]
MMU = [("tu102", "turing/tu102"), ("gh100", "hopper/gh100")]


def _src(upstream, rel):
    return os.path.join(upstream, "nvidia-open", NVK, rel)


def _emit(what, sources, ns, ints, ranges):
    lines = header_preamble(what, [f"nvidia-open-kernel-source: {NVK}/{s}" for s in sources])
    lines += ["#include <cstdint>", "", '#include "rawgpu/base/bits.h"', "",
              f"namespace rawgpu::autogen::nv::{ns} {{", ""]
    for name, kind, v in sorted([(k, "i", v) for k, v in ints.items()] +
                                [(k, "r", v) for k, v in ranges.items()],
                                key=lambda t: t[0]):
        ident = cpp_ident(name)
        if kind == "i":
            t = "uint64_t" if v > 0xFFFFFFFF else "uint32_t"
            lines.append(f"inline constexpr {t} {ident} = 0x{v & 0xFFFFFFFFFFFFFFFF:x};")
        else:
            hi, lo = v
            lines.append(f"inline constexpr BitField {ident}{{{lo}, {hi - lo + 1}}};  "
                         f"// {hi}:{lo}")
    lines += ["", f"}}  // namespace rawgpu::autogen::nv::{ns}", ""]
    return "\n".join(lines)


def _read(path, prefixes):
    d = cmacros.read_defines(path)
    # UVM_IOCTL_BASE(i) is `i` on Linux (the Windows CTL_CODE variant is ignored).
    d = [(n, p, re.sub(r"UVM_IOCTL_BASE\s*\(\s*(\w+)\s*\)", r"(\1)", b)) for n, p, b in d
         if n != "UVM_IOCTL_BASE"]
    ints = cmacros.int_defines(d)
    ranges = cmacros.range_defines(d, ints)
    keep = lambda k: any(k.startswith(p) or k == p for p in prefixes)
    return ({k: v for k, v in ints.items() if keep(k) and k not in ranges},
            {k: v for k, v in ranges.items() if keep(k)})


def generate(upstream):
    out = {}
    stats = []
    base = os.path.join("include", "rawgpu", "autogen", "nv")
    for f, prefix, cls in CLASSES:
        rel = f"nvidia-uvm/{f}.h"
        ints, ranges = _read(_src(upstream, rel), [prefix, cls])
        if cls not in ints:
            raise RuntimeError(f"{rel}: class id {cls} not found")
        out[os.path.join(base, f"{f}.h")] = _emit(
            f"NVIDIA class {f} ({cls}) methods, fields and values", [rel], f, ints, ranges)
        stats.append(f"{f}: {len(ints)} values, {len(ranges)} fields")
    for chip, path in MMU:
        rel = f"nvidia-uvm/hwref/{path}/dev_mmu.h"
        ints, ranges = _read(_src(upstream, rel), ["NV_MMU_"])
        out[os.path.join(base, f"dev_mmu_{chip}.h")] = _emit(
            f"NVIDIA {chip} MMU page-table entry formats (hwref dev_mmu.h)", [rel],
            f"mmu_{chip}", ints, ranges)
        stats.append(f"dev_mmu_{chip}: {len(ints)} values, {len(ranges)} fields")
    rel = "common/inc/nv-ioctl-numbers.h"
    ints, _ = _read(_src(upstream, rel), ["NV_ESC_", "NV_IOCTL_"])
    out[os.path.join(base, "nv_ioctl_numbers.h")] = _emit(
        "NVIDIA frontend ioctl escape numbers", [rel], "ioctl", ints, {})
    stats.append(f"nv_ioctl_numbers: {len(ints)}")
    rels = ["nvidia-uvm/uvm_ioctl.h", "nvidia-uvm/uvm_linux_ioctl.h"]
    ints = {}
    for r in rels:
        i, _ = _read(_src(upstream, r), ["UVM_"])
        ints.update(i)
    out[os.path.join(base, "uvm_ioctl_numbers.h")] = _emit(
        "NVIDIA UVM ioctl numbers and limits", rels, "uvm", ints, {})
    stats.append(f"uvm_ioctl_numbers: {len(ints)}")
    rel = "common/inc/nvstatuscodes.h"
    out[os.path.join(base, "nv_status.h")] = _status_codes(_src(upstream, rel), rel)
    stats.append("nv_status: RM status codes")
    o2, s2 = _generate_structs(upstream)
    out.update(o2)
    return out, stats + s2


def _struct_groups():
    from .cstructs import Group
    nvk = "@UP@/nvidia-open/" + NVK
    nouveau = "@UP@/linux/drivers/gpu/drm/nouveau/include"
    r = "nvrm/535.113.01"
    gsp_headers = [
        f"{r}/nvidia/arch/nvalloc/common/inc/gsp/gsp_fw_wpr_meta.h",
        f"{r}/nvidia/arch/nvalloc/common/inc/rmRiscvUcode.h",
        f"{r}/nvidia/arch/nvalloc/common/inc/rmgspseq.h",
        f"{r}/nvidia/inc/kernel/gpu/gsp/gsp_init_args.h",
        f"{r}/nvidia/inc/kernel/gpu/gsp/gsp_static_config.h",
        f"{r}/common/shared/msgq/inc/msgq/msgq_priv.h",
        f"{r}/common/uproc/os/common/include/libos_init_args.h",
        f"{r}/nvidia/kernel/inc/vgpu/rpc_global_enums.h",
        f"{r}/nvidia/kernel/inc/vgpu/rpc_headers.h",
        f"{r}/nvidia/generated/g_rpc-structures.h",
    ]
    gsp_tu = '#include "rg_kernel_shim.h"\n#include <nvrm/nvtypes.h>\n' + "".join(
        f"#include <{h}>\n" for h in gsp_headers)
    sdk = "nvrm/535.113.01/common/sdk/nvidia/inc"
    rm_headers = [f"{sdk}/nvos.h", f"{sdk}/class/cl0080.h", f"{sdk}/class/cl2080.h",
                  f"{sdk}/class/cl90f1.h", f"{sdk}/alloc/alloc_channel.h",
                  f"{sdk}/ctrl/ctrla06f/ctrla06fgpfifo.h", f"{sdk}/ctrl/ctrl2080/ctrl2080gpu.h"]
    rm_tu = '#include "rg_kernel_shim.h"\n#include <nvrm/nvtypes.h>\n' + "".join(
        f"#include <{h}>\n" for h in rm_headers)
    rm_keep = (r"^(NV0080_ALLOC_PARAMETERS|NV2080_ALLOC_PARAMETERS|"
               r"NV_VASPACE_ALLOCATION_PARAMETERS|NV_CHANNEL_ALLOC_PARAMS|NV_MEMORY_DESC_PARAMS|"
               r"NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS|NVA06F_CTRL_BIND_PARAMS|"
               r"NV2080_CTRL_GPU_GET_GID_INFO_PARAMS)$")
    rm_const_keep = (r"^(NV01_DEVICE_0|NV20_SUBDEVICE_0|FERMI_VASPACE_A|NV_VASPACE_ALLOCATION_|"
                     r"NV_CHANNEL_ALLOC_|NVOS04_FLAGS_|NVA06F_CTRL_CMD_|NV2080_CTRL_CMD_GPU_GET_GID|"
                     r"NV2080_GPU_CMD_GPU_GET_GID_FLAGS|NV2080_GPU_MAX_GID_LENGTH|NVOS02_FLAGS_)")
    return [
        Group("nv_rm_535", "rawgpu::autogen::nv::rm535", "nv/rm_535.h",
              [f"drivers/gpu/drm/nouveau/include/{h}" for h in rm_headers],
              "linux-source-6.12", rm_tu, [nouveau], keep=rm_keep,
              const_files=[f"{nouveau}/{h}" for h in rm_headers], const_keep=rm_const_keep,
              what="NVIDIA RM 535 object-allocation parameters and controls rawgpu's kernel-driver "
                   "path uses (nouveau's nvrm sdk headers): device, subdevice, VA space, "
                   "channel, GPFIFO schedule/bind, GID; the 535 row of the per-branch layout "
                   "table in drivers/nv"),
        Group("nv_uvm_ioctl", "rawgpu::autogen::nv::uvm", "nv/uvm_ioctl.h",
              ["nvidia-uvm/uvm_ioctl.h (and uvm_types.h, nvtypes.h it includes)"],
              f"nvidia-open-kernel-source: {NVK}", '#include "uvm_ioctl.h"\n',
              [f"{nvk}/nvidia-uvm", f"{nvk}/common/inc"],
              what="NVIDIA UVM ioctl parameter structs (535 layouts)"),
        Group("nv_ioctl", "rawgpu::autogen::nv::ioctl", "nv/nv_ioctl.h",
              ["common/inc/nv-ioctl.h"], f"nvidia-open-kernel-source: {NVK}",
              '#include "nv-ioctl.h"\n', [f"{nvk}/common/inc"],
              const_files=[f"{nvk}/common/inc/nv-ioctl.h"],
              what="NVIDIA frontend ioctl structs (nv-ioctl.h, 535 layouts)"),
        Group("gsp_rm", "rawgpu::autogen::nv::gsp", "nv/gsp_rm_535.h",
              [f"drivers/gpu/drm/nouveau/include/{h}" for h in gsp_headers],
              "linux-source-6.12", gsp_tu, [nouveau],
              const_files=[f"{nouveau}/{h}" for h in gsp_headers],
              what="NVIDIA GSP-RM 535.113.01 structs and enums (nouveau's nvrm headers): "
                   "WPR meta, RISC-V ucode desc, sequencer, init/LibOS args, message queue, "
                   "static config, RPC headers and structures"),
    ]


def _generate_structs(upstream):
    from .cstructs import generate_group
    out = {}
    stats = []
    for g in _struct_groups():
        header, up_c, cpp, (nr, ne, nc, nchk) = generate_group(upstream, g)
        out[os.path.join("include", "rawgpu", "autogen", g.out_rel)] = header
        out[os.path.join("layout", f"{g.name}_upstream.c")] = up_c
        out[os.path.join("layout", f"{g.name}_rawgpu.cpp")] = cpp
        stats.append(f"{g.name}: {nr} records, {ne} enums, {nc} constants, "
                     f"{nchk} layout facts")
    return out, stats


def _status_codes(path, rel):
    """NV_STATUS names and values from the NV_STATUS_CODE(name, value, text) list (the upstream
    description strings are left out: rawgpu's errors say what went wrong in their own words)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    codes = [(m.group(1), int(m.group(2), 16)) for m in
             re.finditer(r"NV_STATUS_CODE\(\s*(\w+)\s*,\s*(0x[0-9A-Fa-f]+)\s*,", text)]
    if len(codes) < 50:
        raise RuntimeError(f"{rel}: only {len(codes)} NV_STATUS_CODE entries")
    lines = header_preamble("NVIDIA RM status codes (NV_STATUS)",
                            [f"nvidia-open-kernel-source: {NVK}/{rel}"])
    lines += ["#include <cstdint>", "#include <string_view>", "",
              "namespace rawgpu::autogen::nv::status {", ""]
    for n, v in codes:
        lines.append(f"inline constexpr uint32_t {n} = 0x{v:x};")
    lines += ["", "struct Code {", "  std::string_view name;", "  uint32_t value;", "};", "",
              f"inline constexpr Code kCodes[{len(codes)}] = {{"]
    for n, v in codes:
        lines.append(f'    {{"{n}", 0x{v:x}}},')
    lines += ["};", "", "// The name of an NV_STATUS value, or an empty view for an unknown one.",
              "constexpr std::string_view name(uint32_t value) {",
              "  for (const Code& c : kCodes) {",
              "    if (c.value == value) return c.name;",
              "  }",
              "  return {};",
              "}", "", "}  // namespace rawgpu::autogen::nv::status", ""]
    return "\n".join(lines)
