#include "rawgpu/base/format.h"

#include <gtest/gtest.h>

#include <vector>

namespace rawgpu {
namespace {

TEST(Format, Strformat) {
  EXPECT_EQ(strformat("%s=%d", "x", 5), "x=5");
  std::string long_arg(1000, 'a');
  EXPECT_EQ(strformat("[%s]", long_arg.c_str()).size(), 1002u);
  EXPECT_EQ(hex(0x1f), "0x1f");
  EXPECT_EQ(hex(0x1f, 8), "0x0000001f");
}

TEST(Format, Bytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1000), "1000 B");
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(256ull << 20), "256 MiB");
  EXPECT_EQ(format_bytes(24ull << 30), "24 GiB");
  EXPECT_EQ(format_bytes(3ull << 29), "1536 MiB");
  EXPECT_EQ(format_bytes((1ull << 30) + 1), "1.00 GiB");
  EXPECT_EQ(format_bytes(1536 + 1), "1537 B");
  EXPECT_EQ(format_bytes((1ull << 20) + 1), "1.00 MiB");
  EXPECT_EQ(format_bytes(~uint64_t{0}), "16.00 EiB");
}

TEST(Format, QuoteEscapesAndBounds) {
  EXPECT_EQ(quote("abc"), "'abc'");
  EXPECT_EQ(quote(std::string_view("a\n\t\x01\x7f'\\", 7)), "'a\\n\\t\\x01\\x7f\\'\\\\'");
  // A 10 MB line becomes at most kMaxQuotedBytes of (escaped) input plus its length.
  const std::string big(10'000'000, '\x1b');
  const std::string q = quote(big);
  EXPECT_LE(q.size(), 4 * kMaxQuotedBytes + 32) << q.size();
  EXPECT_NE(q.find("... (10000000 bytes)"), std::string::npos) << q;
  EXPECT_EQ(q.find('\x1b'), std::string::npos) << "control bytes are escaped";
  EXPECT_EQ(quote("abcdef", 3), "'abc'... (6 bytes)");
}

TEST(Format, Hexdump) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 20; ++i) bytes.push_back(static_cast<uint8_t>(0x41 + i));
  bytes[3] = 0x00;
  HexdumpOptions o;
  o.base = 0x1000;
  EXPECT_EQ(hexdump(bytes, o),
            "00001000: 41 42 43 00 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50  |ABC.EFGHIJKLMNOP|\n"
            "00001010: 51 52 53 54                                      |QRST|\n");
  o.max_bytes = 4;
  o.ascii = false;
  EXPECT_EQ(hexdump(bytes, o),
            "00001000: 41 42 43 00                                    \n... 16 more bytes\n");
  EXPECT_EQ(hexdump({}, {}), "");
}

TEST(Format, HexdumpWords) {
  const uint32_t words[] = {0xc0032200, 1, 2};
  EXPECT_EQ(hexdump_words(words, 0x10, 2), "00000010: c0032200 00000001\n00000018: 00000002\n");
}

}  // namespace
}  // namespace rawgpu
