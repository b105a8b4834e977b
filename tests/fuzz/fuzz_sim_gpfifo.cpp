// Fuzz target for the simulated NVIDIA GPU's Host and copy engine: random method streams, behind
// the simulated kernel driver and the driver's own bring-up, must never crash or hang; each
// channel either finishes, blocks on a semaphore, or stops with a decoded channel error.
//
// Input: the first byte picks the architecture and the channel (compute or copy); the rest are
// pushbuffer dwords, split into GP entries at every dword 0xa5a5ffff. Dwords 0xa5a500kk and
// 0xa5a60000 become the low/high halves of the address of a mapped 4 KiB buffer (+4*kk), so the
// fuzzer reaches mapped memory as well as unmapped addresses.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/sim/nv_rm.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    std::printf("fuzz_sim_gpfifo invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  if (size < 1) return 0;
  const uint8_t sel = data[0];
  std::vector<uint32_t> dws((size - 1) / 4);
  if (!dws.empty()) std::memcpy(dws.data(), data + 1, dws.size() * 4);
  if (dws.size() > 4096) dws.resize(4096);
  sim::SimNvConfig c;
  c.arch = sel % 3 == 0   ? sim::NvArch::kAmpere
           : sel % 3 == 1 ? sim::NvArch::kAda
                          : sim::NvArch::kHopper;
  c.vram_bytes = 64ull << 20;
  auto k = sim::SimNvKernel::create(c);
  require(k.ok(), "the simulated driver starts");
  auto rm = nv::Rm::open(**k);
  require(rm.ok(), "the RM client opens");
  auto gpu = nv::RmGpu::open(**rm, 0);
  require(gpu.ok(), "bring-up succeeds");
  auto arena = (*gpu)->alloc_vram(64 << 10, true);
  auto buf = (*gpu)->alloc_host(4096);
  require(arena.ok() && buf.ok(), "allocations succeed");
  for (uint32_t& d : dws) {
    if ((d & 0xffffff00u) == 0xa5a50000u)
      d = static_cast<uint32_t>(buf->va + 4 * (d & 0xff));
    else if (d == 0xa5a60000u)
      d = static_cast<uint32_t>(buf->va >> 32);
  }
  const nv::NvChannel& ch = (sel & 0x80) ? (*gpu)->copy() : (*gpu)->compute();
  queues::NvChannelQueue q(**gpu, ch, *arena);
  queues::NvPushBuffer pb((*gpu)->classes().gpfifo, (*gpu)->classes().copy);
  auto flush = [&] {
    if (pb.size() == 0) return;
    // A blocked or stopped channel makes the queue wait for space: time out quickly.
    (void)q.submit(pb, std::chrono::milliseconds(1));
    pb.clear();
  };
  for (uint32_t d : dws) {
    if (d == 0xa5a5ffffu) {
      flush();
      continue;
    }
    pb.cmds().push(d);
    if (pb.size() >= 1024) flush();
  }
  flush();
  for (int i = 0; i < 4; ++i) (**k).poll();
  for (const std::string& e : (**k).channel_errors()) require(!e.empty(), "errors say something");
  return 0;
}
