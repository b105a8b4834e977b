// Loads and stores of memory that the host and a device use at the same time: ring read and
// write pointers, signals, the dwords a command processor polls, and (in sim/) the simulated
// GPU's dword and qword accesses (AmdGpu::read32/read64/write32/write64). Bulk data (an SDMA
// copy, a kernel's stores through the emulator's TLB, which are relaxed) is not accessed this
// way: the release store that follows it (a signal, an rptr) publishes it, as on a GPU.
//
// Each access is single-copy atomic (never torn) with acquire (loads) or release (stores)
// ordering, so everything written before a release store is visible to whoever sees the stored
// value through an acquire load: a signal value or an rptr then publishes the data written
// before it, to the host thread or to the simulated GPU's thread alike. On x86-64 both are plain
// moves. The pointers may be volatile (the drivers' view of device-written memory); the GCC/clang
// atomic builtins accept those, std::atomic_ref does not, and ThreadSanitizer sees either.
#pragma once

#include <cstdint>
#include <type_traits>

namespace rawgpu {

template <typename T>
inline T load_acquire(const volatile T* p) {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

template <typename T>
inline void store_release(volatile T* p, std::type_identity_t<T> v) {
  static_assert(std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8));
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

}  // namespace rawgpu
