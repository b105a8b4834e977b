// Results at the edges a new user hits first (issue 23), on the CPU and both simulated GPUs:
// IEEE comparisons and NaN propagation through maximum/minimum/max/min/argmax/argmin, integer
// reductions at each dtype's extremes, repeated flip axes, and sizes that cannot exist (typed
// errors, never a wrapped size or an abort). References are plain C++ on the same values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "rawgpu/frontend/tensor.h"
#include "rawgpu/runtime/sim_devices.h"

namespace rawgpu::frontend {
namespace {

class Edge : public testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    static const bool registered = (runtime::register_sim_devices(), true);
    (void)registered;
    dev_ = GetParam();
  }
  std::string dev_;
};

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<double> doubles(const Tensor& t) {
  auto v = t.to_doubles();
  EXPECT_TRUE(v.ok()) << v.error().to_string();
  return v.ok() ? *v : std::vector<double>{};
}

// Every comparison of every pair from {NaN, -inf, -1.5, -0, +0, 2, inf}, in f16, f32 and f64.
TEST_P(Edge, ComparisonsFollowIeee) {
  const std::vector<double> vals = {kNan, -kInf, -1.5, -0.0, 0.0, 2.0, kInf};
  const size_t n = vals.size();
  std::vector<float> a, b;
  for (size_t i = 0; i < n * n; ++i) {
    a.push_back(float(vals[i / n]));
    b.push_back(float(vals[i % n]));
  }
  for (DType t : {DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(std::string(compiler::dtype_name(t)));
    const Tensor x = Tensor::from(a, {int64_t(n * n)}, DType::kFloat32, dev_).cast(t);
    const Tensor y = Tensor::from(b, {int64_t(n * n)}, DType::kFloat32, dev_).cast(t);
    struct Cmp {
      const char* name;
      Tensor got;
      bool (*want)(double, double);
    };
    const Cmp cmps[] = {
        {"lt", x.lt(y), [](double p, double q) { return p < q; }},
        {"gt", x.gt(y), [](double p, double q) { return p > q; }},
        {"le", x.le(y), [](double p, double q) { return p <= q; }},
        {"ge", x.ge(y), [](double p, double q) { return p >= q; }},
        {"eq", x.eq(y), [](double p, double q) { return p == q; }},
        {"ne", x.ne(y), [](double p, double q) { return p != q; }},
    };
    for (const Cmp& c : cmps) {
      const std::vector<double> got = doubles(c.got);
      ASSERT_EQ(got.size(), n * n) << c.name;
      for (size_t i = 0; i < n * n; ++i)
        EXPECT_EQ(got[i] != 0, c.want(a[i], b[i])) << a[i] << " " << c.name << " " << b[i];
    }
  }
}

// NaN wins in maximum/minimum (either order) and in max/min reductions; argmax/argmin return
// the first NaN (PyTorch's rules); without NaN the usual answers.
TEST_P(Edge, NanPropagatesThroughMaxAndMin) {
  for (DType t : {DType::kFloat16, DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(std::string(compiler::dtype_name(t)));
    const Tensor x =
        Tensor::from(std::vector<float>{1, float(kNan), 3, -2}, {4}, DType::kFloat32, dev_).cast(t);
    const Tensor one = Tensor::full({4}, 1.0, t, dev_);
    for (const Tensor& m : {x.maximum(one), one.maximum(x), x.minimum(one), one.minimum(x)}) {
      const std::vector<double> v = doubles(m);
      ASSERT_EQ(v.size(), 4u);
      EXPECT_TRUE(std::isnan(v[1]));
      EXPECT_FALSE(std::isnan(v[0]) || std::isnan(v[2]) || std::isnan(v[3]));
    }
    EXPECT_TRUE(std::isnan(doubles(x.max())[0]));
    EXPECT_TRUE(std::isnan(doubles(x.min())[0]));
    EXPECT_TRUE(std::isnan(doubles(x.relu())[1]));
    EXPECT_EQ(doubles(x.argmax()), std::vector<double>{1});
    EXPECT_EQ(doubles(x.argmin()), std::vector<double>{1});
    const Tensor clean =
        Tensor::from(std::vector<float>{1, -5, 3, -2}, {4}, DType::kFloat32, dev_).cast(t);
    EXPECT_EQ(doubles(clean.max()), std::vector<double>{3});
    EXPECT_EQ(doubles(clean.min()), std::vector<double>{-5});
    EXPECT_EQ(doubles(clean.argmax()), std::vector<double>{2});
    EXPECT_EQ(doubles(clean.argmin()), std::vector<double>{1});
  }
}

// max/min/argmax/argmin of every integer dtype over values that include its minimum and maximum
// (an identity or a negation breaks exactly there), along an axis and over everything.
template <class T>
void check_extremes(const std::string& dev, DType t) {
  SCOPED_TRACE(std::string(compiler::dtype_name(t)));
  constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const std::vector<std::vector<T>> rows = {
      {5, lo, 3, T(lo + 1)}, {hi, 0, T(hi - 1), 7}, {lo, lo, hi, hi}, {T(hi - 1), T(lo + 1), 9, 2}};
  std::vector<T> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  const Tensor x = Tensor::from(flat, {4, 4}, t, dev);
  auto host = [&](const Tensor& r) {
    auto v = r.cast(t).to_host<T>();
    EXPECT_TRUE(v.ok()) << v.error().to_string();
    return v.ok() ? *v : std::vector<T>{};
  };
  std::vector<T> mx, mn;
  std::vector<int32_t> amx, amn;
  for (const auto& r : rows) {
    size_t imax = 0, imin = 0;
    for (size_t i = 1; i < r.size(); ++i) {
      if (r[i] > r[imax]) imax = i;
      if (r[i] < r[imin]) imin = i;
    }
    mx.push_back(r[imax]);
    mn.push_back(r[imin]);
    amx.push_back(int32_t(imax));
    amn.push_back(int32_t(imin));
  }
  EXPECT_EQ(host(x.max({1})), mx);
  EXPECT_EQ(host(x.min({1})), mn);
  auto idx = [&](const Tensor& r) {
    auto v = r.to_doubles();
    EXPECT_TRUE(v.ok()) << v.error().to_string();
    std::vector<int32_t> out;
    if (v.ok())
      for (double d : *v) out.push_back(int32_t(d));
    return out;
  };
  EXPECT_EQ(idx(x.argmax(1)), amx);
  EXPECT_EQ(idx(x.argmin(1)), amn);
  EXPECT_EQ(host(x.max()), std::vector<T>{hi});
  EXPECT_EQ(host(x.min()), std::vector<T>{lo});
  EXPECT_EQ(idx(x.argmin()), std::vector<int32_t>{1});  // the first minimum, row-major
  EXPECT_EQ(idx(x.argmax()), std::vector<int32_t>{4});
}

TEST_P(Edge, IntegerReductionsAreExactAtTheTypesExtremes) {
  check_extremes<int8_t>(dev_, DType::kInt8);
  check_extremes<int16_t>(dev_, DType::kInt16);
  check_extremes<int32_t>(dev_, DType::kInt32);
  check_extremes<int64_t>(dev_, DType::kInt64);
  check_extremes<uint8_t>(dev_, DType::kUInt8);
  check_extremes<uint16_t>(dev_, DType::kUInt16);
  check_extremes<uint32_t>(dev_, DType::kUInt32);
  check_extremes<uint64_t>(dev_, DType::kUInt64);
}

// One element of an 8- or 16-bit tensor broadcast to a whole kernel: a uniform load, which
// LLVM emits as a scalar sub-dword load on GFX12 (s_load_u8/i8/u16/i16), at every byte offset
// of a dword, with the sign of the signed types.
TEST_P(Edge, UniformSubDwordLoadsOfEveryNarrowDtype) {
  struct Narrow {
    DType t;
    std::vector<double> vals;
  };
  const Narrow narrow[] = {
      {DType::kInt8, {-100, 7, -1, 127}},
      {DType::kUInt8, {200, 7, 255, 1}},
      {DType::kInt16, {-30000, 12345, -1, 2}},
      {DType::kUInt16, {60000, 7, 65535, 3}},
      {DType::kFloat16, {-2.5, 1024, 0.125, -7}},
      {DType::kBFloat16, {-2.5, 1024, 0.125, -7}},
      {DType::kBool, {1, 0, 1, 1}},
  };
  for (const Narrow& n : narrow) {
    SCOPED_TRACE(std::string(compiler::dtype_name(n.t)));
    const Tensor x = Tensor::from(n.vals, {4}, DType::kFloat64, dev_).cast(n.t);
    const Status st = x.realize();
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    const Tensor ramp = Tensor::arange(0, 64, 1, DType::kFloat32, dev_);
    for (int64_t k = 0; k < 4; ++k) {
      const Tensor e = x.slice(0, k, k + 1).expand({64}).cast(DType::kFloat32) + ramp;
      const std::vector<double> got = doubles(e);
      ASSERT_EQ(got.size(), 64u);
      for (size_t i = 0; i < 64; ++i) ASSERT_EQ(got[i], n.vals[size_t(k)] + double(i)) << k;
    }
  }
}

// float64 -> bfloat16 rounds once (to nearest even): just above a halfway point rounds up,
// where a rounding through float32 would first land on the tie and then round to even.
TEST_P(Edge, Float64ToBfloat16RoundsOnce) {
  const double above = 1 + std::ldexp(1, -8) + std::ldexp(1, -30), tie = 1 + std::ldexp(1, -8);
  const Tensor x =
      Tensor::from(std::vector<double>{above, -above, tie, 1e39, 3.0}, {5}, DType::kFloat64, dev_);
  const std::vector<double> got = doubles(x.cast(DType::kBFloat16));
  const double up = 1 + std::ldexp(1, -7);
  EXPECT_EQ(got, (std::vector<double>{up, -up, 1.0, kInf, 3.0}));
}

TEST_P(Edge, RepeatedFlipAxesAreRefused) {
  const Tensor x = Tensor::arange(0, 6, 1, DType::kInt32, dev_).reshape({2, 3});
  const Tensor f = x.flip({0, -2});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().error().code(), Errc::kInvalidArgument);
  EXPECT_NE(f.status().error().message().find("repeated"), std::string::npos);
  EXPECT_EQ(doubles(x.flip({0, 1})), (std::vector<double>{5, 4, 3, 2, 1, 0}));
}

// Sizes that cannot exist are typed errors when the op is built: no wrapped element count, no
// empty tensor standing in for 10^19 elements, no value that does not fit the dtype.
TEST_P(Edge, ImpossibleSizesAreTypedErrors) {
  const int64_t big = int64_t{1} << 32;
  const Tensor z = Tensor::zeros({big, big}, DType::kFloat32, dev_);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().error().code(), Errc::kOverflow) << z.status().error().to_string();
  const Tensor e = Tensor::ones({1, 1}, DType::kFloat32, dev_).expand({big, big});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().error().code(), Errc::kOverflow);
  const Tensor a = Tensor::arange(0, 1e19, 1, DType::kInt64, dev_);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().error().code(), Errc::kOverflow) << a.status().error().to_string();
  const Tensor w = Tensor::arange(0, 4e9, 1.5e9, DType::kInt32, dev_);  // 3e9 > INT32_MAX
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().error().code(), Errc::kOutOfRange) << w.status().error().to_string();
  const Tensor fine = Tensor::arange(0, 4e9, 1.5e9, DType::kInt64, dev_);
  EXPECT_EQ(doubles(fine), (std::vector<double>{0, 1.5e9, 3e9}));
}

INSTANTIATE_TEST_SUITE_P(Devices, Edge, testing::Values("cpu", "sim:gfx1100", "sim:gfx1201"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (c == ':') c = '_';
                           return n;
                         });

// A host allocation the machine cannot back is kOutOfMemory from realize(), not an abort.
TEST(EdgeCpu, AHostAllocationTooLargeForTheMachineIsATypedError) {
  const Tensor x = Tensor::zeros({int64_t{1} << 40}, DType::kFloat32, "cpu") + 1.0;  // 4 TiB
  ASSERT_TRUE(x.ok());
  const Status st = x.realize();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), Errc::kOutOfMemory) << st.error().to_string();
  // and the device still works
  EXPECT_EQ(doubles(Tensor::full({2}, 3.0, DType::kFloat32, "cpu") + 1.0),
            (std::vector<double>{4, 4}));
}

}  // namespace
}  // namespace rawgpu::frontend
