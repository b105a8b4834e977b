// Device code generation through LLVM: TargetMachine per target, the new pass manager's
// O2/O3 pipeline (so the AMDGPU attributor drops unused hidden kernel arguments), object and
// assembly emission with the legacy codegen pipeline, and lld in-process for AMDGPU code
// objects. One of the LLVM translation units of compiler/.
#include "gpu_llvm.h"

#include <lld/Common/Driver.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include "llvm_target.h"
#include "rawgpu/base/format.h"

LLD_HAS_DRIVER(elf)

namespace rawgpu::compiler::gpullvm {
namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void init_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

Result<std::unique_ptr<llvm::TargetMachine>> make_tm(Kind kind, const std::string& gpu,
                                                     int opt_level) {
  init_targets();
  std::string triple, cpu = gpu, features;
  switch (kind) {
    case Kind::kAmdgpu:
      triple = "amdgcn-amd-amdhsa";
      // CU mode on RDNA (gfx10+ default to WGP mode): a work-group's waves share one CU's LDS.
      if (gpu.rfind("gfx1", 0) == 0 && gpu.size() == 7) features = "+cumode";
      break;
    case Kind::kNvptx: triple = "nvptx64-nvidia-cuda"; break;
    case Kind::kHost:
      triple = llvm::sys::getDefaultTargetTriple();
      cpu = llvm::sys::getHostCPUName().str();
      break;
  }
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!t)
    return make_error(Errc::kUnsupported, "llvm: no target for %s: %s", triple.c_str(),
                      err.c_str());
  llvm::TargetOptions opts;
  auto* tm = t->createTargetMachine(
      triple, cpu, features, opts, llvm::Reloc::PIC_, std::nullopt,
      opt_level >= 2 ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::Default);
  if (!tm)
    return make_error(Errc::kUnsupported, "llvm: cannot create a target machine for %s / %s",
                      triple.c_str(), cpu.c_str());
  // Reject processors LLVM does not know (it would silently fall back to a generic one).
  if (kind != Kind::kHost && !tm->getMCSubtargetInfo()->isCPUStringValid(cpu)) {
    delete tm;
    return make_error(Errc::kUnsupported, "llvm: %s is not a processor of %s", cpu.c_str(),
                      triple.c_str());
  }
  return std::unique_ptr<llvm::TargetMachine>(tm);
}

llvm::OptimizationLevel level(int l) {
  switch (l) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    default: return llvm::OptimizationLevel::O3;
  }
}

Result<std::string> emit(llvm::TargetMachine& tm, llvm::Module& mod, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type))
    return make_error(Errc::kUnsupported, "llvm: target %s cannot emit this file type",
                      tm.getTargetTriple().str().c_str());
  pm.run(mod);
  return std::string(buf.begin(), buf.end());
}

}  // namespace

Result<Output> compile(const Program& p, Kind kind, const std::string& gpu, const std::string& name,
                       uint32_t max_threads, int opt_level) {
  Output out;
  auto tm = RG_TRY(make_tm(kind, gpu, opt_level));
  const std::string dl = tm->createDataLayout().getStringRepresentation();
  std::unique_ptr<llvmgen::TargetHooks> hooks =
      kind == Kind::kAmdgpu  ? llvmgen::make_amdgpu_target(gpu, dl)
      : kind == Kind::kNvptx ? llvmgen::make_nvptx_target(gpu, dl)
                             : llvmgen::make_host_target(tm->getTargetTriple().str(), dl);
  llvm::LLVMContext ctx;
  // Diagnostics (e.g. "unsupported libcall") must fail the compile, not print and continue.
  struct Diag {
    std::string first;
  } diag;
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo* di, void* ctxp) {
        if (di->getSeverity() != llvm::DS_Error) return;
        auto* d = static_cast<Diag*>(ctxp);
        if (!d->first.empty()) return;
        std::string s;
        llvm::raw_string_ostream os(s);
        llvm::DiagnosticPrinterRawOStream dp(os);
        di->print(dp);
        d->first = os.str();
      },
      &diag);
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<llvm::Module> mod = RG_TRY(llvmgen::generate(p, *hooks, ctx, name, max_threads));
  out.ir_ms = ms_since(t0);
  t0 = std::chrono::steady_clock::now();
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = opt_level >= 2;
    pto.SLPVectorization = opt_level >= 2;
    llvm::PassBuilder pb(tm.get(), pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = opt_level == 0
                                      ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                      : pb.buildPerModuleDefaultPipeline(level(opt_level));
    mpm.run(*mod, mam);
  }
  out.opt_ms = ms_since(t0);
  {
    llvm::raw_string_ostream os(out.ir);
    mod->print(os, nullptr);
  }
  t0 = std::chrono::steady_clock::now();
  // Assembly from a clone: the codegen pipeline mutates the module.
  {
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*mod);
    out.assembly = RG_TRY(emit(*tm, *copy, llvm::CodeGenFileType::AssemblyFile));
  }
  if (kind != Kind::kNvptx) {
    std::string obj = RG_TRY(emit(*tm, *mod, llvm::CodeGenFileType::ObjectFile));
    out.object.assign(obj.begin(), obj.end());
  }
  out.codegen_ms = ms_since(t0);
  if (!diag.first.empty())
    return make_error(Errc::kUnsupported, "llvm: %s: code generation for %s failed: %s",
                      name.c_str(), gpu.empty() ? "host" : gpu.c_str(), diag.first.c_str());
  return out;
}

Result<std::vector<uint8_t>> lld_link_amdgpu(const std::vector<uint8_t>& object) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  namespace fs = std::filesystem;
  // lld reads inputs from paths and renames a temporary next to its output: a private dir.
  std::string tmpl = (fs::temp_directory_path() / "rawgpu-lld-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    return make_error(Errc::kIo, "lld: cannot create a temporary directory in %s: %s",
                      fs::temp_directory_path().c_str(), std::strerror(errno));
  const fs::path dir = tmpl;
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  const std::string in = (dir / "k.o").string(), out = (dir / "k.co").string();
  {
    std::ofstream f(in, std::ios::binary);
    f.write(reinterpret_cast<const char*>(object.data()), std::streamsize(object.size()));
    f.close();
    if (!f)
      return make_error(Errc::kIo, "lld: cannot write %s: %s", in.c_str(), std::strerror(errno));
  }
  const char* args[] = {"ld.lld", "-shared", "--no-undefined", in.c_str(), "-o", out.c_str()};
  std::string log;
  llvm::raw_string_ostream os(log);
  lld::Result r = lld::lldMain(args, os, os, {{lld::Gnu, &lld::elf::link}});
  if (r.retCode != 0)
    return make_error(Errc::kInternal, "lld: linking the AMDGPU object failed: %s",
                      os.str().c_str());
  std::ifstream f(out, std::ios::binary);
  std::vector<uint8_t> co((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (co.empty()) return make_error(Errc::kIo, "lld: no output in %s", out.c_str());
  return co;
}

}  // namespace rawgpu::compiler::gpullvm
