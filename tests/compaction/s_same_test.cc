// S_same (paper eq. 1) and S_inval on the paper's worked examples
// (Figures 2 and 3: zones of size 4, SSTables of size 1).
#include <gtest/gtest.h>

#include <algorithm>

#include "inval_scorer.h"

#include "lsm_builder.h"
#include "zonekv/compactor.h"

namespace zonekv {
namespace {

constexpr uint64_t kSst = 1 << 20;

std::vector<const SstFileView*> Ptrs(const std::vector<SstFileView>& files) {
  std::vector<const SstFileView*> out;
  for (const auto& f : files) out.push_back(&f);
  return out;
}

std::vector<SstFileView> ThreeFiles() {
  std::vector<SstFileView> files(3);
  for (uint64_t i = 0; i < 3; ++i) {
    files[i].number = 10 + i;
    files[i].size_bytes = kSst;
  }
  return files;
}

TEST(SameZoneScore, PaperFigure2ZoneAcrossIsOneThird) {
  std::vector<SstFileView> files = ThreeFiles();
  ZoneLayout layout;
  Place(&layout, 10, 0, kSst);
  Place(&layout, 11, 1, kSst);
  Place(&layout, 12, 2, kSst);
  EXPECT_NEAR(SameZoneScore(Ptrs(files), layout), 0.33, 0.005);
  EXPECT_DOUBLE_EQ(SameZoneScore(Ptrs(files), layout), 1.0 / 3);
}

TEST(SameZoneScore, PaperFigure3SameZoneIsOne) {
  std::vector<SstFileView> files = ThreeFiles();
  ZoneLayout layout;
  for (uint64_t n = 10; n < 13; ++n) Place(&layout, n, 0, kSst);
  EXPECT_DOUBLE_EQ(SameZoneScore(Ptrs(files), layout), 1.0);
}

TEST(SameZoneScore, FileSplitOverZonesAndUnknownFiles) {
  std::vector<SstFileView> files = ThreeFiles();
  ZoneLayout layout;
  Place(&layout, 10, 0, kSst / 2);
  Place(&layout, 10, 1, kSst / 2);
  std::vector<const SstFileView*> one = {&files[0]};
  EXPECT_DOUBLE_EQ(SameZoneScore(one, layout), 0.5);
  // File 11 is unknown to the layout: a zone of its own. (0.25+0.25+1)/4.
  std::vector<const SstFileView*> two = {&files[0], &files[1]};
  EXPECT_DOUBLE_EQ(SameZoneScore(two, layout), 1.5 / 4);
  EXPECT_EQ(SameZoneScore({}, layout), 0);
}

// Zones of capacity 4 units, full, each holding 4 SSTables.
FsView FullZones(int n) {
  FsView v;
  for (int i = 0; i < n; ++i) {
    ZoneView z;
    z.id = static_cast<uint32_t>(i);
    z.state = ZoneState::kFull;
    z.capacity_bytes = 4 * kSst;
    z.written_bytes = 4 * kSst;
    z.valid_bytes = 4 * kSst;
    v.zones.push_back(z);
  }
  return v;
}

TEST(InvalidScore, PaperFigure2IsAQuarter) {
  ZoneLayout layout;
  Place(&layout, 10, 0, kSst);
  Place(&layout, 11, 1, kSst);
  Place(&layout, 12, 2, kSst);
  FsView before = FullZones(4);
  FsView after = before;
  for (int z = 0; z < 3; ++z) after.zones[z].valid_bytes -= kSst;
  EXPECT_DOUBLE_EQ(InvalidScore({10, 11, 12}, layout, before, after), 0.25);
}

TEST(InvalidScore, PaperFigure3IsThreeQuarters) {
  ZoneLayout layout;
  for (uint64_t n = 10; n < 13; ++n) Place(&layout, n, 0, kSst);
  FsView before = FullZones(4);
  FsView after = before;
  after.zones[0].valid_bytes -= 3 * kSst;
  EXPECT_DOUBLE_EQ(InvalidScore({10, 11, 12}, layout, before, after), 0.75);
}

TEST(InvalidScore, ZoneResetSinceCountsAsFullyInvalid) {
  ZoneLayout layout;
  Place(&layout, 10, 0, kSst);
  Place(&layout, 11, 1, kSst);
  FsView before = FullZones(2);
  FsView after = before;
  after.zones[0].written_bytes = after.zones[0].valid_bytes = 0;  // reset, still empty
  after.zones[1].reset_count = 1;                                // reset and rewritten
  EXPECT_DOUBLE_EQ(InvalidScore({10, 11}, layout, before, after), 1.0);
  EXPECT_EQ(InvalidScore({99}, layout, before, after), 0);
}

// S_inval is taken when the last input is deleted, on the view then; a job
// whose inputs are gone already (CompactFiles purges before it returns) is
// scored at once; jobs still waiting are scored by Flush.
TEST(InvalScorer, ScoresWhenTheLastInputIsDeleted) {
  ZoneLayout layout;
  Place(&layout, 10, 0, kSst);
  Place(&layout, 11, 1, kSst);
  FsView before = FullZones(4);
  for (uint64_t n : {10, 11, 12}) {
    FileView f;
    f.hints.kind = FileKind::kSst;
    f.hints.number = n;
    before.files.push_back(f);
  }
  FsView now = before;  // what the layout source returns
  auto drop = [&](uint64_t n, uint32_t zone) {
    std::erase_if(now.files, [n](const FileView& f) { return f.hints.number == n; });
    now.zones[zone].valid_bytes -= kSst;
  };
  CompactionMetrics metrics;
  InvalScorer scorer([&](FsView* out) { *out = now; return Status::OK(); }, {}, &metrics);
  CompactionJobRecord r;
  r.s_same = 0.5;
  scorer.Add(r, {10, 11}, before, layout);
  auto s_inval = [&] { return *metrics.Stats().ToJson().Find("s_inval_mean"); };
  EXPECT_EQ(s_inval().type(), Json::Type::kNull) << "not scored before its inputs are deleted";
  drop(10, 0);
  scorer.FileDeleted("/db/000010.sst");
  scorer.FileDeleted("/db/000011.blob");  // not an SST: ignored
  EXPECT_EQ(s_inval().type(), Json::Type::kNull);
  drop(11, 1);
  scorer.FileDeleted("/db/000011.sst");
  ASSERT_EQ(s_inval().type(), Json::Type::kNumber);
  EXPECT_DOUBLE_EQ(s_inval().number(), 0.25);  // both zones a quarter invalid
  // Inputs deleted before the job was added: scored at once.
  scorer.Add(r, {10, 11}, before, layout);
  EXPECT_EQ(metrics.Stats().ToJson().Find("compactions")->number(), 2);
  // A job whose input stays referenced is scored by Flush.
  scorer.Add(r, {12}, before, layout);
  EXPECT_EQ(metrics.Stats().ToJson().Find("compactions")->number(), 2);
  scorer.Flush();
  EXPECT_EQ(metrics.Stats().ToJson().Find("compactions")->number(), 3);
  EXPECT_EQ(InvalScorer::SstNumber("/db/000123.sst"), 123u);
  EXPECT_EQ(InvalScorer::SstNumber("000123.sst.trash"), 0u);
  EXPECT_EQ(InvalScorer::SstNumber("/db/LOG"), 0u);
}

// With layout_of the scorer reads the zones and a job's own inputs only,
// never every SST, and scores as with the full layout.
TEST(InvalScorer, ReadsOnlyTheJobsInputsWithLayoutOf) {
  ZoneLayout layout;
  Place(&layout, 10, 0, kSst);
  Place(&layout, 11, 1, kSst);
  FsView before = FullZones(4);
  for (uint64_t n : {10, 11, 12, 13, 14}) {
    FileView f;
    f.hints.kind = FileKind::kSst;
    f.hints.number = n;
    before.files.push_back(f);
  }
  FsView now = before;
  std::vector<std::vector<uint64_t>> asked;
  CompactionMetrics metrics;
  InvalScorer scorer(
      [](FsView*) {
        ADD_FAILURE() << "the full layout was read";
        return Status::NotSupported("full");
      },
      [&](const std::vector<uint64_t>& numbers, FsView* out) {
        asked.push_back(numbers);
        *out = now;
        std::erase_if(out->files, [&](const FileView& f) {
          return std::find(numbers.begin(), numbers.end(), f.hints.number) == numbers.end();
        });
        return Status::OK();
      },
      &metrics);
  CompactionJobRecord r;
  scorer.Add(r, {10, 11}, before, layout);
  EXPECT_EQ(metrics.Stats().ToJson().Find("compactions")->number(), 0) << "inputs still there";
  for (auto [n, zone] : {std::pair<uint64_t, uint32_t>{10, 0}, {11, 1}}) {
    std::erase_if(now.files, [n = n](const FileView& f) { return f.hints.number == n; });
    now.zones[zone].valid_bytes -= kSst;
    scorer.FileDeleted("/db/0000" + std::to_string(n) + ".sst");
  }
  auto s_inval = *metrics.Stats().ToJson().Find("s_inval_mean");
  ASSERT_EQ(s_inval.type(), Json::Type::kNumber);
  EXPECT_DOUBLE_EQ(s_inval.number(), 0.25);
  ASSERT_FALSE(asked.empty());
  for (const auto& numbers : asked) {
    for (uint64_t n : numbers) EXPECT_TRUE(n == 10 || n == 11) << n;
  }
}

TEST(ZoneLayout, TakesOnlyNumberedSstFilesFromTheFsView) {
  FsView v = FullZones(2);
  v.zones[1].state = ZoneState::kClosed;
  v.zones[1].written_bytes = v.zones[1].valid_bytes = kSst;  // 3 units free of 5 in use
  FileView sst;
  sst.hints.kind = FileKind::kSst;
  sst.hints.number = 7;
  sst.bytes_per_zone = {{0, kSst}, {1, 2}};
  FileView wal;
  wal.hints.kind = FileKind::kWal;
  wal.hints.number = 8;
  wal.bytes_per_zone = {{0, 5}};
  FileView unnumbered;
  unnumbered.hints.kind = FileKind::kSst;
  v.files = {sst, wal, unnumbered};
  ZoneLayout layout = ZoneLayout::FromFsView(v);
  ASSERT_EQ(layout.sst_zones.size(), 1u);
  ASSERT_NE(layout.Find(7), nullptr);
  EXPECT_EQ(layout.Find(7)->at(1), 2u);
  EXPECT_EQ(layout.Find(8), nullptr);
  EXPECT_DOUBLE_EQ(layout.free_ratio, v.free_ratio());
  EXPECT_GT(layout.free_ratio, 0.0);
  // Every zone's valid bytes, by zone number (zaca_score=kill-per-write).
  ASSERT_EQ(layout.zone_valid_bytes.size(), v.zones.size());
  for (const ZoneView& z : v.zones) EXPECT_EQ(layout.zone_valid_bytes[z.id], z.valid_bytes) << z.id;
}

}  // namespace
}  // namespace zonekv
