#include "zonekv/fault_device.h"
#include "zonekv/mutex.h"

namespace zonekv {

const char* FaultDevice::OpName(Op op) {
  switch (op) {
    case FaultDevice::Op::kRead: return "read";
    case FaultDevice::Op::kWrite: return "write";
    case FaultDevice::Op::kReset: return "reset";
    case FaultDevice::Op::kFinish: return "finish";
    case FaultDevice::Op::kFlush: return "flush";
  }
  return "?";
}

FaultDevice::FaultDevice(std::unique_ptr<ZonedDevice> base)
    : base_(std::move(base)), durable_wp_(base_->geometry().nr_zones), hidden_resets_(base_->geometry().nr_zones) {
  std::vector<ZoneInfo> zones;
  if (base_->ReportZones(0, base_->geometry().nr_zones, &zones).ok()) {
    for (const ZoneInfo& z : zones) durable_wp_[z.id] = z.wp_bytes;
  }
}

void FaultDevice::FailNth(Op op, uint64_t n, bool and_after) {
  MutexLock l(&mu_);
  Fault& f = faults_[static_cast<int>(op)];
  f.fail_at = n == 0 ? 0 : issued_[static_cast<int>(op)] + n;
  f.and_after = and_after;
}

void FaultDevice::ClearFaults() {
  MutexLock l(&mu_);
  for (Fault& f : faults_) f = Fault();
}

uint64_t FaultDevice::issued(Op op) const {
  MutexLock l(&mu_);
  return issued_[static_cast<int>(op)];
}

void FaultDevice::HoldNext(Op op, uint32_t zone) {
  MutexLock l(&mu_);
  Gate& g = gates_[static_cast<int>(op)];
  g.armed = true;
  g.zone = zone;
}

bool FaultDevice::WaitUntilHeld(Op op, std::chrono::milliseconds timeout) {
  MutexLock l(&mu_);
  const Gate& g = gates_[static_cast<int>(op)];
  return gate_cv_.wait_for(l, timeout, [&]() ZONEKV_REQUIRES(mu_) { return g.held; });
}

void FaultDevice::Release(Op op) {
  MutexLock l(&mu_);
  Gate& g = gates_[static_cast<int>(op)];
  g.armed = false;
  g.releases++;
  gate_cv_.notify_all();
}

Status FaultDevice::Inject(Op op, uint32_t zone, const std::string& what) {
  MutexLock l(&mu_);
  uint64_t n = ++issued_[static_cast<int>(op)];
  const Fault& f = faults_[static_cast<int>(op)];
  if (f.fail_at != 0 && (n == f.fail_at || (f.and_after && n > f.fail_at))) {
    return Status::IOError("injected fault: " + std::string(OpName(op)) + " #" + std::to_string(n) + " (" + what +
                           ") failed");
  }
  Gate& g = gates_[static_cast<int>(op)];
  if (g.armed && (g.zone == kAnyZone || zone == kAnyZone || g.zone == zone)) {
    g.armed = false;
    g.held = true;
    gate_cv_.notify_all();
    uint64_t releases = g.releases;
    bool released = gate_cv_.wait_for(l, kGateLimit, [&]() ZONEKV_REQUIRES(mu_) { return g.releases != releases; });
    g.held = false;
    if (!released) {
      return Status::IOError("gate: " + std::string(OpName(op)) + " (" + what + ") was held for " +
                             std::to_string(kGateLimit.count()) + " s without Release");
    }
  }
  return Status::OK();
}

void FaultDevice::MarkWritten(uint32_t zone) {
  ZoneInfo z;
  if (!base_->ReportZone(zone, &z).ok()) return;
  MutexLock l(&mu_);
  if (!volatile_cache_) durable_wp_[zone] = z.wp_bytes;
}

void FaultDevice::MarkDurable(uint32_t zone) {
  ZoneInfo z;
  if (!base_->ReportZone(zone, &z).ok()) return;
  MutexLock l(&mu_);
  durable_wp_[zone] = z.wp_bytes;
}

void FaultDevice::SetVolatileCache(bool on) {
  std::vector<ZoneInfo> zones;
  Status s = base_->ReportZones(0, geometry().nr_zones, &zones);
  MutexLock l(&mu_);
  if (!on && s.ok()) {
    for (const ZoneInfo& z : zones) durable_wp_[z.id] = z.wp_bytes;
  }
  volatile_cache_ = on;
}

Status FaultDevice::ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) {
  size_t before = zones->size();
  ZONEKV_RETURN_IF_ERROR(base_->ReportZones(first, count, zones));
  MutexLock l(&mu_);
  for (size_t i = before; i < zones->size(); i++) (*zones)[i].reset_count -= hidden_resets_[(*zones)[i].id];
  return Status::OK();
}

