// The Tensor back end over the AMD device seam (see amd_device.h).
#include "rawgpu/runtime/amd_device.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <thread>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/compiler/opt.h"
#include "rawgpu/compiler/search.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/program.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/runtime/profile.h"

namespace rawgpu::runtime {
namespace {

using compiler::DType;
using drivers::amd::AmdDevice;
using drivers::amd::BufferPlacement;
using drivers::amd::DeviceBuffer;

class AmdTensorDevice;
class AmdBeamBackend;

// A VRAM allocation (or a view of one: `owner` keeps the allocation alive).
class AmdBuffer final : public Buffer {
 public:
  AmdBuffer(AmdTensorDevice* dev, DType dtype, size_t count, DeviceBuffer mem, GpuVa va,
            std::shared_ptr<Buffer> owner)
      : Buffer(dtype, count), dev_(dev), mem_(mem), va_(va), owner_(std::move(owner)) {}
  ~AmdBuffer() override;
  Status copy_in(std::span<const std::byte> bytes) override;
  Status copy_out(std::span<std::byte> bytes) const override;
  GpuVa va() const { return va_; }
  const AmdTensorDevice* device() const { return dev_; }

 private:
  AmdTensorDevice* dev_;
  DeviceBuffer mem_;  // valid only for the owning allocation
  GpuVa va_;
  std::shared_ptr<Buffer> owner_;
};

struct Compiled {
  compiler::ProgramSpec spec;
  std::unique_ptr<queues::amd::Program> program;
};

class AmdTensorDevice final : public Device {
 public:
  static Result<std::unique_ptr<Device>> create(AmdDeviceConfig c) {
    if (!c.device) return make_error(Errc::kInvalidArgument, "%s: no AMD device", c.name.c_str());
    auto target = RG_TRY(compiler::gpu_target(c.target));
    if (target.arch != compiler::GpuArch::kAmd)
      return make_error(Errc::kInvalidArgument, "%s: target %s is not an AMD GPU", c.name.c_str(),
                        c.target.c_str());
    std::unique_ptr<AmdTensorDevice> d(new AmdTensorDevice(std::move(c), std::move(target)));
    AmdDevice& dev = *d->cfg_.device;
    d->signals_ = std::make_unique<queues::SignalPool>(dev);
    d->copier_ = RG_TRY_CTX(queues::amd::Copier::create(dev, *d->signals_), "%s: copy engine",
                            d->cfg_.name.c_str());
    d->queue_ = RG_TRY_CTX(queues::amd::ComputeQueue::create(dev), "%s: compute queue",
                           d->cfg_.name.c_str());
    d->kernargs_ = RG_TRY_CTX(queues::KernargArena::create(dev, 1ull << 20), "%s: kernarg arena",
                              d->cfg_.name.c_str());
    queues::Signal s0 = RG_TRY(d->signals_->alloc()), s1 = RG_TRY(d->signals_->alloc());
    d->timeline_ = std::make_unique<queues::Timeline>(s0, s1);
    d->ts_start_ = RG_TRY(d->signals_->alloc());
    d->ts_end_ = RG_TRY(d->signals_->alloc());
    return std::unique_ptr<Device>(std::move(d));
  }
  ~AmdTensorDevice() override {
    // Programs, queues and the arena free their memory through the device, which goes last.
    cache_.clear();
    beam_cache_.clear();
    kernargs_.reset();
    queue_.reset();
    copier_.reset();
    timeline_.reset();
    signals_.reset();
  }

  std::string_view name() const override { return cfg_.name; }

