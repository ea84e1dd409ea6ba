// BAZA and Z_Cutoff (Same-Victim GC).
#include <gtest/gtest.h>

#include "policies.h"
#include "view_builder.h"

namespace zonekv {

namespace {

ZoneView& BlobZone(ViewBuilder& b, uint64_t written, uint64_t ybiz) {
  ZoneView& z = b.Zone(written, written);
  z.valid_bytes_by_kind[static_cast<int>(FileKind::kBlob)] = written;
  z.ybiz = ybiz;
  return z;
}

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
  BlobZone(b, kCap / 2, 7);  // zone 0: B7 written, not full
  BlobZone(b, kCap / 4, 8);  // zone 1: B8 written by a concurrent writer
  b.Zone(0, 0);
  AllocDecision d = AllocBlob(b, 9);  // the paper's B9 goes back to zone 0
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 0u);
}

TEST(BazaTest, SecondWriterTakesAnotherZoneWhenTheFirstIsLocked) {
  ViewBuilder b;
  b.view().max_active_zones = 8;
  BlobZone(b, kCap / 2, 7).busy = true;  // thread 1 is writing B7 here
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
  BlobZone(b, kCap / 2, 7).lifetime = Lifetime::kExtreme;
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
  std::unique_ptr<AllocationPolicy> liza;
  ASSERT_TRUE(MakeAllocationPolicy("liza", o, &liza).ok());
  EXPECT_EQ(liza->Allocate(b.view(), req).zone, 1u);
}

TEST(BazaTest, LizaUsesBlobZonesAsLastResort) {
  ViewBuilder b;
  b.view().max_active_zones = 8;
  b.Zone(kCap, kCap);                       // full
  BlobZone(b, kCap / 2, 7);                 // the only space left
  FileView manifest;
  manifest.hints.kind = FileKind::kManifest;
  AllocRequest req;
  req.file = &manifest;
  AllocDecision d = NewLizaAllocation(true)->Allocate(b.view(), req);
  EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
  EXPECT_EQ(d.zone, 1u);
}

// The paper's worked example (Fig. 5): zones 0 and 1 are full with YBIZ 4
// and 9; zone 2 holds B8 but is not full. 20 live blob files B1..B20.
TEST(ZCutoffTest, PaperWorkedExamples) {
  ViewBuilder b;
  BlobZone(b, kCap, 4);
  BlobZone(b, kCap, 9);
  BlobZone(b, kCap / 2, 8);
  std::vector<uint64_t> live;
  for (uint64_t n = 1; n <= 20; n++) live.push_back(n);
  ZCutoff c;
  ASSERT_TRUE(ComputeZCutoff(live, b.view(), &c));
  EXPECT_EQ(c.eligible_files, 4u);
  EXPECT_DOUBLE_EQ(c.ratio(), 4.0 / 20);

  // BlobGC deleted B1..B4 and zone 0 was reset: 16 live files, min YBIZ 9.
  b.view().zones[0] = ZoneView{};
  b.view().zones[0].capacity_bytes = kCap;
  live.erase(live.begin(), live.begin() + 4);
  ASSERT_TRUE(ComputeZCutoff(live, b.view(), &c));
  EXPECT_EQ(c.eligible_files, 5u);
  EXPECT_DOUBLE_EQ(c.ratio(), 5.0 / 16);
}

TEST(ZCutoffTest, NoOpinionWithoutFullBlobZone) {
  ViewBuilder b;
  BlobZone(b, kCap / 2, 8);
  b.Zone(kCap, kCap);  // full, but SST data only
  ZCutoff c;
  EXPECT_FALSE(ComputeZCutoff({1, 2, 3}, b.view(), &c));
}

TEST(ZCutoffTest, OptionValueMakesRocksDbPickExactlyTheEligibleFiles) {
  for (size_t n = 1; n <= 200; n++) {
    for (size_t k = 0; k <= n; k++) {
      ZCutoff c;
      c.eligible_files = k;
      c.live_files = n;
      size_t rocksdb_index = static_cast<size_t>(c.option_value() * static_cast<double>(n));
      EXPECT_EQ(std::min(rocksdb_index, n), k) << k << "/" << n;
    }
  }
}

}  // namespace zonekv
