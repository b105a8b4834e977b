#!/usr/bin/env python3
"""`rawgpu compile --data` end to end, and the NVIDIA device check built on it.

usage: device_check.py compile RAWGPU CUDA_CHECK OUTDIR TARGETS
         compiles every example for TARGETS (comma-separated) with --data and checks each
         target's launch descriptions with `cuda_check --parse-only` (one per example; an
         NVIDIA target without ptxas has no cubins and so no launch descriptions: reported)
       device_check.py nvsim RAWGPU NV_CHECK_SIM OUTDIR SM
         every example's cubin for SM through rawgpu's RM path on the simulated kernel driver
         (nv_check --sim): bring-up, the cubin loader and the QMD launch, up to the SASS the
         simulated GPU refuses (each kernel LOADED); SKIPPED (77) without ptxas
       device_check.py run RAWGPU CUDA_CHECK OUTDIR SM
         runs every example's cubin for SM on GPU 0 through libcuda and compares it with the host
         reference; SKIPPED (exit 77) when no libcuda.so.1 can be loaded
"""
import ctypes
import pathlib
import subprocess
import sys


def sh(cmd, timeout=900):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    sys.stdout.write(proc.stdout)
    sys.stdout.write(proc.stderr)
    return proc


def compile_all(rawgpu, out, targets):
    proc = sh([rawgpu, "compile", "--target", targets, "--all", "--data", "-o", out])
    if proc.returncode != 0:
        print(f"FAIL: rawgpu compile exited {proc.returncode}")
        return False
    return True


def main() -> int:
    mode, rawgpu, cuda_check, out, targets = sys.argv[1:6]
    if mode == "compile":
        if not compile_all(rawgpu, out, targets):
            return 1
        examples = sh([rawgpu, "compile", "--list"]).stdout.splitlines()
        for t in targets.split(","):
            described = sorted(pathlib.Path(out, t).glob("*/launch.txt"))
            if t.startswith("sm_") and not described:
                print(f"note: no cubins for {t} (no ptxas): no launch descriptions to check")
                continue
            if len(described) != len(examples):
                print(f"FAIL: {t}: {len(described)} launch descriptions for {len(examples)} examples")
                return 1
            if sh([cuda_check, "--parse-only", str(pathlib.Path(out, t))]).returncode != 0:
                print(f"FAIL: {t}: a launch description does not parse")
                return 1
        print("ok: every example compiled with its data and launch description")
        return 0
    if mode == "nvsim":
        if not compile_all(rawgpu, out, targets):
            return 1
        described = list(pathlib.Path(out, targets).glob("*/launch.txt"))
        if not described:
            print(f"SKIPPED: no cubins for {targets} (ptxas is not installed)")
            return 77
        proc = sh([cuda_check, "--sim", targets, str(pathlib.Path(out, targets))])
        loaded = proc.stdout.count("\nLOADED ") + proc.stdout.startswith("LOADED ")
        if proc.returncode != 0 or loaded != len(described):
            print(f"FAIL: nv_check --sim exited {proc.returncode}, {loaded} of {len(described)} "
                  "kernels LOADED")
            return 1
        print(f"ok: {loaded} cubins loaded and launched through the RM path")
        return 0
    if mode == "run":
        try:
            ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            print(f"SKIPPED: no NVIDIA driver (libcuda.so.1: {e})")
            return 77
        if not compile_all(rawgpu, out, targets):
            return 1
        if not list(pathlib.Path(out, targets).glob("*/launch.txt")):
            print(f"FAIL: no cubins for {targets} (is ptxas installed?)")
            return 1
        return sh([cuda_check, str(pathlib.Path(out, targets))]).returncode
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
