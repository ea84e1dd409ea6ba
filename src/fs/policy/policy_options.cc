// FsPolicyOptions: the knob table, validation, and making the policies.
#include "policies.h"

namespace zonekv {

namespace {

using Opts = FsPolicyOptions;

template <typename Factory>
std::function<Status(std::string_view, const std::string&)> In(const PolicyRegistry<Factory>& r) {
  return [&r](std::string_view key, const std::string& v) { return r.Check(key, v); };
}

Status CheckFarFunc(std::string_view key, const std::string& v) {
  for (const auto& n : FarFuncNames()) {
    if (n == v) return Status::OK();
  }
  return Status::InvalidArgument(std::string(key) + "='" + v + "' is not a FAR function (known: linear, log, exp)");
}

// blob_alloc: empty means "as alloc"; the JSON records the effective policy.
Knob<Opts> BlobAllocKnob() {
  Knob<Opts> k = ChoiceKnob("blob_alloc", &Opts::blob_alloc,
                            "zone allocation for blob files: " + BlobAllocationPolicies().NameList("|") +
                                " (default: as alloc)",
                            In(BlobAllocationPolicies()));
  k.get = [](const Opts& o) { return Json(o.blob_alloc.empty() ? o.alloc : o.blob_alloc); };
  return k;
}

}  // namespace

const KnobTable<FsPolicyOptions>& FsPolicyKnobs() {
  static const KnobTable<Opts> t(
      "file-system policy",
      {
          ChoiceKnob("alloc", &Opts::alloc,
                     "zone allocation for SST, WAL and other files: " + FileAllocationPolicies().NameList("|"),
                     In(FileAllocationPolicies())),
          BlobAllocKnob(),
          ChoiceKnob("zc", &Opts::zc, "zone cleaning: " + CleaningPolicies().NameList("|"), In(CleaningPolicies())),
          PercentKnob("zc_start_level_pct", &Opts::zc_start_level_pct,
                      "zenfs cleaning: start when free space % is below this"),
          PositiveKnob("zc_slope", &Opts::zc_slope, "zenfs cleaning: garbage% > 100 - slope * (start_level - free%)"),
          PercentKnob("zc_trigger_free_pct", &Opts::zc_trigger_free_pct,
                      "greedy/cost-benefit/ccb cleaning: start when free space % is below this"),
          BoolKnob("zc_sst_only", &Opts::zc_sst_only, "cleaning migrates only SST extents (true/false)"),
          PercentKnob("zc_defer_blob_pct", &Opts::zc_defer_blob_pct,
                      "leave full all-blob zones to blob GC while free space % is above this (0 = off)"),
          ChoiceKnob("reset", &Opts::reset, "runtime zone reset: " + ResetPolicies().NameList("|"),
                     In(ResetPolicies())),
          FractionKnob("reset_lazy_twp", &Opts::reset_lazy_twp,
                       "lazy reset: write-pointer threshold, a fraction of zone capacity"),
          FractionKnob("reset_far_t", &Opts::reset_far_t, "far reset: free-ratio turning point T (a fraction)"),
          ChoiceKnob("reset_far_func", &Opts::reset_far_func, "far reset: linear|log|exp", CheckFarFunc),
          ChoiceKnob("finish", &Opts::finish, "early zone finish: " + FinishPolicies().NameList("|"),
                     In(FinishPolicies())),
          PercentKnob("finish_threshold_pct", &Opts::finish_threshold_pct,
                      "threshold finish: finish a zone when less than this % of it remains (the GC-vs-GC-free "
                      "study's occupancy threshold is 100 - this)"),
      },
      {{"zc_start_level", "zc_start_level_pct"},
       {"zc_trigger", "zc_trigger_free_pct"},
       {"zc_defer_blob", "zc_defer_blob_pct"},
       {"lazy_twp", "reset_lazy_twp"},
       {"reset_t", "reset_far_t"},
       {"reset_func", "reset_far_func"},
       {"finish_threshold", "finish_threshold_pct"},
       {"occupancy_threshold", "finish_threshold_pct (= 100 - occupancy threshold)"}});
  return t;
}

Status FsPolicyOptions::Set(const std::string& key, const std::string& value) {
  return FsPolicyKnobs().Set(this, key, value);
}

Status FsPolicyOptions::Validate() const {
  ZONEKV_RETURN_IF_ERROR(FileAllocationPolicies().Check("alloc", alloc));
  if (!blob_alloc.empty()) ZONEKV_RETURN_IF_ERROR(BlobAllocationPolicies().Check("blob_alloc", blob_alloc));
  ZONEKV_RETURN_IF_ERROR(CleaningPolicies().Check("zc", zc));
  ZONEKV_RETURN_IF_ERROR(ResetPolicies().Check("reset", reset));
  ZONEKV_RETURN_IF_ERROR(CheckFarFunc("reset_far_func", reset_far_func));
  ZONEKV_RETURN_IF_ERROR(FinishPolicies().Check("finish", finish));
  if (!(reset_far_t > 0 && reset_far_t <= 1)) {
    return Status::InvalidArgument("reset_far_t=" + std::to_string(reset_far_t) + " is not a free ratio in (0, 1]");
  }
  return Status::OK();
}

Json FsPolicyOptions::ToJson() const { return FsPolicyKnobs().ToJson(*this); }

Status MakeFsPolicies(const FsPolicyOptions& opts, FsPolicies* out) {
  ZONEKV_RETURN_IF_ERROR(opts.Validate());
  FsPolicies p;
  AllocationContext ctx;
  if (!opts.blob_alloc.empty()) {
    p.blob_alloc = BlobAllocationPolicies().Find(opts.blob_alloc)->make(opts, AllocationContext());
    ctx.blob_zones_reserved = p.blob_alloc->DedicatesZones();
  }
  p.alloc = FileAllocationPolicies().Find(opts.alloc)->make(opts, ctx);
  p.zc = CleaningPolicies().Find(opts.zc)->make(opts);
  if (opts.zc_defer_blob_pct > 0 && p.zc->Cleans()) {
    p.zc = NewBlobDeferringCleaning(std::move(p.zc), opts.zc_defer_blob_pct);
  }
  p.reset = ResetPolicies().Find(opts.reset)->make(opts);
  p.finish = FinishPolicies().Find(opts.finish)->make(opts);
  *out = std::move(p);
  return Status::OK();
}

}  // namespace zonekv
