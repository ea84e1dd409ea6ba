// Write amplification against theory.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "zonekv/ftl.h"
#include "zonekv/zoned_device.h"

namespace zonekv {
namespace {

// Principal branch of Lambert W for x in [-1/e, 0), by Newton's method.
double LambertW0(double x) {
  double w = -0.5;
  for (int i = 0; i < 100; i++) {
    double ew = std::exp(w);
    w -= (w * ew - x) / (ew * (w + 1));
  }
  return w;
}

// Uniform random writes with physical/logical space ratio alpha:
//  - FIFO (= LRU) cleaning: WAF = alpha / (alpha + W0(-alpha e^-alpha))
//    (Desnoyers, SYSTOR'12). Greedy never picks a fuller zone than the
//    oldest one would be on average, so this bounds greedy from above.
//  - Greedy with large zones: WAF ~ (1 + rho) / (2 rho), rho = alpha - 1
//    (spare factor), the mean-field model that greedy approaches from above
//    as zones grow; finite zones only add variance that greedy exploits less
//    than this model assumes at high spare factors.
double FifoWaf(double alpha) { return alpha / (alpha + LambertW0(-alpha * std::exp(-alpha))); }
double GreedyLargeZoneWaf(double alpha) { return alpha / (2 * (alpha - 1)); }

struct WafRun {
  double steady_waf;
  double alpha;
};

// Runs `capacities` times the logical space of writes on `zones` 1 MiB zones
// with 25% over-provisioning.
WafRun RunWorkload(const std::string& policy, const std::string& workload, uint32_t zones, uint32_t capacities) {
  constexpr uint32_t kLow = 2, kHigh = 3;
  std::unique_ptr<ZonedDevice> dev;
  EXPECT_TRUE(OpenDevice("meta:zones=" + std::to_string(zones) + ",zone_size=1M", &dev).ok());
  FtlOptions o;
  o.policy = policy;
  o.op_ratio = 0.25;
  o.gc_low_zones = kLow;
  o.gc_high_zones = kHigh;
  o.move_payload = false;
  std::unique_ptr<Ftl> ftl;
  EXPECT_TRUE(Ftl::Open(dev.get(), o, &ftl).ok());
  SynthOptions so;
  so.workload = workload;
  so.seed = 1;
  so.writes = capacities * ftl->logical_blocks();
  RunResult r;
  Status s = RunSynthetic(ftl.get(), so, &r);
  EXPECT_TRUE(s.ok()) << s.ToString();
  // Space that holds data on average: all zones but the free pool (between
  // the watermarks) and the unwritten half of the two frontiers.
  double usable_zones = zones - (kLow + kHigh) / 2.0 - 1.0;
  double logical_zones = static_cast<double>(ftl->logical_blocks()) / 256;
  return WafRun{r.steady.waf(), usable_zones / logical_zones};
}

TEST(WafTest, GreedyOnUniformRandomWritesLiesBetweenTheModels) {
  WafRun r = RunWorkload("greedy", "uniform", 256, 4);
  double low = GreedyLargeZoneWaf(r.alpha), high = FifoWaf(r.alpha);
  EXPECT_GT(r.steady_waf, low) << "alpha " << r.alpha;
  EXPECT_LT(r.steady_waf, high) << "alpha " << r.alpha;
}

TEST(WafTest, CostBenefitFamilyBeatsGreedyOnSkewedWrites) {
  for (const char* workload : {"hotcold", "zipfian"}) {
    double greedy = RunWorkload("greedy", workload, 128, 3).steady_waf;
    double ccb = RunWorkload("ccb", workload, 128, 3).steady_waf;
    EXPECT_LT(ccb, greedy) << workload;
  }
}

}  // namespace
}  // namespace zonekv
