#include "grandparent_cutter.h"

#include <algorithm>
#include <utility>

namespace zonekv {

std::vector<GrandparentFile> OverlappingFiles(const std::vector<SstFileView>& level, const std::string& smallest,
                                              const std::string& largest) {
  auto it = std::partition_point(level.begin(), level.end(),
                                 [&](const SstFileView& f) { return f.largest_key < smallest; });
  std::vector<GrandparentFile> out;
  for (; it != level.end() && it->smallest_key <= largest; ++it) {
    out.push_back({it->smallest_key, it->largest_key, it->size_bytes});
  }
  return out;
}

GrandparentCuts::GrandparentCuts(std::shared_ptr<const std::vector<GrandparentFile>> grandparents, CutRules rules)
    : gp_(std::move(grandparents)), rules_(rules) {}

// RocksDB's UpdateGrandparentBoundaryInfo: moves to the grandparent holding
// `key` (the last of them when several end at it), counting the boundaries
// passed and, once the file has a key, the grandparents entered.
size_t GrandparentCuts::Advance(std::string_view key) {
  const std::vector<GrandparentFile>& gp = *gp_;
  size_t crossed = 0;
  while (index_ < gp.size()) {
    if (in_gap_) {
      if (key < gp[index_].smallest_key) break;
      if (seen_key_) {
        ++crossed;
        ++boundaries_seen_;
        overlapped_bytes_ += gp[index_].size_bytes;
      }
      in_gap_ = false;
    } else {
      const std::string& largest = gp[index_].largest_key;
      if (key < largest || (key == largest && (index_ + 1 == gp.size() || key < gp[index_ + 1].smallest_key))) {
        break;
      }
      if (seen_key_) {
        ++crossed;
        ++boundaries_seen_;
      }
      in_gap_ = true;
      ++index_;
    }
  }
  if (!seen_key_) overlapped_bytes_ = OverlapAt(key);
  seen_key_ = true;
  return crossed;
}

// The grandparents holding `key` (after Advance(key)).
uint64_t GrandparentCuts::OverlapAt(std::string_view key) const {
  if (in_gap_) return 0;
  const std::vector<GrandparentFile>& gp = *gp_;
  uint64_t bytes = gp[index_].size_bytes;
  for (size_t i = index_; i-- > 0 && key == gp[i].largest_key;) bytes += gp[i].size_bytes;
  return bytes;
}

void GrandparentCuts::StartFile(std::string_view first_key) {
  boundaries_seen_ = 0;
  overlapped_bytes_ = OverlapAt(first_key);
}

bool GrandparentCuts::ShouldCut(std::string_view prev, std::string_view cur, uint64_t file_bytes) {
  if (!seen_key_) {
    Advance(prev);  // the run's first key: RocksDB asks no partitioner about it
  } else if (file_bytes < last_file_bytes_) {
    StartFile(prev);  // RocksDB cut by size before `prev`
  }
  last_file_bytes_ = file_bytes;
  const uint64_t before = overlapped_bytes_;
  const size_t crossed = Advance(cur);
  if (crossed == 0 || prev == cur) return false;  // never split a user key's versions
  bool cut = overlapped_bytes_ + file_bytes > rules_.max_compaction_bytes;
  if (!cut && rules_.dynamic_file_size) {
    const size_t skippable = in_gap_ ? 2 : 3;
    cut = (crossed >= skippable && overlapped_bytes_ - before > rules_.target_file_bytes / 8) ||
          file_bytes >= ((rules_.target_file_bytes + 99) / 100) * (50 + std::min<uint64_t>(boundaries_seen_ * 5, 40));
  }
  if (cut) {
    StartFile(cur);
    last_file_bytes_ = 0;
  }
  return cut;
}

namespace {

// One job's outputs: the grandparent rules, then (if set) the user's own
// partitioner, which sees every key.
class CutPartitioner : public rocksdb::SstPartitioner {
 public:
  CutPartitioner(std::unique_ptr<GrandparentCuts> cuts, std::unique_ptr<rocksdb::SstPartitioner> inner,
                 std::shared_ptr<std::atomic<uint64_t>> counter)
      : cuts_(std::move(cuts)), inner_(std::move(inner)), counter_(std::move(counter)) {}
  const char* Name() const override { return "zonekv.GrandparentCutter"; }
  rocksdb::PartitionerResult ShouldPartition(const rocksdb::PartitionerRequest& r) override {
    bool cut = false;
    if (cuts_ != nullptr &&
        cuts_->ShouldCut(r.prev_user_key->ToStringView(), r.current_user_key->ToStringView(), r.current_output_file_size)) {
      counter_->fetch_add(1, std::memory_order_relaxed);
      cut = true;
    }
    if (inner_ != nullptr && inner_->ShouldPartition(r) == rocksdb::kRequired) cut = true;
    return cut ? rocksdb::kRequired : rocksdb::kNotRequired;
  }
  bool CanDoTrivialMove(const rocksdb::Slice& smallest, const rocksdb::Slice& largest) override {
    return inner_ == nullptr || inner_->CanDoTrivialMove(smallest, largest);
  }

 private:
  const std::unique_ptr<GrandparentCuts> cuts_;
  const std::unique_ptr<rocksdb::SstPartitioner> inner_;
  const std::shared_ptr<std::atomic<uint64_t>> counter_;
};

}  // namespace

GrandparentCutter::GrandparentCutter(std::shared_ptr<rocksdb::SstPartitionerFactory> inner)
    : inner_(std::move(inner)) {}

void GrandparentCutter::Register(uint64_t job_id, int output_level, std::string smallest_key, std::string largest_key,
                                 std::vector<GrandparentFile> grandparents, CutRules rules) {
  Entry e;
  e.output_level = output_level;
  e.smallest_key = std::move(smallest_key);
  e.largest_key = std::move(largest_key);
  e.grandparents = std::make_shared<const std::vector<GrandparentFile>>(std::move(grandparents));
  e.rules = rules;
  MutexLock l(&mu_);
  jobs_[job_id] = std::move(e);
}

void GrandparentCutter::Unregister(uint64_t job_id) {
  MutexLock l(&mu_);
  jobs_.erase(job_id);
}

std::unique_ptr<rocksdb::SstPartitioner> GrandparentCutter::CreatePartitioner(
    const rocksdb::SstPartitioner::Context& context) const {
  std::unique_ptr<rocksdb::SstPartitioner> inner = inner_ != nullptr ? inner_->CreatePartitioner(context) : nullptr;
  std::unique_ptr<GrandparentCuts> cuts;
  {
    const std::string_view smallest = context.smallest_user_key.ToStringView();
    const std::string_view largest = context.largest_user_key.ToStringView();
    MutexLock l(&mu_);
    const Entry* match = nullptr;
    for (const auto& [id, e] : jobs_) {
      if (e.output_level != context.output_level || largest < e.smallest_key || e.largest_key < smallest) continue;
      if (match != nullptr) return inner;  // ambiguous: leave the cutting to RocksDB
      match = &e;
    }
    if (match != nullptr && !match->grandparents->empty()) {
      cuts = std::make_unique<GrandparentCuts>(match->grandparents, match->rules);
    }
  }
  if (cuts == nullptr) return inner;
  return std::make_unique<CutPartitioner>(std::move(cuts), std::move(inner), cuts_);
}

}  // namespace zonekv
