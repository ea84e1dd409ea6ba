// The timing model, driven with made-up clock values, and its effect on the
// device (callers block; blocked time and die busy time are counted).
#include "timing_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "test_util.h"

namespace zonekv {
namespace {

constexpr int64_t kUs = 1000;  // ns
constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

DeviceGeometry Geometry(uint64_t zone_cap = 1 * kMiB, uint32_t zones = 4) {
  DeviceGeometry g;
  g.block_size = 4096;
  g.zone_size_bytes = g.zone_capacity_bytes = zone_cap;
  g.nr_zones = zones;
  return g;
}

// A small model with round numbers: 2 channels x 2 dies, every zone on the
// 2 dies of one channel (zones 0 and 2 on channel 0, zones 1 and 3 on
// channel 1), 16 KiB pages and units, a 10 us write latency, 20 us page
// transfer, 400 us program, 50 us sense, 5 us read latency, 2-unit buffer.
TimingOptions Simple() {
  TimingOptions t;
  t.profile = "test";
  t.enabled = true;
  t.write_lat_us = 10;
  t.read_lat_us = 5;
  t.channels = 2;
  t.dies = 2;
  t.zone_channels = 1;
  t.page_size_bytes = t.unit_bytes = 16 * kKiB;
  t.read_us = 50;
  t.program_us = 400;
  t.xfer_us = 20;
  t.wb_units = 2;
  t.early_completion = true;
  t.reset = ResetModel::kBlocks;
  t.erase_us = 1000;
  t.erase_block_bytes = 64 * kKiB;  // 8 blocks per die of a 1 MiB zone on 2 dies
  t.partial_reset = true;
  return t;
}

TEST(TimingModel, WriteCompletesFromTheBufferLongBeforeItsProgram) {
  TimingModel m(Simple(), Geometry());
  // Unit 0: buffered at 10 us; transferred 10-30 us, programmed 30-430 us.
  EXPECT_EQ(m.Write(0, 0, 16 * kKiB, false, 0), 10 * kUs);
  // Unit 1 takes the second slot: no wait either.
  EXPECT_EQ(m.Write(0, 16 * kKiB, 16 * kKiB, false, 10 * kUs), 20 * kUs);
  EXPECT_EQ(m.stats().buffer_waits, 0u);
  // Unit 2 finds both slots programming: it waits for unit 0's program.
  EXPECT_EQ(m.Write(0, 32 * kKiB, 16 * kKiB, false, 20 * kUs), 430 * kUs);
  EXPECT_EQ(m.stats().buffer_waits, 1u);
  EXPECT_EQ(m.stats().buffer_wait_ns, 400 * kUs);
}

TEST(TimingModel, WithoutEarlyCompletionAWriteWaitsForItsProgram) {
  TimingOptions o = Simple();
  o.early_completion = false;
  TimingModel m(o, Geometry());
  EXPECT_EQ(m.Write(0, 0, 16 * kKiB, false, 0), 430 * kUs);
  // A partial unit is only buffered.
  EXPECT_EQ(m.Write(0, 16 * kKiB, 4 * kKiB, false, 430 * kUs), 440 * kUs);
}

TEST(TimingModel, ZonesOnOtherDiesOverlapZonesOnTheSameDieQueue) {
  TimingOptions o = Simple();
  o.early_completion = false;  // completion times then show the programs
  TimingModel m(o, Geometry());
  // Zone 0 writes units 0 and 1 to both dies of channel 0: the transfers
  // share the channel (10-30, 30-50 us), the programs overlap.
  EXPECT_EQ(m.Write(0, 0, 32 * kKiB, false, 0), 450 * kUs);
  // Zone 1 lives on channel 1: it overlaps completely.
  EXPECT_EQ(m.Write(1, 0, 16 * kKiB, false, 0), 430 * kUs);
  // Zone 2 shares channel 0's dies; its unit 0 starts one die further, on
  // the die zone 0's unit 1 is programming until 450 us.
  EXPECT_EQ(m.Write(2, 0, 16 * kKiB, false, 0), 850 * kUs);
}

TEST(TimingModel, ReadsAndProgramsOnOneDieInterfere) {
  TimingModel m(Simple(), Geometry());
  ASSERT_EQ(m.Write(0, 0, 16 * kKiB, false, 0), 10 * kUs);  // die 0 programs 30-430 us
  ASSERT_EQ(m.Write(1, 0, 16 * kKiB, false, 0), 10 * kUs);  // die 1 programs 30-430 us
  // At 500 us both units are on flash. A program of zone 2 (die 0) is
  // booked first; a read of zone 0 (die 0) then waits for it, a read of
  // zone 1 (die 1) does not.
  ASSERT_EQ(m.Write(2, 0, 16 * kKiB, false, 500 * kUs), 510 * kUs);  // unit 0 on die 2
  ASSERT_EQ(m.Write(2, 16 * kKiB, 16 * kKiB, false, 510 * kUs), 520 * kUs);  // unit 1 on die 0: 550-950 us
  EXPECT_EQ(m.Read(0, 0, 16 * kKiB, 16 * kKiB, 600 * kUs), 950 * kUs + 50 * kUs + 20 * kUs + 5 * kUs);
  EXPECT_EQ(m.Read(1, 0, 16 * kKiB, 16 * kKiB, 600 * kUs), 600 * kUs + 50 * kUs + 20 * kUs + 5 * kUs);
}

TEST(TimingModel, ReadsOfBufferedDataCostTheInterfaceOnly) {
  TimingModel m(Simple(), Geometry());
  ASSERT_EQ(m.Write(0, 0, 16 * kKiB, false, 0), 10 * kUs);  // programmed 30-430 us
  ASSERT_EQ(m.Write(0, 16 * kKiB, 4 * kKiB, false, 10 * kUs), 20 * kUs);  // partial unit 1
  // Unit 0 is still programming, unit 1 still filling: both from the buffer.
  EXPECT_EQ(m.Read(0, 0, 16 * kKiB, 20 * kKiB, 100 * kUs), 105 * kUs);
  EXPECT_EQ(m.Read(0, 16 * kKiB, 4 * kKiB, 20 * kKiB, 100 * kUs), 105 * kUs);
  EXPECT_EQ(m.stats().buffer_reads, 2u);
  // Once programmed, unit 0 is read from flash.
  EXPECT_EQ(m.Read(0, 0, 16 * kKiB, 20 * kKiB, 1000 * kUs), 1075 * kUs);
  EXPECT_EQ(m.stats().buffer_reads, 2u);
}

TEST(TimingModel, FlushDrainsTheBuffer) {
  TimingModel m(Simple(), Geometry());
  ASSERT_EQ(m.Write(0, 0, 16 * kKiB, false, 0), 10 * kUs);  // programmed 30-430 us
  ASSERT_EQ(m.Write(1, 0, 8 * kKiB, false, 0), 10 * kUs);   // half a unit of zone 1
  // Flush waits for zone 0's program and programs zone 1's half unit:
  // transfer 10-20 us, program 20-420 us.
  EXPECT_EQ(m.Flush(10 * kUs), 430 * kUs);
  // Nothing is left to drain.
  EXPECT_EQ(m.Flush(500 * kUs), 500 * kUs);
}

TEST(TimingModel, PartialResetOfAHalfWrittenZoneIsCheaper) {
  TimingModel m(Simple(), Geometry());
  int64_t now = 0;
  auto cost = [&](TimingModel* model, uint64_t written) {
    now += 100000 * kUs;  // the previous erase is over
    return model->Reset(0, written, now) - now;
  };
  // 1 MiB zone over 2 dies: 512 KiB per die, 8 blocks of 64 KiB each.
  EXPECT_EQ(cost(&m, 1 * kMiB), 8000 * kUs);
  EXPECT_EQ(cost(&m, 512 * kKiB), 4000 * kUs);
  EXPECT_EQ(cost(&m, 4 * kKiB), 1000 * kUs);
  EXPECT_EQ(cost(&m, 0), 0);  // nothing written, nothing erased
  TimingOptions whole = Simple();
  whole.partial_reset = false;
  TimingModel w(whole, Geometry());
  EXPECT_EQ(cost(&w, 512 * kKiB), 8000 * kUs);
}

TEST(TimingModel, ResetOccupiesTheZonesDies) {
  TimingModel m(Simple(), Geometry());
  ASSERT_EQ(m.Reset(0, 64 * kKiB, 0), 1000 * kUs);  // dies of channel 0 erase 0-1000 us
  // A read of zone 2 (same dies) waits for the erase; zone 1's does not.
  ASSERT_EQ(m.Write(2, 0, 16 * kKiB, false, 0), 10 * kUs);  // its program also waits: 1000-1400 us
  EXPECT_EQ(m.Read(2, 0, 16 * kKiB, 16 * kKiB, 2000 * kUs), 2075 * kUs);
  TimingModel n(Simple(), Geometry());
  ASSERT_EQ(n.Write(2, 0, 16 * kKiB, false, 0), 10 * kUs);  // programmed 30-430 us
  ASSERT_EQ(n.Reset(0, 64 * kKiB, 500 * kUs), 1500 * kUs);
  EXPECT_EQ(n.Read(2, 0, 16 * kKiB, 16 * kKiB, 600 * kUs), 1575 * kUs);
}

TEST(TimingModel, Zn540ResetFollowsTheMeasuredCurve) {
  TimingOptions o;
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("zn540", &o, &f).ok());
  TimingModel m(o, Geometry(1077 * kMiB, 4));
  const uint64_t cap = 1077 * kMiB;
  // Every zn540 zone spans all 32 dies: one reset at a time.
  int64_t now = 0;
  auto cost = [&](uint64_t written) {
    now += 1000000 * kUs;
    return m.Reset(0, written, now) - now;
  };
  EXPECT_EQ(cost(4 * kKiB), 1640 * kUs);
  EXPECT_EQ(cost(cap / 4), 6800 * kUs);
  EXPECT_EQ(cost(cap / 2), 12200 * kUs);
  EXPECT_EQ(cost(cap), 16600 * kUs);
  // A scaled-down zone costs what erasing its bytes costs: 32 MiB lies on
  // the first segment, between 1 LBA (1.64 ms) and 12.5% (5.1 ms).
  const double us = 1640 + (5100 - 1640) * double(32 * kMiB - 4 * kKiB) / double(cap / 8 - 4 * kKiB);
  EXPECT_NEAR(static_cast<double>(cost(32 * kMiB)), us * kUs, 1 * kUs);
}

// Runs a finish to completion in modelled time.
int64_t FinishAt(TimingModel* m, uint32_t zone, uint64_t wp, bool pad, int64_t now, int* steps = nullptr) {
  bool more;
  int64_t t = m->Finish(zone, wp, pad, now, &more);
  int n = 1;
  for (; more; n++) {
    EXPECT_LE(t, now + 2000 * kUs * n) << "padding booked too far ahead";
    t = m->ContinueFinish(zone, t, &more);
  }
  if (steps != nullptr) *steps = n;
  return t;
}

TEST(TimingModel, FinishPaddingCostIsProportionalToTheUnwrittenCapacity) {
  TimingOptions o;
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("zn540", &o, &f).ok());
  EXPECT_EQ(f, FinishModel::kPad);
  TimingModel m(o, Geometry(64 * kMiB, 4));
  // An empty zone: the command only (0.014 ms).
  EXPECT_EQ(FinishAt(&m, 0, 0, true, 0), 14 * kUs);
  // The padding goes through the zone's 10-unit buffer: 10 x 96 KiB per
  // (72.8 x 3 + 561) us, about 0.83 ms per MiB.
  int steps = 0;
  const int64_t t0 = 1000000 * kUs;
  const int64_t pad48 = FinishAt(&m, 1, 16 * kMiB, true, t0, &steps) - t0;
  const int64_t pad16 = FinishAt(&m, 2, 48 * kMiB, true, 2 * t0) - 2 * t0;
  const double per_mib_us = 10 * 96 * kKiB / (32768.0 / 450 * 3 + 561) / kMiB;
  EXPECT_NEAR(pad48 / 1e3, 48 / per_mib_us, 48 / per_mib_us * 0.03);
  EXPECT_NEAR(double(pad48) / double(pad16), 3.0, 0.1);
  EXPECT_GT(steps, 10);  // booked step by step, interleaving with other commands
}

