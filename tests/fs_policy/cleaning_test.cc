#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "policies.h"
#include "view_builder.h"

namespace zonekv {

TEST(ZenFsCleaningTest, IdleAboveStartLevel) {
  ViewBuilder b;
  for (int i = 0; i < 4; i++) b.Zone(0, 0);
  b.Zone(kCap, 1);  // 99.99% garbage, but 80% of the device is free
  EXPECT_TRUE(NewZenFsCleaning(20, 3)->PickVictims(b.view()).empty());
}

TEST(ZenFsCleaningTest, ThresholdFollowsFreeSpace) {
  // 10 zones: 1 empty (10% free) -> threshold 100 - 3 * (20 - 10) = 70% garbage.
  ViewBuilder b;
  b.Zone(0, 0);
  b.Zone(kCap, kCap * 29 / 100);  // 71% garbage: victim
  b.Zone(kCap, kCap * 31 / 100);  // 69% garbage: not
  b.Zone(kCap, kCap / 10);        // 90% garbage: victim, first (least valid)
  b.Zone(kCap, 0);                // no valid data: left to runtime reset
  for (int i = 0; i < 5; i++) b.Zone(kCap, kCap);
  EXPECT_EQ(NewZenFsCleaning(20, 3)->PickVictims(b.view()), (std::vector<uint32_t>{3, 1}));
}

TEST(ZenFsCleaningTest, OnlyFullZones) {
  ViewBuilder b;
  b.Zone(kCap - 4096, 1);  // nearly all garbage, but not full
  for (int i = 0; i < 9; i++) b.Zone(kCap, kCap);
  EXPECT_TRUE(NewZenFsCleaning(20, 3)->PickVictims(b.view()).empty());
}

// Same-Victim cooperation: above the floor, zones whose valid data is all
// blob data are left to blob GC; zones with SST data are still cleaned; at
// or below the floor the wrapped policy sees every zone again.
TEST(BlobDeferringCleaningTest, LeavesAllBlobZonesToBlobGcAboveTheFloor) {
  const int blob = static_cast<int>(FileKind::kBlob), sst = static_cast<int>(FileKind::kSst);
  ViewBuilder b;
  b.Zone(0, 0);
  ZoneView& blobs = b.Zone(kCap, kCap / 10);  // 90% garbage, all blob: deferred
  blobs.valid_bytes_by_kind[blob] = kCap / 10;
  ZoneView& mixed = b.Zone(kCap, kCap / 5);  // 80% garbage, some SST data: cleaned
  mixed.valid_bytes_by_kind[blob] = kCap / 10;
  mixed.valid_bytes_by_kind[sst] = kCap / 10;
  for (int i = 0; i < 7; i++) b.Zone(kCap, kCap);
  // 10% free: zenfs alone takes both, most garbage first.
  EXPECT_EQ(NewZenFsCleaning(20, 3)->PickVictims(b.view()), (std::vector<uint32_t>{1, 2}));
  auto deferring = NewBlobDeferringCleaning(NewZenFsCleaning(20, 3), 5);
  EXPECT_STREQ(deferring->name(), "zenfs+defer-blob");
  EXPECT_EQ(deferring->PickVictims(b.view()), (std::vector<uint32_t>{2}));
  // Floor at 10%: at it, nothing is deferred.
  EXPECT_EQ(NewBlobDeferringCleaning(NewZenFsCleaning(20, 3), 10)->PickVictims(b.view()),
            (std::vector<uint32_t>{1, 2}));
  // And through the options, by name.
  FsPolicyOptions o;
  ASSERT_TRUE(o.Set("zc_defer_blob_pct", "5").ok());
  EXPECT_FALSE(o.Set("zc_defer_blob_pct", "150").ok());
  FsPolicies p;
  ASSERT_TRUE(MakeFsPolicies(o, &p).ok());
  EXPECT_EQ(p.zc->PickVictims(b.view()), (std::vector<uint32_t>{2}));
}

// Random views in which the device is nearly full, so every policy's
// trigger fires; the policy's victim must equal a brute-force argmax of
// its score over every eligible zone.
class RandomViews : public ::testing::Test {
 protected:
  FsView RandomView(std::mt19937_64& rng) {
    ViewBuilder b;
    std::uniform_int_distribution<uint64_t> blocks(0, 256);
    std::uniform_int_distribution<uint64_t> age(0, 1000000);
    int n = 8 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; i++) {
      uint64_t valid = blocks(rng) * 4096;
      if (valid > kCap) valid = kCap;
      ZoneView& z = b.Zone(kCap, valid);
      z.last_write_us = age(rng);
      z.busy = rng() % 10 == 0;
    }
    return b.view();
  }
};

