// S_inval measured when it means something: once RocksDB has deleted every
// input file of a job. RocksDB deletes a compaction's inputs only when no
// Version references them any more, which with concurrent jobs is often
// after the job returns (and for native compactions always after
// OnCompactionCompleted); measured earlier, the inputs still count as valid
// and S_inval comes out low. Shared by the external compactor and the
// observer of native compactions, so both report the same quantity.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compaction_metrics.h"
#include "zonekv/compactor.h"
#include "zonekv/mutex.h"

namespace zonekv {

class InvalScorer {
 public:
  using LayoutOfFn = std::function<Status(const std::vector<uint64_t>& numbers, FsView* out)>;
  // layout: the file system's view source; layout_of (may be empty): the
  // zones and only the listed SSTs (CompactorOptions::layout_of), which is
  // all the scorer reads; metrics: where finished jobs go (must outlive the scorer).
  InvalScorer(std::function<Status(FsView*)> layout, LayoutOfFn layout_of, CompactionMetrics* metrics)
      : layout_(std::move(layout)), layout_of_(std::move(layout_of)), metrics_(metrics) {}

  // The zones and at least the SSTs `numbers` (all SSTs without layout_of).
  Status LayoutOf(const std::vector<uint64_t>& numbers, FsView* out) const;
  bool has_layout() const { return layout_ || layout_of_; }

  // A finished job whose S_inval waits for its inputs' deletion (scored at
  // once if they are all gone already).
  // `before`/`before_layout`: the view when the job was picked or began.
  void Add(const CompactionJobRecord& record, std::vector<uint64_t> inputs, FsView before, ZoneLayout before_layout);
  // RocksDB deleted an SST file ("/db/000123.sst").
  void FileDeleted(const std::string& path);
  // Scores the jobs still waiting on the current layout (their remaining
  // inputs are still referenced), so that metrics are complete.
  void Flush();

  // 123 for ".../000123.sst"; 0 for other names (FileKindFromName's rules).
  static uint64_t SstNumber(const std::string& path);

 private:
  struct Waiting {
    CompactionJobRecord record;
    std::vector<uint64_t> inputs;
    std::set<uint64_t> undeleted;
    FsView before;
    ZoneLayout layout;
  };
  // Scores on `view`, or on a fresh view if none. REQUIRES: mu_ held.
  void ScoreLocked(Waiting* w, const std::optional<FsView>& view) ZONEKV_REQUIRES(mu_);

  const std::function<Status(FsView*)> layout_;
  const LayoutOfFn layout_of_;
  CompactionMetrics* const metrics_;
  Mutex mu_;
  std::vector<Waiting> waiting_ ZONEKV_GUARDED_BY(mu_);
};

}  // namespace zonekv
