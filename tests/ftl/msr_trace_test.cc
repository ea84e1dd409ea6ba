// MSR Cambridge traces: parsing, line-numbered rejection, replay, generation.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "zonekv/ftl.h"
#include "zonekv/zoned_device.h"

namespace zonekv {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/zonekv_ftl_" + std::to_string(getpid()) + "_" + name;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MsrTraceTest, ParsesTheDocumentedExample) {
  TraceRecord r;
  ASSERT_TRUE(ParseMsrLine("128166372003061629,hm,0,Write,7014912,4096,26", &r).ok());
  EXPECT_EQ(r.timestamp, 128166372003061629ull);
  EXPECT_TRUE(r.is_write);
  EXPECT_EQ(r.offset_bytes, 7014912u);
  EXPECT_EQ(r.size_bytes, 4096u);
  ASSERT_TRUE(ParseMsrLine("128166372003061629,src1,2,Read,0,65536,1234", &r).ok());
  EXPECT_FALSE(r.is_write);
  EXPECT_EQ(FormatMsrLine(r), "128166372003061629,zonekv,0,Read,0,65536,0");
}

TEST(MsrTraceTest, MalformedFieldsAreNamed) {
  TraceRecord r;
  struct Case {
    const char* line;
    const char* expect;
  } cases[] = {
      {"1,hm,0,Write,0,4096", "7 comma-separated fields"},
      {"1,hm,0,Write,0,4096,1,extra", "found 8"},
      {"x,hm,0,Write,0,4096,1", "Timestamp"},
      {"1,,0,Write,0,4096,1", "Hostname"},
      {"1,hm,-1,Write,0,4096,1", "DiskNumber"},
      {"1,hm,0,Trim,0,4096,1", "Type 'Trim'"},
      {"1,hm,0,Write,0x10,4096,1", "Offset"},
      {"1,hm,0,Write,0,0,1", "Size '0' is zero"},
      {"1,hm,0,Write,0,4096,", "ResponseTime"},
  };
  for (const auto& c : cases) {
    Status s = ParseMsrLine(c.line, &r);
    EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << c.line;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << c.line << " -> " << s.message();
  }
}

struct Fixture {
  std::unique_ptr<ZonedDevice> device;
  std::unique_ptr<Ftl> ftl;
};

Fixture SmallFtl() {
  Fixture f;
  EXPECT_TRUE(OpenDevice("ram:zones=64,zone_size=256K", &f.device).ok());
  EXPECT_TRUE(Ftl::Open(f.device.get(), FtlOptions{.op_ratio = 0.2, .policy = "ccb"}, &f.ftl).ok());
  return f;
}

TEST(MsrTraceTest, ReplayRejectsMalformedLineWithItsNumberBeforeReplaying) {
  std::string path = TempPath("bad.csv");
  WriteFile(path,
            "128166372003061629,hm,0,Write,0,4096,26\n"
            "\n"
            "128166372003061630,hm,0,Wrote,4096,4096,26\n");
  Fixture f = SmallFtl();
  RunResult r;
  uint64_t wrapped = 0;
  ReplayOptions o;
  o.trace_path = path;
  o.prefill = false;
  Status s = ReplayMsrTrace(f.ftl.get(), o, &r, &wrapped);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find(path + ":3: Type 'Wrote'"), std::string::npos) << s.message();
  EXPECT_EQ(f.ftl->stats().user_writes, 0u) << "nothing may be replayed from a bad trace";
  std::remove(path.c_str());
}

TEST(MsrTraceTest, MissingTraceIsNotFound) {
  Fixture f = SmallFtl();
  RunResult r;
  uint64_t wrapped = 0;
  ReplayOptions o;
  o.trace_path = TempPath("does-not-exist.csv");
  EXPECT_TRUE(ReplayMsrTrace(f.ftl.get(), o, &r, &wrapped).Is(Status::Code::kNotFound));
}

TEST(MsrTraceTest, ReplaySplitsRequestsIntoBlocksAndWrapsLargeOffsets) {
  Fixture f = SmallFtl();
  const uint64_t disk = f.ftl->logical_blocks() * kFtlBlockBytes;
  std::string path = TempPath("small.csv");
  // 3 blocks (unaligned 8 KiB), 1 block, a read of 2 blocks, and 1 block
  // past the end that wraps to block 0.
  WriteFile(path, "1,hm,0,Write,2048,8192,1\r\n"
                  "2,hm,0,Write,40960,4096,1\n"
                  "3,hm,0,Read,0,8192,1\n"
                  "4,hm,0,Write," + std::to_string(disk) + ",4096,1\n");
  RunResult r;
  uint64_t wrapped = 0;
  ReplayOptions o;
  o.trace_path = path;
  o.prefill = false;
  o.repeat = 2;
  ASSERT_TRUE(ReplayMsrTrace(f.ftl.get(), o, &r, &wrapped).ok());
  EXPECT_EQ(r.total.user_writes, 2u * 5);
  EXPECT_EQ(r.total.user_reads, 2u * 2);
  EXPECT_EQ(r.ops, 2u * 4);
  EXPECT_EQ(wrapped, 2u);
  std::remove(path.c_str());
}

TEST(MsrTraceTest, GeneratedTraceParsesAndIsDeterministic) {
  SynthOptions w;
  w.workload = "ycsb-a";
  w.seed = 9;
  std::string a = TempPath("gen_a.csv"), b = TempPath("gen_b.csv");
  ASSERT_TRUE(GenerateMsrTrace(a, w, 500, 8 << 20).ok());
  ASSERT_TRUE(GenerateMsrTrace(b, w, 500, 8 << 20).ok());
  EXPECT_EQ(ReadFile(a), ReadFile(b));
  std::istringstream in(ReadFile(a));
  std::string line;
  int lines = 0, reads = 0;
  while (std::getline(in, line)) {
    TraceRecord r;
    ASSERT_TRUE(ParseMsrLine(line, &r).ok()) << line;
    EXPECT_LE(r.offset_bytes + r.size_bytes, 8u << 20);
    reads += r.is_write ? 0 : 1;
    lines++;
  }
  EXPECT_EQ(lines, 500);
  EXPECT_GT(reads, 0);
  std::remove(a.c_str());
  std::remove(b.c_str());
}

TEST(MsrTraceTest, ShippedFixturesReplayWithGc) {
  for (const char* name : {"hotcold-2k.csv", "ycsb-a-2k.csv"}) {
    Fixture f = SmallFtl();
    RunResult r;
    uint64_t wrapped = 0;
    ReplayOptions o;
    o.trace_path = std::string(ZONEKV_FTL_TEST_DATA) + "/" + name;
    o.repeat = 3;
    Status s = ReplayMsrTrace(f.ftl.get(), o, &r, &wrapped);
    ASSERT_TRUE(s.ok()) << name << ": " << s.ToString();
    EXPECT_EQ(wrapped, 0u) << name;
    EXPECT_GT(r.total.gc_writes, 0u) << name;
    EXPECT_TRUE(f.ftl->CheckConsistency().ok()) << name;
  }
}

}  // namespace
}  // namespace zonekv
