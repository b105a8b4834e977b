#include "rawgpu/memory/sysmem_tables.h"

#include <atomic>
#include <cstring>

#include "rawgpu/base/format.h"

namespace rawgpu::memory {

namespace {
constexpr uint64_t kPage = 4096;
}

Result<std::unique_ptr<SysmemTablePool>> SysmemTablePool::create(CpuAddr cpu, BusAddr bus,
                                                                 uint64_t size, bool snooped) {
  if (size == 0 || size % kPage != 0 || bus.raw() % kPage != 0 || cpu.raw() % kPage != 0)
    return make_error(Errc::kInvalidArgument,
                      "system-memory table pool: CPU %s, bus %s and size %s must be nonzero "
                      "4 KiB multiples",
                      cpu.to_string().c_str(), bus.to_string().c_str(), hex(size).c_str());
  if (bus.raw() + size < bus.raw())
    return make_error(Errc::kOverflow, "system-memory table pool %s + %s wraps past 2^64",
                      bus.to_string().c_str(), hex(size).c_str());
  TlsfConfig c;
  c.base = bus.raw();
  c.size = size;
  c.min_block = kPage;
  auto pool = RG_TRY(Tlsf::create(c));
  return std::unique_ptr<SysmemTablePool>(
      new SysmemTablePool(cpu, bus, size, snooped, std::move(pool)));
}

uint64_t* SysmemTablePool::words(VramAddr bus_addr, uint64_t bytes) {
  const uint64_t off = bus_addr.raw() - bus_.raw();
  RG_CHECK(bus_addr.raw() >= bus_.raw() && off % 8 == 0 && off < size_ && bytes <= size_ - off &&
               (bytes == 0 || off / kPage == (off + bytes - 1) / kPage),
           "system-memory table access %s + 0x%llx outside one page of the pool [%s, +%s)",
           hex(bus_addr.raw()).c_str(), static_cast<unsigned long long>(bytes),
           bus_.to_string().c_str(), hex(size_).c_str());
  return CpuAddr(cpu_ + off).as<uint64_t>();
}

void SysmemTablePool::zero(VramAddr bus_addr, uint64_t bytes) {
  const uint64_t off = bus_addr.raw() - bus_.raw();
  RG_CHECK(bus_addr.raw() >= bus_.raw() && off <= size_ && bytes <= size_ - off);
  std::memset(CpuAddr(cpu_ + off).as<void>(), 0, bytes);
}

// Snooped memory needs only ordering; for non-snooped (write-combined/uncached) mappings the
// fence also drains the CPU's write-combining buffers before the GPU is told to walk.
void SysmemTablePool::flush() { std::atomic_thread_fence(std::memory_order_seq_cst); }

Result<VramAddr> SysmemTablePool::alloc_table_page() {
  const uint64_t a = RG_TRY_CTX(pool_.alloc(kPage, kPage), "system-memory page-table pool");
  return VramAddr(a);
}

void SysmemTablePool::free_table_page(VramAddr page) {
  Status s = pool_.free(page.raw());
  RG_CHECK(s.ok(), "freeing table page %s: %s", page.to_string().c_str(),
           s.error().to_string().c_str());
}

}  // namespace rawgpu::memory
