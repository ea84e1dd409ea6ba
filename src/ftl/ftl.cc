// FtlImpl: the Ftl of include/zonekv/ftl.h. See that header for the design.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <vector>

#include "section_timer.h"
#include "spin_lock.h"
#include "victim_policy.h"
#include "zone_table.h"
#include "zonekv/ftl.h"
#include "zonekv/mutex.h"

namespace zonekv {

double FtlStats::waf() const {
  if (user_writes == 0) return 1.0;
  return static_cast<double>(user_writes + gc_writes) / static_cast<double>(user_writes);
}

FtlStats FtlStats::Since(const FtlStats& e) const {
  FtlStats d;
  d.user_writes = user_writes - e.user_writes;
  d.gc_writes = gc_writes - e.gc_writes;
  d.user_reads = user_reads - e.user_reads;
  d.trims = trims - e.trims;
  d.gc_victims = gc_victims - e.gc_victims;
  d.zone_resets = zone_resets - e.zone_resets;
  d.hook_ns = hook_ns - e.hook_ns;
  d.hook_control_ns = hook_control_ns - e.hook_control_ns;
  d.selection_ns = selection_ns - e.selection_ns;
  d.lock_wait_ns = lock_wait_ns - e.lock_wait_ns;
  d.interrupted_sections = interrupted_sections - e.interrupted_sections;
  return d;
}

Json FtlStats::ToJson() const {
  // Per-I/O costs are per user block write: the unit the paper reports.
  double ios = user_writes == 0 ? 1.0 : static_cast<double>(user_writes);
  Json j = Json::Object();
  j.Set("waf", waf())
      .Set("user_writes", user_writes)
      .Set("gc_writes", gc_writes)
      .Set("user_reads", user_reads)
      .Set("trims", trims)
      .Set("gc_victims", gc_victims)
      .Set("zone_resets", zone_resets)
      .Set("maintenance_ns_per_io", maintenance_ns() / ios)
      .Set("hook_ns_per_io", hook_ns / ios)
      .Set("hook_control_ns_per_io", hook_control_ns / ios)
      .Set("selection_ns_per_io", selection_ns / ios)
      .Set("policy_ns_per_io", (maintenance_ns() + selection_ns) / ios)
      .Set("lock_wait_ns_per_io", lock_wait_ns / ios)
      .Set("interrupted_sections", interrupted_sections);
  return j;
}

namespace {

constexpr uint32_t kUnmapped = 0xffffffffu;

std::string FormatRatio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", r);
  return buf;
}

struct Frontier {
  uint32_t zone = kNoZone;
  uint32_t next = 0;  // next block index within the zone
};

class FtlImpl final : public Ftl {
 public:
  FtlImpl(ZonedDevice* device, const FtlOptions& options, uint32_t blocks_per_zone,
          uint32_t op_zones, uint32_t low, uint32_t high)
      : device_(device),
        options_(options),
        geometry_(device->geometry()),
        blocks_per_zone_(blocks_per_zone),
        op_zones_(op_zones),
        gc_low_(low),
        gc_high_(high),
        logical_blocks_(static_cast<uint64_t>(geometry_.nr_zones - op_zones) * blocks_per_zone),
        zones_(geometry_.nr_zones, blocks_per_zone),
        l2p_(logical_blocks_, kUnmapped),
        p2l_(static_cast<uint64_t>(geometry_.nr_zones) * blocks_per_zone, kUnmapped),
        copy_buffer_(kFtlBlockBytes, 0),
        zeros_(kFtlBlockBytes, 0) {
    for (uint32_t z = 0; z < geometry_.nr_zones; z++) free_.push_back(z);
  }

