// The simulated AMD GPU's hardware (gfx1100 or gfx1201 profile), as the PCI function
// sim::AmdPciFunction exposes it to a driver. It is hardware, not a device API: memory, VM
// context 0, compute HQDs and SDMA queues exist only once a driver has programmed them through
// the registers (drivers::amd::PciAmdDevice; sim::SimGpu pairs the two).
//
//  * VRAM is one flat MAP_NORESERVE host range (the BAR0 aperture); the driver's MemoryManager
//    builds real gfx11/gfx12 page tables in it.
//  * Host memory is reachable only through the IOVA map (attach_dma: the function's DMA pages).
//  * Every GPU memory access goes through a simulated MMU that walks those page tables with
//    memory/'s codec, so a page-table bug shows up as a simulated VM fault: the fault address and
//    status registers are filled and the queue stops.
//  * A PM4 command processor executes compute queues on doorbell writes and poll() calls, and
//    only then (deterministic: no thread). Unknown or malformed packets stop the queue with a
//    decoded error. DISPATCH_DIRECT hands the assembled dispatch state to a DispatchExecutor.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"
#include "rawgpu/drivers/amd/device.h"
#include "rawgpu/memory/phys_memory.h"
#include "rawgpu/memory/pte_codec.h"
#include "rawgpu/memory/tlsf.h"
#include "rawgpu/sim/fault_plan.h"
#include "rawgpu/sim/sim_bases.h"

