// Deterministic inputs and host reference outputs for the example kernels (gpu_examples.cpp).
// Each reference is a plain loop nest written from the example's description, accumulating in
// double and rounding to float once; nothing here builds IR or runs the compiler.
//
// Inputs are small dyadic rationals k/8 (k/16 for layernorm's scale and shift), drawn from a
// splitmix64 stream seeded by (seed, example name). Sums of their products are exact in f32 in
// any order, so the kernels made of +, *, max only are checked with zero tolerance; the
// transcendental ones carry a tolerance derived below from the ops they use.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/dtype.h"
#include "rawgpu/compiler/gpu.h"

namespace rawgpu::compiler {
namespace {

class Rng {
 public:
  Rng(uint64_t seed, std::string_view name) : s_(seed * 0x9e3779b97f4a7c15ull) {
    for (char ch : name) s_ = (s_ ^ uint8_t(ch)) * 0x100000001b3ull;  // FNV-1a step per byte
  }
  uint64_t next() {  // splitmix64
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform integer in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }
  // k / den with k uniform in [-kmax, kmax]: exact in f32.
  std::vector<float> dyadic(size_t n, int64_t kmax, double den) {
    std::vector<float> v(n);
    for (float& x : v) x = float(double(range(-kmax, kmax)) / den);
    return v;
  }

