// Parsers for the text files Linux exposes per PCI function under /sys/bus/pci/devices/<bdf>/:
// `resource` (one "start end flags" line per region), `uevent` (KEY=VALUE lines) and
// `resourceN_resize` (a hex mask of the sizes a resizable BAR supports).
//
// The text is untrusted (a fake tree, a container, a corrupt copy): failures are kParse errors
// naming the line, and the number of lines accepted is bounded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/drivers/pci/device_info.h"

namespace rawgpu::pci {

// Linux IORESOURCE_* flags as printed in `resource` (include/linux/ioport.h).
inline constexpr uint64_t kIoresourceIo = 0x100;
inline constexpr uint64_t kIoresourceMem = 0x200;
inline constexpr uint64_t kIoresourcePrefetch = 0x2000;
inline constexpr uint64_t kIoresourceMem64 = 0x100000;

// Linux prints 17 lines (6 BARs, the expansion ROM, 6 SR-IOV BARs, 4 bridge windows); more than
// this many is not a `resource` file.
inline constexpr size_t kMaxResourceLines = 64;

struct ResourceRegion {
  int index = 0;  // line number from 0: 0..5 are the BARs, 6 the expansion ROM
  uint64_t start = 0;
  uint64_t end = 0;  // inclusive
  uint64_t flags = 0;

  bool io() const { return (flags & kIoresourceIo) != 0; }
  bool mem() const { return (flags & kIoresourceMem) != 0; }
  bool is_64bit() const { return (flags & kIoresourceMem64) != 0; }
  bool prefetchable() const { return (flags & kIoresourcePrefetch) != 0; }
  // Assigned: a nonzero I/O or memory range ("0x0 0x0 0x0" lines are unused regions).
  bool used() const { return end != 0 && (io() || mem()); }
  uint64_t size() const { return used() ? end - start + 1 : 0; }  // 0 for unused; 2^64 wraps to 0
};

// Every line of a `resource` file, unused ones included. Errors (kParse, 1-based line numbers):
// a line that is not three 0x-prefixed hex numbers of at most 16 digits, end < start on a used
// line, more than kMaxResourceLines lines.
Result<std::vector<ResourceRegion>> parse_resource(std::string_view text);

struct PciId {
  uint16_t vendor = 0;
  uint16_t device = 0;
  friend bool operator==(const PciId&, const PciId&) = default;
};

inline constexpr size_t kMaxUeventLines = 256;

struct Uevent {
  std::vector<std::pair<std::string, std::string>> entries;  // in file order, keys unique

  // The value of `key`, or nullptr.
  const std::string* find(std::string_view key) const;
  // DRIVER: the bound kernel driver; nullopt when none is bound (the line is absent).
  std::optional<std::string> driver() const;
  // PCI_ID "1002:744C" (case-insensitive hex). kNotFound if absent, kParse if malformed.
  Result<PciId> pci_id() const;
  // PCI_SUBSYS_ID, same format.
  Result<PciId> subsystem_id() const;
  // PCI_SLOT_NAME "0000:03:00.0". kNotFound if absent, kParse if malformed.
  Result<Bdf> slot_name() const;
};

// KEY=VALUE lines. Keys are [A-Z0-9_]+; a value runs to the end of its line. Errors (kParse,
// 1-based line numbers): a line without '=', an empty or invalid key, a key given twice, more
// than kMaxUeventLines lines.
Result<Uevent> parse_uevent(std::string_view text);

// `resourceN_resize`: hex (optionally 0x-prefixed, at most 16 digits) with bit n = 2^n MiB
// supported, as Linux prints it. Bits above 43 (sizes past 8 EiB) are a kParse error.
struct ResizeSupport {
  uint64_t mask = 0;
  std::vector<uint64_t> sizes() const;  // bytes, ascending
};
Result<ResizeSupport> parse_resize(std::string_view text);

}  // namespace rawgpu::pci
