// Tensor-core matmuls end to end on the simulated RDNA3/RDNA4 GPUs: the Tensor API schedules an
// f16/bf16 matmul with f32 accumulation, the AMD back end compiles it for the target's WMMA
// instruction (compiler/tensor_core.h lane maps), queues/ launches it through PM4 and the RDNA
// emulator executes v_wmma_* with its own, independently written operand layout. Inputs are
// small integers, so every product and partial sum is exact in f32 and the result must equal
// the reference bit for bit: a wrong lane map on either side fails.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "rawgpu/frontend/tensor.h"
#include "rawgpu/runtime/sim_devices.h"
#include "rawgpu/sim/rdna.h"

namespace rawgpu::frontend {
namespace {

using namespace ::rawgpu::runtime;  // the simulated devices and the AMD back end

struct TcCase {
  const char* device;
  DType in;
};

class TensorCoreSim : public testing::TestWithParam<TcCase> {
 protected:
  void SetUp() override {
    static const bool registered = (register_sim_devices(), true);
    (void)registered;
  }
};

TEST_P(TensorCoreSim, MatmulRunsOnWmmaAndMatchesExactly) {
  const auto [device, in] = GetParam();
  const int64_t m = 32, k = 48, n = 64;  // multiples of the 16x16x16 tile, not square
  std::mt19937 rng(7);
  std::vector<float> a(size_t(m * k)), b(size_t(k * n));
  for (float& x : a) x = float(int(rng() % 7) - 3);
  for (float& x : b) x = float(int(rng() % 7) - 3);
  Tensor ta = Tensor::from(a, {m, k}, DType::kFloat32, device).cast(in);
  Tensor tb = Tensor::from(b, {k, n}, DType::kFloat32, device).cast(in);
  ASSERT_TRUE(ta.realize().ok() && tb.realize().ok());
  ASSERT_TRUE(get_device(device).ok());
  sim::rdna::Emulator* emu = sim_emulator(device);
  ASSERT_NE(emu, nullptr);
  emu->reset_opcode_hits();
  emu->options().count_opcodes = true;
  auto got = ta.cast(DType::kFloat32).matmul(tb.cast(DType::kFloat32)).to_host<float>();
  emu->options().count_opcodes = false;
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  uint64_t wmma = 0;
  for (const auto& h : emu->opcode_hits())
    if (std::string_view(h.info->mnemonic).starts_with("v_wmma_f32_16x16x16_")) wmma += h.count;
  // One wave per 16x16 output tile, one WMMA per 16-wide K step.
  EXPECT_EQ(wmma, uint64_t((m / 16) * (n / 16) * (k / 16)));
  ASSERT_EQ(got->size(), size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float want = 0;
      for (int64_t r = 0; r < k; ++r) want += a[size_t(i * k + r)] * b[size_t(r * n + j)];
      ASSERT_EQ((*got)[size_t(i * n + j)], want) << "at (" << i << ", " << j << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, TensorCoreSim,
                         testing::Values(TcCase{"sim:gfx1100", DType::kFloat16},
                                         TcCase{"sim:gfx1100", DType::kBFloat16},
                                         TcCase{"sim:gfx1201", DType::kFloat16},
                                         TcCase{"sim:gfx1201", DType::kBFloat16}),
                         [](const auto& i) {
                           return std::string(i.param.device).substr(4) +
                                  (i.param.in == DType::kFloat16 ? "_f16" : "_bf16");
                         });

}  // namespace
}  // namespace rawgpu::frontend
