#include "zonekv/zbd_device.h"

#include <fcntl.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "zbd_sysfs.h"
#include "zonekv/mutex.h"

namespace zonekv {

namespace {

constexpr uint64_t kSector = 512;          // unit of every kernel zone position
constexpr size_t kBounceBytes = 1 << 20;   // largest copy through an aligned buffer
constexpr uint32_t kReportBatch = 1024;    // zones per BLKREPORTZONE call

std::string ErrnoText(int err) { return std::strerror(err); }

// Memory aligned for O_DIRECT, freed with std::free.
struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<char, FreeDeleter>;

// For I/O of n bytes (a multiple of `alignment`) at `buf`: nothing if `buf`
// is aligned (O_DIRECT takes it as it is), else an aligned bounce buffer of
// up to kBounceBytes in *bounce. Returns 0, or ENOMEM.
int BounceFor(const void* buf, size_t n, size_t alignment, AlignedBuffer* bounce) {
  if (reinterpret_cast<uintptr_t>(buf) % alignment == 0) return 0;
  bounce->reset(static_cast<char*>(std::aligned_alloc(alignment, std::min(n, kBounceBytes))));
  return *bounce ? 0 : ENOMEM;
}

ZoneState StateFromCond(uint8_t cond) {
  switch (cond) {
    case BLK_ZONE_COND_EMPTY: return ZoneState::kEmpty;
    case BLK_ZONE_COND_IMP_OPEN: return ZoneState::kImplicitOpen;
    case BLK_ZONE_COND_EXP_OPEN: return ZoneState::kExplicitOpen;
    case BLK_ZONE_COND_CLOSED: return ZoneState::kClosed;
    case BLK_ZONE_COND_READONLY: return ZoneState::kReadOnly;
    case BLK_ZONE_COND_FULL: return ZoneState::kFull;
    default: return ZoneState::kOffline;  // BLK_ZONE_COND_OFFLINE; NOT_WP is refused at open
  }
}

// Reads the kernel's zone report for zones [first, end) of the device open
// as `fd` (`name` for messages; zones of `zone_sectors` 512-byte sectors).
// Full zones get wp = start + capacity; reset_count is left 0.
Status ReportZoneRange(int fd, const std::string& name, uint64_t zone_sectors, uint32_t first, uint32_t end,
                       std::vector<ZoneInfo>* zones) {
  const size_t bytes = sizeof(blk_zone_report) + kReportBatch * sizeof(blk_zone);
  std::unique_ptr<char[]> mem(new char[bytes]);
  auto* report = reinterpret_cast<blk_zone_report*>(mem.get());
  for (uint32_t z = first; z < end;) {
    std::memset(report, 0, sizeof(*report));
    report->sector = uint64_t{z} * zone_sectors;
    report->nr_zones = std::min(kReportBatch, end - z);
    if (ioctl(fd, BLKREPORTZONE, report) != 0) {
      return Status::IOError(name + ": zone report from zone " + std::to_string(z) + " failed: " + ErrnoText(errno));
    }
    if (report->nr_zones == 0) {
      return Status::IOError(name + ": zone report from zone " + std::to_string(z) + " returned no zones");
    }
    for (uint32_t i = 0; i < report->nr_zones && z < end; i++, z++) {
      const blk_zone& bz = report->zones[i];
      if (bz.type != BLK_ZONE_TYPE_SEQWRITE_REQ || bz.cond == BLK_ZONE_COND_NOT_WP) {
        return Status::NotSupported(name + ": zone " + std::to_string(z) +
                                    " is not sequential-write-required (type " + std::to_string(bz.type) +
                                    "); zonekv needs a device whose zones all are");
      }
      ZoneInfo info;
      info.id = z;
      info.start_bytes = bz.start * kSector;
      info.size_bytes = bz.len * kSector;
      info.capacity_bytes = (report->flags & BLK_ZONE_REP_CAPACITY) ? bz.capacity * kSector : info.size_bytes;
      info.state = StateFromCond(bz.cond);
      info.wp_bytes = info.state == ZoneState::kFull ? info.start_bytes + info.capacity_bytes : bz.wp * kSector;
      zones->push_back(info);
    }
  }
  return Status::OK();
}

class ZbdDevice final : public ZonedDevice {
 public:
  ZbdDevice(std::string path, int fd, const DeviceGeometry& geometry, const std::vector<ZoneInfo>& zones)
      : path_(std::move(path)),
        fd_(fd),
        geometry_(geometry),
        zone_sectors_(geometry.zone_size_bytes / kSector),
        zones_(new ZoneSlot[geometry.nr_zones]),
        reset_counts_(geometry.nr_zones, 0) {
    for (const ZoneInfo& z : zones) zones_[z.id].wp.store(z.wp_bytes);
  }
  ~ZbdDevice() override { ::close(fd_); }

