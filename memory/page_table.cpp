#include "rawgpu/memory/page_table.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "rawgpu/base/bits.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/log.h"

namespace rawgpu::memory {

namespace {
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kTablePage = 4096;
constexpr unsigned kMaxLevels = 8;

// Bits [lo, hi) of a bitmap.
bool any_bits(const std::vector<uint64_t>& bm, uint64_t lo, uint64_t hi) {
  while (lo < hi) {
    const uint64_t w = lo / 64, b = lo % 64;
    const uint64_t n = std::min<uint64_t>(64 - b, hi - lo);
    const uint64_t mask = low_mask(static_cast<unsigned>(n)) << b;
    if (bm[w] & mask) return true;
    lo += n;
  }
  return false;
}
void set_bits_range(std::vector<uint64_t>& bm, uint64_t lo, uint64_t hi, bool value) {
  while (lo < hi) {
    const uint64_t w = lo / 64, b = lo % 64;
    const uint64_t n = std::min<uint64_t>(64 - b, hi - lo);
    const uint64_t mask = low_mask(static_cast<unsigned>(n)) << b;
    if (value)
      bm[w] |= mask;
    else
      bm[w] &= ~mask;
    lo += n;
  }
}
bool all_bits(const std::vector<uint64_t>& bm, uint64_t lo, uint64_t hi) {
  while (lo < hi) {
    const uint64_t w = lo / 64, b = lo % 64;
    const uint64_t n = std::min<uint64_t>(64 - b, hi - lo);
    const uint64_t mask = low_mask(static_cast<unsigned>(n)) << b;
    if ((bm[w] & mask) != mask) return false;
    lo += n;
  }
  return true;
}
bool test_bit(const std::vector<uint64_t>& bm, uint64_t i) { return (bm[i / 64] >> (i % 64)) & 1; }
unsigned ctz_or(uint64_t v, unsigned fallback) {
  return v == 0 ? fallback : static_cast<unsigned>(std::countr_zero(v));
}
}  // namespace

struct PageTable::Impl {
  struct Table {
    VramAddr pa;
    uint64_t* words = nullptr;
    uint32_t parent = kNone;
    uint32_t parent_index = 0;
    uint8_t level = 0;
    bool in_use = false;
    uint32_t live = 0;            // leaves + child tables
    std::vector<uint32_t> child;  // per entry: child table or kNone (levels above the last)
    std::vector<uint64_t> leaf;   // bitmap of leaf entries
    // Dual-PDE level with big pages: per entry the big-page table (the PDE's other half).
    std::vector<uint32_t> big_child;
    bool is_big = false;  // a big-page table (its parent entry's big half points here)
  };

  const PteCodec* codec = nullptr;
  PhysicalMemory* mem = nullptr;
  TablePageSource* pages = nullptr;
  TableLocation where;  // where every table page lives
  std::vector<LevelInfo> lv;
  unsigned last = 0;
  // NVIDIA big pages: `big` is the pseudo level of big-page tables (last + 1, appended to lv),
  // hanging off the dual PDEs of `dual`; 0 when the format has none. use_big: map with them.
  unsigned big = 0;
  unsigned dual = 0;
  bool use_big = false;
  std::vector<Table> tables;
  std::vector<uint32_t> spare;
  // Walk cache: the table at each level for the region last descended into.
  uint32_t path[kMaxLevels] = {};
  uint64_t path_key[kMaxLevels] = {};
  bool path_ok[kMaxLevels] = {};
  std::vector<uint32_t> created;  // tables created by the map in progress (for rollback)

  unsigned ewords(unsigned l) const { return lv[l].entry_bytes / 8; }
  bool bottom(unsigned l) const { return l >= last; }  // only leaves below: PT or big-page table
  bool has_big(const Table& tb, uint64_t i) const {
    return !tb.big_child.empty() && tb.big_child[i] != kNone;
  }
  // Decodes an entry of a level-l table (big-page tables hold last-level PTEs).
  DecodedEntry decode_at(unsigned l, const uint64_t* w) const {
    return codec->decode(big != 0 && l == big ? last : l, w);
  }
  // Rewrites both halves of dual PDE i of table t from the shadow.
  void write_dual(uint32_t t, uint64_t i) {
    Table& tb = tables[t];
    uint64_t w[2] = {0, 0};
    if (tb.child[i] != kNone)
      codec->encode_table_in(tb.level, tables[tb.child[i]].pa.raw(), where, w);
    if (tb.big_child[i] != kNone)
      codec->encode_big_table(tb.level, tables[tb.big_child[i]].pa.raw(), where, w);
    tb.words[2 * i] = w[0];
    tb.words[2 * i + 1] = w[1];
  }
  uint64_t index(unsigned l, uint64_t va) const {
    return (va >> lv[l].shift) & (uint64_t{lv[l].entries} - 1);
  }
  // Identifies the region a level-l table covers.
  uint64_t key(unsigned l, uint64_t va) const {
    const unsigned s = lv[l].shift + log2_floor(lv[l].entries);
    return s >= 64 ? 0 : va >> s;
  }
  void drop_cache() {
    for (bool& ok : path_ok) ok = false;
  }

