#include "rawgpu/memory/tlsf.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"

namespace rawgpu::memory {

namespace {

constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kNoBin = std::numeric_limits<uint32_t>::max();

struct Node {
  uint64_t addr = 0;
  uint64_t size = 0;
  uint32_t prev_phys = kNil;
  uint32_t next_phys = kNil;
  uint32_t prev_free = kNil;
  uint32_t next_free = kNil;
  uint32_t bin = kNoBin;  // flat bin index while free
  uint8_t free = 0;
  uint8_t align_log2 = 0;  // requested alignment while allocated (checked by check_invariants)
};

// Open-addressing hash map from allocation start to node index (linear probing, backward-shift
// deletion). Only allocated blocks are indexed: free() needs them, nothing needs free blocks.
class AddrIndex {
 public:
  void init(unsigned granule_shift) {
    shift_ = granule_shift;
    rehash(64);
  }
  uint32_t find(uint64_t key) const {
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.node == kNil) return kNil;
      if (s.key == key) return s.node;
    }
  }
  void insert(uint64_t key, uint32_t node) {
    if ((count_ + 1) * 4 > slots_.size()) rehash(slots_.size() * 2);  // load <= 1/4: short chains
    place(key, node);
    ++count_;
  }
  // Removes key and returns its node, or kNil (nothing changed) if it is not indexed.
  uint32_t take(uint64_t key) {
    size_t i = slot(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].node == kNil) return kNil;
      if (slots_[i].key == key) break;
    }
    const uint32_t node = slots_[i].node;
    // Backward-shift: move later entries of the probe chain into the hole.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; slots_[j].node != kNil; j = (j + 1) & mask_) {
      const size_t home = slot(slots_[j].key);
      // Entry j may move to `hole` if its home is not in (hole, j] (cyclically).
      const bool in_between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!in_between) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].node = kNil;
    --count_;
    return node;
  }
  size_t size() const { return count_; }
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.node != kNil) f(s.key, s.node);
  }

 private:
  struct Slot {
    uint64_t key = 0;
    uint32_t node = kNil;
  };
  size_t slot(uint64_t key) const {
    return static_cast<size_t>(((key >> shift_) * 0x9E3779B97F4A7C15ull) >> (64 - bits_));
  }
  void place(uint64_t key, uint32_t node) {
    size_t i = slot(key);
    while (slots_[i].node != kNil) i = (i + 1) & mask_;
    slots_[i] = {key, node};
  }
  void rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    bits_ = static_cast<unsigned>(std::countr_zero(capacity));
    for (const Slot& s : old)
      if (s.node != kNil) place(s.key, s.node);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  unsigned bits_ = 0;
  unsigned shift_ = 0;
  size_t count_ = 0;
};

}  // namespace

struct Tlsf::Impl {
  uint64_t base = 0;
  uint64_t size = 0;
  uint64_t granule = 0;
  unsigned gshift = 0;  // log2(granule)
  unsigned sll = 0;     // log2(second-level count)
  uint64_t fl_bitmap = 0;
  std::vector<uint64_t> sl_bitmap;  // one word per first level
  std::vector<uint32_t> heads;      // flat bin -> first free node
  std::vector<Node> nodes;
  std::vector<uint32_t> spare;  // recycled node slots
  uint32_t first = kNil;        // the block at `base`
  AddrIndex index;
  uint64_t used_bytes = 0;
  uint64_t free_bytes = 0;
  uint64_t used_blocks = 0;
  uint64_t free_blocks = 0;

