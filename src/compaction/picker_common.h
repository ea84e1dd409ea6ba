// Building blocks shared by the pickers: level scores, the candidate groups
// of a level ("an L(i) file plus its overlapping L(i+1) files") and the
// conflict rules against running jobs. Pure functions of an LsmView.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "zonekv/compactor.h"

namespace zonekv {

// Bytewise user-key range overlap, both ends inclusive.
bool RangesOverlap(const std::string& a_smallest, const std::string& a_largest,
                   const std::string& b_smallest, const std::string& b_largest);

// Levels with LevelScores() >= 1, highest score first (ties: lower level first).
std::vector<int> LevelsToCompact(const std::vector<double>& scores);

// One candidate job in a level, as index spans into the view's levels (no
// copies: pickers score hundreds of groups per call).
struct CandidateGroup {
  const std::vector<SstFileView>* level_files = nullptr;  // L(i)
  const std::vector<SstFileView>* next_files = nullptr;   // L(i+1)
  size_t seed = 0;                   // the largest L(i) file whose expansion gives this group
  size_t in_first = 0, in_last = 0;  // L(i) inputs, inclusive
  size_t out_first = 0, out_end = 0; // L(i+1) inputs [out_first, out_end); may be empty
  uint64_t input_bytes = 0;          // L(i) bytes
  uint64_t overlap_bytes = 0;        // L(i+1) bytes

  const SstFileView& seed_file() const { return (*level_files)[seed]; }
  std::vector<const SstFileView*> Inputs() const;
  std::vector<const SstFileView*> Outputs() const;
  // Appends inputs then outputs to *out.
  void AppendFiles(std::vector<const SstFileView*>* out) const;
};

// Every group of `level` that can run now: no file in it is being compacted
// and its range does not overlap a running job writing to level + 1.
// L0 groups follow CompactFiles' own input expansion: an L0 group holds the
// seed and every older L0 file plus, transitively, newer L0 files overlapping
// its range. Ln groups are expanded to clean cuts (neighbours sharing a
// boundary user key join), then widened as RocksDB's leveled picker widens
// them: L(n) files inside the group's whole range join when that adds no
// L(n+1) file and stays under max_compaction_bytes. Groups are returned in
// level order (L0: newest seed first; Ln: by smallest key); identical groups
// appear once.
std::vector<CandidateGroup> CandidateGroups(const LsmView& view, int level);

// Chooses one of `groups` (non-empty) for `level`; returns its index.
using GroupChooser = std::function<size_t(int level, const std::vector<CandidateGroup>& groups)>;

// RocksDB's intra-L0 compaction (7.8, LevelCompactionBuilder::
// PickIntraL0Compaction): when L0 holds at least
// level0_file_num_compaction_trigger + 2 files and its newest file is not
// being compacted, a run of the newest files, none being compacted, merged
// into one L0 file: files join, newest first, while the bytes per file the
// merge removes keep falling and the total stays within
// max_compaction_bytes; at least 4 files. It lowers the L0 file count (and
// so the writers' L0 slowdown and stop) while L0 -> L1 cannot run. False if
// no such run exists. `l0_score` (LevelScores(view)[0]) is reported as the
// pick's score.
bool PickIntraL0(const LsmView& view, double l0_score, CompactionPick* out);

// The leveled driver every picker shares: for each level in LevelsToCompact
// order, take the first level that has a runnable group and let `choose`
// pick among its groups; L0 with a score >= 1 and no runnable group falls
// back to PickIntraL0, as RocksDB's leveled picker does. False if none.
bool PickLeveled(const LsmView& view, const GroupChooser& choose, const char* picked_by,
                 CompactionPick* out);

// sica's choice within a level, by PickerOptions::sica_order:
//   largest:     largest seed first, ties by fewest overlapping bytes;
//   min-overlap: overlap_bytes * 1024 / seed size ascending (RocksDB's
//                kMinOverlappingRatio, without its TTL boost).
// Remaining ties go to the earlier group.
size_t ChooseSica(const std::vector<CandidateGroup>& groups, bool min_overlap);

// zaca's score of a group (PickerOptions::zaca_score):
//   kSame (same):                    S_same over all the group's files
//                                    (inputs and outputs);
//   kSamePerWrite (same-per-write):  S_same x input_bytes / (input_bytes +
//                                    overlap_bytes), the share of the job's
//                                    writes that moves data down (what sica's
//                                    min-overlap order maximises);
//   kKillPerWrite (kill-per-write):  sum_m S_m^2 / V_m / sum_m S_m, V_m the
//                                    valid bytes of zone m (the share of each
//                                    zone's live data the job invalidates,
//                                    1 when every zone it touches dies), times
//                                    the same share of writes.
enum class ZacaScore { kSame, kSamePerWrite, kKillPerWrite };
// The knob's value as a ZacaScore; false if `name` is none of the names.
bool ParseZacaScore(std::string_view name, ZacaScore* out);
// ParseZacaScore for a value the knob accepted (kSame otherwise).
ZacaScore ZacaScoreNamed(std::string_view name);
// The knob's values, joined by `sep`.
std::string ZacaScoreNames(const char* sep);

// zaca's choice: the group with the highest score, ties by ChooseSica's order.
size_t ChooseZaca(const std::vector<CandidateGroup>& groups, const ZoneLayout& layout, bool min_overlap,
                  ZacaScore score);

}  // namespace zonekv
