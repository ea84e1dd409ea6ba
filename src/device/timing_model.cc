#include "timing_model.h"

#include <sys/prctl.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace zonekv {

TimingOptions TimingOptions::ConfZns() {
  TimingOptions t;
  t.enabled = true;
  return t;
}

Status TimingOptions::Validate(const DeviceGeometry& g) const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("invalid timing model: " + m); };
  if (!enabled) return Status::OK();
  if (channels == 0) return bad("channels must be > 0");
  if (dies == 0) return bad("dies must be > 0");
  if (planes == 0) return bad("planes must be > 0");
  if (zone_channels == 0 || zone_channels > channels || channels % zone_channels != 0) {
    return bad("zone_channels " + std::to_string(zone_channels) + " must divide channels " +
               std::to_string(channels));
  }
  if (page_size_bytes == 0 || page_size_bytes % g.block_size != 0) {
    return bad("page_size " + std::to_string(page_size_bytes) + " is not a multiple of block_size " +
               std::to_string(g.block_size));
  }
  if (read_us < 0 || program_us < 0 || xfer_us < 0 || erase_us < 0) {
    return bad("read_us, program_us, xfer_us and erase_us must be >= 0");
  }
  if (!(time_scale >= 0) || time_scale > 1e6) return bad("time_scale must be in [0, 1e6]");
  return Status::OK();
}

double TimingOptions::ZoneWriteBandwidth() const {
  double page = static_cast<double>(page_size_bytes);
  double program = zone_channels * dies * planes * page / (program_us * 1e-6);
  double bus = zone_channels * page / (xfer_us * 1e-6);
  return std::min(program, bus) / time_scale;
}

double TimingOptions::ZoneReadBandwidth() const {
  double page = static_cast<double>(page_size_bytes);
  double sense = zone_channels * dies * planes * page / (read_us * 1e-6);
  double bus = zone_channels * page / (xfer_us * 1e-6);
  return std::min(sense, bus) / time_scale;
}

double TimingOptions::IdlePageReadUs() const { return (read_us + xfer_us) * time_scale; }

double TimingOptions::IdleCommandUs(const DeviceGeometry& g, bool write, uint64_t n_bytes) const {
  TimingModel m(*this, g);
  int64_t done = write ? m.Write(0, 0, n_bytes, 0) : m.Read(0, 0, n_bytes, 0);
  return static_cast<double>(done) / 1000.0;
}

Json TimingOptions::ToJson() const {
  Json j = Json::Object();
  j.Set("model", enabled ? "confzns" : "none");
  if (!enabled) return j;
  j.Set("channels", channels)
      .Set("dies", dies)
      .Set("planes", planes)
      .Set("page_size", page_size_bytes)
      .Set("read_us", read_us)
      .Set("program_us", program_us)
      .Set("xfer_us", xfer_us)
      .Set("erase_us", erase_us)
      .Set("zone_channels", zone_channels)
      .Set("time_scale", time_scale);
  return j;
}

TimingModel::TimingModel(const TimingOptions& options, const DeviceGeometry& geometry)
    : options_(options),
      zone_cap_bytes_(geometry.zone_capacity_bytes),
      channel_busy_ns_(options.channels, 0),
      plane_busy_ns_(static_cast<size_t>(options.channels) * options.dies * options.planes, 0) {}

int64_t TimingModel::Ns(double us) const { return static_cast<int64_t>(us * options_.time_scale * 1000.0); }

uint32_t TimingModel::ChannelOf(uint32_t zone, uint64_t page) const {
  uint32_t groups = options_.channels / options_.zone_channels;
  return (zone % groups) * options_.zone_channels + static_cast<uint32_t>(page % options_.zone_channels);
}

uint32_t TimingModel::PlaneOf(uint32_t zone, uint64_t page) const {
  uint32_t die = static_cast<uint32_t>((page / options_.zone_channels) % options_.dies);
  uint32_t plane = static_cast<uint32_t>((page / (uint64_t{options_.zone_channels} * options_.dies)) % options_.planes);
  return (ChannelOf(zone, page) * options_.dies + die) * options_.planes + plane;
}

int64_t TimingModel::Write(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, int64_t now) {
  const uint64_t ps = options_.page_size_bytes, end = offset_bytes + n_bytes;
  int64_t done = now;
  std::lock_guard<std::mutex> l(mu_);
  for (uint64_t p = offset_bytes / ps; p * ps < end; p++) {
    uint64_t page_begin = std::max(p * ps, offset_bytes), page_end = std::min((p + 1) * ps, end);
    int64_t& ch = channel_busy_ns_[ChannelOf(zone, p)];
    ch = std::max(now, ch) + Ns(options_.xfer_us * static_cast<double>(page_end - page_begin) / ps);
    int64_t t = ch;
    if (page_end == (p + 1) * ps || page_end == zone_cap_bytes_) {
      int64_t& pl = plane_busy_ns_[PlaneOf(zone, p)];
      pl = std::max(t, pl) + Ns(options_.program_us);
      t = pl;
    }
    done = std::max(done, t);
  }
  return done;
}

int64_t TimingModel::Read(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, int64_t now) {
  const uint64_t ps = options_.page_size_bytes, end = offset_bytes + n_bytes;
  int64_t done = now;
  std::lock_guard<std::mutex> l(mu_);
  for (uint64_t p = offset_bytes / ps; p * ps < end; p++) {
    uint64_t page_begin = std::max(p * ps, offset_bytes), page_end = std::min((p + 1) * ps, end);
    int64_t& pl = plane_busy_ns_[PlaneOf(zone, p)];
    pl = std::max(now, pl) + Ns(options_.read_us);
    int64_t& ch = channel_busy_ns_[ChannelOf(zone, p)];
    ch = std::max(pl, ch) + Ns(options_.xfer_us * static_cast<double>(page_end - page_begin) / ps);
    done = std::max(done, ch);
  }
  return done;
}

int64_t TimingModel::Erase(uint32_t zone, int64_t now) {
  int64_t done = now;
  std::lock_guard<std::mutex> l(mu_);
  // The pages of one stripe row cover every plane of the zone exactly once.
  uint64_t planes_per_zone = uint64_t{options_.zone_channels} * options_.dies * options_.planes;
  for (uint64_t p = 0; p < planes_per_zone; p++) {
    int64_t& pl = plane_busy_ns_[PlaneOf(zone, p)];
    pl = std::max(now, pl) + Ns(options_.erase_us);
    done = std::max(done, pl);
  }
  return done;
}

int64_t TimingModel::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t TimingModel::SleepUntil(int64_t t_ns) {
  int64_t start = NowNs();
  if (t_ns <= start) return 0;
  // The default 50 us timer slack would dominate page-sized latencies.
  thread_local bool slack_set = false;
  if (!slack_set) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    slack_set = true;
  }
  std::this_thread::sleep_until(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(t_ns)));
  return NowNs() - start;
}

}  // namespace zonekv
