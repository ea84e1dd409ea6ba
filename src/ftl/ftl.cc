// FtlImpl: the Ftl of include/zonekv/ftl.h. See that header for the design.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <thread>
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

uint64_t FtlStats::maintenance_ns() const {
  if (hook_samples == 0 || hook_ns <= hook_control_ns) return 0;
  double per_hook = static_cast<double>(hook_ns - hook_control_ns) / static_cast<double>(hook_samples);
  return static_cast<uint64_t>(per_hook * static_cast<double>(hook_calls));
}

uint64_t FtlStats::victim_selection_ns() const {
  return selection_ns > selection_control_ns ? selection_ns - selection_control_ns : 0;
}

FtlStats FtlStats::Since(const FtlStats& e) const {
  FtlStats d;
  d.user_writes = user_writes - e.user_writes;
  d.gc_writes = gc_writes - e.gc_writes;
  d.user_reads = user_reads - e.user_reads;
  d.trims = trims - e.trims;
  d.gc_victims = gc_victims - e.gc_victims;
  d.zone_resets = zone_resets - e.zone_resets;
  d.hook_calls = hook_calls - e.hook_calls;
  d.hook_samples = hook_samples - e.hook_samples;
  d.hook_ns = hook_ns - e.hook_ns;
  d.hook_control_ns = hook_control_ns - e.hook_control_ns;
  d.selection_ns = selection_ns - e.selection_ns;
  d.selection_control_ns = selection_control_ns - e.selection_control_ns;
  d.lock_wait_ns = lock_wait_ns - e.lock_wait_ns;
  d.interrupted_sections = interrupted_sections - e.interrupted_sections;
  return d;
}

Json FtlStats::ToJson() const {
  // Per-I/O costs are per user block write: the unit the paper reports.
  double ios = user_writes == 0 ? 1.0 : static_cast<double>(user_writes);
  double samples = hook_samples == 0 ? 1.0 : static_cast<double>(hook_samples);
  double victims = gc_victims == 0 ? 1.0 : static_cast<double>(gc_victims);
  Json j = Json::Object();
  j.Set("waf", waf())
      .Set("user_writes", user_writes)
      .Set("gc_writes", gc_writes)
      .Set("user_reads", user_reads)
      .Set("trims", trims)
      .Set("gc_victims", gc_victims)
      .Set("zone_resets", zone_resets)
      .Set("hook_calls", hook_calls)
      .Set("hook_samples", hook_samples)
      .Set("hooks_per_io", hook_calls / ios)
      .Set("maintenance_ns_per_io", maintenance_ns() / ios)
      .Set("maintenance_ns_per_hook", maintenance_ns() / (hook_calls == 0 ? 1.0 : static_cast<double>(hook_calls)))
      .Set("hook_ns_per_sample", hook_ns / samples)
      .Set("hook_control_ns_per_sample", hook_control_ns / samples)
      .Set("selection_ns_per_io", victim_selection_ns() / ios)
      .Set("selection_us_per_victim", victim_selection_ns() / 1e3 / victims)
      .Set("selection_control_ns_per_victim", selection_control_ns / victims)
      .Set("policy_ns_per_io", (maintenance_ns() + victim_selection_ns()) / ios)
      .Set("lock_wait_ns_per_io", lock_wait_ns / ios)
      .Set("interrupted_sections", interrupted_sections);
  return j;
}

namespace {

constexpr uint32_t kUnmapped = 0xffffffffu;
// Map stripes: LBA l is guarded by stripe l % kMapStripes (a power of two).
constexpr uint32_t kMapStripes = 4096;
// GC copies up to this many blocks per device write.
constexpr uint32_t kGcBatchBlocks = 64;
// Free zones a writer leaves to the cleaner (its copies need a frontier).
constexpr size_t kCleanerReserveZones = 1;
// How long GC waits for in-flight invalidations of a victim to be counted.
constexpr uint64_t kVictimDrainTimeoutNs = 10ull * 1000 * 1000 * 1000;
// FillSequential writes zeros in device writes of at most this many bytes.
constexpr uint64_t kFillChunkBytes = 1 << 20;

std::string FormatRatio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", r);
  return buf;
}

