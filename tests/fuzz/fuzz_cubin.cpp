// Fuzz target for the cubin parser (drivers/nv/cubin.h): failures are typed errors; an accepted
// cubin is self-consistent (code inside the file, parameters inside their bank range).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rawgpu/drivers/nv/cubin.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_cubin invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  auto r = drivers::nv::parse_cubin(std::span(data, size));
  if (!r.ok()) {
    const Errc c = r.error().code();
    require(c == Errc::kParse || c == Errc::kUnsupported, "error code");
    require(!r.error().message().empty(), "error message");
    return 0;
  }
  require(!r->kernels.empty(), "kernels");
  for (const auto& k : r->kernels) {
    require(k.code_offset <= size && k.code_size <= size - k.code_offset, "code in file");
    for (const auto& p : k.params) require(p.offset + uint64_t(p.size) <= k.param_size, "params");
    require(!drivers::nv::describe(k).empty(), "describe");
  }
  return 0;
}
