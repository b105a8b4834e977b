// The kernel side of VFIO, simulated: a pci::Sys whose /dev/vfio nodes, ioctls, region
// reads/writes and mmaps behave as vfio-pci and the type1 IOMMU driver do (linux/vfio.h), so the
// real VfioPciDevice runs unchanged against it. Everything else (the sysfs tree, which tests make
// as real files in a temporary directory, anonymous memory) goes to the real kernel.
//
// It is strict where the kernel is: every ioctl's argsz, flags and indexes are checked (a
// violation returns -EINVAL like the kernel and is recorded), calls out of order fail (no IOMMU
// set before the device fd, DMA maps before SET_IOMMU), DMA maps must be page-aligned, inside
// the reported IOVA ranges, not overlap and stay under the per-container entry limit, and the
// device reaches host memory only through mapped IOVAs (device_dma(): anything else is a
// recorded DMA fault). It records a trace of every call (paths relative to the roots, fds by
// kind and number, never host addresses) for golden-trace tests, and can fail any named step.
//
// The sysfs tree is real files, but writes to its driver attributes act as the kernel's do:
// drivers/X/unbind removes the device's driver link (-ENODEV when X is not its driver),
// drivers_probe binds the driver named in driver_override (when drivers/NAME exists, i.e. the
// module is loaded) or, with no override, the driver the device had first.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/drivers/pci/sys.h"

namespace rawgpu::sim {

struct FakeVfioFunction {
  std::string bdf;              // "0000:03:00.0"
  std::vector<uint8_t> config;  // the function's configuration space (256 or 4096 bytes)
  std::array<uint64_t, 6> bar_size{};
  std::array<bool, 6> bar_mmap{true, true, true, true, true, true};
  uint32_t msi_vectors = 1;
  uint32_t msix_vectors = 0;
  bool reset = true;  // VFIO_DEVICE_FLAGS_RESET
};

struct FakeVfioRange {
  uint64_t start, end;  // inclusive, as vfio_iova_range
};

class FakeVfioKernel final : public pci::Sys {
 public:
  // `dev_root`: the fake /dev (its vfio/ nodes are simulated); `sys_root`: the fake sysfs tree
  // (real files; named in the trace as $SYS, and other paths next to it as $TMP).
  FakeVfioKernel(std::string dev_root, std::string sys_root);
  ~FakeVfioKernel() override;

  // Groups and functions. A group is viable unless told otherwise.
  void add_group(int id, bool viable = true);
  void add_function(int group, FakeVfioFunction f);
  void set_group_viable(int id, bool viable);
  // No-IOMMU mode: groups appear as vfio/noiommu-N and the container offers only
  // VFIO_NOIOMMU_IOMMU.
  void set_no_iommu(bool on) { no_iommu_ = on; }
  void set_iova_ranges(std::vector<FakeVfioRange> ranges) { iova_ranges_ = std::move(ranges); }
  void set_dma_entry_limit(uint32_t n) { dma_entry_limit_ = n; }

  // The next call of `step` fails with -err. Steps: an ioctl name ("VFIO_GROUP_GET_DEVICE_FD"),
  // "open:<path relative to dev root>", "mmap:BAR<n>", "pread:config" (a short read, err ignored),
  // "write:$SYS/<attribute path>".
  void fail_next(const std::string& step, int err);

  // The device side: raise MSI vector 0 of `bdf` (false when no eventfd is registered), and DMA
  // through the IOMMU: the host bytes behind [iova, iova + n) or nullptr (a recorded fault).
  bool raise_irq(const std::string& bdf);
  uint8_t* device_dma(uint64_t iova, uint64_t n);
  std::span<uint8_t> bar_memory(const std::string& bdf, int bar);
  const std::vector<uint8_t>& config(const std::string& bdf) const;
  bool was_reset(const std::string& bdf) const;

  const std::string& trace() const { return trace_; }
  void clear_trace() { trace_.clear(); }
  const std::vector<std::string>& violations() const { return violations_; }
  const std::vector<std::string>& dma_faults() const { return dma_faults_; }
  // What is still open: fake fds, DMA mappings, BAR mappings (empty after a clean release).
  std::vector<std::string> leaks() const;
  uint64_t ioctl_count() const { return ioctls_; }
  size_t dma_mappings() const;

  // pci::Sys
  int open(const std::string& path, int flags) override;
  int close(int fd) override;
  int ioctl(int fd, unsigned long request, void* arg) override;
  ssize_t pread(int fd, void* buf, size_t n, off_t off) override;
  ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) override;
  ssize_t read(int fd, void* buf, size_t n) override;
  ssize_t write(int fd, const void* buf, size_t n) override;
  void* mmap(size_t length, int prot, int flags, int fd, off_t off, int& err) override;
  int munmap(void* addr, size_t length) override;
  // Recorded, never refused (the host's RLIMIT_MEMLOCK is not the simulated machine's).
  int mlock(const void* addr, size_t length) override;
  ssize_t readlink(const std::string& path, std::string& target) override;
  int eventfd(unsigned initval, int flags) override;
  int poll(struct pollfd* fds, nfds_t n, int timeout_ms) override;
  int flock(int fd, int operation) override;

  struct Impl;

 private:
  std::unique_ptr<Impl> p_;
  std::string trace_;
  std::vector<std::string> violations_;
  std::vector<std::string> dma_faults_;
  std::vector<FakeVfioRange> iova_ranges_{{0, (uint64_t{1} << 48) - 1}};
  uint32_t dma_entry_limit_ = 65535;  // vfio_iommu_type1's dma_entry_limit default
  bool no_iommu_ = false;
  uint64_t ioctls_ = 0;
};

}  // namespace rawgpu::sim
