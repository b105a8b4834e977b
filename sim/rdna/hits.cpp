// Per-opcode hit counters of the RDNA emulator (Options::count_opcodes).
#include <algorithm>

#include "rawgpu/sim/rdna.h"

namespace rawgpu::sim::rdna {

void Emulator::count_hit(const OpcodeInfo* info, const OpcodeInfo* info_y) {
  const std::span<const OpcodeInfo> table = opcode_table(target_);
  if (hits_.size() != table.size()) hits_.assign(table.size(), 0);
  for (const OpcodeInfo* i : {info, info_y})
    if (i != nullptr && i >= table.data() && i < table.data() + table.size())
      ++hits_[size_t(i - table.data())];
}

std::vector<OpcodeHits> Emulator::opcode_hits() const {
  const std::span<const OpcodeInfo> table = opcode_table(target_);
  std::vector<OpcodeHits> out;
  for (size_t i = 0; i < hits_.size() && i < table.size(); ++i)
    if (hits_[i] != 0) out.push_back({&table[i], hits_[i]});
  std::sort(out.begin(), out.end(), [](const OpcodeHits& a, const OpcodeHits& b) {
    return a.count != b.count ? a.count > b.count : a.info < b.info;  // ties: table order
  });
  return out;
}

}  // namespace rawgpu::sim::rdna