  // Before the FTL is shared (Ftl::Open); takes mu_ for the contract's sake.
  Status Init() {
    MutexLock lock(&mu_);
    ZONEKV_RETURN_IF_ERROR(NewVictimPolicy(options_.policy, &zones_, &policy_));
    // The mapping is volatile: start from an empty device.
    constexpr uint32_t kChunk = 4096;
    for (uint32_t first = 0; first < geometry_.nr_zones; first += kChunk) {
      std::vector<ZoneInfo> infos;
      ZONEKV_RETURN_IF_ERROR(device_->ReportZones(first, kChunk, &infos));
      for (const ZoneInfo& zi : infos) {
        if (zi.state != ZoneState::kEmpty) ZONEKV_RETURN_IF_ERROR(device_->ResetZone(zi.id));
      }
    }
    return Status::OK();
  }

  uint64_t logical_blocks() const override { return logical_blocks_; }

  Status Write(uint64_t lba, const char* data) override {
    ZONEKV_RETURN_IF_ERROR(CheckLba(lba, "write"));
    uint64_t t0 = NowNs();
    MutexLock lock(&mu_);
    stats_.lock_wait_ns += SectionNs(t0, NowNs());
    ZONEKV_RETURN_IF_ERROR(EnsureUserFrontier());
    uint64_t pba = Pba(user_.zone, user_.next);
    ZONEKV_RETURN_IF_ERROR(device_->Write(Offset(pba), data ? data : zeros_.data(), kFtlBlockBytes));
    zones_.Tick();
    if (l2p_[lba] != kUnmapped) Invalidate(l2p_[lba]);
    Map(lba, pba, &user_);
    stats_.user_writes++;
    return Status::OK();
  }

  Status Read(uint64_t lba, char* buf) override {
    ZONEKV_RETURN_IF_ERROR(CheckLba(lba, "read"));
    MutexLock lock(&mu_);
    stats_.user_reads++;
    uint32_t pba = l2p_[lba];
    if (pba == kUnmapped) {
      std::memset(buf, 0, kFtlBlockBytes);
      return Status::OK();
    }
    return device_->Read(Offset(pba), kFtlBlockBytes, buf);
  }

  Status Trim(uint64_t lba) override {
    ZONEKV_RETURN_IF_ERROR(CheckLba(lba, "trim"));
    MutexLock lock(&mu_);
    stats_.trims++;
    if (l2p_[lba] == kUnmapped) return Status::OK();
    Invalidate(l2p_[lba]);
    l2p_[lba] = kUnmapped;
    return Status::OK();
  }

  FtlStats stats() const override {
    MutexLock lock(&mu_);
    return stats_;
  }

  Json ConfigJson() const override {
    Json j = Json::Object();
    j.Set("device", device_->name())
        .Set("geometry", geometry_.ToJson())
        .Set("block_bytes", kFtlBlockBytes)
        .Set("blocks_per_zone", blocks_per_zone_)
        .Set("op_ratio", options_.op_ratio)
        .Set("op_zones", op_zones_)
        .Set("logical_blocks", logical_blocks_)
        .Set("logical_bytes", logical_blocks_ * kFtlBlockBytes)
        .Set("policy", options_.policy)
        .Set("gc_low_zones", gc_low_)
        .Set("gc_high_zones", gc_high_)
        .Set("move_payload", options_.move_payload)
        .Set("frontiers", "one user zone and one GC zone, shared by all threads")
        .Set("clock", "user block writes");
    return j;
  }

  Json MemoryJson() const override {
    MutexLock lock(&mu_);
    uint64_t zones = geometry_.nr_zones;
    uint64_t policy = policy_->MemoryBytes();
    uint64_t table = ZoneTable::kBytesPerZone * zones;
    uint64_t maps = (l2p_.capacity() + p2l_.capacity()) * sizeof(uint32_t);
    Json j = Json::Object();
    j.Set("policy_bytes", policy)
        .Set("policy_bytes_per_zone", static_cast<double>(policy) / zones)
        .Set("policy_overhead_pct", 100.0 * policy / static_cast<double>(geometry_.capacity_bytes()))
        .Set("zone_table_bytes_per_zone", ZoneTable::kBytesPerZone)
        .Set("zone_table_bytes", table)
        .Set("map_bytes", maps)
        .Set("total_bytes", policy + table + maps);
    return j;
  }

