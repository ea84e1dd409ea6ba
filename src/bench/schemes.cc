// The named schemes: presets over file-system and RocksDB knobs (the papers'
// configurations; docs/architecture.md maps them to the papers).
//
// Each scheme lists only the knobs it sets; every knob stays overridable on
// the command line (--alloc, --zc, ..., or the RocksDB option's own flag).
// Add a scheme here when its policies exist.
#include "controllers.h"
#include "zonekv/bench.h"

namespace zonekv {

namespace {

std::vector<Scheme> MakeSchemes() {
  return {
      {"baseline",
       "ZenFS as published: liza allocation, zenfs cleaning that also migrates blob files, "
       "eager reset, RocksDB's native compaction, blob GC age cutoff 0.25",
       {{"alloc", "liza"}, {"zc", "zenfs"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "fixed"}}},
      {"lazy",
       "baseline with lazy runtime reset (reset a zone only when its write pointer is at the end)",
       {{"alloc", "liza"}, {"zc", "zenfs"}, {"zc_sst_only", "false"}, {"reset", "lazy"}, {"reset_lazy_twp", "1.0"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "fixed"}}},
      {"far",
       "baseline with FAR free-space adaptive runtime reset (T = 0.7, linear)",
       {{"alloc", "liza"}, {"zc", "zenfs"}, {"zc_sst_only", "false"}, {"reset", "far"}, {"reset_far_t", "0.7"},
        {"reset_far_func", "linear"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "fixed"}}},
      {"baza",
       "Same-Victim GC's BAZA: baseline with BlobDB-aware allocation of blob files (oldest-first zones)",
       {{"alloc", "liza"}, {"blob_alloc", "baza"}, {"zc", "zenfs"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "fixed"}}},
      {"baza+",
       "Same-Victim GC's BAZA+: BAZA plus Z_Cutoff (blob GC collects exactly the blob files in full zones); "
       "zone cleaning leaves all-blob zones to blob GC above 5% free (zc_defer_blob_pct=0: the paper's plain ZenFS cleaning)",
       {{"alloc", "liza"}, {"blob_alloc", "baza"}, {"zc", "zenfs"}, {"zc_sst_only", "false"}, {"zc_defer_blob_pct", "5"},
        {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "zcutoff"}}},
      {"baza+space",
       "baza+ with the space-pressure blob GC: below 15% free (or when a writer waits for space) the oldest blob "
       "files whose collection frees the most zones are collected (docs/space.md)",
       {{"alloc", "liza"}, {"blob_alloc", "baza"}, {"zc", "zenfs"}, {"zc_sst_only", "false"}, {"zc_defer_blob_pct", "5"},
        {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "zcutoff"}, {"space_gc", "zones"}, {"space_gc_free_pct", "15"}}},
      {"caza",
       "Same-Zone Compaction paper's CAZA: compaction-aware SST allocation, greedy cleaning, sica compaction",
       {{"alloc", "caza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "sica"}, {"blob_gc_cutoff", "fixed"}}},
      {"a-caza",
       "Same-Zone Compaction paper's A-CAZA: CAZA allocation with the adaptive compaction controller (acc)",
       {{"alloc", "caza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "acc"}, {"blob_gc_cutoff", "fixed"}}},
      {"a-caza+",
       "A-CAZA whose zaca picks the group that empties the zones it touches, per byte it writes "
       "(zaca_score=kill-per-write: the share of each touched zone's live data the job invalidates x "
       "input / (input + overlap); docs/formulas.md)",
       {{"alloc", "caza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "acc"}, {"zaca_score", "kill-per-write"}, {"blob_gc_cutoff", "fixed"}}},
      {"n-caza",
       "CAZA allocation with RocksDB's native compaction: the compaction observer tells CAZA what each native job "
       "(and subcompaction) writes",
       {{"alloc", "caza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "fixed"}}},
      {"h-caza",
       "A-CAZA at native speed (issue 19): CAZA allocation; RocksDB's own leveled compaction (trivial moves, "
       "subcompactions) while free space is at least ACC's turning point, ACC's picker (zaca) below it",
       {{"alloc", "caza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "acc"}, {"hybrid_native_free_pct", "25"}, {"blob_gc_cutoff", "fixed"}}},
      {"h-caza+",
       "h-caza whose picker phases score zaca's groups by the zones a job empties, per byte written "
       "(zaca_score=kill-per-write, as a-caza+), and order sica's levels as its native phases do "
       "(sica_order=min-overlap, RocksDB's default kMinOverlappingRatio)",
       {{"alloc", "caza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "acc"}, {"hybrid_native_free_pct", "25"}, {"zaca_score", "kill-per-write"},
        {"sica_order", "min-overlap"}, {"blob_gc_cutoff", "fixed"}}},
      {"n-liza",
       "the Same-Zone Compaction paper's own baseline: RocksDB's native compaction picking the largest file of a "
       "level first (compaction_pri=kByCompensatedSize: the paper's SICA; RocksDB's default since 6.0 is "
       "kMinOverlappingRatio), liza allocation, greedy cleaning, eager reset",
       {{"alloc", "liza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}, {"compaction_pri", "kByCompensatedSize"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "fixed"}}},
      {"s-liza",
       "the Same-Zone Compaction paper's baseline on zonekv's external compactor: sica (RocksDB's leveled picking), "
       "liza allocation, greedy cleaning, eager reset; like for like with caza and a-caza (same compactor)",
       {{"alloc", "liza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "sica"}, {"blob_gc_cutoff", "fixed"}}},
      {"a-liza",
       "Same-Zone Compaction paper's A-LIZA: liza allocation, greedy cleaning (that paper's ZenFS), eager reset, "
       "the adaptive compaction controller (acc: sica, zaca when free space is scarce)",
       {{"alloc", "liza"}, {"zc", "greedy"}, {"zc_sst_only", "false"}, {"reset", "eager"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "acc"}, {"blob_gc_cutoff", "fixed"}}},
      {"coop",
       "issue 20's first cut, every paper's mechanism in one stack: BAZA + Z_Cutoff for blob files, CAZA for SSTs "
       "under RocksDB's native compaction (n-caza), FAR runtime reset, the space-pressure blob GC, zone cleaning "
       "that leaves all-blob zones to blob GC above 5% free",
       {{"alloc", "caza"}, {"blob_alloc", "baza"}, {"zc", "zenfs"}, {"zc_sst_only", "false"},
        {"zc_defer_blob_pct", "5"}, {"reset", "far"}, {"reset_far_t", "0.7"}, {"reset_far_func", "linear"}},
       {{"blob_garbage_collection_age_cutoff", "0.25"}},
       {{"compaction", "native"}, {"blob_gc_cutoff", "zcutoff"}, {"space_gc", "zones"}, {"space_gc_free_pct", "15"}}},
  };
}

}  // namespace

const std::vector<OptionHelp>& ControllerKnobOptions() {
  static const std::vector<OptionHelp> kKnobs = [] {
    std::vector<OptionHelp> knobs;
    for (const auto& k : ControllerKnobs().knobs()) knobs.push_back({k.name, k.help});
    for (const auto& k : PickerKnobs().knobs()) knobs.push_back({k.name, k.help});
    return knobs;
  }();
  return kKnobs;
}

const std::vector<OptionHelp>& FsKnobOptions() {
  static const std::vector<OptionHelp> kKnobs = [] {
    std::vector<OptionHelp> knobs;
    for (const auto& k : FsPolicyKnobs().knobs()) knobs.push_back({k.name, k.help});
    knobs.push_back({"emergency_zc",
                     "clean the most-garbage zone when a writer starves and the policy picks none (true/false, "
                     "default true; ZenFS: false)"});
    knobs.push_back({"reserve_zones",
                     "empty zones kept for recovery after NoSpace (-1 = min(2, data zones / 8); docs/space.md)"});
    return knobs;
  }();
  return kKnobs;
}

std::vector<Scheme> AllSchemes() { return MakeSchemes(); }

const char* DefaultScheme(const std::string& fs) { return fs == "posix" ? "baseline" : "coop"; }

Status LookupScheme(const std::string& name, Scheme* scheme) {
  std::string known;
  for (auto& s : MakeSchemes()) {
    if (s.name == name) {
      *scheme = s;
      return Status::OK();
    }
    known += (known.empty() ? "" : ", ") + s.name;
  }
  return Status::NotFound("unknown scheme '" + name + "' (known: " + known + ")");
}

}  // namespace zonekv