// Counts a user write from its slot reservation to the end of Write.
class InFlight {
 public:
  explicit InFlight(std::atomic<uint32_t>* n) : n_(n) {}
  ~InFlight() { n_->fetch_sub(1, std::memory_order_release); }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

 private:
  std::atomic<uint32_t>* n_;
};

// A spin lock alone on its cache line, so that neighbouring stripes do not
// share one.
struct alignas(64) StripeLock {
  SpinLock mu;
};

// The user frontier: appends reserve a slot here, then append to the zone.
struct UserFrontier {
  uint32_t zone = kNoZone;
  uint32_t reserved = 0;  // slots handed out in `zone`
};

// The GC frontier: only the cleaner writes it, at the write pointer.
struct GcFrontier {
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
        copy_buffer_(static_cast<size_t>(kGcBatchBlocks) * kFtlBlockBytes, 0),
        stripes_(kMapStripes),
        l2p_(logical_blocks_),
        p2l_(static_cast<uint64_t>(geometry_.nr_zones) * blocks_per_zone),
        zeros_(static_cast<size_t>(kGcBatchBlocks) * kFtlBlockBytes, 0),
        zones_(geometry_.nr_zones, blocks_per_zone),
        filled_(geometry_.nr_zones, 0) {
    for (auto& e : l2p_) e.store(kUnmapped, std::memory_order_relaxed);
    for (auto& e : p2l_) e.store(kUnmapped, std::memory_order_relaxed);
    for (uint32_t z = 0; z < geometry_.nr_zones; z++) free_.push_back(z);
  }

  // Before the FTL is shared (Ftl::Open); takes pmu_ for the contract's sake.
  Status Init() {
    {
      MutexLock lock(&pmu_);
      ZONEKV_RETURN_IF_ERROR(NewVictimPolicy(options_.policy, &zones_, &policy_));
    }
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
    // The block's current place, read without its stripe: only a hint for
    // prefetching what the update below will touch (the old zone's record
    // and P2L entry), so those misses overlap the slot reservation and the
    // device call instead of stalling under the stripe and policy locks.
    PrefetchForOverwrite(l2p_[lba].load(std::memory_order_relaxed));
    uint32_t zone = kNoZone;
    ZONEKV_RETURN_IF_ERROR(ReserveUserSlot(&zone));
    InFlight in_flight(&user_slots_in_flight_);
    uint64_t at = 0;
    ZONEKV_RETURN_IF_ERROR(device_->Append(zone, data ? data : zeros_.data(), kFtlBlockBytes, &at));
    const uint64_t pba = PbaAt(at);
    MutexLock stripe(&StripeOf(lba));
    const uint32_t old = l2p_[lba].load(std::memory_order_relaxed);
    l2p_[lba].store(static_cast<uint32_t>(pba), std::memory_order_relaxed);
    p2l_[pba].store(static_cast<uint32_t>(lba), std::memory_order_release);
    if (old != kUnmapped) p2l_[old].store(kUnmapped, std::memory_order_release);
    LockPolicy();
    zones_.Tick();
    if (old != kUnmapped) RemoveValidLocked(ZoneOfPba(old));
    AddValidLocked(zone);
    stats_.user_writes++;
    pmu_.unlock();
    return Status::OK();
  }

  Status Read(uint64_t lba, char* buf) override {
    ZONEKV_RETURN_IF_ERROR(CheckLba(lba, "read"));
    user_reads_.fetch_add(1, std::memory_order_relaxed);
    // The stripe keeps GC from moving the block (and resetting its zone)
    // while it is read.
    MutexLock stripe(&StripeOf(lba));
    const uint32_t pba = l2p_[lba].load(std::memory_order_relaxed);
    if (pba == kUnmapped) {
      std::memset(buf, 0, kFtlBlockBytes);
      return Status::OK();
    }
    return device_->Read(Offset(pba), kFtlBlockBytes, buf);
  }

