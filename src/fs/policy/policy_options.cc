#include <functional>
#include <map>

#include "policies.h"
#include "zonekv/flags.h"

namespace zonekv {

namespace {

bool OneOf(const std::string& v, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (v == n) return true;
  }
  return false;
}

Status Percent(const std::string& key, const std::string& value, double* out) {
  double v = 0;
  Status s = ParseDouble(value, &v);
  if (!s.ok() || v < 0 || v > 100) {
    return Status::InvalidArgument(key + "='" + value + "' is not a percentage in [0, 100]");
  }
  *out = v;
  return Status::OK();
}

Status Fraction(const std::string& key, const std::string& value, double* out) {
  double v = 0;
  Status s = ParseDouble(value, &v);
  if (!s.ok() || v < 0 || v > 1) {
    return Status::InvalidArgument(key + "='" + value + "' is not a fraction in [0, 1]");
  }
  *out = v;
  return Status::OK();
}

Status Positive(const std::string& key, const std::string& value, double* out) {
  double v = 0;
  Status s = ParseDouble(value, &v);
  if (!s.ok() || v <= 0) return Status::InvalidArgument(key + "='" + value + "' is not a positive number");
  *out = v;
  return Status::OK();
}

}  // namespace

Status FsPolicyOptions::Set(const std::string& key, const std::string& value) {
  if (key == "alloc") { alloc = value; return Validate(); }
  if (key == "blob_alloc") { blob_alloc = value; return Validate(); }
  if (key == "zc") { zc = value; return Validate(); }
  if (key == "zc_start_level") return Percent(key, value, &zc_start_level_pct);
  if (key == "zc_slope") return Positive(key, value, &zc_slope);
  if (key == "zc_trigger") return Percent(key, value, &zc_trigger_free_pct);
  if (key == "zc_defer_blob") return Percent(key, value, &zc_defer_blob_pct);
  if (key == "zc_sst_only") {
    if (value == "true" || value == "1") { zc_sst_only = true; return Status::OK(); }
    if (value == "false" || value == "0") { zc_sst_only = false; return Status::OK(); }
    return Status::InvalidArgument("zc_sst_only='" + value + "' is not a boolean (true/false)");
  }
  if (key == "reset") { reset = value; return Validate(); }
  if (key == "lazy_twp") return Fraction(key, value, &reset_lazy_twp);
  if (key == "reset_t") return Fraction(key, value, &reset_far_t);
  if (key == "reset_func") { reset_far_func = value; return Validate(); }
  if (key == "finish_threshold") return Percent(key, value, &finish_threshold_pct);
  if (key == "occupancy_threshold") {
    double occ = 0;
    ZONEKV_RETURN_IF_ERROR(Percent(key, value, &occ));
    finish_threshold_pct = 100 - occ;
    return Status::OK();
  }
  return Status::InvalidArgument(
      "unknown file-system policy knob '" + key +
      "' (known: alloc, blob_alloc, zc, zc_start_level, zc_slope, zc_trigger, zc_sst_only, zc_defer_blob, reset, "
      "lazy_twp, reset_t, reset_func, finish_threshold, occupancy_threshold)");
}

Status FsPolicyOptions::Validate() const {
  if (!OneOf(alloc, {"liza", "caza"})) {
    return Status::InvalidArgument("alloc='" + alloc + "' is not an allocation policy for SST and other files (known: liza, caza)");
  }
  if (!blob_alloc.empty() && !OneOf(blob_alloc, {"liza", "baza"})) {
    return Status::InvalidArgument("blob_alloc='" + blob_alloc + "' is not an allocation policy for blob files (known: liza, baza)");
  }
  if (!OneOf(zc, {"zenfs", "greedy", "cost-benefit", "ccb", "off"})) {
    return Status::InvalidArgument("zc='" + zc + "' is not a cleaning policy (known: zenfs, greedy, cost-benefit, ccb, off)");
  }
  if (!OneOf(reset, {"eager", "lazy", "far"})) {
    return Status::InvalidArgument("reset='" + reset + "' is not a reset policy (known: eager, lazy, far)");
  }
  if (!OneOf(reset_far_func, {"linear", "log", "exp"})) {
    return Status::InvalidArgument("reset_func='" + reset_far_func + "' is not a FAR function (known: linear, log, exp)");
  }
  if (reset == "far" && reset_far_t <= 0) {
    return Status::InvalidArgument("reset_t must be > 0 for reset=far");
  }
  return Status::OK();
}

Json FsPolicyOptions::ToJson() const {
  Json j = Json::Object();
  j.Set("alloc", alloc)
      .Set("blob_alloc", blob_alloc.empty() ? alloc : blob_alloc)
      .Set("zc", zc)
      .Set("zc_start_level", zc_start_level_pct)
      .Set("zc_slope", zc_slope)
      .Set("zc_trigger", zc_trigger_free_pct)
      .Set("zc_sst_only", zc_sst_only)
      .Set("zc_defer_blob", zc_defer_blob_pct)
      .Set("reset", reset)
      .Set("lazy_twp", reset_lazy_twp)
      .Set("reset_t", reset_far_t)
      .Set("reset_func", reset_far_func)
      .Set("finish_threshold", finish_threshold_pct);
  return j;
}

Status MakeAllocationPolicy(const std::string& name, const FsPolicyOptions& opts,
                            std::unique_ptr<AllocationPolicy>* out) {
  const bool separate_blobs = opts.blob_alloc == "baza";
  if (name == "liza") {
    *out = NewLizaAllocation(separate_blobs);
  } else if (name == "caza") {
    *out = NewCazaAllocation(NewLizaAllocation(separate_blobs));
  } else if (name == "baza") {
    *out = NewBazaAllocation();
  } else {
    return Status::InvalidArgument("'" + name + "' is not an allocation policy (known: liza, caza, baza)");
  }
  return Status::OK();
}

Status MakeCleaningPolicy(const FsPolicyOptions& opts, std::unique_ptr<CleaningPolicy>* out) {
  ZONEKV_RETURN_IF_ERROR(opts.Validate());
  if (opts.zc == "zenfs") *out = NewZenFsCleaning(opts.zc_start_level_pct, opts.zc_slope);
  else if (opts.zc == "greedy") *out = NewGreedyCleaning(opts.zc_trigger_free_pct);
  else if (opts.zc == "cost-benefit") *out = NewCostBenefitCleaning(opts.zc_trigger_free_pct);
  else if (opts.zc == "ccb") *out = NewCcbCleaning(opts.zc_trigger_free_pct);
  else *out = NewNoCleaning();
  if (opts.zc_defer_blob_pct > 0 && opts.zc != "off") *out = NewBlobDeferringCleaning(std::move(*out), opts.zc_defer_blob_pct);
  return Status::OK();
}

Status MakeResetPolicy(const FsPolicyOptions& opts, std::unique_ptr<ResetPolicy>* out) {
  ZONEKV_RETURN_IF_ERROR(opts.Validate());
  if (opts.reset == "eager") {
    *out = NewEagerReset();
  } else if (opts.reset == "lazy") {
    *out = NewLazyReset(opts.reset_lazy_twp);
  } else {
    FarFunc f = opts.reset_far_func == "log" ? FarFunc::kLog
                : opts.reset_far_func == "exp" ? FarFunc::kExp
                                               : FarFunc::kLinear;
    *out = NewFarReset(opts.reset_far_t, f);
  }
  return Status::OK();
}

}  // namespace zonekv
