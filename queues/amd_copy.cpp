#include "rawgpu/queues/amd_copy.h"

#include <algorithm>
#include <cstring>

#include "rawgpu/base/format.h"

namespace rawgpu::queues::amd {

Result<std::unique_ptr<Copier>> Copier::create(drivers::amd::AmdDevice& device, SignalPool& signals,
                                               const CopierConfig& config) {
  if (config.staging_count == 0 || config.staging_bytes == 0) {
    return make_error(Errc::kInvalidArgument,
                      "a copier needs at least one non-empty staging buffer");
  }
  if (config.max_packet > sdma_copy_max_bytes()) {
    return make_error(Errc::kInvalidArgument, "COPY_LINEAR packets carry at most %s",
                      format_bytes(sdma_copy_max_bytes()).c_str());
  }
  std::unique_ptr<Copier> c(new Copier(device, signals, config));
  c->queue_ = RG_TRY(CopyQueue::create(device, config.ring_bytes));
  c->queue_->set_max_copy_packet(config.max_packet);
  c->signal_ = RG_TRY(signals.alloc());
  for (uint32_t i = 0; i < config.staging_count; ++i) {
    auto b = device.alloc(config.staging_bytes, drivers::amd::BufferPlacement::kHost);
    if (!b) return std::move(b).take_error().with_context("while allocating copy staging buffers");
    c->staging_.push_back({*b, 0});
  }
  return c;
}

Copier::~Copier() {
  // Do not free staging memory the engine may still read or write.
  // A stopped queue never gets there: skip the wait then.
  if (value_ != 0 && signal_.value() < value_ && !device_->fault_state().queue_error) {
    (void)wait_value(value_, "copier shutdown");
  }
  for (const Staging& s : staging_) (void)device_->free(s.buffer);
  if (signal_.valid()) signals_->release(signal_);
  if (ts_start_.valid()) signals_->release(ts_start_);
  if (ts_end_.valid()) signals_->release(ts_end_);
}

Status Copier::set_timestamps(bool on) {
  if (on && !ts_start_.valid()) {
    Signal a = RG_TRY(signals_->alloc());
    auto b = signals_->alloc();
    if (!b) {
      signals_->release(a);
      return std::move(b).take_error();
    }
    ts_start_ = a;
    ts_end_ = *b;
  }
  stamps_ = on;
  stamped_ = false;
  return {};
}

std::optional<Copier::DeviceTimes> Copier::last_device_times() const {
  if (!stamped_) return std::nullopt;
  return DeviceTimes{ts_start_.timestamp(), ts_end_.timestamp()};
}

void Copier::stamp_start() {
  if (stamps_) queue_->timestamp(ts_start_);
}

void Copier::stamp_end() {
  if (stamps_) queue_->timestamp(ts_end_);
}

Status Copier::wait_value(uint32_t value, const char* what) {
  if (signal_.value() >= value) return {};
  return wait_signal(*device_, signal_, value, what, config_.wait);
}

Result<uint32_t> Copier::submit_fenced() {
  if (value_ + 1 >= Timeline::kWrapAt) {
    // Signals are 32-bit on the GPU: drain, then restart the fence values at 1.
    RG_TRY(wait_value(value_, "copy fence wrap"));
    signal_.set(0);
    value_ = 0;
    for (Staging& s : staging_) s.busy_until = 0;
  }
  const uint32_t v = value_ + 1;
  queue_->signal(signal_, v);
  if (Status st = queue_->submit(config_.wait.timeout, config_.wait.clock); !st) {
    queue_->commands().clear();  // the failed copy is dropped, not left for the next one
    return std::move(st).take_error();
  }
  value_ = v;
  return v;
}

Status Copier::copy_in(GpuVa dst, std::span<const uint8_t> src) {
  stamped_ = false;  // set again once a copy with timestamps has completed
  uint64_t done = 0;
  size_t next = 0;
  while (done < src.size()) {
    Staging& s = staging_[next];
    next = (next + 1) % staging_.size();
    RG_TRY(wait_value(s.busy_until, "copy-in staging buffer"));
    const uint64_t n = std::min<uint64_t>(src.size() - done, s.buffer.size);
    std::memcpy(s.buffer.cpu, src.data() + done, n);
    if (done == 0) stamp_start();
    queue_->copy(dst + done, s.buffer.va, n);
    if (done + n == src.size()) stamp_end();
    s.busy_until = RG_TRY(submit_fenced());
    done += n;
  }
  RG_TRY(wait_value(value_, "copy-in"));
  stamped_ = stamps_ && !src.empty();
  return {};
}

Status Copier::copy_out(std::span<uint8_t> dst, GpuVa src) {
  stamped_ = false;
  struct InFlight {
    size_t staging;
    uint64_t offset, bytes;
    uint32_t value;
  };
  std::vector<InFlight> flight;
  uint64_t issued = 0;
  size_t next = 0;
  auto issue = [&]() -> Status {
    Staging& s = staging_[next];
    RG_TRY(wait_value(s.busy_until, "copy-out staging buffer"));
    const uint64_t n = std::min<uint64_t>(dst.size() - issued, s.buffer.size);
    if (issued == 0) stamp_start();
    queue_->copy(s.buffer.va, src + issued, n);
    if (issued + n == dst.size()) stamp_end();
    s.busy_until = RG_TRY(submit_fenced());
    flight.push_back({next, issued, n, s.busy_until});
    next = (next + 1) % staging_.size();
    issued += n;
    return {};
  };
  size_t drained = 0;
  while (issued < dst.size() && flight.size() < staging_.size()) RG_TRY(issue());
  while (drained < flight.size()) {
    const InFlight f = flight[drained++];
    RG_TRY(wait_value(f.value, "copy-out"));
    std::memcpy(dst.data() + f.offset, staging_[f.staging].buffer.cpu, f.bytes);
    if (issued < dst.size()) RG_TRY(issue());  // refills the buffer just drained
  }
  stamped_ = stamps_ && !dst.empty();
  return {};
}

Status Copier::copy(GpuVa dst, GpuVa src, uint64_t bytes) {
  stamped_ = false;
  if (bytes == 0) return {};
  stamp_start();
  queue_->copy(dst, src, bytes);
  stamp_end();
  const uint32_t v = RG_TRY(submit_fenced());
  RG_TRY(wait_value(v, "device copy"));
  stamped_ = stamps_;
  return {};
}

}  // namespace rawgpu::queues::amd
