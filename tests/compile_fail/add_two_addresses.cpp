// EXPECT-ERROR: (no match for .operator\+|invalid operands to binary expression)
#include "rawgpu/base/addr.h"
rawgpu::GpuVa f(rawgpu::GpuVa a, rawgpu::GpuVa b) { return a + b; }
