// RunBench: phases of client threads against RocksDB, a per-second sampler,
// and the JSON document.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <thread>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/statistics.h>

#include "controllers.h"
#include "report.h"
#include "rocksdb_options.h"
#include "storage.h"
#include "zonekv/bench.h"
#include "zonekv/clock.h"
#include "zonekv/mutex.h"
#include "zonekv/workload.h"

namespace zonekv {

namespace {

using Clock = std::chrono::steady_clock;

uint64_t NanosSince(Clock::time_point t) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}

// User + system CPU time of the whole process, seconds.
double ProcessCpuSeconds() { return static_cast<double>(ProcessCpuNs()) / 1e9; }

// Counts flushes and compactions, sums compaction time, and notes whether
// RocksDB stopped on a background NoSpace.
class CountingListener : public rocksdb::EventListener {
 public:
  void OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) override { flushes++; }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    compactions++;
    compaction_micros += info.stats.elapsed_micros;
  }
  void OnBackgroundError(rocksdb::BackgroundErrorReason, rocksdb::Status* bg_error) override {
    if (bg_error != nullptr && bg_error->IsNoSpace()) background_no_space = true;
  }
  std::atomic<uint64_t> flushes{0};
  std::atomic<uint64_t> compactions{0};
  std::atomic<uint64_t> compaction_micros{0};
  std::atomic<bool> background_no_space{false};
};

Status FromRocksDb(const rocksdb::Status& s, const std::string& what) {
  if (s.IsNoSpace()) return Status::NoSpace(what + ": " + s.ToString());
  return Status::IOError(what + ": " + s.ToString());
}

// Shared state of one run.
class Run {
 public:
  Run(const BenchConfig& config, rocksdb::DB* db, uint64_t value_size)
      : config_(config), db_(db), value_size_(value_size) {
    // Values are slices of a pseudo-random (incompressible) buffer.
    uint64_t n = std::max<uint64_t>(1 << 20, 2 * value_size);
    values_.resize(n);
    Random64 rng(config.seed ^ 0x76616C7565ULL);
    for (uint64_t i = 0; i < n; i += 8) {
      uint64_t r = rng.Next();
      for (uint64_t j = 0; j < 8 && i + j < n; j++) values_[i + j] = static_cast<char>(r >> (8 * j));
    }
  }

  // Runs one phase to completion, an error, or the time limit.
  PhaseStats RunPhase(const PhaseSpec& phase, uint64_t phase_index) {
    PhaseStats stats;
    stats.name = phase.name;
    stats.measured = phase.measured;
    std::vector<ThreadStats> per_thread(phase.threads);
    std::vector<std::thread> threads;
    auto start = Clock::now();
    const auto limit = config_.max_seconds == 0 ? Clock::time_point::max()
                                                : start + std::chrono::seconds(config_.max_seconds);
    // db_bench's --duration ends a measured phase normally; --max_seconds ends the run.
    deadline_ = phase.measured && config_.duration_s > 0
                    ? std::min(limit, start + std::chrono::seconds(config_.duration_s))
                    : limit;
    shared_ops_.store(0);
    {
      MutexLock lock(&mu_);
      current_phase_ = phase.name;
    }
    for (uint64_t t = 0; t < phase.threads; t++) {
      threads.emplace_back([&, t] {
        ThreadStats& ts = per_thread[t];
        uint64_t seed = ThreadSeed(config_.seed, t, phase_index);
        if (phase.kind == PhaseKind::kDbBench) {
          DbBenchThread(phase, seed, &ts);
        } else if (phase.kind == PhaseKind::kYcsbLoad) {
          YcsbLoadThread(seed, &ts);
        } else {
          YcsbRunThread(seed, &ts);
        }
      });
    }
    for (auto& th : threads) th.join();
    stats.elapsed_s = static_cast<double>(NanosSince(start)) / 1e9;
    for (const auto& ts : per_thread) stats.Merge(ts);
    stats.timed_out = !failed() && Clock::now() >= limit;
    return stats;
  }

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  Status error() {
    MutexLock lock(&mu_);
    return error_;
  }
  uint64_t completed_ops() const { return completed_ops_.load(std::memory_order_relaxed); }
  // L0 files now: every one of them a read may have to search.
  uint64_t L0Files() const {
    std::string n;  // a string property: GetIntProperty does not serve it
    return db_->GetProperty("rocksdb.num-files-at-level0", &n) ? std::strtoull(n.c_str(), nullptr, 10) : 0;
  }
  std::string current_phase() {
    MutexLock lock(&mu_);
    return current_phase_;
  }
  void set_ycsb(const YcsbSpec& spec, uint64_t record_count, uint64_t operation_count) {
    ycsb_ = spec;
    record_count_ = record_count;
    operation_count_ = operation_count;
    counter_ = std::make_unique<AcknowledgedCounter>(record_count);
  }

