// The NVIDIA queue tests' rig: a simulated kernel driver and GPU (driver 580.65.06), the RM
// client and the GPU brought up by drivers/nv, a compute channel with its NvComputeQueue over a
// kernarg arena, a copy channel, a signal pool and one raw signal slot in host memory.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/queues/kernarg_arena.h"
#include "rawgpu/queues/nv_compute.h"
#include "rawgpu/queues/nv_gpfifo.h"
#include "rawgpu/queues/signal.h"
#include "rawgpu/sim/nv_rm.h"

namespace rawgpu::testing {

struct NvRig {
  std::unique_ptr<sim::SimNvKernel> k;
  std::unique_ptr<nv::Rm> rm;
  std::unique_ptr<nv::RmGpu> gpu;
  nv::NvMemory pb_arena, copy_arena, signals;
  std::unique_ptr<queues::KernargArena> kernargs;
  std::unique_ptr<queues::SignalPool> pool;
  std::unique_ptr<queues::NvChannelQueue> channel, copy_channel;
  std::unique_ptr<queues::NvComputeQueue> compute;
  uint64_t* sig() { return reinterpret_cast<uint64_t*>(signals.cpu()); }
  queues::Signal signal() { return queues::Signal(sig(), GpuVa(signals.va)); }
};

inline NvRig nv_rig(sim::NvArch arch) {
  NvRig r;
  sim::SimNvConfig c;
  c.arch = arch;
  c.version = "580.65.06";
  c.vram_bytes = 512ull << 20;
  r.k = sim::SimNvKernel::create(c).value();
  r.rm = nv::Rm::open(*r.k).value();
  auto g = nv::RmGpu::open(*r.rm, 0);
  EXPECT_TRUE(g.ok()) << g.error().to_string();
  r.gpu = std::move(g).value();
  r.pb_arena = r.gpu->alloc_vram(64 << 10, true).value();
  r.copy_arena = r.gpu->alloc_vram(64 << 10, true).value();
  r.kernargs = queues::KernargArena::create(*r.gpu, 256 << 10).value();
  r.pool = std::make_unique<queues::SignalPool>(*r.gpu);
  r.signals = r.gpu->alloc_host(4096).value();
  std::memset(r.signals.cpu(), 0, 4096);
  r.channel = std::make_unique<queues::NvChannelQueue>(*r.gpu, r.gpu->compute(), r.pb_arena);
  r.copy_channel = std::make_unique<queues::NvChannelQueue>(*r.gpu, r.gpu->copy(), r.copy_arena);
  r.compute = std::make_unique<queues::NvComputeQueue>(*r.gpu, *r.channel, *r.kernargs);
  return r;
}

}  // namespace rawgpu::testing
