// `rawgpu compile`: the compile-only device. Compiles example kernels for a GPU target (or the
// host) and writes, per kernel, the LLVM IR, the assembly/PTX, the binary and summary.json.
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <filesystem>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/file.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/progress.h"
#include "rawgpu/compiler/gpu.h"

namespace rawgpu::tools {
namespace {

namespace fs = std::filesystem;
using namespace rawgpu::compiler;

std::string summary_json(const ProgramSpec& s) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 2);
  auto dims = [&](const char* key, const std::array<int64_t, 3>& d) {
    j.attributeArray(key, [&] {
      for (int64_t v : d) j.value(v);
    });
  };
  j.object([&] {
    j.attribute("name", s.name);
    j.attribute("target", s.target.name);
    dims("global_size", s.gpu.global);
    dims("local_size", s.gpu.local);
    if (s.gpu.global_expr[0] || s.gpu.global_expr[1] || s.gpu.global_expr[2])
      j.attributeArray("global_size_expr", [&] {  // symbolic dims (global_size: upper bound)
        for (size_t d = 0; d < 3; ++d)
          j.value(s.gpu.global_expr[d] ? expr_string(s.gpu.global_expr[d])
                                       : std::to_string(s.gpu.global[d]));
      });
    j.attribute("kernarg_bytes", int64_t(s.loaded.kernarg_bytes));
    if (s.target.arch == GpuArch::kNv) j.attribute("param_offset", int64_t(s.loaded.param_offset));
    j.attribute("local_bytes", int64_t(s.loaded.local_bytes));
    j.attribute("scratch_bytes", int64_t(s.loaded.scratch_bytes));
    if (s.target.arch == GpuArch::kAmd) {
      j.attribute("sgprs", int64_t(s.loaded.sgprs));
      j.attribute("vgprs", int64_t(s.loaded.vgprs));
    }
    if (s.target.arch == GpuArch::kNv) j.attribute("registers", int64_t(s.loaded.registers));
    j.attribute("wave", int64_t(s.loaded.wave));
    j.attribute("binary_kind", s.binary_kind);
    j.attribute("binary_bytes", int64_t(s.binary.size()));
    if (!s.binary_note.empty()) j.attribute("binary_note", s.binary_note);
    j.attribute("flops", int64_t(s.flops));
    j.attribute("bytes", int64_t(s.bytes));
    j.attribute("memory_bytes", int64_t(s.memory_bytes));
    j.attributeArray("buffers", [&] {
      for (const auto& b : s.buffers)
        j.object([&] {
          j.attribute("slot", b.slot);
          j.attribute("dtype", std::string(dtype_name(b.dtype)));
          j.attribute("count", b.count);
          j.attribute("in", b.input);
          j.attribute("out", b.output);
        });
    });
    j.attributeArray("vars", [&] {
      for (Ref v : s.vars) j.value(std::string(v->arg().as_var().name));
    });
    j.attributeArray("applied_opts", [&] {
      for (const auto& o : s.gpu.applied_opts) j.value(o);
    });
    j.attributeObject("compile_ms", [&] {
      j.attribute("lower", s.times.lower_ms);
      j.attribute("linearize", s.times.linearize_ms);
      j.attribute("llvm_ir", s.times.llvm_ir_ms);
      j.attribute("optimize", s.times.opt_ms);
      j.attribute("codegen", s.times.codegen_ms);
      j.attribute("link", s.times.link_ms);
      j.attribute("assemble", s.times.assemble_ms);
      j.attribute("parse", s.times.parse_ms);
      j.attribute("total", s.times.total());
    });
    if (!s.loaded.descriptor.empty()) j.attribute("loader", s.loaded.descriptor);
  });
  os << "\n";
  return out;
}

