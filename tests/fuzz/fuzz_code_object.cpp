// Fuzz target for the AMDGPU code object parser (drivers/amd/code_object.h). Beyond "no crash":
// a failure is a typed parse error, and an accepted object is self-consistent (every kernel's
// descriptor and code lie inside the image, the descriptor agrees with its metadata entry).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "rawgpu/drivers/amd/code_object.h"

namespace {
void require(bool cond, const char* what) {
  if (!cond) {
    __builtin_printf("fuzz_code_object invariant violated: %s\n", what);
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rawgpu;
  auto r = drivers::amd::parse_code_object(std::span(data, size));
  if (!r.ok()) {
    const Errc c = r.error().code();
    require(c == Errc::kParse || c == Errc::kUnsupported || c == Errc::kOutOfRange, "error code");
    require(!r.error().message().empty(), "error message");
    return 0;
  }
  require(!r->kernels.empty(), "kernels");
  for (const auto& k : r->kernels) {
    require(k.descriptor_va + 64 <= r->image.size(), "descriptor in image");
    require(k.code_va < r->image.size(), "code in image");
    require(k.descriptor.kernarg_size == k.metadata.kernarg_segment_size, "kernarg size");
    require(!drivers::amd::describe(k).empty(), "describe");
  }
  return 0;
}
