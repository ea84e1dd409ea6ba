#include "controllers.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "zonekv/blob_gc.h"

namespace zonekv {

Status ControllerOptions::Set(const std::string& key, const std::string& value) {
  if (key == "compaction") {
    if (value != "native" && value != "sica" && value != "zaca" && value != "acc") {
      return Status::InvalidArgument("compaction='" + value + "' is not a compaction picker (known: native, sica, zaca, acc)");
    }
    compaction = value;
    return Status::OK();
  }
  if (key == "blob_gc_cutoff") {
    if (value != "fixed" && value != "zcutoff") {
      return Status::InvalidArgument("blob_gc_cutoff='" + value + "' is not a cutoff control (known: fixed, zcutoff)");
    }
    blob_gc_cutoff = value;
    return Status::OK();
  }
  return picker.Set(key, value);
}

Json ControllerOptions::ToJson() const {
  Json j = Json::Object();
  j.Set("compaction", compaction).Set("picker_options", picker.ToJson()).Set("blob_gc_cutoff", blob_gc_cutoff);
  return j;
}

Status Controllers::Prepare(const ControllerOptions& opts, std::function<FsView(ViewFiles)> view,
                            std::function<void(const CompactionJobHint*)> job_hints, rocksdb::Options* options,
                            std::unique_ptr<Controllers>* out) {
  bool needs_view = opts.compaction == "zaca" || opts.compaction == "acc" || opts.blob_gc_cutoff == "zcutoff";
  if (needs_view && !view) {
    return Status::InvalidArgument("--compaction=" + opts.compaction + " --blob_gc_cutoff=" + opts.blob_gc_cutoff +
                                   ": zaca, acc and zcutoff need zone information (use --fs=zonekv)");
  }
  std::unique_ptr<Controllers> c(new Controllers());
  c->opts_ = opts;
  c->view_ = std::move(view);
  c->job_hints_ = std::move(job_hints);
  if (opts.compaction != "native") {
    ZONEKV_RETURN_IF_ERROR(Compactor::PrepareOptions(options, &c->slot_));
  } else if (c->view_) {
    // Native compaction: observed, so that it reports S_same and S_inval too.
    std::function<FsView(ViewFiles)> v = c->view_;
    c->native_ = std::make_unique<NativeCompactionObserver>([v](FsView* out) {
      *out = v(ViewFiles::kSst);  // S_same maps SSTs to zones
      return Status::OK();
    });
    options->listeners.push_back(c->native_->listener());
  }
  if (opts.blob_gc_cutoff == "zcutoff") {
    // Z_Cutoff reads each full zone's youngest blob file: zones only.
    std::function<FsView(ViewFiles)> v = c->view_;
    c->zcutoff_ = std::make_shared<ZCutoffController>([v] { return v(ViewFiles::kNone); });
    options->listeners.push_back(c->zcutoff_);
  }
  *out = std::move(c);
  return Status::OK();
}

Controllers::~Controllers() { Stop(); }

Status Controllers::Start(rocksdb::DB* db) {
  if (opts_.compaction != "native") {
    CompactorOptions copts;
    copts.picker = opts_.compaction;
    copts.picker_options = opts_.picker;
    if (view_) {
      std::function<FsView(ViewFiles)> view = view_;
      copts.layout = [view](FsView* out) {
        *out = view(ViewFiles::kSst);  // pickers and S_same read SSTs only
        return Status::OK();
      };
    }
    if (job_hints_) {
      auto sink = job_hints_;
      copts.on_job_start = [sink](const CompactionJobHint& h) { sink(&h); };
      copts.on_job_end = [sink](uint64_t, const Status&) { sink(nullptr); };
    }
    ZONEKV_RETURN_IF_ERROR(Compactor::Start(db, db->DefaultColumnFamily(), copts, slot_, &compactor_));
  }
  if (zcutoff_) zcutoff_->Attach(db);
  return Status::OK();
}

void Controllers::Stop() {
  if (zcutoff_) zcutoff_->Detach();
  if (compactor_) compactor_->Stop();
}

Json ControllerStats::ToJson() const {
  Json j = Json::Object();
  if (compactor) j.Set("compactor", compactor->ToJson());
  if (zcutoff) j.Set("zcutoff", zcutoff->ToJson());
  return j;
}

ControllerStats Controllers::Stats() const {
  ControllerStats st;
  if (compactor_) st.compactor = compactor_->Stats();
  if (native_) st.compactor = native_->Stats();
  if (zcutoff_) st.zcutoff = zcutoff_->Stats();
  return st;
}

}  // namespace zonekv