  Result<std::shared_ptr<Buffer>> alloc(DType dtype, size_t count) override {
    const uint64_t bytes = std::max<uint64_t>(count * size_t(compiler::itemsize(dtype)), 4);
    DeviceBuffer m = RG_TRY_CTX(cfg_.device->alloc(bytes, BufferPlacement::kVram),
                                "%s: allocating %llu bytes of VRAM", cfg_.name.c_str(),
                                static_cast<unsigned long long>(bytes));
    return std::shared_ptr<Buffer>(
        std::make_shared<AmdBuffer>(this, dtype, count, m, m.va, nullptr));
  }
  Result<std::shared_ptr<Buffer>> view(const std::shared_ptr<Buffer>& base, size_t offset,
                                       DType dtype, size_t count) override {
    auto* b = dynamic_cast<AmdBuffer*>(base.get());
    if (!b || b->device() != this ||
        offset + count * size_t(compiler::itemsize(dtype)) > b->nbytes())
      return make_error(Errc::kInvalidArgument, "%s: view outside its base buffer",
                        cfg_.name.c_str());
    return std::shared_ptr<Buffer>(
        std::make_shared<AmdBuffer>(this, dtype, count, DeviceBuffer{}, b->va() + offset, base));
  }

  Status run(compiler::Ref ast, std::span<Buffer* const> args, const RunContext& context) override;
  size_t cache_size() const override {
    size_t n = cache_.size();
    for (const auto& [w, c] : beam_cache_) n += c.size();
    return n;
  }
  uint64_t cache_hits() const override { return hits_; }

  void free_memory(const DeviceBuffer& m) {
    if (m.valid()) (void)cfg_.device->free(m);
  }
  Status copy_in(GpuVa va, std::span<const std::byte> bytes) {
    RG_TRY(healthy());
    RG_TRY(sync_copy_timestamps());
    const uint64_t h0 = Profiler::get().enabled() ? Profiler::get().now_ns() : 0;
    RG_TRY_CTX(copier_->copy_in(va, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}),
               "%s: upload of %zu bytes", cfg_.name.c_str(), bytes.size());
    record_copy("copy_in", bytes.size(), h0);
    return ok_status();
  }
  Status copy_out(std::span<std::byte> bytes, GpuVa va) {
    RG_TRY(healthy());
    RG_TRY(sync_copy_timestamps());
    const uint64_t h0 = Profiler::get().enabled() ? Profiler::get().now_ns() : 0;
    RG_TRY_CTX(copier_->copy_out({reinterpret_cast<uint8_t*>(bytes.data()), bytes.size()}, va),
               "%s: download of %zu bytes", cfg_.name.c_str(), bytes.size());
    record_copy("copy_out", bytes.size(), h0);
    return ok_status();
  }
  // Copies carry SDMA timestamps around their copy packets (the staging path's whole span on
  // the engine) while the profiler records, plus host times.
  void record_copy(const char* kind, size_t bytes, uint64_t h0) {
    Profiler& prof = Profiler::get();
    if (!prof.enabled()) return;
    ProfileEvent e;
    e.device = cfg_.name;
    e.queue = "copy";
    e.kind = kind;
    e.bytes = bytes;
    e.host_start_ns = h0;
    e.host_end_ns = prof.now_ns();
    if (auto t = copier_->last_device_times()) {
      e.has_device_time = true;
      e.device_start = t->start;
      e.device_end = t->end;
      e.device_tick_ns = cfg_.device_tick_ns;
    }
    prof.record(std::move(e));
  }
  // Timestamps on the copier only while profiling (two SDMA packets per copy otherwise saved).
  Status sync_copy_timestamps() {
    const bool on = Profiler::get().enabled();
    if (on != copy_stamps_) {
      RG_TRY(copier_->set_timestamps(on));
      copy_stamps_ = on;
    }
    return ok_status();
  }

