// The Tensor back end over the AMD device seam (see amd_device.h).
#include "rawgpu/frontend/amd_device.h"

#include <chrono>
#include <cstring>
#include <thread>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/queues/amd_copy.h"
#include "rawgpu/queues/amd_pm4.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/program.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::frontend {
namespace {

using compiler::DType;
using drivers::amd::AmdDevice;
using drivers::amd::BufferPlacement;
using drivers::amd::DeviceBuffer;

class AmdTensorDevice;

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
    return std::unique_ptr<Device>(std::move(d));
  }
  ~AmdTensorDevice() override {
    // Programs, queues and the arena free their memory through the device, which goes last.
    cache_.clear();
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

  Status run(compiler::Ref ast, std::span<Buffer* const> args) override;
  size_t cache_size() const override { return cache_.size(); }
  uint64_t cache_hits() const override { return hits_; }

  void free_memory(const DeviceBuffer& m) {
    if (m.valid()) (void)cfg_.device->free(m);
  }
  Status copy_in(GpuVa va, std::span<const std::byte> bytes) {
    RG_TRY(healthy());
    RG_TRY_CTX(copier_->copy_in(va, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}),
               "%s: upload of %zu bytes", cfg_.name.c_str(), bytes.size());
    return ok_status();
  }
  Status copy_out(std::span<std::byte> bytes, GpuVa va) {
    RG_TRY(healthy());
    RG_TRY_CTX(copier_->copy_out({reinterpret_cast<uint8_t*>(bytes.data()), bytes.size()}, va),
               "%s: download of %zu bytes", cfg_.name.c_str(), bytes.size());
    return ok_status();
  }

 private:
  AmdTensorDevice(AmdDeviceConfig c, compiler::GpuTarget t)
      : cfg_(std::move(c)), target_(std::move(t)) {}
  Result<Compiled*> compile(compiler::Ref ast);
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
  struct HashKey {
    size_t operator()(const compiler::Hash128& h) const { return size_t(h.lo ^ (h.hi * 31)); }
  };
  std::unordered_map<compiler::Hash128, std::unique_ptr<Compiled>, HashKey> cache_;
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
  if (auto it = cache_.find(ast->hash()); it != cache_.end()) {
    ++hits_;
    return it->second.get();
  }
  const std::string name = strformat("k_%016llx", static_cast<unsigned long long>(ast->hash().hi));
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
  RG_LOG("amd", 3, "%s: compiled %s (%s; grid %lld x %lld x %lld, local %lld x %lld x %lld)",
         cfg_.name.c_str(), name.c_str(), c->spec.loaded.descriptor.c_str(),
         (long long)c->spec.gpu.global[0], (long long)c->spec.gpu.global[1],
         (long long)c->spec.gpu.global[2], (long long)c->spec.gpu.local[0],
         (long long)c->spec.gpu.local[1], (long long)c->spec.gpu.local[2]);
  RG_LOG("amd", 4, "%s assembly:\n%s", name.c_str(), c->spec.assembly.c_str());
  c->program = RG_TRY_CTX(queues::amd::Program::load(*cfg_.device, *copier_, c->spec.binary, name),
                          "%s: loading %s", cfg_.name.c_str(), name.c_str());
  Compiled* p = c.get();
  cache_.emplace(ast->hash(), std::move(c));
  return p;
}

Status AmdTensorDevice::wait(const queues::Signal& s, uint64_t value, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + queues::default_wait_timeout();
  for (uint64_t polls = 0;; ++polls) {
    if (s.value() >= value) return ok_status();
    RG_TRY(healthy());
    cfg_.device->poll();
    if (s.value() >= value) return ok_status();
    if (std::chrono::steady_clock::now() > deadline) break;
    if (polls > 64) std::this_thread::yield();
  }
  // Timed out: the seam's own wait produces the standard diagnostic.
  queues::WaitOptions o;
  o.timeout = std::chrono::nanoseconds(0);
  return queues::wait_signal(*cfg_.device, s, value, what, o);
}

Status AmdTensorDevice::run(compiler::Ref ast, std::span<Buffer* const> args) {
  RG_TRY(healthy());
  Compiled* c = RG_TRY(compile(ast));
  const compiler::ProgramSpec& spec = c->spec;
  queues::amd::Program& prog = *c->program;
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
    auto* b = dynamic_cast<AmdBuffer*>(args[ai]);
    if (!b || b->device() != this)
      return make_error(Errc::kInternal, "%s: kernel argument %zu is not this device's buffer",
                        cfg_.name.c_str(), ai);
    const uint64_t va = b->va().raw();
    std::memcpy(ka.cpu + a.offset, &va, 8);
    ++ai;
  }
  std::array<uint32_t, 3> grid{}, local{};
  for (size_t d = 0; d < 3; ++d) {
    grid[d] = static_cast<uint32_t>(spec.gpu.global[d]);
    local[d] = static_cast<uint32_t>(spec.gpu.local[d]);
  }
  if (cfg_.before_launch) cfg_.before_launch(spec.name);
  RG_TRY(queue_->exec(prog.exec_params(ka, grid, local)));
  queue_->signal(timeline_->signal(), value);
  RG_TRY(queue_->submit());
  const queues::Signal sig = timeline_->signal();
  timeline_->advance();
  RG_TRY_CTX(wait(sig, value, "kernel " + spec.name), "%s: kernel %s", cfg_.name.c_str(),
             spec.name.c_str());
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<Device>> make_amd_device(AmdDeviceConfig config) {
  return AmdTensorDevice::create(std::move(config));
}

}  // namespace rawgpu::frontend
