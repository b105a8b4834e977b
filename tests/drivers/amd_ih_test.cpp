// The IH ring (drivers/amd/ih.h): entry decode bit by bit, client and source names, the
// classifier (routine vs error, SQ interrupt fields, VM fault address), the fault-status decode
// on GC 9.4.3 / 11 / 12, one-line descriptions, and the ring reader (wrap-around, overflow, a
// full ring, every kind of bad pointer, state after errors).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "rawgpu/drivers/amd/ih.h"

namespace rawgpu::drivers::amd {
namespace {

constexpr uint32_t kGc11 = 110000, kGc12 = 120001, kGc943 = 90403, kGc103 = 100300;
// Client ids (amd.md §10.4).
constexpr uint32_t kRlc = 0x07, kGfx = 0x0a, kVmc = 0x12, kGrbmCp = 0x14, kThm = 0x0f;
constexpr uint32_t kSoc15Sdma0 = 0x08, kSoc15Utcl2 = 0x1b;

using Dwords = std::array<uint32_t, kIhEntryDwords>;

IhEntry entry(uint32_t client, uint32_t source, std::array<uint32_t, 4> ctx = {}) {
  IhEntry e;
  e.client_id = client;
  e.source_id = source;
  e.src_data = ctx;
  return e;
}

// ---- decode --------------------------------------------------------------------------------

TEST(AmdIhDecode, EveryFieldOfAHandBuiltEntry) {
  // dw0: client 0x14, source 0xb5, ring 3, vmid 9, vmid_type 1, plus the unused bits 30:28.
  // dw2: timestamp 47:32 = 0x1234, ts_src 1, plus unused bits 30:16. dw3: unused bits 31:24.
  const Dwords dw = {0xf903b514u, 0xdeadbeefu, 0xffff1234u, 0xff5a4321u,
                     0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u};
  const IhEntry e = decode_ih_entry(dw);
  EXPECT_EQ(e.client_id, 0x14u);
  EXPECT_EQ(e.source_id, 0xb5u);
  EXPECT_EQ(e.ring_id, 0x03u);
  EXPECT_EQ(e.vmid, 0x9u);
  EXPECT_EQ(e.vmid_type, 1u);
  EXPECT_EQ(e.timestamp, 0x1234deadbeefull);
  EXPECT_EQ(e.timestamp_src, 1u);
  EXPECT_EQ(e.pasid, 0x4321u);
  EXPECT_EQ(e.node_id, 0x5au);
  EXPECT_EQ(e.src_data,
            (std::array<uint32_t, 4>{0x11111111u, 0x22222222u, 0x33333333u, 0x44444444u}));
  // The encoder writes the fields back and leaves the unused bits zero.
  const Dwords back = encode_ih_entry(e);
  EXPECT_EQ(back[0], 0x8903b514u);
  EXPECT_EQ(back[1], 0xdeadbeefu);
  EXPECT_EQ(back[2], 0x80001234u);
  EXPECT_EQ(back[3], 0x005a4321u);
  EXPECT_EQ(decode_ih_entry(back), e);
}

// Each of the 256 bits lands in exactly the field amd.md §10.4 puts it in (or in none).
TEST(AmdIhDecode, EachBitLandsInItsField) {
  for (unsigned bit = 0; bit < 256; ++bit) {
    Dwords dw{};
    dw[bit / 32] = 1u << (bit % 32);
    const IhEntry e = decode_ih_entry(dw);
    const unsigned d = bit / 32, b = bit % 32;
    IhEntry want;
    if (d == 0 && b < 8) want.client_id = 1u << b;
    if (d == 0 && b >= 8 && b < 16) want.source_id = 1u << (b - 8);
    if (d == 0 && b >= 16 && b < 24) want.ring_id = 1u << (b - 16);
    if (d == 0 && b >= 24 && b < 28) want.vmid = 1u << (b - 24);
    if (d == 0 && b == 31) want.vmid_type = 1;
    if (d == 1) want.timestamp = uint64_t{1} << b;
    if (d == 2 && b < 16) want.timestamp = uint64_t{1} << (32 + b);
    if (d == 2 && b == 31) want.timestamp_src = 1;
    if (d == 3 && b < 16) want.pasid = 1u << b;
    if (d == 3 && b >= 16 && b < 24) want.node_id = 1u << (b - 16);
    if (d >= 4) want.src_data[d - 4] = 1u << b;
    EXPECT_EQ(e, want) << "bit " << bit;
  }
}

TEST(AmdIhDecode, EncodeCutsValuesToTheirFields) {
  IhEntry e;
  e.client_id = 0x1ff;
  e.vmid = 0x1f;
  e.timestamp = 0xffff'1234'5678'9abcull;
  e.pasid = 0x12345;
  const IhEntry d = decode_ih_entry(encode_ih_entry(e));
  EXPECT_EQ(d.client_id, 0xffu);
  EXPECT_EQ(d.vmid, 0xfu);
  EXPECT_EQ(d.timestamp, 0x1234'5678'9abcull);
  EXPECT_EQ(d.pasid, 0x2345u);
}

// ---- names ---------------------------------------------------------------------------------

TEST(AmdIhNames, Soc21Clients) {
  EXPECT_EQ(ih_client_name(0x0a), "GFX");
  EXPECT_EQ(ih_client_name(0x14), "GRBM_CP");
  EXPECT_EQ(ih_client_name(0x12), "VMC");
  EXPECT_EQ(ih_client_name(0x07), "RLC");
  EXPECT_EQ(ih_client_name(0x1e), "MP0");
  EXPECT_EQ(ih_client_name(0x1f), "MP1");
  EXPECT_EQ(ih_client_name(0x1a), "LSDMA");
  EXPECT_EQ(ih_client_name(0x00), "IH");
  EXPECT_EQ(ih_client_name(0x01), "");  // SOC21 has no client 1
  EXPECT_EQ(ih_client_name(0x20), "");  // the enum's _MAX is not a client
  EXPECT_EQ(ih_client_name(0xff), "");
  EXPECT_EQ(ih_client_name(kGc12, 0x0a), "GFX");
  EXPECT_EQ(ih_client_name(kGc11, 0x0b), "IMU");
}

TEST(AmdIhNames, Soc15Clients) {
  EXPECT_EQ(ih_client_name(kGc943, 0x0a), "SE0SH");
  EXPECT_EQ(ih_client_name(kGc943, 0x0d), "SE3SH");
  EXPECT_EQ(ih_client_name(kGc943, 0x08), "SDMA0");
  EXPECT_EQ(ih_client_name(kGc943, 0x09), "SDMA1");
  EXPECT_EQ(ih_client_name(kGc943, 0x14), "GRBM_CP");
  EXPECT_EQ(ih_client_name(kGc943, 0x1b), "UTCL2");
  EXPECT_EQ(ih_client_name(kGc943, 0x1d), "UTCL2LOG");
  // An id with aliases gives its first upstream name (SDMA2 is an alias of ACP).
  EXPECT_EQ(ih_client_name(kGc943, 0x01), "ACP");
  EXPECT_EQ(ih_client_name(kGc943, 0x18), "VCE1");
  EXPECT_EQ(ih_client_name(kGc943, 0x20), "");
  EXPECT_EQ(ih_client_name(kGc103, 0x0a), "SE0SH");
}

TEST(AmdIhNames, Gc11And12Sources) {
  for (uint32_t gc : {kGc11, kGc12}) {
    SCOPED_TRACE(gc);
    EXPECT_EQ(ih_source_name(gc, kGfx, 0), "UTCL2_FAULT");
    EXPECT_EQ(ih_source_name(gc, kGfx, 1), "UTCL2_DATA_POISONING");
    EXPECT_EQ(ih_source_name(gc, kGfx, 49), "SDMA_TRAP");
    EXPECT_EQ(ih_source_name(gc, kGfx, 60), "SDMA_PAGE_FAULT");
    EXPECT_EQ(ih_source_name(gc, kGfx, 66), "SDMA_SEM_WAIT_FAIL_TIMEOUT");
    EXPECT_EQ(ih_source_name(gc, kGrbmCp, 181), "CP_EOP_INTERRUPT");
    EXPECT_EQ(ih_source_name(gc, kGrbmCp, 183), "CP_BAD_OPCODE_ERROR");
    EXPECT_EQ(ih_source_name(gc, kGrbmCp, 184), "CP_PRIV_REG_FAULT");
    EXPECT_EQ(ih_source_name(gc, kGrbmCp, 185), "CP_PRIV_INSTR_FAULT");
    EXPECT_EQ(ih_source_name(gc, kGrbmCp, 239), "SQ_INTERRUPT_ID");
    EXPECT_EQ(ih_source_name(gc, kRlc, 128), "RLC_GC_FED_INTERRUPT");
    EXPECT_EQ(ih_source_name(gc, kVmc, 0), "VM_FAULT");
    EXPECT_EQ(ih_source_name(gc, kGfx, 2), "");    // no such id
    EXPECT_EQ(ih_source_name(gc, kVmc, 181), "");  // VMC has no CP sources
    EXPECT_EQ(ih_source_name(gc, kThm, 0), "");    // no source table for THM
  }
}

TEST(AmdIhNames, Gc9And10Sources) {
  EXPECT_EQ(ih_source_name(kGc943, kGrbmCp, 181), "CP_EOP_INTERRUPT");
  EXPECT_EQ(ih_source_name(kGc943, 0x0b, 239), "SQ_INTERRUPT_ID");  // SE1SH
  EXPECT_EQ(ih_source_name(kGc943, kSoc15Sdma0, 224), "SDMA_TRAP");
  EXPECT_EQ(ih_source_name(kGc943, 0x01, 221), "SDMA_PAGE_FAULT");  // SDMA2 (= ACP)
  EXPECT_EQ(ih_source_name(kGc943, kSoc15Utcl2, 0), "FAULT");
  EXPECT_EQ(ih_source_name(kGc943, kVmc, 0), "VM_FAULT");
  EXPECT_EQ(ih_source_name(kGc943, 0x06, 0), "VM_FAULT");  // VMC1
  EXPECT_EQ(ih_source_name(kGc943, kGrbmCp, 49), "");      // GC 9 has no SDMA ids in gfx
  // GC 10: two upstream names for 177; the first is the primary one.
  EXPECT_EQ(ih_source_name(kGc103, kGrbmCp, 177), "CP_GENERIC_INT");
  EXPECT_EQ(ih_source_name(kGc103, kGrbmCp, 181), "CP_EOP_INTERRUPT");
  EXPECT_EQ(ih_source_name(kGc103, kSoc15Sdma0, 224), "");  // SDMA 5 ids are not generated
}

// ---- classify ------------------------------------------------------------------------------

TEST(AmdIhClassify, RoutineEntries) {
  for (uint32_t gc : {kGc11, kGc12}) {
    IhCause c = classify_ih_entry(entry(kGrbmCp, 181), gc);
    EXPECT_EQ(c.kind, IhKind::kEndOfPipe);
    EXPECT_FALSE(c.error);
    c = classify_ih_entry(entry(kGfx, 49), gc);
    EXPECT_EQ(c.kind, IhKind::kSdmaTrap);
    EXPECT_FALSE(c.error);
  }
  EXPECT_EQ(classify_ih_entry(entry(kGrbmCp, 181), kGc943).kind, IhKind::kEndOfPipe);
  const IhCause t = classify_ih_entry(entry(kSoc15Sdma0, 224), kGc943);
  EXPECT_EQ(t.kind, IhKind::kSdmaTrap);
  EXPECT_FALSE(t.error);
}

TEST(AmdIhClassify, ErrorEntries) {
  EXPECT_EQ(classify_ih_entry(entry(kGrbmCp, 183), kGc11).kind, IhKind::kCpBadOpcode);
  EXPECT_EQ(classify_ih_entry(entry(kGrbmCp, 184), kGc11).kind, IhKind::kCpPrivReg);
  EXPECT_EQ(classify_ih_entry(entry(kGrbmCp, 185), kGc12).kind, IhKind::kCpPrivInstr);
  EXPECT_EQ(classify_ih_entry(entry(kGrbmCp, 185), kGc943).kind, IhKind::kCpPrivInstr);
  for (const IhEntry& e :
       {entry(kGrbmCp, 183), entry(kGfx, 60), entry(kThm, 0), entry(0x99, 181), entry(kGfx, 2)}) {
    const IhCause c = classify_ih_entry(e, kGc11);
    EXPECT_TRUE(c.error) << describe(e, kGc11);
    EXPECT_FALSE(c.sq.has_value());
  }
  EXPECT_EQ(classify_ih_entry(entry(kGfx, 60), kGc11).kind, IhKind::kOther);  // SDMA page fault
  // The SDMA trap id of GC 11 means nothing on GC 9's GRBM_CP.
  EXPECT_EQ(classify_ih_entry(entry(kGrbmCp, 49), kGc943).kind, IhKind::kOther);
}

TEST(AmdIhClassify, VmFaultAddressFromTheContext) {
  // Page 0x7_1234_5678 (bits 43:12 in ctx0, 47:44 in ctx1 [3:0]; ctx1's other bits ignored).
  const std::array<uint32_t, 4> ctx = {0x12345678u, 0xfffffff7u, 0, 0};
  struct Case {
    uint32_t gc, client;
  };
  for (const Case& k : {Case{kGc11, kGfx}, Case{kGc12, kGfx}, Case{kGc11, kVmc},
                        Case{kGc943, kSoc15Utcl2}, Case{kGc943, kVmc}}) {
    const IhCause c = classify_ih_entry(entry(k.client, 0, ctx), k.gc);
    EXPECT_EQ(c.kind, IhKind::kVmFault) << k.gc << " client " << k.client;
    EXPECT_TRUE(c.error);
    EXPECT_EQ(c.fault_address, 0x7123'4567'8000ull);
  }
}

TEST(AmdIhClassify, Soc21SqInterrupt) {
  // Error, ILLEGAL_INST (1 << 21), wave 19 (ctx0 31:27), simd 2, wgp 5, encoding 2.
  const uint32_t ctx0 = (19u << 27) | (1u << 21);
  const uint32_t ctx1 = (2u << 6) | (5u << 2) | 2u;
  for (uint32_t gc : {kGc11, kGc12}) {
    const IhCause c = classify_ih_entry(entry(kGrbmCp, 239, {ctx0, ctx1, 0, 0}), gc);
    ASSERT_EQ(c.kind, IhKind::kSqInterrupt);
    ASSERT_TRUE(c.sq.has_value());
    EXPECT_TRUE(c.error);
    EXPECT_EQ(c.sq->encoding, 2u);
    EXPECT_EQ(c.sq->error_type, 1u);
    EXPECT_TRUE(c.sq->has_location);
    EXPECT_EQ(c.sq->wave, 19u);
    EXPECT_EQ(c.sq->simd, 2u);
    EXPECT_EQ(c.sq->wgp, 5u);
  }
  // Every error type by name.
  const char* names[] = {"EDC_FUE", "ILLEGAL_INST", "MEMVIOL", "EDC_FED"};
  for (uint32_t t = 0; t < 4; ++t) {
    const IhCause c = classify_ih_entry(entry(kGrbmCp, 239, {t << 21, 2u << 6, 0, 0}), kGc11);
    EXPECT_EQ(c.sq->error_type, t);
    EXPECT_EQ(sq_error_name(t), names[t]);
  }
  EXPECT_EQ(sq_error_name(4), "");
  // Wave (s_sendmsg) and auto interrupts are routine; the reserved encoding 3 is not.
  IhCause w = classify_ih_entry(entry(kGrbmCp, 239, {3u << 27, (1u << 6) | 1u, 0, 0}), kGc11);
  EXPECT_FALSE(w.error);
  EXPECT_EQ(w.sq->encoding, 1u);
  EXPECT_EQ(w.sq->wave, 3u);
  EXPECT_EQ(w.sq->simd, 1u);
  IhCause a = classify_ih_entry(entry(kGrbmCp, 239, {0xffffffffu, 0x3fu, 0, 0}), kGc11);
  EXPECT_FALSE(a.error);
  EXPECT_EQ(a.sq->encoding, 0u);
  EXPECT_FALSE(a.sq->has_location);
  EXPECT_TRUE(classify_ih_entry(entry(kGrbmCp, 239, {0, 3u << 6, 0, 0}), kGc11).error);
  EXPECT_EQ(sq_encoding_name(0), "auto");
  EXPECT_EQ(sq_encoding_name(1), "wave");
  EXPECT_EQ(sq_encoding_name(2), "error");
  EXPECT_EQ(sq_encoding_name(3), "");
}

TEST(AmdIhClassify, Gc9SqInterrupt) {
  // Encoding ctx0 [27:26] = 2; error type bits 23:20 of the packed word come from ctx1 [7:4].
  const IhCause c = classify_ih_entry(entry(kGrbmCp, 239, {2u << 26, 2u << 4, 0, 0}), kGc943);
  ASSERT_TRUE(c.sq.has_value());
  EXPECT_EQ(c.sq->encoding, 2u);
  EXPECT_EQ(c.sq->error_type, 2u);  // MEMVIOL
  EXPECT_FALSE(c.sq->has_location);
  EXPECT_TRUE(c.error);
  // ctx0 bits that do not reach bits 23:20 of the packed word do not change the type.
  EXPECT_EQ(classify_ih_entry(entry(kGrbmCp, 239, {0x000fffffu, 0, 0, 0}), kGc943).sq->error_type,
            0u);
  // GC 10's SQ words are not decoded: an error, without details.
  const IhCause g10 = classify_ih_entry(entry(kGrbmCp, 239), kGc103);
  EXPECT_EQ(g10.kind, IhKind::kSqInterrupt);
  EXPECT_FALSE(g10.sq.has_value());
  EXPECT_TRUE(g10.error);
}

TEST(AmdIhClassify, KindNames) {
  EXPECT_EQ(ih_kind_name(IhKind::kEndOfPipe), "end_of_pipe");
  EXPECT_EQ(ih_kind_name(IhKind::kVmFault), "vm_fault");
  EXPECT_EQ(ih_kind_name(IhKind::kSqInterrupt), "sq_interrupt");
  EXPECT_EQ(ih_kind_name(IhKind::kOther), "other");
}

// ---- fault status and descriptions ----------------------------------------------------------

TEST(AmdIhDescribe, FaultStatusGc11) {
  // MAPPING_ERROR (8), CID 0x1c (17:9), RW (18), VMID 3 (23:20), PRT (29).
  const uint32_t v = (1u << 8) | (0x1cu << 9) | (1u << 18) | (3u << 20) | (1u << 29);
  EXPECT_EQ(describe_fault_status(kGc11, v),
            "MORE_FAULTS=0 WALKER_ERROR=0 PERMISSION_FAULTS=0 MAPPING_ERROR=1 CID=0x1c RW=1 "
            "ATOMIC=0 VMID=3 VF=0 VFID=0 PRT=1");
  EXPECT_EQ(describe_fault_status(110003, 0x1u | (5u << 4)),
            "MORE_FAULTS=1 WALKER_ERROR=0 PERMISSION_FAULTS=5 MAPPING_ERROR=0 CID=0x00 RW=0 "
            "ATOMIC=0 VMID=0 VF=0 VFID=0 PRT=0");
}

TEST(AmdIhDescribe, FaultStatusGc12AndGc943) {
  // GC 12's LO32 half has a 5-bit VFID, PRT at 30 and UCE at 31: bit 29 is VFID bit 4 there,
  // PRT on GC 11 and UCE on GC 9.4.3.
  const uint32_t v = (1u << 8) | (0x1ffu << 9) | (0xfu << 20) | (1u << 29) | (1u << 31);
  EXPECT_EQ(describe_fault_status(kGc12, v),
            "MORE_FAULTS=0 WALKER_ERROR=0 PERMISSION_FAULTS=0 MAPPING_ERROR=1 CID=0x1ff RW=0 "
            "ATOMIC=0 VMID=15 VF=0 VFID=16 PRT=0 UCE=1");
  EXPECT_EQ(describe_fault_status(kGc943, v),
            "MORE_FAULTS=0 WALKER_ERROR=0 PERMISSION_FAULTS=0 MAPPING_ERROR=1 CID=0x1ff RW=0 "
            "ATOMIC=0 VMID=15 VF=0 VFID=0 UCE=1 FED=0");
  EXPECT_EQ(describe_fault_status(kGc103, 0x100u),
            "0x00000100 (no register table describes the fault status of GC 10.3.0)");
}

TEST(AmdIhDescribe, OneLine) {
  IhEntry eop = entry(kGrbmCp, 181, {0, 0, 0x12, 0});
  eop.ring_id = 1;
  eop.timestamp = 0x1234;
  EXPECT_EQ(describe(eop, kGc11),
            "GRBM_CP/CP_EOP_INTERRUPT ring 1 vmid 0 pasid 0 node 0 ts 0x1234 ctx 0x00000000 "
            "0x00000000 0x00000012 0x00000000");
  IhEntry vm = entry(kGfx, 0, {0x100u, 0, 0, 0});
  vm.vmid = 2;
  vm.pasid = 7;
  EXPECT_EQ(describe(vm, kGc12),
            "GFX/UTCL2_FAULT ring 0 vmid 2 pasid 7 node 0 ts 0x0 ctx 0x00000100 0x00000000 "
            "0x00000000 0x00000000: VM fault at 0x100000");
  const IhEntry sq = entry(kGrbmCp, 239, {(3u << 27) | (1u << 21), (2u << 6) | (2u << 2) | 1u});
  EXPECT_EQ(describe(sq, kGc11),
            "GRBM_CP/SQ_INTERRUPT_ID ring 0 vmid 0 pasid 0 node 0 ts 0x0 ctx 0x18200000 "
            "0x00000089 0x00000000 0x00000000: SQ error ILLEGAL_INST wave 3 simd 1 wgp 2");
  IhEntry odd = entry(0x33, 0x42);
  odd.vmid_type = 1;
  odd.timestamp_src = 1;
  EXPECT_EQ(describe(odd, kGc11),
            "client 0x33/source 0x42 ring 0 vmid 0 pasid 0 node 0 ts 0x0 vmid_type 1 ts_src 1 ctx "
            "0x00000000 0x00000000 0x00000000 0x00000000: error");
  EXPECT_TRUE(describe(entry(kGrbmCp, 239, {0, 3u << 6}), kGc11).ends_with(": SQ encoding 3"));
  EXPECT_NE(describe(entry(kGrbmCp, 239, {9u << 21, 2u << 6}), kGc11).find(": SQ error type 9"),
            std::string::npos);
  EXPECT_NE(describe(entry(kSoc15Sdma0, 224), kGc943).find("SDMA0/SDMA_TRAP ring 0"),
            std::string::npos);
}

// ---- the ring ------------------------------------------------------------------------------

// A ring of `bytes` holding an entry per slot: client id = the slot's low byte, source id 0x5a,
// ctx0 = 0xc0de0000 | slot, timestamp 0x1234_0000_0000 | slot; stored little-endian byte by byte.
std::vector<uint8_t> make_ring(size_t bytes) {
  std::vector<uint8_t> ring(bytes);
  for (size_t slot = 0; slot < bytes / kIhEntryBytes; ++slot) {
    IhEntry e = entry(static_cast<uint32_t>(slot & 0xff), 0x5a,
                      {0xc0de0000u | static_cast<uint32_t>(slot), 0, 0, 0});
    e.timestamp = 0x0000'1234'0000'0000ull | slot;
    const Dwords dw = encode_ih_entry(e);
    for (unsigned d = 0; d < kIhEntryDwords; ++d)
      for (unsigned b = 0; b < 4; ++b)
        ring[slot * kIhEntryBytes + d * 4 + b] = static_cast<uint8_t>(dw[d] >> (8 * b));
  }
  return ring;
}

std::vector<uint32_t> slots(const IhRead& r) {
  std::vector<uint32_t> s;
  for (const IhEntry& e : r.entries) {
    const uint32_t slot = e.src_data[0] & 0xffffu;
    EXPECT_EQ(e.src_data[0] >> 16, 0xc0deu);
    EXPECT_EQ(e.client_id, slot & 0xffu);
    EXPECT_EQ(e.source_id, 0x5au);
    EXPECT_EQ(e.timestamp, 0x0000'1234'0000'0000ull | slot);
    s.push_back(slot);
  }
  return s;
}

TEST(AmdIhRing, EmptyRing) {
  const std::vector<uint8_t> ring = make_ring(256);
  auto r = read_ih_ring(ring, 0x40, 0x40);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->entries.empty());
  EXPECT_EQ(r->rptr, 0x40u);
  EXPECT_FALSE(r->overflow);
}

TEST(AmdIhRing, ReadsInOrderAndWraps) {
  const std::vector<uint8_t> ring = make_ring(256);  // 8 slots
  auto r = read_ih_ring(ring, 3 * 32, 0);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(r->rptr, 96u);
  // rptr at slot 6, wptr at slot 2: 6, 7, then around to 0, 1.
  r = read_ih_ring(ring, 2 * 32, 6 * 32);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{6, 7, 0, 1}));
  EXPECT_EQ(r->rptr, 64u);
  // wptr 0 wraps the pointer to the ring's start.
  r = read_ih_ring(ring, 0, 7 * 32);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{7}));
  EXPECT_EQ(r->rptr, 0u);
}

