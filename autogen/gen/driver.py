"""Runs every generator and writes (or checks) the committed outputs."""

import difflib
import os
import sys
import tempfile

from . import amd_regs

MANIFEST = "generated-files.txt"


def _generators():
    # Imported lazily so a broken generator names itself in the traceback.
    from . import amd_consts, amd_structs, nv_gen
    return [amd_regs.generate, amd_consts.generate, amd_structs.generate, nv_gen.generate]


def _missing(upstream):
    need = [os.path.join(upstream, "linux"), os.path.join(upstream, "nvidia-open")]
    return [p for p in need if not os.path.isdir(p)]


def run_all(upstream):
    outputs = {}
    stats = []
    for gen in _generators():
        out, st = gen(upstream)
        for k in out:
            if k in outputs:
                raise RuntimeError(f"two generators write {k}")
        outputs.update(out)
        stats += st
    manifest = "".join(f"{k}\n" for k in sorted(outputs))
    outputs[MANIFEST] = ("# Files written by autogen/rawgpu-autogen generate (one per line).\n"
                         + manifest)
    return outputs, stats


def _write(root, outputs):
    changed = 0
    old = set()
    mpath = os.path.join(root, MANIFEST)
    if os.path.exists(mpath):
        with open(mpath) as f:
            old = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    for rel, text in sorted(outputs.items()):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    continue
        except OSError:
            pass
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        changed += 1
    for rel in sorted(old - set(outputs)):
        p = os.path.join(root, rel)
        if os.path.exists(p):
            os.remove(p)
            changed += 1
    return changed


def generate(upstream, out_root):
    miss = _missing(upstream)
    if miss:
        print(f"autogen: upstream cache incomplete (missing {', '.join(miss)}); "
              "run `autogen/rawgpu-autogen fetch` first", file=sys.stderr)
        return 1
    outputs, stats = run_all(upstream)
    changed = _write(out_root, outputs)
    for s in stats:
        print(f"  {s}")
    print(f"autogen: {len(outputs)} files, {changed} changed, in {out_root}")
    return 0


def check(upstream, committed_root):
    """Regenerates into a temp dir and diffs with the committed files. Exit 77 = skipped."""
    miss = _missing(upstream)
    if miss:
        print(f"SKIPPED: upstream cache absent ({', '.join(miss)}); "
              "run `autogen/rawgpu-autogen fetch`")
        return 77
    outputs, _ = run_all(upstream)
    with tempfile.TemporaryDirectory() as tmp:
        _write(tmp, outputs)
        bad = 0
        for rel in sorted(outputs):
            with open(os.path.join(tmp, rel), encoding="utf-8") as f:
                new = f.read()
            try:
                with open(os.path.join(committed_root, rel), encoding="utf-8") as f:
                    old = f.read()
            except OSError:
                print(f"MISSING committed file: {rel}")
                bad += 1
                continue
            if old != new:
                bad += 1
                diff = difflib.unified_diff(old.splitlines(), new.splitlines(),
                                            f"committed/{rel}", f"regenerated/{rel}", lineterm="")
                for i, line in enumerate(diff):
                    if i >= 40:
                        print("  ...")
                        break
                    print(line)
        if bad:
            print(f"autogen check: {bad} of {len(outputs)} files differ; "
                  "run `autogen/rawgpu-autogen generate` and commit")
            return 1
    print(f"autogen check: {len(outputs)} files identical")
    return 0
