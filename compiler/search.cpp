// BEAM search over opt actions and the on-disk cache of its results (search.h).
#include "rawgpu/compiler/search.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "rawgpu/base/env.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "version.h"

namespace rawgpu::compiler {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::mutex g_stats_mutex;
BeamStats g_stats;
void count(uint64_t BeamStats::* field, uint64_t n = 1) {
  std::lock_guard<std::mutex> l(g_stats_mutex);
  g_stats.*field += n;
}

// Warnings go to stderr unconditionally (a bad cache entry is worth knowing about) and to the
// log at beam=1.
void warn(const std::string& msg) {
  std::fprintf(stderr, "rawgpu: warning: %s\n", msg.c_str());
  RG_LOG("beam", 1, "%s", msg.c_str());
}

// FNV-1a, 64 bits: names the cache file for a (device, version, width) triple. The file itself
// repeats the full key, which load() compares, so a collision is a miss, not a wrong answer.
uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hash_text(const Hash128& h) { return h.hex(); }

// Fills a scratch buffer with ones of its dtype: no division by zero, no denormals, no NaN.
void fill_ones(CpuBuffer& b) {
  const size_t n = b.count();
  auto* p = static_cast<unsigned char*>(b.data());
  const DType t = b.dtype();
  auto fill = [&](const auto v) {
    for (size_t i = 0; i < n; ++i) std::memcpy(p + i * sizeof(v), &v, sizeof(v));
  };
  switch (t) {
    case DType::kFloat32: fill(1.0f); break;
    case DType::kFloat64: fill(1.0); break;
    case DType::kFloat16: fill(float_to_half(1.0f)); break;
    case DType::kBFloat16: fill(float_to_bf16(1.0f)); break;
    default:
      switch (itemsize(t)) {
        case 1: fill(uint8_t{1}); break;
        case 2: fill(uint16_t{1}); break;
        case 4: fill(uint32_t{1}); break;
        case 8: fill(uint64_t{1}); break;
        default: break;
      }
  }
}

bool has_variables(Ref sink) {
  for (Ref n : sink->ctx().toposort(sink))
    if (n->op() == Op::kDefineVar) return true;
  return false;
}

// Scratch buffers by slot, shared by all candidates of one kernel (they read and write the same
// BUFFERs: opts never change a kernel's buffers).
class Scratch {
 public:
  Result<std::vector<CpuBuffer*>> for_kernel(const CpuKernel& k) {
    std::vector<CpuBuffer*> out(k.buffer_dtypes.size(), nullptr);
    if (bufs_.size() < out.size()) bufs_.resize(out.size());
    for (size_t i = 0; i < out.size(); ++i) {
      if (!k.program.buffers[i]) continue;
      const DType t = k.buffer_dtypes[i];
      const int64_t n = k.buffer_counts[i];
      if (n < 0)
        return make_error(Errc::kUnsupported, "beam: buffer slot %zu of %s has no declared size", i,
                          k.name.c_str());
      auto& b = bufs_[i];
      if (!b || b->dtype() != t || b->count() < size_t(n)) {
        // Candidates compiled earlier in the round still point at the old buffer: keep it.
        if (b) retired_.push_back(std::move(b));
        b = std::make_unique<CpuBuffer>(t, size_t(n));
        fill_ones(*b);
      }
      out[i] = b.get();
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<CpuBuffer>> bufs_;
  std::vector<std::unique_ptr<CpuBuffer>> retired_;  // replaced, alive until the search ends
};

// The host CPU: candidates compiled together by CpuRuntime::compile_batch, launched on scratch
// buffers of ones, timed by the wall clock.
class CpuBackend final : public BeamBackend {
 public:
  explicit CpuBackend(CpuRuntime& rt) : rt_(rt) {}
  std::string device() const override { return rt_.device(); }
  const std::vector<Opt>& actions() const override { return beam_actions(); }
  int max_compile_workers() const override { return 16; }  // CpuJit::kMaxSlots
  std::vector<Status> compile(std::span<const BeamCandidate> cands, int workers,
                              std::vector<double>& compile_s) override {
    std::vector<Ref> asts;
    for (const BeamCandidate& c : cands) asts.push_back(c.ast);
    auto ks = rt_.compile_batch(asts, workers);
    std::vector<Status> out;
    kernels_.assign(cands.size(), nullptr);
    bufs_.assign(cands.size(), {});
    compile_s.assign(cands.size(), 0.0);
    for (size_t i = 0; i < ks.size(); ++i) {
      if (!ks[i].ok()) {
        out.push_back(std::move(ks[i]).take_error());
        continue;
      }
      auto b = scratch_.for_kernel(**ks[i]);
      if (!b.ok()) {
        out.push_back(std::move(b).take_error());
        continue;
      }
      kernels_[i] = *ks[i];
      bufs_[i] = std::move(*b);
      compile_s[i] = kernels_[i]->compile_s;
      out.push_back(ok_status());
    }
    return out;
  }
  Result<double> run(size_t i) override {
    if (i >= kernels_.size() || !kernels_[i])
      return make_error(Errc::kInvalidArgument, "beam: candidate %zu was not compiled", i);
    const auto t0 = Clock::now();
    RG_TRY(rt_.launch(*kernels_[i], bufs_[i], {}));
    return seconds_since(t0) * 1e6;
  }

 private:
  CpuRuntime& rt_;
  Scratch scratch_;
  std::vector<const CpuKernel*> kernels_;
  std::vector<std::vector<CpuBuffer*>> bufs_;
};

std::string opts_text(const std::vector<Opt>& opts) {
  std::string s;
  for (const Opt& o : opts) s += (s.empty() ? "" : ", ") + o.to_string();
  return s.empty() ? "(none)" : s;
}

}  // namespace

BeamStats beam_stats() {
  std::lock_guard<std::mutex> l(g_stats_mutex);
  return g_stats;
}

const std::vector<Opt>& beam_actions() {
  static const std::vector<Opt> actions = [] {
    std::vector<Opt> v;
    for (int64_t axis = 0; axis < 8; ++axis)
      for (int64_t amt : {0, 2, 3, 4, 5, 7, 8}) v.push_back({OptOp::kUpcast, axis, amt});
    for (int64_t axis = 0; axis < 8; ++axis)
      for (int64_t amt : {0, 2, 4, 7, 8}) v.push_back({OptOp::kUnroll, axis, amt});
    for (int64_t axis = 0; axis < 3; ++axis)
      for (int64_t amt : {2, 3, 4, 8, 16, 32}) v.push_back({OptOp::kThread, axis, amt});
    for (int64_t a = 0; a < 5; ++a)
      for (int64_t b = a + 1; b < 5; ++b) v.push_back({OptOp::kSwap, a, b});
    return v;
  }();
  return actions;
}

const std::vector<Opt>& gpu_beam_actions() {
  static const std::vector<Opt> actions = [] {
    std::vector<Opt> v;
    for (int64_t axis = 0; axis < 3; ++axis)
      for (int64_t amt : {2, 4, 8, 16, 32}) v.push_back({OptOp::kLocal, axis, amt});
    for (int64_t axis = 0; axis < 4; ++axis)
      for (int64_t amt : {8, 16, 32}) {
        v.push_back({OptOp::kGroup, axis, amt});
        v.push_back({OptOp::kGroupTop, axis, amt});
      }
    for (int64_t axis = 0; axis < 4; ++axis)
      for (int64_t amt : {0, 2, 4}) v.push_back({OptOp::kUpcast, axis, amt});
    for (int64_t axis = 0; axis < 4; ++axis)
      for (int64_t amt : {0, 2, 4}) v.push_back({OptOp::kUnroll, axis, amt});
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = a + 1; b < 3; ++b) v.push_back({OptOp::kSwap, a, b});
    v.push_back({OptOp::kNoLocals, 0, 0});
    v.push_back({OptOp::kTc, 0, 0});
    return v;
  }();
  return actions;
}

std::unique_ptr<BeamBackend> cpu_beam_backend(CpuRuntime& rt) {
  return std::make_unique<CpuBackend>(rt);
}

Result<int> beam_width_from_env() {
  const char* e = std::getenv("RAWGPU_BEAM");
  if (!e || !*e) return 0;
  char* end = nullptr;
  const long v = std::strtol(e, &end, 10);
  if (*end || v < 0 || v > 64)
    return make_error(Errc::kInvalidArgument,
                      "RAWGPU_BEAM='%s' is not a beam width 0..64 (0 or unset: no search)", e);
  return int(v);
}

Result<double> beam_budget_from_env() {
  const char* e = std::getenv("RAWGPU_BEAM_BUDGET");
  if (!e || !*e) return 0.0;
  char* end = nullptr;
  const double v = std::strtod(e, &end);
  if (*end || !(v >= 0) || v > 1e9)
    return make_error(Errc::kInvalidArgument,
                      "RAWGPU_BEAM_BUDGET='%s' is not a number of seconds >= 0 (0 or unset: no "
                      "budget)",
                      e);
  return v;
}

std::string default_cache_dir() {
  if (const char* e = std::getenv("RAWGPU_CACHE_DIR"); e && *e) return e;
  if (const char* e = std::getenv("XDG_CACHE_HOME"); e && *e) return std::string(e) + "/rawgpu";
  if (const char* e = std::getenv("HOME"); e && *e) return std::string(e) + "/.cache/rawgpu";
  return "";
}

// ---- cache ----------------------------------------------------------------------------------

BeamCache::BeamCache(std::string root, std::string device, int width)
    : root_(std::move(root)), device_(std::move(device)), width_(width) {}

std::string BeamCache::path(const Hash128& h) const {
  const uint64_t k = fnv1a(device_ + "\n" + std::string(kBeamCacheVersion) +
                           "\n" RAWGPU_VERSION "\n" + std::to_string(width_));
  return strformat("%s/beam/%s-%016llx.txt", root_.c_str(), hash_text(h).c_str(),
                   static_cast<unsigned long long>(k));
}

// Format (text, one field per line):
//   rawgpu-beam <kBeamCacheVersion>
//   version <RAWGPU_VERSION>
//   device <device>
//   width <n>
//   kernel <32 hex digits>
//   time_us <double>
//   opt <Opt::to_string()>        (zero or more)
//   end
std::optional<std::pair<std::vector<Opt>, double>> BeamCache::load(const Hash128& h) const {
  const std::string p = path(h);
  std::ifstream in(p);
  if (!in) return std::nullopt;
  auto reject = [&](const std::string& why) -> std::optional<std::pair<std::vector<Opt>, double>> {
    warn("ignoring BEAM cache entry " + p + ": " + why + " (it will be searched again)");
    count(&BeamStats::cache_rejects);
    return std::nullopt;
  };
  std::string line;
  auto expect = [&](std::string_view key, const std::string& want) -> std::optional<std::string> {
    if (!std::getline(in, line)) return "truncated before '" + std::string(key) + "'";
    if (line.rfind(std::string(key) + " ", 0) != 0)
      return "expected '" + std::string(key) + "', got '" + line.substr(0, 40) + "'";
    const std::string v = line.substr(key.size() + 1);
    if (!want.empty() && v != want)
      return std::string(key) + " is '" + v.substr(0, 80) + "', expected '" + want + "'";
    return std::nullopt;
  };
  if (auto e = expect("rawgpu-beam", std::string(kBeamCacheVersion))) return reject(*e);
  if (auto e = expect("version", RAWGPU_VERSION)) return reject(*e);
  if (auto e = expect("device", device_)) return reject(*e);
  if (auto e = expect("width", std::to_string(width_))) return reject(*e);
  if (auto e = expect("kernel", hash_text(h))) return reject(*e);
  if (auto e = expect("time_us", "")) return reject(*e);
  char* end = nullptr;
  const std::string ts = line.substr(8);
  const double t = std::strtod(ts.c_str(), &end);
  if (ts.empty() || *end || !(t >= 0)) return reject("bad time_us '" + ts.substr(0, 40) + "'");
  std::vector<Opt> opts;
  bool ended = false;
  while (std::getline(in, line)) {
    if (line == "end") {
      ended = true;
      break;
    }
    if (line.rfind("opt ", 0) != 0) return reject("unexpected line '" + line.substr(0, 40) + "'");
    auto o = parse_opt(line.substr(4));
    if (!o.ok()) return reject(o.error().to_string());
    opts.push_back(*o);
    if (opts.size() > 64) return reject("more than 64 opts");
  }
  if (!ended) return reject("truncated (no 'end' line)");
  return std::make_pair(std::move(opts), t);
}

Status BeamCache::store(const Hash128& h, const std::vector<Opt>& opts, double best_us) const {
  namespace fs = std::filesystem;
  const std::string p = path(h);
  std::error_code ec;
  fs::create_directories(fs::path(p).parent_path(), ec);
  if (ec)
    return make_error(Errc::kIo, "beam cache: cannot create %s: %s",
                      fs::path(p).parent_path().c_str(), ec.message().c_str());
  static std::atomic<uint64_t> seq{0};
  const std::string tmp =
      strformat("%s.tmp.%d.%llu", p.c_str(), int(getpid()), static_cast<unsigned long long>(++seq));
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "rawgpu-beam " << kBeamCacheVersion << "\nversion " RAWGPU_VERSION "\ndevice " << device_
        << "\nwidth " << width_ << "\nkernel " << hash_text(h) << "\n"
        << strformat("time_us %.6g\n", best_us);
    for (const Opt& o : opts) out << "opt " << o.to_string() << "\n";
    out << "end\n";
    out.flush();
    if (!out.good()) {
      fs::remove(tmp, ec);
      return make_error(Errc::kIo, "beam cache: cannot write %s", tmp.c_str());
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    std::error_code ec2;
    fs::remove(tmp, ec2);
    return make_error(Errc::kIo, "beam cache: cannot rename %s to %s: %s", tmp.c_str(), p.c_str(),
                      ec.message().c_str());
  }
  return ok_status();
}

// ---- search ---------------------------------------------------------------------------------

Result<BeamResult> beam_search(Ref sink, CpuRuntime& rt, const BeamOptions& o) {
  CpuBackend backend(rt);
  return beam_search(sink, backend, o);
}

Result<BeamResult> beam_search(Ref sink, BeamBackend& backend, const BeamOptions& o) {
  if (o.width < 1 || o.width > 64)
    return make_error(Errc::kInvalidArgument, "beam: width %d is not 1..64", o.width);
  OptKernel base = RG_TRY(OptKernel::create(sink));
  BeamResult r;
  r.ast = sink;
  if (has_variables(sink)) {
    RG_LOG("beam", 1, "beam: kernel %s has variables; not searched", sink->hash().hex().c_str());
    return r;
  }
  const auto search_start = Clock::now();
  const bool progress = o.progress;
  const std::string kernel_tag = o.kernel_count > 0
                                     ? strformat("kernel %d/%d", o.kernel_index + 1, o.kernel_count)
                                     : std::string("kernel");

  // Cache lookup: replay validates (an entry the optimizer refuses is ignored).
  std::optional<BeamCache> cache;
  if (o.use_cache) {
    const std::string dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
    if (env::read_flag("RAWGPU_BEAM_CACHE", true) && !dir.empty())
      cache.emplace(dir, backend.device(), o.width);
  }
  if (cache) {
    if (auto hit = cache->load(sink->hash())) {
      OptKernel k = base;
      if (auto st = k.apply_all(hit->first); !st.ok()) {
        warn("ignoring BEAM cache entry " + cache->path(sink->hash()) +
             ": its opts do not replay on this kernel: " + st.error().to_string());
        count(&BeamStats::cache_rejects);
      } else {
        count(&BeamStats::cache_hits);
        r.from_cache = true;
        r.opts = hit->first;
        r.best_us = hit->second;
        r.ast = r.opts.empty() ? sink : k.ast();
        RG_LOG("beam", 1, "beam: %s cache hit: %s", kernel_tag.c_str(), opts_text(r.opts).c_str());
        if (progress)
          std::fprintf(stderr, "BEAM %s: cached (%s)\n", kernel_tag.c_str(),
                       opts_text(r.opts).c_str());
        return r;
      }
    }
  }

  count(&BeamStats::searches);
  const bool deterministic = bool(o.cost) || backend.deterministic();
  const int warmup = deterministic ? 0 : std::max(0, o.warmup);
  const int repeats = deterministic ? 1 : std::max(1, o.repeats);
  r.compile_workers = std::clamp(
      o.compile_workers > 0 ? o.compile_workers : int(std::thread::hardware_concurrency()), 1,
      std::max(1, std::min(o.compile_workers > 0 ? 64 : 8, backend.max_compile_workers())));
  auto over_budget = [&] { return o.budget_s > 0 && seconds_since(search_start) > o.budget_s; };

  struct Candidate {
    OptKernel kernel;
    double us = 0;
    size_t order = 0;  // position in the round's expansion (the tie-break)
  };
  // Compiles `batch` (one compile phase) and times the compiled ones serially in order; the
  // timed ones go to `timed`. `limits`: false for the unoptimized kernel (no time limits).
  // Returns the error of candidate 0 when it failed (used for the unoptimized kernel).
  Candidate best{base, 0};
  auto compile_and_time = [&](std::vector<Candidate>& batch, std::vector<Candidate>& timed,
                              bool limits, const std::function<void()>& shown) -> Status {
    std::vector<BeamCandidate> cands;
    std::vector<Ref> asts;
    for (const Candidate& c : batch) asts.push_back(c.kernel.ast());
    for (size_t i = 0; i < batch.size(); ++i) cands.push_back({&batch[i].kernel, asts[i]});
    std::vector<double> compile_s(batch.size(), 0.0);
    const auto c0 = Clock::now();
    std::vector<Status> st = backend.compile(cands, r.compile_workers, compile_s);
    r.compile_s += seconds_since(c0);
    if (st.size() != batch.size())
      return make_error(Errc::kInternal, "beam: backend compiled %zu of %zu candidates", st.size(),
                        batch.size());
    Status first = ok_status();
    const auto t0 = Clock::now();
    for (size_t i = 0; i < batch.size(); ++i) {
      Candidate& c = batch[i];
      if (limits && over_budget()) {  // the rest is never timed: not counted as candidates
        r.budget_exhausted = true;
        break;
      }
      ++r.candidates;
      count(&BeamStats::candidates);
      auto fail = [&](const Error& e) {
        ++r.failed;
        if (i == 0) first = e;
        RG_LOG("beam", 2, "beam: candidate %s skipped: %s", opts_text(c.kernel.applied()).c_str(),
               e.to_string().c_str());
      };
      if (!st[i].ok()) {
        fail(st[i].error());
        continue;
      }
      if (limits && compile_s[i] > o.compile_time_limit_s) {
        fail(Error(Errc::kTimeout, strformat("beam: compile took %.3f s, over the limit of %.3f s",
                                             compile_s[i], o.compile_time_limit_s)));
        continue;
      }
      double t_best = 1e300, w_best = 1e300;
      std::optional<Error> err;
      RG_LOG("beam", 4, "beam: launching %s", opts_text(c.kernel.applied()).c_str());
      for (int k = 0; k < warmup + repeats; ++k) {
        const auto l0 = Clock::now();
        Result<double> t = o.cost ? o.cost(c.kernel) : backend.run(i);
        const double wall_s = seconds_since(l0);
        if (!t.ok()) {
          err = std::move(t).take_error();
          if (auto h = backend.healthy(); !h.ok()) {
            r.failed += 1;
            return std::move(h).take_error().with_context(
                strformat("beam: launching %s", opts_text(c.kernel.applied()).c_str()));
          }
          break;
        }
        const double us = *t;
        if (limits && std::max(wall_s, us * 1e-6) > o.candidate_time_limit_s) {
          err = Error(Errc::kTimeout,
                      strformat("beam: a launch took %.3f s (cost %.1f us), over the limit of "
                                "%.3f s",
                                wall_s, us, o.candidate_time_limit_s));
          break;
        }
        if (k < warmup) {
          w_best = std::min(w_best, us);
          continue;
        }
        t_best = std::min(t_best, us);
        if (best.us > 0 && t_best > o.give_up_factor * best.us) break;  // clearly worse
      }
      if (err) {
        fail(*err);
        continue;
      }
      c.us = t_best < 1e300 ? t_best : w_best;
      RG_LOG("beam", 3, "beam: %s: %.2f us", opts_text(c.kernel.applied()).c_str(), c.us);
      timed.push_back(c);
      shown();
    }
    r.time_s += seconds_since(t0);
    return first;
  };

  // On a terminal one line updated in place per candidate; otherwise (RAWGPU_DEBUG=beam=1 into
  // a file or pipe) one line per round.
  const bool tty = progress && isatty(2);
  auto show = [&](bool round_done) {
    if (!progress || (!tty && !round_done)) return;
    std::fprintf(stderr,
                 "%sBEAM %s: round %d, %d candidates (%d failed), best %.1f us (base %.1f us)%s",
                 tty ? "\r" : "", kernel_tag.c_str(), r.rounds, r.candidates, r.failed, best.us,
                 r.base_us, tty ? "" : "\n");
    std::fflush(stderr);
  };

  // A candidate is its AST plus the launch options the opts carry (LOCAL/GROUP/TC change
  // GpuOptions, not necessarily the AST).
  auto key = [](const OptKernel& k) {
    const GpuOptions g = k.gpu_options();
    std::string s = k.ast()->hash().hex();
    for (int64_t l : g.local) s += strformat(" %lld", static_cast<long long>(l));
    s += strformat("|%lld|%d", static_cast<long long>(g.group), int(g.tensor_cores));
    return s;
  };
  std::unordered_set<std::string> seen{key(base)};
  std::vector<Candidate> beam;
  {
    // The unoptimized kernel (candidate 0, the fallback) and the seeds.
    std::vector<Candidate> batch{{base, 0}}, timed;
    for (const std::vector<Opt>& seed : o.seeds) {
      Candidate c{base, 0};
      if (!c.kernel.apply_all(seed).ok()) {
        ++r.illegal;
        continue;
      }
      if (!seen.insert(key(c.kernel)).second) continue;
      c.order = batch.size();
      batch.push_back(std::move(c));
    }
    RG_TRY_CTX(compile_and_time(batch, timed, false, [] {}), "beam: timing the unoptimized kernel");
    if (timed.empty() || timed[0].order != 0)
      return make_error(Errc::kInternal, "beam: the unoptimized kernel was not timed");
    best = timed[0];
    r.base_us = best.us;
    std::sort(timed.begin(), timed.end(), [](const Candidate& a, const Candidate& b) {
      return a.us < b.us || (a.us == b.us && a.order < b.order);
    });
    best = timed[0];
    if (timed.size() > size_t(o.width)) timed.resize(size_t(o.width));
    beam = std::move(timed);
  }
  for (int round = 0; round < o.max_rounds && !over_budget(); ++round) {
    // Expand: every beam entry by every action, in order; duplicates dropped.
    std::vector<Candidate> batch;
    for (const Candidate& entry : beam) {
      for (const Opt& action : o.actions.empty() ? backend.actions() : o.actions) {
        Candidate c{entry.kernel, 0};
        if (!c.kernel.apply(action).ok()) {
          ++r.illegal;
          continue;
        }
        if (!seen.insert(key(c.kernel)).second) continue;  // seen already
        c.order = batch.size();
        batch.push_back(std::move(c));
      }
    }
    r.rounds = round + 1;
    if (batch.empty()) break;
    if (progress && tty) {
      std::fprintf(stderr, "\rBEAM %s: round %d, compiling %zu candidates on %d thread(s)",
                   kernel_tag.c_str(), r.rounds, batch.size(), r.compile_workers);
      std::fflush(stderr);
    }
    std::vector<Candidate> timed;
    if (auto st = compile_and_time(batch, timed, true, [&] { show(false); });
        !st.ok() && !backend.healthy().ok())
      return std::move(st).take_error();  // the device stopped: no result, nothing cached
    if (timed.empty()) break;
    // Equal times keep expansion order, so equal timings give equal choices.
    std::sort(timed.begin(), timed.end(), [](const Candidate& a, const Candidate& b) {
      return a.us < b.us || (a.us == b.us && a.order < b.order);
    });
    const bool improved = timed[0].us < best.us * (1.0 - o.min_improvement);
    if (timed[0].us < best.us) best = timed[0];
    // The next beam: the `width` fastest of this round (the best so far stays the answer).
    if (timed.size() > size_t(o.width)) timed.resize(size_t(o.width));
    beam = std::move(timed);
    show(true);
    if (!improved) break;
  }
  if (over_budget()) r.budget_exhausted = true;
  if (tty) std::fputc('\n', stderr);
  r.opts = best.kernel.applied();
  r.best_us = best.us;
  r.ast = r.opts.empty() ? sink : best.kernel.ast();
  RG_LOG("beam", 1,
         "beam: %s: %s, %.2f us (unoptimized %.2f us), %d candidates in %d rounds; compile %.3f s "
         "on %d thread(s), timing %.3f s%s",
         kernel_tag.c_str(), opts_text(r.opts).c_str(), r.best_us, r.base_us, r.candidates,
         r.rounds, r.compile_s, r.compile_workers, r.time_s,
         r.budget_exhausted ? " (budget exhausted)" : "");
  // A search cut short by its budget is not cached: a later run may find better opts.
  if (cache && !r.budget_exhausted)
    if (auto st = cache->store(sink->hash(), r.opts, r.best_us); !st.ok())
      warn(st.error().to_string());
  return r;
}

}  // namespace rawgpu::compiler
