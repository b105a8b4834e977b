// GCC's straight-line vectorizer packs pairs of 64-bit field updates of the hot paths
// (addr/size, the byte counters) into SSE loads, shuffles and stores: about 35 more instructions
// per alloc+free pair than the scalar code (callgrind), for no gain. It is
// switched off for the whole translation unit, headers included: GCC does not inline across
// functions with different optimization options (the address index would call NodeAddr).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#include "rawgpu/memory/tlsf.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <new>
#include <type_traits>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "tlsf_index.h"

namespace rawgpu::memory {

namespace {

// Node 0 is a sentinel: "no node" is index 0, so a link store that only matters when a neighbour
// exists (N[next].prev_phys = i, N[head].prev_free = i, ...) can be done unconditionally and lands
// in the sentinel otherwise. Nothing reads the sentinel's fields.
constexpr uint32_t kNil = 0;
constexpr uint32_t kNoBin = std::numeric_limits<uint32_t>::max();
// prev_free of a block that is not on a free list: an allocation, or a recycled node slot.
constexpr uint32_t kUsed = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kDead = kUsed - 1;
constexpr uint32_t kMaxNodes = kDead - 1;
// An allocated node's next_free: bits 0..5 log2 of the requested alignment, bits 6..31 the
// alignment padding in front of the allocation, in granules.
constexpr unsigned kPadBitShift = 6;
constexpr uint64_t kMaxPadGranules = (uint64_t{1} << (32 - kPadBitShift)) - 1;

// One block, 32 bytes: the fields a list operation touches share a cache line. While a block is
// allocated, prev_free is kUsed, addr and size are the allocation's (what alloc returned and
// size_of reports) and next_free holds log2 of the requested alignment (for check_invariants)
// and the alignment padding between the block's start and addr; recycled slots have prev_free
// kDead and chain through next_phys. A free block's bin is a function of its size and is
// recomputed (a few ALU ops) instead of stored.
struct Node {
  uint64_t addr;
  uint64_t size;
  uint32_t prev_phys;
  uint32_t next_phys;
  uint32_t prev_free;
  uint32_t next_free;
};
static_assert(sizeof(Node) == 32);

// floor(log2(x)) for x != 0 (the hot paths' arguments are nonzero by construction), without
// base/bits.h's assertion, which keeps log2_floor out of line where NDEBUG is not defined.
constexpr unsigned log2_nz(uint64_t x) { return 63u - static_cast<unsigned>(std::countl_zero(x)); }

// The address index reads an allocation's start address from its node.
struct NodeAddr {
  const Node* N;
  uint64_t operator()(uint32_t i) const { return N[i].addr; }
};
using AddrIndex = detail::AddrIndex<NodeAddr>;
static_assert(AddrIndex::kEmpty == kNil);

}  // namespace

struct Tlsf::Impl {
  uint64_t base = 0;
  uint64_t size = 0;
  uint64_t granule = 0;
  uint64_t max_align = 0;  // max(size, granule)
  unsigned gshift = 0;     // log2(granule)
  unsigned sll = 0;        // log2(second-level count)
  unsigned cfg = 0;        // sll | (gshift + 1) << 8: kDefaultCfg selects the inlined hot paths
  uint64_t fl_bitmap = 0;
  uint32_t nbins = 0;        // 64 << sll
  uint64_t sl_bitmap[64]{};  // one word per first level
  std::vector<Node> nodes;
  uint32_t spare = kNil;  // recycled node slots, chained through next_phys
  uint32_t spare_count = 0;
  uint64_t node_reallocations = 0;
  uint32_t first = kNil;  // the block at `base`
  AddrIndex index;
  // O(1) counters; free bytes/blocks follow from them.
  uint64_t used_bytes = 0;
  uint64_t pad_bytes = 0;  // alignment padding inside allocated blocks
  // Flat bin -> first free node (kNil: empty), sized for the largest second-level count; in the
  // object rather than behind a pointer: one load less per list operation.
  uint32_t heads[64 * 64]{};
  static_assert(kNil == 0, "value-initialized heads are empty lists");

  // Free blocks have a list link or kNil in prev_free; kUsed and kDead are the two largest
  // values (node indexes stay below kMaxNodes), so one add and compare tells them apart.
  static bool is_free(const Node& n) { return static_cast<uint32_t>(n.prev_free - kDead) >= 2u; }

  // Branch-free select: c ? a : b, written with masks so the compiler cannot turn it into a
  // branch (used where the condition is data-dependent and mispredicts would dominate).
  template <class T>
  static T sel(bool c, T a, T b) {
    return b ^ ((a ^ b) & (T{0} - static_cast<T>(c)));
  }

