// Page-table entry codecs: one per hardware format, encoding and decoding table entries (PDEs)
// and leaf entries (PTEs, including huge pages at upper levels).
//
// Formats (level 0 is the root):
//   gfx9        AMD GMC, Vega/MI (GC 9.x): PDB2 -> PDB1 -> PDB0 -> PTB, 4 KiB pages, leaves also
//               at PDB1 (1 GiB) and PDB0 (2 MiB), translate-further mode (TF on PDB0 table
//               entries, BFS=9 on PDB1 table entries), MTYPE at 58:57.
//   gfx10/11    AMD GMC, RDNA1-3: same tree, PDE_PTE (bit 54) marks upper-level leaves, MTYPE
//   50:48. gfx12       AMD GMC, RDNA4: bit 63 marks upper-level leaves, MTYPE 55:54. nv-mmu-v2
//   NVIDIA Pascal..Ada: PDE3 (4 entries) -> PDE2 -> PDE1 -> PDE0 (256 dual 128-bit
//               entries) -> PT; 2 MiB leaves at PDE0, 512 MiB at PDE1; 49-bit VA.
//   nv-mmu-v3   NVIDIA Hopper/Blackwell: PDE4 (2 entries) on top of the same shape; 57-bit VA.
//
// Sources: Linux 6.12 drivers/gpu/drm/amd/amdgpu/amdgpu_vm.h (AMDGPU_PTE_*, AMDGPU_PDE_*),
// soc21_enum.h / vega10_enum.h (MTYPE_*); NVIDIA open-gpu-kernel-modules 535
// kernel-open/nvidia-uvm/hwref/turing/tu102/dev_mmu.h (NV_MMU_VER2_*) and
// hwref/hopper/gh100/dev_mmu.h (NV_MMU_VER3_*). See pte_codec.cpp for the per-field citations
// and tests/memory/pte_golden_test.cpp for the checks against those headers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "rawgpu/base/addr.h"
#include "rawgpu/base/error.h"

namespace rawgpu::memory {

enum class PageTableFormat : uint8_t { kAmdGfx9, kAmdGfx10, kAmdGfx12, kNvMmuV2, kNvMmuV3 };

// "gfx9", "gfx11" (gfx10/11), "gfx12", "nv-mmu-v2", "nv-mmu-v3".
std::string_view format_name(PageTableFormat format);
// Accepts the names above plus "gfx10"; kInvalidArgument listing the valid names otherwise.
Result<PageTableFormat> parse_format(std::string_view name);

// Where a page lives.
enum class Aperture : uint8_t {
  kVram,    // this GPU's local memory (a VramAddr)
  kSystem,  // host memory, a peer's BAR, bridge SRAM (a BusAddr)
  // Another GPU's memory. NVIDIA: the PEER_MEMORY aperture, address = offset in the peer's
  // VRAM, PageAttrs::peer_id selects the peer (0..7). AMD has no peer aperture: a peer is the
  // system aperture with the peer's bus (BAR) address, never snooped, and decodes as kSystem.
  kPeer,
};

// Where page-table pages live (all tables of one PageTable share it). VRAM, or system memory:
// NVIDIA PDEs then use the SYSTEM_(NON_)COHERENT aperture, AMD PDEs the SYSTEM bit plus SNOOPED
// for cache-coherent memory.
struct TableLocation {
  Aperture aperture = Aperture::kVram;  // kVram or kSystem
  bool snooped = false;                 // kSystem: CPU-cache coherent
  friend bool operator==(const TableLocation&, const TableLocation&) = default;
};

struct PageAttrs {
  Aperture aperture = Aperture::kVram;
  bool snooped = false;    // system pages: coherent with CPU caches (AMD SNOOPED, NV coherent sys)
  bool uncached = false;   // AMD MTYPE UC (else NC); NV VOL (v2) / PCF uncached (v3)
  bool writable = true;    // AMD WRITEABLE; NV READ_ONLY (v2) / PCF read-only (v3) when false
  bool readable = true;    // AMD READABLE (NV pages are always readable)
  bool executable = true;  // AMD EXECUTABLE (NV has no execute permission bit)
  uint8_t peer_id = 0;     // kPeer on NVIDIA: which peer (0..7); 0 otherwise
  friend bool operator==(const PageAttrs&, const PageAttrs&) = default;
};

struct LevelInfo {
  const char* name;     // "PDB2", "PTB", "PDE0", ...
  uint8_t shift;        // lowest VA bit this level indexes; an entry spans 2^shift bytes
  uint16_t entries;     // entries per table
  uint8_t entry_bytes;  // 8, or 16 for NVIDIA dual PDEs
  bool leaf;            // entries here may map pages (huge pages above the last level)
  uint64_t span() const { return uint64_t{1} << shift; }
  uint64_t table_bytes() const { return uint64_t{entries} * entry_bytes; }
};

struct DecodedEntry {
  enum class Kind : uint8_t {
    kInvalid,  // not present
    kTable,    // points to a next-level table in VRAM
    kLeaf,     // maps a page of the level's span
    kForeign,  // present, but not a form rawgpu writes (e.g. an NV big-page-only dual PDE)
  };
  Kind kind = Kind::kInvalid;
  uint64_t addr = 0;      // child table or page (VRAM offset or bus address, per aperture)
  PageAttrs attrs;        // leaves; for tables only aperture and snooped (where the table is)
  unsigned fragment = 0;  // AMD leaves: the entry claims 2^(12 + fragment) contiguous bytes
};

class PteCodec {
 public:
  virtual ~PteCodec() = default;
  virtual PageTableFormat format() const = 0;
  std::string_view name() const { return format_name(format()); }
  std::span<const LevelInfo> levels() const { return levels_; }
  unsigned last_level() const { return static_cast<unsigned>(levels_.size() - 1); }
  uint64_t page_size() const { return levels_.back().span(); }
  // VA bits the root covers (48 on AMD, 49 on NV v2, 57 on NV v3).
  unsigned va_bits() const;
  // Exclusive upper bound of the physical addresses an entry can hold for an aperture.
  virtual uint64_t phys_limit(Aperture aperture) const = 0;
  // Whether leaves carry a fragment field (AMD).
  virtual bool has_fragment() const { return false; }

