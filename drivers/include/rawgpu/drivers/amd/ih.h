// The interrupt-handler (IH) ring, pure software (amd.md §7.3, §10.4; emulation.md §2.11): the
// 8-dword entries the OSSSYS IH block writes, the names of their client and source ids (from
// the generated autogen/amd/ih_ids.h), what an entry means (routine completion vs error, the SQ
// interrupt's wave and error fields, the VM fault address), the GC VM L2 fault-status register
// by field name, and a reader that takes the entries between the read pointer and the
// IH_RB_WPTR value out of a host view of the ring. Nothing here touches a device: the caller
// reads IH_RB_WPTR (or its writeback copy) and writes IH_RB_RPTR.
//
// GC versions are in IpVersion::packed() form (110000 = 11.0.0): below 11 the client ids are
// SOC15's, from 11 on SOC21's; source ids depend on the client and the GC generation.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::drivers::amd {

inline constexpr uint32_t kIhEntryDwords = 8;
inline constexpr uint32_t kIhEntryBytes = kIhEntryDwords * 4;

// One IH ring entry, decoded from its 8 little-endian dwords. Bits no field covers (dw0
// [30:28], dw2 [30:16], dw3 [31:24]) are ignored.
struct IhEntry {
  uint32_t client_id = 0;              // dw0 [7:0]
  uint32_t source_id = 0;              // dw0 [15:8]
  uint32_t ring_id = 0;                // dw0 [23:16]
  uint32_t vmid = 0;                   // dw0 [27:24]
  uint32_t vmid_type = 0;              // dw0 [31]
  uint64_t timestamp = 0;              // 48 bits: dw1, then dw2 [15:0] as bits 47:32
  uint32_t timestamp_src = 0;          // dw2 [31]
  uint32_t pasid = 0;                  // dw3 [15:0]
  uint32_t node_id = 0;                // dw3 [23:16]
  std::array<uint32_t, 4> src_data{};  // dw4..dw7: the source's context ids 0..3

  friend bool operator==(const IhEntry&, const IhEntry&) = default;
};

// Every bit pattern decodes.
IhEntry decode_ih_entry(std::span<const uint32_t, kIhEntryDwords> dw);
// The inverse for the fields' bits (values wider than a field are cut to it); the uncovered
// bits are zero. For tests and tools that build entries.
std::array<uint32_t, kIhEntryDwords> encode_ih_entry(const IhEntry& e);

// ---- names ---------------------------------------------------------------------------------

// A SOC21 (GC 11/12) client id's upstream name without its prefix ("GFX", "GRBM_CP"), or empty.
std::string_view ih_client_name(uint32_t client);
// The same for the client ids of `gc_version`: SOC15 below GC 11 (an id with aliases gives its
// first upstream name: 0x01 is "ACP", not "SDMA2"), SOC21 from GC 11 on.
std::string_view ih_client_name(uint32_t gc_version, uint32_t client);
// A source id's upstream name without its prefix ("CP_EOP_INTERRUPT", "UTCL2_FAULT",
// "VM_FAULT"), or empty: the ids of the GC generation's gfx header for the GFX, GRBM_CP and RLC
// clients (SOC15: GRBM_CP, SE0SH..SE3SH, RLC), VMC_1_0 for VMC (SOC15 also VMC1), UTCL2_1_0
// for SOC15's UTCL2, SDMA 4.x for SOC15's SDMA0..7 on GC 9. GC 12 uses GC 11's ids.
std::string_view ih_source_name(uint32_t gc_version, uint32_t client, uint32_t source);

// ---- what an entry means -------------------------------------------------------------------

enum class IhKind : uint8_t {
  kEndOfPipe,    // CP end-of-pipe (a RELEASE_MEM with an interrupt): routine
  kSdmaTrap,     // SDMA TRAP packet: routine
  kVmFault,      // UTCL2 / VMC page fault; details in GCVM_L2_PROTECTION_FAULT_STATUS
  kSqInterrupt,  // SQ_INTERRUPT_ID: see IhCause::sq
  kCpBadOpcode,  // CP_BAD_OPCODE_ERROR
  kCpPrivReg,    // CP_PRIV_REG_FAULT
  kCpPrivInstr,  // CP_PRIV_INSTR_FAULT
  kOther,        // any other client or source
};
std::string_view ih_kind_name(IhKind kind);  // "end_of_pipe", "vm_fault", ...

// The SQ interrupt's context words. SOC21 (GC 11/12): encoding = ctx1 [7:6], error type =
// ctx0 [24:21], wave = ctx0 [31:27], simd = ctx1 [1:0], wgp = ctx1 [5:2]. GC 9: encoding =
// ctx0 [27:26], error type = bits [23:20] of (ctx0 & 0xfff) | ((ctx0 >> 16) & 0xf000) |
// ((ctx1 << 16) & 0xff0000); no wave location.
struct SqInterrupt {
  uint32_t encoding = 0;      // 0 auto, 1 wave (s_sendmsg), 2 error, 3 reserved
  uint32_t error_type = 0;    // meaningful for encoding 2: 0 EDC_FUE, 1 ILLEGAL_INST, 2 MEMVIOL,
                              // 3 EDC_FED
  bool has_location = false;  // wave/simd/wgp are decoded (SOC21, encodings 1 and 2)
  uint32_t wave = 0;
  uint32_t simd = 0;
  uint32_t wgp = 0;
};
std::string_view sq_encoding_name(uint32_t encoding);  // "auto", "wave", "error", or empty
std::string_view sq_error_name(uint32_t error_type);   // "EDC_FUE", ... or empty

