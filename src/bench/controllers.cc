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

// The zones and the listed SSTs only (one job's files); empty without sst_view.
std::function<Status(const std::vector<uint64_t>&, FsView*)> SstLayoutOf(
    std::function<FsView(const std::vector<uint64_t>&)> sst_view) {
  if (!sst_view) return {};
  return [sst_view = std::move(sst_view)](const std::vector<uint64_t>& numbers, FsView* out) {
    *out = sst_view(numbers);
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
       Knob<O>{"hybrid_native_free_pct",
               "with an external picker: RocksDB compacts natively while free space % is at least this, the picker "
               "below it (0 = the picker always; docs/compaction.md)",
               [](O* o, const std::string& v) {
                 ZONEKV_RETURN_IF_ERROR(ParsePercentKnob("hybrid_native_free_pct", v, &o->hybrid_native_free_pct));
                 if (o->hybrid_native_free_pct >= 100) {
                   return Status::InvalidArgument("hybrid_native_free_pct=" + v + " must be below 100");
                 }
                 return Status::OK();
               },
               [](const O& o) { return Json(o.hybrid_native_free_pct); }},
       ChoiceKnob("blob_gc_cutoff", &O::blob_gc_cutoff, "blob GC age cutoff: " + BlobGcCutoffs().NameList(" | "),
                  [](std::string_view key, const std::string& v) { return BlobGcCutoffs().Check(key, v); }),
       Knob<O>{"space_gc",
               "blob GC driven by free space: " + SpaceGcPolicies().NameList(" | ") + " (docs/space.md)",
               [](O* o, const std::string& v) {
                 ZONEKV_RETURN_IF_ERROR(SpaceGcPolicies().Check("space_gc", v));
                 o->space_gc.policy = v;
                 return Status::OK();
               },
               [](const O& o) { return Json(o.space_gc.policy); }},
       Knob<O>{"space_gc_free_pct", "space-pressure blob GC: collect when free space % is below this",
               [](O* o, const std::string& v) { return ParsePercentKnob("space_gc_free_pct", v, &o->space_gc.space_gc_free_pct); },
               [](const O& o) { return Json(o.space_gc.space_gc_free_pct); }}});
  return t;
}

Status ControllerOptions::Set(const std::string& key, const std::string& value) {
  if (ControllerKnobs().Has(key)) return ControllerKnobs().Set(this, key, value);
  return picker.Set(key, value);
}

Json ControllerOptions::ToJson() const {
  Json j = Json::Object();
  j.Set("compaction", compaction)
      .Set("hybrid_native_free_pct", hybrid_native_free_pct)
      .Set("picker_options", picker.ToJson())
      .Set("blob_gc_cutoff", blob_gc_cutoff)
      .Set("space_gc", space_gc.policy)
      .Set("space_gc_free_pct", space_gc.space_gc_free_pct);
  return j;
}

