#include "section_timer.h"

#include <algorithm>
#include <vector>

namespace zonekv {

namespace {

template <typename Clock>
uint64_t MedianPairNs(Clock clock) {
  std::vector<uint64_t> samples(2001);
  for (auto& s : samples) {
    uint64_t a = clock();
    s = clock() - a;
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

uint64_t TimerOverheadNs() {
  static const uint64_t overhead = MedianPairNs(NowNs);
  return overhead;
}

}  // namespace zonekv
