// `rawgpu info DEV`: what an AMD GPU says about itself through its PCI function — the IP
// discovery table (every IP block with version, instance, die and register bases; gc_info's
// shader-engine layout and CU count; the harvest list), the VRAM size, the BARs and the LLVM
// target. DEV is `sim:gfx1100` / `sim:gfx1201` (the simulated board, as its firmware leaves
// it) or `amd:BDF` (through VFIO; the function must be bound to vfio-pci). Nothing is
// programmed: the command enables memory decode, reads registers and VRAM, and stops.
#include <llvm/Support/JSON.h>

#include "amd_function.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/autogen/amd/hw_ip.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/discover.h"

namespace rawgpu::tools {
namespace {

namespace amd = drivers::amd;
namespace hw = autogen::amd::hwid;

std::string target_of(const AmdFunctionInfo& info) {
  const amd::IpBlock* gc = info.read.discovery.find(hw::GC_HWID);
  if (gc == nullptr) return {};
  return std::string(amd::gc_target(gc->version, info.revision));
}

void print_text(std::ostream& os, const std::string& dev, const AmdFunctionInfo& info) {
  const amd::Discovery& d = info.read.discovery;
  const std::string target = target_of(info);
  os << strformat("%s: PCI %04x:%04x rev %02x, %s, %s VRAM\n", dev.c_str(), info.vendor,
                  info.device, info.revision, target.empty() ? "unknown target" : target.c_str(),
                  format_bytes(info.read.vram_size).c_str());
  for (const pci::BarInfo& b : info.bars)
    os << strformat("  BAR%d %s%s%s\n", b.index, format_bytes(b.size).c_str(),
                    b.is_64bit ? " 64-bit" : "", b.prefetchable ? " prefetchable" : "");
  if (d.gc)
    os << strformat("  compute: %u CUs (%u SE x %u SA x %u CU), %u XCC(s), %u SDMA engine(s)\n",
                    d.gc->cu_count() * std::max(1u, d.count(hw::GC_HWID)), d.gc->num_se,
                    d.gc->sa_per_se, d.gc->cu_per_sa(), d.count(hw::GC_HWID),
                    d.count(hw::SDMA0_HWID) + d.count(hw::SDMA1_HWID));
  os << strformat("  table read through %s\n",
                  info.read.through_bar0 ? "BAR0" : "the MM_INDEX/MM_DATA window");
  os << amd::describe(d);
}

void print_json(std::ostream& os, const std::string& dev, const AmdFunctionInfo& info) {
  const amd::Discovery& d = info.read.discovery;
  os << json_document("info", [&](llvm::json::OStream& j) {
    j.attribute("device", dev);
    j.attribute("vendor_id", static_cast<int64_t>(info.vendor));
    j.attribute("device_id", static_cast<int64_t>(info.device));
    j.attribute("revision", static_cast<int64_t>(info.revision));
    j.attribute("target", target_of(info));
    j.attribute("vram_bytes", static_cast<int64_t>(info.read.vram_size));
    j.attribute("read_through", info.read.through_bar0 ? "bar0" : "mm_index");
    j.attributeArray("bars", [&] {
      for (const pci::BarInfo& b : info.bars)
        j.object([&] {
          j.attribute("index", static_cast<int64_t>(b.index));
          j.attribute("bytes", static_cast<int64_t>(b.size));
          j.attribute("is_64bit", b.is_64bit);
          j.attribute("prefetchable", b.prefetchable);
        });
    });
    j.attributeObject("discovery", [&] {
      j.attribute("binary_version", strformat("%u.%u", d.binary_major, d.binary_minor));
      j.attribute("ip_table_version", static_cast<int64_t>(d.ip_version));
      j.attribute("base_addr_64", d.base_addr_64);
      j.attribute("dies", static_cast<int64_t>(d.num_dies));
      j.attributeArray("ips", [&] {
        for (const amd::IpBlock& b : d.ips)
          j.object([&] {
            j.attribute("block", amd::hw_id_name(b.hw_id));
            j.attribute("hw_id", static_cast<int64_t>(b.hw_id));
            j.attribute("instance", static_cast<int64_t>(b.instance));
            j.attribute("die", static_cast<int64_t>(b.die));
            j.attribute("version", b.version.str());
            j.attribute("harvested", b.harvested);
            j.attributeArray("bases", [&] {
              for (uint64_t x : b.bases) j.value(static_cast<int64_t>(x));
            });
          });
      });
      if (d.gc)
        j.attributeObject("gc_info", [&] {
          j.attribute("version", strformat("%u.%u", d.gc->version_major, d.gc->version_minor));
          j.attribute("shader_engines", static_cast<int64_t>(d.gc->num_se));
          j.attribute("shader_arrays_per_se", static_cast<int64_t>(d.gc->sa_per_se));
          j.attribute("cus_per_shader_array", static_cast<int64_t>(d.gc->cu_per_sa()));
          j.attribute("cus", static_cast<int64_t>(d.gc->cu_count()));
          j.attribute("wave_size", static_cast<int64_t>(d.gc->wave_size));
          j.attribute("lds_kib", static_cast<int64_t>(d.gc->lds_size_kib));
        });
      j.attributeArray("harvested", [&] {
        for (const amd::HarvestEntry& h : d.harvest)
          j.object([&] {
            j.attribute("block", amd::hw_id_name(h.hw_id));
            j.attribute("instance", static_cast<int64_t>(h.instance));
          });
      });
    });
  });
}

}  // namespace

cli::Command info_command() {
  cli::Command c;
  c.name = "info";
  c.summary = "what a GPU says about itself: AMD IP blocks, CUs, VRAM; NVIDIA driver, SM, SMs";
  c.description =
      "Reads DEV's IP discovery table (through BAR0, or the MM_INDEX/MM_DATA window when BAR0\n"
      "is small) and prints every IP block with its version, instance, die and register bases,\n"
      "the shader-engine layout and CU count (gc_info), the harvested blocks, the VRAM size,\n"
      "the BARs and the LLVM target. DEV: sim:gfx1100, sim:gfx1201, or amd:BDF (bound to\n"
      "vfio-pci). Nothing is programmed: memory decode is enabled and registers are read.\n"
      "For NVIDIA GPUs (DEV nv:<n> through the NVIDIA kernel driver, or sim:sm_86, sim:sm_89,\n"
      "sim:sm_90): the driver version, PCI device id, UUID, SM version and ptxas target, the SM\n"
      "count, and the GPFIFO/compute/copy classes rawgpu selected, from the RM bring-up.";
  c.options = {{"json", 'j', "", "print JSON", ""}};
  c.positionals = {
      {"DEV", "sim:gfx1100, sim:gfx1201, amd:BDF, nv:<n> or sim:sm_86|sm_89|sm_90", true, false}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    const std::string dev = args.positionals()[0];
    if (dev.starts_with("nv:") || dev.starts_with("sim:sm_"))
      return run_nv_info(dev, args.flag("json"), io);
    std::unique_ptr<pci::PciDevice> keep;
    Result<pci::PciDevice*> fn = open_amd_function(dev, keep);
    Result<AmdFunctionInfo> info =
        fn.ok() ? read_amd_function(**fn) : Result<AmdFunctionInfo>(fn.error());
    if (!info) {
      io.err << "rawgpu info: " << info.error().to_string() << "\n";
      return cli::kExitFailure;
    }
    if (args.flag("json"))
      print_json(io.out, dev, *info);
    else
      print_text(io.out, dev, *info);
    return cli::kExitOk;
  };
  return c;
}

}  // namespace rawgpu::tools
