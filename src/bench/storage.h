// Where a benchmark's RocksDB lives: zonekv on a zoned device, or RocksDB's
// default file system in a directory (the reference to compare against).
// This is the only part of the runner that knows about the file system.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "controllers.h"
#include "zonekv/bench.h"
#include "zonekv/compactor.h"
#include "zonekv/fs_policy.h"
#include "zonekv/json.h"
#include "zonekv/status.h"

namespace rocksdb {
class Env;
struct Options;
}  // namespace rocksdb

namespace zonekv {

class ZoneFs;

// One time-series sample of the storage.
struct StorageSample {
  double free_ratio = 0;       // ZenFS definition (posix: free / total of the file system)
  uint64_t zc_copy_bytes = 0;  // cumulative
  uint64_t resets = 0;         // cumulative, runtime + ZC
};

// The storage's part of the report: the fs.* object and, typed, the figures
// the summary prints from it (posix: what RocksDB wrote, neutral values).
struct StorageReport {
  Json fs;  // every stable fs.* key of bench.h
  uint64_t host_write_bytes = 0;
  uint64_t zc_copy_blob_bytes = 0;
  uint64_t zc_copy_sst_bytes = 0;
  uint64_t zc_copy_wal_bytes = 0;
  uint64_t zc_copy_other_bytes = 0;  // MANIFEST and other files
  uint64_t resets_runtime = 0;
  uint64_t resets_zc = 0;
  uint64_t ezrc = 0;  // ZoneFsStats::ezrc(): zone resets, whoever asked for them
  double r_wp = 0;
  double dlwa = 1;
  double fs_waf = 1;
  double space_used_ratio_end = 0;
  double io_block_time_s = 0;

  uint64_t zc_copy_bytes() const {
    return zc_copy_blob_bytes + zc_copy_sst_bytes + zc_copy_wal_bytes + zc_copy_other_bytes;
  }
};

class BenchStorage {
 public:
  virtual ~BenchStorage() = default;
  // The Env RocksDB must use and the database path within it. The Env lives
  // as long as this object; the DB must be closed first.
  virtual rocksdb::Env* env() = 0;
  virtual std::string db_path() const = 0;
  // Adds the file system's listeners (hints) to the DB options.
  virtual void AddListeners(rocksdb::Options* options) = 0;
  virtual StorageSample Sample() = 0;
  // What the controllers may ask of the file system (controllers.h); every
  // member empty for posix.
  virtual FsHooks Hooks() = 0;
  // The end-of-run report. `rocksdb_write_bytes` is what RocksDB wrote
  // (flush + compaction + WAL), used where the file system has no counter
  // of its own.
  virtual StorageReport Report(uint64_t rocksdb_write_bytes) = 0;
  // {"fs": ..., "device": ...} as configured.
  virtual Json Config() const = 0;
  // The sustained sequential write bandwidth of the device's timing
  // profile, in bytes per second; 0 when unknown or unlimited (untimed
  // emulation, a real device, posix).
  virtual double SustainedWriteBytesPerSec() const = 0;
};

// What the controllers may ask of a mounted ZoneFs (every member set).
FsHooks ZoneFsHooks(std::shared_ptr<ZoneFs> fs);

// Opens config.fs ("zonekv": formats and mounts a file system on
// config.device_spec with the scheme's and the flags' knobs; "posix":
// config.db_dir). InvalidArgument naming the flag on a bad setting.
Status OpenStorage(const BenchConfig& config, const Scheme& scheme, std::unique_ptr<BenchStorage>* out);

}  // namespace zonekv