 private:
  bool Stop() const { return failed() || Clock::now() >= deadline_; }

  void Fail(const Status& s) {
    MutexLock lock(&mu_);
    if (error_.ok()) error_ = s;
    failed_.store(true, std::memory_order_release);
  }

  rocksdb::Slice Value(Random64* rng) {
    uint64_t off = rng->Uniform(values_.size() - value_size_ + 1);
    return rocksdb::Slice(values_.data() + off, value_size_);
  }

  std::string Key(uint64_t keynum, bool ycsb) const {
    return ycsb ? YcsbKey(keynum, config_.key_size) : DbBenchKey(keynum, config_.key_size);
  }

  // Executes one operation and records it. Returns false on an error.
  bool Execute(const Operation& op, bool ycsb, Random64* rng, ThreadStats* ts) {
    std::string key = Key(op.keynum, ycsb);
    auto t0 = Clock::now();
    rocksdb::Status s;
    switch (op.type) {
      case OpType::kRead: {
        std::string value;
        s = db_->Get(rocksdb::ReadOptions(), key, &value);
        ts->get.Add(NanosSince(t0));
        ts->reads++;
        if (s.ok()) {
          ts->found++;
          ts->bytes += key.size() + value.size();
        } else if (s.IsNotFound()) {
          s = rocksdb::Status::OK();
        }
        break;
      }
      case OpType::kUpdate:
      case OpType::kInsert: {
        rocksdb::Slice value = Value(rng);
        s = db_->Put(rocksdb::WriteOptions(), key, value);
        ts->put.Add(NanosSince(t0));
        ts->writes++;
        ts->bytes += key.size() + value.size();
        ts->write_bytes += key.size() + value.size();
        break;
      }
      case OpType::kScan: {
        std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
        uint32_t n = 0;
        for (it->Seek(key); it->Valid() && n < op.scan_length; it->Next(), n++) {
          ts->bytes += it->key().size() + it->value().size();
        }
        s = it->status();
        ts->scan.Add(NanosSince(t0));
        break;
      }
      case OpType::kReadModifyWrite: {
        std::string value;
        s = db_->Get(rocksdb::ReadOptions(), key, &value);
        ts->get.Add(NanosSince(t0));
        ts->reads++;
        if (s.ok()) ts->found++;
        if (s.ok() || s.IsNotFound()) {
          auto t1 = Clock::now();
          rocksdb::Slice v = Value(rng);
          s = db_->Put(rocksdb::WriteOptions(), key, v);
          ts->put.Add(NanosSince(t1));
          ts->writes++;
          ts->bytes += key.size() + value.size() + key.size() + v.size();
          ts->write_bytes += key.size() + v.size();
        }
        ts->rmw.Add(NanosSince(t0));
        break;
      }
    }
    ts->op_counts[static_cast<int>(op.type)]++;
    ts->ops++;
    completed_ops_.fetch_add(1, std::memory_order_relaxed);
    if (!s.ok()) {
      Fail(FromRocksDb(s, std::string(OpTypeName(op.type)) + " of key " + std::to_string(op.keynum)));
      return false;
    }
    return true;
  }

