#!/usr/bin/env bash
# Runs rawgpu's whole test suite: installs what is missing, builds, runs every test, prints one
# summary line ("tests: N passed, N failed, N skipped").
#
#   scripts/test.sh              GCC build in build/ (the README's test command)
#   scripts/test.sh --sanitize   clang-19 build with ASan+UBSan in build-asan/, plus a short
#                                libFuzzer run of every fuzz target (FUZZ_SECONDS, default 30)
#   scripts/test.sh --format     clang-format check of the whole tree
#   scripts/test.sh --tsan       clang-19 ThreadSanitizer build in build-tsan/ of the queue suite
#                                and its run with the simulated GPU's device thread
#                                (queues-threaded; ~2 min to build). With TSAN_ALL=1 also the
#                                emulator's parallel workgroups (rdna-threads) and BEAM's compile
#                                workers (search), which need the compiler library (~10 min)
#   scripts/test.sh --upstream   fetch the upstream Debian packages into the autogen cache
#                                (autogen/rawgpu-autogen fetch; ~45 s, ~190 MB the first time,
#                                a no-op after), then the default run: the autogen spot checks,
#                                layout, firmware and regeneration tests then run instead of
#                                reporting SKIPPED
source "$(dirname "$0")/common.sh"
mode=${1:-}
NINJA_TARGETS=()
case "$mode" in
  "")
    ensure_built build
    status=0
    meson test -C build --no-rebuild --print-errorlogs -q || status=$?
    python3 scripts/test-summary.py build tests || status=1
    exit $status
    ;;
  --sanitize)
    # An explicit CXX keeps meson from adding ccache itself: name it when it is installed.
    cxx=clang++-19
    if command -v ccache >/dev/null; then cxx="ccache clang++-19"; fi
    CXX=$cxx ensure_built build-asan -Db_sanitize=address,undefined -Db_lundef=false \
      -Dfuzzing=true -Dbenchmarks=false
    status=0
    # Death tests fork; ASan's abort-on-error keeps their messages on stderr.
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      meson test -C build-asan --no-rebuild --print-errorlogs -q || status=$?
    python3 scripts/test-summary.py build-asan "asan+ubsan tests" || status=1
    secs=${FUZZ_SECONDS:-30}
    # One fuzzer per core at a time (each is single-threaded): the same seconds of fuzzing per
    # target in a fraction of the wall time.
    fuzz_one() {
      local f=$1 name corpus rc=0
      name=$(basename "$f")
      corpus=$(mktemp -d)
      cp -r "tests/fuzz/corpus/${name#fuzz_}/." "$corpus/" 2>/dev/null || true
      "$f" -max_total_time="$secs" -artifact_prefix=build-asan/ "$corpus" >"build-asan/$name.log" 2>&1 || rc=$?
      rm -rf "$corpus"
      if [ $rc -eq 0 ]; then
        echo "fuzz: $name ran ${secs}s without a finding"
      else
        echo "fuzz: $name FAILED (log: build-asan/$name.log)"; tail -30 "build-asan/$name.log"
      fi
      return $rc
    }
    jobs_max=$(nproc)
    running=0
    for f in build-asan/tests/fuzz_*; do
      case "$f" in *_replay|*.p) continue ;; esac
      [ -x "$f" ] || continue
      if [ $running -ge "$jobs_max" ]; then
        wait -n || status=1
        running=$((running - 1))
      fi
      fuzz_one "$f" &
      running=$((running + 1))
    done
    while [ $running -gt 0 ]; do
      wait -n || status=1
      running=$((running - 1))
    done
    exit $status
    ;;
  --tsan)
    cxx=clang++-19
    if command -v ccache >/dev/null; then cxx="ccache clang++-19"; fi
    NINJA_TARGETS=(tests/queues/test_queues)
    tsan_tests=(queues-threaded)
    if [ "${TSAN_ALL:-0}" = 1 ]; then
      NINJA_TARGETS+=(tests/sim/test_rdna_threads tests/compiler/test_search)
      tsan_tests+=(rdna-threads search)
    fi
    CXX=$cxx ensure_built build-tsan -Db_sanitize=thread -Db_lundef=false -Dfuzzing=false \
      -Dbenchmarks=false
    status=0
    # A report makes the test exit with 66 (TSan's default exitcode): it fails.
    TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1 meson test -C build-tsan --no-rebuild \
      --print-errorlogs -q "${tsan_tests[@]}" || status=$?
    python3 scripts/test-summary.py build-tsan "tsan tests" || status=1
    exit $status
    ;;
  --upstream)
    "$RAWGPU_ROOT/scripts/setup-deps.sh"
    python3 "$RAWGPU_ROOT/autogen/rawgpu-autogen" fetch
    # have_upstream_* are decided when meson configures: reconfigure an existing build dir.
    if [ -f build/build.ninja ]; then meson setup --reconfigure build >/dev/null; fi
    ensure_built build
    status=0
    meson test -C build --no-rebuild --print-errorlogs -q || status=$?
    python3 scripts/test-summary.py build "tests (with upstream cache)" || status=1
    exit $status
    ;;
  --format)
    "$RAWGPU_ROOT/scripts/setup-deps.sh"
    exec "$RAWGPU_ROOT/scripts/format.sh" --check
    ;;
  *)
    echo "usage: scripts/test.sh [--sanitize|--tsan|--format|--upstream]" >&2
    exit 2
    ;;
esac
