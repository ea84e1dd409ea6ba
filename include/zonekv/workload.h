// Workload generators: db_bench and YCSB operation streams.
//
// The key choosers reproduce YCSB's CoreWorkload generators exactly
// (brianfrankcooper/YCSB, core/src/main/java/site/ycsb/generator), so that a
// zonekv run with a given distribution touches keys with the same skew as the
// papers' YCSB runs: ZipfianGenerator (Gray et al., SIGMOD'94, constant 0.99),
// ScrambledZipfianGenerator (zipfian over 10^10 items hashed with FNV-1a 64
// onto the item range), SkewedLatestGenerator, uniform, and the acknowledged
// insert counter. db_bench's operation streams follow tools/db_bench_tool.cc.
//
// Everything is deterministic from a seed. Generators are not thread-safe:
// each client thread owns its own, except AcknowledgedCounter, which all
// threads of a run share.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "zonekv/mutex.h"
#include "zonekv/random.h"
#include "zonekv/status.h"

namespace zonekv {

// The workloads' generator (SplitMix64) with an exactly uniform draw.
class Random64 : public SplitMix64 {
 public:
  using SplitMix64::SplitMix64;
  // Uniform in [0, n), without bias (rejection sampling). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n);
};

// A seed for client thread `thread` of a run seeded with `seed`; distinct
// (seed, thread) pairs give unrelated streams.
uint64_t ThreadSeed(uint64_t seed, uint64_t thread, uint64_t phase);

// YCSB's Utils.fnvhash64: FNV-1a 64 over the 8 little-endian bytes of `v`,
// then Java's Math.abs. (Java leaves Long.MIN_VALUE negative; we return 2^63
// for it, the only input where the two differ.)
uint64_t FnvHash64(uint64_t v);

// YCSB ZipfianGenerator over [min, max]: P(min + i) ~ 1 / (i + 1)^theta.
// The item count can grow (Next(rng, item_count)), with zeta updated
// incrementally as YCSB does.
class ZipfianGenerator {
 public:
  static constexpr double kZipfianConstant = 0.99;

  ZipfianGenerator(uint64_t min, uint64_t max, double theta = kZipfianConstant);
  // With a precomputed zeta(max - min + 1, theta) (YCSB's constructor for huge
  // item counts, where computing zeta would take minutes).
  ZipfianGenerator(uint64_t min, uint64_t max, double theta, double zetan);

  // A value in [min, min + items).
  uint64_t Next(Random64* rng);
  // YCSB nextLong(itemcount): a value in [min, min + item_count). A larger
  // item count extends zeta incrementally; a smaller one keeps the old zeta
  // (YCSB's default allowitemcountdecrease=false).
  uint64_t Next(Random64* rng, uint64_t item_count);

  // zeta(n, theta) = sum_{i=1..n} 1 / i^theta.
  static double Zeta(uint64_t n, double theta);
  double zetan() const { return zetan_; }

 private:
  static double ZetaRange(uint64_t from, uint64_t to, double theta, double initial);

  uint64_t base_;
  uint64_t items_;
  double theta_;
  double alpha_;
  double zeta2theta_;
  double zetan_;
  double eta_;
  uint64_t count_for_zeta_;
};

// YCSB ScrambledZipfianGenerator over [min, max]: popular items are spread
// over the range by hashing a zipfian draw over 10^10 items.
class ScrambledZipfianGenerator {
 public:
  static constexpr uint64_t kItemCount = 10000000000ULL;
  static constexpr double kZetan = 26.46902820178302;  // zeta(10^10 + 1, 0.99)

  ScrambledZipfianGenerator(uint64_t min, uint64_t max);
  uint64_t Next(Random64* rng);

 private:
  uint64_t min_;
  uint64_t item_count_;
  ZipfianGenerator gen_;
};

// YCSB AcknowledgedCounterGenerator: hands out insert key numbers and tracks
// the largest number below which every insert has completed, so that readers
// never pick a key whose insert is still in flight. Thread-safe.
class AcknowledgedCounter {
 public:
  // The first Next() returns `start`; Last() is start - 1 until acknowledged.
  explicit AcknowledgedCounter(uint64_t start);
  uint64_t Next();
  // Marks `value` (from Next()) as inserted.
  void Acknowledge(uint64_t value);
  // Largest v such that every value <= v was acknowledged (or preloaded).
  uint64_t Last() const { return last_.load(std::memory_order_acquire); }

