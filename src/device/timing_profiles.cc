// The named timing profiles. docs/device-timing.md gives the derivation of
// every value and the calibration table measured with `zonekv device bench`.
#include "zonekv/emulated_device.h"

namespace zonekv {

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

// Western Digital Ultrastar DC ZN540 (papers 000 and 002), calibrated to the
// published NVMeBenchmarks measurements of device zns-a (SPDK), with
// NVMeVirt's WD_ZN540 organisation as structure; docs/device-timing.md
// gives every value's source.
TimingOptions Zn540() {
  TimingOptions t;
  t.enabled = true;
  // Controller: 4 KiB writes saturate at 186K IOPS over 8 zones -> 5.38 us
  // per write; exponential times reproduce the measured 85K/142K/180K/186K
  // over 1/2/4/8 zones at QD1 (a fixed time would give 88K/175K/186K/186K).
  t.write_cmd_us = 5.38;
  t.jitter = true;
  // 4 KiB random reads reach 437K IOPS at QD256 -> 2.29 us per read.
  t.read_cmd_us = 2.29;
  // Link: NVMeVirt's PCIe rate, 3050 MB/s. Fixed write latency: the 4 KiB
  // QD1 write takes 11.4 us = 5.38 + 4096 B / 3050 MB/s + 4.68.
  t.link_mb_s = 3050;
  t.write_lat_us = 4.68;
  // Sustained: 1.23 GB/s peak write (ZRAID; NVMeBenchmarks about 1.20;
  // 128 KiB QD1 takes 107 us), 2.63 GB/s for 16 KiB random reads.
  t.write_mb_s = 1230;
  t.read_mb_s = 2630;
  // 4 KiB append at QD1: 14.8 us against 11.4 us for a write.
  t.append_us = 3.4;
  // Open/close 11-15 us; finish of an empty zone 0.014 ms.
  t.mgmt_us = 14;
  // NVMeVirt WD_ZN540: 8 channels x 4 LUNs, every zone over all 32 dies,
  // 32 KiB pages, 96 KiB one-shot TLC program of 561 us, 450 MB/s channels
  // (72.8 us per page), 10-unit zone write buffer with early completion.
  t.channels = 8;
  t.dies = 4;
  t.zone_channels = 8;
  t.page_size_bytes = 32 * kKiB;
  t.unit_bytes = 96 * kKiB;
  t.program_us = 561;
  t.xfer_us = 32768.0 / 450;
  t.wb_units = 10;
  t.early_completion = true;
  // Read: NVMeVirt's 4 KiB sense, 50 us; the 4 KiB QD1 read takes 73 us =
  // 2.29 + 50 + 9.1 (channel) + 1.56 (4096 B / 2630 MB/s) + 10.05.
  t.read_us = 50;
  t.read_lat_us = 10.05;
  // Reset latency against written bytes of a 1077 MiB zone: 1 LBA 1.64 ms,
  // 12.5% 5.1 ms, 25% 6.8 ms, 50% 12.2 ms, full 16.6 ms (partial_reset data).
  t.reset = ResetModel::kCurve;
  const uint64_t cap = 1077 * kMiB;
  t.reset_curve = {{4 * kKiB, 1640}, {cap / 8, 5100}, {cap / 4, 6800}, {cap / 2, 12200}, {cap, 16600}};
  return t;
}

// Paper 002's ConfZNS setting: 8 channels x 2 dies, 16 KiB pages, read
// 65 us, program 450 us, erase 2 ms; ConfZNS's 25 us page transfer. As in
// ConfZNS: a write completes when its pages are programmed (no early
// completion), a reset charges one erase on every die of the zone, finish
// is free, and the host interface costs nothing.
TimingOptions ConfZns() {
  TimingOptions t;
  t.enabled = true;
  t.channels = 8;
  t.dies = 2;
  t.zone_channels = 8;
  t.page_size_bytes = 16 * kKiB;
  t.unit_bytes = 16 * kKiB;
  t.read_us = 65;
  t.program_us = 450;
  t.xfer_us = 25;
  t.wb_units = 16;  // one page in flight per die of the zone
  t.early_completion = false;
  t.reset = ResetModel::kBlocks;
  t.erase_us = 2000;
  t.erase_block_bytes = 0;
  t.partial_reset = false;
  return t;
}

// Study 003's ConfZNS++ setting: 8 channels x 2 ways, 2048 pages per
// block, 256 MiB zones; ConfZNS++'s default latencies (read 65 us, program
// 450 us, transfer 25 us, block erase 3 ms) and partial resets; finish
// programs the unwritten rest of the zone.
TimingOptions ConfZnsPlusPlus() {
  TimingOptions t = ConfZns();
  t.erase_us = 3000;
  t.erase_block_bytes = 2048 * 16 * kKiB;
  t.partial_reset = true;
  return t;
}

// Paper 001's Cosmos+ OpenSSD ZNS prototype. Table 1 (16 KiB, QD4) gives
// 401 MB/s sequential write, 394 MB/s sequential read and 393 MB/s random
// read: the same figure for three patterns says the controller path limits
// it, so write_mb_s and read_mb_s carry the calibration. The flash values
// are not published; they are typical of the platform's 8-channel x 8-way
// NAND and chosen so that flash is not the limit at 16 KiB QD4.
TimingOptions Cosmos() {
  TimingOptions t;
  t.enabled = true;
  t.write_mb_s = 401;
  t.read_mb_s = 394;
  t.channels = 8;
  t.dies = 8;
  t.zone_channels = 8;
  t.page_size_bytes = 16 * kKiB;
  t.unit_bytes = 16 * kKiB;
  t.read_us = 50;
  t.program_us = 1300;
  t.xfer_us = 40;
  t.wb_units = 64;
  t.early_completion = true;
  t.reset = ResetModel::kBlocks;
  t.erase_us = 3500;
  t.erase_block_bytes = 4 * kMiB;
  t.partial_reset = false;
  return t;
}

}  // namespace

const char* TimingOptions::ProfileNames() { return "none, zn540, confzns, confznspp, cosmos"; }

Status TimingOptions::Profile(const std::string& name, TimingOptions* timing, FinishModel* finish) {
  FinishModel f = FinishModel::kFree;
  if (name == "none") {
    *timing = TimingOptions();
  } else if (name == "zn540") {
    *timing = Zn540();
    f = FinishModel::kPad;  // finish time grows with the unwritten part: the drive pads
  } else if (name == "confzns") {
    *timing = ConfZns();
  } else if (name == "confznspp") {
    *timing = ConfZnsPlusPlus();
    f = FinishModel::kPad;
  } else if (name == "cosmos") {
    *timing = Cosmos();
  } else {
    return Status::InvalidArgument("unknown timing profile '" + name + "' (known: " + ProfileNames() + ")");
  }
  timing->profile = name;
  *finish = f;
  return Status::OK();
}

}  // namespace zonekv
