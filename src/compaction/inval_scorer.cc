#include "inval_scorer.h"

namespace zonekv {

uint64_t InvalScorer::SstNumber(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() < 5 || name.compare(name.size() - 4, 4, ".sst") != 0) return 0;
  uint64_t n = 0;
  for (size_t i = 0; i + 4 < name.size(); i++) {
    if (name[i] < '0' || name[i] > '9') return 0;
    n = n * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return n;
}

void InvalScorer::Add(const JobRecord& record, std::vector<uint64_t> inputs, FsView before, ZoneLayout before_layout) {
  Waiting w;
  w.record = record;
  w.undeleted.insert(inputs.begin(), inputs.end());
  w.inputs = std::move(inputs);
  w.before = std::move(before);
  w.layout = std::move(before_layout);
  std::lock_guard<std::mutex> l(mu_);
  waiting_.push_back(std::move(w));
}

void InvalScorer::FileDeleted(const std::string& path) {
  uint64_t number = SstNumber(path);
  if (number == 0) return;
  std::lock_guard<std::mutex> l(mu_);
  for (size_t i = 0; i < waiting_.size();) {
    waiting_[i].undeleted.erase(number);
    if (waiting_[i].undeleted.empty()) {
      ScoreLocked(&waiting_[i]);
      waiting_.erase(waiting_.begin() + static_cast<long>(i));
    } else {
      i++;
    }
  }
}

void InvalScorer::Flush() {
  std::lock_guard<std::mutex> l(mu_);
  for (auto& w : waiting_) ScoreLocked(&w);
  waiting_.clear();
}

void InvalScorer::ScoreLocked(Waiting* w) {
  FsView after;
  if (layout_ && layout_(&after).ok()) w->record.s_inval = InvalidScore(w->inputs, w->layout, w->before, after);
  metrics_->AddJob(w->record);
}

}  // namespace zonekv