  Status Trim(uint64_t lba) override {
    ZONEKV_RETURN_IF_ERROR(CheckLba(lba, "trim"));
    trims_.fetch_add(1, std::memory_order_relaxed);
    MutexLock stripe(&StripeOf(lba));
    const uint32_t old = l2p_[lba].load(std::memory_order_relaxed);
    if (old == kUnmapped) return Status::OK();
    l2p_[lba].store(kUnmapped, std::memory_order_relaxed);
    p2l_[old].store(kUnmapped, std::memory_order_release);
    MutexLock policy(&pmu_);
    RemoveValidLocked(ZoneOfPba(old));
    return Status::OK();
  }

  Status FillSequential() override {
    // Holding the GC lock keeps cleaners out; the precondition keeps writers
    // out (there is nothing for them to race with on a fresh FTL otherwise).
    MutexLock gc(&gc_mu_);
    {
      MutexLock frontier(&fmu_);
      MutexLock policy(&pmu_);
      if (stats_.user_writes != 0 || stats_.gc_writes != 0 || user_.zone != kNoZone) {
        return Status::InvalidArgument("FillSequential needs a fresh FTL, but " +
                                          std::to_string(stats_.user_writes) + " blocks were written already");
      }
    }
    const std::vector<char> zeros(std::min<uint64_t>(kFillChunkBytes, geometry_.zone_capacity_bytes), 0);
    uint64_t lba = 0;
    while (lba < logical_blocks_) {
      uint32_t zone = kNoZone;
      size_t left = 0;
      if (!TakeFreeZone(0, &zone, &left)) return NoFreeZone();
      const uint64_t start = static_cast<uint64_t>(zone) * geometry_.zone_size_bytes;
      for (uint64_t off = 0; off < geometry_.zone_capacity_bytes; off += zeros.size()) {
        uint64_t n = std::min<uint64_t>(zeros.size(), geometry_.zone_capacity_bytes - off);
        ZONEKV_RETURN_IF_ERROR(device_->Write(start + off, zeros.data(), n));
      }
      MutexLock policy(&pmu_);
      for (uint32_t i = 0; i < blocks_per_zone_; i++, lba++) {
        const uint64_t pba = Pba(zone, i);
        l2p_[lba].store(static_cast<uint32_t>(pba), std::memory_order_relaxed);
        p2l_[pba].store(static_cast<uint32_t>(lba), std::memory_order_relaxed);
        zones_.Tick();
        AddValidLocked(zone);
      }
      stats_.user_writes += blocks_per_zone_;
    }
    return Status::OK();
  }

  FtlStats stats() const override {
    FtlStats s;
    {
      MutexLock lock(&pmu_);
      s = stats_;
    }
    s.user_reads = user_reads_.load(std::memory_order_relaxed);
    s.trims = trims_.load(std::memory_order_relaxed);
    return s;
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
        .Set("frontiers", "one user zone (zone append, shared by all threads) and one GC zone (cleaner only)")
        .Set("map_stripes", kMapStripes)
        .Set("gc_batch_blocks", kGcBatchBlocks)
        .Set("hook_timing_period", kHookTimingPeriod)
        .Set("clock", "user block writes");
    return j;
  }