 private:
  uint64_t s_;
};

std::vector<uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<uint8_t> bytes_of(const std::vector<uint16_t>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(uint16_t));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Slot 0 (f32 output, `out_count` elements, zeroed) followed by f32 inputs.
void f32_slots(GpuExampleData& d, size_t out_count,
               std::initializer_list<const std::vector<float>*> in) {
  d.dtypes.assign(1 + in.size(), DType::kFloat32);
  d.buffers.clear();
  d.buffers.emplace_back(out_count * sizeof(float), uint8_t{0});
  for (const auto* v : in) d.buffers.push_back(bytes_of(*v));
}

void set_expected(GpuExampleData& d, const std::vector<double>& ref) {
  d.expected.resize(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) d.expected[i] = float(ref[i]);
  d.expected_count = ref.size();
}

constexpr double kLog2e = 1.4426950408889634;

}  // namespace

Result<GpuExampleData> gpu_example_data(std::string_view name, uint64_t seed) {
  Rng rng(seed, name);
  GpuExampleData d;
  if (name == "elementwise") {
    // out = max(a*b + c, 0) + sqrt(exp2(a*0.5)). a*b + c is exact (multiples of 1/64, |.| <= 6);
    // exp2 and sqrt are approximate on every target (v_exp_f32/v_sqrt_f32, ex2.approx, the host
    // expansions): a few ulp each, plus the final add's rounding, well under 1e-6 relative. The
    // output is >= sqrt(exp2(-1)) > 0.7, so a relative bound alone suffices: rtol 1e-5.
    const size_t n = 65536;
    auto a = rng.dyadic(n, 16, 8), b = rng.dyadic(n, 16, 8), c = rng.dyadic(n, 16, 8);
    std::vector<double> ref(n);
    for (size_t i = 0; i < n; ++i) {
      const double x = a[i];
      ref[i] = std::max(x * b[i] + c[i], 0.0) + std::sqrt(std::exp2(x * 0.5));
    }
    f32_slots(d, n, {&a, &b, &c});
    set_expected(d, ref);
    d.rtol = 1e-5;
  } else if (name == "reduce_row") {
    // out[r] = sum_c x[r, c]: multiples of 1/8 with |sum| <= 2048, exact in any order.
    const size_t R = 256, C = 1024;
    auto x = rng.dyadic(R * C, 16, 8);
    std::vector<double> ref(R, 0.0);
    for (size_t r = 0; r < R; ++r)
      for (size_t c = 0; c < C; ++c) ref[r] += x[r * C + c];
    f32_slots(d, R, {&x});
    set_expected(d, ref);
  } else if (name == "softmax") {
    // out[r, c] = exp(x[r, c] - m[r]) / sum_c' exp(x[r, c'] - m[r]), m the row max. Each output
    // is p / s: p carries the rounding of (x - m) * log2e (|arg| <= 5.8: <= ~4 ulp after exp2)
    // and exp2's own error (~2 ulp); s is an f32 sum of 1024 positive terms in the kernel's
    // order, relative error <= 1023 * 2^-24 ~ 6.1e-5 in the worst case; rcp ~1 ulp. All
    // relative, so rtol 1e-4 and no atol.
    const size_t R = 128, C = 1024;
    auto x = rng.dyadic(R * C, 16, 8);
    std::vector<double> ref(R * C);
    for (size_t r = 0; r < R; ++r) {
      const float* row = &x[r * C];
      double m = row[0], s = 0;
      for (size_t c = 1; c < C; ++c) m = std::max(m, double(row[c]));
      for (size_t c = 0; c < C; ++c) s += std::exp2((row[c] - m) * kLog2e);
      for (size_t c = 0; c < C; ++c) ref[r * C + c] = std::exp2((row[c] - m) * kLog2e) / s;
    }
    f32_slots(d, R * C, {&x});
    set_expected(d, ref);
    d.rtol = 1e-4;
  } else if (name == "matmul") {
    // C = A @ B, 256^3: products are multiples of 1/64, |sums| <= 256: exact in any order.
    const size_t N = 256;
    auto a = rng.dyadic(N * N, 8, 8), b = rng.dyadic(N * N, 8, 8);
    std::vector<double> ref(N * N, 0.0);
    for (size_t i = 0; i < N; ++i)
      for (size_t k = 0; k < N; ++k) {
        const double aik = a[i * N + k];
        for (size_t j = 0; j < N; ++j) ref[i * N + j] += aik * b[k * N + j];
      }
    f32_slots(d, N * N, {&a, &b});
    set_expected(d, ref);
  } else if (name == "conv2d") {
    // 3x3, pad 1, stride 1: out[n, co, y, x] = sum in[n, ci, y+ky-1, x+kx-1] * w[co, ci, ky, kx]
    // over ci, ky, kx (zero outside the image). 144 products of multiples of 1/64: exact.
    const int Nb = 2, CI = 16, CO = 32, H = 32, W = 32;
    auto in = rng.dyadic(size_t(Nb * CI * H * W), 8, 8), w = rng.dyadic(size_t(CO * CI * 9), 8, 8);
    std::vector<double> ref(size_t(Nb * CO * H * W), 0.0);
    for (int n = 0; n < Nb; ++n)
      for (int co = 0; co < CO; ++co)
        for (int y = 0; y < H; ++y)
          for (int x = 0; x < W; ++x) {
            double s = 0;
            for (int ci = 0; ci < CI; ++ci)
              for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 3; ++kx) {
                  const int iy = y + ky - 1, ix = x + kx - 1;
                  if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                  s += double(in[size_t(((n * CI + ci) * H + iy) * W + ix)]) *
                       w[size_t(((co * CI + ci) * 3 + ky) * 3 + kx)];
                }
            ref[size_t(((n * CO + co) * H + y) * W + x)] = s;
          }
    f32_slots(d, ref.size(), {&in, &w});
    set_expected(d, ref);
  } else if (name == "layernorm") {
    // out[r, c] = (x - mean) / sqrt(var + 1e-5) * g[c] + b[c], mean and (biased) var over the
    // row of 768. In f32: the row sum is exact, mean = sum * (1/768) two roundings; the
    // variance is a sum of 768 squares, worst-case relative error 768 * 2^-24 ~ 4.6e-5, which
    // reaches the inverse deviation halved (~2.3e-5, plus a few ulp of sqrt and rcp). With
    // |x - mean| <= 2.2, inv ~ 0.84 and g in [0.5, 1.5] the scaled term P = |(x-mean)*inv*g|
    // is <= 2.8 with absolute error <= ~2.5e-5 * P; b in [-0.5, 0.5] can cancel it only while
    // P <= 0.5. atol 2e-5 covers P < 0.4 and rtol 1e-4 the rest.
    const size_t R = 128, C = 768;
    auto x = rng.dyadic(R * C, 16, 8);
    std::vector<float> g(C), b(C);
    for (size_t c = 0; c < C; ++c) {
      g[c] = float(1.0 + double(rng.range(-8, 8)) / 16);
      b[c] = float(double(rng.range(-8, 8)) / 16);
    }
    std::vector<double> ref(R * C);
    for (size_t r = 0; r < R; ++r) {
      const float* row = &x[r * C];
      double mean = 0, var = 0;
      for (size_t c = 0; c < C; ++c) mean += row[c];
      mean /= double(C);
      for (size_t c = 0; c < C; ++c) var += (row[c] - mean) * (row[c] - mean);
      var /= double(C);
      const double inv = 1.0 / std::sqrt(var + 1e-5);
      for (size_t c = 0; c < C; ++c) ref[r * C + c] = (row[c] - mean) * inv * g[c] + b[c];
    }
    f32_slots(d, R * C, {&x, &g, &b});
    set_expected(d, ref);
    d.atol = 2e-5;
    d.rtol = 1e-4;
  } else if (name == "attention") {
    // out[q, :] = sum_j p[q, j] V[j, :] / sum_j p[q, j], p = exp(s - max_j s), s[q, j] =
    // Q[q, :] . K[j, :] / sqrt(64). Q, K in [-0.5, 0.5] (k/8): the scores are multiples of
    // 1/512 with |s| <= 2, exact in f32; V in [-2, 2]. Each p carries ~6 ulp (log2e product
    // rounding for |arg| <= 5.8, exp2); l = sum of 128 p's and o = sum of 128 p*V have
    // worst-case relative errors 127 * 2^-24 ~ 7.6e-6 of sum p and of sum |p*V| <= 2 sum p, so
    // |o/l - out| <= ~3.1e-5 with |out| <= 2 (rcp ~1 ulp on top): atol 4e-5.
    const size_t S = 128, D = 64;
    auto q = rng.dyadic(S * D, 4, 8), k = rng.dyadic(S * D, 4, 8), v = rng.dyadic(S * D, 16, 8);
    std::vector<double> ref(S * D), s(S);
    for (size_t qi = 0; qi < S; ++qi) {
      double m = -INFINITY, l = 0;
      for (size_t j = 0; j < S; ++j) {
        double dot = 0;
        for (size_t e = 0; e < D; ++e) dot += double(q[qi * D + e]) * k[j * D + e];
        s[j] = dot / std::sqrt(double(D));
        m = std::max(m, s[j]);
      }
      for (size_t j = 0; j < S; ++j) l += std::exp2((s[j] - m) * kLog2e);
      for (size_t di = 0; di < D; ++di) {
        double o = 0;
        for (size_t j = 0; j < S; ++j) o += std::exp2((s[j] - m) * kLog2e) * v[j * D + di];
        ref[qi * D + di] = o / l;
      }
    }
    f32_slots(d, S * D, {&q, &k, &v});
    set_expected(d, ref);
    d.atol = 4e-5;
  } else if (name == "matmul_tc" || name == "matmul_tc_bf16") {
    // C = f32(A) @ f32(B), 256^3, A and B f16 (bf16) holding integers in [-8, 8] (exact in
    // either format); integer sums |.| <= 16384 are exact in f32 in any order: atol 0.
    const size_t N = 256;
    const bool half = name == "matmul_tc";
    std::vector<uint16_t> a(N * N), b(N * N);
    std::vector<double> av(N * N), bv(N * N);
    for (size_t i = 0; i < N * N; ++i) {
      av[i] = double(rng.range(-8, 8));
      bv[i] = double(rng.range(-8, 8));
      a[i] = half ? float_to_half(float(av[i])) : float_to_bf16(float(av[i]));
      b[i] = half ? float_to_half(float(bv[i])) : float_to_bf16(float(bv[i]));
    }
    std::vector<double> ref(N * N, 0.0);
    for (size_t i = 0; i < N; ++i)
      for (size_t k = 0; k < N; ++k)
        for (size_t j = 0; j < N; ++j) ref[i * N + j] += av[i * N + k] * bv[k * N + j];
    const DType in = half ? DType::kFloat16 : DType::kBFloat16;
    d.dtypes = {DType::kFloat32, in, in};
    d.buffers = {std::vector<uint8_t>(N * N * sizeof(float), 0), bytes_of(a), bytes_of(b)};
    set_expected(d, ref);
  } else if (name == "elementwise_n") {
    // out[i] = a[i] * 2 + 1 for i < n; buffers sized to the AST's cap (2^20), n = 1000 (not a
    // multiple of the 256-thread work-group, so the last group is partly masked). Exact.
    const size_t cap = size_t{1} << 20, n = 1000;
    auto a = rng.dyadic(cap, 64, 8);
    std::vector<double> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = double(a[i]) * 2 + 1;
    f32_slots(d, cap, {&a});
    set_expected(d, ref);
    d.var_values = {int64_t(n)};
  } else {
    // Unknown: exactly the error gpu_example gives for the name.
    Context ctx;
    auto e = gpu_example(ctx, name);
    if (!e) return std::move(e).take_error();
    return make_error(Errc::kInternal, "example '%.*s' has no data", int(name.size()), name.data());
  }
  return d;
}

}  // namespace rawgpu::compiler

