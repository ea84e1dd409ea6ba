#include <algorithm>
#include <bit>

#include "zonekv/bench.h"

namespace zonekv {

// Values below 64 get a bucket each; above, each power of two [2^e, 2^(e+1))
// for e in [6, 63] is split into 32 equal sub-buckets.
Histogram::Histogram() : buckets_(kBuckets, 0) {}

int Histogram::BucketOf(uint64_t v) {
  if (v < 64) return static_cast<int>(v);
  int e = 63 - std::countl_zero(v);
  return 64 + (e - 6) * 32 + static_cast<int>((v >> (e - 5)) & 31);
}

uint64_t Histogram::BucketLow(int b) {
  if (b < 64) return static_cast<uint64_t>(b);
  int e = (b - 64) / 32 + 6;
  uint64_t sub = static_cast<uint64_t>((b - 64) % 32);
  return (1ULL << e) + (sub << (e - 5));
}

void Histogram::Add(uint64_t value) {
  buckets_[BucketOf(value)]++;
  count_++;
  max_ = std::max(max_, value);
  sum_ += value;
}

void Histogram::Merge(const Histogram& other) {
  for (int b = 0; b < kBuckets; b++) buckets_[b] += other.buckets_[b];
  count_ += other.count_;
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double Histogram::mean() const { return count_ == 0 ? 0.0 : static_cast<double>(sum_ / count_); }

double Histogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  double rank = p / 100.0 * static_cast<double>(count_);
  double seen = 0;
  for (int b = 0; b < kBuckets; b++) {
    if (buckets_[b] == 0) continue;
    double next = seen + static_cast<double>(buckets_[b]);
    if (next >= rank) {
      double lo = static_cast<double>(BucketLow(b));
      double hi = b + 1 < kBuckets ? static_cast<double>(BucketLow(b + 1)) : lo;
      hi = std::min(hi, static_cast<double>(max_) + 1);
      double frac = (rank - seen) / static_cast<double>(buckets_[b]);
      return lo + std::max(0.0, hi - lo) * frac;
    }
    seen = next;
  }
  return static_cast<double>(max_);
}

}  // namespace zonekv