TEST(TimingModel, FinishWithoutPaddingDrainsTheLastUnit) {
  TimingModel m(Simple(), Geometry());
  ASSERT_EQ(m.Write(0, 0, 8 * kKiB, false, 0), 10 * kUs);
  // The half unit is programmed whole: transfer 100-120 us, program 120-520 us.
  EXPECT_EQ(FinishAt(&m, 0, 8 * kKiB, false, 100 * kUs), 520 * kUs);
  // Nothing buffered: the finish is the command alone (mgmt_us = 0 here).
  EXPECT_EQ(FinishAt(&m, 1, 0, false, 100 * kUs), 100 * kUs);
}

TEST(TimingModel, DieTimeIsSplitByWhatKeptTheDiesBusy) {
  TimingModel m(Simple(), Geometry());
  // Two units of zone 0: two programs of 400 us.
  ASSERT_EQ(m.Write(0, 0, 32 * kKiB, false, 0), 10 * kUs);
  // Long after, a read of unit 0 from flash: one 50 us sense.
  ASSERT_EQ(m.Read(0, 0, 16 * kKiB, 32 * kKiB, 10000 * kUs), 10075 * kUs);
  // Zone 1: one unit written, then padded to its 1 MiB: 63 padded units.
  ASSERT_EQ(m.Write(1, 0, 16 * kKiB, false, 20000 * kUs), 20010 * kUs);
  FinishAt(&m, 1, 16 * kKiB, true, 30000 * kUs);
  // Zone 0's reset: one 64 KiB block on each of its 2 dies, 1000 us each.
  ASSERT_EQ(m.Reset(0, 32 * kKiB, 100000 * kUs), 101000 * kUs);
  const TimingModel::Stats st = m.stats();
  EXPECT_EQ(st.die_program_ns, 3 * 400 * kUs);
  EXPECT_EQ(st.die_pad_ns, 63 * 400 * kUs);
  EXPECT_EQ(st.die_read_ns, 50 * kUs);
  EXPECT_EQ(st.die_erase_ns, 2 * 1000 * kUs);
}

