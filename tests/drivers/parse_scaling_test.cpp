// The cubin and code object parsers scale linearly with their input (issue 15): files with
// hundreds of thousands of sections, tens of thousands of kernels and segments, synthesized here
// (tests/drivers/synth_elf.h). Two checks per parser: the parsers' deterministic step counters
// must grow in proportion to the input, and a wall-clock bound with a wide margin (the parse
// takes ~0.2 s here; the quadratic parsers took minutes) catches work the counters miss. The
// speed itself is tracked by tests/bench/bench_drivers.cpp.
#include <gtest/gtest.h>

#include <chrono>

#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/nv/cubin.h"
#include "synth_elf.h"

namespace {

using namespace rawgpu;
using rawgpu::testing::SynthCodeObjectOptions;
using rawgpu::testing::SynthCubinOptions;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct CubinRun {
  uint64_t steps = 0;
  double seconds = 0;
};

CubinRun parse_synth_cubin(size_t kernels) {
  const std::vector<uint8_t> bytes = rawgpu::testing::synth_cubin(SynthCubinOptions{kernels, 90});
  drivers::nv::CubinParseStats stats;
  const auto t0 = std::chrono::steady_clock::now();
  auto cb = drivers::nv::parse_cubin(bytes, &stats);
  const double s = seconds_since(t0);
  EXPECT_TRUE(cb.ok()) << cb.error().to_string();
  if (!cb.ok()) return {};
  EXPECT_EQ(cb->kernels.size(), kernels);
  EXPECT_EQ(cb->sm, 90u);
  // The last kernel's fields come from its own sections and its global .nv.info records.
  const std::string last = "k" + std::to_string(kernels - 1);
  const drivers::nv::CubinKernel* k = cb->find(last);
  EXPECT_NE(k, nullptr) << last;
  if (k != nullptr) {
    EXPECT_EQ(k->registers, 16 + (kernels - 1) % 64);
    EXPECT_EQ(k->shared_bytes, 256u);
    EXPECT_EQ(k->param_offset, 0x210u);
    EXPECT_EQ(k->param_size, 8u);
    EXPECT_EQ(k->params.size(), 1u);
    EXPECT_EQ(k->max_threads[0], 128u);
    EXPECT_EQ(k->exit_offsets.size(), 1u);
    EXPECT_EQ(k->banks.size(), 1u);
  }
  return {stats.steps, s};
}

TEST(CubinScaling, TwoHundredThousandSectionsParseInLinearTime) {
  constexpr size_t kSmall = 1000, kMedium = 5000, kLarge = 50000;  // x4 sections each
  const CubinRun small = parse_synth_cubin(kSmall);
  ASSERT_GT(small.steps, 0u);
  // 20,000 sections: the quadratic parser needed ~7 s; a linear one needs milliseconds.
  const CubinRun medium = parse_synth_cubin(kMedium);
  EXPECT_LT(medium.seconds, 2.0) << "20,000 sections";
  EXPECT_LE(double(medium.steps) / kMedium, 1.1 * double(small.steps) / kSmall)
      << medium.steps << " steps for " << kMedium << " kernels, " << small.steps << " for "
      << kSmall;
  ASSERT_FALSE(HasFailure()) << "not trying 200,000 sections on a parser that is not linear";
  const CubinRun large = parse_synth_cubin(kLarge);
  EXPECT_GE(kLarge * rawgpu::testing::kSynthCubinSectionsPerKernel, 200000u);
  EXPECT_LT(large.seconds, 5.0) << "200,000 sections";
  EXPECT_LE(double(large.steps) / kLarge, 1.1 * double(small.steps) / kSmall)
      << large.steps << " steps for " << kLarge << " kernels, " << small.steps << " for " << kSmall;
}

struct CodeObjectRun {
  uint64_t steps = 0;
  double seconds = 0;
};

CodeObjectRun parse_synth_code_object(size_t kernels, size_t extra_segments) {
  SynthCodeObjectOptions o;
  o.kernels = kernels;
  o.segment_per_descriptor = true;
  o.extra_segments = extra_segments;
  o.reverse_metadata = true;
  const std::vector<uint8_t> bytes = rawgpu::testing::synth_code_object(o);
  drivers::amd::CodeObjectParseStats stats;
  const auto t0 = std::chrono::steady_clock::now();
  auto co = drivers::amd::parse_code_object(bytes, &stats);
  const double s = seconds_since(t0);
  EXPECT_TRUE(co.ok()) << co.error().to_string();
  if (!co.ok()) return {};
  EXPECT_EQ(co->kernels.size(), kernels);
  EXPECT_EQ(co->segments.size(), kernels + 1 + extra_segments);
  const std::string last = "k" + std::to_string(kernels - 1);
  const drivers::amd::CodeObjectKernel* k = co->find(last);
  EXPECT_NE(k, nullptr) << last;
  if (k != nullptr) {
    EXPECT_EQ(k->metadata.symbol, last + ".kd");
    EXPECT_EQ(k->metadata.args.size(), 1u);
    EXPECT_EQ(k->descriptor.kernarg_size, 8u);
    EXPECT_EQ(k->code_va, co->kernels.front().code_va);  // all kernels share one code block
  }
  return {stats.steps, s};
}

TEST(CodeObjectScaling, KernelsAndSegmentsParseInLinearTime) {
  // 29,000 kernels is close to the metadata note's 2^20 msgpack object limit; with one segment
  // per descriptor and the extra segments the object has 65,001 program headers (e_phnum is 16
  // bits). The quadratic checks (segment overlap, entry-in-segment, kernel x metadata) made it
  // take seconds.
  constexpr size_t kSmall = 1450, kSmallExtra = 1800, kLarge = 29000, kLargeExtra = 36000;
  const CodeObjectRun small = parse_synth_code_object(kSmall, kSmallExtra);
  ASSERT_GT(small.steps, 0u);
  const CodeObjectRun large = parse_synth_code_object(kLarge, kLargeExtra);
  EXPECT_LT(large.seconds, 3.0) << "29,000 kernels, 65,001 segments";
  EXPECT_LE(double(large.steps), 1.1 * 20 * double(small.steps))
      << large.steps << " steps for 20x the input of " << small.steps;
}

}  // namespace
