#include "rawgpu/memory/trace.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>
#include <random>
#include <unordered_map>

#include "rawgpu/base/file.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/parse.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::memory {

struct TraceParser::State {
  Trace t;
  std::unordered_map<uint64_t, uint32_t> live;  // trace ID -> slot
  std::vector<uint32_t> free_slots;
  std::string partial;  // a line not yet ended by '\n'
  size_t line_no = 0;
  std::optional<Error> failed;
};

TraceParser::TraceParser() : s_(std::make_unique<State>()) {}
TraceParser::~TraceParser() = default;
TraceParser::TraceParser(TraceParser&&) noexcept = default;
TraceParser& TraceParser::operator=(TraceParser&&) noexcept = default;

Status TraceParser::line(std::string_view line) {
  State& st = *s_;
  ++st.line_no;
  auto fail = [&](const std::string& what) -> Error {
    return make_error(Errc::kParse, "trace line %zu: %s", st.line_no, what.c_str());
  };
  const std::string_view whole = line;
  if (const size_t hash = line.find('#'); hash != std::string_view::npos)
    line = line.substr(0, hash);
  std::string_view f[5];
  size_t nf = 0;
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i && nf < 5) f[nf] = line.substr(i, j - i);
    nf += j > i;
    i = j;
  }
  if (nf == 0) return ok_status();
  auto num = [&](std::string_view text, bool size) -> Result<uint64_t> {
    auto v = size ? parse_size(text) : parse_u64(text);
    if (!v.ok()) return fail(v.error().message());
    return *v;
  };
  if (st.t.ops.size() >= kMaxTraceOps)
    return make_error(Errc::kOutOfRange, "trace line %zu: more than %llu operations", st.line_no,
                      static_cast<unsigned long long>(kMaxTraceOps));
  if (f[0] == "a" && nf == 4) {
    const uint64_t id = RG_TRY(num(f[1], false));
    TraceOp op;
    op.alloc = true;
    op.size = RG_TRY(num(f[2], true));
    op.align = RG_TRY(num(f[3], true));
    if (st.live.count(id))
      return fail(
          strformat("ID %llu allocated while still live", static_cast<unsigned long long>(id)));
    if (!st.free_slots.empty()) {
      op.slot = st.free_slots.back();
      st.free_slots.pop_back();
    } else {
      op.slot = st.t.slots++;
    }
    st.live[id] = op.slot;
    st.t.ops.push_back(op);
  } else if (f[0] == "f" && nf == 2) {
    const uint64_t id = RG_TRY(num(f[1], false));
    auto it = st.live.find(id);
    if (it == st.live.end())
      return fail(
          strformat("free of ID %llu, which is not live", static_cast<unsigned long long>(id)));
    TraceOp op;
    op.slot = it->second;
    st.free_slots.push_back(it->second);
    st.live.erase(it);
    st.t.ops.push_back(op);
  } else {
    return fail("expected 'a ID SIZE ALIGN' or 'f ID', got " + quote(whole));
  }
  return ok_status();
}

Status TraceParser::feed(std::string_view chunk) {
  State& st = *s_;
  if (st.failed) return *st.failed;
  auto too_long = [&](std::string_view start) -> Error {
    return std::move(make_error(Errc::kOutOfRange,
                                "trace line %zu is longer than %zu bytes (it starts %s...)",
                                st.line_no + 1, kMaxTraceLineBytes,
                                quote(start.substr(0, kMaxQuotedBytes)).c_str())
                         .with_hint("a trace has one short 'a ID SIZE ALIGN' or 'f ID' per line: "
                                    "is this a trace file?"));
  };
  Status r = ok_status();
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, nl);
    if (st.partial.size() + piece.size() > kMaxTraceLineBytes) {
      r = too_long(st.partial.empty() ? piece : std::string_view(st.partial));
      break;
    }
    if (nl == std::string_view::npos) {
      st.partial.append(piece);
      break;
    }
    chunk.remove_prefix(nl + 1);
    if (st.partial.empty()) {
      r = line(piece);
    } else {
      st.partial.append(piece);
      r = line(st.partial);
      st.partial.clear();
    }
    if (!r.ok()) break;
  }
  if (!r.ok()) st.failed = r.error();
  return r;
}

Result<Trace> TraceParser::finish() {
  State& st = *s_;
  if (st.failed) return *st.failed;
  if (!st.partial.empty()) {
    const std::string last = std::move(st.partial);
    st.partial.clear();
    if (Status r = line(last); !r.ok()) {
      st.failed = r.error();
      return std::move(r).take_error();
    }
  }
  Trace t = std::move(st.t);
  *s_ = State{};
  return t;
}

Result<Trace> parse_trace(std::string_view text) {
  TraceParser p;
  RG_TRY(p.feed(text));
  return p.finish();
}

Result<Trace> read_trace(const std::string& path) {
  TraceParser p;
  ReadLimits limits;
  limits.max_bytes = kMaxTraceBytes;
  limits.too_big_hint = "a trace is one short line per operation: is this a trace file?";
  bool parse_failed = false;  // file errors name the path already; parse errors do not
  Status read = read_file_chunks(path, limits, [&](std::string_view c) {
    Status s = p.feed(c);
    parse_failed = !s.ok();
    return s;
  });
  if (!read.ok()) {
    if (!parse_failed) return std::move(read).take_error();
    return std::move(std::move(read).take_error().add_context("in " + path));
  }
  auto t = p.finish();
  if (!t.ok()) return std::move(std::move(t).take_error().add_context("in " + path));
  return t;
}

