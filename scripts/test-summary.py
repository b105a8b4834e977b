#!/usr/bin/env python3
"""Prints one summary line for a meson test run: GoogleTest cases (from the gtest XML reports
meson writes for protocol 'gtest' tests) plus the other meson tests, e.g.

    tests: 183 passed, 0 failed, 2 skipped (gtest cases in 3 suites + 6 other tests)

usage: test-summary.py BUILD_DIR [LABEL]
Exit status 1 if anything failed or nothing ran.
"""
import json
import pathlib
import sys
import xml.etree.ElementTree as ET


def main() -> int:
    build = pathlib.Path(sys.argv[1])
    label = sys.argv[2] if len(sys.argv) > 2 else "tests"
    log = build / "meson-logs" / "testlog.json"
    if not log.exists():
        print(f"{label}: 0 passed, 1 failed (no test log in {build})")
        return 1
    passed = failed = skipped = 0
    gtest_suites = other = 0
    failed_names = []
    for line in log.read_text().splitlines():
        t = json.loads(line)
        name = t["name"].split(" / ")[-1]
        xml = build / f"{name}.xml"
        # Only a report written by this run counts (a crashed test leaves an old one behind).
        fresh = xml.exists() and xml.stat().st_mtime >= t.get("starttime", 0) - 1
        if fresh and t["result"] in ("OK", "FAIL", "SKIP"):
            gtest_suites += 1
            root = ET.parse(xml).getroot()
            for case in root.iter("testcase"):
                if case.find("failure") is not None:
                    failed += 1
                    failed_names.append(f"{name}:{case.get('classname')}.{case.get('name')}")
                elif case.get("result") == "skipped" or case.find("skipped") is not None:
                    skipped += 1
                else:
                    passed += 1
            if t["result"] == "FAIL" and not any(n.startswith(name + ":") for n in failed_names):
                failed += 1  # crashed before writing a failure entry
                failed_names.append(f"{name} (exit {t['returncode']})")
            continue
        other += 1
        if t["result"] in ("OK", "EXPECTEDFAIL"):  # EXPECTEDFAIL: a should_fail test that failed
            passed += 1
        elif t["result"] == "SKIP":
            skipped += 1
        else:
            failed += 1
            failed_names.append(f"{t['name']} ({t['result']})")
    for n in failed_names:
        print(f"FAILED: {n}")
    # Counts for .ci/run's overall line.
    (build / "meson-logs" / "summary.counts").write_text(f"{passed} {failed} {skipped}\n")
    print(f"{label}: {passed} passed, {failed} failed, {skipped} skipped")
    print(f"  ({gtest_suites} GoogleTest suites counted per case, {other} other tests)")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