  // The hot paths are templates over a configuration code S: bits 0..7 the second-level count's
  // log2 and bits 8..15 log2(granule) + 1, each 0 for "read it from the object". The default
  // configuration (32 bins, 256-byte granules) is kDefaultCfg; then every shift is an immediate.
  static constexpr unsigned kDefaultCfg = 5u | ((8u + 1u) << 8);
  template <unsigned S>
  unsigned sl_of() const {
    return (S & 0xffu) != 0 ? (S & 0xffu) : sll;
  }
  template <unsigned S>
  unsigned gs() const {
    return (S >> 8) != 0 ? (S >> 8) - 1 : gshift;
  }
  template <unsigned S>
  uint64_t gran() const {
    return uint64_t{1} << gs<S>();
  }

  // ---- size classes (in granules) ----
  // Sizes below 2^sll granules get one exact bin each (bins 0 .. 2^sll - 1); above, each power
  // of two [2^f, 2^(f+1)) is split into 2^sll equal sub-ranges, the bins of row f - sll + 1.
  // Branch-free: log2 of (n | 2^sll) is max(f, sll), so small sizes shift by zero and land on
  // bin n. Bins are ordered by size; row = bin >> sll indexes the first-level bitmap.
  template <unsigned S = 0>
  uint32_t bin_of(uint64_t n) const {
    [[maybe_unused]] const unsigned sll = sl_of<S>();
    const unsigned shift = log2_nz(n | (uint64_t{1} << sll)) - sll;
    return static_cast<uint32_t>((uint64_t{shift} << sll) + (n >> shift));
  }
  // The lowest bin whose every block holds at least n granules (n >= 1): n's own bin, or the
  // next one when n is not the lower bound of its bin (bins are numbered contiguously across
  // rows), i.e. n's row offset rounded up: ceil(n / 2^shift) = ((n - 1) >> shift) + 1. For n near
  // 2^64 this is row 64, which find_bin() treats as "none"; when the granule is at least 2 bytes
  // (so n < 2^63) it is at most row 63.
  template <unsigned S = 0>
  uint32_t fit_bin_of(uint64_t n) const {
    [[maybe_unused]] const unsigned sll = sl_of<S>();
    const unsigned shift = log2_nz(n | (uint64_t{1} << sll)) - sll;
    return static_cast<uint32_t>((uint64_t{shift} << sll) + ((n - 1) >> shift) + 1);
  }
  // First non-empty bin at or above `from` (flat index), or kNoBin. kMayBeOutside: `from` may
  // lie beyond the last row (or be kNoBin); false only where it is fit_bin_of() of a size in
  // granules of at least 2 bytes (see there).
  template <unsigned S = 0, bool kMayBeOutside = true>
  uint32_t find_bin(uint32_t from) const {
    [[maybe_unused]] const unsigned sll = sl_of<S>();
    unsigned fl = from >> sll;
    const unsigned sl = from & ((1u << sll) - 1);
    if (kMayBeOutside && fl >= 64) [[unlikely]]  // also from == kNoBin
      return kNoBin;
    // Both candidates (a bin in this row, the first bin of the next non-empty row) are computed
    // and one is selected without a branch: which one applies is data-dependent. The top bit
    // keeps ctz defined when a map is empty (that candidate is then not used).
    const uint64_t sl_map = sl_bitmap[fl] & (~uint64_t{0} << sl);
    const uint64_t fl_map = fl_bitmap & (~uint64_t{1} << fl);  // rows above fl
    if ((sl_map | fl_map) == 0) [[unlikely]]
      return kNoBin;
    constexpr uint64_t kTop = uint64_t{1} << 63;
    const unsigned up = static_cast<unsigned>(std::countr_zero(fl_map | kTop));
    const uint32_t here_bin = (fl << sll) | static_cast<unsigned>(std::countr_zero(sl_map | kTop));
    const uint32_t up_bin =
        (up << sll) | static_cast<unsigned>(std::countr_zero(sl_bitmap[up] | kTop));
    return sel(sl_map != 0, here_bin, up_bin);  // masks: GCC turns `?:` here into a branch
  }

  // ---- node pool ----
  // Makes sure two slots are spare, so that take() never reallocates `nodes` midway.
  void reserve_two() {
    if (spare_count < 2) [[unlikely]]
      grow_nodes(2);
  }
  // Makes `want` slots spare. A host bad_alloc comes from the one reserve() before any change.
  // The capacity grows geometrically (at least doubling, capped at kMaxNodes): reserving just
  // what is wanted would reallocate and copy the whole array on every growth, making each
  // allocation cost time proportional to the number of live blocks.
  [[gnu::noinline]] void grow_nodes(uint32_t want) {
    if (spare_count >= want) return;
    const size_t needed = nodes.size() + (want - spare_count);
    // 2^32 - 3 descriptors (128 GiB of them) are what 32-bit node links address: past that the
    // host metadata is exhausted, reported like any other host allocation failure, before any
    // change.
    if (needed > kMaxNodes) throw std::bad_alloc();
    if (needed > nodes.capacity()) {
      const size_t doubled = std::max<size_t>(nodes.capacity() * 2, 64);
      nodes.reserve(std::max(needed, std::min<size_t>(doubled, kMaxNodes)));
      ++node_reallocations;
    }
    while (spare_count < want) {
      nodes.push_back(Node{0, 0, kNil, spare, kDead, kNil});
      spare = static_cast<uint32_t>(nodes.size() - 1);
      ++spare_count;
    }
  }
  uint32_t pop_node(Node* N) {
    const uint32_t i = spare;
    spare = N[i].next_phys;
    --spare_count;
    return i;
  }
  void drop_node(Node* N, uint32_t i) {
    N[i].prev_free = kDead;
    N[i].next_phys = spare;
    spare = i;
    ++spare_count;
  }

