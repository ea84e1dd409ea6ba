// The writer process of a crash campaign (zonekv/crashtest.h): runs one
// plan's workload on RocksDB and logs each operation and its outcome.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "crash_db.h"
#include "crash_state.h"
#include "zonekv/fault_device.h"
#include "zonekv/flags.h"
#include "zonekv/random.h"

namespace zonekv {

namespace {

// Appends records to the expected-state log. One write(2) per record: a
// SIGKILL of this process loses nothing the kernel accepted, so no fsync
// (the host does not crash in this test).
class StateLog {
 public:
  Status Open(const std::string& path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (fd_ < 0) return Status::IOError("cannot create the expected-state log " + path);
    return Status::OK();
  }
  ~StateLog() {
    if (fd_ >= 0) ::close(fd_);
  }
  void Append(const CrashRecord& r) {
    const std::string b = EncodeCrashRecord(r);
    if (::write(fd_, b.data(), b.size()) != static_cast<ssize_t>(b.size())) {
      std::fprintf(stderr, "crashtest writer: the expected-state log write failed\n");
      _exit(4);  // the log is the test's ground truth: better no run than a wrong one
    }
  }

 private:
  int fd_ = -1;
};

struct WriterStats {
  uint64_t ops = 0, acked = 0, failed = 0, reads = 0, read_errors = 0;
  std::string first_error;
};

// Runs operations until `stop` (or forever). In a kill run a failed write
// ends the process (exit 3): nothing injected it. In a fault run failures
// are expected; the loop slows down once RocksDB refuses every write.
void WriteLoop(const CrashRunPlan& plan, rocksdb::DB* db, uint64_t first_seq, StateLog* log,
               const std::atomic<bool>* stop, WriterStats* st) {
  SplitMix64 rng(plan.writer_seed);
  uint64_t seq = first_seq;
  // For the test of the check itself: from the N-th synced put on, the
  // writer acknowledges synced puts it never issued (lost writes to find).
  const char* drop = std::getenv("ZONEKV_CRASHTEST_DROP_SYNCED_PUTS");
  const uint64_t drop_from = drop != nullptr ? std::strtoull(drop, nullptr, 10) : 0;
  uint64_t synced_puts = 0;
  uint32_t failures_in_a_row = 0;
  while (stop == nullptr || !stop->load()) {
    const uint64_t dice = rng.Next() % 100;
    const uint32_t key = static_cast<uint32_t>(rng.Next() % plan.keys);
    if (dice >= 90) {
      std::string v;
      rocksdb::Status s = db->Get(rocksdb::ReadOptions(), CrashKey(key), &v);
      st->reads++;
      if (!s.ok() && !s.IsNotFound()) st->read_errors++;
      continue;
    }
    CrashRecord r;
    r.seq = seq++;
    r.sync = static_cast<double>(rng.Next() % 10000) < plan.sync_fraction * 10000;
    r.begin = key;
    rocksdb::WriteOptions wo;
    wo.sync = r.sync;
    rocksdb::Status s;
    if (dice < 65) {
      r.type = CrashRecord::kPut;
      // Half small values (inline), half above min_blob_size (blob files when on).
      r.len = rng.Next() % 2 == 0 ? kMinValueBytes + static_cast<uint32_t>(rng.Next() % 200)
                                  : 300 + static_cast<uint32_t>(rng.Next() % 3700);
      log->Append(r);
      synced_puts += r.sync;
      if (drop_from == 0 || !r.sync || synced_puts < drop_from) s = db->Put(wo, CrashKey(key), CrashValue(key, r.seq, r.len));
    } else if (dice < 85) {
      r.type = CrashRecord::kDelete;
      log->Append(r);
      s = db->Delete(wo, CrashKey(key));
    } else {
      r.type = CrashRecord::kDeleteRange;
      r.end = key + 1 + static_cast<uint32_t>(rng.Next() % 30);
      log->Append(r);
      s = db->DeleteRange(wo, db->DefaultColumnFamily(), CrashKey(key), CrashKey(r.end));
    }
    st->ops++;
    CrashRecord outcome;
    outcome.seq = r.seq;
    outcome.type = s.ok() ? CrashRecord::kAck : CrashRecord::kFail;
    log->Append(outcome);
    if (s.ok()) {
      st->acked++;
      failures_in_a_row = 0;
      continue;
    }
    st->failed++;
    if (st->first_error.empty()) st->first_error = s.ToString();
    if (stop == nullptr) {
      std::fprintf(stderr, "crashtest writer: op seq %llu failed without an injected fault: %s\n",
                   static_cast<unsigned long long>(r.seq), s.ToString().c_str());
      _exit(3);
    }
    if (++failures_in_a_row > 20) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "crashtest writer: %s: %s\n", what.c_str(), s.ToString().c_str());
  return 1;
}

}  // namespace

int CrashTestWriterMain(int argc, char** argv) {
  Flags flags("__crashtest_writer");
  flags.Define("seed", "1", "campaign seed");
  flags.Define("faults", "", "campaign faults");
  flags.Define("duration_ms", "2000", "campaign duration");
  flags.Define("run", "0", "run index");
  flags.Define("image", "", "image path");
  flags.Define("log", "", "expected-state log path");
  flags.Define("first_seq", "1", "first sequence number");
  bool help = false;
  Status s = flags.Parse(argc, argv, 2, &help);
  CrashTestOptions o;
  uint64_t run = 0, first_seq = 0;
  if (s.ok()) s = flags.Uint("seed", &o.seed);
  if (s.ok()) s = flags.Uint("duration_ms", &o.duration_ms);
  if (s.ok()) s = flags.Uint("run", &run);
  if (s.ok()) s = flags.Uint("first_seq", &first_seq);
  if (!s.ok() || help) return Fail("usage", s);
  for (size_t i = 0, j; i < flags.Str("faults").size(); i = j + 1) {
    j = flags.Str("faults").find(',', i);
    if (j == std::string::npos) j = flags.Str("faults").size();
    o.faults.push_back(flags.Str("faults").substr(i, j - i));
  }
  const CrashRunPlan plan = PlanCrashRuns(o, run + 1).back();

  StateLog log;
  s = log.Open(flags.Str("log"));
  if (!s.ok()) return Fail("log", s);
  std::unique_ptr<ZonedDevice> base;
  s = OpenDevice("file:" + flags.Str("image"), &base);
  if (!s.ok()) return Fail("opening the image", s);
  std::shared_ptr<ZonedDevice> dev;
  FaultDevice* fault = nullptr;
  if (plan.fault == CrashFault::kKill) {
    dev = std::move(base);
  } else {
    auto f = std::make_shared<FaultDevice>(std::move(base));
    fault = f.get();
    if (plan.fault == CrashFault::kPowerLoss) f->SetVolatileCache(true);
    dev = std::move(f);
  }
  CrashDb db;
  s = OpenCrashDb(plan, dev, true, &db);
  if (!s.ok()) return Fail("opening the database", s);
  std::fprintf(stderr, "crashtest writer: run %llu open: %s\n", static_cast<unsigned long long>(run),
               plan.Describe().c_str());

  WriterStats st;
  if (plan.fault == CrashFault::kKill) {
    WriteLoop(plan, db.db.get(), first_seq, &log, nullptr, &st);  // until killed
    return 1;
  }
  if (plan.fault == CrashFault::kIoError) fault->FailNth(plan.io_op, plan.io_nth, plan.io_persistent);
  std::atomic<bool> stop{false};
  const auto start = std::chrono::steady_clock::now();
  std::thread writer([&] { WriteLoop(plan, db.db.get(), first_seq, &log, &stop, &st); });
  std::this_thread::sleep_until(start + std::chrono::milliseconds(plan.run_ms));
  if (plan.fault == CrashFault::kPowerLoss) {
    // The power goes: from now on nothing reaches the media. Commands
    // already past the fault point complete (as they would have before the
    // cut); RocksDB and ZoneFs see errors from here on.
    for (FaultDevice::Op op : {FaultDevice::Op::kWrite, FaultDevice::Op::kReset, FaultDevice::Op::kFinish,
                               FaultDevice::Op::kFlush}) {
      fault->FailNth(op, 1, true);
    }
    // The writer and RocksDB's background work run on into the errors.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop = true;
  writer.join();
  Status closed = db.Close();
  std::string outcome = closed.ok() ? "closed cleanly" : "close: " + closed.ToString();
  if (plan.fault == CrashFault::kPowerLoss) {
    fault->ClearFaults();
    SplitMix64 tear(plan.writer_seed ^ 0x7ea2);
    s = fault->SimulatePowerLoss(plan.torn ? &tear : nullptr);
    if (!s.ok()) return Fail("power loss", s);
  }
  // Whether the injected I/O error happened (the campaign counts it).
  const bool fired = plan.fault != CrashFault::kIoError || fault->issued(plan.io_op) >= plan.io_nth;
  std::fprintf(stderr,
               "crashtest writer: run %llu done: %llu ops, %llu acked, %llu failed (first: %s), %llu reads (%llu "
               "failed); %s; fault_fired=%d\n",
               static_cast<unsigned long long>(run), static_cast<unsigned long long>(st.ops),
               static_cast<unsigned long long>(st.acked), static_cast<unsigned long long>(st.failed),
               st.first_error.empty() ? "none" : st.first_error.c_str(), static_cast<unsigned long long>(st.reads),
               static_cast<unsigned long long>(st.read_errors), outcome.c_str(), fired ? 1 : 0);
  return 0;
}

}  // namespace zonekv