 private:
  AmdTensorDevice(AmdDeviceConfig c, compiler::GpuTarget t)
      : cfg_(std::move(c)), target_(std::move(t)) {}
  friend class AmdBeamBackend;
  Result<Compiled*> compile(compiler::Ref ast);
  // Compiles exactly the kernel of `spec_of` (a BEAM candidate or choice) and loads it.
  Result<std::unique_ptr<Compiled>> load(compiler::ProgramSpec spec);
  // The opts a BEAM search (or its disk cache) chose for `ast`; nullopt when RAWGPU_BEAM is
  // off or the kernel was not searched (it has variables).
  Result<std::optional<std::vector<compiler::Opt>>> beam_opts(compiler::Ref ast, int width);
  // Launches a compiled kernel on buffers given by VA (kernel-argument order) and waits.
  Status launch(Compiled& c, std::span<const GpuVa> args);
  // kHardware with the device's fault description once a queue stopped.
  Status healthy() const {
    const drivers::amd::FaultState f = cfg_.device->fault_state();
    if (f.queue_error || f.faulted)
      return make_error(Errc::kHardware, "%s: %s", cfg_.name.c_str(), f.description.c_str());
    return ok_status();
  }
  // Waits for the timeline value, returning early with the fault once the device reports one.
  Status wait(const queues::Signal& s, uint64_t value, const std::string& what);