TEST(TimingModel, ControllerJitterIsSeededAndHasTheConfiguredMean) {
  TimingOptions o = Simple();
  o.write_lat_us = 0;
  o.program_us = o.xfer_us = 0;  // the controller alone
  o.write_cmd_us = 5;
  o.jitter = true;
  TimingModel a(o, Geometry(64 * kMiB)), b(o, Geometry(64 * kMiB));
  int64_t ta = 0, tb = 0;
  const int n = 16000;
  for (int i = 0; i < n; i++) {
    ta = a.Write(0, i * 4 * kKiB, 4 * kKiB, false, ta);
    tb = b.Write(0, i * 4 * kKiB, 4 * kKiB, false, tb);
  }
  EXPECT_EQ(ta, tb);
  EXPECT_NEAR(static_cast<double>(ta) / n, 5 * kUs, 0.05 * 5 * kUs);
}

TEST(TimingModel, TimeScaleShrinksEveryLatency) {
  TimingOptions o = Simple();
  o.time_scale = 0.1;
  TimingModel m(o, Geometry());
  EXPECT_EQ(m.Write(0, 0, 16 * kKiB, false, 0), 1 * kUs);
  EXPECT_EQ(m.Reset(1, 1 * kMiB, 0), 800 * kUs);
  o.early_completion = false;
  TimingModel n(o, Geometry());
  EXPECT_EQ(n.Write(0, 0, 16 * kKiB, false, 0), 43 * kUs);
}

