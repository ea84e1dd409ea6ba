// sica and the shared leveled machinery on hand-built LSM views.
// Targets in LsmBuilder: L0 trigger 4 files, L1 100 bytes, L2 1000, L3 10000.
#include <gtest/gtest.h>

#include "lsm_builder.h"
#include "picker_common.h"
#include "pickers.h"

namespace zonekv {
namespace {

CompactionPick MustPick(CompactionPicker* p, const LsmView& v, const ZoneLayout* layout = nullptr) {
  CompactionPick pick;
  EXPECT_TRUE(p->Pick(v, layout, &pick));
  return pick;
}

TEST(LevelScores, L0ByFilesAndBytesLnByTarget) {
  LsmBuilder b;
  b.File(0, 1, 10, "a", "b").File(0, 2, 10, "a", "b").File(0, 3, 10, "a", "b", /*being_compacted=*/true);
  b.File(1, 4, 150, "a", "z");
  b.File(2, 5, 500, "a", "z");
  std::vector<double> s = LevelScores(b.view());
  EXPECT_DOUBLE_EQ(s[0], 2.0 / 4);  // files not being compacted / trigger
  EXPECT_DOUBLE_EQ(s[1], 1.5);
  EXPECT_DOUBLE_EQ(s[2], 0.5);
  EXPECT_DOUBLE_EQ(s[3], 0.0);      // the last level is never an input
  b.File(0, 6, 300, "c", "d");      // L0 bytes over max_bytes_for_level_base
  EXPECT_DOUBLE_EQ(LevelScores(b.view())[0], 320.0 / 100);
  EXPECT_EQ(LevelsToCompact(LevelScores(b.view())), (std::vector<int>{0, 1}));
}

// RocksDB's estimate, worked by hand: L0 triggers (4 files, 40 bytes), so
// L0 and L1 (150) count; L1 then holds 190 against 100, and its 90 excess
// goes down at the fan-out 1 + 500 / 190; L2 then holds 590, under 1000.
TEST(PendingCompactionBytes, RocksDbsEstimate) {
  LsmBuilder b;
  for (uint64_t n = 1; n <= 4; ++n) b.File(0, n, 10, "a", "b");
  b.File(1, 5, 150, "a", "z");
  b.File(2, 6, 500, "a", "z");
  EXPECT_EQ(PendingCompactionBytes(b.view()), static_cast<uint64_t>(40 + 150 + 90 * (500.0 / 190 + 1)));
  LsmBuilder quiet;  // nothing over target: nothing pending
  quiet.File(0, 1, 10, "a", "b").File(1, 2, 50, "a", "z").File(2, 3, 500, "a", "z");
  EXPECT_EQ(PendingCompactionBytes(quiet.view()), 0u);
}

TEST(CompactionBehind, L0FilesOrPendingBytesAsRocksDbsWriteController) {
  LsmBuilder b;  // trigger 4, slowdown 20: speed-up at min(8, 4 + 16 / 4) = 8 L0 files
  b.view().level0_slowdown_writes_trigger = 20;
  b.view().soft_pending_compaction_bytes_limit = 1 << 20;
  for (uint64_t n = 1; n <= 7; ++n) b.File(0, n, 10, "a", "b", /*being_compacted=*/n > 4);
  EXPECT_FALSE(CompactionBehind(b.view()));
  b.File(0, 8, 10, "a", "b", true);  // files being compacted count too
  EXPECT_TRUE(CompactionBehind(b.view()));

  LsmBuilder c;
  c.view().level0_slowdown_writes_trigger = 6;  // speed-up at min(8, 4 + 2 / 4) = 4
  for (uint64_t n = 1; n <= 4; ++n) c.File(0, n, 10, "a", "b");
  EXPECT_TRUE(CompactionBehind(c.view()));

  LsmBuilder d;  // few L0 files, but a quarter of the soft limit pending
  d.view().level0_slowdown_writes_trigger = 20;
  d.File(1, 1, 5000, "a", "z").File(2, 2, 500, "a", "z");
  d.view().soft_pending_compaction_bytes_limit = 4 * PendingCompactionBytes(d.view());
  EXPECT_TRUE(CompactionBehind(d.view()));
  d.view().soft_pending_compaction_bytes_limit += 8;
  EXPECT_FALSE(CompactionBehind(d.view()));
  d.view().soft_pending_compaction_bytes_limit = 0;  // RocksDB: no soft limit, always speed up
  EXPECT_TRUE(CompactionBehind(d.view()));
}

TEST(Sica, NothingToDoBelowTargets) {
  LsmBuilder b;
  b.File(0, 1, 10, "a", "b").File(1, 2, 90, "a", "z").File(2, 3, 900, "a", "z");
  CompactionPick pick;
  EXPECT_FALSE(NewSicaPicker(false)->Pick(b.view(), nullptr, &pick));
}

TEST(Sica, LargestFileFirstWithItsOverlappingNextLevelFiles) {
  LsmBuilder b;
  b.File(1, 10, 40, "a", "c").File(1, 11, 60, "d", "f").File(1, 12, 30, "g", "i");
  b.File(2, 20, 50, "a", "b").File(2, 21, 50, "c", "e").File(2, 22, 50, "e", "e").File(2, 23, 50, "f", "h");
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_level, 1);
  EXPECT_EQ(p.output_level, 2);
  EXPECT_STREQ(p.picked_by, "sica");
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{11}));
  // [d, f] overlaps 21 [c,e], 22 [e,e] and 23 [f,h].
  EXPECT_EQ(p.output_files, (std::vector<uint64_t>{21, 22, 23}));
  EXPECT_EQ(p.smallest_key, "c");
  EXPECT_EQ(p.largest_key, "h");
  EXPECT_EQ(p.input_bytes, 60u + 150u);
  EXPECT_DOUBLE_EQ(p.score, 1.3);
  EXPECT_FALSE(p.trivial_move);
}

