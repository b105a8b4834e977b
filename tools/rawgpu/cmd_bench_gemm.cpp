// `rawgpu bench gemm`: GFLOPS of C = A @ B through the Tensor API on the CPU device, optionally
// next to OpenBLAS's cblas_sgemm (loaded with dlopen at run time: never a build dependency).
#include <dlfcn.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "bench_stats.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/frontend/tensor.h"

namespace rawgpu::tools {

namespace {

using compiler::DType;
using frontend::Tensor;
using Clock = std::chrono::steady_clock;

// OpenBLAS through dlopen (kept loaded until exit). CBLAS enums: RowMajor 101, NoTrans 111.
struct Blas {
  void* handle = nullptr;
  void (*sgemm)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                float*, int) = nullptr;
  void (*set_threads)(int) = nullptr;
  std::string error;
  static Blas open() {
    Blas b;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
      b.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (b.handle) break;
    }
    if (!b.handle) {
      b.error =
          "OpenBLAS is not installed (dlopen libopenblas.so.0 failed; on Debian/Ubuntu: apt-get "
          "install libopenblas-dev)";
      return b;
    }
    b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(b.handle, "cblas_sgemm"));
    b.set_threads =
        reinterpret_cast<decltype(b.set_threads)>(dlsym(b.handle, "openblas_set_num_threads"));
    if (!b.sgemm) b.error = "libopenblas has no cblas_sgemm symbol";
    return b;
  }
  bool ok() const { return sgemm != nullptr; }
};

