#include "timing_model.h"
#include "zonekv/mutex.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace zonekv {

// --- TimingOptions --------------------------------------------------------

Status TimingOptions::Validate(const DeviceGeometry& g) const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("invalid timing model: " + m); };
  if (!enabled) return Status::OK();
  if (channels == 0) return bad("channels must be > 0");
  if (dies == 0) return bad("dies must be > 0");
  // The model keeps a busy calendar per die: a spec's channels=4222222224
  // must be an error, not a 100 GB allocation.
  if (uint64_t{channels} * dies > kMaxDies) {
    return bad("channels x dies = " + std::to_string(uint64_t{channels} * dies) + " exceeds " +
               std::to_string(kMaxDies) + " dies");
  }
  if (zone_channels == 0 || zone_channels > channels || channels % zone_channels != 0) {
    return bad("zone_channels " + std::to_string(zone_channels) + " must divide channels " +
               std::to_string(channels));
  }
  if (page_size_bytes == 0 || page_size_bytes % g.block_size != 0) {
    return bad("page_size " + std::to_string(page_size_bytes) + " is not a multiple of block_size " +
               std::to_string(g.block_size));
  }
  if (unit_bytes == 0 || unit_bytes % page_size_bytes != 0) {
    return bad("unit_size " + std::to_string(unit_bytes) + " is not a multiple of page_size " +
               std::to_string(page_size_bytes));
  }
  if (wb_units == 0) return bad("wb_units must be > 0");
  for (double v : {write_cmd_us, read_cmd_us, write_lat_us, read_lat_us, append_us, mgmt_us, read_us, program_us,
                   xfer_us, erase_us, link_mb_s, write_mb_s, read_mb_s}) {
    if (!(v >= 0) || !std::isfinite(v)) {
      return bad("latencies (_us) and bandwidths (_mb_s) must be finite and >= 0");
    }
  }
  if (erase_block_bytes % g.block_size != 0) {
    return bad("erase_block " + std::to_string(erase_block_bytes) + " is not a multiple of block_size " +
               std::to_string(g.block_size));
  }
  if (reset == ResetModel::kCurve) {
    if (reset_curve.empty()) return bad("the reset curve has no points");
    for (size_t i = 0; i < reset_curve.size(); i++) {
      if (reset_curve[i].second < 0 || (i > 0 && reset_curve[i].first <= reset_curve[i - 1].first)) {
        return bad("the reset curve must have increasing bytes and latencies >= 0");
      }
    }
  }
  if (!(time_scale >= 0) || time_scale > 1e6) return bad("time_scale must be in [0, 1e6]");
  return Status::OK();
}

double TimingOptions::SustainedWriteBandwidth() const {
  if (!enabled || time_scale == 0) return 0;
  const double page = static_cast<double>(page_size_bytes), unit = static_cast<double>(unit_bytes);
  double bw = 1e300;
  if (write_mb_s > 0) bw = write_mb_s * 1e6;
  if (xfer_us > 0) bw = std::min(bw, channels * page / (xfer_us * 1e-6));
  if (program_us > 0) bw = std::min(bw, channels * dies * unit / (program_us * 1e-6));
  return bw / time_scale;
}

Json TimingOptions::ToJson() const {
  Json j = Json::Object();
  j.Set("profile", profile);
  if (!enabled) return j;
  Json curve = Json::Array();
  for (const auto& [bytes, us] : reset_curve) {
    Json p = Json::Array();
    p.Push(Json(bytes)).Push(Json(us));
    curve.Push(std::move(p));
  }
  j.Set("write_cmd_us", write_cmd_us)
      .Set("read_cmd_us", read_cmd_us)
      .Set("jitter", jitter)
      .Set("seed", seed)
      .Set("link_mb_s", link_mb_s)
      .Set("write_lat_us", write_lat_us)
      .Set("read_lat_us", read_lat_us)
      .Set("append_us", append_us)
      .Set("mgmt_us", mgmt_us)
      .Set("write_mb_s", write_mb_s)
      .Set("read_mb_s", read_mb_s)
      .Set("channels", channels)
      .Set("dies", dies)
      .Set("zone_channels", zone_channels)
      .Set("page_size", page_size_bytes)
      .Set("unit_size", unit_bytes)
      .Set("read_us", read_us)
      .Set("program_us", program_us)
      .Set("xfer_us", xfer_us)
      .Set("wb_units", wb_units)
      .Set("early_completion", early_completion)
      .Set("reset", reset == ResetModel::kCurve ? "curve" : "blocks");
  if (reset == ResetModel::kCurve) {
    j.Set("reset_curve_bytes_us", curve);
  } else {
    j.Set("erase_us", erase_us).Set("erase_block", erase_block_bytes).Set("partial_reset", partial_reset);
  }
  j.Set("time_scale", time_scale).Set("sustained_write_mb_s", SustainedWriteBandwidth() / 1e6);
  return j;
}

