// AMD PM4 (GC 10/11) compute-queue encoders and the compute queue.
//
// Every opcode and field helper comes from the generated nvd.h / kfd_pm4_headers_ai.h
// definitions (autogen/); register offsets from the generated gc_11_0_0.h. Packet layouts and
// the exec() recipe follow /work/shared/reference/amd.md §9.1-§9.2.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/queues/cmd_builder.h"
#include "rawgpu/queues/signal.h"

namespace rawgpu::queues::amd {

// Type-3 header: [31:30] = 3, [29:16] = body dwords - 1, [15:8] = opcode (amd.md §9.1).
uint32_t pm4_header(uint32_t opcode, uint32_t body_dwords);

// WAIT_REG_MEM compare functions (amd.md §9.1).
enum class WaitFunc : uint32_t {
  kAlways = 0,
  kLess = 1,
  kLessEq = 2,
  kEq = 3,
  kNotEq = 4,
  kGreaterEq = 5,
  kGreater = 6
};

// EVENT_WRITE CS_PARTIAL_FLUSH: VGT_EVENT_TYPE 7 with event index 4 (soc21_enum.h; amd.md §9.1).
// Not in the generated headers (soc21_enum.h is not extracted by autogen yet).
inline constexpr uint32_t kEventCsPartialFlush = 0x7;
inline constexpr uint32_t kEventIndexCsPartialFlush = 0x4;

// The GC generation the packets are built for. GC 11 and GC 12 share the PM4 formats and the
// compute register offsets (gc_11_0_0.h / gc_12_0_0.h, checked in amd_pm4.cpp); GC 12 has no
// GL1 cache, so GL1 invalidation bits are left out there.
enum class GcGen : uint8_t { kGfx11, kGfx12 };
// GC version (major*10000 + minor*100 + rev) -> generation; GC < 11 or > 12 is kUnsupported.
Result<GcGen> gc_gen(uint32_t gc_version);

// ACQUIRE_MEM GCR_CNTL sets (GC >= 10).
// exec: invalidate K$, V$, GL1 (GC 11) and GLM, keep I$ and L2 (amd.md §9.2 step 1).
uint32_t gcr_exec_invalidate(GcGen gen = GcGen::kGfx11);
// memory barrier: write back and invalidate everything incl. I$ and L2.
uint32_t gcr_full(GcGen gen = GcGen::kGfx11);
// RELEASE_MEM end-of-pipe cache flush flags (GLM wb/inv, GLV/GL1/GL2 inv, GL2 wb, SEQ).
uint32_t release_mem_flush_flags(GcGen gen = GcGen::kGfx11);

// NBIO HDP flush registers as absolute dword register addresses: the generated
// BIF_BX_PF0_GPU_HDP_FLUSH_REQ/_DONE offsets (nbio_4_3_0.h; nbif_6_3_1.h has the same) in NBIO
// segment 2, whose base is 0xD20 in amd.md §3.3's table (the simulator uses those bases; a real
// device takes them from IP discovery).
inline constexpr uint32_t kNbioSeg2Base = 0xD20;
uint32_t hdp_flush_req_reg();
uint32_t hdp_flush_done_reg();
// The HDP flush request/done bit of the compute engine (ME1 pipe 0 is CP2, as Linux assigns
// per-CP bits; amd.md §9.1 notes that sources differ).
inline constexpr uint32_t kHdpFlushCpBit = 1u << 2;

void nop(CmdBuilder& b, uint32_t body_dwords);
// Returns the slot of the reference value.
PatchSlot wait_reg_mem(CmdBuilder& b, GpuVa addr, uint32_t ref, uint32_t mask, WaitFunc fn);
// RELEASE_MEM CACHE_FLUSH_AND_INV_TS end of pipe with GCR `flags`, `data_sel` (0 none, 1 low 32,
// 2 64-bit, 3 GPU clock) and `data`; returns the data slot (64-bit when slot64).
PatchSlot release_mem(CmdBuilder& b, GpuVa addr, uint32_t flags, uint32_t data_sel, uint64_t data,
                      bool slot64);
// RELEASE_MEM CACHE_FLUSH_AND_INV_TS end of pipe writing `value` as 32 bits; returns its slot.
PatchSlot release_mem_signal(CmdBuilder& b, GpuVa addr, uint32_t value, bool cache_flush = true);
// RELEASE_MEM writing a 64-bit value (data_sel 2); returns its slot.
PatchSlot release_mem_write64(CmdBuilder& b, GpuVa addr, uint64_t value);
// RELEASE_MEM writing the GPU clock (data_sel 3) to addr.
void release_mem_timestamp(CmdBuilder& b, GpuVa addr);
// WAIT_REG_MEM on a register (mem_space 0, operation 0): waits until (reg & mask) fn ref.
void wait_reg(CmdBuilder& b, uint32_t reg, uint32_t ref, uint32_t mask, WaitFunc fn);
// Write-wait-write (operation 1): writes `ref` to `write_reg`, then waits on `wait_reg`.
void write_wait_reg(CmdBuilder& b, uint32_t write_reg, uint32_t wait_reg, uint32_t ref,
                    uint32_t mask, WaitFunc fn, uint32_t poll_interval);
// The HDP flush: write-wait-write on HDP_FLUSH_REQ/_DONE with the CP bit, == (Linux's form).
void hdp_flush(CmdBuilder& b);
void acquire_mem(CmdBuilder& b, uint32_t gcr_cntl);

// COPY_DATA selectors (amd.md §9.1; not in the generated headers).
enum class CopySel : uint32_t {
  kRegister = 0,   // src or dst: a register (dword address in the low address dword)
  kMemory = 1,     // src: memory
  kImmediate = 5,  // src: the address dwords themselves
  kTimestamp = 9,  // src: the GPU clock (64-bit)
};
// dst_sel for memory differs from src_sel: 5 (as WRITE_DATA's dst_sel___write_data__memory).
inline constexpr uint32_t kCopyDataDstMemory = 5;
// COPY_DATA: ctl {src_sel [3:0], dst_sel [11:8], count_sel (64-bit) 16, wr_confirm 20},
// src lo/hi, dst lo/hi. `dst_memory` selects memory (else a register).
void copy_data(CmdBuilder& b, bool dst_memory, uint64_t dst, CopySel src_sel, uint64_t src,
               bool bit64);
// SET_SH_REG at the SH-window index of a GC segment-0 register offset.
void set_sh_reg(CmdBuilder& b, uint32_t seg0_offset, std::span<const uint32_t> values);
void event_write(CmdBuilder& b, uint32_t type, uint32_t index);
// INDIRECT_BUFFER: runs `dwords` (1..kPm4IndirectMaxDwords) dwords at `addr`.
inline constexpr uint32_t kPm4IndirectMaxDwords = 0xfffff;  // IB_SIZE is 20 bits
void indirect_buffer(CmdBuilder& b, GpuVa addr, uint32_t dwords);
void write_data(CmdBuilder& b, GpuVa addr, std::span<const uint32_t> values);

struct ExecParams {
  GpuVa code;  // kernel entry, 256-byte aligned
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint32_t tmpring_size = 0;
  GpuVa scratch;  // architected flat scratch base (256-byte aligned), 0 = none
  std::array<uint32_t, 16> user_data{};
  uint32_t user_data_count = 0;                // must equal RSRC2.USER_SGPR
  std::array<uint32_t, 3> grid{1, 1, 1};       // workgroups
  std::array<uint32_t, 3> workgroup{1, 1, 1};  // threads per workgroup
  bool wave32 = true;
  GcGen gen = GcGen::kGfx11;
};
struct ExecSlots {
  PatchSlot user_data;  // first user-data dword (e.g. the kernarg pointer lo)
  std::array<PatchSlot, 3> grid;
};
// The exec() sequence of amd.md §9.2 (single XCC). kInvalidArgument on a misaligned code or
// scratch address, a user-data count that disagrees with RSRC2.USER_SGPR or a zero dimension.
Result<ExecSlots> exec(CmdBuilder& b, const ExecParams& p);

// A PM4 compute queue on an AmdDevice: commands are built in a CmdBuilder and copied into the
// ring on submit() (packets may straddle the ring end), space is checked against the read
// pointer, then wptr is stored and the doorbell written (PM4 counts dwords).
class ComputeQueue {
 public:
  static Result<std::unique_ptr<ComputeQueue>> create(drivers::amd::AmdDevice& device,
                                                      uint64_t ring_bytes = 64 * 1024);
  CmdBuilder& commands() { return cmds_; }

