// Fuzz target for the PTX interpreter (sim/ptx.h): the PTX text of a program image is untrusted
// GPU memory, so the parser must turn any input into a module or a typed error, and a parsed
// kernel must run to completion, stop at a bounded step count, or stop with a typed error
// (fault, barrier that cannot complete) — never crash or hang.
//
// Input: PTX text. Every parsed kernel runs one launch: a 2x1x1 grid of 32x2x1 threads, each
// parameter pointing at the same 64 KiB buffer (so loads and stores through parameters hit mapped
// memory and everything else faults), capped at 2^20 thread-instructions.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "rawgpu/sim/ptx.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    std::printf("fuzz_ptx invariant violated: %s\n", what);
    std::abort();
  }
}

constexpr uint64_t kBufferVa = 0x10'0000'0000;
constexpr uint64_t kBufferBytes = 64 << 10;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  if (size > (256 << 10)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto mod = sim::ptx::parse(text);
  if (!mod.ok()) {
    const Errc c = mod.error().code();
    require(c != Errc::kInternal, "a parse failure is the input's fault, not an internal error");
    require(!mod.error().message().empty(), "a parse failure says what is wrong");
    return 0;
  }
  static std::vector<uint8_t> buffer(kBufferBytes);
  for (const sim::ptx::Kernel& k : (*mod)->kernels) {
    std::memset(buffer.data(), 0, buffer.size());
    std::vector<uint8_t> params(k.param_bytes, 0);
    for (const sim::ptx::Param& p : k.params) {
      if (p.size == 8 && p.offset + 8 <= params.size())
        std::memcpy(params.data() + p.offset, &kBufferVa, 8);
    }
    sim::ptx::Launch l;
    l.grid = {2, 1, 1};
    l.block = {32, 2, 1};
    l.params = params;
    auto global = [&](uint64_t va, uint64_t n, bool) -> Result<uint8_t*> {
      if (va < kBufferVa || n > kBufferBytes || va - kBufferVa > kBufferBytes - n)
        return make_error(Errc::kOutOfRange, "fault at 0x%llx (%llu bytes)",
                          static_cast<unsigned long long>(va), static_cast<unsigned long long>(n));
      return buffer.data() + (va - kBufferVa);
    };
    sim::ptx::RunStats stats;
    Status s = sim::ptx::run(k, l, global, &stats, 1u << 20);
    require(stats.thread_instructions <= (1u << 20) + (1u << 16),
            "a run stops near its step limit");
    if (!s.ok()) require(!s.error().message().empty(), "a run failure says what is wrong");
  }
  return 0;
}