namespace rawgpu::compiler {

GpuExampleCheck check_gpu_example(const GpuExampleData& d, std::span<const uint8_t> output) {
  GpuExampleCheck r;
  const size_t have = output.size() / sizeof(float);
  const size_t n = std::min({d.expected_count, d.expected.size(), have});
  r.failures = d.expected_count - n;
  double worst_ratio = -1;
  for (size_t i = 0; i < n; ++i) {
    float got;
    std::memcpy(&got, output.data() + i * sizeof(float), sizeof(float));
    const double want = d.expected[i];
    const double err = std::isnan(got) ? INFINITY : std::fabs(double(got) - want);
    const double tol = d.atol + d.rtol * std::fabs(want);
    if (!(err <= tol)) ++r.failures;
    r.max_abs_err = std::max(r.max_abs_err, err);
    if (want != 0) r.max_rel_err = std::max(r.max_rel_err, err / std::fabs(want));
    const double ratio = tol > 0 ? err / tol : (err > 0 ? INFINITY : 0);
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      r.worst = i;
      r.worst_got = got;
      r.worst_want = float(want);
    }
  }
  r.checked = n;
  return r;
}

std::string GpuExampleCheck::summary() const {
  return strformat(
      "%zu checked, %zu failed, max abs err %.3g, max rel err %.3g (worst [%zu]: got %.9g, want "
      "%.9g)",
      checked, failures, max_abs_err, max_rel_err, worst, double(worst_got), double(worst_want));
}

}  // namespace rawgpu::compiler
