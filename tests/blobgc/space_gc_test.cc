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
  // 4 free, a 30% trigger: the target is 35% of 16 = 5.6 MiB, 1.6 MiB
  // more. File 1 nets 2 - 1.5 = 0.5 MiB; files 1-2 net 4 - 1.5 - 0.25 =
  // 2.25 MiB.
  auto p = Zones(30);
  SpaceGcPick pick = p->Pick(Device(4, {kCap / 2, kCap + 3 * kCap / 4, 0}));
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
  // 3 empty zones, less two kept (the cleaner's and a margin): 1 MiB to
  // write into. File 1's live 1.5 MiB does not fit: nothing now, but the
  // plan keeps asking for its room.
  auto p = Zones(20);
  SpaceGcPick pick = p->Pick(Device(3, {kCap / 2, 0, 0}));
  EXPECT_EQ(pick.files, 0u);
  EXPECT_EQ(pick.plan_bytes, 3 * kCap / 2);
  EXPECT_NE(std::string(pick.reason).find("do not fit"), std::string::npos) << pick.reason;
}

TEST(ZonesSpaceGc, WithinTheBudgetTakesWhatFreesTheMost) {
  // 4 empty zones (2 MiB writable budget), a 30% trigger (1.6 MiB more
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
