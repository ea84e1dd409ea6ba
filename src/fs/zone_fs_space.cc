// ZoneFs under space pressure: the recovery reserve, recovery mode, the
// upper layer's reclaimer and the NoSpace error (docs/space.md).
#include <algorithm>
#include <chrono>
#include <thread>

#include "zone_fs_impl.h"

namespace zonekv {

namespace {

std::string MiB(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The longest one write of a flush waits for the new-data rate: a bound,
// so that a rate set too low slows RocksDB without hanging it. It bounds
// the pace from below too: a flush writes 1 MiB at a time
// (ZoneFsOptions::write_buffer_bytes), so at least 1 MiB/s gets through.
constexpr std::chrono::microseconds kMaxPaceWait(1000000);

}  // namespace

uint32_t ZoneFs::Impl::EmptyZonesLocked() const {
  uint32_t n = 0;
  for (uint32_t z = meta_zones_; z < geo_.nr_zones; z++) {
    const ZoneEntry& e = zones_[z];
    if (!e.busy() && e.wp_bytes == 0 && e.state == ZoneState::kEmpty) n++;
  }
  return n;
}

bool IsCompactionOutput(const FileRecord& f) {
  const FileKind kind = f.meta.hints.kind;
  return (kind == FileKind::kSst || kind == FileKind::kBlob) && f.meta.hints.level >= 1;
}

bool IsAwaitableCompactionOutput(const FileRecord& f) {
  // An external compactor's job runs with a thread job hint; RocksDB names
  // no level for its blob files, which otherwise count as new data.
  return IsCompactionOutput(f) || (ThreadJobHint() != nullptr && (f.meta.hints.kind == FileKind::kSst ||
                                                                  f.meta.hints.kind == FileKind::kBlob));
}

bool IsNewData(const FileRecord& f) {
  const FileKind kind = f.meta.hints.kind;
  return kind != FileKind::kManifest && kind != FileKind::kOther && !IsCompactionOutput(f);
}

uint32_t ZoneFs::Impl::ReclaimerKeptZonesLocked() const { return 1 + (reserve_zones_ > 0 ? 1 : 0); }

uint32_t ZoneFs::Impl::KeepEmptyForLocked(const FileRecord& f, bool awaited) const {
  const FileKind kind = f.meta.hints.kind;
  // Small, and RocksDB cannot go on (or recover) without them: a MANIFEST
  // write that fails puts RocksDB into a background error whose recovery
  // may abort the process (an assertion in Debian's librocksdb 7.8). They
  // may use everything but the cleaner's zone; with a reserve, every other
  // file leaves them one zone more, the last of the reserve.
  if (kind == FileKind::kManifest || kind == FileKind::kOther) return 1;
  const uint32_t metadata = reserve_zones_ > 0 ? 1 : 0;
  // The blob GC that frees space must not wait for the writers it frees it
  // for: whatever else its thread writes (the collection's outputs) may use
  // the reserve but its last zone (ReclaimerKeptZonesLocked, which the
  // collector's policy sizes its room by).
  // Nor must a compaction it waits for before it starts: the room the
  // collection would free comes only once that compaction ends.
  if (ThreadReclaiming() || awaited) return ReclaimerKeptZonesLocked();
  // A compaction's outputs replace its inputs: it frees what it takes once
  // it ends (and the collection may be waiting for its inputs), so it may
  // use the collector's room, and in recovery mode the reserve.
  if (IsCompactionOutput(f)) return 1 + (recovery_mode_ ? metadata : reserve_zones_);
  // Everything else grows the data: WALs, flushes. In recovery mode the
  // reserve is open to them; to the blob files of a flush only while a
  // reclaimer can give zones back (a flush that fails puts RocksDB into a
  // background error); without one the reserve stays for the deletes after
  // a reopen (tombstones and their flushes are SSTs).
  const bool new_blob_data = kind == FileKind::kBlob && f.meta.hints.level == 0 && reclaimer_ == nullptr;
  return 1 + blob_gc_reserve_zones_ + (recovery_mode_ && !new_blob_data ? metadata : reserve_zones_);
}

void ZoneFs::Impl::UpdateRecoveryModeLocked(bool nospace, bool at_mount) {
  if (reserve_zones_ == 0) return;
  const uint32_t empty = EmptyZonesLocked();
  if (!recovery_mode_ && (nospace || (at_mount && empty <= reserve_zones_ + 1))) {
    recovery_mode_ = true;
    counters_.recovery_entries++;
  } else if (recovery_mode_ && empty >= 2 * reserve_zones_ + 1) {
    recovery_mode_ = false;
  }
}

Status ZoneFs::Impl::NoSpaceLocked(const FileRecord& f, const std::string& why, uint64_t upper_garbage) const {
  FsView v;
  BuildViewLocked(0, ViewFiles::kNone, &v);
  const uint64_t zone_garbage = v.reclaimable_bytes();
  const uint64_t live = v.used_bytes() - std::min(v.used_bytes(), upper_garbage);
  std::string msg = "no zone for " + f.meta.name + " (" + why + "): live data " + MiB(live) + ", garbage " +
                    MiB(zone_garbage + upper_garbage) + " (" + MiB(zone_garbage) + " in zones, " + MiB(upper_garbage) +
                    " inside live files), free " + MiB(v.free_bytes());
  if (reserve_zones_ > 0) {
    msg += " (" + std::to_string(reserve_zones_) + " empty zones kept for recovery" +
           (recovery_mode_ ? ", in use" : "") + ")";
  }
  msg += ", " + std::to_string(v.active_zones) + "/" + std::to_string(v.max_active_zones) +
         " active zones; cleaning (zc=" + zc_->name() + ")" + (reclaimer_ ? " and the blob GC" : "") +
         " could not free space in time";
  return Status::NoSpace(msg);
}

void ZoneFs::Impl::SetSpaceReclaimer(std::shared_ptr<SpaceReclaimer> reclaimer) {
  std::shared_ptr<SpaceReclaimer> old;  // released after mu_ (declared before the lock)
  MutexLock l(&mu_);
  old = std::move(reclaimer_);
  reclaimer_ = std::move(reclaimer);
  reclaimer_cv_.wait(l, [this]() ZONEKV_REQUIRES(mu_) { return reclaimer_calls_ == 0; });
}

std::shared_ptr<SpaceReclaimer> ZoneFs::Impl::BeginReclaimerCallLocked() {
  if (reclaimer_ == nullptr) return nullptr;
  reclaimer_calls_++;
  return reclaimer_;
}

void ZoneFs::Impl::EndReclaimerCallLocked() {
  if (--reclaimer_calls_ == 0) reclaimer_cv_.notify_all();
}

void ZoneFs::Impl::SetNewDataRate(uint64_t bytes_per_sec) {
  MutexLock l(&pace_mu_);
  if (bytes_per_sec != 0 && new_data_rate_.load() == 0) {
    pace_tokens_ = 0;
    pace_at_ = std::chrono::steady_clock::now();
  }
  new_data_rate_ = bytes_per_sec;
}

void ZoneFs::Impl::PaceNewData(FileRecord* f, uint64_t bytes) {
  if (ThreadReclaiming()) return;
  {
    MutexLock l(&mu_);
    const FileKind kind = f->meta.hints.kind;
    if (!((kind == FileKind::kSst || kind == FileKind::kBlob) && f->meta.hints.level == 0)) return;
  }
  std::chrono::microseconds wait(0);
  {
    MutexLock l(&pace_mu_);
    const uint64_t rate = new_data_rate_.load();
    if (rate == 0) return;
    const auto now = std::chrono::steady_clock::now();
    const double elapsed_s = std::chrono::duration<double>(now - pace_at_).count();
    pace_at_ = now;
    // At most a tenth of a second of credit: an idle spell does not let a
    // burst through.
    pace_tokens_ = std::min(pace_tokens_ + elapsed_s * static_cast<double>(rate), 0.1 * static_cast<double>(rate));
    pace_tokens_ -= static_cast<double>(bytes);
    if (pace_tokens_ < 0) {
      wait = std::min(kMaxPaceWait, std::chrono::microseconds(static_cast<int64_t>(-pace_tokens_ / rate * 1e6)));
      paced_writes_++;
      pace_wait_us_ += static_cast<uint64_t>(wait.count());
      // Debt beyond one longest wait is forgiven: a rate that rises later
      // is not held back by waits the bound cut short.
      pace_tokens_ = std::max(pace_tokens_, -static_cast<double>(rate) * 1e-6 * kMaxPaceWait.count());
    }
  }
  if (wait.count() > 0) std::this_thread::sleep_for(wait);
}

void ZoneFs::Impl::SetBlobGcTarget(uint64_t max_number, uint64_t reserve_bytes) {
  MutexLock l(&mu_);
  blob_gc_target_ = max_number;
  blob_gc_reserve_zones_ = geo_.zone_capacity_bytes == 0
                               ? 0
                               : static_cast<uint32_t>((reserve_bytes + geo_.zone_capacity_bytes - 1) /
                                                       geo_.zone_capacity_bytes);
  zone_cv_.notify_all();  // a reservation that ends may let waiting writers in
}

}  // namespace zonekv
