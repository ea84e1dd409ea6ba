// BAZA (Same-Victim GC); Z_Cutoff is tested in tests/blobgc.
#include <gtest/gtest.h>

#include "policies.h"
#include "view_builder.h"

namespace zonekv {

namespace {

AllocDecision AllocBlob(ViewBuilder& b, uint64_t number) {
  FileView f;
  f.hints.kind = FileKind::kBlob;
  f.hints.number = number;
  AllocRequest req;
  req.file = &f;
  return NewBazaAllocation()->Allocate(b.view(), req);
}

}  // namespace

TEST(BazaTest, FillsEarliestBlobZoneFirst) {
  ViewBuilder b;
  b.view().max_active_zones = 8;
  b.BlobZone(kCap / 2, 7);  // zone 0: B7 written, not full
  b.BlobZone(kCap / 4, 8);  // zone 1: B8 written by a concurrent writer
  b.Zone(0, 0);
  AllocDecision d = AllocBlob(b, 9);  // the paper's B9 goes back to zone 0
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 0u);
}

TEST(BazaTest, SecondWriterTakesAnotherZoneWhenTheFirstIsLocked) {
  ViewBuilder b;
  b.view().max_active_zones = 8;
  b.BlobZone(kCap / 2, 7).busy = true;  // thread 1 is writing B7 here
  b.Zone(0, 0);
  AllocDecision d = AllocBlob(b, 8);
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 1u);
}

TEST(BazaTest, NeverMixesBlobsIntoSstZonesWhileAnEmptyZoneIsLeft) {
  ViewBuilder b;
  b.view().max_active_zones = 8;
  b.Zone(kCap / 2, kCap / 2);  // SST data
  b.Zone(0, 0);
  EXPECT_EQ(AllocBlob(b, 3).zone, 1u);
}

TEST(BazaTest, LizaKeepsSstsOutOfBlobZonesOnlyWhenBazaIsUsed) {
  ViewBuilder b;
  b.view().max_active_zones = 8;
  b.BlobZone(kCap / 2, 7).lifetime = Lifetime::kExtreme;
  b.Zone(0, 0);
  FileView sst;
  sst.hints.kind = FileKind::kSst;
  sst.hints.lifetime = Lifetime::kMedium;
  AllocRequest req;
  req.file = &sst;
  EXPECT_EQ(NewLizaAllocation(false)->Allocate(b.view(), req).zone, 0u);  // longer-lived zone wins
  EXPECT_EQ(NewLizaAllocation(true)->Allocate(b.view(), req).zone, 1u);

  FsPolicyOptions o;
  ASSERT_TRUE(o.Set("blob_alloc", "baza").ok());
  FsPolicies p;
  ASSERT_TRUE(MakeFsPolicies(o, &p).ok());
  EXPECT_STREQ(p.alloc->name(), "liza");
  EXPECT_EQ(p.alloc->Allocate(b.view(), req).zone, 1u);
}

TEST(BazaTest, LizaUsesBlobZonesAsLastResort) {
  ViewBuilder b;
  b.view().max_active_zones = 8;
  b.Zone(kCap, kCap);                       // full
  b.BlobZone(kCap / 2, 7);                 // the only space left
  FileView manifest;
  manifest.hints.kind = FileKind::kManifest;
  AllocRequest req;
  req.file = &manifest;
  AllocDecision d = NewLizaAllocation(true)->Allocate(b.view(), req);
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 1u);
}

}  // namespace zonekv