  Json MemoryJson() const override {
    MutexLock lock(&pmu_);
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
    MutexLock gc(&gc_mu_);
    MutexLock frontier(&fmu_);
    MutexLock lock(&pmu_);
    std::vector<uint32_t> valid(geometry_.nr_zones, 0);
    for (uint64_t pba = 0; pba < p2l_.size(); pba++) {
      uint32_t lba = p2l_[pba].load(std::memory_order_relaxed);
      if (lba == kUnmapped) continue;
      if (lba >= logical_blocks_ || l2p_[lba].load(std::memory_order_relaxed) != pba) {
        return Status::Corruption("physical block " + std::to_string(pba) + " claims logical block " +
                                  std::to_string(lba) + " which maps elsewhere");
      }
      valid[pba / blocks_per_zone_]++;
    }
    for (uint64_t lba = 0; lba < logical_blocks_; lba++) {
      uint32_t pba = l2p_[lba].load(std::memory_order_relaxed);
      if (pba != kUnmapped && p2l_[pba].load(std::memory_order_relaxed) != lba) {
        return Status::Corruption("logical block " + std::to_string(lba) + " maps to physical block " +
                                  std::to_string(pba) + " which does not map back");
      }
    }
    for (uint32_t z = 0; z < geometry_.nr_zones; z++) {
      if (valid[z] != zones_.valid(z)) {
        return Status::Corruption("zone " + std::to_string(z) + " holds " + std::to_string(valid[z]) +
                                  " valid blocks but its counter says " + std::to_string(zones_.valid(z)));
      }
      if ((zones_.state(z) == FtlZoneState::kFull) != (filled_[z] == blocks_per_zone_)) {
        return Status::Corruption("zone " + std::to_string(z) + " has " + std::to_string(filled_[z]) + " of " +
                                  std::to_string(blocks_per_zone_) + " blocks written but is " +
                                  (zones_.state(z) == FtlZoneState::kFull ? "" : "not ") + "marked full");
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

  SpinLock& StripeOf(uint64_t lba) const { return stripes_[lba & (kMapStripes - 1)].mu; }

  uint64_t Pba(uint32_t zone, uint32_t index) const {
    return static_cast<uint64_t>(zone) * blocks_per_zone_ + index;
  }
  uint32_t ZoneOfPba(uint64_t pba) const { return static_cast<uint32_t>(pba / blocks_per_zone_); }
  uint64_t Offset(uint64_t pba) const {
    return (pba / blocks_per_zone_) * geometry_.zone_size_bytes + (pba % blocks_per_zone_) * kFtlBlockBytes;
  }
  // The physical block at device byte offset `at`.
  uint64_t PbaAt(uint64_t at) const {
    return Pba(static_cast<uint32_t>(at / geometry_.zone_size_bytes),
               static_cast<uint32_t>((at % geometry_.zone_size_bytes) / kFtlBlockBytes));
  }

  Status NoFreeZone() const {
    return Status::NoSpace("FTL: no free zone left and GC found no zone with invalid blocks (" +
                           std::to_string(geometry_.nr_zones) + " zones, " + std::to_string(op_zones_) +
                           " over-provisioned)");
  }

  // Prefetches the P2L entry of `pba` and its zone's record (nothing if
  // kUnmapped). Reads no guarded state (it only computes addresses; the
  // table's storage never moves), hence callable without pmu_.
  void PrefetchForOverwrite(uint32_t pba) const ZONEKV_NO_THREAD_SAFETY_ANALYSIS {
    if (pba == kUnmapped) return;
    __builtin_prefetch(&p2l_[pba], 1, 3);
    zones_.Prefetch(ZoneOfPba(pba));
  }

  // Takes pmu_, timing the wait for one acquisition in kHookTimingPeriod
  // (per thread) and counting it kHookTimingPeriod times.
  void LockPolicy() ZONEKV_ACQUIRE(pmu_) {
    thread_local uint32_t tick = 0;
    if (++tick % kHookTimingPeriod != 0) {
      pmu_.lock();
      return;
    }
    uint64_t t0 = NowNs();
    pmu_.lock();
    stats_.lock_wait_ns += SectionNs(t0, NowNs()) * kHookTimingPeriod;
  }

  enum class Hook { kZoneFull, kInvalidate, kReset };

  // Calls a policy hook, timing one call in kHookTimingPeriod after an empty
  // control section (see FtlStats). REQUIRES: pmu_ held.
  void RunHook(Hook hook, uint32_t z, uint32_t old_valid) ZONEKV_REQUIRES(pmu_) {
    stats_.hook_calls++;
    const bool timed = stats_.hook_calls % kHookTimingPeriod == 0;
    uint64_t t0 = 0, t1 = 0;
    if (timed) {
      t0 = NowNs();
      t1 = NowNs();
    }
    switch (hook) {
      case Hook::kZoneFull:
        policy_->OnZoneFull(z);
        break;
      case Hook::kInvalidate:
        policy_->OnInvalidate(z, old_valid);
        break;
      case Hook::kReset:
        policy_->OnReset(z);
        break;
    }
    if (!timed) return;
    uint64_t t2 = NowNs();
    if (t2 - t1 > kInterruptedSectionNs || t1 - t0 > kInterruptedSectionNs) {
      stats_.interrupted_sections++;
    } else {
      stats_.hook_samples++;
      stats_.hook_ns += t2 - t1;
      stats_.hook_control_ns += t1 - t0;
    }
  }

  // A block of zone z became invalid. REQUIRES: pmu_ held; valid(z) > 0.
  void RemoveValidLocked(uint32_t z) ZONEKV_REQUIRES(pmu_) {
    const uint32_t old_valid = zones_.valid(z);
    zones_.RemoveValid(z);
    if (zones_.state(z) == FtlZoneState::kFull) RunHook(Hook::kInvalidate, z, old_valid);
  }

  // A slot of open zone z was written and holds a valid block.
  // REQUIRES: pmu_ held.
  void AddValidLocked(uint32_t z) ZONEKV_REQUIRES(pmu_) {
    zones_.AddValid(z);
    SlotDoneLocked(z);
  }

  // A slot of open zone z was written; the zone is a GC candidate once all
  // of its slots are. REQUIRES: pmu_ held.
  void SlotDoneLocked(uint32_t z) ZONEKV_REQUIRES(pmu_) {
    if (++filled_[z] != blocks_per_zone_) return;
    zones_.SetState(z, FtlZoneState::kFull);
    RunHook(Hook::kZoneFull, z, 0);
  }

  // Pops the oldest free zone and opens it, unless no more than `reserve`
  // zones are free; *left = free zones after the pop.
  bool TakeFreeZone(size_t reserve, uint32_t* zone, size_t* left) ZONEKV_EXCLUDES(pmu_) {
    {
      MutexLock lock(&free_mu_);
      if (free_.size() <= reserve) return false;
      *zone = free_.front();
      free_.pop_front();
      *left = free_.size();
    }
    MutexLock lock(&pmu_);
    zones_.SetState(*zone, FtlZoneState::kOpen);
    return true;
  }

  size_t FreeZones() const {
    MutexLock lock(&free_mu_);
    return free_.size();
  }

  // Hands out the next slot of the user frontier in *zone (counted in
  // user_slots_in_flight_ on success), opening a new zone when it is used up. The writer that opens a zone and leaves
  // gc_low_ or fewer free cleans, unless another thread is cleaning; a
  // writer that finds no free zone cleans or waits for the cleaner.
  Status ReserveUserSlot(uint32_t* zone) ZONEKV_EXCLUDES(fmu_, gc_mu_, pmu_) {
    for (;;) {
      bool opened = false;
      size_t left = 0;
      {
        MutexLock lock(&fmu_);
        if (user_.zone != kNoZone) {
          *zone = user_.zone;
          if (++user_.reserved == blocks_per_zone_) user_.zone = kNoZone;
          user_slots_in_flight_.fetch_add(1, std::memory_order_relaxed);
          return Status::OK();
        }
        if (TakeFreeZone(kCleanerReserveZones, zone, &left)) {
          opened = true;
          user_.reserved = 1;
          user_.zone = blocks_per_zone_ == 1 ? kNoZone : *zone;
          user_slots_in_flight_.fetch_add(1, std::memory_order_relaxed);
        }
      }
      if (opened) {
        Status s = left <= gc_low_ ? CollectGarbage(false, nullptr) : Status::OK();
        if (!s.ok()) user_slots_in_flight_.fetch_sub(1, std::memory_order_release);  // Write fails
        return s;
      }
      // No free zone for users: clean, or wait for the cleaner. Out of space
      // only when GC finds no victim while no other write is in flight (an
      // in-flight write may be about to make a zone full, hence a candidate).
      bool no_victim = false;
      ZONEKV_RETURN_IF_ERROR(CollectGarbage(true, &no_victim));
      if (no_victim && FreeZones() <= kCleanerReserveZones) {
        if (user_slots_in_flight_.load(std::memory_order_acquire) == 0) return NoFreeZone();
        std::this_thread::yield();
      }
    }
  }

  // Cleans until the free pool reaches gc_high_ or the policy has no victim
  // (then *no_victim, if given, is set). With wait=false returns at once if
  // another thread is cleaning.
  Status CollectGarbage(bool wait, bool* no_victim) ZONEKV_EXCLUDES(gc_mu_) {
    if (wait) {
      MutexLock lock(&gc_mu_);
      return CollectLocked(no_victim);
    }
    if (!gc_mu_.try_lock()) return Status::OK();
    Status s = CollectLocked(no_victim);
    gc_mu_.unlock();
    return s;
  }

  Status CollectLocked(bool* no_victim) ZONEKV_REQUIRES(gc_mu_) {
    while (FreeZones() < gc_high_) {
      uint32_t victim = kNoZone;
      // An empty control section, then the selection (see FtlStats). The
      // first read only warms the clock's path: the first of a series costs
      // more, and the control must cost what the section's reads do. The
      // control runs before the policy lock, which writers need.
      (void)ThreadCpuNs();
      const uint64_t c0 = ThreadCpuNs();
      const uint64_t c1 = ThreadCpuNs();
      {
        MutexLock lock(&pmu_);
        const uint64_t s0 = ThreadCpuNs();
        victim = policy_->SelectVictim();
        const uint64_t s1 = ThreadCpuNs();
        stats_.selection_ns += s1 - s0;
        stats_.selection_control_ns += c1 - c0;
        if (victim != kNoZone) zones_.SetState(victim, FtlZoneState::kVictim);
      }
      if (victim == kNoZone) {
        if (no_victim != nullptr) *no_victim = true;
        break;
      }
      ZONEKV_RETURN_IF_ERROR(Clean(victim));
    }
    return Status::OK();
  }

  // Moves the valid blocks of `victim` to the GC frontier, kGcBatchBlocks
  // per device write, and resets it. A block overwritten or trimmed after
  // it was copied stays behind as a dead slot of the GC zone.
  Status Clean(uint32_t victim) ZONEKV_REQUIRES(gc_mu_) {
    uint32_t lbas[kGcBatchBlocks];
    uint64_t froms[kGcBatchBlocks];
    for (uint32_t i = 0; i < blocks_per_zone_;) {
      if (gc_.zone == kNoZone) {
        size_t left = 0;
        if (!TakeFreeZone(0, &gc_.zone, &left)) return NoFreeZone();
        gc_.next = 0;
      }
      const uint32_t room = std::min(kGcBatchBlocks, blocks_per_zone_ - gc_.next);
      uint32_t n = 0;
      for (; i < blocks_per_zone_ && n < room; i++) {
        const uint64_t from = Pba(victim, i);
        const uint32_t lba = p2l_[from].load(std::memory_order_acquire);
        if (lba == kUnmapped) continue;
        lbas[n] = lba;
        froms[n++] = from;
      }
      if (n == 0) continue;
      const char* payload = zeros_.data();
      if (options_.move_payload) {
        for (uint32_t j = 0; j < n; j++) {
          ZONEKV_RETURN_IF_ERROR(
              device_->Read(Offset(froms[j]), kFtlBlockBytes, copy_buffer_.data() + size_t{j} * kFtlBlockBytes));
        }
        payload = copy_buffer_.data();
      }
      const uint32_t to_zone = gc_.zone, first = gc_.next;
      ZONEKV_RETURN_IF_ERROR(device_->Write(Offset(Pba(to_zone, first)), payload, size_t{n} * kFtlBlockBytes));
      gc_.next += n;
      if (gc_.next == blocks_per_zone_) gc_.zone = kNoZone;
      for (uint32_t j = 0; j < n; j++) {
        const uint64_t to = Pba(to_zone, first + j);
        MutexLock stripe(&StripeOf(lbas[j]));
        const bool live = p2l_[froms[j]].load(std::memory_order_relaxed) == lbas[j];
        if (live) {
          l2p_[lbas[j]].store(static_cast<uint32_t>(to), std::memory_order_relaxed);
          p2l_[to].store(lbas[j], std::memory_order_release);
          p2l_[froms[j]].store(kUnmapped, std::memory_order_release);
        }
        MutexLock policy(&pmu_);
        stats_.gc_writes++;
        if (live) {
          zones_.RemoveValid(victim);
          AddValidLocked(to_zone);
        } else {
          SlotDoneLocked(to_zone);
        }
      }
    }
    // Writers that unmapped a block of the victim before the scan reached it
    // may not have decremented its count yet (they hold its stripe, so this
    // takes microseconds; a count that stays is a bug, reported, not waited
    // on forever).
    for (uint64_t since = NowNs();;) {
      uint32_t left = 0;
      {
        MutexLock lock(&pmu_);
        left = zones_.valid(victim);
      }
      if (left == 0) break;
      if (NowNs() - since > kVictimDrainTimeoutNs) {
        return Status::Corruption("GC: zone " + std::to_string(victim) + " still counts " + std::to_string(left) +
                                  " valid blocks after all of them were moved or invalidated");
      }
      std::this_thread::yield();
    }
    ZONEKV_RETURN_IF_ERROR(device_->ResetZone(victim));
    {
      MutexLock lock(&pmu_);
      zones_.Reset(victim);
      filled_[victim] = 0;
      RunHook(Hook::kReset, victim, 0);
      stats_.gc_victims++;
      stats_.zone_resets++;
    }
    MutexLock lock(&free_mu_);
    free_.push_back(victim);
    return Status::OK();
  }

  ZonedDevice* const device_;
  const FtlOptions options_;
  const DeviceGeometry geometry_;
  const uint32_t blocks_per_zone_;
  const uint32_t op_zones_;
  const uint32_t gc_low_, gc_high_;
  const uint64_t logical_blocks_;

  // Lock order: gc_mu_, fmu_, a stripe, free_mu_, pmu_.
  mutable SpinLock gc_mu_;  // one cleaner at a time
  GcFrontier gc_ ZONEKV_GUARDED_BY(gc_mu_);
  std::vector<char> copy_buffer_ ZONEKV_GUARDED_BY(gc_mu_);  // blocks in GC transit

  mutable SpinLock fmu_;
  UserFrontier user_ ZONEKV_GUARDED_BY(fmu_);

  // l2p_[lba] and every p2l_ entry holding lba change only under lba's
  // stripe; p2l_ is read without it (GC's scan), hence the atomics.
  mutable std::vector<StripeLock> stripes_;
  std::vector<std::atomic<uint32_t>> l2p_;
  std::vector<std::atomic<uint32_t>> p2l_;
  const std::vector<char> zeros_;  // written for Write(lba, nullptr) and metadata-only GC

  mutable SpinLock free_mu_;
  std::deque<uint32_t> free_ ZONEKV_GUARDED_BY(free_mu_);  // FIFO spreads wear

  mutable SpinLock pmu_;
  ZoneTable zones_ ZONEKV_GUARDED_BY(pmu_);
  std::unique_ptr<VictimPolicy> policy_ ZONEKV_GUARDED_BY(pmu_);
  std::vector<uint32_t> filled_ ZONEKV_GUARDED_BY(pmu_);  // slots written per zone
  FtlStats stats_ ZONEKV_GUARDED_BY(pmu_);
  std::atomic<uint32_t> user_slots_in_flight_{0};  // reserved user slots not yet mapped
  std::atomic<uint64_t> user_reads_{0};
  std::atomic<uint64_t> trims_{0};
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
