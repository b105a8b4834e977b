// Fuzz target for the RDNA decoder, printer and executor: random instruction words must decode
// to a table entry (and print) or a typed kParse error, and running them as a program (one wave,
// 2000 instructions at most, on a simulated GPU) must end, or stop with a typed error — never
// crash.
//
// Input: byte 0 bit 0 selects gfx1100/gfx1201, bit 1 enables execution, bit 2 runs three
// workgroups on two emulator threads; the rest is code.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "rawgpu/sim/rdna.h"
#include "rawgpu/sim/sim_gpu.h"

namespace {
using namespace rawgpu;

void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_rdna invariant violated: %s\n", what);
    std::abort();
  }
}

struct Rig {
  std::unique_ptr<sim::SimGpu> gpu;  // behind its PCI function, with the driver
  drivers::amd::DeviceBuffer code, data;
};

Rig& rig() {
  static Rig r = [] {
    Rig x;
    x.gpu = std::move(sim::SimGpu::create().value());
    x.code = x.gpu->alloc(8192, drivers::amd::BufferPlacement::kHost).value();
    x.data = x.gpu->alloc(4096, drivers::amd::BufferPlacement::kHost).value();
    return x;
  }();
  return r;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto t = (data[0] & 1) ? sim::rdna::Target::kGfx1201 : sim::rdna::Target::kGfx1100;
  const bool run = (data[0] & 2) != 0;
  std::vector<uint32_t> words((size - 1) / 4);
  if (!words.empty()) std::memcpy(words.data(), data + 1, words.size() * 4);
  for (size_t i = 0; i < words.size();) {
    auto d = sim::rdna::decode(t, std::span<const uint32_t>(words).subspan(i));
    if (!d) {
      require(d.error().code() == Errc::kParse, "decode errors are kParse");
      ++i;
      continue;
    }
    require(d->info != nullptr, "decoded instruction has a table entry");
    require(d->size >= 4 && d->size <= 16 && d->size % 4 == 0, "instruction size");
    require(i + d->size / 4 <= words.size(), "decode read past the input");
    require(!sim::rdna::mnemonic(*d).empty(), "mnemonic");
    require(!sim::rdna::disassemble(t, *d).empty(), "disassembly");
    i += d->size / 4;
  }
  if (!run || words.empty() || words.size() > 2000) return 0;
  Rig& r = rig();
  std::memset(r.code.cpu, 0, r.code.size);
  std::memcpy(r.code.cpu, words.data(), words.size() * 4);
  sim::rdna::Options o;
  o.max_instructions = 2000;
  sim::rdna::Emulator emu(r.gpu->hw(), t, o);
  sim::DispatchState s;
  s.program = r.code.va;
  s.rsrc1 = 7u | (0xF0u << 12);
  s.rsrc2 = (2u << 1) | (1u << 7) | (1u << 15);  // kernarg pointer, TGID X, 512 B of LDS
  s.user_data = {static_cast<uint32_t>(r.data.va.raw()),
                 static_cast<uint32_t>(r.data.va.raw() >> 32)};
  s.grid = {1, 1, 1};
  s.workgroup = {64, 1, 1};
  s.wave32 = true;
  s.lds_bytes = 512;
  if (data[0] & 4) {  // three workgroups on two emulator threads
    s.grid = {3, 1, 1};
    emu.options().threads = 2;
  }
  Status st = emu.execute(s);
  if (!st) require(!st.error().to_string().empty(), "errors carry a message");
  return 0;
}