  ComputeQueue& wait(const Signal& s, uint32_t value) {
    wait_reg_mem(cmds_, s.va(), value, 0xffffffffu, WaitFunc::kGreaterEq);
    return *this;
  }
  ComputeQueue& signal(const Signal& s, uint32_t value) {
    release_mem(cmds_, s.va(), release_mem_flush_flags(gen_), 1, value, false);
    return *this;
  }
  // Writes a 32- or 64-bit value to memory at the end of the pipe (RELEASE_MEM data_sel 1/2).
  ComputeQueue& write(GpuVa addr, uint64_t value, bool bit64 = false) {
    if (bit64) {
      release_mem_write64(cmds_, addr, value);
    } else {
      RG_CHECK(value <= 0xffffffffu, "32-bit write of a wider value");
      release_mem_signal(cmds_, addr, static_cast<uint32_t>(value), false);
    }
    return *this;
  }
  // Waits until (mem & mask) == value (WAIT_REG_MEM ==).
  ComputeQueue& poll_bit(GpuVa addr, uint32_t mask, uint32_t value) {
    wait_reg_mem(cmds_, addr, value, mask, WaitFunc::kEq);
    return *this;
  }
  ComputeQueue& timestamp(const Signal& s) {
    release_mem_timestamp(cmds_, s.timestamp_va());
    return *this;
  }
  // HDP flush (write-wait-write on the NBIO registers), then a full ACQUIRE_MEM (amd.md §9.1).
  ComputeQueue& memory_barrier() {
    hdp_flush(cmds_);
    acquire_mem(cmds_, gcr_full(gen_));
    return *this;
  }
  Result<ExecSlots> exec(ExecParams p) {
    p.gen = gen_;
    return amd::exec(cmds_, p);
  }
  GcGen gen() const { return gen_; }

  // Copies the pending commands into the ring and rings the doorbell. Waits (through the
  // device's poll hook, up to `timeout`) for ring space; kTimeout if the GPU does not free it,
  // kInvalidArgument if the commands are larger than the ring. Pending commands are kept on
  // error.
  Status submit(Nanos timeout = default_wait_timeout(), Clock* clock = nullptr);

  uint64_t wptr() const { return wptr_; }
  const drivers::amd::ComputeQueueDesc& desc() const { return desc_; }

 private:
  ComputeQueue(drivers::amd::AmdDevice& device, drivers::amd::ComputeQueueDesc desc, GcGen gen)
      : device_(&device), desc_(desc), gen_(gen) {}
  drivers::amd::AmdDevice* device_;
  drivers::amd::ComputeQueueDesc desc_;
  GcGen gen_;
  CmdBuilder cmds_;
  uint64_t wptr_ = 0;
};

}  // namespace rawgpu::queues::amd
