#include "rawgpu/sim/amd_pci.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/pci/config_space.h"

namespace rawgpu::sim {
namespace {

constexpr uint64_t kPage = pci::kDmaPageSize;
constexpr uint64_t kDoorbellBarSize = 2ull << 20;
constexpr uint64_t kRegisterBarSize = 1ull << 20;
constexpr uint64_t kIoBarSize = 256;
// Where the simulated platform firmware placed the BARs: aligned for the largest BAR0.
constexpr uint64_t kBar0Addr = 0x4000000000;  // 256 GiB
constexpr uint64_t kBar2Addr = 0x3ffe000000;
constexpr uint32_t kBar4Io = 0xe000;
constexpr uint32_t kBar5Addr = 0xfcd00000;

constexpr uint16_t kCmdIo = 1u << 0, kCmdMemory = 1u << 1, kCmdBusMaster = 1u << 2,
                   kCmdIntxDisable = 1u << 10;

struct Profile {
  uint16_t device_id;
  uint8_t revision;
};
Profile profile_of(uint32_t gc_version) {
  // Navi31 (RX 7900 XTX) and Navi48 (RX 9070 XT) as lspci shows the reference boards.
  return gc_version >= 120000 ? Profile{0x7550, 0xc0} : Profile{0x744c, 0xc8};
}

}  // namespace

// ---- BAR windows ----

class AmdPciFunction::VramWindow final : public pci::Mmio {
 public:
  VramWindow(AmdPciFunction& f, uint64_t size) : Mmio(size), f_(f) {}
  uint32_t rd32(uint64_t off) override {
    check_access(off, 4, 4);
    if (!f_.memory_enabled()) return 0xffffffffu;
    uint32_t v;
    std::memcpy(&v, f_.gpu_->vram_base() + off, 4);
    return v;
  }
  void wr32(uint64_t off, uint32_t value) override {
    check_access(off, 4, 4);
    if (f_.memory_enabled()) std::memcpy(f_.gpu_->vram_base() + off, &value, 4);
  }
  uint64_t rd64(uint64_t off) override {
    check_access(off, 8, 8);
    if (!f_.memory_enabled()) return ~uint64_t{0};
    uint64_t v;
    std::memcpy(&v, f_.gpu_->vram_base() + off, 8);
    return v;
  }
  void wr64(uint64_t off, uint64_t value) override {
    check_access(off, 8, 8);
    if (f_.memory_enabled()) std::memcpy(f_.gpu_->vram_base() + off, &value, 8);
  }
  void read(uint64_t off, std::span<uint8_t> out) override {
    check_access(off, out.size(), 4);
    if (!f_.memory_enabled()) {
      std::memset(out.data(), 0xff, out.size());
      return;
    }
    std::memcpy(out.data(), f_.gpu_->vram_base() + off, out.size());
  }
  void write(uint64_t off, std::span<const uint8_t> data) override {
    check_access(off, data.size(), 4);
    if (f_.memory_enabled()) std::memcpy(f_.gpu_->vram_base() + off, data.data(), data.size());
  }
  // Memory with no side effects: the aperture is the VRAM itself (VRAM beyond vram_size() is
  // not backed, and a window never exceeds it: BAR0 sizes above the VRAM map only its size).
  uint8_t* direct(uint64_t off, uint64_t n) override {
    check_access(off, n, 1);
    if (!f_.memory_enabled()) return nullptr;
    return f_.gpu_->vram_base() + off;
  }