Status FaultDevice::Read(uint64_t offset_bytes, size_t n_bytes, char* buf) {
  ZONEKV_RETURN_IF_ERROR(Inject(Op::kRead, ZoneOf(offset_bytes), "offset " + std::to_string(offset_bytes)));
  return base_->Read(offset_bytes, n_bytes, buf);
}

Status FaultDevice::Write(uint64_t offset_bytes, const char* data, size_t n_bytes) {
  ZONEKV_RETURN_IF_ERROR(Inject(Op::kWrite, ZoneOf(offset_bytes), "offset " + std::to_string(offset_bytes)));
  ZONEKV_RETURN_IF_ERROR(base_->Write(offset_bytes, data, n_bytes));
  MarkWritten(ZoneOf(offset_bytes));
  return Status::OK();
}

Status FaultDevice::Append(uint32_t zone, const char* data, size_t n_bytes, uint64_t* written_at_bytes) {
  ZONEKV_RETURN_IF_ERROR(Inject(Op::kWrite, zone, "append to zone " + std::to_string(zone)));
  ZONEKV_RETURN_IF_ERROR(base_->Append(zone, data, n_bytes, written_at_bytes));
  MarkWritten(zone);
  return Status::OK();
}

Status FaultDevice::FinishZone(uint32_t zone) {
  ZONEKV_RETURN_IF_ERROR(Inject(Op::kFinish, zone, "zone " + std::to_string(zone)));
  ZONEKV_RETURN_IF_ERROR(base_->FinishZone(zone));
  MarkDurable(zone);
  return Status::OK();
}

Status FaultDevice::ResetZone(uint32_t zone) {
  ZONEKV_RETURN_IF_ERROR(Inject(Op::kReset, zone, "zone " + std::to_string(zone)));
  ZONEKV_RETURN_IF_ERROR(base_->ResetZone(zone));
  MarkDurable(zone);
  return Status::OK();
}

Status FaultDevice::Flush() {
  ZONEKV_RETURN_IF_ERROR(Inject(Op::kFlush, kAnyZone, "device flush"));
  std::vector<ZoneInfo> zones;
  ZONEKV_RETURN_IF_ERROR(base_->ReportZones(0, geometry().nr_zones, &zones));
  ZONEKV_RETURN_IF_ERROR(base_->Flush());
  MutexLock l(&mu_);
  // Writes that completed before the flush started are durable now.
  for (const ZoneInfo& z : zones) durable_wp_[z.id] = std::max(durable_wp_[z.id], z.wp_bytes);
  return Status::OK();
}

Status FaultDevice::SimulatePowerLoss(SplitMix64* torn) {
  std::vector<ZoneInfo> zones;
  ZONEKV_RETURN_IF_ERROR(base_->ReportZones(0, geometry().nr_zones, &zones));
  std::vector<uint64_t> durable;
  {
    MutexLock l(&mu_);
    durable = durable_wp_;
  }
  if (torn != nullptr) {
    // The cache wrote back a block-granular prefix of each zone's lost data.
    const uint64_t block = geometry().block_size;
    for (const ZoneInfo& z : zones) {
      const uint64_t from = std::max(durable[z.id], z.start_bytes);
      if (z.wp_bytes <= from) continue;
      const uint64_t lost_blocks = (z.wp_bytes - from) / block;
      durable[z.id] = from + (torn->Next() % (lost_blocks + 1)) * block;
    }
  }
  // Power cycle: open zones close first, so rollbacks find free resources.
  for (const ZoneInfo& z : zones) {
    if (IsOpen(z.state)) ZONEKV_RETURN_IF_ERROR(base_->CloseZone(z.id));
  }
  std::vector<char> prefix;
  for (const ZoneInfo& z : zones) {
    if (z.state == ZoneState::kReadOnly || z.state == ZoneState::kOffline) continue;
    const uint64_t keep = durable[z.id] > z.start_bytes ? std::min(durable[z.id], z.wp_bytes) - z.start_bytes : 0;
    if (z.start_bytes + keep == z.wp_bytes) continue;
    prefix.resize(keep);
    if (keep > 0) ZONEKV_RETURN_IF_ERROR(base_->Read(z.start_bytes, keep, prefix.data()));
    ZONEKV_RETURN_IF_ERROR(base_->ResetZone(z.id));
    {
      MutexLock l(&mu_);
      hidden_resets_[z.id]++;
    }
    if (keep > 0) {
      ZONEKV_RETURN_IF_ERROR(base_->Write(z.start_bytes, prefix.data(), keep));
      ZONEKV_RETURN_IF_ERROR(base_->CloseZone(z.id));
    }
  }
  ZONEKV_RETURN_IF_ERROR(base_->Flush());
  MutexLock l(&mu_);
  for (const ZoneInfo& z : zones) durable_wp_[z.id] = std::min(durable[z.id], z.wp_bytes);
  return Status::OK();
}

}  // namespace zonekv
