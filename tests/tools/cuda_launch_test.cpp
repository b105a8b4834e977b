// cuda_check's launch-description parser (tools/cuda_check/launch_file.h): the values a CUDA
// launch accepts, no size arithmetic that wraps, errors that name the line and quote it briefly.
#include "launch_file.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace cuda_check {
namespace {

// Files by name; a missing name fails like a missing file.
struct Files {
  std::map<std::string, std::vector<char>> files;
  ReadFile reader() {
    return [this](const std::string& name, size_t max, std::vector<char>& out, std::string& why) {
      auto it = files.find(name);
      if (it == files.end()) {
        why = "No such file or directory";
        return false;
      }
      if (it->second.size() > max) {
        why = "too large";
        return false;
      }
      out = it->second;
      return true;
    };
  }
};

Files sample() {
  Files f;
  f.files["k.cubin"] = std::vector<char>(64, 1);
  f.files["in.bin"] = std::vector<char>(64, 0);
  f.files["want.bin"] = std::vector<char>(64, 0);
  return f;
}

const std::string kGood =
    "# comment\nkernel E_4\nbinary k.cubin\ngrid 4 1 1\nblock 32 2 1\n"
    "buffer 0 float 64 in.bin\nscalar -7\ncheck 0 want.bin 16 1e-6 0\n";

TEST(CudaLaunch, ParsesAGoodDescription) {
  Files f = sample();
  const Launch l = parse_launch(kGood, f.reader());
  ASSERT_EQ(l.error, "");
  EXPECT_EQ(l.kernel, "E_4");
  EXPECT_EQ(l.grid[0], 4u);
  EXPECT_EQ(l.block[1], 2u);
  ASSERT_EQ(l.scalars.size(), 1u);
  EXPECT_EQ(l.scalars[0], -7);
  ASSERT_EQ(l.checks.size(), 1u);
  EXPECT_EQ(l.checks[0].count, 16u);
}

std::string error_for(const std::string& from, const std::string& to) {
  Files f = sample();
  std::string text = kGood;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  return parse_launch(text, f.reader()).error;
}

// Regression (issue 15): grid values of -1 were accepted (as 4294967295) by `>> unsigned`.
TEST(CudaLaunch, RejectsGeometryCudaWouldRefuse) {
  EXPECT_NE(error_for("grid 4 1 1", "grid -1 1 1").find("grid x must be 1..2147483647"),
            std::string::npos);
  EXPECT_NE(error_for("grid 4 1 1", "grid 4 0 1").find("grid y"), std::string::npos);
  EXPECT_NE(error_for("grid 4 1 1", "grid 4 1 65536").find("grid z"), std::string::npos);
  EXPECT_NE(error_for("block 32 2 1", "block 1025 1 1").find("block x"), std::string::npos);
  EXPECT_NE(error_for("block 32 2 1", "block 64 32 1").find("1024 threads"), std::string::npos);
  EXPECT_NE(error_for("grid 4 1 1", "grid 4 1").find("expected 'grid X Y Z'"), std::string::npos);
  EXPECT_NE(error_for("grid 4 1 1", "grid 4 1 1 9").find("launch.txt:4:"), std::string::npos);
}

// Regression (issue 15): `count * 4` wrapped, so a huge COUNT matched a small file.
TEST(CudaLaunch, CountsCannotWrap) {
  // 2^62 * 4 == 0 modulo 2^64: the old parser compared want.size() (0) with count * 4 (0).
  const std::string e = error_for("check 0 want.bin 16", "check 0 want.bin 4611686018427387904");
  EXPECT_NE(e.find("check count must be"), std::string::npos) << e;
  EXPECT_NE(error_for("check 0 want.bin 16", "check 0 want.bin 17").find("does not hold 17 floats"),
            std::string::npos);
  EXPECT_NE(error_for("buffer 0 float 64", "buffer 0 float 99999999999999").find("buffer size"),
            std::string::npos);
  EXPECT_NE(error_for("check 0 want.bin 16 1e-6", "check 0 want.bin 16 nan").find("tolerances"),
            std::string::npos);
  EXPECT_NE(error_for("buffer 0 float", "buffer -1 float").find("slot"), std::string::npos);
  EXPECT_NE(error_for("scalar -7", "scalar 99999999999999999999").find("64-bit"),
            std::string::npos);
}

TEST(CudaLaunch, ErrorsQuoteLinesBriefly) {
  const std::string e = error_for("kernel E_4", "frobnicate \x1b[2J" + std::string(5000, 'x'));
  EXPECT_NE(e.find("launch.txt:2: unknown directive"), std::string::npos) << e;
  EXPECT_LT(e.size(), 200u) << e;
  EXPECT_EQ(e.find('\x1b'), std::string::npos);
  EXPECT_NE(e.find("\\x1b"), std::string::npos);
  EXPECT_NE(error_for("binary k.cubin", "binary nope.cubin").find("No such file"),
            std::string::npos);
}

TEST(CudaLaunch, ReadsOnlyRegularFilesWithinTheLimit) {
  std::vector<char> out;
  std::string why;
  EXPECT_FALSE(read_file_in("/", "tmp", 100, out, why));
  EXPECT_EQ(why, "is a directory");
  EXPECT_FALSE(read_file_in("/dev", "zero", 100, out, why));  // used to read without bound
  EXPECT_EQ(why, "is not a regular file");
  EXPECT_FALSE(read_file_in("/nonexistent", "x", 100, out, why));
  EXPECT_NE(why, "");
}

}  // namespace
}  // namespace cuda_check
