// Allocation traces for replaying against the TLSF allocator (`rawgpu bench tlsf`).
//
// Text format, one operation per line ('#' starts a comment, blank lines are ignored):
//   a ID SIZE ALIGN    allocate SIZE bytes aligned to ALIGN, remember the address as ID
//   f ID               free the allocation remembered as ID
// IDs are unsigned integers; an ID may be reused after it is freed. Numbers accept the parse.h
// syntax (decimal, 0x..., units for sizes such as 2MiB).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"

namespace rawgpu::memory {

struct TraceOp {
  bool alloc = false;
  uint32_t slot = 0;  // dense index standing for the trace's ID (assigned at parse time)
  uint64_t size = 0;
  uint64_t align = 1;
};

struct Trace {
  std::vector<TraceOp> ops;
  uint32_t slots = 0;
};

// Errors: kParse naming the line (unknown op, bad number, free of an ID that is not live,
// allocation of an ID that is still live).
Result<Trace> parse_trace(std::string_view text);
// A GPU-memory-like trace: buffer sizes from 256 B to hundreds of MiB (mostly small), 256 B to
// 2 MiB alignments, random lifetimes, aiming at `target_fill` of `arena` bytes live.
std::string generate_trace(uint64_t ops, uint64_t arena, uint64_t seed, double target_fill = 0.7);

struct ReplayResult {
  uint64_t ops = 0;
  uint64_t failed_allocs = 0;
  double ns_per_op = 0;           // wall time, median over the timed replays
  double cpu_ns_per_op = 0;       // thread CPU time (robust on a shared machine), median
  double peak_fragmentation = 0;  // max of 1 - largest_free/free after each operation
  uint64_t peak_used = 0;
};

// Replays the trace `repeats` times on a fresh TLSF of `arena` bytes (min block 256 B) and
// reports the median time per operation (bookkeeping included), then once more untimed to
// measure fragmentation.
Result<ReplayResult> replay_trace(const Trace& trace, uint64_t arena, int repeats = 5);

}  // namespace rawgpu::memory
