// BEAM search over the kernel optimizer's opt actions, timed on a device, with an on-disk cache
// of the chosen opts.
//
//   BeamOptions o;  o.width = 2;
//   BeamResult r = RG_TRY(beam_search(sink, runtime, o));        // the CPU (CpuRuntime)
//   BeamResult g = RG_TRY(beam_search(sink, backend, o));        // any BeamBackend (GPU glue)
//   const CpuKernel* k = RG_TRY(runtime.compile(r.ast));
//
// Search: the beam starts as the `width` fastest of {no opts} and BeamOptions::seeds (the CPU
// device seeds the heuristic's opts). Each round expands every beam entry by every action of
// the backend (an entry's applied opts plus one action, replayed on the kernel: illegal ones
// fail with KernelOptError and are skipped), drops candidates whose AST equals one already
// seen, compiles the rest together (BeamBackend::compile: the CPU back end spreads the LLVM work
// over `compile_workers` threads) and then times them one after another on scratch buffers
// (never overlapping; see BeamOptions). The `width` fastest of the round form the next beam
// (ties keep expansion order, so the search is a deterministic function of the timings: any
// number of compile workers chooses the same opts for the same timings). The search stops when
// a round's best is not at least `min_improvement` (relative) faster than the best so far, when
// a round yields no new candidate, after `max_rounds`, or when `budget_s` has passed. Failures of
// a candidate (compile error, launch error, time limit) are counted and skipped, never fatal;
// the unoptimized kernel and the seeds are always candidates, so the result is never slower
// than any of them as measured.
//
// Time limits: a candidate whose compile took longer than `compile_time_limit_s`, or one of
// whose launches took longer than `candidate_time_limit_s` (wall time, or the cost reported
// when that is larger), is dropped, and it gets no further launches. A launch in progress is
// not interrupted (JIT code and emulated dispatches cannot be preempted), so the time a slow
// candidate costs is bounded by its compile limit plus one launch.
//
// Cache (BeamCache): the chosen opts are stored under <dir>/beam/ keyed by the AST's 128-bit
// structural hash (stable across processes, see ir.h), the device string
// (BeamBackend::device(), CpuRuntime::device() on the CPU), the compiler version
// (kBeamCacheVersion) and the width. A lookup replays the stored opts on the kernel; an entry
// that does not parse, names another key/device/version, or does not replay is ignored with a
// warning (RAWGPU_DEBUG=beam=1 also logs hits and misses) and searched again, so a cache entry
// can never produce a kernel the optimizer would not.
//
// Environment: RAWGPU_BEAM=n (0 = off) is read by beam_width_from_env(); the frontend searches
// every kernel it realizes when n > 0 (the CPU and the simulated GPUs). RAWGPU_CACHE_DIR
// overrides the cache root (default $XDG_CACHE_HOME/rawgpu or ~/.cache/rawgpu).
// RAWGPU_BEAM_CACHE=0 disables the cache. RAWGPU_BEAM_BUDGET=s bounds each kernel's search to s
// seconds (a search cut short is not cached). Progress (kernels done/total, round, candidates, best
// time) goes to stderr when stderr is a terminal or RAWGPU_DEBUG enables beam=1.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/ir.h"
#include "rawgpu/compiler/opt.h"