  AmdDeviceConfig cfg_;
  compiler::GpuTarget target_;
  std::unique_ptr<queues::SignalPool> signals_;
  std::unique_ptr<queues::amd::Copier> copier_;
  std::unique_ptr<queues::amd::ComputeQueue> queue_;
  std::unique_ptr<queues::KernargArena> kernargs_;
  std::unique_ptr<queues::Timeline> timeline_;
  queues::Signal ts_start_, ts_end_;  // device timestamps around a profiled dispatch
  bool copy_stamps_ = false;          // the copier's timestamps are on
  struct HashKey {
    size_t operator()(const compiler::Hash128& h) const { return size_t(h.lo ^ (h.hi * 31)); }
  };
  using Cache = std::unordered_map<compiler::Hash128, std::unique_ptr<Compiled>, HashKey>;
  Cache cache_;
  std::map<int, Cache> beam_cache_;  // by RAWGPU_BEAM width
  uint64_t hits_ = 0;
};

AmdBuffer::~AmdBuffer() {
  if (mem_.valid()) dev_->free_memory(mem_);
}
Status AmdBuffer::copy_in(std::span<const std::byte> bytes) {
  if (bytes.size() != nbytes())
    return make_error(Errc::kInvalidArgument, "copy_in: %zu bytes for a buffer of %zu",
                      bytes.size(), nbytes());
  if (bytes.empty()) return ok_status();
  return dev_->copy_in(va_, bytes);
}
Status AmdBuffer::copy_out(std::span<std::byte> bytes) const {
  if (bytes.size() != nbytes())
    return make_error(Errc::kInvalidArgument, "copy_out: %zu bytes for a buffer of %zu",
                      bytes.size(), nbytes());
  if (bytes.empty()) return ok_status();
  return dev_->copy_out(bytes, va_);
}

Result<Compiled*> AmdTensorDevice::compile(compiler::Ref ast) {
  // Kernels compiled under RAWGPU_BEAM=n are cached apart, per width: switching BEAM on or off
  // never reuses the other mode's program.
  const int beam = RG_TRY(compiler::beam_width_from_env());
  auto& cache = beam > 0 ? beam_cache_[beam] : cache_;
  if (auto it = cache.find(ast->hash()); it != cache.end()) {
    ++hits_;
    return it->second.get();
  }
  const std::string name = strformat("k_%016llx", static_cast<unsigned long long>(ast->hash().hi));
  // RAWGPU_BEAM: the searched opts replace the tensor-core/GROUP attempts below.
  if (auto opts = RG_TRY(beam_opts(ast, beam))) {
    compiler::ProgramSpec spec =
        RG_TRY_CTX(compiler::compile_gpu_optimized(ast, name, target_, *opts),
                   "%s: BEAM-chosen opts", cfg_.name.c_str());
    auto c = RG_TRY(load(std::move(spec)));
    Compiled* p = c.get();
    cache.emplace(ast->hash(), std::move(c));
    return p;
  }
  auto c = std::make_unique<Compiled>();
  // Tries one set of GPU options; false (with the reason logged) when they do not apply.
  auto attempt = [&](const compiler::GpuOptions& o) -> Result<bool> {
    auto r = compiler::compile_gpu(ast, name, target_, o);
    if (r.ok()) {
      c->spec = std::move(r).take_value();
      return true;
    }
    // Tensor cores: only "not a tensor-core kernel" (a KernelOptError) falls back; any other
    // failure is real. GROUP: a kernel without a suitable reduction refuses it.
    if (o.tensor_cores && r.error().message().find("KernelOptError[") == std::string::npos)
      return std::move(r).take_error().with_context(
          strformat("%s: tensor-core compile of %s", cfg_.name.c_str(), name.c_str()));
    RG_LOG("amd", 2, "%s: %s: %s", cfg_.name.c_str(), name.c_str(), r.error().message().c_str());
    return false;
  };
  bool done = false;
  if (cfg_.tensor_cores) {
    compiler::GpuOptions o;
    o.tensor_cores = true;
    done = RG_TRY(attempt(o));
  }
  for (size_t i = 0; i < cfg_.group_lanes.size() && !done;
       ++i) {  // GROUP where a reduction takes it
    compiler::GpuOptions o;
    o.group = cfg_.group_lanes[i];
    done = RG_TRY(attempt(o));
  }
  if (!done)
    c->spec = RG_TRY_CTX(compiler::compile_gpu(ast, name, target_), "%s", cfg_.name.c_str());
  c = RG_TRY(load(std::move(c->spec)));
  Compiled* p = c.get();
  cache.emplace(ast->hash(), std::move(c));
  return p;
}

Result<std::unique_ptr<Compiled>> AmdTensorDevice::load(compiler::ProgramSpec spec) {
  auto c = std::make_unique<Compiled>();
  c->spec = std::move(spec);
  const std::string& name = c->spec.name;
  RG_LOG("amd", 3, "%s: compiled %s (%s; grid %lld x %lld x %lld, local %lld x %lld x %lld)",
         cfg_.name.c_str(), name.c_str(), c->spec.loaded.descriptor.c_str(),
         (long long)c->spec.gpu.global[0], (long long)c->spec.gpu.global[1],
         (long long)c->spec.gpu.global[2], (long long)c->spec.gpu.local[0],
         (long long)c->spec.gpu.local[1], (long long)c->spec.gpu.local[2]);
  RG_LOG("amd", 4, "%s assembly:\n%s", name.c_str(), c->spec.assembly.c_str());
  c->program = RG_TRY_CTX(queues::amd::Program::load(*cfg_.device, *copier_, c->spec.binary, name),
                          "%s: loading %s", cfg_.name.c_str(), name.c_str());
  return c;
}

// BEAM candidates compiled for this device's target and timed through its queue: launches on
// scratch buffers of ones, measured by AmdDeviceConfig::measure (wall time when empty). Compiles
// are serial: compile_gpu links in-process with lld, which is not known to be thread-safe.
class AmdBeamBackend final : public compiler::BeamBackend {
 public:
  // Candidates run on `home`, or on home's throwaway search device when it has a factory.
  static Result<std::unique_ptr<AmdBeamBackend>> create(AmdTensorDevice& home) {
    std::unique_ptr<AmdBeamBackend> b(new AmdBeamBackend(home));
    b->d_ = &home;
    if (home.cfg_.beam_device) RG_TRY(b->renew());
    return b;
  }
  std::string device() const override {
    return home_.cfg_.name + ":" + home_.target_.name + ":" +
           (home_.cfg_.measure ? home_.cfg_.measure_name : std::string("wall"));
  }
  const std::vector<compiler::Opt>& actions() const override {
    return compiler::gpu_beam_actions();
  }
  bool deterministic() const override { return bool(d_->cfg_.measure); }
  std::vector<Status> compile(std::span<const compiler::BeamCandidate> cands, int /*workers*/,
                              std::vector<double>& compile_s) override {
    compiled_.clear();
    compiled_.resize(cands.size());
    compile_s.assign(cands.size(), 0.0);
    std::vector<Status> out;
    for (size_t i = 0; i < cands.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      out.push_back(compile_one(cands[i], compiled_[i]));
      compile_s[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return out;
  }
  Result<double> run(size_t i) override {
    if (i >= compiled_.size() || !compiled_[i])
      return make_error(Errc::kInvalidArgument, "beam: candidate %zu was not compiled", i);
    Compiled& c = *compiled_[i];
    if (!c.program) {  // its device was replaced after a fault: load it on the new one
      auto fresh = RG_TRY(d_->load(c.spec));
      c.program = std::move(fresh->program);
    }
    std::vector<GpuVa> vas = RG_TRY(scratch(c.spec));
    auto launch = [&]() -> Status { return d_->launch(c, vas); };
    Result<double> r = 0.0;
    if (d_->cfg_.measure) {
      r = d_->cfg_.measure(launch);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      Status st = launch();
      if (st.ok())
        r = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6;
      else
        r = std::move(st).take_error();
    }
    // A fault on the throwaway search device: replace it; the candidate is skipped.
    if (!r.ok() && d_ != &home_ && !d_->healthy().ok()) RG_TRY(renew());
    return r;
  }
  Status healthy() const override { return d_->healthy(); }

 private:
  Status compile_one(const compiler::BeamCandidate& cand, std::unique_ptr<Compiled>& out) {
    const std::string name =
        strformat("beam_%016llx", static_cast<unsigned long long>(cand.ast->hash().hi));
    compiler::GpuOptions o = cand.kernel->gpu_options();
    compiler::ProgramSpec spec = RG_TRY(compiler::compile_gpu(cand.ast, name, d_->target_, o));
    if (spec.loaded.scratch_bytes > 0)
      return make_error(Errc::kUnsupported,
                        "%s: candidate %s needs %u bytes of scratch per lane (register spills); "
                        "the device sets up no scratch",
                        d_->cfg_.name.c_str(), name.c_str(), spec.loaded.scratch_bytes);
    out = RG_TRY(d_->load(std::move(spec)));
    return ok_status();
  }
  // Kernel arguments: one scratch buffer per buffer slot of the linear program (the kernel's
  // parameters, whatever the loads look like), reused across candidates when dtype and size fit,
  // filled with ones of its dtype (no division by zero, no NaN). Unused slots get address 0.
  Result<std::vector<GpuVa>> scratch(const compiler::ProgramSpec& spec) {
    const auto& pb = spec.program.buffers;
    if (bufs_.size() < pb.size()) bufs_.resize(pb.size());
    std::vector<GpuVa> vas(pb.size());
    for (size_t i = 0; i < pb.size(); ++i) {
      if (!pb[i]) continue;
      const auto a = pb[i]->arg().as_ints();
      if (a.size() < 2 || a[1] < 0)
        return make_error(Errc::kUnsupported, "beam: buffer slot %zu of %s has no declared size", i,
                          spec.name.c_str());
      const DType dt = pb[i]->dtype();
      auto& buf = bufs_[i];
      if (!buf || buf->dtype() != dt || buf->count() < size_t(a[1])) {
        buf = RG_TRY(d_->alloc(dt, size_t(a[1])));
        RG_TRY(fill_ones(*buf));
      }
      vas[i] = static_cast<AmdBuffer&>(*buf).va();
    }
    return vas;
  }
  static Status fill_ones(Buffer& b) {
    std::vector<std::byte> bytes(b.nbytes());
    const size_t w = size_t(compiler::itemsize(b.dtype()));
    uint64_t one = 1;
    switch (b.dtype()) {
      case DType::kFloat32: {
        const float f = 1.0f;
        std::memcpy(&one, &f, 4);
        break;
      }
      case DType::kFloat64: {
        const double f = 1.0;
        std::memcpy(&one, &f, 8);
        break;
      }
      case DType::kFloat16: one = compiler::float_to_half(1.0f); break;
      case DType::kBFloat16: one = compiler::float_to_bf16(1.0f); break;
      default: break;
    }
    for (size_t i = 0; i + w <= bytes.size(); i += w) std::memcpy(&bytes[i], &one, w);
    return b.copy_in(bytes);
  }
  explicit AmdBeamBackend(AmdTensorDevice& home) : home_(home) {}
  // A fresh throwaway device: programs and buffers of the old one go first.
  Status renew() {
    for (auto& c : compiled_)
      if (c) c->program.reset();
    bufs_.clear();
    d_ = &home_;
    own_.reset();
    own_ = RG_TRY_CTX(home_.cfg_.beam_device(), "%s: BEAM search device", home_.cfg_.name.c_str());
    d_ = dynamic_cast<AmdTensorDevice*>(own_.get());
    if (!d_) {
      own_.reset();
      d_ = &home_;
      return make_error(Errc::kInternal, "%s: the BEAM search device is not an AMD device",
                        home_.cfg_.name.c_str());
    }
    return ok_status();
  }
  // Declared first, destroyed last: the programs and buffers below may live on it.
  std::unique_ptr<Device> own_;  // the throwaway search device (AmdDeviceConfig::beam_device)
  AmdTensorDevice& home_;
  AmdTensorDevice* d_ = nullptr;  // where candidates run: own_, or home_
  std::vector<std::unique_ptr<Compiled>> compiled_;
  std::vector<std::shared_ptr<Buffer>> bufs_;
};

Result<std::optional<std::vector<compiler::Opt>>> AmdTensorDevice::beam_opts(compiler::Ref ast,
                                                                             int width) {
  if (width <= 0) return std::optional<std::vector<compiler::Opt>>();
  compiler::BeamOptions bo;
  bo.width = width;
  bo.progress = isatty(2) || log::enabled("beam", 1);
  bo.budget_s = RG_TRY(compiler::beam_budget_from_env());
  auto backend = RG_TRY(AmdBeamBackend::create(*this));
  compiler::BeamResult r =
      RG_TRY_CTX(compiler::beam_search(ast, *backend, bo), "%s: BEAM search", cfg_.name.c_str());
  RG_TRY_CTX(healthy(), "BEAM search");  // a candidate faulted: the queue is gone
  if (!r.from_cache && r.candidates == 0) return std::optional<std::vector<compiler::Opt>>();
  return std::optional<std::vector<compiler::Opt>>(std::move(r.opts));
}

Status AmdTensorDevice::wait(const queues::Signal& s, uint64_t value, const std::string& what) {
  const Nanos timeout = queues::default_wait_timeout();
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t polls = 0;
  for (;; ++polls) {
    if (s.value() >= value) return ok_status();
    RG_TRY(healthy());
    cfg_.device->poll();
    if (s.value() >= value) return ok_status();
    if (std::chrono::steady_clock::now() - t0 > timeout) break;
    if (polls > 64) std::this_thread::yield();
  }
  // Timed out with the device healthy: a hang (or a job longer than the limit).
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const drivers::amd::FaultState f = cfg_.device->fault_state();
  return std::move(
      make_error(Errc::kTimeout,
                 "%s: timed out after %.1f ms (%llu polls) waiting for %s >= %llu: the signal at "
                 "GPU VA %s holds %llu; device: %s",
                 cfg_.name.c_str(), ms, static_cast<unsigned long long>(polls), what.c_str(),
                 static_cast<unsigned long long>(value), hex(s.va().raw()).c_str(),
                 static_cast<unsigned long long>(s.value()),
                 f.description.empty() ? "no fault recorded" : f.description.c_str())
          .with_hint("the GPU never completed the work: a hang, or a job longer than "
                     "RAWGPU_WAIT_TIMEOUT_MS allows"));
}

Status AmdTensorDevice::run(compiler::Ref ast, std::span<Buffer* const> args, const RunContext&) {
  RG_TRY(healthy());
  Compiled* c = RG_TRY(compile(ast));
  std::vector<GpuVa> vas;
  for (size_t i = 0; i < args.size(); ++i) {
    auto* b = dynamic_cast<AmdBuffer*>(args[i]);
    if (!b || b->device() != this)
      return make_error(Errc::kInternal, "%s: kernel argument %zu is not this device's buffer",
                        cfg_.name.c_str(), i);
    vas.push_back(b->va());
  }
  return launch(*c, vas);
}

Status AmdTensorDevice::launch(Compiled& c, std::span<const GpuVa> args) {
  RG_TRY(healthy());
  const compiler::ProgramSpec& spec = c.spec;
  queues::amd::Program& prog = *c.program;
  if (!spec.vars.empty())
    return make_error(Errc::kUnsupported, "%s: kernel %s has %zu scalar variables (not passed yet)",
                      cfg_.name.c_str(), spec.name.c_str(), spec.vars.size());
  const uint32_t value = timeline_->next();
  queues::Kernargs ka =
      RG_TRY(kernargs_->alloc(prog.kernarg_alloc_size(), timeline_->signal(), value));
  std::memset(ka.cpu, 0, ka.size);
  size_t ai = 0;
  for (const auto& a : prog.args()) {
    if (a.hidden()) continue;
    if (ai >= args.size() || a.size != 8)
      return make_error(Errc::kInternal,
                        "%s: kernel %s argument %zu (%s, %u bytes) has no buffer "
                        "(%zu given)",
                        cfg_.name.c_str(), spec.name.c_str(), ai, a.value_kind.c_str(), a.size,
                        args.size());
    const uint64_t va = args[ai].raw();
    std::memcpy(ka.cpu + a.offset, &va, 8);
    ++ai;
  }
  std::array<uint32_t, 3> grid{}, local{};
  for (size_t d = 0; d < 3; ++d) {
    grid[d] = static_cast<uint32_t>(spec.gpu.global[d]);
    local[d] = static_cast<uint32_t>(spec.gpu.local[d]);
  }
  if (cfg_.before_launch) cfg_.before_launch(spec.name);
  Profiler& prof = Profiler::get();
  const bool profile = prof.enabled();
  const uint64_t h0 = profile ? prof.now_ns() : 0;
  // RELEASE_MEM timestamps of the GPU clock before and after the dispatch (end of pipe: the
  // first is written when earlier work is done, the second when the kernel is).
  if (profile) queue_->timestamp(ts_start_);
  RG_TRY(queue_->exec(prog.exec_params(ka, grid, local)));
  if (profile) queue_->timestamp(ts_end_);
  queue_->signal(timeline_->signal(), value);
  RG_TRY(queue_->submit());
  const queues::Signal sig = timeline_->signal();
  timeline_->advance();
  RG_TRY_CTX(wait(sig, value, "kernel " + spec.name), "%s: kernel %s", cfg_.name.c_str(),
             spec.name.c_str());
  if (profile) {
    ProfileEvent e;
    e.device = cfg_.name;
    e.queue = "compute";
    e.kind = "kernel";
    e.name = spec.name;
    e.host_start_ns = h0;
    e.host_end_ns = prof.now_ns();
    e.has_device_time = true;
    e.device_start = ts_start_.timestamp();
    e.device_end = ts_end_.timestamp();
    e.device_tick_ns = cfg_.device_tick_ns;
    e.grid = grid;
    e.local = local;
    prof.record(std::move(e));
  }
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<Device>> make_amd_device(AmdDeviceConfig config) {
  return AmdTensorDevice::create(std::move(config));
}

Result<std::unique_ptr<compiler::BeamBackend>> amd_beam_backend(Device& device) {
  auto* d = dynamic_cast<AmdTensorDevice*>(&device);
  if (!d)
    return make_error(Errc::kInvalidArgument, "%.*s is not an AMD device: no AMD BEAM back end",
                      static_cast<int>(device.name().size()), device.name().data());
  return std::unique_ptr<compiler::BeamBackend>(RG_TRY(AmdBeamBackend::create(*d)));
}

}  // namespace rawgpu::runtime
