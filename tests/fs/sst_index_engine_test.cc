// The engine's SST index (CAZA's view, zonekv/fs_policy.h SstIndex) against
// the full rebuild it replaced, on a real file system: after every step of a
// random sequence of creates, appends, syncs, closes, re-hints, renames,
// deletes (also of files still open), cleaner migrations and a remount, the
// index holds exactly the SSTs a view of every file shows, fsck agrees, and
// CAZA decides on it as the pass over every file did.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <thread>

#include "caza_reference.h"
#include "fs_test_util.h"
#include "policies.h"
#include "zone_fs_impl.h"

namespace zonekv {
namespace {

struct Open {
  FileRecord* rec = nullptr;
  bool writing = false;
};

std::string Key(std::mt19937_64& rng) { return "user" + std::to_string(100 + rng() % 60); }

// A job hint with a random level and key range (what a compaction output carries).
FileHints RandomHint(std::mt19937_64& rng) {
  FileHints h;
  h.level = static_cast<int>(rng() % 4);
  h.smallest_key = Key(rng);
  h.largest_key = std::max(h.smallest_key, Key(rng));
  return h;
}

class SstIndexEngineTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    dev_ = OpenTestDevice("ram:zones=40,zone_size=128K,max_open=8,max_active=8");
    opts_.policy.zc = "greedy";
    opts_.policy.zc_trigger_free_pct = 101;  // always clean: the cleaner moves extents often
    opts_.zc_interval_ms = 5;
    fs_ = FormatAndMount(dev_, opts_);
  }

  // Compares the engine's index with the files of a full view, both taken
  // under the engine's lock, and CAZA's decisions on each.
  void Compare(std::mt19937_64& rng, const std::string& where) {
    size_t checked = 0;
    fs_->impl()->InspectSstIndex([&](const FsView& all, const SstIndex& index) {
      ASSERT_EQ(index.Check(), "") << where;
      std::vector<FileView> want;
      for (const FileView& f : all.files) {
        if (SstIndex::Indexed(f.hints)) want.push_back(f);
      }
      std::sort(want.begin(), want.end(), [](const FileView& a, const FileView& b) { return a.id < b.id; });
      ASSERT_EQ(index.Files(), want) << where;
      FsView full = all;
      full.level_scores.clear();
      for (int l = 0; l < 4; l++) full.level_scores.push_back(static_cast<double>(rng() % 20) / 10);
      FsView indexed = full;
      indexed.files.clear();
      indexed.ssts = &index;
      auto caza = NewCazaAllocation(NewLizaAllocation());
      test::ReferenceCaza reference;
      for (int r = 0; r < 6; r++) {
        FileView req_file;
        if (r % 2 == 0 && !full.files.empty()) {
          req_file = full.files[rng() % full.files.size()];
        } else {
          req_file.id = 1u << 30;
          req_file.hints.kind = FileKind::kSst;
          req_file.hints.level = static_cast<int>(rng() % 4);
          req_file.hints.smallest_key = Key(rng);
          req_file.hints.largest_key = Key(rng);
        }
        AllocRequest req;
        req.file = &req_file;
        AllocDecision want_d = reference.Allocate(full, req);
        AllocDecision got = caza->Allocate(indexed, req);
        ASSERT_TRUE(test::SameDecision(want_d, got))
            << where << ": " << test::DecisionText(want_d) << " vs " << test::DecisionText(got);
      }
      checked = want.size();
    });
    indexed_seen_ = std::max(indexed_seen_, checked);
  }

  std::shared_ptr<ZonedDevice> dev_;
  ZoneFsOptions opts_;
  std::shared_ptr<ZoneFs> fs_;
  size_t indexed_seen_ = 0;
};

