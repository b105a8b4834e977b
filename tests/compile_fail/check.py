#!/usr/bin/env python3
"""Compile-fail tests: every snippet in this folder must be rejected by the compiler, for the
reason named in its `// EXPECT-ERROR: regex` line, while `control.cpp` must compile (so a broken
include path cannot make the test pass).

usage: check.py SNIPPET_DIR INCLUDE_DIR... -- COMPILER [ARGS...]
"""
import pathlib
import re
import subprocess
import sys


def compile_snippet(compiler, includes, path):
    cmd = compiler + ["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror"] + [f"-I{i}" for i in includes] + [str(path)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main() -> int:
    sep = sys.argv.index("--")
    snippet_dir = pathlib.Path(sys.argv[1])
    includes = sys.argv[2:sep]
    compiler = sys.argv[sep + 1:]
    failures = 0
    control = compile_snippet(compiler, includes, snippet_dir / "control.cpp")
    if control.returncode != 0:
        print(f"FAIL control.cpp does not compile:\n{control.stderr}")
        return 1
    print("ok   control.cpp compiles")
    snippets = sorted(p for p in snippet_dir.glob("*.cpp") if p.name != "control.cpp")
    for path in snippets:
        text = path.read_text()
        m = re.search(r"//\s*EXPECT-ERROR:\s*(.+)", text)
        if not m:
            print(f"FAIL {path.name}: no EXPECT-ERROR line")
            failures += 1
            continue
        want = re.compile(m.group(1).strip())
        r = compile_snippet(compiler, includes, path)
        if r.returncode == 0:
            print(f"FAIL {path.name}: compiled, but must not")
            failures += 1
        elif not want.search(r.stderr):
            print(f"FAIL {path.name}: rejected, but not for /{want.pattern}/:\n{r.stderr[:2000]}")
            failures += 1
        else:
            print(f"ok   {path.name} rejected (/{want.pattern}/)")
    print(f"compile-fail: {len(snippets) - failures} of {len(snippets)} snippets rejected as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
