// The expected state of a crash campaign's database (zonekv/crashtest.h):
// the writer's log of operations and acknowledgements, and what each key
// may hold after a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zonekv/status.h"

namespace zonekv {

// Keys are "k" and 8 digits. A value is "<key>:<seq>:<len>:" in hex and
// then bytes drawn from seq, `len` bytes in all (len >= kMinValueBytes):
// a value names the write that made it, and any damage shows.
std::string CrashKey(uint32_t key);
constexpr uint32_t kMinValueBytes = 40;
std::string CrashValue(uint32_t key, uint64_t seq, uint32_t len);
// Parses a value of `key`; false if it is not a well-formed value of that key
// (wrong key, bad header, or bytes that differ from CrashValue's).
bool ParseCrashValue(uint32_t key, const std::string& value, uint64_t* seq, uint32_t* len);

// One record of the writer's log: an operation before it is issued
// (kPut, kDelete, kDeleteRange over keys [begin, end)) or the outcome of
// the operation `seq` (kAck, kFail). Each is 32 bytes with a CRC and is
// written with one write(2), so a SIGKILL leaves whole records only (a
// torn last one is ignored).
struct CrashRecord {
  enum Type : uint8_t { kPut = 1, kDelete = 2, kDeleteRange = 3, kAck = 4, kFail = 5 };
  Type type = kPut;
  bool sync = false;
  uint32_t begin = 0;
  uint32_t end = 0;  // kDeleteRange
  uint32_t len = 0;  // kPut: value length
  uint64_t seq = 0;  // >= 1, unique within a campaign
};
constexpr size_t kCrashRecordBytes = 32;
std::string EncodeCrashRecord(const CrashRecord& r);
// Every whole record of `data`; Corruption if a record other than a torn
// last one is damaged or an outcome names an operation not logged.
Status DecodeCrashLog(const std::string& data, std::vector<CrashRecord>* records);

// What a key holds: the seq and length of the put that wrote it, or
// nothing (seq 0).
struct KeyVersion {
  uint64_t seq = 0;
  uint32_t len = 0;
  bool operator==(const KeyVersion& o) const { return seq == o.seq && len == o.len; }
};

// The database as last verified, and the operations of one writer run on it.
class ExpectedState {
 public:
  explicit ExpectedState(uint32_t keys) : base_(keys) {}

  uint32_t keys() const { return static_cast<uint32_t>(base_.size()); }
  // Starts a run's operations on top of the base state.
  void SetRun(std::vector<CrashRecord> records);

  // What each key may hold after this run's crash (see crashtest.h).
  std::vector<std::vector<KeyVersion>> Acceptable() const;
  // What each key would hold had every acknowledged write survived: keys
  // read back otherwise lost unsynced writes (evidence that the crash bit).
  std::vector<KeyVersion> Latest() const;
  // The run's database as read back becomes the base of the next run.
  void Rebase(std::vector<KeyVersion> actual) { base_ = std::move(actual); }

  // Over the run: operations issued, acknowledged, acknowledged and synced,
  // failed; and the acknowledged writes up to the last synced one (those
  // that must be durable).
  uint64_t issued() const { return ops_.size(); }
  uint64_t acked() const;
  uint64_t acked_synced() const;
  uint64_t failed() const;
  uint64_t durable() const;
  // One line describing an operation touching `key`, for failure messages.
  std::string History(uint32_t key) const;

 private:
  struct Op {
    CrashRecord rec;
    enum { kInFlight, kAcked, kFailed } outcome = kInFlight;
  };
  int64_t LastSyncedAck() const;  // index into ops_, -1 if none
  std::vector<KeyVersion> base_;
  std::vector<Op> ops_;
};

}  // namespace zonekv
