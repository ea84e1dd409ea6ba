// The FTL against a model: reads return the last data written (zeros for
// blocks never written or trimmed) while GC runs, for every policy.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "block_workload.h"
#include "zonekv/ftl.h"
#include "zonekv/json.h"
#include "zonekv/zoned_device.h"

namespace zonekv {
namespace {

// Block contents: (lba, version) stamped into every 16 bytes.
std::vector<char> Stamp(uint64_t lba, uint64_t version) {
  std::vector<char> b(kFtlBlockBytes);
  for (size_t i = 0; i < b.size(); i += 16) {
    std::memcpy(&b[i], &lba, 8);
    std::memcpy(&b[i + 8], &version, 8);
  }
  return b;
}

struct Fixture {
  std::unique_ptr<ZonedDevice> device;
  std::unique_ptr<Ftl> ftl;
};

Fixture OpenFtl(const std::string& spec, const std::string& policy, double op = 0.25) {
  Fixture f;
  EXPECT_TRUE(OpenDevice(spec, &f.device).ok()) << spec;
  FtlOptions o;
  o.policy = policy;
  o.op_ratio = op;
  o.move_payload = spec.rfind("meta:", 0) != 0;
  Status s = Ftl::Open(f.device.get(), o, &f.ftl);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

// Checks every logical block against the model (version 0 = zeros).
void ExpectMatches(Ftl* ftl, const std::vector<uint64_t>& model, const std::string& when) {
  std::vector<char> buf(kFtlBlockBytes), zeros(kFtlBlockBytes, 0);
  for (uint64_t lba = 0; lba < model.size(); lba++) {
    ASSERT_TRUE(ftl->Read(lba, buf.data()).ok());
    const std::vector<char> want = model[lba] == 0 ? zeros : Stamp(lba, model[lba]);
    ASSERT_EQ(0, std::memcmp(buf.data(), want.data(), kFtlBlockBytes))
        << when << ": lba " << lba << " expected version " << model[lba];
  }
}

class FtlModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FtlModelTest, ReadsReturnLastWriteUnderRandomWritesTrimsAndGc) {
  // 32 zones of 16 blocks; 8 over-provisioned; GC runs many times.
  Fixture f = OpenFtl("ram:zones=32,zone_size=64K", GetParam());
  ASSERT_NE(f.ftl, nullptr);
  const uint64_t blocks = f.ftl->logical_blocks();
  ASSERT_EQ(blocks, 24u * 16);
  std::vector<uint64_t> model(blocks, 0);
  BlockRandom rng(11);
  uint64_t version = 0;
  std::vector<char> buf(kFtlBlockBytes);
  for (int step = 0; step < 20000; step++) {
    // Skewed: half the operations hit the first eighth of the blocks.
    uint64_t lba = rng.Uniform(2) ? rng.Uniform(blocks / 8) : rng.Uniform(blocks);
    uint64_t op = rng.Uniform(10);
    if (op < 7) {
      ++version;
      ASSERT_TRUE(f.ftl->Write(lba, Stamp(lba, version).data()).ok()) << "step " << step;
      model[lba] = version;
    } else if (op < 8) {
      ASSERT_TRUE(f.ftl->Trim(lba).ok());
      model[lba] = 0;
    } else {
      ASSERT_TRUE(f.ftl->Read(lba, buf.data()).ok());
      std::vector<char> want = model[lba] == 0 ? std::vector<char>(kFtlBlockBytes, 0) : Stamp(lba, model[lba]);
      ASSERT_EQ(0, std::memcmp(buf.data(), want.data(), kFtlBlockBytes)) << "step " << step << " lba " << lba;
    }
    if (step % 5000 == 4999) {
      ASSERT_TRUE(f.ftl->CheckConsistency().ok()) << f.ftl->CheckConsistency().ToString();
    }
  }
  ExpectMatches(f.ftl.get(), model, "end");
  FtlStats st = f.ftl->stats();
  EXPECT_GT(st.gc_victims, 20u) << "GC should have run";
  EXPECT_EQ(st.gc_victims, st.zone_resets);
  EXPECT_GT(st.waf(), 1.0);
  EXPECT_EQ(f.device->counters().host_write_bytes, (st.user_writes + st.gc_writes) * kFtlBlockBytes);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, FtlModelTest,
                         ::testing::ValuesIn(FtlVictimPolicies().Names()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) if (c == '-') c = '_';
                           return n;
                         });

TEST(FtlTest, ConcurrentWritersEachReadBackTheirOwnBlocks) {
  Fixture f = OpenFtl("ram:zones=64,zone_size=64K", "ccb");
  ASSERT_NE(f.ftl, nullptr);
  constexpr int kThreads = 8;
  const uint64_t per = f.ftl->logical_blocks() / kThreads;
  std::vector<std::vector<uint64_t>> models(kThreads, std::vector<uint64_t>(per, 0));
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kThreads);  // one per thread: no shared words
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      BlockRandom rng(100 + t);
      for (uint64_t i = 0; i < 2000; i++) {
        uint64_t k = rng.Uniform(per);
        uint64_t lba = t * per + k;
        Status s = f.ftl->Write(lba, Stamp(lba, i + 1).data());
        if (!s.ok() && errors[t].empty()) errors[t] = s.ToString();
        models[t][k] = i + 1;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; t++) EXPECT_EQ(errors[t], "") << "thread " << t;
  ASSERT_TRUE(f.ftl->CheckConsistency().ok());
  std::vector<char> buf(kFtlBlockBytes), zeros(kFtlBlockBytes, 0);
  for (int t = 0; t < kThreads; t++) {
    for (uint64_t k = 0; k < per; k++) {
      uint64_t lba = t * per + k;
      ASSERT_TRUE(f.ftl->Read(lba, buf.data()).ok());
      std::vector<char> want = models[t][k] == 0 ? zeros : Stamp(lba, models[t][k]);
      ASSERT_EQ(0, std::memcmp(buf.data(), want.data(), kFtlBlockBytes)) << "lba " << lba;
    }
  }
  EXPECT_GT(f.ftl->stats().gc_victims, 0u);
}

