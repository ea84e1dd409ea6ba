#include "zonekv/fault_device.h"

#include <future>
#include <set>

#include <gtest/gtest.h>

#include "test_util.h"

namespace zonekv {
namespace {

using test::Pattern;
constexpr uint64_t kZone = 64 << 10, kCap = 48 << 10, kBlock = 4096;

std::unique_ptr<FaultDevice> NewFaultDevice() {
  return std::make_unique<FaultDevice>(test::NewRam(test::SmallOptions(4)));
}

TEST(FaultDevice, FailsTheNthWriteOnly) {
  auto d = NewFaultDevice();
  auto data = Pattern(kBlock, 1);
  d->FailNth(FaultDevice::Op::kWrite, 2);
  ASSERT_TRUE(d->Write(0, data.data(), kBlock).ok());
  Status s = d->Write(kBlock, data.data(), kBlock);
  EXPECT_TRUE(s.Is(Status::Code::kIOError)) << s.ToString();
  EXPECT_NE(s.message().find("write #2"), std::string::npos) << s.ToString();
  EXPECT_EQ(test::Zone(d.get(), 0).wp_bytes, kBlock);  // the failed write changed nothing
  uint64_t at;
  ASSERT_TRUE(d->Append(0, data.data(), kBlock, &at).ok());
  EXPECT_EQ(at, kBlock);
  EXPECT_EQ(d->issued(FaultDevice::Op::kWrite), 3u);
}

TEST(FaultDevice, FailsEveryOpAfterN) {
  auto d = NewFaultDevice();
  auto data = Pattern(kBlock, 1);
  ASSERT_TRUE(d->Write(0, data.data(), kBlock).ok());
  d->FailNth(FaultDevice::Op::kRead, 2, /*and_after=*/true);
  std::vector<char> out(kBlock);
  EXPECT_TRUE(d->Read(0, kBlock, out.data()).ok());
  for (int i = 0; i < 3; i++) EXPECT_TRUE(d->Read(0, kBlock, out.data()).Is(Status::Code::kIOError));
  d->ClearFaults();
  EXPECT_TRUE(d->Read(0, kBlock, out.data()).ok());
}

TEST(FaultDevice, FailsTheNthReset) {
  auto d = NewFaultDevice();
  auto data = Pattern(kBlock, 1);
  ASSERT_TRUE(d->Write(0, data.data(), kBlock).ok());
  d->FailNth(FaultDevice::Op::kReset, 1);
  EXPECT_TRUE(d->ResetZone(0).Is(Status::Code::kIOError));
  EXPECT_EQ(test::Zone(d.get(), 0).wp_bytes, kBlock);
  EXPECT_TRUE(d->ResetZone(0).ok());
  EXPECT_EQ(test::Zone(d.get(), 0).reset_count, 1u);
}

TEST(FaultDevice, PowerLossWithoutCacheKeepsEverything) {
  auto d = NewFaultDevice();
  auto data = Pattern(2 * kBlock, 1);
  ASSERT_TRUE(d->Write(0, data.data(), data.size()).ok());
  ASSERT_TRUE(d->SimulatePowerLoss().ok());
  ZoneInfo z = test::Zone(d.get(), 0);
  EXPECT_EQ(z.wp_bytes, 2 * kBlock);
  EXPECT_EQ(z.state, ZoneState::kClosed);  // open zones come back closed
  EXPECT_EQ(z.reset_count, 0u);
}

TEST(FaultDevice, PowerLossDropsWritesNotFlushed) {
  auto d = NewFaultDevice();
  d->SetVolatileCache(true);
  auto a = Pattern(2 * kBlock, 1), b = Pattern(kBlock, 2), c = Pattern(kCap, 3);
  ASSERT_TRUE(d->Write(0, a.data(), a.size()).ok());
  ASSERT_TRUE(d->Flush().ok());
  ASSERT_TRUE(d->Write(2 * kBlock, b.data(), b.size()).ok());  // zone 0: not durable
  ASSERT_TRUE(d->Write(kZone, b.data(), b.size()).ok());       // zone 1: not durable
  ASSERT_TRUE(d->Write(2 * kZone, c.data(), c.size()).ok());   // zone 2: full, not durable
  ASSERT_TRUE(d->Write(3 * kZone, b.data(), b.size()).ok());
  ASSERT_TRUE(d->FinishZone(3).ok());                          // zone 3: finish is durable
  std::vector<char> out(3 * kBlock);
  ASSERT_TRUE(d->Read(0, out.size(), out.data()).ok());        // the cache serves reads
  EXPECT_EQ(std::vector<char>(out.begin() + 2 * kBlock, out.end()), b);

  ASSERT_TRUE(d->SimulatePowerLoss().ok());
  ZoneInfo z0 = test::Zone(d.get(), 0), z1 = test::Zone(d.get(), 1), z2 = test::Zone(d.get(), 2),
           z3 = test::Zone(d.get(), 3);
  EXPECT_EQ(z0.wp_bytes, 2 * kBlock);
  EXPECT_EQ(z0.state, ZoneState::kClosed);
  EXPECT_EQ(z0.reset_count, 0u);  // rollback resets are hidden
  EXPECT_EQ(z1.wp_bytes, kZone);
  EXPECT_EQ(z1.state, ZoneState::kEmpty);
  EXPECT_EQ(z2.wp_bytes, 2 * kZone);
  EXPECT_EQ(z2.state, ZoneState::kEmpty);
  EXPECT_EQ(z3.state, ZoneState::kFull);
  ASSERT_TRUE(d->Read(0, out.size(), out.data()).ok());
  EXPECT_EQ(std::vector<char>(out.begin(), out.begin() + 2 * kBlock), a);
  EXPECT_EQ(std::vector<char>(out.begin() + 2 * kBlock, out.end()), std::vector<char>(kBlock, 0));
  std::vector<char> first(kBlock);
  ASSERT_TRUE(d->Read(3 * kZone, kBlock, first.data()).ok());
  EXPECT_EQ(first, b);
  // Writing resumes at the durable write pointer.
  EXPECT_TRUE(d->Write(2 * kBlock, b.data(), b.size()).ok());
}

TEST(FaultDevice, TornPowerLossKeepsABlockPrefixOfLostWrites) {
  // Zone 2 gets 12 lost blocks; across seeds, every kept length is a whole
  // number of blocks between the durable point and the write pointer, the
  // kept blocks hold what was written, and more than one length occurs.
  std::set<uint64_t> kept;
  for (uint64_t seed = 1; seed <= 20; seed++) {
    auto d = NewFaultDevice();
    d->SetVolatileCache(true);
    auto a = Pattern(kBlock, 1), c = Pattern(kCap - kBlock, 3);
    ASSERT_TRUE(d->Write(2 * kZone, a.data(), a.size()).ok());
    ASSERT_TRUE(d->Flush().ok());
    ASSERT_TRUE(d->Write(2 * kZone + kBlock, c.data(), c.size()).ok());
    SplitMix64 rng(seed);
    ASSERT_TRUE(d->SimulatePowerLoss(&rng).ok());
    ZoneInfo z = test::Zone(d.get(), 2);
    const uint64_t len = z.wp_bytes - 2 * kZone;
    ASSERT_GE(len, kBlock);
    ASSERT_LE(len, kCap);
    ASSERT_EQ(len % kBlock, 0u);
    kept.insert(len);
    std::vector<char> out(len - kBlock);
    ASSERT_TRUE(d->Read(2 * kZone + kBlock, out.size(), out.data()).ok());
    EXPECT_EQ(out, std::vector<char>(c.begin(), c.begin() + static_cast<long>(out.size())));
    SplitMix64 again(seed);
    auto d2 = NewFaultDevice();
    d2->SetVolatileCache(true);
    ASSERT_TRUE(d2->Write(2 * kZone, a.data(), a.size()).ok());
    ASSERT_TRUE(d2->Flush().ok());
    ASSERT_TRUE(d2->Write(2 * kZone + kBlock, c.data(), c.size()).ok());
    ASSERT_TRUE(d2->SimulatePowerLoss(&again).ok());
    EXPECT_EQ(test::Zone(d2.get(), 2).wp_bytes, z.wp_bytes);  // same seed, same tear
  }
  EXPECT_GT(kept.size(), 3u);
}

TEST(FaultDevice, ResetIsDurable) {
  auto d = NewFaultDevice();
  d->SetVolatileCache(true);
  auto a = Pattern(kBlock, 1);
  ASSERT_TRUE(d->Write(0, a.data(), a.size()).ok());
  ASSERT_TRUE(d->Flush().ok());
  ASSERT_TRUE(d->ResetZone(0).ok());
  ASSERT_TRUE(d->SimulatePowerLoss().ok());
  ZoneInfo z = test::Zone(d.get(), 0);
  EXPECT_EQ(z.wp_bytes, 0u);
  EXPECT_EQ(z.reset_count, 1u);
}

TEST(FaultDevice, TurningCacheOffMakesWritesDurable) {
  auto d = NewFaultDevice();
  d->SetVolatileCache(true);
  auto a = Pattern(kBlock, 1);
  ASSERT_TRUE(d->Write(0, a.data(), a.size()).ok());
  d->SetVolatileCache(false);
  ASSERT_TRUE(d->SimulatePowerLoss().ok());
  EXPECT_EQ(test::Zone(d.get(), 0).wp_bytes, kBlock);
}

constexpr auto kWait = std::chrono::seconds(30);  // bound on every wait; never reached when the test passes

TEST(FaultDevice, GateHoldsTheNextResetOfItsZoneUntilReleased) {
  auto d = NewFaultDevice();
  auto data = Pattern(kBlock, 1);
  ASSERT_TRUE(d->Write(0, data.data(), kBlock).ok());
  ASSERT_TRUE(d->Write(kZone, data.data(), kBlock).ok());
  d->HoldNext(FaultDevice::Op::kReset, 1);
  EXPECT_FALSE(d->WaitUntilHeld(FaultDevice::Op::kReset, std::chrono::milliseconds(0)));
  ASSERT_TRUE(d->ResetZone(0).ok());  // another zone passes
  auto held = std::async(std::launch::async, [&] { return d->ResetZone(1); });
  ASSERT_TRUE(d->WaitUntilHeld(FaultDevice::Op::kReset, kWait));
  // Held before it reaches the device; other commands go on.
  EXPECT_EQ(test::Zone(d.get(), 1).wp_bytes, kZone + kBlock);
  std::vector<char> out(kBlock);
  EXPECT_TRUE(d->Read(kZone, kBlock, out.data()).ok());
  EXPECT_TRUE(d->Flush().ok());
  EXPECT_EQ(held.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  d->Release(FaultDevice::Op::kReset);
  ASSERT_EQ(held.wait_for(kWait), std::future_status::ready);
  EXPECT_TRUE(held.get().ok());
  EXPECT_EQ(test::Zone(d.get(), 1).wp_bytes, kZone);
  EXPECT_TRUE(d->ResetZone(2).ok());  // disarmed after one command
}

TEST(FaultDevice, GateHoldsFlushAndFinish) {
  auto d = NewFaultDevice();
  auto data = Pattern(kBlock, 1);
  ASSERT_TRUE(d->Write(0, data.data(), kBlock).ok());
  for (FaultDevice::Op op : {FaultDevice::Op::kFlush, FaultDevice::Op::kFinish}) {
    d->HoldNext(op);
    auto held = std::async(std::launch::async, [&] { return op == FaultDevice::Op::kFlush ? d->Flush() : d->FinishZone(0); });
    ASSERT_TRUE(d->WaitUntilHeld(op, kWait));
    EXPECT_EQ(test::Zone(d.get(), 0).state, ZoneState::kImplicitOpen);
    d->Release(op);
    ASSERT_EQ(held.wait_for(kWait), std::future_status::ready);
    EXPECT_TRUE(held.get().ok());
  }
  EXPECT_EQ(test::Zone(d.get(), 0).state, ZoneState::kFull);
  EXPECT_EQ(d->issued(FaultDevice::Op::kFlush), 1u);
  EXPECT_EQ(d->issued(FaultDevice::Op::kFinish), 1u);
}

}  // namespace
}  // namespace zonekv
