// Fuzz target for the BEAM cache reader (compiler/search.h): a cache file is untrusted input
// (another process, another version, a torn disk). The input bytes become the entry of a small
// matmul kernel; when the first byte is even they follow a valid header (so the opt lines get
// exercised). Invariants beyond "no crash": a loaded entry's opts either fail to replay with a
// typed error (KernelOptError or kParse) or replay to a kernel that passes the kernel spec and is
// rebuilt identically by a second replay.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/search.h"
#include "rawgpu/compiler/spec.h"
#include "version.h"

namespace {
using namespace rawgpu::compiler;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_beam_cache invariant violated: %s\n", what);
    std::abort();
  }
}

// C[i, j] = sum_k A[i, k] * B[k, j], 8 x 8 x 8 float32.
Ref matmul(Context& ctx) {
  const int64_t n = 8;
  auto buf = [&](int64_t slot) {
    const int64_t a[] = {slot, n * n};
    return ctx.make(Op::kBuffer, DType::kFloat32, {}, Arg::ints(a));
  };
  Ref c = buf(0), a = buf(1), b = buf(2);
  Ref i = ctx.range(n, 0, kAxisLoop), j = ctx.range(n, 1, kAxisLoop),
      k = ctx.range(n, 2, kAxisReduce);
  auto load = [&](Ref bf, Ref idx) {
    return ctx.make(Op::kLoad, DType::kFloat32, {ctx.make(Op::kIndex, DType::kFloat32, {bf, idx})});
  };
  Ref prod = ctx.make(Op::kMul, DType::kFloat32, {load(a, i * n + k), load(b, k * n + j)});
  Ref red = ctx.make(Op::kReduce, DType::kFloat32, {prod, k}, Arg::op(Op::kAdd));
  Ref st = ctx.make(Op::kStore, DType::kVoid,
                    {ctx.make(Op::kIndex, DType::kFloat32, {c, i * n + j}), red});
  return ctx.make(Op::kSink, DType::kVoid, {st});
}

}  // namespace

namespace {
// The scratch cache directory, removed at exit.
struct ScratchDir {
  std::string path =
      (std::filesystem::temp_directory_path() / ("rawgpu-fuzz-beam-" + std::to_string(getpid())))
          .string();
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ScratchDir scratch;
  const std::string& dir = scratch.path;
  static const std::string device = "cpu:fuzz";
  Context ctx;
  const Ref sink = matmul(ctx);
  BeamCache cache(dir, device, 2);
  const std::string path = cache.path(sink->hash());
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (size > 0 && data[0] % 2 == 0)
      out << "rawgpu-beam " << kBeamCacheVersion << "\nversion " RAWGPU_VERSION "\ndevice "
          << device << "\nwidth 2\nkernel " << sink->hash().hex() << "\ntime_us 1\n";
    if (size > 1) out.write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
  }
  auto entry = cache.load(sink->hash());
  if (!entry) return 0;
  auto k = OptKernel::create(sink);
  require(k.ok(), "OptKernel::create on the matmul");
  auto st = k->apply_all(entry->first);
  if (!st.ok()) {
    require(
        kernel_opt_errc(st.error()).has_value() || st.error().code() == rawgpu::Errc::kUnsupported,
        "a refused replay is a typed KernelOptError");
    return 0;
  }
  const Ref ast = k->ast();
  require(verify(ast, Stage::kKernel).ok(), "the replayed kernel passes the kernel spec");
  auto k2 = OptKernel::create(sink);
  require(k2.ok() && k2->apply_all(entry->first).ok(), "the replay is repeatable");
  require(k2->ast() == ast, "a second replay builds the identical kernel");
  return 0;
}