 private:
  AmdPciFunction& f_;
};

class AmdPciFunction::DoorbellWindow final : public pci::Mmio {
 public:
  explicit DoorbellWindow(AmdPciFunction& f) : Mmio(kDoorbellBarSize), f_(f) {}
  uint32_t rd32(uint64_t off) override {
    check_access(off, 4, 4);
    return f_.memory_enabled() ? 0 : 0xffffffffu;
  }
  // A 32-bit write to the low dword rings a 32-bit doorbell; the high dword alone does nothing.
  void wr32(uint64_t off, uint32_t value) override {
    check_access(off, 4, 4);
    if (!f_.memory_enabled()) return;
    const bool drop = dropped(off);
    if (f_.tracing())
      f_.note(strformat("BAR2 wr32 0x%06llx doorbell %llu = 0x%x", (unsigned long long)off,
                        (unsigned long long)(off / 8), value) +
              (drop ? " (dropped: fault plan)" : ""));
    if (off % 8 == 0 && !drop) f_.gpu_->ring_doorbell(static_cast<uint32_t>(off / 8), value);
  }
  uint64_t rd64(uint64_t off) override {
    check_access(off, 8, 8);
    return f_.memory_enabled() ? 0 : ~uint64_t{0};
  }
  void wr64(uint64_t off, uint64_t value) override {
    check_access(off, 8, 8);
    if (!f_.memory_enabled()) return;
    const bool drop = dropped(off);
    if (f_.tracing())
      f_.note(strformat("BAR2 wr64 0x%06llx doorbell %llu = 0x%llx", (unsigned long long)off,
                        (unsigned long long)(off / 8), (unsigned long long)value) +
              (drop ? " (dropped: fault plan)" : ""));
    if (!drop) f_.gpu_->ring_doorbell(static_cast<uint32_t>(off / 8), value);
  }

 private:
  bool dropped(uint64_t off) {
    const FaultRule* r =
        f_.fault_for(FaultRule::Trigger::kDoorbell, static_cast<uint32_t>(off / 8));
    return r != nullptr && r->action == FaultRule::Action::kDrop;
  }
  AmdPciFunction& f_;
};

class AmdPciFunction::RegisterWindow final : public pci::Mmio {
 public:
  explicit RegisterWindow(AmdPciFunction& f) : Mmio(kRegisterBarSize), f_(f) {}
  uint32_t rd32(uint64_t off) override {
    check_access(off, 4, 4);
    const uint32_t reg = static_cast<uint32_t>(off / 4);
    uint32_t v = f_.memory_enabled() ? f_.gpu_->read_reg(reg) : 0xffffffffu;
    const FaultRule* r = f_.fault_for(FaultRule::Trigger::kRegisterRead, reg);
    if (r != nullptr && r->action == FaultRule::Action::kReadValue) v = r->value;
    if (f_.tracing())
      f_.note(line("rd32", off) + strformat(" -> 0x%08x", v) + (r ? " (fault plan)" : ""));
    return v;
  }
  void wr32(uint64_t off, uint32_t value) override {
    check_access(off, 4, 4);
    const uint32_t reg = static_cast<uint32_t>(off / 4);
    const FaultRule* r = f_.fault_for(FaultRule::Trigger::kRegisterWrite, reg);
    const bool drop = r != nullptr && r->action == FaultRule::Action::kDrop;
    if (f_.tracing())
      f_.note(line("wr32", off) + strformat(" = 0x%08x", value) +
              (!f_.memory_enabled() ? " (dropped: memory decode off)"
               : drop               ? " (dropped: fault plan)"
                                    : ""));
    if (f_.memory_enabled() && !drop) f_.gpu_->write_reg(reg, value);
  }

