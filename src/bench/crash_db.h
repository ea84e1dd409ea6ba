// RocksDB on ZoneFs as a crash campaign's writer and checker open it: the
// run's scheme (file-system knobs, RocksDB knobs and, for the writer, its
// controllers) and small buffers and files, so that a run of a second or
// two flushes, compacts, collects blobs and fills zones.
#pragma once

#include <memory>

#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include "controllers.h"
#include "crash_plan.h"
#include "zonekv/zonefs.h"

namespace zonekv {

// The file-system options of the plan's scheme and knobs.
Status CrashFsOptions(const CrashRunPlan& plan, ZoneFsOptions* opts);

struct CrashDb {
  std::shared_ptr<ZoneFs> fs;
  std::unique_ptr<rocksdb::Env> env;
  std::unique_ptr<Controllers> controllers;  // writer only
  std::unique_ptr<rocksdb::DB> db;

  // Stops the controllers, closes the DB and unmounts, in that order;
  // returns the first error (the rest still happens).
  Status Close();
  ~CrashDb() { (void)Close(); }
};

// Mounts `dev` and opens (or creates) the database /db. With
// `with_controllers`, the scheme's compactor and blob GC controllers run
// too. On error *out holds what was opened.
Status OpenCrashDb(const CrashRunPlan& plan, std::shared_ptr<ZonedDevice> dev, bool with_controllers, CrashDb* out);

// zonekv Status of a RocksDB one, prefixed with `what`.
Status CrashFromRocksDb(const rocksdb::Status& s, const std::string& what);

}  // namespace zonekv
