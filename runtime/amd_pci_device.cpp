// "amd:<bdf>": an AMD GPU on this machine through VFIO (drivers/pci) and the AM driver
// (drivers::amd::PciAmdDevice, which boots it: boot.h) behind the AMD back end; a failed boot
// is the driver's typed error naming the step. Unvalidated on hardware.
#include <cstdlib>
#include <memory>
#include <string>

#include "rawgpu/base/env.h"
#include "rawgpu/drivers/amd/pci_device.h"
#include "rawgpu/drivers/pci/device_info.h"
#include "rawgpu/drivers/pci/vfio.h"
#include "rawgpu/runtime/amd_device.h"
#include "registry_internal.h"

namespace rawgpu::runtime {

Result<std::unique_ptr<Device>> open_amd_pci_device(std::string_view name) {
  const std::string_view text = name.substr(name.find(':') + 1);
  const pci::Bdf bdf = RG_TRY_CTX(pci::Bdf::parse(text), "device '%.*s'",
                                  static_cast<int>(name.size()), name.data());
  pci::VfioOptions vo;
  vo.allow_no_iommu = env::read_flag("RAWGPU_VFIO_NOIOMMU");
  std::shared_ptr<pci::VfioPciDevice> vfio =
      RG_TRY_CTX(pci::VfioPciDevice::open(bdf, vo),
                 "device '%.*s' (hand the GPU to vfio-pci first: rawgpu bind %s --vfio)",
                 static_cast<int>(name.size()), name.data(), bdf.to_string().c_str());
  drivers::amd::PciAmdOptions po;
  po.name = std::string(name);
  if (const char* fw = std::getenv("RAWGPU_AMD_FIRMWARE_DIR"); fw != nullptr && *fw != '\0')
    po.boot.firmware_dirs = {fw};
  std::unique_ptr<drivers::amd::PciAmdDevice> drv =
      RG_TRY_CTX(drivers::amd::PciAmdDevice::open(*vfio, po), "device '%.*s'",
                 static_cast<int>(name.size()), name.data());
  AmdDeviceConfig c;
  c.name = std::string(name);
  c.target = drv->target();  // from IP discovery
  // The function outlives the driver (its destructor dequeues and frees through the BARs).
  c.device = std::shared_ptr<drivers::amd::AmdDevice>(drv.release(),
                                                      [vfio](drivers::amd::AmdDevice* d) mutable {
                                                        delete d;
                                                        vfio.reset();
                                                      });
  return make_amd_device(std::move(c));
}

}  // namespace rawgpu::runtime
