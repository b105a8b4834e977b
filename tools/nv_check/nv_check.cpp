// Device check harness for rawgpu's own NVIDIA path (build/tools/nv_check): runs every kernel that
// `rawgpu compile --data` wrote through the kernel driver's RM ioctls with rawgpu's driver and
// queues — RmGpu bring-up, VRAM mapped CPU VA == GPU VA, the cubin loaded by NvProgram::load_cubin,
// a QMD (V03, or V04 with --qmd 4) launched on the compute channel, its release waited for — and
// compares the checked slots with the host reference next to it (the same launch.txt files
// cuda_check runs through libcuda). Then the host time of launch + wait of one kernel, the median
// of 200, to compare with cuLaunchKernel + cuCtxSynchronize in cuda_check's run.
//
// Usage: nv_check [--qmd 3|4] [--gpu N] [--sim sm_86|sm_89|sm_90] DIR [KERNEL...]
//   DIR = the target's directory of `rawgpu compile --data` output (e.g. OUT/sm_90).
//   --sim runs against the simulated kernel driver and GPU instead (the build with the simulator
//   only): every step up to the launch, which the simulated GPU refuses (it executes PTX images,
//   not SASS) — each kernel then prints LOADED when the refusal is the expected one.
// Prints PASS/FAIL (or LOADED) per kernel; exits 1 on any failure, 0 with SKIPPED when there is no
// NVIDIA kernel driver. Built statically (no libLLVM, no libstdc++ at run time) so it runs on a
// machine with only the driver: scripts/device/nv_check.sh carries it there.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "../cuda_check/launch_file.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/queues/signal.h"
#ifdef NV_CHECK_SIM
#include "rawgpu/sim/nv_rm.h"
#endif

namespace {

using namespace rawgpu;
using cuda_check::Launch;

struct Gpu {
#ifdef NV_CHECK_SIM
  std::unique_ptr<sim::SimNvKernel> sim;
#endif
  std::unique_ptr<nv::Rm> rm;
  std::unique_ptr<nv::RmGpu> gpu;
  nv::NvMemory arena;
  std::unique_ptr<queues::KernargArena> kernargs;
  std::unique_ptr<queues::SignalPool> pool;
  std::unique_ptr<queues::Timeline> tl;
  std::unique_ptr<queues::NvChannelQueue> channel;
  std::unique_ptr<queues::NvComputeQueue> compute;
  bool simulated = false;
};

Status open_gpu(Gpu& g, uint32_t index, const std::string& sim_target, uint32_t qmd) {
  if (!sim_target.empty()) {
#ifdef NV_CHECK_SIM
    sim::SimNvConfig c;
    c.arch = sim::nv_arch_of(sim_target).value_or(sim::NvArch::kHopper);
    c.vram_bytes = 1ull << 30;
    g.sim = RG_TRY(sim::SimNvKernel::create(c));
    g.rm = RG_TRY(nv::Rm::open(*g.sim));
    g.simulated = true;
#else
    return make_error(Errc::kUnsupported, "this nv_check was built without the simulator");
#endif
  } else {
    g.rm = RG_TRY(nv::Rm::open(nv::Kernel::os()));
  }
  g.gpu = RG_TRY(nv::RmGpu::open(*g.rm, index));
  g.arena = RG_TRY(g.gpu->alloc_vram(256 << 10, true));
  g.kernargs = RG_TRY(queues::KernargArena::create(*g.gpu, 4 << 20));
  g.pool = std::make_unique<queues::SignalPool>(*g.gpu);
  g.tl = std::make_unique<queues::Timeline>(RG_TRY(g.pool->alloc()), RG_TRY(g.pool->alloc()));
  g.channel = std::make_unique<queues::NvChannelQueue>(*g.gpu, g.gpu->compute(), g.arena);
  g.compute = std::make_unique<queues::NvComputeQueue>(*g.gpu, *g.channel, *g.kernargs);
  RG_TRY(g.compute->set_qmd_version(qmd));
  return g.compute->setup();
}

// Everything down in dependency order (queues before the GPU, the GPU before its kernel).
void close_gpu(Gpu& g) {
  g.compute.reset();
  g.channel.reset();
  g.tl.reset();
  g.pool.reset();
  g.kernargs.reset();
  if (g.gpu && g.arena.handle != 0) (void)g.gpu->free(g.arena);
  g.arena = {};
  g.gpu.reset();
  g.rm.reset();
#ifdef NV_CHECK_SIM
  g.sim.reset();
#endif
}

// The launch's buffers in CPU-visible VRAM with their initial bytes, and its parameter block
// (buffer addresses, then the scalars). Frees what it allocated on failure.
Status stage(nv::RmGpu& gpu, const Launch& l, std::vector<nv::NvMemory>& bufs,
             std::vector<uint8_t>& params) {
  for (const auto& b : l.buffers) {
    auto m = gpu.alloc_vram(std::max<size_t>(b.bytes, 4), true);
    if (!m) {
      for (nv::NvMemory& x : bufs) (void)gpu.free(x);
      bufs.clear();
      return std::move(m).take_error();
    }
    bufs.push_back(*m);
    if (b.bytes) std::memcpy(m->cpu(), b.init.data(), b.bytes);
    params.insert(params.end(), reinterpret_cast<const uint8_t*>(&m->va),
                  reinterpret_cast<const uint8_t*>(&m->va) + 8);
  }
  for (long long v : l.scalars)
    params.insert(params.end(), reinterpret_cast<const uint8_t*>(&v),
                  reinterpret_cast<const uint8_t*>(&v) + 8);
  return ok_status();
}

Result<queues::NvProgram> load(nv::RmGpu& gpu, const Launch& l) {
  return queues::NvProgram::load_cubin(
      gpu,
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(l.binary.data()), l.binary.size()),
      l.kernel);
}

