// EXPECT-ERROR: (no match for .operator-|invalid operands to binary expression)
#include "rawgpu/base/addr.h"
uint64_t f(rawgpu::GpuVa va, rawgpu::BusAddr bus) { return va - bus; }
