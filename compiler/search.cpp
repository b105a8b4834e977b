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
#include <mutex>
#include <unordered_set>

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

struct Candidate {
  OptKernel kernel;
  double us = 0;
};

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
        b = std::make_unique<CpuBuffer>(t, size_t(n));
        fill_ones(*b);
      }
      out[i] = b.get();
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<CpuBuffer>> bufs_;
};

// Compiles and times one kernel AST: `warmup` untimed then `repeats` timed launches, the minimum
// in microseconds. Every launch is measured; once `limit_s` (compile + runs) has passed, the
// best timed run so far is the answer (a warm-up run stands in when no timed run finished), so a
// slow kernel still gets a time; only a compile slower than `limit_s` fails (kTimeout). A
// candidate clearly slower than `best_us` (give_up_factor) stops after its first timed run.
Result<double> time_candidate(Ref ast, CpuRuntime& rt, Scratch& scratch, const BeamOptions& o,
                              double best_us, double limit_s) {
  const auto start = Clock::now();
  const CpuKernel* k = RG_TRY(rt.compile(ast));
  auto bufs = RG_TRY(scratch.for_kernel(*k));
  if (seconds_since(start) > limit_s)
    return make_error(Errc::kTimeout, "beam: compiling %s took longer than %.1f s", k->name.c_str(),
                      limit_s);
  const int warmup = std::max(0, o.warmup), repeats = std::max(1, o.repeats);
  double best = 1e300, warm_best = 1e300;
  for (int i = 0; i < warmup + repeats; ++i) {
    const auto t0 = Clock::now();
    RG_TRY(rt.launch(*k, bufs, {}));
    const double us = seconds_since(t0) * 1e6;
    (i < warmup ? warm_best : best) = std::min(i < warmup ? warm_best : best, us);
    if (seconds_since(start) > limit_s) break;
    if (i >= warmup && best_us > 0 && best > o.give_up_factor * best_us) break;  // clearly worse
  }
  return best < 1e300 ? best : warm_best;
}

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
  if (o.width < 1 || o.width > 64)
    return make_error(Errc::kInvalidArgument, "beam: width %d is not 1..64", o.width);
  OptKernel base = RG_TRY(OptKernel::create(sink));
  BeamResult r;
  r.ast = sink;
  if (has_variables(sink)) {
    RG_LOG("beam", 1, "beam: kernel %s has variables; not searched", sink->hash().hex().c_str());
    return r;
  }
  const bool progress = o.progress;
  const std::string kernel_tag = o.kernel_count > 0
                                     ? strformat("kernel %d/%d", o.kernel_index + 1, o.kernel_count)
                                     : std::string("kernel");

  // Cache lookup: replay validates (an entry the optimizer refuses is ignored).
  std::optional<BeamCache> cache;
  if (o.use_cache) {
    const char* off = std::getenv("RAWGPU_BEAM_CACHE");
    const std::string dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
    if (!(off && std::string_view(off) == "0") && !dir.empty())
      cache.emplace(dir, rt.device(), o.width);
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
  Scratch scratch;
  r.base_us = RG_TRY_CTX(time_candidate(sink, rt, scratch, o, 0, 1e30),  // no limit: it runs anyway
                         "beam: timing the unoptimized kernel");
  count(&BeamStats::candidates);
  r.candidates = 1;
  std::vector<Candidate> beam{{base, r.base_us}};
  Candidate best = beam[0];
  std::unordered_set<uint64_t> seen{sink->hash().lo};
  {
    const Ref a0 = base.ast();
    seen.insert(a0->hash().lo);
  }
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
  for (int round = 0; round < o.max_rounds; ++round) {
    std::vector<Candidate> timed;
    for (const Candidate& entry : beam) {
      for (const Opt& action : o.actions.empty() ? beam_actions() : o.actions) {
        Candidate c{entry.kernel, 0};
        if (!c.kernel.apply(action).ok()) {
          ++r.illegal;
          continue;
        }
        const Ref ast = c.kernel.ast();
        if (!seen.insert(ast->hash().lo).second) continue;  // this kernel was timed already
        auto t = time_candidate(ast, rt, scratch, o, best.us, o.candidate_time_limit_s);
        ++r.candidates;
        count(&BeamStats::candidates);
        if (!t.ok()) {
          ++r.failed;
          RG_LOG("beam", 2, "beam: candidate %s skipped: %s", opts_text(c.kernel.applied()).c_str(),
                 t.error().to_string().c_str());
          continue;
        }
        c.us = *t;
        RG_LOG("beam", 3, "beam: %s: %.2f us", opts_text(c.kernel.applied()).c_str(), c.us);
        timed.push_back(std::move(c));
        show(false);
      }
    }
    r.rounds = round + 1;
    if (timed.empty()) break;
    std::sort(timed.begin(), timed.end(),
              [](const Candidate& a, const Candidate& b) { return a.us < b.us; });
    const bool improved = timed[0].us < best.us * (1.0 - o.min_improvement);
    if (timed[0].us < best.us) best = timed[0];
    // The next beam: the `width` fastest of this round (the best so far stays the answer).
    if (timed.size() > size_t(o.width)) timed.resize(size_t(o.width));
    beam = std::move(timed);
    show(true);
    if (!improved) break;
  }
  if (tty) std::fputc('\n', stderr);
  r.opts = best.kernel.applied();
  r.best_us = best.us;
  r.ast = r.opts.empty() ? sink : best.kernel.ast();
  RG_LOG("beam", 1, "beam: %s: %s, %.2f us (unoptimized %.2f us), %d candidates in %d rounds",
         kernel_tag.c_str(), opts_text(r.opts).c_str(), r.best_us, r.base_us, r.candidates,
         r.rounds);
  if (cache)
    if (auto st = cache->store(sink->hash(), r.opts, r.best_us); !st.ok())
      warn(st.error().to_string());
  return r;
}

}  // namespace rawgpu::compiler