queues::NvLaunch launch_of(const Launch& l, std::span<const uint8_t> params) {
  queues::NvLaunch nl;
  for (int d = 0; d < 3; ++d) {
    nl.grid[d] = l.grid[d];
    nl.block[d] = l.block[d];
  }
  nl.params = params;
  return nl;
}

struct Outcome {
  bool ok = false;
  std::string why;
  double ms = 0;
  double max_abs = 0, max_rel = 0;
};

Outcome run_one(Gpu& g, const Launch& l) {
  Outcome o;
  nv::RmGpu& gpu = *g.gpu;
  std::vector<nv::NvMemory> bufs;
  auto cleanup = [&] {
    for (nv::NvMemory& m : bufs) (void)gpu.free(m);
  };
  std::vector<uint8_t> params;
  if (Status st = stage(gpu, l, bufs, params); !st) {
    o.why = st.error().to_string();
    return o;
  }
  auto prog = load(gpu, l);
  if (!prog) {
    o.why = "load_cubin: " + prog.error().to_string();
    cleanup();
    return o;
  }
  const queues::NvLaunch nl = launch_of(l, params);
  queues::Timeline& tl = *g.tl;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = g.compute->launch(*prog, nl, tl.signal(), tl.next());
  if (s) {
    tl.advance();
    s = queues::wait_signal(gpu, tl.last_signal(), tl.last_value(), "kernel " + l.kernel);
  }
  o.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!s) {
    o.why = s.error().to_string();
    prog->release(gpu);
    cleanup();
    return o;
  }
  size_t bad = 0, tail_changed = 0;
  for (const auto& c : l.checks) {
    size_t bi = 0;
    while (bi < l.buffers.size() && l.buffers[bi].slot != c.slot) ++bi;
    if (bi == l.buffers.size()) {  // parse_launch refuses these; never index past the buffers
      o.why = "check of slot " + std::to_string(c.slot) + ", which no buffer fills";
      prog->release(gpu);
      cleanup();
      return o;
    }
    const uint8_t* got = bufs[bi].cpu();
    for (size_t i = 0; i < c.count; ++i) {
      float gv, wv;
      std::memcpy(&gv, got + 4 * i, 4);
      std::memcpy(&wv, c.want.data() + 4 * i, 4);
      const double err = std::fabs(double(gv) - double(wv));
      if (!std::isnan(err)) {
        o.max_abs = std::max(o.max_abs, err);
        if (wv != 0) o.max_rel = std::max(o.max_rel, err / std::fabs(double(wv)));
      }
      if ((std::isnan(gv) || err > c.atol + c.rtol * std::fabs(double(wv))) && bad++ < 4)
        std::printf("  %s: slot %d [%zu] = %.9g, expected %.9g\n", l.kernel.c_str(), c.slot, i,
                    double(gv), double(wv));
    }
    for (size_t i = c.count * 4; i < l.buffers[bi].bytes; ++i)
      tail_changed += static_cast<char>(got[i]) != l.buffers[bi].init[i];
  }
  o.ok = bad == 0 && tail_changed == 0;
  if (!o.ok)
    o.why = std::to_string(bad) + " elements outside tolerance, " + std::to_string(tail_changed) +
            " bytes past the checked range changed";
  prog->release(gpu);
  cleanup();
  return o;
}

