// The AMD device seam: what the hardware command queues (queues/) need from a device, and what
// a device implementation (sim/ now, the AM driver later) provides.
//
// It is deliberately small: buffers mapped into the device's GPU VA space, compute-queue
// creation (ring, read/write pointers, doorbell), a doorbell write, a poll hook that lets the
// device make progress while the host waits, and the device's fault state for diagnostics.
// Header-only and free of memory/ and sim/ types, so both queues/ and sim/ can use it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/hcq_device.h"

namespace rawgpu::drivers::amd {

// GC register segment 0 base on gfx11 (IP discovery of Navi31; amd.md §3.3 table): a register
// operand in PM4 is this base plus the upstream header's offset.
inline constexpr uint32_t kGc11Seg0Base = 0x1260;

enum class BufferPlacement : uint8_t {
  kHost,  // host memory mapped into the GPU (system aperture), CPU-visible
  kVram,  // device-local memory; not CPU-visible through this interface
};

// A buffer mapped into the GPU VA space. `cpu` is null for kVram buffers.
struct DeviceBuffer {
  GpuVa va;
  uint64_t size = 0;
  uint8_t* cpu = nullptr;
  BufferPlacement placement = BufferPlacement::kHost;
  uint64_t handle = 0;  // implementation-defined identity (0 = none)
  bool valid() const { return handle != 0; }
};

// A compute (PM4) hardware queue as the CP sees it. The ring and the pointer words live in
// host buffers owned by the device; both pointers count dwords and never wrap (amd.md §8).
struct ComputeQueueDesc {
  DeviceBuffer ring;                  // ring.size bytes, a power of two
  volatile uint64_t* rptr = nullptr;  // written by the device: dwords consumed
  volatile uint64_t* wptr = nullptr;  // written by the host before the doorbell
  uint32_t doorbell = 0;              // doorbell index (64-bit doorbell i at byte 8i of BAR2)
  uint32_t id = 0;                    // queue id inside the device
};

// An SDMA (copy) queue. Unlike PM4, both pointers count BYTES (amd.md §8); packets never
// straddle the ring end (§9.4).
struct CopyQueueDesc {
  DeviceBuffer ring;                  // ring.size bytes, a power of two
  volatile uint64_t* rptr = nullptr;  // written by the device: bytes consumed
  volatile uint64_t* wptr = nullptr;  // written by the host before the doorbell
  uint32_t doorbell = 0;              // SDMA engine doorbells: 0x100, 0x10A, ... (amd.md §8)
  uint32_t id = 0;                    // copy-queue id inside the device
};

// The device's fault state, as read from its fault registers (amd.md §10.4).
struct FaultState {
  bool faulted = false;      // a VM fault was recorded (GCVM_L2_PROTECTION_FAULT_STATUS != 0)
  GpuVa address;             // faulting page-aligned VA
  uint32_t status = 0;       // GCVM_L2_PROTECTION_FAULT_STATUS layout (amd.md §10.4)
  bool queue_error = false;  // a queue stopped (bad packet, fault)
  std::string description;   // human-readable summary of all of the above; empty if healthy
};

class AmdDevice : public HcqDevice {
 public:
  ~AmdDevice() override = default;
  // "sim:gfx1100", "amd:0000:03:00.0", ...
  std::string name() const override = 0;
  // GC IP version as major*10000 + minor*100 + rev (110000 for gfx1100).
  virtual uint32_t gc_version() const = 0;

  // Allocates and maps `size` bytes (rounded up to 4 KiB) into the GPU VA space.
  virtual Result<DeviceBuffer> alloc(uint64_t size, BufferPlacement placement) = 0;
  virtual Status free(const DeviceBuffer& buffer) = 0;

  // Creates a compute queue with a ring of `ring_bytes` (power of two, >= 4 KiB).
  virtual Result<ComputeQueueDesc> create_compute_queue(uint64_t ring_bytes) = 0;
  // Creates an SDMA copy queue with a ring of `ring_bytes` (power of two, >= 4 KiB).
  // Devices without copy queues return kUnsupported.
  virtual Result<CopyQueueDesc> create_copy_queue(uint64_t ring_bytes) {
    (void)ring_bytes;
    return make_error(Errc::kUnsupported, "device %s has no SDMA copy queues", name().c_str());
  }
  // Writes a 64-bit doorbell.
  virtual void ring_doorbell(uint32_t index, uint64_t value) = 0;
  // Gives the device a chance to make progress (the simulator processes its queues; a real
  // device scans its interrupt ring). Called by host-side waits on every poll.
  void poll() override = 0;
  virtual FaultState fault_state() const = 0;

  // HcqDevice: signals and kernargs both live in host memory mapped into the GPU (amd.md §9.5).
  Result<SharedMemory> alloc_shared(uint64_t size, SharedUse) override {
    DeviceBuffer b = RG_TRY(alloc(size, BufferPlacement::kHost));
    return SharedMemory{b.va, b.cpu, b.size, b.handle};
  }
  Status free_shared(const SharedMemory& m) override {
    DeviceBuffer b;
    b.va = m.va;
    b.size = m.size;
    b.cpu = m.cpu;
    b.placement = BufferPlacement::kHost;
    b.handle = m.handle;
    return free(b);
  }
  HcqFault hcq_fault() const override {
    FaultState f = fault_state();
    return {f.queue_error, std::move(f.description)};
  }
};

}  // namespace rawgpu::drivers::amd