  void DbBenchThread(const PhaseSpec& phase, uint64_t seed, ThreadStats* ts) {
    DbBenchOperationGenerator gen(phase.name, config_.num, static_cast<uint32_t>(config_.read_write_percent), seed);
    Random64 rng(seed + 1);
    // Each thread does its share of the phase (--num, --writes or --reads),
    // or, with db_bench's --duration, runs until the deadline.
    const uint64_t n = phase.measured && config_.duration_s > 0 ? std::numeric_limits<uint64_t>::max()
                                                                : phase.ops / phase.threads;
    for (uint64_t i = 0; i < n && !Stop(); i++) {
      if (!Execute(gen.Next(i), false, &rng, ts)) return;
    }
  }

  // YCSB load: keys 0..record_count-1 in order (hashed into the key space).
  void YcsbLoadThread(uint64_t seed, ThreadStats* ts) {
    Random64 rng(seed);
    while (!Stop()) {
      uint64_t k = shared_ops_.fetch_add(1);
      if (k >= record_count_) return;
      Operation op;
      op.type = OpType::kInsert;
      op.keynum = k;
      if (!Execute(op, true, &rng, ts)) return;
    }
  }

  void YcsbRunThread(uint64_t seed, ThreadStats* ts) {
    YcsbOperationGenerator gen(ycsb_, record_count_, operation_count_, counter_.get(), seed);
    Random64 rng(seed + 1);
    while (!Stop()) {
      if (shared_ops_.fetch_add(1) >= operation_count_) return;
      Operation op = gen.Next();
      if (!Execute(op, true, &rng, ts)) return;
      if (op.type == OpType::kInsert) counter_->Acknowledge(op.keynum);
    }
  }

  const BenchConfig& config_;
  rocksdb::DB* db_;
  uint64_t value_size_;
  std::string values_;
  Clock::time_point deadline_ = Clock::time_point::max();
  std::atomic<uint64_t> shared_ops_{0};      // YCSB: operations handed out in this phase
  std::atomic<uint64_t> completed_ops_{0};   // all phases
  std::atomic<bool> failed_{false};
  Mutex mu_;
  Status error_ ZONEKV_GUARDED_BY(mu_);
  std::string current_phase_ ZONEKV_GUARDED_BY(mu_);
  YcsbSpec ycsb_;
  uint64_t record_count_ = 0;
  uint64_t operation_count_ = 0;
  std::unique_ptr<AcknowledgedCounter> counter_;
};

// Samples the storage and throughput once per second and draws the progress bar.
class Sampler {
 public:
  // stats_interval_s: print a db_bench-style interval line on stderr this
  // often (0 = never).
  Sampler(BenchStorage* storage, Run* run, uint64_t total_ops, bool progress, uint64_t stats_interval_s)
      : storage_(storage),
        run_(run),
        total_ops_(total_ops),
        progress_(progress),
        stats_interval_s_(stats_interval_s),
        start_(Clock::now()) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Sampler() { Stop(); }