 private:
  std::string line(const char* op, uint64_t off) const {
    std::string s = strformat("BAR5 %s 0x%06llx", op, static_cast<unsigned long long>(off));
    const std::string_view n =
        f_.names_ ? f_.names_->name_at(static_cast<uint32_t>(off / 4)) : std::string_view{};
    if (!n.empty()) {
      s += ' ';
      s += n;
    }
    return s;
  }
  AmdPciFunction& f_;
};

// ---- the function ----

void AmdPciFunction::VirtualClock::sleep_for(Nanos d) {
  advance(d);
  f_.gpu_->poll();
}

AmdPciFunction::AmdPciFunction(const AmdPciConfig& config) : config_(config) {}
AmdPciFunction::~AmdPciFunction() {
  if (!gpu_) return;
  for (auto& [host, d] : dma_) (void)gpu_->detach_dma(BusAddr(d.bus));
  gpu_.reset();  // stops its device thread before the fault plan it consults goes
}

Result<std::unique_ptr<AmdPciFunction>> AmdPciFunction::create(const AmdPciConfig& config) {
  std::unique_ptr<AmdPciFunction> f(new AmdPciFunction(config));
  if (const char* env = std::getenv("RAWGPU_SIM_FAULTS");
      config.faults_from_env && env != nullptr && *env != '\0') {
    auto rules = parse_fault_rules(env);
    if (!rules)
      return std::move(rules)
          .take_error()
          .with_context("in RAWGPU_SIM_FAULTS")
          .with_hint("see sim/fault_plan.h for the rule syntax");
    for (const FaultRule& r : *rules) f->plan_.add(r);
  }
  f->gpu_ = RG_TRY(AmdGpu::create(config.gpu, &f->plan_));
  if (config.trace) {
    // Trace lines name registers the way the driver resolves them: the generated tables of the
    // blocks the board's own discovery table lists, at its bases.
    f->discovery_ = RG_TRY(drivers::amd::parse_discovery(f->gpu_->discovery_table()));
    f->names_ = std::make_unique<drivers::amd::RegisterMap>(f->discovery_);
  }
  f->bar0_max_ = RG_TRY(next_pow2(f->gpu_->vram_size()));
  if (!is_pow2(config.bar0_size) || config.bar0_size < (256ull << 20) ||
      config.bar0_size > f->bar0_max_) {
    return make_error(Errc::kInvalidArgument,
                      "BAR0 size %s: must be a power of two from 256 MiB to %s (the VRAM "
                      "size rounded up)",
                      format_bytes(config.bar0_size).c_str(), format_bytes(f->bar0_max_).c_str());
  }
  f->bar0_size_ = config.bar0_size;
  f->build_config_space();
  f->gpu_->set_bus_master(false);  // until the driver sets Bus Master Enable
  return f;
}

std::string AmdPciFunction::name() const { return gpu_->name(); }

uint16_t AmdPciFunction::cfg16(uint32_t off) const {
  return static_cast<uint16_t>(cfg_[off] | (cfg_[off + 1] << 8));
}
uint32_t AmdPciFunction::cfg32(uint32_t off) const {
  return uint32_t{cfg16(off)} | (uint32_t{cfg16(off + 2)} << 16);
}
void AmdPciFunction::put16(uint32_t off, uint16_t v) {
  cfg_[off] = static_cast<uint8_t>(v);
  cfg_[off + 1] = static_cast<uint8_t>(v >> 8);
}
void AmdPciFunction::put32(uint32_t off, uint32_t v) {
  put16(off, static_cast<uint16_t>(v));
  put16(off + 2, static_cast<uint16_t>(v >> 16));
}

bool AmdPciFunction::memory_enabled() const { return (cfg16(0x04) & kCmdMemory) != 0; }
bool AmdPciFunction::bus_master() const { return (cfg16(0x04) & kCmdBusMaster) != 0; }

void AmdPciFunction::build_config_space() {
  cfg_.assign(pci::kConfigExtendedSize, 0);
  const Profile p = profile_of(gpu_->gc_version());
  put16(0x00, 0x1002);
  put16(0x02, p.device_id);
  // Firmware enabled I/O and memory decode for the display device; the driver enables bus
  // mastering.
  put16(0x04, kCmdIo | kCmdMemory);
  put16(0x06, 1u << 4);                        // status: capabilities list
  put32(0x08, (0x030000u << 8) | p.revision);  // VGA-compatible display controller
  cfg_[0x0e] = 0x00;                           // header type 0, one function (no HDMI audio)
  put32(0x10, static_cast<uint32_t>(kBar0Addr) | 0xc);  // 64-bit prefetchable memory
  put32(0x14, static_cast<uint32_t>(kBar0Addr >> 32));
  put32(0x18, static_cast<uint32_t>(kBar2Addr) | 0xc);
  put32(0x1c, static_cast<uint32_t>(kBar2Addr >> 32));
  put32(0x20, kBar4Io | 0x1);  // I/O
  put32(0x24, kBar5Addr);      // 32-bit non-prefetchable memory
  put16(0x2c, 0x1002);         // subsystem: the reference board
  put16(0x2e, p.device_id);
  cfg_[0x34] = AmdPciLayout::kPm;
  cfg_[0x3d] = 1;  // INTA

  // Power management (v3), next: PCI Express.
  cfg_[AmdPciLayout::kPm] = 0x01;
  cfg_[AmdPciLayout::kPm + 1] = AmdPciLayout::kPcie;
  put16(AmdPciLayout::kPm + 2, 0x0003);
  // PCI Express v2 endpoint: 16 GT/s x16 capable and trained, ASPM L1 supported and disabled.
  constexpr uint16_t e = AmdPciLayout::kPcie;
  cfg_[e] = 0x10;
  cfg_[e + 1] = AmdPciLayout::kMsi;
  put16(e + 0x02, 0x0002);                                  // version 2, endpoint
  put32(e + 0x04, 0x00000001);                              // device caps: max payload 256 B
  put32(e + 0x0c, 4u | (16u << 4) | (2u << 10));            // link caps: Gen4, x16, ASPM L1
  put16(e + 0x10, 0x0000);                                  // link control: ASPM off
  put16(e + 0x12, static_cast<uint16_t>(4u | (16u << 4)));  // link status: Gen4 x16
  put32(e + 0x2c, 0x1eu);                                   // link caps 2: 2.5..16 GT/s
  put16(e + 0x30, 4);                                       // link control 2: target Gen4
  // MSI: one vector, 64-bit address; next: none.
  cfg_[AmdPciLayout::kMsi] = 0x05;
  cfg_[AmdPciLayout::kMsi + 1] = 0x00;
  put16(AmdPciLayout::kMsi + 2, 1u << 7);

  // Extended: a vendor-specific header (id 0x000b), then Resizable BAR for BAR0.
  put32(AmdPciLayout::kVendorExt, 0x000bu | (1u << 16) | (uint32_t{AmdPciLayout::kRebar} << 20));
  put32(AmdPciLayout::kVendorExt + 4, 0x0001u | (1u << 16) | (0x010u << 20));
  put32(AmdPciLayout::kRebar, 0x0015u | (1u << 16));  // version 1, last capability
  uint32_t support = 0;
  for (uint64_t s = 256ull << 20; s <= bar0_max_; s <<= 1)
    support |= 1u << (4 + *pci::rebar_size_code(s));
  put32(AmdPciLayout::kRebar + 4, support);
  put32(AmdPciLayout::kRebar + 8,
        pci::rebar_control_with_size(1u << 5, *pci::rebar_size_code(bar0_size_)));  // 1 entry
}

uint64_t AmdPciFunction::bar_size(int index) const {
  switch (index) {
    case 0: return bar0_size_;
    case 2: return kDoorbellBarSize;
    case 4: return kIoBarSize;
    case 5: return kRegisterBarSize;
    default: return 0;
  }
}

Result<uint32_t> AmdPciFunction::cfg_read(uint32_t off, unsigned width) {
  if ((width != 1 && width != 2 && width != 4) || off % width != 0 || off + width > cfg_.size()) {
    return make_error(Errc::kInvalidArgument,
                      "%s: config read of %u bytes at 0x%x: must be 1, 2 or 4 bytes, naturally "
                      "aligned, below 0x1000",
                      name().c_str(), width, off);
  }
  const uint32_t v = width == 1 ? cfg_[off] : width == 2 ? cfg16(off) : cfg32(off);
  return v;
}

Status AmdPciFunction::write_bar_register(int index, uint32_t value) {
  const uint32_t off = 0x10 + 4 * static_cast<uint32_t>(index);
  const uint32_t old = cfg32(off);
  switch (index) {
    case 0:
    case 2: {  // low halves of 64-bit BARs: address bits above the size, flags read-only
      const uint64_t size = bar_size(index);
      const uint32_t mask = size >= (1ull << 32) ? 0 : ~static_cast<uint32_t>(size - 1);
      put32(off, (value & mask & ~0xfu) | (old & 0xfu));
      break;
    }
    case 1:
    case 3: {  // upper halves
      const uint64_t size = bar_size(index - 1);
      const uint32_t mask = static_cast<uint32_t>(~(size - 1) >> 32);
      put32(off, value & mask);
      break;
    }
    case 4: put32(off, (value & ~static_cast<uint32_t>(kIoBarSize - 1) & 0xffffu) | 0x1u); break;
    case 5: put32(off, value & ~static_cast<uint32_t>(kRegisterBarSize - 1)); break;
    default: break;
  }
  return {};
}

Status AmdPciFunction::cfg_write(uint32_t off, unsigned width, uint32_t value) {
  if ((width != 1 && width != 2 && width != 4) || off % width != 0 || off + width > cfg_.size()) {
    return make_error(Errc::kInvalidArgument,
                      "%s: config write of %u bytes at 0x%x: must be 1, 2 or 4 bytes, naturally "
                      "aligned, below 0x1000",
                      name().c_str(), width, off);
  }
  note(strformat("cfg wr%u 0x%03x = 0x%0*x", width * 8, off, static_cast<int>(width * 2), value));
  // Merge the write into the dword it touches, then apply each writable field of that dword.
  const uint32_t dw = off & ~3u;
  const uint32_t shift = (off & 3u) * 8;
  const uint32_t wmask = width == 4 ? ~0u : (((1u << (width * 8)) - 1u) << shift);
  const uint32_t merged = (cfg32(dw) & ~wmask) | ((value << shift) & wmask);
  const bool low16 = (wmask & 0xffffu) != 0, high16 = (wmask & 0xffff0000u) != 0;
  if (dw == 0x04 && low16) {
    const uint16_t cmd =
        static_cast<uint16_t>(merged) & (kCmdIo | kCmdMemory | kCmdBusMaster | kCmdIntxDisable);
    put16(0x04, cmd);
    gpu_->set_bus_master((cmd & kCmdBusMaster) != 0);
  } else if (dw >= 0x10 && dw <= 0x24) {
    RG_TRY(write_bar_register(static_cast<int>((dw - 0x10) / 4), merged));
  } else if (dw == 0x3c && (wmask & 0xffu) != 0) {
    cfg_[0x3c] = static_cast<uint8_t>(merged);  // interrupt line
  } else if (dw == AmdPciLayout::kMsi && high16) {
    const uint16_t ctl = static_cast<uint16_t>(merged >> 16);
    // Enable and Multiple Message Enable (one vector: MME stays 0) are writable.
    put16(AmdPciLayout::kMsi + 2,
          static_cast<uint16_t>((cfg16(AmdPciLayout::kMsi + 2) & ~1u) | (ctl & 1u)));
  } else if (dw >= AmdPciLayout::kMsi + 4 && dw < AmdPciLayout::kMsi + 14) {
    put32(dw, merged);  // message address low/high, data
  } else if (dw == AmdPciLayout::kPcie + 0x08) {
    put16(AmdPciLayout::kPcie + 0x08, static_cast<uint16_t>(merged));  // device control
  } else if (dw == AmdPciLayout::kPcie + 0x10 && low16) {
    put16(AmdPciLayout::kPcie + 0x10, static_cast<uint16_t>(merged) & 0x0fcbu);  // link control
  } else if (dw == AmdPciLayout::kRebar + 8) {
    const unsigned code = (merged >> 8) & 0x3fu;
    const uint64_t size = pci::rebar_size_bytes(code);
    if (size == 0 || (cfg32(AmdPciLayout::kRebar + 4) & (1u << (4 + code))) == 0) {
      // An unsupported size is ignored by the function (the field keeps its value).
      note(strformat("cfg: Resizable BAR size code %u not supported: ignored", code));
      return {};
    }
    RG_TRY(set_bar0_size(size));
  }
  // Everything else is read-only: the write is ignored, as the hardware does.
  return {};
}

Status AmdPciFunction::set_bar0_size(uint64_t size) {
  if (size == bar0_size_) return {};
  bar0_size_ = size;
  put32(AmdPciLayout::kRebar + 8,
        pci::rebar_control_with_size(cfg32(AmdPciLayout::kRebar + 8), *pci::rebar_size_code(size)));
  // The assigned address keeps only the bits the new size decodes.
  RG_TRY(write_bar_register(0, cfg32(0x10)));
  RG_TRY(write_bar_register(1, cfg32(0x14)));
  if (windows_[0]) retired_.push_back(std::move(windows_[0]));
  note(strformat("BAR0 resized to %s", format_bytes(size).c_str()));
  return {};
}

Result<pci::BarInfo> AmdPciFunction::bar(int index) {
  if (index < 0 || index > 5)
    return make_error(Errc::kInvalidArgument, "%s: BAR %d: a function has BARs 0..5",
                      name().c_str(), index);
  pci::BarInfo b;
  b.index = index;
  b.size = bar_size(index);
  if (b.size == 0) return b;
  const uint32_t lo = cfg32(0x10 + 4 * static_cast<uint32_t>(index));
  if (index == 4) {
    b.io = true;
    b.bus_addr = lo & ~3u;
    return b;
  }
  b.is_64bit = index == 0 || index == 2;
  b.prefetchable = b.is_64bit;
  b.bus_addr =
      (lo & ~0xfu) |
      (b.is_64bit ? uint64_t{cfg32(0x10 + 4 * static_cast<uint32_t>(index + 1))} << 32 : 0);
  b.mappable = true;
  return b;
}

Result<pci::Mmio*> AmdPciFunction::map_bar(int index) {
  const pci::BarInfo b = RG_TRY(bar(index));
  if (b.size == 0 || !b.mappable)
    return make_error(Errc::kUnsupported, "%s: BAR %d is %s: it cannot be mapped", name().c_str(),
                      index, b.io ? "I/O space" : "not implemented");
  auto& w = windows_[index];
  if (!w) {
    switch (index) {
      // The aperture maps VRAM only: a BAR larger than the VRAM ends where the VRAM does.
      case 0: w = std::make_unique<VramWindow>(*this, std::min(b.size, gpu_->vram_size())); break;
      case 2: w = std::make_unique<DoorbellWindow>(*this); break;
      case 5: w = std::make_unique<RegisterWindow>(*this); break;
      default: break;
    }
  }
  return w.get();
}

Status AmdPciFunction::resize_bar(int index, uint64_t size) {
  if (index != 0)
    return make_error(Errc::kUnsupported, "%s: BAR %d is not resizable (only BAR0 is)",
                      name().c_str(), index);
  const pci::ConfigSpace cs = RG_TRY(pci::parse_config_space(cfg_));
  const pci::ResizableBar rb = RG_TRY(pci::decode_resizable_bar(cs));
  const pci::ResizableBarEntry* e = rb.find(0);
  if (e == nullptr)
    return make_error(Errc::kUnsupported, "%s: BAR0 has no Resizable BAR entry", name().c_str());
  const uint32_t ctl = RG_TRY(e->control_for_size(size));
  // As the kernel does it: memory decode off around the size change.
  const uint16_t cmd = cfg16(0x04);
  RG_TRY(cfg_write(0x04, 2, cmd & ~kCmdMemory));
  RG_TRY(cfg_write(e->control_offset, 4, ctl));
  return cfg_write(0x04, 2, cmd);
}

const FaultRule* AmdPciFunction::fault_for(FaultRule::Trigger trigger, uint32_t target) {
  return plan_.fire(trigger, target, &fired_) ? &fired_ : nullptr;
}

Result<pci::DmaBuffer> AmdPciFunction::alloc_dma(uint64_t size) {
  if (size == 0)
    return make_error(Errc::kInvalidArgument, "%s: DMA buffer of 0 bytes", name().c_str());
  if (const FaultRule* r = fault_for(FaultRule::Trigger::kAllocDma, 0);
      r != nullptr && r->action == FaultRule::Action::kFail) {
    note("dma map failed (fault plan)");
    return make_error(Errc::kOutOfMemory,
                      "%s: no IOVA space or pinned memory for %s of DMA memory (fault plan)",
                      name().c_str(), format_bytes(size).c_str());
  }
  const uint64_t bytes = RG_TRY(checked_add(size, kPage - 1)) & ~(kPage - 1);
  Dma d;
  d.storage.reset(new (std::nothrow) uint8_t[bytes + kPage]);
  if (!d.storage)
    return make_error(Errc::kOutOfMemory, "%s: no host memory for %s of DMA memory", name().c_str(),
                      format_bytes(bytes).c_str());
  uint8_t* host = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(d.storage.get()) + kPage - 1) & ~uintptr_t{kPage - 1});
  std::memset(host, 0, bytes);
  return enter_dma(host, bytes, std::move(d), "");
}

