// Drives the emulator and a small, independently written reference model
// with the same random operation sequence and checks that they agree on
// every status code, every zone report and every byte read.
//
// The seed is printed on failure; ZONEKV_SEED=<n> replays one seed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

#include "test_util.h"

namespace zonekv {
namespace {

using C = Status::Code;

// The reference: states as plain enums, the implicit-open order as a
// per-zone timestamp, payload as a byte vector per zone.
class Model {
 public:
  Model(const DeviceGeometry& g, bool auto_close) : g_(g), auto_close_(auto_close), zones_(g.nr_zones) {
    for (auto& z : zones_) z.data.assign(g.zone_capacity_bytes, 0);
  }

  C Write(uint32_t z, uint64_t rel, const std::vector<char>& d) {
    MZone& m = zones_[z];
    if (m.st == ZoneState::kFull) return C::kZoneFull;
    if (rel != m.wp) return C::kZoneInvalidWrite;
    if (rel + d.size() > g_.zone_capacity_bytes) return C::kZoneBoundary;
    C c = Acquire(z, ZoneState::kImplicitOpen);
    if (c != C::kOk) return c;
    std::copy(d.begin(), d.end(), m.data.begin() + static_cast<long>(rel));
    m.wp += d.size();
    if (m.wp == g_.zone_capacity_bytes) m.st = ZoneState::kFull;
    return C::kOk;
  }
  C Open(uint32_t z) {
    if (zones_[z].st == ZoneState::kFull) return C::kInvalidTransition;
    return Acquire(z, ZoneState::kExplicitOpen);
  }
  C Close(uint32_t z) {
    MZone& m = zones_[z];
    if (m.st == ZoneState::kClosed) return C::kOk;
    if (m.st != ZoneState::kImplicitOpen && m.st != ZoneState::kExplicitOpen) return C::kInvalidTransition;
    m.st = ZoneState::kClosed;
    return C::kOk;
  }
  C Finish(uint32_t z, bool pad) {
    MZone& m = zones_[z];
    if (m.st == ZoneState::kFull) return C::kOk;
    if (pad && m.wp > 0) pad_bytes += g_.zone_capacity_bytes - m.wp;
    m.st = ZoneState::kFull;
    m.wp = g_.zone_capacity_bytes;
    return C::kOk;
  }
  C Reset(uint32_t z) {
    MZone& m = zones_[z];
    if (m.st == ZoneState::kEmpty) return C::kOk;
    m.st = ZoneState::kEmpty;
    m.wp = 0;
    m.resets++;
    std::fill(m.data.begin(), m.data.end(), 0);
    return C::kOk;
  }
  // Bytes at device offset `off` (zeros past the write pointer).
  C Read(uint64_t off, uint64_t n, std::vector<char>* out) {
    out->clear();
    for (uint64_t o = off; o < off + n; o += g_.block_size) {
      uint32_t z = static_cast<uint32_t>(o / g_.zone_size_bytes);
      uint64_t rel = o % g_.zone_size_bytes;
      if (rel >= g_.zone_capacity_bytes) return C::kZoneBoundary;
      const MZone& m = zones_[z];
      for (uint64_t i = 0; i < g_.block_size; i++) out->push_back(rel + i < m.wp ? m.data[rel + i] : 0);
    }
    return C::kOk;
  }
  ZoneState state(uint32_t z) const { return zones_[z].st; }
  uint64_t wp(uint32_t z) const { return zones_[z].wp; }
  uint64_t resets(uint32_t z) const { return zones_[z].resets; }
  uint64_t pad_bytes = 0;

 private:
  struct MZone {
    ZoneState st = ZoneState::kEmpty;
    uint64_t wp = 0, resets = 0, opened_at = 0;
    std::vector<char> data;
  };
  static bool Open(ZoneState s) { return s == ZoneState::kImplicitOpen || s == ZoneState::kExplicitOpen; }
  uint32_t Count(bool active) const {
    uint32_t n = 0;
    for (auto& z : zones_) n += Open(z.st) || (active && z.st == ZoneState::kClosed);
    return n;
  }
  // Moves zone z from empty/closed/open into `to` (an open state).
  C Acquire(uint32_t z, ZoneState to) {
    MZone& m = zones_[z];
    if (Open(m.st)) {
      if (to == ZoneState::kExplicitOpen) m.st = to;
      return C::kOk;
    }
    if (m.st == ZoneState::kEmpty && g_.max_active_zones && Count(true) >= g_.max_active_zones) {
      return C::kTooManyActive;
    }
    if (g_.max_open_zones && Count(false) >= g_.max_open_zones) {
      int oldest = -1;
      for (uint32_t i = 0; i < zones_.size(); i++) {
        if (zones_[i].st == ZoneState::kImplicitOpen &&
            (oldest < 0 || zones_[i].opened_at < zones_[static_cast<uint32_t>(oldest)].opened_at)) {
          oldest = static_cast<int>(i);
        }
      }
      if (!auto_close_ || oldest < 0) return C::kTooManyOpen;
      zones_[static_cast<uint32_t>(oldest)].st = ZoneState::kClosed;
    }
    m.st = to;
    m.opened_at = ++clock_;
    return C::kOk;
  }

