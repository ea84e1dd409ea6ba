// Each policy's victim against a brute-force argmax of its score, on random
// states built through the same hook sequence the FTL uses.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "block_workload.h"
#include "victim_policy.h"
#include "zone_table.h"
#include "zonekv/ftl.h"

namespace zonekv {
namespace {

constexpr uint32_t kZones = 96;
constexpr uint32_t kBlocks = 16;

// Drives a ZoneTable and a policy like the FTL does, without data.
class PolicyHarness {
 public:
  PolicyHarness(const std::string& policy, uint64_t seed) : zones_(kZones, kBlocks), rng_(seed) {
    EXPECT_TRUE(NewVictimPolicy(policy, &zones_, &policy_).ok());
  }

  // Fills free zone z with kBlocks writes, some of them already invalid
  // while the zone is open, and hands it to the policy.
  void Fill(uint32_t z) {
    zones_.SetState(z, FtlZoneState::kOpen);
    for (uint32_t i = 0; i < kBlocks; i++) {
      zones_.Tick();
      zones_.AddValid(z);
      if (rng_.Uniform(4) == 0) zones_.RemoveValid(z);
    }
    zones_.SetState(z, FtlZoneState::kFull);
    policy_->OnZoneFull(z);
  }

  // Invalidates one block of a random full zone, if it has a valid one.
  void InvalidateRandom() {
    zones_.Tick();
    uint32_t z = static_cast<uint32_t>(rng_.Uniform(kZones));
    if (zones_.state(z) != FtlZoneState::kFull || zones_.valid(z) == 0) return;
    uint32_t old_valid = zones_.valid(z);
    zones_.RemoveValid(z);
    policy_->OnInvalidate(z, old_valid);
  }

  // The best score among candidates, or -1 if none.
  double BruteForceBest() const {
    double best = -1;
    for (uint32_t z = 0; z < kZones; z++) {
      if (zones_.state(z) == FtlZoneState::kFull && zones_.invalid(z) > 0) {
        best = std::max(best, policy_->Score(z));
      }
    }
    return best;
  }

  // Asks for a victim, checks it is a candidate, retires and resets it.
  uint32_t SelectAndReset() {
    uint32_t v = policy_->SelectVictim();
    if (v == kNoZone) return v;
    EXPECT_EQ(zones_.state(v), FtlZoneState::kFull) << "zone " << v;
    EXPECT_GT(zones_.invalid(v), 0u) << "zone " << v;
    zones_.SetState(v, FtlZoneState::kVictim);
    zones_.Reset(v);
    policy_->OnReset(v);
    return v;
  }

  ZoneTable& zones() { return zones_; }
  VictimPolicy& policy() { return *policy_; }
  BlockRandom& rng() { return rng_; }

