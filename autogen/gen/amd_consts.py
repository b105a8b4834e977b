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
    return out, stats
