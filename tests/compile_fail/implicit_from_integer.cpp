// EXPECT-ERROR: (conversion from|no viable conversion)
#include "rawgpu/base/addr.h"
rawgpu::BusAddr f() {
  rawgpu::BusAddr bus = 0x1000ull;
  return bus;
}
