// GPU code generation: targets, GPU lowering of kernel ASTs, and the typed program
// description (ProgramSpec) with the compiled binary and what the loader extracted from it.
//
//   kernel AST --gpu_lower--> AST with launch ids (SPECIAL gidx/lidx), local buffers, group
//   reductions and gated stores --linearize + insert_barriers--> linear program --LLVM-->
//   AMDGPU code object (lld in-process) | PTX (+ cubin through ptxas when installed) | host object
//
// Nothing here runs a kernel: this is the compile-only ("null") device. See compiler/README.md.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/ir.h"
#include "rawgpu/compiler/linearize.h"

namespace rawgpu::compiler {

enum class GpuArch : uint8_t { kAmd, kNv, kHost };

struct GpuTarget {
  std::string name;  // "gfx1100", "sm_80", "host"
  GpuArch arch = GpuArch::kHost;
  uint32_t wave = 1;                            // 32 (RDNA, NVIDIA), 64 (CDNA), 1 (host)
  uint32_t max_threads = 1;                     // work-group size limit
  std::array<uint32_t, 3> max_local{1, 1, 1};   // per dim
  std::array<uint64_t, 3> max_groups{1, 1, 1};  // work-groups per dim
  uint32_t max_local_bytes = 0;  // LDS (AMD 64 KiB) / static shared memory (NVIDIA 48 KiB)
};

// Known targets: gfx1100 gfx1200 gfx1201 gfx942 sm_80 sm_86 sm_89 sm_90 host.
std::span<const std::string_view> gpu_target_names();
Result<GpuTarget> gpu_target(std::string_view name);

struct GpuOptions {
  // Work-group size per output axis (by axis order, outermost first); empty: heuristic
  // (up to `default_threads` threads, innermost axis first, divisors of the axis sizes).
  std::vector<int64_t> local;
  uint32_t default_threads = 256;
  // Lanes of a group reduction (GROUP): each REDUCE over one constant-size range whose size
  // it divides is split across this many threads of a work-group, partials meet in local
  // memory. 0: off. Output axes then get work-group size 1.
  int64_t group = 0;
  // GROUPTOP: lane l reduces the contiguous chunk [l * N/group, (l+1) * N/group) of each split
  // reduction instead of the interleaved elements l, l + group, ... (GROUP).
  bool group_top = false;
  // Tensor cores (tensor_core.h): lower the kernel's matmul (f16/bf16 inputs, f32 accumulate) to
  // the target's WMMA/MFMA/mma.sync, one wave per output tile. Typed KernelOptError when the
  // kernel is not such a matmul, its sizes are not multiples of the tile, or the target has no
  // tensor core (host). Excludes `local` and `group`.
  bool tensor_cores = false;
  // Memory coalescing (linearize.h LowerOptions): consecutive aligned accesses of upcast lanes
  // become vector loads/stores of at most this many bytes (16: global_load_dwordx4 on AMDGPU,
  // ld.global.v4.f32 on NVPTX), assuming buffers aligned to it; 0 (default): scalar accesses.
  int vector_bytes = 0;
  int opt_level = 3;
  // NVIDIA: run ptxas (when installed) to produce and parse a cubin.
  bool assemble = true;
};

// The AST after GPU lowering and its launch geometry.
struct GpuKernel {
  Ref ast;                                 // lowered kernel AST (SPECIAL launch ids)
  std::array<int64_t, 3> global{1, 1, 1};  // work-groups per dim (x, y, z); upper bound when
                                           // the dim is symbolic (global_expr)
  // Symbolic work-group counts (null: the dim is the constant global[d]): expressions of the
  // kernel's scalar variables (DEFINE_VARs, ProgramSpec::vars) for output sizes that depend on
  // them; evaluate with launch_global. The threads past the size are masked off (every global
  // load and store is gated by flat index < size).
  std::array<Ref, 3> global_expr{};
  std::array<int64_t, 3> local{1, 1, 1};  // work-items per work-group
  std::vector<std::string> applied_opts;  // "LOCAL axis 1 -> 64", "GROUP 256 on %12", ...
};

Result<GpuKernel> gpu_lower(Ref sink, const GpuTarget& target, const GpuOptions& options);

// Inserts BARRIER instructions into a linear program: before a local load that follows a local
// store to the same buffer (read after write), before a local store that follows a local load
// of it (write after read), and at the end of a loop body that both stores and loads the same
// local buffer (write after read across iterations). Returns how many it inserted.
size_t insert_barriers(Program& p);

struct BufferUse {
  int64_t slot = 0;
  DType dtype = DType::kFloat32;
  int64_t count = 0;
  bool input = false, output = false;
};

// What the loader extracted from the binary (zero where the target has no such field).
struct LoadedKernel {
  uint32_t kernarg_bytes = 0;     // AMD kernarg segment / NV parameter bytes in bank 0
  uint32_t param_offset = 0;      // NV: parameter offset in constant bank 0
  uint32_t local_bytes = 0;       // LDS (AMD) / static shared (NV, as in the cubin)
  uint32_t scratch_bytes = 0;     // private segment (AMD) / stack (NV)
  uint32_t sgprs = 0, vgprs = 0;  // AMD
  uint32_t registers = 0;         // NV
  uint32_t wave = 0;
  uint32_t max_threads = 0;
  std::string descriptor;  // one-line summary
};

struct StageTimes {
  double lower_ms = 0, linearize_ms = 0, llvm_ir_ms = 0, opt_ms = 0, codegen_ms = 0, link_ms = 0,
         assemble_ms = 0, parse_ms = 0;
  double total() const {
    return lower_ms + linearize_ms + llvm_ir_ms + opt_ms + codegen_ms + link_ms + assemble_ms +
           parse_ms;
  }
};

// The typed program description of one compiled kernel.
struct ProgramSpec {
  std::string name;
  GpuTarget target;
  Ref ast;                // the kernel AST as given
  GpuKernel gpu;          // lowered AST, launch geometry, applied opts
  Program program;        // the linear program (with barriers)
  std::vector<Ref> vars;  // scalar arguments, kernel argument order after the buffers
  std::vector<BufferUse> buffers;
  // Estimates for the whole launch: ALU flops, bytes loaded + stored (every thread), and the
  // distinct buffer bytes touched.
  uint64_t flops = 0, bytes = 0, memory_bytes = 0;
  // Artifacts.
  std::string llvm_ir, assembly;  // assembly: GCN/RDNA assembly, PTX, or host assembly
  std::vector<uint8_t> binary;    // code object / cubin (empty without ptxas) / host object
  std::string binary_kind;        // "code object", "cubin", "ptx only", "host object"
  std::string binary_note;        // why a binary is missing (ptxas absent), ptxas -v output
  LoadedKernel loaded;
  StageTimes times;
};

Result<ProgramSpec> compile_gpu(Ref sink, std::string_view name, const GpuTarget& target,
                                const GpuOptions& options = {});

// Work-groups per dim for a launch with the given variable values (ProgramSpec::vars order):
// the symbolic dims evaluated, the others as compiled. Errors: wrong number of values
// (kInvalidArgument), a value outside its variable's bounds (kOutOfRange).
Result<std::array<int64_t, 3>> launch_global(const ProgramSpec& spec,
                                             std::span<const int64_t> var_values);

// ptxas, found on PATH or in /usr/local/cuda/bin; empty when not installed.
std::string find_ptxas();

// Example kernels built from hand-written ASTs (for `rawgpu compile` and the tests).
struct GpuExample {
  std::string name, description;
  Ref sink;
  GpuOptions options;
};
std::span<const std::string_view> gpu_example_names();
Result<GpuExample> gpu_example(Context& ctx, std::string_view name);

// Deterministic inputs and host reference outputs for an example kernel (gpu_example_data.cpp),
// shared by the numerics tests (CPU back end, RDNA emulator), the CLI and device harnesses. The
// references are plain loops written from each example's description (double accumulation,
// rounded to float once), independent of the compiler. Inputs are small dyadic rationals (small
// integers for the f16/bf16 tensor-core matmuls), so kernels without transcendental or division
// ops (reduce_row, matmul, conv2d, matmul_tc*, elementwise_n) are exact in f32 in any summation
// order (atol = rtol = 0); the others carry a tolerance justified where they are built.
struct GpuExampleData {
  std::vector<DType> dtypes;                  // per buffer slot
  std::vector<std::vector<uint8_t>> buffers;  // per slot: initial bytes (slot 0, the output, zero)
  std::vector<int64_t> var_values;            // values of ProgramSpec::vars, in that order
  std::vector<float> expected;                // the first expected_count elements of slot 0 after
  size_t expected_count = 0;                  // the kernel (f32 output in every example)
  // An element passes when |got - want| <= atol + rtol * |want| (and is not NaN).
  double atol = 0, rtol = 0;
};
// Errors: an unknown name is kNotFound (as gpu_example). Seeds give different inputs.
Result<GpuExampleData> gpu_example_data(std::string_view name, uint64_t seed = 1);

// Slot 0's bytes after a run compared with GpuExampleData::expected.
struct GpuExampleCheck {
  size_t checked = 0, failures = 0;  // elements compared / outside atol + rtol * |want| (or NaN)
  double max_abs_err = 0;            // max |got - want| (infinity for NaN)
  double max_rel_err = 0;            // max |got - want| / |want| over want != 0
  size_t worst = 0;                  // index of the element with the largest error / tolerance
  float worst_got = 0, worst_want = 0;
  bool ok() const { return failures == 0 && checked > 0; }
  std::string summary() const;  // "65536 checked, 0 failed, max abs 2.4e-07, max rel ..."
};
// Fewer than expected_count floats in `output` count as failures.
GpuExampleCheck check_gpu_example(const GpuExampleData& data, std::span<const uint8_t> output);

}  // namespace rawgpu::compiler