namespace rawgpu::sim {

// Everything DISPATCH_DIRECT starts, assembled from the programmed SH registers.
struct DispatchState {
  GpuVa program;  // COMPUTE_PGM_LO/HI << 8
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint32_t tmpring_size = 0;
  GpuVa scratch_base;               // COMPUTE_DISPATCH_SCRATCH_BASE_LO/HI << 8
  std::vector<uint32_t> user_data;  // COMPUTE_USER_DATA_0.. (USER_SGPR count from RSRC2)
  uint32_t resource_limits = 0;
  std::array<uint32_t, 3> start{};      // COMPUTE_START_X/Y/Z
  std::array<uint32_t, 3> workgroup{};  // COMPUTE_NUM_THREAD_X/Y/Z
  std::array<uint32_t, 3> grid{};       // DISPATCH_DIRECT group counts
  uint32_t initiator = 0;
  bool wave32 = false;     // DISPATCH_INITIATOR.CS_W32_EN
  uint32_t lds_bytes = 0;  // RSRC2 LDS_SIZE granules * 512 B (amd.md §10.2)
};

class DispatchExecutor {
 public:
  virtual ~DispatchExecutor() = default;
  // An error stops the queue (the message becomes the queue error).
  virtual Status execute(const DispatchState& state) = 0;
  // GPU timestamp-counter ticks the last successful dispatch took (its modelled duration); the
  // simulated clock advances by it, so RELEASE_MEM timestamps around a dispatch measure it.
  // 0: the executor models no time.
  virtual uint64_t last_dispatch_ticks() const { return 0; }
};

// An executor that runs nothing and keeps every dispatch's state (tests of the command path).
class RecordingExecutor final : public DispatchExecutor {
 public:
  Status execute(const DispatchState& s) override {
    states.push_back(s);
    return {};
  }
  std::vector<DispatchState> states;
};

// Per-queue state, for tests and diagnostics.
struct QueueStatus {
  bool stopped = false;
  std::string error;           // decoded reason when stopped
  uint64_t rptr = 0;           // dwords consumed
  bool waiting = false;        // blocked on WAIT_REG_MEM (or hung)
  bool hung = false;           // a fault-plan hang: busy forever, until a reset
  uint64_t packets = 0;        // packets executed
  uint64_t traps = 0;          // SDMA TRAP packets executed (copy queues)
  uint32_t last_gcr_cntl = 0;  // GCR_CNTL of the last ACQUIRE_MEM (compute queues)
  uint64_t acquires = 0;       // ACQUIRE_MEM packets executed
};

struct AmdGpuConfig {
  uint64_t vram_size = 1ull << 30;
  uint32_t gc_version = 110000;  // gfx1100; 120001 = gfx1201 (gfx12 page tables)
  // false: a doorbell write only latches the write pointer and queues run in poll() (lets
  // benchmarks time host-side submission without the simulated execution).
  bool process_on_doorbell = true;
  // true: a device thread processes the queues asynchronously (doorbells wake it; blocked waits
  // are re-polled every 20 us), to expose host/device races. poll() then waits (up to 20 ms of
  // real time) for one whole pass of the device thread over the queues, so that a driver's
  // timeout in the function's virtual clock, which advances in its polls and sleeps, measures
  // device progress as it does on hardware rather than how often the host thread was scheduled
  // first on a loaded machine. Default:
  // the environment variable RAWGPU_SIM_THREAD=1 (so a whole test suite can run in this mode).
  bool device_thread = sim_thread_from_env();
  static bool sim_thread_from_env();
};

// Simulated device names: "sim:gfx1100" and "sim:gfx1201". Anything else is kInvalidArgument
// naming the known ones.
Result<AmdGpuConfig> parse_sim_device(std::string_view name);
// The names parse_sim_device accepts.
std::span<const std::string_view> sim_device_names();

// What the boot-time engines (PSP, SMU, RLC; amd_boot.cpp) have been brought to by a driver.
// PSP and SMU state survive a function reset (they are not in the function's reset domain) and
// driver instances; a mode-1 reset takes the PSP's sOS down and everything it loaded.
struct BootStatus {
  std::vector<uint32_t> bootloader;  // PSP bootloader commands accepted (C2PMSG_35), in order
  bool sos_alive = false;            // sOS runs (C2PMSG_81 != 0)
  bool km_ring = false;              // the KM (GPCOM) ring is created
  std::vector<uint32_t> ip_fw;       // psp_gfx_fw_type of every LOAD_IP_FW accepted, in order
  bool toc = false;                  // LOAD_TOC accepted
  uint64_t tmr_mc = 0;               // SETUP_TMR (MC address; 0: none)
  uint32_t tmr_bytes = 0;
  bool rlc_autoload = false;      // AUTOLOAD_RLC done: RLC_RLCS_BOOTLOAD_STATUS.BOOTLOAD_COMPLETE
  bool smu_running = false;       // the SMU firmware runs (loaded through the PSP): it answers
  bool smu_features = false;      // EnableAllSmuFeatures
  uint64_t smu_driver_table = 0;  // SetDriverDramAddrHigh/Low (MC address)
  uint64_t psp_commands = 0, smu_messages = 0, mode1_resets = 0;
  // What the engines refused, in order (the first 64): the PSP answered a non-zero status, the
  // sOS did not start, a component arrived out of order, ...
  std::vector<std::string> errors;
};

// The IH ring (OSSSYS IH_RB_*) as the driver programmed it, and what the GPU wrote into it.
struct IhStatus {
  bool enabled = false;
  uint64_t base = 0;  // IH_RB_BASE << 8: an MC address (MC_SPACE 4) or bus address (2)
  bool bus = false;   // MC_SPACE selects host memory by bus address
  uint64_t bytes = 0;
  uint64_t wptr = 0;     // bytes
  uint64_t written = 0;  // entries written
  uint64_t dropped = 0;  // entries lost: ring disabled, full (overflow) or unreachable
};

// A device access to host memory that the simulated IOVA map refused (an unmapped bus address,
// or bus mastering off): recorded, never a host crash.
struct DmaFault {
  uint64_t bus_addr = 0;
  bool write = false;
  std::string reason;  // "unmapped bus address", "bus mastering disabled"
};

class AmdGpu final {
 public:
  // Created by AmdPciFunction (the function owns its GPU). `faults` (optional, outliving the
  // GPU): the fault plan its engines consult for dispatches, VA accesses and waits.
  static Result<std::unique_ptr<AmdGpu>> create(const AmdGpuConfig& config = {},
                                                FaultPlan* faults = nullptr);
  ~AmdGpu();
  AmdGpu(const AmdGpu&) = delete;
  AmdGpu& operator=(const AmdGpu&) = delete;