  Result<uint32_t> new_table(unsigned level) {
    const VramAddr page = RG_TRY(pages->alloc_table_page());
    RG_CHECK(page.is_aligned(kTablePage), "table page %s is not 4 KiB aligned",
             page.to_string().c_str());
    if (page.raw() >= codec->phys_limit(where.aperture)) {
      pages->free_table_page(page);
      return make_error(Errc::kOutOfRange,
                        "table page %s lies beyond what a %s PDE can address (%s)",
                        page.to_string().c_str(), codec->name().data(),
                        hex(codec->phys_limit(where.aperture)).c_str());
    }
    uint32_t t;
    if (!spare.empty()) {
      t = spare.back();
      spare.pop_back();
    } else {
      tables.emplace_back();
      t = static_cast<uint32_t>(tables.size() - 1);
    }
    Table& tb = tables[t];
    tb.pa = page;
    mem->zero(page, kTablePage);
    tb.words = mem->words(page, kTablePage);
    tb.parent = kNone;
    tb.level = static_cast<uint8_t>(level);
    tb.in_use = true;
    tb.live = 0;
    const uint32_t n = lv[level].entries;
    if (level < last)
      tb.child.assign(n, kNone);
    else
      tb.child.clear();
    if (big != 0 && level == dual)
      tb.big_child.assign(n, kNone);
    else
      tb.big_child.clear();
    tb.is_big = big != 0 && level == big;
    tb.leaf.assign((n + 63) / 64, 0);
    return t;
  }

  // Frees table t (empty) and clears its entry (or its half of a dual entry) in the parent.
  void free_table(uint32_t t) {
    Table& tb = tables[t];
    RG_ASSERT(tb.in_use && tb.live == 0 && tb.parent != kNone);
    const uint32_t pt = tb.parent, pi = tb.parent_index;
    Table& p = tables[pt];
    if (tb.is_big)
      p.big_child[pi] = kNone;
    else
      p.child[pi] = kNone;
    if (!p.big_child.empty()) {
      write_dual(pt, pi);
    } else {
      const unsigned ew = ewords(p.level);
      for (unsigned w = 0; w < ew; ++w) p.words[pi * ew + w] = 0;
    }
    --p.live;
    pages->free_table_page(tb.pa);
    tb.in_use = false;
    tb.is_big = false;
    tb.child.clear();
    tb.child.shrink_to_fit();
    tb.big_child.clear();
    tb.big_child.shrink_to_fit();
    spare.push_back(t);
    drop_cache();
  }

  // The level-`level` table covering va, creating missing tables on the way.
  Result<uint32_t> table_for(unsigned level, uint64_t va) {
    if (big != 0 && level == big) return big_table_for(va);
    unsigned l = level;
    while (l > 0 && !(path_ok[l] && path_key[l] == key(l, va))) --l;
    uint32_t t = l == 0 ? 0 : path[l];
    for (; l < level; ++l) {
      Table& tb = tables[t];
      const uint64_t i = index(l, va);
      uint32_t c = tb.child[i];
      if (c == kNone) {
        RG_CHECK(!test_bit(tb.leaf, i), "descending through a leaf at level %u", l);
        c = RG_TRY(new_table(l + 1));
        Table& ptb = tables[t];  // new_table may have moved `tables`
        Table& ctb = tables[c];
        ctb.parent = t;
        ctb.parent_index = static_cast<uint32_t>(i);
        ptb.child[i] = c;
        if (!ptb.big_child.empty())
          write_dual(t, i);
        else
          codec->encode_table_in(l, ctb.pa.raw(), where, ptb.words + i * ewords(l));
        ++ptb.live;
        created.push_back(c);
      }
      t = c;
      path[l + 1] = t;
      path_key[l + 1] = key(l + 1, va);
      path_ok[l + 1] = true;
    }
    return t;
  }

  // The big-page table covering va, creating it (and the tables above) when missing.
  Result<uint32_t> big_table_for(uint64_t va) {
    if (path_ok[big] && path_key[big] == key(big, va)) return path[big];
    const uint32_t d = RG_TRY(table_for(dual, va));
    const uint64_t i = index(dual, va);
    uint32_t c = tables[d].big_child[i];
    if (c == kNone) {
      RG_CHECK(!test_bit(tables[d].leaf, i), "big-page table under a 2 MiB leaf");
      c = RG_TRY(new_table(big));
      Table& ptb = tables[d];
      Table& ctb = tables[c];
      ctb.parent = d;
      ctb.parent_index = static_cast<uint32_t>(i);
      ptb.big_child[i] = c;
      ++ptb.live;
      write_dual(d, i);
      created.push_back(c);
    }
    path[big] = c;
    path_key[big] = key(big, va);
    path_ok[big] = true;
    return c;
  }

