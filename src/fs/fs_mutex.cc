#include "fs_mutex.h"

#include <execinfo.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>

namespace zonekv {
namespace {

// FsMutex instances the calling thread holds.
thread_local int t_held = 0;

uint64_t NsBetween(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

// Inserts h into *kept (sorted by key, largest first) if it is among the
// kLongest largest.
template <typename Key>
void KeepLongest(const FsMutex::Hold& h, std::vector<FsMutex::Hold>* kept, Key key) {
  if (kept->size() == FsMutex::kLongest && key(kept->back()) >= key(h)) return;
  auto at = std::upper_bound(kept->begin(), kept->end(), h,
                             [&](const FsMutex::Hold& a, const FsMutex::Hold& b) { return key(a) > key(b); });
  kept->insert(at, h);
  if (kept->size() > FsMutex::kLongest) kept->pop_back();
}

}  // namespace

// Bucket of v >= 4: 4 * floor(log2 v) + the next two bits; values 0..3 are
// buckets 0..3 (exact).
int LatencyHistogram::Bucket(uint64_t ns) {
  if (ns < 4) return static_cast<int>(ns);
  int msb = 63 - std::countl_zero(ns);
  return msb * 4 + static_cast<int>((ns >> (msb - 2)) & 3);
}

uint64_t LatencyHistogram::BucketUpperNs(int b) {
  if (b < 8) return static_cast<uint64_t>(std::min(b, 3));  // 4..7 are never used
  int msb = b / 4;
  uint64_t lower = (uint64_t{1} << msb) | (static_cast<uint64_t>(b % 4) << (msb - 2));
  return lower + (uint64_t{1} << (msb - 2)) - 1;
}

void LatencyHistogram::Add(uint64_t ns) {
  buckets_[Bucket(ns)]++;
  count_++;
  max_ns_ = std::max(max_ns_, ns);
  if (ns >= 1000000) over_1ms_++;
}

uint64_t LatencyHistogram::QuantileNs(double q) const {
  if (count_ == 0) return 0;
  uint64_t rank = static_cast<uint64_t>(q * static_cast<double>(count_) + 0.5);
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; b++) {
    seen += buckets_[b];
    if (seen >= rank) return std::min(BucketUpperNs(b), max_ns_);
  }
  return max_ns_;
}

DurationSummary LatencyHistogram::Summary() const {
  DurationSummary d;
  d.p50_ns = QuantileNs(0.5);
  d.p99_ns = QuantileNs(0.99);
  d.p999_ns = QuantileNs(0.999);
  d.max_ns = max_ns_;
  d.over_1ms = over_1ms_;
  return d;
}

bool FsMutex::ProfileFromEnv() {
  const char* v = std::getenv("ZONEKV_LOCK_PROFILE");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

FsMutex::Usage FsMutex::ThreadUsage() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  Usage u;
  u.cpu_ns = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  u.involuntary = static_cast<uint64_t>(ru.ru_nivcsw);
  u.voluntary = static_cast<uint64_t>(ru.ru_nvcsw);
  u.minor_faults = static_cast<uint64_t>(ru.ru_minflt);
  return u;
}

// lock() takes `this` by taking the inner std::mutex, which the analysis
// does not model: it would see the statistics written before `this` is
// held. It is the capability's own implementation.
void FsMutex::lock() ZONEKV_NO_THREAD_SAFETY_ANALYSIS {
  // The profile's readings start before the acquisition: a system call's
  // return is where a pending preemption takes place, so a reading taken
  // inside the hold could hide the preemption it caused.
  void* stack[kStackFrames];
  int frames = 0;
  Usage before;
  if (profile_) {
    frames = backtrace(stack, kStackFrames);
    before = ThreadUsage();
  }
  auto t0 = std::chrono::steady_clock::now();
  mu_.lock();
  acquired_ = std::chrono::steady_clock::now();
  wait_.Add(NsBetween(t0, acquired_));
  t_held++;
  if (profile_) {
    std::memcpy(current_.stack, stack, sizeof(void*) * static_cast<size_t>(frames));
    current_.frames = frames;
    acquired_usage_ = before;
  }
}

void FsMutex::unlock() {
  uint64_t wall_ns = NsBetween(acquired_, std::chrono::steady_clock::now());
  hold_.Add(wall_ns);
  if (profile_) ProfileRelease(wall_ns);
  t_held--;
  mu_.unlock();
}

void FsMutex::ProfileRelease(uint64_t wall_ns) {
  Usage now = ThreadUsage();
  current_.wall_ns = wall_ns;
  current_.used.cpu_ns = now.cpu_ns - acquired_usage_.cpu_ns;
  current_.used.involuntary = now.involuntary - acquired_usage_.involuntary;
  current_.used.voluntary = now.voluntary - acquired_usage_.voluntary;
  current_.used.minor_faults = now.minor_faults - acquired_usage_.minor_faults;
  hold_cpu_.Add(current_.used.cpu_ns);
  KeepLongest(current_, &longest_, [](const Hold& h) { return h.wall_ns; });
  KeepLongest(current_, &longest_cpu_, [](const Hold& h) { return h.used.cpu_ns; });
}

bool FsMutex::HeldByThisThread() { return t_held > 0; }

void FsMutex::StatsLocked(Stats* out) const {
  out->hold = hold_;
  out->wait = wait_;
  out->profile = profile_;
  if (profile_) {
    out->hold_cpu = hold_cpu_;
    out->longest = longest_;
    out->longest_cpu = longest_cpu_;
  }
}

FsLockStats FsMutex::Stats::Summary() const {
  FsLockStats s;
  s.hold = hold.Summary();
  s.wait = wait.Summary();
  s.acquisitions = wait.count();
  s.profile = profile;
  if (!profile) return s;
  auto holds = [](const std::vector<Hold>& list) {
    std::vector<LockHoldStats> out;
    out.reserve(list.size());
    for (const Hold& h : list) {
      LockHoldStats e;
      e.hold_ns = h.wall_ns;
      e.cpu_ns = h.used.cpu_ns;
      e.involuntary_switches = h.used.involuntary;
      e.voluntary_switches = h.used.voluntary;
      e.minor_faults = h.used.minor_faults;
      e.stack.assign(h.stack, h.stack + h.frames);
      out.push_back(std::move(e));
    }
    return out;
  };
  s.hold_cpu = hold_cpu.Summary();
  s.longest = holds(longest);
  s.longest_cpu = holds(longest_cpu);
  return s;
}

}  // namespace zonekv
