// The host-CPU runtime: buffers, kernels compiled through LLVM's ORC JIT, launches split over a
// thread pool, and an in-memory compile cache keyed by the kernel AST's structural hash.
//
//   auto rt = RG_TRY(CpuRuntime::create());
//   CpuBuffer a(DType::kFloat32, 1024);            // zero-filled, 64-byte aligned
//   RG_TRY(a.copy_in(std::as_bytes(std::span(host))));
//   const CpuKernel* k = RG_TRY(rt->compile(sink)); // cached by sink->hash()
//   CpuBuffer* bufs[] = {&out, &a};                // by BUFFER slot
//   RG_TRY(rt->launch(*k, bufs, {}));
//
// launch() checks every argument (count, dtype, size against the BUFFER's declared element
// count, variable bounds) before anything runs; a failed launch changes no buffer.
// Thread-safety: compile() and launch() may be called from one thread at a time per runtime;
// kernels run on the runtime's pool threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/dtype.h"
#include "rawgpu/compiler/ir.h"
#include "rawgpu/compiler/linearize.h"
#include "rawgpu/compiler/opt.h"

namespace rawgpu::compiler {

class CpuBuffer {
 public:
  // Zero-filled; kOverflow when count * itemsize wraps, kOutOfMemory when the host has no room
  // (large buffers are anonymous mappings the kernel must be able to back: no overcommit past
  // what it would refuse).
  static Result<CpuBuffer> create(DType dtype, size_t count);
  CpuBuffer(DType dtype, size_t count);  // create(), aborting on failure (tests, small buffers)
  // A view of caller memory (an arena slice from a memory plan): not freed by the buffer. `data`
  // must hold count elements and outlive the view.
  static CpuBuffer borrow(DType dtype, size_t count, void* data);
  ~CpuBuffer();
  CpuBuffer(CpuBuffer&&) noexcept;
  CpuBuffer& operator=(CpuBuffer&&) noexcept;

  DType dtype() const { return dtype_; }
  size_t count() const { return count_; }
  size_t nbytes() const { return count_ * size_t(itemsize(dtype_)); }
  void* data() { return data_; }
  const void* data() const { return data_; }
  // Exactly nbytes() bytes, else kInvalidArgument (and nothing copied).
  Status copy_in(std::span<const std::byte> bytes);
  Status copy_out(std::span<std::byte> bytes) const;

