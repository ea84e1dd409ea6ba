// The pieces of a run the report is built from, and the report itself:
// the JSON document of bench.h and the summary table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zonekv/bench.h"

namespace rocksdb {
class Statistics;
}

namespace zonekv {

class BenchStorage;

enum class PhaseKind : uint8_t { kDbBench, kYcsbLoad, kYcsbRun };

struct PhaseSpec {
  std::string name;      // "fillseq", "load", "run", ...
  PhaseKind kind;
  bool measured;         // counts toward workload.* (loads do not)
  uint64_t threads;
  uint64_t ops;          // operations planned (all threads)
};

// What one client thread did; latencies in nanoseconds.
struct ThreadStats {
  Histogram put, get, scan, rmw;
  uint64_t ops = 0;
  uint64_t bytes = 0;    // key + value bytes written or read (db_bench's MB/s)
  uint64_t write_bytes = 0;  // of bytes, those written by puts
  uint64_t reads = 0, found = 0, writes = 0;
  uint64_t op_counts[5] = {0, 0, 0, 0, 0};  // by OpType

  void Merge(const ThreadStats& o);
};

struct PhaseStats {
  std::string name;
  bool measured = false;
  bool timed_out = false;  // stopped by --max_seconds
  double elapsed_s = 0;
  ThreadStats total;

  void Merge(const ThreadStats& t) { total.Merge(t); }
};

struct ReportInputs {
  const BenchConfig* config = nullptr;
  const std::vector<PhaseStats>* phases = nullptr;
  rocksdb::Statistics* statistics = nullptr;
  uint64_t flushes = 0, compactions = 0, compaction_micros = 0;
  // CPU time of the whole process (every thread: the clients', RocksDB's,
  // zonekv's, the emulated device's) over every phase, user + system.
  double cpu_s = 0;
  BenchStorage* storage = nullptr;
};

// Sets out->json's workload, fs and rocksdb objects and out->summary.
void BuildReport(const ReportInputs& in, BenchOutput* out);

// The run's error `s` as the report states it: NoSpace if `s` is an
// IOError (as FromRocksDb maps RocksDB's Incomplete) and RocksDB saw a
// background NoSpace (`background_no_space`, from
// EventListener::OnBackgroundError), since a writer that waited for a
// flush which then ran out of space gets Status::Incomplete with the
// background error's text (RocksDB 7.8's DelayWrite), not a NoSpace
// status. Else `s` unchanged.
Status ClassifyNoSpace(Status s, bool background_no_space);

}  // namespace zonekv