const char* asm_ext(GpuArch a) { return a == GpuArch::kNv ? "ptx" : "s"; }
const char* bin_ext(const ProgramSpec& s) {
  if (s.binary_kind == "code object") return "co";
  if (s.binary_kind == "cubin") return "cubin";
  if (s.binary_kind == "host object") return "o";
  return nullptr;
}

// --data: the example's inputs, its host reference (compiler::gpu_example_data) and launch.txt,
// the launch description tools/cuda_check runs on a real GPU (format:
// tools/cuda_check/cuda_check.cpp).
Status write_data(const fs::path& dir, const ProgramSpec& s, const char* binary_file) {
  const GpuExampleData d = RG_TRY(gpu_example_data(s.name));
  const std::array<int64_t, 3> grid = RG_TRY(launch_global(s, d.var_values));
  auto bytes_of = [](const auto& v) {
    return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };
  std::string launch = strformat(
      "# %s for %s: written by rawgpu compile --data, run by tools/cuda_check\n"
      "kernel %s\nbinary %s\ngrid %lld %lld %lld\nblock %lld %lld %lld\n",
      s.name.c_str(), s.target.name.c_str(), s.name.c_str(), binary_file, (long long)grid[0],
      (long long)grid[1], (long long)grid[2], (long long)s.gpu.local[0], (long long)s.gpu.local[1],
      (long long)s.gpu.local[2]);
  for (size_t slot = 0; slot < d.buffers.size(); ++slot) {
    const std::string file = strformat("slot%zu.bin", slot);
    RG_TRY(write_file(dir / file, bytes_of(d.buffers[slot])));
    launch +=
        strformat("buffer %zu %s %zu %s\n", slot, std::string(dtype_name(d.dtypes[slot])).c_str(),
                  d.buffers[slot].size(), file.c_str());
  }
  for (int64_t v : d.var_values) launch += strformat("scalar %lld\n", (long long)v);
  RG_TRY(write_file(
      dir / "expected.bin",
      bytes_of(std::span(d.expected).first(std::min(d.expected_count, d.expected.size())))));
  launch += strformat("check 0 expected.bin %zu %.9g %.9g\n",
                      std::min(d.expected_count, d.expected.size()), d.atol, d.rtol);
  return write_file(dir / "launch.txt", launch);
}

struct Compiled {
  std::string target, kernel, status, message, dir, binary_kind;
  size_t binary_bytes = 0;
  double compile_ms = 0;
};

