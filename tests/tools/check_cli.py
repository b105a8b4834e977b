#!/usr/bin/env python3
"""The `rawgpu` tool's conventions, checked on the real binary: exit status 0 on success, 1 when
the work failed, 2 for a bad command line (and then nothing was done); `--version`; every
`--json` is one object whose first members are "schema" and "command".

usage: check_cli.py RAWGPU_EXE
"""
import json
import os
import subprocess
import sys
import tempfile

exe = sys.argv[1]
failures = []


def run(args, timeout=120):
    return subprocess.run([exe] + args, capture_output=True, text=True, timeout=timeout)


def expect(args, code, err_has="", out_has=""):
    p = run(args)
    where = "rawgpu " + " ".join(args)
    if p.returncode != code:
        failures.append(f"{where}: exit {p.returncode}, expected {code}\n{p.stderr[-2000:]}")
    elif err_has and err_has not in p.stderr:
        failures.append(f"{where}: stderr lacks {err_has!r}:\n{p.stderr[-2000:]}")
    elif out_has and out_has not in p.stdout:
        failures.append(f"{where}: stdout lacks {out_has!r}:\n{p.stdout[-2000:]}")
    return p


def expect_json(args, command, keys):
    p = run(args)
    where = "rawgpu " + " ".join(args)
    if p.returncode != 0:
        failures.append(f"{where}: exit {p.returncode}\n{p.stderr[-2000:]}")
        return None
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        failures.append(f"{where}: not one JSON document: {e}\n{p.stdout[:2000]}")
        return None
    if not isinstance(doc, dict) or list(doc)[:2] != ["schema", "command"]:
        failures.append(f"{where}: the document does not start with schema and command")
    elif doc["schema"] != 1 or doc["command"] != command:
        failures.append(f"{where}: schema {doc['schema']!r}, command {doc['command']!r}")
    missing = [k for k in keys if k not in doc]
    if missing:
        failures.append(f"{where}: missing members {missing}")
    return doc


# Help, version, dispatch.
p = expect(["--version"], 0)
if not p.stdout.startswith("rawgpu "):
    failures.append(f"--version printed {p.stdout!r}")
expect(["--help"], 0, out_has="environment:")
expect([], 2)
expect(["frobnicate"], 2, err_has="unknown command 'frobnicate'")
expect(["--version", "x"], 2)
expect(["bench"], 2, err_has="which one?")
expect(["bench", "nope"], 2, err_has="unknown bench command 'nope'")
expect(["bench", "--help"], 0, out_has="usage: rawgpu bench COMMAND")
expect(["help", "bench", "tlsf"], 0, out_has="usage: rawgpu bench tlsf")
expect(["bench", "tlsf", "--help"], 0, out_has="--trace FILE")
expect(["help", "bench", "nope"], 2)
# An option of another benchmark is an error, not silently ignored.
expect(["bench", "pagetable", "--trace", "x"], 2, err_has="unknown option '--trace'")
expect(["bench", "tlsf", "--format", "gfx9"], 2, err_has="unknown option '--format'")
expect(["bench", "gemm", "--workload", "mlp"], 2)

# Values are validated before any work starts.
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "out")
    expect(["compile", "--target", "gfx1100,gfx9999", "--all", "-o", out], 2,
           err_has="--target gfx9999")
    if os.path.exists(out):
        failures.append("compile --target gfx1100,gfx9999 wrote output before failing")
    expect(["compile", "--target", "gfx1100,", "--all", "-o", out], 2, err_has="empty entry")
    expect(["compile", "--target", "gfx1100,gfx1100", "--all", "-o", out], 2, err_has="twice")
    expect(["compile", "--target", "gfx1100", "--example", "nope", "-o", out], 2,
           err_has="--example nope")
    expect(["compile", "--target", "gfx1100", "-o", out], 2)
    if os.path.exists(out):
        failures.append("a rejected compile command created its output directory")
    doc = expect_json(["compile", "--target", "gfx1100,host", "--example", "elementwise", "-o",
                       out, "--json"], "compile", ["output", "failures", "kernels"])
    if doc and [k["target"] for k in doc["kernels"]] != ["gfx1100", "host"]:
        failures.append(f"compile --json kernels: {doc['kernels']}")
    # A runtime failure (cannot write) is exit 1, with the OS's reason.
    expect(["compile", "--target", "gfx1100", "--example", "elementwise", "-o",
            "/proc/rawgpu-no"], 1, err_has="No such file or directory")
