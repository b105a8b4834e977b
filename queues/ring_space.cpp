#include "ring_space.h"

#include "rawgpu/base/format.h"
#include "rawgpu/base/shared_memory.h"

namespace rawgpu::queues::amd {

namespace {
unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }
}  // namespace

Status check_fits(const RingSpace& ring, uint64_t n) {
  if (n <= ring.ring_units) return {};
  return make_error(Errc::kInvalidArgument, "%llu command %s do not fit a ring of %llu %s", ull(n),
                    ring.unit, ull(ring.ring_units), ring.unit)
      .with_hint("submit in smaller pieces or create the queue with a larger ring");
}

Status wait_for_space(const RingSpace& ring, uint64_t wptr, uint64_t n, Nanos timeout,
                      Clock* clock) {
  auto has_space = [&]() { return wptr + n - load_acquire(ring.rptr) <= ring.ring_units; };
  if (has_space()) return {};
  PollOptions po;
  po.timeout = timeout;
  po.clock = clock;
  auto done = [&]() {
    ring.device->poll();
    return has_space();
  };
  auto describe = [&]() {
    const auto f = ring.device->fault_state();
    return strformat("rptr %llu, wptr %llu, %llu %s to write; device %s: %s",
                     ull(load_acquire(ring.rptr)), ull(wptr), ull(n), ring.unit,
                     ring.device->name().c_str(),
                     f.description.empty() ? "no fault recorded" : f.description.c_str());
  };
  return poll_until(ring.what, done, po, describe);
}

}  // namespace rawgpu::queues::amd
