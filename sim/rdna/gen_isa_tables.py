#!/usr/bin/env python3
"""Generates sim/rdna/isa_<target>.inc, the RDNA3/RDNA4 opcode tables, with LLVM 19 as the oracle.
(needs libLLVM-19 and llvm-mc-19)

For every encoding format the opcode field is swept; each candidate instruction word is built
from a few operand templates and disassembled by the LLVM 19 C disassembler API (LLVMDisasmInstruction). The first template
that decodes to exactly one instruction of the template's length gives the entry: format,
opcode, LLVM's mnemonic, operand widths (dwords, from the printed register ranges) and the
sample text, which the decoder test assembles again (`--show-encoding`) and decodes.

Usage: gen_isa_tables.py gfx1100|gfx1201 > sim/rdna/isa_<target>.inc
"""
import ctypes
import re
import subprocess
import sys

LIBLLVM = "/usr/lib/llvm-19/lib/libLLVM.so.1"



def words_to_line(ws):
    bs = []
    for w in ws:
        bs += [(w >> (8 * i)) & 0xFF for i in range(4)]
    return ",".join("0x%02x" % b for b in bs)


def candidates(target):
    """Yields (format, opcode, [template word lists])."""
    g12 = target == "gfx1201"
    lit = 0x3F800000
    for op in range(0x60):
        yield "SOP2", op, [[0x80000000 | op << 23], [0x80000000 | op << 23, lit]]
    for op in range(0x1D):  # 0x1D..0x1F are the SOP1/SOPC/SOPP prefixes
        base = 0xB0000000 | op << 23
        yield "SOPK", op, [[base], [base, 0], [base | 0x7C << 16], [base | 0x7C << 16, 0]]
    for op in range(0x100):
        base = 0xBE800000 | op << 8
        yield "SOP1", op, [[base], [base | 0xFF, lit]]
    for op in range(0x80):
        yield "SOPC", op, [[0xBF000000 | op << 16]]
    for op in range(0x80):
        yield "SOPP", op, [[0xBF800000 | op << 16]]
    # GFX12 SMEM: LLVM 19 decodes the opcode from bits [18:13] (bits 20:19 are ignored).
    for op in range(0x40 if g12 else 0x100):
        w0 = 0xF4000000 | (op << 13 if g12 else op << 18)
        yield "SMEM", op, [[w0, 0xF8000000], [w0, 0], [w0 | 0x80, 0xF8000000]]
    for op in range(0x3E):
        w = op << 25 | 0x100
        yield "VOP2", op, [[w], [w, lit], [w & ~0x1FF | 0xFF, lit], [w, 0x3C00]]
    for op in range(0x100):
        w = 0x7E000000 | op << 9 | 0x100
        yield "VOP1", op, [[w], [w & ~0x1FF | 0xFF, lit]]
    for op in range(0x100):
        w = 0x7C000000 | op << 17 | 0x100
        yield "VOPC", op, [[w]]
    for op in range(0x400):
        w0 = 0xD4000000 | op << 16
        yield "VOP3", op, [[w0, 0x00020100], [w0, 0x04020100], [w0, 0x00000100], [w0, 0],
                           [w0 | 0x6A00, 0x04020100], [w0, 0x01A20100]]
    for op in range(0x80):
        w0 = 0xCC000000 | op << 16
        yield "VOP3P", op, [[w0 | 0x4000, 0x1C020100], [w0, 0x18020100], [w0, 0x04020100],
                            [w0, 0x00020100], [w0 | 0x4000, 0x04020100], [w0, 0x1C020100]]
    for opx in range(0x10):
        for opy in range(0x20):
            w0 = 0xC8000000 | opx << 22 | opy << 17 | 0x100
            # Bank-separated operands (the assembler rejects X/Y sources in one VGPR bank).
            # X: v4 = f(v0, v2), Y: v5 = f(v1, v3).
            wb = w0 | 2 << 9
            w1b = 0x101 | 3 << 9 | 2 << 17 | 4 << 24
            yield "VOPD", opx << 5 | opy, [[wb, w1b], [wb, w1b, lit], [wb, 0x00000101 | 3 << 9],
                                            [wb, 0x00000101 | 3 << 9, lit],
                                            [wb & ~0x1FF | 0xFF, 0x00000101 | 3 << 9, lit],
                                            [w0, 0x00000100], [w0, 0x00000100, lit],
                                            [w0 & ~0x1FF | 0xFF, 0x00000100, lit]]
    for op in range(0x100):
        w0 = 0xD8000000 | op << 18
        t = []
        for vdst in (0, 3):
            for d1 in (0, 2):
                for d0 in (0, 1):
                    t.append([w0, vdst << 24 | d1 << 16 | d0 << 8])
        yield "DS", op, t
    if not g12:
        for seg in range(3):
            for op in range(0x80):
                w0 = 0xDC000000 | op << 18 | seg << 16
                t = []
                for saddr in (0x7C, 0):
                    for vdst in (0, 3):
                        for data in (0, 2):
                            t.append([w0, vdst << 24 | saddr << 16 | data << 8])
                if seg == 1:
                    t.append([w0, 0x00FC0000])
                yield ("FLAT", "SCRATCH", "GLOBAL")[seg], op, t
        for op in range(0x100):
            w0 = 0xE0000000 | op << 18
            yield "MUBUF", op, [[w0, 0], [w0, 0x80000000]]
    else:
        # GFX12 VFLAT/VSCRATCH/VGLOBAL: LLVM 19 decodes the opcode from bits [20:14].
        for seg in range(3):
            for op in range(0x80):
                t = []
                for saddr in (0x7C, 0):
                    w0 = 0xEC000000 | seg << 24 | op << 14 | saddr
                    for vdst in (0, 3):
                        for data in (0, 2):
                            t.append([w0, vdst | data << 23, 0])
                    t.append([w0, 0, 0x00000000 | 0])
                yield ("FLAT", "SCRATCH", "GLOBAL")[seg], op, t