  // "sim:gfx1100" or "sim:gfx1201".
  std::string name() const;
  uint32_t gc_version() const { return config_.gc_version; }
  // A doorbell write (BAR2): the queue whose doorbell it is gets the new write pointer.
  void ring_doorbell(uint32_t index, uint64_t value);
  // Lets the engines run (without the device thread, the only time they do).
  void poll();
  // The VM fault registers and queue state as one summary (tests).
  drivers::amd::FaultState fault_state() const;
  // The decoded reasons active queues stopped ("queue 0 stopped: ..."; a dequeued or reset
  // queue no longer counts), or empty: what a driver over the PCI function learns from the
  // interrupt ring on hardware (drivers::amd::PciAmdOptions::diagnostics) until the IH model
  // exists.
  std::string queue_errors() const;
  // Unlatches the VM fault registers (the next refused access latches again). The RDNA
  // emulator uses it to latch the lowest workgroup's fault after a multi-threaded dispatch.
  void clear_fault();

  void set_executor(DispatchExecutor* executor) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    executor_ = executor;
  }
  bool threaded() const { return threaded_; }
  QueueStatus queue_status(uint32_t queue_id) const;
  // rptr counts bytes for copy queues.
  QueueStatus copy_queue_status(uint32_t queue_id) const;

  // GPU-side memory access through the simulated MMU. kHardware on a VM fault (which is also
  // recorded in the fault registers).
  Result<uint32_t> read32(GpuVa va, bool exec = false);
  Result<uint64_t> read64(GpuVa va);
  Status write32(GpuVa va, uint32_t value);
  Status write64(GpuVa va, uint64_t value);
  // The host memory behind the 4 KiB GPU page holding `va`, for translation caches (the RDNA
  // emulator's per-dispatch TLB). Set only when the page is mapped and the whole page is one
  // contiguous host range (`host` points at its first byte); never records a fault, so a
  // refused access must still go through read32/write32. `host` stays valid until the page is
  // unmapped or its buffer freed (VRAM pages: for the device's lifetime). No execute bit: an
  // instruction fetch goes through read32.
  struct PageHost {
    uint8_t* host = nullptr;
    bool readable = false, writable = false;
  };
  std::optional<PageHost> page_host(GpuVa va);
  // The simulated MMIO register file (dword register addresses). A write to
  // BIF_BX_PF0_GPU_HDP_FLUSH_REQ completes the flush at once: the same bits read back set in
  // _DONE. Unwritten registers read 0.
  uint32_t read_reg(uint32_t reg) const;
  void write_reg(uint32_t reg, uint32_t value);
  // Copies `bytes` bytes GPU VA to GPU VA through the MMU (SDMA COPY_LINEAR).
  Status copy(GpuVa dst, GpuVa src, uint64_t bytes);
  // Simulated GPU clock (100 MHz counter); advances by one tick per read and by each
  // dispatch's modelled duration (DispatchExecutor::last_dispatch_ticks).
  uint64_t timestamp() { return ++clock_; }