  const DeviceGeometry& geometry() const override { return geometry_; }
  std::string name() const override { return "zbd:" + path_; }

  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override;
  Status Read(uint64_t offset_bytes, size_t n_bytes, char* buf) override;
  Status Write(uint64_t offset_bytes, const char* data, size_t n_bytes) override;
  Status Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) override;
  Status OpenZone(uint32_t zone) override;
  Status CloseZone(uint32_t zone) override;
  Status FinishZone(uint32_t zone) override;
  Status ResetZone(uint32_t zone) override;
  Status Flush() override;
  DeviceCounters counters() const override {
    MutexLock l(&mu_);
    return counters_;
  }

 private:
  struct ZoneSlot {
    Mutex mu;                    // serializes commands that move this zone's write pointer
    std::atomic<uint64_t> wp{0}; // absolute byte offset; stored after the data is on the device
  };
  enum class MgmtOp { kOpen, kClose, kFinish, kReset };

  // The kernel's report of zones [first, first + count), clamped; no reset counts.
  Status ReportRaw(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) const {
    const uint32_t end = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{first} + count, geometry_.nr_zones));
    return ReportZoneRange(fd_, name(), zone_sectors_, first, end, zones);
  }
  std::string ZoneName(uint32_t zone) const { return name() + ": zone " + std::to_string(zone); }
  Status CheckAligned(uint64_t offset_bytes, uint64_t n_bytes, const char* op) const;
  // Writes at `offset_bytes` in `zone`. REQUIRES: zones_[zone].mu held.
  Status WriteLocked(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes)
      ZONEKV_REQUIRES(zones_[zone].mu);
  // The Status for a write to `zone` that the device rejected (err != 0, the
  // kernel's errno) or that must not be issued because it crosses the zone
  // capacity (err == 0). Refreshes the zone's tracked write pointer.
  // REQUIRES: zones_[zone].mu held.
  Status WriteError(uint32_t zone, uint64_t offset_bytes, size_t n_bytes, int err) ZONEKV_REQUIRES(zones_[zone].mu);
  Status Manage(uint32_t zone, MgmtOp op);
  // TooManyActive if `zone` is empty and max_active zones are already active;
  // `op` names the command in the message. The device would reject the
  // command too, but QEMU 7.2 first auto-closes an implicitly open zone, so
  // the rejected command would change another zone's state.
  // REQUIRES: zones_[zone].mu held.
  Status CheckActiveLimit(uint32_t zone, const char* op) const ZONEKV_REQUIRES(zones_[zone].mu);
  // pread/pwrite of whole blocks at `offset`, through an aligned bounce
  // buffer when `buf` is not aligned. Returns 0 or the errno; *done is the
  // number of bytes transferred before an error.
  int ReadBlocks(uint64_t offset, size_t n, char* buf) const;
  int WriteBlocks(uint64_t offset, size_t n, const char* buf, size_t* done) const;

  const std::string path_;
  const int fd_;
  const DeviceGeometry geometry_;
  const uint64_t zone_sectors_;
  std::unique_ptr<ZoneSlot[]> zones_;
  mutable Mutex mu_;
  std::vector<uint64_t> reset_counts_ ZONEKV_GUARDED_BY(mu_);
  DeviceCounters counters_ ZONEKV_GUARDED_BY(mu_);
};

