// Fuzz target for the AMD IP discovery parser (drivers/amd/discovery.h): any bytes either parse
// into a self-consistent table (every IP's base count within bounds, harvest flags matching
// the harvest list, derived counts computable, the summary printable) or fail with a kParse /
// kUnsupported error and a message. The first input byte optionally selects a valid simulated
// table to mutate from (so the fuzzer reaches the inner tables past the checksums): the rest
// XORs into it and the checksums are recomputed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "rawgpu/autogen/amd/discovery.h"
#include "rawgpu/drivers/amd/discovery.h"
#include "rawgpu/sim/discovery_table.h"

namespace {
namespace dt = rawgpu::autogen::amd::discovery;

void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_discovery invariant violated: %s\n", what);
    std::abort();
  }
}

void check(std::span<const uint8_t> bytes) {
  using namespace rawgpu;
  auto d = drivers::amd::parse_discovery(bytes);
  if (!d.ok()) {
    require(d.error().code() == Errc::kParse || d.error().code() == Errc::kUnsupported,
            "error code");
    require(!d.error().message().empty(), "error message");
    return;
  }
  require(d->binary_bytes <= bytes.size(), "binary inside the input");
  require(d->num_dies >= 1 && d->num_dies <= 16, "die count");
  for (const auto& b : d->ips) {
    require(b.bases.size() <= 32, "base count");
    bool listed = false;
    for (const auto& h : d->harvest)
      listed = listed || (h.hw_id == b.hw_id && h.instance == b.instance);
    require(!listed || b.harvested, "harvest list applied");
    for (size_t k = 0; k < b.bases.size(); ++k) {
      auto a = b.reg_address("R", 1, static_cast<uint32_t>(k));
      require(a.ok(), "in-range segment resolves");
    }
    require(!b.reg_address("R", 1, static_cast<uint32_t>(b.bases.size())).ok(),
            "out-of-range segment refused");
  }
  if (d->gc) (void)d->gc->cu_count();
  require(!drivers::amd::describe(*d).empty(), "summary");
}

// Recomputes the checksums of a mutated valid table (wherever the headers still point inside).
void fix_checksums(std::vector<uint8_t>& b) {
  if (b.size() < sizeof(dt::binary_header)) return;
  dt::binary_header bh;
  std::memcpy(static_cast<void*>(&bh), b.data(), sizeof bh);
  auto sum = [&](size_t off, size_t n) -> uint16_t {
    if (off > b.size() || n > b.size() - off) return 0;
    return rawgpu::drivers::amd::discovery_checksum(std::span<const uint8_t>(b).subspan(off, n));
  };
  const size_t ip = bh.table_list[dt::IP_DISCOVERY].offset;
  if (ip + sizeof(dt::ip_discovery_header) <= b.size()) {
    dt::ip_discovery_header ih;
    std::memcpy(static_cast<void*>(&ih), b.data() + ip, sizeof ih);
    bh.table_list[dt::IP_DISCOVERY].checksum = sum(ip, ih.size);
  }
  const size_t gc = bh.table_list[dt::GC].offset;
  if (gc + sizeof(dt::gpu_info_header) <= b.size()) {
    dt::gpu_info_header gh;
    std::memcpy(static_cast<void*>(&gh), b.data() + gc, sizeof gh);
    bh.table_list[dt::GC].checksum = sum(gc, gh.size);
  }
  bh.table_list[dt::HARVEST_INFO].checksum =
      sum(bh.table_list[dt::HARVEST_INFO].offset, sizeof(dt::harvest_table));
  constexpr size_t kFrom = offsetof(dt::binary_header, binary_checksum) + 2;
  bh.binary_checksum = bh.binary_size >= kFrom ? sum(kFrom, bh.binary_size - kFrom) : 0;
  std::memcpy(b.data(), &bh, sizeof bh);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> in(data, size);
  check(in);  // the raw bytes
  if (size < 1) return 0;
  static const uint32_t kProfiles[] = {110000, 120001, 90403};
  const uint8_t sel = data[0];
  if (sel >= 3) return 0;
  std::vector<uint8_t> t =
      rawgpu::sim::build_discovery_table(rawgpu::sim::discovery_spec(kProfiles[sel]).value());
  for (size_t i = 1; i < size && i - 1 < t.size(); ++i) t[i - 1] ^= data[i];
  fix_checksums(t);
  check(t);
  return 0;
}
