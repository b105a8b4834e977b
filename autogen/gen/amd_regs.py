"""AMD register tables: asic_reg/<ip>/<ip>_<ver>_{offset,sh_mask}.h -> typed C++ structs."""

import os
import re

from . import config
from .emit import header_preamble, cpp_ident

_OFFSET_RE = re.compile(r"^#define\s+(reg|mm)([A-Za-z0-9_]+?)(_BASE_IDX)?\s+(0x[0-9a-fA-F]+|\d+)\b")
# REG__FIELD__SHIFT and REG__FIELD_MASK (one underscore before MASK).
_MASK_RE = re.compile(r"^#define\s+([A-Za-z0-9_]+?)(__SHIFT|_MASK)\s+(0x[0-9a-fA-F]+|\d+)L?\b")


class GenError(Exception):
    pass


def parse_offsets(path):
    regs = {}
    bases = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = _OFFSET_RE.match(line)
            if not m:
                continue
            _prefix, name, is_base, val = m.groups()
            if is_base:
                bases[name] = int(val, 0)
            else:
                regs[name] = int(val, 0)
    out = {}
    for name, off in regs.items():
        # A register without a _BASE_IDX line (a few old-style entries) lives in segment 0.
        out[name] = (off, bases.get(name, 0))
    return out


def parse_fields(path, reg_names):
    shifts = {}
    masks = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = _MASK_RE.match(line)
            if not m:
                continue
            key, kind, val = m.groups()
            (shifts if kind == "__SHIFT" else masks)[key] = int(val, 0)
    fields = {}
    bad = {}
    for key, mask in masks.items():
        if key not in shifts:
            continue
        # Split REG__FIELD: the register is the longest known register name before "__".
        reg = None
        idx = key.find("__")
        while idx != -1:
            if key[:idx] in reg_names:
                reg = key[:idx]
            idx = key.find("__", idx + 2)
        if reg is None:
            continue
        field = key[len(reg) + 2:]
        shift = shifts[key]
        if mask == 0:
            continue
        low = mask >> shift
        if (low << shift) != mask or (low & (low + 1)) != 0:
            # Upstream typo (shift and mask disagree): leave the field out, say so in the header.
            bad.setdefault(reg, []).append(f"{field} (shift {shift}, mask 0x{mask:x})")
            continue
        width = low.bit_length()
        fields.setdefault(reg, []).append((field, shift, width))
    for reg in fields:
        fields[reg].sort(key=lambda t: (t[1], t[0]))
    return fields, bad


def select(names, patterns):
    rx = [re.compile(p) for p in patterns]
    return sorted(n for n in names if any(r.fullmatch(n) for r in rx))


def generate_table(upstream, out_name, subdir, base, allow_key):
    src_dir = os.path.join(upstream, "linux", config.ASIC_REG, subdir)
    off_path = os.path.join(src_dir, f"{base}_offset.h")
    mask_path = os.path.join(src_dir, f"{base}_sh_mask.h")
    regs = parse_offsets(off_path)
    fields, bad = parse_fields(mask_path, set(regs))
    chosen = select(regs, config.ALLOW[allow_key])
    if not chosen:
        raise GenError(f"{off_path}: allow-list '{allow_key}' selects no register")
    lines = header_preamble(
        f"AMD {out_name} registers",
        [f"linux-source-6.12: {config.ASIC_REG}/{subdir}/{base}_offset.h",
         f"linux-source-6.12: {config.ASIC_REG}/{subdir}/{base}_sh_mask.h"],
        f"allow-list '{allow_key}' in autogen/gen/config.py")
    lines += ["#include <array>", "", '#include "rawgpu/autogen/reg.h"', "",
              "namespace rawgpu::autogen::amd {", "",
              f"struct {out_name} {{"]
    nfields = 0
    for name in chosen:
        off, bidx = regs[name]
        fl = fields.get(name, [])
        lines.append(f"  struct {name} : Reg<{name}> {{")
        lines.append(f'    static constexpr RegInfo kInfo{{"{name}", 0x{off:x}, {bidx}}};')
        for b in sorted(bad.get(name, [])):
            lines.append(f"    // Omitted, upstream shift and mask disagree: {b}")
        for fname, shift, width in fl:
            ident = cpp_ident(fname, avoid={name})
            lines.append(f"    static constexpr Field<{name}> {ident}{{{shift}, {width}}};")
        lines.append(f"    static constexpr std::array<FieldDesc, {len(fl)}> kFields{{{{")
        for fname, shift, width in fl:
            lines.append(f'        {{"{fname}", {shift}, {width}}},')
        lines.append("    }};")
        lines.append("  };")
        nfields += len(fl)
    lines.append(f"  static constexpr std::array<RegDesc, {len(chosen)}> kRegisters{{{{")
    for name in chosen:
        off, bidx = regs[name]
        lines.append(f'      {{"{name}", 0x{off:x}, {bidx}, {name}::kFields}},')
    lines.append("  }};")
    lines += ["};", "", "}  // namespace rawgpu::autogen::amd", ""]
    rel = os.path.join("include", "rawgpu", "autogen", "amd", "regs", f"{out_name}.h")
    return rel, "\n".join(lines), (len(chosen), nfields)


def generate(upstream):
    outputs = {}
    stats = []
    for out_name, subdir, base, key in config.AMD_REG_TABLES:
        rel, text, (nr, nf) = generate_table(upstream, out_name, subdir, base, key)
        outputs[rel] = text
        stats.append(f"{out_name}: {nr} registers, {nf} fields")
    names = [t[0] for t in config.AMD_REG_TABLES]
    lines = header_preamble("Every generated AMD register table", ["see the included headers"])
    lines += [f'#include "rawgpu/autogen/amd/regs/{n}.h"' for n in names]
    lines += ["", "// X-macro over the table names: X(gc_11_0_0) ...",
              "#define RG_AUTOGEN_AMD_REG_TABLES(X) \\"]
    lines += [f"  X({n}){',' if i + 1 < len(names) else ''} \\" for i, n in enumerate(names)]
    lines += ["", ""]
    outputs[os.path.join("include", "rawgpu", "autogen", "amd", "regs", "all.h")] = "\n".join(lines)
    return outputs, stats
