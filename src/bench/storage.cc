#include "storage.h"

#include <sys/statvfs.h>

#include <cstdlib>

#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include "zonekv/emulated_device.h"
#include "zonekv/zoned_device.h"
#include "zonekv/zonefs.h"

namespace zonekv {

namespace {

// RocksDB's default file system in a directory. There is no zone cleaning and
// no reset; host writes are what RocksDB wrote.
class PosixStorage : public BenchStorage {
 public:
  explicit PosixStorage(std::string dir) : dir_(std::move(dir)) {}

  rocksdb::Env* env() override { return rocksdb::Env::Default(); }
  std::string db_path() const override { return dir_; }
  void AddListeners(rocksdb::Options*) override {}
  FsHooks Hooks() override { return {}; }

  StorageSample Sample() override {
    StorageSample s;
    struct statvfs st;
    if (statvfs(dir_.c_str(), &st) == 0 && st.f_blocks > 0) {
      s.free_ratio = static_cast<double>(st.f_bavail) / static_cast<double>(st.f_blocks);
    }
    return s;
  }

  StorageReport Report(uint64_t rocksdb_write_bytes) override {
    StorageReport r;
    r.host_write_bytes = rocksdb_write_bytes;
    r.space_used_ratio_end = 1.0 - Sample().free_ratio;
    Json zc = Json::Object();
    zc.Set("blob", r.zc_copy_blob_bytes)
        .Set("sst", r.zc_copy_sst_bytes)
        .Set("wal", r.zc_copy_wal_bytes)
        .Set("other", r.zc_copy_other_bytes);
    r.fs = Json::Object();
    r.fs.Set("host_write_bytes", r.host_write_bytes)
        .Set("zc_copy_bytes", zc)
        .Set("resets_runtime", r.resets_runtime)
        .Set("resets_zc", r.resets_zc)
        .Set("ezrc", r.ezrc)
        .Set("r_wp", r.r_wp)
        .Set("finish_pad_bytes", 0)
        .Set("dlwa", r.dlwa)
        .Set("fs_waf", r.fs_waf)
        .Set("space_used_ratio_end", r.space_used_ratio_end)
        .Set("io_block_time_s", r.io_block_time_s);
    return r;
  }

  double SustainedWriteBytesPerSec() const override { return 0; }

  Json Config() const override {
    Json j = Json::Object();
    j.Set("fs", Json::Object().Set("type", "posix").Set("db", dir_));
    j.Set("device", Json());
    return j;
  }

 private:
  std::string dir_;
};

// zonekv on an emulated or real zoned device, formatted fresh for the run.
class ZoneFsStorage : public BenchStorage {
 public:
  ZoneFsStorage(std::string spec, std::shared_ptr<ZoneFs> fs)
      : spec_(std::move(spec)), fs_(std::move(fs)), env_(rocksdb::NewCompositeEnv(fs_->file_system())) {}

  rocksdb::Env* env() override { return env_.get(); }
  std::string db_path() const override { return "/db"; }
  void AddListeners(rocksdb::Options* options) override { options->listeners.push_back(fs_->listener()); }
  FsHooks Hooks() override { return ZoneFsHooks(fs_); }

  StorageSample Sample() override {
    // Stats() costs O(zones) under the file system's lock; View() would
    // also copy the file table.
    ZoneFsStats st = fs_->Stats();
    StorageSample s;
    s.free_ratio = st.free_ratio();
    s.zc_copy_bytes = st.zc_copy_bytes();
    s.resets = st.ezrc();
    return s;
  }

  StorageReport Report(uint64_t) override {
    ZoneFsStats st = fs_->Stats();
    DeviceCounters c = fs_->device()->counters();
    StorageReport r;
    r.fs = st.ToJson();
    r.fs.Set("finish_pad_bytes", c.finish_pad_bytes)
        .Set("dlwa", c.dlwa())
        .Set("space_used_ratio_end", st.space_used_ratio())
        .Set("free_ratio_end", st.free_ratio())
        .Set("space_amp", st.space_amp())  // as ZenFS's df reports it
        .Set("device", c.ToJson());
    r.host_write_bytes = st.host_write_bytes;
    r.zc_copy_blob_bytes = st.zc_copy_bytes(FileKind::kBlob);
    r.zc_copy_sst_bytes = st.zc_copy_bytes(FileKind::kSst);
    r.zc_copy_wal_bytes = st.zc_copy_bytes(FileKind::kWal);
    r.zc_copy_other_bytes = st.zc_copy_other_bytes();
    r.resets_runtime = st.resets_runtime;
    r.resets_zc = st.resets_zc;
    r.ezrc = st.ezrc();
    r.r_wp = st.r_wp();
    r.dlwa = c.dlwa();
    r.fs_waf = st.fs_waf();
    r.space_used_ratio_end = st.space_used_ratio();
    r.io_block_time_s = st.io_block_time_s();
    return r;
  }

  double SustainedWriteBytesPerSec() const override {
    const auto* e = dynamic_cast<const EmulatedDevice*>(fs_->device().get());
    return e == nullptr ? 0.0 : e->options().timing.SustainedWriteBandwidth();
  }

