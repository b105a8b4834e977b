// The syscall seam of the real PCI back ends (VFIO, sysfs): every open/ioctl/mmap/pread/pwrite/
// readlink/eventfd/poll they make goes through a Sys. Sys::os() is the kernel; tests install a
// fake kernel side (sim/linux/fake_vfio.h) that checks each ioctl's struct and the order of calls,
// so the code that runs on a real machine is the code under test.
//
// Conventions follow the kernel ABI rather than libc: a failed call returns -errno (never sets
// errno); mmap returns the address or sets `err` and returns nullptr.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace rawgpu::pci {

class Sys {
 public:
  virtual ~Sys() = default;
  // Files created through O_CREAT get mode 0644 (before the umask).
  virtual int open(const std::string& path, int flags) = 0;
  virtual int close(int fd) = 0;
  // `arg` is the ioctl's argument: a pointer to its struct, or an integer cast to a pointer.
  virtual int ioctl(int fd, unsigned long request, void* arg) = 0;
  virtual ssize_t pread(int fd, void* buf, size_t n, off_t off) = 0;
  virtual ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) = 0;
  virtual ssize_t read(int fd, void* buf, size_t n) = 0;
  virtual ssize_t write(int fd, const void* buf, size_t n) = 0;
  virtual void* mmap(size_t length, int prot, int flags, int fd, off_t off, int& err) = 0;
  virtual int munmap(void* addr, size_t length) = 0;
  // Pins pages in RAM (DMA without an IOMMU: the physical address must not change). munmap
  // unlocks.
  virtual int mlock(const void* addr, size_t length) = 0;
  virtual ssize_t readlink(const std::string& path, std::string& target) = 0;
  virtual int eventfd(unsigned initval, int flags) = 0;
  virtual int poll(struct pollfd* fds, nfds_t n, int timeout_ms) = 0;
  virtual int flock(int fd, int operation) = 0;

  // The real kernel.
  static Sys& os();
};

}  // namespace rawgpu::pci
