// Fuzz target for the IH ring (drivers/amd/ih.h). Input: byte 0 picks the GC version, byte 1
// the ring size (a power of two from 32 B to 4 KiB, up to 256 KiB with bit 6 set, or with bit 7
// set the size of the rest of the input), bytes 2..13 the IH_RB_WPTR value, the read pointer and a
// fault-status word (little-endian), the rest the ring's bytes (repeated to fill it). Every 32-byte
// chunk decodes, re-encodes and describes; the reader either returns exactly the entries between
// the pointers or a kInvalidArgument / kHardware error, and IhRing keeps its read pointer on
// errors.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "rawgpu/drivers/amd/ih.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::drivers::amd;

void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_ih invariant violated: %s\n", what);
    std::abort();
  }
}

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

std::array<uint32_t, kIhEntryDwords> dwords_at(std::span<const uint8_t> b, size_t off) {
  std::array<uint32_t, kIhEntryDwords> dw;
  for (unsigned d = 0; d < kIhEntryDwords; ++d) dw[d] = le32(b.data() + off + 4 * d);
  return dw;
}

void check_entry(const IhEntry& e, uint32_t gc) {
  require(e.client_id < 256 && e.source_id < 256 && e.ring_id < 256 && e.vmid < 16 &&
              e.vmid_type < 2 && e.timestamp < (uint64_t{1} << 48) && e.timestamp_src < 2 &&
              e.pasid < 65536 && e.node_id < 256,
          "field ranges");
  require(decode_ih_entry(encode_ih_entry(e)) == e, "encode/decode round trip");
  const IhCause c = classify_ih_entry(e, gc);
  require(!ih_kind_name(c.kind).empty(), "kind name");
  require(c.fault_address < (uint64_t{1} << 48) && (c.fault_address & 0xfff) == 0,
          "fault address is a 48-bit page address");
  require(c.kind != IhKind::kEndOfPipe || !c.error, "end of pipe is routine");
  if (c.sq) require(c.kind == IhKind::kSqInterrupt && c.sq->encoding < 4, "SQ fields");
  const std::string line = describe(e, gc);
  require(!line.empty() && line.find('\n') == std::string::npos, "one line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 14) return 0;
  static constexpr uint32_t kGcs[] = {90403,  90400,  100300, 110000, 110003,
                                      120000, 120001, 0,      130000, 0xffffffffu};
  const uint32_t gc = kGcs[data[0] % std::size(kGcs)];
  const uint32_t wptr = le32(data + 2), rptr = le32(data + 6), status = le32(data + 10);
  const std::span<const uint8_t> rest(data + 14, size - 14);

  require(!describe_fault_status(gc, status).empty(), "fault status text");
  for (size_t off = 0; off + kIhEntryBytes <= rest.size() && off < 8 * kIhEntryBytes;
       off += kIhEntryBytes)
    check_entry(decode_ih_entry(dwords_at(rest, off)), gc);

  // Rings up to 4 KiB unless bit 6 asks for the large ones (reading 8K entries is slow).
  const unsigned shift = (data[1] & 0x40) ? data[1] % 14u : data[1] % 8u;
  const size_t ring_bytes = (data[1] & 0x80) ? rest.size() : size_t{32} << shift;
  std::vector<uint8_t> ring(ring_bytes);
  for (size_t at = 0; at < ring.size() && !rest.empty(); at += rest.size())
    std::memcpy(ring.data() + at, rest.data(), std::min(rest.size(), ring.size() - at));

  auto r = read_ih_ring(ring, wptr, rptr);
  if (!r.ok()) {
    require(r.error().is(Errc::kInvalidArgument) || r.error().is(Errc::kHardware), "error code");
    require(!r.error().message().empty(), "error message");
  } else {
    const size_t mask = ring.size() - 1;
    require(ring.size() >= 64 && (ring.size() & mask) == 0, "accepted ring size");
    require(r->rptr == (wptr & 0x3fffcu) && r->rptr < ring.size(), "new rptr is the wptr offset");
    require(r->overflow == ((wptr & 1u) != 0), "overflow flag");
    require(r->entries.size() == ((r->rptr - rptr) & mask) / kIhEntryBytes, "entry count");
    size_t at = rptr;
    for (size_t i = 0; i < r->entries.size(); ++i) {
      require(r->entries[i] == decode_ih_entry(dwords_at(ring, at)), "entry matches its slot");
      if (i < 4) check_entry(r->entries[i], gc);
      at = (at + kIhEntryBytes) & mask;
    }
  }

  auto ih = IhRing::create(ring);
  require(ih.ok() == (ring.size() >= 64 && ring.size() <= kIhMaxRingBytes &&
                      (ring.size() & (ring.size() - 1)) == 0),
          "IhRing accepts the sizes read_ih_ring accepts");
  if (ih.ok()) {
    const bool set = ih->set_rptr(rptr).ok();
    const uint32_t before = ih->rptr();
    require(set == (rptr < ring.size() && rptr % kIhEntryBytes == 0), "set_rptr validation");
    require(!set || before == rptr, "set_rptr sets");
    auto again = ih->read(wptr);
    require(!set || again.ok() == r.ok(), "IhRing agrees with read_ih_ring");
    require(again.ok() ? ih->rptr() == again->rptr : ih->rptr() == before,
            "read pointer advances only on success");
    require(ih->rptr_register() == ih->rptr(), "IH_RB_RPTR holds bytes in place");
  }
  return 0;
}