  // ---- free lists ----
  // Branch-free list updates: the free lists of the common workloads are zero to two nodes long,
  // so "does the list have a neighbour" is a coin flip for the branch predictor (each miss costs
  // more than the handful of ALU ops below). A store that only applies when a neighbour exists
  // goes to node i itself otherwise (i's list fields are rewritten anyway); bitmap bits are set
  // or cleared by data.
  template <unsigned S = 0>
  void link_free(Node* N, uint32_t i) {
    [[maybe_unused]] const unsigned sll = sl_of<S>();
    Node& n = N[i];
    const uint32_t b = bin_of<S>(n.size >> gs<S>());
    const uint32_t h = heads[b];
    n.prev_free = kNil;
    n.next_free = h;
    heads[b] = i;
    N[h].prev_free = i;  // the sentinel if the list was empty
    sl_bitmap[b >> sll] |= uint64_t{1} << (b & ((1u << sll) - 1));
    fl_bitmap |= uint64_t{1} << (b >> sll);
  }
  template <unsigned S = 0>
  void unlink_free(Node* N, uint32_t i) {
    unlink_from<S>(N, i, bin_of<S>(N[i].size >> gs<S>()));
  }
  // Removes i from bin b's list (b: the bin of the size i was linked with).
  template <unsigned S = 0>
  void unlink_from(Node* N, uint32_t i, uint32_t b) {
    [[maybe_unused]] const unsigned sll = sl_of<S>();
    const Node& n = N[i];
    const uint32_t pf = n.prev_free, nf = n.next_free;
    N[nf].prev_free = pf;  // sentinel stores when i is last / first
    N[pf].next_free = nf;
    // i is the head when it has no predecessor. A select between two loaded values, which GCC
    // compiles to one cmov; the mask form (sel) made it reload the head and spill registers.
    const uint32_t h = heads[b];
    heads[b] = pf == kNil ? nf : h;
    const uint64_t emptied = (pf | nf) == kNil;  // i was the only node
    uint64_t& w = sl_bitmap[b >> sll];
    w &= ~(emptied << (b & ((1u << sll) - 1)));
    fl_bitmap &= ~(uint64_t{w == 0} << (b >> sll));
  }

  // Removes i, known to be the head of bin b's list.
  template <unsigned S = 0>
  void unlink_head(Node* N, uint32_t i, uint32_t b) {
    [[maybe_unused]] const unsigned sll = sl_of<S>();
    const uint32_t nf = N[i].next_free;
    heads[b] = nf;
    N[nf].prev_free = kNil;
    uint64_t& w = sl_bitmap[b >> sll];
    w &= ~(uint64_t{nf == kNil} << (b & ((1u << sll) - 1)));
    fl_bitmap &= ~(uint64_t{w == 0} << (b >> sll));
  }

  // Offset into block i where an aligned allocation of `bytes` would start, or UINT64_MAX.
  uint64_t fit_offset(uint32_t i, uint64_t bytes, uint64_t align) const {
    const Node& n = nodes[i];
    const uint64_t pre = (0 - n.addr) & (align - 1);  // distance to the next aligned address
    if (pre > n.size || n.size - pre < bytes) return UINT64_MAX;
    return pre;
  }

  // Alignment padding up to this many bytes in front of an allocation stays inside the
  // allocated block (recorded in the node) instead of becoming a free block of its own.
  template <unsigned S = 0>
  uint64_t pad_limit(uint64_t bytes) const {
    return std::min(bytes, kMaxPadGranules << gs<S>());
  }