  void Stop() {
    {
      MutexLock lock(&mu_);
      if (stop_) return;
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (drawn_) std::fprintf(stderr, "\r\033[K");
    Record(Clock::now());  // the state at the end, so even short runs have a sample
  }

  Json TakeTimeseries() {
    Json a = Json::Array();
    for (auto& s : samples_) a.Push(std::move(s));
    samples_.clear();
    return a;
  }

 private:
  void Loop() {
    auto next_sample = start_ + std::chrono::seconds(1);
    MutexLock lock(&mu_);
    while (!stop_) {
      cv_.wait_until(lock, std::min(next_sample, Clock::now() + std::chrono::milliseconds(500)));
      if (stop_) break;
      auto now = Clock::now();
      if (progress_) Draw(now);
      if (now < next_sample) continue;
      next_sample += std::chrono::seconds(1);
      if (stats_interval_s_ > 0 && ++seconds_ % stats_interval_s_ == 0) PrintInterval(now);
      lock.unlock();
      Record(now);
      lock.lock();
    }
  }

  // Appends one sample. Called by the sampler thread, or after it stopped.
  void Record(Clock::time_point now) {
    StorageSample s = storage_->Sample();
    uint64_t ops = run_->completed_ops();
    double dt = std::chrono::duration<double>(now - last_).count();
    Json j = Json::Object();
    j.Set("t_s", std::chrono::duration<double>(now - start_).count())
        .Set("phase", run_->current_phase())
        .Set("free_ratio", s.free_ratio)
        .Set("ops_per_sec", dt > 0 ? static_cast<double>(ops - last_ops_) / dt : 0.0)
        .Set("zc_copy_bytes", s.zc_copy_bytes)
        .Set("resets", s.resets)
        .Set("l0_files", run_->L0Files());
    samples_.push_back(std::move(j));
    last_ops_ = ops;
    last_ = now;
  }

  // db_bench's --stats_interval_seconds line.
  void PrintInterval(Clock::time_point now) ZONEKV_REQUIRES(mu_) {
    uint64_t ops = run_->completed_ops();
    double dt = std::chrono::duration<double>(now - interval_start_).count();
    if (interval_start_ == Clock::time_point()) dt = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "%s ... %llu ops total, %.1f ops/second in the last %.1f seconds\n",
                 run_->current_phase().c_str(), static_cast<unsigned long long>(ops),
                 dt > 0 ? static_cast<double>(ops - interval_ops_) / dt : 0.0, dt);
    interval_ops_ = ops;
    interval_start_ = now;
  }

  // Draws only after two seconds, so short runs stay quiet.
  void Draw(Clock::time_point now) ZONEKV_REQUIRES(mu_) {
    double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 2.0 || total_ops_ == 0) return;
    uint64_t done = std::min(run_->completed_ops(), total_ops_);
    double frac = static_cast<double>(done) / static_cast<double>(total_ops_);
    double rate = static_cast<double>(done) / elapsed;
    char eta[32] = "--:--";
    if (rate > 0) {
      uint64_t left = static_cast<uint64_t>(static_cast<double>(total_ops_ - done) / rate);
      std::snprintf(eta, sizeof(eta), "%llu:%02llu", static_cast<unsigned long long>(left / 60),
                    static_cast<unsigned long long>(left % 60));
    }
    const int width = 30;
    int fill = static_cast<int>(frac * width);
    std::string bar(static_cast<size_t>(fill), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r\033[K[%s] %3.0f%% %s %.0f ops/s ETA %s", bar.c_str(), frac * 100,
                 run_->current_phase().c_str(), rate, eta);
    std::fflush(stderr);
    drawn_ = true;
  }

  BenchStorage* storage_;
  Run* run_;
  uint64_t total_ops_;
  bool progress_;
  const uint64_t stats_interval_s_;
  uint64_t seconds_ = 0;                // sampler ticks so far
  uint64_t interval_ops_ = 0;           // completed ops at the last interval line
  Clock::time_point interval_start_{};  // time of the last interval line
  Clock::time_point start_;
  Mutex mu_;
  std::condition_variable_any cv_;
  bool stop_ ZONEKV_GUARDED_BY(mu_) = false;
  // Written by the sampler thread, and by Stop() once it has joined it.
  bool drawn_ = false;
  std::vector<Json> samples_;
  uint64_t last_ops_ = 0;
  Clock::time_point last_ = start_;
  std::thread thread_;
};

