// Ftl: a host-side flash translation layer that exposes a random-write
// block device of 4 KiB logical blocks over a ZonedDevice, in the manner of
// dm-zap, with pluggable GC victim policies (greedy, cost-benefit, fast-cb,
// approx-cb, fegc, ccb; see "Constant Time Garbage Collection in SSDs").
//
// Design (see notes/issue-9.md and notes/issue-21.md for the reasoning):
//  - Mapping lives in RAM only (like dm-zap): Open() resets every zone that
//    is not empty. L2P maps a logical block to a physical block, P2L the
//    reverse; a physical block is valid iff its P2L entry is mapped.
//  - Over-provisioning: op_ratio of the zones (rounded up) is withheld from
//    the logical space, as dm-zap's op_rate.
//  - Two write frontiers: one zone receives user writes (by zone append, so
//    writers need not take turns at the write pointer), another receives GC
//    copies (written by the one thread cleaning, in batches).
//  - GC: when a writer opens a new user zone and the free pool then holds
//    <= gc_low_zones zones, that writer cleans victims chosen by the policy
//    until the pool holds >= gc_high_zones (or no victim is left). Other
//    writers go on writing meanwhile; a writer that finds no free zone waits
//    for the cleaner.
//  - Time: the policies' clock is the count of user block writes so far, a
//    logical clock (FaGC+ style), so runs are deterministic for one thread.
//  - Locks (in the order they nest): the GC lock (one cleaner at a time);
//    the user frontier's lock (slot reservation only); 4096 map stripes,
//    one per LBA residue, guarding L2P[lba] and the P2L entries that name
//    lba; the free pool's lock; and the policy lock, which guards the zone
//    table, the policy's structures and the counters. Each write holds the
//    policy lock once, for the O(1) zone-table update and policy hook, so
//    that hook is what concurrent writers contend on (the paper's Fig. 5);
//    victim selection runs under it too, but only in the cleaner.
// Thread safety: every public method may be called concurrently, except
// where its comment says otherwise (FillSequential, CheckConsistency).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "zonekv/json.h"
#include "zonekv/registry.h"
#include "zonekv/status.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

// Logical and physical block size of the FTL.
constexpr uint32_t kFtlBlockBytes = 4096;

class VictimPolicy;
class ZoneTable;
// The GC victim policies FtlOptions::policy names, in the paper's order of
// presentation (src/ftl/victim_policy.cc lists them).
using VictimPolicyFactory = std::function<std::unique_ptr<VictimPolicy>(const ZoneTable*)>;
const PolicyRegistry<VictimPolicyFactory>& FtlVictimPolicies();

struct FtlOptions {
  // Fraction of the device's zones withheld from the logical space, in
  // [0.01, 0.9]. Rounded up to whole zones.
  double op_ratio = 0.10;
  // GC victim policy; a FtlVictimPolicies() entry.
  std::string policy = "greedy";
  // Free-zone watermarks; 0 = automatic: low = max(2, zones/200),
  // high = low + max(1, zones/400). REQUIRES: low >= 2, high > low, and the
  // over-provisioned zones exceed high + 2.
  uint32_t gc_low_zones = 0;
  uint32_t gc_high_zones = 0;
  // When false (metadata-only devices), GC does not read the blocks it moves
  // and writes zeros: data movement is modelled, payload is not.
  bool move_payload = true;
};

// Cumulative counters.
//
// Timing. One in kHookTimingPeriod policy hooks runs between two
// monotonic-clock stamps and is preceded by an empty "control" section
// timed the same way; maintenance is the timed hooks' total minus the
// controls' total, scaled from the timed hooks to all
// hooks, so the timer's cost and the machine's noise cancel without
// calibration and the clock is read for a few hooks only. A hook or control
// that took over 10 us was interrupted (preemption, hypervisor steal); the
// pair is dropped and counted in interrupted_sections. Selection is timed
// with the thread CPU clock (a selection may take milliseconds and must not
// count time descheduled), each section right after an empty control
// section timed the same way: reading that clock is a system call whose
// cost (0.5-0.9 us) varies between runs, is as long as a CCB selection and
// differs in place from what a hot loop measures, so it is measured in
// place. lock_wait is the wall-clock time writers waited for the policy
// lock, sampled like the hooks and scaled to all writes.
struct FtlStats {
  uint64_t user_writes = 0;      // 4 KiB blocks written by users
  uint64_t gc_writes = 0;        // 4 KiB blocks copied by GC
  uint64_t user_reads = 0;       // 4 KiB blocks read by users
  uint64_t trims = 0;            // 4 KiB blocks trimmed
  uint64_t gc_victims = 0;       // zones cleaned by GC
  uint64_t zone_resets = 0;      // device zone resets issued by GC
  uint64_t hook_calls = 0;       // policy hooks called
  uint64_t hook_samples = 0;     // of them, timed and not interrupted
  uint64_t hook_ns = 0;          // the timed hooks (data-structure upkeep), raw
  uint64_t hook_control_ns = 0;  // the empty control sections paired with them
  uint64_t selection_ns = 0;     // policy victim selection, raw
  uint64_t selection_control_ns = 0;  // the empty control sections paired with them
  uint64_t lock_wait_ns = 0;     // writers' wait for the policy lock (estimated)
  uint64_t interrupted_sections = 0;  // hook timings dropped (see above)

  // (user + gc) / user; 1.0 when nothing was written.
  double waf() const;
  // Estimated time in all hooks: (hook_ns - hook_control_ns) scaled from
  // hook_samples to hook_calls, clamped at zero.
  uint64_t maintenance_ns() const;
  // Time in victim selection: selection_ns - selection_control_ns, clamped
  // at zero.
  uint64_t victim_selection_ns() const;
  // Counters accumulated since `earlier` (a snapshot of the same FTL).
  FtlStats Since(const FtlStats& earlier) const;
  Json ToJson() const;
};

