#include "rawgpu/base/env.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "rawgpu/base/parse.h"

namespace rawgpu::env {

namespace {

constexpr Variable kVariables[] = {
    {"RAWGPU_DEBUG", "N[,tag=N...]", "log levels 0..5, globally and per tag (see the tags below)"},
    {"RAWGPU_BEAM", "N", "BEAM-search kernel opts with beam width N (0: heuristics only)"},
    {"RAWGPU_BEAM_BUDGET", "SECONDS", "stop a kernel's BEAM search after this long"},
    {"RAWGPU_BEAM_CACHE", "0|1", "0: do not read or write the BEAM result cache"},
    {"RAWGPU_CACHE_DIR", "DIR",
     "BEAM result cache (default $XDG_CACHE_HOME/rawgpu or ~/.cache/rawgpu)"},
    {"RAWGPU_OPT_LEVEL", "0..3", "LLVM pipeline for CPU kernels (default 3)"},
    {"RAWGPU_NOOPT", "0|1", "1: no CPU kernel-opt heuristics (plain loops)"},
    {"RAWGPU_NOPACK", "0|1", "1: the CPU matmul does not pack its operands"},
    {"RAWGPU_GEMM_TILE", "RxC", "CPU matmul register tile (default chosen per shape)"},
    {"RAWGPU_VECTORIZE", "0|1", "0: no explicit vectors in CPU kernels"},
    {"RAWGPU_SOFT_MATH", "0|1", "1: software transcendentals on every target"},
    {"RAWGPU_SPEC", "0|1", "check every IR graph against the IR spec (default on in debug builds)"},
    {"RAWGPU_PTXAS", "PATH", "ptxas to turn PTX into cubins (default: PATH, /usr/local/cuda/bin)"},
    {"RAWGPU_WAIT_TIMEOUT_MS", "MS",
     "how long a signal wait blocks before a timeout error (30000)"},
    {"RAWGPU_EMU_THREADS", "N", "host threads of the RDNA emulator's workgroups (1..256)"},
    {"RAWGPU_SIM_THREAD", "0|1", "1: the simulated GPU runs on its own device thread"},
    {"RAWGPU_SIM_FAULTS", "RULES",
     "fault-plan rules for simulated GPUs, e.g. 'dispatch:hang' (sim/fault_plan.h)"},
    {"RAWGPU_TRACE", "FILE",
     "record every kernel launch and copy; write Chrome trace-event JSON to FILE at exit"},
    {"RAWGPU_AMD_FIRMWARE_DIR", "DIR",
     "where the AM driver finds the amdgpu firmware files (default /lib/firmware/amdgpu)"},
    {"RAWGPU_NV_QMD", "3|4",
     "QMD layout of nv:<n> launches: 3 (V03, default) or 4 (V04, Hopper's native layout)"},
    {"RAWGPU_VFIO_NOIOMMU", "0|1",
     "1: allow VFIO's no-IOMMU mode (DMA unprotected: the device can write any host memory)"},
};

// Each variable warns at most once per process.
bool first_warning(const char* name) {
  static std::mutex mu;
  static std::set<std::string> warned;
  std::lock_guard lock(mu);
  return warned.insert(name).second;
}

}  // namespace

std::span<const Variable> variables() { return kVariables; }

std::optional<uint64_t> read_u64(const char* name, uint64_t min, uint64_t max) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  auto n = parse_u64(v);
  if (n.ok() && *n >= min && *n <= max) return *n;
  if (first_warning(name))
    std::fprintf(stderr, "rawgpu: warning: ignoring %s='%.40s': expected an integer %llu..%llu\n",
                 name, v, static_cast<unsigned long long>(min),
                 static_cast<unsigned long long>(max));
  return std::nullopt;
}

bool read_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  if (std::string_view(v) == "1") return true;
  if (std::string_view(v) == "0") return false;
  if (first_warning(name))
    std::fprintf(stderr, "rawgpu: warning: ignoring %s='%.40s': expected 0 or 1\n", name, v);
  return fallback;
}

}  // namespace rawgpu::env