expect(["demo", "--device", "sim:gfx9"], 2, err_has="known: cpu")
expect(["demo", "--seed", "x"], 2)
# The demo on a simulated NVIDIA GPU: PTX through the simulated kernel driver, results checked.
expect(["demo", "--device", "sim:sm_90"], 0, out_has="demo: all results match the reference")
expect(["demo", "--device", "nv:x"], 2, err_has="nv:<n> takes a GPU index")
# rawgpu info and the benchmarks on a simulated NVIDIA GPU (issue 18).
expect(["info", "sim:sm_90"], 0, out_has="classes: gpfifo 0xc86f, compute 0xcbc0")
doc = expect_json(["info", "sim:sm_86", "--json"], "info", ["driver_version", "target", "sms"])
if doc and (doc["target"] != "sm_86" or doc["sms"] <= 0):
    failures.append(f"info sim:sm_86 --json: target {doc['target']!r}, sms {doc['sms']!r}")
expect(["info", "sim:sm_70"], 1, err_has="sim:sm_86, sim:sm_89 and sim:sm_90")
expect(["info", "nv:x"], 1, err_has="nv:<n> takes a GPU index")
doc = expect_json(["bench", "launch", "--device", "sim:sm_90", "--ops", "1000", "--kernels", "10",
                   "--replays", "3", "--json"], "bench launch", ["device", "results"])
if doc and [r["qmd_version"] for r in doc["results"]] != [3, 4]:
    failures.append(f"bench launch sim:sm_90: {doc['results']}")
expect(["bench", "launch", "--device", "sim:sm_90", "--kernels", "0"], 2, err_has="expected 1..")
expect(["bench", "emulator", "--device", "sim:sm_86", "--repeats", "1"], 0,
       out_has="M thread-instructions/s")
expect(["bench", "emulator", "--device", "sim:sm_70"], 2, err_has="sim:sm_86")
expect(["demo", "--device", "nv:99999999999999999999"], 2, err_has="nv:<n> takes a GPU index")
expect(["bench", "emulator", "--repeats", "0"], 2, err_has="expected 1..100")
expect(["bench", "emulator", "--threads", "999"], 2, err_has="expected 0..256")
expect(["bench", "compile", "--workload", "nope"], 2, err_has="unknown workload")
expect(["bench", "compile", "--workload", "mlp", "--opt-level", "4"], 2, err_has="0..3")
expect(["bench", "gemm", "--dtype", "f64"], 2, err_has="expected f32, f16 or bf16")
expect(["bench", "gemm", "--n", "0"], 2, err_has="expected 1..8192")
expect(["bench", "gemm", "--repeats", "5"], 2, err_has="expected 10..1000")
expect(["bench", "gemm", "--device", "sim:gfx1100"], 2, err_has="cpu device only")

# bench tlsf / launch / pagetable (issue 15): sizes a user types are typed errors, never an
# abort or unbounded work; file problems are exit 1 with the OS's reason; bad input is quoted
# briefly and escaped.
with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "t.txt")
    expect(["bench", "tlsf", "--generate", "1000000000000", "--trace", trace], 2,
           err_has="expected 1..50000000")
    expect(["bench", "tlsf", "--generate", "18446744073709551615", "--trace", trace], 2)
    if os.path.exists(trace):
        failures.append("a rejected --generate created its trace file")
    expect(["bench", "tlsf", "--generate", "100000", "--trace", "/dev/full"], 1,
           err_has="No space left on device")
    expect(["bench", "tlsf", "--trace", tmp], 1, err_has="is a directory")
    expect(["bench", "tlsf", "--trace", os.path.join(tmp, "none")], 1,
           err_has="No such file or directory")
    expect(["bench", "tlsf", "--trace", "/dev/zero"], 1, err_has="longer than 4096 bytes")
    bad = os.path.join(tmp, "bad.txt")
    with open(bad, "w") as f:
        f.write("a 1 256 1\nq \x1b[2J " + "y" * 10_000_000 + "\n")
    p = expect(["bench", "tlsf", "--trace", bad], 1, err_has="line 2")
    if len(p.stderr) > 1000 or "\x1b" in p.stderr:
        failures.append(f"bench tlsf echoed a bad line unbounded or unescaped: {p.stderr[:300]!r}")
    with open(bad, "w") as f:
        f.write("a 1 256 1\nq \x1b[2J " + "y" * 300 + "\n")
    p = expect(["bench", "tlsf", "--trace", bad], 1, err_has="expected 'a ID SIZE ALIGN'")
    if len(p.stderr) > 600 or "\x1b" in p.stderr:
        failures.append(f"bench tlsf quoted a bad line unbounded or unescaped: {p.stderr[:300]!r}")
    expect(["bench", "tlsf", "--size", "abc", "--trace", trace], 2, err_has="got 'abc'")
    expect(["bench", "tlsf", "--size", "abc"], 2, err_has="got 'abc'")
    expect(["bench", "tlsf", "--repeats", "0", "--trace", trace], 2, err_has="expected 1..100")
    expect(["bench", "tlsf", "--scaling", "--trace", trace], 2, err_has="--scaling")
    doc = expect_json(["bench", "tlsf", "--generate", "2000", "--trace", trace, "--seed", "3",
                       "--json"], "bench tlsf", ["mode", "ops", "seed"])
    if doc and (doc["ops"] != 2000 or doc["seed"] != 3):
        failures.append(f"bench tlsf --generate --json: {doc}")
    doc = expect_json(["bench", "tlsf", "--trace", trace, "--repeats", "2", "--json"],
                      "bench tlsf", ["mode", "ns_per_op", "repeats", "failed_allocs"])
    if doc and doc["repeats"] != 2:
        failures.append(f"bench tlsf --repeats 2 reported {doc['repeats']}")
