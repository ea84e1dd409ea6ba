// The space-pressure blob GC policies on hand-built views: which blob files
// the `zones` policy collects, when, and what room it plans for.
#include <gtest/gtest.h>

#include "view_builder.h"
#include "zonekv/blob_gc.h"

namespace zonekv {
namespace {

constexpr uint64_t kMiB = 1 << 20;

std::unique_ptr<SpaceGcPolicy> Zones(double free_pct) {
  const PolicyEntry<SpaceGcFactory>* e = nullptr;
  EXPECT_TRUE(SpaceGcPolicies().Lookup("space_gc", "zones", &e).ok());
  SpaceGcOptions o;
  o.policy = "zones";
  o.space_gc_free_pct = free_pct;
  return e->make(o);
}

// 16 zones of 1 MiB: blob files 1..3 fill zones 0-5 in creation order (two
// zones each), SST data fills zones 6..(15 - empty), the rest are empty.
// garbage[i] is blob file i+1's known garbage.
SpaceGcView Device(uint32_t empty, const std::vector<uint64_t>& garbage) {
  ViewBuilder b;
  SpaceGcView v;
  for (uint64_t f = 1; f <= 3; f++) {
    BlobFileSpaceView bf;
    bf.number = f;
    bf.total_blob_bytes = 2 * kCap;
    bf.garbage_blob_bytes = garbage[f - 1];
    for (int i = 0; i < 2; i++) {
      ZoneView& z = b.BlobZone(kCap, f);
      bf.bytes_per_zone[z.id] = kCap;
    }
    v.blob_files.push_back(bf);
  }
  while (b.view().zones.size() < 16 - empty) b.Zone(kCap, kCap);
  while (b.view().zones.size() < 16) b.Zone(0, 0);
  v.fs = b.view();
  return v;
}

TEST(ZonesSpaceGc, AboveTheTriggerPlansWithoutCollecting) {
  // 4 of 16 MiB free (25%) with a 15% trigger: no collection, but the plan
  // (the oldest file, whose garbage frees its two zones) sizes the room
  // the file system keeps.
  auto p = Zones(15);
  SpaceGcPick pick = p->Pick(Device(4, {kCap + kCap / 2, 0, 0}));
  EXPECT_FALSE(pick.collect);
  EXPECT_EQ(pick.files, 1u);
  EXPECT_EQ(pick.plan_bytes, kCap / 2);
}

TEST(ZonesSpaceGc, BelowTheTriggerCollectsTheShortestPrefixThatFreesEnough) {
  // 3 of 16 MiB free (18.75%) under a 20% trigger: the target is 25%, so
  // 1 MiB more is needed. File 1 (1.5 MiB garbage) frees two zones for a
  // 0.5 MiB copy: enough on its own.
  auto p = Zones(20);
  SpaceGcPick pick = p->Pick(Device(3, {kCap + kCap / 2, kCap, kCap}));
  EXPECT_TRUE(pick.collect);
  EXPECT_EQ(pick.files, 1u);
  EXPECT_EQ(pick.max_number, 1u);
  EXPECT_EQ(pick.relocate_bytes, kCap / 2);
  EXPECT_EQ(pick.zones_freed, 2u);
  EXPECT_EQ(pick.zones_freed_bytes, 2 * kCap);
  EXPECT_FALSE(pick.discover);
  EXPECT_STREQ(pick.reason, "frees enough zones");
}

TEST(ZonesSpaceGc, TakesMoreFilesWhenTheOldestAloneDoesNotFreeEnough) {
  // 5 free, a 35% trigger: the target is 40% of 16 = 6.4 MiB, 1.4 MiB
  // more. File 1 nets 2 - 1.5 = 0.5 MiB; files 1-2 net 4 - 1.5 - 0.25 =
  // 2.25 MiB, and their 1.75 MiB copy fits the budget (three quarters of
  // 5 zones less two).
  auto p = Zones(35);
  SpaceGcPick pick = p->Pick(Device(5, {kCap / 2, kCap + 3 * kCap / 4, 0}));
  EXPECT_TRUE(pick.collect);
  EXPECT_EQ(pick.files, 2u);
  EXPECT_EQ(pick.max_number, 2u);
  EXPECT_EQ(pick.relocate_bytes, 3 * kCap / 2 + kCap / 4);
  EXPECT_EQ(pick.zones_freed, 4u);
}

TEST(ZonesSpaceGc, AWaitingWriterCollectsAboveTheTrigger) {
  auto p = Zones(15);
  SpaceGcView v = Device(4, {kCap + kCap / 2, 0, 0});
  v.writer_waiting = true;
  SpaceGcPick pick = p->Pick(v);
  EXPECT_TRUE(pick.collect);
  EXPECT_EQ(pick.files, 1u);
}

TEST(ZonesSpaceGc, NothingThatDoesNotFitInTheWritableSpace) {
  // 3 empty zones, less two kept (the cleaner's, and one for SSTs): 1 MiB of
  // room, of which the collection may take three quarters. File 1's live
  // 1.5 MiB does not fit: nothing now, but the
  // plan keeps asking for its room.
  auto p = Zones(20);
  SpaceGcPick pick = p->Pick(Device(3, {kCap / 2, 0, 0}));
  EXPECT_EQ(pick.files, 0u);
  EXPECT_EQ(pick.plan_bytes, 3 * kCap / 2);
  EXPECT_NE(std::string(pick.reason).find("do not fit"), std::string::npos) << pick.reason;
}

TEST(ZonesSpaceGc, TheSstsACollectionRewritesLeaveItLessRoom) {
  // 5 empty zones. With SSTs of at most one zone the room is 3 MiB (a
  // 2.25 MiB budget) and file 1's live 1.5 MiB fits; with 2.5 MiB of SSTs
  // (three zones) it is 1 MiB, and nothing fits.
  auto p = Zones(20);
  SpaceGcView v = Device(5, {kCap / 2, 0, 0});
  v.sst_bytes = kCap;
  EXPECT_EQ(p->Pick(v).files, 1u);
  v.sst_bytes = 2 * kCap + kCap / 2;
  SpaceGcPick pick = p->Pick(v);
  EXPECT_EQ(pick.files, 0u);
  EXPECT_EQ(pick.plan_bytes, 3 * kCap / 2);  // still the plan the file system keeps room for
  EXPECT_NE(std::string(pick.reason).find("do not fit"), std::string::npos) << pick.reason;
}

TEST(ZonesSpaceGc, LeavesAQuarterOfItsRoomToTheWritersThatGoOn) {
  // 4 empty zones less two: 2 MiB of room. File 1's live 1.75 MiB would
  // fit in it, not in the three quarters a collection takes.
  auto p = Zones(20);
  EXPECT_EQ(p->Pick(Device(4, {kCap / 4, 0, 0})).files, 0u);
  EXPECT_EQ(p->Pick(Device(4, {kCap / 2, 0, 0})).files, 1u);  // 1.5 MiB does
}

TEST(ZonesSpaceGc, TheZonesTheFileSystemKeepsFromTheCollectionAreNotItsRoom) {
  // 4 empty zones. With the cleaner's zone kept (and one for SSTs) the room
  // is 2 MiB and file 1's live 1.5 MiB fits its three quarters; with the
  // recovery reserve's last zone kept too, the room is 1 MiB, and it does
  // not: a collection sized by the first would run out of room midway.
  auto p = Zones(20);
  SpaceGcView v = Device(4, {kCap / 2, 0, 0});
  ASSERT_EQ(v.fs.reclaimer_kept_zones, 1u);
  EXPECT_EQ(p->Pick(v).files, 1u);
  v.fs.reclaimer_kept_zones = 2;
  SpaceGcPick pick = p->Pick(v);
  EXPECT_EQ(pick.files, 0u);
  EXPECT_NE(std::string(pick.reason).find("do not fit"), std::string::npos) << pick.reason;
}

TEST(ZonesSpaceGc, TheTailsOfPartlyWrittenZonesAreNotItsRoom) {
  // 3 empty zones and two SST zones half written: 4 MiB unwritten. The file
  // system keeps only empty zones for the collection (flushes and the WAL
  // take the tails while it runs), so the room is 3 - 2 = 1 MiB, and file
  // 1's live 1.5 MiB does not fit its three quarters.
  auto p = Zones(20);
  SpaceGcView v = Device(3, {kCap / 2, 0, 0});
  for (uint32_t id : {6u, 7u}) {
    ZoneView& z = v.fs.zones[id];
    z.written_bytes = z.valid_bytes = kCap / 2;
    z.state = ZoneState::kClosed;
  }
  ASSERT_EQ(v.fs.free_bytes(), 4 * kCap);
  SpaceGcPick pick = p->Pick(v);
  EXPECT_EQ(pick.files, 0u);
  EXPECT_NE(std::string(pick.reason).find("do not fit"), std::string::npos) << pick.reason;
}

TEST(ZonesSpaceGc, WithinTheBudgetTakesWhatFreesTheMost) {
  // 4 empty zones (a 1.5 MiB budget: three quarters of 4 less 2), a 30% trigger (1.6 MiB more
  // needed, which no prefix nets). Files 1-2 net the most (1.5 MiB) but
  // copy 2.5 MiB; file 1 alone (net 1.25 MiB) fits.
  auto p = Zones(30);
  SpaceGcPick pick = p->Pick(Device(4, {kCap + kCap / 4, kCap / 4, 0}));
  EXPECT_TRUE(pick.collect);
  EXPECT_EQ(pick.files, 1u);
  EXPECT_EQ(pick.relocate_bytes, 3 * kCap / 4);
  EXPECT_GT(pick.plan_bytes, pick.relocate_bytes);  // the plan it keeps room for
  EXPECT_STREQ(pick.reason, "frees the most zones that fit");
}

TEST(ZonesSpaceGc, NoKnownGarbageCompactsTheOldestToDiscoverIt) {
  // RocksDB counts no garbage yet (stale records are dropped only when a
  // compaction meets them): the oldest file alone, as a discovery.
  auto p = Zones(20);
  ViewBuilder b;
  SpaceGcView v;
  BlobFileSpaceView bf;
  bf.number = 7;
  bf.total_blob_bytes = kCap / 2;
  ZoneView& z = b.BlobZone(kCap, 7);  // shared with another file: not freed
  bf.bytes_per_zone[z.id] = kCap / 2;
  v.blob_files.push_back(bf);
  while (b.view().zones.size() < 13) b.Zone(kCap, kCap);
  while (b.view().zones.size() < 16) b.Zone(0, 0);
  v.fs = b.view();
  SpaceGcPick pick = p->Pick(v);
  EXPECT_TRUE(pick.collect);
  EXPECT_EQ(pick.files, 1u);
  EXPECT_TRUE(pick.discover);
  EXPECT_EQ(pick.max_number, 7u);
}

TEST(ZonesSpaceGc, DecisionsAreDeterministic) {
  auto p = Zones(30);
  SpaceGcView v = Device(4, {kCap / 2, kCap + 3 * kCap / 4, kCap});
  SpaceGcPick a = p->Pick(v), b = p->Pick(v);
  EXPECT_EQ(a.files, b.files);
  EXPECT_EQ(a.relocate_bytes, b.relocate_bytes);
  EXPECT_EQ(a.plan_bytes, b.plan_bytes);
}

// PaceRate (back-pressure on flushes): trigger 15%, so pacing starts at
// 25% free and f = (free - 7.5) / 17.5.
PaceInput Pace(double free_pct, double reclaim_mib_s, double since_round_s = 0) {
  PaceInput in;
  in.free_pct = free_pct;
  in.trigger_pct = 15;
  in.capacity_bytes = 256 * kMiB;
  in.reclaim_bytes_per_sec = reclaim_mib_s * kMiB;
  in.since_round_s = since_round_s;
  in.blob_files = 10;
  return in;
}

// With no blob file the GC can free nothing: pacing would only slow the
// workload (seen with coop on a workload without BlobDB: 31 s of a 19 s
// run's writes waited).
TEST(PaceRate, NoLimitWithoutBlobFiles) {
  PaceInput in = Pace(5, 8);
  EXPECT_GT(PaceRate(in), 0u);
  in.blob_files = 0;
  EXPECT_EQ(PaceRate(in), 0u);
}

TEST(PaceRate, NoLimitFromTriggerPlusTen) {
  EXPECT_EQ(PaceRate(Pace(25, 0)), 0u);
  EXPECT_EQ(PaceRate(Pace(60, 8)), 0u);
  EXPECT_GT(PaceRate(Pace(24.9, 0)), 0u);
  EXPECT_GT(PaceRate(Pace(24.9, 8)), 0u);
}

TEST(PaceRate, WithoutAMeasuredRateAFractionOfTheCapacity) {
  // 0.1 x capacity x f: 25.6 MiB/s x f.
  EXPECT_NEAR(static_cast<double>(PaceRate(Pace(16.25, 0))), 0.5 * 25.6 * kMiB, 1.0);
  EXPECT_NEAR(static_cast<double>(PaceRate(Pace(5, 0))), 0.02 * 25.6 * kMiB, 1.0);  // f's floor
}

TEST(PaceRate, FollowsTheMeasuredReclaimRate) {
  // Just above the trigger (f = 1/2) new data may come as fast as the GC
  // gives space back; above it faster, below it slower.
  EXPECT_NEAR(static_cast<double>(PaceRate(Pace(16.25, 8))), 8.0 * kMiB, 1.0);
  EXPECT_GT(PaceRate(Pace(20, 8)), PaceRate(Pace(16.25, 8)));
  EXPECT_LT(PaceRate(Pace(12, 8)), PaceRate(Pace(16.25, 8)));
  // A GC that keeps up does not cap throughput at a fraction of the
  // capacity: 100 MiB/s reclaimed lets 100 MiB/s in at f = 1/2, where the
  // capacity rule allows 12.8.
  EXPECT_NEAR(static_cast<double>(PaceRate(Pace(16.25, 100))), 100.0 * kMiB, 1.0);
  EXPECT_GT(PaceRate(Pace(16.25, 100)), PaceRate(Pace(16.25, 0)));
  // A GC that reclaims little holds new data down to the floor: 0.002 x
  // capacity per second.
  EXPECT_NEAR(static_cast<double>(PaceRate(Pace(16.25, 0.1))), 0.002 * 256 * kMiB, 1.0);
}

TEST(PaceRate, AStaleRateAgesBelowTheTrigger) {
  // Below the trigger, with no collection completed for 4 s, the measured
  // rate counts half per second past two: a quarter.
  EXPECT_NEAR(static_cast<double>(PaceRate(Pace(12, 8, 4))), static_cast<double>(PaceRate(Pace(12, 2, 0))), 1.0);
  EXPECT_EQ(PaceRate(Pace(12, 8, 2)), PaceRate(Pace(12, 8, 0)));
  // Above the trigger no collection is due, and the rate does not age.
  EXPECT_EQ(PaceRate(Pace(20, 8, 4)), PaceRate(Pace(20, 8, 0)));
}

TEST(SpaceGcRegistry, OffMakesNoPolicyAndUnknownNamesAreRefused) {
  const PolicyEntry<SpaceGcFactory>* e = nullptr;
  ASSERT_TRUE(SpaceGcPolicies().Lookup("space_gc", "off", &e).ok());
  EXPECT_EQ(e->make(SpaceGcOptions()), nullptr);
  Status s = SpaceGcPolicies().Lookup("space_gc", "bogus", &e);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("zones"), std::string::npos) << s.ToString();  // names the choices
}

}  // namespace
}  // namespace zonekv
