#include "zonekv/device_bench.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <queue>
#include <random>
#include <thread>

#include "timing_model.h"

namespace zonekv {

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;
constexpr uint64_t kZn540ZoneCap = 1077 * kMiB;

// --- anchors ----------------------------------------------------------------

struct Anchor {
  double value;
  const char* source;
  uint64_t zone_cap_bytes = 0;  // the anchor holds for zones of this capacity only (0: any)
};

const char kZnSrc[] = "NVMeBenchmarks zns-a (ZN540); docs/device-timing.md";

// Published figures, by profile and measure name.
const std::map<std::string, std::map<std::string, Anchor>>& Anchors() {
  static const auto* anchors = new std::map<std::string, std::map<std::string, Anchor>>{
      {"zn540",
       {
           {"write_128k_1zone", {131072 / 107.0, "128 KiB write at QD1 takes 107 us; NVMeBenchmarks zns-a"}},
           {"write_16k_4zones",
            {1200, "peak write about 1.20 GB/s, reached by 16 KiB appends from QD2 (appends match writes from "
                   "8 KiB up); NVMeBenchmarks zns-a"}},
           {"write_4k_qd1_1zone", {85, kZnSrc}},
           {"write_4k_qd1_2zones", {142, kZnSrc}},
           {"write_4k_qd1_4zones", {180, kZnSrc}},
           {"write_4k_qd1_8zones", {186, kZnSrc}},
           {"write_4k_lat", {11.4, kZnSrc}},
           {"write_16k_lat", {16.3, kZnSrc}},
           {"append_4k_lat", {14.8, kZnSrc}},
           {"randread_4k_qd1_lat", {73, kZnSrc}},
           {"reset_full", {16.6, "median reset of a full 1077 MiB zone; NVMeBenchmarks partial_reset", kZn540ZoneCap}},
           {"reset_half", {12.2, "reset of a 50% written 1077 MiB zone; NVMeBenchmarks partial_reset", kZn540ZoneCap}},
           {"finish_empty", {0.014, "finish of an empty zone; NVMeBenchmarks partial_finish"}},
           {"finish_half", {457, "finish of a 50% written 1077 MiB zone; NVMeBenchmarks partial_finish", kZn540ZoneCap}},
       }},
      {"cosmos",
       {
           {"write_16k_4zones", {401, "paper 001 Table 1: sequential write, 16 KiB, QD4"}},
           {"read_seq_16k_qd4", {394, "paper 001 Table 1: sequential read, 16 KiB, QD4"}},
           {"randread_16k_qd4", {393, "paper 001 Table 1: random read, 16 KiB, QD4"}},
       }},
      {"confzns",
       {
           {"reset_full", {2.0, "paper 002: block erase 2 ms; ConfZNS erases one block on every die of the zone"}},
           {"reset_half", {2.0, "paper 002: block erase 2 ms; ConfZNS has no partial reset"}},
       }},
  };
  return *anchors;
}

void SetAnchor(const std::string& profile, const DeviceGeometry& g, BenchMeasure* m) {
  auto p = Anchors().find(profile);
  if (profile.empty() || profile == "none") {
    m->source = "no profile to compare with";
    return;
  }
  if (p == Anchors().end() || !p->second.count(m->name)) {
    m->source = "not published for " + profile;
    return;
  }
  const Anchor& a = p->second.at(m->name);
  if (a.zone_cap_bytes != 0 && a.zone_cap_bytes != g.zone_capacity_bytes) {
    m->source = "published for " + std::to_string(a.zone_cap_bytes / kMiB) + " MiB zones only (this device has " +
                std::to_string(g.zone_capacity_bytes / kMiB) + " MiB)";
    return;
  }
  m->has_anchor = true;
  m->anchor = a.value;
  m->source = a.source;
}

// --- targets ----------------------------------------------------------------

struct Op {
  enum Kind { kWrite, kAppend, kRead, kReset, kFinish, kFlush } kind;
  uint32_t zone = 0;
  uint64_t offset = 0;  // zone-relative
  uint64_t bytes = 0;
};

struct RunResult {
  double seconds = 0;      // device time from the first issue to the last completion
  double mean_lat_s = 0;   // mean device time per command
  uint64_t ops = 0;
  uint64_t bytes = 0;
};

using OpFn = std::function<Op(int client, uint64_t i)>;

// Runs `clients` closed-loop clients; client c issues op(c, 0..ops-1), each
// once its previous command completed.
class Target {
 public:
  virtual ~Target() = default;
  virtual const DeviceGeometry& geometry() const = 0;
  virtual Status Run(int clients, uint64_t ops, const OpFn& op, RunResult* r) = 0;
};

class WallTarget final : public Target {
 public:
  WallTarget(ZonedDevice* dev, double time_scale) : dev_(dev), scale_(time_scale) {}
  const DeviceGeometry& geometry() const override { return dev_->geometry(); }

