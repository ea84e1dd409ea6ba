// GrandparentCutter: RocksDB's grandparent rules for cutting output files,
// first on key streams played by hand (each rule alone), then under a real
// RocksDB CompactFiles, which without the cutter writes one file over many
// files of the next level.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include "grandparent_cutter.h"
#include "temp_db.h"

namespace zonekv {
namespace {

std::string Key(const char* fmt, int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), fmt, i);
  return buf;
}

// A job's grandparents: the files of the level below its output that its
// key range touches, boundaries included, and no other.
TEST(OverlappingFiles, TakesTheFilesTheRangeTouchesBoundariesIncluded) {
  std::vector<SstFileView> level;
  for (int i = 0; i < 10; i++) {  // [k00, k04], [k10, k14], ..., [k90, k94]
    SstFileView f;
    f.number = 100 + i;
    f.smallest_key = Key("k%d0", i);
    f.largest_key = Key("k%d4", i);
    f.size_bytes = 1000 + i;
    level.push_back(f);
  }
  auto firsts = [&](const std::string& a, const std::string& b) {
    std::string s;
    for (const GrandparentFile& g : OverlappingFiles(level, a, b)) s += g.smallest_key + " ";
    return s;
  };
  EXPECT_EQ(firsts("k14", "k30"), "k10 k20 k30 ");  // ends on a boundary key at both sides
  EXPECT_EQ(firsts("k15", "k19"), "");              // in a gap
  EXPECT_EQ(firsts("a", "k00"), "k00 ");
  EXPECT_EQ(firsts("k94", "z"), "k90 ");
  EXPECT_EQ(firsts("z", "zz"), "");
  EXPECT_EQ(firsts("a", "z"), "k00 k10 k20 k30 k40 k50 k60 k70 k80 k90 ");
  std::vector<GrandparentFile> one = OverlappingFiles(level, "k52", "k52");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].largest_key, "k54");
  EXPECT_EQ(one[0].size_bytes, 1005u);
  EXPECT_TRUE(OverlappingFiles({}, "a", "z").empty());
}

struct Output {
  std::string first, last;
  uint64_t bytes = 0;
};

// Plays `keys` (ascending) through the cuts as RocksDB's CompactionOutputs
// would: each key adds `key_bytes` to the open file, a file reaching
// `size_cut_bytes` is closed by RocksDB itself (0: never), and the cutter is
// asked before every key but a file's first.
std::vector<Output> Play(const std::vector<GrandparentFile>& gp, CutRules rules, const std::vector<std::string>& keys,
                         uint64_t key_bytes, uint64_t size_cut_bytes = 0) {
  GrandparentCuts cuts(std::make_shared<const std::vector<GrandparentFile>>(gp), rules);
  std::vector<Output> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    bool new_file = out.empty();
    if (!new_file) {
      Output& open = out.back();
      // RocksDB asks the partitioner first, then applies its size limit.
      new_file = cuts.ShouldCut(open.last, keys[i], open.bytes) || (size_cut_bytes > 0 && open.bytes >= size_cut_bytes);
    }
    if (new_file) out.push_back({keys[i], keys[i], 0});
    out.back().last = keys[i];
    out.back().bytes += key_bytes;
  }
  return out;
}

// Grandparents overlapping [first, last], and their bytes.
std::pair<size_t, uint64_t> Overlap(const std::vector<GrandparentFile>& gp, const Output& o) {
  size_t n = 0;
  uint64_t bytes = 0;
  for (const GrandparentFile& f : gp) {
    if (f.largest_key < o.first || o.last < f.smallest_key) continue;
    ++n;
    bytes += f.size_bytes;
  }
  return {n, bytes};
}