  // First mapped VA in [lo, hi) under table t, or UINT64_MAX.
  uint64_t first_mapped(uint32_t t, uint64_t lo, uint64_t hi) const {
    const Table& tb = tables[t];
    if (tb.live == 0) return UINT64_MAX;
    const unsigned l = tb.level;
    const uint64_t span = lv[l].span();
    const uint64_t i0 = index(l, lo), i1 = index(l, hi - 1) + 1;
    if (bottom(l)) {
      if (!any_bits(tb.leaf, i0, i1)) return UINT64_MAX;
      for (uint64_t i = i0; i < i1; ++i)
        if (test_bit(tb.leaf, i))
          return std::max(lo, (lo & ~(span * lv[l].entries - 1)) + i * span);
      return UINT64_MAX;
    }
    const uint64_t region = l == 0 ? 0 : lo & ~(span * lv[l].entries - 1);
    for (uint64_t i = i0; i < i1; ++i) {
      const uint64_t eb = region + i * span, ee = eb + span;
      if (test_bit(tb.leaf, i)) return std::max(lo, eb);
      uint64_t r = UINT64_MAX;
      if (tb.child[i] != kNone) r = first_mapped(tb.child[i], std::max(lo, eb), std::min(hi, ee));
      if (has_big(tb, i))
        r = std::min(r, first_mapped(tb.big_child[i], std::max(lo, eb), std::min(hi, ee)));
      if (r != UINT64_MAX) return r;
    }
    return UINT64_MAX;
  }

  // Checks that [lo, hi) is fully mapped by leaves that lie inside it.
  Status check_unmappable(uint32_t t, uint64_t lo, uint64_t hi, uint64_t base) const {
    const Table& tb = tables[t];
    const unsigned l = tb.level;
    const uint64_t span = lv[l].span();
    const uint64_t region = l == 0 ? 0 : lo & ~(span * lv[l].entries - 1);
    const uint64_t i0 = index(l, lo), i1 = index(l, hi - 1) + 1;
    // Last level: every entry is one page inside [lo, hi); only presence matters.
    if (bottom(l) && all_bits(tb.leaf, i0, i1)) return {};
    for (uint64_t i = i0; i < i1; ++i) {
      const uint64_t eb = region + i * span, ee = eb + span;
      if (test_bit(tb.leaf, i)) {
        if (eb < lo || ee > hi)
          return make_error(Errc::kInvalidArgument,
                            "unmap of [%s, %s) would split the %s page at %s",
                            hex(base + lo).c_str(), hex(base + hi).c_str(),
                            format_bytes(span).c_str(), hex(base + eb).c_str());
      } else if (has_big(tb, i)) {
        RG_TRY(check_dual(t, i, std::max(lo, eb), std::min(hi, ee), base));
      } else if (l < last && tb.child[i] != kNone) {
        RG_TRY(check_unmappable(tb.child[i], std::max(lo, eb), std::min(hi, ee), base));
      } else {
        return make_error(Errc::kNotFound, "unmap: GPU VA %s is not mapped",
                          hex(base + std::max(lo, eb)).c_str());
      }
    }
    return {};
  }

  // check_unmappable for [lo, hi) inside dual entry i of t, which has a big-page table: each
  // 64 KiB block is a big page (that must lie inside the range) or goes to the small table.
  Status check_dual(uint32_t t, uint64_t i, uint64_t lo, uint64_t hi, uint64_t base) const {
    const Table& tb = tables[t];
    const uint32_t small = tb.child[i];
    const Table& bt = tables[tb.big_child[i]];
    const uint64_t bs = lv[big].span();
    for (uint64_t b = lo & ~(bs - 1); b < hi; b += bs) {
      const uint64_t blo = std::max(lo, b), bhi = std::min(hi, b + bs);
      if (test_bit(bt.leaf, index(big, b))) {
        if (b < lo || b + bs > hi)
          return make_error(Errc::kInvalidArgument,
                            "unmap of [%s, %s) would split the %s page at %s",
                            hex(base + lo).c_str(), hex(base + hi).c_str(),
                            format_bytes(bs).c_str(), hex(base + b).c_str());
      } else if (small != kNone) {
        RG_TRY(check_unmappable(small, blo, bhi, base));
      } else {
        return make_error(Errc::kNotFound, "unmap: GPU VA %s is not mapped",
                          hex(base + blo).c_str());
      }
    }
    return {};
  }

  // clear() for [lo, hi) inside dual entry i of t (checked by check_dual); frees the halves'
  // tables that become empty.
  void clear_dual(uint32_t t, uint64_t i, uint64_t lo, uint64_t hi) {
    const uint32_t small = tables[t].child[i], bigt = tables[t].big_child[i];
    const uint64_t bs = lv[big].span();
    for (uint64_t b = lo & ~(bs - 1); b < hi; b += bs) {
      Table& bt = tables[bigt];
      const uint64_t bi = index(big, b);
      if (test_bit(bt.leaf, bi)) {
        bt.words[bi] = 0;
        bt.leaf[bi / 64] &= ~(uint64_t{1} << (bi % 64));
        --bt.live;
      } else {
        clear(small, std::max(lo, b), std::min(hi, b + bs));
      }
    }
    if (small != kNone && tables[small].live == 0) free_table(small);
    if (tables[bigt].live == 0) free_table(bigt);
  }