 private:
  DType dtype_;
  size_t count_;
  void* data_ = nullptr;
  bool owned_ = true;
  size_t mapped_ = 0;  // bytes of an anonymous mapping (munmap), or 0 (aligned_alloc / borrowed)
  CpuBuffer() : dtype_(DType::kUInt8), count_(0) {}
  void release();
};

struct CpuKernel {
  std::string name;  // "k_<first 16 hex digits of the AST hash>"
  Hash128 hash;
  Program program;        // buffers, vars, cost estimates (the IR lives in the caller's Context)
  std::vector<Opt> opts;  // the optimizer opts applied to the AST (heuristic or explicit)
  void* entry = nullptr;
  double compile_s = 0;  // seconds spent compiling it (linearize + CPU time in LLVM)
  // Per buffer slot: dtype and declared element count (BUFFER arg (slot, count); -1 unknown).
  std::vector<DType> buffer_dtypes;
  std::vector<int64_t> buffer_counts;
  // Operand packing (compile_optimized of a large matmul, see pack_matmul_operand): launch()
  // first runs `pack` to copy the buffer in slot `pack_slot` into `pack_buffer`, then this
  // kernel with `pack_buffer` as one extra slot after the caller's. buffer_dtypes/counts
  // describe the caller's slots only.
  const CpuKernel* pack = nullptr;
  int64_t pack_slot = -1;
  std::shared_ptr<CpuBuffer> pack_buffer;
};

struct CpuRuntimeOptions {
  int threads = 0;    // 0: std::thread::hardware_concurrency()
  int opt_level = 3;  // LLVM pipeline O0..O3
  // Kernels with a parallel loop are split over the pool only when their estimated work
  // (Program::flops + Program::bytes) reaches this; waking the pool costs tens of microseconds.
  uint64_t min_parallel_work = uint64_t{1} << 16;
  // compile_optimized() applies the hand-written heuristic (hand_coded_opts: register-blocked
  // matmuls, upcast/unroll of reductions, THREAD). RAWGPU_NOOPT=1 in the environment turns it
  // off for every runtime created afterwards.
  bool heuristic = true;
  // With the heuristic: large matmuls read a packed copy of their B operand
  // (pack_matmul_operand). RAWGPU_NOPACK=1 turns it off.
  bool pack = true;
  // Memory coalescing (linearize.h LowerOptions): consecutive aligned accesses of upcast lanes
  // become vector loads/stores of at most this many bytes (0: scalar; RAWGPU_VECTORIZE=0 in the
  // environment turns it off). Vector kernels assume 64-byte aligned buffers (CpuBuffer
  // allocations and the scheduler's arena slices are) and launch checks it.
  int vector_bytes = 64;
};

// Seconds spent by CpuRuntime::compile on cache misses, per stage, summed over kernels.
struct CpuCompileTimes {
  uint64_t kernels = 0;    // kernels compiled (cache misses)
  double linearize_s = 0;  // lower + linearize (AST -> linear program)
  double ir_s = 0;         // LLVM IR construction (IRBuilder)
  double codegen_s = 0;    // LLVM pass pipeline, machine code, JIT link
};

class CpuRuntime {
 public:
  static Result<std::unique_ptr<CpuRuntime>> create(const CpuRuntimeOptions& options = {});
  ~CpuRuntime();
  CpuRuntime(const CpuRuntime&) = delete;
  CpuRuntime& operator=(const CpuRuntime&) = delete;

  // Lowers, linearizes and JIT-compiles the kernel AST `sink`, or returns the cached kernel with
  // the same structural hash. The returned kernel lives as long as the runtime.
  // Compiles exactly `sink` (no optimizer opts).
  Result<const CpuKernel*> compile(Ref sink);
  // compile() of several ASTs with the LLVM work of the cache misses (IR construction, pass
  // pipeline, machine code) spread over up to `workers` threads, each with its own LLVMContext
  // and TargetMachine (1: all on this thread). Lowering and linearizing (which create IR
  // nodes) and linking into the JIT stay on the calling thread; the workers only read the
  // linearized programs, so no other thread may use the ASTs' Context meanwhile. Result i is
  // the kernel of sinks[i] or why it failed; one failure does not stop the others. The kernels
  // are identical to compile()'s (same pipeline, same target machine configuration).
  std::vector<Result<const CpuKernel*>> compile_batch(std::span<const Ref> sinks, int workers);
  // Compiles `sink` with exactly these opts (none: the plain kernel). Errors: the
  // KernelOptError of an illegal opt, or compile errors. Cached by the optimized AST's hash.
  Result<const CpuKernel*> compile_with_opts(Ref sink, std::span<const Opt> opts);
  // What the frontend's CPU device uses: the hand-written heuristic's opts (hand_coded_opts,
  // for this runtime's thread count) applied to `sink`, or the plain kernel when the heuristic
  // is off (CpuRuntimeOptions::heuristic, RAWGPU_NOOPT=1). The kernel's `opts` say which.
  Result<const CpuKernel*> compile_optimized(Ref sink);
  bool heuristic() const;
  // Runs the kernel; buffers by slot, vars in kernel.program.vars order (names sorted).
  Status launch(const CpuKernel& kernel, std::span<CpuBuffer* const> buffers,
                std::span<const int64_t> vars);

  int threads() const;
  // Identifies what compiled code is specialised for: "cpu:<triple>:<host cpu>:O<level>:<n>t".
  std::string device() const;
  const CpuCompileTimes& compile_times() const;
  size_t cache_size() const;
  uint64_t cache_hits() const;

 private:
  struct Impl;
  explicit CpuRuntime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rawgpu::compiler