TEST(GrandparentCuts, EachOutputOverlapsAtMostMaxCompactionBytes) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 20; ++round) {
    std::vector<GrandparentFile> gp;
    for (int i = 0; i < 200; ++i) {
      if (rng() % 4 == 0) continue;  // gaps between grandparents
      gp.push_back({Key("k%05d0", i * 10), Key("k%05d9", i * 10 + 7), 50 + rng() % 400});
    }
    std::set<std::string> key_set;
    while (key_set.size() < 500) key_set.insert(Key("k%06d", static_cast<int>(rng() % 20000)));
    std::vector<std::string> keys(key_set.begin(), key_set.end());
    CutRules rules{1000, 1u << 30, false};  // rule 1 alone

    std::vector<Output> uncut = Play(gp, {~0ull, 1u << 30, false}, keys, 3);
    ASSERT_EQ(uncut.size(), 1u);
    ASSERT_GT(Overlap(gp, uncut[0]).second, rules.max_compaction_bytes) << "the case must need cutting";

    std::vector<Output> out = Play(gp, rules, keys, 3);
    EXPECT_GT(out.size(), 1u);
    for (const Output& o : out) {
      auto [n, bytes] = Overlap(gp, o);
      EXPECT_TRUE(bytes <= rules.max_compaction_bytes || n == 1)
          << "round " << round << ": output [" << o.first << ", " << o.last << "] overlaps " << n
          << " grandparents, " << bytes << " bytes";
    }
  }
}

TEST(GrandparentCuts, PreCutsAtBoundariesBetweenHalfAndNinetyPercentOfTarget) {
  // One small grandparent between every two keys: each key crosses two
  // boundaries and skips nothing worth a cut (10 bytes < target / 8).
  std::vector<GrandparentFile> gp;
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) {
    gp.push_back({Key("k%04d0", i), Key("k%04d5", i), 10});
    keys.push_back(Key("k%04d7", i));
  }
  std::vector<Output> out = Play(gp, {~0ull, 1000, true}, keys, 100);
  ASSERT_GT(out.size(), 2u);
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    EXPECT_GE(out[i].bytes, 500u) << "file " << i;
    EXPECT_LE(out[i].bytes, 900u) << "file " << i;
  }
  EXPECT_EQ(Play(gp, {~0ull, 1000, false}, keys, 100).size(), 1u) << "rules 2 and 3 need dynamic_file_size";
}

TEST(GrandparentCuts, CutsRatherThanTakeInASkippableGrandparent) {
  // The keys jump over [b, c], 200 bytes > target / 8: the output should
  // not overlap it.
  std::vector<GrandparentFile> gp = {{"b", "c", 200}};
  std::vector<std::string> keys = {"a1", "a2", "d1", "d2"};
  std::vector<Output> out = Play(gp, {~0ull, 1000, true}, keys, 10);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].last, "a2");
  EXPECT_EQ(out[1].first, "d1");
  EXPECT_EQ(Play(gp, {~0ull, 1000, false}, keys, 10).size(), 1u);
  gp[0].size_bytes = 100;  // under target / 8: not worth a cut
  EXPECT_EQ(Play(gp, {~0ull, 1000, true}, keys, 10).size(), 1u);
}

TEST(GrandparentCuts, AFileRocksDbStartsBySizeStartsItsOverlapAfresh) {
  // Keys in grandparents of 100 bytes each (two in the first);
  // max_compaction_bytes 300: the cutter cuts every second grandparent.
  std::vector<GrandparentFile> gp;
  std::vector<std::string> keys = {"g0m", "g0n"};
  for (int i = 0; i < 8; ++i) {
    gp.push_back({Key("g%da", i), Key("g%dz", i), 100});
    if (i > 0) keys.push_back(Key("g%dm", i));
  }
  const CutRules rules{300, 1u << 30, false};
  std::vector<Output> out = Play(gp, rules, keys, 10);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[1].first, "g2m");
  // RocksDB closes the first file by size (20 bytes) before g1m: the next
  // file starts with g1's 100 bytes alone, so it takes g2m too and is cut
  // before g3m (counting the old file's overlap would cut before g2m).
  out = Play(gp, rules, keys, 10, 20);
  ASSERT_GE(out.size(), 3u);
  EXPECT_EQ(out[0].last, "g0n");
  EXPECT_EQ(out[1].first, "g1m");
  EXPECT_EQ(out[1].last, "g2m");
}