  // Clears every leaf in [lo, hi) under t and frees tables that become empty (not t itself).
  void clear(uint32_t t, uint64_t lo, uint64_t hi) {
    const unsigned l = tables[t].level;
    const uint64_t span = lv[l].span();
    const uint64_t region = l == 0 ? 0 : lo & ~(span * lv[l].entries - 1);
    const uint64_t i0 = index(l, lo), i1 = index(l, hi - 1) + 1;
    const unsigned ew = ewords(l);
    if (bottom(l)) {  // only leaves here, all present (checked before)
      Table& tb = tables[t];
      std::fill(tb.words + i0 * ew, tb.words + i1 * ew, uint64_t{0});
      set_bits_range(tb.leaf, i0, i1, false);
      tb.live -= static_cast<uint32_t>(i1 - i0);
      return;
    }
    for (uint64_t i = i0; i < i1; ++i) {
      Table& tb = tables[t];
      const uint64_t eb = region + i * span, ee = eb + span;
      if (test_bit(tb.leaf, i)) {
        for (unsigned w = 0; w < ew; ++w) tb.words[i * ew + w] = 0;
        tb.leaf[i / 64] &= ~(uint64_t{1} << (i % 64));
        --tb.live;
      } else if (has_big(tb, i)) {
        clear_dual(t, i, std::max(lo, eb), std::min(hi, ee));
      } else if (l < last && tb.child[i] != kNone) {
        const uint32_t c = tb.child[i];
        clear(c, std::max(lo, eb), std::min(hi, ee));
        if (tables[c].live == 0) free_table(c);
      }
    }
  }

  // inspect() of dual entry i whose big half (db, decoded from memory) points to a big-page
  // table: 64 KiB blocks in VA order, each a big page or whatever the small table maps there.
  void inspect_dual(uint32_t t, uint64_t i, const DecodedEntry& d, const DecodedEntry& db,
                    uint64_t lo, uint64_t hi, uint64_t base,
                    FunctionRef<void(const MappedPage&)> visit) const {
    const Table& tb = tables[t];
    const uint32_t bc = tb.big_child.empty() ? kNone : tb.big_child[i];
    if (bc == kNone || tables[bc].pa.raw() != db.addr) return;  // not a table rawgpu wrote
    const Table& bt = tables[bc];
    const uint32_t small = tb.child[i];
    const bool small_ok =
        d.kind == DecodedEntry::Kind::kTable && small != kNone && tables[small].pa.raw() == d.addr;
    const uint64_t bs = lv[big].span();
    for (uint64_t b = lo & ~(bs - 1); b < hi; b += bs) {
      const uint64_t bi = index(big, b);
      const DecodedEntry e = codec->decode(last, bt.words + bi);
      if (e.kind == DecodedEntry::Kind::kLeaf) {
        MappedPage m;
        m.va = GpuVa(base + b);
        m.size = bs;
        m.level = big;
        m.pa = e.addr;
        m.attrs = e.attrs;
        m.table = bt.pa;
        m.index = static_cast<unsigned>(bi);
        visit(m);
      } else if (small_ok) {
        inspect(small, std::max(lo, b), std::min(hi, b + bs), base, visit);
      }
    }
  }

