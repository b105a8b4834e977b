// "cpu": CpuBuffers and the CPU runtime (LLVM ORC JIT, compile cache by AST hash), with
// RAWGPU_BEAM's per-kernel search.
#include "rawgpu/runtime/cpu_device.h"

#include <unistd.h>

#include <string>
#include <unordered_map>

#include "rawgpu/base/env.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/search.h"
#include "rawgpu/runtime/profile.h"

namespace rawgpu::runtime {
namespace {

using compiler::CpuBuffer;
using compiler::DType;
using compiler::Ref;

std::unique_ptr<compiler::CpuRuntime>& cpu_rt() {
  static auto* p = new std::unique_ptr<compiler::CpuRuntime>();  // never destroyed (see registry)
  return *p;
}

// BEAM's kernel per (AST hash, width): the search (or its disk-cache lookup, which replays the
// opts through the optimizer) runs once per process, not once per launch.
std::unordered_map<std::string, const compiler::CpuKernel*>& beam_kernels() {
  static auto* m = new std::unordered_map<std::string, const compiler::CpuKernel*>();
  return *m;
}

class CpuBuf final : public Buffer {
 public:
  explicit CpuBuf(CpuBuffer b) : Buffer(b.dtype(), b.count()), b_(std::move(b)) {}
  CpuBuf(CpuBuffer b, std::shared_ptr<Buffer> base)
      : Buffer(b.dtype(), b.count()), b_(std::move(b)), base_(std::move(base)) {}
  Status copy_in(std::span<const std::byte> bytes) override { return b_.copy_in(bytes); }
  Status copy_out(std::span<std::byte> bytes) const override { return b_.copy_out(bytes); }
  CpuBuffer& cpu() { return b_; }

 private:
  CpuBuffer b_;
  std::shared_ptr<Buffer> base_;  // the arena a view borrows from
};

class CpuDevice final : public Device {
 public:
  std::string_view name() const override { return "cpu"; }
  Result<std::shared_ptr<Buffer>> alloc(DType dtype, size_t count) override {
    return std::shared_ptr<Buffer>(
        std::make_shared<CpuBuf>(RG_TRY(CpuBuffer::create(dtype, count))));
  }
  Result<std::shared_ptr<Buffer>> view(const std::shared_ptr<Buffer>& base, size_t offset,
                                       DType dtype, size_t count) override {
    auto* b = dynamic_cast<CpuBuf*>(base.get());
    if (!b || offset + count * size_t(compiler::itemsize(dtype)) > b->nbytes())
      return make_error(Errc::kInvalidArgument, "cpu: view outside its base buffer");
    return std::shared_ptr<Buffer>(std::make_shared<CpuBuf>(
        CpuBuffer::borrow(dtype, count, static_cast<std::byte*>(b->cpu().data()) + offset), base));
  }
  Status run(Ref ast, std::span<Buffer* const> args, const RunContext& context) override;
  size_t cache_size() const override;
  uint64_t cache_hits() const override;
};

Status CpuDevice::run(Ref ast, std::span<Buffer* const> args, const RunContext& context) {
  auto& rt = cpu_runtime();
  std::vector<CpuBuffer*> bufs;
  for (Buffer* b : args) {
    auto* c = dynamic_cast<CpuBuf*>(b);
    if (!c) return make_error(Errc::kInternal, "cpu: a kernel argument is not a cpu buffer");
    bufs.push_back(&c->cpu());
  }
  // RAWGPU_BEAM=n: the kernel's opts come from a BEAM search (or its disk cache), which replaces
  // the default heuristic (its candidates are compiled exactly as searched).
  const int beam = RG_TRY(compiler::beam_width_from_env());
  const compiler::CpuKernel* kern = nullptr;
  if (beam > 0) {
    const std::string key = ast->hash().hex() + "/" + std::to_string(beam);
    if (auto it = beam_kernels().find(key); it != beam_kernels().end()) {
      kern = it->second;
    } else {
      // The heuristic's opts are a starting candidate: the search never ends slower than the
      // kernel the CPU device runs without BEAM (as measured by the search). When they win, the
      // heuristic's own kernel is used (with its operand packing).
      const compiler::CpuKernel* heuristic = RG_TRY(rt.compile_optimized(ast));
      compiler::BeamOptions bo;
      bo.width = beam;
      bo.progress = isatty(2) || log::enabled("beam", 1);
      bo.kernel_index = int(context.kernel_index);
      bo.kernel_count = int(context.kernel_count);
      bo.budget_s = RG_TRY(compiler::beam_budget_from_env());
      if (!heuristic->opts.empty()) bo.seeds.push_back(heuristic->opts);
      const compiler::BeamResult r = RG_TRY(compiler::beam_search(ast, rt, bo));
      kern = r.opts == heuristic->opts ? heuristic : RG_TRY(rt.compile(r.ast));
      beam_kernels().emplace(key, kern);
    }
  } else {
    kern = RG_TRY(rt.compile_optimized(ast));
  }
  Profiler& prof = Profiler::get();
  if (!prof.enabled()) return rt.launch(*kern, bufs, {});
  const uint64_t h0 = prof.now_ns();
  RG_TRY(rt.launch(*kern, bufs, {}));
  ProfileEvent e;
  e.device = "cpu";
  e.queue = "host";
  e.kind = "kernel";
  e.name = kern->name;
  e.host_start_ns = h0;
  e.host_end_ns = prof.now_ns();
  prof.record(std::move(e));
  return ok_status();
}
size_t CpuDevice::cache_size() const { return cpu_runtime().cache_size(); }
uint64_t CpuDevice::cache_hits() const { return cpu_runtime().cache_hits(); }
}  // namespace

std::unique_ptr<Device> make_cpu_device() { return std::make_unique<CpuDevice>(); }

compiler::CpuRuntime& cpu_runtime() {
  if (!cpu_rt()) {
    compiler::CpuRuntimeOptions o;
    // RAWGPU_OPT_LEVEL=0..3 picks the LLVM pipeline (default O3; the op tests use O1 to keep
    // hundreds of JIT compiles cheap).
    if (auto level = env::read_u64("RAWGPU_OPT_LEVEL", 0, 3))
      o.opt_level = static_cast<int>(*level);
    auto r = compiler::CpuRuntime::create(o);
    RG_CHECK(r.ok(), "%s", r.ok() ? "" : r.error().to_string().c_str());
    cpu_rt() = std::move(r).take_value();
  }
  return *cpu_rt();
}

}  // namespace rawgpu::runtime