  // Writes the entry at `level` that points to a child table at `child` (always in VRAM).
  // `out` has entry_bytes / 8 words.
  virtual void encode_table(unsigned level, VramAddr child, uint64_t* out) const = 0;
  // The same for a child table in `where` (VRAM or system memory); `child` is a VRAM offset or a
  // bus address. Precondition: child is 4 KiB aligned and below phys_limit(where.aperture).
  virtual void encode_table_in(unsigned level, uint64_t child, const TableLocation& where,
                               uint64_t* out) const {
    RG_CHECK(where.aperture == Aperture::kVram, "%s cannot place tables outside VRAM",
             name().data());
    encode_table(level, VramAddr(child), out);
  }
  // NVIDIA big pages ("64 KiB small pages"): the dual PDE at the level above the last (PDE0) has
  // a second half pointing to a big-page table of 2^(shift(PDE0) - big_page_shift()) 8-byte
  // PTEs (32 for 64 KiB pages under a 2 MiB PDE0 entry), in the PTE format of the last level.
  // 0 when the format has none (AMD).
  virtual unsigned big_page_shift() const { return 0; }
  // Writes the big-page half (word 0) of the dual PDE at `level` pointing to a big-page table at
  // `child` (256-byte aligned) in `where`. Word 1 (the small-page half) is left alone.
  virtual void encode_big_table(unsigned level, uint64_t child, const TableLocation& where,
                                uint64_t* out) const {
    (void)level, (void)child, (void)where, (void)out;
    RG_CHECK(false, "%s has no big pages", name().data());
  }
  // The big-page half of a dual PDE: kTable (with where the table is) or kInvalid.
  virtual DecodedEntry decode_big_table(unsigned level, const uint64_t* words) const {
    (void)level, (void)words;
    return {};
  }
  // `count` big-page PTEs mapping pa, pa + 2^big_page_shift(), ... (decode them with
  // decode(last_level(), ...)).
  virtual void encode_big_leaves(uint64_t pa, uint64_t count, const PageAttrs& attrs,
                                 uint64_t* out) const {
    (void)pa, (void)count, (void)attrs, (void)out;
    RG_CHECK(false, "%s has no big pages", name().data());
  }

  // Whether kPeer pages are given by bus address (AMD: a peer BAR through the system aperture)
  // rather than by an offset into the peer's VRAM (NVIDIA peer aperture).
  virtual bool peer_by_bus_address() const { return false; }
  // Writes `count` consecutive leaf entries at `level` mapping pa, pa + span, ... with the same
  // attributes and fragment. Preconditions (asserted): the level allows leaves, pa is aligned
  // to the span and below phys_limit.
  virtual void encode_leaves(unsigned level, uint64_t pa, uint64_t count, const PageAttrs& attrs,
                             unsigned fragment, uint64_t* out) const = 0;
  virtual DecodedEntry decode(unsigned level, const uint64_t* words) const = 0;

 protected:
  explicit PteCodec(std::span<const LevelInfo> levels) : levels_(levels) {}

 private:
  std::span<const LevelInfo> levels_;
};

std::unique_ptr<PteCodec> make_codec(PageTableFormat format);

}  // namespace rawgpu::memory
