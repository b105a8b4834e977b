#include "rawgpu/drivers/amd/discover.h"

#include <chrono>
#include <cstring>

#include "rawgpu/autogen/amd/discovery.h"
#include "rawgpu/autogen/amd/regs/mp_13_0_0.h"
#include "rawgpu/autogen/amd/regs/nbio_4_3_0.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/poll.h"

namespace rawgpu::drivers::amd {
namespace {

using nbio = autogen::amd::nbio_4_3_0;  // the same offsets in nbif_6_3_1
// The fixed addresses of amd.md §3.1 (before discovery no base is known): NBIO segment 0 is at
// dword 0 and segment 2 at 0xD20, MP0 segment 0 at 0x16000, on every SOC15 board rawgpu drives.
constexpr uint32_t kMemsize = 0xD20 + nbio::RCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE::kInfo.offset;
constexpr uint32_t kIfwiStatus = 0x16000 + autogen::amd::mp_13_0_0::MP0_SMN_C2PMSG_33::kInfo.offset;
static_assert(kMemsize == 0xDE3 && kIfwiStatus == 0x16061);
static_assert(nbio::BIF_BX_PF0_MM_INDEX::kInfo.base_idx == 0 &&
              nbio::BIF_BX_PF0_MM_DATA::kInfo.base_idx == 0 &&
              nbio::BIF_BX_PF0_MM_INDEX_HI::kInfo.base_idx == 0);
constexpr uint64_t kMmIndex = uint64_t{nbio::BIF_BX_PF0_MM_INDEX::kInfo.offset} * 4;
constexpr uint64_t kMmData = uint64_t{nbio::BIF_BX_PF0_MM_DATA::kInfo.offset} * 4;
constexpr uint64_t kMmIndexHi = uint64_t{nbio::BIF_BX_PF0_MM_INDEX_HI::kInfo.offset} * 4;
constexpr uint32_t kIfwiDone = 1u << 31;

}  // namespace

void read_vram_indirect(pci::Mmio& regs, uint64_t off, std::span<uint8_t> out) {
  uint32_t hi = ~0u;
  for (size_t i = 0; i + 4 <= out.size(); i += 4) {
    const uint64_t a = off + i;
    if (static_cast<uint32_t>(a >> 31) != hi) {
      hi = static_cast<uint32_t>(a >> 31);
      regs.wr32(kMmIndexHi, hi);
    }
    using Index = nbio::BIF_BX_PF0_MM_INDEX;
    regs.wr32(kMmIndex, Index::encode(Index::MM_OFFSET(a & 0x7fffffffu) | Index::MM_APER(1)));
    const uint32_t v = regs.rd32(kMmData);
    std::memcpy(out.data() + i, &v, 4);
  }
}

Result<DiscoveryRead> read_discovery(pci::PciDevice& dev, const DiscoverOptions& options) {
  const std::string name = dev.name();
  pci::Mmio* regs = RG_TRY(dev.map_bar(5));
  // 1. The firmware's init.
  uint32_t ifwi = 0;
  PollOptions po;
  po.timeout = std::chrono::seconds(2);
  po.clock = &dev.clock();
  Status ready = poll_until(
      "MP0_SMN_C2PMSG_33 bit 31 (the GPU firmware's init done)",
      [&]() -> Result<bool> {
        ifwi = regs->rd32(uint64_t{kIfwiStatus} * 4);
        if (pci::reads_all_ones(ifwi)) return pci::fell_off_bus(name, "MP0_SMN_C2PMSG_33");
        return (ifwi & kIfwiDone) != 0;
      },
      po, [&] { return strformat("MP0_SMN_C2PMSG_33 = 0x%08x", ifwi); });
  if (!ready)
    return std::move(ready.error())
        .with_hint(
            "the board's firmware has not finished its init: a USB4/Thunderbolt card "
            "may need more time or a power cycle; a GPU left hung needs a function reset "
            "(echo 1 > /sys/bus/pci/devices/BDF/reset) or a power cycle");
  // 2. VRAM size.
  const uint32_t mib = regs->rd32(uint64_t{kMemsize} * 4);
  if (pci::reads_all_ones(mib)) return pci::fell_off_bus(name, "RCC_CONFIG_MEMSIZE");
  if (mib == 0)
    return make_error(Errc::kHardware,
                      "%s: RCC_CONFIG_MEMSIZE reads 0: the GPU's firmware has not sized VRAM "
                      "(the GPU is not booted)",
                      name.c_str());
  DiscoveryRead r;
  r.vram_size = uint64_t{mib} << 20;
  if (r.vram_size < kDiscoveryOffsetFromTop)
    return make_error(Errc::kHardware, "%s: RCC_CONFIG_MEMSIZE says %u MiB of VRAM", name.c_str(),
                      mib);
  const uint64_t at = r.vram_size - kDiscoveryOffsetFromTop;
  // 3. BAR0 over all of VRAM.
  pci::BarInfo b0 = RG_TRY(dev.bar(0));
  if (options.resize_bar0 && b0.size < r.vram_size) {
    Result<uint64_t> want = next_pow2(r.vram_size);
    Status st = want.ok() ? dev.resize_bar(0, *want) : Status(want.error());
    if (st.ok())
      b0 = RG_TRY(dev.bar(0));
    else
      r.resize_error = st.error().message();
  }
  // 4. The binary: header first, then binary_size bytes.
  pci::Mmio* vram = nullptr;
  if (b0.size >= r.vram_size) vram = RG_TRY(dev.map_bar(0));
  r.through_bar0 = vram != nullptr;
  auto read = [&](uint64_t off, std::span<uint8_t> out) {
    if (vram != nullptr)
      vram->read(off, out);
    else
      read_vram_indirect(*regs, off, out);
  };
  namespace dt = autogen::amd::discovery;
  std::vector<uint8_t> head((sizeof(dt::binary_header) + 3) / 4 * 4);
  read(at, head);
  dt::binary_header bh;
  std::memcpy(static_cast<void*>(&bh), head.data(), sizeof bh);
  uint64_t n = head.size();
  if (bh.binary_signature == dt::BINARY_SIGNATURE && bh.binary_size > n)
    n = std::min<uint64_t>((uint64_t{bh.binary_size} + 3) / 4 * 4, kDiscoveryMaxBytes);
  r.bytes.resize(n);
  std::memcpy(r.bytes.data(), head.data(), head.size());
  if (n > head.size()) read(at + head.size(), std::span<uint8_t>(r.bytes).subspan(head.size()));
  // 5. Parse.
  r.discovery =
      RG_TRY_CTX(parse_discovery(r.bytes),
                 "%s: the IP discovery table at VRAM offset 0x%llx (read through %s)", name.c_str(),
                 static_cast<unsigned long long>(at), r.through_bar0 ? "BAR0" : "MM_INDEX/MM_DATA");
  return r;
}

}  // namespace rawgpu::drivers::amd
