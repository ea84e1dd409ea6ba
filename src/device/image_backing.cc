// Image-file backing of EmulatedDevice, and EmulatedDevice::CreateImage /
// OpenImage. The layout is described in image_format.h.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "backing.h"
#include "zonekv/crc32c.h"
#include "image_format.h"
#include "zonekv/emulated_device.h"

namespace zonekv {

namespace {

void PutU32(char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void PutU64(char* p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(what + " " + path + ": " + std::strerror(errno));
}

uint64_t DataOffset(uint32_t nr_zones) {
  uint64_t end = image::kHeaderBytes + image::kEntryBytes * nr_zones;
  return (end + image::kDataAlignment - 1) / image::kDataAlignment * image::kDataAlignment;
}

uint64_t ImageBytes(const DeviceGeometry& g) { return DataOffset(g.nr_zones) + g.capacity_bytes(); }

void EncodeEntry(uint32_t zone, const PersistedZone& e, char* out) {
  std::memset(out, 0, image::kEntryBytes);
  PutU64(out, e.wp_offset_bytes);
  PutU64(out + 8, e.reset_count);
  out[16] = static_cast<char>(e.state);
  PutU32(out + 20, zone);
  PutU32(out + 24, Crc32c(out, image::kEntryChecksummedBytes));
}

Status PwriteAll(int fd, const char* data, size_t n, uint64_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t r = pwrite(fd, data, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write", path);
    }
    data += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return Status::OK();
}

// Reads exactly n bytes; a short read means the file ended early.
Status PreadAll(int fd, char* buf, size_t n, uint64_t offset, const std::string& path, bool* short_read) {
  *short_read = false;
  while (n > 0) {
    ssize_t r = pread(fd, buf, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot read", path);
    }
    if (r == 0) {
      *short_read = true;
      return Status::OK();
    }
    buf += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return Status::OK();
}

// Takes the image's exclusive lock; Busy if another open file holds it.
Status Lock(int fd, const std::string& path) {
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return Status::OK();
  if (errno == EWOULDBLOCK) return Status::Busy("image " + path + " is in use by another process");
  return Errno("cannot lock", path);
}

// Closes the descriptor unless released.
class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) close(fd_);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

class FileBacking final : public DeviceBacking {
 public:
  FileBacking(int fd, std::string path, const DeviceGeometry& g)
      : fd_(fd), path_(std::move(path)), zone_cap_(g.zone_capacity_bytes), data_offset_(DataOffset(g.nr_zones)) {}
  ~FileBacking() override { close(fd_); }  // also drops the flock

  std::string name() const override { return "file:" + path_; }

  Status Read(uint32_t zone, uint64_t offset_bytes, size_t n_bytes, char* buf) override {
    bool short_read;
    ZONEKV_RETURN_IF_ERROR(PreadAll(fd_, buf, n_bytes, DataAt(zone, offset_bytes), path_, &short_read));
    if (short_read) {
      return Status::Corruption("image " + path_ + " ended inside zone " + std::to_string(zone) + "'s data");
    }
    return Status::OK();
  }
  Status Write(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes) override {
    return PwriteAll(fd_, data, n_bytes, DataAt(zone, offset_bytes), path_);
  }
  Status Zero(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes) override {
    uint64_t at = DataAt(zone, offset_bytes);
    if (fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(at),
                  static_cast<off_t>(n_bytes)) == 0) {
      return Status::OK();
    }
    if (errno != EOPNOTSUPP) return Errno("cannot punch a hole in", path_);
    std::vector<char> zeros(std::min<uint64_t>(n_bytes, 1 << 20), 0);
    for (uint64_t done = 0; done < n_bytes;) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(zeros.size(), n_bytes - done));
      ZONEKV_RETURN_IF_ERROR(PwriteAll(fd_, zeros.data(), n, at + done, path_));
      done += n;
    }
    return Status::OK();
  }
  Status Discard(uint32_t zone) override { return Zero(zone, 0, zone_cap_); }
  Status PersistZone(uint32_t zone, const PersistedZone& entry) override {
    char buf[image::kEntryBytes];
    EncodeEntry(zone, entry, buf);
    return PwriteAll(fd_, buf, sizeof(buf), image::kHeaderBytes + image::kEntryBytes * zone, path_);
  }
  Status Sync() override {
    if (fdatasync(fd_) != 0) return Errno("cannot fdatasync", path_);
    return Status::OK();
  }

