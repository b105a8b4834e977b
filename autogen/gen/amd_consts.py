"""AMD constants from upstream macros: PM4 opcodes/field helpers, SDMA packets, SMU message ids,
hardware IP ids."""

import os
import re

from . import cmacros
from .emit import header_preamble, cpp_ident

AMD = "drivers/gpu/drm/amd"


def _src(upstream, rel):
    return os.path.join(upstream, "linux", rel)


def _consts_header(what, sources, ns, ints, helpers=None, include_packet=False):
    lines = header_preamble(what, [f"linux-source-6.12: {s}" for s in sources])
    lines += ["#include <cstdint>", ""]
    if include_packet:
        lines += ['#include "rawgpu/autogen/packet.h"', ""]
    lines += [f"namespace rawgpu::autogen::amd::{ns} {{", ""]
    for name, v in ints:
        t = "uint64_t" if v > 0xFFFFFFFF or v < 0 else "uint32_t"
        lit = f"0x{v & 0xFFFFFFFFFFFFFFFF:x}" if v >= 0 else f"{v}"
        if v < 0:
            t = "int64_t"
        lines.append(f"inline constexpr {t} {cpp_ident(name)} = {lit};")
    if helpers:
        lines += ["", "// Field helpers (upstream `NAME(x)` macros that shift x into place)."]
        for name, (shift, width) in helpers:
            lines.append(f"inline constexpr ShiftField {cpp_ident(name)}{{{shift}, {width}}};")
    lines += ["", f"}}  // namespace rawgpu::autogen::amd::{ns}", ""]
    return "\n".join(lines)


def _pm4(upstream, rel, ns, what):
    d = cmacros.read_defines(_src(upstream, rel))
    ints = cmacros.int_defines(d)
    helpers = cmacros.shift_helpers(d, ints)
    ints = [(k, v) for k, v in ints.items() if not k.endswith("_H")]
    text = _consts_header(what, [rel], ns, ints, list(helpers.items()), include_packet=True)
    return text, len(ints), len(helpers)


_SDMA_TRIPLE = re.compile(r"^SDMA_PKT_(\w+?)_(offset|mask|shift)$")


def _sdma(upstream, rel, ns, what):
    d = cmacros.read_defines(_src(upstream, rel))
    ints = cmacros.int_defines(d)
    parts = {}
    for name, v in ints.items():
        m = _SDMA_TRIPLE.match(name)
        if m:
            parts.setdefault(m.group(1), {})[m.group(2)] = v
    packets = sorted({k[:-len("_HEADER_op")] for k in parts if k.endswith("_HEADER_op")},
                     key=len, reverse=True)
    fields = {}
    for key, p in parts.items():
        if set(p) != {"offset", "mask", "shift"}:
            continue
        pkt = next((q for q in packets if key.startswith(q + "_")), None)
        if pkt is None:
            continue
        fname = key[len(pkt) + 1:]
        mask = p["mask"]
        if mask == 0 or mask & (mask + 1):
            raise RuntimeError(f"{rel}: {key} mask 0x{mask:x} is not contiguous")
        fields.setdefault(pkt, []).append((fname, p["offset"], p["shift"], mask.bit_length()))
    consts = [(k, v) for k, v in ints.items()
              if not _SDMA_TRIPLE.match(k) and not k.endswith("_H_") and k.startswith("SDMA_")]
    lines = header_preamble(what, [f"linux-source-6.12: {rel}"])
    lines += ["#include <cstdint>", "", '#include "rawgpu/base/bits.h"', "",
              f"namespace rawgpu::autogen::amd::{ns} {{", "",
              "// Opcodes, sub-opcodes and other constants."]
    for name, v in consts:
        lines.append(f"inline constexpr uint32_t {cpp_ident(name)} = 0x{v:x};")
    lines += ["", "// Packets: each field is a BitField over the packet's dwords",
              "// (upstream SDMA_PKT_<PACKET>_<DWORD>_<field>_{offset,mask,shift})."]
    nf = 0
    for pkt in sorted(fields):
        fl = sorted(fields[pkt], key=lambda t: (t[1], t[2], t[0]))
        lines.append(f"struct {pkt} {{")
        lines.append(f"  static constexpr uint32_t kDwords = {max(f[1] for f in fl) + 1};")
        for fname, dw, shift, width in fl:
            lines.append(f"  static constexpr BitField {cpp_ident(fname, avoid={pkt})}"
                         f"{{{dw * 32 + shift}, {width}}};  // dword {dw}")
            nf += 1
        lines.append("};")
    lines += ["", f"}}  // namespace rawgpu::autogen::amd::{ns}", ""]
    return "\n".join(lines), len(fields), nf


def _simple(upstream, rel, ns, what, keep=None):
    d = cmacros.read_defines(_src(upstream, rel))
    ints = [(k, v) for k, v in cmacros.int_defines(d).items()
            if (keep is None or keep(k)) and not k.endswith("_H")]
    return _consts_header(what, [rel], ns, ints), len(ints)