// Checks the configuration and expands it into phases.
Status PlanPhases(const BenchConfig& config, std::vector<PhaseSpec>* phases, YcsbSpec* ycsb,
                  uint64_t* value_size) {
  if (config.workloads.empty()) return Status::InvalidArgument("--workload is empty");
  if (config.threads == 0 || config.threads > 256) {
    return Status::InvalidArgument("--threads=" + std::to_string(config.threads) + ": must be in [1, 256]");
  }
  if (config.key_size < 8 || config.key_size > 1024) {
    return Status::InvalidArgument("--key_size=" + std::to_string(config.key_size) + ": must be in [8, 1024]");
  }
  if (config.read_write_percent < 1 || config.read_write_percent > 99) {
    return Status::InvalidArgument("--readwritepercent=" + std::to_string(config.read_write_percent) +
                                   ": must be in [1, 99]");
  }
  if (config.num == 0) return Status::InvalidArgument("--num must be at least 1");
  bool is_ycsb = IsYcsbWorkload(config.workloads[0]);
  if (is_ycsb && (config.writes != 0 || config.reads != 0 || config.duration_s != 0)) {
    return Status::InvalidArgument("--writes, --reads and --duration apply to db_bench workloads, not " +
                                   config.workloads[0] + " (use --operationcount and --max_seconds)");
  }
  *value_size = config.value_size != 0 ? config.value_size : (is_ycsb ? 1000 : 100);
  if (*value_size > (64u << 20)) {
    return Status::InvalidArgument("--value_size=" + std::to_string(*value_size) + ": must be at most 64M");
  }
  if (is_ycsb) {
    if (config.workloads.size() != 1) {
      return Status::InvalidArgument("--workload: a YCSB workload (" + config.workloads[0] +
                                     ") runs alone; got " + std::to_string(config.workloads.size()) + " workloads");
    }
    ZONEKV_RETURN_IF_ERROR(LookupYcsbSpec(config.workloads[0], ycsb));
    const std::string& d = config.request_distribution;
    if (d == "zipfian") ycsb->distribution = KeyDistribution::kZipfian;
    else if (d == "latest") ycsb->distribution = KeyDistribution::kLatest;
    else if (d == "uniform") ycsb->distribution = KeyDistribution::kUniform;
    else if (!d.empty()) {
      return Status::InvalidArgument("--requestdistribution=" + d + ": must be zipfian, latest or uniform");
    }
    uint64_t records = config.record_count ? config.record_count : config.num;
    uint64_t ops = config.operation_count ? config.operation_count : config.num;
    phases->push_back({"load", PhaseKind::kYcsbLoad, false, config.threads, records});
    phases->push_back({"run", PhaseKind::kYcsbRun, true, config.threads, ops});
    return Status::OK();
  }
  if (!config.request_distribution.empty()) {
    return Status::InvalidArgument("--requestdistribution applies to YCSB workloads only, not " + config.workloads[0]);
  }
  for (const auto& w : config.workloads) {
    if (!IsDbBenchWorkload(w)) {
      return Status::InvalidArgument("--workload=" + w +
                                     ": unknown (db_bench: fillrandom, fillseq, overwrite, readrandom, "
                                     "readrandomwriterandom; YCSB: ycsb-a..ycsb-f, sv-wla, sv-wlb, sv-wlc)");
    }
  }
  // Benchmarks that read or overwrite expect data: load it with fillseq first.
  if (DbBenchNeedsData(config.workloads[0])) {
    phases->push_back({"fillseq", PhaseKind::kDbBench, false, 1, config.num});
  }
  for (const auto& w : config.workloads) {
    uint64_t per_thread = IsDbBenchRead(w) ? config.reads : config.writes;
    if (per_thread == 0) per_thread = config.num;
    phases->push_back({w, PhaseKind::kDbBench, true, config.threads, per_thread * config.threads});
  }
  return Status::OK();
}

