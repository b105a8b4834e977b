// Store ordering for memory a device reads (rings, pointers, doorbells): store_fence() makes
// every earlier store — to write-back or write-combined memory, such as a BAR mapping of VRAM —
// visible before any later one. On x86-64 that is SFENCE (write-back stores are already in order
// under TSO; SFENCE also drains the write-combining buffers; Linux's wmb() is the same
// instruction), which costs far less than the full MFENCE of a sequentially consistent fence.
// Elsewhere a sequentially consistent fence.
#pragma once

#include <atomic>

namespace rawgpu {

inline void store_fence() {
#if defined(__x86_64__)
  __builtin_ia32_sfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace rawgpu