  // ---- The PCI face (sim::AmdPciFunction) ----
  // VRAM as the device's BAR0 aperture shows it: one flat host range of vram_size() bytes
  // (MAP_NORESERVE: untouched pages cost nothing and read 0).
  uint8_t* vram_base() { return vram_base_; }
  uint64_t vram_size() const { return config_.vram_size; }
  // The IOVA map: host pages the device may reach at bus addresses (alloc_dma). `host` is
  // 4 KiB aligned, `size` a multiple of 4 KiB; the memory must outlive the mapping.
  Result<BusAddr> attach_dma(uint8_t* host, uint64_t size);
  // kNotFound for a bus address attach_dma did not return.
  Status detach_dma(BusAddr bus);
  // Device accesses to host memory that were refused, in order (the first 256).
  std::vector<DmaFault> dma_faults() const;
  // PCI command register's Bus Master Enable: off, every device access to host memory is a
  // DMA fault. A device created on its own (not behind AmdPciFunction) starts with it on.
  void set_bus_master(bool on);
  // RCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE (NBIO segment 2 + 0xC3 = 0xDE3): VRAM in MiB, set at
  // power-on and after a reset (a driver reads it before discovery).
  static constexpr uint32_t kConfigMemsize = bases::kNbio[2] + 0xC3;
  // MP0_SMN_C2PMSG_33 (MP0 segment 0 + 0x61 = 0x16061): bit 31 set once the firmware (IFWI)
  // has finished its init and left the discovery table in VRAM; set at power-on here.
  static constexpr uint32_t kIfwiStatus = bases::kMp[0] + 0x61;
  // The MM_INDEX / MM_DATA / MM_INDEX_HI window (NBIO segment 0: dwords 0, 1, 6): with
  // MM_INDEX bit 31 set, MM_DATA reads and writes the VRAM dword at byte address
  // (MM_INDEX & 0x7fffffff) | MM_INDEX_HI << 31; clear, the register at that byte address / 4.
  // VRAM that is not behind BAR0 (a small BAR) is reached this way.
  static constexpr uint32_t kMmIndex = 0x0, kMmData = 0x1, kMmIndexHi = 0x6;
  // BIF_BX_PF0_RSMU_INDEX / _DATA (NBIO segment 1 + 0 / + 1): MMIO registers by byte address in
  // the index, for those beyond BAR5 (MP1 of MP 14.0.x at dword 0xDC0000).
  static constexpr uint32_t kRsmuIndex = bases::kNbio[1] + 0x0, kRsmuData = bases::kNbio[1] + 0x1;
  // Function-level reset: queues deactivated, registers and fault state cleared, the clock
  // kept (VRAM contents and the IOVA map survive, as they do across an FLR under VFIO).
  void function_reset();
  // The discovery binary the "firmware" left at VRAM - 64 KiB at creation (discovery_table.h).
  const std::vector<uint8_t>& discovery_table() const { return discovery_; }
  // GCVM_INVALIDATE_ENG17_REQ writes for VMID 0 so far (each re-snapshots the tables).
  uint64_t tlb_invalidations() const { return invalidations_; }
  // Queues activated so far (in activation order: the id queue_status takes).
  size_t compute_queue_count() const;
  size_t copy_queue_count() const;

  // ---- Boot-time engines (amd_boot.cpp) ----
  // Where the framebuffer sits in the GPU's MC address space (MMMC/GCMC_VM_FB_LOCATION_BASE):
  // the PSP, the SMU and MC_SPACE 4 rings take MC addresses, VRAM byte = MC - kFbBase. Page
  // tables hold VRAM offsets (physical addresses from 0), as on dGPUs.
  static constexpr uint64_t kFbBase = 0x8000000000ull;
  BootStatus boot_status() const;
  IhStatus ih_status() const;
  // A mode-1 reset (what the SMU's Mode1Reset message does): the sOS goes down (the bootloader
  // answers again), every register but the PSP/SMU mailboxes is reset, queues stop, VM context
  // 0 is off and the discovery table is written again. The SMU firmware keeps running.
  void mode1_reset();
  // Called when the IH writes an entry (AmdPciFunction raises MSI vector 0 from it).
  void set_interrupt_hook(std::function<void()> hook) { irq_hook_ = std::move(hook); }

