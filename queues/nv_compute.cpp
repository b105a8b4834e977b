#include "rawgpu/queues/nv_compute.h"

#include <cstring>

#include "rawgpu/autogen/nv/compute_classes.h"
#include "rawgpu/autogen/nv/qmd.h"
#include "rawgpu/autogen/nv/rm_abi.h"
#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/nv/ptx_image.h"

namespace rawgpu::queues {

namespace q3 = autogen::nv::qmd::v03;
namespace cc = autogen::nv::clc6c0;
namespace rm = autogen::nv::rm;

namespace {

constexpr uint32_t kReservedShared = 0x400;  // the hardware's per-CTA reserve
constexpr uint32_t kInitialStack = 0xfffdc0;
constexpr uint64_t kLimit40 = 1ull << 40;

void put(std::span<uint32_t> q, const autogen::nv::qmd::QmdField& f, uint64_t v, uint32_t i = 0) {
  set_bits(q, f.at(i), v);
}

// SM carve-out codes (KiB / 4 + 1) of the configurations each architecture offers (CUDA tuning
// guides), smallest first.
std::vector<uint32_t> carveouts_kib(uint32_t sm) {
  if (sm == 0x900) return {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  if (sm == 0x800) return {0, 8, 16, 32, 64, 100, 132, 164};
  return {0, 8, 16, 32, 64, 100};
}

}  // namespace

Result<uint32_t> nv_param_base(uint32_t sm) {
  if (sm >= 0x800 && sm < 0x900) return 0x160;
  if (sm == 0x900) return 0x210;
  return make_error(Errc::kUnsupported, "no constant-bank parameter base known for SM 0x%x", sm);
}

Result<NvProgram> NvProgram::load_ptx(nv::RmGpu& gpu, const NvKernelInfo& info,
                                      std::string_view ptx) {
  const std::vector<uint8_t> img = nv::make_ptx_image(info.name, ptx);
  NvProgram p;
  p.info_ = info;
  // Instruction prefetch runs past the end of the code: keep 4 KiB of slack after it.
  p.image_ = RG_TRY(gpu.alloc_vram(img.size() + 4096, true));
  std::memcpy(p.image_.cpu(), img.data(), img.size());
  std::memset(p.image_.cpu() + img.size(), 0, p.image_.size - img.size());
  return p;
}

NvComputeQueue::NvComputeQueue(nv::RmGpu& gpu, NvChannelQueue& channel,
                               const nv::NvMemory& kernargs)
    : gpu_(gpu), channel_(channel), kernargs_(kernargs) {}

Status NvComputeQueue::setup() {
  NvPushBuffer pb(gpu_.classes().gpfifo, gpu_.classes().copy);
  pb.set_object(kNvSubchCompute, gpu_.classes().compute);
  pb.inc(kNvSubchCompute, cc::NVC6C0_SET_SHADER_SHARED_MEMORY_WINDOW_A,
         {static_cast<uint32_t>(kNvSharedWindow >> 32), static_cast<uint32_t>(kNvSharedWindow)});
  pb.inc(kNvSubchCompute, cc::NVC6C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A,
         {static_cast<uint32_t>(kNvLocalWindow >> 32), static_cast<uint32_t>(kNvLocalWindow)});
  pb.inc(kNvSubchCompute, cc::NVC6C0_INVALIDATE_SKED_CACHES, {0});
  RG_TRY(channel_.submit(pb));
  set_up_ = true;
  return {};
}

Result<uint64_t> NvComputeQueue::alloc_kernargs(uint64_t bytes) {
  bytes = (bytes + 255) / 256 * 256;
  if (bytes > kernargs_.size) {
    return make_error(Errc::kInvalidArgument, "a launch needs %s of kernargs; the ring has %s",
                      format_bytes(bytes).c_str(), format_bytes(kernargs_.size).c_str());
  }
  uint64_t start = head_;
  if (start % kernargs_.size + bytes > kernargs_.size)
    start += kernargs_.size - start % kernargs_.size;
  const uint64_t end = start + bytes;
  // Space is free once the launches that used it have signaled.
  while (!in_flight_.empty()) {
    const InFlight& f = in_flight_.front();
    const bool overlaps = end > kernargs_.size && f.end > end - kernargs_.size;
    if (!overlaps) {
      if (*f.signal >= f.value)
        in_flight_.pop_front();
      else
        break;
      continue;
    }
    RG_TRY_CTX(nv_wait_value(gpu_, f.signal, f.value, "kernarg ring space"),
               "reusing kernarg space");
    in_flight_.pop_front();
  }
  head_ = end;
  return kernargs_.va + start % kernargs_.size;
}

Status NvComputeQueue::launch(const NvProgram& program, const NvLaunch& l,
                              const volatile uint64_t* signal, uint64_t signal_va, uint64_t value) {
  if (!set_up_) RG_TRY(setup());
  const NvKernelInfo& info = program.info();
  const uint64_t threads = uint64_t{l.block[0]} * l.block[1] * l.block[2];
  if (threads == 0 || threads > 1024 || l.block[0] > 1024 || l.block[1] > 1024 || l.block[2] > 64 ||
      l.grid[0] == 0 || l.grid[1] == 0 || l.grid[2] == 0 || l.grid[0] > 0x7fffffffu ||
      l.grid[1] > 65535 || l.grid[2] > 65535) {
    return make_error(Errc::kInvalidArgument,
                      "launch of %s with block %ux%ux%u, grid %ux%ux%u is outside the limits "
                      "(block <= 1024 threads, dims <= 1024x1024x64; grid <= 2^31-1 x 65535 x "
                      "65535)",
                      info.name.c_str(), l.block[0], l.block[1], l.block[2], l.grid[0], l.grid[1],
                      l.grid[2]);
  }
  if (l.params.size() != info.param_bytes) {
    return make_error(Errc::kInvalidArgument, "launch of %s with %zu parameter bytes; it takes %u",
                      info.name.c_str(), l.params.size(), info.param_bytes);
  }
  if (signal_va % 8 != 0 || signal_va + 16 > kLimit40) {
    return make_error(Errc::kOutOfRange, "QMD V03 releases reach 40 bits: signal at %s",
                      hex(signal_va).c_str());
  }
  const uint32_t sm = gpu_.gr().sm.raw;
  const uint32_t base = RG_TRY(nv_param_base(sm));
  const uint32_t cb0 = (base + info.param_bytes + 15) / 16 * 16;
  const uint32_t qmd_off = (cb0 + 255) / 256 * 256;
  const uint64_t va = RG_TRY(alloc_kernargs(qmd_off + q3::kBytes));
  uint8_t* cpu = kernargs_.cpu() + (va - kernargs_.va);
  std::memset(cpu, 0, qmd_off + q3::kBytes);
  // Constant bank 0: driver words, then the parameters.
  uint32_t words[6] = {l.block[0], l.block[1], l.block[2], l.grid[0], l.grid[1], l.grid[2]};
  std::memcpy(cpu, words, sizeof(words));
  const uint64_t sw = kNvSharedWindow, lw = kNvLocalWindow;
  std::memcpy(cpu + 0x18, &sw, 8);
  std::memcpy(cpu + 0x20, &lw, 8);
  const uint32_t stack = kInitialStack, dyn = l.dynamic_shared;
  std::memcpy(cpu + 0x28, &stack, 4);
  std::memcpy(cpu + 0x2c, &dyn, 4);
  if (!l.params.empty()) std::memcpy(cpu + base, l.params.data(), l.params.size());

  // The QMD.
  std::vector<uint32_t> qmd(q3::kBytes / 4, 0);
  std::span<uint32_t> q(qmd);
  const uint32_t shared =
      (kReservedShared + info.shared_bytes + l.dynamic_shared + 127) / 128 * 128;
  uint32_t carve = 0;
  for (uint32_t kib : carveouts_kib(sm)) {
    if (uint64_t{kib} * 1024 >= shared) {
      carve = kib / 4 + 1;
      break;
    }
  }
  if (carve == 0) {
    return make_error(Errc::kInvalidArgument,
                      "%s needs %s of shared memory per CTA: more than "
                      "SM 0x%x offers",
                      info.name.c_str(), format_bytes(shared).c_str(), sm);
  }
  put(q, q3::QMD_GROUP_ID, 0x3f);
  put(q, q3::SM_GLOBAL_CACHING_ENABLE, 1);
  put(q, q3::INVALIDATE_TEXTURE_HEADER_CACHE, 1);
  put(q, q3::INVALIDATE_TEXTURE_SAMPLER_CACHE, 1);
  put(q, q3::INVALIDATE_TEXTURE_DATA_CACHE, 1);
  put(q, q3::INVALIDATE_SHADER_DATA_CACHE, 1);
  put(q, q3::CWD_MEMBAR_TYPE, 1);  // L1_SYSMEMBAR
  put(q, q3::API_VISIBLE_CALL_LIMIT, 1);
  put(q, q3::SAMPLER_INDEX, 1);
  put(q, q3::CTA_RASTER_WIDTH, l.grid[0]);
  put(q, q3::CTA_RASTER_HEIGHT, l.grid[1]);
  put(q, q3::CTA_RASTER_DEPTH, l.grid[2]);
  put(q, q3::CTA_THREAD_DIMENSION0, l.block[0]);
  put(q, q3::CTA_THREAD_DIMENSION1, l.block[1]);
  put(q, q3::CTA_THREAD_DIMENSION2, l.block[2]);
  put(q, q3::SHARED_MEMORY_SIZE, shared);
  put(q, q3::MIN_SM_CONFIG_SHARED_MEM_SIZE, carve);
  put(q, q3::TARGET_SM_CONFIG_SHARED_MEM_SIZE, carve);
  put(q, q3::MAX_SM_CONFIG_SHARED_MEM_SIZE, carveouts_kib(sm).back() / 4 + 1);
  put(q, q3::QMD_MAJOR_VERSION, 3);
  put(q, q3::CONSTANT_BUFFER_VALID, 1, 0);
  put(q, q3::CONSTANT_BUFFER_ADDR_LOWER, va & 0xffffffffu, 0);
  put(q, q3::CONSTANT_BUFFER_ADDR_UPPER, va >> 32, 0);
  put(q, q3::CONSTANT_BUFFER_SIZE_SHIFTED4, cb0 / 16, 0);
  put(q, q3::CONSTANT_BUFFER_INVALIDATE, 1, 0);
  put(q, q3::PROGRAM_ADDRESS_LOWER, program.va() & 0xffffffffu);
  put(q, q3::PROGRAM_ADDRESS_UPPER, program.va() >> 32);
  put(q, q3::REGISTER_COUNT_V, info.registers != 0 ? info.registers : 255);
  put(q, q3::BARRIER_COUNT, 1);
  put(q, q3::SASS_VERSION, gpu_.gr().sm.sass);
  put(q, q3::RELEASE0_ENABLE, 1);
  put(q, q3::RELEASE0_STRUCTURE_SIZE, 0);  // four words: payload, then the timestamp
  put(q, q3::RELEASE0_PAYLOAD64B, 1);
  put(q, q3::RELEASE0_ADDRESS_LOWER, signal_va & 0xffffffffu);
  put(q, q3::RELEASE0_ADDRESS_UPPER, signal_va >> 32);
  put(q, q3::RELEASE0_PAYLOAD_LOWER, value & 0xffffffffu);
  put(q, q3::RELEASE0_PAYLOAD_UPPER, value >> 32);
  std::memcpy(cpu + qmd_off, qmd.data(), q3::kBytes);
  last_qmd_ = qmd;

  const uint64_t qmd_va = va + qmd_off;
  NvPushBuffer pb(gpu_.classes().gpfifo, gpu_.classes().copy);
  pb.inc(kNvSubchCompute, cc::NVC6C0_SEND_PCAS_A, {static_cast<uint32_t>(qmd_va >> 8)});
  pb.inc(kNvSubchCompute, cc::NVC6C0_SEND_SIGNALING_PCAS2_B,
         {cc::NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE});
  RG_TRY(channel_.submit(pb));
  in_flight_.push_back({head_, signal, value});
  return {};
}

}  // namespace rawgpu::queues