struct IhCause {
  IhKind kind = IhKind::kOther;
  // Whether the entry puts the device into its error state (amd.md §10.4): everything except
  // end-of-pipe, SDMA traps and SQ interrupts of the auto and wave encodings (the shader asked
  // for them; an SQ interrupt whose encoding this code cannot decode counts as an error).
  bool error = true;
  std::optional<SqInterrupt> sq;  // kSqInterrupt on GC 9, 11 and 12
  // kVmFault: the faulting page's address from the context, (ctx0 << 12) | ((ctx1 & 0xf) << 44).
  uint64_t fault_address = 0;
};
IhCause classify_ih_entry(const IhEntry& e, uint32_t gc_version);

// GCVM_L2_PROTECTION_FAULT_STATUS (GC 11), its _LO32 half (GC 12) or VM_L2_PROTECTION_FAULT_STATUS
// (GC 9.4.x, from the 9.4.3 table) by field name, in register order: "MORE_FAULTS=0 WALKER_ERROR=0
// ... CID=0x1c ... RW=1 ... VMID=3 ..." (CID in hex, the others in decimal); for another GC version
// the raw value with a note that no table describes it.
std::string describe_fault_status(uint32_t gc_version, uint32_t status);

// One line: "GRBM_CP/CP_EOP_INTERRUPT ring 0 vmid 0 pasid 0 node 0 ts 0x1234 ctx 0x00000000
// 0x00000000 0x00000000 0x00000000", then for errors and SQ interrupts what classify_ih_entry
// found (": VM fault at 0x7f0000001000", ": SQ error ILLEGAL_INST wave 3 simd 1 wgp 2").
// Unknown ids print as "client 0x33" / "source 0x42".
std::string describe(const IhEntry& e, uint32_t gc_version);

// ---- the ring ------------------------------------------------------------------------------

// IH_RB_WPTR / IH_RB_RPTR as OSSSYS 4.4.2, 6.0.0 and 7.0.0 define them (the same fields):
// OFFSET [17:2] holds a byte offset (the register value masked, not shifted), RB_OVERFLOW 0.
// The largest ring the offset can address, in bytes.
inline constexpr uint32_t kIhMaxRingBytes = 1u << 18;
// The IH_RB_RPTR value for a read pointer in bytes.
uint32_t ih_rptr_register(uint32_t rptr_bytes);

struct IhRead {
  std::vector<IhEntry> entries;  // oldest first
  uint32_t rptr = 0;             // the new read pointer in bytes (< ring size): write it back
  // IH_RB_WPTR.RB_OVERFLOW was set: the ring was full and the IH dropped entries after these
  // (it does not overwrite unread ones). Clear it by pulsing IH_RB_CNTL.WPTR_OVERFLOW_CLEAR.
  bool overflow = false;
};

// The entries of `ring` (its bytes as the IH writes them; the size a power of two, 64 B ..
// kIhMaxRingBytes) from `rptr` (bytes) up to the write pointer in `wptr_reg` (an IH_RB_WPTR
// value, or its writeback copy). Reads only inside `ring`. Errors: kInvalidArgument for a bad
// ring size or an rptr outside the ring or off an entry boundary; kHardware for a wptr value
// the IH cannot produce (0xffffffff, reserved bits set, an offset beyond the ring or off an
// entry boundary).
Result<IhRead> read_ih_ring(std::span<const uint8_t> ring, uint32_t wptr_reg, uint32_t rptr);

// A ring and its read pointer: read() advances the pointer only when it succeeds, so after an
// error the ring is as before and the same wptr value fails the same way.
class IhRing {
 public:
  // kInvalidArgument for a ring size read_ih_ring does not accept.
  static Result<IhRing> create(std::span<const uint8_t> ring);

  Result<IhRead> read(uint32_t wptr_reg);
  uint32_t rptr() const { return rptr_; }
  uint32_t rptr_register() const { return ih_rptr_register(rptr_); }
  // Sets the read pointer (after the driver reprogrammed the ring): kInvalidArgument if it is
  // outside the ring or off an entry boundary; unchanged then.
  Status set_rptr(uint32_t rptr);
  size_t bytes() const { return ring_.size(); }

 private:
  explicit IhRing(std::span<const uint8_t> ring) : ring_(ring) {}
  std::span<const uint8_t> ring_;
  uint32_t rptr_ = 0;
};

}  // namespace rawgpu::drivers::amd
