#include <chrono>
#include <cstdio>
#include <string>

#include "zonekv/blob_gc.h"
#include "zonekv/clock.h"
#include "zonekv/mutex.h"

namespace zonekv {

namespace {

// At most one recomputation per this interval (each reads RocksDB's file
// metadata and the file system's view: a few milliseconds).
constexpr std::chrono::milliseconds kCoalesce(20);

}  // namespace

ZCutoffController::ZCutoffController(std::function<FsView()> view_source) : view_source_(std::move(view_source)) {}

ZCutoffController::~ZCutoffController() { Detach(); }

void ZCutoffController::Attach(rocksdb::DB* db) {
  MutexLock l(&mu_);
  if (db_ != nullptr) return;
  db_ = db;
  stats_.cutoff = -1;  // a reopened DB starts from its own options
  stop_ = false;
  pending_ = true;
  thread_ = std::thread(&ZCutoffController::Loop, this);
}

void ZCutoffController::Detach() {
  {
    MutexLock l(&mu_);
    if (db_ == nullptr) return;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  MutexLock l(&mu_);
  db_ = nullptr;
}

void ZCutoffController::Wake() {
  {
    MutexLock l(&mu_);
    pending_ = true;
  }
  cv_.notify_one();
}

void ZCutoffController::Loop() {
  MutexLock l(&mu_);
  while (true) {
    cv_.wait(l, [this]() ZONEKV_REQUIRES(mu_) { return stop_ || pending_; });
    if (stop_) return;
    pending_ = false;
    l.unlock();
    UpdateNow();
    l.lock();
    // Events come in bursts (a compaction creates and deletes several
    // files): let one gather, so that it costs one recomputation.
    cv_.wait_for(l, kCoalesce, [this]() ZONEKV_REQUIRES(mu_) { return stop_; });
  }
}

rocksdb::Status ZCutoffController::UpdateNow() {
  MutexLock serial(&update_mu_);
  rocksdb::DB* db;
  {
    MutexLock l(&mu_);
    db = db_;
  }
  if (db == nullptr) return rocksdb::Status::OK();
  auto start = std::chrono::steady_clock::now();

  // Without a blob file there is no cutoff to set: skip RocksDB's file
  // metadata and the zones' view (a database without BlobDB paid both on
  // every flush and compaction, 0.5-1.4 ms each).
  uint64_t blob_files = 0;
  const bool none = db->GetIntProperty(rocksdb::DB::Properties::kNumBlobFiles, &blob_files) && blob_files == 0;
  ZCutoff z;
  bool have = false;
  if (!none) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::vector<uint64_t> live;
    live.reserve(meta.blob_files.size());
    for (const auto& b : meta.blob_files) live.push_back(b.blob_file_number);
    have = ComputeZCutoff(live, view_source_(), &z);
  }

  rocksdb::Status s;
  bool changed = false;
  double value = have ? z.option_value() : -1;
  {
    // RocksDB relocates the oldest floor(cutoff * N) of its N blob files
    // (N = live_files here). The value set last still selects exactly the
    // eligible files unless N or the eligible count moved: then SetOptions is
    // not needed, which matters because RocksDB writes an OPTIONS file for
    // each SetOptions inside its write thread, blocking writers for
    // milliseconds (640 calls cost baza+ ~10% throughput on WL(A)).
    MutexLock l(&mu_);
    size_t selected =
        stats_.cutoff < 0 ? SIZE_MAX : static_cast<size_t>(stats_.cutoff * static_cast<double>(z.live_files));
    changed = have && selected != z.eligible_files && !held_;
  }
  auto set_start = std::chrono::steady_clock::now();
  if (changed) {
    s = db->SetOptions({{"blob_garbage_collection_age_cutoff", CutoffOptionText(value)}});
  }

  auto end = std::chrono::steady_clock::now();
  uint64_t us = ElapsedUs(start, end);
  uint64_t set_us = ElapsedUs(set_start, end);
  MutexLock l(&mu_);
  stats_.updates++;
  stats_.update_us_total += us;
  if (us > stats_.update_us_max) stats_.update_us_max = us;
  if (changed) {
    stats_.set_options_us_total += set_us;
    if (set_us > stats_.set_options_us_max) stats_.set_options_us_max = set_us;
  }
  if (have) stats_.last = z;
  if (changed && s.ok()) {
    stats_.changes++;
    stats_.cutoff = value;
  } else if (changed) {
    stats_.cutoff = -1;  // RocksDB may hold the new value without its OPTIONS file: set it again next time
  }
  return s;
}

void ZCutoffController::Hold() {
  MutexLock l(&mu_);
  held_ = true;
}

void ZCutoffController::Release() {
  {
    MutexLock l(&mu_);
    held_ = false;
    stats_.cutoff = -1;  // whoever held it changed RocksDB's value: set ours again
    pending_ = true;
  }
  cv_.notify_all();
}

ZCutoffStats ZCutoffController::Stats() const {
  MutexLock l(&mu_);
  return stats_;
}

double ZCutoffStats::update_us_mean() const {
  return updates == 0 ? 0.0 : static_cast<double>(update_us_total) / static_cast<double>(updates);
}

Json ZCutoffStats::ToJson() const {
  Json j = Json::Object();
  j.Set("updates", updates)
      .Set("changes", changes)
      .Set("cutoff", cutoff < 0 ? Json() : Json(cutoff))
      .Set("eligible_files", static_cast<uint64_t>(last.eligible_files))
      .Set("live_files", static_cast<uint64_t>(last.live_files))
      .Set("min_ybiz", last.min_ybiz)
      .Set("update_us_mean", update_us_mean())
      .Set("update_us_max", update_us_max)
      .Set("set_options_us_total", set_options_us_total)
      .Set("set_options_us_max", set_options_us_max)
      .Set("compute_us_mean", updates == 0 ? 0.0
                                            : static_cast<double>(update_us_total - set_options_us_total) /
                                                  static_cast<double>(updates));
  return j;
}

PolicyEntry<BlobGcCutoffFactory> ZCutoffEntry() {
  return {"zcutoff", "Same-Victim GC's Z_Cutoff: collect exactly the blob files in full zones", {},
          [](std::function<FsView()> view, std::shared_ptr<ZCutoffController>* out) {
            if (!view) return Status::InvalidArgument("blob_gc_cutoff=zcutoff needs zone information (use --fs=zonekv)");
            *out = std::make_shared<ZCutoffController>(std::move(view));
            return Status::OK();
          }};
}

}  // namespace zonekv
