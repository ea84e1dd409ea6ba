// The crash campaign's expected state (src/bench/crash_state.h) and plans
// (src/bench/crash_plan.h): what a key may hold after a crash.
#include <set>

#include <gtest/gtest.h>

#include "../../src/bench/crash_plan.h"
#include "../../src/bench/crash_state.h"
#include "zonekv/bench.h"

namespace zonekv {
namespace {

CrashRecord Put(uint64_t seq, uint32_t key, bool sync, uint32_t len = 100) {
  CrashRecord r;
  r.type = CrashRecord::kPut;
  r.seq = seq;
  r.begin = key;
  r.sync = sync;
  r.len = len;
  return r;
}
CrashRecord Del(uint64_t seq, uint32_t key, bool sync) {
  CrashRecord r = Put(seq, key, sync, 0);
  r.type = CrashRecord::kDelete;
  return r;
}
CrashRecord Range(uint64_t seq, uint32_t begin, uint32_t end, bool sync) {
  CrashRecord r = Put(seq, begin, sync, 0);
  r.type = CrashRecord::kDeleteRange;
  r.end = end;
  return r;
}
CrashRecord Outcome(uint64_t seq, bool ok) {
  CrashRecord r;
  r.type = ok ? CrashRecord::kAck : CrashRecord::kFail;
  r.seq = seq;
  return r;
}

std::set<uint64_t> Seqs(const std::vector<KeyVersion>& v) {
  std::set<uint64_t> s;
  for (const auto& x : v) s.insert(x.seq);
  return s;
}

TEST(CrashStateTest, ASyncedAckMakesEveryEarlierAckDurable) {
  ExpectedState st(4);
  st.SetRun({Put(1, 0, false), Outcome(1, true),   // unsynced, before the synced write: durable
             Put(2, 1, true), Outcome(2, true),    // synced
             Put(3, 0, false), Outcome(3, true),   // unsynced after: may or may not be there
             Put(4, 2, false)});                   // in flight at the kill
  auto ok = st.Acceptable();
  EXPECT_EQ(Seqs(ok[0]), (std::set<uint64_t>{1, 3}));
  EXPECT_EQ(Seqs(ok[1]), (std::set<uint64_t>{2}));
  EXPECT_EQ(Seqs(ok[2]), (std::set<uint64_t>{0, 4}));
  EXPECT_EQ(Seqs(ok[3]), (std::set<uint64_t>{0}));
  EXPECT_EQ(st.issued(), 4u);
  EXPECT_EQ(st.acked(), 3u);
  EXPECT_EQ(st.acked_synced(), 1u);
  EXPECT_EQ(st.durable(), 2u);
  std::vector<KeyVersion> latest = st.Latest();  // every acknowledged write
  EXPECT_EQ(latest[0].seq, 3u);
  EXPECT_EQ(latest[1].seq, 2u);
  EXPECT_EQ(latest[2].seq, 0u);  // the put in flight is not acknowledged
}

TEST(CrashStateTest, ASyncedDeleteMustStayDeletedUnlessPutAgain) {
  ExpectedState st(40);
  st.Rebase(std::vector<KeyVersion>(40, KeyVersion{7, 100}));
  st.SetRun({Del(10, 3, true), Outcome(10, true), Range(11, 20, 30, true), Outcome(11, true),
             Put(12, 25, false), Outcome(12, true)});
  auto ok = st.Acceptable();
  EXPECT_EQ(Seqs(ok[3]), (std::set<uint64_t>{0}));
  EXPECT_EQ(Seqs(ok[20]), (std::set<uint64_t>{0}));
  EXPECT_EQ(Seqs(ok[29]), (std::set<uint64_t>{0}));
  EXPECT_EQ(Seqs(ok[30]), (std::set<uint64_t>{7}));      // outside the range
  EXPECT_EQ(Seqs(ok[25]), (std::set<uint64_t>{0, 12}));  // re-put after, unsynced
}

TEST(CrashStateTest, AFailedWriteMayOrMayNotHaveHappened) {
  ExpectedState st(2);
  st.SetRun({Put(1, 0, true), Outcome(1, true), Put(2, 0, true), Outcome(2, false), Put(3, 1, true),
             Outcome(3, true)});
  auto ok = st.Acceptable();
  EXPECT_EQ(Seqs(ok[0]), (std::set<uint64_t>{1, 2}));
  EXPECT_EQ(Seqs(ok[1]), (std::set<uint64_t>{3}));
  EXPECT_EQ(st.failed(), 1u);
  // A failed write superseded by a later acknowledged one is gone for good.
  st.SetRun({Put(4, 0, true), Outcome(4, false), Put(5, 0, true), Outcome(5, true)});
  EXPECT_EQ(Seqs(st.Acceptable()[0]), (std::set<uint64_t>{5}));
}

TEST(CrashStateTest, LogKeepsWholeRecordsAndRejectsDamage) {
  std::string log = EncodeCrashRecord(Put(1, 5, true)) + EncodeCrashRecord(Outcome(1, true)) +
                    EncodeCrashRecord(Put(2, 6, false));
  std::vector<CrashRecord> recs;
  ASSERT_TRUE(DecodeCrashLog(log + "torn", &recs).ok());
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].begin, 5u);
  EXPECT_TRUE(recs[0].sync);
  EXPECT_EQ(recs[2].seq, 2u);
  std::string bad = log;
  bad[3] ^= 1;  // the first record's checksum no longer matches
  EXPECT_TRUE(DecodeCrashLog(bad, &recs).Is(Status::Code::kCorruption));
  // An acknowledgement of an operation never logged.
  EXPECT_TRUE(DecodeCrashLog(EncodeCrashRecord(Outcome(9, true)), &recs).Is(Status::Code::kCorruption));
}

