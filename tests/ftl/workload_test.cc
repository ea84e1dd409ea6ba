// Synthetic block workloads: determinism and the skew each one promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "block_workload.h"

namespace zonekv {
namespace {

std::vector<uint64_t> Histogram(const std::string& workload, uint64_t blocks, int n, uint64_t seed = 1) {
  SynthOptions o;
  o.workload = workload;
  o.seed = seed;
  std::vector<std::unique_ptr<BlockWorkload>> w;
  EXPECT_TRUE(BlockWorkload::NewStreams(o, blocks, 1, &w).ok());
  std::vector<uint64_t> h(blocks, 0);
  for (int i = 0; i < n; i++) {
    BlockOp op = w[0]->Next();
    EXPECT_LT(op.lba, blocks);
    if (op.is_write) h[op.lba]++;
  }
  return h;
}

TEST(BlockWorkloadTest, SameSeedSameStreamDifferentSeedDifferentStream) {
  EXPECT_EQ(Histogram("zipfian", 1000, 5000, 1), Histogram("zipfian", 1000, 5000, 1));
  EXPECT_NE(Histogram("uniform", 1000, 5000, 1), Histogram("uniform", 1000, 5000, 2));
}

TEST(BlockWorkloadTest, HotColdSendsHotAccessShareToHotFraction) {
  auto h = Histogram("hotcold", 1000, 100000);
  uint64_t hot = 0, all = 0;
  for (uint64_t i = 0; i < h.size(); i++) {
    all += h[i];
    if (i < 200) hot += h[i];
  }
  // 80% expected; binomial sd ~ 0.13% of n.
  EXPECT_NEAR(static_cast<double>(hot) / all, 0.8, 0.01);
}

TEST(BlockWorkloadTest, ZipfianTopBlockMatchesTheDistribution) {
  const uint64_t n = 1000;
  auto h = Histogram("zipfian", n, 200000);
  std::sort(h.begin(), h.end(), std::greater<uint64_t>());
  // P(rank 0) = 1 / zeta(n, 0.99); hashing may merge ranks, never split them.
  double p0 = 1.0 / ZipfianRanks::Zeta(n, 0.99);
  EXPECT_GE(static_cast<double>(h[0]) / 200000, p0 * 0.95);
}

TEST(BlockWorkloadTest, ZetaTailApproximationIsClose) {
  // Beyond 2^20 terms Zeta switches to Euler-Maclaurin; compare with the
  // exact sum just past the switch.
  uint64_t n = (1ull << 20) + 5000;
  double exact = 0;
  for (uint64_t i = n; i >= 1; i--) exact += std::pow(static_cast<double>(i), -0.99);
  EXPECT_NEAR(ZipfianRanks::Zeta(n, 0.99), exact, exact * 1e-9);
}

TEST(BlockWorkloadTest, YcsbAMixesReadsAndWrites) {
  SynthOptions o;
  o.workload = "ycsb-a";
  std::vector<std::unique_ptr<BlockWorkload>> w;
  ASSERT_TRUE(BlockWorkload::NewStreams(o, 100, 1, &w).ok());
  int reads = 0;
  for (int i = 0; i < 10000; i++) reads += w[0]->Next().is_write ? 0 : 1;
  EXPECT_NEAR(reads / 10000.0, 0.5, 0.03);
}

TEST(BlockWorkloadTest, BadOptionsNameTheFlag) {
  SynthOptions o;
  o.workload = "sequential";
  std::vector<std::unique_ptr<BlockWorkload>> w;
  Status s = BlockWorkload::NewStreams(o, 100, 1, &w);
  EXPECT_NE(s.message().find("--workload"), std::string::npos) << s.message();
  o.workload = "uniform";
  o.threads = 65;
  EXPECT_NE(ValidateSynthOptions(o).message().find("--threads"), std::string::npos);
}

}  // namespace
}  // namespace zonekv
