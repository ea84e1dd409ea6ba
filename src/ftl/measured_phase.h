// MeasuredPhase: brackets the measured part of a run, takes the mid-run
// snapshot that separates the warm-up half from the steady half, and fills
// a RunResult.
#pragma once

#include <cstdint>

#include "zonekv/ftl.h"
#include "zonekv/mutex.h"

namespace zonekv {

class MeasuredPhase {
 public:
  // Starts measuring; `writes` is the number of user writes the phase will
  // issue, so that the snapshot can be taken after half of them.
  MeasuredPhase(Ftl* ftl, uint64_t writes);
  // Call after each completed user write with the count completed so far
  // in this phase. Thread-safe.
  void WriteDone(uint64_t completed);
  // Ends the phase and fills *result.
  void Finish(uint64_t ops, RunResult* result);

 private:
  Ftl* ftl_;
  uint64_t half_;
  FtlStats start_;
  uint64_t start_ns_, start_cpu_ns_;
  Mutex mu_;
  bool have_mid_ ZONEKV_GUARDED_BY(mu_) = false;
  FtlStats mid_ ZONEKV_GUARDED_BY(mu_);
};

}  // namespace zonekv
