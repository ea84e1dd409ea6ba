// The rocksdb::FileSystem adapter over ZoneFs and its file objects.
//
// Every RocksDB file lives in ZoneFs, including LOCK (an in-process lock),
// the info LOG, OPTIONS, CURRENT and IDENTITY. Paths are normalized
// (duplicate slashes, ".", ".." and trailing slashes removed).
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sys/time.h>

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include "zone_fs_impl.h"
#include "zonekv/mutex.h"

namespace zonekv {
namespace {

using rocksdb::FileOptions;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

IOStatus ToIOStatus(const Status& s) {
  if (s.ok()) return IOStatus::OK();
  const std::string& m = s.message();
  switch (s.code()) {
    case Status::Code::kNotFound: return IOStatus::NotFound(m);
    case Status::Code::kNoSpace: return IOStatus::NoSpace(m);
    case Status::Code::kCorruption: return IOStatus::Corruption(m);
    case Status::Code::kInvalidArgument: return IOStatus::InvalidArgument(m);
    case Status::Code::kNotSupported: return IOStatus::NotSupported(m);
    case Status::Code::kBusy: return IOStatus::Busy(m);
    default: return IOStatus::IOError(s.ToString());
  }
}

class ZkvSequentialFile : public rocksdb::FSSequentialFile {
 public:
  ZkvSequentialFile(std::shared_ptr<ZoneFs> fs, FileRecord* f) : fs_(std::move(fs)), f_(f) {}
  ~ZkvSequentialFile() override { fs_->impl()->CloseHandle(f_); }

  IOStatus Read(size_t n, const IOOptions&, Slice* result, char* scratch, IODebugContext*) override {
    size_t got = 0;
    IOStatus s = ToIOStatus(fs_->impl()->Read(f_, pos_, n, scratch, &got));
    if (!s.ok()) return s;
    pos_ += got;
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }
  IOStatus PositionedRead(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                          IODebugContext*) override {
    size_t got = 0;
    IOStatus s = ToIOStatus(fs_->impl()->Read(f_, offset, n, scratch, &got));
    if (!s.ok()) return s;
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }
  IOStatus Skip(uint64_t n) override {
    uint64_t size = fs_->impl()->FileSize(f_);
    pos_ = std::min(size, pos_ + n);
    return IOStatus::OK();
  }

 private:
  std::shared_ptr<ZoneFs> fs_;
  FileRecord* f_;
  uint64_t pos_ = 0;
};

class ZkvRandomAccessFile : public rocksdb::FSRandomAccessFile {
 public:
  ZkvRandomAccessFile(std::shared_ptr<ZoneFs> fs, FileRecord* f) : fs_(std::move(fs)), f_(f) {}
  ~ZkvRandomAccessFile() override { fs_->impl()->CloseHandle(f_); }

  IOStatus Read(uint64_t offset, size_t n, const IOOptions&, Slice* result, char* scratch,
                IODebugContext*) const override {
    size_t got = 0;
    IOStatus s = ToIOStatus(fs_->impl()->Read(f_, offset, n, scratch, &got));
    if (!s.ok()) return s;
    *result = Slice(scratch, got);
    return IOStatus::OK();
  }
  size_t GetUniqueId(char* id, size_t max_size) const override {
    // File ids are never reused within a file system, so (id) is unique.
    if (max_size < 16) return 0;
    uint64_t fid = f_->meta.id;
    std::memcpy(id, "zonekvfs", 8);
    std::memcpy(id + 8, &fid, 8);
    return 16;
  }

 private:
  std::shared_ptr<ZoneFs> fs_;
  FileRecord* f_;
};

// Buffers appends and writes whole blocks; see zonefs.h for durability.
class ZkvWritableFile : public rocksdb::FSWritableFile {
 public:
  ZkvWritableFile(std::shared_ptr<ZoneFs> fs, FileRecord* f, const FileOptions& fo)
      : rocksdb::FSWritableFile(fo), fs_(std::move(fs)), f_(f), cap_(fs_->impl()->options().write_buffer_bytes) {}
  ~ZkvWritableFile() override {
    if (!closed_) CloseFile();
    fs_->impl()->CloseHandle(f_);
  }

