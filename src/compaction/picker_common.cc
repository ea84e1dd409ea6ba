#include "picker_common.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "same_zone.h"

namespace zonekv {

bool RangesOverlap(const std::string& a_smallest, const std::string& a_largest,
                   const std::string& b_smallest, const std::string& b_largest) {
  return !(a_largest < b_smallest || b_largest < a_smallest);
}

std::vector<int> LevelsToCompact(const std::vector<double>& scores) {
  std::vector<int> levels;
  for (size_t l = 0; l < scores.size(); ++l) {
    if (scores[l] >= 1.0) levels.push_back(static_cast<int>(l));
  }
  std::stable_sort(levels.begin(), levels.end(), [&](int a, int b) { return scores[a] > scores[b]; });
  return levels;
}

std::vector<const SstFileView*> CandidateGroup::Inputs() const {
  std::vector<const SstFileView*> v;
  for (size_t i = in_first; i <= in_last; ++i) v.push_back(&(*level_files)[i]);
  return v;
}

std::vector<const SstFileView*> CandidateGroup::Outputs() const {
  std::vector<const SstFileView*> v;
  for (size_t i = out_first; i < out_end; ++i) v.push_back(&(*next_files)[i]);
  return v;
}

void CandidateGroup::AppendFiles(std::vector<const SstFileView*>* out) const {
  for (size_t i = in_first; i <= in_last; ++i) out->push_back(&(*level_files)[i]);
  for (size_t i = out_first; i < out_end; ++i) out->push_back(&(*next_files)[i]);
}

namespace {

// A key range by reference into the view.
struct Range {
  const std::string* smallest = nullptr;
  const std::string* largest = nullptr;
  void Widen(const SstFileView& f) {
    if (smallest == nullptr || f.smallest_key < *smallest) smallest = &f.smallest_key;
    if (largest == nullptr || f.largest_key > *largest) largest = &f.largest_key;
  }
};

Range SpanRange(const std::vector<SstFileView>& files, size_t first, size_t last) {
  Range r;
  for (size_t i = first; i <= last; ++i) r.Widen(files[i]);
  return r;
}

// [first, last] of a sorted level widened until no neighbour shares a
// boundary user key with it.
void CleanCut(const std::vector<SstFileView>& files, size_t* first, size_t* last) {
  while (*first > 0 && !(files[*first - 1].largest_key < files[*first].smallest_key)) --*first;
  while (*last + 1 < files.size() && !(files[*last].largest_key < files[*last + 1].smallest_key)) ++*last;
}

// Output-level files overlapping `r`, clean cut, as [*a, *end); empty if
// none. Ranges must be visited in ascending key order: `*cursor` (a position
// in `next`) only moves forward, so a whole level costs one pass.
void OutputSpanFrom(const std::vector<SstFileView>& next, const Range& r, size_t* cursor, size_t* a,
                    size_t* end) {
  size_t lo = *cursor;
  while (lo < next.size() && next[lo].largest_key < *r.smallest) ++lo;
  *cursor = lo;
  size_t hi = lo;
  while (hi < next.size() && !(*r.largest < next[hi].smallest_key)) ++hi;
  if (hi == lo) {
    *a = *end = lo;
    return;
  }
  size_t b = hi - 1;
  CleanCut(next, &lo, &b);
  *a = lo;
  *end = b + 1;
}

// OutputSpanFrom for a range in any order (binary search for the start).
void OutputSpan(const std::vector<SstFileView>& next, const Range& r, size_t* a, size_t* end) {
  size_t cursor = std::partition_point(next.begin(), next.end(),
                                       [&](const SstFileView& f) { return f.largest_key < *r.smallest; }) -
                  next.begin();
  OutputSpanFrom(next, r, &cursor, a, end);
}

// Fills the output-level side of `g` (inputs [g->in_first, g->in_last] set)
// and checks that the whole group can run. For Ln inputs it then widens the
// inputs the way RocksDB's leveled picker does: every L(n) file inside the
// group's range joins if that adds no output-level file and keeps the job
// under max_compaction_bytes.
// `cursor`: for Ln, the output-level position of the previous (lower) group.
bool Complete(const LsmView& view, int level, size_t* cursor, CandidateGroup* g) {
  const std::vector<SstFileView>& files = *g->level_files;
  const std::vector<SstFileView>& next = *g->next_files;
  Range in = SpanRange(files, g->in_first, g->in_last);
  if (level == 0) {
    OutputSpan(next, in, &g->out_first, &g->out_end);
  } else {
    OutputSpanFrom(next, in, cursor, &g->out_first, &g->out_end);
  }
  if (g->out_end > g->out_first && level > 0) {
    Range all = in;
    all.Widen(next[g->out_first]);
    all.Widen(next[g->out_end - 1]);
    // The level is sorted: the files overlapping `all` extend the inputs'
    // span on either side.
    size_t f2 = g->in_first, l2 = g->in_last;
    while (f2 > 0 && !(files[f2 - 1].largest_key < *all.smallest)) --f2;
    while (l2 + 1 < files.size() && !(*all.largest < files[l2 + 1].smallest_key)) ++l2;
    CleanCut(files, &f2, &l2);
    if (f2 < g->in_first || l2 > g->in_last) {
      // The output span (already a clean cut) stays the same iff its
      // neighbours stay clear of the wider input range.
      Range wide = SpanRange(files, f2, l2);
      bool same_outputs = (g->out_first == 0 || next[g->out_first - 1].largest_key < *wide.smallest) &&
                          (g->out_end == next.size() || *wide.largest < next[g->out_end].smallest_key);
      uint64_t bytes = 0;
      bool busy = false;
      for (size_t i = f2; i <= l2; ++i) {
        bytes += files[i].size_bytes;
        busy = busy || files[i].being_compacted;
      }
      for (size_t i = g->out_first; i < g->out_end; ++i) bytes += next[i].size_bytes;
      if (same_outputs && !busy && bytes < view.max_compaction_bytes) {
        g->in_first = f2;
        g->in_last = l2;
      }
    }
  }
  Range r;
  for (size_t i = g->in_first; i <= g->in_last; ++i) {
    if (files[i].being_compacted) return false;
    g->input_bytes += files[i].size_bytes;
    r.Widen(files[i]);
  }
  for (size_t i = g->out_first; i < g->out_end; ++i) {
    if (next[i].being_compacted) return false;
    g->overlap_bytes += next[i].size_bytes;
    r.Widen(next[i]);
  }
  for (const RunningOutput& o : view.running) {
    if (o.level == level + 1 && RangesOverlap(o.smallest_key, o.largest_key, *r.smallest, *r.largest)) return false;
  }
  return true;
}

// L0 is newest first: the seed, every older file, and newer files
// overlapping the growing range. Returns the first index; the group ends at
// the oldest file.
size_t L0First(const std::vector<SstFileView>& files, size_t seed) {
  size_t first = seed;
  for (bool grew = true; grew;) {
    grew = false;
    Range r = SpanRange(files, first, files.size() - 1);
    for (size_t j = 0; j < first; ++j) {
      if (RangesOverlap(files[j].smallest_key, files[j].largest_key, *r.smallest, *r.largest)) {
        first = j;
        grew = true;
        break;
      }
    }
  }
  return first;
}

}  // namespace

std::vector<CandidateGroup> CandidateGroups(const LsmView& view, int level) {
  std::vector<CandidateGroup> groups;
  if (level < 0 || level + 1 >= view.num_levels()) return groups;
  const std::vector<SstFileView>& files = view.levels[level];
  size_t cursor = 0;                         // Ln: output-level position
  std::vector<long> l0_group(files.size(), -2);  // L0: first input -> group, -1 = cannot run
  size_t s = 0;
  while (s < files.size()) {
    CandidateGroup g;
    g.level_files = &files;
    g.next_files = &view.levels[level + 1];
    if (level == 0) {
      g.seed = s;
      g.in_first = L0First(files, s);
      g.in_last = files.size() - 1;
      ++s;
      long& known = l0_group[g.in_first];
      if (known != -2) {
        // The same group from another seed: it is ranked by its largest seed.
        if (known >= 0 && files[g.seed].size_bytes > groups[known].seed_file().size_bytes) groups[known].seed = g.seed;
        continue;
      }
      known = Complete(view, level, &cursor, &g) ? static_cast<long>(groups.size()) : -1;
      if (known >= 0) groups.push_back(g);
      continue;
    }
    // Clean-cut spans partition a sorted level: every file of a span yields
    // the same span, so visit each span once, seeded by its largest file.
    g.in_first = g.in_last = s;
    CleanCut(files, &g.in_first, &g.in_last);
    g.seed = g.in_first;
    for (size_t i = g.in_first; i <= g.in_last; ++i) {
      if (files[i].size_bytes > files[g.seed].size_bytes) g.seed = i;
    }
    s = g.in_last + 1;
    if (!Complete(view, level, &cursor, &g)) continue;
    // Widening can give neighbouring spans the same group: keep one, ranked
    // by its largest seed.
    if (!groups.empty() && groups.back().in_first == g.in_first && groups.back().in_last == g.in_last) {
      if (g.seed_file().size_bytes > groups.back().seed_file().size_bytes) groups.back().seed = g.seed;
      continue;
    }
    groups.push_back(g);
  }
  return groups;
}

bool PickIntraL0(const LsmView& view, double l0_score, CompactionPick* out) {
  constexpr size_t kMinFiles = 4;  // RocksDB's kMinFilesForIntraL0Compaction
  if (view.levels.empty()) return false;
  const std::vector<SstFileView>& l0 = view.levels[0];  // newest first
  const size_t trigger = static_cast<size_t>(std::max(0, view.level0_file_num_compaction_trigger));
  if (l0.size() < trigger + 2 || l0[0].being_compacted) return false;  // trigger + 2 >= 2: l0[0] exists
  uint64_t bytes = l0[0].size_bytes;
  uint64_t per_removed = UINT64_MAX;  // bytes merged per file the merge removes
  size_t end = 1;
  for (; end < l0.size(); ++end) {
    const uint64_t with = bytes + l0[end].size_bytes;
    const uint64_t with_per_removed = with / end;
    if (l0[end].being_compacted || with_per_removed > per_removed || with > view.max_compaction_bytes) break;
    bytes = with;
    per_removed = with_per_removed;
  }
  if (end < kMinFiles) return false;
  CompactionPick p;
  p.input_level = 0;
  p.output_level = 0;
  Range r;
  for (size_t i = 0; i < end; ++i) {
    p.input_files.push_back(l0[i].number);
    r.Widen(l0[i]);
  }
  p.smallest_key = *r.smallest;
  p.largest_key = *r.largest;
  p.input_bytes = bytes;
  p.score = l0_score;
  p.picked_by = "intra-l0";
  *out = std::move(p);
  return true;
}

bool PickLeveled(const LsmView& view, const GroupChooser& choose, const char* picked_by,
                 CompactionPick* out) {
  std::vector<double> scores = LevelScores(view);
  for (int level : LevelsToCompact(scores)) {
    std::vector<CandidateGroup> groups = CandidateGroups(view, level);
    if (groups.empty()) {
      if (level == 0 && PickIntraL0(view, scores[0], out)) return true;
      continue;
    }
    const CandidateGroup& g = groups[choose(level, groups)];
    CompactionPick p;
    p.input_level = level;
    p.output_level = level + 1;
    Range r;
    for (const SstFileView* f : g.Inputs()) {
      p.input_files.push_back(f->number);
      r.Widen(*f);
    }
    for (const SstFileView* f : g.Outputs()) {
      p.output_files.push_back(f->number);
      r.Widen(*f);
    }
    p.smallest_key = *r.smallest;
    p.largest_key = *r.largest;
    p.input_bytes = g.input_bytes + g.overlap_bytes;
    p.score = scores[level];
    p.trivial_move = g.in_first == g.in_last && g.out_end == g.out_first;
    p.picked_by = picked_by;
    *out = std::move(p);
    return true;
  }
  return false;
}

namespace {

// Indices of `groups` in sica's preference order, best first.
std::vector<size_t> SicaOrder(const std::vector<CandidateGroup>& groups, bool min_overlap) {
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const CandidateGroup& x = groups[a];
    const CandidateGroup& y = groups[b];
    if (min_overlap) {
      // overlap * 1024 / size, compared exactly by cross-multiplying.
      unsigned __int128 lhs = static_cast<unsigned __int128>(x.overlap_bytes) * std::max<uint64_t>(1, y.seed_file().size_bytes);
      unsigned __int128 rhs = static_cast<unsigned __int128>(y.overlap_bytes) * std::max<uint64_t>(1, x.seed_file().size_bytes);
      return lhs < rhs;
    }
    if (x.seed_file().size_bytes != y.seed_file().size_bytes) {
      return x.seed_file().size_bytes > y.seed_file().size_bytes;
    }
    return x.overlap_bytes < y.overlap_bytes;
  });
  return order;
}

}  // namespace

