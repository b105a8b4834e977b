// ORC LLJIT and the optimisation pipeline. One of the two LLVM translation units of compiler/.
#include "cpu_jit.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <chrono>
#include <ctime>
#include <mutex>

#include "llvm_target.h"
#include "rawgpu/base/log.h"

namespace rawgpu::compiler {

namespace {
std::string llvm_message(llvm::Error e) { return llvm::toString(std::move(e)); }

llvm::OptimizationLevel opt_level_of(int level) {
  switch (level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    default: return llvm::OptimizationLevel::O3;
  }
}
}  // namespace

// Thread safety: the LLJIT (link, lookup) is used by one thread at a time (CpuJit's contract).
// compile_object runs concurrently on distinct slots, each with its own TargetMachine and a
// fresh LLVMContext per kernel; what they share is read-only: the hooks (const, no state) and
// the JITTargetMachineBuilder (copied under `mu` when a slot's machine is created). LLVM has no
// process-global state on this path: no command-line option is parsed or set anywhere in
// rawgpu, target registration happens once (call_once in create), and the pass/analysis
// managers are per call.
struct CpuJit::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unique_ptr<llvmgen::TargetHooks> hooks;
  std::unique_ptr<llvm::orc::JITTargetMachineBuilder> jtmb;
  std::mutex mu;  // guards tms (creation only; a slot's machine is used by one thread at a time)
  std::unique_ptr<llvm::TargetMachine> tms[CpuJit::kMaxSlots];
  int opt_level = 3;
  Result<llvm::TargetMachine*> machine(int slot) {
    if (slot < 0 || slot >= CpuJit::kMaxSlots)
      return make_error(Errc::kInvalidArgument, "cpu jit: compile slot %d is not 0..%d", slot,
                        CpuJit::kMaxSlots - 1);
    std::lock_guard<std::mutex> l(mu);
    if (!tms[slot]) {
      auto tm = jtmb->createTargetMachine();
      if (!tm)
        return make_error(Errc::kUnsupported, "cpu jit: no target machine for the host: %s",
                          llvm_message(tm.takeError()).c_str());
      tms[slot] = std::move(*tm);
    }
    return tms[slot].get();
  }
};

CpuJit::CpuJit(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuJit::~CpuJit() = default;

Result<std::unique_ptr<CpuJit>> CpuJit::create(int opt_level) {
  static std::once_flag init;
  std::call_once(init, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb)
    return make_error(Errc::kUnsupported, "cpu jit: cannot describe the host: %s",
                      llvm_message(jtmb.takeError()).c_str());
  jtmb->setCodeGenOptLevel(opt_level >= 2 ? llvm::CodeGenOptLevel::Aggressive
                                          : llvm::CodeGenOptLevel::Default);
  auto tm = jtmb->createTargetMachine();
  if (!tm)
    return make_error(Errc::kUnsupported, "cpu jit: no target machine for the host: %s",
                      llvm_message(tm.takeError()).c_str());
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*jtmb).create();
  if (!jit)
    return make_error(Errc::kInternal, "cpu jit: LLJIT creation failed: %s",
                      llvm_message(jit.takeError()).c_str());
  // Math intrinsics lower to libm calls (sinf, exp2f, ...): resolve them in this process.
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!gen)
    return make_error(Errc::kInternal, "cpu jit: process symbol search failed: %s",
                      llvm_message(gen.takeError()).c_str());
  (*jit)->getMainJITDylib().addGenerator(std::move(*gen));
  auto impl = std::make_unique<Impl>();
  impl->hooks = llvmgen::make_host_target((*jit)->getTargetTriple().str(),
                                          (*jit)->getDataLayout().getStringRepresentation());
  impl->jit = std::move(*jit);
  impl->tms[0] = std::move(*tm);
  impl->jtmb = std::make_unique<llvm::orc::JITTargetMachineBuilder>(std::move(*jtmb));
  impl->opt_level = opt_level;
  return std::unique_ptr<CpuJit>(new CpuJit(std::move(impl)));
}

std::string CpuJit::triple() const { return impl_->jit->getTargetTriple().str(); }
std::string CpuJit::host_cpu() const { return llvm::sys::getHostCPUName().str(); }

namespace {
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
}  // namespace

Result<KernelEntry> CpuJit::compile(const Program& p, const std::string& name, Times* times) {
  Object obj = RG_TRY(compile_object(p, name, 0, times));
  return link(std::move(obj), times);
}

Result<CpuJit::Object> CpuJit::compile_object(const Program& p, const std::string& name, int slot,
                                              Times* times) {
  using Clock = std::chrono::steady_clock;
  llvm::TargetMachine* tm = RG_TRY(impl_->machine(slot));
  const auto t0 = Clock::now();
  const double cpu0 = thread_cpu_seconds();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> mod = RG_TRY(llvmgen::generate(p, *impl_->hooks, *ctx, name));
  const auto t1 = Clock::now();
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = impl_->opt_level >= 2;
    pto.SLPVectorization = impl_->opt_level >= 2;
    llvm::PassBuilder pb(tm, pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm =
        impl_->opt_level == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                              : pb.buildPerModuleDefaultPipeline(opt_level_of(impl_->opt_level));
    mpm.run(*mod, mam);
  }
  if (log::enabled("llvm", 4)) {
    std::string ir;
    llvm::raw_string_ostream os(ir);
    mod->print(os, nullptr);
    log::writef("llvm", 4, "kernel %s (%s):\n%s", name.c_str(), triple().c_str(), os.str().c_str());
  }
  Object obj;
  obj.name = name;
  {
    llvm::SmallVector<char, 0> buf;
    llvm::raw_svector_ostream os(buf);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      return make_error(Errc::kInternal, "cpu jit: the host target cannot emit an object for %s",
                        name.c_str());
    pm.run(*mod);
    obj.bytes.assign(buf.data(), buf.size());
  }
  if (times) {
    times->ir_s = std::chrono::duration<double>(t1 - t0).count();
    times->codegen_s = std::chrono::duration<double>(Clock::now() - t1).count();
    times->cpu_s = thread_cpu_seconds() - cpu0;
  }
  return obj;
}

Result<KernelEntry> CpuJit::link(Object obj, Times* times) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string& name = obj.name;
  if (auto err =
          impl_->jit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(obj.bytes, name + ".o")))
    return make_error(Errc::kInternal, "cpu jit: adding kernel %s failed: %s", name.c_str(),
                      llvm_message(std::move(err)).c_str());
  auto sym = impl_->jit->lookup(name);
  if (!sym)
    return make_error(Errc::kInternal, "cpu jit: kernel %s did not link: %s", name.c_str(),
                      llvm_message(sym.takeError()).c_str());
  if (times)
    times->codegen_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return sym->toPtr<KernelEntry>();
}

}  // namespace rawgpu::compiler