TEST(TimingModel, SustainedWriteBandwidthIsTheTightestLimit) {
  TimingOptions o;
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("zn540", &o, &f).ok());
  EXPECT_DOUBLE_EQ(o.SustainedWriteBandwidth(), 1230e6);  // the controller, not 32 dies or 8 channels
  o.time_scale = 0.5;
  EXPECT_DOUBLE_EQ(o.SustainedWriteBandwidth(), 2460e6);
  ASSERT_TRUE(TimingOptions::Profile("confzns", &o, &f).ok());
  EXPECT_DOUBLE_EQ(o.SustainedWriteBandwidth(), 16 * 16384 / 450e-6);  // 16 dies programming
  EXPECT_EQ(TimingOptions().SustainedWriteBandwidth(), 0);
}

// Random reads over `zones` full zones by `qd` closed-loop clients; returns
// commands per second of modelled time.
double RandomReadRate(TimingModel* m, const DeviceGeometry& g, uint32_t zones, int qd, uint64_t io, int n) {
  for (uint32_t z = 0; z < zones; z++) {
    for (uint64_t off = 0; off < g.zone_capacity_bytes; off += 4 * kMiB) m->Write(z, off, 4 * kMiB, false, 0);
  }
  const int64_t t0 = m->Flush(0) + 1000 * kUs;
  std::vector<int64_t> next(qd, t0);
  uint64_t rng = 7;
  int64_t end = t0;
  for (int i = 0; i < n; i++) {
    auto c = std::min_element(next.begin(), next.end());
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t z = static_cast<uint32_t>((rng >> 33) % zones);
    const uint64_t off = (rng >> 13) % (g.zone_capacity_bytes / io) * io;
    *c = m->Read(z, off, io, g.zone_capacity_bytes, *c);
    end = std::max(end, *c);
  }
  return n / ((end - t0) * 1e-9);
}

