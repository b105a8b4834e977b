#include "rawgpu/memory/phys_memory.h"

#include <atomic>
#include <cstring>

namespace rawgpu::memory {

namespace {
constexpr uint64_t kPage = 4096;
void check_access(VramAddr addr, uint64_t bytes, uint64_t size) {
  RG_CHECK(addr.raw() % 8 == 0 && bytes <= kPage && addr.raw() <= size &&
               bytes <= size - addr.raw() &&
               (bytes == 0 || addr.raw() / kPage == (addr.raw() + bytes - 1) / kPage),
           "physical access %s + 0x%llx outside one 4 KiB page of a %llu-byte memory",
           addr.to_string().c_str(), static_cast<unsigned long long>(bytes),
           static_cast<unsigned long long>(size));
}
}  // namespace

uint64_t* MappedVram::words(VramAddr addr, uint64_t bytes) {
  check_access(addr, bytes, size_);
  return CpuAddr(base_ + addr.raw()).as<uint64_t>();
}

void MappedVram::zero(VramAddr addr, uint64_t bytes) {
  RG_CHECK(addr.raw() <= size_ && bytes <= size_ - addr.raw());
  std::memset(CpuAddr(base_ + addr.raw()).as<void>(), 0, bytes);
}

void MappedVram::flush() { std::atomic_thread_fence(std::memory_order_seq_cst); }

uint64_t* SparseVram::words(VramAddr addr, uint64_t bytes) {
  check_access(addr, bytes, size_);
  auto& page = pages_[addr.raw() / kPage];
  if (!page) page = std::make_unique<uint64_t[]>(kPage / 8);  // value-initialized: zero
  return page.get() + (addr.raw() % kPage) / 8;
}

void SparseVram::zero(VramAddr addr, uint64_t bytes) {
  RG_CHECK(addr.raw() <= size_ && bytes <= size_ - addr.raw());
  const uint64_t first = addr.raw() / kPage, last = (addr.raw() + bytes + kPage - 1) / kPage;
  auto clear = [&](uint64_t p, std::unique_ptr<uint64_t[]>& page) {
    const uint64_t lo = std::max(addr.raw(), p * kPage),
                   hi = std::min(addr.raw() + bytes, (p + 1) * kPage);
    std::memset(reinterpret_cast<char*>(page.get()) + (lo - p * kPage), 0, hi - lo);
  };
  if (last - first > pages_.size()) {
    for (auto& [p, page] : pages_)
      if (p >= first && p < last) clear(p, page);
  } else {
    for (uint64_t p = first; p < last; ++p)
      if (auto it = pages_.find(p); it != pages_.end()) clear(p, it->second);
  }
}

uint64_t SparseVram::read64(VramAddr addr) const {
  auto it = pages_.find(addr.raw() / kPage);
  return it == pages_.end() ? 0 : it->second[(addr.raw() % kPage) / 8];
}

}  // namespace rawgpu::memory
