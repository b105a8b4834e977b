#include "rawgpu/queues/kernarg_arena.h"

#include "rawgpu/base/format.h"

namespace rawgpu::queues {

Result<std::unique_ptr<KernargArena>> KernargArena::create(drivers::HcqDevice& device,
                                                           uint64_t bytes) {
  if (bytes < kAlign) {
    return make_error(Errc::kInvalidArgument, "kernarg arena of %llu bytes (at least %llu)",
                      static_cast<unsigned long long>(bytes),
                      static_cast<unsigned long long>(kAlign));
  }
  auto buffer = device.alloc_shared(bytes, drivers::SharedUse::kKernargs);
  if (!buffer) return std::move(buffer).take_error().with_context("while creating a kernarg arena");
  auto bump = memory::BumpAllocator::create(0, buffer->size, true);
  if (!bump) {
    (void)device.free_shared(*buffer);
    return std::move(bump).take_error();
  }
  return std::unique_ptr<KernargArena>(new KernargArena(device, *buffer, *bump));
}

KernargArena::~KernargArena() { (void)device_->free_shared(buffer_); }

Result<Kernargs> KernargArena::alloc(uint64_t bytes, const Signal& done, uint64_t done_value,
                                     const WaitOptions& wait, uint64_t align) {
  RG_CHECK(done.valid());
  RG_CHECK(align >= kAlign && (align & (align - 1)) == 0, "kernarg alignment %llu",
           static_cast<unsigned long long>(align));
  if (bytes == 0 || bytes > buffer_.size) {
    return make_error(Errc::kInvalidArgument, "%llu kernarg bytes in an arena of %s",
                      static_cast<unsigned long long>(bytes), format_bytes(buffer_.size).c_str());
  }
  // Drop what the GPU has finished with.
  while (!live_.empty() && live_.front().done.value() >= live_.front().value) live_.pop_front();
  const memory::BumpAllocator before = bump_;
  const uint64_t off = RG_TRY(bump_.alloc(bytes, align));
  const uint64_t end = off + bytes;
  // Wait for every older range the new one overlaps. live_ is in allocation order, so this lap's
  // ranges (allocated since the bump pointer last wrapped) come last and lie below `off`: the
  // scan stops at the first of them. Ranges of earlier laps are tested one by one (a range left
  // in an alignment gap can start below `off` and still reach into the new one). Completion is in
  // submission order per signal; waiting each in turn is correct for any mix of signals.
  const uint64_t lap = bump_.wraps();
  for (size_t i = 0; i < live_.size();) {
    const Live& l = live_[i];
    if (l.lap == lap) break;
    if (!(l.begin < end && off < l.end)) {
      ++i;
      continue;
    }
    if (l.done.value() < l.value) {
      ++waits_;
      if (Status st = wait_signal(*device_, l.done, l.value, "kernarg range reuse", wait); !st) {
        bump_ = before;  // unchanged on error
        return std::move(st).take_error();
      }
    }
    live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  live_.push_back({off, end, lap, done, done_value});
  return Kernargs{buffer_.cpu + off, buffer_.va + off, bytes};
}

}  // namespace rawgpu::queues