 private:
  struct Queue;
  struct SdmaQueue;
  struct HostPage;
  // What starts a queue, from the HQD / SDMA queue registers.
  struct QueueProgram {
    GpuVa ring;
    uint64_t ring_bytes = 0;
    GpuVa rptr_report;  // where the engine writes its read pointer
    uint32_t doorbell = 0;
    std::string error;  // a programming error: the queue starts stopped with it
  };
  // VM context 0 as its registers hold it (GCVM_CONTEXT0_*), decoded on each write.
  struct VmContext {
    bool enabled = false;
    bool base_valid = false;
    uint64_t root = 0;   // page-directory base (VRAM offset: the FB base is 0)
    uint64_t start = 0;  // first VA (bytes)
    uint64_t last = 0;   // last VA (bytes, inclusive)
    unsigned depth = 0, block_size = 0;
    // The GC hub's L1 TLB and L2 are on (GCMC_VM_MX_L1_TLB_CNTL.ENABLE_L1_TLB,
    // GCVM_L2_CNTL.ENABLE_L2_CACHE): without them no GPU access translates.
    bool hub_on = false;
  };
  AmdGpu() = default;
  // Register side effects (amd_regs.cpp).
  // Templates over the GC register table (gc_11_0_0 / gc_12_0_0), defined in amd_regs.cpp.
  template <class GC>
  void on_register_write(uint32_t reg, uint32_t value);
  template <class GC>
  void activate_hqd(uint32_t selection);
  template <class GC>
  void sdma_rb_cntl(unsigned engine, uint32_t value);
  uint32_t hqd_selection() const;  // GRBM_GFX_CNTL's me/pipe/queue
  // Boot-time engine side effects of a register write (amd_boot.cpp); true when `reg` was one.
  template <class GC>
  bool on_boot_register_write(uint32_t reg, uint32_t value);
  void boot_power_on();  // the engines' power-on register state
  void psp_bootloader(uint32_t command);
  void psp_ring_control(uint32_t command);
  void psp_submit(uint32_t wptr_dwords);
  uint32_t psp_execute(uint64_t cmd_mc);  // a command buffer's status
  void smu_message(uint32_t msg, bool debug);
  void boot_error(std::string what);
  // Host bytes behind [mc, mc + bytes) of the framebuffer, or nullptr.
  uint8_t* mc_to_host(uint64_t mc, uint64_t bytes);
  void update_engine_gates();  // mec_pipes_ / sdma_engines_ from the registers
  // GRBM_SOFT_RESET.SOFT_RESET_SDMAn (bit n of `engines`): the engine's state is lost (its
  // queue 0 stops, the wedge clears) and it comes out of reset halted.
  template <class GC>
  void sdma_soft_reset(uint32_t engines);
  void ih_configure();
  // Writes one 8-dword entry into the IH ring (client, source, ring id, vmid, context).
  void ih_post(uint32_t client, uint32_t source, uint32_t ring_id, uint32_t vmid,
               std::array<uint32_t, 4> ctx);
  uint32_t start_compute_queue(QueueProgram p);
  uint32_t start_copy_queue(QueueProgram p);
  uint32_t reg_or_zero(uint32_t reg) const;
  // The MM_DATA window's target: VRAM (true, byte address) or a register (false, dword).
  bool mm_window(uint64_t& addr) const;
  void thread_main();
  // Locks mu_ when the device thread runs (no cost in the deterministic mode).
  class Guard {
   public:
    explicit Guard(const AmdGpu* g) : m_(g->threaded_ ? &g->mu_ : nullptr) {
      if (m_) m_->lock();
    }
    ~Guard() {
      if (m_) m_->unlock();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    std::recursive_mutex* m_;
  };
  // The GPUVM TLB as the walker sees it: a copy of every page-table page reachable from VM
  // context 0's root, taken when the driver writes GCVM_INVALIDATE_ENG17_REQ (for VMID 0).
  // Translations read only this copy, so a PTE written without an invalidate stays invisible,
  // as a stale TLB entry would on hardware (emulation.md §2.7).
  void snapshot_page_tables();
  // A page walk's leaf: attributes, the physical address of the walked VA, the leaf's span and
  // the VA's offset from the VM context base.
  struct Leaf {
    memory::PageAttrs attrs;
    uint64_t pa = 0, span = 0, va_off = 0;
  };
  // Walks the page tables for `va` without side effects on the fault registers: nullptr and
  // `leaf` filled, or what refused it (`status`: the fault status bits).
  const char* walk(GpuVa va, Leaf& leaf, uint32_t& status);
  // Host pointer of physical address `pa` in the leaf's aperture with `bytes` bytes backed
  // contiguously from it (VRAM: up to the end of pa's 4 KiB page); nullptr when unbacked.
  uint8_t* backing(const Leaf& leaf, uint64_t pa, uint64_t bytes);
  Result<uint8_t*> translate(GpuVa va, bool write, bool exec);
  void record_fault(GpuVa va, uint32_t status);
  void record_dma_fault(uint64_t bus, bool write, const char* reason);
  void run_queue(Queue& q);
  // A fault-plan hang of `q` at this packet (trigger kDispatch / kWaitRegMem): marks it hung.
  bool hang_injected(FaultRule::Trigger t, Queue& q);
  // Returns false when the queue must stop or wait.
  bool step(Queue& q);
  void run_sdma(SdmaQueue& q);
  bool step_sdma(SdmaQueue& q);