  void inspect(uint32_t t, uint64_t lo, uint64_t hi, uint64_t base,
               FunctionRef<void(const MappedPage&)> visit) const {
    const Table& tb = tables[t];
    const unsigned l = tb.level;
    const uint64_t span = lv[l].span();
    const uint64_t region = l == 0 ? 0 : lo & ~(span * lv[l].entries - 1);
    const uint64_t i0 = index(l, lo), i1 = index(l, hi - 1) + 1;
    for (uint64_t i = i0; i < i1; ++i) {
      const uint64_t eb = region + i * span, ee = eb + span;
      const DecodedEntry d = codec->decode(l, tb.words + i * ewords(l));
      if (big != 0 && l == dual && d.kind != DecodedEntry::Kind::kLeaf) {
        const DecodedEntry db = codec->decode_big_table(l, tb.words + i * 2);
        if (db.kind == DecodedEntry::Kind::kTable) {
          inspect_dual(t, i, d, db, std::max(lo, eb), std::min(hi, ee), base, visit);
          continue;
        }
      }
      if (d.kind == DecodedEntry::Kind::kLeaf) {
        MappedPage m;
        m.va = GpuVa(base + eb);
        m.size = span;
        m.level = l;
        m.pa = d.addr;
        m.attrs = d.attrs;
        m.fragment = d.fragment;
        m.table = tb.pa;
        m.index = static_cast<unsigned>(i);
        visit(m);
      } else if (d.kind == DecodedEntry::Kind::kTable && l < last) {
        // Follow the address in memory, not the shadow; find the shadow table only to recurse
        // with the same code path (they are checked equal by check_invariants).
        const uint32_t c = tb.child[i];
        if (c != kNone && tables[c].pa.raw() == d.addr)
          inspect(c, std::max(lo, eb), std::min(hi, ee), base, visit);
      }
    }
  }
};

PageTable::PageTable(std::unique_ptr<Impl> impl, std::unique_ptr<PteCodec> codec, GpuVa va_base)
    : impl_(std::move(impl)), codec_(std::move(codec)), va_base_(va_base) {}
PageTable::~PageTable() = default;

Result<std::unique_ptr<PageTable>> PageTable::create(std::unique_ptr<PteCodec> codec,
                                                     PhysicalMemory& memory, TablePageSource& pages,
                                                     GpuVa va_base) {
  RG_CHECK(codec != nullptr && codec->levels().size() <= kMaxLevels);
  for (const LevelInfo& l : codec->levels())
    RG_CHECK(l.table_bytes() <= kTablePage, "%s tables exceed a page", l.name);
  auto impl = std::make_unique<Impl>();
  impl->codec = codec.get();
  impl->mem = &memory;
  impl->pages = &pages;
  impl->lv.assign(codec->levels().begin(), codec->levels().end());
  impl->where = pages.table_location();
  if (impl->where.aperture == Aperture::kPeer)
    return make_error(Errc::kInvalidArgument,
                      "page tables cannot live in a peer's memory (VRAM or system memory only)");
  impl->last = codec->last_level();
  if (const unsigned bs = codec->big_page_shift(); bs != 0) {
    impl->dual = impl->last - 1;
    const LevelInfo& d = impl->lv[impl->dual];
    RG_CHECK(d.entry_bytes == 16 && d.shift > bs && d.shift - bs <= 9);
    impl->big = impl->last + 1;
    impl->lv.push_back(
        {"PT-BIG", static_cast<uint8_t>(bs), static_cast<uint16_t>(1u << (d.shift - bs)), 8, true});
    RG_CHECK(impl->lv.size() <= kMaxLevels);
  }
  const uint32_t root = RG_TRY_CTX(impl->new_table(0), "while allocating the root page table");
  RG_CHECK(root == 0);
  return std::unique_ptr<PageTable>(new PageTable(std::move(impl), std::move(codec), va_base));
}

Status PageTable::enable_big_pages(bool on) {
  if (impl_->big == 0)
    return make_error(Errc::kUnsupported, "%s has no big (64 KiB) pages", codec_->name().data());
  impl_->use_big = on;
  return {};
}

bool PageTable::big_pages() const { return impl_->use_big; }

VramAddr PageTable::root() const { return impl_->tables[0].pa; }

Status PageTable::map(GpuVa va, std::span<const AddrRange<VramAddr>> chunks,
                      const PageAttrs& attrs) {
  if (attrs.aperture == Aperture::kSystem)
    return make_error(Errc::kInvalidArgument, "VRAM chunks mapped with a system aperture");
  if (attrs.aperture == Aperture::kPeer && codec_->peer_by_bus_address())
    return make_error(Errc::kInvalidArgument,
                      "%s reaches peers by bus address: map peer memory as bus-address chunks",
                      codec_->name().data());
  return map_raw(va, ChunkList{chunks.data(), nullptr, chunks.size()}, attrs);
}

Status PageTable::map(GpuVa va, std::span<const AddrRange<BusAddr>> chunks,
                      const PageAttrs& attrs) {
  if (attrs.aperture == Aperture::kVram)
    return make_error(Errc::kInvalidArgument, "bus-address chunks mapped with the VRAM aperture");
  if (attrs.aperture == Aperture::kPeer && !codec_->peer_by_bus_address())
    return make_error(Errc::kInvalidArgument,
                      "%s maps peers through the peer aperture: give offsets in the peer's VRAM "
                      "(VRAM chunks) and a peer_id",
                      codec_->name().data());
  return map_raw(va, ChunkList{nullptr, chunks.data(), chunks.size()}, attrs);
}

void PageTable::changed(GpuVa va, uint64_t size) {
  const uint64_t lo = va.raw(), hi = va.raw() + size;
  if (dirty_hi_ > dirty_lo_) {
    dirty_lo_ = std::min(dirty_lo_, lo);
    dirty_hi_ = std::max(dirty_hi_, hi);
  } else {
    dirty_lo_ = lo;
    dirty_hi_ = hi;
  }
  if (batch_depth_ == 0) flush_invalidations();
}

void PageTable::flush_invalidations() {
  if (dirty_hi_ <= dirty_lo_) return;
  const uint64_t lo = dirty_lo_, hi = dirty_hi_;
  dirty_lo_ = dirty_hi_ = 0;
  ++invalidations_;
  if (hook_) hook_(GpuVa(lo), hi - lo);
}

void PageTable::end_invalidate_batch() {
  RG_CHECK(batch_depth_ > 0, "end_invalidate_batch without begin_invalidate_batch");
  if (--batch_depth_ == 0) flush_invalidations();
}

Status PageTable::map_raw(GpuVa va, const ChunkList& chunks, const PageAttrs& attrs) {
  Impl& m = *impl_;
  const uint64_t page = codec_->page_size();
  if (chunks.n == 0) return make_error(Errc::kInvalidArgument, "map of no chunks");
  if (!va.is_aligned(page))
    return make_error(Errc::kInvalidArgument, "map: GPU VA %s is not %s-aligned",
                      va.to_string().c_str(), format_bytes(page).c_str());
  if (attrs.aperture == Aperture::kPeer ? (attrs.snooped || attrs.peer_id > 7 ||
                                           (codec_->peer_by_bus_address() && attrs.peer_id != 0))
                                        : attrs.peer_id != 0)
    return make_error(Errc::kInvalidArgument,
                      "map: peer_id %u with the %s aperture (peer pages: peer_id 0..7 on NVIDIA, 0 "
                      "on AMD, never snooped; other pages: peer_id 0)",
                      attrs.peer_id, attrs.aperture == Aperture::kPeer ? "peer" : "local/system");
  const uint64_t limit = codec_->phys_limit(attrs.aperture);
  uint64_t total = 0;
  for (size_t k = 0; k < chunks.n; ++k) {
    const AddrRange<uint64_t> c = chunks[k];
    if (c.size == 0 || c.base % page != 0 || c.size % page != 0)
      return make_error(Errc::kInvalidArgument, "map: chunk [%s, +%s) is empty or not %s-aligned",
                        hex(c.base).c_str(), hex(c.size).c_str(), format_bytes(page).c_str());
    if (c.base >= limit || c.size > limit - c.base)
      return make_error(Errc::kOutOfRange,
                        "map: chunk [%s, +%s) lies beyond the %s physical limit %s of %s",
                        hex(c.base).c_str(), hex(c.size).c_str(),
                        attrs.aperture == Aperture::kVram     ? "VRAM"
                        : attrs.aperture == Aperture::kSystem ? "system"
                                                              : "peer",
                        hex(limit).c_str(), codec_->name().data());
    total = RG_TRY(checked_add(total, c.size));
  }
  if (va < va_base_ || va - va_base_ > va_size() || total > va_size() - (va - va_base_))
    return make_error(Errc::kOutOfRange, "map: [%s, +%s) lies outside the GPU VA range [%s, +%s)",
                      va.to_string().c_str(), hex(total).c_str(), va_base_.to_string().c_str(),
                      hex(va_size()).c_str());
  const uint64_t lo = va - va_base_;
  if (const uint64_t hit = m.first_mapped(0, lo, lo + total); hit != UINT64_MAX)
    return make_error(Errc::kAlreadyExists, "map: GPU VA %s is already mapped (in [%s, +%s))",
                      hex(va_base_.raw() + hit).c_str(), va.to_string().c_str(),
                      hex(total).c_str());

  m.created.clear();
  uint64_t cur = lo;
  const bool frag = codec_->has_fragment();
  for (size_t k = 0; k < chunks.n; ++k) {
    const AddrRange<uint64_t> c = chunks[k];
    uint64_t pa = c.base, left = c.size;
    while (left > 0) {
      unsigned level = m.last;
      for (unsigned l = 0; l < m.last; ++l) {
        const uint64_t s = m.lv[l].span();
        if (m.lv[l].leaf && ((cur | pa) & (s - 1)) == 0 && left >= s) {
          level = l;
          break;
        }
      }
      if (level == m.last && m.use_big) {
        const uint64_t s = m.lv[m.big].span();
        if (((cur | pa) & (s - 1)) == 0 && left >= s) level = m.big;
      }
      auto t = m.table_for(level, cur);
      if (!t.ok()) {
        // Roll back: clear what this call mapped, then free the tables it created.
        if (cur > lo) m.clear(0, lo, cur);
        for (auto it = m.created.rbegin(); it != m.created.rend(); ++it)
          if (m.tables[*it].in_use && m.tables[*it].live == 0) m.free_table(*it);
        m.created.clear();
        m.drop_cache();
        return std::move(t).take_error().add_context(
            strformat("while mapping [%s, +%s)", va.to_string().c_str(), hex(total).c_str()));
      }
      Impl::Table& tb = m.tables[*t];
      const uint64_t s = m.lv[level].span();
      const uint64_t i = m.index(level, cur);
      const uint64_t count = std::min(left >> m.lv[level].shift, m.lv[level].entries - i);
      unsigned f = 0;
      if (frag) {
        const uint64_t run = count * s;
        const unsigned a = std::min({ctz_or(cur, 63), ctz_or(pa, 63), ctz_or(run, 63)});
        f = std::min(a - 12, 31u);
      }
      if (level == m.big && m.big != 0)
        codec_->encode_big_leaves(pa, count, attrs, tb.words + i);
      else
        codec_->encode_leaves(level, pa, count, attrs, f, tb.words + i * m.ewords(level));
      set_bits_range(tb.leaf, i, i + count, true);
      tb.live += static_cast<uint32_t>(count);
      cur += count * s;
      pa += count * s;
      left -= count * s;
    }
  }
  m.created.clear();
  m.mem->flush();
  RG_LOG("mmu", 3, "%s: mapped %s at %s (%zu chunks)", codec_->name().data(),
         format_bytes(total).c_str(), va.to_string().c_str(), chunks.n);
  changed(va, total);
  return {};
}

Status PageTable::unmap(GpuVa va, uint64_t size) {
  Impl& m = *impl_;
  const uint64_t page = codec_->page_size();
  if (size == 0 || !va.is_aligned(page) || size % page != 0)
    return make_error(Errc::kInvalidArgument, "unmap: [%s, +%s) is empty or not %s-aligned",
                      va.to_string().c_str(), hex(size).c_str(), format_bytes(page).c_str());
  if (va < va_base_ || va - va_base_ > va_size() || size > va_size() - (va - va_base_))
    return make_error(Errc::kOutOfRange, "unmap: [%s, +%s) lies outside the GPU VA range",
                      va.to_string().c_str(), hex(size).c_str());
  const uint64_t lo = va - va_base_;
  RG_TRY(m.check_unmappable(0, lo, lo + size, va_base_.raw()));
  m.clear(0, lo, lo + size);
  m.mem->flush();
  RG_LOG("mmu", 3, "%s: unmapped %s at %s", codec_->name().data(), format_bytes(size).c_str(),
         va.to_string().c_str());
  changed(va, size);
  return {};
}

Status PageTable::inspect(GpuVa va, uint64_t size,
                          FunctionRef<void(const MappedPage&)> visit) const {
  if (size == 0) return {};
  if (va < va_base_ || va - va_base_ > va_size() || size > va_size() - (va - va_base_))
    return make_error(Errc::kOutOfRange, "inspect: [%s, +%s) lies outside the GPU VA range",
                      va.to_string().c_str(), hex(size).c_str());
  const uint64_t lo = va - va_base_;
  impl_->inspect(0, lo, lo + size, va_base_.raw(), visit);
  return {};
}

Result<MappedPage> PageTable::translate(GpuVa va) const {
  const Impl& m = *impl_;
  if (va < va_base_ || va - va_base_ >= va_size())
    return make_error(Errc::kOutOfRange, "translate: %s lies outside the GPU VA range",
                      va.to_string().c_str());
  const uint64_t rel = va - va_base_;
  VramAddr table = root();
  for (unsigned l = 0; l <= m.last; ++l) {
    const uint64_t i = m.index(l, rel);
    const uint64_t* w = m.mem->words(table + i * m.lv[l].entry_bytes, m.lv[l].entry_bytes);
    const DecodedEntry d = codec_->decode(l, w);
    if (m.big != 0 && l == m.dual && d.kind != DecodedEntry::Kind::kLeaf) {
      // Dual PDE: the small-page PTE decides if it is valid, else the big-page PTE (a 64 KiB
      // block is never mapped by both: check_invariants).
      const DecodedEntry db = codec_->decode_big_table(l, w);
      for (unsigned half = 0; half < 2; ++half) {
        const DecodedEntry& h = half == 0 ? d : db;
        if (h.kind != DecodedEntry::Kind::kTable) continue;
        const unsigned hl = half == 0 ? m.last : m.big;
        const uint64_t hi = m.index(hl, rel);
        const VramAddr ht(h.addr);
        const DecodedEntry e = codec_->decode(m.last, m.mem->words(ht + hi * 8, 8));
        if (e.kind != DecodedEntry::Kind::kLeaf) continue;
        MappedPage p;
        p.size = m.lv[hl].span();
        p.va = GpuVa(va.raw() & ~(p.size - 1));
        p.level = hl;
        p.pa = e.addr;
        p.attrs = e.attrs;
        p.table = ht;
        p.index = static_cast<unsigned>(hi);
        return p;
      }
      return make_error(Errc::kNotFound, "translate: %s is not mapped (%s entry %llu at %s)",
                        va.to_string().c_str(), m.lv[l].name, static_cast<unsigned long long>(i),
                        table.to_string().c_str());
    }
    if (d.kind == DecodedEntry::Kind::kLeaf) {
      MappedPage p;
      p.size = m.lv[l].span();
      p.va = GpuVa(va.raw() & ~(p.size - 1));
      p.level = l;
      p.pa = d.addr;
      p.attrs = d.attrs;
      p.fragment = d.fragment;
      p.table = table;
      p.index = static_cast<unsigned>(i);
      return p;
    }
    if (d.kind != DecodedEntry::Kind::kTable || l == m.last)
      return make_error(Errc::kNotFound, "translate: %s is not mapped (%s entry %llu at %s)",
                        va.to_string().c_str(), m.lv[l].name, static_cast<unsigned long long>(i),
                        table.to_string().c_str());
    table = VramAddr(d.addr);
  }
  return make_error(Errc::kInternal, "translate: walked past the last level");
}

PageTableStats PageTable::stats() const {
  PageTableStats s;
  for (const auto& t : impl_->tables) {
    if (!t.in_use) continue;
    ++s.tables;
    for (uint64_t w : t.leaf) {
      const uint64_t n = static_cast<uint64_t>(std::popcount(w));
      s.leaf_entries += n;
      s.mapped_bytes += n * impl_->lv[t.level].span();
    }
  }
  return s;
}

std::vector<VramAddr> PageTable::table_pages() const {
  std::vector<VramAddr> out;
  for (const auto& t : impl_->tables)
    if (t.in_use) out.push_back(t.pa);
  return out;
}

Status PageTable::check_invariants() const {
  const Impl& m = *impl_;
  auto bad = [](const std::string& s) {
    return make_error(Errc::kInternal, "page-table invariant violated: %s", s.c_str());
  };
  for (uint32_t t = 0; t < m.tables.size(); ++t) {
    const auto& tb = m.tables[t];
    if (!tb.in_use) continue;
    const unsigned l = tb.level;
    uint32_t live = 0;
    for (uint64_t i = 0; i < m.lv[l].entries; ++i) {
      const DecodedEntry d = m.decode_at(l, tb.words + i * m.ewords(l));
      const bool is_leaf = test_bit(tb.leaf, i);
      const uint32_t c = l < m.last ? tb.child[i] : kNone;
      const uint32_t bc = m.has_big(tb, i) ? tb.big_child[i] : kNone;
      // Built only when a violation is reported (this runs for every entry of every table).
      auto where = [&] {
        return strformat("%s table %s entry %llu", m.lv[l].name, tb.pa.to_string().c_str(),
                         static_cast<unsigned long long>(i));
      };
      if (is_leaf && (c != kNone || bc != kNone))
        return bad(where() + " is both a leaf and a table");
      if (bc != kNone) {
        ++live;
        const Impl::Table& bt = m.tables[bc];
        const DecodedEntry db = m.codec->decode_big_table(l, tb.words + i * 2);
        if (db.kind != DecodedEntry::Kind::kTable || db.addr != bt.pa.raw() ||
            db.attrs.aperture != m.where.aperture)
          return bad(where() + " big-page half should point to " + bt.pa.to_string());
        if (!bt.in_use || !bt.is_big || bt.parent != t || bt.parent_index != i || bt.level != m.big)
          return bad(where() + " has a broken big-page table link");
        if (c == kNone && d.kind != DecodedEntry::Kind::kInvalid)
          return bad(where() + " small-page half should be empty");
        // No 64 KiB block is mapped by a big page and small pages at once.
        const uint64_t per = m.lv[m.last].entries / m.lv[m.big].entries;
        for (uint64_t b = 0; b < m.lv[m.big].entries; ++b)
          if (test_bit(bt.leaf, b) && c != kNone &&
              any_bits(m.tables[c].leaf, b * per, (b + 1) * per))
            return bad(where() + strformat(" maps 64 KiB block %llu twice (big and small pages)",
                                           static_cast<unsigned long long>(b)));
        if (c == kNone) continue;
      }
      if (is_leaf) {
        ++live;
        if (d.kind != DecodedEntry::Kind::kLeaf) return bad(where() + " should decode as a leaf");
        if (d.addr % m.lv[l].span() != 0)
          return bad(where() + strformat(" maps misaligned PA %s", hex(d.addr).c_str()));
      } else if (c != kNone) {
        ++live;
        if (d.kind != DecodedEntry::Kind::kTable || d.addr != m.tables[c].pa.raw() ||
            d.attrs.aperture != m.where.aperture ||
            (m.where.aperture == Aperture::kSystem && d.attrs.snooped != m.where.snooped))
          return bad(where() + " should point to " + m.tables[c].pa.to_string());
        if (!m.tables[c].in_use || m.tables[c].parent != t || m.tables[c].parent_index != i ||
            m.tables[c].level != l + 1)
          return bad(where() + " has a broken child link");
      } else {
        for (unsigned w = 0; w < m.ewords(l); ++w)
          if (tb.words[i * m.ewords(l) + w] != 0) return bad(where() + " should be zero");
      }
    }
    if (live != tb.live)
      return bad(strformat("table %s live count %u, counted %u", tb.pa.to_string().c_str(), tb.live,
                           live));
    if (t != 0 && live == 0) return bad("empty non-root table " + tb.pa.to_string());
  }
  return {};
}

}  // namespace rawgpu::memory
