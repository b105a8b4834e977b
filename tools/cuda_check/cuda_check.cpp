// Device check harness (build/tools/cuda_check): runs every kernel that `rawgpu compile --data`
// wrote on an NVIDIA GPU through the CUDA driver API (libcuda.so.1 via dlopen, so it builds with
// any C++20 compiler and no CUDA toolkit) and compares slot 0 with the host reference rawgpu
// wrote next to it (compiler::gpu_example_data). Meson test cuda-check-sm90 and
// scripts/device/cuda_check.sh run it.
//
// Usage: cuda_check [--parse-only] DIR [KERNEL...]   (DIR = the target's directory, e.g.
// OUT/sm_90). --parse-only reads and checks every launch description and its files without a GPU.
//
// Each DIR/<kernel>/launch.txt describes one launch (format: launch_file.h); the bytes past a
// check's COUNT must be the buffer's initial bytes (gated tails untouched).
// Prints PASS/FAIL per kernel with the largest error and the kernel time; exits 1 on any failure.
#include <dlfcn.h>

#include "launch_file.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUdeviceptr = unsigned long long;

struct Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuCtxCreate)(CUcontext*, unsigned, CUdevice);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void*, void**, void**);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemFree)(CUdeviceptr);
};
Api api;

template <class F>
bool sym(F& f, void* lib, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) std::printf("FAIL: libcuda has no %s\n", name);
  return f != nullptr;
}

using cuda_check::Buffer;
using cuda_check::Check;
using cuda_check::Launch;