 private:
  ZoneTable zones_;
  std::unique_ptr<VictimPolicy> policy_;
  BlockRandom rng_;
};

// Scores are exact in double (integers, or ratios of small integers).
void ExpectBest(PolicyHarness* h, const char* when) {
  double best = h->BruteForceBest();
  ASSERT_GE(best, 0) << when;
  // Peek: Score the victim before it is reset.
  uint32_t v = h->policy().SelectVictim();
  ASSERT_NE(v, kNoZone) << when;
  EXPECT_EQ(h->policy().Score(v), best) << when << ": policy " << h->policy().name() << " chose zone " << v;
  h->zones().SetState(v, FtlZoneState::kVictim);
  h->zones().Reset(v);
  h->policy().OnReset(v);
}

void Churn(PolicyHarness* h, int invalidations) {
  for (int i = 0; i < invalidations; i++) h->InvalidateRandom();
}

void FillFree(PolicyHarness* h) {
  for (uint32_t z = 0; z < kZones; z++) {
    if (h->zones().state(z) == FtlZoneState::kFree && h->rng().Uniform(2) == 0) h->Fill(z);
  }
}

class ExactPolicyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExactPolicyTest, EveryVictimIsTheBruteForceArgmax) {
  for (uint64_t seed = 1; seed <= 5; seed++) {
    PolicyHarness h(GetParam(), seed);
    for (uint32_t z = 0; z < kZones; z++) h.Fill(z);
    for (int round = 0; round < 200; round++) {
      Churn(&h, static_cast<int>(h.rng().Uniform(40)));
      ExpectBest(&h, "steady round");
      if (round % 10 == 9) FillFree(&h);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Exact, ExactPolicyTest,
                         ::testing::Values("greedy", "cost-benefit", "fegc", "ccb"));

class ApproximatePolicyTest : public ::testing::TestWithParam<std::string> {};

// fast-cb and approx-cb rebuild their candidate set from every zone on the
// first selection, so that one is exact; later ones are approximations but
// must still be candidates, and must exist whenever a candidate does.
TEST_P(ApproximatePolicyTest, FirstVictimIsTheArgmaxAndLaterOnesAreCandidates) {
  for (uint64_t seed = 1; seed <= 5; seed++) {
    PolicyHarness h(GetParam(), seed);
    for (uint32_t z = 0; z < kZones; z++) h.Fill(z);
    Churn(&h, 500);
    ExpectBest(&h, "first selection");
    for (int round = 0; round < 300; round++) {
      Churn(&h, static_cast<int>(h.rng().Uniform(40)));
      bool candidate_exists = h.BruteForceBest() >= 0;
      uint32_t v = h.SelectAndReset();
      EXPECT_EQ(v != kNoZone, candidate_exists) << "round " << round;
      if (round % 10 == 9) FillFree(&h);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Approximate, ApproximatePolicyTest, ::testing::Values("fast-cb", "approx-cb"));

TEST(VictimPolicyTest, NoCandidateMeansNoVictim) {
  for (const auto& name : FtlVictimPolicies().Names()) {
    PolicyHarness h(name, 7);
    EXPECT_EQ(h.policy().SelectVictim(), kNoZone) << name;
    // A full zone without invalid blocks is not worth cleaning.
    h.zones().SetState(0, FtlZoneState::kOpen);
    for (uint32_t i = 0; i < kBlocks; i++) h.zones().AddValid(0);
    h.zones().SetState(0, FtlZoneState::kFull);
    h.policy().OnZoneFull(0);
    EXPECT_EQ(h.policy().SelectVictim(), kNoZone) << name;
  }
}

TEST(VictimPolicyTest, CcbPrefersOldZoneOverEquallyValidYoungOne) {
  ZoneTable zones(4, 8);
  std::unique_ptr<VictimPolicy> p;
  ASSERT_TRUE(NewVictimPolicy("ccb", &zones, &p).ok());
  for (uint32_t z = 0; z < 2; z++) {
    zones.SetState(z, FtlZoneState::kOpen);
    for (int i = 0; i < 8; i++) zones.AddValid(z);
    zones.SetState(z, FtlZoneState::kFull);
    p->OnZoneFull(z);
  }
  // Both end with 6 valid blocks; zone 0 was last modified at 7, zone 1 at 8.
  zones.SetNow(5);
  for (uint32_t z : {1u, 0u, 0u, 1u}) {
    uint32_t old = zones.valid(z);
    zones.RemoveValid(z);
    p->OnInvalidate(z, old);
    zones.Tick();
  }
  zones.SetNow(20);
  EXPECT_EQ(p->SelectVictim(), 0u);
}

TEST(VictimPolicyTest, UnknownNameIsRejectedWithTheChoices) {
  ZoneTable zones(4, 8);
  std::unique_ptr<VictimPolicy> p;
  Status s = NewVictimPolicy("lru", &zones, &p);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("ccb"), std::string::npos) << s.message();
}

TEST(VictimPolicyTest, CostBenefitOfEmptyZoneIsInfinite) {
  ZoneTable zones(1, 4);
  zones.SetState(0, FtlZoneState::kOpen);
  for (int i = 0; i < 4; i++) zones.AddValid(0);
  for (int i = 0; i < 4; i++) zones.RemoveValid(0);
  EXPECT_TRUE(std::isinf(CostBenefit(zones, 0)));
  zones.AddValid(0);  // 1 valid, 3 invalid
  zones.SetNow(zones.now() + 6);
  EXPECT_DOUBLE_EQ(CostBenefit(zones, 0), 6.0 * 3 / 2);
}

}  // namespace
}  // namespace zonekv