class Disassembler:
    """The LLVM 19 C disassembler API (libLLVM-19) through ctypes."""

    def __init__(self, target):
        lib = ctypes.CDLL(LIBLLVM)
        for f in ("LLVMInitializeAMDGPUTargetInfo", "LLVMInitializeAMDGPUTargetMC",
                  "LLVMInitializeAMDGPUDisassembler"):
            getattr(lib, f)()
        lib.LLVMCreateDisasmCPU.restype = ctypes.c_void_p
        lib.LLVMCreateDisasmCPU.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p,
                                            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        lib.LLVMDisasmInstruction.restype = ctypes.c_size_t
        lib.LLVMDisasmInstruction.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64,
                                              ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
        self.lib = lib
        self.dc = lib.LLVMCreateDisasmCPU(b"amdgcn-amd-amdhsa", target.encode(), None, 0, None,
                                          None)
        self.buf = ctypes.create_string_buffer(512)

    def decode(self, ws):
        """(size in bytes, text) of the instruction at the start of ws, or (0, None)."""
        b = b"".join(w.to_bytes(4, "little") for w in ws) + bytes(16)
        n = self.lib.LLVMDisasmInstruction(self.dc, b, len(b), 0, self.buf, len(self.buf))
        if n == 0:
            return 0, None
        return n, self.buf.value.decode().strip()


def reassemble_failures(target, texts):
    """Indices of texts llvm-mc-19 cannot assemble (one per line)."""
    p = subprocess.run(["llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + target,
                        "--show-encoding"], input="\n".join(texts) + "\n", capture_output=True,
                       text=True, check=False)
    bad = set()
    for m in re.finditer(r"<stdin>:(\d+):\d+: error", p.stderr):
        bad.add(int(m.group(1)) - 1)
    return bad


