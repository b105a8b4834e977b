#include "rawgpu/memory/trace.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/base/parse.h"
#include "rawgpu/memory/tlsf.h"

namespace rawgpu::memory {

Result<Trace> parse_trace(std::string_view text) {
  Trace t;
  std::unordered_map<uint64_t, uint32_t> live;  // trace ID -> slot
  std::vector<uint32_t> free_slots;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    std::vector<std::string_view> f;
    for (size_t i = 0; i < line.size();) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (j > i) f.push_back(line.substr(i, j - i));
      i = j;
    }
    if (f.empty()) continue;
    auto fail = [&](const std::string& what) {
      return make_error(Errc::kParse, "trace line %zu: %s", line_no, what.c_str());
    };
    auto num = [&](std::string_view s, bool size) -> Result<uint64_t> {
      auto v = size ? parse_size(s) : parse_u64(s);
      if (!v.ok()) return fail(v.error().message());
      return *v;
    };
    if (f[0] == "a" && f.size() == 4) {
      const uint64_t id = RG_TRY(num(f[1], false));
      TraceOp op;
      op.alloc = true;
      op.size = RG_TRY(num(f[2], true));
      op.align = RG_TRY(num(f[3], true));
      if (live.count(id))
        return fail(
            strformat("ID %llu allocated while still live", static_cast<unsigned long long>(id)));
      if (!free_slots.empty()) {
        op.slot = free_slots.back();
        free_slots.pop_back();
      } else {
        op.slot = t.slots++;
      }
      live[id] = op.slot;
      t.ops.push_back(op);
    } else if (f[0] == "f" && f.size() == 2) {
      const uint64_t id = RG_TRY(num(f[1], false));
      auto it = live.find(id);
      if (it == live.end())
        return fail(
            strformat("free of ID %llu, which is not live", static_cast<unsigned long long>(id)));
      TraceOp op;
      op.slot = it->second;
      free_slots.push_back(it->second);
      live.erase(it);
      t.ops.push_back(op);
    } else {
      return fail("expected 'a ID SIZE ALIGN' or 'f ID', got '" + std::string(line) + "'");
    }
  }
  return t;
}

std::string generate_trace(uint64_t ops, uint64_t arena, uint64_t seed, double target_fill) {
  std::mt19937_64 rng(seed);
  std::string out;
  out.reserve(ops * 20);
  out += strformat("# rawgpu TLSF trace: %llu ops, arena %s, seed %llu\n",
                   static_cast<unsigned long long>(ops), format_bytes(arena).c_str(),
                   static_cast<unsigned long long>(seed));
  std::vector<std::pair<uint64_t, uint64_t>> live;  // id, size
  uint64_t next_id = 0, used = 0;
  for (uint64_t i = 0; i < ops; ++i) {
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
  return out;
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