TEST(TimingModel, Zn540ReadCeilingsMatchTheMeasuredOnes) {
  TimingOptions o;
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("zn540", &o, &f).ok());
  const DeviceGeometry g = Geometry(64 * kMiB, 8);
  // 16 KiB random reads saturate at 2.63 GB/s from QD32. The model reaches
  // that ceiling more slowly (2.35 GB/s at QD32: its 450 MB/s channels
  // queue), so the ceiling is checked at QD64.
  TimingModel a(o, g);
  EXPECT_NEAR(RandomReadRate(&a, g, 8, 64, 16 * kKiB, 20000) * 16 * kKiB / 1e9, 2.63, 0.263);
  // 4 KiB random reads reach 437K IOPS at QD256.
  TimingModel b(o, g);
  EXPECT_NEAR(RandomReadRate(&b, g, 8, 256, 4 * kKiB, 40000) / 1e3, 437, 43.7);
}

TEST(TimingModel, ProfilesAndTheirFinishModels) {
  TimingOptions t;
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("zn540", &t, &f).ok());
  EXPECT_TRUE(t.enabled);
  EXPECT_EQ(t.profile, "zn540");
  EXPECT_EQ(t.channels * t.dies, 32u);
  EXPECT_EQ(t.unit_bytes, 96 * kKiB);
  EXPECT_EQ(t.wb_units, 10u);
  EXPECT_EQ(t.program_us, 561);
  EXPECT_EQ(t.reset, ResetModel::kCurve);
  EXPECT_EQ(f, FinishModel::kPad);
  ASSERT_TRUE(TimingOptions::Profile("confzns", &t, &f).ok());
  EXPECT_EQ(t.read_us, 65);
  EXPECT_EQ(t.program_us, 450);
  EXPECT_EQ(t.erase_us, 2000);
  EXPECT_FALSE(t.early_completion);
  EXPECT_EQ(f, FinishModel::kFree);
  ASSERT_TRUE(TimingOptions::Profile("confznspp", &t, &f).ok());
  EXPECT_TRUE(t.partial_reset);
  EXPECT_EQ(f, FinishModel::kPad);
  ASSERT_TRUE(TimingOptions::Profile("cosmos", &t, &f).ok());
  EXPECT_EQ(t.write_mb_s, 401);
  ASSERT_TRUE(TimingOptions::Profile("none", &t, &f).ok());
  EXPECT_FALSE(t.enabled);
  Status s = TimingOptions::Profile("fast", &t, &f);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("zn540, confzns"), std::string::npos) << s.ToString();
}