TEST(AmdIhRing, FullRingAndOverflow) {
  const std::vector<uint8_t> ring = make_ring(256);
  // Full: the IH stops one entry short of the read pointer and flags the overflow.
  auto r = read_ih_ring(ring, (2 * 32) | 1u, 3 * 32);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->overflow);
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{3, 4, 5, 6, 7, 0, 1}));
  EXPECT_EQ(r->rptr, 64u);
  // RB_LEFT_NONE and RB_MAY_OVERFLOW are status bits, not errors.
  r = read_ih_ring(ring, 32u | (1u << 18) | (1u << 19), 0);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->overflow);
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{0}));
}

TEST(AmdIhRing, LargestRing) {
  const std::vector<uint8_t> ring = make_ring(kIhMaxRingBytes);
  auto r = read_ih_ring(ring, 0x3ffe0u, 0x3ffc0u);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{8190}));
  EXPECT_EQ(r->rptr, 0x3ffe0u);
  EXPECT_EQ(ih_rptr_register(0x3ffe0u), 0x3ffe0u);
  EXPECT_EQ(ih_rptr_register(0x40u), 0x40u);
}

TEST(AmdIhRing, BadWritePointers) {
  const std::vector<uint8_t> ring = make_ring(256);
  struct Case {
    uint32_t wptr;
    const char* text;
  };
  for (const Case& c :
       {Case{0xffffffffu, "does not answer"}, Case{0x2u, "reserved bits 0x00000002"},
        Case{0x00100020u, "reserved bits 0x00100000"},
        Case{0x100u, "write offset 0x100 is beyond the 256-byte ring"}, Case{0x3ffe0u, "beyond"},
        Case{0x44u, "0x44 is not on an entry boundary"}, Case{0x4u, "boundary"}}) {
    auto r = read_ih_ring(ring, c.wptr, 0);
    ASSERT_FALSE(r.ok()) << std::hex << c.wptr;
    EXPECT_TRUE(r.error().is(Errc::kHardware)) << r.error().to_string();
    EXPECT_NE(r.error().message().find(c.text), std::string::npos) << r.error().message();
  }
}

