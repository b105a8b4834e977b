// EXPECT-ERROR: (ignoring return value|-Werror=unused-result|unused-result|nodiscard)
// A Result must be consumed: dropping one silently is a compile error under -Werror.
#include "rawgpu/base/bits.h"
void f() { rawgpu::align_up(1, 4096); }
