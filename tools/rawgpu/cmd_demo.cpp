// `rawgpu demo`: a small MLP and a conv block from random weights, run through the tensor
// compiler on the host CPU (LLVM ORC JIT) or, with --device sim:gfx1100|sim:gfx1201, as AMDGPU
// code objects on the simulated GPU (RDNA emulator), checked against plain C++ reference loops.
#include <llvm/Support/JSON.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <vector>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/cpu.h"
#include "rawgpu/frontend/tensor.h"
#include "rawgpu/runtime/profile.h"
#include "rawgpu/runtime/sim_devices.h"

namespace rawgpu::tools {
namespace {

using frontend::Tensor;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Layer {
  int64_t in, out;
  Tensor w, b;  // w (in, out), b (out)
  std::vector<float> hw, hb;
};

// Reference MLP: double accumulation.
std::vector<double> mlp_reference(const std::vector<float>& x, int64_t batch,
                                  const std::vector<Layer>& layers) {
  std::vector<double> h(x.begin(), x.end());
  for (size_t l = 0; l < layers.size(); ++l) {
    const Layer& L = layers[l];
    std::vector<double> o(size_t(batch * L.out));
    for (int64_t i = 0; i < batch; ++i)
      for (int64_t j = 0; j < L.out; ++j) {
        double acc = L.hb[size_t(j)];
        for (int64_t k = 0; k < L.in; ++k)
          acc += h[size_t(i * L.in + k)] * L.hw[size_t(k * L.out + j)];
        o[size_t(i * L.out + j)] = l + 1 < layers.size() ? std::max(acc, 0.0) : acc;
      }
    h = std::move(o);
  }
  return h;
}

// Reference conv block: conv2d(3x3, pad 1) + bias + relu, then 2x2 max pool.
std::vector<double> conv_reference(const std::vector<float>& x, const std::vector<float>& w,
                                   const std::vector<float>& b, int64_t N, int64_t C, int64_t H,
                                   int64_t W, int64_t O) {
  std::vector<double> y(size_t(N * O * H * W));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < H; ++i)
        for (int64_t j = 0; j < W; ++j) {
          double acc = b[size_t(o)];
          for (int64_t c = 0; c < C; ++c)
            for (int64_t ki = 0; ki < 3; ++ki)
              for (int64_t kj = 0; kj < 3; ++kj) {
                const int64_t yi = i + ki - 1, xj = j + kj - 1;
                if (yi < 0 || yi >= H || xj < 0 || xj >= W) continue;
                acc += double(x[size_t(((n * C + c) * H + yi) * W + xj)]) *
                       w[size_t(((o * C + c) * 3 + ki) * 3 + kj)];
              }
          y[size_t(((n * O + o) * H + i) * W + j)] = std::max(acc, 0.0);
        }
  std::vector<double> p(size_t(N * O * (H / 2) * (W / 2)));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < H / 2; ++i)
        for (int64_t j = 0; j < W / 2; ++j) {
          double m = -INFINITY;
          for (int64_t a = 0; a < 2; ++a)
            for (int64_t c = 0; c < 2; ++c)
              m = std::max(m, y[size_t(((n * O + o) * H + 2 * i + a) * W + 2 * j + c)]);
          p[size_t(((n * O + o) * (H / 2) + i) * (W / 2) + j)] = m;
        }
  return p;
}

// max |got - want| / (1 + |want|)
double max_rel_err(const std::vector<float>& got, const std::vector<double>& want) {
  double e = got.size() == want.size() ? 0.0 : INFINITY;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    e = std::max(e, std::abs(double(got[i]) - want[i]) / (1.0 + std::abs(want[i])));
  return e;
}

// Executed wave instructions per mnemonic (the emulator's per-opcode counters).
void print_opcode_stats(const sim::rdna::Emulator& emu, cli::Io& io) {
  const auto hits = emu.opcode_hits();
  uint64_t total = 0;
  for (const auto& h : hits) total += h.count;
  io.out << strformat(
      "emulator: %llu wave instructions (%llu waves, %llu dispatches), %zu "
      "distinct opcodes; per mnemonic:\n",
      static_cast<unsigned long long>(emu.stats().instructions),
      static_cast<unsigned long long>(emu.stats().waves),
      static_cast<unsigned long long>(emu.stats().dispatches), hits.size());
  for (const auto& h : hits)
    io.out << strformat("  %12llu  %5.2f%%  %s\n", static_cast<unsigned long long>(h.count),
                        100.0 * double(h.count) / double(total ? total : 1), h.info->mnemonic);
}

