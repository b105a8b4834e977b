// Fuzz target for the simulated SDMA engine: random packet streams in a copy queue's ring (and
// in an indirect buffer) must never crash; the queue either finishes, blocks on a POLL_REGMEM,
// or stops with a decoded error message.
//
// Input: up to 1024 dwords for the ring, the rest for an IB buffer. Dwords 0xa5a5'00kk and
// 0xa5a6'0000 are replaced by the low/high halves of valid GPU addresses (a data buffer at
// offset 4*kk, or the IB with selector 0xa5a7'00kk), so the fuzzer reaches mapped memory.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "rawgpu/sim/sim_gpu.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_sim_sdma invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  using drivers::amd::BufferPlacement;
  std::vector<uint32_t> dws(size / 4);
  if (!dws.empty()) std::memcpy(dws.data(), data, dws.size() * 4);
  // The simulated GPU behind its PCI function, with the driver's queues and buffers.
  sim::AmdPciConfig cfg;
  auto gpu = std::move(sim::SimGpu::create(cfg).value());
  auto q = gpu->create_copy_queue(4096).value();
  auto mem = gpu->alloc(8192, BufferPlacement::kHost).value();
  auto ib = gpu->alloc(4096, BufferPlacement::kHost).value();
  for (uint32_t& d : dws) {
    if ((d & 0xffffff00u) == 0xa5a50000u)
      d = static_cast<uint32_t>(mem.va.raw() + 4 * (d & 0xff));
    else if ((d & 0xffffff00u) == 0xa5a70000u)
      d = static_cast<uint32_t>(ib.va.raw() + 4 * (d & 0xff));
    else if (d == 0xa5a60000u)
      d = static_cast<uint32_t>(mem.va.raw() >> 32);
  }
  const size_t ring_n = dws.size() < 1024 ? dws.size() : 1024;
  if (ring_n) std::memcpy(q.ring.cpu, dws.data(), ring_n * 4);
  const size_t ib_n = dws.size() - ring_n < 1024 ? dws.size() - ring_n : 1024;
  if (ib_n) std::memcpy(ib.cpu, dws.data() + ring_n, ib_n * 4);
  *q.wptr = ring_n * 4;
  gpu->ring_doorbell(q.doorbell, ring_n * 4);
  for (int i = 0; i < 2; ++i) {
    std::memset(mem.cpu, 0xff, 64);  // satisfies some polls, so execution continues
    gpu->poll();
  }
  const sim::QueueStatus st = gpu->copy_queue_status(q.id);
  require(st.rptr <= ring_n * 4, "rptr beyond wptr");
  require(st.rptr % 4 == 0, "rptr not a dword count");
  require(*q.rptr == st.rptr, "published rptr differs");
  if (st.stopped) require(!st.error.empty(), "stopped without an error message");
  const auto f = gpu->fault_state();
  require(f.queue_error == st.stopped, "fault state disagrees with the queue");
  return 0;
}