TEST_P(SstIndexEngineTest, IndexMatchesFullRebuildThroughRandomOperations) {
  std::mt19937_64 rng(GetParam());
  ZoneFs::Impl* fs = fs_->impl();
  std::map<std::string, Open> open;  // files with a handle open (writing or reading)
  std::vector<std::string> live;
  uint64_t next_number = 10;
  auto pick_live = [&]() -> std::string { return live.empty() ? std::string() : live[rng() % live.size()]; };
  auto forget = [&](const std::string& name) { live.erase(std::remove(live.begin(), live.end(), name), live.end()); };
  auto close_all = [&]() {
    for (auto& [name, o] : open) {
      if (o.writing) {
        ASSERT_TRUE(fs->CloseWriter(o.rec).ok());
      }
      fs->CloseHandle(o.rec);
    }
    open.clear();
  };
  const int kSteps = 600;
  for (int step = 0; step < kSteps; step++) {
    const std::string where = "seed " + std::to_string(GetParam()) + " step " + std::to_string(step);
    const int what = static_cast<int>(rng() % 11);
    if (step == kSteps / 2) {
      // A remount rebuilds the index from the journal.
      close_all();
      fs_.reset();
      ASSERT_TRUE(ZoneFs::Mount(dev_, opts_, &fs_).ok()) << where;
      fs = fs_->impl();
    } else if (what <= 1 && open.size() < 6) {
      // A new SST (hinted by a job on this thread, or not), sometimes a WAL.
      const char* ext = rng() % 6 == 0 ? ".log" : ".sst";
      std::string name = "/db/" + std::to_string(next_number++) + ext;
      if (rng() % 3 != 0) ZoneFs::SetThreadJobHint(RandomHint(rng));
      FileRecord* rec = nullptr;
      ASSERT_TRUE(fs->CreateFile(name, &rec).ok()) << where;
      ZoneFs::ClearThreadJobHint();
      open[name] = {rec, true};
      live.push_back(name);
    } else if (what <= 4 && !open.empty()) {
      // Appends (block multiples, or padded) to an open writer.
      auto it = std::next(open.begin(), static_cast<long>(rng() % open.size()));
      if (it->second.writing) {
        size_t n = 4096 * (1 + rng() % 8);
        bool pad = rng() % 4 == 0;
        if (pad) n -= rng() % 4000;
        std::string data = test::Pattern(step, n);
        ASSERT_TRUE(fs->WriteData(it->second.rec, data.data(), n, pad).ok()) << where;
        if (pad || rng() % 3 == 0) {
          ASSERT_TRUE(fs->CommitFile(it->second.rec, rng() % 2 == 0).ok()) << where;
        }
      }
    } else if (what == 5 && !open.empty()) {
      auto it = std::next(open.begin(), static_cast<long>(rng() % open.size()));
      if (it->second.writing) {
        ASSERT_TRUE(fs->CloseWriter(it->second.rec).ok()) << where;
      }
      fs->CloseHandle(it->second.rec);
      open.erase(it);
    } else if (what == 6 && !live.empty()) {
      // The listener's key range after the job (or a trivial move's new level).
      std::string lo = Key(rng);
      fs->NoteFileRange(pick_live(), static_cast<int>(rng() % 4), lo, std::max(lo, Key(rng)));
    } else if (what == 7 && !live.empty()) {
      fs->NoteFileJob(pick_live(), static_cast<int>(rng() % 100), static_cast<int>(rng() % 5) - 1);
    } else if (what == 8 && !live.empty()) {
      std::string src = pick_live();
      std::string dst = "/db/" + std::to_string(next_number++) + (rng() % 4 == 0 ? ".blob" : ".sst");
      if (rng() % 5 == 0) dst = pick_live();  // over another file
      if (dst == src || open.count(dst)) continue;
      ASSERT_TRUE(fs->RenameFile(src, dst).ok()) << where;
      forget(dst);
      forget(src);
      live.push_back(dst);
      if (open.count(src)) {
        open[dst] = open[src];
        open.erase(src);
      }
    } else if (what == 9 && !live.empty()) {
      // A delete; sometimes of a file a reader still holds open.
      std::string name = pick_live();
      if (open.count(name) && open[name].writing) continue;
      if (!open.count(name) && rng() % 3 == 0) {
        FileRecord* rec = nullptr;
        ASSERT_TRUE(fs->OpenForRead(name, &rec).ok()) << where;
        open[name] = {rec, false};
      }
      ASSERT_TRUE(fs->DeleteFile(name).ok()) << where;
      forget(name);
      if (open.count(name)) {
        // The record lives on until its handle closes, unlisted.
        Compare(rng, where + " (deleted, open)");
        fs->CloseHandle(open[name].rec);
        open.erase(name);
      }
    } else if (what == 10 && !open.empty()) {
      auto it = std::next(open.begin(), static_cast<long>(rng() % open.size()));
      fs->SetLifetime(it->second.rec, static_cast<Lifetime>(rng() % 6));
    }
    Compare(rng, where);
    if (HasFatalFailure()) return;
    if (step % 25 == 0) {
      ASSERT_EQ(FsckText(*fs_), "") << where;
      // Let the cleaner run a pass or two (it moves extents of live files).
      const uint64_t passes = fs_->Stats().zc_passes;
      for (int i = 0; i < 1000 && fs_->Stats().zc_passes < passes + 2; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
  }
  close_all();
  Compare(rng, "end");
  EXPECT_EQ(FsckText(*fs_), "");
  EXPECT_GT(indexed_seen_, 5u);  // the index held files
  ZoneFsStats st = fs_->Stats();
  EXPECT_GT(st.zc_copy_bytes_by_kind[static_cast<int>(FileKind::kSst)], 0u) << "the cleaner moved no SST extent";
  // The SST copy by level adds up, and only the levels this test hints
  // (0..3, or none) received any.
  uint64_t by_level = 0;
  for (int l = 0; l < ZoneFsStats::kZcLevels; l++) {
    by_level += st.zc_copy_sst_by_level[l];
    if (l >= 4 && l < ZoneFsStats::kZcLevels - 1) {
      EXPECT_EQ(st.zc_copy_sst_by_level[l], 0u) << "L" << l;
    }
  }
  EXPECT_EQ(by_level, st.zc_copy_bytes_by_kind[static_cast<int>(FileKind::kSst)]);
  EXPECT_GT(by_level - st.zc_copy_sst_by_level[ZoneFsStats::kZcLevels - 1], 0u) << "no copied SST had a level";
}

INSTANTIATE_TEST_SUITE_P(Seeds, SstIndexEngineTest, ::testing::Values(1, 2, 3));

// View() copies the files flat under the lock and builds them after it;
// SstView() copies only the SSTs asked for. Both show exactly what the view
// built under the lock (the full rebuild) shows.
TEST(FsViewCopyTest, FlatCopiesAndSstViewsEqualTheViewBuiltUnderTheLock) {
  auto dev = OpenTestDevice("ram:zones=24,zone_size=256K,max_open=8,max_active=8");
  ZoneFsOptions opts;
  opts.policy.zc = "off";  // nothing changes between the views compared
  auto fs = FormatAndMount(dev, opts);
  ZoneFs::Impl* impl = fs->impl();
  std::mt19937_64 rng(7);
  std::vector<std::string> names;
  for (int i = 0; i < 40; i++) {
    const char* ext[] = {".sst", ".sst", ".blob", ".log"};
    std::string name = "/db/" + std::to_string(100 + i) + ext[rng() % 4];
    if (i % 3 != 0) ZoneFs::SetThreadJobHint(RandomHint(rng));
    FileRecord* rec = nullptr;
    ASSERT_TRUE(impl->CreateFile(name, &rec).ok());
    ZoneFs::ClearThreadJobHint();
    for (int k = 0, n = static_cast<int>(rng() % 4); k < n; k++) {
      std::string data = test::Pattern(i * 10 + k, 4096 * (1 + rng() % 4));
      ASSERT_TRUE(impl->WriteData(rec, data.data(), data.size(), false).ok());
    }
    if (i % 2 == 0) {
      ASSERT_TRUE(impl->CloseWriter(rec).ok());
      impl->CloseHandle(rec);
    }  // else left open for writing
    names.push_back(name);
  }
  ASSERT_TRUE(impl->DeleteFile(names[4]).ok());
  ASSERT_TRUE(impl->RenameFile(names[6], "/db/099.sst").ok());
  FsView all;
  impl->InspectSstIndex([&](const FsView& v, const SstIndex&) { all = v; });
  all.ssts = nullptr;
  FsView copy = fs->View(ViewFiles::kAll);
  EXPECT_EQ(copy.files, all.files);
  ASSERT_EQ(copy.zones.size(), all.zones.size());
  for (size_t z = 0; z < all.zones.size(); z++) EXPECT_EQ(copy.zones[z].valid_bytes, all.zones[z].valid_bytes);
  std::vector<FileView> ssts;
  for (const FileView& f : all.files) {
    if (f.hints.kind == FileKind::kSst) ssts.push_back(f);
  }
  EXPECT_GT(ssts.size(), 10u);
  EXPECT_EQ(fs->View(ViewFiles::kSst).files, ssts);
  // SstView: the SSTs with these numbers only (a number twice, one unknown).
  std::vector<uint64_t> numbers = {ssts[3].hints.number, ssts[1].hints.number, ssts[3].hints.number, 999999};
  std::vector<FileView> want = {ssts[1], ssts[3]};  // by name
  FsView some = fs->SstView(numbers);
  EXPECT_EQ(some.files, want);
  EXPECT_EQ(some.zones.size(), all.zones.size());
  EXPECT_TRUE(fs->SstView({}).files.empty());
}

}  // namespace
}  // namespace zonekv