  Status CheckConsistency() const override {
    MutexLock lock(&mu_);
    std::vector<uint32_t> valid(geometry_.nr_zones, 0);
    for (uint64_t pba = 0; pba < p2l_.size(); pba++) {
      uint32_t lba = p2l_[pba];
      if (lba == kUnmapped) continue;
      if (lba >= logical_blocks_ || l2p_[lba] != pba) {
        return Status::Corruption("physical block " + std::to_string(pba) + " claims logical block " +
                                  std::to_string(lba) + " which maps elsewhere");
      }
      valid[pba / blocks_per_zone_]++;
    }
    for (uint64_t lba = 0; lba < logical_blocks_; lba++) {
      if (l2p_[lba] != kUnmapped && p2l_[l2p_[lba]] != lba) {
        return Status::Corruption("logical block " + std::to_string(lba) + " maps to physical block " +
                                  std::to_string(l2p_[lba]) + " which does not map back");
      }
    }
    for (uint32_t z = 0; z < geometry_.nr_zones; z++) {
      if (valid[z] != zones_.valid(z)) {
        return Status::Corruption("zone " + std::to_string(z) + " holds " + std::to_string(valid[z]) +
                                  " valid blocks but its counter says " + std::to_string(zones_.valid(z)));
      }
    }
    return Status::OK();
  }

 private:
  Status CheckLba(uint64_t lba, const char* op) const {
    if (lba < logical_blocks_) return Status::OK();
    return Status::InvalidArgument(std::string(op) + " of logical block " + std::to_string(lba) +
                                   " is beyond the device (" + std::to_string(logical_blocks_) + " blocks)");
  }

  uint64_t Pba(uint32_t zone, uint32_t index) const {
    return static_cast<uint64_t>(zone) * blocks_per_zone_ + index;
  }
  uint64_t Offset(uint64_t pba) const {
    return (pba / blocks_per_zone_) * geometry_.zone_size_bytes + (pba % blocks_per_zone_) * kFtlBlockBytes;
  }

  // Records a policy hook timed as [t1, now) after the empty control
  // section [t0, t1), unless either was interrupted. REQUIRES: mu_ held.
  void AddHookTime(uint64_t t0, uint64_t t1) ZONEKV_REQUIRES(mu_) {
    uint64_t t2 = NowNs();
    if (t2 - t1 > kInterruptedSectionNs || t1 - t0 > kInterruptedSectionNs) {
      stats_.interrupted_sections++;
    } else {
      stats_.hook_ns += t2 - t1;
      stats_.hook_control_ns += t1 - t0;
    }
  }

  // REQUIRES: mu_ held; pba mapped.
  void Invalidate(uint64_t pba) ZONEKV_REQUIRES(mu_) {
    uint32_t z = static_cast<uint32_t>(pba / blocks_per_zone_);
    uint32_t old_valid = zones_.valid(z);
    p2l_[pba] = kUnmapped;
    zones_.RemoveValid(z);
    if (zones_.state(z) == FtlZoneState::kFull) {
      uint64_t t0 = NowNs(), t1 = NowNs();
      policy_->OnInvalidate(z, old_valid);
      AddHookTime(t0, t1);
    }
  }

  // Records that `pba`, the next block of frontier *f, now holds `lba`.
  // REQUIRES: mu_ held.
  void Map(uint64_t lba, uint64_t pba, Frontier* f) ZONEKV_REQUIRES(mu_) {
    l2p_[lba] = static_cast<uint32_t>(pba);
    p2l_[pba] = static_cast<uint32_t>(lba);
    zones_.AddValid(f->zone);
    if (++f->next == blocks_per_zone_) {
      zones_.SetState(f->zone, FtlZoneState::kFull);
      uint64_t t0 = NowNs(), t1 = NowNs();
      policy_->OnZoneFull(f->zone);
      AddHookTime(t0, t1);
      f->zone = kNoZone;
    }
  }