// --- TimingModel ----------------------------------------------------------

TimingModel::TimingModel(const TimingOptions& options, const DeviceGeometry& geometry)
    : options_(options),
      zone_cap_bytes_(geometry.zone_capacity_bytes),
      zone_dies_(options.zone_channels * options.dies),
      rng_((options.seed * 0x9E3779B97F4A7C15ull) | 1),  // never 0: xorshift would stay 0
      channels_(options.channels),
      dies_(static_cast<size_t>(options.channels) * options.dies),
      zones_(geometry.nr_zones) {
  stats_.dies = options.channels * options.dies;
}

int64_t TimingModel::Ns(double us) const { return static_cast<int64_t>(us * options_.time_scale * 1000.0); }

int64_t TimingModel::BytesNs(uint64_t bytes, double mb_s) const {
  if (mb_s <= 0) return 0;
  return Ns(static_cast<double>(bytes) / mb_s);  // bytes / (MB/s) = us
}

int64_t TimingModel::ControllerLocked(double mean_us, int64_t now) {
  if (mean_us <= 0) return now;
  double us = mean_us;
  if (options_.jitter) {
    // xorshift64*, then an exponential variate by inversion.
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    double u = static_cast<double>((rng_ * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
    us = -mean_us * std::log1p(-u);
  }
  controller_busy_ns_ = std::max(now, controller_busy_ns_) + Ns(us);
  return controller_busy_ns_;
}

uint32_t TimingModel::DieOf(uint32_t zone, uint64_t unit) const {
  const uint32_t groups = options_.channels / options_.zone_channels;
  // Each zone starts one die further, so that zones written or read in
  // step do not all queue on the same die.
  const uint32_t i = static_cast<uint32_t>((unit + zone / groups) % zone_dies_);
  const uint32_t channel = (zone % groups) * options_.zone_channels + i % options_.zone_channels;
  return (i / options_.zone_channels) * options_.channels + channel;
}

int64_t TimingModel::ProgramLocked(uint32_t zone, uint64_t unit, uint64_t bytes, int64_t ready, bool pad) {
  const uint32_t die = DieOf(zone, unit);
  BusyCalendar& ch = channels_[ChannelOfDie(die)];
  BusyCalendar& d = dies_[die];
  ch.Forget(ready);
  d.Forget(ready);
  const int64_t xfer =
      Ns(options_.xfer_us * static_cast<double>(bytes) / static_cast<double>(options_.page_size_bytes));
  const int64_t loaded = ch.Book(ready, xfer) + xfer;
  const int64_t program = Ns(options_.program_us);
  (pad ? stats_.die_pad_ns : stats_.die_program_ns) += program;
  return d.Book(loaded, program) + program;
}

int64_t TimingModel::SlotTimeLocked(const Zone& z, int64_t t) const {
  std::vector<int64_t> busy;
  for (const Slot& s : z.slots) {
    if (s.free_ns > t) busy.push_back(s.free_ns);
  }
  // The unit about to fill takes a slot too.
  if (busy.size() + 1 <= options_.wb_units) return t;
  const size_t k = busy.size() + 1 - options_.wb_units;  // slots that must free first
  std::nth_element(busy.begin(), busy.begin() + static_cast<std::ptrdiff_t>(k - 1), busy.end());
  return busy[k - 1];
}

int64_t TimingModel::SlotFreeLocked(Zone& z, int64_t t) {
  t = SlotTimeLocked(z, t);
  z.slots.erase(std::remove_if(z.slots.begin(), z.slots.end(), [&](const Slot& s) { return s.free_ns <= t; }),
                z.slots.end());
  return t;
}

bool TimingModel::BufferedLocked(const Zone& z, uint64_t unit, int64_t t) const {
  const uint64_t unit_end = std::min((unit + 1) * options_.unit_bytes, zone_cap_bytes_);
  if (unit_end > z.filled_bytes) return true;  // filling, or not written at all
  for (const Slot& s : z.slots) {
    if (s.unit == unit && s.free_ns > t) return true;
  }
  return false;
}

int64_t TimingModel::Write(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, bool append, int64_t now) {
  MutexLock l(&mu_);
  const int64_t cmd_done = ControllerLocked(options_.write_cmd_us, now);
  int64_t done = cmd_done + BytesNs(n_bytes, options_.link_mb_s) +
                 Ns(options_.write_lat_us + (append ? options_.append_us : 0.0));
  if (options_.write_mb_s > 0) {
    write_bw_busy_ns_ = std::max(now, write_bw_busy_ns_) + BytesNs(n_bytes, options_.write_mb_s);
    done = std::max(done, write_bw_busy_ns_);
  }
  Zone& z = zones_[zone];
  // Writes the model did not see (an image reopened) are on flash.
  if (offset_bytes != z.filled_bytes) z.filled_bytes = z.flushed_bytes = offset_bytes;
  const uint64_t unit = options_.unit_bytes, end = offset_bytes + n_bytes;
  int64_t programmed = done;
  bool waited = false;
  for (uint64_t pos = offset_bytes; pos < end;) {
    const uint64_t u = pos / unit;
    if (pos % unit == 0) {
      const int64_t t = SlotFreeLocked(z, done);
      if (t > done) {
        if (!waited) stats_.buffer_waits++;
        waited = true;
        stats_.buffer_wait_ns += t - done;
        done = t;
      }
    }
    const uint64_t unit_end = std::min((u + 1) * unit, zone_cap_bytes_);
    pos = std::min(end, unit_end);
    if (pos == unit_end) {
      const int64_t free = ProgramLocked(zone, u, unit_end - u * unit, done, false);
      z.slots.push_back({u, free});
      programmed = std::max(programmed, free);
    }
  }
  z.filled_bytes = end;
  return options_.early_completion ? done : std::max(done, programmed);
}

int64_t TimingModel::Read(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, uint64_t wp_bytes, int64_t now) {
  MutexLock l(&mu_);
  const int64_t t = ControllerLocked(options_.read_cmd_us, now);
  Zone& z = zones_[zone];
  // Writes the model did not see (an image reopened) are on flash.
  if (wp_bytes > z.filled_bytes) z.filled_bytes = z.flushed_bytes = wp_bytes;
  const uint64_t page = options_.page_size_bytes, end = offset_bytes + n_bytes;
  int64_t ready = t;
  bool hit = false;
  for (uint64_t pos = offset_bytes; pos < end;) {
    const uint64_t p = pos / page, chunk_end = std::min(end, (p + 1) * page);
    const uint64_t bytes = chunk_end - pos;
    pos = chunk_end;
    const uint64_t u = p * page / options_.unit_bytes;
    if (BufferedLocked(z, u, t)) {
      hit = true;
      continue;
    }
    const uint32_t die = DieOf(zone, u);
    BusyCalendar& d = dies_[die];
    BusyCalendar& ch = channels_[ChannelOfDie(die)];
    d.Forget(now);
    ch.Forget(now);
    const int64_t sense = Ns(options_.read_us);
    const int64_t sensed = d.Book(t, sense) + sense;
    stats_.die_read_ns += sense;
    const int64_t xfer = Ns(options_.xfer_us * static_cast<double>(bytes) / static_cast<double>(page));
    ready = std::max(ready, ch.Book(sensed, xfer) + xfer);
  }
  if (hit) stats_.buffer_reads++;
  if (options_.read_mb_s > 0) {
    read_bw_busy_ns_ = std::max(ready, read_bw_busy_ns_) + BytesNs(n_bytes, options_.read_mb_s);
    ready = read_bw_busy_ns_;
  }
  return ready + Ns(options_.read_lat_us);
}

int64_t TimingModel::ResetNs(uint64_t written) const {
  if (options_.reset == ResetModel::kCurve) {
    const auto& c = options_.reset_curve;
    if (c.size() == 1 || written <= c.front().first) return Ns(c.front().second);
    size_t i = 1;
    while (i + 1 < c.size() && written > c[i].first) i++;
    const double x0 = static_cast<double>(c[i - 1].first), x1 = static_cast<double>(c[i].first);
    const double us = c[i - 1].second + (c[i].second - c[i - 1].second) * (static_cast<double>(written) - x0) / (x1 - x0);
    return Ns(us);
  }
  const uint64_t share = (zone_cap_bytes_ + zone_dies_ - 1) / zone_dies_;  // of one die
  const uint64_t per_die =
      options_.erase_block_bytes == 0 ? 1 : std::max<uint64_t>(1, (share + options_.erase_block_bytes - 1) / options_.erase_block_bytes);
  uint64_t blocks = per_die;
  if (options_.partial_reset) blocks = std::min(per_die, (written * per_die + zone_cap_bytes_ - 1) / zone_cap_bytes_);
  return Ns(options_.erase_us * static_cast<double>(blocks));
}

int64_t TimingModel::Reset(uint32_t zone, uint64_t written_bytes, int64_t now) {
  MutexLock l(&mu_);
  Zone& z = zones_[zone];
  // A measured curve charges what the host wrote: the ZN540 resets a
  // finished zone in 1.6 ms when nearly empty, 15.4 ms when full.
  if (options_.reset == ResetModel::kCurve && z.finished && written_bytes > 0) {
    written_bytes = std::max<uint64_t>(z.host_bytes, 1);
  }
  z = Zone();
  if (written_bytes == 0) return now;
  // The erase runs on every die of the zone at once: find the first time
  // all of them are free for its whole length.
  const int64_t erase = ResetNs(written_bytes);
  int64_t start = now;
  for (bool fits = false; !fits;) {
    fits = true;
    for (uint32_t i = 0; i < zone_dies_; i++) {
      BusyCalendar& d = dies_[DieOf(zone, i)];
      d.Forget(now);
      const int64_t t = d.FirstFit(start, erase);
      if (t != start) {
        start = t;
        fits = false;
      }
    }
  }
  for (uint32_t i = 0; i < zone_dies_; i++) dies_[DieOf(zone, i)].Insert(start, erase);
  stats_.die_erase_ns += erase * zone_dies_;
  return start + erase;
}

int64_t TimingModel::Finish(uint32_t zone, uint64_t wp_bytes, bool pad, int64_t now, bool* more) {
  MutexLock l(&mu_);
  Zone& z = zones_[zone];
  if (wp_bytes != z.filled_bytes) z.filled_bytes = z.flushed_bytes = wp_bytes;
  // Without padding the last partial unit is still programmed whole.
  const uint64_t unit = options_.unit_bytes;
  z.pad_next = wp_bytes;
  z.pad_end = wp_bytes == 0 ? 0 : pad ? zone_cap_bytes_ : std::min((wp_bytes + unit - 1) / unit * unit, zone_cap_bytes_);
  z.pad_ready_ns = now + Ns(options_.mgmt_us);
  z.finished = true;
  z.host_bytes = wp_bytes;
  return PadStepLocked(zone, now, more);
}

int64_t TimingModel::ContinueFinish(uint32_t zone, int64_t now, bool* more) {
  MutexLock l(&mu_);
  return PadStepLocked(zone, now, more);
}

int64_t TimingModel::PadStepLocked(uint32_t zone, int64_t now, bool* more) {
  Zone& z = zones_[zone];
  const uint64_t unit = options_.unit_bytes;
  // Units are booked at most this far ahead, so that other commands
  // arriving meanwhile find the dies free between padding units.
  const int64_t horizon = now + Ns(1000);
  while (z.pad_next < z.pad_end) {
    const uint64_t u = z.pad_next / unit;
    int64_t ready = z.pad_ready_ns;
    if (z.pad_next % unit == 0) {
      if (SlotTimeLocked(z, ready) > horizon) {
        *more = true;
        return SlotTimeLocked(z, ready);
      }
      ready = SlotFreeLocked(z, ready);
    }
    const uint64_t unit_end = std::min((u + 1) * unit, zone_cap_bytes_);
    z.slots.push_back({u, ProgramLocked(zone, u, unit_end - u * unit, ready, true)});
    z.pad_next = unit_end;
    z.pad_ready_ns = ready;
  }
  *more = false;
  int64_t done = z.pad_ready_ns;
  for (const Slot& s : z.slots) done = std::max(done, s.free_ns);
  z.filled_bytes = z.flushed_bytes = std::max(z.filled_bytes, z.pad_end);
  return done;
}

int64_t TimingModel::Flush(int64_t now) {
  MutexLock l(&mu_);
  int64_t done = now;
  const uint64_t unit = options_.unit_bytes;
  for (uint32_t zone = 0; zone < zones_.size(); zone++) {
    Zone& z = zones_[zone];
    for (const Slot& s : z.slots) done = std::max(done, s.free_ns);
    // The filling unit's data so far is programmed (as a copy: the unit
    // stays in the buffer and is programmed again once full).
    if (z.filled_bytes > z.flushed_bytes && z.filled_bytes % unit != 0 && z.filled_bytes < zone_cap_bytes_) {
      const uint64_t u = z.filled_bytes / unit;
      done = std::max(done, ProgramLocked(zone, u, z.filled_bytes - u * unit, now, false));
    }
    z.flushed_bytes = z.filled_bytes;
  }
  return done;
}

int64_t TimingModel::Manage(int64_t now) { return now + Ns(options_.mgmt_us); }

TimingModel::Stats TimingModel::stats() const {
  MutexLock l(&mu_);
  return stats_;
}

int64_t TimingModel::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t TimingModel::SleepUntil(int64_t t_ns) {
  const int64_t start = NowNs();
  if (t_ns <= start) return 0;
  // The default 50 us timer slack would add to every sleep.
  thread_local bool slack_set = false;
  if (!slack_set) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    slack_set = true;
  }
  if (t_ns - start > kSpinNs) {
    std::this_thread::sleep_until(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(t_ns - kSpinNs)));
  }
  int64_t now = NowNs();
  while (now < t_ns) {
    std::this_thread::yield();
    now = NowNs();
  }
  return now - start;
}

}  // namespace zonekv
