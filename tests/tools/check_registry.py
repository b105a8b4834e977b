#!/usr/bin/env python3
"""`rawgpu --help` lists exactly the RAWGPU_* environment variables and RAWGPU_DEBUG tags the
source tree uses: every getenv("RAWGPU_...") and every logging tag in the tree must be listed,
and every listed one must be used somewhere (so the list neither misses nor keeps stale entries).

usage: check_registry.py SOURCE_ROOT RAWGPU_EXE
"""
import os
import re
import subprocess
import sys

root, exe = sys.argv[1], sys.argv[2]
DIRS = ["base", "memory", "drivers", "queues", "runtime", "compiler", "frontend", "sim", "tools"]
env_re = re.compile(r'(?:getenv|read_u64|read_flag)\(\s*"(RAWGPU_[A-Z0-9_]+)"')
tag_re = re.compile(r'(?:RG_LOG|RG_WARN|log::enabled|log::writef|log::write)\(\s*"([a-z0-9_.-]+)"')
const_tag_re = re.compile(r'\bkTag\w*\s*=\s*"([a-z0-9_.-]+)"')
used_env, used_tags = {}, {}
for d in DIRS:
    for dirpath, _, files in os.walk(os.path.join(root, d)):
        for f in files:
            if not f.endswith((".cpp", ".h")) or f == "env.cpp":
                continue
            path = os.path.join(dirpath, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            for m in env_re.finditer(text):
                used_env.setdefault(m.group(1), os.path.relpath(path, root))
            if os.path.basename(dirpath) == "base" and f == "log.cpp":
                continue
            for m in list(tag_re.finditer(text)) + list(const_tag_re.finditer(text)):
                used_tags.setdefault(m.group(1), os.path.relpath(path, root))

out = subprocess.run([exe, "--help"], capture_output=True, text=True, check=True).stdout
env_part = out.split("\nenvironment:\n", 1)[1].split("\nRAWGPU_DEBUG tags:\n", 1)
listed_env = set(re.findall(r"^  (RAWGPU_[A-Z0-9_]+)=", env_part[0], re.M))
listed_tags = set(re.findall(r"^  ([a-z0-9_.-]+) ", env_part[1], re.M))

errors = []
for v, where in sorted(used_env.items()):
    if v not in listed_env:
        errors.append(f"{where} reads {v}, which `rawgpu --help` does not list (base/env.cpp)")
for v in sorted(listed_env - set(used_env)):
    errors.append(f"`rawgpu --help` lists {v}, which nothing reads")
for t, where in sorted(used_tags.items()):
    if t not in listed_tags:
        errors.append(f"{where} logs under tag '{t}', which is not in log::known_tags()")
for t in sorted(listed_tags - set(used_tags)):
    errors.append(f"log::known_tags() has '{t}', which nothing logs under")
if len(used_env) < 10 or len(used_tags) < 5:
    errors.append(f"scan found only {len(used_env)} variables and {len(used_tags)} tags: "
                  "the patterns no longer match the source")
for e in errors:
    print(e)
print(f"{len(used_env)} variables, {len(used_tags)} tags checked")
sys.exit(1 if errors else 0)
