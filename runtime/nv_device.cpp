// The Tensor back end over the NVIDIA kernel-driver path (see nv_device.h).
#include "rawgpu/runtime/nv_device.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"
#include "rawgpu/compiler/gpu.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::runtime {
namespace {

using compiler::DType;

class NvTensorDevice;

class NvBuffer final : public Buffer {
 public:
  NvBuffer(NvTensorDevice* dev, DType dtype, size_t count, nv::NvMemory mem, uint64_t va,
           std::shared_ptr<Buffer> owner)
      : Buffer(dtype, count), dev_(dev), mem_(mem), va_(va), owner_(std::move(owner)) {}
  ~NvBuffer() override;
  Status copy_in(std::span<const std::byte> bytes) override {
    if (bytes.size() != nbytes())
      return make_error(Errc::kInvalidArgument, "copy_in: %zu bytes for a buffer of %zu",
                        bytes.size(), nbytes());
    if (!bytes.empty()) std::memcpy(reinterpret_cast<void*>(va_), bytes.data(), bytes.size());
    return {};
  }
  Status copy_out(std::span<std::byte> bytes) const override {
    if (bytes.size() != nbytes())
      return make_error(Errc::kInvalidArgument, "copy_out: %zu bytes for a buffer of %zu",
                        bytes.size(), nbytes());
    if (!bytes.empty()) std::memcpy(bytes.data(), reinterpret_cast<const void*>(va_), bytes.size());
    return {};
  }
  uint64_t va() const { return va_; }
  const NvTensorDevice* device() const { return dev_; }

 private:
  NvTensorDevice* dev_;
  nv::NvMemory mem_;  // valid only for the owning allocation
  uint64_t va_;
  std::shared_ptr<Buffer> owner_;
};

struct Compiled {
  compiler::ProgramSpec spec;
  queues::NvProgram program;
};

class NvTensorDevice final : public Device {
 public:
  static Result<std::unique_ptr<Device>> create(NvDeviceConfig c) {
    if (!c.gpu) return make_error(Errc::kInvalidArgument, "%s: no NVIDIA GPU", c.name.c_str());
    auto target = RG_TRY(compiler::gpu_target(c.gpu->gr().sm.target));
    std::unique_ptr<NvTensorDevice> d(new NvTensorDevice(std::move(c), std::move(target)));
    nv::RmGpu& g = *d->cfg_.gpu;
    d->pb_arena_ =
        RG_TRY_CTX(g.alloc_vram(256 << 10, true), "%s: pushbuffer arena", d->cfg_.name.c_str());
    d->kernargs_ = RG_TRY_CTX(queues::KernargArena::create(g, 1 << 20), "%s: kernarg arena",
                              d->cfg_.name.c_str());
    d->signals_ = std::make_unique<queues::SignalPool>(g);
    queues::Signal a = RG_TRY_CTX(d->signals_->alloc(), "%s: timeline", d->cfg_.name.c_str());
    queues::Signal b = RG_TRY_CTX(d->signals_->alloc(), "%s: timeline", d->cfg_.name.c_str());
    d->timeline_ = std::make_unique<queues::Timeline>(a, b);
    d->channel_ = std::make_unique<queues::NvChannelQueue>(g, g.compute(), d->pb_arena_);
    d->compute_ = std::make_unique<queues::NvComputeQueue>(g, *d->channel_, *d->kernargs_);
    RG_TRY_CTX(d->compute_->set_qmd_version(d->cfg_.qmd_version), "%s", d->cfg_.name.c_str());
    RG_TRY_CTX(d->compute_->setup(), "%s: compute setup", d->cfg_.name.c_str());
    return std::unique_ptr<Device>(std::move(d));
  }
  ~NvTensorDevice() override {
    for (auto& [h, c] : cache_) c->program.release(*cfg_.gpu);
    cache_.clear();
    compute_.reset();
    channel_.reset();
    kernargs_.reset();
    timeline_.reset();
    signals_.reset();
    (void)cfg_.gpu->free(pb_arena_);
    cfg_.gpu.reset();  // before keep_alive (the kernel it talks to)
  }

