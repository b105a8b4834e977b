// Fuzz target for the TLSF trace parser (memory/trace.h), the text `rawgpu bench tlsf --trace`
// reads. The first byte picks a chunk size: the text is fed to a TraceParser in pieces of that
// size (lines spanning pieces) and must parse exactly as the whole text does. Accepted traces
// are replayed on a small allocator (any size and alignment a user writes: errors, not aborts).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "rawgpu/memory/trace.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_trace invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  using namespace rawgpu::memory;
  if (size == 0) return 0;
  const size_t step = size_t{data[0]} + 1;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto whole = parse_trace(text);
  TraceParser p;
  Status fed = ok_status();
  for (size_t i = 0; i < text.size() && fed.ok(); i += step) fed = p.feed(text.substr(i, step));
  auto chunked = fed.ok() ? p.finish() : Result<Trace>(fed.error());
  require(whole.ok() == chunked.ok(), "chunked and whole parses agree on success");
  if (!whole.ok()) {
    require(whole.error().is(Errc::kParse) || whole.error().is(Errc::kOutOfRange),
            "documented error codes");
    require(whole.error().to_string().size() < 1024, "error message bounded");
    require(chunked.error().code() == whole.error().code(), "same error code");
    return 0;
  }
  require(whole->ops.size() == chunked->ops.size() && whole->slots == chunked->slots, "same trace");
  std::vector<uint8_t> live(whole->slots, 0);
  for (size_t i = 0; i < whole->ops.size(); ++i) {
    const TraceOp& a = whole->ops[i];
    const TraceOp& b = chunked->ops[i];
    require(a.alloc == b.alloc && a.slot == b.slot && a.size == b.size && a.align == b.align,
            "same op");
    require(a.slot < whole->slots, "slot in range");
    require(live[a.slot] == (a.alloc ? 0 : 1), "alloc of a free slot, free of a live one");
    live[a.slot] = a.alloc;
  }
  if (whole->ops.size() <= 512) {
    auto r = replay_trace(*whole, uint64_t{1} << 20, 1);
    if (r.ok()) require(r->ops == whole->ops.size(), "replay counts every op");
  }
  return 0;
}
