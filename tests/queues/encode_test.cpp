// PM4 encoders checked field by field. Expected opcodes come from the generated nvd.h, register
// offsets from the generated gc_11_0_0.h; header words and field positions are written out
// literally from amd.md §9.1 (header [31:30] = 3, [29:16] = body - 1, [15:8] = opcode).
#include <gtest/gtest.h>

#include "rawgpu/autogen/amd/kfd_pm4_headers_ai.h"
#include "rawgpu/autogen/amd/pm4_nvd.h"
#include "rawgpu/autogen/amd/regs/gc_11_0_0.h"
#include "rawgpu/queues/amd_pm4.h"

namespace rawgpu::queues::amd {
namespace {

namespace pm4 = autogen::amd::pm4_nvd;
using gc = autogen::amd::gc_11_0_0;

uint32_t opcode(uint32_t h) { return (h >> 8) & 0xff; }
uint32_t body(uint32_t h) { return ((h >> 16) & 0x3fff) + 1; }

TEST(Pm4Encode, Header) {
  EXPECT_EQ(pm4_header(pm4::PACKET3_NOP, 1), 0xc0001000u);
  EXPECT_EQ(pm4_header(pm4::PACKET3_RELEASE_MEM, 7), 0xc0064900u);
  EXPECT_EQ(pm4_header(pm4::PACKET3_WAIT_REG_MEM, 6), 0xc0053c00u);
  // The generated header struct agrees on the field positions.
  autogen::amd::kfd_pm4_ai::PM4_MES_TYPE_3_HEADER h{};
  h.u32All = pm4_header(pm4::PACKET3_ACQUIRE_MEM, 7);
  EXPECT_EQ(h.type, 3u);
  EXPECT_EQ(h.count, 6u);
  EXPECT_EQ(h.opcode, pm4::PACKET3_ACQUIRE_MEM);
}

TEST(Pm4Encode, WaitRegMem) {
  CmdBuilder b;
  const PatchSlot s = wait_reg_mem(b, GpuVa(0x1234567890), 42, 0xffffffff, WaitFunc::kGreaterEq);
  ASSERT_EQ(b.size(), 7u);
  EXPECT_EQ(opcode(b[0]), pm4::PACKET3_WAIT_REG_MEM);
  EXPECT_EQ(body(b[0]), 6u);
  EXPECT_EQ(b[1], 5u | (1u << 4));  // function >= [2:0], mem_space 4, operation 0, engine 0
  EXPECT_EQ(b[2], 0x34567890u);
  EXPECT_EQ(b[3], 0x12u);
  EXPECT_EQ(b[4], 42u);
  EXPECT_EQ(b[5], 0xffffffffu);
  EXPECT_EQ(b[6], 4u);
  EXPECT_EQ(s.offset, 4u);
  EXPECT_EQ(s.dwords, 1u);
}

TEST(Pm4Encode, ReleaseMemSignal) {
  CmdBuilder b;
  const PatchSlot s = release_mem_signal(b, GpuVa(0xaaaa0000b0), 7, true);
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(b[0], 0xc0064900u);
  // event CACHE_FLUSH_AND_INV_TS 0x14, index 5 (EOP) at [11:8], GCR GLM_WB 12, GLM_INV 13,
  // GLV_INV 14, GL1_INV 15, GL2_INV 20, GL2_WB 21, SEQ 22.
  EXPECT_EQ(b[1], 0x14u | (5u << 8) | (1u << 12) | (1u << 13) | (1u << 14) | (1u << 15) |
                      (1u << 20) | (1u << 21) | (1u << 22));
  EXPECT_EQ(b[2], 1u << 29);  // data_sel 1 (low 32), int_sel 0, dst_sel 0
  EXPECT_EQ(b[3], 0xaa0000b0u);
  EXPECT_EQ(b[4], 0xaau);
  EXPECT_EQ(b[5], 7u);
  EXPECT_EQ(b[6], 0u);
  EXPECT_EQ(b[7], 0u);
  EXPECT_EQ(s.offset, 5u);

  CmdBuilder nf;
  release_mem_signal(nf, GpuVa(0x1000), 1, false);
  EXPECT_EQ(nf[1], 0x14u | (5u << 8));
}

TEST(Pm4Encode, ReleaseMemWrite64AndTimestamp) {
  CmdBuilder b;
  const PatchSlot s = release_mem_write64(b, GpuVa(0x2000), 0x1122334455667788ull);
  EXPECT_EQ(b[2], 2u << 29);
  EXPECT_EQ(b[5], 0x55667788u);
  EXPECT_EQ(b[6], 0x11223344u);
  EXPECT_EQ(s.dwords, 2u);
  CmdBuilder t;
  release_mem_timestamp(t, GpuVa(0x2008));
  EXPECT_EQ(t[2], 3u << 29);
  EXPECT_EQ(t[3], 0x2008u);
}

TEST(Pm4Encode, AcquireMem) {
  CmdBuilder b;
  acquire_mem(b, gcr_full());
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(b[0], 0xc0065800u);
  const uint32_t want[] = {0, 0xffffffff, 0xffffff, 0, 0, 0x0a};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(b[1 + i], want[i]) << i;
  // GLI_INV=1 [1:0], GLM_WB 4, GLM_INV 5, GLK_WB 6, GLK_INV 7, GLV_INV 8, GL1_INV 9, GL2_INV 14,
  // GL2_WB 15 (amd.md §9.1).
  EXPECT_EQ(b[7], 1u | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) | (1u << 9) |
                      (1u << 14) | (1u << 15));
  // exec: K$, V$, GL1, GLM invalidated; I$ (GLI) and GL2 untouched.
  EXPECT_EQ(gcr_exec_invalidate(), (1u << 5) | (1u << 7) | (1u << 8) | (1u << 9));
}

TEST(Pm4Encode, SetShRegUsesTheGfx11Window) {
  CmdBuilder b;
  const uint32_t v[] = {0xa, 0xb};
  set_sh_reg(b, gc::COMPUTE_PGM_LO::kInfo.offset, v);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0], 0xc0027600u);  // body: index + 2 values
  EXPECT_EQ(b[1], 0x20cu);       // 0x1260 + 0x1bac - 0x2c00
  EXPECT_EQ(b[2], 0xau);
  EXPECT_EQ(b[3], 0xbu);
}

