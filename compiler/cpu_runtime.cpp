#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <cerrno>

#include "cpu_jit.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/env.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/cpu.h"
#include "rawgpu/compiler/transcendental.h"

namespace rawgpu::compiler {

Result<CpuBuffer> CpuBuffer::create(DType dtype, size_t count) {
  constexpr size_t kMapAt = size_t{1} << 20;  // from 1 MiB: fresh zero pages, no memset
  const Result<uint64_t> total_bytes = checked_mul(count, size_t(itemsize(dtype)));
  if (!total_bytes || *total_bytes > (SIZE_MAX >> 1))
    return make_error(Errc::kOverflow, "host buffer of %zu %s elements: the byte size overflows",
                      count, std::string(dtype_name(dtype)).c_str());
  const size_t bytes = *total_bytes;
  CpuBuffer b;
  b.dtype_ = dtype;
  b.count_ = count;
  if (bytes >= kMapAt) {
    // More than the machine's RAM and swap together can never be backed, whatever the kernel's
    // overcommit policy lets mmap promise (with overcommit "always" the kernel would accept it
    // and the kernel's OOM killer would end the process on the first writes instead).
    struct sysinfo si{};
    if (::sysinfo(&si) == 0) {
      const unsigned __int128 total =
          (static_cast<unsigned __int128>(si.totalram) + si.totalswap) * si.mem_unit;
      if (bytes > total)
        return make_error(Errc::kOutOfMemory,
                          "host buffer of %s (%zu %s elements): more than this machine's RAM "
                          "and swap (%s)",
                          format_bytes(bytes).c_str(), count,
                          std::string(dtype_name(dtype)).c_str(),
                          format_bytes(static_cast<uint64_t>(total)).c_str())
            .with_hint("use a smaller tensor, or a device with more memory");
    }
    const size_t len = (bytes + 4095) & ~size_t{4095};
    void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return make_error(Errc::kOutOfMemory,
                        "host buffer of %s (%zu %s elements): the host refused the memory (%s)",
                        format_bytes(bytes).c_str(), count, std::string(dtype_name(dtype)).c_str(),
                        std::strerror(errno))
          .with_hint("use a smaller tensor, or free other buffers first");
    b.data_ = p;
    b.mapped_ = len;
    return b;
  }
  const size_t rounded = (std::max<size_t>(bytes, 1) + 63) & ~size_t{63};  // aligned_alloc rule
  b.data_ = std::aligned_alloc(64, rounded);
  if (b.data_ == nullptr)
    return make_error(Errc::kOutOfMemory, "host buffer of %zu bytes: allocation failed", bytes);
  std::memset(b.data_, 0, rounded);
  return b;
}
CpuBuffer::CpuBuffer(DType dtype, size_t count) : dtype_(dtype), count_(0) {
  Result<CpuBuffer> b = create(dtype, count);
  RG_CHECK(b.ok(), "%s", b.ok() ? "" : b.error().to_string().c_str());
  *this = std::move(*b);
}
CpuBuffer CpuBuffer::borrow(DType dtype, size_t count, void* data) {
  CpuBuffer b;
  b.dtype_ = dtype;
  b.count_ = count;
  b.data_ = data;
  b.owned_ = false;
  return b;
}
void CpuBuffer::release() {
  if (!owned_ || data_ == nullptr) return;
  if (mapped_)
    ::munmap(data_, mapped_);
  else
    std::free(data_);
  data_ = nullptr;
  mapped_ = 0;
}
CpuBuffer::~CpuBuffer() { release(); }
CpuBuffer::CpuBuffer(CpuBuffer&& o) noexcept
    : dtype_(o.dtype_), count_(o.count_), data_(o.data_), owned_(o.owned_), mapped_(o.mapped_) {
  o.data_ = nullptr;
  o.count_ = 0;
  o.owned_ = true;
  o.mapped_ = 0;
}
CpuBuffer& CpuBuffer::operator=(CpuBuffer&& o) noexcept {
  if (this != &o) {
    release();
    dtype_ = o.dtype_;
    count_ = o.count_;
    data_ = o.data_;
    owned_ = o.owned_;
    mapped_ = o.mapped_;
    o.data_ = nullptr;
    o.count_ = 0;
    o.owned_ = true;
    o.mapped_ = 0;
  }
  return *this;
}
Status CpuBuffer::copy_in(std::span<const std::byte> bytes) {
  if (bytes.size() != nbytes())
    return make_error(Errc::kInvalidArgument,
                      "copy_in: %zu bytes given, buffer holds %zu (%zu x %s)", bytes.size(),
                      nbytes(), count_, std::string(dtype_name(dtype_)).c_str());
  if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
  return ok_status();
}
Status CpuBuffer::copy_out(std::span<std::byte> bytes) const {
  if (bytes.size() != nbytes())
    return make_error(Errc::kInvalidArgument,
                      "copy_out: %zu bytes of room, buffer holds %zu (%zu x %s)", bytes.size(),
                      nbytes(), count_, std::string(dtype_name(dtype_)).c_str());
  if (!bytes.empty()) std::memcpy(bytes.data(), data_, bytes.size());
  return ok_status();
}

namespace {
// Calls JIT code. UBSan's -fsanitize=function reads a signature word just before the callee,
// which JIT code does not have (and the page before it may be unmapped): exempt this call.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
void call_kernel(KernelEntry e, void** bufs, const int64_t* vars, int64_t t, int64_t n) {
  e(bufs, vars, t, n);
}

// A fixed pool: run(n, fn) calls fn(0..n-1) on the pool threads and the caller, then returns.
class ThreadPool {
 public:
  explicit ThreadPool(int n) {
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i] { work(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int size() const { return int(workers_.size()) + 1; }
  void run(const std::function<void(int)>& fn) {
    {
      std::lock_guard<std::mutex> g(m_);
      fn_ = &fn;
      pending_ = int(workers_.size());
      ++generation_;
    }
    cv_.notify_all();
    fn(0);
    std::unique_lock<std::mutex> l(m_);
    done_cv_.wait(l, [&] { return pending_ == 0; });
    fn_ = nullptr;
  }

 private:
  void work(int id) {
    uint64_t seen = 0;
    for (;;) {
      const std::function<void(int)>* fn;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        fn = fn_;
      }
      (*fn)(id);
      std::lock_guard<std::mutex> g(m_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* fn_ = nullptr;
  int pending_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};
}  // namespace

struct CpuRuntime::Impl {
  std::unique_ptr<CpuJit> jit;
  std::unique_ptr<ThreadPool> pool;
  std::unordered_map<uint64_t, std::vector<std::unique_ptr<CpuKernel>>> cache;  // by hash.lo
  std::vector<std::unique_ptr<CpuKernel>> staged;  // kernels with operand packing
  size_t cached = 0;
  uint64_t hits = 0;
  uint64_t min_parallel_work = 0;
  bool heuristic = true;
  bool pack = true;
  // compile_optimized: the kernel chosen for an unoptimized AST (by its hash), so a repeated
  // realize skips the heuristic and the expansion.
  std::unordered_map<uint64_t, std::vector<std::pair<Hash128, const CpuKernel*>>> optimized;
  Result<const CpuKernel*> compile_ast(Ref ast, std::vector<Opt> opts);
  // compile_ast's front half: the cached kernel (`*cached`), or a new linearized kernel (not
  // yet compiled) and the seconds spent linearizing.
  Result<std::unique_ptr<CpuKernel>> prepare(Ref sink, std::vector<Opt> opts,
                                             const CpuKernel** cached, double* lin_s);
  // compile_ast's back half: links the object and caches the kernel.
  Result<const CpuKernel*> finish(std::unique_ptr<CpuKernel> k, CpuJit::Object obj,
                                  const CpuJit::Times& jt, double lin_s);
  Result<const CpuKernel*> compile_heuristic(Ref sink);
  int opt_level = 3;
  LowerOptions lower_options;
  CpuCompileTimes times;
};

CpuRuntime::CpuRuntime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuRuntime::~CpuRuntime() = default;

Result<std::unique_ptr<CpuRuntime>> CpuRuntime::create(const CpuRuntimeOptions& options) {
  if (options.opt_level < 0 || options.opt_level > 3)
    return make_error(Errc::kInvalidArgument, "cpu runtime: opt_level %d is not 0..3",
                      options.opt_level);
  if (options.threads < 0 || options.threads > 1024)
    return make_error(Errc::kInvalidArgument, "cpu runtime: %d threads is not 0..1024",
                      options.threads);
  auto impl = std::make_unique<Impl>();
  impl->jit = RG_TRY(CpuJit::create(options.opt_level));
  int n = options.threads;
  if (n == 0) n = std::max(1, int(std::thread::hardware_concurrency()));
  impl->pool = std::make_unique<ThreadPool>(n);
  impl->min_parallel_work = options.min_parallel_work;
  impl->heuristic = options.heuristic;
  impl->pack = options.pack;
  if (env::read_flag("RAWGPU_NOPACK")) impl->pack = false;
  if (env::read_flag("RAWGPU_NOOPT")) impl->heuristic = false;
  impl->opt_level = options.opt_level;
  if (options.vector_bytes < 0 || options.vector_bytes > 1024)
    return make_error(Errc::kInvalidArgument, "cpu runtime: vector_bytes %d is not 0..1024",
                      options.vector_bytes);
  impl->lower_options.max_vector_bytes = options.vector_bytes;
  if (!env::read_flag("RAWGPU_VECTORIZE", true)) impl->lower_options.max_vector_bytes = 0;
  impl->lower_options.buffer_align = 64;  // CpuBuffer and the arena plan (64-byte granule)
  return std::unique_ptr<CpuRuntime>(new CpuRuntime(std::move(impl)));
}

int CpuRuntime::threads() const { return impl_->pool->size(); }
std::string CpuRuntime::device() const {
  return strformat("cpu:%s:%s:O%d:%dt", impl_->jit->triple().c_str(),
                   impl_->jit->host_cpu().c_str(), impl_->opt_level, threads());
}
const CpuCompileTimes& CpuRuntime::compile_times() const { return impl_->times; }
size_t CpuRuntime::cache_size() const { return impl_->cached; }
uint64_t CpuRuntime::cache_hits() const { return impl_->hits; }

bool CpuRuntime::heuristic() const { return impl_->heuristic; }

Result<const CpuKernel*> CpuRuntime::compile(Ref sink) {
  if (!sink) return make_error(Errc::kInvalidArgument, "cpu compile: null kernel");
  return impl_->compile_ast(sink, {});
}

Result<const CpuKernel*> CpuRuntime::compile_optimized(Ref sink) {
  if (!sink) return make_error(Errc::kInvalidArgument, "cpu compile: null kernel");
  if (!impl_->heuristic || sink->op() != Op::kSink) return impl_->compile_ast(sink, {});
  const Hash128 h = sink->hash();
  auto& seen = impl_->optimized[h.lo];
  for (const auto& [hh, kern] : seen)
    if (hh == h) {
      ++impl_->hits;
      return kern;
    }
  auto kern = RG_TRY(impl_->compile_heuristic(sink));
  seen.emplace_back(h, kern);
  return kern;
}

Result<const CpuKernel*> CpuRuntime::Impl::compile_heuristic(Ref sink) {
  auto* impl_ = this;
  auto k = OptKernel::create(sink);
  if (!k.ok()) return impl_->compile_ast(sink, {});
  HeuristicOptions ho;
  ho.threads = impl_->pool->size();
  ho.pack = impl_->pack;
  if (const char* e = std::getenv("RAWGPU_GEMM_TILE")) {
    long long r = 0, c = 0;
    if (std::sscanf(e, "%lldx%lld", &r, &c) == 2 && r > 0 && c > 0) {
      ho.tile_rows = r;
      ho.tile_cols = c;
    }
  }
  if (auto p = pack_matmul_operand(sink, ho)) {
    // Two kernels: the copy into the packed layout (its own heuristic opts: THREAD) and the
    // matmul reading it. The kernel handed out has the caller's slots and runs both.
    const CpuKernel* packk = RG_TRY(impl_->compile_heuristic(p->pack));
    // The opts are chosen on the original kernel (the packed index no longer looks like a
    // matmul's) and apply unchanged: packing keeps every RANGE, so the axes are the same.
    std::vector<Opt> opts = hand_coded_opts(*k, ho);
    auto mk = OptKernel::create(p->kernel);
    if (!mk.ok()) return impl_->compile_ast(sink, {});
    RG_TRY_CTX(mk->apply_all(opts), "cpu compile: heuristic opts");
    RG_LOG("compiler", 3, "heuristic (B packed from slot %lld): %s", (long long)p->slot,
           mk->to_string().c_str());
    const CpuKernel* main = RG_TRY(impl_->compile_ast(mk->ast(), std::move(opts)));
    auto staged = std::make_unique<CpuKernel>(*main);
    const size_t nslots = size_t(p->packed_slot);
    staged->buffer_dtypes.resize(nslots, DType::kVoid);
    staged->buffer_counts.resize(nslots, -1);
    const DType bt = p->pack->src(0)->src(0)->src(0)->dtype();  // SINK(STORE(INDEX(dst, ..)))
    staged->buffer_dtypes[size_t(p->slot)] = bt;
    staged->buffer_counts[size_t(p->slot)] = p->count;
    staged->pack = packk;
    staged->pack_slot = p->slot;
    staged->pack_buffer = std::make_shared<CpuBuffer>(bt, size_t(p->count));
    impl_->staged.push_back(std::move(staged));
    return impl_->staged.back().get();
  }
  std::vector<Opt> opts = hand_coded_opts(*k, ho);
  if (opts.empty()) return impl_->compile_ast(sink, {});
  RG_TRY_CTX(k->apply_all(opts), "cpu compile: heuristic opts");
  RG_LOG("compiler", 3, "heuristic: %s", k->to_string().c_str());
  return impl_->compile_ast(k->ast(), std::move(opts));
}

Result<const CpuKernel*> CpuRuntime::compile_with_opts(Ref sink, std::span<const Opt> opts) {
  if (!sink) return make_error(Errc::kInvalidArgument, "cpu compile: null kernel");
  if (opts.empty()) return impl_->compile_ast(sink, {});
  auto k = RG_TRY(OptKernel::create(sink));
  RG_TRY(k.apply_all(opts));
  return impl_->compile_ast(k.ast(), std::vector<Opt>(opts.begin(), opts.end()));
}

Result<std::unique_ptr<CpuKernel>> CpuRuntime::Impl::prepare(Ref sink, std::vector<Opt> opts,
                                                             const CpuKernel** cached,
                                                             double* lin_s) {
  auto* impl_ = this;
  *cached = nullptr;
  const Hash128 h = sink->hash();
  auto& bucket = impl_->cache[h.lo];
  for (const auto& k : bucket)
    if (k->hash == h) {
      ++impl_->hits;
      *cached = k.get();
      return std::unique_ptr<CpuKernel>();
    }
  RG_LOG("compiler", 5, "kernel AST %s:\n%s", h.hex().c_str(), to_string(sink).c_str());
  auto k = std::make_unique<CpuKernel>();
  k->hash = h;
  k->name = "k_" + h.hex().substr(0, 16);
  const auto t0 = std::chrono::steady_clock::now();
  // RAWGPU_SOFT_MATH=1: the GPU targets' float64 exp2/log2/sin/pow expansions instead of libm.
  const Ref lowered =
      force_soft_math()
          ? lower_transcendentals(sink, [](Op, DType t) { return t == DType::kFloat64; })
          : sink;
  k->program = RG_TRY(linearize(lowered, impl_->lower_options));
  k->opts = std::move(opts);
  *lin_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RG_LOG("compiler", 5, "linear program %s:\n%s", k->name.c_str(), k->program.to_string().c_str());
  for (Ref b : k->program.buffers) {
    k->buffer_dtypes.push_back(b ? b->dtype() : DType::kVoid);
    const auto a = b ? b->arg().as_ints() : std::span<const int64_t>();
    k->buffer_counts.push_back(a.size() > 1 ? a[1] : -1);
  }
  // Unique per JIT even for a (practically impossible) 64-bit prefix collision.
  if (!bucket.empty()) k->name += strformat("_%zu", bucket.size());
  return k;
}

Result<const CpuKernel*> CpuRuntime::Impl::finish(std::unique_ptr<CpuKernel> k, CpuJit::Object obj,
                                                  const CpuJit::Times& jt, double lin_s) {
  CpuJit::Times lt = jt;
  KernelEntry e = RG_TRY(jit->link(std::move(obj), &lt));
  ++times.kernels;
  times.linearize_s += lin_s;
  times.ir_s += lt.ir_s;
  times.codegen_s += lt.codegen_s;
  k->entry = reinterpret_cast<void*>(e);
  // CPU time for LLVM's part: the per-candidate compile limit must not depend on how many
  // compile workers share the cores.
  k->compile_s = lin_s + lt.cpu_s;
  auto& bucket = cache[k->hash.lo];
  bucket.push_back(std::move(k));
  ++cached;
  return bucket.back().get();
}

Result<const CpuKernel*> CpuRuntime::Impl::compile_ast(Ref sink, std::vector<Opt> opts) {
  const CpuKernel* hit = nullptr;
  double lin_s = 0;
  auto k = RG_TRY(prepare(sink, std::move(opts), &hit, &lin_s));
  if (hit) return hit;
  CpuJit::Times jt;
  CpuJit::Object obj = RG_TRY(jit->compile_object(k->program, k->name, 0, &jt));
  return finish(std::move(k), std::move(obj), jt, lin_s);
}

std::vector<Result<const CpuKernel*>> CpuRuntime::compile_batch(std::span<const Ref> sinks,
                                                                int workers) {
  std::vector<Result<const CpuKernel*>> out;
  out.reserve(sinks.size());
  // Front half on this thread. A kernel whose 64-bit hash prefix repeats one already pending in
  // this batch (a duplicate, or a collision that needs a distinct name) is compiled afterwards.
  struct Pending {
    size_t index;
    std::unique_ptr<CpuKernel> kernel;
    double lin_s = 0;
    CpuJit::Times jt;
    std::optional<Result<CpuJit::Object>> obj;
  };
  std::vector<Pending> pending;
  std::vector<size_t> later;
  std::unordered_set<uint64_t> pending_lo;
  for (size_t i = 0; i < sinks.size(); ++i) {
    out.push_back(make_error(Errc::kInternal, "cpu compile_batch: kernel %zu not compiled", i));
    if (!sinks[i]) {
      out[i] = make_error(Errc::kInvalidArgument, "cpu compile: null kernel");
      continue;
    }
    if (pending_lo.count(sinks[i]->hash().lo)) {
      later.push_back(i);
      continue;
    }
    const CpuKernel* hit = nullptr;
    double lin_s = 0;
    auto k = impl_->prepare(sinks[i], {}, &hit, &lin_s);
    if (!k.ok()) {
      out[i] = std::move(k).take_error();
    } else if (hit) {
      out[i] = hit;
    } else {
      pending_lo.insert(sinks[i]->hash().lo);
      pending.push_back({i, std::move(k).take_value(), lin_s, {}, std::nullopt});
    }
  }
  // LLVM on the workers: each takes the next pending kernel; slot w is worker w's machine.
  const int n =
      std::clamp(workers, 1, std::max(1, std::min<int>(CpuJit::kMaxSlots, int(pending.size()))));
  std::atomic<size_t> next{0};
  auto work = [&](int slot) {
    for (size_t j; (j = next.fetch_add(1)) < pending.size();) {
      Pending& p = pending[j];
      p.obj = impl_->jit->compile_object(p.kernel->program, p.kernel->name, slot, &p.jt);
    }
  };
  if (n <= 1) {
    work(0);
  } else {
    std::vector<std::thread> threads;
    for (int w = 1; w < n; ++w) threads.emplace_back(work, w);
    work(0);
    for (auto& t : threads) t.join();
  }
  // Back half on this thread, in input order.
  for (Pending& p : pending) {
    if (!p.obj || !p.obj->ok()) {
      out[p.index] = p.obj ? std::move(*p.obj).take_error()
                           : Error(Errc::kInternal, "cpu compile_batch: no object");
      continue;
    }
    out[p.index] =
        impl_->finish(std::move(p.kernel), std::move(*p.obj).take_value(), p.jt, p.lin_s);
  }
  for (size_t i : later) out[i] = impl_->compile_ast(sinks[i], {});
  return out;
}

Status CpuRuntime::launch(const CpuKernel& kernel, std::span<CpuBuffer* const> buffers,
                          std::span<const int64_t> vars) {
  const Program& p = kernel.program;
  if (!kernel.pack && buffers.size() != p.buffers.size())
    return make_error(Errc::kInvalidArgument, "launch %s: %zu buffers given, the kernel has %zu",
                      kernel.name.c_str(), buffers.size(), p.buffers.size());
  if (vars.size() != p.vars.size())
    return make_error(Errc::kInvalidArgument, "launch %s: %zu variables given, the kernel has %zu",
                      kernel.name.c_str(), vars.size(), p.vars.size());
  const size_t user_slots = kernel.pack ? kernel.buffer_dtypes.size() : p.buffers.size();
  if (kernel.pack && buffers.size() != user_slots)
    return make_error(Errc::kInvalidArgument, "launch %s: %zu buffers given, the kernel has %zu",
                      kernel.name.c_str(), buffers.size(), user_slots);
  std::vector<void*> ptrs(p.buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (kernel.pack ? kernel.buffer_dtypes[i] == DType::kVoid : !p.buffers[i])
      continue;  // an unused slot
    if (!buffers[i])
      return make_error(Errc::kInvalidArgument, "launch %s: buffer slot %zu is null",
                        kernel.name.c_str(), i);
    if (buffers[i]->dtype() != kernel.buffer_dtypes[i])
      return make_error(Errc::kInvalidArgument,
                        "launch %s: buffer slot %zu is %s, the kernel "
                        "expects %s",
                        kernel.name.c_str(), i,
                        std::string(dtype_name(buffers[i]->dtype())).c_str(),
                        std::string(dtype_name(kernel.buffer_dtypes[i])).c_str());
    if (kernel.buffer_counts[i] >= 0 && buffers[i]->count() < size_t(kernel.buffer_counts[i]))
      return make_error(Errc::kInvalidArgument,
                        "launch %s: buffer slot %zu holds %zu elements, the kernel needs %lld",
                        kernel.name.c_str(), i, buffers[i]->count(),
                        static_cast<long long>(kernel.buffer_counts[i]));
    if (p.buffer_align > 0 &&
        reinterpret_cast<uintptr_t>(buffers[i]->data()) % uintptr_t(p.buffer_align) != 0)
      return make_error(Errc::kInvalidArgument,
                        "launch %s: buffer slot %zu at %p is not %d-byte aligned, which the "
                        "kernel's vector loads/stores assume (CpuBuffer allocations are; align "
                        "borrowed memory, or set RAWGPU_VECTORIZE=0)",
                        kernel.name.c_str(), i, buffers[i]->data(), p.buffer_align);
    ptrs[i] = buffers[i]->data();
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    const auto& v = p.vars[i]->arg().as_var();
    if (vars[i] < v.vmin || vars[i] > v.vmax)
      return make_error(Errc::kOutOfRange,
                        "launch %s: variable '%.*s' = %lld is outside [%lld, %lld]",
                        kernel.name.c_str(), static_cast<int>(v.name.size()), v.name.data(),
                        static_cast<long long>(vars[i]), static_cast<long long>(v.vmin),
                        static_cast<long long>(v.vmax));
  }
  if (kernel.pack) {
    // Everything is checked: copy the operand into its packed layout, then run the kernel on
    // the copy (the extra slot). The pack kernel's own checks cannot fail here (same sizes).
    CpuBuffer* pb[] = {kernel.pack_buffer.get(), buffers[size_t(kernel.pack_slot)]};
    RG_TRY_CTX(launch(*kernel.pack, pb, {}), "launch %s: packing slot %lld", kernel.name.c_str(),
               (long long)kernel.pack_slot);
    ptrs.back() = kernel.pack_buffer->data();
  }
  const auto entry = reinterpret_cast<KernelEntry>(kernel.entry);
  const auto t0 = std::chrono::steady_clock::now();
  const bool parallel = p.parallel_loop >= 0 && impl_->pool->size() > 1 &&
                        p.flops + p.bytes >= impl_->min_parallel_work;
  if (!parallel) {
    call_kernel(entry, ptrs.data(), vars.data(), 0, 1);
  } else {
    const int64_t n = impl_->pool->size();
    impl_->pool->run([&](int t) { call_kernel(entry, ptrs.data(), vars.data(), t, n); });
  }
  if (log::enabled("compiler", 2)) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    log::writef("compiler", 2, "launch %s: %.1f us, %.3f GFLOPS, %.3f GB/s (%s)",
                kernel.name.c_str(), s * 1e6, s > 0 ? double(p.flops) / s * 1e-9 : 0.0,
                s > 0 ? double(p.bytes) / s * 1e-9 : 0.0,
                !parallel ? "1 thread" : strformat("%d threads", threads()).c_str());
  }
  return ok_status();
}

}  // namespace rawgpu::compiler
