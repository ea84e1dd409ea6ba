#include "block_workload.h"

#include <cmath>
#include <utility>

namespace zonekv {

uint64_t BlockRandom::Uniform(uint64_t n) {
  // Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
}

uint64_t StreamSeed(uint64_t seed, uint64_t index) {
  BlockRandom r(seed * 0x100000001b3ull + index);
  return r.Next();
}

double ZipfianRanks::Zeta(uint64_t n, double theta) {
  constexpr uint64_t kExact = 1ull << 20;
  uint64_t m = n < kExact ? n : kExact;
  double sum = 0;
  for (uint64_t i = m; i >= 1; i--) sum += std::pow(static_cast<double>(i), -theta);
  if (n == m) return sum;
  // sum_{i=m+1..n} f(i) ~ integral_m^n f + (f(n) - f(m)) / 2, f(x) = x^-theta.
  double fm = std::pow(static_cast<double>(m), -theta), fn = std::pow(static_cast<double>(n), -theta);
  double integral = (std::pow(static_cast<double>(n), 1 - theta) - std::pow(static_cast<double>(m), 1 - theta)) /
                    (1 - theta);
  return sum + integral + (fn - fm) / 2;
}

ZipfianRanks::ZipfianRanks(uint64_t n, double theta) : n_(n), theta_(theta) {
  alpha_ = 1.0 / (1.0 - theta);
  zetan_ = Zeta(n, theta);
  double zeta2 = Zeta(2, theta);
  eta_ = (1 - std::pow(2.0 / static_cast<double>(n), 1 - theta)) / (1 - zeta2 / zetan_);
}

uint64_t ZipfianRanks::Next(BlockRandom* rng) const {
  double u = rng->NextDouble();
  double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + std::pow(0.5, theta_)) return n_ > 1 ? 1 : 0;
  uint64_t r = static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1, alpha_));
  return r < n_ ? r : n_ - 1;
}

namespace {

uint64_t Fnv1a64(uint64_t v) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < 8; i++) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace

Status BlockWorkload::NewStreams(const SynthOptions& o, uint64_t blocks, uint32_t streams,
                                 std::vector<std::unique_ptr<BlockWorkload>>* workloads) {
  ZONEKV_RETURN_IF_ERROR(ValidateSynthOptions(o));
  if (blocks == 0) return Status::InvalidArgument("the workload needs at least one block");
  std::shared_ptr<const ZipfianRanks> zipf;
  if (o.workload == "zipfian" || o.workload == "ycsb-a") {
    zipf = std::make_shared<const ZipfianRanks>(blocks, o.zipf_theta);
  }
  for (uint32_t i = 0; i < streams; i++) {
    workloads->emplace_back(new BlockWorkload(o, blocks, StreamSeed(o.seed, i), zipf));
  }
  return Status::OK();
}

BlockWorkload::BlockWorkload(const SynthOptions& o, uint64_t blocks, uint64_t stream_seed,
                             std::shared_ptr<const ZipfianRanks> zipf)
    : options_(o), blocks_(blocks), rng_(stream_seed), zipf_(std::move(zipf)) {
  if (o.workload == "hotcold") kind_ = Kind::kHotCold;
  else if (o.workload == "zipfian") kind_ = Kind::kZipfian;
  else if (o.workload == "ycsb-a") kind_ = Kind::kYcsbA;
  else kind_ = Kind::kUniform;
  hot_blocks_ = static_cast<uint64_t>(static_cast<double>(blocks) * o.hot_fraction);
  if (hot_blocks_ == 0) hot_blocks_ = 1;
  if (hot_blocks_ >= blocks) hot_blocks_ = blocks > 1 ? blocks - 1 : 1;
}

uint64_t BlockWorkload::NextLba() {
  switch (kind_) {
    case Kind::kUniform:
      return rng_.Uniform(blocks_);
    case Kind::kHotCold:
      if (blocks_ == 1) return 0;
      if (rng_.NextDouble() < options_.hot_access) return rng_.Uniform(hot_blocks_);
      return hot_blocks_ + rng_.Uniform(blocks_ - hot_blocks_);
    case Kind::kZipfian:
    case Kind::kYcsbA:
      return Fnv1a64(zipf_->Next(&rng_)) % blocks_;
  }
  return 0;
}

BlockOp BlockWorkload::Next() {
  BlockOp op;
  op.is_write = !(kind_ == Kind::kYcsbA && rng_.NextDouble() < options_.read_ratio);
  op.lba = NextLba();
  return op;
}

}  // namespace zonekv
