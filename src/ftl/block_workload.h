// BlockWorkload: synthetic streams of 4 KiB block operations.
//
//  uniform  every write goes to a uniformly random block
//  hotcold  hot_access of the writes go to the first hot_fraction of the
//           blocks, the rest to the others (uniform within each set)
//  zipfian  writes follow YCSB's scrambled zipfian (Gray et al.'s generator
//           with constant zipf_theta; ranks hashed with FNV-1a onto blocks)
//  ycsb-a   YCSB workload A over one-block records: read_ratio reads and
//           the rest updates, both scrambled-zipfian
// Deterministic for a seed. Not thread-safe: one per writer thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "zonekv/ftl.h"
#include "zonekv/random.h"

namespace zonekv {

// The FTL workloads' generator (SplitMix64) with a one-multiplication draw.
class BlockRandom : public SplitMix64 {
 public:
  using SplitMix64::SplitMix64;
  // [0, n) by Lemire's multiply-shift (bias below 2^-32 for n < 2^32).
  // REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n);
};

// Zipfian ranks in [0, n): P(i) ~ 1 / (i + 1)^theta.
class ZipfianRanks {
 public:
  ZipfianRanks(uint64_t n, double theta);
  uint64_t Next(BlockRandom* rng) const;
  // sum_{i=1..n} i^-theta; exact up to 2^20 terms, Euler-Maclaurin beyond.
  static double Zeta(uint64_t n, double theta);

 private:
  uint64_t n_;
  double theta_, alpha_, zetan_, eta_;
};

struct BlockOp {
  bool is_write = true;
  uint64_t lba = 0;
};

class BlockWorkload {
 public:
  // Appends `streams` independent streams over `blocks` blocks, stream i
  // seeded with StreamSeed(options.seed, i); they share one zipfian table.
  // InvalidArgument naming the flag if the options do not describe a workload.
  static Status NewStreams(const SynthOptions& options, uint64_t blocks, uint32_t streams,
                           std::vector<std::unique_ptr<BlockWorkload>>* workloads);
  BlockOp Next();

 private:
  BlockWorkload(const SynthOptions& options, uint64_t blocks, uint64_t stream_seed,
                std::shared_ptr<const ZipfianRanks> zipf);
  uint64_t NextLba();

  enum class Kind { kUniform, kHotCold, kZipfian, kYcsbA } kind_;
  SynthOptions options_;
  uint64_t blocks_;
  uint64_t hot_blocks_;
  BlockRandom rng_;
  std::shared_ptr<const ZipfianRanks> zipf_;  // null unless zipfian
};

// A seed for stream `index` of a run seeded with `seed`.
uint64_t StreamSeed(uint64_t seed, uint64_t index);

}  // namespace zonekv