  DeviceGeometry g_;
  bool auto_close_;
  std::vector<MZone> zones_;
  uint64_t clock_ = 0;
};

struct Config {
  uint32_t max_open, max_active;
  bool auto_close;
  FinishModel finish;
};

void RunSeed(uint64_t seed, const Config& cfg, int ops) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (replay with ZONEKV_SEED=" + std::to_string(seed) + ")");
  EmulatedDeviceOptions o = test::SmallOptions(6, cfg.max_open, cfg.max_active);
  o.geometry.zone_size_bytes = 32 << 10;
  o.geometry.zone_capacity_bytes = 24 << 10;
  o.auto_close = cfg.auto_close;
  o.finish = cfg.finish;
  auto dev = test::NewRam(o);
  Model model(o.geometry, cfg.auto_close);
  const DeviceGeometry& g = o.geometry;
  const uint64_t bs = g.block_size, cap_blocks = g.zone_capacity_bytes / bs;
  std::mt19937_64 rng(seed);
  auto rnd = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  std::string history;

  for (int i = 0; i < ops; i++) {
    uint32_t z = static_cast<uint32_t>(rnd(g.nr_zones));
    uint64_t op = rnd(100);
    Status s;
    C want;
    std::string what;
    if (op < 40) {  // write, usually at the write pointer
      uint64_t rel = rnd(4) == 0 ? rnd(cap_blocks + 1) * bs : model.wp(z);
      auto data = test::Pattern((1 + rnd(rnd(3) == 0 ? cap_blocks : 3)) * bs, rng());
      what = "write zone " + std::to_string(z) + " +" + std::to_string(rel) + " len " + std::to_string(data.size());
      want = model.Write(z, rel, data);
      s = dev->Write(z * g.zone_size_bytes + rel, data.data(), data.size());
    } else if (op < 50) {  // append
      auto data = test::Pattern((1 + rnd(3)) * bs, rng());
      what = "append zone " + std::to_string(z) + " len " + std::to_string(data.size());
      uint64_t expect_at = z * g.zone_size_bytes + model.wp(z), at = 0;
      want = model.Write(z, model.wp(z), data);
      s = dev->Append(z, data.data(), data.size(), &at);
      if (s.ok()) {
        EXPECT_EQ(at, expect_at) << what;
      }
    } else if (op < 65) {  // read, possibly past the capacity or across zones
      uint64_t off = rnd(g.nr_zones * g.zone_size_bytes / bs - 4) * bs, n = (1 + rnd(4)) * bs;
      what = "read " + std::to_string(off) + " len " + std::to_string(n);
      std::vector<char> expect, got(n);
      want = model.Read(off, n, &expect);
      s = dev->Read(off, n, got.data());
      if (s.ok() && want == C::kOk) {
        EXPECT_TRUE(got == expect) << what << " returned different bytes";
      }
    } else if (op < 75) {
      what = "open zone " + std::to_string(z);
      want = model.Open(z);
      s = dev->OpenZone(z);
    } else if (op < 85) {
      what = "close zone " + std::to_string(z);
      want = model.Close(z);
      s = dev->CloseZone(z);
    } else if (op < 91) {
      what = "finish zone " + std::to_string(z);
      want = model.Finish(z, cfg.finish == FinishModel::kPad);
      s = dev->FinishZone(z);
    } else {
      what = "reset zone " + std::to_string(z);
      want = model.Reset(z);
      s = dev->ResetZone(z);
    }
    history += std::to_string(i) + ": " + what + " -> " + s.ToString() + "\n";
    ASSERT_EQ(s.code(), want) << what << ": device said " << s.ToString() << "\nhistory:\n" << history;
    std::vector<ZoneInfo> zs;
    ASSERT_TRUE(dev->ReportZones(0, g.nr_zones, &zs).ok());
    for (uint32_t k = 0; k < g.nr_zones; k++) {
      ASSERT_EQ(zs[k].state, model.state(k)) << "zone " << k << " after " << what << "\nhistory:\n" << history;
      ASSERT_EQ(zs[k].wp_bytes - zs[k].start_bytes, model.wp(k)) << "zone " << k << " after " << what;
      ASSERT_EQ(zs[k].reset_count, model.resets(k)) << "zone " << k << " after " << what;
    }
  }
  EXPECT_EQ(dev->counters().finish_pad_bytes, model.pad_bytes);
}

TEST(ModelTest, EmulatorAgreesWithReferenceModel) {
  const Config configs[] = {
      {0, 0, true, FinishModel::kFree},
      {2, 3, true, FinishModel::kPad},
      {2, 3, false, FinishModel::kFree},
      {3, 3, true, FinishModel::kFree},
      {1, 4, false, FinishModel::kPad},
  };
  if (const char* env = std::getenv("ZONEKV_SEED")) {
    uint64_t seed = std::strtoull(env, nullptr, 10);
    RunSeed(seed, configs[seed % 5], 3000);
    return;
  }
  for (uint64_t seed = 1; seed <= 10 && !HasFatalFailure(); seed++) RunSeed(seed, configs[seed % 5], 3000);
}

}  // namespace
}  // namespace zonekv