Result<pci::DmaBuffer> AmdPciFunction::enter_dma(uint8_t* host, uint64_t bytes, Dma d,
                                                 const char* note_suffix) {
  d.bus = RG_TRY(gpu_->attach_dma(host, bytes)).raw();
  pci::DmaBuffer b;
  b.host = host;
  b.size = bytes;
  for (uint64_t o = 0; o < bytes; o += kPage) b.bus_pages.push_back(d.bus + o);
  note(strformat("dma map 0x%llx +0x%llx%s", static_cast<unsigned long long>(d.bus),
                 static_cast<unsigned long long>(bytes), note_suffix));
  dma_.emplace(reinterpret_cast<uintptr_t>(host), std::move(d));
  return b;
}

Result<pci::DmaBuffer> AmdPciFunction::map_dma(uint8_t* host, uint64_t size) {
  if (host == nullptr || reinterpret_cast<uintptr_t>(host) % kPage != 0 || size == 0 ||
      size % kPage != 0)
    return make_error(Errc::kInvalidArgument,
                      "%s: DMA mapping of %llu bytes: memory must be 4 KiB aligned and a "
                      "multiple of 4 KiB",
                      name().c_str(), static_cast<unsigned long long>(size));
  if (dma_.count(reinterpret_cast<uintptr_t>(host)))
    return make_error(Errc::kInvalidArgument, "%s: %p is already mapped for DMA", name().c_str(),
                      static_cast<void*>(host));
  return enter_dma(host, size, Dma{}, " (external)");  // no storage: the caller owns it
}