// Every value is checked before anything is compiled or written: a bad target anywhere in the
// list, an unknown example or a missing option is a usage error (exit 2) with no output.
int run_compile(const cli::Args& args, cli::Io& io) {
  const bool json = args.flag("json");
  auto usage_error = [&](const std::string& msg) {
    io.err << "rawgpu compile: " << msg << "\n";
    return cli::kExitUsage;
  };
  if (args.flag("list")) {
    Context ctx;
    std::vector<std::pair<std::string, std::string>> rows;
    for (auto n : gpu_example_names()) {
      auto e = gpu_example(ctx, n);
      rows.emplace_back(std::string(n), e.ok() ? e->description : e.error().to_string());
    }
    if (json) {
      io.out << json_document("compile", [&](llvm::json::OStream& j) {
        j.attributeArray("examples", [&] {
          for (const auto& [n, d] : rows)
            j.object([&] {
              j.attribute("name", n);
              j.attribute("description", d);
            });
        });
      });
    } else {
      for (const auto& [n, d] : rows) io.out << n << ": " << d << "\n";
    }
    return cli::kExitOk;
  }
  const auto targ = args.get("target");
  const auto outdir = args.get("output");
  const auto one = args.get("example");
  if (!targ || targ->empty() || !outdir || outdir->empty() ||
      (args.flag("all") == (one && !one->empty())))
    return usage_error("needs --target T, -o DIR and one of --example NAME / --all");
  std::vector<std::string> names;
  if (*targ == "all") {
    for (auto t : gpu_target_names()) names.emplace_back(t);
  } else {
    std::string_view rest = *targ;
    for (;;) {
      const size_t comma = rest.find(',');
      names.emplace_back(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  std::vector<GpuTarget> targets;
  std::string known;
  for (auto t : gpu_target_names()) known += (known.empty() ? "" : ", ") + std::string(t);
  for (const std::string& n : names) {
    if (n.empty()) return usage_error("--target '" + *targ + "' has an empty entry");
    if (std::count(names.begin(), names.end(), n) > 1)
      return usage_error("--target names " + n + " twice");
    auto target = gpu_target(n);
    if (!target.ok())
      return usage_error("--target " + n + ": " + target.error().message() + " (known: " + known +
                         ", all)");
    targets.push_back(*target);
  }
  std::vector<std::string> examples;
  if (args.flag("all")) {
    for (auto n : gpu_example_names()) examples.emplace_back(n);
  } else {
    Context ctx;
    if (auto ex = gpu_example(ctx, *one); !ex.ok())
      return usage_error("--example " + *one + ": " + ex.error().message() +
                         " ('rawgpu compile --list' lists them)");
    examples.push_back(*one);
  }
  std::vector<Compiled> done;
  int failures = 0;
  Progress progress("compiling", targets.size() * examples.size());
  for (size_t ti = 0; ti < targets.size(); ++ti) {
    const GpuTarget& target = targets[ti];
    const std::string& tname = names[ti];
    std::vector<double> totals;
    for (const std::string& name : examples) {
      progress.update(done.size(), name + " for " + tname);
      Compiled row{tname, name, "ok", "", "", "", 0, 0};
      Context ctx;
      auto ex = gpu_example(ctx, name);
      if (!ex.ok()) {
        io.err << "rawgpu compile: " << ex.error().to_string() << "\n";
        return cli::kExitFailure;
      }
      auto spec = compile_gpu(ex->sink, name, target, ex->options);
      if (!spec.ok() && target.arch == GpuArch::kHost && spec.error().is(Errc::kUnsupported)) {
        // Kernels written with launch ids / local memory have no host form.
        row.status = "skipped";
        row.message = spec.error().message();
        if (!json) {
          progress.finish();
          io.out << strformat("%-8s %-12s skipped: %s\n", tname.c_str(), name.c_str(),
                              row.message.c_str());
        }
        done.push_back(row);
        continue;
      }
      if (!spec.ok()) {
        progress.finish();
        io.err << "rawgpu compile: " << name << " for " << tname << ": " << spec.error().to_string()
               << "\n";
        row.status = "failed";
        row.message = spec.error().to_string();
        done.push_back(row);
        ++failures;
        continue;
      }
      const ProgramSpec& s = *spec;
      const fs::path dir = fs::path(*outdir) / tname / name;
      std::error_code ec;
      fs::create_directories(dir, ec);
      Status st =
          ec ? make_error(Errc::kIo, "cannot create %s: %s", dir.c_str(), ec.message().c_str())
             : ok_status();
      if (st.ok()) st = write_file(dir / "kernel.ll", s.llvm_ir);
      if (st.ok())
        st = write_file(dir / (std::string("kernel.") + asm_ext(target.arch)), s.assembly);
      if (st.ok() && bin_ext(s))
        st = write_file(
            dir / (std::string("kernel.") + bin_ext(s)),
            std::string_view(reinterpret_cast<const char*>(s.binary.data()), s.binary.size()));
      if (st.ok()) st = write_file(dir / "summary.json", summary_json(s));
      if (st.ok() && args.flag("data") && target.arch != GpuArch::kHost && bin_ext(s))
        st = write_data(dir, s, (std::string("kernel.") + bin_ext(s)).c_str());
      if (!st.ok()) {
        progress.finish();
        io.err << "rawgpu compile: " << st.error().to_string() << "\n";
        return cli::kExitFailure;
      }
      totals.push_back(s.times.total());
      row.dir = dir.string();
      row.binary_kind = s.binary_kind;
      row.binary_bytes = s.binary.size();
      row.compile_ms = s.times.total();
      done.push_back(row);
      if (json) continue;
      progress.finish();
      io.out << strformat(
          "%-8s %-12s global %lldx%lldx%lld local %lldx%lldx%lld  %-11s %6zu B  kernarg %u  "
          "local %u B  %s  %.1f ms\n",
          tname.c_str(), name.c_str(), (long long)s.gpu.global[0], (long long)s.gpu.global[1],
          (long long)s.gpu.global[2], (long long)s.gpu.local[0], (long long)s.gpu.local[1],
          (long long)s.gpu.local[2], s.binary_kind.c_str(), s.binary.size(), s.loaded.kernarg_bytes,
          s.loaded.local_bytes,
          target.arch == GpuArch::kAmd
              ? strformat("%u SGPR %u VGPR", s.loaded.sgprs, s.loaded.vgprs).c_str()
              : strformat("%u regs", s.loaded.registers).c_str(),
          s.times.total());
    }
    if (totals.size() > 1 && !json) {
      std::sort(totals.begin(), totals.end());
      const size_t n = totals.size();
      const double med = n % 2 ? totals[n / 2] : (totals[n / 2 - 1] + totals[n / 2]) / 2;
      progress.finish();
      io.out << strformat("%-8s median compile time per kernel: %.1f ms (%zu kernels)\n",
                          tname.c_str(), med, n);
    }
  }
  progress.finish();
  if (json) {
    io.out << json_document("compile", [&](llvm::json::OStream& j) {
      j.attribute("output", *outdir);
      j.attribute("failures", failures);
      j.attributeArray("kernels", [&] {
        for (const Compiled& r : done)
          j.object([&] {
            j.attribute("target", r.target);
            j.attribute("kernel", r.kernel);
            j.attribute("status", r.status);
            if (!r.message.empty()) j.attribute("message", r.message);
            if (r.status != "ok") return;
            j.attribute("directory", r.dir);
            j.attribute("binary_kind", r.binary_kind);
            j.attribute("binary_bytes", int64_t(r.binary_bytes));
            j.attribute("compile_ms", r.compile_ms);
          });
      });
    });
  }
  return failures ? cli::kExitFailure : cli::kExitOk;
}

}  // namespace

cli::Command compile_command() {
  cli::Command c;
  c.name = "compile";
  c.summary = "compile example kernels for a GPU target (compile-only device)";
  c.description =
      "Lowers hand-written example kernel ASTs for a target and compiles them through LLVM:\n"
      "AMDGPU code objects (linked in-process with lld, parsed by the loader), NVPTX PTX (and a\n"
      "cubin when ptxas is installed), or a host object. Writes DIR/<target>/<kernel>/ with\n"
      "kernel.ll, kernel.s or kernel.ptx, the binary and summary.json. --target takes one\n"
      "target, a comma-separated list, or 'all'. --data adds the example's input buffers\n"
      "(slotN.bin), its host reference (expected.bin) and launch.txt for a device check.";
  c.options = {
      {"target", 't', "TARGET", "gfx1100|gfx1200|gfx1201|gfx942|sm_80|sm_86|sm_89|sm_90|host|all",
       ""},
      {"example", 'e', "NAME", "one example kernel (see --list)", ""},
      {"all", 'a', "", "every example kernel", ""},
      {"list", 'l', "", "list the example kernels", ""},
      {"output", 'o', "DIR", "output directory", ""},
      {"data", 'd', "",
       "also write the inputs, the host reference and launch.txt (GPU targets with a binary; "
       "run them with scripts/device/cuda_check.sh)",
       ""},
  };
  c.options.push_back({"json", 'j', "", "print one JSON document instead of text", ""});
  c.run = run_compile;
  return c;
}

}  // namespace rawgpu::tools
