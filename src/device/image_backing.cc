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

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(what + " " + path + ": " + std::strerror(errno));
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
      : fd_(fd), path_(std::move(path)), zone_cap_(g.zone_capacity_bytes), data_offset_(image::DataOffset(g.nr_zones)) {}
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
    image::EncodeEntry(zone, entry, buf);
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
  if (ftruncate(fd, 0) != 0 || ftruncate(fd, static_cast<off_t>(image::ImageBytes(geometry))) != 0) {
    return Errno("cannot size", path);
  }
  std::vector<char> table(image::kEntryBytes * geometry.nr_zones);
  for (uint32_t z = 0; z < geometry.nr_zones; z++) image::EncodeEntry(z, PersistedZone(), &table[image::kEntryBytes * z]);
  ZONEKV_RETURN_IF_ERROR(PwriteAll(fd, table.data(), table.size(), image::kHeaderBytes, path));
  // The header goes last, so a half-created image is rejected as foreign.
  char h[image::kHeaderBytes];
  image::EncodeHeader(geometry, h);
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
  ZONEKV_RETURN_IF_ERROR(image::DecodeHeader(h, path, &g));
  if (size < image::ImageBytes(g)) {
    return Status::Corruption("image " + path + " is truncated: " + std::to_string(size) + " bytes, expected " +
                              std::to_string(image::ImageBytes(g)));
  }
  std::vector<char> raw(image::kEntryBytes * g.nr_zones);
  ZONEKV_RETURN_IF_ERROR(PreadAll(fd, raw.data(), raw.size(), image::kHeaderBytes, path, &short_read));
  std::vector<PersistedZone> table(g.nr_zones);
  for (uint32_t z = 0; z < g.nr_zones; z++) {
    ZONEKV_RETURN_IF_ERROR(image::DecodeEntry(&raw[image::kEntryBytes * z], z, g, path, &table[z]));
  }
  EmulatedDeviceOptions o = options;
  o.geometry = g;
  ZONEKV_RETURN_IF_ERROR(o.timing.Validate(g));
  return Make(o, std::make_unique<FileBacking>(owner.release(), path, g), table, device);
}

}  // namespace zonekv
