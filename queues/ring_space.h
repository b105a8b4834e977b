// Internal to queues/: the ring-space checks every AMD ring submitter shares (PM4 compute rings
// count dwords, SDMA rings count bytes; the logic is the same).
#pragma once

#include <cstdint>

#include "rawgpu/base/error.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/amd/device.h"

namespace rawgpu::queues::amd {

// A ring of `ring_units` units whose read pointer the engine advances.
struct RingSpace {
  drivers::amd::AmdDevice* device;
  const volatile uint64_t* rptr;
  uint64_t ring_units;
  const char* unit;  // "dwords" / "bytes", for messages
  const char* what;  // "compute ring space", for the timeout message
};

// kInvalidArgument when a submission of `n` units can never fit the ring.
Status check_fits(const RingSpace& ring, uint64_t n);

// Waits (through the device's poll hook) until `n` more units fit after `wptr`; kTimeout names
// rptr, wptr, the size and the device's recorded fault.
Status wait_for_space(const RingSpace& ring, uint64_t wptr, uint64_t n, Nanos timeout,
                      Clock* clock);

}  // namespace rawgpu::queues::amd
