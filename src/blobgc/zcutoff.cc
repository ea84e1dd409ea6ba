// Z_Cutoff (Same-Victim GC paper, section IV-C), with zonekv's count-based
// formula (docs/formulas.md explains why it counts files): cutoff = (live blob files numbered <= min over full zones of
// YBIZ) / (live blob files).
#include <algorithm>
#include <cstdio>
#include <string>

#include "zonekv/blob_gc.h"

namespace zonekv {

double CutoffCovering(size_t files, size_t live_files) {
  if (live_files == 0) return 0.0;
  // RocksDB relocates blobs of the oldest floor(cutoff * N) files; the half
  // file keeps floating-point error from dropping the last one.
  double v = (static_cast<double>(files) + 0.5) / static_cast<double>(live_files);
  return std::min(v, 1.0);
}

std::string CutoffOptionText(double cutoff) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", cutoff);
  return buf;
}

double ZCutoff::option_value() const { return CutoffCovering(eligible_files, live_files); }

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
