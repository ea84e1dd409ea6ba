// zaca on a hand-built LSM view and zone layout.
#include <gtest/gtest.h>

#include "lsm_builder.h"
#include "picker_common.h"
#include "pickers.h"

namespace zonekv {
namespace {

// L1 (target 100) holds 130 bytes in three files; L2 below them.
//   group A: 10 [a,c] 60 bytes + 20 [a,c]        spread over zones 0, 1, 2
//   group B: 11 [d,f] 40 bytes + 21, 22 [d,f]    all in zone 5
//   group C: 12 [g,i] 30 bytes + 23 [g,i]        half zone 3, half zone 4
LsmBuilder Layered(ZoneLayout* layout) {
  LsmBuilder b;
  b.File(1, 10, 60, "a", "c").File(1, 11, 40, "d", "f").File(1, 12, 30, "g", "i");
  b.File(2, 20, 60, "a", "c").File(2, 21, 20, "d", "e").File(2, 22, 20, "f", "f").File(2, 23, 30, "g", "i");
  Place(layout, 10, 0, 30);
  Place(layout, 10, 1, 30);
  Place(layout, 20, 2, 60);
  Place(layout, 11, 5, 40);
  Place(layout, 21, 5, 20);
  Place(layout, 22, 5, 20);
  Place(layout, 12, 3, 30);
  Place(layout, 23, 4, 30);
  return b;
}

TEST(Zaca, PicksTheGroupWithTheHighestSameZoneScore) {
  ZoneLayout layout;
  LsmBuilder b = Layered(&layout);
  std::vector<CandidateGroup> groups = CandidateGroups(b.view(), 1);
  ASSERT_EQ(groups.size(), 3u);
  auto score = [&](size_t i) {
    std::vector<const SstFileView*> f;
    groups[i].AppendFiles(&f);
    return SameZoneScore(f, layout);
  };
  // A: (30^2 + 30^2 + 60^2) / 120^2 = 0.375; B: 1; C: 0.5.
  EXPECT_DOUBLE_EQ(score(0), 0.375);
  EXPECT_DOUBLE_EQ(score(1), 1.0);
  EXPECT_DOUBLE_EQ(score(2), 0.5);

  CompactionPick z;
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kSame)->Pick(b.view(), &layout, &z));
  EXPECT_EQ(z.input_level, 1);
  EXPECT_EQ(z.input_files, (std::vector<uint64_t>{11}));
  EXPECT_EQ(z.output_files, (std::vector<uint64_t>{21, 22}));
  EXPECT_STREQ(z.picked_by, "zaca");

  CompactionPick s;  // sica takes the largest file instead
  ASSERT_TRUE(NewSicaPicker(false)->Pick(b.view(), &layout, &s));
  EXPECT_EQ(s.input_files, (std::vector<uint64_t>{10}));
}

// zaca_score=same-per-write: S_same times the share of the job's bytes
// that are its input level's. Group X sits in one zone (S_same 1) but
// rewrites nine bytes of L2 for each byte it moves down (1 x 0.1); group Y
// is spread over two zones ((60^2 + 20^2) / 80^2 = 0.625) and rewrites one
// byte for three (0.625 x 0.75 = 0.47). The paper's zaca takes X.
TEST(Zaca, PerWriteWeighsSameZoneAgainstTheBytesAJobRewrites) {
  ZoneLayout layout;
  LsmBuilder b;
  b.File(1, 10, 10, "a", "c").File(1, 11, 60, "d", "f");
  b.File(2, 20, 90, "a", "c").File(2, 21, 20, "d", "f");
  Place(&layout, 10, 5, 10);
  Place(&layout, 20, 5, 90);
  Place(&layout, 11, 0, 60);
  Place(&layout, 21, 1, 20);
  b.view().max_bytes_for_level_base = 50;  // L1 (70 bytes) is over its target
  CompactionPick same, per_write;
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kSame)->Pick(b.view(), &layout, &same));
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kSamePerWrite)->Pick(b.view(), &layout, &per_write));
  EXPECT_EQ(same.input_files, (std::vector<uint64_t>{10}));
  EXPECT_EQ(per_write.input_files, (std::vector<uint64_t>{11}));
  CompactionPick acc;  // acc below its turning point scores the same way
  layout.free_ratio = 0.1;
  ASSERT_TRUE(NewAccPicker(false, ZacaScore::kSamePerWrite, 0.25, false)->Pick(b.view(), &layout, &acc));
  EXPECT_EQ(acc.input_files, (std::vector<uint64_t>{11}));
  EXPECT_STREQ(acc.picked_by, "zaca");
}

// zaca_score=kill-per-write: the share of each touched zone's valid data
// the job invalidates. Both groups sit in one zone and rewrite nothing
// below them (S_same 1, all writes move data down), so same-per-write ties
// and takes sica's largest; file 11 is all of its zone's valid data (its
// zone dies), file 10 is 6% of a zone holding 1000 bytes.
TEST(Zaca, KillPerWritePrefersTheGroupWhoseZonesDie) {
  ZoneLayout layout;
  LsmBuilder b;
  b.File(1, 10, 60, "a", "c").File(1, 11, 50, "d", "f");
  Place(&layout, 10, 5, 60);
  Place(&layout, 11, 0, 50);
  layout.zone_valid_bytes = {50, 0, 0, 0, 0, 1000};
  b.view().max_bytes_for_level_base = 50;
  CompactionPick per_write, kill;
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kSamePerWrite)->Pick(b.view(), &layout, &per_write));
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kKillPerWrite)->Pick(b.view(), &layout, &kill));
  EXPECT_EQ(per_write.input_files, (std::vector<uint64_t>{10}));
  EXPECT_EQ(kill.input_files, (std::vector<uint64_t>{11}));
}

TEST(Zaca, SkipsABetterGroupThatIsBusy) {
  ZoneLayout layout;
  LsmBuilder b = Layered(&layout);
  b.view().levels[2][1].being_compacted = true;  // file 21
  CompactionPick z;
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kSame)->Pick(b.view(), &layout, &z));
  EXPECT_EQ(z.input_files, (std::vector<uint64_t>{12}));
}

TEST(Zaca, EqualScoresFallBackToSicaOrder) {
  ZoneLayout layout;
  LsmBuilder b;
  b.File(1, 10, 50, "a", "c").File(1, 11, 70, "d", "f");
  Place(&layout, 10, 0, 50);
  Place(&layout, 11, 1, 70);
  CompactionPick z;
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kSame)->Pick(b.view(), &layout, &z));
  EXPECT_EQ(z.input_files, (std::vector<uint64_t>{11}));
}

TEST(Zaca, CompactsTheLevelSicaWould) {
  ZoneLayout layout;
  LsmBuilder b = Layered(&layout);
  b.File(3, 30, 10, "a", "z");
  b.File(2, 24, 3000, "x", "y");  // L2: 3130 / 1000 beats L1's 1.3
  CompactionPick z;
  ASSERT_TRUE(NewZacaPicker(false, ZacaScore::kSame)->Pick(b.view(), &layout, &z));
  EXPECT_EQ(z.input_level, 2);
}

}  // namespace
}  // namespace zonekv