  Status Run(int clients, uint64_t ops, const OpFn& op, RunResult* r) override {
    std::vector<Status> status(clients);
    std::vector<double> lat(clients, 0);
    std::vector<uint64_t> bytes(clients, 0);
    const int64_t t0 = TimingModel::NowNs();
    auto body = [&](int c) {
      std::vector<char> buf;
      for (uint64_t i = 0; i < ops && status[c].ok(); i++) {
        Op o = op(c, i);
        if (buf.size() < o.bytes) buf.assign(o.bytes, static_cast<char>(0x5a));
        const int64_t start = TimingModel::NowNs();
        status[c] = Issue(o, buf.data());
        lat[c] += static_cast<double>(TimingModel::NowNs() - start);
        bytes[c] += o.bytes;
      }
    };
    std::vector<std::thread> threads;
    for (int c = 1; c < clients; c++) threads.emplace_back(body, c);
    body(0);
    for (auto& t : threads) t.join();
    const int64_t t1 = TimingModel::NowNs();
    for (const Status& s : status) ZONEKV_RETURN_IF_ERROR(s);
    r->ops = ops * clients;
    r->seconds = static_cast<double>(t1 - t0) * 1e-9 / scale_;
    r->mean_lat_s = 0;
    r->bytes = 0;
    for (int c = 0; c < clients; c++) {
      r->mean_lat_s += lat[c] * 1e-9 / scale_ / static_cast<double>(r->ops);
      r->bytes += bytes[c];
    }
    return Status::OK();
  }

 private:
  Status Issue(const Op& o, char* buf) {
    const uint64_t base = uint64_t{o.zone} * dev_->geometry().zone_size_bytes;
    uint64_t at;
    switch (o.kind) {
      case Op::kWrite: return dev_->Write(base + o.offset, buf, o.bytes);
      case Op::kAppend: return dev_->Append(o.zone, buf, o.bytes, &at);
      case Op::kRead: return dev_->Read(base + o.offset, o.bytes, buf);
      case Op::kReset: return dev_->ResetZone(o.zone);
      case Op::kFinish: return dev_->FinishZone(o.zone);
      case Op::kFlush: return dev_->Flush();
    }
    return Status::OK();
  }

  ZonedDevice* dev_;
  const double scale_;
};

// The workload in modelled time: clients are simulated in the order of
// their issue times, so the model sees non-decreasing times.
class ModelTarget final : public Target {
 public:
  ModelTarget(const TimingOptions& t, FinishModel finish, const DeviceGeometry& g)
      : g_(g), model_(t, g), pad_(finish == FinishModel::kPad), scale_(t.time_scale), wp_(g.nr_zones, 0) {}
  const DeviceGeometry& geometry() const override { return g_; }

  Status Run(int clients, uint64_t ops, const OpFn& op, RunResult* r) override {
    using Next = std::pair<int64_t, int>;  // issue time, client
    std::priority_queue<Next, std::vector<Next>, std::greater<Next>> ready;
    std::vector<uint64_t> issued(clients, 0);
    for (int c = 0; c < clients; c++) ready.push({clock_, c});
    const int64_t t0 = clock_;
    int64_t end = t0;
    double lat = 0;
    r->bytes = 0;
    while (!ready.empty()) {
      auto [now, c] = ready.top();
      ready.pop();
      if (issued[c] == ops) continue;
      Op o = op(c, issued[c]++);
      const int64_t done = Issue(o, now);
      lat += static_cast<double>(done - now);
      r->bytes += o.bytes;
      end = std::max(end, done);
      ready.push({done, c});
    }
    clock_ = end;
    r->ops = ops * clients;
    r->seconds = static_cast<double>(end - t0) * 1e-9 / scale_;
    r->mean_lat_s = lat * 1e-9 / scale_ / static_cast<double>(r->ops);
    return Status::OK();
  }

