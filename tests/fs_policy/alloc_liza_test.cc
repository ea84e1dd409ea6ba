#include <gtest/gtest.h>

#include "policies.h"
#include "view_builder.h"

namespace zonekv {

namespace {

AllocDecision Alloc(ViewBuilder& b, Lifetime lt) {
  FileView f;
  f.hints.lifetime = lt;
  AllocRequest req;
  req.file = &f;
  return NewLizaAllocation()->Allocate(b.view(), req);
}

}  // namespace

TEST(LizaTest, LifetimeDiffFollowsZenFs) {
  EXPECT_EQ(LifetimeDiff(Lifetime::kNotSet, Lifetime::kNotSet), 0);
  EXPECT_EQ(LifetimeDiff(Lifetime::kShort, Lifetime::kNotSet), 100);
  EXPECT_EQ(LifetimeDiff(Lifetime::kLong, Lifetime::kShort), 2);
  EXPECT_EQ(LifetimeDiff(Lifetime::kMedium, Lifetime::kMedium), 50);
  EXPECT_EQ(LifetimeDiff(Lifetime::kShort, Lifetime::kLong), 100);
}

TEST(LizaTest, PrefersLongerLivedPartialZone) {
  ViewBuilder b;
  b.view().max_active_zones = 10;
  b.Zone(0, 0);
  b.Zone(kCap / 2, kCap / 2, Lifetime::kExtreme);
  b.Zone(kCap / 2, kCap / 2, Lifetime::kLong);
  AllocDecision d = Alloc(b, Lifetime::kMedium);
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 2u);  // diff 1 beats diff 2
}

TEST(LizaTest, OpensEmptyZoneWhenOnlySameLifetimeAndTokenFree) {
  ViewBuilder b;
  b.view().max_active_zones = 10;
  b.Zone(kCap / 2, kCap / 2, Lifetime::kMedium);
  b.Zone(0, 0);
  AllocDecision d = Alloc(b, Lifetime::kMedium);
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 1u);
}

TEST(LizaTest, ReusesSameLifetimeZoneWithoutToken) {
  ViewBuilder b;
  b.Zone(kCap / 2, kCap / 2, Lifetime::kMedium);
  b.Zone(0, 0);
  b.view().max_active_zones = 1;  // zone 0 holds the only active resource
  AllocDecision d = Alloc(b, Lifetime::kMedium);
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 0u);
}

TEST(LizaTest, FinishesCheapestZoneWithoutTokenOrMatch) {
  ViewBuilder b;
  b.Zone(kCap / 2, kCap / 2, Lifetime::kShort);
  b.Zone(kCap - 4096, 4096, Lifetime::kShort);  // least remaining
  b.Zone(0, 0);
  b.view().max_active_zones = 2;
  AllocDecision d = Alloc(b, Lifetime::kLong);
  EXPECT_EQ(d.action, AllocDecision::Action::kFinishZone);
  EXPECT_EQ(d.zone, 1u);
}

TEST(LizaTest, NoSpaceWhenEverythingIsFullOrBusy) {
  ViewBuilder b;
  b.Zone(kCap, kCap);
  b.Zone(kCap / 2, 10).busy = true;
  b.view().max_active_zones = 4;
  EXPECT_EQ(Alloc(b, Lifetime::kShort).action, AllocDecision::Action::kNoSpace);
}

TEST(LizaTest, ReusesAnyPartialZoneWhenNoEmptyZoneIsLeft) {
  ViewBuilder b;
  b.Zone(kCap, kCap);
  b.Zone(kCap / 2, 10, Lifetime::kShort);
  b.view().max_active_zones = 4;
  AllocDecision d = Alloc(b, Lifetime::kExtreme);
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 1u);
}

// Found by `zonekv crashtest` (baza+, max_active 4: two active zones for
// data): after a power loss two closed blob zones held both active
// resources; LIZA, which keeps other files out of blob zones, finished
// neither and the MANIFEST got NoSpace with 52 MiB free.
TEST(LizaTest, FinishesABlobZoneWhenBlobZonesHoldEveryActiveResource) {
  ViewBuilder b;
  b.Zone(kCap / 2, kCap / 2, Lifetime::kShort).ybiz = 3;
  b.Zone(kCap - 8192, kCap - 8192, Lifetime::kShort).ybiz = 5;  // least remaining
  b.Zone(0, 0);
  b.view().max_active_zones = 2;
  FileView f;
  f.hints.lifetime = Lifetime::kNotSet;  // a MANIFEST
  AllocRequest req;
  req.file = &f;
  AllocDecision d = NewLizaAllocation(/*avoid_blob_zones=*/true)->Allocate(b.view(), req);
  EXPECT_EQ(d.action, AllocDecision::Action::kFinishZone);
  EXPECT_EQ(d.zone, 1u);
}

}  // namespace zonekv
