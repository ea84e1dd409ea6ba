// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast, deterministic
// pseudo-random generator that passes BigCrush. Not for cryptography. The
// bench's workloads (Random64, zonekv/workload.h) and the FTL's
// (BlockRandom) draw from it: the same seed gives the same sequence.
#pragma once

#include <cstdint>

namespace zonekv {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, 1) with 53 bits of precision.
  double NextDouble();

 private:
  uint64_t state_;
};

}  // namespace zonekv
