// Constructors of the individual file-system policies and the pure functions
// they are built on, exposed for unit tests. Users select policies by name
// through the registries in zonekv/fs_policy.h; each policy's file defines
// its registry entry (XxxEntry() below), and registry.cc lists them.
#pragma once

#include <memory>

#include "zonekv/fs_policy.h"

namespace zonekv {

using AllocationEntry = PolicyEntry<AllocationFactory>;
using CleaningEntry = PolicyEntry<CleaningFactory>;
using ResetEntry = PolicyEntry<ResetFactory>;
using FinishEntry = PolicyEntry<FinishFactory>;

// avoid_blob_zones: keep non-blob files out of zones holding blob files
// (set when blob files have an allocator of their own).
std::unique_ptr<AllocationPolicy> NewLizaAllocation(bool avoid_blob_zones = false);
std::unique_ptr<AllocationPolicy> NewBazaAllocation();
// SST placement by compaction partners; other files go to `fallback`.
std::unique_ptr<AllocationPolicy> NewCazaAllocation(std::unique_ptr<AllocationPolicy> fallback);
// A blob zone: it has held blob files (YBIZ set) and holds no other valid data.
bool IsBlobZone(const ZoneView& zone);

// Shared by the allocation policies (alloc_common.cc).
AllocDecision UseZone(uint32_t zone, const char* reason = "");
// Whether an empty zone may be opened without exceeding the active limit.
bool ActiveZoneFree(const FsView& view);
// After a policy's own preference and opening an empty zone both failed
// (`empty`: an empty zone, if any; `cheapest`: the active non-busy zone with
// the least remaining capacity; `any_partial`: the non-full zone with the
// most): finish `cheapest` to free an active resource when an empty zone
// waits for it; with no empty zone left, append to `any_partial`; else NoSpace.
AllocDecision LastResortAllocation(const ZoneView* empty, const ZoneView* cheapest, const ZoneView* any_partial);

std::unique_ptr<CleaningPolicy> NewZenFsCleaning(double start_level_pct, double slope);
// Hides full all-blob zones from `inner` while free% > floor_pct (zc_defer_blob.cc).
std::unique_ptr<CleaningPolicy> NewBlobDeferringCleaning(std::unique_ptr<CleaningPolicy> inner, double floor_pct);
std::unique_ptr<CleaningPolicy> NewGreedyCleaning(double trigger_free_pct);
std::unique_ptr<CleaningPolicy> NewCostBenefitCleaning(double trigger_free_pct);
std::unique_ptr<CleaningPolicy> NewCcbCleaning(double trigger_free_pct);
std::unique_ptr<CleaningPolicy> NewNoCleaning();

std::unique_ptr<ResetPolicy> NewEagerReset();
std::unique_ptr<ResetPolicy> NewLazyReset(double t_wp);
enum class FarFunc { kLinear, kLog, kExp };
std::unique_ptr<ResetPolicy> NewFarReset(double turning_point, FarFunc func);
// The names of FarFunc ("linear", "log", "exp"), in enum order.
const std::vector<std::string>& FarFuncNames();
// REQUIRES: `name` is one of FarFuncNames() (FsPolicyOptions::Validate checks).
FarFunc ParseFarFunc(const std::string& name);

std::unique_ptr<FinishPolicy> NewThresholdFinish(double finish_threshold_pct);

// ZenFS lifetime distance between a zone's and a file's write-lifetime hint:
// 0 for an exact match of unset hints, 1..3 when the zone's data lives
// longer, 50 for equal set hints, 100 otherwise (never a good match).
int LifetimeDiff(Lifetime zone, Lifetime file);

// FAR's write-pointer threshold as a fraction of zone capacity, for a free
// ratio in [0, 1]: 1 when free_ratio >= turning_point, else f(free/T) with
// linear x, log ln(1+(e-1)x), exp (e^x-1)/(e-1).
double FarThreshold(double free_ratio, double turning_point, FarFunc func);

// Cost-benefit score of cleaning a full zone: age * (1 - u) / (2u) with
// u = valid / capacity and age = now - last write, both from the view.
// Infinity for a zone with no valid data.
double CostBenefitScore(const ZoneView& zone, uint64_t now_us);

// True when the zone may be chosen as a cleaning victim: full, not busy,
// holding some valid and some invalid data.
bool CleanableZone(const ZoneView& zone);

// True when the free ratio (in percent) is below `trigger_free_pct`.
bool BelowFreeTrigger(const FsView& view, double trigger_free_pct);

}  // namespace zonekv
