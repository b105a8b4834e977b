// EXPECT-ERROR: (conversion from|no viable conversion)
#include "rawgpu/base/addr.h"
rawgpu::VramAddr f(rawgpu::GpuVa va) {
  rawgpu::VramAddr pa = va;
  return pa;
}