  AmdGpuConfig config_;
  std::unique_ptr<memory::PhysicalMemory> vram_;
  uint8_t* vram_base_ = nullptr;  // mmap of config_.vram_size bytes (MAP_NORESERVE)
  bool bus_master_ = true;
  std::vector<DmaFault> dma_faults_;
  std::unique_ptr<memory::AddressAllocator<BusAddr>> bus_;
  std::map<uint64_t, HostPage> dma_pages_;  // the IOVA map (attach_dma): bus -> host pages
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<std::unique_ptr<SdmaQueue>> sdma_queues_;
  std::map<uint32_t, uint32_t> regs_;
  // CP_HQD_* / CP_MQD_* registers, banked by GRBM_GFX_CNTL's me/pipe/queue selection.
  std::map<uint64_t, uint32_t> hqd_regs_;
  std::map<uint32_t, uint32_t> hqd_queue_;  // selection -> index in queues_
  uint32_t sdma_queue_[2] = {~0u, ~0u};     // engine -> index in sdma_queues_
  VmContext vm_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> tlb_;  // table VRAM address -> words
  uint64_t invalidations_ = 0;
  std::unique_ptr<memory::PteCodec> codec_;
  std::vector<uint8_t> discovery_;
  // Device thread (config.device_thread).
  bool threaded_ = false;
  mutable std::recursive_mutex mu_;
  std::condition_variable_any cv_;
  std::thread thread_;
  bool stop_ = false;
  uint64_t doorbell_seq_ = 0;
  uint64_t passes_ = 0;  // whole passes of the device thread over the queues
  std::condition_variable_any pass_cv_;
  DispatchExecutor* executor_ = nullptr;
  FaultPlan* faults_ = nullptr;  // set at creation, never changed
  uint64_t clock_ = 0;
  std::vector<uint32_t> body_;  // scratch for the packet being executed
  // Fault registers (GCVM_L2_PROTECTION_FAULT_STATUS / ADDR, amd.md §10.4).
  uint32_t fault_status_ = 0;
  uint64_t fault_addr_page_ = 0;
  std::string fault_text_;
  // Boot-time engines.
  BootStatus boot_;
  uint64_t psp_rptr_ = 0;     // KM ring read pointer (dwords)
  uint64_t psp_ring_mc_ = 0;  // the KM ring as created (C2PMSG_69/70/71 at INIT_GPCOM_RING)
  uint32_t psp_ring_bytes_ = 0;
  uint32_t mec_pipes_ = 0;     // MEC pipes that run (bit per pipe of ME 1)
  uint32_t sdma_engines_ = 0;  // SDMA engines that run (bit per engine)
  // Engines wedged inside a packet (fault plan sdma-poll:hang): they run no queue, whatever
  // their ring registers say, until GRBM_SOFT_RESET.SOFT_RESET_SDMAn resets them.
  uint32_t sdma_wedged_ = 0;
  IhStatus ih_;
  std::function<void()> irq_hook_;
};

}  // namespace rawgpu::sim