  // Allocates `bytes` at offset `pre` inside free block i; `head_of` is the bin whose list i
  // heads, or kNoBin if that is not known.
  template <unsigned S = 0>
  [[gnu::always_inline]] inline uint64_t take(uint32_t i, uint32_t head_of, uint64_t pre,
                                              uint64_t bytes, uint64_t align) {
    [[maybe_unused]] const unsigned sll = S ? S : this->sll;
    // Everything that may allocate (node slots, index capacity) before the first change: a host
    // bad_alloc then leaves the allocator as it was.
    reserve_two();
    Node* N = nodes.data();
    index.reserve_one(NodeAddr{N});
    if (head_of != kNoBin)
      unlink_head<S>(N, i, head_of);
    else
      unlink_free<S>(N, i);
    Node& n = N[i];
    if (pre > pad_limit<S>(bytes)) {
      // A large gap in front becomes a free block.
      const uint32_t p = pop_node(N);
      Node& pn = N[p];
      pn.addr = n.addr;
      pn.size = pre;
      pn.prev_phys = n.prev_phys;
      pn.next_phys = i;
      if (n.prev_phys != kNil)
        N[n.prev_phys].next_phys = p;
      else
        first = p;
      n.prev_phys = p;
      n.addr += pre;
      n.size -= pre;
      link_free<S>(N, p);
      pre = 0;
    }
    // What is left of the gap (usually all of it, often nothing) is padding: the node's
    // address becomes the allocation's, the block still starts pre bytes earlier.
    n.addr += pre;
    n.size -= pre;
    pad_bytes += pre;
    if (n.size > bytes) {
      const uint32_t t = pop_node(N);
      Node& tn = N[t];
      tn.addr = n.addr + bytes;
      tn.size = n.size - bytes;
      tn.prev_phys = i;
      tn.next_phys = n.next_phys;
      N[n.next_phys].prev_phys = t;
      n.next_phys = t;
      n.size = bytes;
      link_free<S>(N, t);
    }
    n.prev_free = kUsed;
    n.next_free = static_cast<uint32_t>(std::countr_zero(align)) |
                  static_cast<uint32_t>((pre >> gs<S>()) << kPadBitShift);
    used_bytes += n.size;
    index.insert_reserved(n.addr, i);
    return n.addr;
  }

  uint64_t free_bytes() const { return size - used_bytes - pad_bytes; }
  // The padding in front of allocated node n (bytes).
  template <unsigned S = 0>
  uint64_t pad_of(const Node& n) const {
    return static_cast<uint64_t>(n.next_free >> kPadBitShift) << gs<S>();
  }
  // Start and length of the block of node n (allocated blocks include their padding).
  uint64_t block_start(const Node& n) const { return is_free(n) ? n.addr : n.addr - pad_of(n); }
  uint64_t block_size(const Node& n) const { return is_free(n) ? n.size : n.size + pad_of(n); }
  // Nodes in use (the sentinel aside) are blocks.
  uint64_t used_blocks() const { return index.size(); }  // every allocation is in the index
  uint64_t free_blocks() const { return nodes.size() - 1 - spare_count - used_blocks(); }

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
      if (addr - block_start(nodes[i]) < block_size(nodes[i])) return i;
    return kNil;
  }

  // kFast: every case the O(1) path does not finish returns {0, 0} with nothing changed (the
  // public entry point then runs the full path); otherwise a Result.
  template <unsigned S, bool kFast = false>
  [[gnu::always_inline]] inline auto alloc_t(uint64_t size, uint64_t align);
  // kFast: false (nothing changed) when addr is not an allocation start.
  template <unsigned S, bool kFast = false>
  [[gnu::always_inline]] inline auto free_t(uint64_t addr);
  template <unsigned S>
  [[gnu::noinline]] Result<uint64_t> alloc_slow(uint64_t size, uint64_t align);
  template <unsigned S>
  [[gnu::noinline]] Result<uint64_t> no_room(uint64_t size, uint64_t align, uint64_t bytes);
  bool fits_with_padding_released(uint64_t bytes, uint64_t align) const;
  void release_all_padding();
  template <bool kFast>
  [[gnu::noinline]] auto alloc_other(uint64_t size, uint64_t align);
  template <bool kFast>
  [[gnu::noinline]] auto free_other(uint64_t addr);

