#include "crash_state.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>

#include "zonekv/crc32c.h"
#include "zonekv/random.h"

namespace zonekv {

namespace {

void PutFixed32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }
void PutFixed64(char* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint32_t GetFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t GetFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

std::string Header(uint32_t key, uint64_t seq, uint32_t len) {
  char h[64];
  std::snprintf(h, sizeof(h), "%08x:%016" PRIx64 ":%08x:", key, seq, len);
  return h;
}

const char* TypeName(CrashRecord::Type t) {
  switch (t) {
    case CrashRecord::kPut: return "put";
    case CrashRecord::kDelete: return "delete";
    case CrashRecord::kDeleteRange: return "delete_range";
    case CrashRecord::kAck: return "ack";
    case CrashRecord::kFail: return "fail";
  }
  return "?";
}

bool Touches(const CrashRecord& r, uint32_t key) {
  if (r.type == CrashRecord::kDeleteRange) return key >= r.begin && key < r.end;
  return key == r.begin;
}

}  // namespace

std::string CrashKey(uint32_t key) {
  char b[16];
  std::snprintf(b, sizeof(b), "k%08u", key);
  return b;
}

std::string CrashValue(uint32_t key, uint64_t seq, uint32_t len) {
  std::string v = Header(key, seq, len);
  v.reserve(len);
  SplitMix64 rng(seq * 0x9e3779b97f4a7c15ULL + key);
  while (v.size() < len) {
    uint64_t x = rng.Next();
    for (int i = 0; i < 8 && v.size() < len; i++, x >>= 8) v.push_back(static_cast<char>('a' + (x & 0xff) % 26));
  }
  return v;
}

bool ParseCrashValue(uint32_t key, const std::string& value, uint64_t* seq, uint32_t* len) {
  unsigned k = 0, l = 0;
  uint64_t s = 0;
  if (value.size() < kMinValueBytes || std::sscanf(value.c_str(), "%8x:%16" SCNx64 ":%8x:", &k, &s, &l) != 3) {
    return false;
  }
  if (k != key || l != value.size() || value != CrashValue(key, s, l)) return false;
  *seq = s;
  *len = l;
  return true;
}

std::string EncodeCrashRecord(const CrashRecord& r) {
  std::string out(kCrashRecordBytes, '\0');
  char* p = out.data();
  p[0] = static_cast<char>(r.type);
  p[1] = r.sync ? 1 : 0;
  PutFixed32(p + 4, r.begin);
  PutFixed32(p + 8, r.end);
  PutFixed32(p + 12, r.len);
  PutFixed64(p + 16, r.seq);
  PutFixed32(p + 28, Crc32c(p, 28));
  return out;
}

Status DecodeCrashLog(const std::string& data, std::vector<CrashRecord>* records) {
  records->clear();
  std::map<uint64_t, bool> logged;  // seq -> has an outcome
  const size_t whole = data.size() / kCrashRecordBytes;
  for (size_t i = 0; i < whole; i++) {
    const char* p = data.data() + i * kCrashRecordBytes;
    const bool last = i + 1 == whole && data.size() % kCrashRecordBytes == 0;
    if (GetFixed32(p + 28) != Crc32c(p, 28)) {
      if (last) break;  // torn by the kill
      return Status::Corruption("expected-state log: record " + std::to_string(i) + " has a bad checksum");
    }
    CrashRecord r;
    const uint8_t type = static_cast<uint8_t>(p[0]);
    if (type < CrashRecord::kPut || type > CrashRecord::kFail) {
      return Status::Corruption("expected-state log: record " + std::to_string(i) + " has type " + std::to_string(type));
    }
    r.type = static_cast<CrashRecord::Type>(type);
    r.sync = p[1] != 0;
    r.begin = GetFixed32(p + 4);
    r.end = GetFixed32(p + 8);
    r.len = GetFixed32(p + 12);
    r.seq = GetFixed64(p + 16);
    if (r.type == CrashRecord::kAck || r.type == CrashRecord::kFail) {
      auto it = logged.find(r.seq);
      if (it == logged.end() || it->second) {
        return Status::Corruption("expected-state log: record " + std::to_string(i) + " is an outcome of seq " +
                                  std::to_string(r.seq) + ", which has no operation without an outcome");
      }
      it->second = true;
    } else {
      if (!logged.emplace(r.seq, false).second) {
        return Status::Corruption("expected-state log: seq " + std::to_string(r.seq) + " is logged twice");
      }
    }
    records->push_back(r);
  }
  return Status::OK();
}

void ExpectedState::SetRun(std::vector<CrashRecord> records) {
  ops_.clear();
  std::map<uint64_t, size_t> index;
  for (const CrashRecord& r : records) {
    if (r.type == CrashRecord::kAck || r.type == CrashRecord::kFail) {
      auto it = index.find(r.seq);
      if (it != index.end()) ops_[it->second].outcome = r.type == CrashRecord::kAck ? Op::kAcked : Op::kFailed;
      continue;
    }
    index[r.seq] = ops_.size();
    ops_.push_back({r});
  }
}

int64_t ExpectedState::LastSyncedAck() const {
  for (int64_t i = static_cast<int64_t>(ops_.size()) - 1; i >= 0; i--) {
    if (ops_[i].outcome == Op::kAcked && ops_[i].rec.sync) return i;
  }
  return -1;
}

std::vector<std::vector<KeyVersion>> ExpectedState::Acceptable() const {
  const int64_t s = LastSyncedAck();
  // The floor: each key's value after the acknowledged writes up to s
  // (earlier failed writes may or may not have happened: they join the
  // candidates below unless an acknowledged write of the key came later).
  std::vector<KeyVersion> floor = base_;
  std::vector<int64_t> floor_at(base_.size(), -1);
  auto value_of = [](const CrashRecord& r) {
    return r.type == CrashRecord::kPut ? KeyVersion{r.seq, r.len} : KeyVersion{};
  };
  auto for_keys = [&](const CrashRecord& r, auto fn) {
    const uint32_t end = r.type == CrashRecord::kDeleteRange ? std::min<uint32_t>(r.end, keys()) : r.begin + 1;
    for (uint32_t k = r.begin; k < end && k < keys(); k++) fn(k);
  };
  for (int64_t i = 0; i <= s; i++) {
    if (ops_[i].outcome != Op::kAcked) continue;
    for_keys(ops_[i].rec, [&](uint32_t k) {
      floor[k] = value_of(ops_[i].rec);
      floor_at[k] = i;
    });
  }
  std::vector<std::vector<KeyVersion>> ok(base_.size());
  for (uint32_t k = 0; k < keys(); k++) ok[k].push_back(floor[k]);
  for (int64_t i = 0; i < static_cast<int64_t>(ops_.size()); i++) {
    if (i <= s && ops_[i].outcome == Op::kAcked) continue;
    for_keys(ops_[i].rec, [&](uint32_t k) {
      if (i > floor_at[k]) ok[k].push_back(value_of(ops_[i].rec));
    });
  }
  return ok;
}

std::vector<KeyVersion> ExpectedState::Latest() const {
  std::vector<KeyVersion> latest = base_;
  for (const Op& op : ops_) {
    if (op.outcome != Op::kAcked) continue;
    const CrashRecord& r = op.rec;
    const uint32_t end = r.type == CrashRecord::kDeleteRange ? std::min<uint32_t>(r.end, keys()) : r.begin + 1;
    for (uint32_t k = r.begin; k < end && k < keys(); k++) {
      latest[k] = r.type == CrashRecord::kPut ? KeyVersion{r.seq, r.len} : KeyVersion{};
    }
  }
  return latest;
}

uint64_t ExpectedState::acked() const {
  uint64_t n = 0;
  for (const Op& op : ops_) n += op.outcome == Op::kAcked;
  return n;
}

uint64_t ExpectedState::acked_synced() const {
  uint64_t n = 0;
  for (const Op& op : ops_) n += op.outcome == Op::kAcked && op.rec.sync;
  return n;
}

uint64_t ExpectedState::failed() const {
  uint64_t n = 0;
  for (const Op& op : ops_) n += op.outcome == Op::kFailed;
  return n;
}

uint64_t ExpectedState::durable() const {
  const int64_t s = LastSyncedAck();
  uint64_t n = 0;
  for (int64_t i = 0; i <= s; i++) n += ops_[i].outcome == Op::kAcked;
  return n;
}

std::string ExpectedState::History(uint32_t key) const {
  const int64_t s = LastSyncedAck();
  std::string h = "before this run: " + (base_[key].seq == 0 ? std::string("absent") : "seq " + std::to_string(base_[key].seq));
  std::vector<std::string> ops;
  for (int64_t i = 0; i < static_cast<int64_t>(ops_.size()); i++) {
    const CrashRecord& r = ops_[i].rec;
    if (!Touches(r, key)) continue;
    ops.push_back("op " + std::to_string(i) + " " + TypeName(r.type) + " seq " + std::to_string(r.seq) +
                  (r.sync ? " sync" : "") +
                  (ops_[i].outcome == Op::kAcked ? " acked" : ops_[i].outcome == Op::kFailed ? " failed" : " in flight"));
  }
  constexpr size_t kShown = 6;  // the last operations on the key tell the story
  if (ops.size() > kShown) h += "; " + std::to_string(ops.size() - kShown) + " earlier ops";
  for (size_t i = ops.size() > kShown ? ops.size() - kShown : 0; i < ops.size(); i++) h += "; " + ops[i];
  h += "; last synced ack: op " + std::to_string(s) + " of " + std::to_string(ops_.size());
  return h;
}

}  // namespace zonekv