  // REQUIRES: mu_ held.
  Status Allocate(Frontier* f) ZONEKV_REQUIRES(mu_) {
    if (free_.empty()) {
      return Status::NoSpace("FTL: no free zone left and GC found no zone with invalid blocks (" +
                             std::to_string(geometry_.nr_zones) + " zones, " + std::to_string(op_zones_) +
                             " over-provisioned)");
    }
    f->zone = free_.front();
    f->next = 0;
    free_.pop_front();
    zones_.SetState(f->zone, FtlZoneState::kOpen);
    return Status::OK();
  }

  // REQUIRES: mu_ held.
  Status EnsureUserFrontier() ZONEKV_REQUIRES(mu_) {
    if (user_.zone != kNoZone) return Status::OK();
    if (free_.size() <= gc_low_) ZONEKV_RETURN_IF_ERROR(CollectGarbage());
    return Allocate(&user_);
  }

  // Cleans victims until the free pool reaches the high watermark or the
  // policy has none left. REQUIRES: mu_ held.
  Status CollectGarbage() ZONEKV_REQUIRES(mu_) {
    while (free_.size() < gc_high_) {
      uint64_t s0 = ThreadCpuNs();
      uint32_t victim = policy_->SelectVictim();
      stats_.selection_ns += CpuSectionNs(s0, ThreadCpuNs());
      if (victim == kNoZone) break;
      ZONEKV_RETURN_IF_ERROR(Clean(victim));
    }
    return Status::OK();
  }

  // Moves the valid blocks of `victim` to the GC frontier and resets it.
  // REQUIRES: mu_ held.
  Status Clean(uint32_t victim) ZONEKV_REQUIRES(mu_) {
    zones_.SetState(victim, FtlZoneState::kVictim);
    for (uint32_t i = 0; i < blocks_per_zone_ && zones_.valid(victim) > 0; i++) {
      uint64_t from = Pba(victim, i);
      uint32_t lba = p2l_[from];
      if (lba == kUnmapped) continue;
      if (gc_.zone == kNoZone) ZONEKV_RETURN_IF_ERROR(Allocate(&gc_));
      uint64_t to = Pba(gc_.zone, gc_.next);
      const char* payload = zeros_.data();
      if (options_.move_payload) {
        ZONEKV_RETURN_IF_ERROR(device_->Read(Offset(from), kFtlBlockBytes, copy_buffer_.data()));
        payload = copy_buffer_.data();
      }
      ZONEKV_RETURN_IF_ERROR(device_->Write(Offset(to), payload, kFtlBlockBytes));
      p2l_[from] = kUnmapped;
      zones_.RemoveValid(victim);
      Map(lba, to, &gc_);
      stats_.gc_writes++;
    }
    ZONEKV_RETURN_IF_ERROR(device_->ResetZone(victim));
    zones_.Reset(victim);
    uint64_t t0 = NowNs(), t1 = NowNs();
    policy_->OnReset(victim);
    AddHookTime(t0, t1);
    free_.push_back(victim);
    stats_.gc_victims++;
    stats_.zone_resets++;
    return Status::OK();
  }

  ZonedDevice* const device_;
  const FtlOptions options_;
  const DeviceGeometry geometry_;
  const uint32_t blocks_per_zone_;
  const uint32_t op_zones_;
  const uint32_t gc_low_, gc_high_;
  const uint64_t logical_blocks_;