expect(["bench", "launch", "--ops", "10"], 2, err_has="expected 1000..100000000")
expect(["bench", "launch", "--kernels", "0"], 2, err_has="expected 1..100000")
expect(["bench", "launch", "--copy-size", "0"], 2)
expect(["bench", "launch", "--device", "sim:gfx9"], 2)
expect(["bench", "pagetable", "--repeats", "1000"], 2, err_has="expected 1..100")
doc = expect_json(["bench", "pagetable", "--format", "gfx12", "--repeats", "1", "--json"],
                  "bench pagetable", ["results", "repeats"])
expect(["bench", "launch", "--replays", "0"], 2, err_has="expected 1..1000")
# 30000 kernels need more than one indirect buffer (this aborted in indirect_buffer()). Two
# replays: each one simulates all 30000 kernels.
doc = expect_json(["bench", "launch", "--kernels", "30000", "--replays", "2", "--ops", "1000",
                   "--copy-size", "1MiB", "--json"], "bench launch",
                  ["graph_kernels", "graph_replays", "graph_replay_ns"])
if doc and (doc["graph_kernels"] != 30000 or doc["graph_replays"] != 2):
    failures.append(f"bench launch --kernels 30000 --replays 2: {doc}")
# Without --replays a long graph is replayed fewer times (5..200, ~200k simulated kernels).
doc = expect_json(["bench", "launch", "--kernels", "20000", "--ops", "1000", "--copy-size",
                   "64KiB", "--json"], "bench launch", ["graph_replays"])
if doc and doc["graph_replays"] != 10:
    failures.append(f"bench launch --kernels 20000 replayed {doc['graph_replays']} times, not 10")

# bind / release: values checked before anything is touched; a missing function is exit 1.
expect(["bind", "03:00.0"], 2, err_has="--vfio")
expect(["bind", "zz:00.0", "--vfio"], 2)
expect(["release"], 2)
with tempfile.TemporaryDirectory() as tmp:
    expect(["bind", "0000:09:00.0", "--vfio", "--sysfs-root", tmp], 1,
           err_has="no such PCI function")
    expect(["release", "0000:09:00.0", "--sysfs-root", tmp], 1, err_has="no such PCI function")

expect(["doctor", "zz"], 2)
expect(["doctor", "0000:7f:1f.7"], 1, err_has="is not an AMD or NVIDIA GPU")

# One JSON shape everywhere.
expect_json(["version", "--json"], "version", ["rawgpu", "llvm", "llvm_targets", "firmware"])
expect_json(["selfcheck", "--json"], "selfcheck", ["checks", "passed", "failed", "skipped"])
expect_json(["doctor", "--json"], "doctor", ["host", "devices", "ok"])
expect_json(["compile", "--list", "--json"], "compile", ["examples"])
with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "trace.json")
    doc = expect_json(["demo", "--json", "--trace", trace], "demo",
                      ["device", "seed", "ok", "workloads"])
    if doc and not doc["ok"]:
        failures.append("demo --json reported a mismatch")
    # --trace: Chrome trace-event JSON with one complete event per kernel run.
    try:
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"]
        if not kernels or any(e["dur"] < 0 or "grid" not in e["args"] for e in kernels):
            failures.append(f"demo --trace: no well-formed kernel events ({len(kernels)})")
    except (OSError, ValueError, KeyError) as e:
        failures.append(f"demo --trace wrote no valid trace: {e}")
doc = expect_json(["bench", "gemm", "--n", "32", "--seed", "7", "--json"], "bench gemm",
                  ["n", "gflops", "seed"])
if doc and doc["seed"] != 7:
    failures.append(f"bench gemm --seed 7 used seed {doc['seed']}")

for f in failures:
    print("FAIL:", f)
print(f"check_cli: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
