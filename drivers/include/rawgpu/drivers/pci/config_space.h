// PCI configuration space, parsed from bytes: the header, the BAR registers, the standard and
// extended capability lists, and decoders for the capabilities rawgpu needs (PCI Express link
// state, MSI, MSI-X, Resizable BAR).
//
// The bytes come from sysfs `config`, VFIO or a dump, and are untrusted: every parser bounds-checks
// its reads, capability walks detect cycles and stop at a fixed limit, and malformed input is a
// kParse error naming the field and its config-space offset. A function that stopped answering
// (every read returns all ones) is a kHardware error that says so.
//
// Nothing here writes to a device: BAR sizes need the write-ones sizing dance, and a resize needs
// a control-register write, both done by the device code with the values computed here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::pci {

inline constexpr size_t kConfigHeaderSize = 64;         // what an unprivileged sysfs read returns
inline constexpr size_t kConfigConventionalSize = 256;  // PCI
inline constexpr size_t kConfigExtendedSize = 4096;     // PCI Express

// Standard capability IDs (byte at the capability's offset).
inline constexpr uint8_t kCapMsi = 0x05;
inline constexpr uint8_t kCapPciExpress = 0x10;
inline constexpr uint8_t kCapMsix = 0x11;
// Extended capability IDs (low 16 bits of the header).
inline constexpr uint16_t kExtCapResizableBar = 0x0015;

// The walks' limits: every dword-aligned position of the region can hold one capability, so a
// longer chain must revisit one.
inline constexpr size_t kMaxCapabilities = (kConfigConventionalSize - kConfigHeaderSize) / 4;  // 48
inline constexpr size_t kMaxExtCapabilities =
    (kConfigExtendedSize - kConfigConventionalSize) / 4;  // 960

enum class BarType : uint8_t {
  kUnused,         // register reads zero: not implemented, or not assigned
  kMemory32,       // 32-bit memory BAR (also the legacy "below 1 MiB" type)
  kMemory64,       // low half of a 64-bit memory BAR; `address` combines both registers
  kMemory64Upper,  // upper half of the 64-bit BAR in the register before
  kIo,             // I/O space
};

// One BAR register as read: the base address the firmware/OS assigned, not the size.
struct BarRegister {
  int index = 0;
  uint32_t raw = 0;  // the register value
  BarType type = BarType::kUnused;
  uint64_t address = 0;  // decoded base address (flag bits cleared; both halves for kMemory64)
  bool prefetchable = false;
};

struct Capability {
  uint8_t id = 0;
  uint16_t offset = 0;  // config-space offset of the capability header
};

struct ExtCapability {
  uint16_t id = 0;
  uint8_t version = 0;
  uint16_t offset = 0;
};

struct ConfigSpace {
  std::vector<uint8_t> bytes;  // a copy of the input (64..4096 bytes)

  uint16_t vendor_id = 0;
  uint16_t device_id = 0;
  uint16_t command = 0;
  uint16_t status = 0;
  uint8_t revision = 0;
  uint32_t class_code = 0;  // 24 bits: base class, subclass, programming interface
  uint8_t header_type = 0;  // layout, 0..2 (bit 7 removed: see multi_function)
  bool multi_function = false;
  uint16_t subsystem_vendor_id = 0;  // header types 0 and 2; zero for bridges
  uint16_t subsystem_id = 0;
  std::array<BarRegister, 6> bars{};
  int bar_count = 0;  // BAR registers this header type has: 6, 2 (bridge) or 0 (CardBus)
  uint8_t interrupt_line = 0;
  uint8_t interrupt_pin = 0;  // 0 none, 1..4 INTA..INTD

  std::vector<Capability> capabilities;         // in list order
  std::vector<ExtCapability> ext_capabilities;  // in list order; empty below 4096 bytes' reach

  size_t size() const { return bytes.size(); }
  uint8_t base_class() const { return static_cast<uint8_t>(class_code >> 16); }
  // The first capability with this ID, or nullptr.
  const Capability* find_capability(uint8_t id) const;
  const ExtCapability* find_ext_capability(uint16_t id) const;

  // Bounds-checked little-endian reads: kParse naming the offset if it lies past the end.
  Result<uint8_t> read8(size_t offset) const;
  Result<uint16_t> read16(size_t offset) const;
  Result<uint32_t> read32(size_t offset) const;
};

// The header and BAR registers only (capability lists left empty): what can be said about a
// function whose capability lists are broken, or from a 64-byte unprivileged read.
// Errors: kParse (fewer than 64 or more than 4096 bytes, an invalid vendor ID, an unknown header
// type, a 64-bit BAR without its upper half, a reserved BAR type); kHardware when the first
// dword reads all ones (the device is not responding).
Result<ConfigSpace> parse_config_header(std::span<const uint8_t> bytes);

// The header plus both capability walks. A capability pointer that leaves the bytes given (a
// 64-byte read of a function with capabilities) is a kParse error saying so.
Result<ConfigSpace> parse_config_space(std::span<const uint8_t> bytes);

// The walks on their own, over raw bytes (header type decides where the list starts).
Result<std::vector<Capability>> walk_capabilities(std::span<const uint8_t> bytes);
Result<std::vector<ExtCapability>> walk_ext_capabilities(std::span<const uint8_t> bytes);

// ---------------------------------------------------------------------------------------------
// PCI Express capability (ID 0x10)
// ---------------------------------------------------------------------------------------------

