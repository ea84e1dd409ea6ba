// SubcompactionRelay on its own: RocksDB's subcompaction notifications are
// played by hand on real threads, in the orders RocksDB may produce them.
// (hybrid_test.cc covers it under real RocksDB.)
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <rocksdb/listener.h>

#include "subcompaction_relay.h"

namespace zonekv {
namespace {

// What on_job_start/on_job_end saw, by thread.
struct Calls {
  std::mutex mu;
  std::map<std::thread::id, uint64_t> open;  // thread -> job between start and end
  std::vector<uint64_t> starts, ends;
  void Start(const CompactionJobHint& h) {
    std::lock_guard<std::mutex> l(mu);
    open[std::this_thread::get_id()] = h.job_id;
    starts.push_back(h.job_id);
  }
  void End(uint64_t job) {
    std::lock_guard<std::mutex> l(mu);
    EXPECT_EQ(open[std::this_thread::get_id()], job) << "on_job_end on a thread that did not start the job";
    open.erase(std::this_thread::get_id());
    ends.push_back(job);
  }
};

rocksdb::SubcompactionJobInfo Sub(int rocksdb_job, int sub) {
  rocksdb::SubcompactionJobInfo si{};
  si.job_id = rocksdb_job;
  si.subcompaction_job_id = sub;
  return si;
}

class RelayTest : public ::testing::Test {
 protected:
  Calls calls;
  SubcompactionRelay relay{[this](const CompactionJobHint& h) { calls.Start(h); },
                           [this](uint64_t job, const Status&) { calls.End(job); }, /*wait_ms=*/200};
  CompactionJobHint hint;
  RelayTest() { hint.job_id = 7; }

  // The thread that calls CompactFiles: its hint, then (if told)
  // subcompaction 0. It ends before the job does, which the relay does not
  // mind (JobEnd only forgets the job).
  void Caller(bool notify_sub0) {
    calls.Start(hint);  // the compactor's own on_job_start on this thread
    relay.JobBegin(hint);
    if (notify_sub0) {
      EXPECT_TRUE(relay.SubBegin(Sub(42, 0)));
      relay.SubCompleted(Sub(42, 0));
    }
  }
};

TEST_F(RelayTest, LaterSubcompactionsGetTheJobsHintOnTheirOwnThreads) {
  std::thread caller([&] { Caller(true); });
  caller.join();  // subcompaction 0 began and completed: the id is known
  std::thread sub1([&] {
    EXPECT_TRUE(relay.SubBegin(Sub(42, 1)));
    relay.SubCompleted(Sub(42, 1));
  });
  sub1.join();
  EXPECT_EQ(calls.starts, (std::vector<uint64_t>{7, 7}));
  EXPECT_EQ(calls.ends, (std::vector<uint64_t>{7})) << "the relay ends only what it started";
  EXPECT_EQ(relay.relayed(), 1u);
  EXPECT_EQ(relay.missed(), 0u);
}

TEST_F(RelayTest, ASubcompactionThatBeginsFirstWaitsForSubcompactionZero) {
  std::thread caller([&] { Caller(false); });
  caller.join();  // JobBegin ran; subcompaction 0 has not begun
  std::thread sub1([&] {
    EXPECT_TRUE(relay.SubBegin(Sub(42, 1)));  // waits
    relay.SubCompleted(Sub(42, 1));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    // Subcompaction 0, on a thread that holds the hint as the caller does.
    std::thread sub0([&] {
      relay.JobBegin(hint);
      EXPECT_TRUE(relay.SubBegin(Sub(42, 0)));
    });
    sub0.join();
  }
  sub1.join();
  EXPECT_EQ(relay.relayed(), 1u);
  EXPECT_EQ(relay.missed(), 0u);
  EXPECT_EQ(calls.ends, (std::vector<uint64_t>{7}));
}

TEST_F(RelayTest, NoHintWithoutSubcompactionZeroAndNoWaitWithoutAnExternalJob) {
  // No CompactFiles running: a native job's subcompaction, not waited for.
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(relay.SubBegin(Sub(5, 1)));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));

  std::thread caller([&] { Caller(false); });
  caller.join();
  // Subcompaction 0 never tells (RocksDB skips it while the DB closes):
  // the other waits its bound, gets no hint, and is counted.
  std::thread sub1([&] {
    EXPECT_TRUE(relay.SubBegin(Sub(42, 1)));
    relay.SubCompleted(Sub(42, 1));
  });
  sub1.join();
  EXPECT_EQ(relay.relayed(), 0u);
  EXPECT_EQ(relay.missed(), 1u);
  EXPECT_EQ(calls.starts, (std::vector<uint64_t>{7}));
  EXPECT_TRUE(calls.ends.empty());
}

}  // namespace
}  // namespace zonekv
