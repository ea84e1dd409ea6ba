#include <gtest/gtest.h>

#include "policies.h"
#include "view_builder.h"

namespace zonekv {

namespace {

class CazaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    b_.view().max_active_zones = 16;
    for (int i = 0; i < 8; i++) b_.Zone(kCap / 2, kCap / 2);  // zones 0..7 partially written
    b_.Zone(0, 0);                                           // zone 8 empty
  }
  void Sst(uint64_t id, int level, std::string lo, std::string hi, uint64_t size, uint32_t zone) {
    FileView f;
    f.id = id;
    f.hints.kind = FileKind::kSst;
    f.hints.level = level;
    f.hints.smallest_key = lo;
    f.hints.largest_key = hi;
    f.size_bytes = size;
    f.bytes_per_zone[zone] = size;
    b_.view().files.push_back(f);
  }
  // The zone CAZA picks for a new SST; *reason gets the decision's reason.
  uint32_t Place(int level, std::string lo, std::string hi, std::string* reason = nullptr) {
    FileView f;
    f.id = 999;
    f.hints.kind = FileKind::kSst;
    f.hints.level = level;
    f.hints.smallest_key = lo;
    f.hints.largest_key = hi;
    AllocRequest req;
    req.file = &f;
    AllocDecision d = NewCazaAllocation(NewLizaAllocation())->Allocate(b_.view(), req);
    EXPECT_EQ(d.action, AllocDecision::Action::kUseZone);
    if (reason != nullptr) *reason = d.reason;
    return d.zone;
  }
  ViewBuilder b_;
};

}  // namespace

TEST_F(CazaTest, UpperLevelBusierGoesWithLargestOverlappingUpperFile) {
  b_.view().level_scores = {0.5, 1.5, 0.8};  // S[1] > S[2]: L1->L2 compactions dominate
  Sst(1, 1, "a", "f", 10, 1);
  Sst(2, 1, "g", "m", 30, 2);  // largest overlapping L1 file
  Sst(3, 1, "x", "z", 90, 3);  // larger, but no overlap
  Sst(4, 3, "a", "z", 5, 4);
  std::string reason;
  EXPECT_EQ(Place(2, "c", "k", &reason), 2u);
  EXPECT_EQ(reason, "caza.partner");
}

TEST_F(CazaTest, LowerLevelBusierGoesWithSmallestOverlappingLowerFile) {
  b_.view().level_scores = {0.5, 0.9, 1.2};  // S[1] <= S[2]: L2->L3 compactions dominate
  Sst(1, 1, "a", "z", 10, 1);
  Sst(2, 3, "a", "d", 40, 5);
  Sst(3, 3, "e", "h", 20, 6);  // smallest overlapping L3 file
  Sst(4, 3, "p", "q", 1, 7);   // smallest overall, no overlap
  EXPECT_EQ(Place(2, "c", "k"), 6u);
}

TEST_F(CazaTest, SkipsFullZonesAndTakesTheNextCandidate) {
  b_.view().level_scores = {0.5, 1.5, 0.8};
  Sst(1, 1, "a", "f", 10, 1);
  Sst(2, 1, "g", "m", 30, 2);
  b_.view().zones[2].written_bytes = kCap;
  b_.view().zones[2].state = ZoneState::kFull;
  EXPECT_EQ(Place(2, "c", "k"), 1u);
}

TEST_F(CazaTest, FallsBackToNearestKeyRangeInTheSameLevel) {
  b_.view().level_scores = {0.5, 1.5, 0.8};
  Sst(1, 2, "a", "b", 10, 3);
  Sst(2, 2, "m", "n", 10, 4);  // just after the new file's range
  Sst(3, 2, "y", "z", 10, 5);
  std::string reason;
  EXPECT_EQ(Place(2, "k", "l", &reason), 4u);
  EXPECT_EQ(reason, "caza.neighbour");
  // No SST of the level or its partner level: LIZA's zone, as CAZA's fallback.
  b_.view().files.clear();
  Place(2, "k", "l", &reason);
  EXPECT_EQ(reason, "caza.fallback");
}

TEST_F(CazaTest, NonSstFilesGoToLiza) {
  FileView wal;
  wal.hints.kind = FileKind::kWal;
  AllocRequest req;
  req.file = &wal;
  FsView& v = b_.view();
  AllocDecision caza = NewCazaAllocation(NewLizaAllocation())->Allocate(v, req);
  AllocDecision liza = NewLizaAllocation()->Allocate(v, req);
  EXPECT_EQ(caza.action, liza.action);
  EXPECT_EQ(caza.zone, liza.zone);
  EXPECT_STREQ(caza.reason, "caza.unhinted");
}

}  // namespace zonekv