TEST(GrandparentCutter, FindsTheRegisteredJobByOutputLevelAndRange) {
  GrandparentCutter cutter(nullptr);
  rocksdb::SstPartitioner::Context c{};
  c.output_level = 2;
  c.smallest_user_key = "k2";
  c.largest_user_key = "k3";
  EXPECT_EQ(cutter.CreatePartitioner(c), nullptr) << "no job registered";
  cutter.Register(1, 2, "k1", "k5", {{"k0", "k9", 100}}, {1000, 500, true});
  EXPECT_NE(cutter.CreatePartitioner(c), nullptr);
  c.output_level = 3;
  EXPECT_EQ(cutter.CreatePartitioner(c), nullptr) << "another output level";
  c.output_level = 2;
  c.smallest_user_key = "k6";
  c.largest_user_key = "k7";
  EXPECT_EQ(cutter.CreatePartitioner(c), nullptr) << "another key range";
  c.smallest_user_key = "k2";
  c.largest_user_key = "k3";
  cutter.Unregister(1);
  EXPECT_EQ(cutter.CreatePartitioner(c), nullptr) << "unregistered";

  // A partitioner the user set is kept, and cuts wherever it says.
  GrandparentCutter wrapped(rocksdb::NewSstPartitionerFixedPrefixFactory(1));
  std::unique_ptr<rocksdb::SstPartitioner> p = wrapped.CreatePartitioner(c);
  ASSERT_NE(p, nullptr);
  rocksdb::Slice a("a1"), b("b1");
  EXPECT_EQ(p->ShouldPartition(rocksdb::PartitionerRequest(a, b, 10)), rocksdb::kRequired);
}

// Under RocksDB: 20 files at L3, one L0 file over all of them compacted to
// L2 by CompactFiles. Uncut it is one file over all 20; registered with the
// cutter every output overlaps at most max_compaction_bytes of L3.
TEST(GrandparentCutter, CutsCompactFilesOutputsUnderRocksDb) {
  for (bool registered : {false, true}) {
    TempDir dir;
    auto cutter = std::make_shared<GrandparentCutter>(nullptr);
    rocksdb::Options o;
    o.create_if_missing = true;
    o.compaction_style = rocksdb::kCompactionStyleNone;
    o.num_levels = 4;
    o.compression = rocksdb::kNoCompression;
    o.sst_partitioner_factory = cutter;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    const std::string value(1000, 'v');
    rocksdb::CompactionOptions co;
    co.output_file_size_limit = 64 << 20;
    for (int f = 0; f < 20; ++f) {
      for (int i = 0; i < 50; ++i) ASSERT_TRUE(db->Put({}, Key("k%05d", f * 100 + i * 2), value).ok());
      ASSERT_TRUE(db->Flush({}).ok());
      rocksdb::ColumnFamilyMetaData meta;
      db->GetColumnFamilyMetaData(&meta);
      ASSERT_EQ(meta.levels[0].files.size(), 1u);
      ASSERT_TRUE(db->CompactFiles(co, {meta.levels[0].files[0].name}, 3).ok());
    }
    for (int i = 0; i < 2000; i += 10) ASSERT_TRUE(db->Put({}, Key("k%05d", i + 1), value).ok());
    ASSERT_TRUE(db->Flush({}).ok());
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    ASSERT_EQ(meta.levels[3].files.size(), 20u);
    std::vector<GrandparentFile> gp;
    for (const auto& f : meta.levels[3].files) gp.push_back({f.smallestkey, f.largestkey, f.size});
    const CutRules rules{3 * gp[0].size_bytes, co.output_file_size_limit, false};
    const rocksdb::SstFileMetaData& l0 = meta.levels[0].files[0];
    if (registered) cutter->Register(1, 2, l0.smallestkey, l0.largestkey, gp, rules);
    std::vector<std::string> outputs;
    ASSERT_TRUE(db->CompactFiles(co, {l0.name}, 2, -1, &outputs).ok());
    cutter->Unregister(1);

    db->GetColumnFamilyMetaData(&meta);
    if (!registered) {
      EXPECT_EQ(meta.levels[2].files.size(), 1u);
      EXPECT_EQ(cutter->cuts(), 0u);
      continue;
    }
    EXPECT_GE(meta.levels[2].files.size(), 7u);  // 20 grandparents, at most 3 per output
    EXPECT_EQ(cutter->cuts(), meta.levels[2].files.size() - 1);
    for (const auto& f : meta.levels[2].files) {
      auto [n, bytes] = Overlap(gp, {f.smallestkey, f.largestkey, f.size});
      EXPECT_LE(bytes, rules.max_compaction_bytes) << f.name << " overlaps " << n << " L3 files";
    }
    // Nothing lost: every key written is there.
    for (int i = 0; i < 2000; i += 10) {
      std::string v;
      EXPECT_TRUE(db->Get({}, Key("k%05d", i + 1), &v).ok()) << i;
    }
  }
}

}  // namespace
}  // namespace zonekv
