// Shared fixture for the RDNA end-to-end tests: LLVM IR compiled with llc-19 / ld.lld-19,
// loaded with drivers/amd's code-object parser and dispatched by PM4 through
// queues::amd::ComputeQueue on the simulated GPU running the emulator, through the PCI seam
// (sim_gpu.h: drivers::amd::PciAmdDevice over sim::AmdPciFunction).
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/sim_gpu.h"
#include "rdna_tool.h"

namespace rawgpu::sim::rdna::testing {

using drivers::amd::BufferPlacement;
using drivers::amd::DeviceBuffer;
using ::rawgpu::sim::SimGpu;

// Compiles IR to a linked code object; nullopt (with a message) on failure.
inline std::optional<std::vector<uint8_t>> compile(Target t, const std::string& ir,
                                                   std::string* log) {
  TempDir dir;
  const std::string in = dir.file("k.ll", ir), obj = dir.path + "/k.o", so = dir.path + "/k.so";
  auto out = run("llc-19 -mtriple=amdgcn-amd-amdhsa -mcpu=" + std::string(target_name(t)) +
                 " -O2 -filetype=obj -o " + obj + " " + in + " 2>&1 && ld.lld-19 -shared -o " + so +
                 " " + obj + " 2>&1");
  if (!out) {
    *log = "llc-19/ld.lld-19 failed";
    return std::nullopt;
  }
  std::ifstream f(so, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
}

// (Re)starts a simulated GPU of t's generation (GC 11.0.0 / 12.0.1) whose dispatches run on the
// emulator with options o, with a compute queue on it.
inline void start_sim(Target t, const Options& o, std::unique_ptr<SimGpu>& gpu,
                      std::unique_ptr<Emulator>& emu,
                      std::unique_ptr<queues::amd::ComputeQueue>& queue) {
  queue.reset();
  emu.reset();
  // The simulated device matches the emulated target.
  gpu = std::move(SimGpu::create(t == Target::kGfx1201 ? 120001 : 110000).value());
  emu = std::make_unique<Emulator>(gpu->hw(), t, o);
  gpu->set_executor(emu.get());
  queue = std::move(queues::amd::ComputeQueue::create(*gpu).value());
}

// A zeroed buffer in host memory mapped for the simulated GPU.
inline DeviceBuffer zeroed_buffer(drivers::amd::AmdDevice& gpu, uint64_t bytes) {
  DeviceBuffer b = gpu.alloc(bytes, BufferPlacement::kHost).value();
  std::memset(b.cpu, 0, bytes);
  return b;
}

class EndToEnd : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    if (!have_tool("llc-19") || !have_tool("ld.lld-19"))
      GTEST_SKIP() << "SKIPPED: llc-19 / ld.lld-19 not installed";
    start_sim(GetParam(), {}, gpu_, emu_, queue_);
  }
  DeviceBuffer buffer(uint64_t bytes) { return zeroed_buffer(*gpu_, bytes); }
  // Compiles, loads and dispatches `kernel` with the given explicit kernel arguments (raw bytes
  // at the metadata offsets). Fails the test on any error.
  void launch(const std::string& ir, const std::string& kernel, const std::vector<uint64_t>& args,
              uint32_t groups, uint32_t group_size) {
    queues::amd::ExecParams p;
    prepare(ir, kernel, args, groups, group_size, p);
    if (HasFatalFailure()) return;
    // Waits for a signal written after the dispatch: with the simulated device thread
    // (RAWGPU_SIM_THREAD=1) the dispatch runs asynchronously to submit().
    queues::SignalPool pool(*gpu_);
    const queues::Signal done = pool.alloc().value();
    ASSERT_TRUE(static_cast<bool>(queue_->exec(p)));
    queue_->signal(done, 1);
    Status st = queue_->submit();
    ASSERT_TRUE(st) << st.error().to_string();
    st = queues::wait_signal(*gpu_, done, 1, kernel);
    ASSERT_TRUE(st) << st.error().to_string();
    const QueueStatus qs = gpu_->queue_status(0);
    ASSERT_FALSE(qs.stopped) << qs.error;
  }
  // Compiles and loads `kernel`, writes its arguments and fills the dispatch parameters.
  void prepare(const std::string& ir, const std::string& kernel, const std::vector<uint64_t>& args,
               uint32_t groups, uint32_t group_size, queues::amd::ExecParams& p) {
    std::string log;
    if (const char* dump = std::getenv("RDNA_IR_DUMP"))  // debugging: keep the kernel's IR
      std::ofstream(std::string(dump) + "/" + kernel + ".ll") << ir;
    auto bytes = compile(GetParam(), ir, &log);
    ASSERT_TRUE(bytes.has_value()) << log;
    auto co = drivers::amd::parse_code_object(*bytes);
    ASSERT_TRUE(static_cast<bool>(co)) << co.error().to_string();
    const drivers::amd::CodeObjectKernel* k = co->find(kernel);
    ASSERT_NE(k, nullptr);
    ASSERT_LE(co->image_align, 4096u);
    image_ = buffer(co->image.size());
    std::memcpy(image_.cpu, co->image.data(), co->image.size());
    // Kernel arguments at their metadata offsets (explicit ones, in order).
    kernargs_ = buffer(std::max<uint32_t>(k->metadata.kernarg_segment_size, 64));
    size_t ai = 0;
    for (const auto& a : k->metadata.args) {
      if (a.hidden()) continue;
      ASSERT_LT(ai, args.size());
      std::memcpy(kernargs_.cpu + a.offset, &args[ai++], a.size);
    }
    ASSERT_EQ(ai, args.size());
    const auto& d = k->descriptor;
    if (d.private_segment_fixed_size > 0) {
      // Architected flat scratch: one slot of WAVESIZE × 256 bytes per wave of a workgroup
      // (the emulator runs one workgroup at a time, so slots are reused across groups).
      const uint32_t waves = (group_size + 31) / 32;
      const uint32_t per_lane = (d.private_segment_fixed_size + 3) / 4 * 4;
      const uint32_t wavesize = (32 * per_lane + 255) / 256;
      scratch_ = buffer(uint64_t{waves} * wavesize * 256);
      p.scratch = scratch_.va;
      p.tmpring_size = waves | wavesize << 12;
    }
    p.code = image_.va + k->code_va;
    p.rsrc1 = d.compute_pgm_rsrc1;
    p.rsrc2 = d.compute_pgm_rsrc2 | (((d.group_segment_fixed_size + 511) / 512) << 15);
    p.rsrc3 = d.compute_pgm_rsrc3;
    p.user_data_count = d.rsrc2.user_sgpr_count;
    // User SGPRs in ABI order; only the kernarg pointer carries a value here.
    uint32_t pos = 0;
    const auto& pr = d.properties;
    if (pr.private_segment_buffer) pos += 4;
    if (pr.dispatch_ptr) pos += 2;
    if (pr.queue_ptr) pos += 2;
    ASSERT_TRUE(pr.kernarg_segment_ptr);
    ASSERT_LE(pos + 2, p.user_data_count);
    p.user_data[pos] = static_cast<uint32_t>(kernargs_.va.raw());
    p.user_data[pos + 1] = static_cast<uint32_t>(kernargs_.va.raw() >> 32);
    p.grid = {groups, 1, 1};
    p.workgroup = {group_size, 1, 1};
    emu_->options().kernel_name = kernel;
  }

