#include "amd_function.h"

#include "rawgpu/base/env.h"
#include "rawgpu/drivers/pci/vfio.h"
#include "rawgpu/sim/amd_pci.h"

namespace rawgpu::tools {

namespace amd = drivers::amd;

Result<pci::PciDevice*> open_amd_function(std::string_view dev,
                                          std::unique_ptr<pci::PciDevice>& keep) {
  if (dev.starts_with("sim:")) {
    sim::AmdPciConfig c;
    c.gpu = RG_TRY(sim::parse_sim_device(dev));
    c.gpu.device_thread = false;
    keep = RG_TRY(sim::AmdPciFunction::create(c));
    return keep.get();
  }
  std::string_view bdf_text = dev;
  if (bdf_text.starts_with("amd:")) bdf_text.remove_prefix(4);
  const pci::Bdf bdf =
      RG_TRY_CTX(pci::Bdf::parse(bdf_text), "device '%.*s' (sim:gfx1100, sim:gfx1201 or amd:BDF)",
                 static_cast<int>(dev.size()), dev.data());
  pci::VfioOptions vo;
  vo.allow_no_iommu = env::read_flag("RAWGPU_VFIO_NOIOMMU");
  keep = RG_TRY_CTX(pci::VfioPciDevice::open(bdf, vo),
                    "device '%.*s' (hand the GPU to vfio-pci first: rawgpu bind %s --vfio)",
                    static_cast<int>(dev.size()), dev.data(), bdf.to_string().c_str());
  return keep.get();
}

Result<AmdFunctionInfo> read_amd_function(pci::PciDevice& fn) {
  AmdFunctionInfo info;
  info.vendor = static_cast<uint16_t>(RG_TRY(fn.cfg_read(0x00, 2)));
  info.device = static_cast<uint16_t>(RG_TRY(fn.cfg_read(0x02, 2)));
  info.revision = static_cast<uint8_t>(RG_TRY(fn.cfg_read(0x08, 1)));
  if (info.vendor != pci::kVendorAmd)
    return make_error(Errc::kUnsupported, "%s is PCI %04x:%04x, not an AMD GPU", fn.name().c_str(),
                      info.vendor, info.device);
  const uint32_t cmd = RG_TRY(fn.cfg_read(0x04, 2));
  if ((cmd & 0x2) == 0) RG_TRY(fn.cfg_write(0x04, 2, cmd | 0x2));  // memory decode only
  amd::DiscoverOptions o;
  o.resize_bar0 = false;  // look, do not change
  info.read = RG_TRY(amd::read_discovery(fn, o));
  for (int i = 0; i < 6; ++i)
    if (Result<pci::BarInfo> b = fn.bar(i); b.ok() && b->size != 0) info.bars.push_back(*b);
  return info;
}

}  // namespace rawgpu::tools