std::string JoinWorkloads(const std::vector<std::string>& w) {
  std::string s;
  for (const auto& x : w) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

Status RunBench(const BenchConfig& requested, BenchOutput* out) {
  BenchConfig config = requested;
  if (config.scheme.empty()) config.scheme = DefaultScheme(config.fs);
  std::vector<PhaseSpec> phases;
  YcsbSpec ycsb;
  uint64_t value_size = 0;
  ZONEKV_RETURN_IF_ERROR(PlanPhases(config, &phases, &ycsb, &value_size));
  Scheme scheme;
  {
    Status s = LookupScheme(config.scheme, &scheme);
    if (!s.ok()) return Status::InvalidArgument("--scheme: " + s.message());
  }

  // RocksDB options: RocksDB's defaults, no compression (values are random),
  // a bounded info LOG, compaction readahead, then the scheme's knobs, then
  // the flags. (ZenFS keeps the info LOG on an auxiliary file system; here it
  // lives on the device, where an unbounded LOG grew to 5% of a small device
  // and cost cleaning.) zonekv has no page cache; ZenFS reads through the
  // kernel's, whose readahead serves sequential scans. Without readahead a
  // compaction reads its SST inputs, and blob GC its blobs, one block or
  // value per device read (73 us each on a ZN540): fillrandom ran 5x
  // slower, and blob GC relocated a tenth of what it relocates untimed.
  // 2 MiB is what RocksDB itself picks for direct I/O.
  rocksdb::Options options;
  ZONEKV_RETURN_IF_ERROR(SetRocksDbOption("compression", "none", &options));
  ZONEKV_RETURN_IF_ERROR(SetRocksDbOption("compaction_readahead_size", "2097152", &options));
  ZONEKV_RETURN_IF_ERROR(SetRocksDbOption("blob_compaction_readahead_size", "2097152", &options));
  ZONEKV_RETURN_IF_ERROR(SetRocksDbOption("max_log_file_size", "1048576", &options));
  ZONEKV_RETURN_IF_ERROR(SetRocksDbOption("keep_log_file_num", "2", &options));
  for (const auto& [k, v] : scheme.rocksdb_knobs) ZONEKV_RETURN_IF_ERROR(SetRocksDbOption(k, v, &options));
  for (const auto& [k, v] : config.rocksdb_knobs) ZONEKV_RETURN_IF_ERROR(SetRocksDbOption(k, v, &options));

  std::unique_ptr<BenchStorage> storage;
  ZONEKV_RETURN_IF_ERROR(OpenStorage(config, scheme, &storage));

  options.create_if_missing = true;
  options.env = storage->env();
  options.statistics = rocksdb::CreateDBStatistics();
  auto listener = std::make_shared<CountingListener>();
  options.listeners.push_back(listener);
  storage->AddListeners(&options);

  ControllerOptions copts;
  for (const auto& [k, v] : scheme.controller_knobs) {
    Status s = copts.Set(k, v);
    if (!s.ok()) return Status::InvalidArgument("scheme " + scheme.name + ": " + s.message());
  }
  for (const auto& [k, v] : config.controller_knobs) {
    Status s = copts.Set(k, v);
    if (!s.ok()) return Status::InvalidArgument("--" + k + "=" + v + ": " + s.message());
  }
  std::unique_ptr<Controllers> controllers;
  if (Status s = Controllers::Prepare(copts, storage->Hooks(), &options, &controllers); !s.ok()) {
    // A knob the storage cannot serve may come from the scheme, not a flag: say which scheme.
    if (!s.Is(Status::Code::kInvalidArgument)) return s;
    return Status::InvalidArgument("scheme " + scheme.name + " on --fs=" + config.fs + ": " + s.message());
  }

  // Everything effective, recorded before the run so that a failure still has it.
  Json cfg = storage->Config();
  cfg.Set("scheme", Json::Object().Set("name", scheme.name).Set("description", scheme.description));
  Json knobs = Json::Object();
  for (const auto& [k, v] : scheme.fs_knobs) knobs.Set(k, v);
  for (const auto& [k, v] : config.fs_knobs) knobs.Set(k, v);
  cfg.Set("fs_knobs", knobs);
  cfg.Set("controllers", copts.ToJson());
  cfg.Set("rocksdb", RocksDbOptionsToJson(options));
  Json wl = Json::Object();
  wl.Set("name", JoinWorkloads(config.workloads))
      .Set("num", config.num)
      .Set("key_size", config.key_size)
      .Set("value_size", value_size)
      .Set("threads", config.threads)
      .Set("readwritepercent", config.read_write_percent)
      .Set("max_seconds", config.max_seconds)
      .Set("writes", config.writes)
      .Set("reads", config.reads)
      .Set("duration", config.duration_s);
  if (IsYcsbWorkload(config.workloads[0])) {
    wl.Set("recordcount", phases[0].ops).Set("operationcount", phases[1].ops);
    wl.Set("proportions", Json::Object()
                              .Set("read", ycsb.read)
                              .Set("update", ycsb.update)
                              .Set("insert", ycsb.insert)
                              .Set("scan", ycsb.scan)
                              .Set("rmw", ycsb.rmw));
    const char* dist = ycsb.distribution == KeyDistribution::kZipfian  ? "zipfian"
                       : ycsb.distribution == KeyDistribution::kLatest ? "latest"
                                                                       : "uniform";
    wl.Set("requestdistribution", dist).Set("zipfian_constant", ZipfianGenerator::kZipfianConstant);
  }
  Json phase_names = Json::Array();
  for (const auto& p : phases) phase_names.Push(p.name);
  wl.Set("phases", phase_names);
  cfg.Set("workload", wl);
  cfg.Set("seed", config.seed);
  cfg.Set("scale", config.scale);
  cfg.Set("flags", config.flags);

  rocksdb::DB* raw = nullptr;
  rocksdb::Status rs = rocksdb::DestroyDB(storage->db_path(), options);
  if (rs.ok() || rs.IsNotFound() || rs.IsPathNotFound()) rs = rocksdb::DB::Open(options, storage->db_path(), &raw);
  if (!rs.ok()) return FromRocksDb(rs, "opening RocksDB at " + storage->db_path());
  std::unique_ptr<rocksdb::DB> db(raw);
  ZONEKV_RETURN_IF_ERROR(controllers->Start(db.get()));

  Run run(config, db.get(), value_size);
  if (IsYcsbWorkload(config.workloads[0])) run.set_ycsb(ycsb, phases[0].ops, phases[1].ops);
  uint64_t total_ops = 0;
  for (const auto& p : phases) total_ops += p.ops;

  std::vector<PhaseStats> results;
  Json timeseries;
  const double cpu_start_s = ProcessCpuSeconds();
  double cpu_s = 0;
  {
    Sampler sampler(storage.get(), &run, total_ops, config.progress, config.stats_interval_s);
    for (size_t i = 0; i < phases.size() && !run.failed(); i++) {
      results.push_back(run.RunPhase(phases[i], i));
      if (results.back().timed_out) break;
    }
    cpu_s = ProcessCpuSeconds() - cpu_start_s;
    sampler.Stop();
    timeseries = sampler.TakeTimeseries();
  }
  controllers->Stop();
  // RocksDB's own flushes and compactions end here, as they would in
  // Close(): the running ones finish, no new one starts. The counts below
  // and the observer's then describe the same set of compactions.
  rocksdb::CancelAllBackgroundWork(db.get(), /*wait=*/true);
  Status status = ClassifyNoSpace(run.error(), listener->background_no_space.load());

  ReportInputs in;
  in.config = &config;
  in.phases = &results;
  in.statistics = options.statistics.get();
  in.flushes = listener->flushes.load();
  in.compactions = listener->compactions.load();
  in.compaction_micros = listener->compaction_micros.load();
  in.cpu_s = cpu_s;
  ControllerStats controller_stats = controllers->Stats();
  if (controller_stats.compactor && controller_stats.compactor->external) {
    // The external compactor's CompactFiles jobs are the compactions then
    // (RocksDB notifies no listener of them). Native compactions keep
    // RocksDB's own counts, also when they are observed for S_same.
    in.compactions = controller_stats.compactor->metrics.all.compactions;
    in.compaction_micros = controller_stats.compactor->metrics.all.time_us;
  }
  in.storage = storage.get();
  BuildReport(in, out);
  out->json.Set("controllers", controller_stats.ToJson());
  out->json.Set("config", cfg);
  out->json.Set("timeseries", timeseries);

  rs = db->Close();
  db.reset();
  if (status.ok() && !rs.ok() && !rs.IsAborted()) status = FromRocksDb(rs, "closing RocksDB");
  if (!status.ok()) {
    out->json.Set("error", status.ToString());
    out->json.Set("error_code", std::string(Status::CodeName(status.code())));
    out->summary += "\nFAILED: " + status.ToString() + "\n";
  }
  return status;
}

}  // namespace zonekv
