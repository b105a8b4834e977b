// PCI IDs of the GPUs rawgpu targets. IDs and chip names as listed in the public pci.ids
// database; LLVM/ptxas targets from the AMDGPU and NVPTX target documentation.
#include <array>

#include "rawgpu/drivers/pci/device_info.h"

namespace rawgpu::pci {
namespace {
constexpr std::array kKnown = {
    // AMD RDNA3
    KnownGpu{kVendorAmd, 0x744c, "Navi31", "gfx1100", GpuFamily::kAmdRdna3},
    KnownGpu{kVendorAmd, 0x7480, "Navi33", "gfx1102", GpuFamily::kAmdRdna3},
    // AMD RDNA4
    KnownGpu{kVendorAmd, 0x7590, "Navi44", "gfx1200", GpuFamily::kAmdRdna4},
    KnownGpu{kVendorAmd, 0x7550, "Navi48", "gfx1201", GpuFamily::kAmdRdna4},
    KnownGpu{kVendorAmd, 0x7551, "Navi48", "gfx1201", GpuFamily::kAmdRdna4},
    // AMD CDNA3
    KnownGpu{kVendorAmd, 0x74a1, "MI300X", "gfx942", GpuFamily::kAmdCdna3},
    // NVIDIA Ampere
    KnownGpu{kVendorNvidia, 0x20b0, "GA100", "sm_80", GpuFamily::kNvAmpere},
    KnownGpu{kVendorNvidia, 0x20b2, "GA100", "sm_80", GpuFamily::kNvAmpere},
    KnownGpu{kVendorNvidia, 0x20b5, "GA100", "sm_80", GpuFamily::kNvAmpere},
    KnownGpu{kVendorNvidia, 0x2204, "GA102", "sm_86", GpuFamily::kNvAmpere},
    // NVIDIA Ada
    KnownGpu{kVendorNvidia, 0x2684, "AD102", "sm_89", GpuFamily::kNvAda},
    KnownGpu{kVendorNvidia, 0x27b8, "AD104", "sm_89", GpuFamily::kNvAda},
    // NVIDIA Hopper
    KnownGpu{kVendorNvidia, 0x2321, "GH100", "sm_90", GpuFamily::kNvHopper},
    KnownGpu{kVendorNvidia, 0x2322, "GH100", "sm_90", GpuFamily::kNvHopper},
    KnownGpu{kVendorNvidia, 0x2324, "GH100", "sm_90", GpuFamily::kNvHopper},
    KnownGpu{kVendorNvidia, 0x2330, "GH100", "sm_90", GpuFamily::kNvHopper},
    KnownGpu{kVendorNvidia, 0x2331, "GH100", "sm_90", GpuFamily::kNvHopper},
    KnownGpu{kVendorNvidia, 0x2335, "GH100", "sm_90", GpuFamily::kNvHopper},  // H200
    KnownGpu{kVendorNvidia, 0x2339, "GH100", "sm_90", GpuFamily::kNvHopper},
};
}  // namespace

const KnownGpu* find_known_gpu(uint16_t vendor, uint16_t device) {
  for (const KnownGpu& g : kKnown)
    if (g.vendor == vendor && g.device == device) return &g;
  return nullptr;
}

std::span<const KnownGpu> known_gpus() { return kKnown; }

std::string_view family_name(GpuFamily f) {
  switch (f) {
    case GpuFamily::kUnknown: return "unknown";
    case GpuFamily::kAmdRdna3: return "rdna3";
    case GpuFamily::kAmdRdna4: return "rdna4";
    case GpuFamily::kAmdCdna3: return "cdna3";
    case GpuFamily::kNvAmpere: return "ampere";
    case GpuFamily::kNvAda: return "ada";
    case GpuFamily::kNvHopper: return "hopper";
  }
  return "unknown";
}

}  // namespace rawgpu::pci
