// Quoting untrusted names (ELF section, symbol and kernel names) in error messages: the shared
// rawgpu::quote() of base/format.h (printable, escaped, at most kMaxQuotedBytes of the input).
#pragma once

#include "rawgpu/base/format.h"

namespace rawgpu::drivers::detail {

using rawgpu::kMaxQuotedBytes;
using rawgpu::quote;

}  // namespace rawgpu::drivers::detail