struct Workload {
  std::string name;
  uint64_t kernels = 0;
  size_t compiled = 0;
  double first_ms = 0, cached_ms = 0, gflops = 0, max_error = 0;
  bool ok = false;
};

// `out` receives the text report (a discarding stream under --json); the measurements also go
// to `report`.
Result<int> run_demo(const cli::Args& args, uint64_t seed, const std::string& device,
                     frontend::Device* dev, std::ostream& out, std::vector<Workload>& report) {
  cli::Io io{out, out};
  RG_TRY(frontend::set_default_device(device));
  struct RestoreDefault {
    ~RestoreDefault() { (void)frontend::set_default_device("cpu"); }
  } restore;
  sim::rdna::Emulator* emu = runtime::sim_emulator(device);
  const bool stats = args.flag("stats") || log::enabled("emu", 1);
  if (emu && stats) {
    emu->reset_opcode_hits();
    emu->options().count_opcodes = true;
  }
  Tensor::manual_seed(seed);
  if (device.starts_with("sim:sm_") || device.starts_with("nv:")) {
    io.out << strformat(
        "rawgpu demo: tensor programs on %s (%s, QMD launches on a GPFIFO channel brought up "
        "through %s), seed %llu\n",
        device.c_str(),
        device.starts_with("sim:") ? "PTX images run by the PTX interpreter" : "cubins",
        device.starts_with("sim:") ? "the simulated NVIDIA kernel driver" : "the NVIDIA driver",
        static_cast<unsigned long long>(seed));
  } else if (emu == nullptr) {
    io.out << strformat(
        "rawgpu demo: tensor programs on the host CPU (LLVM ORC JIT, %d threads), seed %llu\n",
        frontend::cpu_runtime().threads(), static_cast<unsigned long long>(seed));
  } else {
    io.out << strformat(
        "rawgpu demo: tensor programs on %s (AMDGPU code objects, PM4 launches, RDNA wave "
        "emulator), seed %llu\n",
        device.c_str(), static_cast<unsigned long long>(seed));
  }
  auto& rt = *dev;
  bool ok = true;
  constexpr double kTol = 1e-4;  // float32 sums of <= 300 terms vs a double reference

  // ---- MLP: 32x64 -> 128 -> 128 -> 10, relu ----
  const int64_t B = 32;
  const int64_t dims[] = {64, 128, 128, 10};
  std::vector<Layer> layers;
  for (int l = 0; l < 3; ++l) {
    Layer L{dims[l], dims[l + 1], {}, {}, {}, {}};
    L.w = Tensor::randn({L.in, L.out}) * (1.0 / std::sqrt(double(L.in)));
    L.b = Tensor::randn({L.out}) * 0.1;
    L.hw = RG_TRY(L.w.to_host<float>());  // realizes the weights
    L.hb = RG_TRY(L.b.to_host<float>());
    layers.push_back(std::move(L));
  }
  Tensor x = Tensor::randn({B, dims[0]});
  const auto hx = RG_TRY(x.to_host<float>());
  auto mlp = [&] {
    Tensor h = x;
    for (size_t l = 0; l < layers.size(); ++l) {
      h = h.matmul(layers[l].w) + layers[l].b;
      if (l + 1 < layers.size()) h = h.relu();
    }
    return h;
  };
  const size_t cache0 = rt.cache_size();
  auto t0 = Clock::now();
  Tensor y = mlp();
  const auto hy = RG_TRY(y.to_host<float>());
  const double first = ms_since(t0);
  const uint64_t mlp_kernels = frontend::stats().last_schedule_kernels;
  const size_t compiled = rt.cache_size() - cache0;
  t0 = Clock::now();
  const int reps = emu ? 2 : 20;  // the emulator is ~1000x slower than the JIT
  for (int r = 0; r < reps; ++r) RG_TRY(mlp().realize());
  const double cached = ms_since(t0) / reps;
  const double flops = 2.0 * B * (64 * 128 + 128 * 128 + 128 * 10);
  const double e1 = max_rel_err(hy, mlp_reference(hx, B, layers));
  io.out << strformat(
      "mlp 32x64 -> 128 -> 128 -> 10 (relu): %llu kernels (%zu compiled), first run %.1f ms "
      "(compile + run), cached run %.3f ms (%.2f GFLOPS); max error %.2e vs reference loops: %s\n",
      static_cast<unsigned long long>(mlp_kernels), compiled, first, cached, flops / (cached * 1e6),
      e1, e1 <= kTol ? "ok" : "MISMATCH");
  io.out << "  logits[0][0..4]:";
  for (int j = 0; j < 5; ++j) io.out << strformat(" %.4f", hy[size_t(j)]);
  io.out << "\n";
  ok = ok && e1 <= kTol;
  report.push_back(
      {"mlp", mlp_kernels, compiled, first, cached, flops / (cached * 1e6), e1, e1 <= kTol});

  // ---- conv block: 2x3x16x16, conv 3->8 3x3 pad 1 + bias + relu, 2x2 max pool ----
  const int64_t N = 2, C = 3, H = 16, W = 16, O = 8;
  Tensor cx = Tensor::randn({N, C, H, W});
  Tensor cw = Tensor::randn({O, C, 3, 3}) * (1.0 / std::sqrt(27.0));
  Tensor cb = Tensor::randn({O}) * 0.1;
  const auto hcx = RG_TRY(cx.to_host<float>()), hcw = RG_TRY(cw.to_host<float>()),
             hcb = RG_TRY(cb.to_host<float>());
  auto block = [&] { return cx.conv2d(cw, &cb, {1, 1}, {1, 1}).relu().max_pool2d({2, 2}); };
  const size_t cache1 = rt.cache_size();
  t0 = Clock::now();
  Tensor cy = block();
  const auto hcy = RG_TRY(cy.to_host<float>());
  const double cfirst = ms_since(t0);
  const uint64_t conv_kernels = frontend::stats().last_schedule_kernels;
  const size_t ccompiled = rt.cache_size() - cache1;
  t0 = Clock::now();
  for (int r = 0; r < reps; ++r) RG_TRY(block().realize());
  const double ccached = ms_since(t0) / reps;
  const double cflops = 2.0 * N * O * H * W * C * 9;
  const double e2 = max_rel_err(hcy, conv_reference(hcx, hcw, hcb, N, C, H, W, O));
  io.out << strformat(
      "conv block 2x3x16x16 -> conv3x3(8)+bias+relu -> maxpool2x2: %llu kernels (%zu compiled), "
      "first run %.1f ms, cached run %.3f ms (%.2f GFLOPS); max error %.2e: %s\n",
      static_cast<unsigned long long>(conv_kernels), ccompiled, cfirst, ccached,
      cflops / (ccached * 1e6), e2, e2 <= kTol ? "ok" : "MISMATCH");
  ok = ok && e2 <= kTol;
  report.push_back({"conv_block", conv_kernels, ccompiled, cfirst, ccached,
                    cflops / (ccached * 1e6), e2, e2 <= kTol});
  io.out << strformat("compile cache: %zu kernels, %llu hits\n", rt.cache_size(),
                      static_cast<unsigned long long>(rt.cache_hits()));
  if (emu && stats) print_opcode_stats(*emu, io);
  io.out << (ok ? "demo: all results match the reference\n" : "demo: MISMATCH\n");
  return ok ? 0 : 1;
}

}  // namespace