  mutable SpinLock mu_;
  ZoneTable zones_ ZONEKV_GUARDED_BY(mu_);
  std::unique_ptr<VictimPolicy> policy_ ZONEKV_GUARDED_BY(mu_);
  std::vector<uint32_t> l2p_ ZONEKV_GUARDED_BY(mu_);
  std::vector<uint32_t> p2l_ ZONEKV_GUARDED_BY(mu_);
  std::deque<uint32_t> free_ ZONEKV_GUARDED_BY(mu_);  // FIFO spreads wear
  Frontier user_ ZONEKV_GUARDED_BY(mu_);
  Frontier gc_ ZONEKV_GUARDED_BY(mu_);
  std::vector<char> copy_buffer_ ZONEKV_GUARDED_BY(mu_);  // one block in GC transit
  const std::vector<char> zeros_;                      // written for Write(lba, nullptr)
  FtlStats stats_ ZONEKV_GUARDED_BY(mu_);
};

}  // namespace

Status Ftl::Open(ZonedDevice* device, const FtlOptions& options, std::unique_ptr<Ftl>* ftl) {
  const DeviceGeometry& g = device->geometry();
  if (kFtlBlockBytes % g.block_size != 0) {
    return Status::InvalidArgument("device block_size " + std::to_string(g.block_size) +
                                   " does not divide the FTL block of 4096 bytes");
  }
  if (g.zone_capacity_bytes < kFtlBlockBytes || g.zone_capacity_bytes % kFtlBlockBytes != 0) {
    return Status::InvalidArgument("zone capacity " + std::to_string(g.zone_capacity_bytes) +
                                   " is not a positive multiple of the 4096-byte FTL block");
  }
  if ((g.max_open_zones != 0 && g.max_open_zones < 2) || (g.max_active_zones != 0 && g.max_active_zones < 2)) {
    return Status::InvalidArgument("the FTL keeps 2 zones open (user and GC frontiers) but the device allows " +
                                   std::to_string(g.max_open_zones) + " open / " +
                                   std::to_string(g.max_active_zones) + " active");
  }
  if (!(options.op_ratio >= 0.01 && options.op_ratio <= 0.9)) {
    return Status::InvalidArgument("--op " + FormatRatio(options.op_ratio) + " is outside [0.01, 0.9]");
  }
  uint32_t blocks_per_zone = static_cast<uint32_t>(g.zone_capacity_bytes / kFtlBlockBytes);
  uint64_t physical_blocks = static_cast<uint64_t>(g.nr_zones) * blocks_per_zone;
  if (physical_blocks >= kUnmapped) {
    return Status::InvalidArgument("device has " + std::to_string(physical_blocks) +
                                   " blocks of 4 KiB; the FTL addresses at most 2^32 - 1 (16 TiB)");
  }
  uint32_t op_zones = static_cast<uint32_t>(std::ceil(g.nr_zones * options.op_ratio - 1e-9));
  uint32_t low = options.gc_low_zones ? options.gc_low_zones : std::max<uint32_t>(2, g.nr_zones / 200);
  uint32_t high = options.gc_high_zones ? options.gc_high_zones : low + std::max<uint32_t>(1, g.nr_zones / 400);
  if (low < 2 || high <= low) {
    return Status::InvalidArgument("GC watermarks need low >= 2 and high > low (got --gc_low=" +
                                   std::to_string(low) + ", --gc_high=" + std::to_string(high) + ")");
  }
  if (op_zones <= high + 2) {
    return Status::InvalidArgument(
        "over-provisioning of " + std::to_string(op_zones) + " zones (--op " + FormatRatio(options.op_ratio) +
        " of " + std::to_string(g.nr_zones) + ") must exceed the GC high watermark " + std::to_string(high) +
        " plus the 2 open frontiers: use more zones or a larger --op");
  }
  auto impl = std::make_unique<FtlImpl>(device, options, blocks_per_zone, op_zones, low, high);
  ZONEKV_RETURN_IF_ERROR(impl->Init());
  *ftl = std::move(impl);
  return Status::OK();
}

}  // namespace zonekv
