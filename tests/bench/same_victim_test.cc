// Same-Victim GC end to end (RocksDB BlobDB on zonekv): with baza+ (BAZA
// allocation, the Z_Cutoff controller, and cleaning that leaves all-blob
// zones to blob GC above 5% free) zone cleaning copies no blob data on a
// workload where the baseline's cleaning copies hundreds of MiB. Without the
// deferral (zc_defer_blob=0) about one run in three copied 0.5-1.5 MiB: the
// newest blob files of a just-filled zone, not yet relocated by RocksDB's
// compaction-driven blob GC. The Same-Victim paper's WL(A) at 1/128 of its
// size; about ten seconds per run, so it is labelled nosan (the sanitizer
// build skips it).
#include <cstdio>

#include <gtest/gtest.h>

#include "zonekv/bench.h"

namespace zonekv {
namespace {

// The same-victim experiment's WL(A) configuration at scale 1/128
// (experiments/exps/same-victim.py): 64 zones of 8 MiB, SST and blob files of
// 512 KiB, 1 KiB values, 12 GiB x s loaded then as much again in operations.
BenchConfig SameVictimWlA(const std::string& scheme, uint64_t seed) {
  BenchConfig c;
  c.fs = "zonekv";
  c.device_spec = "ram:zones=64,zone_size=8M,max_open=14,max_active=14";
  c.scheme = scheme;
  c.seed = seed;
  c.workloads = {"sv-wla"};
  c.key_size = 16;
  c.value_size = 1024;
  c.record_count = 196608;
  c.operation_count = 196608;
  c.threads = 1;
  c.rocksdb_knobs = {{"enable_blob_files", "true"},          {"min_blob_size", "0"},
                     {"blob_file_size", "512K"},             {"enable_blob_garbage_collection", "true"},
                     {"write_buffer_size", "512K"},          {"target_file_size_base", "512K"},
                     {"max_bytes_for_level_base", "2M"},     {"max_background_flushes", "2"},
                     {"max_background_compactions", "2"},    {"max_subcompactions", "4"}};
  return c;
}

double Number(const Json& j, const char* a, const char* b) {
  const Json* x = j.Find(a);
  const Json* y = x == nullptr ? nullptr : x->Find(b);
  return y == nullptr ? -1 : y->number();
}

TEST(SameVictimTest, BazaPlusCopiesNoBlobDataInZoneCleaning) {
  for (uint64_t seed : {1, 2}) {
    double copied[2] = {0, 0};
    const char* schemes[2] = {"baseline", "baza+"};
    for (int i = 0; i < 2; i++) {
      BenchOutput out;
      Status s = RunBench(SameVictimWlA(schemes[i], seed), &out);
      ASSERT_TRUE(s.ok()) << schemes[i] << " seed " << seed << ": " << s.ToString();
      const Json* zc = out.json.Find("fs") == nullptr ? nullptr : out.json.Find("fs")->Find("zc_copy_bytes");
      ASSERT_NE(zc, nullptr);
      copied[i] = zc->Find("blob")->number();
      std::printf("seed %llu %-8s: ZC blob copy %.1f MiB, BlobGC copy %.1f MiB\n",
                  static_cast<unsigned long long>(seed), schemes[i], copied[i] / (1 << 20),
                  Number(out.json, "rocksdb", "blobgc_copy_bytes") / (1 << 20));
    }
    EXPECT_GT(copied[0], 0) << "seed " << seed << ": the baseline's cleaning should copy blob data";
    EXPECT_EQ(copied[1], 0) << "seed " << seed << ": baza+ copied blob data during zone cleaning";
  }
}

}  // namespace
}  // namespace zonekv