// Writes `n` stamped blocks at uniformly random addresses.
void WriteRandomBlocks(Ftl* ftl, uint64_t seed, int n) {
  BlockRandom rng(seed);
  for (int i = 0; i < n; i++) {
    uint64_t lba = rng.Uniform(ftl->logical_blocks());
    ASSERT_TRUE(ftl->Write(lba, Stamp(lba, 1).data()).ok()) << "write " << i;
  }
}

TEST(FtlTest, MetadataOnlyDeviceModelsGcWithoutPayload) {
  Fixture f = OpenFtl("meta:zones=32,zone_size=64K", "fegc");
  ASSERT_NE(f.ftl, nullptr);
  ASSERT_NO_FATAL_FAILURE(WriteRandomBlocks(f.ftl.get(), 3, 5000));
  FtlStats st = f.ftl->stats();
  EXPECT_GT(st.gc_writes, 0u);
  EXPECT_EQ(f.device->counters().host_write_bytes, (st.user_writes + st.gc_writes) * kFtlBlockBytes);
  EXPECT_TRUE(f.ftl->CheckConsistency().ok());
}

// Victim selection is timed as raw sections, each paired with an empty
// control section; what is reported is their difference, clamped at zero,
// and a snapshot difference keeps both halves.
TEST(FtlStatsTest, SelectionTimeIsTheSectionsLessTheirControls) {
  FtlStats st;
  st.user_writes = 100;
  st.gc_victims = 2;
  st.selection_ns = 5000;
  st.selection_control_ns = 3000;
  EXPECT_EQ(st.victim_selection_ns(), 2000u);
  Json j = st.ToJson();
  EXPECT_DOUBLE_EQ(j.Find("selection_ns_per_io")->number(), 20.0);
  EXPECT_DOUBLE_EQ(j.Find("selection_us_per_victim")->number(), 1.0);
  EXPECT_DOUBLE_EQ(j.Find("selection_control_ns_per_victim")->number(), 1500.0);
  EXPECT_DOUBLE_EQ(j.Find("policy_ns_per_io")->number(), 20.0);  // no hook samples

  FtlStats earlier;
  earlier.selection_ns = 1000;
  earlier.selection_control_ns = 2500;
  FtlStats d = st.Since(earlier);
  EXPECT_EQ(d.selection_ns, 4000u);
  EXPECT_EQ(d.selection_control_ns, 500u);
  EXPECT_EQ(d.victim_selection_ns(), 3500u);

  st.selection_control_ns = 6000;  // controls longer than the sections: noise
  EXPECT_EQ(st.victim_selection_ns(), 0u);
}

