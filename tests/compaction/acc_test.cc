// acc: sica above the turning point or for L0/L1 (the level constraint),
// zaca otherwise.
#include <gtest/gtest.h>

#include "lsm_builder.h"
#include "pickers.h"

namespace zonekv {
namespace {

// L2 (target 1000) over its target with two groups: 20 (larger, zones 0+1)
// and 21 (smaller, all in zone 7). Same shape one level up in L1.
LsmBuilder TwoGroups(int level, ZoneLayout* layout) {
  uint64_t scale = level == 1 ? 1 : 10;
  uint64_t base = static_cast<uint64_t>(level) * 100;
  LsmBuilder b;
  b.File(level, base, 70 * scale, "a", "c").File(level, base + 1, 50 * scale, "d", "f");
  b.File(level + 1, base + 10, 10, "a", "c").File(level + 1, base + 11, 10, "d", "f");
  Place(layout, base, 0, 35 * scale);
  Place(layout, base, 1, 35 * scale);
  Place(layout, base + 10, 2, 10);
  Place(layout, base + 1, 7, 50 * scale);
  Place(layout, base + 11, 7, 10);
  return b;
}

CompactionPick Pick(CompactionPicker* p, LsmBuilder& b, const ZoneLayout& layout) {
  CompactionPick pick;
  EXPECT_TRUE(p->Pick(b.view(), &layout, &pick));
  return pick;
}

TEST(Acc, SicaWhileFreeSpaceIsAboveTheTurningPoint) {
  ZoneLayout layout;
  LsmBuilder b = TwoGroups(2, &layout);
  layout.free_ratio = 0.30;
  CompactionPick p = Pick(NewAccPicker(false, ZacaScore::kSame, 0.25, true).get(), b, layout);
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{200}));
  EXPECT_STREQ(p.picked_by, "sica");
}

TEST(Acc, ZacaBelowTheTurningPointFromL2) {
  ZoneLayout layout;
  LsmBuilder b = TwoGroups(2, &layout);
  layout.free_ratio = 0.20;
  CompactionPick p = Pick(NewAccPicker(false, ZacaScore::kSame, 0.25, true).get(), b, layout);
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{201}));
  EXPECT_STREQ(p.picked_by, "zaca");
}

TEST(Acc, LevelConstraintKeepsL1OnSicaUnlessSwitchedOff) {
  ZoneLayout layout;
  LsmBuilder b = TwoGroups(1, &layout);
  layout.free_ratio = 0.10;
  CompactionPick with = Pick(NewAccPicker(false, ZacaScore::kSame, 0.25, true).get(), b, layout);
  EXPECT_EQ(with.input_files, (std::vector<uint64_t>{100}));
  EXPECT_STREQ(with.picked_by, "sica");
  CompactionPick without = Pick(NewAccPicker(false, ZacaScore::kSame, 0.25, false).get(), b, layout);
  EXPECT_EQ(without.input_files, (std::vector<uint64_t>{101}));
  EXPECT_STREQ(without.picked_by, "zaca");
}

TEST(Acc, TurningPointZeroNeverRunsZaca) {
  ZoneLayout layout;
  LsmBuilder b = TwoGroups(2, &layout);
  layout.free_ratio = 0.0;
  EXPECT_STREQ(Pick(NewAccPicker(false, ZacaScore::kSame, 0.0, false).get(), b, layout).picked_by, "sica");
  EXPECT_STREQ(Pick(NewAccPicker(false, ZacaScore::kSame, 0.5, false).get(), b, layout).picked_by, "zaca");
}

}  // namespace
}  // namespace zonekv