  // ---- size classes (in granules) ----
  uint32_t bin_of(uint64_t n) const {
    const unsigned fl = log2_floor(n);
    uint64_t sl;
    if (fl < sll)
      sl = (n - (uint64_t{1} << fl)) << (sll - fl);
    else
      sl = (n >> (fl - sll)) - (uint64_t{1} << sll);
    return static_cast<uint32_t>((fl << sll) | sl);
  }
  // The lowest bin whose every block holds at least n granules.
  uint32_t fit_bin_of(uint64_t n) const {
    const unsigned fl = log2_floor(n);
    if (fl >= sll) {
      const uint64_t step = uint64_t{1} << (fl - sll);
      if (n > std::numeric_limits<uint64_t>::max() - (step - 1)) return kNoBin;
      n += step - 1;
    }
    return bin_of(n);
  }
  // First non-empty bin at or above `from` (flat index), or kNoBin.
  uint32_t find_bin(uint32_t from) const {
    if (from == kNoBin) return kNoBin;
    unsigned fl = from >> sll;
    const unsigned sl = from & ((1u << sll) - 1);
    if (fl >= 64) return kNoBin;
    const uint64_t sl_map = sl_bitmap[fl] & (~uint64_t{0} << sl);
    if (sl_map != 0) return (fl << sll) | static_cast<unsigned>(std::countr_zero(sl_map));
    const uint64_t fl_map = fl + 1 >= 64 ? 0 : fl_bitmap & (~uint64_t{0} << (fl + 1));
    if (fl_map == 0) return kNoBin;
    fl = static_cast<unsigned>(std::countr_zero(fl_map));
    return (fl << sll) | static_cast<unsigned>(std::countr_zero(sl_bitmap[fl]));
  }

  // ---- node pool ----
  uint32_t new_node() {
    if (!spare.empty()) {
      const uint32_t i = spare.back();
      spare.pop_back();
      nodes[i] = Node{};
      return i;
    }
    nodes.emplace_back();
    return static_cast<uint32_t>(nodes.size() - 1);
  }
  void drop_node(uint32_t i) {
    nodes[i].size = 0;
    spare.push_back(i);
  }

  // ---- free lists ----
  void link_free(uint32_t i) {
    Node& n = nodes[i];
    const uint32_t b = bin_of(n.size >> gshift);
    n.bin = b;
    n.free = 1;
    n.prev_free = kNil;
    n.next_free = heads[b];
    if (heads[b] != kNil) nodes[heads[b]].prev_free = i;
    heads[b] = i;
    sl_bitmap[b >> sll] |= uint64_t{1} << (b & ((1u << sll) - 1));
    fl_bitmap |= uint64_t{1} << (b >> sll);
    free_bytes += n.size;
    ++free_blocks;
  }
  void unlink_free(uint32_t i) {
    Node& n = nodes[i];
    const uint32_t b = n.bin;
    if (n.prev_free != kNil)
      nodes[n.prev_free].next_free = n.next_free;
    else
      heads[b] = n.next_free;
    if (n.next_free != kNil) nodes[n.next_free].prev_free = n.prev_free;
    if (heads[b] == kNil) {
      uint64_t& w = sl_bitmap[b >> sll];
      w &= ~(uint64_t{1} << (b & ((1u << sll) - 1)));
      if (w == 0) fl_bitmap &= ~(uint64_t{1} << (b >> sll));
    }
    n.free = 0;
    n.bin = kNoBin;
    n.prev_free = n.next_free = kNil;
    free_bytes -= n.size;
    --free_blocks;
  }

  // Offset into block i where an aligned allocation of `bytes` would start, or UINT64_MAX.
  uint64_t fit_offset(uint32_t i, uint64_t bytes, uint64_t align) const {
    const Node& n = nodes[i];
    const uint64_t a = (n.addr + align - 1) & ~(align - 1);  // cannot wrap: addr+size <= 2^64
    if (a < n.addr) return UINT64_MAX;
    const uint64_t pre = a - n.addr;
    if (pre > n.size || n.size - pre < bytes) return UINT64_MAX;
    return pre;
  }

  // Allocates `bytes` at offset `pre` inside free block i.
  uint64_t take(uint32_t i, uint64_t pre, uint64_t bytes, uint64_t align) {
    unlink_free(i);
    if (pre > 0) {
      const uint32_t p = new_node();
      Node& n = nodes[i];
      Node& pn = nodes[p];
      pn.addr = n.addr;
      pn.size = pre;
      pn.prev_phys = n.prev_phys;
      pn.next_phys = i;
      if (n.prev_phys != kNil)
        nodes[n.prev_phys].next_phys = p;
      else
        first = p;
      n.prev_phys = p;
      n.addr += pre;
      n.size -= pre;
      link_free(p);
    }
    if (nodes[i].size > bytes) {
      const uint32_t t = new_node();
      Node& n = nodes[i];
      Node& tn = nodes[t];
      tn.addr = n.addr + bytes;
      tn.size = n.size - bytes;
      tn.prev_phys = i;
      tn.next_phys = n.next_phys;
      if (n.next_phys != kNil) nodes[n.next_phys].prev_phys = t;
      n.next_phys = t;
      n.size = bytes;
      link_free(t);
    }
    Node& n = nodes[i];
    n.align_log2 = static_cast<uint8_t>(log2_floor(align));
    used_bytes += n.size;
    ++used_blocks;
    index.insert(n.addr, i);
    return n.addr;
  }

