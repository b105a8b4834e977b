// EXPECT-ERROR: (could not convert|no viable conversion|no matching function)
#include "rawgpu/base/addr.h"
void map_page(rawgpu::GpuVa va);
void f(rawgpu::BusAddr bus) { map_page(bus); }
