// FaultDevice: a ZonedDevice wrapper that injects failures, for tests.
//
// Two kinds of fault:
//  - I/O errors: FailNth(op, n) makes the n-th following command of that
//    kind fail with IOError without reaching the wrapped device (so it
//    changes nothing); with `and_after`, every later one fails too.
//  - Power loss with a volatile write cache: when the cache is on, a write
//    is acknowledged at once but becomes durable only at the next Flush().
//    FINISH and RESET are durable when they complete (and make the zone's
//    earlier writes durable too). SimulatePowerLoss() then drops every write
//    that was not durable: each zone's write pointer goes back to its last
//    durable point (the data up to it is kept), and open zones become closed
//    (or empty), as after a power cycle. SimulatePowerLoss(rng) tears the
//    lost writes instead: each zone keeps, past its durable point, a random
//    number of whole blocks of what was written (the cache wrote back part
//    of it in order before the power went).
//
//  - A gate, for tests of concurrency without timing: HoldNext(op, zone)
//    makes the next command of kind `op` (on `zone`, or on any zone) wait,
//    counted but before it reaches the wrapped device, until Release(op).
//    WaitUntilHeld tells the test when a command is waiting at the gate.
//
// Rolling a zone back is done on the wrapped device by reading the durable
// prefix, resetting the zone and rewriting the prefix. ReportZones hides the
// extra resets from the reset counts; counters() is the wrapped device's and
// includes that traffic.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <vector>

#include "zonekv/mutex.h"
#include "zonekv/random.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

class FaultDevice final : public ZonedDevice {
 public:
  // kWrite covers Write and Append.
  enum class Op { kRead = 0, kWrite = 1, kReset = 2, kFinish = 3, kFlush = 4 };
  static constexpr int kOps = 5;
  // "read", "write", "reset", "finish" or "flush".
  static const char* OpName(Op op);
  static constexpr uint32_t kAnyZone = UINT32_MAX;
  // How long a held command waits for Release before it fails with IOError
  // (so that a test that forgets to release fails instead of hanging).
  static constexpr std::chrono::seconds kGateLimit{60};

  explicit FaultDevice(std::unique_ptr<ZonedDevice> base);

  ZonedDevice* base() const { return base_.get(); }

  // The n-th (1-based, counted from this call) command of kind `op` fails;
  // with `and_after`, so does every later one. n == 0 clears the fault.
  void FailNth(Op op, uint64_t n, bool and_after = false);
  void ClearFaults();
  // Commands of kind `op` issued so far (failed ones included).
  uint64_t issued(Op op) const;

  // Holds the next command of kind `op` on `zone` (kAnyZone: on any zone;
  // a flush has no zone and matches any) until Release(op). One command at a
  // time per kind; a later HoldNext replaces one not yet matched.
  void HoldNext(Op op, uint32_t zone = kAnyZone);
  // Waits until a command of kind `op` is held at the gate; false if none is
  // within `timeout`.
  [[nodiscard]] bool WaitUntilHeld(Op op, std::chrono::milliseconds timeout);
  // Lets the held command of kind `op` (if any) proceed and disarms the gate.
  void Release(Op op);

  // Turns the volatile write cache on or off. Turning it off makes
  // everything written so far durable.
  void SetVolatileCache(bool on);
  // Drops all writes that are not durable (see above). IOError if the wrapped
  // device fails while zones are rolled back.
  // With `torn`, each zone keeps a prefix of its lost writes, a whole
  // number of blocks drawn from *torn (so the same seed tears the same way).
  // REQUIRES: no other command is in flight on this device.
  Status SimulatePowerLoss(SplitMix64* torn = nullptr);

  const DeviceGeometry& geometry() const override { return base_->geometry(); }
  std::string name() const override { return "fault(" + base_->name() + ")"; }
  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override;
  Status Read(uint64_t offset_bytes, size_t n_bytes, char* buf) override;
  Status Write(uint64_t offset_bytes, const char* data, size_t n_bytes) override;
  Status Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) override;
  Status OpenZone(uint32_t zone) override { return base_->OpenZone(zone); }
  Status CloseZone(uint32_t zone) override { return base_->CloseZone(zone); }
  Status FinishZone(uint32_t zone) override;
  Status ResetZone(uint32_t zone) override;
  Status Flush() override;
  DeviceCounters counters() const override { return base_->counters(); }

 private:
  struct Fault {
    uint64_t fail_at = 0;  // absolute command number; 0 = none
    bool and_after = false;
  };
  struct Gate {
    bool armed = false;    // the next matching command is to be held
    uint32_t zone = kAnyZone;
    bool held = false;     // a command is waiting
    uint64_t releases = 0;  // bumped by Release
  };
  // Counts one command of kind `op` on `zone`; IOError if it is to fail.
  // Then waits at the gate if it is armed for this command.
  Status Inject(Op op, uint32_t zone, const std::string& what) ZONEKV_EXCLUDES(mu_);
  // Records the durable write pointer of `zone` after a successful command.
  void MarkWritten(uint32_t zone) ZONEKV_EXCLUDES(mu_);
  void MarkDurable(uint32_t zone) ZONEKV_EXCLUDES(mu_);

  std::unique_ptr<ZonedDevice> base_;
  mutable Mutex mu_;
  std::condition_variable_any gate_cv_;
  uint64_t issued_[kOps] ZONEKV_GUARDED_BY(mu_) = {};
  Fault faults_[kOps] ZONEKV_GUARDED_BY(mu_);
  Gate gates_[kOps] ZONEKV_GUARDED_BY(mu_);
  bool volatile_cache_ ZONEKV_GUARDED_BY(mu_) = false;
  std::vector<uint64_t> durable_wp_ ZONEKV_GUARDED_BY(mu_);     // absolute bytes
  std::vector<uint64_t> hidden_resets_ ZONEKV_GUARDED_BY(mu_);  // resets done by rollbacks
};

}  // namespace zonekv
