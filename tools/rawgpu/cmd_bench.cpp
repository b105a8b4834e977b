// `rawgpu bench tlsf|pagetable`: speed of the memory/ allocators and page-table manager.
#include <llvm/Support/JSON.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <numeric>
#include <optional>
#include <random>

#include "bench_stats.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/memory/memory_manager.h"
#include "rawgpu/memory/tlsf.h"
#include "rawgpu/memory/trace.h"

namespace rawgpu::tools {

namespace {

using namespace rawgpu::memory;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30, kPage = 4096;

double us_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// The ns per 256 B allocation while filling an empty TLSF to `live` blocks (node-pool growth
// included), median over `rounds` fresh allocators, then the same with `live` blocks held while
// `live`-independent churn (free + alloc of a random block) runs.
struct ScalingPoint {
  uint64_t live = 0;
  double fill_ns = 0;   // per alloc, from empty to `live`
  double churn_ns = 0;  // per free+alloc pair with `live` blocks live
};

Result<ScalingPoint> scaling_point(uint64_t live, int rounds, uint64_t seed) {
  ScalingPoint p;
  p.live = live;
  std::vector<double> fill, churn;
  std::vector<uint64_t> addrs(live);
  std::mt19937_64 rng(seed);
  constexpr uint64_t kChurn = 100'000;
  for (int r = 0; r < rounds; ++r) {
    TlsfConfig c;
    c.base = 0;
    c.size = std::bit_ceil(live * 256 * 2);
    c.min_block = 256;
    auto t = RG_TRY(Tlsf::create(c));
    auto start = Clock::now();
    for (uint64_t i = 0; i < live; ++i) addrs[i] = RG_TRY(t.alloc(256, 256));
    fill.push_back(us_since(start) * 1000.0 / static_cast<double>(live));
    start = Clock::now();
    for (uint64_t i = 0; i < kChurn; ++i) {
      uint64_t& a = addrs[rng() % live];
      RG_TRY(t.free(a));
      a = RG_TRY(t.alloc(256, 256));
    }
    churn.push_back(us_since(start) * 1000.0 / static_cast<double>(kChurn));
  }
  // The fastest round: the cost of the algorithm, least disturbed by other work on the machine.
  p.fill_ns = *std::min_element(fill.begin(), fill.end());
  p.churn_ns = *std::min_element(churn.begin(), churn.end());
  return p;
}

// The allocator's cost must not grow with the number of live blocks: filling to 10^6 blocks may
// cost at most 2x per allocation what filling to 10^4 does (quadratic node-pool growth made it
// ~50x). Churn is reported too; at 10^6 blocks its random accesses miss the caches, so it is
// not held to the same bound.
int bench_tlsf_scaling(const cli::Args& args, cli::Io& io, uint64_t seed) {
  constexpr double kMaxRatio = 2.0;
  auto small = scaling_point(10'000, 31, seed);
  auto big = small.ok() ? scaling_point(1'000'000, 5, seed) : small;
  if (!small.ok() || !big.ok()) {
    io.err << "rawgpu bench tlsf: " << (small.ok() ? big : small).error().to_string() << "\n";
    return cli::kExitFailure;
  }
  const double ratio = big->fill_ns / std::max(small->fill_ns, 1e-3);
  const bool ok = ratio <= kMaxRatio;
  if (args.flag("json")) {
    io.out << json_document("bench tlsf", [&](llvm::json::OStream& j) {
      j.attribute("mode", "scaling");
      j.attributeArray("points", [&] {
        for (const ScalingPoint* p : {&*small, &*big})
          j.object([&] {
            j.attribute("live_blocks", static_cast<int64_t>(p->live));
            j.attribute("fill_ns_per_alloc", p->fill_ns);
            j.attribute("churn_ns_per_pair", p->churn_ns);
          });
      });
      j.attribute("fill_ratio", ratio);
      j.attribute("max_ratio", kMaxRatio);
      j.attribute("pass", ok);
    });
  } else {
    io.out << "TLSF cost against live blocks (256 B allocations, 256 B aligned):\n";
    for (const ScalingPoint* p : {&*small, &*big})
      io.out << strformat("  %8llu live: %7.1f ns/alloc filling, %7.1f ns per free+alloc\n",
                          static_cast<unsigned long long>(p->live), p->fill_ns, p->churn_ns);
    io.out << strformat("  fill cost at 10^6 / at 10^4: %.2fx (limit %.1fx): %s\n", ratio,
                        kMaxRatio, ok ? "ok" : "FAIL");
  }
  if (!ok)
    io.err << strformat(
        "rawgpu bench tlsf: allocation cost grows with the number of live blocks (%.2fx from "
        "10^4 to 10^6, limit %.1fx)\n",
        ratio, kMaxRatio);
  return ok ? cli::kExitOk : cli::kExitFailure;
}

int bench_tlsf(const cli::Args& args, cli::Io& io) {
  auto usage = [&](const std::string& msg) {
    io.err << "rawgpu bench tlsf: " << msg << "\n";
    return cli::kExitUsage;
  };
  auto fail = [&](const Error& e) {
    io.err << "rawgpu bench tlsf: " << e.to_string() << "\n";
    return cli::kExitFailure;
  };
  // Every value first, so that a bad one fails before any work.
  auto seed = args.get_u64("seed");
  if (!seed.ok()) return usage(seed.error().message());
  auto size = args.get_size("size");
  if (!size.ok()) return usage(size.error().message());
  if (*size < 4096) return usage("--size must be at least 4KiB");
  auto repeats = args.get_u64_in("repeats", 1, 100);
  if (!repeats.ok()) return usage(repeats.error().message());
  std::optional<uint64_t> generate;
  if (args.get("generate")) {
    auto n = args.get_u64_in("generate", 1, kMaxTraceOps);
    if (!n.ok()) return usage(n.error().message());
    generate = *n;
  }
  if (args.flag("scaling")) {
    if (args.get("trace") || generate)
      return usage("--scaling measures its own allocations: it takes no --trace or --generate");
    return bench_tlsf_scaling(args, io, *seed);
  }
  const auto path = args.get("trace");
  if (!path) return usage("--trace FILE is required (make one with --generate N), or --scaling");
  if (generate) {
    const uint64_t* n = &*generate;
    if (auto st = write_trace(*path, *n, *size, *seed); !st.ok()) return fail(st.error());
    if (args.flag("json")) {
      io.out << json_document("bench tlsf", [&](llvm::json::OStream& j) {
        j.attribute("mode", "generate");
        j.attribute("trace", *path);
        j.attribute("ops", static_cast<int64_t>(*n));
        j.attribute("seed", static_cast<int64_t>(*seed));
      });
    } else {
      io.out << "wrote " << *n << " operations to " << *path << "\n";
    }
    return cli::kExitOk;
  }
  auto trace = read_trace(*path);
  if (!trace.ok()) return fail(trace.error());
  auto r = replay_trace(*trace, *size, static_cast<int>(*repeats));
  if (!r.ok()) return fail(r.error());
  if (args.flag("json")) {
    io.out << json_document("bench tlsf", [&](llvm::json::OStream& j) {
      j.attribute("mode", "replay");
      j.attribute("trace", *path);
      j.attribute("arena_bytes", static_cast<int64_t>(*size));
      j.attribute("ops", static_cast<int64_t>(r->ops));
      j.attribute("repeats", static_cast<int64_t>(*repeats));
      j.attribute("ns_per_op", r->ns_per_op);
      j.attribute("cpu_ns_per_op", r->cpu_ns_per_op);
      j.attribute("failed_allocs", static_cast<int64_t>(r->failed_allocs));
      j.attribute("peak_fragmentation", r->peak_fragmentation);
      j.attribute("peak_used_bytes", static_cast<int64_t>(r->peak_used));
    });
  } else {
    io.out << strformat("trace %s: %llu ops on a %s arena\n", path->c_str(),
                        static_cast<unsigned long long>(r->ops), format_bytes(*size).c_str())
           << strformat(
                  "  %.1f ns/op wall, %.1f ns/op CPU (median of %llu replays, bookkeeping "
                  "included)\n",
                  r->ns_per_op, r->cpu_ns_per_op, static_cast<unsigned long long>(*repeats))
           << strformat("  failed allocations: %llu\n",
                        static_cast<unsigned long long>(r->failed_allocs))
           << strformat("  peak fragmentation: %.4f (1 - largest free / free)\n",
                        r->peak_fragmentation)
           << strformat("  peak used: %s\n", format_bytes(r->peak_used).c_str());
  }
  return cli::kExitOk;
}

struct PtResult {
  std::string format;
  double map_scattered_us = 0, unmap_scattered_us = 0;
  double map_aligned_us = 0, unmap_aligned_us = 0;
  double valloc_us = 0, vfree_us = 0;
};

Result<PtResult> bench_format(PageTableFormat f, int reps) {
  PtResult r;
  r.format = std::string(format_name(f));
  SparseVram vram(16 * kGiB);
  auto va = RG_TRY(AddressAllocator<GpuVa>::create(GpuVa(0x200000000000), 1ull << 44, kPage));
  MemoryManagerConfig c;
  c.format = f;
  c.vram_size = 16 * kGiB;
  c.va_base = GpuVa(0x200000000000);
  auto mm = RG_TRY(MemoryManager::create(c, vram, va));
  mm->finish_boot();
  // 256 MiB as 65536 single pages at shuffled physical addresses in [1 GiB, 2 GiB).
  std::vector<AddrRange<VramAddr>> scattered(256 * kMiB / kPage);
  std::vector<uint64_t> perm(kGiB / kPage);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(1));
  for (size_t i = 0; i < scattered.size(); ++i)
    scattered[i] = {VramAddr(kGiB + perm[i] * kPage), kPage};
  const AddrRange<VramAddr> aligned{VramAddr(4 * kGiB), 256 * kMiB};
  const GpuVa base(0x200000000000 + 64 * kGiB);
  std::vector<double> ms, us, ma, ua, va_t, vf;
  for (int i = 0; i < reps; ++i) {
    auto t = Clock::now();
    RG_TRY(mm->map_range(base, scattered, {}));
    ms.push_back(us_since(t));
    t = Clock::now();
    RG_TRY(mm->unmap_range(base, 256 * kMiB));
    us.push_back(us_since(t));
    t = Clock::now();
    RG_TRY(mm->map_range(base, std::span(&aligned, 1), {}));
    ma.push_back(us_since(t));
    t = Clock::now();
    RG_TRY(mm->unmap_range(base, 256 * kMiB));
    ua.push_back(us_since(t));
    t = Clock::now();
    auto v = RG_TRY(mm->valloc(kGiB));
    va_t.push_back(us_since(t));
    t = Clock::now();
    RG_TRY(mm->vfree(v));
    vf.push_back(us_since(t));
  }
  r.map_scattered_us = median_of(ms);
  r.unmap_scattered_us = median_of(us);
  r.map_aligned_us = median_of(ma);
  r.unmap_aligned_us = median_of(ua);
  r.valloc_us = median_of(va_t);
  r.vfree_us = median_of(vf);
  return r;
}

int bench_pagetable(const cli::Args& args, cli::Io& io) {
  std::vector<PageTableFormat> formats;
  if (auto f = args.get("format")) {
    auto p = parse_format(*f);
    if (!p.ok()) {
      io.err << "rawgpu bench pagetable: " << p.error().to_string() << "\n";
      return 2;
    }
    formats.push_back(*p);
  } else {
    formats = {PageTableFormat::kAmdGfx9, PageTableFormat::kAmdGfx10, PageTableFormat::kAmdGfx12,
               PageTableFormat::kNvMmuV2, PageTableFormat::kNvMmuV3};
  }
  auto reps = args.get_u64_in("repeats", 1, 100);
  if (!reps.ok()) {
    io.err << "rawgpu bench pagetable: " << reps.error().message() << "\n";
    return cli::kExitUsage;
  }
  std::vector<PtResult> results;
  for (PageTableFormat f : formats) {
    auto r = bench_format(f, static_cast<int>(*reps));
    if (!r.ok()) {
      io.err << "rawgpu bench pagetable: " << r.error().to_string() << "\n";
      return 1;
    }
    results.push_back(*r);
  }
  if (args.flag("json")) {
    io.out << json_document("bench pagetable", [&](llvm::json::OStream& j) {
      j.attribute("repeats", static_cast<int64_t>(*reps));
      j.attributeArray("results", [&] {
        for (const PtResult& r : results) {
          j.object([&] {
            j.attribute("format", r.format);
            j.attribute("map_256mib_scattered_4k_us", r.map_scattered_us);
            j.attribute("unmap_256mib_scattered_4k_us", r.unmap_scattered_us);
            j.attribute("map_256mib_aligned_us", r.map_aligned_us);
            j.attribute("unmap_256mib_aligned_us", r.unmap_aligned_us);
            j.attribute("valloc_1gib_us", r.valloc_us);
            j.attribute("vfree_1gib_us", r.vfree_us);
          });
        }
      });
    });
    return cli::kExitOk;
  }
  io.out << strformat("%-10s %14s %14s %14s %14s %12s %12s\n", "format", "map 4K x64Ki", "unmap 4K",
                      "map aligned", "unmap aligned", "valloc 1G", "vfree 1G");
  for (const PtResult& r : results)
    io.out << strformat("%-10s %12.1fus %12.1fus %12.1fus %12.1fus %10.1fus %10.1fus\n",
                        r.format.c_str(), r.map_scattered_us, r.unmap_scattered_us,
                        r.map_aligned_us, r.unmap_aligned_us, r.valloc_us, r.vfree_us);
  io.out << "(median of " << *reps
         << " runs; 256 MiB mapped as 65536 scattered 4 KiB pages, or as one aligned range)\n";
  return 0;
}

}  // namespace

namespace {

cli::Option json_option() { return {"json", 'j', "", "print JSON", ""}; }
cli::Option repeats_option(const char* dflt, const char* range = "1..100") {
  return {"repeats", 'r', "N",
          std::string("timed repetitions (") + range + "); the median is reported", dflt};
}

cli::Command sub(std::string name, std::string summary, std::string description,
                 std::vector<cli::Option> options, int (*run)(const cli::Args&, cli::Io&)) {
  cli::Command c;
  c.name = std::move(name);
  c.summary = std::move(summary);
  c.description = std::move(description);
  c.options = std::move(options);
  c.run = run;
  return c;
}

}  // namespace

cli::Command bench_command() {
  cli::Command c;
  c.name = "bench";
  c.summary = "benchmarks: allocator, page tables, queues, emulator, GEMM, compiler";
  c.description =
      "Each benchmark prints its own measurements; --json gives one object per run with\n"
      "\"schema\" and \"command\" members. Timings are medians of the repetitions.";
  c.subcommands = {
      sub("tlsf", "replay an allocation trace on the TLSF allocator",
          "Replays an allocation trace (lines 'a ID SIZE ALIGN' / 'f ID') on a TLSF arena of\n"
          "--size bytes and prints ns/op (median of --repeats replays), failed allocations and\n"
          "peak fragmentation. --generate N writes a GPU-memory-like trace of N ops to --trace\n"
          "instead. --scaling times 256 B allocations while filling to 10^4 and to 10^6 live\n"
          "blocks and fails (exit 1) when the cost per allocation differs by more than 2x.",
          {{"trace", 't', "FILE", "allocation trace to replay (or to write with --generate)", ""},
           {"size", 's', "BYTES", "TLSF arena size", "16GiB"},
           {"generate", 0, "N", "write a generated trace of N operations (1..50000000) to --trace",
            ""},
           {"seed", 0, "N", "seed for --generate and --scaling", "1"},
           {"scaling", 0, "", "check that allocation cost does not grow with live blocks", ""},
           repeats_option("5"),
           json_option()},
          bench_tlsf),
      sub("pagetable", "map and unmap 256 MiB through the page-table manager",
          "Maps and unmaps 256 MiB as 65536 scattered 4 KiB pages and as one aligned range, and\n"
          "vallocs/vfrees 1 GiB, on simulated VRAM; prints microseconds per call (all formats\n"
          "unless --format is given).",
          {{"format", 'f', "FMT", "gfx9, gfx11, gfx12, nv-mmu-v2 or nv-mmu-v3 (default: all)", ""},
           repeats_option("5"),
           json_option()},
          bench_pagetable),
      sub("launch", "host cost of the hardware command queues on a simulated AMD or NVIDIA GPU",
          "Exec+signal enqueue (median over --ops), graph replay per kernel (--kernels, median\n"
          "over --replays) and copy throughput (--copy-size) on a simulated AMD GPU, through the\n"
          "driver over its PCI function (drivers::amd::PciAmdDevice: BAR2 doorbells, HQD/SDMA\n"
          "registers, DMA memory). With sim:sm_86|sm_89|sm_90: the host cost of a QMD launch\n"
          "with its 64-bit release on the RM path (V03, and V04 on sm_90; median over --ops),\n"
          "a launch waited for on the simulated GPU, and the replay of a bound graph of\n"
          "--kernels kernels (queues/nv_graph.h; per kernel).",
          {{"device", 'd', "NAME", "sim:gfx1100, sim:gfx1201, sim:sm_86, sim:sm_89 or sim:sm_90",
            "sim:gfx1100"},
           {"ops", 0, "N", "exec+signal enqueues to time, 1000..100000000", "200000"},
           {"kernels", 0, "N", "kernels in the replayed graph, 1..100000", "1000"},
           {"replays", 0, "N",
            "graph replays to time, 1..1000 (default: 200, fewer past 1000 kernels so that at "
            "most ~200k kernels are simulated; at least 5)",
            ""},
           {"copy-size", 0, "BYTES", "bytes per copy direction", "64MiB"},
           json_option()},
          bench_launch),
      sub("boot", "host cost of the AM boot of a simulated AMD GPU, cold and warm",
          "Boots a fresh simulated board cold, closes, boots it warm, --repeats times; prints the\n"
          "median open() wall time, the boot's host time, its time on the device clock (the\n"
          "driver's waits and sleeps: what a real GPU adds at least), MMIO reads/writes, and the\n"
          "same per IP block. Target: a warm boot in <= 50 ms of host time.",
          {{"device", 'd', "NAME", "sim:gfx1100 or sim:gfx1201", "sim:gfx1100"},
           repeats_option("9", "1..1000"),
           json_option()},
          bench_boot),
      sub("emulator", "wave instructions per second of the RDNA3/RDNA4 emulator",
          "An ALU loop (one thread) and the compiler's 256^3 matmul (--threads host threads for\n"
          "its workgroups) on the emulator, for gfx1100 and gfx1201. With --device sim:sm_86,\n"
          "sim:sm_89 or sim:sm_90: PTX thread-instructions per second of the PTX interpreter\n"
          "(sim/ptx) on the compiler's matmul example for that SM, one thread.",
          {{"threads", 0, "N", "emulator threads for the matmul (0: RAWGPU_EMU_THREADS)", "0"},
           {"device", 'd', "NAME", "sim:sm_86, sim:sm_89 or sim:sm_90 (default: the RDNA emulator)",
            ""},
           repeats_option("5"),
           json_option()},
          bench_emulator),
      sub("gemm", "GFLOPS of C = A @ B through the Tensor API",
          "Median of >= 10 runs after warm-up, fresh random inputs, result checked first (exit 1\n"
          "when wrong). --compare-blas runs OpenBLAS cblas_sgemm (2 threads, dlopen'ed) on the\n"
          "same inputs, alternating, and prints the ratio.",
          {{"n", 0, "N", "matrix size", "1024"},
           {"dtype", 0, "T", "f32, f16 or bf16", "f32"},
           {"device", 'd', "NAME", "device (cpu)", "cpu"},
           {"beam", 0, "K", "set RAWGPU_BEAM=K before compiling", ""},
           {"compare-blas", 0, "", "also time OpenBLAS cblas_sgemm on 2 threads", ""},
           {"seed", 0, "N", "seed of the random inputs (default: a fresh one, printed)", ""},
           repeats_option("10", "10..1000"),
           json_option()},
          bench_gemm),
      sub("compile", "compiler time per stage for a forward pass",
          "Schedule, optimize+lower+linearize, LLVM IR and LLVM codegen time for a forward pass\n"
          "built with the Tensor API; compiles the kernels without running them.",
          {{"workload", 'w', "NAME", "mlp, resnet-block or transformer-block", ""},
           {"opt-level", 0, "N", "LLVM pipeline O0..O3", "3"},
           repeats_option("5", "1..50"),
           json_option()},
          bench_compile),
  };
  return c;
}

}  // namespace rawgpu::tools