  Json Config() const override {
    Json j = Json::Object();
    Json f = fs_->options().ToJson();
    f.Set("type", "zonekv");
    j.Set("fs", f);
    Json d = fs_->device()->geometry().ToJson();
    d.Set("spec", spec_).Set("name", fs_->device()->name());
    // The timing profile with every effective parameter: a result measured
    // on a device that costs no time must say so.
    if (const auto* e = dynamic_cast<const EmulatedDevice*>(fs_->device().get())) {
      d.Set("timing", e->options().timing.ToJson());
      d.Set("finish", e->options().finish == FinishModel::kPad ? "pad" : "free");
    }
    j.Set("device", d);
    return j;
  }

 private:
  std::string spec_;
  std::shared_ptr<ZoneFs> fs_;
  std::unique_ptr<rocksdb::Env> env_;
};

Status OpenZoneFs(const BenchConfig& config, const Scheme& scheme, std::unique_ptr<BenchStorage>* out) {
  ZoneFsOptions opts;
  for (const auto& [k, v] : scheme.fs_knobs) {
    Status s = SetFsKnob(k, v, &opts);
    if (!s.ok()) return Status::InvalidArgument("scheme " + scheme.name + ": " + s.message());
  }
  for (const auto& [k, v] : config.fs_knobs) {
    Status s = SetFsKnob(k, v, &opts);
    if (!s.ok()) return Status::InvalidArgument("--" + k + "=" + v + ": " + s.message());
  }
  ZONEKV_RETURN_IF_ERROR(opts.Validate());
  std::unique_ptr<ZonedDevice> dev;
  Status s = OpenDevice(config.device_spec, &dev);
  if (s.Is(Status::Code::kInvalidArgument)) return Status::InvalidArgument("--device=" + config.device_spec + ": " + s.message());
  if (!s.ok()) return Status::IOError("--device=" + config.device_spec + ": " + s.ToString());
  ZONEKV_RETURN_IF_ERROR(ZoneFs::Format(dev.get(), opts));
  std::shared_ptr<ZoneFs> fs;
  ZONEKV_RETURN_IF_ERROR(ZoneFs::Mount(std::shared_ptr<ZonedDevice>(std::move(dev)), opts, &fs));
  *out = std::make_unique<ZoneFsStorage>(config.device_spec, std::move(fs));
  return Status::OK();
}

}  // namespace

FsHooks ZoneFsHooks(std::shared_ptr<ZoneFs> fs) {
  FsHooks h;
  h.view = [fs](ViewFiles files) { return fs->View(files); };
  h.sst_view = [fs](const std::vector<uint64_t>& numbers) { return fs->SstView(numbers); };
  h.job_hints = [fs](const CompactionJobHint* job) {
    if (job == nullptr) {
      ZoneFs::ClearThreadJobHint();
      return;
    }
    fs->SetLevelScores(job->level_scores);
    FileHints h;
    h.kind = FileKind::kSst;
    h.job = static_cast<int>(job->job_id);
    h.level = job->output_level;
    h.smallest_key = job->smallest_key;
    h.largest_key = job->largest_key;
    ZoneFs::SetThreadJobHint(h);
  };
  h.job_outputs = [fs](const std::vector<CompactionOutputRange>& outputs) {
    for (const CompactionOutputRange& o : outputs) fs->NoteFileRange(o.path, o.level, o.smallest_key, o.largest_key);
  };
  h.set_blob_gc_target = [fs](uint64_t max_number, uint64_t reserve_bytes) {
    fs->SetBlobGcTarget(max_number, reserve_bytes);
  };
  h.set_reclaimer = [fs](std::shared_ptr<SpaceReclaimer> r) { fs->SetSpaceReclaimer(std::move(r)); };
  h.mark_reclaiming_thread = [](bool on) { ZoneFs::SetThreadReclaiming(on); };
  h.set_new_data_rate = [fs](uint64_t bytes_per_sec) { fs->SetNewDataRate(bytes_per_sec); };
  return h;
}

Status SetFsKnob(const std::string& key, const std::string& value, ZoneFsOptions* opts) {
  if (key == "reserve_zones") {
    char* end = nullptr;
    long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v < -1 || v > 1000000) {
      return Status::InvalidArgument("reserve_zones='" + value + "' is not a number of zones (>= 0, or -1: automatic)");
    }
    opts->reserve_zones = static_cast<int32_t>(v);
    return Status::OK();
  }
  if (key != "emergency_zc") return opts->policy.Set(key, value);
  if (value == "true" || value == "1") {
    opts->emergency_zc = true;
  } else if (value == "false" || value == "0") {
    opts->emergency_zc = false;
  } else {
    return Status::InvalidArgument("emergency_zc='" + value + "' is not a boolean (true/false)");
  }
  return Status::OK();
}


Status OpenStorage(const BenchConfig& config, const Scheme& scheme, std::unique_ptr<BenchStorage>* out) {
  if (config.fs == "posix") {
    if (config.db_dir.empty()) return Status::InvalidArgument("--fs=posix needs --db=DIR (a directory for the database)");
    *out = std::make_unique<PosixStorage>(config.db_dir);
    return Status::OK();
  }
  if (config.fs == "zonekv") return OpenZoneFs(config, scheme, out);
  return Status::InvalidArgument("--fs=" + config.fs + ": unknown file system (use zonekv or posix)");
}

}  // namespace zonekv
