#include "rawgpu/drivers/amd/ih.h"

#include <iterator>

#include "rawgpu/autogen/amd/ih_ids.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_12_0_0.h"
#include "rawgpu/autogen/amd/regs/gc_9_4_3.h"
#include "rawgpu/autogen/amd/regs/osssys_4_4_2.h"
#include "rawgpu/autogen/amd/regs/osssys_6_0_0.h"
#include "rawgpu/autogen/amd/regs/osssys_7_0_0.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"

namespace rawgpu::drivers::amd {
namespace {

namespace ag = autogen::amd;
namespace soc15 = autogen::amd::soc15_ih_clientid;
namespace soc21 = autogen::amd::soc21_ih_clientid;
namespace gfx9 = autogen::amd::irqsrcs_gfx_9_0;
namespace gfx10 = autogen::amd::irqsrcs_gfx_10_1;
namespace gfx11 = autogen::amd::irqsrcs_gfx_11_0_0;
namespace vmc = autogen::amd::irqsrcs_vmc_1_0;
namespace sdma4 = autogen::amd::irqsrcs_sdma0_4_0;

// The ring pointers: one field layout for every OSSSYS version the targets have.
using Wptr = ag::osssys_6_0_0::IH_RB_WPTR;
using Rptr = ag::osssys_6_0_0::IH_RB_RPTR;
template <class A, class B>
constexpr bool same_field(A a, B b) {
  return a.shift == b.shift && a.width == b.width;
}
static_assert(same_field(Wptr::OFFSET, ag::osssys_7_0_0::IH_RB_WPTR::OFFSET) &&
              same_field(Wptr::OFFSET, ag::osssys_4_4_2::IH_RB_WPTR::OFFSET) &&
              same_field(Wptr::RB_OVERFLOW, ag::osssys_7_0_0::IH_RB_WPTR::RB_OVERFLOW) &&
              same_field(Wptr::RB_OVERFLOW, ag::osssys_4_4_2::IH_RB_WPTR::RB_OVERFLOW) &&
              same_field(Rptr::OFFSET, ag::osssys_7_0_0::IH_RB_RPTR::OFFSET) &&
              same_field(Rptr::OFFSET, ag::osssys_4_4_2::IH_RB_RPTR::OFFSET) &&
              same_field(Rptr::OFFSET, Wptr::OFFSET));
// OFFSET holds bytes in place: the field starts at bit 2 because offsets are dword-aligned.
static_assert(Wptr::OFFSET.shift == 2 && kIhMaxRingBytes == (Wptr::OFFSET.max_value() + 1u) * 4u);
constexpr uint32_t kWptrKnownBits = Wptr::RB_OVERFLOW.mask() | Wptr::OFFSET.mask() |
                                    Wptr::RB_LEFT_NONE.mask() | Wptr::RB_MAY_OVERFLOW.mask();
constexpr uint32_t kMinRingBytes = 2 * kIhEntryBytes;

bool is_soc21(uint32_t gc_version) { return gc_version >= 110000; }

// The upstream name after `marker` ("SOC21_IH_CLIENTID_GFX" -> "GFX").
std::string_view after(std::string_view name, std::string_view marker) {
  const size_t at = name.find(marker);
  return at == std::string_view::npos ? name : name.substr(at + marker.size());
}

// The first upstream name of `id` whose name starts with `prefix`, or empty.
std::string_view find_name(std::span<const ag::IhIdName> names, uint32_t id,
                           std::string_view prefix = {}) {
  for (const ag::IhIdName& n : names) {
    const std::string_view s = n.name;
    if (n.id == id && s.starts_with(prefix)) return s;
  }
  return {};
}

// Which source-id header applies to a client.
enum class Family : uint8_t { kNone, kGfx9, kGfx10, kGfx11, kVmc, kUtcl2, kSdma4 };

bool is_soc15_sdma(uint32_t client) {
  switch (client) {
    case soc15::SOC15_IH_CLIENTID_SDMA0:
    case soc15::SOC15_IH_CLIENTID_SDMA1:
    case soc15::SOC15_IH_CLIENTID_SDMA2:
    case soc15::SOC15_IH_CLIENTID_SDMA3:
    case soc15::SOC15_IH_CLIENTID_SDMA4:
    case soc15::SOC15_IH_CLIENTID_SDMA5:
    case soc15::SOC15_IH_CLIENTID_SDMA6:
    case soc15::SOC15_IH_CLIENTID_SDMA7: return true;
    default: return false;
  }
}

Family family(uint32_t gc_version, uint32_t client) {
  if (is_soc21(gc_version)) {
    switch (client) {
      case soc21::SOC21_IH_CLIENTID_GFX:
      case soc21::SOC21_IH_CLIENTID_GRBM_CP:
      case soc21::SOC21_IH_CLIENTID_RLC: return Family::kGfx11;
      case soc21::SOC21_IH_CLIENTID_VMC: return Family::kVmc;
      default: return Family::kNone;
    }
  }
  const bool gc9 = gc_version >= 90000 && gc_version < 100000;
  const bool gc10 = gc_version >= 100000;
  switch (client) {
    case soc15::SOC15_IH_CLIENTID_GRBM_CP:
    case soc15::SOC15_IH_CLIENTID_RLC:
    case soc15::SOC15_IH_CLIENTID_SE0SH:
    case soc15::SOC15_IH_CLIENTID_SE1SH:
    case soc15::SOC15_IH_CLIENTID_SE2SH:
    case soc15::SOC15_IH_CLIENTID_SE3SH:
      return gc9 ? Family::kGfx9 : gc10 ? Family::kGfx10 : Family::kNone;
    case soc15::SOC15_IH_CLIENTID_VMC:
    case soc15::SOC15_IH_CLIENTID_VMC1: return Family::kVmc;
    case soc15::SOC15_IH_CLIENTID_UTCL2: return Family::kUtcl2;
    default: return gc9 && is_soc15_sdma(client) ? Family::kSdma4 : Family::kNone;
  }
}

std::string_view source_name(Family f, uint32_t source) {
  std::string_view n;
  switch (f) {
    case Family::kNone: break;
    case Family::kGfx9: n = find_name(gfx9::kNames, source); break;
    case Family::kGfx10: n = find_name(gfx10::kNames, source); break;
    case Family::kGfx11: n = find_name(gfx11::kNames, source); break;
    case Family::kVmc: n = find_name(vmc::kNames, source, "VMC_"); break;
    case Family::kUtcl2: n = find_name(vmc::kNames, source, "UTCL2_"); break;
    case Family::kSdma4: n = find_name(sdma4::kNames, source); break;
  }
  return n.empty() ? n : after(n, "__SRCID__");
}

uint32_t bits(uint32_t v, unsigned lo, unsigned width) {
  return static_cast<uint32_t>(extract_bits(v, lo, width));
}

SqInterrupt decode_sq(const IhEntry& e, bool soc21) {
  const uint32_t c0 = e.src_data[0], c1 = e.src_data[1];
  SqInterrupt sq;
  if (soc21) {
    sq.encoding = bits(c1, 6, 2);
    sq.error_type = bits(c0, 21, 4);
    sq.has_location = sq.encoding == 1 || sq.encoding == 2;
    if (sq.has_location) {
      sq.wave = bits(c0, 27, 5);
      sq.simd = bits(c1, 0, 2);
      sq.wgp = bits(c1, 2, 4);
    }
  } else {
    sq.encoding = bits(c0, 26, 2);
    const uint32_t packed = (c0 & 0xfffu) | ((c0 >> 16) & 0xf000u) | ((c1 << 16) & 0xff0000u);
    sq.error_type = bits(packed, 20, 4);
  }
  return sq;
}

// Every field of register R in table order, CID in hex.
template <class R>
std::string fields_of(uint32_t status) {
  std::string s;
  for (const autogen::FieldDesc& f : R::kFields) {
    const uint32_t v = bits(status, f.shift, f.width);
    const bool is_cid = std::string_view(f.name) == "CID";
    s += strformat(is_cid ? "%s%s=0x%02x" : "%s%s=%u", s.empty() ? "" : " ", f.name, v);
  }
  return s;
}

uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

Status check_ring(std::span<const uint8_t> ring) {
  const size_t n = ring.size();
  if (n < kMinRingBytes || n > kIhMaxRingBytes || (n & (n - 1)) != 0)
    return make_error(Errc::kInvalidArgument,
                      "IH ring of %zu bytes: the size must be a power of two from %u to %u bytes "
                      "(IH_RB_WPTR.OFFSET addresses 18 bits)",
                      n, kMinRingBytes, kIhMaxRingBytes);
  return ok_status();
}

Status check_rptr(size_t ring_bytes, uint32_t rptr) {
  if (rptr >= ring_bytes || rptr % kIhEntryBytes != 0)
    return make_error(Errc::kInvalidArgument,
                      "IH read pointer 0x%x is %s the %zu-byte ring (entries are %u bytes)", rptr,
                      rptr >= ring_bytes ? "beyond" : "not on an entry boundary of", ring_bytes,
                      kIhEntryBytes);
  return ok_status();
}

}  // namespace

IhEntry decode_ih_entry(std::span<const uint32_t, kIhEntryDwords> dw) {
  IhEntry e;
  e.client_id = bits(dw[0], 0, 8);
  e.source_id = bits(dw[0], 8, 8);
  e.ring_id = bits(dw[0], 16, 8);
  e.vmid = bits(dw[0], 24, 4);
  e.vmid_type = bits(dw[0], 31, 1);
  e.timestamp = uint64_t{dw[1]} | (uint64_t{bits(dw[2], 0, 16)} << 32);
  e.timestamp_src = bits(dw[2], 31, 1);
  e.pasid = bits(dw[3], 0, 16);
  e.node_id = bits(dw[3], 16, 8);
  for (unsigned i = 0; i < 4; ++i) e.src_data[i] = dw[4 + i];
  return e;
}

std::array<uint32_t, kIhEntryDwords> encode_ih_entry(const IhEntry& e) {
  std::array<uint32_t, kIhEntryDwords> dw{};
  dw[0] = (e.client_id & 0xffu) | ((e.source_id & 0xffu) << 8) | ((e.ring_id & 0xffu) << 16) |
          ((e.vmid & 0xfu) << 24) | ((e.vmid_type & 1u) << 31);
  dw[1] = static_cast<uint32_t>(e.timestamp);
  dw[2] = static_cast<uint32_t>((e.timestamp >> 32) & 0xffffu) | ((e.timestamp_src & 1u) << 31);
  dw[3] = (e.pasid & 0xffffu) | ((e.node_id & 0xffu) << 16);
  for (unsigned i = 0; i < 4; ++i) dw[4 + i] = e.src_data[i];
  return dw;
}

std::string_view ih_client_name(uint32_t client) { return ih_client_name(110000, client); }

std::string_view ih_client_name(uint32_t gc_version, uint32_t client) {
  const std::string_view n =
      is_soc21(gc_version) ? find_name(soc21::kNames, client) : find_name(soc15::kNames, client);
  return n.empty() ? n : after(n, "_CLIENTID_");
}

std::string_view ih_source_name(uint32_t gc_version, uint32_t client, uint32_t source) {
  return source_name(family(gc_version, client), source);
}

std::string_view ih_kind_name(IhKind kind) {
  switch (kind) {
    case IhKind::kEndOfPipe: return "end_of_pipe";
    case IhKind::kSdmaTrap: return "sdma_trap";
    case IhKind::kVmFault: return "vm_fault";
    case IhKind::kSqInterrupt: return "sq_interrupt";
    case IhKind::kCpBadOpcode: return "cp_bad_opcode";
    case IhKind::kCpPrivReg: return "cp_priv_reg";
    case IhKind::kCpPrivInstr: return "cp_priv_instr";
    case IhKind::kOther: return "other";
  }
  return "other";
}

std::string_view sq_encoding_name(uint32_t encoding) {
  static constexpr std::string_view kNames[] = {"auto", "wave", "error"};
  return encoding < std::size(kNames) ? kNames[encoding] : std::string_view{};
}

std::string_view sq_error_name(uint32_t error_type) {
  static constexpr std::string_view kNames[] = {"EDC_FUE", "ILLEGAL_INST", "MEMVIOL", "EDC_FED"};
  return error_type < std::size(kNames) ? kNames[error_type] : std::string_view{};
}

IhCause classify_ih_entry(const IhEntry& e, uint32_t gc_version) {
  IhCause c;
  const uint32_t s = e.source_id;
  const Family f = family(gc_version, e.client_id);
  auto vm_fault = [&] {
    c.kind = IhKind::kVmFault;
    c.fault_address = (uint64_t{e.src_data[0]} << 12) | (uint64_t{e.src_data[1] & 0xfu} << 44);
  };
  auto sq = [&] {
    c.kind = IhKind::kSqInterrupt;
    if (f == Family::kGfx10) return;  // GC 10's SQ words are not decoded
    c.sq = decode_sq(e, f == Family::kGfx11);
    c.error = !(c.sq->encoding == 0 || c.sq->encoding == 1);
  };
  switch (f) {
    case Family::kNone: break;
    case Family::kGfx9:
    case Family::kGfx10:
    case Family::kGfx11: {
      // The CP and SQ ids are the same in the three gfx headers; the static_asserts say so.
      static_assert(
          gfx9::GFX_9_0__SRCID__CP_EOP_INTERRUPT == gfx11::GFX_11_0_0__SRCID__CP_EOP_INTERRUPT &&
          gfx10::GFX_10_1__SRCID__CP_EOP_INTERRUPT == gfx11::GFX_11_0_0__SRCID__CP_EOP_INTERRUPT &&
          gfx9::GFX_9_0__SRCID__SQ_INTERRUPT_ID == gfx11::GFX_11_0_0__SRCID__SQ_INTERRUPT_ID &&
          gfx10::GFX_10_1__SRCID__SQ_INTERRUPT_ID == gfx11::GFX_11_0_0__SRCID__SQ_INTERRUPT_ID &&
          gfx9::GFX_9_0__SRCID__CP_BAD_OPCODE_ERROR ==
              gfx11::GFX_11_0_0__SRCID__CP_BAD_OPCODE_ERROR &&
          gfx10::GFX_10_1__SRCID__CP_BAD_OPCODE_ERROR ==
              gfx11::GFX_11_0_0__SRCID__CP_BAD_OPCODE_ERROR &&
          gfx9::GFX_9_0__SRCID__CP_PRIV_REG_FAULT == gfx11::GFX_11_0_0__SRCID__CP_PRIV_REG_FAULT &&
          gfx10::GFX_10_1__SRCID__CP_PRIV_REG_FAULT ==
              gfx11::GFX_11_0_0__SRCID__CP_PRIV_REG_FAULT &&
          gfx9::GFX_9_0__SRCID__CP_PRIV_INSTR_FAULT ==
              gfx11::GFX_11_0_0__SRCID__CP_PRIV_INSTR_FAULT &&
          gfx10::GFX_10_1__SRCID__CP_PRIV_INSTR_FAULT ==
              gfx11::GFX_11_0_0__SRCID__CP_PRIV_INSTR_FAULT);
      if (s == gfx11::GFX_11_0_0__SRCID__CP_EOP_INTERRUPT) {
        c.kind = IhKind::kEndOfPipe;
        c.error = false;
      } else if (s == gfx11::GFX_11_0_0__SRCID__SQ_INTERRUPT_ID) {
        sq();
      } else if (s == gfx11::GFX_11_0_0__SRCID__CP_BAD_OPCODE_ERROR) {
        c.kind = IhKind::kCpBadOpcode;
      } else if (s == gfx11::GFX_11_0_0__SRCID__CP_PRIV_REG_FAULT) {
        c.kind = IhKind::kCpPrivReg;
      } else if (s == gfx11::GFX_11_0_0__SRCID__CP_PRIV_INSTR_FAULT) {
        c.kind = IhKind::kCpPrivInstr;
      } else if (f == Family::kGfx11 && s == gfx11::GFX_11_0_0__SRCID__UTCL2_FAULT) {
        vm_fault();
      } else if (f == Family::kGfx11 && s == gfx11::GFX_11_0_0__SRCID__SDMA_TRAP) {
        c.kind = IhKind::kSdmaTrap;
        c.error = false;
      }
      break;
    }
    case Family::kVmc:
      if (s == vmc::VMC_1_0__SRCID__VM_FAULT) vm_fault();
      break;
    case Family::kUtcl2:
      if (s == vmc::UTCL2_1_0__SRCID__FAULT) vm_fault();
      break;
    case Family::kSdma4:
      if (s == sdma4::SDMA0_4_0__SRCID__SDMA_TRAP) {
        c.kind = IhKind::kSdmaTrap;
        c.error = false;
      }
      break;
  }
  return c;
}

std::string describe_fault_status(uint32_t gc_version, uint32_t status) {
  if (gc_version >= 120000 && gc_version < 130000)
    return fields_of<ag::gc_12_0_0::GCVM_L2_PROTECTION_FAULT_STATUS_LO32>(status);
  if (gc_version >= 110000 && gc_version < 120000)
    return fields_of<ag::gc_11_0_0::GCVM_L2_PROTECTION_FAULT_STATUS>(status);
  if (gc_version >= 90400 && gc_version < 90500)
    return fields_of<ag::gc_9_4_3::VM_L2_PROTECTION_FAULT_STATUS>(status);
  return strformat("0x%08x (no register table describes the fault status of GC %u.%u.%u)", status,
                   gc_version / 10000, gc_version / 100 % 100, gc_version % 100);
}

std::string describe(const IhEntry& e, uint32_t gc_version) {
  const std::string_view cn = ih_client_name(gc_version, e.client_id);
  const std::string_view sn = ih_source_name(gc_version, e.client_id, e.source_id);
  std::string s = cn.empty() ? strformat("client 0x%02x", e.client_id) : std::string(cn);
  s += sn.empty() ? strformat("/source 0x%02x", e.source_id) : "/" + std::string(sn);
  s += strformat(" ring %u vmid %u pasid %u node %u ts 0x%llx", e.ring_id, e.vmid, e.pasid,
                 e.node_id, static_cast<unsigned long long>(e.timestamp));
  if (e.vmid_type) s += " vmid_type 1";
  if (e.timestamp_src) s += " ts_src 1";
  s += strformat(" ctx 0x%08x 0x%08x 0x%08x 0x%08x", e.src_data[0], e.src_data[1], e.src_data[2],
                 e.src_data[3]);
  const IhCause c = classify_ih_entry(e, gc_version);
  if (c.kind == IhKind::kVmFault) {
    s += strformat(": VM fault at 0x%llx", static_cast<unsigned long long>(c.fault_address));
  } else if (c.kind == IhKind::kSqInterrupt && c.sq) {
    const SqInterrupt& q = *c.sq;
    const std::string_view en = sq_encoding_name(q.encoding);
    s += en.empty() ? strformat(": SQ encoding %u", q.encoding) : ": SQ " + std::string(en);
    if (q.encoding == 2) {
      const std::string_view tn = sq_error_name(q.error_type);
      s += tn.empty() ? strformat(" type %u", q.error_type) : " " + std::string(tn);
    }
    if (q.has_location) s += strformat(" wave %u simd %u wgp %u", q.wave, q.simd, q.wgp);
  } else if (c.error) {
    s += ": error";
  }
  return s;
}

uint32_t ih_rptr_register(uint32_t rptr_bytes) {
  return Rptr::encode(Rptr::OFFSET((rptr_bytes >> 2) & Rptr::OFFSET.max_value()));
}

Result<IhRead> read_ih_ring(std::span<const uint8_t> ring, uint32_t wptr_reg, uint32_t rptr) {
  RG_TRY(check_ring(ring));
  RG_TRY(check_rptr(ring.size(), rptr));
  if (wptr_reg == 0xffffffffu)
    return make_error(Errc::kHardware,
                      "IH_RB_WPTR reads 0xffffffff: the device does not answer (gone from the "
                      "bus or in reset)");
  if ((wptr_reg & ~kWptrKnownBits) != 0)
    return make_error(Errc::kHardware, "IH_RB_WPTR 0x%08x has reserved bits 0x%08x set", wptr_reg,
                      wptr_reg & ~kWptrKnownBits);
  const uint32_t wptr = wptr_reg & Wptr::OFFSET.mask();  // bytes, in place
  if (wptr >= ring.size() || wptr % kIhEntryBytes != 0)
    return make_error(Errc::kHardware,
                      "IH_RB_WPTR 0x%08x: write offset 0x%x is %s the %zu-byte ring (entries are "
                      "%u bytes)",
                      wptr_reg, wptr,
                      wptr >= ring.size() ? "beyond" : "not on an entry boundary of", ring.size(),
                      kIhEntryBytes);
  IhRead out;
  out.overflow = Wptr::RB_OVERFLOW.get(wptr_reg) != 0;
  const size_t mask = ring.size() - 1;
  const size_t count = ((wptr - rptr) & mask) / kIhEntryBytes;
  out.entries.reserve(count);
  size_t at = rptr;
  for (size_t i = 0; i < count; ++i) {
    std::array<uint32_t, kIhEntryDwords> dw;
    for (unsigned d = 0; d < kIhEntryDwords; ++d) dw[d] = load_le32(ring.data() + at + 4 * d);
    out.entries.push_back(decode_ih_entry(dw));
    at = (at + kIhEntryBytes) & mask;
  }
  out.rptr = wptr;
  return out;
}

Result<IhRing> IhRing::create(std::span<const uint8_t> ring) {
  RG_TRY(check_ring(ring));
  return IhRing(ring);
}

Result<IhRead> IhRing::read(uint32_t wptr_reg) {
  IhRead r = RG_TRY_CTX(read_ih_ring(ring_, wptr_reg, rptr_), "while reading the IH ring");
  rptr_ = r.rptr;
  return r;
}

Status IhRing::set_rptr(uint32_t rptr) {
  RG_TRY(check_rptr(ring_.size(), rptr));
  rptr_ = rptr;
  return ok_status();
}

}  // namespace rawgpu::drivers::amd
