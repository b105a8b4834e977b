#include "rawgpu/runtime/registry.h"

#include <map>
#include <mutex>

#include "rawgpu/runtime/cpu_device.h"
#include "rawgpu/runtime/nv_device.h"
#include "registry_internal.h"

namespace rawgpu::runtime {
namespace {

struct Registry {
  std::map<std::string, DeviceFactory, std::less<>> factories;
  std::map<std::string, std::unique_ptr<Device>, std::less<>> devices;
  std::string default_device = "cpu";
  Registry() {
    factories["cpu"] = []() -> Result<std::unique_ptr<Device>> { return make_cpu_device(); };
  }
};

Registry& reg() {
  static Registry* r = new Registry();  // never destroyed: tensors may outlive static destructors
  return *r;
}

}  // namespace

void register_device(std::string name, DeviceFactory factory) {
  reg().devices.erase(name);
  reg().factories[std::move(name)] = std::move(factory);
}

std::vector<std::string> device_names() {
  std::vector<std::string> out;
  for (const auto& [k, v] : reg().factories) out.push_back(k);
  return out;
}

Result<Device*> get_device(std::string_view name) {
  Registry& r = reg();
  if (name.empty()) name = r.default_device;
  if (auto it = r.devices.find(name); it != r.devices.end()) return it->second.get();
  auto f = r.factories.find(name);
  std::unique_ptr<Device> d;
  if (f != r.factories.end()) {
    d = RG_TRY(f->second());
  } else if (name.starts_with("amd:")) {
    d = RG_TRY(open_amd_pci_device(name));  // a GPU of this machine, by PCI address
  } else if (name.starts_with("nv:")) {
    d = RG_TRY(open_nv_device(name));  // through this machine's NVIDIA kernel driver
  } else {
    std::string known;
    for (const auto& [k, v] : r.factories) known += (known.empty() ? "" : ", ") + k;
    return make_error(Errc::kNotFound,
                      "unknown device '%.*s' (known: %s, amd:<bdf> for an AMD GPU of this machine, "
                      "see rawgpu list, and nv:<n> for an NVIDIA GPU of its kernel driver)",
                      int(name.size()), name.data(), known.c_str());
  }
  Device* p = d.get();
  r.devices.emplace(std::string(name), std::move(d));
  return p;
}

Status set_default_device(std::string_view name) {
  RG_TRY(get_device(name));
  reg().default_device = std::string(name.empty() ? std::string_view("cpu") : name);
  return ok_status();
}

const std::string& default_device() { return reg().default_device; }

}  // namespace rawgpu::runtime