// Launch + wait of the first kernel, 200 times: median host microseconds.
double latency_us(Gpu& g, const Launch& l) {
  std::vector<double> t;
  nv::RmGpu& gpu = *g.gpu;
  std::vector<nv::NvMemory> bufs;
  std::vector<uint8_t> params;
  if (!stage(gpu, l, bufs, params)) return -1;
  auto prog = load(gpu, l);
  if (prog) {
    const queues::NvLaunch nl = launch_of(l, params);
    for (int i = 0; i < 200; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      if (!g.compute->launch(*prog, nl, g.tl->signal(), g.tl->next())) break;
      g.tl->advance();
      if (!queues::wait_signal(gpu, g.tl->last_signal(), g.tl->last_value(), "latency")) break;
      t.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    prog->release(gpu);
  }
  for (nv::NvMemory& m : bufs) (void)gpu.free(m);
  if (t.empty()) return -1;
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t qmd = 3, index = 0;
  std::string sim_target;
  int a = 1;
  for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
    const std::string opt = argv[a], val = argv[a + 1];
    if (opt == "--qmd" && (val == "3" || val == "4")) {
      qmd = val == "4" ? 4 : 3;
    } else if (opt == "--gpu" && !val.empty() && val.size() < 4 &&
               std::all_of(val.begin(), val.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      index = static_cast<uint32_t>(std::stoul(val));
    } else if (opt == "--sim" && (val == "sm_86" || val == "sm_89" || val == "sm_90")) {
      sim_target = val;
    } else {
      std::printf("nv_check: bad option %s %s\n", opt.c_str(), val.c_str());
      return 2;
    }
  }
  if (a >= argc) {
    std::printf("usage: %s [--qmd 3|4] [--gpu N] [--sim sm_86|sm_89|sm_90] DIR [KERNEL...]\n",
                argv[0]);
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path root = argv[a];
  std::vector<fs::path> dirs;
  if (a + 1 < argc) {
    for (int i = a + 1; i < argc; ++i) dirs.push_back(root / argv[i]);
  } else {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec))
      if (fs::exists(e.path() / "launch.txt")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
  }
  if (dirs.empty()) {
    std::printf("FAIL: no DIR/<kernel>/launch.txt under %s (rawgpu compile --data writes them)\n",
                root.c_str());
    return 1;
  }
  Gpu g;
  if (Status s = open_gpu(g, index, sim_target, qmd); !s) {
    if (s.error().code() == Errc::kNotFound) {
      std::printf("SKIPPED: %s\n", s.error().to_string().c_str());
      return 0;
    }
    std::printf("FAIL: bring-up: %s\n", s.error().to_string().c_str());
    return 1;
  }
  std::printf("nv_check: driver %s, %s, %s, QMD V0%u%s\n", g.rm->version().text.c_str(),
              g.gpu->name().c_str(), g.gpu->gr().sm.target.c_str(), g.compute->qmd_version(),
              g.simulated ? " (simulated: launches stop at the SASS)" : "");
  int failed = 0;
  const Launch* first = nullptr;
  std::vector<Launch> launches;
  launches.reserve(dirs.size());
  for (const fs::path& d : dirs) {
    launches.push_back(cuda_check::parse_launch_dir(d));
    const Launch& l = launches.back();
    const std::string name = d.filename().string();
    if (!l.error.empty()) {
      std::printf("FAIL %-16s %s\n", name.c_str(), l.error.c_str());
      ++failed;
      continue;
    }
    const Outcome o = run_one(g, l);
    if (g.simulated) {
      // The simulated GPU refuses SASS at the launch; anything earlier failing is a real failure.
      bool refused = o.why.find("not SASS") != std::string::npos;
#ifdef NV_CHECK_SIM
      refused |= g.sim && !g.sim->channel_errors().empty() &&
                 g.sim->channel_errors().back().find("not SASS") != std::string::npos;
#endif
      std::printf(
          "%s %-16s %s\n", refused ? "LOADED" : "FAIL  ", name.c_str(),
          refused ? "cubin loaded and launched; the simulator refused the SASS" : o.why.c_str());
      failed += !refused;
      if (refused) {  // a fresh GPU for the next kernel: the channel stopped
        close_gpu(g);
        if (Status s = open_gpu(g, index, sim_target, qmd); !s) {
          std::printf("FAIL: bring-up: %s\n", s.error().to_string().c_str());
          return 1;
        }
      }
      continue;
    }
    std::printf(
        "%s %-16s grid %ux%ux%u block %ux%ux%u  max abs err %.3g  max rel err %.3g  "
        "%.3f ms%s%s\n",
        o.ok ? "PASS" : "FAIL", name.c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0],
        l.block[1], l.block[2], o.max_abs, o.max_rel, o.ms, o.ok ? "" : "  ", o.why.c_str());
    failed += !o.ok;
    if (o.ok && first == nullptr) first = &l;
  }
  if (first != nullptr) {
    const double us = latency_us(g, *first);
    std::printf("nv_check: launch + wait of %s through rawgpu's RM path: %.2f us (median of 200)\n",
                first->kernel.c_str(), us);
  }
  std::printf("nv_check: %zu kernel(s), %d failed\n", dirs.size(), failed);
  close_gpu(g);
  return failed ? 1 : 0;
}