  std::unique_ptr<SimGpu> gpu_;
  std::unique_ptr<Emulator> emu_;
  std::unique_ptr<queues::amd::ComputeQueue> queue_;
  DeviceBuffer image_, kernargs_, scratch_;
};

inline constexpr const char* kHeader = R"(
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare void @llvm.amdgcn.s.barrier()
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.sqrt.f32(float)
declare float @llvm.maxnum.f32(float, float)
attributes #0 = { "amdgpu-flat-work-group-size"="64,64" }
)";

// The start of a 64-lane-workgroup kernel's entry block over the arguments %pa and %pb: lane
// %i = workgroup * 64 + workitem (%idx zero-extended) loads its operands %a = pa[i] and
// %b = pb[i] of type `ty`.
inline std::string lane_operands_ir(const std::string& ty) {
  return "  %tid = call i32 @llvm.amdgcn.workitem.id.x()\n"
         "  %wg = call i32 @llvm.amdgcn.workgroup.id.x()\n"
         "  %base = shl i32 %wg, 6\n"
         "  %i = add i32 %base, %tid\n"
         "  %idx = zext i32 %i to i64\n"
         "  %ga = getelementptr inbounds " +
         ty +
         ", ptr addrspace(1) %pa, i64 %idx\n"
         "  %gb = getelementptr inbounds " +
         ty +
         ", ptr addrspace(1) %pb, i64 %idx\n"
         "  %a = load " +
         ty +
         ", ptr addrspace(1) %ga\n"
         "  %b = load " +
         ty + ", ptr addrspace(1) %gb\n";
}

// Whether the bits x of an LLVM IR value of type t ("half", "bfloat", "float", "double") are a
// NaN; false for other types.
inline bool is_nan_bits(uint64_t x, std::string_view t) {
  if (t == "half") return (x & 0x7FFF) > 0x7C00;
  if (t == "bfloat") return (x & 0x7FFF) > 0x7F80;
  if (t == "float") return (x & 0x7FFFFFFF) > 0x7F800000;
  if (t == "double") return (x & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
  return false;
}

// "declare" lines for the functions that IR snippets call, in the form
// "call [fast-math flags] RT @name(T1 v1, T2 v2)": each distinct declaration once, sorted.
inline std::string call_declarations(const std::vector<std::string>& bodies) {
  std::set<std::string> decls;
  for (const std::string& b : bodies) {
    for (size_t c = b.find("call "); c != std::string::npos; c = b.find("call ", c + 5)) {
      const size_t at = b.find(" @", c), lp = b.find('(', at), rp = b.find(')', lp);
      std::string rt = b.substr(c + 5, at - c - 5);
      for (bool stripped = true; stripped;) {  // the call's fast-math flags, in any order
        stripped = false;
        for (const char* fmf : {"afn ", "arcp ", "nnan ", "ninf ", "nsz ", "contract ", "fast "})
          if (rt.starts_with(fmf)) rt.erase(0, std::strlen(fmf)), stripped = true;
      }
      std::string d = "declare " + rt + b.substr(at, lp - at) + "(";
      const std::string args = b.substr(lp + 1, rp - lp - 1);
      for (size_t s = 0; s <= args.size();) {
        size_t e = args.find(", ", s);
        if (e == std::string::npos) e = args.size();
        const std::string a = args.substr(s, e - s);
        d += (s ? ", " : "") + a.substr(0, a.rfind(' '));
        s = e + 2;
      }
      decls.insert(d + ")");
    }
  }
  std::string out;
  for (const std::string& d : decls) out += d + "\n";
  return out;
}

}  // namespace rawgpu::sim::rdna::testing
