// End-to-end runs of the benchmark runner through RocksDB: the stable JSON
// keys are present and numeric, and bad configurations are refused.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "report.h"
#include "zonekv/bench.h"

namespace zonekv {
namespace {

// A small device on which flushes and compactions happen within a second.
BenchConfig TinyConfig(const std::string& workload) {
  BenchConfig c;
  c.fs = "zonekv";
  c.device_spec = "ram:zones=32,zone_size=4M,max_open=14,max_active=14";
  c.workloads = {workload};
  c.num = 3000;
  c.value_size = 1000;
  c.threads = 2;
  c.rocksdb_knobs = {{"write_buffer_size", "512K"}, {"target_file_size_base", "512K"}};
  return c;
}

const Json* At(const Json& j, const std::string& path) {
  const Json* cur = &j;
  size_t start = 0;
  while (cur != nullptr) {
    size_t dot = path.find('.', start);
    cur = cur->Find(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

void ExpectStableKeys(const Json& j) {
  const char* numeric[] = {
      "workload.ops", "workload.ops_per_sec", "workload.mb_per_sec", "workload.put_us_p50", "workload.put_us_p99",
      "workload.get_us_p50", "workload.get_us_p99", "fs.host_write_bytes", "fs.zc_copy_bytes.blob",
      "fs.zc_copy_bytes.sst", "fs.zc_copy_bytes.wal", "fs.zc_copy_bytes.other", "fs.resets_runtime", "fs.resets_zc",
      "fs.ezrc", "fs.r_wp", "fs.finish_pad_bytes", "fs.dlwa", "fs.fs_waf", "fs.space_used_ratio_end",
      "fs.io_block_time_s", "rocksdb.blobgc_copy_bytes", "rocksdb.compaction_time_s", "rocksdb.stall_time_s",
      "rocksdb.flush_count", "rocksdb.compaction_count", "config.seed", "config.rocksdb.write_buffer_size",
      "config.workload.value_size"};
  for (const char* key : numeric) {
    const Json* v = At(j, key);
    ASSERT_NE(v, nullptr) << key;
    EXPECT_EQ(v->type(), Json::Type::kNumber) << key;
  }
  ASSERT_NE(At(j, "config.device"), nullptr);
  ASSERT_NE(At(j, "config.fs"), nullptr);
  const Json* ts = j.Find("timeseries");
  ASSERT_NE(ts, nullptr);
  EXPECT_EQ(ts->type(), Json::Type::kArray);
  EXPECT_EQ(j.Find("error"), nullptr);
}

TEST(BenchTest, FillRandomReportsEveryStableKey) {
  BenchOutput out;
  Status s = RunBench(TinyConfig("fillrandom"), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectStableKeys(out.json);
  // A run that names no scheme on zonekv runs coop, and records it.
  EXPECT_EQ(At(out.json, "config.scheme.name")->str(), "coop");
  EXPECT_NE(out.summary.find("scheme coop,"), std::string::npos) << out.summary;
  EXPECT_EQ(At(out.json, "workload.ops")->number(), 6000);  // --num per thread, 2 threads
  EXPECT_GT(At(out.json, "workload.put_us_p99")->number(), 0);
  EXPECT_GT(At(out.json, "fs.host_write_bytes")->number(), 6000 * 1000);
  EXPECT_GE(At(out.json, "rocksdb.flush_count")->number(), 1);
  EXPECT_EQ(At(out.json, "config.rocksdb.write_buffer_size")->number(), 512 * 1024);
  // The bench bounds the info LOG, which lives on the zoned device.
  EXPECT_EQ(At(out.json, "config.rocksdb.max_log_file_size")->number(), 1 << 20);
  EXPECT_EQ(At(out.json, "config.fs.emergency_zc")->type(), Json::Type::kBool);
  // 6000 puts cost the process some CPU, and it is reported per operation.
  ASSERT_NE(At(out.json, "workload.cpu_s"), nullptr);
  const double cpu_s = At(out.json, "workload.cpu_s")->number();
  EXPECT_GT(cpu_s, 0);
  EXPECT_DOUBLE_EQ(At(out.json, "workload.cpu_us_per_op")->number(), cpu_s * 1e6 / 6000);
  EXPECT_NE(out.summary.find("fillrandom"), std::string::npos);
}

TEST(BenchTest, EngineKnobsReachTheFileSystem) {
  BenchConfig c = TinyConfig("fillrandom");
  c.num = 500;
  c.fs_knobs = {{"emergency_zc", "false"}, {"zc", "greedy"}};
  c.rocksdb_knobs.push_back({"keep_log_file_num", "3"});
  c.rocksdb_knobs.push_back({"compaction_pri", "kByCompensatedSize"});
  BenchOutput out;
  Status s = RunBench(c, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(At(out.json, "config.fs.emergency_zc")->boolean());
  EXPECT_EQ(At(out.json, "config.fs.policy.zc")->str(), "greedy");
  EXPECT_EQ(At(out.json, "config.rocksdb.keep_log_file_num")->number(), 3);
  EXPECT_EQ(At(out.json, "config.rocksdb.compaction_pri")->str(), "kByCompensatedSize");
}

TEST(BenchTest, YcsbLoadsThenMeasuresTheRunPhase) {
  BenchConfig c = TinyConfig("ycsb-a");
  c.record_count = 2000;
  c.operation_count = 4000;
  BenchOutput out;
  Status s = RunBench(c, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectStableKeys(out.json);
  EXPECT_EQ(At(out.json, "workload.ops")->number(), 4000);
  double reads = At(out.json, "workload.reads")->number();
  EXPECT_NEAR(reads / 4000, 0.5, 0.05);
  // Every key read was loaded first.
  EXPECT_EQ(At(out.json, "workload.reads_found")->number(), reads);
  EXPECT_GT(At(out.json, "workload.get_us_p50")->number(), 0);
}

TEST(BenchTest, BadConfigurationsAreRefusedBeforeRunning) {
  struct Case {
    const char* what;
    BenchConfig config;
  };
  std::vector<Case> cases;
  cases.push_back({"threads", TinyConfig("fillrandom")});
  cases.back().config.threads = 0;
  cases.push_back({"workload", TinyConfig("fillrandomm")});
  cases.push_back({"scheme", TinyConfig("fillrandom")});
  cases.back().config.scheme = "nope";
  cases.push_back({"write_buffer_size", TinyConfig("fillrandom")});
  cases.back().config.rocksdb_knobs = {{"write_buffer_size", "lots"}};
  cases.push_back({"compaction_pri", TinyConfig("fillrandom")});
  cases.back().config.rocksdb_knobs = {{"compaction_pri", "kLargestFirst"}};
  cases.push_back({"--zc", TinyConfig("fillrandom")});
  cases.back().config.fs_knobs = {{"zc", "sometimes"}};
  cases.push_back({"--emergency_zc", TinyConfig("fillrandom")});
  cases.back().config.fs_knobs = {{"emergency_zc", "maybe"}};
  cases.push_back({"--device", TinyConfig("fillrandom")});
  cases.back().config.device_spec = "ram:zones=0";
  cases.push_back({"--compaction", TinyConfig("fillrandom")});
  cases.back().config.controller_knobs = {{"compaction", "sometimes"}};
  cases.push_back({"--fs", TinyConfig("fillrandom")});
  cases.back().config.fs = "ext9";
  cases.push_back({"ycsb-a", TinyConfig("ycsb-a")});
  cases.back().config.workloads.push_back("fillseq");
  for (auto& c : cases) {
    BenchOutput out;
    Status s = RunBench(c.config, &out);
    EXPECT_FALSE(s.ok()) << c.what;
    EXPECT_NE(s.ToString().find(c.what), std::string::npos) << s.ToString();
    EXPECT_EQ(out.json.Find("workload"), nullptr) << c.what;
  }
}

TEST(BenchTest, PosixReferenceRunsTheSameWorkload) {
  std::string dir = ::testing::TempDir() + "zonekv_bench_posix_" + std::to_string(getpid());
  BenchConfig c = TinyConfig("fillseq");
  c.workloads.push_back("readrandom");
  c.fs = "posix";
  c.db_dir = dir;
  BenchOutput out;
  Status s = RunBench(c, &out);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectStableKeys(out.json);
  // Named no scheme: on posix that is baseline (coop's zone-aware parts
  // would refuse to run there).
  EXPECT_EQ(At(out.json, "config.scheme.name")->str(), "baseline");
  // fillseq then readrandom, both measured; every read finds its key.
  EXPECT_EQ(At(out.json, "workload.reads_found")->number(), At(out.json, "workload.reads")->number());
  EXPECT_EQ(At(out.json, "workload.reads")->number(), 6000);
}

// RocksDB's own compactions on zonekv are observed: every one is recorded
// with the metrics the external compactor reports, S_same included.
TEST(BenchTest, NativeCompactionsReportSameZoneScores) {
  BenchConfig c = TinyConfig("fillrandom");
  c.num = 6000;
  BenchOutput out;
  Status s = RunBench(c, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(At(out.json, "config.controllers.compaction")->str(), "native");
  ASSERT_NE(At(out.json, "controllers.compactor.metrics.compactions"), nullptr) << out.json.Dump(2);
  double n = At(out.json, "controllers.compactor.metrics.compactions")->number();
  EXPECT_GE(n, 1);
  EXPECT_EQ(n, At(out.json, "rocksdb.compaction_count")->number());
  const Json* same = At(out.json, "controllers.compactor.metrics.s_same_mean");
  ASSERT_NE(same, nullptr);
  EXPECT_GT(same->number(), 0);
  EXPECT_LE(same->number(), 1);
  EXPECT_GT(At(out.json, "controllers.compactor.metrics.bytes_read")->number(), 0);
}

TEST(BenchTest, ExternalCompactorAndZCutoffRunWhenAsked) {
  BenchConfig c = TinyConfig("fillrandom");
  c.scheme = "a-liza";  // acc compaction
  c.rocksdb_knobs.push_back({"enable_blob_files", "true"});
  c.rocksdb_knobs.push_back({"enable_blob_garbage_collection", "true"});
  c.controller_knobs = {{"blob_gc_cutoff", "zcutoff"}};
  BenchOutput out;
  Status s = RunBench(c, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectStableKeys(out.json);
  EXPECT_EQ(At(out.json, "config.controllers.compaction")->str(), "acc");
  EXPECT_EQ(At(out.json, "config.controllers.blob_gc_cutoff")->str(), "zcutoff");
  ASSERT_NE(At(out.json, "controllers.compactor"), nullptr);
  ASSERT_NE(At(out.json, "controllers.zcutoff.updates"), nullptr);
  EXPECT_GT(At(out.json, "controllers.zcutoff.updates")->number(), 0);
  // The compactor's jobs are the run's compactions.
  EXPECT_EQ(At(out.json, "rocksdb.compaction_count")->number(),
            At(out.json, "controllers.compactor.metrics.compactions")->number());
}

// Issue 19's schemes end to end: CAZA on RocksDB's native compaction
// (n-caza), and the hybrid (h-caza) with its threshold set so that the run
// crosses it: RocksDB compacts first, the picker once free space falls.
TEST(BenchTest, NativeCazaAndHybridCompactionRun) {
  // 30 MB, so that RocksDB compacts before the run ends (with 3 MB it
  // sometimes had not, and the native count was missing).
  BenchConfig n = TinyConfig("fillrandom");
  n.scheme = "n-caza";
  n.num = 30000;
  BenchOutput nout;
  Status s = RunBench(n, &nout);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(At(nout.json, "config.fs.policy.alloc")->str(), "caza");
  EXPECT_EQ(At(nout.json, "controllers.compactor.picker")->str(), "native");
  const Json* native = At(nout.json, "controllers.compactor.metrics.picked_by.native");
  ASSERT_NE(native, nullptr) << nout.json.Dump().substr(0, 800);
  EXPECT_GT(native->number(), 0);

  // 30 MB of distinct keys into 128 MiB: free space falls below 90% after
  // about 13 MB of writes (26 flushes, so RocksDB has compacted by then) and
  // ends below 80%.
  BenchConfig h = TinyConfig("fillrandom");
  h.scheme = "h-caza";
  h.num = 30000;
  h.controller_knobs = {{"hybrid_native_free_pct", "90"}};
  BenchOutput hout;
  s = RunBench(h, &hout);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto number = [&](const char* key) {
    const Json* v = At(hout.json, key);
    return v != nullptr && v->type() == Json::Type::kNumber ? v->number() : 0.0;
  };
  EXPECT_EQ(number("config.controllers.hybrid_native_free_pct"), 90);
  ASSERT_NE(At(hout.json, "controllers.compactor.hybrid"), nullptr) << hout.json.Dump().substr(0, 500);
  EXPECT_GE(number("controllers.compactor.hybrid.to_external"), 1);
  EXPECT_GT(number("controllers.compactor.metrics.picked_by.native"), 0);
  EXPECT_GT(number("controllers.compactor.metrics.picked_by.sica") + number("controllers.compactor.metrics.picked_by.zaca"), 0)
      << "the picker never ran";

  BenchConfig bad = TinyConfig("fillrandom");
  bad.controller_knobs = {{"hybrid_native_free_pct", "30"}};  // with native compaction
  s = RunBench(bad, &hout);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("external picker"), std::string::npos) << s.ToString();
}

// CAZA decides for every compaction output, under the external compactor
// (a-caza), native compaction (n-caza) and the hybrid (h-caza): each output
// reaches the allocator with its level and key range (fs.alloc_reasons
// counts the decisions). Under the external compactor the listener's note
// for a CompactFiles output (level unknown) once erased the compactor's
// hint, and CAZA placed no compaction output at all.
TEST(BenchTest, CazaPlacesCompactionOutputsUnderEveryCompactionMode) {
  for (const char* scheme : {"a-caza", "n-caza", "h-caza"}) {
    BenchConfig c = TinyConfig("fillrandom");
    c.scheme = scheme;
    c.num = 30000;
    if (std::string(scheme) == "h-caza") c.controller_knobs = {{"hybrid_native_free_pct", "90"}};
    BenchOutput out;
    Status s = RunBench(c, &out);
    ASSERT_TRUE(s.ok()) << scheme << ": " << s.ToString();
    const Json* reasons = At(out.json, "fs.alloc_reasons");
    ASSERT_NE(reasons, nullptr) << scheme;
    double caza = 0;
    for (const char* r : {"caza.partner", "caza.neighbour", "caza.fallback"}) {
      if (const Json* n = reasons->Find(r)) caza += n->number();
    }
    const Json* compactions = At(out.json, "controllers.compactor.metrics.compactions");
    ASSERT_NE(compactions, nullptr) << scheme;
    EXPECT_GT(compactions->number(), 0) << scheme;
    EXPECT_GE(caza, compactions->number()) << scheme << ": compaction outputs reached CAZA without a hint; "
                                           << reasons->Dump();
  }
}

// Issue 20's coop scheme composes every paper's mechanism in one run: BAZA
// places the blob files and CAZA the compaction outputs (native
// compaction), FAR resets, Z_Cutoff and the space-pressure blob GC run.
TEST(BenchTest, CoopComposesEveryPapersMechanism) {
  BenchConfig c = TinyConfig("fillrandom");
  c.scheme = "coop";
  c.num = 30000;
  c.rocksdb_knobs.push_back({"enable_blob_files", "true"});
  c.rocksdb_knobs.push_back({"min_blob_size", "500"});
  c.rocksdb_knobs.push_back({"blob_file_size", "1M"});
  c.rocksdb_knobs.push_back({"enable_blob_garbage_collection", "true"});
  BenchOutput out;
  Status s = RunBench(c, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectStableKeys(out.json);
  EXPECT_EQ(At(out.json, "config.fs.policy.alloc")->str(), "caza");
  EXPECT_EQ(At(out.json, "config.fs.policy.blob_alloc")->str(), "baza");
  EXPECT_EQ(At(out.json, "config.fs.policy.reset")->str(), "far");
  EXPECT_EQ(At(out.json, "config.controllers.blob_gc_cutoff")->str(), "zcutoff");
  EXPECT_EQ(At(out.json, "config.controllers.space_gc")->str(), "zones");
  const Json* reasons = At(out.json, "fs.alloc_reasons");
  ASSERT_NE(reasons, nullptr);
  EXPECT_NE(reasons->Find("baza"), nullptr) << "no blob file placed by BAZA: " << reasons->Dump();
  double caza = 0;
  for (const char* r : {"caza.partner", "caza.neighbour", "caza.fallback"}) {
    if (const Json* n = reasons->Find(r)) caza += n->number();
  }
  EXPECT_GT(caza, 0) << "no compaction output placed by CAZA: " << reasons->Dump();
  ASSERT_NE(At(out.json, "controllers.zcutoff.updates"), nullptr);
  EXPECT_GT(At(out.json, "controllers.zcutoff.updates")->number(), 0);
  EXPECT_NE(At(out.json, "controllers.space_gc"), nullptr);
}

TEST(BenchTest, ZoneAwareControllersNeedTheZonedFileSystem) {
  BenchConfig c = TinyConfig("fillrandom");
  c.fs = "posix";
  c.db_dir = ::testing::TempDir() + "zonekv_bench_never_created";
  c.controller_knobs = {{"compaction", "zaca"}};
  BenchOutput out;
  Status s = RunBench(c, &out);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("--fs=zonekv"), std::string::npos);

  // A zone-aware part that comes from the scheme names the scheme.
  c.controller_knobs.clear();
  c.scheme = "coop";
  s = RunBench(c, &out);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("scheme coop on --fs=posix: "), std::string::npos) << s.ToString();
}

TEST(BenchTest, NoSpaceStillProducesAReport) {
  BenchConfig c = TinyConfig("fillrandom");
  c.device_spec = "ram:zones=8,zone_size=1M,max_open=4,max_active=4";
  c.num = 20000;  // 40 MB of values into 5 MB of data zones
  BenchOutput out;
  Status s = RunBench(c, &out);
  EXPECT_FALSE(s.ok());
  ASSERT_NE(out.json.Find("workload"), nullptr);
  const Json* err = out.json.Find("error");
  ASSERT_NE(err, nullptr);
  EXPECT_FALSE(err->str().empty());
  const Json* code = out.json.Find("error_code");
  ASSERT_NE(code, nullptr);
  EXPECT_EQ(code->str(), "NoSpace");
  EXPECT_TRUE(s.Is(Status::Code::kNoSpace)) << s.ToString();
}

// A writer that RocksDB stopped because a flush ran out of space gets
// Incomplete with the background error's text: the report calls it NoSpace,
// keeping the text; without a background NoSpace an error stays what it is.
TEST(BenchTest, WritesStoppedByABackgroundNoSpaceAreNoSpace) {
  const std::string text = "update of key 9: Result incomplete: IO error: No space left on device: no zone";
  Status s = ClassifyNoSpace(Status::IOError(text), true);
  EXPECT_TRUE(s.Is(Status::Code::kNoSpace)) << s.ToString();
  EXPECT_EQ(s.message().rfind(text, 0), 0u) << s.message();
  EXPECT_TRUE(ClassifyNoSpace(Status::IOError(text), false).Is(Status::Code::kIOError));
  EXPECT_TRUE(ClassifyNoSpace(Status::Corruption("bad block"), true).Is(Status::Code::kCorruption));
  EXPECT_TRUE(ClassifyNoSpace(Status::OK(), true).ok());
  Status direct = Status::NoSpace("no zone for /db/000004.log");
  EXPECT_EQ(ClassifyNoSpace(direct, true).message(), direct.message());
}

// Space-pressure blob GC (docs/space.md) through real RocksDB: BlobDB
// overwrites of 16 KiB values (live data 28% of a small device), with the
// trigger at 40% free so that it must act: its collections (SetOptions,
// CompactFiles, the options restored) run, under RocksDB's own compactions
// and under the external compactor, and no writer meets NoSpace. (At 37%
// live data it completes about half the runs, baza+ none: the shortfall is
// in notes/issue-16.md.)
BenchConfig OverwriteUnderPressure(const std::string& compaction) {
  BenchConfig c;
  c.fs = "zonekv";
  c.device_spec = "ram:zones=32,zone_size=16M,max_open=14,max_active=14,timing=none";
  c.workloads = {"fillrandom", "overwrite", "overwrite", "overwrite"};
  c.num = 9000;
  c.value_size = 16384;
  c.threads = 1;
  c.scheme = "baza+space";
  c.rocksdb_knobs = {{"enable_blob_files", "true"},
                     {"min_blob_size", "4096"},
                     {"blob_file_size", "64M"},
                     {"write_buffer_size", "8M"},
                     {"enable_blob_garbage_collection", "true"}};
  c.controller_knobs = {{"space_gc_free_pct", "40"}};
  if (!compaction.empty()) c.controller_knobs.push_back({"compaction", compaction});
  return c;
}

class SpaceGcBenchTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SpaceGcBenchTest, KeepsAnOverwriteWorkloadGoing) {
  BenchOutput out;
  Status s = RunBench(OverwriteUnderPressure(GetParam()), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(At(out.json, "config.controllers.space_gc")->str(), "zones");
  const Json* gc = At(out.json, "controllers.space_gc");
  ASSERT_NE(gc, nullptr);
  EXPECT_GE(gc->Find("rounds")->number(), 1);
  EXPECT_GE(gc->Find("files_collected")->number(), 1);
  EXPECT_GT(gc->Find("relocate_bytes_est")->number(), 0);
  EXPECT_EQ(At(out.json, "fs.nospace_errors")->number(), 0);
}

INSTANTIATE_TEST_SUITE_P(Compaction, SpaceGcBenchTest, ::testing::Values("", "acc"),
                         [](const auto& info) { return info.param.empty() ? std::string("native") : info.param; });

// `j` rebuilt from `keys`, in that order: its Dump equals j's exactly when j
// has these keys and no other, in this order.
Json Rebuilt(const Json& j, std::initializer_list<const char*> keys) {
  Json out = Json::Object();
  for (const char* k : keys) {
    if (const Json* v = j.Find(k)) out.Set(k, *v);
  }
  return out;
}

// The number after the last `"key":` in `text`; -1 if there is none.
double LastNumber(const std::string& text, const std::string& key) {
  size_t at = text.rfind("\"" + key + "\":");
  return at == std::string::npos ? -1 : std::strtod(text.c_str() + at + key.size() + 3, nullptr);
}

// The results' fs object holds the file system's statistics under the keys
// experiments parse, then the bench's own; the sampler and the text summary
// report the same figures.
TEST(BenchTest, FsObjectSamplerAndSummaryCarryTheFileSystemsStatistics) {
  BenchOutput out;
  Status s = RunBench(TinyConfig("fillrandom"), &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Json& fs = *out.json.Find("fs");
  EXPECT_EQ(Rebuilt(fs, {"host_write_bytes", "zc_copy_bytes", "zc_copy_sst_by_level", "resets_runtime", "resets_zc",
                         "ezrc", "r_wp", "r_wp_min", "fs_waf", "space_used_ratio", "free_ratio", "free_bytes", "used_bytes",
                         "reclaimable_bytes", "io_block_time_s", "policy_time_us", "finishes", "finishes_avoided", "nospace_errors",
                         "zone_preemptions", "alloc_reasons", "zc_passes", "zc_emergency_passes", "files", "sst_index", "zones_empty",
                         "zones_full", "journal_rolls", "lock", "journal", "space", "finish_pad_bytes", "dlwa",
                         "space_used_ratio_end", "free_ratio_end", "space_amp", "device"})
                .Dump(),
            fs.Dump());
  auto num = [&](const char* path) {
    const Json* v = At(fs, path);
    EXPECT_NE(v, nullptr) << path;
    return v == nullptr ? -1 : v->number();
  };
  EXPECT_EQ(num("zc_copy_bytes.total"),
            num("zc_copy_bytes.blob") + num("zc_copy_bytes.sst") + num("zc_copy_bytes.wal") + num("zc_copy_bytes.other"));
  EXPECT_EQ(num("ezrc"), num("resets_runtime") + num("resets_zc"));
  EXPECT_EQ(num("space_used_ratio_end"), num("space_used_ratio"));
  EXPECT_EQ(num("free_ratio_end"), num("free_ratio"));
  EXPECT_GT(num("free_ratio"), 0);
  EXPECT_LT(num("free_ratio"), 1);
  EXPECT_DOUBLE_EQ(num("space_amp"), (num("used_bytes") + num("reclaimable_bytes")) / num("used_bytes"));
  EXPECT_EQ(num("dlwa"), num("device.dlwa"));
  EXPECT_EQ(num("finish_pad_bytes"), num("device.finish_pad_bytes"));

  // The sampler's last sample (taken when the workload ended, before the report).
  std::string ts = out.json.Find("timeseries")->Dump();
  double sampled_free = LastNumber(ts, "free_ratio");
  EXPECT_GT(sampled_free, 0);
  EXPECT_LE(sampled_free, 1);
  EXPECT_GE(LastNumber(ts, "zc_copy_bytes"), 0);
  EXPECT_LE(LastNumber(ts, "zc_copy_bytes"), num("zc_copy_bytes.total"));
  EXPECT_GE(LastNumber(ts, "resets"), 0);
  EXPECT_LE(LastNumber(ts, "resets"), num("ezrc"));

  char line[256];
  std::snprintf(line, sizeof(line), "resets: runtime %.0f, ZC %.0f, EZRC %.0f, R_WP %.3f; DLWA %.3f, FS WAF %.3f, ",
                num("resets_runtime"), num("resets_zc"), num("ezrc"), num("r_wp"), num("dlwa"), num("fs_waf"));
  EXPECT_NE(out.summary.find(line), std::string::npos) << line << "\nnot in\n" << out.summary;
  std::snprintf(line, sizeof(line), "space used at end %.1f%%, I/O blocked %.2f s", 100 * num("space_used_ratio_end"),
                num("io_block_time_s"));
  EXPECT_NE(out.summary.find(line), std::string::npos) << line << "\nnot in\n" << out.summary;
}

// With an external compactor its jobs are the run's compactions, count and
// time; the controllers object has the compactor's and Z_Cutoff's keys.
TEST(BenchTest, ExternalCompactorsStatsAreTheRunsCompactions) {
  BenchConfig c = TinyConfig("fillrandom");
  c.scheme = "baseline";  // no space-pressure blob GC: exactly these two controllers
  c.controller_knobs = {{"compaction", "sica"}, {"blob_gc_cutoff", "zcutoff"}};
  BenchOutput out;
  Status s = RunBench(c, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Json& ctl = *out.json.Find("controllers");
  EXPECT_EQ(Rebuilt(ctl, {"compactor", "zcutoff"}).Dump(), ctl.Dump());
  const Json& compactor = *ctl.Find("compactor");
  EXPECT_EQ(Rebuilt(compactor, {"picker", "picker_options", "threads", "max_subcompactions", "subcompactions_hinted",
                                "subcompactions_unhinted", "grandparent_cuts", "parallel_jobs", "lsm_reads", "metrics"})
                .Dump(),
            compactor.Dump());
  EXPECT_EQ(compactor.Find("picker")->str(), "sica");
  double jobs = At(compactor, "metrics.compactions")->number();
  EXPECT_GE(jobs, 1);
  EXPECT_EQ(At(out.json, "rocksdb.compaction_count")->number(), jobs);
  EXPECT_EQ(At(out.json, "rocksdb.compaction_time_s")->number(), At(compactor, "metrics.time_us")->number() / 1e6);
  const Json& zcutoff = *ctl.Find("zcutoff");
  EXPECT_EQ(Rebuilt(zcutoff, {"updates", "changes", "cutoff", "eligible_files", "live_files", "min_ybiz",
                              "update_us_mean", "update_us_max", "set_options_us_total", "set_options_us_max",
                              "compute_us_mean"})
                .Dump(),
            zcutoff.Dump());
}

// The posix reference writes the stable fs keys with neutral values.
TEST(BenchTest, PosixFsObjectHasTheStableKeysWithNeutralValues) {
  std::string dir = ::testing::TempDir() + "zonekv_bench_posix_fs_" + std::to_string(getpid());
  BenchConfig c = TinyConfig("fillseq");
  c.fs = "posix";
  c.db_dir = dir;
  BenchOutput out;
  Status s = RunBench(c, &out);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const Json& fs = *out.json.Find("fs");
  EXPECT_EQ(Rebuilt(fs, {"host_write_bytes", "zc_copy_bytes", "resets_runtime", "resets_zc", "ezrc", "r_wp",
                         "finish_pad_bytes", "dlwa", "fs_waf", "space_used_ratio_end", "io_block_time_s"})
                .Dump(),
            fs.Dump());
  EXPECT_EQ(fs.Find("zc_copy_bytes")->Dump(), R"({"blob":0,"sst":0,"wal":0,"other":0})");
  EXPECT_EQ(fs.Find("host_write_bytes")->number(), At(out.json, "rocksdb.write_bytes")->number());
  EXPECT_EQ(fs.Find("dlwa")->number(), 1);
  EXPECT_EQ(fs.Find("fs_waf")->number(), 1);
  EXPECT_EQ(fs.Find("ezrc")->number(), 0);
  EXPECT_NE(out.summary.find("resets: runtime 0, ZC 0, EZRC 0, R_WP 0.000; DLWA 1.000, FS WAF 1.000"),
            std::string::npos)
      << out.summary;
}

}  // namespace
}  // namespace zonekv

namespace zonekv {
namespace {

// db_bench's names: --writes and --reads set each benchmark's operations,
// --duration ends a benchmark and starts the next, and the summary carries
// db_bench's result line, in the form scripts parse.
TEST(BenchDbBenchNamesTest, WritesReadsDurationAndResultLines) {
  BenchConfig c = TinyConfig("fillrandom");
  c.workloads = {"fillrandom", "readrandom"};
  c.threads = 2;
  c.writes = 700;
  c.reads = 300;
  BenchOutput out;
  ASSERT_TRUE(RunBench(c, &out).ok());
  const Json* phases = At(out.json, "workload.phases");
  ASSERT_NE(phases, nullptr);
  // Operations per benchmark, read from db_bench's result lines.
  auto result_lines = [](const std::string& summary) {
    std::regex line(R"(^(\w+)\s+:\s+([\d.]+) micros/op (\d+) ops/sec ([\d.]+) seconds (\d+) operations;\s+([\d.]+) MB/s)");
    std::map<std::string, uint64_t> ops;
    std::istringstream in(summary);
    for (std::string l; std::getline(in, l);) {
      std::smatch m;
      if (std::regex_search(l, m, line)) ops[m[1]] = std::stoull(m[5]);
    }
    return ops;
  };
  std::map<std::string, uint64_t> ops = result_lines(out.summary);
  EXPECT_EQ(ops["fillrandom"], 1400u) << out.summary;  // 700 per thread
  EXPECT_EQ(ops["readrandom"], 600u) << out.summary;
  EXPECT_NE(out.summary.find(" of 600 found)"), std::string::npos) << out.summary;

  // --duration: each benchmark runs about that long, past --num, and the run goes on.
  c.writes = c.reads = 0;
  c.num = 100;
  c.duration_s = 1;
  BenchOutput timed;
  ASSERT_TRUE(RunBench(c, &timed).ok());
  const Json* p = At(timed.json, "workload.phases");
  ASSERT_NE(p, nullptr);
  std::string dump = p->Dump();
  EXPECT_EQ(dump.find("\"timed_out\":true"), std::string::npos) << dump;
  std::map<std::string, uint64_t> timed_ops = result_lines(timed.summary);
  EXPECT_GT(timed_ops["fillrandom"], 200u) << timed.summary;  // past 2 threads x --num
  EXPECT_GT(timed_ops["readrandom"], 200u) << timed.summary;

  // YCSB has its own names for these.
  BenchConfig y = TinyConfig("ycsb-a");
  y.writes = 10;
  BenchOutput bad;
  Status s = RunBench(y, &bad);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("--operationcount"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace zonekv
