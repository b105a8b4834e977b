// Example kernels from hand-written kernel ASTs (compile-only device, `rawgpu compile`, tests).
// Each is a complete kernel: buffers by slot (slot 0 is the output unless noted), constant
// shapes, and the GPU options that shape it (local sizes, GROUP).
#include <cmath>

#include "rawgpu/base/format.h"
#include "rawgpu/compiler/gpu.h"

namespace rawgpu::compiler {
namespace {

constexpr std::string_view kNames[] = {"elementwise",    "reduce_row",   "softmax",   "matmul",
                                       "conv2d",         "layernorm",    "attention", "matmul_tc",
                                       "matmul_tc_bf16", "elementwise_n"};

struct B {
  Context& c;
  Ref buffer(int64_t slot, int64_t count, DType t = DType::kFloat32) {
    const int64_t a[] = {slot, count};
    return c.make(Op::kBuffer, t, {}, Arg::ints(a));
  }
  Ref local(int64_t slot, int64_t count, DType t = DType::kFloat32) {
    const int64_t a[] = {slot, count, kBufferLocal};
    return c.make(Op::kBuffer, t, {}, Arg::ints(a));
  }
  Ref index(Ref b, Ref i) { return c.make(Op::kIndex, b->dtype(), {b, i}); }
  Ref load(Ref b, Ref i) { return c.make(Op::kLoad, b->dtype(), {index(b, i)}); }
  Ref store(Ref b, Ref i, Ref v) { return c.make(Op::kStore, DType::kVoid, {index(b, i), v}); }
  Ref reduce(Op op, Ref v, std::initializer_list<Ref> rs) {
    std::vector<Ref> src{v};
    src.insert(src.end(), rs.begin(), rs.end());
    return c.make(Op::kReduce, v->dtype(), src, Arg::op(op));
  }
  Ref f(double v) { return c.cfloat(v); }
  Ref un(Op op, Ref x) { return c.make(op, x->dtype(), {x}); }
  Ref special(const char* name, int64_t n) {
    return c.make(Op::kSpecial, DType::kIndex, {c.cint(n)}, Arg::str(name));
  }
  Ref loop(int64_t n, int64_t axis) { return c.range(n, axis, kAxisLoop); }
  Ref red(int64_t n, int64_t axis) { return c.range(n, axis, kAxisReduce); }
  Ref sink(std::initializer_list<Ref> st) { return c.make(Op::kSink, DType::kVoid, st); }
};

}  // namespace

std::span<const std::string_view> gpu_example_names() { return kNames; }

Result<GpuExample> gpu_example(Context& ctx, std::string_view name) {
  B k{ctx};
  GpuExample e;
  e.name = std::string(name);
  if (name == "elementwise") {
    // out = max(a*b + c, 0) + sqrt(exp2(a*0.5)), 65536 elements.
    const int64_t n = 65536;
    Ref out = k.buffer(0, n), a = k.buffer(1, n), b = k.buffer(2, n), c = k.buffer(3, n);
    Ref i = k.loop(n, 0);
    Ref x = k.load(a, i);
    Ref t = x * k.load(b, i) + k.load(c, i);
    Ref v = max(t, k.f(0.0)) + k.un(Op::kSqrt, k.un(Op::kExp2, x * k.f(0.5)));
    e.sink = k.sink({k.store(out, i, v)});
    e.description = "elementwise chain (mul, add, relu, exp2, sqrt) over 65536 f32";
  } else if (name == "reduce_row") {
    // out[r] = sum_c x[r, c], 256 x 1024, GROUP 256.
    const int64_t R = 256, C = 1024;
    Ref out = k.buffer(0, R), x = k.buffer(1, R * C);
    Ref r = k.loop(R, 0), c = k.red(C, 1);
    e.sink = k.sink({k.store(out, r, k.reduce(Op::kAdd, k.load(x, r * C + c), {c}))});
    e.options.group = 256;
    e.description = "row sum 256x1024 with a 256-lane group reduction through LDS/shared";
  } else if (name == "softmax") {
    // out[r, c] = exp2((x - max) * log2e) / sum(exp2((x - max) * log2e)), 128 x 1024.
    const int64_t R = 128, C = 1024;
    Ref out = k.buffer(0, R * C), x = k.buffer(1, R * C);
    Ref r = k.loop(R, 0), c = k.loop(C, 1), c1 = k.red(C, 2), c2 = k.red(C, 3);
    const double log2e = 1.4426950408889634;
    Ref m = k.reduce(Op::kMax, k.load(x, r * C + c1), {c1});
    Ref s = k.reduce(Op::kAdd, k.un(Op::kExp2, (k.load(x, r * C + c2) - m) * k.f(log2e)), {c2});
    Ref v = k.un(Op::kExp2, (k.load(x, r * C + c) - m) * k.f(log2e)) * k.un(Op::kRecip, s);
    e.sink = k.sink({k.store(out, r * C + c, v)});
    e.options.group = 128;
    e.description =
        "row softmax 128x1024: two group reductions (max, sum), output strided over lanes";
  } else if (name == "matmul") {
    // C = A @ B, 256^3, 16x16 tiles staged through local memory (launch ids written by hand).
    const int64_t N = 256, T = 16;
    Ref C = k.buffer(0, N * N), A = k.buffer(1, N * N), Bm = k.buffer(2, N * N);
    Ref As = k.local(0, T * T), Bs = k.local(1, T * T);
    Ref gx = k.special("gidx0", N / T), gy = k.special("gidx1", N / T);
    Ref lx = k.special("lidx0", T), ly = k.special("lidx1", T);
    Ref kt = k.red(N / T, 2), kk = k.red(T, 3);
    Ref row = gy * T + ly, col = gx * T + lx;
    Ref sa = k.store(As, ly * T + lx, k.load(A, row * N + kt * T + lx));
    Ref sb = k.store(Bs, ly * T + lx, k.load(Bm, (kt * T + ly) * N + col));
    Ref as = ctx.make(Op::kAfter, DType::kFloat32, {As, sa, sb});
    Ref bs = ctx.make(Op::kAfter, DType::kFloat32, {Bs, sa, sb});
    Ref dot = k.reduce(Op::kAdd,
                       ctx.make(Op::kLoad, DType::kFloat32, {k.index(as, ly * T + kk)}) *
                           ctx.make(Op::kLoad, DType::kFloat32, {k.index(bs, kk * T + lx)}),
                       {kk});
    Ref acc = k.reduce(Op::kAdd, dot, {kt});
    e.sink = k.sink({k.store(C, row * N + col, acc)});
    e.description = "matmul 256x256x256 f32, 16x16 work-groups, 16x16 A/B tiles in local memory";
  } else if (name == "conv2d") {
    // out[n, co, y, x] = sum_{ci, ky, kx} in[n, ci, y+ky-1, x+kx-1] (zero padded) * w[co, ci,
    // ky, kx]; N=2, Cin=16, Cout=32, 32x32: four output axes (merged into three launch dims).
    const int64_t Nb = 2, CI = 16, CO = 32, H = 32, W = 32;
    Ref out = k.buffer(0, Nb * CO * H * W), in = k.buffer(1, Nb * CI * H * W),
        w = k.buffer(2, CO * CI * 9);
    Ref n = k.loop(Nb, 0), co = k.loop(CO, 1), y = k.loop(H, 2), x = k.loop(W, 3);
    Ref ci = k.red(CI, 4), ky = k.red(3, 5), kx = k.red(3, 6);
    Ref iy = y + ky - 1, ix = x + kx - 1;
    Ref valid = (cmplt(iy, 0) ^ ctx.cbool(true)) & cmplt(iy, H) & (cmplt(ix, 0) ^ ctx.cbool(true)) &
                cmplt(ix, W);
    Ref idx = where(valid, ((n * CI + ci) * H + iy) * W + ix, ctx.invalid());
    Ref v = ctx.make(Op::kLoad, DType::kFloat32, {k.index(in, idx)}) *
            k.load(w, ((co * CI + ci) * 3 + ky) * 3 + kx);
    e.sink = k.sink(
        {k.store(out, ((n * CO + co) * H + y) * W + x, k.reduce(Op::kAdd, v, {ci, ky, kx}))});
    e.description = "conv2d 3x3 pad 1, 2x16x32x32 -> 2x32x32x32, masked (gated) input loads";
  } else if (name == "layernorm") {
    // out[r, c] = (x - mean) / sqrt(var + 1e-5) * g[c] + b[c], 128 x 768, GROUP 256.
    const int64_t R = 128, C = 768;
    Ref out = k.buffer(0, R * C), x = k.buffer(1, R * C), g = k.buffer(2, C), bb = k.buffer(3, C);
    Ref r = k.loop(R, 0), c = k.loop(C, 1), c1 = k.red(C, 2), c2 = k.red(C, 3);
    Ref mean = k.reduce(Op::kAdd, k.load(x, r * C + c1), {c1}) * k.f(1.0 / double(C));
    Ref d2 = k.load(x, r * C + c2) - mean;
    Ref var = k.reduce(Op::kAdd, d2 * d2, {c2}) * k.f(1.0 / double(C));
    Ref inv = k.un(Op::kRecip, k.un(Op::kSqrt, var + k.f(1e-5)));
    Ref v = (k.load(x, r * C + c) - mean) * inv * k.load(g, c) + k.load(bb, c);
    e.sink = k.sink({k.store(out, r * C + c, v)});
    e.options.group = 256;
    e.description = "layernorm 128x768: mean and variance as group reductions";
  } else if (name == "attention") {
    // One attention head, fused into one kernel: out[q, d] = sum_j p[q, j] * V[j, d] / l[q]
    // with s[q, j] = (Q[q, :] . K[j, :]) / sqrt(D), m[q] = max_j s[q, j],
    // p[q, j] = exp2((s[q, j] - m[q]) * log2e), l[q] = sum_j p[q, j]. S = 128 queries and keys,
    // head size D = 64, Q/K/V/out row-major [S, D]. Each output element recomputes its row's
    // scores in three key loops (max, sum, weighted V): three REDUCEs over keys, each with a
    // nested REDUCE over the head dimension for the dot product.
    const int64_t S = 128, D = 64;
    Ref out = k.buffer(0, S * D), q = k.buffer(1, S * D), kb = k.buffer(2, S * D),
        v = k.buffer(3, S * D);
    Ref qi = k.loop(S, 0), di = k.loop(D, 1);
    const double scale = 1.0 / std::sqrt(double(D)), log2e = 1.4426950408889634;
    int64_t axis = 2;
    auto score = [&](Ref j) {
      Ref e = k.red(D, axis++);
      return k.reduce(Op::kAdd, k.load(q, qi * D + e) * k.load(kb, j * D + e), {e}) * k.f(scale);
    };
    Ref j1 = k.red(S, axis++);
    Ref m = k.reduce(Op::kMax, score(j1), {j1});
    Ref j2 = k.red(S, axis++);
    Ref l = k.reduce(Op::kAdd, k.un(Op::kExp2, (score(j2) - m) * k.f(log2e)), {j2});
    Ref j3 = k.red(S, axis++);
    Ref o = k.reduce(Op::kAdd,
                     k.un(Op::kExp2, (score(j3) - m) * k.f(log2e)) * k.load(v, j3 * D + di), {j3});
    e.sink = k.sink({k.store(out, qi * D + di, o * k.un(Op::kRecip, l))});
    e.description =
        "attention head 128x128, d=64 f32: softmax(Q.K^T/sqrt(d)).V fused (max, sum, P.V)";
  } else if (name == "elementwise_n") {
    // out[i] = a[i] * 2 + 1 for i < n, n a launch-time variable in [1, 2^20]: the work-group
    // count is ceil(n / 256) (GpuKernel::global_expr), threads past n are masked.
    const int64_t cap = 1 << 20;
    Ref n = ctx.var("n", 1, cap);
    Ref out = k.buffer(0, cap), a = k.buffer(1, cap);
    Ref i = ctx.range(n, 0, kAxisLoop);
    e.sink = k.sink({k.store(out, i, k.load(a, i) * k.f(2.0) + k.f(1.0))});
    e.description = "elementwise over a symbolic n <= 2^20 (symbolic launch size, gated tail)";
  } else if (name == "matmul_tc" || name == "matmul_tc_bf16") {
    // C[i, j] = sum_k f32(A[i, k]) * f32(B[k, j]), A and B f16 (bf16), C f32, 256x256x256, on the
    // target's tensor cores (tensor_core.h; the host has none: kUnsupported).
    const int64_t n = 256;
    const DType in = name == "matmul_tc" ? DType::kFloat16 : DType::kBFloat16;
    Ref out = k.buffer(0, n * n), a = k.buffer(1, n * n, in), b = k.buffer(2, n * n, in);
    Ref i = k.loop(n, 0), j = k.loop(n, 1), r = k.red(n, 2);
    Ref prod =
        cast(k.load(a, i * n + r), DType::kFloat32) * cast(k.load(b, r * n + j), DType::kFloat32);
    e.sink = k.sink({k.store(out, i * n + j, k.reduce(Op::kAdd, prod, {r}))});
    e.options.tensor_cores = true;
    e.description = strformat(
        "matmul 256x256x256 %s inputs, f32 accumulate, on tensor cores "
        "(WMMA / MFMA / mma.sync)",
        in == DType::kFloat16 ? "f16" : "bf16");
  } else {
    return std::move(
        make_error(Errc::kNotFound, "no example kernel '%.*s'", int(name.size()), name.data())
            .with_hint("examples: elementwise reduce_row softmax matmul conv2d "
                       "layernorm attention matmul_tc matmul_tc_bf16 elementwise_n"));
  }
  return e;
}

}  // namespace rawgpu::compiler