 private:
  int64_t Issue(const Op& o, int64_t now) {
    uint64_t& wp = wp_[o.zone];
    switch (o.kind) {
      case Op::kWrite:
      case Op::kAppend: {
        const int64_t done = model_.Write(o.zone, wp, o.bytes, o.kind == Op::kAppend, now);
        wp += o.bytes;
        return done;
      }
      case Op::kRead: return model_.Read(o.zone, o.offset, o.bytes, wp, now);
      case Op::kReset: {
        const int64_t done = model_.Reset(o.zone, wp, now);
        wp = 0;
        return done;
      }
      case Op::kFinish: {
        if (wp == g_.zone_capacity_bytes) return now;
        bool more;
        int64_t t = model_.Finish(o.zone, wp, pad_ && wp > 0, now, &more);
        while (more) t = model_.ContinueFinish(o.zone, t, &more);
        wp = g_.zone_capacity_bytes;
        return t;
      }
      case Op::kFlush: return model_.Flush(now);
    }
    return now;
  }

  const DeviceGeometry g_;
  TimingModel model_;
  const bool pad_;
  const double scale_;
  std::vector<uint64_t> wp_;
  int64_t clock_ = 0;
};

// --- the workload -------------------------------------------------------------

// Zones: 0 the 128 KiB stream, then reset/finish; 1-4 the 16 KiB writers,
// read back later; 5-12 the 4 KiB writers; 13 appends.
constexpr uint32_t kSeqZone = 0, kReadZone = 1, kReadZones = 4, kSmallZone = 5, kAppendZone = 13;
constexpr uint32_t kZonesNeeded = 14, kActiveNeeded = 12;

class Workload {
 public:
  Workload(Target* t, const std::string& profile, const BenchOptions& o, std::vector<BenchMeasure>* out)
      : t_(t), g_(t->geometry()), profile_(profile), o_(o), out_(out) {}

  Status Run() {
    if (g_.nr_zones < kZonesNeeded || (g_.max_active_zones != 0 && g_.max_active_zones < kActiveNeeded)) {
      return Status::InvalidArgument("device bench needs " + std::to_string(kZonesNeeded) + " zones, " +
                                     std::to_string(kActiveNeeded) + " of them active at once (device has " +
                                     std::to_string(g_.nr_zones) + " zones, max_active " +
                                     std::to_string(g_.max_active_zones) + ")");
    }
    if (g_.zone_capacity_bytes < 4 * kMiB) {
      return Status::InvalidArgument("device bench needs zones of at least 4 MiB capacity");
    }
    for (uint32_t z = 0; z < kZonesNeeded; z++) ZONEKV_RETURN_IF_ERROR(One({Op::kReset, z}));
    ZONEKV_RETURN_IF_ERROR(Writes());
    ZONEKV_RETURN_IF_ERROR(Reads());
    ZONEKV_RETURN_IF_ERROR(ResetsAndFinishes());
    for (uint32_t z = 0; z < kZonesNeeded; z++) ZONEKV_RETURN_IF_ERROR(One({Op::kReset, z}));
    return Status::OK();
  }

 private:
  uint64_t Ops(uint64_t n) const { return o_.quick ? std::max<uint64_t>(n / 4, 1) : n; }
  // Commands of `io` bytes one zone holds, at most `n`.
  uint64_t Fit(uint64_t n, uint64_t io) const { return std::min(n, g_.zone_capacity_bytes / io); }

  Status One(Op op, RunResult* r = nullptr) {
    RunResult tmp;
    return t_->Run(1, 1, [&](int, uint64_t) { return op; }, r ? r : &tmp);
  }

  void Add(const std::string& name, const std::string& what, const std::string& unit, double value) {
    BenchMeasure m;
    m.name = name;
    m.what = what;
    m.unit = unit;
    m.value = value;
    SetAnchor(profile_, g_, &m);
    out_->push_back(m);
  }

  // Sequential writes of `io` bytes, one client per zone from `first`.
  Status SeqWrites(uint32_t first, int zones, uint64_t io, uint64_t ops_per_zone, Op::Kind kind, RunResult* r) {
    return t_->Run(zones, ops_per_zone,
                   [=](int c, uint64_t i) { return Op{kind, first + c, i * io, io}; }, r);
  }

