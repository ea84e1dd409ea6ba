#include <gtest/gtest.h>

#include <cmath>

#include "policies.h"
#include "view_builder.h"

namespace zonekv {

TEST(FarThresholdTest, CurvesAtKnownPoints) {
  const double e = std::exp(1.0);
  for (FarFunc f : {FarFunc::kLinear, FarFunc::kLog, FarFunc::kExp}) {
    EXPECT_DOUBLE_EQ(FarThreshold(0.9, 0.7, f), 1.0);  // above T: end of zone
    EXPECT_DOUBLE_EQ(FarThreshold(0.7, 0.7, f), 1.0);
    EXPECT_NEAR(FarThreshold(0.0, 0.7, f), 0.0, 1e-12);
  }
  EXPECT_DOUBLE_EQ(FarThreshold(0.35, 0.7, FarFunc::kLinear), 0.5);
  EXPECT_NEAR(FarThreshold(0.35, 0.7, FarFunc::kLog), std::log(1 + (e - 1) * 0.5), 1e-12);
  EXPECT_NEAR(FarThreshold(0.35, 0.7, FarFunc::kExp), (std::exp(0.5) - 1) / (e - 1), 1e-12);
  // log lies above linear, exp below, between the ends.
  EXPECT_GT(FarThreshold(0.35, 0.7, FarFunc::kLog), 0.5);
  EXPECT_LT(FarThreshold(0.35, 0.7, FarFunc::kExp), 0.5);
}

// A view with `free_zones` empty zones out of 10, plus zone 0: no valid data,
// write pointer at 10% of capacity.
static FsView NearlyEmptyInvalidZone(int free_zones) {
  ViewBuilder b;
  b.Zone(kCap / 10, 0);
  for (int i = 0; i < free_zones; i++) b.Zone(0, 0);
  while (b.view().zones.size() < 10) b.Zone(kCap, kCap);
  return b.view();
}

TEST(ResetPolicyTest, EagerResetsNearlyEmptyInvalidZone) {
  EXPECT_EQ(NewEagerReset()->PickZonesToReset(NearlyEmptyInvalidZone(8)), std::vector<uint32_t>{0});
}

TEST(ResetPolicyTest, LazyAndFarWaitWhileSpaceIsPlentiful) {
  FsView v = NearlyEmptyInvalidZone(8);  // ~89% free
  EXPECT_TRUE(NewLazyReset(1.0)->PickZonesToReset(v).empty());
  EXPECT_TRUE(NewFarReset(0.7, FarFunc::kLinear)->PickZonesToReset(v).empty());
}

TEST(ResetPolicyTest, FarResetsWhenSpaceRunsOut) {
  FsView v = NearlyEmptyInvalidZone(0);  // 9% free: T_WP = 0.09/0.7 ~ 0.13 -> WP 0.1 not yet
  EXPECT_TRUE(NewFarReset(0.7, FarFunc::kLinear)->PickZonesToReset(v).empty());
  EXPECT_EQ(NewFarReset(0.7, FarFunc::kExp)->PickZonesToReset(v), std::vector<uint32_t>{0});  // T_WP ~ 0.07
  v.zones[0].written_bytes = kCap / 5;  // WP at 20% now passes linear's threshold
  EXPECT_EQ(NewFarReset(0.7, FarFunc::kLinear)->PickZonesToReset(v), std::vector<uint32_t>{0});
}

TEST(ResetPolicyTest, NeverResetsValidBusyOrEmptyZones) {
  ViewBuilder b;
  b.Zone(kCap, 4096);          // valid data
  b.Zone(kCap, 0).busy = true;  // held by the cleaner
  b.Zone(0, 0);                 // nothing written
  b.Zone(kCap, 0);              // the only candidate
  for (auto& p : {NewEagerReset(), NewLazyReset(1.0), NewFarReset(0.7, FarFunc::kLinear)}) {
    EXPECT_EQ(p->PickZonesToReset(b.view()), std::vector<uint32_t>{3}) << p->name();
  }
}

TEST(ResetPolicyTest, LazyThresholdIsInclusive) {
  ViewBuilder b;
  b.Zone(kCap / 2, 0);
  b.Zone(kCap / 2 - 4096, 0);
  EXPECT_EQ(NewLazyReset(0.5)->PickZonesToReset(b.view()), std::vector<uint32_t>{0});
}

}  // namespace zonekv