TEST(Sica, EqualSizesGoToTheFewestOverlappingBytes) {
  LsmBuilder b;
  b.File(1, 10, 60, "a", "c").File(1, 11, 60, "d", "f");
  b.File(2, 20, 500, "a", "b").File(2, 21, 10, "d", "e");
  EXPECT_EQ(MustPick(NewSicaPicker(false).get(), b.view()).input_files, (std::vector<uint64_t>{11}));
}

TEST(Sica, MinOverlappingRatioOrder) {
  LsmBuilder b;
  // 10: 200/80 = 2.5; 11: 90/30 = 3; 12: 300/100 = 3. Largest-first takes 12.
  b.File(1, 10, 80, "a", "c").File(1, 11, 30, "d", "f").File(1, 12, 100, "g", "i");
  b.File(2, 20, 200, "a", "c").File(2, 21, 90, "d", "f").File(2, 22, 300, "g", "i");
  EXPECT_EQ(MustPick(NewSicaPicker(true).get(), b.view()).input_files, (std::vector<uint64_t>{10}));
  EXPECT_EQ(MustPick(NewSicaPicker(false).get(), b.view()).input_files, (std::vector<uint64_t>{12}));
}

TEST(Sica, HighestScoringLevelFirst) {
  LsmBuilder b;
  b.File(1, 10, 150, "a", "c");                          // 1.5
  b.File(2, 20, 2500, "a", "c").File(3, 30, 10, "a", "z");  // 2.5
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_level, 2);
  EXPECT_EQ(p.output_files, (std::vector<uint64_t>{30}));
}

TEST(Sica, L0TakesOlderFilesAndOverlappingNewerOnes) {
  LsmBuilder b;
  // Newest first: 3 [x,z], 2 [a,c] (largest), 1 [b,f], 0 [e,g] (oldest).
  b.File(0, 3, 10, "x", "z").File(0, 2, 30, "a", "c").File(0, 1, 10, "b", "f").File(0, 0, 10, "e", "g");
  b.File(1, 10, 10, "a", "a").File(1, 11, 10, "f", "h").File(1, 12, 10, "y", "y");
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_level, 0);
  EXPECT_EQ(p.output_level, 1);
  // Seeded by the largest file 2: every older file joins; 3 does not overlap [a,g].
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{2, 1, 0}));
  EXPECT_EQ(p.output_files, (std::vector<uint64_t>{10, 11}));
  EXPECT_EQ(p.largest_key, "h");
}

