#include "rawgpu/drivers/nv/kernel.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace rawgpu::nv {

namespace {

class OsKernel final : public Kernel {
 public:
  int open(const std::string& path, int flags) override {
    const int fd = ::open(path.c_str(), flags);
    return fd < 0 ? -errno : fd;
  }
  int close(int fd) override { return ::close(fd) < 0 ? -errno : 0; }
  int ioctl(int fd, unsigned long request, void* arg) override {
    int rc;
    do {
      rc = ::ioctl(fd, request, arg);
    } while (rc < 0 && errno == EINTR);
    return rc < 0 ? -errno : rc;
  }
  void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t off, int& err) override {
    void* p = ::mmap(addr, length, prot, flags, fd, off);
    if (p == MAP_FAILED) {
      err = errno;
      return nullptr;
    }
    err = 0;
    return p;
  }
  int munmap(void* addr, size_t length) override { return ::munmap(addr, length) < 0 ? -errno : 0; }
};

}  // namespace

Kernel& Kernel::os() {
  static OsKernel k;
  return k;
}

}  // namespace rawgpu::nv
