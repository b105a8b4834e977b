#!/usr/bin/env python3
"""Runs a command and checks that its stdout is one JSON document with the given top-level keys
and the envelope every `rawgpu ... --json` output has: schema (1) and command.

usage: check_json.py KEY[,KEY...] -- COMMAND [ARGS...]
"""
import json
import subprocess
import sys

def main() -> int:
    sep = sys.argv.index("--")
    keys = ["schema", "command"] + [k for k in sys.argv[1].split(",")
                                    if k and k not in ("schema", "command")]
    cmd = sys.argv[sep + 1:]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited {proc.returncode}\n{proc.stderr}")
        return 1
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        print(f"FAIL: output is not JSON: {e}\n{proc.stdout}")
        return 1
    missing = [k for k in keys if k not in doc]
    if missing:
        print(f"FAIL: missing keys {missing} in {proc.stdout}")
        return 1
    if doc["schema"] != 1:
        print(f"FAIL: schema {doc['schema']!r}, expected 1")
        return 1
    print(f"ok: valid JSON with keys {keys}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
