// YCSB's key generators, reimplemented from their documented semantics.
#include <cmath>

#include "zonekv/mutex.h"
#include "zonekv/workload.h"

namespace zonekv {

uint64_t Random64::Uniform(uint64_t n) {
  // Rejection sampling keeps the result unbiased for any n.
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  uint64_t x;
  do {
    x = Next();
  } while (x >= limit);
  return x % n;
}

uint64_t ThreadSeed(uint64_t seed, uint64_t thread, uint64_t phase) {
  Random64 mix(seed ^ (thread * 0xD1B54A32D192ED03ULL) ^ (phase * 0x8CB92BA72F3D8DD7ULL));
  mix.Next();
  return mix.Next();
}

uint64_t FnvHash64(uint64_t v) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (int i = 0; i < 8; i++) {
    h ^= v & 0xff;
    h *= 0x100000001B3ULL;
    v >>= 8;
  }
  // Java Math.abs on the signed value.
  int64_t s = static_cast<int64_t>(h);
  if (s == INT64_MIN) return 1ULL << 63;
  return static_cast<uint64_t>(s < 0 ? -s : s);
}

// ---- ZipfianGenerator ---------------------------------------------------------

double ZipfianGenerator::ZetaRange(uint64_t from, uint64_t to, double theta, double initial) {
  double sum = initial;
  for (uint64_t i = from; i < to; i++) sum += 1.0 / std::pow(static_cast<double>(i + 1), theta);
  return sum;
}

double ZipfianGenerator::Zeta(uint64_t n, double theta) { return ZetaRange(0, n, theta, 0.0); }

ZipfianGenerator::ZipfianGenerator(uint64_t min, uint64_t max, double theta)
    : ZipfianGenerator(min, max, theta, Zeta(max - min + 1, theta)) {}

ZipfianGenerator::ZipfianGenerator(uint64_t min, uint64_t max, double theta, double zetan)
    : base_(min),
      items_(max - min + 1),
      theta_(theta),
      alpha_(1.0 / (1.0 - theta)),
      zeta2theta_(Zeta(2, theta)),
      zetan_(zetan),
      count_for_zeta_(items_) {
  eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
}

uint64_t ZipfianGenerator::Next(Random64* rng) { return Next(rng, count_for_zeta_); }

uint64_t ZipfianGenerator::Next(Random64* rng, uint64_t item_count) {
  if (item_count > count_for_zeta_) {
    zetan_ = ZetaRange(count_for_zeta_, item_count, theta_, zetan_);
    count_for_zeta_ = item_count;
    // YCSB recomputes eta with the constructor's item count, not the new one;
    // we keep that to draw exactly what YCSB draws.
    eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
  }
  double u = rng->NextDouble();
  double uz = u * zetan_;
  if (uz < 1.0) return base_;
  if (uz < 1.0 + std::pow(0.5, theta_)) return base_ + 1;
  return base_ + static_cast<uint64_t>(static_cast<double>(item_count) *
                                       std::pow(eta_ * u - eta_ + 1, alpha_));
}

// ---- ScrambledZipfianGenerator --------------------------------------------------

ScrambledZipfianGenerator::ScrambledZipfianGenerator(uint64_t min, uint64_t max)
    : min_(min),
      item_count_(max - min + 1),
      gen_(0, kItemCount, ZipfianGenerator::kZipfianConstant, kZetan) {}

uint64_t ScrambledZipfianGenerator::Next(Random64* rng) {
  return min_ + FnvHash64(gen_.Next(rng)) % item_count_;
}

// ---- AcknowledgedCounter and SkewedLatestGenerator ----------------------------------

AcknowledgedCounter::AcknowledgedCounter(uint64_t start) : next_(start), last_(start - 1) {}

uint64_t AcknowledgedCounter::Next() { return next_.fetch_add(1, std::memory_order_relaxed); }

void AcknowledgedCounter::Acknowledge(uint64_t value) {
  MutexLock lock(&mu_);
  uint64_t last = last_.load(std::memory_order_relaxed);
  if (value != last + 1) {
    pending_.insert(value);
    return;
  }
  last = value;
  while (!pending_.empty() && *pending_.begin() == last + 1) {
    last = *pending_.begin();
    pending_.erase(pending_.begin());
  }
  last_.store(last, std::memory_order_release);
}

SkewedLatestGenerator::SkewedLatestGenerator(const AcknowledgedCounter* basis)
    : basis_(basis), zipfian_(0, basis->Last() == 0 ? 0 : basis->Last() - 1) {}

uint64_t SkewedLatestGenerator::Next(Random64* rng) {
  uint64_t max = basis_->Last();
  return max - zipfian_.Next(rng, max);
}

}  // namespace zonekv