TEST(AmdIhRing, BadReadPointersAndSizes) {
  const std::vector<uint8_t> ring = make_ring(256);
  for (uint32_t rptr : {0x100u, 0x10u, 0xffffffe0u}) {
    auto r = read_ih_ring(ring, 0, rptr);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().is(Errc::kInvalidArgument)) << r.error().to_string();
  }
  for (size_t n : {size_t{0}, size_t{32}, size_t{96}, size_t{kIhMaxRingBytes * 2}}) {
    const std::vector<uint8_t> bad(n);
    auto r = read_ih_ring(bad, 0, 0);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_TRUE(r.error().is(Errc::kInvalidArgument));
    EXPECT_NE(r.error().message().find("power of two"), std::string::npos);
    EXPECT_FALSE(IhRing::create(bad).ok());
  }
}

TEST(AmdIhRing, RingKeepsItsReadPointerAcrossErrors) {
  const std::vector<uint8_t> data = make_ring(512);
  auto ring = IhRing::create(data);
  ASSERT_TRUE(ring.ok());
  EXPECT_EQ(ring->bytes(), 512u);
  auto r = ring->read(2 * 32);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(ring->rptr(), 64u);
  EXPECT_EQ(ring->rptr_register(), 64u);
  // A bad value changes nothing: the same value fails again, a good one continues from 64.
  for (int i = 0; i < 2; ++i) {
    auto bad = ring->read(0x1004u);
    ASSERT_FALSE(bad.ok());
    EXPECT_TRUE(bad.error().is(Errc::kHardware));
    EXPECT_NE(bad.error().to_string().find("while reading the IH ring"), std::string::npos);
    EXPECT_EQ(ring->rptr(), 64u);
  }
  r = ring->read(0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->entries.size(), 14u);
  EXPECT_EQ(r->entries.front().client_id, 2u);
  EXPECT_EQ(r->entries.back().client_id, 15u);
  EXPECT_EQ(ring->rptr(), 0u);
  r = ring->read(0);  // nothing new
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->entries.empty());
  EXPECT_FALSE(ring->set_rptr(0x1e0u + 4).ok());
  EXPECT_EQ(ring->rptr(), 0u);
  ASSERT_TRUE(ring->set_rptr(0x1e0u).ok());
  r = ring->read(0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(slots(*r), (std::vector<uint32_t>{15}));
}

}  // namespace
}  // namespace rawgpu::drivers::amd
