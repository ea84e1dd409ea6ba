// RunSynthetic, the measured-phase bookkeeping and RunResult's JSON.
#include <atomic>
#include <thread>
#include <vector>

#include "block_workload.h"
#include "measured_phase.h"
#include "section_timer.h"
#include "zonekv/ftl.h"
#include "zonekv/mutex.h"

namespace zonekv {

Json RunResult::ToJson() const {
  double ops_d = ops == 0 ? 1.0 : static_cast<double>(ops);
  Json j = Json::Object();
  j.Set("measured", total.ToJson())
      .Set("steady", steady.ToJson())
      .Set("ops", ops)
      .Set("elapsed_s", elapsed_s)
      .Set("prefill_s", prefill_s)
      .Set("kiops", elapsed_s > 0 ? static_cast<double>(ops) / elapsed_s / 1e3 : 0.0)
      .Set("process_cpu_s", process_cpu_s)
      .Set("process_cpu_ns_per_op", process_cpu_s * 1e9 / ops_d)
      .Set("sim_iops_per_core", process_cpu_s > 0 ? static_cast<double>(ops) / process_cpu_s : 0.0)
      .Set("timer_overhead_ns", timer_overhead_ns);
  return j;
}

MeasuredPhase::MeasuredPhase(Ftl* ftl, uint64_t writes)
    : ftl_(ftl), half_(writes / 2), start_(ftl->stats()), start_ns_(NowNs()), start_cpu_ns_(ProcessCpuNs()) {
  if (half_ == 0) {
    have_mid_ = true;
    mid_ = start_;
  }
}

void MeasuredPhase::WriteDone(uint64_t completed) {
  if (completed != half_) return;
  FtlStats s = ftl_->stats();
  MutexLock lock(&mu_);
  have_mid_ = true;
  mid_ = s;
}

void MeasuredPhase::Finish(uint64_t ops, RunResult* result) {
  FtlStats end = ftl_->stats();
  result->elapsed_s = static_cast<double>(NowNs() - start_ns_) / 1e9;
  result->process_cpu_s = static_cast<double>(ProcessCpuNs() - start_cpu_ns_) / 1e9;
  result->total = end.Since(start_);
  MutexLock lock(&mu_);
  result->steady = end.Since(have_mid_ ? mid_ : start_);
  result->ops = ops;
  result->timer_overhead_ns = TimerOverheadNs();
}

Status ValidateSynthOptions(const SynthOptions& o) {
  if (o.workload != "uniform" && o.workload != "hotcold" && o.workload != "zipfian" && o.workload != "ycsb-a") {
    return Status::InvalidArgument("--workload '" + o.workload + "' is not one of uniform, hotcold, zipfian, ycsb-a");
  }
  if (o.threads < 1 || o.threads > 64) {
    return Status::InvalidArgument("--threads " + std::to_string(o.threads) + " is outside 1..64");
  }
  if (!(o.hot_fraction > 0 && o.hot_fraction < 1)) {
    return Status::InvalidArgument("--hot_fraction " + std::to_string(o.hot_fraction) + " is outside (0, 1)");
  }
  if (!(o.hot_access >= 0 && o.hot_access <= 1)) {
    return Status::InvalidArgument("--hot_access " + std::to_string(o.hot_access) + " is outside [0, 1]");
  }
  if (!(o.zipf_theta > 0 && o.zipf_theta < 1)) {
    return Status::InvalidArgument("--zipf_theta " + std::to_string(o.zipf_theta) + " is outside (0, 1)");
  }
  if (!(o.read_ratio >= 0 && o.read_ratio < 1)) {
    return Status::InvalidArgument("--read_ratio " + std::to_string(o.read_ratio) + " is outside [0, 1)");
  }
  return Status::OK();
}

Status RunSynthetic(Ftl* ftl, const SynthOptions& o, RunResult* result) {
  ZONEKV_RETURN_IF_ERROR(ValidateSynthOptions(o));
  const uint64_t blocks = ftl->logical_blocks();
  std::vector<std::unique_ptr<BlockWorkload>> streams;
  ZONEKV_RETURN_IF_ERROR(BlockWorkload::NewStreams(o, blocks, o.threads, &streams));
  if (o.prefill) {
    uint64_t t0 = NowNs();
    ZONEKV_RETURN_IF_ERROR(ftl->FillSequential());
    result->prefill_s = static_cast<double>(NowNs() - t0) / 1e9;
  }
  const uint64_t writes = o.writes ? o.writes : 2 * blocks;

  MeasuredPhase phase(ftl, writes);
  std::atomic<uint64_t> completed{0}, ops{0};
  std::atomic<bool> failed{false};
  Mutex error_mu;
  Status error;
  auto worker = [&](uint32_t t) {
    uint64_t quota = writes / o.threads + (t < writes % o.threads ? 1 : 0);
    std::vector<char> buf(kFtlBlockBytes);
    uint64_t my_ops = 0;
    while (quota > 0 && !failed.load(std::memory_order_relaxed)) {
      BlockOp op = streams[t]->Next();
      my_ops++;
      Status s = op.is_write ? ftl->Write(op.lba, nullptr) : ftl->Read(op.lba, buf.data());
      if (!s.ok()) {
        MutexLock lock(&error_mu);
        if (!failed.exchange(true)) error = s;
        break;
      }
      if (op.is_write) {
        quota--;
        phase.WriteDone(completed.fetch_add(1, std::memory_order_relaxed) + 1);
      }
    }
    ops.fetch_add(my_ops);
  };
  if (o.threads == 1) {
    worker(0);
  } else {
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < o.threads; t++) threads.emplace_back(worker, t);
    for (auto& th : threads) th.join();
  }
  phase.Finish(ops.load(), result);
  return error;
}

}  // namespace zonekv
