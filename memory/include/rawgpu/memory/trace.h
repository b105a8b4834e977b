// Allocation traces for replaying against the TLSF allocator (`rawgpu bench tlsf`).
//
// Text format, one operation per line ('#' starts a comment, blank lines are ignored):
//   a ID SIZE ALIGN    allocate SIZE bytes aligned to ALIGN, remember the address as ID
//   f ID               free the allocation remembered as ID
// IDs are unsigned integers; an ID may be reused after it is freed. Numbers accept the parse.h
// syntax (decimal, 0x..., units for sizes such as 2MiB).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/base/error.h"
#include "rawgpu/base/function_ref.h"

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

// Limits on a trace, which is untrusted input (a user's file, a pipe, /dev/zero): a longer line,
// more operations or a larger file is a typed error naming the limit, never unbounded memory.
inline constexpr size_t kMaxTraceLineBytes = 4096;
inline constexpr uint64_t kMaxTraceOps = 50'000'000;           // ~1.2 GB of parsed ops
inline constexpr uint64_t kMaxTraceBytes = uint64_t{4} << 30;  // comments and blank lines too

// Incremental parser: feed() the text in chunks of any size (a line may span chunks), then
// finish(). Memory is bounded by the operations kept plus one line. After an error every later
// call returns that error again.
class TraceParser {
 public:
  TraceParser();
  ~TraceParser();
  TraceParser(TraceParser&&) noexcept;
  TraceParser& operator=(TraceParser&&) noexcept;

  Status feed(std::string_view chunk);
  // The trace (a last line without '\n' included); the parser is empty afterwards.
  Result<Trace> finish();

 private:
  struct State;
  Status line(std::string_view text);
  std::unique_ptr<State> s_;
};

// Errors: kParse naming the line number and quoting (at most ~80 bytes of) the line: unknown op,
// bad number, free of an ID that is not live, allocation of an ID that is still live; kOutOfRange
// for a line longer than kMaxTraceLineBytes or more than kMaxTraceOps operations.
Result<Trace> parse_trace(std::string_view text);
// Streams `path` through a TraceParser: the errors of parse_trace() and of read_file_chunks()
// (the OS's reason, a directory, more than kMaxTraceBytes), each with the path as context.
Result<Trace> read_trace(const std::string& path);

// A GPU-memory-like trace: buffer sizes from 256 B to hundreds of MiB (mostly small), 256 B to
// 2 MiB alignments, random lifetimes, aiming at `target_fill` of `arena` bytes live. The text is
// handed to `sink` in pieces of about 64 KiB (its first error stops the generation). Errors:
// kOutOfRange when ops exceeds kMaxTraceOps (the trace could not be read back).
Status generate_trace(uint64_t ops, uint64_t arena, uint64_t seed,
                      FunctionRef<Status(std::string_view)> sink, double target_fill = 0.7);
// The same text as one string.
Result<std::string> generate_trace(uint64_t ops, uint64_t arena, uint64_t seed,
                                   double target_fill = 0.7);
// The same text into a file; every write error (a full disk, /dev/full) is reported.
Status write_trace(const std::string& path, uint64_t ops, uint64_t arena, uint64_t seed,
                   double target_fill = 0.7);

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