TEST(Pm4Encode, EventWriteIndirectBufferWriteData) {
  CmdBuilder b;
  event_write(b, kEventCsPartialFlush, kEventIndexCsPartialFlush);
  EXPECT_EQ(b[0], 0xc0004600u);
  EXPECT_EQ(b[1], 0x407u);
  CmdBuilder ib;
  indirect_buffer(ib, GpuVa(0x7700001000), 300);
  EXPECT_EQ(ib[0], 0xc0023f00u);
  EXPECT_EQ(ib[1], 0x1000u);
  EXPECT_EQ(ib[2], 0x77u);
  EXPECT_EQ(ib[3], 300u | (1u << 23));
  CmdBuilder w;
  const uint32_t vals[] = {1, 2};
  write_data(w, GpuVa(0x4000), vals);
  EXPECT_EQ(w[0], 0xc0043700u);
  EXPECT_EQ(w[1], (5u << 8) | (1u << 20));  // dst_sel memory, wr_confirm
  EXPECT_EQ(w[4], 1u);
  EXPECT_EQ(w[5], 2u);
}

TEST(Pm4Encode, ExecSequence) {
  ExecParams p;
  p.code = GpuVa(0x1234567800);
  p.rsrc1 = 0x11;
  p.rsrc2 = 2u << 1;  // two user SGPRs
  p.rsrc3 = 0x33;
  p.tmpring_size = 0x44;
  p.scratch = GpuVa(0x5500);
  p.user_data_count = 2;
  p.user_data[0] = 0xdead0000;
  p.user_data[1] = 0x12;
  p.grid = {4, 5, 6};
  p.workgroup = {32, 2, 1};
  CmdBuilder b;
  auto slots = exec(b, p);
  ASSERT_TRUE(slots) << slots.error().to_string();
  // Walk the packets: (opcode, first body dword) in order.
  std::vector<std::pair<uint32_t, uint32_t>> seq;
  for (size_t i = 0; i < b.size(); i += 1 + body(b[i])) seq.emplace_back(opcode(b[i]), b[i + 1]);
  const std::vector<std::pair<uint32_t, uint32_t>> want = {
      {pm4::PACKET3_ACQUIRE_MEM, 0},     {pm4::PACKET3_SET_SH_REG, 0x20c},  // COMPUTE_PGM_LO
      {pm4::PACKET3_SET_SH_REG, 0x212},  // COMPUTE_PGM_RSRC1 (+RSRC2)
      {pm4::PACKET3_SET_SH_REG, 0x228},  // COMPUTE_PGM_RSRC3
      {pm4::PACKET3_SET_SH_REG, 0x218},  // COMPUTE_TMPRING_SIZE
      {pm4::PACKET3_SET_SH_REG, 0x210},  // COMPUTE_DISPATCH_SCRATCH_BASE_LO
      {pm4::PACKET3_SET_SH_REG, 0x21b},  // COMPUTE_RESTART_X
      {pm4::PACKET3_SET_SH_REG, 0x240},  // COMPUTE_USER_DATA_0
      {pm4::PACKET3_SET_SH_REG, 0x215},  // COMPUTE_RESOURCE_LIMITS
      {pm4::PACKET3_SET_SH_REG, 0x204},  // COMPUTE_START_X
      {pm4::PACKET3_DISPATCH_DIRECT, 4}, {pm4::PACKET3_EVENT_WRITE, 0x407},
  };
  EXPECT_EQ(seq, want);
  // PGM_LO/HI = code >> 8.
  EXPECT_EQ(b[8 + 2], 0x12345678u);
  EXPECT_EQ(b[8 + 3], 0u);
  const size_t n = b.size();
  // DISPATCH_DIRECT: x, y, z, initiator {COMPUTE_SHADER_EN 0, FORCE_START_AT_000 2, CS_W32_EN 15}.
  EXPECT_EQ(b[n - 5], 5u);
  EXPECT_EQ(b[n - 4], 6u);
  EXPECT_EQ(b[n - 3], 0x8005u);
  EXPECT_EQ(b[slots->grid[0].offset], 4u);
  EXPECT_EQ(b[slots->user_data.offset], 0xdead0000u);
  // START_X packet: 0,0,0, NUM_THREAD 32,2,1, 0,0.
  const size_t start = n - 2 - 5 - 10;
  EXPECT_EQ(b[start], 0xc0087600u);
  const uint32_t dims[] = {0x204, 0, 0, 0, 32, 2, 1, 0, 0};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(b[start + 1 + i], dims[i]) << i;
  p.wave32 = false;
  CmdBuilder b64;
  ASSERT_TRUE(exec(b64, p));
  EXPECT_EQ(b64[b64.size() - 3], 0x5u);
}

TEST(Pm4Encode, ExecRejectsBadParameters) {
  ExecParams p;
  p.code = GpuVa(0x1080);
  CmdBuilder b;
  EXPECT_EQ(exec(b, p).error().code(), Errc::kInvalidArgument);
  p.code = GpuVa(0x1000);
  p.rsrc2 = 3u << 1;
  p.user_data_count = 2;
  auto r = exec(b, p);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "2 user-data dwords given but RSRC2.USER_SGPR says 3");
  p.rsrc2 = 0;
  p.user_data_count = 0;
  p.grid = {1, 0, 1};
  EXPECT_EQ(exec(b, p).error().code(), Errc::kInvalidArgument);
  p.grid = {1, 1, 1};
  p.scratch = GpuVa(0x10);
  EXPECT_EQ(exec(b, p).error().code(), Errc::kInvalidArgument);
  EXPECT_TRUE(b.empty());  // failed calls append nothing
}

}  // namespace
}  // namespace rawgpu::queues::amd