 private:
  uint64_t DataAt(uint32_t zone, uint64_t offset_bytes) const { return data_offset_ + zone * zone_cap_ + offset_bytes; }

  const int fd_;
  const std::string path_;
  const uint64_t zone_cap_;
  const uint64_t data_offset_;
};

Status DecodeHeader(const char* h, const std::string& path, DeviceGeometry* g) {
  if (std::memcmp(h, image::kMagic, sizeof(image::kMagic)) != 0) {
    return Status::Corruption(path + " is not a zonekv device image (bad magic; create one with zonekv device create)");
  }
  uint32_t version = GetU32(h + 8);
  if (version != image::kFormatVersion) {
    return Status::Corruption("image " + path + " has format version " + std::to_string(version) +
                              "; this build reads version " + std::to_string(image::kFormatVersion));
  }
  if (GetU32(h + 64) != Crc32c(h, image::kHeaderChecksummedBytes)) {
    return Status::Corruption("image " + path + ": header checksum mismatch (the header is damaged)");
  }
  g->block_size = GetU32(h + 12);
  g->zone_size_bytes = GetU64(h + 16);
  g->zone_capacity_bytes = GetU64(h + 24);
  g->nr_zones = GetU32(h + 32);
  g->max_open_zones = GetU32(h + 36);
  g->max_active_zones = GetU32(h + 40);
  Status s = g->Validate();
  if (!s.ok()) return Status::Corruption("image " + path + ": header holds an " + s.message());
  if (GetU64(h + 48) != image::kHeaderBytes || GetU64(h + 56) != DataOffset(g->nr_zones)) {
    return Status::Corruption("image " + path + ": header has unexpected table or data offsets");
  }
  return Status::OK();
}

Status DecodeEntry(const char* e, uint32_t zone, const DeviceGeometry& g, const std::string& path,
                   PersistedZone* out) {
  auto bad = [&](const std::string& m) {
    return Status::Corruption("image " + path + ": zone table entry of zone " + std::to_string(zone) + " " + m);
  };
  if (GetU32(e + 24) != Crc32c(e, image::kEntryChecksummedBytes)) return bad("has a checksum mismatch");
  if (GetU32(e + 20) != zone) return bad("names zone " + std::to_string(GetU32(e + 20)));
  out->wp_offset_bytes = GetU64(e);
  out->reset_count = GetU64(e + 8);
  out->state = static_cast<ZoneState>(static_cast<unsigned char>(e[16]));
  const uint64_t wp = out->wp_offset_bytes;
  if (wp > g.zone_capacity_bytes || wp % g.block_size != 0) {
    return bad("has write pointer " + std::to_string(wp) + " outside the zone capacity or unaligned");
  }
  switch (out->state) {
    case ZoneState::kEmpty:
      if (wp != 0) return bad("is empty with write pointer " + std::to_string(wp));
      break;
    case ZoneState::kClosed:
      if (wp == 0 || wp == g.zone_capacity_bytes) return bad("is closed with write pointer " + std::to_string(wp));
      break;
    case ZoneState::kFull:
      if (wp != g.zone_capacity_bytes) return bad("is full with write pointer " + std::to_string(wp));
      break;
    case ZoneState::kReadOnly:
    case ZoneState::kOffline:
      break;
    default:
      return bad("has invalid state " + std::to_string(static_cast<int>(e[16])));
  }
  return Status::OK();
}

}  // namespace