  // Writes until the zone holds `bytes`.
  Status Fill(uint32_t zone, uint64_t bytes) {
    const uint64_t io = kMiB;
    RunResult r;
    ZONEKV_RETURN_IF_ERROR(SeqWrites(zone, 1, io, bytes / io, Op::kWrite, &r));
    if (bytes % io != 0) ZONEKV_RETURN_IF_ERROR(One({Op::kWrite, zone, bytes / io * io, bytes % io}));
    return One({Op::kFlush});
  }

  Status Writes() {
    RunResult r;
    ZONEKV_RETURN_IF_ERROR(SeqWrites(kSeqZone, 1, 128 * kKiB, Fit(Ops(1000), 128 * kKiB), Op::kWrite, &r));
    Add("write_128k_1zone", "sequential write, 128 KiB, QD1, one zone", "MB/s", r.bytes / r.seconds / 1e6);
    ZONEKV_RETURN_IF_ERROR(One({Op::kReset, kSeqZone}));
    written_per_read_zone_ = Fit(Ops(2000), 16 * kKiB) * 16 * kKiB;
    ZONEKV_RETURN_IF_ERROR(SeqWrites(kReadZone, kReadZones, 16 * kKiB, Fit(Ops(2000), 16 * kKiB), Op::kWrite, &r));
    Add("write_16k_4zones", "sequential write, 16 KiB, 4 writers in 4 zones", "MB/s", r.bytes / r.seconds / 1e6);

    const uint64_t small_ops = Ops(4000);
    for (int zones : {1, 2, 4, 8}) {
      for (int z = 0; z < zones; z++) ZONEKV_RETURN_IF_ERROR(One({Op::kReset, kSmallZone + z}));
      ZONEKV_RETURN_IF_ERROR(
          SeqWrites(kSmallZone, zones, 4 * kKiB, Fit(small_ops / zones, 4 * kKiB), Op::kWrite, &r));
      const std::string n = std::to_string(zones);
      Add("write_4k_qd1_" + n + (zones == 1 ? "zone" : "zones"), "4 KiB writes, QD1 per zone, " + n + " zone(s)",
          "KIOPS", r.ops / r.seconds / 1e3);
      if (zones == 1) Add("write_4k_lat", "4 KiB write latency, QD1", "us", r.mean_lat_s * 1e6);
    }
    for (uint32_t z = kSmallZone; z < kSmallZone + 8; z++) ZONEKV_RETURN_IF_ERROR(One({Op::kReset, z}));
    ZONEKV_RETURN_IF_ERROR(SeqWrites(kSmallZone, 1, 16 * kKiB, Fit(Ops(1000), 16 * kKiB), Op::kWrite, &r));
    Add("write_16k_lat", "16 KiB write latency, QD1", "us", r.mean_lat_s * 1e6);
    ZONEKV_RETURN_IF_ERROR(SeqWrites(kAppendZone, 1, 4 * kKiB, Fit(Ops(2000), 4 * kKiB), Op::kAppend, &r));
    Add("append_4k_lat", "4 KiB zone append latency, QD1", "us", r.mean_lat_s * 1e6);
    ZONEKV_RETURN_IF_ERROR(One({Op::kReset, kSmallZone}));
    return One({Op::kReset, kAppendZone});
  }

  Status Reads() {
    // Everything written is programmed before reading.
    ZONEKV_RETURN_IF_ERROR(One({Op::kFlush}));
    RunResult r;
    const uint64_t seq_ops = written_per_read_zone_ / (16 * kKiB);
    ZONEKV_RETURN_IF_ERROR(t_->Run(
        kReadZones, std::min(seq_ops, Ops(2000)),
        [](int c, uint64_t i) { return Op{Op::kRead, kReadZone + c, i * 16 * kKiB, 16 * kKiB}; }, &r));
    Add("read_seq_16k_qd4", "sequential read, 16 KiB, 4 readers in 4 zones", "MB/s", r.bytes / r.seconds / 1e6);

    for (uint64_t io : {4 * kKiB, 16 * kKiB}) {
      for (int qd : {1, 4}) {
        std::mt19937_64 rng(o_.seed);
        std::vector<Op> ops;
        const uint64_t n = Ops(2000);
        for (uint64_t i = 0; i < n; i++) {
          uint32_t z = kReadZone + static_cast<uint32_t>(rng() % kReadZones);
          ops.push_back({Op::kRead, z, rng() % (written_per_read_zone_ / io) * io, io});
        }
        ZONEKV_RETURN_IF_ERROR(
            t_->Run(qd, n / qd, [&](int c, uint64_t i) { return ops[i * qd + c]; }, &r));
        const std::string k = std::to_string(io / kKiB) + "k";
        const std::string what = "random read, " + std::to_string(io / kKiB) + " KiB, QD" + std::to_string(qd);
        if (qd == 1) Add("randread_" + k + "_qd1_lat", what + " latency", "us", r.mean_lat_s * 1e6);
        else if (io == 4 * kKiB) Add("randread_" + k + "_qd4", what, "KIOPS", r.ops / r.seconds / 1e3);
        else Add("randread_" + k + "_qd4", what, "MB/s", r.bytes / r.seconds / 1e6);
      }
    }
    for (uint32_t z = kReadZone; z < kReadZone + kReadZones; z++) ZONEKV_RETURN_IF_ERROR(One({Op::kReset, z}));
    return Status::OK();
  }