size_t ChooseSica(const std::vector<CandidateGroup>& groups, bool min_overlap) {
  return SicaOrder(groups, min_overlap).front();
}

namespace {

constexpr std::pair<const char*, ZacaScore> kZacaScores[] = {{"same", ZacaScore::kSame},
                                                               {"same-per-write", ZacaScore::kSamePerWrite},
                                                               {"kill-per-write", ZacaScore::kKillPerWrite}};

}  // namespace

bool ParseZacaScore(std::string_view name, ZacaScore* out) {
  for (const auto& [n, score] : kZacaScores) {
    if (name == n) {
      *out = score;
      return true;
    }
  }
  return false;
}

ZacaScore ZacaScoreNamed(std::string_view name) {
  ZacaScore score = ZacaScore::kSame;
  ParseZacaScore(name, &score);
  return score;
}

std::string ZacaScoreNames(const char* sep) {
  std::string out;
  for (const auto& [n, score] : kZacaScores) out += (out.empty() ? "" : sep) + std::string(n);
  return out;
}

size_t ChooseZaca(const std::vector<CandidateGroup>& groups, const ZoneLayout& layout, bool min_overlap,
                  ZacaScore kind) {
  // Look every file of the two levels up once, not once per group.
  const std::vector<SstFileView>& files = *groups.front().level_files;
  const std::vector<SstFileView>& next = *groups.front().next_files;
  std::vector<const std::map<uint32_t, uint64_t>*> in_zones(files.size()), out_zones(next.size());
  for (size_t i = 0; i < files.size(); ++i) in_zones[i] = layout.Find(files[i].number);
  for (size_t i = 0; i < next.size(); ++i) out_zones[i] = layout.Find(next[i].number);
  size_t best = 0;
  double best_score = -1;
  SameZoneAccumulator acc;
  for (size_t i : SicaOrder(groups, min_overlap)) {
    const CandidateGroup& g = groups[i];
    acc.Clear();
    for (size_t f = g.in_first; f <= g.in_last; ++f) acc.Add(in_zones[f], files[f].size_bytes);
    for (size_t f = g.out_first; f < g.out_end; ++f) acc.Add(out_zones[f], next[f].size_bytes);
    double score = kind == ZacaScore::kKillPerWrite ? acc.KillScore(layout.zone_valid_bytes) : acc.Score();
    if (kind != ZacaScore::kSame) {
      const uint64_t written = std::max<uint64_t>(1, g.input_bytes + g.overlap_bytes);
      score *= static_cast<double>(g.input_bytes) / static_cast<double>(written);
    }
    if (score > best_score + 1e-12) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

}  // namespace zonekv
