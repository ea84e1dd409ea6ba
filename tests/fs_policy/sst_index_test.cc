// SstIndex (the engine's incremental index of SSTs by level and key order)
// against a full rebuild from every file, and CAZA's decisions on it against
// the decisions of the pass over every file it replaced (caza_reference.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "caza_reference.h"
#include "policies.h"
#include "view_builder.h"

namespace zonekv {

namespace {

// Keys from a small alphabet, so that ranges overlap, touch and coincide.
std::string RandomKey(std::mt19937_64& rng) {
  std::string k = "k" + std::to_string(rng() % 40);
  if (rng() % 4 == 0) k += static_cast<char>('a' + rng() % 3);
  return k;
}

// A random file: mostly hinted SSTs (some with a malformed range: largest <
// smallest), some unhinted or of another kind, which the index leaves out.
FileView RandomFile(std::mt19937_64& rng, uint64_t id, uint32_t zones) {
  FileView f;
  f.id = id;
  f.name = "/db/" + std::to_string(100000 + rng() % 50) + "-" + std::to_string(id) + ".sst";
  f.hints.kind = rng() % 10 == 0 ? FileKind::kBlob : FileKind::kSst;
  f.hints.number = id;
  f.hints.level = rng() % 12 == 0 ? -1 : static_cast<int>(rng() % 4);
  std::string a = RandomKey(rng), b = RandomKey(rng);
  if (rng() % 10 != 0 && b < a) std::swap(a, b);  // 1 in 10 may stay malformed
  f.hints.smallest_key = rng() % 15 == 0 ? std::string() : a;
  f.hints.largest_key = b;
  // Sizes from a small set: ties are common (their order is by name).
  f.size_bytes = (1 + rng() % 4) * 4096;
  for (int i = 0, n = static_cast<int>(rng() % 3); i <= n; i++) f.bytes_per_zone[rng() % zones] += (1 + rng() % 3) * 4096;
  f.open_for_write = rng() % 5 == 0;
  return f;
}

std::vector<FileView> ById(std::vector<FileView> v) {
  std::sort(v.begin(), v.end(), [](const FileView& a, const FileView& b) { return a.id < b.id; });
  return v;
}

bool Overlap(const FileHints& h, const std::string& lo, const std::string& hi) {
  return !(h.largest_key < lo || hi < h.smallest_key);
}

}  // namespace

// The index after any sequence of puts, re-hints, appends and erases holds
// exactly the files a fresh rebuild holds, answers overlap queries and walks
// levels exactly as a scan of every file does.
TEST(SstIndexTest, RandomOperationsMatchAFullRebuild) {
  for (uint64_t seed = 1; seed <= 20; seed++) {
    std::mt19937_64 rng(seed);
    SstIndex index;
    std::map<uint64_t, FileView> truth;  // every file, indexed or not
    for (int op = 0; op < 400; op++) {
      const uint64_t id = 1 + rng() % 60;
      const int what = static_cast<int>(rng() % 10);
      if (what < 4) {
        truth[id] = RandomFile(rng, id, 8);
        index.Put(truth[id]);
      } else if (what < 6 && truth.count(id)) {
        // A re-hint (the listener's key range, a level) or a rename.
        FileView f = truth[id];
        if (rng() % 2) f.hints.largest_key = RandomKey(rng);
        if (rng() % 3 == 0) f.hints.level = static_cast<int>(rng() % 4);
        if (rng() % 4 == 0) f.name = "/db/" + std::to_string(rng() % 50) + ".sst";
        if (rng() % 6 == 0) f.hints.smallest_key = RandomKey(rng);
        truth[id] = f;
        index.Put(f);
      } else if (what < 8 && truth.count(id)) {
        uint32_t zone = static_cast<uint32_t>(rng() % 8);
        uint64_t bytes = 4096 * (1 + rng() % 2);
        FileView& f = truth[id];
        f.size_bytes += bytes;
        f.bytes_per_zone[zone] += bytes;
        index.AddBytes(id, zone, bytes, f.size_bytes);
      } else if (what == 8 && truth.count(id)) {
        truth[id].open_for_write = !truth[id].open_for_write;
        index.SetOpenForWrite(id, truth[id].open_for_write);
      } else {
        truth.erase(id);
        index.Erase(id);
      }
      ASSERT_EQ(index.Check(), "") << "seed " << seed << " op " << op;
      std::vector<FileView> want;
      for (const auto& [i, f] : truth) {
        if (SstIndex::Indexed(f.hints)) want.push_back(f);
      }
      ASSERT_EQ(ById(index.Files()), want) << "seed " << seed << " op " << op;
      SstIndex rebuilt = SstIndex::FromFiles(want);
      ASSERT_EQ(ById(rebuilt.Files()), want);
      for (int level = 0; level < 4; level++) {
        // The level in key order: smallest key, then name, then id.
        std::vector<SstIndex::Key> order;
        for (const FileView& f : want) {
          if (f.hints.level == level) order.push_back({f.hints.smallest_key, f.name, f.id});
        }
        std::sort(order.begin(), order.end());
        std::vector<SstIndex::Key> got;
        if (const SstIndex::LevelMap* m = index.Level(level)) {
          for (const auto& [k, f] : *m) got.push_back(k);
        }
        ASSERT_EQ(got, order) << "seed " << seed << " op " << op << " level " << level;
        // Overlap queries, well-formed and malformed, excluding one file.
        for (int q = 0; q < 4; q++) {
          std::string lo = RandomKey(rng), hi = RandomKey(rng);
          if (q < 3 && hi < lo) std::swap(lo, hi);
          uint64_t except = 1 + rng() % 60;
          std::set<uint64_t> expect;
          for (const FileView& f : want) {
            if (f.hints.level == level && f.id != except && Overlap(f.hints, lo, hi)) expect.insert(f.id);
          }
          std::vector<const FileView*> out;
          index.Overlapping(level, lo, hi, except, &out);
          std::set<uint64_t> ids;
          for (const FileView* f : out) ids.insert(f->id);
          ASSERT_EQ(ids.size(), out.size()) << "a file reported twice";
          ASSERT_EQ(ids, expect) << "seed " << seed << " op " << op << " level " << level << " [" << lo << ", " << hi << "]";
        }
      }
    }
  }
}

// Files of a level that do not overlap are answered by the binary search;
// only the overlapping ones are scanned, and a file leaves the scanned set
// once what it overlapped is gone.
TEST(SstIndexTest, OnlyOverlappingFilesAreScanned) {
  SstIndex index;
  auto sst = [](uint64_t id, int level, std::string lo, std::string hi) {
    FileView f;
    f.id = id;
    f.name = "/db/" + std::to_string(id) + ".sst";
    f.hints.kind = FileKind::kSst;
    f.hints.level = level;
    f.hints.smallest_key = lo;
    f.hints.largest_key = hi;
    return f;
  };
  for (uint64_t i = 0; i < 10; i++) index.Put(sst(i + 1, 2, "k" + std::to_string(i) + "0", "k" + std::to_string(i) + "9"));
  EXPECT_EQ(index.OverlappingCount(2), 0u);
  index.Put(sst(20, 2, "k15", "k35"));  // a compaction output with the job's whole range
  EXPECT_EQ(index.OverlappingCount(2), 1u);
  std::vector<const FileView*> out;
  index.Overlapping(2, "k22", "k23", 0, &out);
  std::set<uint64_t> ids;
  for (const FileView* f : out) ids.insert(f->id);
  EXPECT_EQ(ids, (std::set<uint64_t>{3, 20}));
  // The inputs it replaces are deleted: it fits among the disjoint files.
  index.Erase(2);
  index.Erase(3);
  EXPECT_EQ(index.OverlappingCount(2), 1u);  // still overlaps file 4 (k30..k39)
  index.Erase(4);
  EXPECT_EQ(index.OverlappingCount(2), 0u);
  EXPECT_EQ(index.Check(), "");
  // The removed entries wait to be freed outside the engine's lock.
  SstIndex::Garbage garbage;
  index.TakeGarbage(&garbage);
  EXPECT_EQ(garbage.files.size(), 3u);
  EXPECT_EQ(index.overlapping(), 0u);
  EXPECT_EQ(index.overlapping_peak(), 1u);
}

namespace {

// A random view the way the engine builds one: files by name (unique names),
// zones in every state, some busy.
FsView RandomView(std::mt19937_64& rng, uint32_t zones, uint64_t files) {
  ViewBuilder b;
  b.view().max_active_zones = 10;
  b.view().max_open_zones = 10;
  for (uint32_t z = 0; z < zones; z++) {
    uint64_t w = (rng() % 5 == 0) ? 0 : (rng() % 6 == 0 ? kCap : 4096 * (1 + rng() % 200));
    ZoneView& zv = b.Zone(w, w / 2);
    zv.busy = rng() % 5 == 0;
    if (rng() % 25 == 0) zv.state = ZoneState::kReadOnly;
  }
  FsView v = b.view();
  std::map<std::string, FileView> by_name;
  for (uint64_t id = 1; id <= files; id++) {
    FileView f = RandomFile(rng, id, zones);
    by_name[f.name] = f;
  }
  for (auto& [name, f] : by_name) v.files.push_back(f);
  for (int l = 0; l < 4; l++) v.level_scores.push_back(static_cast<double>(rng() % 20) / 10);
  return v;
}

}  // namespace

// CAZA on the engine's index (files not listed) and on a view's files decides
// exactly as the pass over every file did, for the same inputs: requests by
// files of the view and by new files, at every level.
TEST(SstIndexTest, CazaDecisionsAreUnchanged) {
  size_t by_reason[4] = {};  // partner, neighbour, fallback, other
  for (uint64_t seed = 1; seed <= 300; seed++) {
    std::mt19937_64 rng(seed);
    FsView full = RandomView(rng, 12, 1 + rng() % 40);
    // The index as the engine keeps it: built by a history of changes (files
    // put with other ranges first, re-hinted, extra files put and erased),
    // not in one pass.
    SstIndex index;
    for (const FileView& f : full.files) {
      FileView early = f;
      early.hints.largest_key = RandomKey(rng);
      early.hints.level = static_cast<int>(rng() % 4);
      index.Put(early);
      index.Put(RandomFile(rng, 1000 + f.id, 12));
    }
    for (const FileView& f : full.files) {
      index.Put(f);
      index.Erase(1000 + f.id);
    }
    ASSERT_EQ(index.Check(), "");
    FsView indexed = full;
    indexed.files.clear();
    indexed.ssts = &index;
    auto caza = NewCazaAllocation(NewLizaAllocation());
    test::ReferenceCaza reference;
    for (int r = 0; r < 20; r++) {
      FileView req_file = r % 2 == 0 && !full.files.empty() ? full.files[rng() % full.files.size()]
                                                            : RandomFile(rng, 5000 + r, 12);
      AllocRequest req;
      req.file = &req_file;
      req.min_bytes = 4096;
      AllocDecision want = reference.Allocate(full, req);
      AllocDecision on_files = caza->Allocate(full, req);
      AllocDecision on_index = caza->Allocate(indexed, req);
      ASSERT_TRUE(test::SameDecision(want, on_files))
          << "seed " << seed << " request " << r << ": " << test::DecisionText(want) << " vs " << test::DecisionText(on_files);
      ASSERT_TRUE(test::SameDecision(want, on_index))
          << "seed " << seed << " request " << r << ": " << test::DecisionText(want) << " vs " << test::DecisionText(on_index);
      std::string reason = want.reason;
      by_reason[reason == "caza.partner" ? 0 : reason == "caza.neighbour" ? 1 : reason == "caza.fallback" ? 2 : 3]++;
    }
  }
  // Every rule was exercised.
  EXPECT_GT(by_reason[0], 100u);
  EXPECT_GT(by_reason[1], 100u);
  EXPECT_GT(by_reason[2], 20u);
}

}  // namespace zonekv
