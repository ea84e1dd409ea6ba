#include "inval_scorer.h"
#include "zonekv/mutex.h"

#include <iterator>

namespace zonekv {

uint64_t InvalScorer::SstNumber(const std::string& path) {
  uint64_t number = 0;
  return FileKindFromName(path, &number) == FileKind::kSst ? number : 0;
}

Status InvalScorer::LayoutOf(const std::vector<uint64_t>& numbers, FsView* out) const {
  if (layout_of_) return layout_of_(numbers, out);
  if (layout_) return layout_(out);
  return Status::NotSupported("no zone layout");
}

void InvalScorer::Add(const CompactionJobRecord& record, std::vector<uint64_t> inputs, FsView before, ZoneLayout before_layout) {
  Waiting w;
  w.record = record;
  w.undeleted.insert(inputs.begin(), inputs.end());
  w.inputs = std::move(inputs);
  w.before = std::move(before);
  w.layout = std::move(before_layout);
  // Inputs may be gone already (CompactFiles purges before it returns, and
  // another thread's purge may have run): those deletions were reported
  // before this job was known. The view is taken under mu_, so a deletion
  // either shows in it or reaches FileDeleted after the job is queued (the
  // file system drops a file before RocksDB reports its deletion).
  MutexLock l(&mu_);
  FsView now;
  if (has_layout() && LayoutOf(w.inputs, &now).ok()) {
    std::set<uint64_t> present;
    for (const auto& f : now.files) {
      if (f.hints.kind == FileKind::kSst) present.insert(f.hints.number);
    }
    for (auto it = w.undeleted.begin(); it != w.undeleted.end();) {
      it = present.count(*it) > 0 ? std::next(it) : w.undeleted.erase(it);
    }
    if (w.undeleted.empty()) {
      ScoreLocked(&w, now);
      return;
    }
  }
  waiting_.push_back(std::move(w));
}

void InvalScorer::FileDeleted(const std::string& path) {
  uint64_t number = SstNumber(path);
  if (number == 0) return;
  MutexLock l(&mu_);
  for (size_t i = 0; i < waiting_.size();) {
    waiting_[i].undeleted.erase(number);
    if (waiting_[i].undeleted.empty()) {
      ScoreLocked(&waiting_[i], std::nullopt);
      waiting_.erase(waiting_.begin() + static_cast<long>(i));
    } else {
      i++;
    }
  }
}

void InvalScorer::Flush() {
  MutexLock l(&mu_);
  for (auto& w : waiting_) ScoreLocked(&w, std::nullopt);
  waiting_.clear();
}

void InvalScorer::ScoreLocked(Waiting* w, const std::optional<FsView>& view) {
  if (view) {
    w->record.s_inval = InvalidScore(w->inputs, w->layout, w->before, *view);
  } else {
    FsView after;  // zones only: InvalidScore reads the inputs' zones from the layout before
    if (has_layout() && LayoutOf({}, &after).ok()) {
      w->record.s_inval = InvalidScore(w->inputs, w->layout, w->before, after);
    }
  }
  metrics_->AddJob(w->record);
}

}  // namespace zonekv