  // ---- error paths (out of line: the hot paths only branch to them) ----
  [[gnu::noinline, gnu::cold]] Error alloc_error(uint64_t size, uint64_t align) const {
    if (size == 0) return make_error(Errc::kInvalidArgument, "TLSF alloc of zero bytes");
    if (!is_pow2(align))
      return make_error(Errc::kInvalidArgument, "TLSF alignment %s is not a power of two",
                        hex(align).c_str());
    if (align > size_limit_align())
      return make_error(Errc::kInvalidArgument,
                        "TLSF alignment %s exceeds the managed range size %s", hex(align).c_str(),
                        hex(this->size).c_str());
    return out_of_space(size, std::max(align, granule));
  }
  uint64_t size_limit_align() const { return max_align; }
  [[gnu::noinline, gnu::cold]] Error out_of_space(uint64_t bytes, uint64_t align) const {
    const uint64_t largest = largest_free();
    return make_error(Errc::kOutOfMemory,
                      "TLSF cannot allocate %s (%llu bytes) aligned to %s: largest free block "
                      "is %s (%llu bytes) of %s free",
                      format_bytes(bytes).c_str(), static_cast<unsigned long long>(bytes),
                      format_bytes(align).c_str(), format_bytes(largest).c_str(),
                      static_cast<unsigned long long>(largest), format_bytes(free_bytes()).c_str());
  }
  [[gnu::noinline, gnu::cold]] Error free_error(uint64_t addr) const {
    if (addr < base || addr - base >= size)
      return make_error(Errc::kOutOfRange, "TLSF free of %s outside the managed range [%s, +%s)",
                        hex(addr).c_str(), hex(base).c_str(), hex(size).c_str());
    const uint32_t c = block_containing(addr);
    RG_CHECK(c != kNil, "blocks do not tile the range");
    const Node& b = nodes[c];
    if (is_free(b))
      return make_error(Errc::kAlreadyExists,
                        "TLSF free of %s, which lies in free space [%s, %s): double free or never "
                        "allocated",
                        hex(addr).c_str(), hex(b.addr).c_str(), hex(b.addr + b.size).c_str());
    if (addr < b.addr)
      return make_error(Errc::kInvalidArgument,
                        "TLSF free of %s, which is not an allocation start (it lies in the "
                        "alignment padding in front of the allocation at %s)",
                        hex(addr).c_str(), hex(b.addr).c_str());
    return make_error(Errc::kInvalidArgument,
                      "TLSF free of %s, which is not an allocation start (it lies inside the "
                      "allocation at %s of %s)",
                      hex(addr).c_str(), hex(b.addr).c_str(), format_bytes(b.size).c_str());
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
  impl->max_align = std::max(c.size, c.min_block);
  impl->gshift = log2_floor(c.min_block);
  impl->sll = log2_floor(c.sl_count);
  impl->cfg = impl->sll | ((impl->gshift + 1) << 8);
  impl->nbins = 64u << impl->sll;
  impl->nodes.reserve(64);
  impl->nodes.push_back(Node{0, 0, kNil, kNil, kUsed, 0});  // the sentinel, index kNil
  impl->reserve_two();
  Node* N = impl->nodes.data();
  const uint32_t n = impl->pop_node(N);
  N[n] = Node{c.base, c.size, kNil, kNil, kNil, kNil};
  impl->first = n;
  impl->link_free(N, n);
  return Tlsf(std::move(impl));
}

template <unsigned S, bool kFast>
auto Tlsf::Impl::alloc_t(uint64_t size, uint64_t align) {
  using R = std::conditional_t<kFast, Fast, Result<uint64_t>>;
  Impl& m = *this;
  // One test each for: zero size or larger than the range (size - 1 wraps), alignment zero or
  // above the limit, alignment not a power of two. The error path sorts out which.
  if (size - 1 >= m.size || align - 1 >= m.max_align || (align & (align - 1)) != 0) [[unlikely]] {
    if constexpr (kFast)
      return R{0, 0};
    else
      return R(m.alloc_error(size, align));
  }
  align = std::max(align, m.template gran<S>());
  // size <= m.size <= 2^64 - granule: no overflow.
  const uint64_t bytes = (size + m.template gran<S>() - 1) & ~(m.template gran<S>() - 1);
  const uint64_t n = bytes >> m.template gs<S>();
  // With a compile-time granule of 4 bytes or more, n and n + slack (below) are < 2^63: their
  // fit bins are inside the bin table and the sum cannot wrap.
  constexpr bool kSmallN = (S >> 8) >= 3;
  uint32_t b = m.template find_bin<S, !kSmallN>(m.template fit_bin_of<S>(n));
  if (b == kNoBin) [[unlikely]] {
    if constexpr (kFast)
      return R{0, 0};
    else
      return m.template alloc_slow<S>(size, align);
  }
  // The head of the good-fit bin holds `bytes`; it takes the request if it also absorbs the
  // alignment (always for unaligned requests: the gap is then zero). Otherwise the head of the
  // first bin that guarantees a fit after alignment (size + align - granule).
  const Node* N = m.nodes.data();
  uint32_t i = m.heads[b];
  uint64_t pre = (0 - N[i].addr) & (align - 1);
  if (N[i].size - bytes < pre) [[unlikely]] {
    const uint64_t slack = (align >> m.template gs<S>()) - 1;
    b = !kSmallN && n > std::numeric_limits<uint64_t>::max() - slack
            ? kNoBin
            : m.template find_bin<S, !kSmallN>(m.template fit_bin_of<S>(n + slack));
    if (b == kNoBin) [[unlikely]] {
      if constexpr (kFast)
        return R{0, 0};
      else
        return m.template alloc_slow<S>(size, align);
    }
    i = m.heads[b];
    pre = (0 - N[i].addr) & (align - 1);
  }
  if constexpr (kFast)
    return R{m.template take<S>(i, b, pre, bytes, align), 1};
  else
    return R(m.template take<S>(i, b, pre, bytes, align));
}

// The rare cases: no bin guarantees a fit (scan n's own bin, or every large-enough free block for
// an aligned request). Out of line, so that the hot path above keeps its values in registers.
template <unsigned S>
Result<uint64_t> Tlsf::Impl::alloc_slow(uint64_t size, uint64_t align) {
  Impl& m = *this;
  align = std::max(align, m.template gran<S>());
  const uint64_t bytes = (size + m.template gran<S>() - 1) & ~(m.template gran<S>() - 1);
  if (bytes > m.size - m.used_bytes)  // not even with all padding released: O(1) answer
    return m.out_of_space(size, align);
  const uint64_t n = bytes >> m.template gs<S>();
  if (align == m.template gran<S>()) {
    // Blocks in n's own bin may still be large enough.
    const uint32_t own = m.template bin_of<S>(n);
    for (uint32_t i = m.heads[own]; i != kNil; i = m.nodes[i].next_free)
      if (m.nodes[i].size >= bytes) return m.template take<S>(i, kNoBin, 0, bytes, align);
    return m.template no_room<S>(size, align, bytes);
  }
  // Exhaustive: every free block that is large enough at all.
  for (uint32_t b = m.template find_bin<S>(m.template bin_of<S>(n)); b != kNoBin;
       b = b + 1 < m.nbins ? m.template find_bin<S>(b + 1) : kNoBin) {
    for (uint32_t i = m.heads[b]; i != kNil; i = m.nodes[i].next_free) {
      const uint64_t pre = m.fit_offset(i, bytes, align);
      if (pre != UINT64_MAX) return m.template take<S>(i, kNoBin, pre, bytes, align);
    }
  }
  return m.template no_room<S>(size, align, bytes);
}

// No free block holds the request. Padding kept in front of allocations is free space too: if
// the request fits once it is released, release it all (it merges with neighbouring free
// blocks) and allocate again; otherwise fail with nothing changed. So an allocation fails only
// when no gap between allocations can hold it, padding or not.
template <unsigned S>
Result<uint64_t> Tlsf::Impl::no_room(uint64_t size, uint64_t align, uint64_t bytes) {
  if (pad_bytes == 0 || !fits_with_padding_released(bytes, align)) return out_of_space(size, align);
  // Everything the release and the allocation after it may allocate comes first, so that a
  // host bad_alloc changes nothing: a node per padding (one that merges into a free block
  // before it needs none), two for take(), and index room for the new entry.
  uint32_t padded = 0;
  for (uint32_t i = first; i != kNil; i = nodes[i].next_phys)
    padded += !is_free(nodes[i]) && pad_of(nodes[i]) != 0;
  grow_nodes(padded + 2);
  index.reserve_one(NodeAddr{nodes.data()});
  release_all_padding();
  return alloc_t<S>(size, align);
}

bool Tlsf::Impl::fits_with_padding_released(uint64_t bytes, uint64_t align) const {
  // Runs of free blocks and paddings (a padding always ends at its allocation) in address order.
  auto fits = [&](uint64_t lo, uint64_t hi) {
    const uint64_t a = lo + ((0 - lo) & (align - 1));
    return a >= lo && a <= hi && hi - a >= bytes;
  };
  uint64_t lo = 0, hi = 0;
  bool open = false;
  for (uint32_t i = first; i != kNil; i = nodes[i].next_phys) {
    const Node& n = nodes[i];
    if (is_free(n)) {
      if (!open) lo = n.addr;
      hi = n.addr + n.size;
      open = true;
      continue;
    }
    const uint64_t pad = pad_of(n);
    if (pad != 0) {
      if (!open) lo = n.addr - pad;
      hi = n.addr;
      open = true;
    }
    if (open && fits(lo, hi)) return true;
    open = false;
  }
  return open && fits(lo, hi);
}

void Tlsf::Impl::release_all_padding() {
  for (uint32_t i = first; i != kNil; i = nodes[i].next_phys) {
    if (is_free(nodes[i]) || pad_of(nodes[i]) == 0) continue;
    reserve_two();
    Node* N = nodes.data();
    Node& n = N[i];
    const uint64_t pad = pad_of(n);
    const uint32_t prev = n.prev_phys;
    if (prev != kNil && is_free(N[prev])) {
      unlink_free(N, prev);
      N[prev].size += pad;
      link_free(N, prev);
    } else {
      const uint32_t p = pop_node(N);
      N[p] = Node{n.addr - pad, pad, prev, i, kNil, kNil};
      if (prev != kNil)
        N[prev].next_phys = p;
      else
        first = p;
      n.prev_phys = p;
      link_free(N, p);
    }
    n.next_free &= (1u << kPadBitShift) - 1;
    pad_bytes -= pad;
  }
}

template <unsigned S, bool kFast>
auto Tlsf::Impl::free_t(uint64_t addr) {
  using R = std::conditional_t<kFast, bool, Status>;
  Impl& m = *this;
  // Only allocation starts are in the index (an address outside the range is not found either;
  // free_error() sorts out why).
  uint32_t i = m.index.take(NodeAddr{m.nodes.data()}, addr);
  if (i == kNil) [[unlikely]] {
    if constexpr (kFast)
      return false;
    else
      return R(m.free_error(addr));
  }
  Node* N = m.nodes.data();
  // The block starts `pad` bytes before the allocation.
  const uint64_t pad = m.template pad_of<S>(N[i]);
  m.used_bytes -= N[i].size;
  m.pad_bytes -= pad;
  uint64_t bytes = N[i].size + pad;
  const uint32_t prev = N[i].prev_phys;
  uint32_t next = N[i].next_phys;
  // Coalesce with the previous block: it absorbs this one. (One branch for both tests: the
  // sentinel node 0 is always readable.)
  if ((prev != kNil) & is_free(N[prev])) {
    m.template unlink_free<S>(N, prev);
    bytes += N[prev].size;
    m.drop_node(N, i);
    i = prev;
    N[i].next_phys = next;
    N[next].prev_phys = i;
  } else {
    N[i].addr -= pad;  // the block starts at its padding
  }
  // Coalesce with the next block: this one absorbs it.
  if ((next != kNil) & is_free(N[next])) {
    m.template unlink_free<S>(N, next);
    bytes += N[next].size;
    const uint32_t after = N[next].next_phys;
    N[i].next_phys = after;
    N[after].prev_phys = i;
    m.drop_node(N, next);
  }
  N[i].size = bytes;
  m.template link_free<S>(N, i);
  if constexpr (kFast)
    return true;
  else
    return R();
}

// The second-level count is a run-time setting; the hot paths are instantiated for each
// possible log2 so that the size-class shifts are immediates, and the default (32 bins) is
// inlined into the public entry points.
template <bool kFast>
auto Tlsf::Impl::alloc_other(uint64_t size, uint64_t align) {
  switch (sll) {
    case 4: return alloc_t<4, kFast>(size, align);
    case 5: return alloc_t<5, kFast>(size, align);
    case 6: return alloc_t<6, kFast>(size, align);
    default: return alloc_t<0, kFast>(size, align);
  }
}

template <bool kFast>
auto Tlsf::Impl::free_other(uint64_t addr) {
  switch (sll) {
    case 4: return free_t<4, kFast>(addr);
    case 5: return free_t<5, kFast>(addr);
    case 6: return free_t<6, kFast>(addr);
    default: return free_t<0, kFast>(addr);
  }
}

// The public alloc/free (inline in tlsf.h) call the fast entry points first; a request they
// return unhandled (nothing changed) runs again through the full ones, slow paths and errors
// included.
Tlsf::Fast Tlsf::alloc_fast(uint64_t size, uint64_t align) {
  Impl& m = *impl_.get();  // get(): no null assertion on the hot path
  if (m.cfg == Impl::kDefaultCfg) [[likely]]
    return m.alloc_t<Impl::kDefaultCfg, true>(size, align);
  return m.alloc_other<true>(size, align);
}

Result<uint64_t> Tlsf::alloc_full(uint64_t size, uint64_t align) {
  Impl& m = *impl_;
  if (m.cfg == Impl::kDefaultCfg) return m.alloc_t<Impl::kDefaultCfg>(size, align);
  return m.alloc_other<false>(size, align);
}

bool Tlsf::free_fast(uint64_t addr) {
  Impl& m = *impl_.get();  // get(): no null assertion on the hot path
  if (m.cfg == Impl::kDefaultCfg) [[likely]]
    return m.free_t<Impl::kDefaultCfg, true>(addr);
  return m.free_other<true>(addr);
}

Status Tlsf::free_full(uint64_t addr) {
  Impl& m = *impl_;
  if (m.cfg == Impl::kDefaultCfg) return m.free_t<Impl::kDefaultCfg>(addr);
  return m.free_other<false>(addr);
}

Result<uint64_t> Tlsf::size_of(uint64_t addr) const {
  const uint32_t i = impl_->index.find(NodeAddr{impl_->nodes.data()}, addr);
  if (i == kNil)
    return make_error(Errc::kNotFound, "no TLSF allocation starts at %s", hex(addr).c_str());
  return impl_->nodes[i].size;
}

bool Tlsf::is_allocated(uint64_t addr) const {
  return impl_->index.find(NodeAddr{impl_->nodes.data()}, addr) != kNil;
}

TlsfStats Tlsf::stats() const {
  TlsfStats s;
  s.used = impl_->used_bytes;
  s.padding = impl_->pad_bytes;
  s.free = impl_->free_bytes();
  s.largest_free = impl_->largest_free();
  s.used_blocks = impl_->used_blocks();
  s.free_blocks = impl_->free_blocks();
  return s;
}

TlsfIndexStats Tlsf::index_stats() const {
  TlsfIndexStats s;
  s.entries = impl_->index.size();
  s.capacity = impl_->index.capacity();
  s.max_probe = impl_->index.max_probe(NodeAddr{impl_->nodes.data()});
  return s;
}

TlsfPoolStats Tlsf::pool_stats() const {
  TlsfPoolStats s;
  s.nodes = impl_->nodes.size();
  s.capacity = impl_->nodes.capacity();
  s.reallocations = impl_->node_reallocations;
  return s;
}

uint64_t Tlsf::base() const { return impl_->base; }
uint64_t Tlsf::size() const { return impl_->size; }
uint64_t Tlsf::min_block() const { return impl_->granule; }

void Tlsf::for_each_block_impl(void (*cb)(void*, uint64_t, uint64_t, bool), void* ctx) const {
  for (uint32_t i = impl_->first; i != kNil; i = impl_->nodes[i].next_phys)
    cb(ctx, impl_->block_start(impl_->nodes[i]), impl_->block_size(impl_->nodes[i]),
       Impl::is_free(impl_->nodes[i]));
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
  uint64_t pads = 0;
  for (uint32_t i = m.first; i != kNil; i = m.nodes[i].next_phys) {
    if (++steps > m.nodes.size()) return bad("physical block list has a cycle");
    const Node& n = m.nodes[i];
    if (n.prev_phys != prev)
      return bad(strformat("block %s has a wrong prev link", hex(n.addr).c_str()));
    if (n.prev_free == kDead)
      return bad(strformat("recycled node in the block list at %s", hex(n.addr).c_str()));
    const bool nfree_ = Impl::is_free(n);
    const uint64_t start = m.block_start(n), bsize = m.block_size(n);
    if (start != expect)
      return bad(strformat("block at %s, expected %s (gap or overlap)", hex(start).c_str(),
                           hex(expect).c_str()));
    if (n.size == 0 || n.size % m.granule != 0)
      return bad(strformat("block %s has size %s", hex(n.addr).c_str(), hex(n.size).c_str()));
    if (nfree_ && prev_free)
      return bad(strformat("adjacent free blocks at %s", hex(n.addr).c_str()));
    if (nfree_) {
      freeb += n.size;
      ++nfree;
      if (m.index.find(NodeAddr{m.nodes.data()}, n.addr) != kNil)
        return bad(strformat("free block %s is in the allocation index", hex(n.addr).c_str()));
    } else {
      used += n.size;
      ++nused;
      const unsigned align_log2 = n.next_free & ((1u << kPadBitShift) - 1);
      const uint64_t pad = m.pad_of(n);
      pads += pad;
      if (n.addr % (uint64_t{1} << align_log2) != 0)
        return bad(strformat("allocation %s is not aligned to %s", hex(n.addr).c_str(),
                             hex(uint64_t{1} << align_log2).c_str()));
      if (pad != 0 && (pad >= (uint64_t{1} << align_log2) || pad > m.pad_limit(n.size)))
        return bad(strformat("allocation %s (%s bytes, aligned to %s) has %s bytes of padding",
                             hex(n.addr).c_str(), hex(n.size).c_str(),
                             hex(uint64_t{1} << align_log2).c_str(), hex(pad).c_str()));
      if (m.index.find(NodeAddr{m.nodes.data()}, n.addr) != i)
        return bad(strformat("allocation %s is missing from the index", hex(n.addr).c_str()));
    }
    covered += bsize;
    expect = start + bsize;
    prev = i;
    prev_free = nfree_;
  }
  if (covered != m.size)
    return bad(strformat("blocks cover %s of %s bytes", hex(covered).c_str(), hex(m.size).c_str()));
  if (used != m.used_bytes || pads != m.pad_bytes || freeb != m.free_bytes() ||
      nused != m.used_blocks() || nfree != m.free_blocks())
    return bad("byte or block counters disagree with the blocks");
  if (m.index.size() != nused) return bad("allocation index size disagrees with the blocks");
  if ((m.index.size() << AddrIndex::kLoadShift) > m.index.capacity())
    return bad("allocation index is over its load limit");
  // Bins and bitmaps. Only non-empty bins are visited (the check runs after every operation in
  // the randomized tests); a free list hiding behind a clear bit is caught because every free
  // block's own bin bit must be set and every free block must be on some visited list.
  uint64_t listed = 0;
  const uint32_t slc = 1u << m.sll;
  for (uint32_t i = m.first; i != kNil; i = m.nodes[i].next_phys) {
    const Node& n = m.nodes[i];
    const uint32_t nb = m.bin_of(n.size >> m.gshift);
    if (Impl::is_free(n) && !((m.sl_bitmap[nb >> m.sll] >> (nb & (slc - 1))) & 1))
      return bad(
          strformat("bitmap bit of bin %u (free block %s) is clear", nb, hex(n.addr).c_str()));
  }
  for (unsigned fl = 0; fl < 64; ++fl) {
    if (((m.fl_bitmap >> fl) & 1) != (m.sl_bitmap[fl] != 0))
      return bad(strformat("first-level bitmap bit %u disagrees with the second level", fl));
    for (uint64_t w = m.sl_bitmap[fl]; w != 0; w &= w - 1) {
      const uint32_t b = (fl << m.sll) | static_cast<uint32_t>(std::countr_zero(w));
      if (b >= m.nbins || (b & (slc - 1)) != static_cast<uint32_t>(std::countr_zero(w)))
        return bad(strformat("second-level bitmap of level %u has a bit beyond %u bins", fl, slc));
      if (m.heads[b] == kNil) return bad(strformat("bin %u has its bit set but is empty", b));
      uint32_t p = kNil;
      for (uint32_t i = m.heads[b]; i != kNil; i = m.nodes[i].next_free) {
        if (++listed > nfree) return bad("free lists hold more nodes than there are free blocks");
        const Node& n = m.nodes[i];
        if (!Impl::is_free(n) || m.bin_of(n.size >> m.gshift) != b || n.prev_free != p)
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
