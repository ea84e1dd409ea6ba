// CompactionMetrics::Stats sums the jobs into typed fields (what the bench
// reads: all.compactions, all.time_us), and ToJson writes the
// controllers.compactor keys of docs/metrics.md in order with those values.
#include <gtest/gtest.h>

#include <initializer_list>

#include "compaction_metrics.h"
#include "zonekv/compactor.h"

namespace zonekv {
namespace {

// `j` rebuilt from `keys`, in that order: its Dump equals j's exactly when j
// has these keys and no other, in this order.
Json Rebuilt(const Json& j, std::initializer_list<const char*> keys) {
  Json out = Json::Object();
  for (const char* k : keys) {
    if (const Json* v = j.Find(k)) out.Set(k, *v);
  }
  return out;
}

CompactionJobRecord Job(uint64_t id, int level, const char* picker, uint64_t read, uint64_t written, uint64_t us) {
  CompactionJobRecord r;
  r.job_id = id;
  r.input_level = level;
  r.output_level = level + 1;
  r.input_files = 2;
  r.bytes_read = read;
  r.bytes_written = written;
  r.time_us = us;
  r.picked_by = picker;
  return r;
}

TEST(CompactionStatsTest, SumsJobsPerLevelAndPicker) {
  CompactionMetrics m;
  CompactionJobRecord a = Job(1, 0, "sica", 4 << 20, 3 << 20, 1000000);
  a.s_same = 0.5;
  a.s_inval = 0.25;
  CompactionJobRecord b = Job(2, 0, "zaca", 2 << 20, 2 << 20, 500000);
  b.s_same = 1.0;
  CompactionJobRecord c = Job(3, 1, "sica", 1 << 20, 1 << 20, 500000);
  c.trivial_move = true;
  for (const auto& j : {a, b, c}) m.AddJob(j);
  m.AddAborted();
  m.AddFailed();
  m.AddSubcompaction();
  for (uint64_t ns : {3000, 1000, 2000}) m.AddPickTime(ns);

  CompactionStats st = m.Stats();
  EXPECT_EQ(st.all.compactions, 3u);
  EXPECT_EQ(st.all.time_us, 2000000u);
  EXPECT_EQ(st.all.bytes_read, 7u << 20);
  EXPECT_EQ(st.all.bytes_written, 6u << 20);
  EXPECT_DOUBLE_EQ(st.all.read_mb_per_s(), 3.5);  // 7 MiB in 2 s
  EXPECT_EQ(st.all.trivial_moves, 1u);
  EXPECT_EQ(st.all.trivial_move_bytes_written, 1u << 20);
  ASSERT_TRUE(st.all.s_same_mean().has_value());
  EXPECT_DOUBLE_EQ(*st.all.s_same_mean(), 0.75);
  EXPECT_DOUBLE_EQ(*st.all.s_inval_mean(), 0.25);
  ASSERT_EQ(st.per_level.size(), 2u);
  EXPECT_EQ(st.per_level.at(0).compactions, 2u);
  EXPECT_EQ(st.per_level.at(1).compactions, 1u);
  EXPECT_FALSE(st.per_level.at(1).s_same_mean().has_value());
  EXPECT_EQ(st.picked_by.at("sica"), 2u);
  EXPECT_EQ(st.picked_by.at("zaca"), 1u);
  EXPECT_EQ(st.aborted, 1u);
  EXPECT_EQ(st.failed, 1u);
  EXPECT_EQ(st.subcompactions, 1u);
  EXPECT_EQ(st.pick_calls, 3u);
  EXPECT_DOUBLE_EQ(st.pick_mean_ns, 2000);
  EXPECT_EQ(st.pick_p99_ns, 3000u);
  EXPECT_EQ(st.pick_max_ns, 3000u);
  ASSERT_EQ(st.jobs.size(), 3u);
  EXPECT_EQ(st.jobs[2].job_id, 3u);

  Json j = st.ToJson();
  EXPECT_EQ(Rebuilt(j, {"compactions", "bytes_read", "bytes_written", "time_us", "read_mb_per_s",
                        "trivial_move_rewrites", "s_same_mean", "s_inval_mean", "aborted", "failed",
                        "subcompactions", "picked_by", "per_level", "picker_time_us", "jobs"})
                .Dump(),
            j.Dump());
  EXPECT_EQ(j.Find("compactions")->number(), 3);
  EXPECT_EQ(j.Find("time_us")->number(), 2000000);
  EXPECT_EQ(j.Find("read_mb_per_s")->number(), 3.5);
  EXPECT_EQ(j.Find("trivial_move_rewrites")->Dump(), R"({"jobs":1,"bytes_written":1048576})");
  EXPECT_EQ(j.Find("s_same_mean")->number(), 0.75);
  EXPECT_EQ(j.Find("picked_by")->Dump(), R"({"sica":2,"zaca":1})");
  EXPECT_EQ(j.Find("picker_time_us")->Dump(), R"({"calls":3,"mean":2,"p99":3,"max":3})");
  const Json& level1 = *j.Find("per_level");
  EXPECT_EQ(level1.Dump().find(R"({"level":0,"compactions":2,)"), 1u) << level1.Dump();
  EXPECT_NE(level1.Dump().find(R"("level":1,"compactions":1,)"), std::string::npos);
  EXPECT_NE(level1.Dump().find(R"("s_same_mean":null)"), std::string::npos);  // level 1 has no score
  const Json* jobs = j.Find("jobs");
  ASSERT_NE(jobs, nullptr);
  EXPECT_NE(jobs->Dump().find(R"({"job":1,"input_level":0,"output_level":1,"input_files":2,"bytes_read":4194304,)"
                              R"("bytes_written":3145728,"time_us":1000000,"trivial_move":false,"picked_by":"sica",)"
                              R"("s_same":0.5,"s_inval":0.25})"),
            std::string::npos)
      << jobs->Dump();
  EXPECT_NE(jobs->Dump().find(R"("s_same":null,"s_inval":null})"), std::string::npos);
}

TEST(CompactionStatsTest, EmptyHasNullScoresAndZeroRates) {
  CompactionStats st = CompactionMetrics().Stats();
  EXPECT_EQ(st.all.compactions, 0u);
  EXPECT_EQ(st.all.read_mb_per_s(), 0.0);
  EXPECT_FALSE(st.all.s_same_mean().has_value());
  Json j = st.ToJson();
  EXPECT_EQ(j.Find("s_same_mean")->type(), Json::Type::kNull);
  EXPECT_EQ(j.Find("s_inval_mean")->type(), Json::Type::kNull);
  EXPECT_EQ(j.Find("picker_time_us")->Dump(), R"({"calls":0,"mean":0,"p99":0,"max":0})");
}

TEST(CompactorStatsTest, ExternalSettingsOnlyForTheExternalCompactor) {
  CompactorStats native;
  native.picker = "native";
  Json n = native.ToJson();
  EXPECT_EQ(Rebuilt(n, {"picker", "metrics"}).Dump(), n.Dump());
  EXPECT_EQ(n.Find("picker")->str(), "native");

  CompactorStats external;
  external.picker = "acc";
  external.external = CompactorStats::External{PickerOptions(), 3, 0, 5, 1, 2};
  external.metrics.all.compactions = 7;
  Json e = external.ToJson();
  EXPECT_EQ(Rebuilt(e, {"picker", "picker_options", "threads", "max_subcompactions", "subcompactions_hinted",
                        "subcompactions_unhinted", "grandparent_cuts", "parallel_jobs", "lsm_reads", "metrics"})
                .Dump(),
            e.Dump());
  EXPECT_EQ(e.Find("picker_options")->Dump(), PickerOptions().ToJson().Dump());
  EXPECT_EQ(e.Find("threads")->number(), 3);
  EXPECT_EQ(e.Find("subcompactions_hinted")->number(), 5);
  EXPECT_EQ(e.Find("subcompactions_unhinted")->number(), 1);
  EXPECT_EQ(e.Find("grandparent_cuts")->number(), 2);
  EXPECT_EQ(e.Find("metrics")->Find("compactions")->number(), 7);
}

}  // namespace
}  // namespace zonekv