def width(tok):
    m = re.match(r"^(?:v|s|ttmp)\[(\d+):(\d+)\]$", tok)
    if m:
        return int(m.group(2)) - int(m.group(1)) + 1
    if re.match(r"^(v|s|ttmp)\d+(\.[lh])?$", tok) or tok in ("vcc_lo", "vcc_hi", "exec_lo",
                                                              "exec_hi", "m0", "null"):
        return 1
    if tok in ("vcc", "exec"):
        return 2
    # An inline constant or literal in an operand position stands for one dword.
    if re.match(r"^-?(0x[0-9a-f]+|\d+(\.\d+)?)$", tok):
        return 1
    return 0


def main():
    target = sys.argv[1]
    cands = list(candidates(target))
    dis = Disassembler(target)
    # Per candidate: the next template to try. A template counts when LLVM decodes it to one
    # instruction of its length AND llvm-mc-19 assembles the printed text again (the
    # disassembler accepts operand combinations the assembler rejects, e.g. VOPD bank clashes).
    nxt = [0] * len(cands)
    found = {}
    pending = set(range(len(cands)))
    for _ in range(12):
        trial = {}
        for i in sorted(pending):
            templates = cands[i][2]
            while nxt[i] < len(templates):
                ws = templates[nxt[i]]
                nxt[i] += 1
                n, text = dis.decode(ws)
                if n == 4 * len(ws):
                    trial[i] = (text, ws)
                    break
        if not trial:
            break
        bad = reassemble_failures(target, [trial[i][0] for i in sorted(trial)])
        for k, i in enumerate(sorted(trial)):
            if k not in bad:
                found[i] = trial[i]
                pending.discard(i)
            elif nxt[i] >= len(cands[i][2]):
                pending.discard(i)
    print("// Generated by sim/rdna/gen_isa_tables.py %s with llvm-mc-19; do not edit." % target)
    print("// E(format, opcode, mnemonic, dwords per printed operand (0 = not a register),")
    print("//   sample text as LLVM 19 prints it)")
    seen = set()
    for i, (fmt, op, _) in enumerate(cands):
        if i not in found:
            continue
        text, ws = found[i]
        mn = text.split()[0]
        if fmt == "VOP3":
            rest = text[len(mn):].strip()
            toks = [t.strip() for t in rest.split(",")] if rest else []
            if len(toks) >= 2 and re.match(r"^(s\d+|s\[\d+:\d+\]|vcc_lo|vcc|null)$", toks[1]) \
                    and not mn.startswith(("v_readlane", "v_readfirstlane", "v_writelane", "v_cmp")) \
                    and not toks[0].startswith("s") and not toks[0].startswith("vcc"):
                fmt = "VOP3SD"
        if fmt == "VOPD":  # one entry per X opcode and per Y opcode
            xtext, ytext = text.split(" :: ")
            for part, f2, o2 in ((xtext, "VOPDX", op >> 5), (ytext, "VOPDY", op & 31)):
                if (f2, o2) in seen:
                    continue
                seen.add((f2, o2))
                m2 = part.split()[0]
                toks = [t.strip() for t in part[len(m2):].split(",")]
                w = [width(t) for t in toks][:4] + [0] * (4 - min(4, len(toks)))
                print('E(%s, 0x%03x, "%s", %d, %d, %d, %d, "%s")' %
                      (f2, o2, m2, w[0], w[1], w[2], w[3], text))
            continue
        key = (fmt, op)
        # A text LLVM prints for two encodings (e.g. v_nop as VOP1 and as VOP3) assembles to
        # the first: keep only that one so every entry round-trips.
        if key in seen or ("text", text) in seen:
            continue
        seen.add(key)
        seen.add(("text", text))
        rest = text[len(mn):].strip()
        toks = [t.strip().split(" ")[0] for t in rest.split(",")] if rest else []
        ws_ = [width(t) for t in toks][:4] + [0] * (4 - min(4, len(toks)))
        print('E(%s, 0x%03x, "%s", %d, %d, %d, %d, "%s")' %
              (fmt, op, mn, ws_[0], ws_[1], ws_[2], ws_[3], text.replace('"', '\\"')))


if __name__ == "__main__":
    main()