  Status ResetsAndFinishes() {
    const uint64_t cap = g_.zone_capacity_bytes;
    const uint64_t half = cap / 2 / g_.block_size * g_.block_size;
    RunResult r;
    ZONEKV_RETURN_IF_ERROR(Fill(kSeqZone, cap));
    ZONEKV_RETURN_IF_ERROR(One({Op::kReset, kSeqZone}, &r));
    Add("reset_full", "reset of a full zone", "ms", r.seconds * 1e3);
    ZONEKV_RETURN_IF_ERROR(Fill(kSeqZone, half));
    ZONEKV_RETURN_IF_ERROR(One({Op::kReset, kSeqZone}, &r));
    Add("reset_half", "reset of a half-written zone", "ms", r.seconds * 1e3);

    // An empty zone's finish is short: the mean of several.
    double sum = 0;
    const int n = o_.quick ? 5 : 20;
    for (int i = 0; i < n; i++) {
      ZONEKV_RETURN_IF_ERROR(One({Op::kFinish, kSeqZone}, &r));
      sum += r.seconds;
      ZONEKV_RETURN_IF_ERROR(One({Op::kReset, kSeqZone}));
    }
    Add("finish_empty", "finish of an empty zone", "ms", sum / n * 1e3);
    ZONEKV_RETURN_IF_ERROR(Fill(kSeqZone, half));
    ZONEKV_RETURN_IF_ERROR(One({Op::kFinish, kSeqZone}, &r));
    Add("finish_half", "finish of a half-written zone", "ms", r.seconds * 1e3);
    return Status::OK();
  }

  Target* t_;
  const DeviceGeometry g_;
  const std::string profile_;
  const BenchOptions o_;
  std::vector<BenchMeasure>* out_;
  uint64_t written_per_read_zone_ = 0;
};

}  // namespace

Json BenchMeasure::ToJson() const {
  Json j = Json::Object();
  j.Set("value", value).Set("unit", unit).Set("what", what);
  j.Set("anchor", has_anchor ? Json(anchor) : Json());
  j.Set("source", source);
  j.Set("ratio", has_anchor ? Json(ratio()) : Json());
  return j;
}

Status RunDeviceBench(ZonedDevice* dev, const std::string& profile, double time_scale, const BenchOptions& options,
                      std::vector<BenchMeasure>* out) {
  if (!(time_scale > 0)) {
    return Status::InvalidArgument("device bench: time_scale " + std::to_string(time_scale) +
                                   " leaves nothing to measure in wall time (use the modelled mode)");
  }
  WallTarget t(dev, time_scale);
  return Workload(&t, profile, options, out).Run();
}

Status ModelDeviceBench(const TimingOptions& timing, FinishModel finish, const DeviceGeometry& g,
                        const BenchOptions& options, std::vector<BenchMeasure>* out) {
  ZONEKV_RETURN_IF_ERROR(g.Validate());
  ZONEKV_RETURN_IF_ERROR(timing.Validate(g));
  if (!timing.enabled || !(timing.time_scale > 0)) {
    return Status::InvalidArgument("device bench: the modelled mode needs a timing profile with time_scale > 0");
  }
  ModelTarget t(timing, finish, g);
  return Workload(&t, timing.profile, options, out).Run();
}

}  // namespace zonekv
