#include "compaction_metrics.h"

#include <algorithm>
#include <map>

namespace zonekv {

void CompactionMetrics::AddPickTime(uint64_t ns) {
  std::lock_guard<std::mutex> l(mu_);
  pick_ns_.push_back(ns);
}

void CompactionMetrics::AddJob(const JobRecord& job) {
  std::lock_guard<std::mutex> l(mu_);
  jobs_.push_back(job);
}

void CompactionMetrics::AddAborted() {
  std::lock_guard<std::mutex> l(mu_);
  ++aborted_;
}

void CompactionMetrics::AddFailed() {
  std::lock_guard<std::mutex> l(mu_);
  ++failed_;
}

void CompactionMetrics::AddSubcompaction() {
  std::lock_guard<std::mutex> l(mu_);
  ++subcompactions_;
}

namespace {

struct Totals {
  uint64_t n = 0, read = 0, written = 0, time_us = 0;
  uint64_t moves = 0, move_bytes = 0;
  uint64_t n_same = 0, n_inval = 0;
  double s_same = 0, s_inval = 0;

  void Add(const JobRecord& j) {
    ++n;
    read += j.bytes_read;
    written += j.bytes_written;
    time_us += j.time_us;
    if (j.trivial_move) {
      ++moves;
      move_bytes += j.bytes_written;
    }
    if (j.s_same >= 0) { s_same += j.s_same; ++n_same; }
    if (j.s_inval >= 0) { s_inval += j.s_inval; ++n_inval; }
  }
  void To(Json* j) const {
    j->Set("compactions", n)
        .Set("bytes_read", read)
        .Set("bytes_written", written)
        .Set("time_us", time_us)
        .Set("read_mb_per_s", time_us > 0 ? static_cast<double>(read) / (1 << 20) / (static_cast<double>(time_us) / 1e6) : 0.0)
        .Set("trivial_move_rewrites", Json::Object().Set("jobs", moves).Set("bytes_written", move_bytes))
        .Set("s_same_mean", n_same > 0 ? Json(s_same / static_cast<double>(n_same)) : Json())
        .Set("s_inval_mean", n_inval > 0 ? Json(s_inval / static_cast<double>(n_inval)) : Json());
  }
};

}  // namespace

Json CompactionMetrics::ToJson() const {
  std::lock_guard<std::mutex> l(mu_);
  Json out = Json::Object();
  Totals all;
  std::map<int, Totals> per_level;
  std::map<std::string, uint64_t> picked_by;
  Json jobs = Json::Array();
  for (const JobRecord& j : jobs_) {
    all.Add(j);
    per_level[j.input_level].Add(j);
    ++picked_by[j.picked_by];
    Json r = Json::Object();
    r.Set("job", j.job_id)
        .Set("input_level", j.input_level)
        .Set("output_level", j.output_level)
        .Set("input_files", static_cast<uint64_t>(j.input_files))
        .Set("bytes_read", j.bytes_read)
        .Set("bytes_written", j.bytes_written)
        .Set("time_us", j.time_us)
        .Set("trivial_move", j.trivial_move)
        .Set("picked_by", j.picked_by)
        .Set("s_same", j.s_same >= 0 ? Json(j.s_same) : Json())
        .Set("s_inval", j.s_inval >= 0 ? Json(j.s_inval) : Json());
    jobs.Push(std::move(r));
  }
  all.To(&out);
  out.Set("aborted", aborted_).Set("failed", failed_).Set("subcompactions", subcompactions_);
  Json by = Json::Object();
  for (const auto& [name, n] : picked_by) by.Set(name, n);
  out.Set("picked_by", std::move(by));
  Json levels = Json::Array();
  for (const auto& [level, t] : per_level) {
    Json j = Json::Object();
    j.Set("level", level);
    t.To(&j);
    levels.Push(std::move(j));
  }
  out.Set("per_level", std::move(levels));
  std::vector<uint64_t> sorted = pick_ns_;
  std::sort(sorted.begin(), sorted.end());
  double mean_ns = 0;
  for (uint64_t ns : sorted) mean_ns += static_cast<double>(ns);
  if (!sorted.empty()) mean_ns /= static_cast<double>(sorted.size());
  // p99: the smallest sample >= 99% of all samples (nearest rank).
  uint64_t p99_ns = sorted.empty() ? 0 : sorted[(sorted.size() * 99 + 99) / 100 - 1];
  uint64_t max_ns = sorted.empty() ? 0 : sorted.back();
  out.Set("picker_time_us", Json::Object()
                                .Set("calls", static_cast<uint64_t>(sorted.size()))
                                .Set("mean", mean_ns / 1e3)
                                .Set("p99", static_cast<double>(p99_ns) / 1e3)
                                .Set("max", static_cast<double>(max_ns) / 1e3));
  out.Set("jobs", std::move(jobs));
  return out;
}

}  // namespace zonekv