TEST(CrashStateTest, ValuesNameTheirWriteAndShowDamage) {
  std::string v = CrashValue(12, 345, 1000);
  EXPECT_EQ(v.size(), 1000u);
  uint64_t seq = 0;
  uint32_t len = 0;
  ASSERT_TRUE(ParseCrashValue(12, v, &seq, &len));
  EXPECT_EQ(seq, 345u);
  EXPECT_EQ(len, 1000u);
  EXPECT_FALSE(ParseCrashValue(13, v, &seq, &len));  // another key's value
  std::string damaged = v;
  damaged[700] = damaged[700] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(ParseCrashValue(12, damaged, &seq, &len));
  EXPECT_FALSE(ParseCrashValue(12, v.substr(0, 999), &seq, &len));
}

TEST(CrashPlanTest, SameSeedSamePlansAndEveryChoiceIsDrawn) {
  CrashTestOptions o;
  o.seed = 42;
  o.faults = {"powerloss", "ioerror"};
  auto a = PlanCrashRuns(o, 300), b = PlanCrashRuns(o, 300);
  std::set<std::string> schemes, faults;
  std::set<uint32_t> active;
  bool short_cap = false;
  for (size_t i = 0; i < a.size(); i++) {
    EXPECT_EQ(a[i].Describe(), b[i].Describe());
    const DeviceGeometry& g = a[i].geometry;
    ASSERT_TRUE(g.Validate().ok()) << a[i].Describe();
    EXPECT_EQ(g.nr_zones % 2, 1u);
    EXPECT_GE(g.max_open_zones, 2u);
    EXPECT_LE(g.max_open_zones, g.max_active_zones);
    EXPECT_LE(g.max_active_zones, 14u);
    short_cap |= g.zone_capacity_bytes < g.zone_size_bytes;
    schemes.insert(a[i].scheme);
    faults.insert(CrashFaultName(a[i].fault));
    active.insert(g.max_active_zones);
    if (i > 0 && !a[i].new_image) {
      EXPECT_EQ(a[i].image, a[i - 1].image);
    }
  }
  EXPECT_TRUE(short_cap);
  EXPECT_EQ(schemes.size(), AllSchemes().size());
  EXPECT_EQ(faults, (std::set<std::string>{"kill", "powerloss", "ioerror"}));
  EXPECT_TRUE(active.count(4) && active.count(14));
  EXPECT_EQ(*active.begin(), 4u);
  // A prefix of the runs is planned the same (the writer plans up to its own run).
  auto prefix = PlanCrashRuns(o, 17);
  EXPECT_EQ(prefix.back().Describe(), a[16].Describe());
  o.seed = 43;
  EXPECT_NE(PlanCrashRuns(o, 1)[0].Describe() + PlanCrashRuns(o, 2)[1].Describe(),
            a[0].Describe() + a[1].Describe());
}

}  // namespace
}  // namespace zonekv
