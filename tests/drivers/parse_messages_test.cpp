// What the cubin and code object parsers say about bad input they index by name: duplicates are
// errors (an index must not silently keep one of two entries), tables shared by many headers
// (which would make the work quadratic in the file size) are refused, and names quoted from the
// input are escaped and cut to 80 bytes, however long or binary they are. On synthesized files
// (tests/drivers/synth_elf.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "rawgpu/drivers/amd/code_object.h"
#include "rawgpu/drivers/nv/cubin.h"
#include "synth_elf.h"

namespace {

using namespace rawgpu;
using rawgpu::testing::SynthCodeObjectOptions;
using rawgpu::testing::SynthCubinOptions;

// Replaces the first occurrence of `from` in `bytes` by `to` (same length).
bool patch(std::vector<uint8_t>& bytes, std::string_view from, std::string_view to) {
  auto it = std::search(bytes.begin(), bytes.end(), from.begin(), from.end(),
                        [](uint8_t a, char b) { return a == uint8_t(b); });
  if (it == bytes.end() || from.size() != to.size()) return false;
  std::copy(to.begin(), to.end(), it);
  return true;
}

// A 5,000-byte kernel name prefix with a quote, a newline and non-ASCII bytes at its start.
const std::string kNastyPrefix = std::string("a'\n\x01\xff") + std::string(5000, 'N');
// ... and how its first 80 bytes are quoted.
const std::string kNastyQuoted = "'a\\'\\n\\x01\\xff" + std::string(75, 'N') + "'... (";

TEST(CubinMessages, LongBinaryKernelNameIsQuotedBounded) {
  SynthCubinOptions o;
  o.name_prefix = kNastyPrefix;
  o.kernel_symbols = false;
  auto r = drivers::nv::parse_cubin(rawgpu::testing::synth_cubin(o));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kParse));
  const std::string& m = r.error().message();
  EXPECT_NE(m.find("kernel " + kNastyQuoted + "5006 bytes) has no symbol"), std::string::npos) << m;
  EXPECT_LT(m.size(), 200u) << m;
}

TEST(CubinMessages, DuplicateKernelSectionsAreErrors) {
  SynthCubinOptions o;
  o.kernels = 2;
  std::vector<uint8_t> b = rawgpu::testing::synth_cubin(o);
  ASSERT_TRUE(drivers::nv::parse_cubin(b).ok());
  auto two = b;
  ASSERT_TRUE(patch(two, std::string_view(".text.k1\0", 9), std::string_view(".text.k0\0", 9)));
  auto r = drivers::nv::parse_cubin(two);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "two sections named '.text.k0'") << r.error().to_string();

  two = b;
  ASSERT_TRUE(patch(two, std::string_view(".nv.constant0.k1\0", 17),
                    std::string_view(".nv.constant0.k0\0", 17)));
  r = drivers::nv::parse_cubin(two);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("kernel 'k0' has two sections for constant bank 0"),
            std::string::npos)
      << r.error().to_string();

  two = b;
  ASSERT_TRUE(
      patch(two, std::string_view(".nv.info.k1\0", 12), std::string_view(".nv.info.k0\0", 12)));
  r = drivers::nv::parse_cubin(two);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "two sections named '.nv.info.k0'") << r.error().to_string();
}

TEST(CubinMessages, SharedRecordTablesAreRefused) {
  // 2,000 kernels whose .nv.info.kN headers all point at one 64 KB record table: walking it per
  // kernel would read 128 MB out of a 0.9 MB file (and list 32 million exit offsets).
  SynthCubinOptions o;
  o.kernels = 2000;
  o.exit_offsets = 16000;
  const std::vector<uint8_t> b = rawgpu::testing::synth_cubin(o);
  auto r = drivers::nv::parse_cubin(b);
  ASSERT_FALSE(r.ok()) << r->kernels.size() << " kernels parsed";
  EXPECT_TRUE(r.error().is(Errc::kParse));
  EXPECT_NE(r.error().message().find("the .nv.info and relocation sections hold more bytes than "
                                     "the " +
                                     std::to_string(b.size()) + "-byte file (sections overlap)"),
            std::string::npos)
      << r.error().to_string();
  // One shared table for two kernels fits the file: accepted.
  o.kernels = 2;
  o.exit_offsets = 16;
  auto ok = drivers::nv::parse_cubin(rawgpu::testing::synth_cubin(o));
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_EQ(ok->kernels[1].exit_offsets.size(), 16u);
  // A second global .nv.info section.
  o.exit_offsets = 1;
  std::vector<uint8_t> two = rawgpu::testing::synth_cubin(o);
  ASSERT_TRUE(
      patch(two, std::string_view(".nv.info.k1\0", 12), std::string_view(".nv.info\0k1\0", 12)));
  r = drivers::nv::parse_cubin(two);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "two sections named '.nv.info'") << r.error().to_string();
}

TEST(CodeObjectMessages, SharedTablesAreRefused) {
  SynthCodeObjectOptions o;
  o.kernels = 2;
  o.symtab_copies = 2;
  auto r = drivers::amd::parse_code_object(rawgpu::testing::synth_code_object(o));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "code object has two SHT_SYMTAB sections")
      << r.error().to_string();
  // 200 PT_NOTE headers for one note: each would be walked again.
  o.symtab_copies = 1;
  o.note_copies = 200;
  const std::vector<uint8_t> b = rawgpu::testing::synth_code_object(o);
  r = drivers::amd::parse_code_object(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "PT_NOTE segments hold more bytes than the " +
                                     std::to_string(b.size()) + "-byte file (they overlap)")
      << r.error().to_string();
}

TEST(CodeObjectMessages, LongBinaryKernelNameIsQuotedBounded) {
  SynthCodeObjectOptions o;
  o.kernels = 2;
  o.name_prefix = kNastyPrefix;
  o.metadata_kernels = 1;
  o.reverse_metadata = false;
  const auto bytes = rawgpu::testing::synth_code_object(o);
  auto r = drivers::amd::parse_code_object(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kParse));
  const std::string& m = r.error().message();
  EXPECT_NE(m.find("kernel " + kNastyQuoted + "5006 bytes) has no entry in the metadata note"),
            std::string::npos)
      << m;
  EXPECT_LT(m.size(), 200u) << m;
}

TEST(CodeObjectMessages, DuplicateMetadataSymbolIsAnError) {
  // Two kernels whose metadata entries both name k0.kd: the index must not keep only one.
  SynthCodeObjectOptions o;
  o.kernels = 2;
  o.reverse_metadata = false;
  std::vector<uint8_t> bytes = rawgpu::testing::synth_code_object(o);
  ASSERT_TRUE(drivers::amd::parse_code_object(bytes).ok());
  ASSERT_TRUE(patch(bytes, ".symbol\xa5k1.kd", ".symbol\xa5k0.kd"));
  auto r = drivers::amd::parse_code_object(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().is(Errc::kParse));
  EXPECT_EQ(r.error().message(), "metadata note lists kernel symbol 'k0.kd' twice")
      << r.error().to_string();
}

}  // namespace