// Runs one launch; returns true when every check passes.
bool run(const std::filesystem::path& dir) {
  Launch l = cuda_check::parse_launch_dir(dir);
  const std::string name = dir.filename().string();
  if (!l.error.empty()) {
    std::printf("FAIL %-16s %s\n", name.c_str(), l.error.c_str());
    return false;
  }
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  bool ok = true;
  std::string why;
  auto ck = [&](CUresult r, const char* what) {
    if (r != 0 && ok) {
      ok = false;
      why = std::string(what) + " -> CUDA error " + std::to_string(r);
    }
    return ok;
  };
  if (ck(api.cuModuleLoadData(&mod, l.binary.data()), "cuModuleLoadData"))
    ck(api.cuModuleGetFunction(&fn, mod, l.kernel.c_str()), "cuModuleGetFunction");
  for (Buffer& b : l.buffers)
    if (ck(api.cuMemAlloc(&b.dev, b.bytes ? b.bytes : 1), "cuMemAlloc"))
      ck(api.cuMemcpyHtoD(b.dev, b.init.data(), b.bytes), "cuMemcpyHtoD");
  double ms = 0;
  if (ok) {
    std::vector<void*> params;
    for (Buffer& b : l.buffers) params.push_back(&b.dev);
    for (long long& v : l.scalars) params.push_back(&v);
    const auto t0 = std::chrono::steady_clock::now();
    if (ck(api.cuLaunchKernel(fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                              l.block[2], 0, nullptr, params.data(), nullptr),
           "cuLaunchKernel"))
      ck(api.cuCtxSynchronize(), "cuCtxSynchronize");
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  double max_abs = 0, max_rel = 0;
  size_t bad = 0, tail_changed = 0;
  for (const Check& c : l.checks) {
    if (!ok) break;
    const Buffer* b = nullptr;
    for (const Buffer& x : l.buffers)
      if (x.slot == c.slot) b = &x;
    std::vector<char> got(b->bytes);
    if (!ck(api.cuMemcpyDtoH(got.data(), b->dev, b->bytes), "cuMemcpyDtoH")) break;
    for (size_t i = 0; i < c.count; ++i) {
      float g, w;
      std::memcpy(&g, got.data() + 4 * i, 4);
      std::memcpy(&w, c.want.data() + 4 * i, 4);
      const double err = std::fabs(double(g) - double(w));
      const bool good = err <= c.atol + c.rtol * std::fabs(double(w)) && !std::isnan(g);
      if (!std::isnan(err)) {
        max_abs = std::max(max_abs, err);
        if (w != 0) max_rel = std::max(max_rel, err / std::fabs(double(w)));
      }
      if (!good && bad++ < 4)
        std::printf("  %s: slot %d [%zu] = %.9g, expected %.9g\n", name.c_str(), c.slot, i,
                    double(g), double(w));
    }
    for (size_t i = c.count * 4; i < b->bytes; ++i) tail_changed += got[i] != b->init[i];
  }
  if (ok && (bad || tail_changed)) {
    ok = false;
    why = std::to_string(bad) + " elements outside tolerance, " + std::to_string(tail_changed) +
          " bytes past the checked range changed";
  }
  std::printf(
      "%s %-16s grid %ux%ux%u block %ux%ux%u  max abs err %.3g  max rel err %.3g  %.3f ms%s%s\n",
      ok ? "PASS" : "FAIL", name.c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
      l.block[2], max_abs, max_rel, ms, ok ? "" : "  ", why.c_str());
  for (Buffer& b : l.buffers)
    if (b.dev) api.cuMemFree(b.dev);
  if (mod) api.cuModuleUnload(mod);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const bool parse_only = argc > 1 && std::strcmp(argv[1], "--parse-only") == 0;
  if (parse_only) {
    --argc;
    ++argv;
  }
  if (argc < 2) {
    std::printf("usage: %s [--parse-only] DIR [KERNEL...]\n", argv[0]);
    return 2;
  }
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (argc > 2) {
    for (int i = 2; i < argc; ++i) dirs.push_back(fs::path(argv[1]) / argv[i]);
  } else {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(argv[1], ec))
      if (fs::exists(e.path() / "launch.txt")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
  }
  if (dirs.empty()) {
    std::printf("FAIL: no DIR/<kernel>/launch.txt under %s (rawgpu compile --data writes them)\n",
                argv[1]);
    return 1;
  }
  if (parse_only) {
    int bad = 0;
    for (const fs::path& d : dirs) {
      const Launch l = cuda_check::parse_launch_dir(d);
      size_t bytes = 0;
      for (const Buffer& b : l.buffers) bytes += b.bytes;
      if (l.error.empty())
        std::printf(
            "ok   %-16s %s: grid %ux%ux%u block %ux%ux%u, %zu buffers (%zu bytes), %zu "
            "scalars, %zu checks\n",
            d.filename().c_str(), l.kernel.c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0],
            l.block[1], l.block[2], l.buffers.size(), bytes, l.scalars.size(), l.checks.size());
      else
        std::printf("FAIL %-16s %s\n", d.filename().c_str(), l.error.c_str());
      bad += !l.error.empty();
    }
    return bad ? 1 : 0;
  }
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    std::printf("SKIPPED: no libcuda.so.1 (%s)\n", dlerror());
    return 0;
  }
  bool have =
      sym(api.cuInit, lib, "cuInit") && sym(api.cuDeviceGet, lib, "cuDeviceGet") &&
      sym(api.cuDeviceGetName, lib, "cuDeviceGetName") &&
      sym(api.cuCtxCreate, lib, "cuCtxCreate_v2") &&
      sym(api.cuModuleLoadData, lib, "cuModuleLoadData") &&
      sym(api.cuModuleUnload, lib, "cuModuleUnload") &&
      sym(api.cuModuleGetFunction, lib, "cuModuleGetFunction") &&
      sym(api.cuMemAlloc, lib, "cuMemAlloc_v2") && sym(api.cuMemcpyHtoD, lib, "cuMemcpyHtoD_v2") &&
      sym(api.cuMemcpyDtoH, lib, "cuMemcpyDtoH_v2") &&
      sym(api.cuLaunchKernel, lib, "cuLaunchKernel") &&
      sym(api.cuCtxSynchronize, lib, "cuCtxSynchronize") && sym(api.cuMemFree, lib, "cuMemFree_v2");
  if (!have) return 1;
  CUdevice dev;
  CUcontext ctx;
  char devname[256] = {};
  if (api.cuInit(0) || api.cuDeviceGet(&dev, 0) || api.cuCtxCreate(&ctx, 0, dev)) {
    std::printf("FAIL: no CUDA device/context\n");
    return 1;
  }
  api.cuDeviceGetName(devname, sizeof devname, dev);
  std::printf("device: %s\n", devname);
  int failures = 0;
  for (const fs::path& d : dirs) failures += !run(d);
  std::printf("%s: %d of %zu kernel(s) failed\n", failures ? "FAILED" : "ALL PASSED", failures,
              dirs.size());
  return failures ? 1 : 0;
}