Status AmdPciFunction::free_dma(const pci::DmaBuffer& buffer) {
  auto it = dma_.find(reinterpret_cast<uintptr_t>(buffer.host));
  if (it == dma_.end() || buffer.bus_pages.empty() || buffer.bus_pages[0] != it->second.bus)
    return make_error(Errc::kNotFound,
                      "%s: free_dma of a buffer this function did not allocate or map",
                      name().c_str());
  RG_TRY(gpu_->detach_dma(BusAddr(it->second.bus)));
  note(strformat("dma unmap 0x%llx", static_cast<unsigned long long>(it->second.bus)));
  dma_.erase(it);
  return {};
}

void AmdPciFunction::raise_irq() {
  const bool msi = (cfg16(AmdPciLayout::kMsi + 2) & 1u) != 0;
  note(msi ? "msi 0" : "msi 0 lost: MSI disabled");
  if (msi) ++pending_irqs_;
}

Status AmdPciFunction::wait_irq(Nanos timeout) {
  if ((cfg16(AmdPciLayout::kMsi + 2) & 1u) == 0)
    return make_error(Errc::kUnsupported,
                      "%s: MSI is not enabled (MSI control at config 0x%x, bit 0): no interrupt "
                      "can arrive",
                      name().c_str(), AmdPciLayout::kMsi + 2);
  const Nanos start = clock_.now();
  for (;;) {
    gpu_->poll();
    if (pending_irqs_ > 0) {
      --pending_irqs_;
      return {};
    }
    if (clock_.now() - start >= timeout)
      return make_error(Errc::kTimeout, "%s: no interrupt within %s", name().c_str(),
                        format_duration(timeout).c_str());
    clock_.advance(std::chrono::microseconds(1));
  }
}

Status AmdPciFunction::reset() {
  note("function reset");
  gpu_->function_reset();
  pending_irqs_ = 0;
  // Under VFIO the kernel saves and restores config space around the reset: the command
  // register (and with it bus mastering) reads as before.
  gpu_->set_bus_master(bus_master());
  return {};
}

void AmdPciFunction::poll() {
  gpu_->poll();
  clock_.advance(std::chrono::microseconds(1));
}

}  // namespace rawgpu::sim
