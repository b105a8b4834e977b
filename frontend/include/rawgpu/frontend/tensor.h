// The lazy Tensor API. Operations build a tensor graph (compiler/schedule.h) and run nothing;
// realize(), to_host() and item() schedule the graph into fused kernels, compile them (cached)
// and run them on the tensor's device.
//
//   using namespace rawgpu::frontend;
//   Tensor x = Tensor::randn({4, 16}), w = Tensor::randn({16, 8});
//   Tensor y = (x.matmul(w) + 1.0f).relu().softmax(-1);
//   auto host = RG_TRY(y.to_host<float>());          // realizes: 3 kernels
//
// Errors propagate through the graph instead of through every call: an op whose inputs are
// invalid (mismatched shapes, bad axes, bad reshape sizes, unsupported casts, unknown devices)
// returns an *error tensor* carrying a typed Error (base/error.h) that names the op and the
// shapes. Ops on an error tensor return it unchanged (the first error wins), and realize(),
// to_host() and item() return it, so nothing is executed. `ok()` / `status()` check at any
// point. Every error is decided when the op is built, from shapes and dtypes alone.
//
// Devices come from runtime/ (the device layer): "cpu" (LLVM ORC JIT on the host), and through
// its registry (runtime/registry.h) others: "sim:gfx1100"/"sim:gfx1201" (runtime/sim_devices.h:
// the compiler's AMDGPU code objects on the simulated GPU). Creation functions use default_device()
// unless given a name; an unknown name is a kNotFound error. to(device) copies a tensor across
// devices.
//
// Threading: tensors and their graph live in one process-wide Context, so the API is used from
// one thread at a time (kernels themselves run on the runtime's thread pool).
//
// dtypes: binary ops promote with compiler::promote (scalars are weak: int8 tensor + 3 stays
// int8, an int tensor + 1.5 becomes float32). Division, exp, log, sqrt, trig and the activations
// compute in promote_float of the input. sum/prod of bool and 8/16-bit ints accumulate and return
// int32 (uint32 for unsigned); of f16/bf16 accumulate in float32 and return the input dtype.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/compiler/dtype.h"
#include "rawgpu/compiler/schedule.h"
#include "rawgpu/runtime/cpu_device.h"
#include "rawgpu/runtime/device.h"
#include "rawgpu/runtime/registry.h"

namespace rawgpu::frontend {

using compiler::DType;
using Shape = std::vector<int64_t>;
using Axes = std::vector<int64_t>;

class Tensor;

// The device layer, as the Tensor API's users name it (runtime/registry.h, cpu_device.h).
using runtime::Buffer;
using runtime::cpu_runtime;
using runtime::default_device;
using runtime::Device;
using runtime::get_device;
using runtime::register_device;
using runtime::set_default_device;

// Counters for tests and the demo.
struct Stats {
  uint64_t kernels_launched = 0;
  uint64_t schedules = 0;
  uint64_t last_schedule_kernels = 0;  // kernels run by the last realize()
  uint64_t last_arena_bytes = 0;       // intermediate arena of the last realize()
};
const Stats& stats();

class Tensor {
 public:
  struct Impl;

  Tensor();  // an error tensor ("uninitialised tensor")
  explicit Tensor(Error e);

  // ---- creation -----------------------------------------------------------------------------
  static Tensor empty(const Shape& shape, DType dtype = DType::kFloat32,
                      std::string_view device = {});
  static Tensor zeros(const Shape& shape, DType dtype = DType::kFloat32,
                      std::string_view device = {});
  static Tensor ones(const Shape& shape, DType dtype = DType::kFloat32,
                     std::string_view device = {});
  static Tensor full(const Shape& shape, double value, DType dtype = DType::kFloat32,
                     std::string_view device = {});
  // [start, stop) by step (Python semantics), int32 unless dtype given.
  static Tensor arange(double start, double stop, double step = 1, DType dtype = DType::kInt32,
                       std::string_view device = {});
  static Tensor arange(int64_t n, DType dtype = DType::kInt32) {
    return arange(0, double(n), 1, dtype);
  }
  static Tensor eye(int64_t n, DType dtype = DType::kFloat32, std::string_view device = {});
  // Copies host data (bytes.size() must be numel * itemsize).
  static Tensor from_bytes(std::span<const std::byte> bytes, const Shape& shape, DType dtype,
                           std::string_view device = {});
  template <class T>
  static Tensor from(const std::vector<T>& v, const Shape& shape, DType dtype,
                     std::string_view device = {}) {
    return from_bytes(std::as_bytes(std::span(v)), shape, dtype, device);
  }
  static Tensor from(const std::vector<float>& v, const Shape& shape) {
    return from(v, shape, DType::kFloat32);
  }
  // Counter-based random numbers (threefry 2x32, 20 rounds): element i of the k-th random
  // tensor since manual_seed(s) depends only on (s, k, i), on every device.
  static void manual_seed(uint64_t seed);
  static Tensor rand(const Shape& shape, DType dtype = DType::kFloat32);   // uniform [0, 1)
  static Tensor randn(const Shape& shape, DType dtype = DType::kFloat32);  // N(0, 1), Box-Muller
  static Tensor randint(const Shape& shape, int64_t low, int64_t high,
                        DType dtype = DType::kInt32);  // uniform [low, high)
  // This tensor's values on `device` (realizes it; a copy through the host).
  Tensor to(std::string_view device) const;
  // A scalar constant broadcast to this tensor's shape, with this tensor's device.
  Tensor full_like(double value, std::optional<DType> dtype = std::nullopt) const;