Status EmulatedDevice::CreateImage(const std::string& path, const DeviceGeometry& geometry, bool overwrite) {
  ZONEKV_RETURN_IF_ERROR(geometry.Validate());
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | (overwrite ? 0 : O_EXCL), 0644);
  if (fd < 0) {
    if (errno == EEXIST) {
      return Status::InvalidArgument("image " + path + " already exists (pass --force to overwrite it)");
    }
    return Errno("cannot create", path);
  }
  FileBacking backing(fd, path, geometry);  // owns fd from here on; closing drops the lock
  ZONEKV_RETURN_IF_ERROR(Lock(fd, path));
  if (ftruncate(fd, 0) != 0 || ftruncate(fd, static_cast<off_t>(ImageBytes(geometry))) != 0) {
    return Errno("cannot size", path);
  }
  std::vector<char> table(image::kEntryBytes * geometry.nr_zones);
  for (uint32_t z = 0; z < geometry.nr_zones; z++) EncodeEntry(z, PersistedZone(), &table[image::kEntryBytes * z]);
  ZONEKV_RETURN_IF_ERROR(PwriteAll(fd, table.data(), table.size(), image::kHeaderBytes, path));
  // The header goes last, so a half-created image is rejected as foreign.
  char h[image::kHeaderBytes] = {};
  std::memcpy(h, image::kMagic, sizeof(image::kMagic));
  PutU32(h + 8, image::kFormatVersion);
  PutU32(h + 12, geometry.block_size);
  PutU64(h + 16, geometry.zone_size_bytes);
  PutU64(h + 24, geometry.zone_capacity_bytes);
  PutU32(h + 32, geometry.nr_zones);
  PutU32(h + 36, geometry.max_open_zones);
  PutU32(h + 40, geometry.max_active_zones);
  PutU64(h + 48, image::kHeaderBytes);
  PutU64(h + 56, DataOffset(geometry.nr_zones));
  PutU32(h + 64, Crc32c(h, image::kHeaderChecksummedBytes));
  ZONEKV_RETURN_IF_ERROR(backing.Sync());
  ZONEKV_RETURN_IF_ERROR(PwriteAll(fd, h, sizeof(h), 0, path));
  return backing.Sync();
}

Status EmulatedDevice::OpenImage(const std::string& path, const EmulatedDeviceOptions& options,
                                 std::unique_ptr<EmulatedDevice>* device) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      return Status::NotFound("image " + path + " does not exist (create it with zonekv device create)");
    }
    return Errno("cannot open", path);
  }
  UniqueFd owner(fd);
  ZONEKV_RETURN_IF_ERROR(Lock(fd, path));
  struct stat st;
  if (fstat(fd, &st) != 0) return Errno("cannot stat", path);
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + " is not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  char h[image::kHeaderBytes];
  bool short_read;
  ZONEKV_RETURN_IF_ERROR(PreadAll(fd, h, sizeof(h), 0, path, &short_read));
  if (short_read) {
    if (size >= sizeof(image::kMagic) && std::memcmp(h, image::kMagic, sizeof(image::kMagic)) == 0) {
      return Status::Corruption("image " + path + " is truncated: " + std::to_string(size) +
                                " bytes, shorter than its header");
    }
    return Status::Corruption(path + " is not a zonekv device image (too short; create one with zonekv device create)");
  }
  DeviceGeometry g;
  ZONEKV_RETURN_IF_ERROR(DecodeHeader(h, path, &g));
  if (size < ImageBytes(g)) {
    return Status::Corruption("image " + path + " is truncated: " + std::to_string(size) + " bytes, expected " +
                              std::to_string(ImageBytes(g)));
  }
  std::vector<char> raw(image::kEntryBytes * g.nr_zones);
  ZONEKV_RETURN_IF_ERROR(PreadAll(fd, raw.data(), raw.size(), image::kHeaderBytes, path, &short_read));
  std::vector<PersistedZone> table(g.nr_zones);
  for (uint32_t z = 0; z < g.nr_zones; z++) {
    ZONEKV_RETURN_IF_ERROR(DecodeEntry(&raw[image::kEntryBytes * z], z, g, path, &table[z]));
  }
  EmulatedDeviceOptions o = options;
  o.geometry = g;
  ZONEKV_RETURN_IF_ERROR(o.timing.Validate(g));
  return Make(o, std::make_unique<FileBacking>(owner.release(), path, g), table, device);
}

}  // namespace zonekv
