// Operation mixes of the YCSB and db_bench streams, and the latency histogram.
#include <cmath>

#include <gtest/gtest.h>

#include "zonekv/bench.h"
#include "zonekv/workload.h"

namespace zonekv {
namespace {

struct MixCase {
  const char* name;
  double read, update, insert, scan, rmw;
};

class YcsbMixTest : public ::testing::TestWithParam<MixCase> {};

TEST_P(YcsbMixTest, ProportionsMatchTheWorkload) {
  const MixCase& c = GetParam();
  YcsbSpec spec;
  ASSERT_TRUE(LookupYcsbSpec(c.name, &spec).ok());
  const uint64_t records = 10000, ops = 100000;
  AcknowledgedCounter counter(records);
  YcsbOperationGenerator gen(spec, records, ops, &counter, 1);
  uint64_t n[5] = {0, 0, 0, 0, 0};
  for (uint64_t i = 0; i < ops; i++) {
    Operation op = gen.Next();
    n[static_cast<int>(op.type)]++;
    if (op.type == OpType::kInsert) {
      EXPECT_GE(op.keynum, records);
      counter.Acknowledge(op.keynum);
    } else {
      ASSERT_LE(op.keynum, counter.Last());
    }
    if (op.type == OpType::kScan) {
      ASSERT_GE(op.scan_length, 1u);
      ASSERT_LE(op.scan_length, 100u);
    }
  }
  const double want[5] = {c.read, c.update, c.insert, c.scan, c.rmw};
  for (int t = 0; t < 5; t++) {
    EXPECT_NEAR(static_cast<double>(n[t]) / ops, want[t], 0.01) << OpTypeName(static_cast<OpType>(t));
  }
}

INSTANTIATE_TEST_SUITE_P(Workloads, YcsbMixTest,
                         ::testing::Values(MixCase{"ycsb-a", 0.5, 0.5, 0, 0, 0}, MixCase{"ycsb-b", 0.95, 0.05, 0, 0, 0},
                                           MixCase{"ycsb-c", 1, 0, 0, 0, 0}, MixCase{"ycsb-d", 0.95, 0, 0.05, 0, 0},
                                           MixCase{"ycsb-e", 0, 0, 0.05, 0.95, 0}, MixCase{"ycsb-f", 0.5, 0, 0, 0, 0.5},
                                           MixCase{"sv-wla", 0, 0.8, 0.2, 0, 0}, MixCase{"sv-wlb", 0.2, 0.8, 0, 0, 0},
                                           MixCase{"sv-wlc", 0.5, 0.5, 0, 0, 0}),
                         [](const auto& info) {
                           std::string s = info.param.name;
                           for (char& ch : s) {
                             if (ch == '-') ch = '_';
                           }
                           return s;
                         });

TEST(YcsbSpecTest, UnknownNameListsTheKnownOnes) {
  YcsbSpec spec;
  Status s = LookupYcsbSpec("ycsb-z", &spec);
  EXPECT_TRUE(s.Is(Status::Code::kNotFound));
  EXPECT_NE(s.message().find("sv-wla"), std::string::npos);
}

TEST(YcsbSeedTest, SameSeedSameStream) {
  YcsbSpec spec;
  ASSERT_TRUE(LookupYcsbSpec("ycsb-a", &spec).ok());
  AcknowledgedCounter c1(1000), c2(1000), c3(1000);
  YcsbOperationGenerator a(spec, 1000, 1000, &c1, 5), b(spec, 1000, 1000, &c2, 5), d(spec, 1000, 1000, &c3, 6);
  int differ = 0;
  for (int i = 0; i < 1000; i++) {
    Operation x = a.Next(), y = b.Next(), z = d.Next();
    EXPECT_EQ(x.keynum, y.keynum);
    EXPECT_EQ(x.type, y.type);
    differ += x.keynum != z.keynum;
  }
  EXPECT_GT(differ, 500);
}

TEST(DbBenchMixTest, ReadRandomWriteRandomBatchesOfHundred) {
  DbBenchOperationGenerator gen("readrandomwriterandom", 1000, 90, 1);
  for (uint64_t batch = 0; batch < 3; batch++) {
    for (uint64_t i = 0; i < 100; i++) {
      Operation op = gen.Next(batch * 100 + i);
      EXPECT_EQ(op.type, i < 90 ? OpType::kRead : OpType::kUpdate) << "op " << i;
      EXPECT_LT(op.keynum, 1000u);
    }
  }
}

TEST(DbBenchMixTest, FillSeqIsSequentialFillRandomIsUniform) {
  DbBenchOperationGenerator seq("fillseq", 100, 90, 1);
  for (uint64_t i = 0; i < 100; i++) EXPECT_EQ(seq.Next(i).keynum, i);
  DbBenchOperationGenerator rnd("fillrandom", 100, 90, 1);
  std::vector<int> hits(100, 0);
  for (uint64_t i = 0; i < 100000; i++) {
    Operation op = rnd.Next(i);
    EXPECT_EQ(op.type, OpType::kUpdate);
    hits[op.keynum]++;
  }
  for (int h : hits) EXPECT_NEAR(h, 1000, 200);
  EXPECT_TRUE(DbBenchNeedsData("readrandom"));
  EXPECT_FALSE(DbBenchNeedsData("fillrandom"));
  EXPECT_TRUE(IsDbBenchWorkload("overwrite"));
  EXPECT_FALSE(IsDbBenchWorkload("ycsb-a"));
}

TEST(HistogramTest, PercentilesOfAUniformRange) {
  Histogram h;
  for (uint64_t v = 1; v <= 100000; v++) h.Add(v);
  EXPECT_EQ(h.count(), 100000u);
  EXPECT_EQ(h.max(), 100000u);
  EXPECT_NEAR(h.mean(), 50000.5, 1e-6);
  EXPECT_NEAR(h.Percentile(50), 50000, 50000 * 0.03);
  EXPECT_NEAR(h.Percentile(99), 99000, 99000 * 0.03);
  EXPECT_LE(h.Percentile(100), 100001);
}

TEST(HistogramTest, MergeAndEmpty) {
  Histogram a, b;
  EXPECT_EQ(a.Percentile(50), 0);
  for (int i = 0; i < 100; i++) a.Add(10);
  for (int i = 0; i < 100; i++) b.Add(1000000);
  a.Merge(b);
  EXPECT_EQ(a.count(), 200u);
  EXPECT_NEAR(a.Percentile(25), 10, 1);
  EXPECT_NEAR(a.Percentile(75), 1000000, 1000000 * 0.03);
}

}  // namespace
}  // namespace zonekv