  IOStatus Append(const Slice& data, const IOOptions&, IODebugContext*) override {
    if (closed_) return IOStatus::IOError("append to closed file " + f_->meta.name);
    ZoneFs::Impl* impl = fs_->impl();
    impl->AddHostWriteBytes(data.size());
    const char* p = data.data();
    size_t n = data.size();
    const uint32_t bs = impl->block_size();
    if (buf_.empty() && n >= cap_) {
      // Large append: write its whole blocks straight from the caller's buffer.
      size_t direct = n / bs * bs;
      IOStatus s = ToIOStatus(impl->WriteData(f_, p, direct, false));
      if (!s.ok()) return s;
      p += direct;
      n -= direct;
    }
    buf_.append(p, n);
    if (buf_.size() >= cap_) {
      size_t whole = buf_.size() / bs * bs;
      IOStatus s = ToIOStatus(impl->WriteData(f_, buf_.data(), whole, false));
      if (!s.ok()) return s;
      buf_.erase(0, whole);
    }
    return IOStatus::OK();
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo&,
                  IODebugContext* dbg) override {
    return Append(data, o, dbg);
  }
  IOStatus Flush(const IOOptions&, IODebugContext*) override { return IOStatus::OK(); }
  IOStatus Sync(const IOOptions&, IODebugContext*) override { return SyncFile(true); }
  IOStatus Fsync(const IOOptions&, IODebugContext*) override { return SyncFile(true); }
  IOStatus Close(const IOOptions&, IODebugContext*) override { return CloseFile(); }
  IOStatus Truncate(uint64_t size, const IOOptions&, IODebugContext*) override {
    if (size == Size()) return IOStatus::OK();
    return IOStatus::NotSupported("zonekv cannot truncate " + f_->meta.name + " to " + std::to_string(size) +
                                  " bytes (size " + std::to_string(Size()) + ")");
  }
  uint64_t GetFileSize(const IOOptions&, IODebugContext*) override { return Size(); }
  void SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) override {
    rocksdb::FSWritableFile::SetWriteLifeTimeHint(hint);
    int h = static_cast<int>(hint);
    if (h >= 0 && h <= static_cast<int>(Lifetime::kExtreme)) fs_->impl()->SetLifetime(f_, static_cast<Lifetime>(h));
  }

 private:
  uint64_t Size() { return fs_->impl()->FileSize(f_) + buf_.size(); }
  IOStatus WriteTail() {
    if (buf_.empty()) return IOStatus::OK();
    IOStatus s = ToIOStatus(fs_->impl()->WriteData(f_, buf_.data(), buf_.size(), true));
    if (s.ok()) buf_.clear();
    return s;
  }
  IOStatus SyncFile(bool flush) {
    if (closed_) return IOStatus::OK();
    IOStatus s = WriteTail();
    if (!s.ok()) return s;
    return ToIOStatus(fs_->impl()->CommitFile(f_, flush));
  }
  IOStatus CloseFile() {
    if (closed_) return IOStatus::OK();
    IOStatus s = WriteTail();
    closed_ = true;
    IOStatus c = ToIOStatus(fs_->impl()->CloseWriter(f_));
    return s.ok() ? c : s;
  }

  std::shared_ptr<ZoneFs> fs_;
  FileRecord* f_;
  const size_t cap_;
  std::string buf_;
  bool closed_ = false;
};

class ZkvDirectory : public rocksdb::FSDirectory {
 public:
  explicit ZkvDirectory(std::shared_ptr<ZoneFs> fs) : fs_(std::move(fs)) {}
  // Makes the directory's journaled changes (creates, renames, deletes) durable.
  IOStatus Fsync(const IOOptions&, IODebugContext*) override { return ToIOStatus(fs_->impl()->SyncJournal()); }

 private:
  std::shared_ptr<ZoneFs> fs_;
};

// The info LOG, written through a ZoneFs file.
class ZkvLogger : public rocksdb::Logger {
 public:
  ZkvLogger(std::unique_ptr<rocksdb::FSWritableFile> file, rocksdb::InfoLogLevel level)
      : rocksdb::Logger(level), file_(std::move(file)) {}
  ~ZkvLogger() override {
    if (!closed_) {
      closed_ = true;
      CloseImpl();
    }
  }

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override {
    char buf[1024];
    struct timeval now;
    gettimeofday(&now, nullptr);
    struct tm t;
    time_t secs = now.tv_sec;
    localtime_r(&secs, &t);
    int n = std::snprintf(buf, sizeof(buf), "%04d/%02d/%02d-%02d:%02d:%02d.%06ld ", t.tm_year + 1900, t.tm_mon + 1,
                          t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, static_cast<long>(now.tv_usec));
    std::string line(buf, static_cast<size_t>(std::max(n, 0)));
    va_list copy;
    va_copy(copy, ap);
    int m = std::vsnprintf(buf, sizeof(buf), format, copy);
    va_end(copy);
    if (m >= static_cast<int>(sizeof(buf))) {
      std::string big(static_cast<size_t>(m) + 1, '\0');
      std::vsnprintf(big.data(), big.size(), format, ap);
      line.append(big.data(), static_cast<size_t>(m));
    } else if (m > 0) {
      line.append(buf, static_cast<size_t>(m));
    }
    if (line.empty() || line.back() != '\n') line.push_back('\n');
    MutexLock l(&mu_);
    if (file_ && file_->Append(line, IOOptions(), nullptr).ok()) size_bytes_ += line.size();
  }
  // Flush() keeps the default no-op: a sync here would pad a block per call.
  // The LOG reaches the device as its buffer fills and when it is closed.