// Checks c (n x n) against a double-precision reference on `rows` rows (all when n <= 256).
// Tolerance relative to sum |a||b| per element.
Status check_result(const std::vector<double>& a, const std::vector<double>& b,
                    const std::vector<double>& c, int64_t n, double tol, std::mt19937_64& rng,
                    double* max_err) {
  std::vector<int64_t> rows;
  if (n <= 256) {
    for (int64_t i = 0; i < n; ++i) rows.push_back(i);
  } else {
    for (int k = 0; k < 8; ++k) rows.push_back(int64_t(rng() % uint64_t(n)));
    rows.push_back(0);
    rows.push_back(n - 1);
  }
  std::vector<double> ref(static_cast<size_t>(n)), mag(static_cast<size_t>(n));
  *max_err = 0;
  for (int64_t i : rows) {
    std::fill(ref.begin(), ref.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (int64_t k = 0; k < n; ++k) {
      const double av = a[size_t(i * n + k)];
      const double* brow = &b[size_t(k * n)];
      for (int64_t j = 0; j < n; ++j) {
        ref[size_t(j)] += av * brow[j];
        mag[size_t(j)] += std::fabs(av * brow[j]);
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      const double got = c[size_t(i * n + j)];
      const double err = std::fabs(got - ref[size_t(j)]) / std::max(mag[size_t(j)], 1e-30);
      if (!(err <= tol))  // NaN fails too
        return make_error(Errc::kInternal,
                          "gemm result wrong at C[%lld][%lld]: got %.9g, reference %.9g "
                          "(relative error %.3g > %.3g)",
                          (long long)i, (long long)j, got, ref[size_t(j)], err, tol);
      *max_err = std::max(*max_err, err);
    }
  }
  return ok_status();
}

int bench_gemm_impl(const cli::Args& args, cli::Io& io) {
  auto fail = [&](const Error& e) {
    io.err << "rawgpu bench gemm: " << e.to_string() << "\n";
    return cli::kExitFailure;
  };
  auto usage = [&](const std::string& msg) {
    io.err << "rawgpu bench gemm: " << msg << "\n";
    return cli::kExitUsage;
  };
  auto nr = args.get_u64_in("n", 1, 8192);
  if (!nr.ok()) return usage(nr.error().message());
  const int64_t n = int64_t(*nr);
  const std::string dname = args.get("dtype").value_or("f32");
  DType dt;
  double tol;
  if (dname == "f32" || dname == "float32") {
    dt = DType::kFloat32;
    tol = 1e-5;
  } else if (dname == "f16" || dname == "float16") {
    dt = DType::kFloat16;
    tol = 2e-2;
  } else if (dname == "bf16" || dname == "bfloat16") {
    dt = DType::kBFloat16;
    tol = 5e-2;
  } else {
    return usage("--dtype " + dname + ": expected f32, f16 or bf16");
  }
  const std::string device = args.get("device").value_or("cpu");
  if (device != "cpu") return usage("--device " + device + ": gemm runs on the cpu device only");
  auto runs_r = args.get_u64_in("repeats", 10, 1000);
  if (!runs_r.ok()) return usage(runs_r.error().message());
  const int runs = int(*runs_r);
  std::optional<uint64_t> seed_arg;
  if (args.get("seed")) {
    auto sr = args.get_u64("seed");
    if (!sr.ok()) return usage(sr.error().message());
    seed_arg = *sr;
  }
  if (auto beam = args.get("beam")) {
    auto k = args.get_u64_in("beam", 0, 64);
    if (!k.ok()) return usage(k.error().message());
    // Read by the compiler when the CPU device compiles the kernel (BEAM search).
    setenv("RAWGPU_BEAM", std::to_string(*k).c_str(), 1);
  }
  const bool compare = args.flag("compare-blas");

  // Fresh random inputs every invocation unless --seed is given (the seed is printed).
  const uint64_t seed = seed_arg ? *seed_arg : uint64_t(Clock::now().time_since_epoch().count());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> ha(size_t(n * n)), hb(size_t(n * n));
  for (float& x : ha) x = dist(rng);
  for (float& x : hb) x = dist(rng);
  Tensor a = Tensor::from(ha, {n, n}), b = Tensor::from(hb, {n, n});
  if (dt != DType::kFloat32) {
    a = a.cast(dt);
    b = b.cast(dt);
  }
  if (auto st = Tensor::realize_all(std::vector<Tensor>{a, b}); !st.ok()) return fail(st.error());
  auto da = a.to_doubles();
  if (!da.ok()) return fail(da.error());
  auto db = b.to_doubles();
  if (!db.ok()) return fail(db.error());
  // The rounded inputs as f32 for BLAS (exact: f16/bf16 values are floats).
  std::vector<float> fa(da->begin(), da->end()), fb(db->begin(), db->end());

  // Compile + first run, then check before any timing.
  const auto tc0 = Clock::now();
  Tensor c = a.matmul(b);
  if (auto st = c.realize(); !st.ok()) return fail(st.error());
  const double first_ms = std::chrono::duration<double, std::milli>(Clock::now() - tc0).count();
  auto dc = c.to_doubles();
  if (!dc.ok()) return fail(dc.error());
  double max_err = 0;
  if (auto st = check_result(*da, *db, *dc, n, tol, rng, &max_err); !st.ok())
    return fail(st.error());

  Blas blas;
  std::vector<float> hc;
  int blas_threads = 2;
  if (compare) {
    blas = Blas::open();
    if (blas.ok()) {
      if (blas.set_threads) blas.set_threads(blas_threads);
      hc.assign(size_t(n * n), 0.0f);
      blas.sgemm(101, 111, 111, int(n), int(n), int(n), 1.0f, fa.data(), int(n), fb.data(), int(n),
                 0.0f, hc.data(), int(n));
      std::vector<double> bc(hc.begin(), hc.end());
      double berr = 0;
      if (auto st = check_result(*da, *db, bc, n, std::max(tol, 1e-5), rng, &berr); !st.ok())
        return fail(std::move(st).take_error().with_context("OpenBLAS result"));
    }
  }

  // Warm-up, then timed runs; with --compare-blas the two alternate so both see the same load.
  auto time_ours = [&]() -> Result<double> {
    Tensor t = a.matmul(b);
    const auto t0 = Clock::now();
    RG_TRY(t.realize());
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  auto time_blas = [&]() {
    const auto t0 = Clock::now();
    blas.sgemm(101, 111, 111, int(n), int(n), int(n), 1.0f, fa.data(), int(n), fb.data(), int(n),
               0.0f, hc.data(), int(n));
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  for (int i = 0; i < 2; ++i) {
    if (auto r = time_ours(); !r.ok()) return fail(r.error());
    if (blas.ok()) time_blas();
  }
  std::vector<double> ours, theirs;
  for (int i = 0; i < runs; ++i) {
    auto r = time_ours();
    if (!r.ok()) return fail(r.error());
    ours.push_back(*r);
    if (blas.ok()) theirs.push_back(time_blas());
  }
  const double flops = 2.0 * double(n) * double(n) * double(n);
  const double t_ours = median_of(ours), g_ours = flops / t_ours * 1e-9;
  const double t_blas = theirs.empty() ? 0 : median_of(theirs);
  const double g_blas = t_blas > 0 ? flops / t_blas * 1e-9 : 0;
  const char* beam = std::getenv("RAWGPU_BEAM");
  const char* noopt = std::getenv("RAWGPU_NOOPT");
  const std::string mode = noopt && std::string(noopt) == "1" ? "no opts (RAWGPU_NOOPT=1)"
                           : beam && std::string(beam) != "0" ? strformat("beam %s", beam)
                                                              : std::string("heuristic");
  if (args.flag("json")) {
    io.out << json_document("bench gemm", [&](llvm::json::OStream& j) {
      j.attribute("n", n);
      j.attribute("dtype", std::string(compiler::dtype_name(dt)));
      j.attribute("device", device);
      j.attribute("opts", mode);
      j.attribute("runs", runs);
      j.attribute("seed", int64_t(seed));
      j.attribute("median_s", t_ours);
      j.attribute("gflops", g_ours);
      j.attribute("first_run_ms", first_ms);
      j.attribute("max_rel_error", max_err);
      if (compare) {
        j.attribute("blas_available", blas.ok());
        if (blas.ok()) {
          j.attribute("blas_threads", blas_threads);
          j.attribute("blas_median_s", t_blas);
          j.attribute("blas_gflops", g_blas);
          j.attribute("ratio", g_ours / g_blas);
        } else {
          j.attribute("blas_error", blas.error);
        }
      }
    });
    return cli::kExitOk;
  }
  io.out << strformat(
      "gemm %lldx%lldx%lld %s on %s (%s): %.2f GFLOPS (median %.3f ms of %d runs; first run "
      "incl. compile %.1f ms; checked, max relative error %.2g; seed %llu)\n",
      (long long)n, (long long)n, (long long)n, std::string(compiler::dtype_name(dt)).c_str(),
      device.c_str(), mode.c_str(), g_ours, t_ours * 1e3, runs, first_ms, max_err,
      (unsigned long long)seed);
  if (compare) {
    if (blas.ok())
      io.out << strformat(
          "openblas cblas_sgemm (%d threads, f32, same inputs): %.2f GFLOPS (median %.3f ms); "
          "ratio rawgpu/openblas = %.3f\n",
          blas_threads, g_blas, t_blas * 1e3, g_ours / g_blas);
    else
      io.out << "openblas: not compared: " << blas.error << "\n";
  }
  return 0;
}

}  // namespace

int bench_gemm(const cli::Args& args, cli::Io& io) { return bench_gemm_impl(args, io); }

}  // namespace rawgpu::tools
