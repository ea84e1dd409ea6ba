// CompactionStats and CompactorStats as JSON (controllers.compactor in
// docs/metrics.md).
#include "zonekv/compaction_stats.h"

#include "zonekv/compactor.h"

namespace zonekv {

namespace {

Json Score(double s) { return s >= 0 ? Json(s) : Json(); }

Json Mean(const std::optional<double>& m) { return m ? Json(*m) : Json(); }

}  // namespace

Json CompactionJobRecord::ToJson() const {
  Json j = Json::Object();
  j.Set("job", job_id)
      .Set("input_level", input_level)
      .Set("output_level", output_level)
      .Set("input_files", static_cast<uint64_t>(input_files))
      .Set("bytes_read", bytes_read)
      .Set("bytes_written", bytes_written)
      .Set("time_us", time_us)
      .Set("trivial_move", trivial_move)
      .Set("picked_by", picked_by)
      .Set("s_same", Score(s_same))
      .Set("s_inval", Score(s_inval));
  return j;
}

void CompactionTotals::Add(const CompactionJobRecord& job) {
  ++compactions;
  bytes_read += job.bytes_read;
  bytes_written += job.bytes_written;
  time_us += job.time_us;
  if (job.trivial_move) {
    ++trivial_moves;
    trivial_move_bytes_written += job.bytes_written;
  }
  if (job.s_same >= 0) {
    s_same_sum += job.s_same;
    ++s_same_jobs;
  }
  if (job.s_inval >= 0) {
    s_inval_sum += job.s_inval;
    ++s_inval_jobs;
  }
}

double CompactionTotals::read_mb_per_s() const {
  if (time_us == 0) return 0.0;
  return static_cast<double>(bytes_read) / (1 << 20) / (static_cast<double>(time_us) / 1e6);
}

std::optional<double> CompactionTotals::s_same_mean() const {
  if (s_same_jobs == 0) return std::nullopt;
  return s_same_sum / static_cast<double>(s_same_jobs);
}

std::optional<double> CompactionTotals::s_inval_mean() const {
  if (s_inval_jobs == 0) return std::nullopt;
  return s_inval_sum / static_cast<double>(s_inval_jobs);
}

void CompactionTotals::SetJson(Json* out) const {
  out->Set("compactions", compactions)
      .Set("bytes_read", bytes_read)
      .Set("bytes_written", bytes_written)
      .Set("time_us", time_us)
      .Set("read_mb_per_s", read_mb_per_s())
      .Set("trivial_move_rewrites", Json::Object().Set("jobs", trivial_moves).Set("bytes_written", trivial_move_bytes_written))
      .Set("s_same_mean", Mean(s_same_mean()))
      .Set("s_inval_mean", Mean(s_inval_mean()));
}

Json CompactionStats::ToJson() const {
  Json out = Json::Object();
  all.SetJson(&out);
  out.Set("aborted", aborted).Set("failed", failed).Set("subcompactions", subcompactions);
  Json by = Json::Object();
  for (const auto& [name, n] : picked_by) by.Set(name, n);
  out.Set("picked_by", std::move(by));
  Json levels = Json::Array();
  for (const auto& [level, t] : per_level) {
    Json j = Json::Object();
    j.Set("level", level);
    t.SetJson(&j);
    levels.Push(std::move(j));
  }
  out.Set("per_level", std::move(levels));
  out.Set("picker_time_us", Json::Object()
                                .Set("calls", pick_calls)
                                .Set("mean", pick_mean_ns / 1e3)
                                .Set("p99", static_cast<double>(pick_p99_ns) / 1e3)
                                .Set("max", static_cast<double>(pick_max_ns) / 1e3));
  Json list = Json::Array();
  for (const CompactionJobRecord& j : jobs) list.Push(j.ToJson());
  out.Set("jobs", std::move(list));
  return out;
}

Json CompactorStats::ToJson() const {
  Json out = Json::Object();
  out.Set("picker", picker);
  if (external) {
    out.Set("picker_options", external->picker_options.ToJson())
        .Set("threads", external->threads)
        .Set("max_subcompactions", external->max_subcompactions)
        .Set("subcompactions_hinted", external->subcompactions_hinted)
        .Set("subcompactions_unhinted", external->subcompactions_unhinted)
        .Set("grandparent_cuts", external->grandparent_cuts)
        .Set("parallel_jobs", external->parallel_jobs)
        .Set("lsm_reads", external->lsm_reads);
  }
  if (hybrid) out.Set("hybrid", hybrid->ToJson());
  out.Set("metrics", metrics.ToJson());
  return out;
}

Json HybridStats::ToJson() const {
  Json log = Json::Array();
  for (const Switch& s : switches) {
    log.Push(Json::Object().Set("t_s", s.t_s).Set("to", s.to_external ? "picker" : "native").Set("free_pct", 100 * s.free_ratio));
  }
  return Json::Object()
      .Set("native_free_pct", 100 * native_free_ratio)
      .Set("to_external", to_external)
      .Set("to_native", to_native)
      .Set("external_s", external_s)
      .Set("total_s", total_s)
      .Set("switches", std::move(log));
}

}  // namespace zonekv