  // Lets RocksDB roll the LOG at max_log_file_size (its AutoRollLogger asks).
  size_t GetLogFileSize() const override { return size_bytes_; }

 protected:
  rocksdb::Status CloseImpl() override {
    MutexLock l(&mu_);
    if (!file_) return rocksdb::Status::OK();
    IOStatus s = file_->Close(IOOptions(), nullptr);
    file_.reset();
    return s;
  }

 private:
  Mutex mu_;
  std::unique_ptr<rocksdb::FSWritableFile> file_ ZONEKV_GUARDED_BY(mu_);
  std::atomic<size_t> size_bytes_{0};               // bytes appended so far
};

class ZkvLock : public rocksdb::FileLock {
 public:
  explicit ZkvLock(std::string name) : name(std::move(name)) {}
  const std::string name;
};

class ZkvFileSystem : public rocksdb::FileSystem {
 public:
  explicit ZkvFileSystem(std::shared_ptr<ZoneFs> fs) : fs_(std::move(fs)) {}
  const char* Name() const override { return "ZoneFs"; }

  IOStatus NewSequentialFile(const std::string& fname, const FileOptions&,
                             std::unique_ptr<rocksdb::FSSequentialFile>* result, IODebugContext*) override {
    FileRecord* f = nullptr;
    IOStatus s = ToIOStatus(impl()->OpenForRead(NormalizePath(fname), &f));
    if (s.ok()) result->reset(new ZkvSequentialFile(fs_, f));
    return s;
  }
  IOStatus NewRandomAccessFile(const std::string& fname, const FileOptions&,
                               std::unique_ptr<rocksdb::FSRandomAccessFile>* result, IODebugContext*) override {
    FileRecord* f = nullptr;
    IOStatus s = ToIOStatus(impl()->OpenForRead(NormalizePath(fname), &f));
    if (s.ok()) result->reset(new ZkvRandomAccessFile(fs_, f));
    return s;
  }
  IOStatus NewWritableFile(const std::string& fname, const FileOptions& fo,
                           std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext*) override {
    FileRecord* f = nullptr;
    IOStatus s = ToIOStatus(impl()->CreateFile(NormalizePath(fname), &f));
    if (s.ok()) result->reset(new ZkvWritableFile(fs_, f, fo));
    return s;
  }
  IOStatus ReopenWritableFile(const std::string& fname, const FileOptions& fo,
                              std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext*) override {
    FileRecord* f = nullptr;
    IOStatus s = ToIOStatus(impl()->ReopenFile(NormalizePath(fname), &f));
    if (s.ok()) result->reset(new ZkvWritableFile(fs_, f, fo));
    return s;
  }
  IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname, const FileOptions& fo,
                             std::unique_ptr<rocksdb::FSWritableFile>* result, IODebugContext* dbg) override {
    // Zones cannot be overwritten in place: reuse is delete + create.
    Status d = impl()->DeleteFile(NormalizePath(old_fname));
    if (!d.ok() && !d.Is(Status::Code::kNotFound)) return ToIOStatus(d);
    return NewWritableFile(fname, fo, result, dbg);
  }
  IOStatus NewDirectory(const std::string& name, const IOOptions&, std::unique_ptr<rocksdb::FSDirectory>* result,
                        IODebugContext*) override {
    bool is_dir = false;
    IOStatus s = ToIOStatus(impl()->IsDirectory(NormalizePath(name), &is_dir));
    if (!s.ok()) return s;
    if (!is_dir) return IOStatus::InvalidArgument(name + " is not a directory");
    result->reset(new ZkvDirectory(fs_));
    return IOStatus::OK();
  }
  IOStatus FileExists(const std::string& fname, const IOOptions&, IODebugContext*) override {
    Status s = impl()->FileExists(NormalizePath(fname));
    return s.Is(Status::Code::kNotFound) ? IOStatus::NotFound(s.message()) : ToIOStatus(s);
  }
  IOStatus GetChildren(const std::string& dir, const IOOptions&, std::vector<std::string>* result,
                       IODebugContext*) override {
    result->clear();
    return ToIOStatus(impl()->GetChildren(NormalizePath(dir), result));
  }
  IOStatus DeleteFile(const std::string& fname, const IOOptions&, IODebugContext*) override {
    return ToIOStatus(impl()->DeleteFile(NormalizePath(fname)));
  }
  IOStatus Truncate(const std::string& fname, size_t size, const IOOptions&, IODebugContext*) override {
    uint64_t cur = 0;
    IOStatus s = ToIOStatus(impl()->GetFileSize(NormalizePath(fname), &cur));
    if (!s.ok() || cur == size) return s;
    return IOStatus::NotSupported("zonekv cannot truncate " + fname);
  }
  IOStatus CreateDir(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    return ToIOStatus(impl()->CreateDir(NormalizePath(dirname), false));
  }
  IOStatus CreateDirIfMissing(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    return ToIOStatus(impl()->CreateDir(NormalizePath(dirname), true));
  }
  IOStatus DeleteDir(const std::string& dirname, const IOOptions&, IODebugContext*) override {
    return ToIOStatus(impl()->DeleteDir(NormalizePath(dirname)));
  }
  IOStatus GetFileSize(const std::string& fname, const IOOptions&, uint64_t* file_size, IODebugContext*) override {
    return ToIOStatus(impl()->GetFileSize(NormalizePath(fname), file_size));
  }
  IOStatus GetFileModificationTime(const std::string& fname, const IOOptions&, uint64_t* file_mtime,
                                   IODebugContext*) override {
    return ToIOStatus(impl()->GetModificationTime(NormalizePath(fname), file_mtime));
  }
  IOStatus RenameFile(const std::string& src, const std::string& target, const IOOptions&, IODebugContext*) override {
    return ToIOStatus(impl()->RenameFile(NormalizePath(src), NormalizePath(target)));
  }
  IOStatus LockFile(const std::string& fname, const IOOptions&, rocksdb::FileLock** lock, IODebugContext*) override {
    std::string name = NormalizePath(fname);
    IOStatus s = ToIOStatus(impl()->LockFile(name));
    if (s.ok()) *lock = new ZkvLock(name);
    return s;
  }
  IOStatus UnlockFile(rocksdb::FileLock* lock, const IOOptions&, IODebugContext*) override {
    auto* l = static_cast<ZkvLock*>(lock);
    IOStatus s = ToIOStatus(impl()->UnlockFile(l->name));
    delete l;
    return s;
  }
  IOStatus GetTestDirectory(const IOOptions&, std::string* path, IODebugContext*) override {
    *path = "/test";
    return ToIOStatus(impl()->CreateDir(*path, true));
  }
  IOStatus NewLogger(const std::string& fname, const IOOptions&, std::shared_ptr<rocksdb::Logger>* result,
                     IODebugContext* dbg) override {
    std::unique_ptr<rocksdb::FSWritableFile> file;
    IOStatus s = NewWritableFile(fname, FileOptions(), &file, dbg);
    if (!s.ok()) return s;
    result->reset(new ZkvLogger(std::move(file), rocksdb::InfoLogLevel::INFO_LEVEL));
    return IOStatus::OK();
  }
  IOStatus GetAbsolutePath(const std::string& db_path, const IOOptions&, std::string* output_path,
                           IODebugContext*) override {
    *output_path = NormalizePath(db_path);
    return IOStatus::OK();
  }
  IOStatus IsDirectory(const std::string& path, const IOOptions&, bool* is_dir, IODebugContext*) override {
    return ToIOStatus(impl()->IsDirectory(NormalizePath(path), is_dir));
  }
  IOStatus GetFreeSpace(const std::string&, const IOOptions&, uint64_t* diskfree, IODebugContext*) override {
    *diskfree = fs_->View(ViewFiles::kNone).free_bytes();
    return IOStatus::OK();
  }

 private:
  ZoneFs::Impl* impl() const { return fs_->impl(); }
  std::shared_ptr<ZoneFs> fs_;
};

}  // namespace

std::shared_ptr<rocksdb::FileSystem> ZoneFs::file_system() {
  return std::make_shared<ZkvFileSystem>(shared_from_this());
}

}  // namespace zonekv