  std::string_view name() const override { return cfg_.name; }
  Result<std::shared_ptr<Buffer>> alloc(DType dtype, size_t count) override {
    const uint64_t bytes =
        std::max<uint64_t>(uint64_t(count) * uint64_t(compiler::itemsize(dtype)), 4);
    nv::NvMemory m =
        RG_TRY_CTX(cfg_.gpu->alloc_vram(bytes, true), "%s: %s buffer of %zu", cfg_.name.c_str(),
                   std::string(compiler::dtype_name(dtype)).c_str(), count);
    return std::shared_ptr<Buffer>(
        std::make_shared<NvBuffer>(this, dtype, count, m, m.va, nullptr));
  }
  Result<std::shared_ptr<Buffer>> view(const std::shared_ptr<Buffer>& base, size_t offset,
                                       DType dtype, size_t count) override {
    auto* b = dynamic_cast<NvBuffer*>(base.get());
    if (!b || b->device() != this)
      return make_error(Errc::kInvalidArgument, "%s: view of another device's buffer",
                        cfg_.name.c_str());
    if (offset + uint64_t(count) * uint64_t(compiler::itemsize(dtype)) > base->nbytes())
      return make_error(Errc::kOutOfRange,
                        "%s: view [%zu, +%zu elements) outside a %zu-byte buffer",
                        cfg_.name.c_str(), offset, count, base->nbytes());
    return std::shared_ptr<Buffer>(
        std::make_shared<NvBuffer>(this, dtype, count, nv::NvMemory{}, b->va() + offset, base));
  }
  Status run(compiler::Ref ast, std::span<Buffer* const> args, const RunContext&) override;
  size_t cache_size() const override { return cache_.size(); }
  uint64_t cache_hits() const override { return hits_; }
  void free_memory(nv::NvMemory& m) { (void)cfg_.gpu->free(m); }

 private:
  NvTensorDevice(NvDeviceConfig c, compiler::GpuTarget t)
      : cfg_(std::move(c)), target_(std::move(t)) {}
  Result<Compiled*> compile(compiler::Ref ast);