// One in this many policy hooks (and policy-lock acquisitions) is timed.
constexpr uint32_t kHookTimingPeriod = 8;

class Ftl {
 public:
  // Opens an FTL over `device` (not owned; must outlive the Ftl). Resets all
  // non-empty zones. InvalidArgument names the option or geometry at fault.
  static Status Open(ZonedDevice* device, const FtlOptions& options, std::unique_ptr<Ftl>* ftl);
  virtual ~Ftl() = default;

  // Number of logical 4 KiB blocks exposed.
  virtual uint64_t logical_blocks() const = 0;

  // Writes one logical block. `data` holds kFtlBlockBytes bytes, or is null
  // to write zeros. NoSpace if GC finds nothing to clean.
  virtual Status Write(uint64_t lba, const char* data) = 0;
  // Reads one logical block into buf (kFtlBlockBytes bytes); zeros for a
  // block never written or trimmed.
  virtual Status Read(uint64_t lba, char* buf) = 0;
  // Discards one logical block.
  virtual Status Trim(uint64_t lba) = 0;
  // Writes zeros to every logical block once, in LBA order, in bulk (one
  // device write per zone instead of one per block): the state, clock and
  // counters that Write(0 .. logical_blocks() - 1, nullptr) would leave.
  // InvalidArgument unless nothing was written yet. REQUIRES: no other
  // call in flight.
  virtual Status FillSequential() = 0;

  virtual FtlStats stats() const = 0;
  // Effective configuration: geometry, zones, policy, watermarks.
  virtual Json ConfigJson() const = 0;
  // Memory held by the FTL, in bytes: the mapping tables, the per-zone table
  // and the policy's data structures.
  virtual Json MemoryJson() const = 0;
  // Checks that L2P, P2L and the per-zone valid counts agree (O(blocks)).
  // Corruption naming the first disagreement otherwise. REQUIRES: no I/O
  // in flight.
  virtual Status CheckConsistency() const = 0;
};

// ---------------------------------------------------------------------------
// Workloads.

// A synthetic block workload.
struct SynthOptions {
  // uniform | hotcold | zipfian | ycsb-a
  std::string workload = "uniform";
  uint32_t threads = 1;       // concurrent writer threads, 1..64
  uint64_t writes = 0;        // measured user block writes; 0 = 2x logical blocks
  uint64_t seed = 1;
  bool prefill = true;        // Ftl::FillSequential() first (unmeasured)
  double hot_fraction = 0.2;  // hotcold: share of the LBAs that are hot
  double hot_access = 0.8;    // hotcold: share of writes going to hot LBAs
  double zipf_theta = 0.99;   // zipfian, ycsb-a: skew
  double read_ratio = 0.5;    // ycsb-a: reads per operation (writes are counted)
};

// What a run measured. `total` covers the measured phase; `steady` its
// second half (after the FTL has reached steady state).
struct RunResult {
  FtlStats total;
  FtlStats steady;
  uint64_t ops = 0;               // operations issued in the measured phase
  double elapsed_s = 0;           // wall clock of the measured phase
  double prefill_s = 0;           // wall clock of the prefill (0 without one)
  double process_cpu_s = 0;       // CPU time of the process in the measured phase
  uint64_t timer_overhead_ns = 0;  // per monotonic-clock section (lock waits), already subtracted
  Json ToJson() const;
};

// Validates the options against `ftl` (InvalidArgument naming the flag).
Status ValidateSynthOptions(const SynthOptions& options);
// Runs the workload on `ftl`.
Status RunSynthetic(Ftl* ftl, const SynthOptions& options, RunResult* result);

// One I/O of a block trace, in bytes.
struct TraceRecord {
  uint64_t timestamp = 0;  // Windows FILETIME ticks (100 ns)
  bool is_write = false;
  uint64_t offset_bytes = 0;
  uint64_t size_bytes = 0;
};

// Parses one MSR Cambridge CSV line
// "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime".
// InvalidArgument saying which field is wrong (the caller adds the line).
Status ParseMsrLine(const std::string& line, TraceRecord* record);
// Calls fn(line number, record) for every non-blank line of a trace read
// from `in` (a trailing CR is dropped); stops at fn's first error. A
// malformed line fails with InvalidArgument "<name>:<line>: ...".
using MsrRecordFn = std::function<Status(uint64_t line, const TraceRecord& record)>;
Status ForEachMsrRecord(std::istream& in, const std::string& name, const MsrRecordFn& fn);
// Formats a record as an MSR line (hostname "zonekv", disk 0).
std::string FormatMsrLine(const TraceRecord& record);

struct ReplayOptions {
  std::string trace_path;
  bool prefill = true;   // Ftl::FillSequential() first (unmeasured)
  uint32_t repeat = 1;   // replay the trace this many times
};

// Replays an MSR trace on `ftl` with one thread. Offsets beyond the logical
// space wrap around (counted in *wrapped_ios). Every line is parsed before
// anything is replayed: a malformed line fails with InvalidArgument
// "<path>:<line>: ...".
Status ReplayMsrTrace(Ftl* ftl, const ReplayOptions& options, RunResult* result, uint64_t* wrapped_ios);

// Writes `ops` synthetic MSR lines for a disk of `disk_bytes` to `path`,
// drawing offsets from `workload` (as in SynthOptions) and sizes of 4..64 KiB.
Status GenerateMsrTrace(const std::string& path, const SynthOptions& workload, uint64_t ops,
                        uint64_t disk_bytes);

}  // namespace zonekv