TEST(Sica, L0NewerOverlappingFilesJoinTransitively) {
  LsmBuilder b;
  // 4 [m,p] overlaps 3 [k,n] which overlaps the oldest 0 [a,l]: all join.
  b.File(0, 4, 10, "m", "p").File(0, 3, 10, "k", "n").File(0, 2, 10, "x", "z").File(0, 0, 50, "a", "l");
  std::vector<CandidateGroup> groups = CandidateGroups(b.view(), 0);
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{4, 3, 2, 0}));
  // Seeds 4, 3 and 2 all give that same group; seed 0 gives it too: one group.
  EXPECT_EQ(groups.size(), 1u);
}

TEST(Sica, OnlyOneL0CompactionAtATime) {
  LsmBuilder b;
  b.File(0, 5, 10, "i", "j").File(0, 4, 10, "a", "b").File(0, 3, 10, "c", "d").File(0, 2, 10, "e", "f");
  b.File(0, 1, 10, "g", "h", /*being_compacted=*/true);  // the oldest: in every L0 group
  CompactionPick p;
  EXPECT_FALSE(NewSicaPicker(false)->Pick(b.view(), nullptr, &p));
}

TEST(Sica, SkipsGroupsWithFilesBeingCompacted) {
  LsmBuilder b;
  b.File(1, 10, 60, "a", "c").File(1, 11, 50, "d", "f");
  b.File(2, 20, 10, "b", "b", /*being_compacted=*/true).File(2, 21, 10, "e", "e");
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{11}));
  EXPECT_EQ(p.output_files, (std::vector<uint64_t>{21}));
}

TEST(Sica, SkipsRangesARunningJobWritesToTheOutputLevel) {
  LsmBuilder b;
  b.File(1, 10, 60, "a", "c").File(1, 11, 50, "d", "f");
  b.Running(2, "b", "b").Running(1, "d", "f");  // the L1 range does not matter
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{11}));
  b.Running(2, "e", "e");
  EXPECT_FALSE(NewSicaPicker(false)->Pick(b.view(), nullptr, &p));
}

TEST(Sica, CleanCutPullsNeighboursSharingABoundaryKey) {
  LsmBuilder b;
  b.File(1, 10, 40, "a", "c").File(1, 11, 70, "c", "e").File(1, 12, 10, "f", "g");
  b.File(2, 20, 10, "g", "h").File(2, 21, 10, "h", "k");
  std::vector<CandidateGroup> g = CandidateGroups(b.view(), 1);
  ASSERT_EQ(g.size(), 2u);  // {10, 11} (from seeds 10 and 11) and {12}
  EXPECT_EQ(g[0].seed_file().number, 11u);  // a group is ranked by its largest seed
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{10, 11}));
  // 12 [f,g] overlaps 20 [g,h], whose boundary key h pulls 21 in.
  ASSERT_EQ(g[1].Outputs().size(), 2u);
  EXPECT_EQ(g[1].Outputs()[1]->number, 21u);
}

TEST(Sica, InputsWidenWhenThatAddsNoOutputFile) {
  LsmBuilder b;
  b.File(1, 10, 60, "a", "b").File(1, 11, 50, "c", "d").File(1, 12, 5, "x", "z");
  b.File(2, 20, 10, "a", "e");
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{10, 11}));  // 11 lies inside 20's range
  EXPECT_EQ(p.output_files, (std::vector<uint64_t>{20}));
  b.view().max_compaction_bytes = 120;  // 60 + 50 + 10 = 120 is not under the cap
  EXPECT_EQ(MustPick(NewSicaPicker(false).get(), b.view()).input_files, (std::vector<uint64_t>{10}));
}

TEST(Sica, InputsDoNotWidenWhenThatPullsAnotherOutputFile) {
  LsmBuilder b;
  b.File(1, 10, 60, "a", "b").File(1, 11, 50, "c", "d");
  b.File(2, 20, 10, "a", "c").File(2, 21, 10, "d", "e");
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{10}));
  EXPECT_EQ(p.output_files, (std::vector<uint64_t>{20}));
}

TEST(Sica, TrivialMoveIsFlaggedForASingleFileWithoutOverlap) {
  LsmBuilder b;
  b.File(1, 10, 150, "a", "c").File(2, 20, 10, "x", "z");
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_TRUE(p.trivial_move);
  EXPECT_TRUE(p.output_files.empty());
}

