// The syscall seam of the NVIDIA kernel-driver path: every open/close/ioctl/mmap/munmap that
// drivers/nv makes on /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm (and the anonymous
// mappings that reserve its VA windows) goes through a Kernel. Kernel::os() is the real kernel;
// sim/nv's SimNvKernel plays nvidia.ko + nvidia-uvm.ko for tests, so the code that runs against
// a real driver is the code under test (no LD_PRELOAD).
//
// Conventions follow the kernel ABI rather than libc: a failed call returns -errno (errno is not
// used); mmap returns the address or sets `err` (an errno value) and returns nullptr.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace rawgpu::nv {

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual int open(const std::string& path, int flags) = 0;
  virtual int close(int fd) = 0;
  // `arg` points at the ioctl's parameter block (its size is in the command word for the RM
  // frontend; UVM commands carry no size).
  virtual int ioctl(int fd, unsigned long request, void* arg) = 0;
  virtual void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t off,
                     int& err) = 0;
  virtual int munmap(void* addr, size_t length) = 0;
  // Called by every wait on the GPU. The real kernel needs nothing; the simulated driver runs its
  // GPU here (Host fetches rung channels, engines execute).
  virtual void poll() {}
  // A 32-bit store to a register in a mapping of a GPU node (the usermode doorbell): on a real
  // GPU the store itself is the event the hardware acts on, so every write counts even when the
  // next one follows at once. The simulated GPU, whose registers are plain memory, latches each
  // write here (nothing runs until poll()).
  virtual void write_register(volatile uint32_t* reg, uint32_t value) { *reg = value; }

  // The real kernel.
  static Kernel& os();
};

}  // namespace rawgpu::nv
