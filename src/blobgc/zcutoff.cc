// Z_Cutoff (Same-Victim GC paper, section IV-C), with zonekv's count-based
// formula (docs/formulas.md explains why it counts files): cutoff = (live blob files numbered <= min over full zones of
// YBIZ) / (live blob files).
#include <algorithm>

#include "zonekv/blob_gc.h"

namespace zonekv {

double ZCutoff::option_value() const {
  if (live_files == 0) return 0.0;
  // RocksDB relocates blobs of the oldest floor(cutoff * N) files; the half
  // file keeps floating-point error from dropping the last eligible file.
  double v = (static_cast<double>(eligible_files) + 0.5) / static_cast<double>(live_files);
  return std::min(v, 1.0);
}

bool ComputeZCutoff(const std::vector<uint64_t>& live_blob_numbers, const FsView& view, ZCutoff* out) {
  uint64_t min_ybiz = 0;
  for (const auto& z : view.zones) {
    if (z.full() && z.ybiz > 0 && (min_ybiz == 0 || z.ybiz < min_ybiz)) min_ybiz = z.ybiz;
  }
  if (min_ybiz == 0 || live_blob_numbers.empty()) return false;
  out->live_files = live_blob_numbers.size();
  out->eligible_files = static_cast<size_t>(
      std::count_if(live_blob_numbers.begin(), live_blob_numbers.end(), [&](uint64_t n) { return n <= min_ybiz; }));
  out->min_ybiz = min_ybiz;
  return true;
}

}  // namespace zonekv
