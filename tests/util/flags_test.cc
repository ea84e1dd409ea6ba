#include "zonekv/flags.h"

#include <gtest/gtest.h>

namespace zonekv {

TEST(ParseBytesTest, Suffixes) {
  uint64_t v = 0;
  ASSERT_TRUE(ParseBytes("4096", &v).ok());
  EXPECT_EQ(v, 4096u);
  ASSERT_TRUE(ParseBytes("64K", &v).ok());
  EXPECT_EQ(v, 64u << 10);
  ASSERT_TRUE(ParseBytes("64MiB", &v).ok());
  EXPECT_EQ(v, 64u << 20);
  ASSERT_TRUE(ParseBytes("2G", &v).ok());
  EXPECT_EQ(v, 2ull << 30);
}

TEST(ParseBytesTest, RejectsGarbage) {
  uint64_t v = 7;
  EXPECT_TRUE(ParseBytes("", &v).Is(Status::Code::kInvalidArgument));
  EXPECT_TRUE(ParseBytes("12Q", &v).Is(Status::Code::kInvalidArgument));
  EXPECT_TRUE(ParseBytes("-1", &v).Is(Status::Code::kInvalidArgument));
  EXPECT_TRUE(ParseBytes("99999999999999999999T", &v).Is(Status::Code::kInvalidArgument));
  EXPECT_EQ(v, 7u);
}

TEST(FlagsTest, ParsesFormsAndPositionals) {
  Flags f("test");
  f.Define("num", "10", "count");
  f.Define("name", "x", "a name");
  f.Define("verbose", "false", "talk", true);
  const char* argv[] = {"zonekv", "test", "--num=5", "--name", "abc", "--verbose", "pos1"};
  bool help = false;
  ASSERT_TRUE(f.Parse(7, const_cast<char**>(argv), 2, &help).ok());
  EXPECT_FALSE(help);
  uint64_t n = 0;
  ASSERT_TRUE(f.Uint("num", &n).ok());
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(f.Str("name"), "abc");
  bool v = false;
  ASSERT_TRUE(f.Bool("verbose", &v).ok());
  EXPECT_TRUE(v);
  ASSERT_EQ(f.positionals().size(), 1u);
  EXPECT_EQ(f.positionals()[0], "pos1");
  EXPECT_TRUE(f.WasSet("num"));
}

TEST(FlagsTest, UnknownFlagIsNamed) {
  Flags f("bench");
  f.Define("num", "10", "count");
  const char* argv[] = {"zonekv", "bench", "--nmu=5"};
  bool help = false;
  Status s = f.Parse(3, const_cast<char**>(argv), 2, &help);
  ASSERT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("--nmu"), std::string::npos);
}

TEST(FlagsTest, BadValueIsNamed) {
  Flags f("bench");
  f.Define("num", "ten", "count");
  uint64_t n = 0;
  Status s = f.Uint("num", &n);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--num"), std::string::npos);
}

// Found by fuzz/flags_fuzz: strtoull skips leading white space and takes a
// sign, so " 0" parsed and " -5" wrapped around to 2^64 - 5.
TEST(FlagsTest, FuzzParseUintRejectsLeadingSpaceAndSign) {
  uint64_t v = 7;
  for (const char* text : {" 0", " -5", "\t3", "\n-1", "+4"}) {
    Status s = ParseUint(text, &v);
    EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << "'" << text << "': " << s.ToString();
  }
  EXPECT_EQ(v, 7u);
  ASSERT_TRUE(ParseUint("0042", &v).ok());
  EXPECT_EQ(v, 42u);
}

}  // namespace zonekv