cli::Command demo_command() {
  cli::Command c;
  c.name = "demo";
  c.summary = "run a small MLP and a conv block through the tensor compiler (CPU or simulated GPU)";
  c.description =
      "Builds a 3-layer MLP and a conv2d+bias+relu+maxpool block from random weights (threefry,\n"
      "--seed), compiles them to fused kernels through LLVM's ORC JIT, runs them on the host CPU,\n"
      "checks the results against plain C++ reference loops and prints kernel counts and timings\n"
      "(first run including compilation, and the cached run). Exit status 1 on a mismatch.\n"
      "--device sim:gfx1100 or sim:gfx1201 compiles AMDGPU code objects instead and runs them on\n"
      "the simulated GPU (VRAM buffers, SDMA copies, PM4 launches, the RDNA wave emulator);\n"
      "--stats (or RAWGPU_DEBUG=emu) then prints the executed wave instructions per mnemonic.\n"
      "--device sim:sm_86, sim:sm_89 or sim:sm_90 compiles PTX and runs it on a simulated\n"
      "NVIDIA GPU brought up through the simulated kernel driver (RM objects, GPFIFO channels,\n"
      "QMD launches, the PTX interpreter); nv:<n> is GPU n of this machine's NVIDIA driver.\n"
      "--trace FILE writes every launch and copy as Chrome trace-event JSON (ui.perfetto.dev,\n"
      "chrome://tracing): kernel names, grids, bytes, and on GPUs device timestamps.";
  c.options = {{.name = "seed",
                .metavar = "N",
                .help = "random seed for weights and inputs",
                .default_value = "1"},
               {.name = "device",
                .metavar = "NAME",
                .help = "cpu, sim:gfx1100, sim:gfx1201, sim:sm_86, sim:sm_89, sim:sm_90, amd:<bdf> "
                        "or nv:<n>",
                .default_value = "cpu"},
               {.name = "stats",
                .metavar = "",
                .help = "simulated devices: executed wave instructions per opcode",
                .default_value = ""},
               {.name = "trace",
                .metavar = "FILE",
                .help = "write a Chrome trace-event profile of the run to FILE",
                .default_value = ""},
               {.name = "json",
                .short_name = 'j',
                .metavar = "",
                .help = "print JSON (the measurements and checks, without --stats' table)",
                .default_value = ""}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    auto seed = args.get_u64("seed");
    if (!seed.ok()) {
      io.err << "rawgpu demo: " << seed.error().message() << "\n";
      return cli::kExitUsage;
    }
    const std::string device = args.get("device").value_or("cpu");
    runtime::register_sim_devices();
    auto dev = frontend::get_device(device);
    if (!dev.ok()) {
      io.err << "rawgpu demo: --device " << device << ": " << dev.error().message() << "\n";
      return cli::kExitUsage;
    }
    const bool json = args.flag("json");
    const std::string trace = args.get("trace").value_or("");
    runtime::Profiler& prof = runtime::Profiler::get();
    if (!trace.empty()) {
      prof.clear();
      prof.enable(true);
    }
    std::ostringstream discard;
    std::vector<Workload> report;
    auto r = run_demo(args, *seed, device, *dev, json ? discard : io.out, report);
    if (!r.ok()) {
      io.err << "rawgpu demo: " << r.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    if (!trace.empty()) {
      if (Status st = prof.write_chrome_trace(trace); !st.ok()) {
        io.err << "rawgpu demo: --trace: " << st.error().to_string() << "\n";
        return cli::kExitFailure;
      }
      if (!json)
        io.out << "trace: " << prof.events().size() << " events written to " << trace << "\n";
    }
    if (json) {
      io.out << json_document("demo", [&](llvm::json::OStream& j) {
        j.attribute("device", device);
        j.attribute("seed", static_cast<int64_t>(*seed));
        j.attribute("ok", *r == 0);
        j.attributeArray("workloads", [&] {
          for (const Workload& w : report)
            j.object([&] {
              j.attribute("name", w.name);
              j.attribute("kernels", static_cast<int64_t>(w.kernels));
              j.attribute("compiled", static_cast<int64_t>(w.compiled));
              j.attribute("first_run_ms", w.first_ms);
              j.attribute("cached_run_ms", w.cached_ms);
              j.attribute("gflops", w.gflops);
              j.attribute("max_rel_error", w.max_error);
              j.attribute("ok", w.ok);
            });
        });
      });
    }
    return *r;
  };
  return c;
}

}  // namespace rawgpu::tools