TEST_F(RandomViews, GreedyPicksLeastValid) {
  std::mt19937_64 rng(7);
  auto p = NewGreedyCleaning(20);
  for (int t = 0; t < 500; t++) {
    FsView v = RandomView(rng);
    uint64_t best = std::numeric_limits<uint64_t>::max();
    for (const auto& z : v.zones) {
      if (CleanableZone(z)) best = std::min(best, z.valid_bytes);
    }
    auto victims = p->PickVictims(v);
    if (best == std::numeric_limits<uint64_t>::max()) {
      EXPECT_TRUE(victims.empty());
      continue;
    }
    ASSERT_EQ(victims.size(), 1u);
    EXPECT_EQ(v.zones[victims[0]].valid_bytes, best) << "trial " << t;
  }
}

TEST_F(RandomViews, CostBenefitPicksArgmaxScore) {
  std::mt19937_64 rng(11);
  auto p = NewCostBenefitCleaning(20);
  for (int t = 0; t < 500; t++) {
    FsView v = RandomView(rng);
    double best = -1;
    for (const auto& z : v.zones) {
      if (!CleanableZone(z)) continue;
      double u = double(z.valid_bytes) / double(z.capacity_bytes);
      best = std::max(best, double(v.now_us - z.last_write_us) * (1 - u) / (2 * u));
    }
    auto victims = p->PickVictims(v);
    if (best < 0) {
      EXPECT_TRUE(victims.empty());
      continue;
    }
    ASSERT_EQ(victims.size(), 1u);
    EXPECT_DOUBLE_EQ(CostBenefitScore(v.zones[victims[0]], v.now_us), best) << "trial " << t;
  }
}

TEST_F(RandomViews, CcbPicksBestHeadOfValidCountBuckets) {
  std::mt19937_64 rng(13);
  auto p = NewCcbCleaning(20);
  for (int t = 0; t < 500; t++) {
    FsView v = RandomView(rng);
    // Brute force: a zone is a head if no eligible zone in its bucket is older.
    double best = -1;
    for (const auto& z : v.zones) {
      if (!CleanableZone(z)) continue;
      bool head = true;
      for (const auto& o : v.zones) {
        if (!CleanableZone(o) || o.id == z.id) continue;
        bool same_bucket = o.valid_bytes * 64 / (kCap + 1) == z.valid_bytes * 64 / (kCap + 1);
        if (same_bucket && (o.last_write_us < z.last_write_us ||
                            (o.last_write_us == z.last_write_us && o.id < z.id))) {
          head = false;
        }
      }
      if (head) best = std::max(best, CostBenefitScore(z, v.now_us));
    }
    auto victims = p->PickVictims(v);
    if (best < 0) {
      EXPECT_TRUE(victims.empty());
      continue;
    }
    ASSERT_EQ(victims.size(), 1u);
    EXPECT_DOUBLE_EQ(CostBenefitScore(v.zones[victims[0]], v.now_us), best) << "trial " << t;
  }
}

TEST(CleaningTriggerTest, GreedyIdleWithPlentyOfFreeSpace) {
  ViewBuilder b;
  for (int i = 0; i < 5; i++) b.Zone(0, 0);
  b.Zone(kCap, 4096);
  EXPECT_TRUE(NewGreedyCleaning(20)->PickVictims(b.view()).empty());
  EXPECT_TRUE(NewNoCleaning()->PickVictims(b.view()).empty());
}

}  // namespace zonekv
