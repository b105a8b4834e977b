#include "rawgpu/memory/trace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace rawgpu::memory {
namespace {

TEST(Trace, ParsesOpsAndReusesSlots) {
  auto t =
      parse_trace("# comment\na 7 4096 256\na 9 2MiB 0x200000\n\nf 7\na 7 100 1  # again\nf 9\n");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  ASSERT_EQ(t->ops.size(), 5u);
  EXPECT_TRUE(t->ops[0].alloc);
  EXPECT_EQ(t->ops[1].size, 2u << 20);
  EXPECT_EQ(t->ops[1].align, 0x200000u);
  EXPECT_FALSE(t->ops[2].alloc);
  EXPECT_EQ(t->ops[2].slot, t->ops[0].slot);
  EXPECT_EQ(t->ops[3].slot, t->ops[0].slot);  // the freed slot is reused
  EXPECT_EQ(t->slots, 2u);
}

TEST(Trace, ErrorsNameTheLine) {
  auto bad = parse_trace("a 1 10 1\nx 2\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.error().is(Errc::kParse));
  EXPECT_NE(bad.error().message().find("line 2"), std::string::npos) << bad.error().message();
  EXPECT_NE(parse_trace("f 3\n").error().message().find("not live"), std::string::npos);
  EXPECT_NE(parse_trace("a 1 8 1\na 1 8 1\n").error().message().find("still live"),
            std::string::npos);
  EXPECT_TRUE(parse_trace("a 1 eight 1\n").error().is(Errc::kParse));
  EXPECT_TRUE(parse_trace("a 1 8\n").error().is(Errc::kParse));
}

TEST(Trace, ReplayCountsFailuresAndFragmentation) {
  // 4 KiB arena: three 1 KiB blocks, free the middle one, then 2 KiB does not fit... but 1 KiB
  // after the third does; fragmentation peaks at 1 - 1024/2048 = 0.5.
  auto t = parse_trace("a 1 1024 1\na 2 1024 1\na 3 1024 1\nf 2\na 4 2048 1\n");
  ASSERT_TRUE(t.ok());
  auto r = replay_trace(*t, 4096, 3);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->ops, 5u);
  EXPECT_EQ(r->failed_allocs, 1u);
  EXPECT_DOUBLE_EQ(r->peak_fragmentation, 0.5);
  EXPECT_EQ(r->peak_used, 3072u);
  EXPECT_GT(r->ns_per_op, 0.0);
}

TEST(Trace, GeneratedTracesParse) {
  auto text = generate_trace(2000, 1ull << 30, 5);
  ASSERT_TRUE(text.ok()) << text.error().to_string();
  auto t = parse_trace(*text);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t->ops.size(), 2000u);
  auto again = generate_trace(2000, 1ull << 30, 5);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *text);  // deterministic
}

// Regression (issue 15): --generate 10^12 or 2^64-1 threw bad_alloc / length_error.
TEST(Trace, GenerateRefusesMoreOpsThanATraceHolds) {
  for (uint64_t ops : {kMaxTraceOps + 1, uint64_t{1000000000000}, ~uint64_t{0}}) {
    auto text = generate_trace(ops, 1ull << 30, 1);
    ASSERT_FALSE(text.ok());
    EXPECT_TRUE(text.error().is(Errc::kOutOfRange)) << text.error().to_string();
  }
}

// A line may span chunks; the result is the same as parsing the whole text.
TEST(Trace, ChunkedFeedMatchesWholeText) {
  auto text = generate_trace(3000, 1ull << 30, 9);
  ASSERT_TRUE(text.ok());
  auto whole = parse_trace(*text);
  ASSERT_TRUE(whole.ok());
  for (size_t step : {size_t{1}, size_t{7}, size_t{4096}, size_t{65537}}) {
    TraceParser p;
    for (size_t i = 0; i < text->size(); i += step)
      ASSERT_TRUE(p.feed(std::string_view(*text).substr(i, step)).ok());
    auto t = p.finish();
    ASSERT_TRUE(t.ok()) << t.error().to_string();
    ASSERT_EQ(t->ops.size(), whole->ops.size()) << "step " << step;
    EXPECT_EQ(t->slots, whole->slots);
    for (size_t i = 0; i < t->ops.size(); ++i) {
      ASSERT_EQ(t->ops[i].alloc, whole->ops[i].alloc);
      ASSERT_EQ(t->ops[i].slot, whole->ops[i].slot);
      ASSERT_EQ(t->ops[i].size, whole->ops[i].size);
    }
  }
  // The last line needs no newline.
  auto last = parse_trace("a 1 256 1\nf 1");
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->ops.size(), 2u);
}

// Regression (issue 15): /dev/zero as a trace read without bound, and a bad 10 MB line was
// echoed whole, control bytes included.
TEST(Trace, LongLinesAreRefusedAndQuotedBriefly) {
  const std::string zeros(kMaxTraceLineBytes + 1, '\0');
  TraceParser p;
  Status s = p.feed(zeros);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.error().is(Errc::kOutOfRange)) << s.error().to_string();
  EXPECT_LT(s.error().to_string().size(), 600u);
  EXPECT_EQ(s.error().to_string().find('\0'), std::string::npos);
  EXPECT_FALSE(p.feed("a 1 256 1\n").ok());  // sticky
  EXPECT_FALSE(p.finish().ok());

  // The same line arriving in small pieces is caught too, before it is kept whole.
  TraceParser q;
  Status r = ok_status();
  for (int i = 0; i < 100 && r.ok(); ++i) r = q.feed(std::string(100, 'a'));
  EXPECT_TRUE(r.error().is(Errc::kOutOfRange));

  std::string bad = "z \x1b[31m";
  bad += std::string(3000, 'x');
  auto e = parse_trace(bad + "\n");
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(e.error().is(Errc::kParse));
  const std::string msg = e.error().to_string();
  EXPECT_LT(msg.size(), 400u) << msg;
  EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
}

TEST(Trace, ReadTraceReportsWhatIsWrongWithTheFile) {
  auto missing = read_trace("/nonexistent/rawgpu-trace");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.error().is(Errc::kNotFound)) << missing.error().to_string();
  EXPECT_NE(missing.error().to_string().find("No such file"), std::string::npos);
  auto dir = read_trace("/tmp");  // used to read as a trace of 0 ops
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().to_string().find("directory"), std::string::npos)
      << dir.error().to_string();
  auto zero = read_trace("/dev/zero");  // used to read forever
  ASSERT_FALSE(zero.ok());
  EXPECT_TRUE(zero.error().is(Errc::kOutOfRange)) << zero.error().to_string();
}

TEST(Trace, WriteTraceRoundTripsAndReportsAFullDisk) {
  const std::string path = ::testing::TempDir() + "rawgpu_trace_test.txt";
  ASSERT_TRUE(write_trace(path, 500, 1ull << 30, 3).ok());
  auto t = read_trace(path);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t->ops.size(), 500u);
  std::remove(path.c_str());
  // Regression (issue 15): writing to a full disk reported success.
  Status full = write_trace("/dev/full", 100000, 1ull << 30, 3);
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().to_string().find("No space"), std::string::npos)
      << full.error().to_string();
}

}  // namespace
}  // namespace rawgpu::memory
