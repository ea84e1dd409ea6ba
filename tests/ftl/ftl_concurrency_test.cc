// The FTL under concurrent writers, readers and trimmers while GC runs, for
// every policy: each reader sees the last data written to its blocks, and
// L2P, P2L and the per-zone valid counts agree afterwards. Also the bulk
// prefill (FillSequential) against the per-block one it replaces.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "block_workload.h"
#include "zonekv/ftl.h"
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

Fixture Open(const std::string& spec, const std::string& policy, double op) {
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

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n) {
    if (c == '-') c = '_';
  }
  return n;
}

class FtlConcurrencyTest : public ::testing::TestWithParam<std::string> {};

// Thread t owns the blocks lba % kThreads == t (interleaved, so every zone
// and map stripe holds blocks of all threads); it writes, trims and reads
// them back at once, while the others' writes make GC move them.
TEST_P(FtlConcurrencyTest, EveryReaderSeesTheLastWriteOfItsBlocksWhileGcMovesThem) {
  // 48 zones of 16 blocks, a quarter over-provisioned: GC runs constantly.
  Fixture f = Open("ram:zones=48,zone_size=64K", GetParam(), 0.25);
  ASSERT_NE(f.ftl, nullptr);
  constexpr uint32_t kThreads = 8;
  constexpr uint64_t kOps = 10000;
  const uint64_t blocks = f.ftl->logical_blocks();
  std::vector<std::vector<uint64_t>> models(kThreads, std::vector<uint64_t>(blocks / kThreads + 1, 0));
  std::vector<std::string> errors(kThreads);
  std::vector<uint64_t> writes(kThreads, 0);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      BlockRandom rng(500 + t);
      std::vector<char> buf(kFtlBlockBytes), zeros(kFtlBlockBytes, 0);
      const uint64_t mine = (blocks - t + kThreads - 1) / kThreads;
      for (uint64_t i = 1; i <= kOps && errors[t].empty(); i++) {
        // Skewed: half the operations go to an eighth of the thread's blocks.
        uint64_t k = rng.Uniform(2) ? rng.Uniform(mine / 8 + 1) : rng.Uniform(mine);
        uint64_t lba = k * kThreads + t;
        uint64_t op = rng.Uniform(10);
        Status s;
        if (op < 7) {
          s = f.ftl->Write(lba, Stamp(lba, i).data());
          models[t][k] = i;
          writes[t]++;
        } else if (op < 8) {
          s = f.ftl->Trim(lba);
          models[t][k] = 0;
        } else {
          s = f.ftl->Read(lba, buf.data());
          const std::vector<char> want = models[t][k] == 0 ? zeros : Stamp(lba, models[t][k]);
          if (s.ok() && std::memcmp(buf.data(), want.data(), kFtlBlockBytes) != 0) {
            errors[t] = "lba " + std::to_string(lba) + " does not hold version " + std::to_string(models[t][k]);
          }
        }
        if (!s.ok()) errors[t] = s.ToString();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (uint32_t t = 0; t < kThreads; t++) ASSERT_EQ(errors[t], "") << "thread " << t;
  Status c = f.ftl->CheckConsistency();
  ASSERT_TRUE(c.ok()) << c.ToString();
  std::vector<char> buf(kFtlBlockBytes), zeros(kFtlBlockBytes, 0);
  for (uint64_t lba = 0; lba < blocks; lba++) {
    uint64_t v = models[lba % kThreads][lba / kThreads];
    ASSERT_TRUE(f.ftl->Read(lba, buf.data()).ok());
    const std::vector<char> want = v == 0 ? zeros : Stamp(lba, v);
    ASSERT_EQ(0, std::memcmp(buf.data(), want.data(), kFtlBlockBytes)) << "lba " << lba << " version " << v;
  }
  FtlStats st = f.ftl->stats();
  uint64_t total = 0;
  for (uint64_t w : writes) total += w;
  EXPECT_EQ(st.user_writes, total);
  EXPECT_GT(st.gc_victims, 50u) << "GC should have run throughout";
  EXPECT_EQ(f.device->counters().host_write_bytes, (st.user_writes + st.gc_writes) * kFtlBlockBytes);
}

// Many writers on a metadata-only device through RunSynthetic (shared
// zipfian hot blocks, so writers overwrite each other's blocks): the maps
// and valid counts agree and every write is counted.
TEST_P(FtlConcurrencyTest, SixteenWritersOnSharedBlocksLeaveConsistentMaps) {
  Fixture f = Open("meta:zones=96,zone_size=256K", GetParam(), 0.2);
  ASSERT_NE(f.ftl, nullptr);
  SynthOptions o;
  o.workload = "zipfian";
  o.threads = 16;
  o.writes = 8 * f.ftl->logical_blocks();
  o.seed = 7;
  RunResult r;
  Status s = RunSynthetic(f.ftl.get(), o, &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Status c = f.ftl->CheckConsistency();
  ASSERT_TRUE(c.ok()) << c.ToString();
  EXPECT_EQ(r.total.user_writes, o.writes);
  EXPECT_EQ(f.ftl->stats().user_writes, o.writes + f.ftl->logical_blocks());
  EXPECT_GT(r.total.gc_victims, 0u);
  EXPECT_GT(r.total.waf(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, FtlConcurrencyTest, ::testing::ValuesIn(FtlVictimPolicies().Names()),
                         TestName);

class FillSequentialTest : public ::testing::TestWithParam<std::string> {};

// The bulk prefill leaves what writing every block in order leaves: the
// same GC decisions follow, and the same data is read back.
TEST_P(FillSequentialTest, LeavesTheStateOfPerBlockSequentialWrites) {
  Fixture bulk = Open("ram:zones=40,zone_size=64K", GetParam(), 0.2);
  Fixture slow = Open("ram:zones=40,zone_size=64K", GetParam(), 0.2);
  ASSERT_NE(bulk.ftl, nullptr);
  ASSERT_NE(slow.ftl, nullptr);
  ASSERT_TRUE(bulk.ftl->FillSequential().ok());
  for (uint64_t lba = 0; lba < slow.ftl->logical_blocks(); lba++) ASSERT_TRUE(slow.ftl->Write(lba, nullptr).ok());
  ASSERT_TRUE(bulk.ftl->CheckConsistency().ok());
  EXPECT_EQ(bulk.ftl->stats().user_writes, slow.ftl->stats().user_writes);
  EXPECT_EQ(bulk.ftl->stats().hook_calls, slow.ftl->stats().hook_calls);
  BlockRandom rng(9);
  const uint64_t blocks = bulk.ftl->logical_blocks();
  for (uint64_t i = 1; i <= 6 * blocks; i++) {
    uint64_t lba = rng.Uniform(4) ? rng.Uniform(blocks / 5) : rng.Uniform(blocks);
    ASSERT_TRUE(bulk.ftl->Write(lba, Stamp(lba, i).data()).ok());
    ASSERT_TRUE(slow.ftl->Write(lba, Stamp(lba, i).data()).ok());
  }
  FtlStats a = bulk.ftl->stats(), b = slow.ftl->stats();
  EXPECT_GT(a.gc_victims, 0u);
  EXPECT_EQ(a.gc_writes, b.gc_writes);
  EXPECT_EQ(a.gc_victims, b.gc_victims);
  std::vector<char> x(kFtlBlockBytes), y(kFtlBlockBytes);
  for (uint64_t lba = 0; lba < blocks; lba++) {
    ASSERT_TRUE(bulk.ftl->Read(lba, x.data()).ok());
    ASSERT_TRUE(slow.ftl->Read(lba, y.data()).ok());
    ASSERT_EQ(x, y) << "lba " << lba;
  }
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, FillSequentialTest, ::testing::ValuesIn(FtlVictimPolicies().Names()),
                         TestName);

TEST(FillSequentialTest, RefusesAnFtlThatWasWritten) {
  Fixture f = Open("meta:zones=32,zone_size=64K", "ccb", 0.25);
  ASSERT_NE(f.ftl, nullptr);
  ASSERT_TRUE(f.ftl->Write(3, nullptr).ok());
  Status s = f.ftl->FillSequential();
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("fresh"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace zonekv