  // ---- state --------------------------------------------------------------------------------
  bool ok() const { return impl_ != nullptr; }
  Status status() const;
  const Shape& shape() const;  // empty for error tensors
  int64_t ndim() const { return int64_t(shape().size()); }
  int64_t numel() const;
  DType dtype() const;
  std::string device() const;
  std::string to_string() const;  // "Tensor(float32, (2, 3), cpu)" or "Tensor(error: ...)"

  // ---- elementwise --------------------------------------------------------------------------
  Tensor add(const Tensor& o) const;
  Tensor sub(const Tensor& o) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;  // true division (float)
  Tensor pow(const Tensor& o) const;
  Tensor maximum(const Tensor& o) const;
  Tensor minimum(const Tensor& o) const;
  Tensor lt(const Tensor& o) const;
  Tensor le(const Tensor& o) const;
  Tensor gt(const Tensor& o) const;
  Tensor ge(const Tensor& o) const;
  Tensor eq(const Tensor& o) const;
  Tensor ne(const Tensor& o) const;
  Tensor logical_and(const Tensor& o) const;
  Tensor logical_or(const Tensor& o) const;
  Tensor logical_xor(const Tensor& o) const;
  Tensor logical_not() const;
  Tensor bitwise_and(const Tensor& o) const;
  Tensor bitwise_or(const Tensor& o) const;
  Tensor bitwise_xor(const Tensor& o) const;
  static Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
  Tensor where(const Tensor& a, const Tensor& b) const { return where(*this, a, b); }

  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor exp2() const;
  Tensor log() const;
  Tensor log2() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor reciprocal() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor relu() const;
  Tensor leaky_relu(double slope = 0.01) const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor gelu() const;  // tanh approximation
  Tensor silu() const;
  Tensor cast(DType dtype) const;
  Tensor bitcast(DType dtype) const;  // same itemsize

  // ---- reductions (axes may be negative; empty axes = all) ----------------------------------
  Tensor sum(const Axes& axes = {}, bool keepdim = false) const;
  Tensor prod(const Axes& axes = {}, bool keepdim = false) const;
  Tensor max(const Axes& axes = {}, bool keepdim = false) const;
  Tensor min(const Axes& axes = {}, bool keepdim = false) const;
  Tensor mean(const Axes& axes = {}, bool keepdim = false) const;
  Tensor var(const Axes& axes = {}, bool keepdim = false, int64_t correction = 1) const;
  Tensor std(const Axes& axes = {}, bool keepdim = false, int64_t correction = 1) const;
  // Index (int32) of the first maximum/minimum along axis; nullopt: of the flattened tensor.
  Tensor argmax(std::optional<int64_t> axis = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> axis = std::nullopt, bool keepdim = false) const;

