// Device check (not part of the build): loads cubins written by `rawgpu compile` through the CUDA
// driver API (libcuda.so.1 via dlopen, so it builds without the CUDA toolkit) and compares
// their results with a CPU reference:
//   matmul_tc / matmul_tc_bf16 (256x256x256, f16/bf16 in, f32 out; small-integer inputs, so the
//   result must match exactly) and elementwise_n (symbolic n: out[i] = 2 a[i] + 1 for i < n,
//   untouched past n).
// Usage: cuda_tc_check DIR   (DIR/<kernel>/kernel.cubin, as `rawgpu compile -o X` writes X/sm_90)
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
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
  CUresult (*cuCtxCreate)(CUcontext*, unsigned, CUdevice);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
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
int failures = 0;

#define CK(call)                                                                      \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != 0) {                                                                    \
      std::printf("FAIL %s:%d %s -> CUDA error %d\n", __FILE__, __LINE__, #call, r_); \
      ++failures;                                                                     \
      return;                                                                         \
    }                                                                                 \
  } while (0)

template <class F>
void sym(F& f, void* lib, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) {
    std::printf("FAIL: libcuda has no %s\n", name);
    std::exit(1);
  }
}

uint16_t to_half(float x) {  // exact for the small integers used here
  uint32_t b;
  std::memcpy(&b, &x, 4);
  const uint32_t s = (b >> 16) & 0x8000;
  if (x == 0) return uint16_t(s);
  const int e = int((b >> 23) & 0xff) - 127 + 15;
  const uint32_t m = (b >> 13) & 0x3ff;
  return uint16_t(s | uint32_t(e) << 10 | m);
}
uint16_t to_bf16(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return uint16_t(b >> 16);
}

