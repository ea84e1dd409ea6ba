#include "native_jobs.h"

#include <set>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include "zonekv/clock.h"

namespace zonekv {

namespace {

// What the job is about to write, from the DB's metadata: the inputs' key
// range and the level scores as a picker would have seen them (the job's own
// inputs not yet marked as being compacted). False if the column family is
// not the default one (the compactor and CAZA see only that one) or an input
// is missing.
bool NativeHint(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci, const std::vector<uint64_t>& inputs,
                CompactionJobHint* out) {
  if (ci.cf_name != rocksdb::kDefaultColumnFamilyName) return false;
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  LsmView view = LsmViewFromMetaData(meta, db->GetOptions());
  std::set<uint64_t> wanted(inputs.begin(), inputs.end());
  size_t found = 0;
  for (auto& level : view.levels) {
    for (SstFileView& f : level) {
      if (wanted.count(f.number) == 0) continue;
      f.being_compacted = false;
      if (found == 0 || f.smallest_key < out->smallest_key) out->smallest_key = f.smallest_key;
      if (found == 0 || f.largest_key > out->largest_key) out->largest_key = f.largest_key;
      ++found;
    }
  }
  if (found != wanted.size()) return false;
  out->job_id = kNativeHintJobBase + static_cast<uint64_t>(ci.job_id);
  out->input_level = ci.base_input_level;
  out->output_level = ci.output_level;
  out->input_files = inputs;
  out->level_scores = LevelScores(view);
  return true;
}

}  // namespace

NativeJobRecorder::NativeJobRecorder(CompactionMetrics* metrics, InvalScorer* scorer,
                                     std::function<void(const CompactionJobHint&)> on_job_start,
                                     std::function<void(uint64_t, const Status&)> on_job_end)
    : metrics_(metrics),
      scorer_(scorer),
      on_job_start_(std::move(on_job_start)),
      on_job_end_(std::move(on_job_end)) {}

void NativeJobRecorder::Begin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) {
  Job j;
  for (const auto& f : ci.input_file_infos) j.inputs.push_back(f.file_number);
  // The zones and the job's inputs: S_same reads the inputs' zones, S_inval
  // those zones before and after.
  if (scorer_->has_layout() && scorer_->LayoutOf(j.inputs, &j.before).ok()) {
    j.layout = ZoneLayout::FromFsView(j.before);
    j.have_layout = true;
  }
  if (on_job_start_) {
    if (NativeHint(db, ci, j.inputs, &j.hint)) {
      on_job_start_(j.hint);
      j.hinted = true;
    }
  }
  j.start = std::chrono::steady_clock::now();
  MutexLock l(&mu_);
  running_[ci.job_id] = std::move(j);
}

bool NativeJobRecorder::SubBegin(const rocksdb::SubcompactionJobInfo& si) {
  CompactionJobHint hint;
  {
    MutexLock l(&mu_);
    auto it = running_.find(si.job_id);
    if (it == running_.end()) return false;
    if (!on_job_start_ || !it->second.hinted) return true;
    hint = it->second.hint;
  }
  on_job_start_(hint);
  return true;
}

void NativeJobRecorder::SubCompleted(const rocksdb::SubcompactionJobInfo& si) {
  if (!on_job_end_) return;
  {
    MutexLock l(&mu_);
    auto it = running_.find(si.job_id);
    if (it == running_.end() || !it->second.hinted) return;
  }
  on_job_end_(kNativeHintJobBase + static_cast<uint64_t>(si.job_id), Status::OK());
}

void NativeJobRecorder::Completed(const rocksdb::CompactionJobInfo& ci) {
  Job j;
  {
    MutexLock l(&mu_);
    auto it = running_.find(ci.job_id);
    if (it == running_.end()) return;
    j = std::move(it->second);
    running_.erase(it);
  }
  if (j.hinted && on_job_end_) {
    on_job_end_(kNativeHintJobBase + static_cast<uint64_t>(ci.job_id),
                ci.status.ok() ? Status::OK() : Status::IOError(ci.status.ToString()));
  }
  if (!ci.status.ok()) {
    metrics_->AddFailed();
    return;
  }
  CompactionJobRecord r;
  r.job_id = static_cast<uint64_t>(ci.job_id);
  r.input_level = ci.base_input_level;
  r.output_level = ci.output_level;
  r.input_files = ci.input_file_infos.size();
  r.bytes_read = ci.stats.total_input_bytes;
  r.bytes_written = ci.stats.total_output_bytes;
  r.time_us = ElapsedUs(j.start);
  r.picked_by = "native";
  // A trivial move's outputs are its inputs.
  std::set<uint64_t> inputs(j.inputs.begin(), j.inputs.end());
  r.trivial_move = !ci.output_file_infos.empty();
  for (const auto& f : ci.output_file_infos) r.trivial_move = r.trivial_move && inputs.count(f.file_number) > 0;
  // S_same and S_inval describe data a job reads and invalidates; a move
  // does neither, so it is counted but not scored.
  if (!j.have_layout || r.trivial_move) {
    metrics_->AddJob(r);
    return;
  }
  std::vector<SstFileView> files;
  for (uint64_t number : j.inputs) {
    SstFileView v;
    v.number = number;
    if (const auto* zones = j.layout.Find(number)) {
      for (const auto& [zone, bytes] : *zones) v.size_bytes += bytes;
    }
    files.push_back(v);
  }
  std::vector<const SstFileView*> ptrs;
  for (const auto& f : files) ptrs.push_back(&f);
  r.s_same = SameZoneScore(ptrs, j.layout);
  scorer_->Add(r, std::move(j.inputs), std::move(j.before), std::move(j.layout));
}

}  // namespace zonekv