TEST(TimingModel, ToJsonNamesTheProfileAndEveryParameter) {
  TimingOptions t;
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("zn540", &t, &f).ok());
  const std::string j = t.ToJson().Dump();
  for (const char* key : {"\"profile\":\"zn540\"", "write_cmd_us", "read_cmd_us", "jitter", "link_mb_s",
                          "write_lat_us", "read_lat_us", "append_us", "mgmt_us", "write_mb_s", "read_mb_s",
                          "channels", "dies", "zone_channels", "page_size", "unit_size", "read_us", "program_us",
                          "xfer_us", "wb_units", "early_completion", "reset_curve_bytes_us", "time_scale",
                          "sustained_write_mb_s"}) {
    EXPECT_NE(j.find(key), std::string::npos) << key << " missing from " << j;
  }
  ASSERT_TRUE(TimingOptions::Profile("confzns", &t, &f).ok());
  EXPECT_NE(t.ToJson().Dump().find("erase_us"), std::string::npos);
  EXPECT_EQ(TimingOptions().ToJson().Dump(), "{\"profile\":\"none\"}");
}

TEST(TimingModel, ValidateRejectsBadModels) {
  auto expect_bad = [](TimingOptions o, const std::string& needle) {
    Status s = o.Validate(Geometry());
    EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.ToString();
  };
  TimingOptions o = Simple();
  EXPECT_TRUE(o.Validate(Geometry()).ok());
  o.channels = 0;
  expect_bad(o, "channels");
  o = Simple();
  o.zone_channels = 3;
  expect_bad(o, "zone_channels 3 must divide channels 2");
  o = Simple();
  o.page_size_bytes = 6000;
  expect_bad(o, "page_size 6000");
  o = Simple();
  o.unit_bytes = 20 * kKiB;
  expect_bad(o, "unit_size 20480");
  o = Simple();
  o.wb_units = 0;
  expect_bad(o, "wb_units");
  o = Simple();
  o.read_us = -1;
  expect_bad(o, ">= 0");
  o = Simple();
  o.time_scale = -1;
  expect_bad(o, "time_scale");
  o = Simple();
  o.reset = ResetModel::kCurve;
  expect_bad(o, "reset curve");
}

TEST(TimedDevice, CallersBlockAndBlockedTimeIsCounted) {
  EmulatedDeviceOptions o = test::SmallOptions(4);
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("confzns", &o.timing, &f).ok());
  o.timing.time_scale = 0.5;  // a reset blocks ~1 ms
  auto d = test::NewRam(o);
  auto data = test::Pattern(4096, 1);
  ASSERT_TRUE(d->Write(0, data.data(), data.size()).ok());
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(d->ResetZone(0).ok());
  auto call_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
  DeviceCounters c = d->counters();
  // The call cannot return before its modelled completion (1 ms after it was
  // issued); how much of that the caller spent blocked depends on when it was
  // scheduled, so only bound it.
  EXPECT_GE(call_us, 1000);
  EXPECT_GT(c.busy_wait_us, 0u);
  EXPECT_LE(c.busy_wait_us, static_cast<uint64_t>(call_us) + 1000);
  EXPECT_EQ(c.dies, 16u);
  EXPECT_GE(c.die_busy_us, 16u * 1000);  // the erase on the zone's 16 dies
  EXPECT_GE(c.die_erase_us, 16u * 1000);
  EXPECT_GE(c.die_busy_us, c.die_erase_us + c.die_program_us);
  EXPECT_NE(c.ToJson().Dump().find("\"die_erase_us\""), std::string::npos);
  EXPECT_GT(c.busy_ratio(), 0);
  EXPECT_NE(c.ToJson().Dump().find("\"busy_ratio\""), std::string::npos);
  EXPECT_EQ(test::NewRam(test::SmallOptions(4))->counters().busy_ratio(), 0);
}

TEST(TimedDevice, FinishPadChargesProgramTime) {
  EmulatedDeviceOptions o = test::SmallOptions(4);
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("confzns", &o.timing, &f).ok());
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