  uint64_t largest_free() const {
    if (fl_bitmap == 0) return 0;
    const unsigned fl = 63u - static_cast<unsigned>(std::countl_zero(fl_bitmap));
    const unsigned sl = 63u - static_cast<unsigned>(std::countl_zero(sl_bitmap[fl]));
    uint64_t best = 0;
    for (uint32_t i = heads[(fl << sll) | sl]; i != kNil; i = nodes[i].next_free)
      best = std::max(best, nodes[i].size);
    return best;
  }

  uint32_t block_containing(uint64_t addr) const {
    for (uint32_t i = first; i != kNil; i = nodes[i].next_phys)
      if (addr - nodes[i].addr < nodes[i].size) return i;
    return kNil;
  }
};

Tlsf::Tlsf(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tlsf::Tlsf(Tlsf&&) noexcept = default;
Tlsf& Tlsf::operator=(Tlsf&&) noexcept = default;
Tlsf::~Tlsf() = default;

Result<Tlsf> Tlsf::create(const TlsfConfig& c) {
  if (!is_pow2(c.min_block))
    return make_error(Errc::kInvalidArgument, "TLSF min_block %llu is not a power of two",
                      static_cast<unsigned long long>(c.min_block));
  if (!is_pow2(c.sl_count) || c.sl_count < 2 || c.sl_count > 64)
    return make_error(Errc::kInvalidArgument,
                      "TLSF second-level count %u must be a power of two in [2, 64]", c.sl_count);
  if (c.size == 0 || c.size % c.min_block != 0)
    return make_error(Errc::kInvalidArgument,
                      "TLSF size %s must be a nonzero multiple of min_block %s",
                      hex(c.size).c_str(), hex(c.min_block).c_str());
  if (c.base % c.min_block != 0)
    return make_error(Errc::kInvalidArgument, "TLSF base %s is not a multiple of min_block %s",
                      hex(c.base).c_str(), hex(c.min_block).c_str());
  if (c.base + (c.size - 1) < c.base)
    return make_error(Errc::kOverflow, "TLSF range %s + %s wraps past 2^64", hex(c.base).c_str(),
                      hex(c.size).c_str());
  auto impl = std::make_unique<Impl>();
  impl->base = c.base;
  impl->size = c.size;
  impl->granule = c.min_block;
  impl->gshift = log2_floor(c.min_block);
  impl->sll = log2_floor(c.sl_count);
  impl->sl_bitmap.assign(64, 0);
  impl->heads.assign(size_t{64} << impl->sll, kNil);
  impl->index.init(impl->gshift);
  const uint32_t n = impl->new_node();
  impl->nodes[n].addr = c.base;
  impl->nodes[n].size = c.size;
  impl->first = n;
  impl->link_free(n);
  return Tlsf(std::move(impl));
}

Result<uint64_t> Tlsf::alloc(uint64_t size, uint64_t align) {
  Impl& m = *impl_;
  if (size == 0) return make_error(Errc::kInvalidArgument, "TLSF alloc of zero bytes");
  if (!is_pow2(align))
    return make_error(Errc::kInvalidArgument, "TLSF alignment %s is not a power of two",
                      hex(align).c_str());
  if (align > m.size && align > m.granule)
    return make_error(Errc::kInvalidArgument, "TLSF alignment %s exceeds the managed range size %s",
                      hex(align).c_str(), hex(m.size).c_str());
  align = std::max(align, m.granule);
  auto out_of_space = [&]() {
    return make_error(Errc::kOutOfMemory,
                      "TLSF cannot allocate %s (%llu bytes) aligned to %s: largest free block "
                      "is %s (%llu bytes) of %s free",
                      format_bytes(size).c_str(), static_cast<unsigned long long>(size),
                      format_bytes(align).c_str(), format_bytes(m.largest_free()).c_str(),
                      static_cast<unsigned long long>(m.largest_free()),
                      format_bytes(m.free_bytes).c_str());
  };
  if (size > m.free_bytes) return out_of_space();
  const uint64_t bytes = (size + m.granule - 1) & ~(m.granule - 1);  // size <= 2^64 - granule
  if (bytes > m.free_bytes) return out_of_space();
  const uint64_t n = bytes >> m.gshift;

  if (align == m.granule) {
    // Plain good fit: the first block of the first bin that guarantees a fit.
    const uint32_t b = m.find_bin(m.fit_bin_of(n));
    if (b != kNoBin) return m.take(m.heads[b], 0, bytes, align);
    // Blocks in n's own bin may still be large enough.
    for (uint32_t i = m.heads[m.bin_of(n)]; i != kNil; i = m.nodes[i].next_free)
      if (m.nodes[i].size >= bytes) return m.take(i, 0, bytes, align);
    return out_of_space();
  }

  // Aligned: first the head of the ordinary good-fit bin (usually large enough to absorb the
  // alignment), then the bin that guarantees a fit after alignment (size + align - granule).
  const uint64_t slack = (align >> m.gshift) - 1;
  const uint32_t lo_bin = m.bin_of(n);
  if (const uint32_t b = m.find_bin(m.fit_bin_of(n)); b != kNoBin) {
    const uint64_t pre = m.fit_offset(m.heads[b], bytes, align);
    if (pre != UINT64_MAX) return m.take(m.heads[b], pre, bytes, align);
  }
  const uint32_t sure_bin =
      n > std::numeric_limits<uint64_t>::max() - slack ? kNoBin : m.fit_bin_of(n + slack);
  if (sure_bin != kNoBin) {
    const uint32_t b = m.find_bin(sure_bin);
    if (b != kNoBin) {
      const uint32_t i = m.heads[b];
      const uint64_t pre = m.fit_offset(i, bytes, align);
      RG_ASSERT(pre != UINT64_MAX, "a block in the guaranteed bin does not fit");
      return m.take(i, pre, bytes, align);
    }
  }
  // Exhaustive: every free block that is large enough at all.
  for (uint32_t b = m.find_bin(lo_bin); b != kNoBin;
       b = b + 1 < m.heads.size() ? m.find_bin(b + 1) : kNoBin) {
    for (uint32_t i = m.heads[b]; i != kNil; i = m.nodes[i].next_free) {
      const uint64_t pre = m.fit_offset(i, bytes, align);
      if (pre != UINT64_MAX) return m.take(i, pre, bytes, align);
    }
  }
  return out_of_space();
}

Status Tlsf::free(uint64_t addr) {
  Impl& m = *impl_;
  if (addr < m.base || addr - m.base >= m.size)
    return make_error(Errc::kOutOfRange, "TLSF free of %s outside the managed range [%s, +%s)",
                      hex(addr).c_str(), hex(m.base).c_str(), hex(m.size).c_str());
  uint32_t i = m.index.take(addr);
  if (i == kNil) {
    const uint32_t c = m.block_containing(addr);
    RG_CHECK(c != kNil, "blocks do not tile the range");
    const Node& b = m.nodes[c];
    if (b.free)
      return make_error(Errc::kAlreadyExists,
                        "TLSF free of %s, which lies in free space [%s, %s): double free or never "
                        "allocated",
                        hex(addr).c_str(), hex(b.addr).c_str(), hex(b.addr + b.size).c_str());
    return make_error(Errc::kInvalidArgument,
                      "TLSF free of %s, which is not an allocation start (it lies inside the "
                      "allocation at %s of %s)",
                      hex(addr).c_str(), hex(b.addr).c_str(), format_bytes(b.size).c_str());
  }
  m.used_bytes -= m.nodes[i].size;
  --m.used_blocks;
  // Coalesce with the previous block.
  const uint32_t prev = m.nodes[i].prev_phys;
  if (prev != kNil && m.nodes[prev].free) {
    m.unlink_free(prev);
    Node& p = m.nodes[prev];
    p.size += m.nodes[i].size;
    p.next_phys = m.nodes[i].next_phys;
    if (p.next_phys != kNil) m.nodes[p.next_phys].prev_phys = prev;
    m.drop_node(i);
    i = prev;
  }
  // Coalesce with the next block.
  const uint32_t next = m.nodes[i].next_phys;
  if (next != kNil && m.nodes[next].free) {
    m.unlink_free(next);
    Node& n = m.nodes[i];
    n.size += m.nodes[next].size;
    n.next_phys = m.nodes[next].next_phys;
    if (n.next_phys != kNil) m.nodes[n.next_phys].prev_phys = i;
    m.drop_node(next);
  }
  m.nodes[i].align_log2 = 0;
  m.link_free(i);
  return {};
}

Result<uint64_t> Tlsf::size_of(uint64_t addr) const {
  const uint32_t i = impl_->index.find(addr);
  if (i == kNil)
    return make_error(Errc::kNotFound, "no TLSF allocation starts at %s", hex(addr).c_str());
  return impl_->nodes[i].size;
}

bool Tlsf::is_allocated(uint64_t addr) const { return impl_->index.find(addr) != kNil; }

TlsfStats Tlsf::stats() const {
  TlsfStats s;
  s.used = impl_->used_bytes;
  s.free = impl_->free_bytes;
  s.largest_free = impl_->largest_free();
  s.used_blocks = impl_->used_blocks;
  s.free_blocks = impl_->free_blocks;
  return s;
}

uint64_t Tlsf::base() const { return impl_->base; }
uint64_t Tlsf::size() const { return impl_->size; }
uint64_t Tlsf::min_block() const { return impl_->granule; }

void Tlsf::for_each_block_impl(void (*cb)(void*, uint64_t, uint64_t, bool), void* ctx) const {
  for (uint32_t i = impl_->first; i != kNil; i = impl_->nodes[i].next_phys)
    cb(ctx, impl_->nodes[i].addr, impl_->nodes[i].size, impl_->nodes[i].free != 0);
}

Status Tlsf::check_invariants() const {
  const Impl& m = *impl_;
  auto bad = [](const std::string& what) {
    return make_error(Errc::kInternal, "TLSF invariant violated: %s", what.c_str());
  };
  // Blocks tile [base, base + size) in order.
  uint64_t expect = m.base, covered = 0, used = 0, freeb = 0, nused = 0, nfree = 0;
  uint32_t prev = kNil;
  bool prev_free = false;
  size_t steps = 0;
  for (uint32_t i = m.first; i != kNil; i = m.nodes[i].next_phys) {
    if (++steps > m.nodes.size()) return bad("physical block list has a cycle");
    const Node& n = m.nodes[i];
    if (n.prev_phys != prev)
      return bad(strformat("block %s has a wrong prev link", hex(n.addr).c_str()));
    if (n.addr != expect)
      return bad(strformat("block at %s, expected %s (gap or overlap)", hex(n.addr).c_str(),
                           hex(expect).c_str()));
    if (n.size == 0 || n.size % m.granule != 0)
      return bad(strformat("block %s has size %s", hex(n.addr).c_str(), hex(n.size).c_str()));
    if (n.free && prev_free)
      return bad(strformat("adjacent free blocks at %s", hex(n.addr).c_str()));
    if (n.free) {
      if (n.bin != m.bin_of(n.size >> m.gshift))
        return bad(strformat("free block %s in the wrong bin", hex(n.addr).c_str()));
      freeb += n.size;
      ++nfree;
      if (m.index.find(n.addr) != kNil)
        return bad(strformat("free block %s is in the allocation index", hex(n.addr).c_str()));
    } else {
      used += n.size;
      ++nused;
      if (n.addr % (uint64_t{1} << n.align_log2) != 0)
        return bad(strformat("allocation %s is not aligned to %s", hex(n.addr).c_str(),
                             hex(uint64_t{1} << n.align_log2).c_str()));
      if (m.index.find(n.addr) != i)
        return bad(strformat("allocation %s is missing from the index", hex(n.addr).c_str()));
    }
    covered += n.size;
    expect = n.addr + n.size;
    prev = i;
    prev_free = n.free;
  }
  if (covered != m.size)
    return bad(strformat("blocks cover %s of %s bytes", hex(covered).c_str(), hex(m.size).c_str()));
  if (used != m.used_bytes || freeb != m.free_bytes || nused != m.used_blocks ||
      nfree != m.free_blocks)
    return bad("byte or block counters disagree with the blocks");
  if (m.index.size() != nused) return bad("allocation index size disagrees with the blocks");
  // Bins and bitmaps. Only non-empty bins are visited (the check runs after every operation in
  // the randomized tests); a free list hiding behind a clear bit is caught because every free
  // block's own bin bit must be set and every free block must be on some visited list.
  uint64_t listed = 0;
  const uint32_t slc = 1u << m.sll;
  for (uint32_t i = m.first; i != kNil; i = m.nodes[i].next_phys) {
    const Node& n = m.nodes[i];
    if (n.free && !((m.sl_bitmap[n.bin >> m.sll] >> (n.bin & (slc - 1))) & 1))
      return bad(
          strformat("bitmap bit of bin %u (free block %s) is clear", n.bin, hex(n.addr).c_str()));
  }
  for (unsigned fl = 0; fl < 64; ++fl) {
    if (((m.fl_bitmap >> fl) & 1) != (m.sl_bitmap[fl] != 0))
      return bad(strformat("first-level bitmap bit %u disagrees with the second level", fl));
    for (uint64_t w = m.sl_bitmap[fl]; w != 0; w &= w - 1) {
      const uint32_t b = (fl << m.sll) | static_cast<uint32_t>(std::countr_zero(w));
      if (b >= m.heads.size() || (b & (slc - 1)) != static_cast<uint32_t>(std::countr_zero(w)))
        return bad(strformat("second-level bitmap of level %u has a bit beyond %u bins", fl, slc));
      if (m.heads[b] == kNil) return bad(strformat("bin %u has its bit set but is empty", b));
      uint32_t p = kNil;
      for (uint32_t i = m.heads[b]; i != kNil; i = m.nodes[i].next_free) {
        if (++listed > nfree) return bad("free lists hold more nodes than there are free blocks");
        const Node& n = m.nodes[i];
        if (!n.free || n.bin != b || n.prev_free != p)
          return bad(strformat("free list of bin %u holds a bad node %s", b, hex(n.addr).c_str()));
        p = i;
      }
    }
  }
  if (listed != nfree) return bad("a free block is missing from its free list");
  return {};
}

// ---------------------------------------------------------------------------------------------
// BumpAllocator
// ---------------------------------------------------------------------------------------------

Result<BumpAllocator> BumpAllocator::create(uint64_t base, uint64_t size, bool wrap) {
  if (size == 0) return make_error(Errc::kInvalidArgument, "bump allocator of zero bytes");
  if (base + (size - 1) < base)
    return make_error(Errc::kOverflow, "bump allocator range %s + %s wraps past 2^64",
                      hex(base).c_str(), hex(size).c_str());
  return BumpAllocator(base, size, wrap);
}

uint64_t BumpAllocator::fit_at(uint64_t from, uint64_t size, uint64_t align) const {
  const uint64_t addr = base_ + from;
  const uint64_t aligned = (addr + align - 1) & ~(align - 1);
  if (aligned < addr) return UINT64_MAX;
  const uint64_t off = aligned - base_;
  if (off > size_ || size_ - off < size) return UINT64_MAX;
  return off;
}

Result<uint64_t> BumpAllocator::alloc(uint64_t size, uint64_t align) {
  if (size == 0) return make_error(Errc::kInvalidArgument, "bump alloc of zero bytes");
  if (!is_pow2(align))
    return make_error(Errc::kInvalidArgument, "bump alignment %s is not a power of two",
                      hex(align).c_str());
  uint64_t off = fit_at(offset_, size, align);
  bool wrapped = false;
  if (off == UINT64_MAX) {
    if (!wrap_)
      return make_error(Errc::kOutOfMemory,
                        "bump allocator full: %s aligned to %s does not fit at offset %s of %s",
                        format_bytes(size).c_str(), hex(align).c_str(), hex(offset_).c_str(),
                        format_bytes(size_).c_str());
    off = fit_at(0, size, align);
    if (off == UINT64_MAX)
      return make_error(
          Errc::kOutOfMemory, "bump allocation of %s aligned to %s does not fit in the %s ring",
          format_bytes(size).c_str(), hex(align).c_str(), format_bytes(size_).c_str());
    wrapped = true;
  }
  offset_ = off + size;
  if (wrapped) ++wraps_;
  return base_ + off;
}

}  // namespace rawgpu::memory