std::vector<char> read(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void matmul(const std::string& dir, const char* name, bool bf16) {
  const int n = 256;
  auto bin = read(dir + "/" + name + "/kernel.cubin");
  if (bin.empty()) {
    std::printf("FAIL %s: no cubin\n", name);
    ++failures;
    return;
  }
  CUmodule mod;
  CUfunction fn;
  CK(api.cuModuleLoadData(&mod, bin.data()));
  CK(api.cuModuleGetFunction(&fn, mod, name));
  std::vector<float> a(n * n), b(n * n), ref(n * n, 0.f), out(n * n, -1.f);
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return float(int((seed >> 16) % 9) - 4);
  };
  for (auto& x : a) x = rnd();
  for (auto& x : b) x = rnd();
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j) ref[i * n + j] += a[i * n + k] * b[k * n + j];
  std::vector<uint16_t> ah(n * n), bh(n * n);
  for (int i = 0; i < n * n; ++i) {
    ah[i] = bf16 ? to_bf16(a[i]) : to_half(a[i]);
    bh[i] = bf16 ? to_bf16(b[i]) : to_half(b[i]);
  }
  CUdeviceptr dout, da, db;
  CK(api.cuMemAlloc(&dout, out.size() * 4));
  CK(api.cuMemAlloc(&da, ah.size() * 2));
  CK(api.cuMemAlloc(&db, bh.size() * 2));
  CK(api.cuMemcpyHtoD(dout, out.data(), out.size() * 4));
  CK(api.cuMemcpyHtoD(da, ah.data(), ah.size() * 2));
  CK(api.cuMemcpyHtoD(db, bh.data(), bh.size() * 2));
  void* args[] = {&dout, &da, &db};
  // One warp per 16x8 tile: grid (N/8, M/16), block 32 (summary.json of the compile).
  CK(api.cuLaunchKernel(fn, n / 8, n / 16, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  CK(api.cuCtxSynchronize());
  CK(api.cuMemcpyDtoH(out.data(), dout, out.size() * 4));
  int bad = 0;
  for (int i = 0; i < n * n; ++i)
    if (out[i] != ref[i] && bad++ < 5)
      std::printf("  %s: C[%d][%d] = %g, expected %g\n", name, i / n, i % n, out[i], ref[i]);
  std::printf("%s %s: %d of %d elements differ\n", bad ? "FAIL" : "PASS", name, bad, n * n);
  failures += bad != 0;
  api.cuMemFree(dout);
  api.cuMemFree(da);
  api.cuMemFree(db);
}

void elementwise_n(const std::string& dir, int64_t nval) {
  auto bin = read(dir + "/elementwise_n/kernel.cubin");
  if (bin.empty()) {
    std::printf("FAIL elementwise_n: no cubin\n");
    ++failures;
    return;
  }
  CUmodule mod;
  CUfunction fn;
  CK(api.cuModuleLoadData(&mod, bin.data()));
  CK(api.cuModuleGetFunction(&fn, mod, "elementwise_n"));
  const size_t cap = size_t(nval) + 4096;
  std::vector<float> a(cap), out(cap, -7.f);
  for (size_t i = 0; i < cap; ++i) a[i] = float(i % 1000);
  CUdeviceptr dout, da;
  CK(api.cuMemAlloc(&dout, cap * 4));
  CK(api.cuMemAlloc(&da, cap * 4));
  CK(api.cuMemcpyHtoD(dout, out.data(), cap * 4));
  CK(api.cuMemcpyHtoD(da, a.data(), cap * 4));
  void* args[] = {&dout, &da, &nval};
  const unsigned blocks = unsigned((nval + 255) / 256);  // launch_global: ceil(n / 256)
  CK(api.cuLaunchKernel(fn, blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CK(api.cuCtxSynchronize());
  CK(api.cuMemcpyDtoH(out.data(), dout, cap * 4));
  int bad = 0;
  for (size_t i = 0; i < cap; ++i) {
    const float want = int64_t(i) < nval ? 2 * a[i] + 1 : -7.f;
    if (out[i] != want && bad++ < 5)
      std::printf("  elementwise_n(n=%lld): out[%zu] = %g, expected %g\n", (long long)nval, i,
                  out[i], want);
  }
  std::printf("%s elementwise_n n=%lld (%u blocks): %d wrong\n", bad ? "FAIL" : "PASS",
              (long long)nval, blocks, bad);
  failures += bad != 0;
  api.cuMemFree(dout);
  api.cuMemFree(da);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::printf("usage: %s DIR\n", argv[0]);
    return 2;
  }
  void* lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    std::printf("SKIPPED: no libcuda.so.1 (%s)\n", dlerror());
    return 0;
  }
  sym(api.cuInit, lib, "cuInit");
  sym(api.cuDeviceGet, lib, "cuDeviceGet");
  sym(api.cuCtxCreate, lib, "cuCtxCreate_v2");
  sym(api.cuModuleLoadData, lib, "cuModuleLoadData");
  sym(api.cuModuleGetFunction, lib, "cuModuleGetFunction");
  sym(api.cuMemAlloc, lib, "cuMemAlloc_v2");
  sym(api.cuMemcpyHtoD, lib, "cuMemcpyHtoD_v2");
  sym(api.cuMemcpyDtoH, lib, "cuMemcpyDtoH_v2");
  sym(api.cuLaunchKernel, lib, "cuLaunchKernel");
  sym(api.cuCtxSynchronize, lib, "cuCtxSynchronize");
  sym(api.cuMemFree, lib, "cuMemFree_v2");
  CUdevice dev;
  CUcontext ctx;
  if (api.cuInit(0) || api.cuDeviceGet(&dev, 0) || api.cuCtxCreate(&ctx, 0, dev)) {
    std::printf("FAIL: no CUDA device/context\n");
    return 1;
  }
  const std::string dir = argv[1];
  matmul(dir, "matmul_tc", false);
  matmul(dir, "matmul_tc_bf16", true);
  for (int64_t n : {1, 255, 1000, 100003}) elementwise_n(dir, n);
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "ALL PASSED", failures);
  return failures ? 1 : 0;
}