Status generate_trace(uint64_t ops, uint64_t arena, uint64_t seed,
                      FunctionRef<Status(std::string_view)> sink, double target_fill) {
  if (ops > kMaxTraceOps)
    return std::move(make_error(Errc::kOutOfRange,
                                "cannot generate %llu operations: a trace holds at most %llu",
                                static_cast<unsigned long long>(ops),
                                static_cast<unsigned long long>(kMaxTraceOps))
                         .with_hint("a few million operations measure the allocator well"));
  constexpr size_t kPiece = size_t{1} << 16;
  std::mt19937_64 rng(seed);
  std::string out;
  out.reserve(kPiece + 128);
  out += strformat("# rawgpu TLSF trace: %llu ops, arena %s, seed %llu\n",
                   static_cast<unsigned long long>(ops), format_bytes(arena).c_str(),
                   static_cast<unsigned long long>(seed));
  std::vector<std::pair<uint64_t, uint64_t>> live;  // id, size
  uint64_t next_id = 0, used = 0;
  for (uint64_t i = 0; i < ops; ++i) {
    if (out.size() >= kPiece) {
      RG_TRY(sink(out));
      out.clear();
    }
    const bool want_free =
        !live.empty() && (used > arena * target_fill ? rng() % 4 != 0 : rng() % 5 < 2);
    if (want_free) {
      const size_t k = rng() % live.size();
      out += "f " + std::to_string(live[k].first) + "\n";
      used -= live[k].second;
      live[k] = live.back();
      live.pop_back();
      continue;
    }
    // Sizes: kernargs/constants, small tensors, activations, weights.
    const unsigned bucket = rng() % 100;
    uint64_t size;
    if (bucket < 40)
      size = 256 + rng() % 16384;
    else if (bucket < 75)
      size = 16384 + rng() % (1u << 20);
    else if (bucket < 95)
      size = (1u << 20) + rng() % (32u << 20);
    else
      size = (32u << 20) + rng() % (256u << 20);
    const uint64_t align = uint64_t{256} << (rng() % 14 == 0 ? 13 : rng() % 5);  // 256 B..2 MiB
    out += "a " + std::to_string(next_id) + " " + std::to_string(size) + " " +
           std::to_string(align) + "\n";
    live.push_back({next_id++, size});
    used += size;
  }
  if (!out.empty()) RG_TRY(sink(out));
  return ok_status();
}

Result<std::string> generate_trace(uint64_t ops, uint64_t arena, uint64_t seed,
                                   double target_fill) {
  std::string text;
  RG_TRY(generate_trace(
      ops, arena, seed,
      [&](std::string_view piece) -> Status {
        text.append(piece);
        return ok_status();
      },
      target_fill));
  return text;
}

Status write_trace(const std::string& path, uint64_t ops, uint64_t arena, uint64_t seed,
                   double target_fill) {
  FileWriter w = RG_TRY(FileWriter::create(path));
  RG_TRY(generate_trace(
      ops, arena, seed, [&](std::string_view piece) { return w.write(piece); }, target_fill));
  return w.close();
}

Result<ReplayResult> replay_trace(const Trace& trace, uint64_t arena, int repeats) {
  ReplayResult r;
  r.ops = trace.ops.size();
  TlsfConfig c;
  c.size = arena;
  c.min_block = 256;
  std::vector<uint64_t> addr(trace.slots);
  std::vector<uint8_t> ok(trace.slots);
  std::vector<double> times, cpu_times;
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
  };
  for (int rep = 0; rep < std::max(repeats, 1); ++rep) {
    Tlsf t = RG_TRY(Tlsf::create(c));
    uint64_t failed = 0;
    const double cpu_start = cpu_now();
    const auto start = std::chrono::steady_clock::now();
    for (const TraceOp& op : trace.ops) {
      if (op.alloc) {
        auto a = t.alloc(op.size, op.align);
        ok[op.slot] = a.ok();
        if (a.ok())
          addr[op.slot] = *a;
        else
          ++failed;
      } else if (ok[op.slot]) {
        RG_TRY(t.free(addr[op.slot]));
      }
    }
    const auto end = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::nano>(end - start).count());
    cpu_times.push_back(cpu_now() - cpu_start);
    r.failed_allocs = failed;
  }
  std::sort(times.begin(), times.end());
  std::sort(cpu_times.begin(), cpu_times.end());
  r.ns_per_op = r.ops == 0 ? 0 : times[times.size() / 2] / static_cast<double>(r.ops);
  r.cpu_ns_per_op = r.ops == 0 ? 0 : cpu_times[cpu_times.size() / 2] / static_cast<double>(r.ops);
  // Untimed pass for fragmentation.
  Tlsf t = RG_TRY(Tlsf::create(c));
  for (const TraceOp& op : trace.ops) {
    if (op.alloc) {
      auto a = t.alloc(op.size, op.align);
      ok[op.slot] = a.ok();
      if (a.ok()) addr[op.slot] = *a;
    } else if (ok[op.slot]) {
      RG_TRY(t.free(addr[op.slot]));
    }
    const TlsfStats s = t.stats();
    r.peak_fragmentation = std::max(r.peak_fragmentation, s.fragmentation());
    r.peak_used = std::max(r.peak_used, s.used);
  }
  return r;
}

}  // namespace rawgpu::memory
