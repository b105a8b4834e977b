// EXPECT-ERROR: (no match for .operator==|invalid operands to binary expression)
#include "rawgpu/base/addr.h"
bool f(rawgpu::GpuVa va, rawgpu::VramAddr pa) { return va == pa; }
