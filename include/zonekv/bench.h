// The benchmark runner behind `zonekv bench`.
//
// A run opens a device (or a POSIX directory), puts RocksDB on it, executes
// one or more workload phases (db_bench benchmarks or a YCSB load + run), and
// reports every metric as one JSON document with stable keys (each defined,
// with its unit, in docs/metrics.md):
//   workload.*   the measured phases (YCSB: the run phase)
//   fs.*         the file system and device, cumulative over the whole run
//   rocksdb.*    RocksDB statistics and event-listener counts
//   config.*     the full effective configuration
//   timeseries   one sample per second
//   error        only when the run failed (the rest is still filled in)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

struct ZoneFsOptions;

// A latency histogram with log-linear buckets (32 per power of two, so any
// percentile is within ~3% of the true value). Not thread-safe; keep one per
// thread and Merge.
class Histogram {
 public:
  Histogram();
  void Add(uint64_t value);
  void Merge(const Histogram& other);
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  double mean() const;
  // The p-th percentile (0 < p <= 100), interpolated within its bucket; 0 when empty.
  double Percentile(double p) const;

 private:
  static constexpr int kBuckets = 64 + 58 * 32;
  static int BucketOf(uint64_t v);
  static uint64_t BucketLow(int b);
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  long double sum_ = 0;
};

// A named preset over file-system and RocksDB knobs (see src/bench/schemes.cc).
struct Scheme {
  std::string name;
  std::string description;
  std::vector<std::pair<std::string, std::string>> fs_knobs;       // FsPolicyOptions::Set keys
  std::vector<std::pair<std::string, std::string>> rocksdb_knobs;  // RocksDB option names
  std::vector<std::pair<std::string, std::string>> controller_knobs;  // compaction, blob_gc_cutoff, ...
};
// NotFound listing the known schemes if `name` is unknown.
Status LookupScheme(const std::string& name, Scheme* scheme);
// The scheme of a run that names none: "coop" (every paper's mechanism at
// once) on zonekv; "baseline" on posix, where the zone-aware parts (Z_Cutoff,
// the space-pressure blob GC) have no zones to act on.
const char* DefaultScheme(const std::string& fs);
// Sets one file-system knob of a scheme or a command line: a policy option
// (FsPolicyKnobs()) or the engine's emergency_zc. InvalidArgument naming it.
Status SetFsKnob(const std::string& key, const std::string& value, ZoneFsOptions* opts);
std::vector<Scheme> AllSchemes();

// A flag name and its help line.
struct OptionHelp {
  std::string name;
  std::string help;
};
// The RocksDB options `zonekv bench` accepts as flags, under RocksDB's names.
const std::vector<OptionHelp>& RocksDbBenchOptions();
// The file-system policy knobs (FsPolicyOptions::Set keys) it accepts as flags.
const std::vector<OptionHelp>& FsKnobOptions();
// The knobs of the RocksDB-side controllers: the external compactor and the
// blob GC cutoff control (compaction, sica_order, ..., blob_gc_cutoff).
const std::vector<OptionHelp>& ControllerKnobOptions();

struct BenchConfig {
  // Storage.
  std::string fs = "zonekv";        // "zonekv" (a device) or "posix" (RocksDB's default FS)
  std::string device_spec;          // zonekv: OpenDevice spec
  std::string db_dir;               // posix: the database directory (destroyed first)
  std::string scheme;               // empty: DefaultScheme(fs)
  // Applied in order after the scheme's own knobs (later wins).
  std::vector<std::pair<std::string, std::string>> fs_knobs;
  std::vector<std::pair<std::string, std::string>> rocksdb_knobs;
  std::vector<std::pair<std::string, std::string>> controller_knobs;

  // Workload. `workloads` is a db_bench-style list ("fillseq,overwrite") or
  // one YCSB workload ("ycsb-a").
  std::vector<std::string> workloads;
  uint64_t num = 100000;            // db_bench --num: keys and per-thread operations
  uint64_t key_size = 16;
  uint64_t value_size = 0;          // 0 = the family's default (db_bench 100, YCSB 1000)
  uint64_t threads = 1;
  uint64_t read_write_percent = 90;
  uint64_t record_count = 0;        // YCSB; 0 = --num
  uint64_t operation_count = 0;     // YCSB; 0 = --num
  std::string request_distribution; // YCSB: zipfian | latest | uniform; empty = the workload's own
  uint64_t seed = 1;
  uint64_t max_seconds = 0;         // per-phase limit; a phase reaching it ends the run; 0 = none
  // db_bench's names: per-thread operations of write benchmarks (fill*,
  // overwrite) and of read benchmarks (readrandom, readrandomwriterandom),
  // 0 = num; a benchmark's length in seconds, after which it ends and the
  // next starts (0 = by operations); a progress line every N seconds on
  // stderr (0 = none); RocksDB's statistics appended to the summary.
  uint64_t writes = 0;
  uint64_t reads = 0;
  uint64_t duration_s = 0;
  uint64_t stats_interval_s = 0;
  bool statistics = false;

  double scale = 1.0;               // the experiment scale this run stands for (recorded only)
  bool progress = false;            // draw a progress bar on stderr
  Json flags = Json::Object();      // the command line's flags, recorded verbatim
};

struct BenchOutput {
  Json json = Json::Object();       // the document described above
  std::string summary;              // a human-readable table
};

// Runs the benchmark. Returns InvalidArgument for a bad configuration (before
// anything ran; *out is then untouched) and the run's failure otherwise; once
// the run started, *out is filled even on failure, with json["error"] set.
Status RunBench(const BenchConfig& config, BenchOutput* out);

}  // namespace zonekv
