// `rawgpu bench compile --workload mlp|resnet-block|transformer-block`: how long the compiler
// takes, per stage, to turn a forward pass built with the Tensor API into CPU machine code.
// Nothing is executed: weights and inputs are host buffers, the kernels are compiled, not run.
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/frontend/tensor.h"

namespace rawgpu::tools {

namespace {

using frontend::Tensor;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// A realized float32 host tensor (small values; the contents do not matter: nothing runs).
Tensor param(const frontend::Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  Tensor t = Tensor::from(std::vector<float>(size_t(n), 0.01f), shape);
  (void)t.realize();
  return t;
}

// (a) 3-layer MLP 784 -> 512 -> 512 -> 10, batch 128.
Tensor mlp() {
  Tensor x = param({128, 784});
  Tensor w1 = param({784, 512}), b1 = param({512});
  Tensor w2 = param({512, 512}), b2 = param({512});
  Tensor w3 = param({512, 10}), b3 = param({10});
  Tensor h = (x.matmul(w1) + b1).relu();
  h = (h.matmul(w2) + b2).relu();
  return h.matmul(w3) + b3;
}

// (b) ResNet basic block: conv3x3 -> ReLU -> conv3x3, + input, ReLU on 8x64x56x56.
Tensor resnet_block() {
  Tensor x = param({8, 64, 56, 56});
  Tensor w1 = param({64, 64, 3, 3}), w2 = param({64, 64, 3, 3});
  Tensor h = x.conv2d(w1, nullptr, {1, 1}, {1, 1}).relu();
  h = h.conv2d(w2, nullptr, {1, 1}, {1, 1});
  return (h + x).relu();
}

// (c) Transformer block (pre-norm): d_model 256, 4 heads of 64, seq 128, batch 4, MLP 1024.
Tensor transformer_block() {
  const int64_t B = 4, T = 128, D = 256, H = 4, Dh = D / H, F = 1024;
  Tensor x = param({B, T, D});
  Tensor g1 = param({D}), be1 = param({D}), g2 = param({D}), be2 = param({D});
  Tensor wqkv = param({D, 3 * D}), bqkv = param({3 * D});
  Tensor wo = param({D, D}), bo = param({D});
  Tensor w1 = param({D, F}), b1 = param({F}), w2 = param({F, D}), b2 = param({D});
  Tensor h = x.layernorm(1, 1e-5, &g1, &be1);
  Tensor qkv = h.matmul(wqkv) + bqkv;  // (B, T, 3D)
  auto head = [&](int64_t i) {         // (B, H, T, Dh)
    return qkv.slice(2, i * D, (i + 1) * D).reshape({B, T, H, Dh}).permute({0, 2, 1, 3});
  };
  Tensor q = head(0), k = head(1), v = head(2);
  Tensor scores = q.matmul(k.transpose(-2, -1)) * (1.0 / std::sqrt(double(Dh)));
  Tensor attn = scores.softmax(-1).matmul(v);  // (B, H, T, Dh)
  attn = attn.permute({0, 2, 1, 3}).reshape({B, T, D});
  Tensor x2 = x + (attn.matmul(wo) + bo);
  Tensor m = x2.layernorm(1, 1e-5, &g2, &be2);
  m = (m.matmul(w1) + b1).gelu().matmul(w2) + b2;
  return x2 + m;
}

struct StageTimes {
  size_t kernels = 0;   // scheduled kernels
  size_t compiled = 0;  // distinct kernels compiled (equal ASTs share one)
  double schedule_ms = 0, optimize_ms = 0, linearize_ms = 0, ir_ms = 0, codegen_ms = 0;
  double front_ms() const { return schedule_ms + optimize_ms + linearize_ms + ir_ms; }
};

Result<StageTimes> run_once(const std::string& workload, int opt_level) {
  Tensor out;
  if (workload == "mlp")
    out = mlp();
  else if (workload == "resnet-block")
    out = resnet_block();
  else if (workload == "transformer-block")
    out = transformer_block();
  else
    return make_error(Errc::kInvalidArgument,
                      "unknown workload '%s' (mlp, resnet-block or transformer-block)",
                      workload.c_str());
  RG_TRY(out.status());
  compiler::CpuRuntimeOptions ro;
  ro.opt_level = opt_level;
  ro.threads = 1;
  auto rt = RG_TRY(compiler::CpuRuntime::create(ro));
  StageTimes st;
  auto t0 = Clock::now();
  Tensor outs[] = {out};
  auto sched = RG_TRY(frontend::schedule_tensors(outs));
  st.schedule_ms = ms_since(t0);
  st.kernels = sched.kernels.size();
  // Optimize: the opt pass every kernel goes through before lowering (OptKernel with the opts
  // the default pipeline applies; none yet).
  t0 = Clock::now();
  std::vector<compiler::Ref> asts;
  for (const auto& k : sched.kernels) {
    auto ok = RG_TRY(compiler::OptKernel::create(k.ast));
    asts.push_back(ok.applied().empty() ? k.ast : ok.ast());
  }
  st.optimize_ms = ms_since(t0);
  for (compiler::Ref a : asts) RG_TRY(rt->compile(a));
  const auto& ct = rt->compile_times();
  st.compiled = size_t(ct.kernels);
  st.linearize_ms = ct.linearize_s * 1e3;
  st.ir_ms = ct.ir_s * 1e3;
  st.codegen_ms = ct.codegen_s * 1e3;
  return st;
}

}  // namespace

int bench_compile(const cli::Args& args, cli::Io& io) {
  auto fail = [&](const Error& e) {
    io.err << "rawgpu bench compile: " << e.to_string() << "\n";
    return 1;
  };
  auto usage = [&](const std::string& msg) {
    io.err << "rawgpu bench compile: " << msg << "\n";
    return cli::kExitUsage;
  };
  const auto workload = args.get("workload");
  if (!workload ||
      (*workload != "mlp" && *workload != "resnet-block" && *workload != "transformer-block"))
    return usage(workload ? "unknown workload '" + *workload +
                                "' (mlp, resnet-block or transformer-block)"
                          : "--workload mlp|resnet-block|transformer-block is required");
  auto repeats = args.get_u64_in("repeats", 1, 50);
  if (!repeats.ok()) return usage(repeats.error().message());
  auto level = args.get_u64_in("opt-level", 0, 3);
  if (!level.ok()) return usage(level.error().message());
  const int reps = int(*repeats);
  std::vector<StageTimes> runs;
  for (int i = 0; i < reps; ++i) {
    auto r = run_once(*workload, int(*level));
    if (!r.ok()) return fail(r.error());
    runs.push_back(*r);
  }
  // Per stage, the median over the repeats (each repeat builds a fresh graph and runtime).
  auto med = [&](double StageTimes::* f) {
    std::vector<double> v;
    for (const auto& r : runs) v.push_back(r.*f);
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double sched = med(&StageTimes::schedule_ms), opt = med(&StageTimes::optimize_ms),
               lin = med(&StageTimes::linearize_ms), ir = med(&StageTimes::ir_ms),
               cg = med(&StageTimes::codegen_ms);
  const double front = sched + opt + lin + ir;
  if (args.flag("json")) {
    io.out << json_document("bench compile", [&](llvm::json::OStream& j) {
      j.attribute("workload", *workload);
      j.attribute("kernels", int64_t(runs[0].kernels));
      j.attribute("compiled_kernels", int64_t(runs[0].compiled));
      j.attribute("repeats", int64_t(reps));
      j.attribute("opt_level", int64_t(*level));
      j.attribute("schedule_ms", sched);
      j.attribute("optimize_lower_linearize_ms", opt + lin);
      j.attribute("llvm_ir_ms", ir);
      j.attribute("llvm_codegen_ms", cg);
      j.attribute("total_except_codegen_ms", front);
    });
    return cli::kExitOk;
  }
  io.out << strformat("%s: %zu kernels (%zu distinct compiled), median of %d, LLVM O%d\n",
                      workload->c_str(), runs[0].kernels, runs[0].compiled, reps, int(*level))
         << strformat("  schedule                    %9.2f ms\n", sched)
         << strformat("  optimize+lower+linearize    %9.2f ms\n", opt + lin)
         << strformat("  LLVM IR build               %9.2f ms\n", ir)
         << strformat("  LLVM codegen (opt+JIT)      %9.2f ms\n", cg)
         << strformat("  total except LLVM codegen   %9.2f ms\n", front);
  return 0;
}

}  // namespace rawgpu::tools