Status Controllers::Prepare(const ControllerOptions& opts, FsHooks fs, rocksdb::Options* options,
                            std::unique_ptr<Controllers>* out) {
  ZONEKV_RETURN_IF_ERROR(CheckCompaction("compaction", opts.compaction));
  const PolicyEntry<BlobGcCutoffFactory>* cutoff = nullptr;
  ZONEKV_RETURN_IF_ERROR(BlobGcCutoffs().Lookup("blob_gc_cutoff", opts.blob_gc_cutoff, &cutoff));
  const bool native = opts.compaction == kNative;
  const bool hybrid = !native && opts.hybrid_native_free_pct > 0;
  if (native && opts.hybrid_native_free_pct > 0) {
    return Status::InvalidArgument("hybrid_native_free_pct needs an external picker (--compaction=" +
                                   CompactionPickers().NameList("|") + "); compaction=native is native throughout");
  }
  if (hybrid && !fs.view) {
    return Status::InvalidArgument("hybrid_native_free_pct needs the free space of zones (use --fs=zonekv)");
  }
  if (!native) {
    std::unique_ptr<CompactionPicker> picker;
    ZONEKV_RETURN_IF_ERROR(MakeCompactionPicker(opts.compaction, opts.picker, &picker));
    if (picker->needs_layout() && !fs.view) {
      return Status::InvalidArgument("compaction=" + opts.compaction + " needs zone information (use --fs=zonekv)");
    }
  }
  std::unique_ptr<Controllers> c(new Controllers());
  c->opts_ = opts;
  c->fs_ = std::move(fs);
  if (!native) {
    ZONEKV_RETURN_IF_ERROR(Compactor::PrepareOptions(options, &c->slot_, hybrid));
  } else if (c->fs_.view) {
    // Native compaction: observed, so that it reports S_same and S_inval
    // too, and so that a compaction-aware allocator (CAZA) learns what each
    // job writes.
    std::function<void(const CompactionJobHint&)> start;
    std::function<void(uint64_t, const Status&)> end;
    if (c->fs_.job_hints) {
      auto sink = c->fs_.job_hints;
      start = [sink](const CompactionJobHint& h) { sink(&h); };
      end = [sink](uint64_t, const Status&) { sink(nullptr); };
    }
    c->native_ = std::make_unique<NativeCompactionObserver>(SstLayout(c->fs_.view), std::move(start), std::move(end),
                                                            SstLayoutOf(c->fs_.sst_view));
    options->listeners.push_back(c->native_->listener());
  }
  std::function<FsView()> zones;  // Z_Cutoff reads each full zone's youngest blob file: zones only
  if (c->fs_.view) zones = [v = c->fs_.view] { return v(ViewFiles::kNone); };
  ZONEKV_RETURN_IF_ERROR(cutoff->make(std::move(zones), &c->zcutoff_));
  if (c->zcutoff_) options->listeners.push_back(c->zcutoff_);

  const PolicyEntry<SpaceGcFactory>* space_gc = nullptr;
  ZONEKV_RETURN_IF_ERROR(SpaceGcPolicies().Lookup("space_gc", opts.space_gc.policy, &space_gc));
  if (std::unique_ptr<SpaceGcPolicy> policy = space_gc->make(opts.space_gc)) {
    if (!c->fs_.view || !c->fs_.set_reclaimer) {
      return Status::InvalidArgument("space_gc=" + opts.space_gc.policy + " needs zone information (use --fs=zonekv)");
    }
    CompactionPauser pauser;
    if (!native) {
      // The compactor exists only from Start on.
      Controllers* self = c.get();
      pauser.pause = [self] { self->compactor_->Pause(); };
      pauser.resume = [self] { self->compactor_->Resume(); };
    }
    c->space_gc_ = std::make_shared<SpaceGcController>(std::move(policy), opts.space_gc,
                                                       SpaceGcFsHooks{c->fs_.view, c->fs_.set_blob_gc_target, c->fs_.mark_reclaiming_thread,
                                                                      c->fs_.set_new_data_rate},
                                                       std::move(pauser), c->zcutoff_);
    options->listeners.push_back(c->space_gc_);
  }
  *out = std::move(c);
  return Status::OK();
}

Controllers::~Controllers() { Stop(); }

Status Controllers::Start(rocksdb::DB* db) {
  if (opts_.compaction != kNative) {
    CompactorOptions copts;
    copts.picker = opts_.compaction;
    copts.picker_options = opts_.picker;
    if (fs_.view) copts.layout = SstLayout(fs_.view);
    copts.layout_of = SstLayoutOf(fs_.sst_view);
    if (opts_.hybrid_native_free_pct > 0) {
      copts.native_free_ratio = opts_.hybrid_native_free_pct / 100;
      copts.free_ratio = [v = fs_.view] { return v(ViewFiles::kNone).free_ratio(); };
    }
    if (fs_.job_hints) {
      auto sink = fs_.job_hints;
      copts.on_job_start = [sink](const CompactionJobHint& h) { sink(&h); };
      copts.on_job_end = [sink](uint64_t, const Status&) { sink(nullptr); };
    }
    copts.on_job_outputs = fs_.job_outputs;
    ZONEKV_RETURN_IF_ERROR(Compactor::Start(db, db->DefaultColumnFamily(), copts, slot_, &compactor_));
  }
  if (zcutoff_) zcutoff_->Attach(db);
  if (space_gc_) {
    space_gc_->Attach(db);
    fs_.set_reclaimer(space_gc_);
  }
  return Status::OK();
}

void Controllers::Stop() {
  if (space_gc_) {
    fs_.set_reclaimer(nullptr);
    space_gc_->Detach();
  }
  if (zcutoff_) zcutoff_->Detach();
  if (compactor_) compactor_->Stop();
}

Json ControllerStats::ToJson() const {
  Json j = Json::Object();
  if (compactor) j.Set("compactor", compactor->ToJson());
  if (zcutoff) j.Set("zcutoff", zcutoff->ToJson());
  if (space_gc) j.Set("space_gc", space_gc->ToJson());
  return j;
}

ControllerStats Controllers::Stats() const {
  ControllerStats st;
  if (compactor_) st.compactor = compactor_->Stats();
  if (native_) st.compactor = native_->Stats();
  if (zcutoff_) st.zcutoff = zcutoff_->Stats();
  if (space_gc_) st.space_gc = space_gc_->Stats();
  return st;
}

}  // namespace zonekv