  NvDeviceConfig cfg_;
  compiler::GpuTarget target_;
  nv::NvMemory pb_arena_;
  std::unique_ptr<queues::KernargArena> kernargs_;
  std::unique_ptr<queues::SignalPool> signals_;
  std::unique_ptr<queues::Timeline> timeline_;
  std::unique_ptr<queues::NvChannelQueue> channel_;
  std::unique_ptr<queues::NvComputeQueue> compute_;
  struct HashKey {
    size_t operator()(const compiler::Hash128& h) const { return size_t(h.lo ^ (h.hi * 31)); }
  };
  std::unordered_map<compiler::Hash128, std::unique_ptr<Compiled>, HashKey> cache_;
  uint64_t hits_ = 0;
};

NvBuffer::~NvBuffer() {
  if (mem_.handle != 0) dev_->free_memory(mem_);
}

Result<Compiled*> NvTensorDevice::compile(compiler::Ref ast) {
  if (auto it = cache_.find(ast->hash()); it != cache_.end()) {
    ++hits_;
    return it->second.get();
  }
  const std::string name = strformat("k_%016llx", static_cast<unsigned long long>(ast->hash().hi));
  std::optional<compiler::ProgramSpec> spec;
  auto attempt = [&](compiler::GpuOptions o) -> Result<bool> {
    o.assemble = !cfg_.executes_ptx;
    auto r = compiler::compile_gpu(ast, name, target_, o);
    if (r.ok()) {
      spec = std::move(r).take_value();
      return true;
    }
    if (o.tensor_cores && r.error().message().find("KernelOptError[") == std::string::npos)
      return std::move(r).take_error().with_context(
          strformat("%s: tensor-core compile of %s", cfg_.name.c_str(), name.c_str()));
    RG_LOG("nv", 2, "%s: %s: %s", cfg_.name.c_str(), name.c_str(), r.error().message().c_str());
    return false;
  };
  bool done = false;
  if (cfg_.tensor_cores) {
    compiler::GpuOptions o;
    o.tensor_cores = true;
    done = RG_TRY(attempt(o));
  }
  for (size_t i = 0; i < cfg_.group_lanes.size() && !done; ++i) {
    compiler::GpuOptions o;
    o.group = cfg_.group_lanes[i];
    done = RG_TRY(attempt(o));
  }
  if (!done) {
    compiler::GpuOptions o;
    o.assemble = !cfg_.executes_ptx;
    spec = RG_TRY_CTX(compiler::compile_gpu(ast, name, target_, o), "%s", cfg_.name.c_str());
  }
  const uint32_t param_bytes =
      static_cast<uint32_t>(8 * (spec->program.buffers.size() + spec->vars.size()));
  auto c = std::make_unique<Compiled>();
  if (cfg_.executes_ptx) {
    queues::NvKernelInfo info;
    info.name = spec->name;
    info.param_bytes = param_bytes;
    info.shared_bytes = spec->loaded.local_bytes;
    c->program = RG_TRY_CTX(queues::NvProgram::load_ptx(*cfg_.gpu, info, spec->assembly),
                            "%s: loading %s", cfg_.name.c_str(), name.c_str());
  } else {
    if (spec->binary_kind != "cubin") {
      return make_error(Errc::kUnsupported, "%s: kernel %s has no cubin (%s)", cfg_.name.c_str(),
                        name.c_str(), spec->binary_note.c_str())
          .with_hint(
              "a real NVIDIA GPU runs SASS: install ptxas (CUDA toolkit) so the compiler "
              "can assemble its PTX");
    }
    c->program = RG_TRY_CTX(queues::NvProgram::load_cubin(*cfg_.gpu, spec->binary, spec->name),
                            "%s: loading %s", cfg_.name.c_str(), name.c_str());
    if (c->program.info().param_bytes != param_bytes) {
      const uint32_t got = c->program.info().param_bytes;
      c->program.release(*cfg_.gpu);
      return make_error(Errc::kInternal,
                        "%s: ptxas laid out %u parameter bytes for %s; the compiler passes %u",
                        cfg_.name.c_str(), got, name.c_str(), param_bytes);
    }
  }
  c->spec = std::move(*spec);
  Compiled* p = c.get();
  cache_.emplace(ast->hash(), std::move(c));
  return p;
}

Status NvTensorDevice::run(compiler::Ref ast, std::span<Buffer* const> args, const RunContext&) {
  Compiled* c = RG_TRY(compile(ast));
  const compiler::ProgramSpec& spec = c->spec;
  if (!spec.vars.empty())
    return make_error(Errc::kUnsupported, "%s: kernel %s has %zu scalar variables (not passed yet)",
                      cfg_.name.c_str(), spec.name.c_str(), spec.vars.size());
  std::vector<uint8_t> params;
  for (size_t i = 0; i < args.size(); ++i) {
    auto* b = dynamic_cast<NvBuffer*>(args[i]);
    if (!b || b->device() != this)
      return make_error(Errc::kInternal, "%s: kernel argument %zu is not this device's buffer",
                        cfg_.name.c_str(), i);
    const uint64_t va = b->va();
    params.insert(params.end(), reinterpret_cast<const uint8_t*>(&va),
                  reinterpret_cast<const uint8_t*>(&va) + 8);
  }
  if (params.size() != c->program.info().param_bytes)
    return make_error(Errc::kInternal, "%s: kernel %s takes %u parameter bytes, %zu buffers given",
                      cfg_.name.c_str(), spec.name.c_str(), c->program.info().param_bytes,
                      args.size());
  queues::NvLaunch l;
  for (size_t d = 0; d < 3; ++d) {
    l.grid[d] = static_cast<uint32_t>(spec.gpu.global[d]);
    l.block[d] = static_cast<uint32_t>(spec.gpu.local[d]);
  }
  l.params = params;
  // One launch per run, signaled on the device's timeline (the channel runs in order, so the
  // timeline's wait on the previous value is implicit).
  queues::Timeline& tl = *timeline_;
  RG_TRY_CTX(compute_->launch(c->program, l, tl.signal(), tl.next()), "%s: kernel %s",
             cfg_.name.c_str(), spec.name.c_str());
  tl.advance();
  queues::WaitOptions wo;
  wo.timeout = std::max<Nanos>(queues::default_wait_timeout(), std::chrono::seconds(120));
  RG_TRY_CTX(
      queues::wait_signal(*cfg_.gpu, tl.last_signal(), tl.last_value(), "kernel " + spec.name, wo),
      "%s: kernel %s", cfg_.name.c_str(), spec.name.c_str());
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<Device>> make_nv_device(NvDeviceConfig config) {
  return NvTensorDevice::create(std::move(config));
}

Result<std::unique_ptr<Device>> open_nv_device(std::string_view name) {
  uint32_t index = 0;
  const std::string_view n = name.substr(3);
  const auto r = std::from_chars(n.data(), n.data() + n.size(), index);
  if (n.empty() || r.ec != std::errc() || r.ptr != n.data() + n.size())
    return make_error(Errc::kInvalidArgument, "device %.*s: nv:<n> takes a GPU index",
                      static_cast<int>(name.size()), name.data());
  std::shared_ptr<nv::Rm> rm = RG_TRY_CTX(nv::Rm::open(nv::Kernel::os()), "opening %.*s",
                                          static_cast<int>(name.size()), name.data());
  NvDeviceConfig c;
  c.name = std::string(name);
  c.gpu = RG_TRY(nv::RmGpu::open(*rm, index));
  c.keep_alive = rm;
  c.executes_ptx = false;
  if (const char* v = std::getenv("RAWGPU_NV_QMD"); v != nullptr && *v != '\0') {
    const std::string_view sv(v);
    if (sv != "3" && sv != "4")
      return make_error(Errc::kInvalidArgument, "RAWGPU_NV_QMD=%s: the QMD layouts are 3 and 4", v);
    c.qmd_version = sv == "4" ? 4 : 3;
  }
  return make_nv_device(std::move(c));
}

}  // namespace rawgpu::runtime
