#include "rawgpu/drivers/pci/sys.h"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

namespace rawgpu::pci {
namespace {

// -errno of a failed libc call, or its result.
template <class T>
T ret(T r) {
  return r < 0 ? static_cast<T>(-errno) : r;
}

class OsSys final : public Sys {
 public:
  int open(const std::string& path, int flags) override {
    int r;
    do r = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    while (r < 0 && errno == EINTR);
    return ret(r);
  }
  int close(int fd) override { return ret(::close(fd)); }
  int ioctl(int fd, unsigned long request, void* arg) override {
    int r;
    do r = ::ioctl(fd, request, arg);
    while (r < 0 && errno == EINTR);
    return ret(r);
  }
  ssize_t pread(int fd, void* buf, size_t n, off_t off) override {
    ssize_t r;
    do r = ::pread(fd, buf, n, off);
    while (r < 0 && errno == EINTR);
    return ret(r);
  }
  ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) override {
    ssize_t r;
    do r = ::pwrite(fd, buf, n, off);
    while (r < 0 && errno == EINTR);
    return ret(r);
  }
  ssize_t read(int fd, void* buf, size_t n) override {
    ssize_t r;
    do r = ::read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return ret(r);
  }
  ssize_t write(int fd, const void* buf, size_t n) override {
    ssize_t r;
    do r = ::write(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return ret(r);
  }
  void* mmap(size_t length, int prot, int flags, int fd, off_t off, int& err) override {
    void* p = ::mmap(nullptr, length, prot, flags, fd, off);
    if (p == MAP_FAILED) {
      err = errno;
      return nullptr;
    }
    err = 0;
    return p;
  }
  int munmap(void* addr, size_t length) override { return ret(::munmap(addr, length)); }
  int mlock(const void* addr, size_t length) override { return ret(::mlock(addr, length)); }
  ssize_t readlink(const std::string& path, std::string& target) override {
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    if (n < 0) return -errno;
    target.assign(buf, static_cast<size_t>(n));
    return n;
  }
  int eventfd(unsigned initval, int flags) override {
    return ret(::eventfd(initval, flags | EFD_CLOEXEC));
  }
  int poll(struct pollfd* fds, nfds_t n, int timeout_ms) override {
    return ret(::poll(fds, n, timeout_ms));
  }
  int flock(int fd, int operation) override {
    int r;
    do r = ::flock(fd, operation);
    while (r < 0 && errno == EINTR);
    return ret(r);
  }
};

}  // namespace

Sys& Sys::os() {
  static OsSys sys;
  return sys;
}

}  // namespace rawgpu::pci
