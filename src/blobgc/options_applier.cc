// OptionsApplier: SetOptions on a thread of its own, waited for only until
// the values take effect (options_applier.h).
#include "zonekv/options_applier.h"

#include <algorithm>
#include <chrono>

#include <rocksdb/convenience.h>
#include <rocksdb/options.h>

#include "zonekv/clock.h"

namespace zonekv {

namespace {

// How often Apply() looks whether the values took effect (they do within
// the call's first DB mutex hold, before its MANIFEST and OPTIONS writes).
constexpr std::chrono::milliseconds kPoll(1);

// True if applying `options` to db's current column family options would
// change nothing, i.e. they are in effect, compared as RocksDB serializes
// options (a double with the digits RocksDB prints: values that close
// select the same blob files). A value RocksDB cannot parse is never in
// effect (the call then fails and Apply() returns its status).
bool InEffect(rocksdb::DB* db, const std::unordered_map<std::string, std::string>& options) {
  const rocksdb::ColumnFamilyOptions cur(db->GetOptions());
  rocksdb::ConfigOptions config;
  rocksdb::ColumnFamilyOptions with;
  if (!rocksdb::GetColumnFamilyOptionsFromMap(config, cur, options, &with).ok()) return false;
  std::string a, b;
  if (!rocksdb::GetStringFromColumnFamilyOptions(config, cur, &a).ok()) return false;
  if (!rocksdb::GetStringFromColumnFamilyOptions(config, with, &b).ok()) return false;
  return a == b;
}

}  // namespace

OptionsApplier::~OptionsApplier() { Drain(); }

rocksdb::Status OptionsApplier::Apply(rocksdb::DB* db, const std::unordered_map<std::string, std::string>& options) {
  Reap();
  // No call for values already in effect. Otherwise they take effect only
  // when this call applies them, so a later Apply()'s call, started after
  // this one returned, applies after it.
  if (InEffect(db, options)) return rocksdb::Status::OK();
  const auto t0 = std::chrono::steady_clock::now();
  auto call = std::make_shared<Call>();
  {
    // The thread is started under mu_, which it takes before it marks the
    // call done: Reap() and Drain() never see a call without its thread.
    MutexLock l(&mu_);
    calls_.push_back(call);
    stats_.calls++;
    stats_.in_flight_max = std::max(stats_.in_flight_max, stats_.calls - stats_.returned);
    call->thread = std::thread(&OptionsApplier::Run, this, db, options, call, t0);
  }

  rocksdb::Status result;
  for (;;) {
    // Looked at without mu_: GetOptions takes RocksDB's mutex, which the
    // call's thread holds while it applies the values.
    const bool in_effect = InEffect(db, options);
    MutexLock l(&mu_);
    if (in_effect) break;  // the call may still fail to persist them: a late error
    if (call->done) {
      result = call->status;
      break;
    }
    cv_.wait_for(l, kPoll);
  }
  const uint64_t us = ElapsedUs(t0);
  MutexLock l(&mu_);
  call->returned = true;
  if (call->done && !call->status.ok() && result.ok()) {
    // It returned an error although the values are in effect (RocksDB keeps
    // applied values when the MANIFEST or OPTIONS write fails).
    stats_.late_errors++;
    stats_.last_late_error = call->status.ToString();
  }
  stats_.wait_us_total += us;
  stats_.wait_us_max = std::max(stats_.wait_us_max, us);
  return result;
}

void OptionsApplier::Run(rocksdb::DB* db, std::unordered_map<std::string, std::string> options,
                         std::shared_ptr<Call> call, std::chrono::steady_clock::time_point t0) {
  rocksdb::Status s = db->SetOptions(options);
  const uint64_t us = ElapsedUs(t0);
  {
    MutexLock l(&mu_);
    call->status = s;
    call->done = true;
    stats_.returned++;
    stats_.call_us_total += us;
    stats_.call_us_max = std::max(stats_.call_us_max, us);
    if (call->returned && !s.ok()) {
      stats_.late_errors++;
      stats_.last_late_error = s.ToString();
    }
  }
  cv_.notify_all();
}

void OptionsApplier::Reap() {
  std::list<std::shared_ptr<Call>> done;
  {
    MutexLock l(&mu_);
    for (auto it = calls_.begin(); it != calls_.end();) {
      if ((*it)->done) {
        done.push_back(*it);
        it = calls_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& c : done) c->thread.join();
}

void OptionsApplier::Drain() {
  std::list<std::shared_ptr<Call>> all;
  {
    MutexLock l(&mu_);
    all.swap(calls_);
  }
  for (auto& c : all) {
    if (c->thread.joinable()) c->thread.join();
  }
}

OptionsApplierStats OptionsApplier::Stats() const {
  MutexLock l(&mu_);
  return stats_;
}

}  // namespace zonekv
