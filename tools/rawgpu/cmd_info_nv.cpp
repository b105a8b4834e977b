// `rawgpu info nv:<n>` / `sim:sm_86|sm_89|sm_90`: what an NVIDIA GPU reports through the kernel
// driver's RM interface (drivers/nv RmGpu: the same bring-up a Tensor device does): the driver
// version and the struct branch rawgpu selected for it, the PCI device id, the UUID, the SM
// version and the ptxas target, the SM count from the GR geometry, and the classes chosen for
// each role. The simulated GPUs answer through the simulated kernel driver.
#include <llvm/Support/JSON.h>

#include <charconv>

#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/nv/rm_gpu.h"
#include "rawgpu/sim/nv_rm.h"

namespace rawgpu::tools {
namespace {

struct NvOpened {
  std::unique_ptr<sim::SimNvKernel> sim;  // before the client that talks to it
  std::unique_ptr<nv::Rm> rm;
  std::unique_ptr<nv::RmGpu> gpu;
};

Result<NvOpened> open_nv(const std::string& dev) {
  NvOpened o;
  uint32_t index = 0;
  if (dev.starts_with("sim:sm_")) {
    const std::optional<sim::NvArch> arch = sim::nv_arch_of(dev);
    if (!arch)
      return make_error(Errc::kNotFound,
                        "%s: the simulated NVIDIA GPUs are sim:sm_86, sim:sm_89 and sim:sm_90",
                        dev.c_str());
    sim::SimNvConfig c;
    c.arch = *arch;
    c.version = "580.65.06";
    o.sim = RG_TRY(sim::SimNvKernel::create(c));
    o.rm = RG_TRY(nv::Rm::open(*o.sim));
  } else {
    const std::string_view n = std::string_view(dev).substr(3);
    const auto r = std::from_chars(n.data(), n.data() + n.size(), index);
    if (n.empty() || r.ec != std::errc() || r.ptr != n.data() + n.size())
      return make_error(Errc::kInvalidArgument, "%s: nv:<n> takes a GPU index", dev.c_str());
    o.rm = RG_TRY(nv::Rm::open(nv::Kernel::os()));
  }
  o.gpu = RG_TRY_CTX(nv::RmGpu::open(*o.rm, index), "%s", dev.c_str());
  return o;
}

std::string uuid_text(const std::array<uint8_t, 16>& u) {
  std::string s = "GPU-";
  for (size_t i = 0; i < u.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += strformat("%02x", u[i]);
  }
  return s;
}

uint32_t sm_count(const nv::NvGrInfo& g) { return g.num_gpcs * g.tpc_per_gpc * g.sm_per_tpc; }

}  // namespace

int run_nv_info(const std::string& dev, bool json, cli::Io& io) {
  auto o = open_nv(dev);
  if (!o) {
    io.err << "rawgpu info: " << o.error().to_string() << "\n";
    return cli::kExitFailure;
  }
  const nv::Rm& rm = *o->rm;
  const nv::RmGpu& g = *o->gpu;
  const nv::NvGrInfo& gr = g.gr();
  const nv::NvClasses& cls = g.classes();
  if (json) {
    io.out << json_document("info", [&](llvm::json::OStream& j) {
      j.attribute("device", dev);
      j.attribute("vendor_id", static_cast<int64_t>(0x10de));
      j.attribute("device_id", static_cast<int64_t>(g.pci_device_id()));
      j.attribute("driver_version", rm.version().text);
      j.attribute("simulated", o->sim != nullptr);
      j.attribute("uuid", uuid_text(g.uuid()));
      j.attribute("target", gr.sm.target);
      j.attribute("sm_version", strformat("0x%x", gr.sm.raw));
      j.attribute("sms", static_cast<int64_t>(sm_count(gr)));
      j.attribute("gpcs", static_cast<int64_t>(gr.num_gpcs));
      j.attribute("tpcs_per_gpc", static_cast<int64_t>(gr.tpc_per_gpc));
      j.attribute("sms_per_tpc", static_cast<int64_t>(gr.sm_per_tpc));
      j.attribute("max_warps_per_sm", static_cast<int64_t>(gr.max_warps_per_sm));
      j.attributeObject("classes", [&] {
        j.attribute("gpfifo", strformat("0x%04x", cls.gpfifo));
        j.attribute("compute", strformat("0x%04x", cls.compute));
        j.attribute("copy", strformat("0x%04x", cls.copy));
        j.attribute("usermode", strformat("0x%04x", cls.usermode));
      });
      j.attribute("vram_bytes", nullptr);
    });
    return cli::kExitOk;
  }
  io.out << strformat("%s: NVIDIA %04x (%s, SM 0x%x), driver %s%s\n", dev.c_str(),
                      g.pci_device_id(), gr.sm.target.c_str(), gr.sm.raw, rm.version().text.c_str(),
                      o->sim ? " (simulated)" : "");
  io.out << strformat("  %s\n", uuid_text(g.uuid()).c_str());
  io.out << strformat("  compute: %u SMs (%u GPC x %u TPC x %u SM), %u warps per SM\n",
                      sm_count(gr), gr.num_gpcs, gr.tpc_per_gpc, gr.sm_per_tpc,
                      gr.max_warps_per_sm);
  io.out << strformat("  classes: gpfifo 0x%04x, compute 0x%04x, copy 0x%04x, usermode 0x%04x\n",
                      cls.gpfifo, cls.compute, cls.copy, cls.usermode);
  io.out << "  VRAM: not read (NV2080_CTRL_CMD_FB_GET_INFO_V2's list size differs between "
            "driver branches and is not in rawgpu's per-branch tables yet)\n";
  return cli::kExitOk;
}

}  // namespace rawgpu::tools
