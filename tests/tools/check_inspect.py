#!/usr/bin/env python3
"""`rawgpu inspect` end to end on the real binary: exact exit codes and the JSON envelope.

usage: check_inspect.py RAWGPU OUTDIR
  compiles one example for gfx1100 and sm_90 (the cubin only where ptxas is installed; reported
  when absent), inspects the binaries as text and JSON (exit 0, schema/command first, the kernel
  listed), and checks that bad inputs exit 1 and bad command lines exit 2, each with a message
  on stderr that names the file.
"""
import json
import pathlib
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main() -> int:
    rawgpu, out = sys.argv[1], pathlib.Path(sys.argv[2])
    failures = []

    def expect(cmd, code, needle=None, stream="stderr"):
        p = run(cmd)
        text = p.stderr if stream == "stderr" else p.stdout
        if p.returncode != code:
            failures.append(f"{' '.join(map(str, cmd))}: exit {p.returncode}, expected {code}\n{p.stderr}")
        elif needle is not None and needle not in text:
            failures.append(f"{' '.join(map(str, cmd))}: '{needle}' not in {stream}:\n{text}")
        return p

    out.mkdir(parents=True, exist_ok=True)
    p = run([rawgpu, "compile", "--target", "gfx1100,sm_90", "--example", "reduce_row", "-o", str(out)])
    if p.returncode != 0:
        print(f"FAIL: rawgpu compile exited {p.returncode}\n{p.stdout}{p.stderr}")
        return 1
    binaries = [(out / "gfx1100/reduce_row/kernel.co", "amdgpu_code_object")]
    cubin = out / "sm_90/reduce_row/kernel.cubin"
    if cubin.exists():
        binaries.append((cubin, "nvidia_cubin"))
    else:
        print("note: no cubin (ptxas not installed): the cubin part is SKIPPED")
    for path, fmt in binaries:
        expect([rawgpu, "inspect", path], 0, "kernel reduce_row", stream="stdout")
        p = expect([rawgpu, "inspect", "--json", path], 0)
        if p.returncode == 0:
            doc = json.loads(p.stdout)
            keys = list(doc)[:2]
            if keys != ["schema", "command"] or doc["command"] != "inspect":
                failures.append(f"{path}: JSON does not start with schema, command: {keys}")
            if doc.get("format") != fmt or [k["name"] for k in doc["kernels"]] != ["reduce_row"]:
                failures.append(f"{path}: unexpected JSON {p.stdout[:400]}")

    bad = out / "bad"
    bad.mkdir(exist_ok=True)
    (bad / "notes.txt").write_text("not an ELF file\n")
    (bad / "cut.co").write_bytes((out / "gfx1100/reduce_row/kernel.co").read_bytes()[:300])
    for path, needle in [(bad / "missing.co", "No such file or directory"), (bad, "is a directory"),
                         (bad / "notes.txt", "is not an ELF file"),
                         (bad / "cut.co", "(AMDGPU code object)")]:
        expect([rawgpu, "inspect", path], 1, f"rawgpu inspect: {path}")
        expect([rawgpu, "inspect", path], 1, needle)
    expect([rawgpu, "inspect"], 2, "needs 1 argument")
    expect([rawgpu, "inspect", "--bogus", bad / "notes.txt"], 2, "unknown option")

    if failures:
        print("FAIL:\n" + "\n".join(failures))
        return 1
    print(f"ok: inspect on {len(binaries)} binaries, error exit codes 1 and 2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
