#include "crash_db.h"

#include <rocksdb/options.h>

#include "rocksdb_options.h"
#include "storage.h"
#include "zonekv/bench.h"

namespace zonekv {

Status CrashFromRocksDb(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::OK();
  if (s.IsNoSpace()) return Status::NoSpace(what + ": " + s.ToString());
  if (s.IsCorruption()) return Status::Corruption(what + ": " + s.ToString());
  return Status::IOError(what + ": " + s.ToString());
}

Status CrashFsOptions(const CrashRunPlan& plan, ZoneFsOptions* opts) {
  Scheme scheme;
  ZONEKV_RETURN_IF_ERROR(LookupScheme(plan.scheme, &scheme));
  *opts = ZoneFsOptions();
  for (const auto& [k, v] : scheme.fs_knobs) ZONEKV_RETURN_IF_ERROR(SetFsKnob(k, v, opts));
  for (const auto& [k, v] : plan.fs_knobs) ZONEKV_RETURN_IF_ERROR(SetFsKnob(k, v, opts));
  return opts->Validate();
}

Status CrashDb::Close() {
  Status first;
  if (controllers) controllers->Stop();
  if (db) {
    rocksdb::Status s = db->Close();
    // After an injected fault Close reports the background error again.
    if (!s.ok() && first.ok()) first = CrashFromRocksDb(s, "closing RocksDB");
    db.reset();
  }
  controllers.reset();
  env.reset();
  fs.reset();  // unmount: syncs
  return first;
}

Status OpenCrashDb(const CrashRunPlan& plan, std::shared_ptr<ZonedDevice> dev, bool with_controllers, CrashDb* out) {
  Scheme scheme;
  ZONEKV_RETURN_IF_ERROR(LookupScheme(plan.scheme, &scheme));
  ZoneFsOptions fs_opts;
  ZONEKV_RETURN_IF_ERROR(CrashFsOptions(plan, &fs_opts));
  ZONEKV_RETURN_IF_ERROR(ZoneFs::Mount(std::move(dev), fs_opts, &out->fs));
  out->env = rocksdb::NewCompositeEnv(out->fs->file_system());

  rocksdb::Options o;
  ZONEKV_RETURN_IF_ERROR(SetRocksDbOption("compression", "none", &o));
  for (const auto& [k, v] : scheme.rocksdb_knobs) ZONEKV_RETURN_IF_ERROR(SetRocksDbOption(k, v, &o));
  o.create_if_missing = true;
  o.env = out->env.get();
  o.listeners.push_back(out->fs->listener());
  o.write_buffer_size = 128 << 10;
  o.target_file_size_base = 256 << 10;
  o.max_bytes_for_level_base = 1 << 20;
  o.level0_file_num_compaction_trigger = 2;
  // No size-based roll of the info LOG: when creating the next LOG fails
  // (an injected I/O error), RocksDB 7.8's AutoRollLogger::Logv asserts
  // and aborts the process (notes/issue-18.md). It still rolls at each open.
  o.keep_log_file_num = 2;
  o.enable_blob_files = plan.blob;
  o.min_blob_size = 256;
  o.blob_file_size = 256 << 10;
  o.enable_blob_garbage_collection = true;
  if (with_controllers) {
    ControllerOptions copts;
    for (const auto& [k, v] : scheme.controller_knobs) ZONEKV_RETURN_IF_ERROR(copts.Set(k, v));
    ZONEKV_RETURN_IF_ERROR(Controllers::Prepare(copts, ZoneFsHooks(out->fs), &o, &out->controllers));
  }
  rocksdb::DB* db = nullptr;
  ZONEKV_RETURN_IF_ERROR(CrashFromRocksDb(rocksdb::DB::Open(o, "/db", &db), "opening RocksDB"));
  out->db.reset(db);
  if (out->controllers) ZONEKV_RETURN_IF_ERROR(out->controllers->Start(db));
  return Status::OK();
}

}  // namespace zonekv
