// ZoneFs under space pressure: the recovery reserve, recovery mode, the
// upper layer's reclaimer and the NoSpace error (docs/space.md).
#include <algorithm>

#include "zone_fs_impl.h"

namespace zonekv {

namespace {

std::string MiB(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

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

uint32_t ZoneFs::Impl::KeepEmptyForLocked(const FileRecord& f) const {
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
  // the reserve.
  if (ThreadReclaiming()) return 1 + metadata;
  // A compaction's outputs replace its inputs: it frees what it takes once
  // it ends (and the collection may be waiting for its inputs), so it may
  // use the collector's room, and in recovery mode the reserve.
  if (IsCompactionOutput(f)) return 1 + (recovery_mode_ ? metadata : reserve_zones_);
  // Everything else grows the data: WALs, flushes. In recovery mode the
  // reserve is open to them but to the blob files of a flush (new data);
  // tombstones and a recovery flush are SSTs.
  const bool new_blob_data = kind == FileKind::kBlob && f.meta.hints.level == 0;
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
  MutexLock l(&mu_);
  reclaimer_ = std::move(reclaimer);
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
