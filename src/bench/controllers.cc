#include "controllers.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "zonekv/blob_gc.h"

namespace zonekv {

namespace {

constexpr char kNative[] = "native";  // RocksDB's own compaction: no picker

Status CheckCompaction(std::string_view key, const std::string& v) {
  if (v == kNative) return Status::OK();
  if (CompactionPickers().Find(v) != nullptr) return Status::OK();
  return Status::InvalidArgument(std::string(key) + "='" + v + "' is not a compaction picker (known: " + kNative +
                                 ", " + CompactionPickers().NameList() + ")");
}

// The compactor's and the observer's layout source: the pickers and S_same
// map SSTs to zones, so they need the SST files and no others.
std::function<Status(FsView*)> SstLayout(std::function<FsView(ViewFiles)> view) {
  return [view = std::move(view)](FsView* out) {
    *out = view(ViewFiles::kSst);
    return Status::OK();
  };
}

}  // namespace

const KnobTable<ControllerOptions>& ControllerKnobs() {
  using O = ControllerOptions;
  static const KnobTable<O> t(
      "compaction or blob GC",
      {ChoiceKnob("compaction", &O::compaction,
                  std::string("compaction picking: native (RocksDB's) | ") + CompactionPickers().NameList(" | ") +
                      " (external compactor)",
                  CheckCompaction),
       ChoiceKnob("blob_gc_cutoff", &O::blob_gc_cutoff, "blob GC age cutoff: " + BlobGcCutoffs().NameList(" | "),
                  [](std::string_view key, const std::string& v) { return BlobGcCutoffs().Check(key, v); })});
  return t;
}

Status ControllerOptions::Set(const std::string& key, const std::string& value) {
  if (ControllerKnobs().Has(key)) return ControllerKnobs().Set(this, key, value);
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
  ZONEKV_RETURN_IF_ERROR(CheckCompaction("compaction", opts.compaction));
  const PolicyEntry<BlobGcCutoffFactory>* cutoff = nullptr;
  ZONEKV_RETURN_IF_ERROR(BlobGcCutoffs().Lookup("blob_gc_cutoff", opts.blob_gc_cutoff, &cutoff));
  const bool native = opts.compaction == kNative;
  if (!native) {
    std::unique_ptr<CompactionPicker> picker;
    ZONEKV_RETURN_IF_ERROR(MakeCompactionPicker(opts.compaction, opts.picker, &picker));
    if (picker->needs_layout() && !view) {
      return Status::InvalidArgument("compaction=" + opts.compaction + " needs zone information (use --fs=zonekv)");
    }
  }
  std::unique_ptr<Controllers> c(new Controllers());
  c->opts_ = opts;
  c->view_ = std::move(view);
  c->job_hints_ = std::move(job_hints);
  if (!native) {
    ZONEKV_RETURN_IF_ERROR(Compactor::PrepareOptions(options, &c->slot_));
  } else if (c->view_) {
    // Native compaction: observed, so that it reports S_same and S_inval too.
    c->native_ = std::make_unique<NativeCompactionObserver>(SstLayout(c->view_));
    options->listeners.push_back(c->native_->listener());
  }
  std::function<FsView()> zones;  // Z_Cutoff reads each full zone's youngest blob file: zones only
  if (c->view_) zones = [v = c->view_] { return v(ViewFiles::kNone); };
  ZONEKV_RETURN_IF_ERROR(cutoff->make(std::move(zones), &c->zcutoff_));
  if (c->zcutoff_) options->listeners.push_back(c->zcutoff_);
  *out = std::move(c);
  return Status::OK();
}

Controllers::~Controllers() { Stop(); }

Status Controllers::Start(rocksdb::DB* db) {
  if (opts_.compaction != kNative) {
    CompactorOptions copts;
    copts.picker = opts_.compaction;
    copts.picker_options = opts_.picker;
    if (view_) copts.layout = SstLayout(view_);
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
