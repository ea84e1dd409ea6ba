#include "ram_backing.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace zonekv {

namespace {

class RamBacking final : public DeviceBacking {
 public:
  RamBacking(char* base, uint64_t bytes, uint64_t zone_cap_bytes)
      : base_(base), bytes_(bytes), zone_cap_(zone_cap_bytes),
        page_(static_cast<uint64_t>(sysconf(_SC_PAGESIZE))) {}
  ~RamBacking() override { munmap(base_, bytes_); }

  std::string name() const override { return "ram"; }

  Status Read(uint32_t zone, uint64_t offset_bytes, size_t n_bytes, char* buf) override {
    std::memcpy(buf, At(zone, offset_bytes), n_bytes);
    return Status::OK();
  }
  Status Write(uint32_t zone, uint64_t offset_bytes, const char* data, size_t n_bytes) override {
    std::memcpy(At(zone, offset_bytes), data, n_bytes);
    return Status::OK();
  }
  Status Zero(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes) override {
    // Whole pages go back to the kernel (they read as zeros afterwards);
    // the unaligned head and tail are cleared by hand.
    uint64_t begin = zone * zone_cap_ + offset_bytes, end = begin + n_bytes;
    uint64_t pbegin = (begin + page_ - 1) / page_ * page_, pend = end / page_ * page_;
    if (pbegin >= pend) {
      std::memset(base_ + begin, 0, n_bytes);
      return Status::OK();
    }
    std::memset(base_ + begin, 0, pbegin - begin);
    std::memset(base_ + pend, 0, end - pend);
    if (madvise(base_ + pbegin, pend - pbegin, MADV_DONTNEED) != 0) {
      std::memset(base_ + pbegin, 0, pend - pbegin);
    }
    return Status::OK();
  }
  // Reset keeps the pages: bytes past the write pointer are never read, and
  // the zone is usually rewritten soon (faulting pages in again costs more
  // than the copy itself).
  Status Discard(uint32_t) override { return Status::OK(); }
  Status PersistZone(uint32_t, const PersistedZone&) override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }

 private:
  char* At(uint32_t zone, uint64_t offset_bytes) const { return base_ + zone * zone_cap_ + offset_bytes; }

  char* const base_;
  const uint64_t bytes_;
  const uint64_t zone_cap_;
  const uint64_t page_;
};

class MetadataOnlyBacking final : public DeviceBacking {
 public:
  std::string name() const override { return "meta"; }
  Status Read(uint32_t, uint64_t, size_t n_bytes, char* buf) override {
    std::memset(buf, 0, n_bytes);
    return Status::OK();
  }
  Status Write(uint32_t, uint64_t, const char*, size_t) override { return Status::OK(); }
  Status Zero(uint32_t, uint64_t, uint64_t) override { return Status::OK(); }
  Status Discard(uint32_t) override { return Status::OK(); }
  Status PersistZone(uint32_t, const PersistedZone&) override { return Status::OK(); }
  Status Sync() override { return Status::OK(); }
};

}  // namespace

Status NewRamBacking(const DeviceGeometry& geometry, std::unique_ptr<DeviceBacking>* backing) {
  uint64_t bytes = geometry.capacity_bytes();
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return Status::IOError("cannot reserve " + std::to_string(bytes) + " bytes of memory for a RAM device: " +
                           std::strerror(errno) + " (use meta: for a device without payload)");
  }
  backing->reset(new RamBacking(static_cast<char*>(p), bytes, geometry.zone_capacity_bytes));
  return Status::OK();
}

std::unique_ptr<DeviceBacking> NewMetadataOnlyBacking() { return std::make_unique<MetadataOnlyBacking>(); }

}  // namespace zonekv
