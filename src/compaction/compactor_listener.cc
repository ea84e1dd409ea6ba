#include "compactor_listener.h"

namespace zonekv {

void Compactor::ListenerSlot::Bind(CompactorEvents* target) {
  MutexLock l(&mu_);
  idle_.wait(l, [&]() ZONEKV_REQUIRES(mu_) { return in_flight_ == 0; });
  target_ = target;
}

void Compactor::ListenerSlot::OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) {
  Call([](CompactorEvents* t) { t->Wake(); });
}

void Compactor::ListenerSlot::OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) {
  Call([&](CompactorEvents* t) { t->NativeBegin(db, info); });
}

void Compactor::ListenerSlot::OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) {
  // Only compactions RocksDB itself schedules (hybrid mode's native jobs,
  // CompactRange, ingestion) land here: RocksDB 7.8 does not notify
  // listeners of CompactFiles jobs, so the compactor wakes itself after each
  // of its own jobs. A failed compaction changed nothing; waking on it could
  // spin on a DB that fails every job.
  Call([&](CompactorEvents* t) {
    t->NativeCompleted(info);
    if (info.status.ok()) t->Wake();
  });
}

void Compactor::ListenerSlot::OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) {
  Call([&](CompactorEvents* t) { t->FileDeleted(info.file_path); });
}

void Compactor::ListenerSlot::OnSubcompactionBegin(const rocksdb::SubcompactionJobInfo& info) {
  Call([&](CompactorEvents* t) { t->SubcompactionBegin(info); });
}

void Compactor::ListenerSlot::OnSubcompactionCompleted(const rocksdb::SubcompactionJobInfo& info) {
  Call([&](CompactorEvents* t) { t->SubcompactionCompleted(info); });
}

}  // namespace zonekv
