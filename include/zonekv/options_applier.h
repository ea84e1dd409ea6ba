// OptionsApplier: mutable column family options that take effect without
// waiting for RocksDB's write thread.
//
// DB::SetOptions (RocksDB 7.8) applies the new values to the column family
// under the DB mutex at once, then appends a MANIFEST record, then writes a
// new OPTIONS file inside its write thread (WriteOptionsFile with
// need_enter_write_thread). RocksDB stalls the write thread while its
// memtables are full, so the call can return tens of seconds after the
// values took effect; a caller that needs the values, not the file (the
// space GC's CompactFiles reads the column family's current options), need
// not wait that long. Apply() makes the call on a thread of its own and
// returns as soon as DB::GetOptions() shows the values; the call itself
// finishes, and its thread is joined, whenever RocksDB lets it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>

#include <rocksdb/db.h>

#include "zonekv/mutex.h"
#include "zonekv/thread_annotations.h"

namespace zonekv {

struct OptionsApplierStats {
  uint64_t calls = 0;          // SetOptions calls made
  uint64_t returned = 0;       // of which returned (the others are still inside RocksDB)
  uint64_t call_us_total = 0;  // their wall time, call to return (the OPTIONS file included)
  uint64_t call_us_max = 0;
  uint64_t wait_us_total = 0;  // how long Apply() waited: until the values took effect
  uint64_t wait_us_max = 0;
  uint64_t in_flight_max = 0;  // calls not yet returned at once, at most
  uint64_t late_errors = 0;    // calls that failed after Apply() had returned (persistence)
  std::string last_late_error;
};

class OptionsApplier {
 public:
  OptionsApplier() = default;
  ~OptionsApplier();  // Drain()
  OptionsApplier(const OptionsApplier&) = delete;
  OptionsApplier& operator=(const OptionsApplier&) = delete;

  // db->SetOptions(options) on a thread of its own. Returns OK once every
  // value of `options` is in effect in db's default column family
  // (GetOptions() shows it), or the call's status if it returned first;
  // OK at once, with no call, if they already are. Successive Apply()s by
  // one caller take effect in their order (unless another caller of
  // SetOptions changes the same options meanwhile).
  // REQUIRES: db stays open until Drain() returns.
  [[nodiscard]] rocksdb::Status Apply(rocksdb::DB* db, const std::unordered_map<std::string, std::string>& options)
      ZONEKV_EXCLUDES(mu_);

  // Waits for every call still in RocksDB to return.
  // REQUIRES: no Apply() runs meanwhile.
  void Drain() ZONEKV_EXCLUDES(mu_);

  OptionsApplierStats Stats() const ZONEKV_EXCLUDES(mu_);

 private:
  struct Call {
    std::thread thread;
    // done, returned and status are guarded by mu_ (members of a list's
    // elements, which the analysis cannot follow).
    bool done = false;       // SetOptions returned
    bool returned = false;   // Apply() has returned: a failure now is a late error
    rocksdb::Status status;  // valid once done
  };
  // The call's thread: db->SetOptions(options), then marks `call` done.
  void Run(rocksdb::DB* db, std::unordered_map<std::string, std::string> options, std::shared_ptr<Call> call,
           std::chrono::steady_clock::time_point t0) ZONEKV_EXCLUDES(mu_);
  // Joins the calls that returned. REQUIRES: mu_ not held (joins).
  void Reap() ZONEKV_EXCLUDES(mu_);

  mutable Mutex mu_;
  std::condition_variable_any cv_;  // a call returned
  std::list<std::shared_ptr<Call>> calls_ ZONEKV_GUARDED_BY(mu_);
  OptionsApplierStats stats_ ZONEKV_GUARDED_BY(mu_);
};

}  // namespace zonekv
