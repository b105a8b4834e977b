// "sim:gfx1100" / "sim:gfx1201": the simulated GPU as a PCI function (sim::AmdPciFunction, bare
// hardware with the RDNA emulator) driven by drivers::amd::PciAmdDevice — the driver code a
// booted real board runs — behind the AMD back end.
#include "rawgpu/runtime/sim_devices.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "rawgpu/base/log.h"
#include "rawgpu/runtime/amd_device.h"
#include "rawgpu/runtime/nv_device.h"
#include "rawgpu/runtime/registry.h"
#include "rawgpu/sim/nv_rm.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::runtime {
namespace {

std::map<std::string, sim::rdna::Emulator*, std::less<>>& emulators() {
  static auto* m = new std::map<std::string, sim::rdna::Emulator*, std::less<>>();
  return *m;
}

// `registered`: the device the Tensor API uses (its emulator is the one sim_emulator returns);
// else a BEAM search device.
Result<std::unique_ptr<Device>> make_sim_device(const std::string& name, bool registered) {
  std::shared_ptr<sim::SimGpu> device =
      RG_TRY_CTX(sim::SimGpu::create(name), "starting %s", name.c_str());
  sim::AmdGpu* gpu = &device->hw();
  const bool rdna4 = gpu->gc_version() >= 120000;
  auto emu = std::make_shared<sim::rdna::Emulator>(
      *gpu, rdna4 ? sim::rdna::Target::kGfx1201 : sim::rdna::Target::kGfx1100);
  gpu->set_executor(emu.get());
  // RAWGPU_DEBUG=emu=1: per-opcode hit counters from the start (rawgpu demo --stats prints them).
  emu->options().count_opcodes = log::enabled("emu", 1);
  AmdDeviceConfig c;
  c.name = name;
  c.target = rdna4 ? "gfx1201" : "gfx1100";
  c.device = device;
  sim::rdna::Emulator* e = emu.get();
  c.before_launch = [e](std::string_view kernel) { e->options().kernel_name = kernel; };
  c.keep_alive = emu;
  // BEAM timing on the emulator: a cost model over the launch's executed wave instructions,
  // deterministic and independent of host load (emulation wall time says nothing about the
  // GPU). Each SIMD issues one wave instruction per cycle; a launch of W waves keeps min(W, S)
  // SIMDs busy (S: a full Navi 31 has 192 SIMD32s, Navi 48 128), so it takes about
  // instructions / min(W, S) cycles at 2.5 GHz. Memory latency and bandwidth are not modelled:
  // the search prefers kernels with fewer instructions on the critical wave and more parallel
  // waves.
  const uint64_t simds = rdna4 ? 128 : 192;
  c.measure = [e, simds](const std::function<Status()>& launch) -> Result<double> {
    const sim::rdna::Stats s0 = e->stats();
    RG_TRY(launch());
    const sim::rdna::Stats s1 = e->stats();
    const uint64_t insts = s1.instructions - s0.instructions, waves = s1.waves - s0.waves;
    if (waves == 0) return make_error(Errc::kInternal, "emulator cost: the launch ran no waves");
    return double(insts) / double(std::min(waves, simds)) / 2500.0;
  };
  c.measure_name = "emu-cost-1";
  // BEAM candidates run on a simulated GPU of their own: one that faults stops only that one.
  if (registered) c.beam_device = [name]() { return make_sim_device(name, false); };
  auto d = RG_TRY(make_amd_device(std::move(c)));
  if (registered) emulators()[name] = e;
  return d;
}

}  // namespace

// "sim:sm_86" / "sim:sm_89" / "sim:sm_90": the simulated NVIDIA kernel driver (sim::SimNvKernel,
// a GA102 / AD102 / GH100 behind driver 580.65.06) brought up by drivers/nv's RmGpu, the same
// code a machine with nvidia.ko runs, behind the NVIDIA back end. The GPU executes PTX images.
static Result<std::unique_ptr<Device>> make_sim_nv_device(const std::string& name,
                                                          sim::NvArch arch) {
  sim::SimNvConfig cfg;
  cfg.arch = arch;
  cfg.version = "580.65.06";
  cfg.vram_bytes = 8ull << 30;
  std::shared_ptr<sim::SimNvKernel> kernel =
      RG_TRY_CTX(sim::SimNvKernel::create(cfg), "starting %s", name.c_str());
  std::shared_ptr<nv::Rm> rm = RG_TRY_CTX(nv::Rm::open(*kernel), "starting %s", name.c_str());
  NvDeviceConfig c;
  c.name = name;
  c.gpu = RG_TRY_CTX(nv::RmGpu::open(*rm, 0), "starting %s", name.c_str());
  // The RM client before the kernel it talks to.
  c.keep_alive =
      std::make_shared<std::pair<std::shared_ptr<sim::SimNvKernel>, std::shared_ptr<nv::Rm>>>(
          kernel, rm);
  c.executes_ptx = true;
  return make_nv_device(std::move(c));
}

void register_sim_devices() {
  for (std::string_view n : sim::sim_device_names()) {
    const std::string name(n);
    emulators().erase(name);
    register_device(name, [name]() { return make_sim_device(name, true); });
  }
  for (const char* n : {"sim:sm_86", "sim:sm_89", "sim:sm_90"}) {
    const std::string name(n);
    const sim::NvArch a = *sim::nv_arch_of(name);
    register_device(name, [name, a]() { return make_sim_nv_device(name, a); });
  }
}

sim::rdna::Emulator* sim_emulator(std::string_view device) {
  auto it = emulators().find(device);
  return it == emulators().end() ? nullptr : it->second;
}

}  // namespace rawgpu::runtime