TEST(Sica, TheLastLevelIsNeverAnInput) {
  LsmBuilder b(2);
  b.File(1, 10, 100000, "a", "c");
  CompactionPick p;
  EXPECT_FALSE(NewSicaPicker(false)->Pick(b.view(), nullptr, &p));
}

// L0 -> L1 blocked (the oldest L0 files and L1 are in a running job): as
// RocksDB does, the newest L0 files are merged into one L0 file.
TEST(IntraL0, MergesTheNewestFilesWhileL0ToL1IsBlocked) {
  LsmBuilder b;
  for (uint64_t n = 10; n < 15; ++n) b.File(0, n, 5, "a", "z");  // newest first
  b.File(0, 15, 5, "a", "z", true).File(0, 16, 5, "a", "z", true);
  b.File(1, 20, 50, "a", "z", true);
  CompactionPick p = MustPick(NewSicaPicker(false).get(), b.view());
  EXPECT_EQ(p.input_level, 0);
  EXPECT_EQ(p.output_level, 0);
  EXPECT_STREQ(p.picked_by, "intra-l0");
  EXPECT_EQ(p.input_files, (std::vector<uint64_t>{10, 11, 12, 13, 14}));
  EXPECT_TRUE(p.output_files.empty());
  EXPECT_EQ(p.input_bytes, 25u);
  EXPECT_DOUBLE_EQ(p.score, 5.0 / 4);
  // Every picker shares the fallback.
  ZoneLayout layout;
  layout.free_ratio = 0.1;
  EXPECT_EQ(MustPick(NewZacaPicker(false, ZacaScore::kSame).get(), b.view(), &layout).input_files, p.input_files);
  EXPECT_EQ(MustPick(NewAccPicker(false, ZacaScore::kSame, 0.25, false).get(), b.view(), &layout).input_files,
            p.input_files);
}

TEST(IntraL0, FollowsRocksDbsLimits) {
  auto blocked = [](const std::vector<uint64_t>& sizes) {
    LsmBuilder b;
    for (size_t i = 0; i < sizes.size(); ++i) b.File(0, 10 + i, sizes[i], "a", "z");
    b.File(0, 30, 5, "a", "z", true).File(1, 40, 50, "a", "z", true);
    return b;
  };
  CompactionPick p;
  // Files join while the bytes per removed file fall: 10, 7.5, 6.7, then
  // 60 / 4 = 15 stops before the large file.
  LsmBuilder b = blocked({5, 5, 5, 5, 40, 5});
  EXPECT_EQ(MustPick(NewSicaPicker(false).get(), b.view()).input_files, (std::vector<uint64_t>{10, 11, 12, 13}));
  // At most max_compaction_bytes.
  b.view().max_compaction_bytes = 15;
  EXPECT_FALSE(PickIntraL0(b.view(), 1.0, &p)) << "only 3 files fit";
  // Fewer than trigger + 2 L0 files (the running job's included): no merge.
  EXPECT_FALSE(PickIntraL0(blocked({5, 5, 5, 5}).view(), 1.0, &p));
  EXPECT_TRUE(PickIntraL0(blocked({5, 5, 5, 5, 5}).view(), 1.0, &p));
  // The newest file in a job, or fewer than 4 free newest files: no merge.
  LsmBuilder busy = blocked({5, 5, 5, 5, 5});
  busy.view().levels[0][0].being_compacted = true;
  EXPECT_FALSE(PickIntraL0(busy.view(), 1.0, &p));
  busy.view().levels[0][0].being_compacted = false;
  busy.view().levels[0][3].being_compacted = true;
  EXPECT_FALSE(PickIntraL0(busy.view(), 1.0, &p));
  // L0 -> L1 runnable: the ordinary job, not a merge.
  LsmBuilder free_l1;
  for (uint64_t n = 10; n < 16; ++n) free_l1.File(0, n, 5, "a", "z");
  free_l1.File(1, 40, 50, "a", "z");
  EXPECT_EQ(MustPick(NewSicaPicker(false).get(), free_l1.view()).output_level, 1);
}

}  // namespace
}  // namespace zonekv