  // ---- movement -----------------------------------------------------------------------------
  Tensor reshape(const Shape& shape) const;  // one -1 allowed
  Tensor permute(const Axes& order) const;
  Tensor transpose(int64_t a = -2, int64_t b = -1) const;
  Tensor expand(const Shape& shape) const;  // -1 keeps a dim; new leading dims allowed
  Tensor broadcast_to(const Shape& shape) const { return expand(shape); }
  // (before, after) per axis from the first; value fills.
  Tensor pad(const std::vector<std::pair<int64_t, int64_t>>& pads, double value = 0) const;
  Tensor shrink(const std::vector<std::pair<int64_t, int64_t>>& ranges) const;  // [begin, end)
  // Python slicing of one axis: start/stop wrap when negative and clamp; step != 0.
  static constexpr int64_t kNone = INT64_MIN;
  Tensor slice(int64_t axis, int64_t start = kNone, int64_t stop = kNone, int64_t step = 1) const;
  Tensor flip(const Axes& axes) const;
  Tensor squeeze(std::optional<int64_t> axis = std::nullopt) const;
  Tensor unsqueeze(int64_t axis) const;
  Tensor flatten(int64_t start = 0, int64_t end = -1) const;
  Tensor repeat(const Shape& times) const;
  Tensor contiguous() const;
  static Tensor cat(const std::vector<Tensor>& ts, int64_t axis = 0);
  static Tensor stack(const std::vector<Tensor>& ts, int64_t axis = 0);

  // ---- composite ----------------------------------------------------------------------------
  Tensor matmul(const Tensor& o) const;  // batched, broadcasting; 1-D operands as in numpy
  Tensor dot(const Tensor& o) const { return matmul(o); }
  // x (N, Cin, H, W), weight (Cout, Cin/groups, KH, KW), bias (Cout) or an error-free empty.
  Tensor conv2d(const Tensor& weight, const Tensor* bias = nullptr,
                std::pair<int64_t, int64_t> stride = {1, 1},
                std::pair<int64_t, int64_t> padding = {0, 0},
                std::pair<int64_t, int64_t> dilation = {1, 1}, int64_t groups = 1) const;
  // Over the last two axes.
  Tensor max_pool2d(std::pair<int64_t, int64_t> kernel, std::pair<int64_t, int64_t> stride = {0, 0},
                    std::pair<int64_t, int64_t> padding = {0, 0},
                    std::pair<int64_t, int64_t> dilation = {1, 1}) const;
  Tensor avg_pool2d(std::pair<int64_t, int64_t> kernel, std::pair<int64_t, int64_t> stride = {0, 0},
                    std::pair<int64_t, int64_t> padding = {0, 0}) const;  // padding counts as 0
  Tensor softmax(int64_t axis = -1) const;
  Tensor log_softmax(int64_t axis = -1) const;
  // Normalises over the last `axes` axes; weight/bias (shape of those axes) optional.
  Tensor layernorm(int64_t axes = 1, double eps = 1e-5, const Tensor* weight = nullptr,
                   const Tensor* bias = nullptr) const;
  Tensor cumsum(int64_t axis = 0) const;
  // out[..., i, ...] = self[..., index[..., i, ...], ...] along axis (index: integer tensor of
  // the same rank, other dims no larger than self's).
  Tensor gather(int64_t axis, const Tensor& index) const;

  // ---- execution ----------------------------------------------------------------------------
  Status realize() const;
  static Status realize_all(std::span<const Tensor> ts);
  // Host copy. T must have the tensor's itemsize and kind (float/int/bool); f16/bf16 read as
  // uint16_t bit patterns.
  template <class T>
  Result<std::vector<T>> to_host() const {
    RG_TRY(check_host_type(sizeof(T), std::is_floating_point_v<T>, std::is_same_v<T, bool>,
                           std::is_signed_v<T>));
    std::vector<T> out(static_cast<size_t>(numel()));
    RG_TRY(copy_to_host(std::as_writable_bytes(std::span(out))));
    return out;
  }
  // Any dtype converted to double (f16/bf16 decoded): for tests and printing.
  Result<std::vector<double>> to_doubles() const;
  Result<double> item() const;  // a one-element tensor

  // The tensor-graph node (for scheduler tests); null for error tensors.
  const void* graph_node() const;

 private:
  explicit Tensor(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  Status check_host_type(size_t size, bool is_fp, bool is_bool, bool is_signed) const;
  Status copy_to_host(std::span<std::byte> out) const;
  friend struct Ops;
  std::shared_ptr<Impl> impl_;
  std::shared_ptr<const Error> err_;
};

// Operators with tensors and scalars (a scalar takes the tensor's dtype family, weakly).
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);

// The kernels the schedule of these tensors would run (nothing runs; realized tensors need
// none): for fusion tests.
Result<size_t> count_kernels(std::span<const Tensor> ts);
// The schedule realize_all(ts) would run (kernels, memory plan), without running anything. The
// IR lives in the frontend's Context (one thread at a time). For compile benchmarks and tools.
Result<compiler::Schedule> schedule_tensors(std::span<const Tensor> ts);

}  // namespace rawgpu::frontend