namespace rawgpu::compiler {

// Bumped whenever lowering or code generation changes what an opt list means for speed.
inline constexpr std::string_view kBeamCacheVersion = "beam-cache-4";

struct BeamOptions {
  int width = 2;                  // candidates kept per round (RAWGPU_BEAM)
  int max_rounds = 8;             // opts added at most
  double min_improvement = 0.01;  // stop unless a round beats the best by this fraction
  int warmup = 1;                 // untimed launches per candidate (not on deterministic backends)
  int repeats = 3;  // timed launches; the minimum is the candidate's time (1 when deterministic)
  // Per candidate (see "Time limits" above): a compile slower than compile_time_limit_s, or a
  // launch slower than candidate_time_limit_s, drops it (counted as failed). The unoptimized
  // kernel has no limit: it is the fallback and runs anyway.
  double compile_time_limit_s = 10.0;
  double candidate_time_limit_s = 1.0;
  // A candidate whose first timed run exceeds this multiple of the best time is not repeated.
  double give_up_factor = 3.0;
  // Wall-time budget of one search (0: none): once it has passed no further candidate is
  // compiled or timed and the best so far is the answer (result.budget_exhausted).
  double budget_s = 0;
  // Threads compiling the candidates of a round (0: std::thread::hardware_concurrency(), at most
  // 8). Timing stays serial on the calling thread.
  int compile_workers = 0;
  bool use_cache = true;
  std::string cache_dir;                   // empty: default_cache_dir()
  bool progress = false;                   // print progress lines on stderr
  int kernel_index = 0, kernel_count = 0;  // for the progress line ("kernel 3/7"), 0: omitted
  std::vector<Opt> actions;                // the actions to try; empty: the backend's
  // Starting points timed with the unoptimized kernel before round 1 (a heuristic's opts): the
  // first beam is the `width` fastest of them all, and the result is never slower than any of
  // them as measured. Seeds that do not replay on the kernel are counted as illegal.
  std::vector<std::vector<Opt>> seeds;
  // Replaces the device's timing (tests, tools): called instead of launching a compiled
  // candidate, on the searching thread; returns its cost in microseconds (deterministic: one
  // call per candidate). Candidates are still compiled, so compile failures still count.
  std::function<Result<double>(const OptKernel&)> cost;
};

struct BeamResult {
  Ref ast;                // the optimized kernel AST (the input when no opt helped)
  std::vector<Opt> opts;  // replaying these on the input AST gives `ast`
  double base_us = 0;     // the unoptimized kernel's time (0 on a cache hit: not measured)
  double best_us = 0;     // the chosen kernel's time (as cached on a cache hit)
  bool from_cache = false;
  bool budget_exhausted = false;  // BeamOptions::budget_s ended the search
  int rounds = 0;
  int candidates = 0;       // distinct candidate kernels compiled (incl. the unoptimized one)
  int failed = 0;           // candidates skipped: compile/launch failure or time limit
  int illegal = 0;          // actions refused by the optimizer (KernelOptError)
  int compile_workers = 1;  // threads that compiled the candidates
  double compile_s = 0;     // wall time of the compile phases
  double time_s = 0;        // wall time of the timing phases
};

// What a search compiles and times candidates on. The CPU's is cpu_beam_backend(); the
// frontend's AMD device brings one for GPU targets (timing through its queue, or the emulator's
// cost model on the simulated GPUs).
struct BeamCandidate {
  const OptKernel* kernel;  // the opts applied to the searched AST
  Ref ast;                  // kernel->ast()
};
class BeamBackend {
 public:
  virtual ~BeamBackend() = default;
  // What the timings are valid for: part of the cache key ("cpu:<triple>:...", "sim:gfx1100").
  virtual std::string device() const = 0;
  // The actions tried per beam entry when BeamOptions::actions is empty.
  virtual const std::vector<Opt>& actions() const = 0;
  // True when run() reports the same cost for the same kernel every time (a cost model): the
  // search then launches each candidate once, without warm-up.
  virtual bool deterministic() const { return false; }
  // The most threads compile() can use (BeamResult::compile_workers reports the smaller of this
  // and BeamOptions::compile_workers).
  virtual int max_compile_workers() const { return 1; }
  // Compiles the candidates, using up to `workers` threads if it can (called on the searching
  // thread, which owns the ASTs' Context). Result i: ok, or why candidate i is skipped (a
  // failure never stops the others). `compile_s[i]` receives candidate i's compile time. The
  // compiled candidates stay runnable until the next compile() call.
  virtual std::vector<Status> compile(std::span<const BeamCandidate> candidates, int workers,
                                      std::vector<double>& compile_s) = 0;
  // Launches candidate i of the latest compile() once on scratch buffers (the same ones for
  // every candidate of one search) and returns its cost in microseconds; launches never
  // overlap. Errors skip the candidate.
  virtual Result<double> run(size_t i) = 0;
  // Checked after a failed launch: an error here (the device stopped, e.g. a GPU fault) ends
  // the search with it instead of skipping the candidate, and nothing is cached.
  virtual Status healthy() const { return ok_status(); }
};

// The host CPU through `rt` (its cache key is rt.device()): actions beam_actions(), candidates
// compiled with CpuRuntime::compile_batch, timed as the wall time of CpuRuntime::launch on
// buffers filled with ones.
std::unique_ptr<BeamBackend> cpu_beam_backend(CpuRuntime& rt);

// Process-wide counters (tests use them instead of timing).
struct BeamStats {
  uint64_t searches = 0;       // beam_search calls that searched
  uint64_t cache_hits = 0;     // beam_search calls answered from the disk cache
  uint64_t cache_rejects = 0;  // cache entries ignored (corrupt, foreign, not replayable)
  uint64_t candidates = 0;     // candidate kernels timed
};
BeamStats beam_stats();

// The actions tried per beam entry (CPU device): UPCAST {0,2,3,4,5,7,8} x axes 0-7,
// UNROLL {0,2,4,7,8} x axes 0-7, THREAD {2,3,4,8,16,32} x axes 0-2, SWAP of axis pairs among 0-4.
// LOCAL/GROUP/NOLOCALS/PADTO are not tried on the CPU.
const std::vector<Opt>& beam_actions();
// The actions for GPU targets: LOCAL {2,4,8,16,32} x axes 0-2, GROUP and GROUPTOP {8,16,32} x
// axes 0-3 (GROUPTOP is refused by the optimizer where gpu_lower cannot do it yet), UPCAST
// {0,2,4} x axes 0-3, UNROLL {0,2,4} x axes 0-3, SWAP of axis pairs among 0-2, NOLOCALS, TC.
const std::vector<Opt>& gpu_beam_actions();

// Searches (or finds in the cache) the opts for `sink` and returns the optimized AST. Kernels
// with variables (DEFINE_VAR) are not searched (no launch values to time with): the result is
// the input with no opts. Errors: kInvalidArgument for a sink OptKernel::create rejects or a bad
// width; a failure to time the unoptimized kernel itself (its compile/launch error).
Result<BeamResult> beam_search(Ref sink, BeamBackend& backend, const BeamOptions& options);
// beam_search on cpu_beam_backend(rt).
Result<BeamResult> beam_search(Ref sink, CpuRuntime& rt, const BeamOptions& options);

// RAWGPU_BEAM: 0 when unset or empty. Errors: kInvalidArgument when it is not an integer 0..64.
Result<int> beam_width_from_env();

// RAWGPU_BEAM_BUDGET: the wall-time budget of one kernel's search in seconds (BeamOptions::
// budget_s), 0 when unset or empty. Errors: kInvalidArgument when it is not a number >= 0.
Result<double> beam_budget_from_env();

// $RAWGPU_CACHE_DIR, else $XDG_CACHE_HOME/rawgpu, else $HOME/.cache/rawgpu, else "".
std::string default_cache_dir();

// The on-disk store of chosen opts (exposed for tests and tools).
class BeamCache {
 public:
  BeamCache(std::string root, std::string device, int width);
  // <root>/beam/<hash>-<16 hex digits of the device/version/width key>.txt
  std::string path(const Hash128& h) const;
  // The stored opts and time when the entry exists, parses and names this key; nullopt on a miss
  // (a corrupt or foreign entry also warns and counts as a reject).
  std::optional<std::pair<std::vector<Opt>, double>> load(const Hash128& h) const;
  // Write-to-temporary then rename: readers see the old entry or the new one, never a torn one.
  Status store(const Hash128& h, const std::vector<Opt>& opts, double best_us) const;

 private:
  std::string root_, device_;
  int width_;
};

}  // namespace rawgpu::compiler
