// The flash timing model, driven with made-up clock values, and its effect
// on the device (callers block; blocked time is counted).
#include "timing_model.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace zonekv {
namespace {

constexpr int64_t kUs = 1000;  // ns
constexpr uint64_t kPage = 16384;

DeviceGeometry Geometry() {
  DeviceGeometry g;
  g.block_size = 4096;
  g.zone_size_bytes = g.zone_capacity_bytes = 4 << 20;
  g.nr_zones = 4;
  return g;
}

TEST(TimingModel, PresetIsConfZns) {
  TimingOptions t = TimingOptions::ConfZns();
  EXPECT_TRUE(t.enabled);
  EXPECT_EQ(t.read_us, 65);
  EXPECT_EQ(t.program_us, 450);
  EXPECT_EQ(t.xfer_us, 25);
  EXPECT_EQ(t.erase_us, 2000);
  EXPECT_EQ(t.channels, 8u);
  EXPECT_EQ(t.dies, 2u);
  EXPECT_EQ(t.page_size_bytes, kPage);
  // 16 planes each programming 16 KiB per 450 us; 16 KiB sensed in 65 us + 25 us transfer.
  EXPECT_NEAR(t.ZoneWriteBandwidth(), 16 * 16384 / 450e-6, 1);
  EXPECT_NEAR(t.ZoneReadBandwidth(), 16 * 16384 / 65e-6, 1);
  EXPECT_DOUBLE_EQ(t.IdlePageReadUs(), 90);
  t.time_scale = 0.5;
  EXPECT_DOUBLE_EQ(t.IdlePageReadUs(), 45);
  EXPECT_TRUE(t.Validate(Geometry()).ok());
}

TEST(TimingModel, OnePageWriteIsTransferThenProgram) {
  TimingModel m(TimingOptions::ConfZns(), Geometry());
  EXPECT_EQ(m.Write(0, 0, kPage, 1000 * kUs), 1000 * kUs + 25 * kUs + 450 * kUs);
}

TEST(TimingModel, PagesStripeOverChannelsAndDies) {
  TimingModel m(TimingOptions::ConfZns(), Geometry());
  // 16 pages fill all 8 channels x 2 dies: the last page waits for its
  // channel to carry the page of the other die first.
  EXPECT_EQ(m.Write(0, 0, 16 * kPage, 0), 50 * kUs + 450 * kUs);
  // Page 16 lands on page 0's plane again and waits for its program.
  TimingModel m2(TimingOptions::ConfZns(), Geometry());
  EXPECT_EQ(m2.Write(0, 0, 17 * kPage, 0), 475 * kUs + 450 * kUs);
}

TEST(TimingModel, PartialPagesTransferNowAndProgramWhenFull) {
  TimingModel m(TimingOptions::ConfZns(), Geometry());
  int64_t t = m.Write(0, 0, 4096, 0);
  EXPECT_EQ(t, 25 * kUs / 4);  // a quarter page over the channel, no program yet
  t = m.Write(0, 4096, 8192, t);
  EXPECT_EQ(t, 25 * kUs * 3 / 4);
  t = m.Write(0, 12288, 4096, t);  // completes the page
  EXPECT_EQ(t, 25 * kUs + 450 * kUs);
}

TEST(TimingModel, ReadIsSenseThenTransfer) {
  TimingModel m(TimingOptions::ConfZns(), Geometry());
  EXPECT_EQ(m.Read(1, 0, kPage, 0), 90 * kUs);
  // A second read of the same page queues behind the first on its plane.
  EXPECT_EQ(m.Read(1, 0, kPage, 0), 65 * kUs * 2 + 25 * kUs);
}

TEST(TimingModel, EraseChargesEveryPlaneOfTheZone) {
  TimingOptions o = TimingOptions::ConfZns();
  o.zone_channels = 2;  // zones 0 and 1 use disjoint channel groups
  TimingModel m(o, Geometry());
  EXPECT_EQ(m.Erase(0, 0), 2000 * kUs);
  // Zone 0's planes are busy erasing; zone 1's are not; zone 4 % 4 == 0 shares with zone 0.
  EXPECT_EQ(m.Read(1, 0, kPage, 0), 90 * kUs);
  EXPECT_EQ(m.Read(0, 0, kPage, 0), 2000 * kUs + 90 * kUs);
  // The transfer needs only the channel; the program waits for the erase.
  EXPECT_EQ(m.Write(0, kPage, kPage, 0), 2000 * kUs + 450 * kUs);
}

TEST(TimingModel, TimeScaleShrinksEveryLatency) {
  TimingOptions o = TimingOptions::ConfZns();
  o.time_scale = 0.1;
  TimingModel m(o, Geometry());
  EXPECT_EQ(m.Write(0, 0, kPage, 0), 47500);
  TimingModel idle(o, Geometry());
  EXPECT_EQ(idle.Erase(1, 0), 200 * kUs);
}

TEST(TimingModel, ValidateRejectsBadModels) {
  auto expect_bad = [](TimingOptions o, const std::string& needle) {
    Status s = o.Validate(Geometry());
    EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.ToString();
  };
  TimingOptions o = TimingOptions::ConfZns();
  o.channels = 0;
  expect_bad(o, "channels");
  o = TimingOptions::ConfZns();
  o.dies = 0;
  expect_bad(o, "dies");
  o = TimingOptions::ConfZns();
  o.zone_channels = 3;
  expect_bad(o, "zone_channels 3 must divide channels 8");
  o = TimingOptions::ConfZns();
  o.page_size_bytes = 6000;
  expect_bad(o, "page_size 6000");
  o = TimingOptions::ConfZns();
  o.read_us = -1;
  expect_bad(o, ">= 0");
  o = TimingOptions::ConfZns();
  o.time_scale = -1;
  expect_bad(o, "time_scale");
}

TEST(TimedDevice, CallersBlockAndBlockedTimeIsCounted) {
  EmulatedDeviceOptions o = test::SmallOptions(4);
  o.timing = TimingOptions::ConfZns();
  o.timing.time_scale = 0.5;  // a reset blocks ~1 ms
  auto d = test::NewRam(o);
  auto data = test::Pattern(4096, 1);
  ASSERT_TRUE(d->Write(0, data.data(), data.size()).ok());
  ASSERT_TRUE(d->ResetZone(0).ok());
  EXPECT_GT(d->counters().busy_wait_us, 0u);
}

TEST(TimedDevice, FinishPadChargesProgramTime) {
  EmulatedDeviceOptions o = test::SmallOptions(4);
  o.timing = TimingOptions::ConfZns();
  o.timing.time_scale = 0;  // no sleeping: only the accounting matters here
  o.finish = FinishModel::kPad;
  auto d = test::NewRam(o);
  auto data = test::Pattern(4096, 1);
  ASSERT_TRUE(d->Write(0, data.data(), data.size()).ok());
  ASSERT_TRUE(d->FinishZone(0).ok());
  EXPECT_EQ(d->counters().finish_pad_bytes, (48u << 10) - 4096);
  EXPECT_EQ(d->counters().busy_wait_us, 0u);
}

}  // namespace
}  // namespace zonekv