TEST(FtlTest, EverySelectionIsPairedWithATimedControlSection) {
  Fixture f = OpenFtl("meta:zones=32,zone_size=64K", "ccb");
  ASSERT_NE(f.ftl, nullptr);
  ASSERT_NO_FATAL_FAILURE(WriteRandomBlocks(f.ftl.get(), 5, 5000));
  FtlStats st = f.ftl->stats();
  ASSERT_GT(st.gc_victims, 0u);
  // Reading the thread CPU clock twice costs time, so the control sections
  // add up to more than zero once a victim was selected.
  EXPECT_GT(st.selection_control_ns, 0u);
  EXPECT_GT(st.selection_ns, 0u);
}

TEST(FtlTest, OpenRejectsUnusableConfigurationsNamingTheProblem) {
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_TRUE(OpenDevice("ram:zones=16,zone_size=64K", &dev).ok());
  std::unique_ptr<Ftl> ftl;
  FtlOptions o;
  o.op_ratio = 0.1;  // 2 zones: not above high watermark 3 + 2 frontiers
  Status s = Ftl::Open(dev.get(), o, &ftl);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("--op"), std::string::npos) << s.message();
  o.op_ratio = 0.95;
  s = Ftl::Open(dev.get(), o, &ftl);
  EXPECT_NE(s.message().find("--op"), std::string::npos) << s.message();
  o.op_ratio = 0.5;
  o.policy = "nope";
  EXPECT_TRUE(Ftl::Open(dev.get(), o, &ftl).Is(Status::Code::kInvalidArgument));
  o.policy = "greedy";
  o.gc_low_zones = 4;
  o.gc_high_zones = 4;
  s = Ftl::Open(dev.get(), o, &ftl);
  EXPECT_NE(s.message().find("--gc_high"), std::string::npos) << s.message();

  std::unique_ptr<ZonedDevice> one_open;
  ASSERT_TRUE(OpenDevice("ram:zones=16,zone_size=64K,max_open=1,max_active=1", &one_open).ok());
  s = Ftl::Open(one_open.get(), FtlOptions{.op_ratio = 0.5}, &ftl);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
}

TEST(FtlTest, OutOfRangeBlocksAreRejected) {
  Fixture f = OpenFtl("ram:zones=32,zone_size=64K", "greedy");
  ASSERT_NE(f.ftl, nullptr);
  std::vector<char> buf(kFtlBlockBytes);
  uint64_t n = f.ftl->logical_blocks();
  EXPECT_TRUE(f.ftl->Write(n, nullptr).Is(Status::Code::kInvalidArgument));
  EXPECT_TRUE(f.ftl->Read(n, buf.data()).Is(Status::Code::kInvalidArgument));
  EXPECT_TRUE(f.ftl->Trim(n).Is(Status::Code::kInvalidArgument));
  EXPECT_TRUE(f.ftl->Write(n - 1, nullptr).ok());
}

TEST(FtlTest, OpenResetsZonesLeftWrittenByEarlierUsers) {
  std::unique_ptr<ZonedDevice> dev;
  ASSERT_TRUE(OpenDevice("ram:zones=32,zone_size=64K", &dev).ok());
  std::vector<char> junk(kFtlBlockBytes, 'x');
  ASSERT_TRUE(dev->Write(0, junk.data(), junk.size()).ok());
  std::unique_ptr<Ftl> ftl;
  ASSERT_TRUE(Ftl::Open(dev.get(), FtlOptions{.op_ratio = 0.25}, &ftl).ok());
  std::vector<char> buf(kFtlBlockBytes, 1);
  ASSERT_TRUE(ftl->Write(0, nullptr).ok());
  ASSERT_TRUE(ftl->Read(0, buf.data()).ok());
  EXPECT_EQ(buf, std::vector<char>(kFtlBlockBytes, 0));
}

}  // namespace
}  // namespace zonekv
