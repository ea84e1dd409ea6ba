#include "lock_checked_device.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "fs_mutex.h"

namespace zonekv {

bool LockCheckFromEnv() {
  const char* v = std::getenv("ZONEKV_LOCK_CHECK");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

void LockCheckedDevice::Check(const char* command) {
  if (!FsMutex::HeldByThisThread()) return;
  calls_held_.fetch_add(1, std::memory_order_relaxed);
  if (fail_on_held_) {
    std::fprintf(stderr,
                 "zonekv: device command %s issued while holding the file-system lock (mu_); "
                 "device time must run with mu_ released (see docs/fs-locking.md)\n",
                 command);
    std::abort();
  }
}

Status LockCheckedDevice::ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) {
  Check("ReportZones");
  return base_->ReportZones(first, count, zones);
}

Status LockCheckedDevice::Read(uint64_t offset_bytes, size_t n_bytes, char* buf) {
  Check("Read");
  return base_->Read(offset_bytes, n_bytes, buf);
}

Status LockCheckedDevice::Write(uint64_t offset_bytes, const char* data, size_t n_bytes) {
  Check("Write");
  return base_->Write(offset_bytes, data, n_bytes);
}

Status LockCheckedDevice::Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) {
  Check("Append");
  return base_->Append(zone, data, n_bytes, written_at_bytes);
}

Status LockCheckedDevice::OpenZone(uint32_t zone) {
  Check("OpenZone");
  return base_->OpenZone(zone);
}

Status LockCheckedDevice::CloseZone(uint32_t zone) {
  Check("CloseZone");
  return base_->CloseZone(zone);
}

Status LockCheckedDevice::FinishZone(uint32_t zone) {
  Check("FinishZone");
  return base_->FinishZone(zone);
}

Status LockCheckedDevice::ResetZone(uint32_t zone) {
  Check("ResetZone");
  return base_->ResetZone(zone);
}

Status LockCheckedDevice::Flush() {
  Check("Flush");
  return base_->Flush();
}

}  // namespace zonekv
