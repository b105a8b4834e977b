#include "rawgpu/drivers/pci/takeover.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"

namespace rawgpu::pci {
namespace {

namespace fs = std::filesystem;

Sys& sys_of(const SysfsOptions& o) { return o.sys ? *o.sys : Sys::os(); }

Errc errc_of(int err) {
  switch (err) {
    case ENOENT:
    case ENODEV: return Errc::kNotFound;
    case EACCES:
    case EPERM: return Errc::kPermission;
    case EBUSY: return Errc::kBusy;
    default: return Errc::kIo;
  }
}

std::string basename_of(const std::string& p) {
  const size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string devdir(const SysfsOptions& o, const std::string& bdf) {
  return o.sysfs_root + "/bus/pci/devices/" + bdf;
}

// Writes `value` to a sysfs attribute (one write, as the kernel wants).
Status write_attr(const SysfsOptions& o, const std::string& path, const std::string& value) {
  Sys& sys = sys_of(o);
  const int fd = sys.open(path, O_WRONLY);
  if (fd < 0)
    return std::move(make_error(errc_of(-fd), "%s: cannot open for writing: %s", path.c_str(),
                                std::strerror(-fd))
                         .with_hint(-fd == EACCES || -fd == EPERM
                                        ? "taking a device from its driver needs root"
                                        : ""));
  const ssize_t n = sys.write(fd, value.data(), value.size());
  sys.close(fd);
  if (n < 0)
    return make_error(errc_of(static_cast<int>(-n)), "%s: writing '%s': %s", path.c_str(),
                      value.c_str(), std::strerror(static_cast<int>(-n)));
  return ok_status();
}

Result<std::string> read_attr(const SysfsOptions& o, const std::string& path) {
  Sys& sys = sys_of(o);
  const int fd = sys.open(path, O_RDONLY);
  if (fd < 0) return make_error(errc_of(-fd), "%s: %s", path.c_str(), std::strerror(-fd));
  std::string out(4096, '\0');
  const ssize_t n = sys.pread(fd, out.data(), out.size(), 0);
  sys.close(fd);
  if (n < 0)
    return make_error(errc_of(static_cast<int>(-n)), "%s: %s", path.c_str(),
                      std::strerror(static_cast<int>(-n)));
  out.resize(static_cast<size_t>(n));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// `bdf` first, then the other functions of its IOMMU group (sorted).
std::vector<std::string> group_functions(const SysfsOptions& o, const std::string& bdf) {
  std::vector<std::string> out{bdf};
  std::string target;
  if (sys_of(o).readlink(devdir(o, bdf) + "/iommu_group", target) < 0) return out;
  std::error_code ec;
  const fs::path dir =
      fs::path(o.sysfs_root) / "kernel/iommu_groups" / basename_of(target) / "devices";
  std::vector<std::string> others;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename() != bdf) others.push_back(e.path().filename().string());
  std::sort(others.begin(), others.end());
  out.insert(out.end(), others.begin(), others.end());
  return out;
}

Result<std::string> driver_of(const SysfsOptions& o, const std::string& bdf) {
  std::string target;
  const ssize_t r = sys_of(o).readlink(devdir(o, bdf) + "/driver", target);
  if (r == -ENOENT) return std::string();
  if (r < 0)
    return make_error(errc_of(static_cast<int>(-r)), "%s: reading its driver: %s", bdf.c_str(),
                      std::strerror(static_cast<int>(-r)));
  return basename_of(target);
}

// Gives one function back: no override, not vfio-pci, the kernel probes its own driver.
Status give_back(const SysfsOptions& o, const std::string& bdf) {
  RG_TRY(write_attr(o, devdir(o, bdf) + "/driver_override", "\n"));
  if (RG_TRY(driver_of(o, bdf)) == "vfio-pci")
    RG_TRY(write_attr(o, o.sysfs_root + "/bus/pci/drivers/vfio-pci/unbind", bdf));
  RG_TRY(write_attr(o, o.sysfs_root + "/bus/pci/drivers_probe", bdf));
  return ok_status();
}

Status take(const SysfsOptions& o, const std::string& bdf, const std::string& driver) {
  RG_TRY(write_attr(o, devdir(o, bdf) + "/driver_override", "vfio-pci"));
  if (!driver.empty())
    RG_TRY(write_attr(o, o.sysfs_root + "/bus/pci/drivers/" + driver + "/unbind", bdf));
  RG_TRY(write_attr(o, o.sysfs_root + "/bus/pci/drivers_probe", bdf));
  const std::string now = RG_TRY(driver_of(o, bdf));
  if (now != "vfio-pci")
    return std::move(make_error(Errc::kHardware, "%s: vfio-pci did not take the device (%s)",
                                bdf.c_str(),
                                now.empty() ? "no driver is bound" : ("bound to " + now).c_str())
                         .with_hint("load the module: modprobe vfio-pci"));
  return ok_status();
}

}  // namespace

Result<std::string> bound_driver(const Bdf& bdf, const SysfsOptions& options) {
  const std::string b = bdf.to_string();
  std::string target;
  const ssize_t r = sys_of(options).readlink(devdir(options, b), target);
  if (r < 0 && r != -EINVAL)
    return std::move(make_error(Errc::kNotFound, "%s: no such PCI function (%s)", b.c_str(),
                                std::strerror(static_cast<int>(-r)))
                         .with_hint("`rawgpu list` shows the GPUs present"));
  return driver_of(options, b);
}

std::vector<std::string> drm_users(const Bdf& bdf, const SysfsOptions& options) {
  std::vector<std::string> nodes;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(devdir(options, bdf.to_string()) + "/drm", ec))
    nodes.push_back(options.dev_root + "/dri/" + e.path().filename().string());
  std::vector<std::string> users;
  if (nodes.empty()) return users;
  Sys& sys = sys_of(options);
  for (const auto& p : fs::directory_iterator(options.proc_root, ec)) {
    const std::string pid = p.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code fec;
    for (const auto& f : fs::directory_iterator(p.path() / "fd", fec)) {
      std::string target;
      if (sys.readlink(f.path().string(), target) < 0) continue;
      if (std::find(nodes.begin(), nodes.end(), target) == nodes.end()) continue;
      auto comm = read_attr(options, (p.path() / "comm").string());
      users.push_back(pid + " (" + (comm ? *comm : std::string("?")) + ")");
      break;
    }
  }
  std::sort(users.begin(), users.end());
  return users;
}

Result<BindResult> bind_vfio(const Bdf& bdf, const SysfsOptions& options, const BindOptions& bind) {
  const std::string b = bdf.to_string();
  const std::string first = RG_TRY(bound_driver(bdf, options));
  if (!bind.force) {
    const std::vector<std::string> users = drm_users(bdf, options);
    if (!users.empty()) {
      std::string list;
      for (const std::string& u : users) list += (list.empty() ? "" : ", ") + u;
      return std::move(make_error(Errc::kBusy, "%s is in use by %s (%s)", b.c_str(),
                                  first.empty() ? "a driver" : first.c_str(), list.c_str())
                           .with_hint("stop them (a display server or compute job) first, or "
                                      "pass --force to take the GPU anyway"));
    }
    if (auto vga = read_attr(options, devdir(options, b) + "/boot_vga"); vga && *vga == "1")
      return std::move(
          make_error(Errc::kBusy, "%s drives the boot display", b.c_str())
              .with_hint("taking it blanks the console; pass --force if that is intended"));
  }
  BindResult result;
  for (const std::string& f : group_functions(options, b)) {
    auto driver = driver_of(options, f);
    Status st = driver.ok() ? ok_status() : Status(driver.error());
    if (st.ok() && *driver == "vfio-pci") continue;
    if (st.ok()) st = take(options, f, *driver);
    if (!st.ok()) {
      // Give back what was taken, newest first, and the failing one.
      (void)give_back(options, f);
      for (size_t i = result.functions.size(); i-- > 0;)
        (void)give_back(options, result.functions[i]);
      return st.error();
    }
    RG_LOG("pci", 1, "%s: %s -> vfio-pci", f.c_str(),
           driver->empty() ? "no driver" : driver->c_str());
    result.functions.push_back(f);
    result.previous.push_back(*driver);
  }
  return result;
}

Status release(const Bdf& bdf, const SysfsOptions& options) {
  const std::string b = bdf.to_string();
  (void)RG_TRY(bound_driver(bdf, options));
  Status first = ok_status();
  for (const std::string& f : group_functions(options, b)) {
    auto driver = driver_of(options, f);
    if (!driver || *driver != "vfio-pci") continue;
    if (Status st = give_back(options, f); !st.ok() && first.ok()) first = st;
  }
  return first;
}

Result<DeviceLock> DeviceLock::acquire(const Bdf& bdf, const SysfsOptions& options) {
  Sys& sys = sys_of(options);
  const std::string path = options.lock_dir + "/rawgpu-" + bdf.to_string() + ".lock";
  const int fd = sys.open(path, O_RDWR | O_CREAT);
  if (fd < 0)
    return make_error(errc_of(-fd), "%s: cannot open the lock file %s: %s", bdf.to_string().c_str(),
                      path.c_str(), std::strerror(-fd));
  if (const int r = sys.flock(fd, LOCK_EX | LOCK_NB); r < 0) {
    std::string owner(32, '\0');
    const ssize_t n = sys.pread(fd, owner.data(), owner.size(), 0);
    owner.resize(n > 0 ? static_cast<size_t>(n) : 0);
    owner.erase(0, owner.find_first_not_of(' '));
    while (!owner.empty() && (owner.back() == '\n' || owner.back() == ' ')) owner.pop_back();
    sys.close(fd);
    if (r == -EWOULDBLOCK)
      return std::move(
          make_error(Errc::kBusy, "%s is owned by another rawgpu process%s",
                     bdf.to_string().c_str(), owner.empty() ? "" : (" (pid " + owner + ")").c_str())
              .with_hint("one process drives a GPU at a time; " + path + " holds the owner's pid"));
    return make_error(errc_of(-r), "%s: locking %s: %s", bdf.to_string().c_str(), path.c_str(),
                      std::strerror(-r));
  }
  // Fixed width, so a shorter pid never leaves digits of an older one behind.
  const std::string pid = strformat("%10d\n", static_cast<int>(::getpid()));
  (void)sys.pwrite(fd, pid.data(), pid.size(), 0);
  return DeviceLock(&sys, fd);
}

DeviceLock& DeviceLock::operator=(DeviceLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) sys_->close(fd_);
    sys_ = o.sys_;
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

DeviceLock::~DeviceLock() {
  if (fd_ >= 0) sys_->close(fd_);
}

}  // namespace rawgpu::pci
