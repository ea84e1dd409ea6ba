// The EventListener that carries RocksDB's knowledge down to ZoneFs: which
// job writes a file, at which level, and (after the fact) its key range.
//
// RocksDB announces a job (OnFlushBegin / OnCompactionBegin, with the output
// level) before it creates the job's files, and each file before it is
// created (OnTableFileCreationStarted / OnBlobFileCreationStarted, with the
// job id), so ZoneFs knows job and level when allocating the file's first
// zone. Key ranges are known only once a flush or compaction completes; they
// are read from the DB's live file metadata then.
#include <map>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/metadata.h>

#include "zone_fs_impl.h"
#include "zonekv/mutex.h"

namespace zonekv {
namespace {

class HintsListener : public rocksdb::EventListener {
 public:
  explicit HintsListener(std::shared_ptr<ZoneFs> fs) : fs_(std::move(fs)) {}
  const char* Name() const override { return "ZoneFsHints"; }

  void OnFlushBegin(rocksdb::DB*, const rocksdb::FlushJobInfo& info) override {
    SetJobLevel(info.job_id, 0);
    fs_->impl()->NoteFileJob(NormalizePath(info.file_path), info.job_id, 0);
  }
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override {
    RecordRanges(db, {info.file_path});
    EndJob(info.job_id);
  }
  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& ci) override {
    SetJobLevel(ci.job_id, ci.output_level);
  }
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& ci) override {
    RecordRanges(db, ci.output_files);
    EndJob(ci.job_id);
  }
  void OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) override {
    int level = JobLevel(info.job_id);
    // Recovery flushes (WAL replay at open) announce no job: they write L0.
    if (level < 0 && info.reason == rocksdb::TableFileCreationReason::kRecovery) level = 0;
    fs_->impl()->NoteFileJob(NormalizePath(info.file_path), info.job_id, level);
  }
  void OnBlobFileCreationStarted(const rocksdb::BlobFileCreationBriefInfo& info) override {
    fs_->impl()->NoteFileJob(NormalizePath(info.file_path), info.job_id, JobLevel(info.job_id));
  }

 private:
  void SetJobLevel(int job, int level) {
    MutexLock l(&mu_);
    levels_[job] = level;
  }
  int JobLevel(int job) {
    MutexLock l(&mu_);
    auto it = levels_.find(job);
    return it == levels_.end() ? -1 : it->second;
  }
  void EndJob(int job) {
    MutexLock l(&mu_);
    levels_.erase(job);
  }
  void RecordRanges(rocksdb::DB* db, const std::vector<std::string>& outputs) {
    if (outputs.empty()) return;
    std::vector<rocksdb::LiveFileMetaData> live;
    db->GetLiveFilesMetaData(&live);
    std::map<std::string, const rocksdb::LiveFileMetaData*> by_name;
    for (const auto& m : live) by_name[NormalizePath(m.directory + "/" + m.relative_filename)] = &m;
    for (const auto& out : outputs) {
      std::string name = NormalizePath(out);
      auto it = by_name.find(name);
      if (it == by_name.end()) continue;  // already compacted away
      fs_->impl()->NoteFileRange(name, it->second->level, it->second->smallestkey, it->second->largestkey);
    }
  }

  std::shared_ptr<ZoneFs> fs_;
  Mutex mu_;
  std::map<int, int> levels_ ZONEKV_GUARDED_BY(mu_);  // running job id -> output level
};

}  // namespace

std::shared_ptr<rocksdb::EventListener> ZoneFs::listener() {
  return std::make_shared<HintsListener>(shared_from_this());
}

}  // namespace zonekv
