// LockCheckedDevice: the device as the file-system engine sees it. Passes
// every command to the wrapped device and counts the commands issued while
// the calling thread holds an FsMutex (the engine's `mu_`), which must never
// happen: no device, real or emulated, is fast enough to be waited for under
// the file system's lock. With `fail_on_held`, such a command aborts the
// process with a message naming it (the debug check; on in the tests, see
// LockCheckFromEnv).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "zonekv/zoned_device.h"

namespace zonekv {

// Whether the environment asks for the debug check: ZONEKV_LOCK_CHECK=1.
bool LockCheckFromEnv();

class LockCheckedDevice final : public ZonedDevice {
 public:
  LockCheckedDevice(std::shared_ptr<ZonedDevice> base, bool fail_on_held)
      : base_(std::move(base)), fail_on_held_(fail_on_held) {}

  // Device commands issued while the calling thread held an FsMutex.
  uint64_t calls_held() const { return calls_held_.load(std::memory_order_relaxed); }

  const DeviceGeometry& geometry() const override { return base_->geometry(); }
  std::string name() const override { return base_->name(); }
  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override;
  Status Read(uint64_t offset_bytes, size_t n_bytes, char* buf) override;
  Status Write(uint64_t offset_bytes, const char* data, size_t n_bytes) override;
  Status Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) override;
  Status OpenZone(uint32_t zone) override;
  Status CloseZone(uint32_t zone) override;
  Status FinishZone(uint32_t zone) override;
  Status ResetZone(uint32_t zone) override;
  Status Flush() override;
  DeviceCounters counters() const override { return base_->counters(); }

 private:
  // Counts (or, with fail_on_held_, aborts on) a command issued under the lock.
  void Check(const char* command);

  const std::shared_ptr<ZonedDevice> base_;
  const bool fail_on_held_;
  std::atomic<uint64_t> calls_held_{0};
};

}  // namespace zonekv