enum class PcieDeviceType : uint8_t {
  kEndpoint = 0x0,
  kLegacyEndpoint = 0x1,
  kRootPort = 0x4,
  kUpstreamSwitchPort = 0x5,
  kDownstreamSwitchPort = 0x6,
  kPcieToPciBridge = 0x7,
  kPciToPcieBridge = 0x8,
  kRootComplexIntegratedEndpoint = 0x9,
  kRootComplexEventCollector = 0xa,
};
// "endpoint", "root port", ...; "reserved type N" for codes the spec does not define.
std::string port_type_name(uint8_t type_code);

struct PcieCapability {
  uint16_t offset = 0;
  uint8_t version = 0;    // capability version (PCIe Capabilities register bits 3:0)
  uint8_t port_type = 0;  // PcieDeviceType code (bits 7:4); may be a reserved value
  bool slot_implemented = false;
  // Link Capabilities
  uint8_t max_link_speed = 0;  // speed code: 1 = 2.5 GT/s ... 6 = 64 GT/s
  uint8_t max_link_width = 0;  // lanes
  bool aspm_l0s_supported = false;
  bool aspm_l1_supported = false;
  uint8_t port_number = 0;
  // Link Control
  bool aspm_l0s_enabled = false;
  bool aspm_l1_enabled = false;
  // Link Status
  uint8_t link_speed = 0;  // current speed code
  uint8_t link_width = 0;  // negotiated lanes (0: link down)
  bool link_training = false;
  // Link Capabilities 2 (version 2 capabilities): bit n set = speed code n supported (n 1..7).
  uint8_t supported_speeds = 0;

  bool downgraded() const { return link_speed < max_link_speed || link_width < max_link_width; }
};

// kNotFound without a PCI Express capability; kParse when it is cut short.
Result<PcieCapability> decode_pcie(const ConfigSpace& cs);

// Speed code -> GT/s: 1..6 -> 2.5, 5, 8, 16, 32, 64; nullopt for other codes.
std::optional<double> link_speed_gts(uint8_t code);
// "16 GT/s (Gen4)"; "unknown speed code N" for other codes.
std::string link_speed_name(uint8_t code);

// ---------------------------------------------------------------------------------------------
// MSI (ID 0x05) and MSI-X (ID 0x11)
// ---------------------------------------------------------------------------------------------

struct MsiCapability {
  uint16_t offset = 0;
  bool enabled = false;
  unsigned vectors_capable = 1;  // 1..32
  unsigned vectors_enabled = 1;
  bool address_64bit = false;
  bool per_vector_masking = false;
};
Result<MsiCapability> decode_msi(const ConfigSpace& cs);

struct MsixCapability {
  uint16_t offset = 0;
  bool enabled = false;
  bool function_masked = false;
  unsigned table_size = 0;  // entries, 1..2048
  int table_bar = 0;        // BAR holding the table (BIR), 0..5
  uint32_t table_offset = 0;
  int pba_bar = 0;
  uint32_t pba_offset = 0;
};
Result<MsixCapability> decode_msix(const ConfigSpace& cs);

// ---------------------------------------------------------------------------------------------
// Resizable BAR (extended ID 0x15)
// ---------------------------------------------------------------------------------------------
//
// Sizes are encoded as n for 2^n MiB, n = 0 (1 MiB) .. 43 (8 EiB). Support for n = 0..27 is in
// the capability register bits 4..31; PCIe 6.0 puts n = 28..43 in the control register bits
// 16..31. The current size is the control register's BAR Size field (bits 13:8).

inline constexpr unsigned kRebarMaxSizeCode = 43;

// 2^code MiB in bytes; code must be <= kRebarMaxSizeCode (0 otherwise).
uint64_t rebar_size_bytes(unsigned code);
// The code of a size: kInvalidArgument unless bytes is a power of two from 1 MiB to 8 EiB.
Result<unsigned> rebar_size_code(uint64_t bytes);
// The sizes in a support mask (bit n = 2^n MiB), in bytes, ascending.
std::vector<uint64_t> rebar_sizes_from_mask(uint64_t mask);
// `control` with its BAR Size field set to `code`, everything else unchanged.
uint32_t rebar_control_with_size(uint32_t control, unsigned code);

struct ResizableBarEntry {
  int bar_index = 0;
  uint16_t capability_offset = 0;  // config-space offset of this entry's capability register
  uint16_t control_offset = 0;     // ... and of its control register (the resize write goes here)
  uint32_t capability = 0;         // raw registers
  uint32_t control = 0;
  uint64_t supported_mask = 0;  // bit n: 2^n MiB supported
  unsigned current_size_code = 0;

  uint64_t current_size() const { return rebar_size_bytes(current_size_code); }
  std::vector<uint64_t> supported_sizes() const { return rebar_sizes_from_mask(supported_mask); }
  bool supports(uint64_t bytes) const;
  // The control register value that selects `bytes`: kInvalidArgument for a size that is not a
  // power of two in range, kUnsupported for one this BAR does not offer.
  Result<uint32_t> control_for_size(uint64_t bytes) const;
};

struct ResizableBar {
  uint16_t offset = 0;
  std::vector<ResizableBarEntry> entries;  // 1..6
  const ResizableBarEntry* find(int bar_index) const;
};
// kNotFound without the capability; kParse for a bad entry count, BAR index or a cut-short
// capability.
Result<ResizableBar> decode_resizable_bar(const ConfigSpace& cs);

}  // namespace rawgpu::pci
