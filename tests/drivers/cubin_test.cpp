// Cubin parser on real cubins: PTX written here, assembled by ptxas (SKIPPED when ptxas is not
// installed), fields cross-checked with `ptxas -v`; truncations and byte flips give typed errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "rawgpu/base/process.h"
#include "rawgpu/drivers/nv/cubin.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::drivers::nv;
namespace fs = std::filesystem;

// Two kernels: one with 256 B of shared memory, a barrier and .maxntid 64; one without
// shared memory and a single parameter.
constexpr const char* kPtx = R"(.version 7.8
.target sm_80
.address_size 64
.shared .align 4 .b8 sh[256];
.visible .entry add(.param .u64 a, .param .u64 b, .param .u32 n) .maxntid 64, 1, 1
{
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mad.lo.s32 %r3, %r2, 64, %r1;
  cvta.to.global.u64 %rd3, %rd2; mul.wide.s32 %rd4, %r3, 4; add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  shl.b32 %r4, %r1, 2; mov.u32 %r5, sh; add.s32 %r6, %r5, %r4; st.shared.f32 [%r6], %f1;
  bar.sync 0;
  xor.b32 %r7, %r4, 4; add.s32 %r7, %r5, %r7; ld.shared.f32 %f2, [%r7];
  cvta.to.global.u64 %rd6, %rd1; add.s64 %rd7, %rd6, %rd4; st.global.f32 [%rd7], %f2;
  ret;
}
.visible .entry fill(.param .u64 o)
{
  .reg .b32 %r<3>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [o]; cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r1;
  ret;
}
)";

struct Built {
  std::vector<uint8_t> cubin;
  std::string ptxas_v;
  std::string why;
};

const Built& build(const std::string& sm) {
  static std::map<std::string, Built> cache;
  if (auto it = cache.find(sm); it != cache.end()) return it->second;
  Built& b = cache[sm];
  auto ptxas = find_executable("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas) {
    b.why = "ptxas not installed";
    return b;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("rawgpu_cubin_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string ptx = kPtx;
  ptx.replace(ptx.find("sm_80"), 5, sm);
  std::ofstream(dir / "k.ptx") << ptx;
  auto r = run_command({*ptxas, "-arch=" + sm, "-O3", "-v", (dir / "k.ptx").string(), "-o",
                        (dir / "k.cubin").string()});
  if (!r.ok() || r->exit_code != 0) {
    b.why = "ptxas failed: " + (r.ok() ? r->output : r.error().to_string());
    return b;
  }
  b.ptxas_v = r->output;
  std::ifstream f(dir / "k.cubin", std::ios::binary);
  b.cubin.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return b;
}

// "Compiling entry function 'add'" ... "Used N registers" per kernel from ptxas -v.
std::map<std::string, uint32_t> ptxas_registers(const std::string& out) {
  std::map<std::string, uint32_t> regs;
  std::regex fn("Function properties for (\\w+)"), used("Used (\\d+) registers");
  std::string cur;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, fn)) cur = m[1];
    if (std::regex_search(line, m, used) && !cur.empty()) regs[cur] = uint32_t(std::stoul(m[1]));
  }
  return regs;
}

class CubinTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(CubinTarget, ParsesKernelsAndMatchesPtxas) {
  const std::string sm = GetParam();
  const Built& b = build(sm);
  if (b.cubin.empty()) {
    if (b.why == "ptxas not installed") GTEST_SKIP() << "SKIPPED: " << b.why;
    FAIL() << b.why;
  }
  auto cb = parse_cubin(b.cubin);
  ASSERT_TRUE(cb.ok()) << cb.error().to_string();
  EXPECT_EQ(cb->sm, uint32_t(std::stoi(sm.substr(3))));
  ASSERT_EQ(cb->kernels.size(), 2u);
  const CubinKernel* add = cb->find("add");
  const CubinKernel* fill = cb->find("fill");
  ASSERT_NE(add, nullptr);
  ASSERT_NE(fill, nullptr);
  const uint32_t base = sm == "sm_90" ? 0x210 : 0x160;  // nv.md 3.9
  EXPECT_EQ(add->param_offset, base);
  EXPECT_EQ(add->param_size, 20u);
  ASSERT_EQ(add->params.size(), 3u);
  EXPECT_EQ(add->params[0].offset, 0u);
  EXPECT_EQ(add->params[1].offset, 8u);
  EXPECT_EQ(add->params[2].offset, 16u);
  EXPECT_EQ(add->params[2].size, 4u);
  EXPECT_EQ(fill->param_size, 8u);
  EXPECT_EQ(add->max_threads[0], 64u);
  EXPECT_EQ(add->max_threads[1], 1u);
  EXPECT_EQ(fill->max_threads[0], 0u);
  EXPECT_EQ(add->shared_bytes, 256u + (sm == "sm_90" ? 0x400u : 0u));
  EXPECT_GT(add->code_size, 0u);
  EXPECT_EQ(add->code_align, 128u);
  EXPECT_FALSE(add->exit_offsets.empty());
  bool bank0 = false;
  for (const auto& bk : add->banks) bank0 |= bk.bank == 0 && bk.per_kernel;
  EXPECT_TRUE(bank0);
  const auto regs = ptxas_registers(b.ptxas_v);
  ASSERT_EQ(regs.count("add"), 1u) << b.ptxas_v;
  EXPECT_EQ(add->registers, regs.at("add"));
  EXPECT_EQ(fill->registers, regs.at("fill"));
  EXPECT_EQ(add->stack_bytes, 0u);
  for (const auto& r : cb->relocations)
    EXPECT_TRUE(r.type == 2 || r.type == 0x38 || r.type == 0x39) << r.type;
  EXPECT_NE(describe(*add).find("params 20 B"), std::string::npos) << describe(*add);
}

INSTANTIATE_TEST_SUITE_P(Sm, CubinTarget, ::testing::Values("sm_80", "sm_86", "sm_89", "sm_90"));

TEST(CubinCorrupt, TruncationsAndFlipsAreTyped) {
  const Built& b = build("sm_80");
  if (b.cubin.empty()) {
    if (b.why == "ptxas not installed") GTEST_SKIP() << "SKIPPED: " << b.why;
    FAIL() << b.why;
  }
  for (size_t n = 0; n < b.cubin.size(); n += (n < 128 ? 1 : 11)) {
    auto r = parse_cubin(std::span(b.cubin.data(), n));
    if (!r.ok()) {
      EXPECT_TRUE(r.error().is(Errc::kParse) || r.error().is(Errc::kUnsupported))
          << r.error().to_string();
    }
  }
  size_t rejected = 0;
  for (size_t i = 0; i < b.cubin.size(); i += (i < 256 ? 1 : 3)) {
    auto c = b.cubin;
    c[i] ^= 0xff;
    auto r = parse_cubin(c);
    if (!r.ok()) {
      ++rejected;
      EXPECT_FALSE(r.error().message().empty());
    }
  }
  EXPECT_GT(rejected, 20u);
  auto c = b.cubin;
  c[18] = 62;  // EM_X86_64
  c[19] = 0;
  EXPECT_TRUE(parse_cubin(c).error().is(Errc::kUnsupported));
  EXPECT_TRUE(parse_cubin({}).error().is(Errc::kParse));
}

}  // namespace