Status ZbdDevice::CheckAligned(uint64_t offset_bytes, uint64_t n_bytes, const char* op) const {
  ZONEKV_RETURN_IF_ERROR(geometry_.CheckAligned(offset_bytes, n_bytes, op));
  // The kernel rejects a command past the end with a bare EINVAL: say why.
  const uint64_t dev = geometry_.device_bytes();
  if (n_bytes > dev - offset_bytes) {
    return Status::InvalidArgument(std::string(op) + " of " + std::to_string(n_bytes) + " bytes at offset " +
                                   std::to_string(offset_bytes) + " extends past the end of the device (" +
                                   std::to_string(dev) + " bytes)");
  }
  return Status::OK();
}

Status ZbdDevice::ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) {
  const size_t before = zones->size();
  ZONEKV_RETURN_IF_ERROR(ReportRaw(first, count, zones));
  MutexLock l(&mu_);
  for (size_t i = before; i < zones->size(); i++) (*zones)[i].reset_count = reset_counts_[(*zones)[i].id];
  return Status::OK();
}

int ZbdDevice::ReadBlocks(uint64_t offset, size_t n, char* buf) const {
  AlignedBuffer bounce;
  if (int err = BounceFor(buf, n, geometry_.block_size, &bounce); err != 0) return err;
  const bool aligned = bounce == nullptr;
  size_t done = 0;
  while (done < n) {
    const size_t want = aligned ? n - done : std::min(n - done, kBounceBytes);
    char* dst = aligned ? buf + done : bounce.get();
    const ssize_t r = ::pread(fd_, dst, want, static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return EIO;  // end of device inside a checked range: the device shrank
    if (!aligned) std::memcpy(buf + done, bounce.get(), static_cast<size_t>(r));
    done += static_cast<size_t>(r);
  }
  return 0;
}

int ZbdDevice::WriteBlocks(uint64_t offset, size_t n, const char* buf, size_t* done) const {
  AlignedBuffer bounce;
  if (int err = BounceFor(buf, n, geometry_.block_size, &bounce); err != 0) return err;
  const bool aligned = bounce == nullptr;
  *done = 0;
  while (*done < n) {
    const size_t want = aligned ? n - *done : std::min(n - *done, kBounceBytes);
    const char* src = buf + *done;
    if (!aligned) {
      std::memcpy(bounce.get(), src, want);
      src = bounce.get();
    }
    const ssize_t r = ::pwrite(fd_, src, want, static_cast<off_t>(offset + *done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return EIO;
    *done += static_cast<size_t>(r);
  }
  return 0;
}

Status ZbdDevice::Read(uint64_t offset_bytes, size_t n_bytes, char* buf) {
  if (n_bytes == 0) return Status::OK();
  ZONEKV_RETURN_IF_ERROR(CheckAligned(offset_bytes, n_bytes, "read"));
  const DeviceGeometry& g = geometry_;
  const uint64_t end = offset_bytes + n_bytes;
  for (uint64_t off = offset_bytes; off < end;) {
    const uint32_t z = ZoneOf(off);
    const uint64_t rel = off - uint64_t{z} * g.zone_size_bytes;
    const uint64_t chunk = std::min(end - off, g.zone_size_bytes - rel);
    if (rel + chunk > g.zone_capacity_bytes) {
      return Status::Zone(Status::Code::kZoneBoundary,
                          ZoneName(z) + ": read of " + std::to_string(n_bytes) + " bytes at offset " +
                              std::to_string(offset_bytes) + " reaches past the zone capacity (" +
                              std::to_string(g.zone_capacity_bytes) + " bytes)");
    }
    off += chunk;
  }
  for (uint64_t off = offset_bytes; off < end;) {
    const uint32_t z = ZoneOf(off);
    const uint64_t zone_start = uint64_t{z} * g.zone_size_bytes;
    const uint64_t chunk = std::min(end - off, zone_start + g.zone_size_bytes - off);
    // Only bytes below the write pointer come from the device; the rest are
    // zeros whatever the device would return for unwritten blocks.
    const uint64_t wp = zones_[z].wp.load(std::memory_order_acquire);
    const uint64_t visible = wp > off ? std::min(chunk, wp - off) : 0;
    char* out = buf + (off - offset_bytes);
    if (visible > 0) {
      if (const int err = ReadBlocks(off, visible, out); err != 0) {
        std::vector<ZoneInfo> info;
        if (ReportRaw(z, 1, &info).ok() && !info.empty() && info[0].state == ZoneState::kOffline) {
          return Status::Zone(Status::Code::kZoneOffline, ZoneName(z) + " is offline");
        }
        return Status::IOError(ZoneName(z) + ": read of " + std::to_string(visible) + " bytes at offset " +
                               std::to_string(off) + " failed: " + ErrnoText(err));
      }
    }
    std::memset(out + visible, 0, chunk - visible);
    off += chunk;
  }
  MutexLock l(&mu_);
  counters_.reads++;
  counters_.host_read_bytes += n_bytes;
  return Status::OK();
}

Status ZbdDevice::WriteError(uint32_t zone, uint64_t offset_bytes, size_t n_bytes, int err) {
  std::vector<ZoneInfo> info;
  Status s = ReportRaw(zone, 1, &info);
  if (!s.ok()) return s;
  const ZoneInfo& zi = info[0];
  zones_[zone].wp.store(zi.wp_bytes, std::memory_order_release);
  // The order of the checks is the emulator's (zoned_device.h contract).
  switch (zi.state) {
    case ZoneState::kOffline:
      return Status::Zone(Status::Code::kZoneOffline, ZoneName(zone) + " is offline");
    case ZoneState::kReadOnly:
      return Status::Zone(Status::Code::kZoneReadOnly, ZoneName(zone) + " is read-only");
    case ZoneState::kFull:
      return Status::Zone(Status::Code::kZoneFull, ZoneName(zone) + " is full; reset it before writing");
    default:
      break;
  }
  if (offset_bytes != zi.wp_bytes) {
    return Status::Zone(Status::Code::kZoneInvalidWrite, ZoneName(zone) + ": write at offset " +
                                                             std::to_string(offset_bytes) +
                                                             " is not at the write pointer " +
                                                             std::to_string(zi.wp_bytes));
  }
  if (offset_bytes + n_bytes > zi.start_bytes + zi.capacity_bytes) {
    return Status::Zone(Status::Code::kZoneBoundary,
                        ZoneName(zone) + ": write of " + std::to_string(n_bytes) + " bytes at offset " +
                            std::to_string(offset_bytes) + " crosses the zone capacity (" +
                            std::to_string(zi.start_bytes + zi.capacity_bytes - offset_bytes) + " bytes left)");
  }
  if (err == EOVERFLOW) {
    return Status::Zone(Status::Code::kTooManyActive,
                        ZoneName(zone) + ": writing would exceed the device's max_active " +
                            std::to_string(geometry_.max_active_zones) + " (finish or reset an active zone first)");
  }
  if (err == ETOOMANYREFS) {
    return Status::Zone(Status::Code::kTooManyOpen,
                        ZoneName(zone) + ": writing would exceed the device's max_open " +
                            std::to_string(geometry_.max_open_zones) + " (close a zone first)");
  }
  return Status::IOError(ZoneName(zone) + ": write of " + std::to_string(n_bytes) + " bytes at offset " +
                         std::to_string(offset_bytes) + " failed: " + ErrnoText(err == 0 ? EIO : err));
}

Status ZbdDevice::WriteLocked(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes) {
  const uint64_t cap_end = uint64_t{zone} * geometry_.zone_size_bytes + geometry_.zone_capacity_bytes;
  // The kernel splits a write at the zone boundary; the device would then
  // accept the part in the next zone. Such a write is never issued.
  if (offset_bytes + n_bytes > cap_end) return WriteError(zone, offset_bytes, n_bytes, 0);
  if (offset_bytes == uint64_t{zone} * geometry_.zone_size_bytes) {
    ZONEKV_RETURN_IF_ERROR(CheckActiveLimit(zone, "writing"));
  }
  size_t done = 0;
  const int err = WriteBlocks(offset_bytes, n_bytes, data, &done);
  if (err != 0) {
    if (done > 0) {
      MutexLock l(&mu_);
      counters_.host_write_bytes += done;
    }
    return WriteError(zone, offset_bytes, n_bytes, err);
  }
  zones_[zone].wp.store(offset_bytes + n_bytes, std::memory_order_release);
  MutexLock l(&mu_);
  counters_.writes++;
  counters_.host_write_bytes += n_bytes;
  return Status::OK();
}

Status ZbdDevice::Write(uint64_t offset_bytes, const char* data, size_t n_bytes) {
  ZONEKV_RETURN_IF_ERROR(CheckAligned(offset_bytes, n_bytes, "write"));
  if (n_bytes == 0) return Status::InvalidArgument("write at offset " + std::to_string(offset_bytes) + " has length 0");
  const uint32_t zone = ZoneOf(offset_bytes);
  MutexLock zl(&zones_[zone].mu);
  return WriteLocked(zone, offset_bytes, data, n_bytes);
}

Status ZbdDevice::Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) {
  ZONEKV_RETURN_IF_ERROR(geometry_.CheckZoneId(zone, "append"));
  if (n_bytes == 0 || n_bytes % geometry_.block_size != 0) {
    return Status::InvalidArgument("append of " + std::to_string(n_bytes) + " bytes to " + ZoneName(zone) +
                                   ": length must be a positive multiple of the block size " +
                                   std::to_string(geometry_.block_size));
  }
  MutexLock zl(&zones_[zone].mu);
  const uint64_t at = zones_[zone].wp.load(std::memory_order_relaxed);
  ZONEKV_RETURN_IF_ERROR(WriteLocked(zone, at, data, n_bytes));
  *written_at_bytes = at;
  return Status::OK();
}

Status ZbdDevice::CheckActiveLimit(uint32_t zone, const char* op) const {
  if (geometry_.max_active_zones == 0) return Status::OK();
  std::vector<ZoneInfo> all;
  ZONEKV_RETURN_IF_ERROR(ReportRaw(0, geometry_.nr_zones, &all));
  if (all[zone].state != ZoneState::kEmpty) return Status::OK();
  const auto active = std::count_if(all.begin(), all.end(), [](const ZoneInfo& z) { return IsActive(z.state); });
  if (static_cast<uint64_t>(active) < geometry_.max_active_zones) return Status::OK();
  return Status::Zone(Status::Code::kTooManyActive,
                      ZoneName(zone) + ": " + op + " would exceed the device's max_active " +
                          std::to_string(geometry_.max_active_zones) + " (finish or reset an active zone first)");
}

Status ZbdDevice::Manage(uint32_t zone, MgmtOp op) {
  static const char* const kOpNames[] = {"open", "close", "finish", "reset"};
  const char* op_name = kOpNames[static_cast<int>(op)];
  ZONEKV_RETURN_IF_ERROR(geometry_.CheckZoneId(zone, op_name));
  MutexLock zl(&zones_[zone].mu);
  std::vector<ZoneInfo> before;
  ZONEKV_RETURN_IF_ERROR(ReportRaw(zone, 1, &before));
  const ZoneState from = before[0].state;
  if (op == MgmtOp::kOpen) ZONEKV_RETURN_IF_ERROR(CheckActiveLimit(zone, op_name));

  blk_zone_range range{};
  range.sector = uint64_t{zone} * zone_sectors_;
  range.nr_sectors = zone_sectors_;
  static const unsigned long kRequests[] = {BLKOPENZONE, BLKCLOSEZONE, BLKFINISHZONE, BLKRESETZONE};
  if (ioctl(fd_, kRequests[static_cast<int>(op)], &range) != 0) {
    const int err = errno;
    // A rejected command changes nothing, so `from` is still the zone's state.
    if (from == ZoneState::kOffline) return Status::Zone(Status::Code::kZoneOffline, ZoneName(zone) + " is offline");
    if (from == ZoneState::kReadOnly) {
      static const char* const kDone[] = {"opened", "closed", "finished", "reset"};
      return Status::Zone(op == MgmtOp::kOpen || op == MgmtOp::kClose ? Status::Code::kInvalidTransition
                                                                         : Status::Code::kZoneReadOnly,
                          ZoneName(zone) + " is read-only and cannot be " + kDone[static_cast<int>(op)]);
    }
    if (err == EOVERFLOW) {
      return Status::Zone(Status::Code::kTooManyActive,
                          ZoneName(zone) + ": " + op_name + " would exceed the device's max_active " +
                              std::to_string(geometry_.max_active_zones) + " (finish or reset an active zone first)");
    }
    if (err == ETOOMANYREFS) {
      return Status::Zone(Status::Code::kTooManyOpen,
                          ZoneName(zone) + ": " + op_name + " would exceed the device's max_open " +
                              std::to_string(geometry_.max_open_zones) + " (close a zone first)");
    }
    if (err == EIO) {
      return Status::Zone(Status::Code::kInvalidTransition, ZoneName(zone) + " is " + ZoneStateName(from) +
                                                                "; the device refused to " + op_name + " it");
    }
    return Status::IOError(ZoneName(zone) + ": " + op_name + " failed: " + ErrnoText(err));
  }

  std::vector<ZoneInfo> after;
  ZONEKV_RETURN_IF_ERROR(ReportRaw(zone, 1, &after));
  zones_[zone].wp.store(after[0].wp_bytes, std::memory_order_release);
  const ZoneState to = after[0].state;
  MutexLock l(&mu_);
  if (to != from) counters_.transitions++;
  switch (op) {
    case MgmtOp::kOpen:
      if (!IsOpen(from) && IsOpen(to)) counters_.opens++;
      break;
    case MgmtOp::kClose:
      if (IsOpen(from) && !IsOpen(to)) counters_.closes++;
      break;
    case MgmtOp::kFinish:
      if (from != ZoneState::kFull) counters_.finishes++;
      break;
    case MgmtOp::kReset:
      if (from != ZoneState::kEmpty) {
        counters_.resets++;
        reset_counts_[zone]++;
      }
      break;
  }
  return Status::OK();
}

Status ZbdDevice::OpenZone(uint32_t zone) { return Manage(zone, MgmtOp::kOpen); }
Status ZbdDevice::CloseZone(uint32_t zone) { return Manage(zone, MgmtOp::kClose); }
Status ZbdDevice::FinishZone(uint32_t zone) { return Manage(zone, MgmtOp::kFinish); }
Status ZbdDevice::ResetZone(uint32_t zone) { return Manage(zone, MgmtOp::kReset); }

Status ZbdDevice::Flush() {
  if (::fdatasync(fd_) != 0) return Status::IOError(name() + ": flush failed: " + ErrnoText(errno));
  return Status::OK();
}

// The sysfs queue directory of the block device `st` describes.
std::string QueueDir(const struct stat& st) {
  return "/sys/dev/block/" + std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev)) +
         "/queue";
}