 private:
  std::atomic<uint64_t> next_;
  std::atomic<uint64_t> last_;
  Mutex mu_;
  std::set<uint64_t> pending_ ZONEKV_GUARDED_BY(mu_);  // acknowledged values > last_ + 1
};

// YCSB SkewedLatestGenerator: favours the most recently inserted keys,
// next = last - zipfian(last).
class SkewedLatestGenerator {
 public:
  explicit SkewedLatestGenerator(const AcknowledgedCounter* basis);
  uint64_t Next(Random64* rng);

 private:
  const AcknowledgedCounter* basis_;
  ZipfianGenerator zipfian_;
};

// ---- Keys ------------------------------------------------------------------

// YCSB's buildKeyName with insertorder=hashed, made fixed-width: "user"
// followed by FnvHash64(keynum) in decimal, reduced modulo 10^(key_size - 4)
// and zero-padded to key_size bytes. REQUIRES: key_size >= 8.
std::string YcsbKey(uint64_t keynum, size_t key_size);
// db_bench's key format: the number as 8 big-endian bytes, padded with '0'
// to key_size bytes (so keys sort in numeric order). REQUIRES: key_size >= 8.
std::string DbBenchKey(uint64_t keynum, size_t key_size);

// ---- Operation streams -------------------------------------------------------

enum class OpType : uint8_t { kRead, kUpdate, kInsert, kScan, kReadModifyWrite };
const char* OpTypeName(OpType t);  // "read", "update", "insert", "scan", "rmw"

enum class KeyDistribution : uint8_t { kUniform, kZipfian, kLatest };

// A YCSB-style workload: operation proportions and the request distribution.
struct YcsbSpec {
  std::string name;  // "ycsb-a" ... "ycsb-f", "sv-wla", "sv-wlb", "sv-wlc"
  double read = 0, update = 0, insert = 0, scan = 0, rmw = 0;
  KeyDistribution distribution = KeyDistribution::kZipfian;
  uint32_t max_scan_length = 100;  // scan lengths are uniform in [1, max]
};
// The YCSB core workloads A-F and the Same-Victim GC paper's WL(A)-WL(C).
// NotFound naming the known workloads if `name` is not one of them.
Status LookupYcsbSpec(const std::string& name, YcsbSpec* spec);
bool IsYcsbWorkload(const std::string& name);

struct Operation {
  OpType type = OpType::kRead;
  uint64_t keynum = 0;      // for inserts: from AcknowledgedCounter::Next()
  uint32_t scan_length = 0;
};

// The run phase of a YCSB workload for one client thread (CoreWorkload's
// doTransaction key and operation choice).
class YcsbOperationGenerator {
 public:
  // `counter` starts at record_count and is shared by all client threads.
  YcsbOperationGenerator(const YcsbSpec& spec, uint64_t record_count, uint64_t operation_count,
                         AcknowledgedCounter* counter, uint64_t seed);
  // The next operation. For kInsert the caller must Acknowledge(keynum) on
  // the counter once the insert completed.
  Operation Next();

 private:
  uint64_t NextKeynum();

  YcsbSpec spec_;
  AcknowledgedCounter* counter_;
  Random64 rng_;
  uint64_t record_count_;
  // Exactly one key chooser exists, the one spec_.distribution names.
  std::unique_ptr<ScrambledZipfianGenerator> zipfian_;
  std::unique_ptr<SkewedLatestGenerator> latest_;
};

// The db_bench benchmarks this runner implements.
bool IsDbBenchWorkload(const std::string& name);  // fillrandom fillseq overwrite readrandom readrandomwriterandom
// True for the db_bench benchmarks whose length --reads sets (the others: --writes).
bool IsDbBenchRead(const std::string& name);
// True for the db_bench benchmarks that expect an existing database.
bool DbBenchNeedsData(const std::string& name);

// One db_bench client thread (db_bench's per-thread loops).
class DbBenchOperationGenerator {
 public:
  // `num` is db_bench's --num (key space and per-thread operation count);
  // `read_write_percent` is --readwritepercent (readrandomwriterandom only).
  DbBenchOperationGenerator(const std::string& name, uint64_t num, uint32_t read_write_percent,
                            uint64_t seed);
  // The i-th operation of this thread (i counts from 0).
  Operation Next(uint64_t i);

 private:
  std::string name_;
  uint64_t num_;
  uint32_t read_write_percent_;
  uint32_t get_weight_ = 0, put_weight_ = 0;
  Random64 rng_;
};

}  // namespace zonekv