# IH ids: (namespace, upstream file, enum name or None for #defines, what).
_IH_GROUPS = [
    ("soc15_ih_clientid", "include/soc15_ih_clientid.h", "soc15_ih_clientid",
     "IH client ids of SOC15 parts (GC 9, 10)"),
    ("soc21_ih_clientid", "include/soc15_ih_clientid.h", "soc21_ih_clientid",
     "IH client ids of SOC21 parts (GC 11, 12)"),
    ("irqsrcs_gfx_9_0", "include/ivsrcid/gfx/irqsrcs_gfx_9_0.h", None, "GC 9 source ids"),
    ("irqsrcs_gfx_10_1", "include/ivsrcid/gfx/irqsrcs_gfx_10_1.h", None, "GC 10 source ids"),
    ("irqsrcs_gfx_11_0_0", "include/ivsrcid/gfx/irqsrcs_gfx_11_0_0.h", None,
     "GC 11 and 12 source ids (GFX, GRBM_CP and RLC clients; SDMA 6/7 report through GFX)"),
    ("irqsrcs_vmc_1_0", "include/ivsrcid/vmc/irqsrcs_vmc_1_0.h", None,
     "VMC (MMHUB) and UTCL2 source ids"),
    ("irqsrcs_sdma0_4_0", "include/ivsrcid/sdma0/irqsrcs_sdma0_4_0.h", None,
     "SDMA 4.x source ids (SOC15 SDMA clients)"),
]


def _ih(upstream):
    """IH client ids (C enums) and source ids (#defines): constants plus a kNames table per group
    for names at run time."""
    rels = sorted({f"{AMD}/{rel}" for _ns, rel, _e, _w in _IH_GROUPS})
    lines = header_preamble("IH ring client and source ids (soc15_ih_clientid.h, ivsrcid/*)",
                            [f"linux-source-6.12: {r}" for r in rels])
    lines += ["#include <cstdint>", "", "namespace rawgpu::autogen::amd {", "",
              "// One upstream id and its upstream name (kNames tables below).",
              "struct IhIdName {", "  uint32_t id;", "  const char* name;", "};", "",
              "}  // namespace rawgpu::autogen::amd", ""]
    counts = []
    for ns, rel, enum, what in _IH_GROUPS:
        path = _src(upstream, f"{AMD}/{rel}")
        if enum is not None:
            ids = cmacros.enum_constants(path, enum)
        else:
            ids = [(k, v) for k, v in cmacros.int_defines(cmacros.read_defines(path)).items()
                   if "__SRCID__" in k]
        if not ids or any(v < 0 or v > 0xFFFFFFFF for _k, v in ids):
            raise RuntimeError(f"{rel}: no ids, or an id out of range")
        lines += [f"// {what}: {rel}" + (f" (enum {enum})." if enum else "."),
                  f"namespace rawgpu::autogen::amd::{ns} {{", ""]
        for name, v in ids:
            lines.append(f"inline constexpr uint32_t {cpp_ident(name)} = 0x{v:x};")
        named = [(k, v) for k, v in ids if not k.endswith("_MAX")]
        lines += ["", "// Every id above in upstream order, aliases included (the first name of a",
                  "// value is its primary one); an enum's _MAX count is not an id.",
                  "inline constexpr IhIdName kNames[] = {"]
        lines += [f'    {{0x{v:x}, "{k}"}},' for k, v in named]
        lines += ["};", "", f"}}  // namespace rawgpu::autogen::amd::{ns}", ""]
        counts.append(f"{ns} {len(named)}")
    return "\n".join(lines), counts


def generate(upstream):
    out = {}
    stats = []
    base = os.path.join("include", "rawgpu", "autogen", "amd")
    t, n, h = _pm4(upstream, f"{AMD}/amdgpu/nvd.h", "pm4_nvd",
                   "PM4 type-3 opcodes and field helpers for GC 10/11/12 (nvd.h)")
    out[os.path.join(base, "pm4_nvd.h")] = t
    stats.append(f"pm4_nvd: {n} constants, {h} field helpers")
    t, n, h = _pm4(upstream, f"{AMD}/amdgpu/soc15d.h", "pm4_soc15",
                   "PM4 type-3 opcodes and field helpers for GC 9 (soc15d.h)")
    out[os.path.join(base, "pm4_soc15.h")] = t
    stats.append(f"pm4_soc15: {n} constants, {h} field helpers")
    t, n, h = _pm4(upstream, f"{AMD}/amdkfd/kfd_pm4_opcodes.h", "pm4_kfd",
                   "PM4 opcodes used by KFD (kfd_pm4_opcodes.h)")
    out[os.path.join(base, "pm4_kfd_opcodes.h")] = t
    for rel, ns, what in [
        (f"{AMD}/amdgpu/sdma_v6_0_0_pkt_open.h", "sdma_v6",
         "SDMA packets for SDMA 6.x/7.x (GC 11/12) (sdma_v6_0_0_pkt_open.h)"),
        (f"{AMD}/amdgpu/vega10_sdma_pkt_open.h", "sdma_v4",
         "SDMA packets for SDMA 4.x (MI300: 4.4.2) (vega10_sdma_pkt_open.h)"),
    ]:
        t, np_, nf = _sdma(upstream, rel, ns, what)
        out[os.path.join(base, f"{ns}.h")] = t
        stats.append(f"{ns}: {np_} packets, {nf} fields")
    for ver in ["13_0_0", "13_0_6", "14_0_2"]:
        rel = f"{AMD}/pm/swsmu/inc/pmfw_if/smu_v{ver}_ppsmc.h"
        t, n = _simple(upstream, rel, f"smu_v{ver}", f"SMU {ver} message ids and results",
                       keep=lambda k: k.startswith("PPSMC_") or k.startswith("DEBUGSMC_"))
        out[os.path.join(base, f"smu_v{ver}_ppsmc.h")] = t
        stats.append(f"smu_v{ver}: {n} ids")
    t, n = _simple(upstream, f"{AMD}/include/soc15_hw_ip.h", "hwid",
                   "Hardware IP ids used in IP discovery (soc15_hw_ip.h)")
    out[os.path.join(base, "hw_ip.h")] = t
    stats.append(f"hw_ip: {n} ids")
    t, counts = _ih(upstream)
    out[os.path.join(base, "ih_ids.h")] = t
    stats.append(f"ih_ids: {', '.join(counts)}")
    return out, stats