Status OpenExclusive(const std::string& path, int* fd) {
  *fd = ::open(path.c_str(), O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
  if (*fd >= 0) return Status::OK();
  const int err = errno;
  if (err == EBUSY) {
    return Status::Busy(path + " is in use (mounted, or opened exclusively by another process); unmount it or "
                        "stop the other user first");
  }
  if (err == EACCES || err == EPERM) {
    return Status::IOError("permission denied opening " + path +
                           " for writing; run as root or as a member of the device's group (ls -l " + path + ")");
  }
  return Status::IOError("cannot open " + path + ": " + ErrnoText(err));
}

}  // namespace

Status OpenZbdDevice(const std::string& path, std::unique_ptr<ZonedDevice>* device) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + " does not exist (expected a zoned block device such as /dev/nvme0n1)");
    return Status::IOError("cannot stat " + path + ": " + ErrnoText(err));
  }
  if (!S_ISBLK(st.st_mode)) {
    return Status::InvalidArgument(path + " is not a zoned block device (it is not a block device at all)");
  }
  const std::string queue_dir = QueueDir(st);
  struct stat qst;
  if (::stat(queue_dir.c_str(), &qst) != 0) {
    return Status::InvalidArgument(path + " is not a zoned block device (" + queue_dir +
                                   " is missing; is it a partition? zoned devices cannot be partitioned)");
  }
  ZbdQueueInfo q;
  ZONEKV_RETURN_IF_ERROR(ReadZbdQueueInfo(queue_dir, path, &q));

  int fd = -1;
  ZONEKV_RETURN_IF_ERROR(OpenExclusive(path, &fd));
  // Closes `fd` on every error return below.
  std::unique_ptr<int, void (*)(int*)> fd_guard(&fd, [](int* f) { ::close(*f); });

  DeviceGeometry g;
  g.block_size = q.logical_block_size;
  g.zone_size_bytes = q.zone_size_bytes;
  g.nr_zones = q.nr_zones;
  g.max_open_zones = q.max_open_zones;
  g.max_active_zones = q.max_active_zones;
  // Open zones are active zones, so a device that limits only active zones
  // limits open zones to the same number.
  if (g.max_open_zones == 0 && g.max_active_zones != 0) g.max_open_zones = g.max_active_zones;

  uint64_t device_bytes = 0;
  if (ioctl(fd, BLKGETSIZE64, &device_bytes) != 0) {
    return Status::IOError("cannot read the size of " + path + ": " + ErrnoText(errno));
  }
  if (g.zone_size_bytes == 0 || g.nr_zones == 0 || device_bytes != g.zone_size_bytes * g.nr_zones) {
    return Status::NotSupported(path + ": " + std::to_string(device_bytes) + " bytes are not " +
                                std::to_string(g.nr_zones) + " zones of " + std::to_string(g.zone_size_bytes) +
                                " bytes (a smaller last zone is not supported)");
  }
  std::vector<ZoneInfo> zones;
  ZONEKV_RETURN_IF_ERROR(ReportZoneRange(fd, "zbd:" + path, g.zone_size_bytes / kSector, 0, g.nr_zones, &zones));
  g.zone_capacity_bytes = zones[0].capacity_bytes;
  for (const ZoneInfo& z : zones) {
    if (z.size_bytes != g.zone_size_bytes || z.capacity_bytes != g.zone_capacity_bytes) {
      return Status::NotSupported(path + ": zone " + std::to_string(z.id) + " has size " +
                                  std::to_string(z.size_bytes) + " and capacity " + std::to_string(z.capacity_bytes) +
                                  ", zone 0 " + std::to_string(g.zone_size_bytes) + " and " +
                                  std::to_string(g.zone_capacity_bytes) +
                                  "; zonekv needs zones of one size and capacity");
    }
  }
  ZONEKV_RETURN_IF_ERROR(g.Validate());
  fd_guard.release();
  *device = std::make_unique<ZbdDevice>(path, fd, g, zones);
  return Status::OK();
}

}  // namespace zonekv
