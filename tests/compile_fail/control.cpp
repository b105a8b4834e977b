// Must compile: the legal uses of the address types.
#include "rawgpu/base/addr.h"

int main() {
  rawgpu::GpuVa va(0x1000);
  rawgpu::VramAddr pa(0x2000);
  rawgpu::GpuVa next = va + 0x1000;
  uint64_t distance = next - va;
  bool same = (va == rawgpu::GpuVa(pa.raw()));
  return static_cast<int>(distance) + same;
}
