#include "report.h"

#include <cstdarg>
#include <cstdio>

#include <rocksdb/statistics.h>

#include "storage.h"
#include "zonekv/workload.h"

namespace zonekv {

void ThreadStats::Merge(const ThreadStats& o) {
  put.Merge(o.put);
  get.Merge(o.get);
  scan.Merge(o.scan);
  rmw.Merge(o.rmw);
  ops += o.ops;
  bytes += o.bytes;
  write_bytes += o.write_bytes;
  reads += o.reads;
  found += o.found;
  writes += o.writes;
  for (int i = 0; i < 5; i++) op_counts[i] += o.op_counts[i];
}

namespace {

double Us(double ns) { return ns / 1000.0; }

std::string Fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Fmt(const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof(buf), format, ap);
  va_end(ap);
  return buf;
}

std::string HumanBytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    u++;
  }
  return Fmt(u == 0 ? "%.0f %s" : "%.2f %s", b, units[u]);
}

void AddLatency(Json* w, const std::string& prefix, const Histogram& h) {
  w->Set(prefix + "_count", h.count())
      .Set(prefix + "_us_avg", Us(h.mean()))
      .Set(prefix + "_us_p50", Us(h.Percentile(50)))
      .Set(prefix + "_us_p99", Us(h.Percentile(99)))
      .Set(prefix + "_us_max", Us(static_cast<double>(h.max())));
}

std::string LatencyRow(const char* name, const Histogram& h) {
  return Fmt("  %-8s %12llu %10.1f %10.1f %10.1f %12.1f\n", name, static_cast<unsigned long long>(h.count()),
             Us(h.mean()), Us(h.Percentile(50)), Us(h.Percentile(99)), Us(static_cast<double>(h.max())));
}

}  // namespace

void BuildReport(const ReportInputs& in, BenchOutput* out) {
  const BenchConfig& config = *in.config;
  ThreadStats measured;
  double measured_s = 0;
  double all_s = 0;  // every phase, measured or not
  uint64_t all_ops = 0;
  Json phases = Json::Array();
  std::string phase_rows;
  std::string db_bench_lines;  // db_bench's own result line per measured phase
  bool timed_out = false;
  for (const auto& p : *in.phases) {
    double rate = p.elapsed_s > 0 ? static_cast<double>(p.total.ops) / p.elapsed_s : 0;
    double mbs = p.elapsed_s > 0 ? static_cast<double>(p.total.bytes) / 1048576.0 / p.elapsed_s : 0;
    phases.Push(Json::Object()
                    .Set("name", p.name)
                    .Set("measured", p.measured)
                    .Set("ops", p.total.ops)
                    .Set("elapsed_s", p.elapsed_s)
                    .Set("ops_per_sec", rate)
                    .Set("mb_per_sec", mbs)
                    .Set("timed_out", p.timed_out));
    phase_rows += Fmt("  %-22s %-3s %12llu %10.2f %12.0f %10.1f%s\n", p.name.c_str(), p.measured ? "yes" : "no",
                      static_cast<unsigned long long>(p.total.ops), p.elapsed_s, rate, mbs,
                      p.timed_out ? "  (stopped by --max_seconds)" : "");
    if (p.measured && p.total.ops > 0 && p.elapsed_s > 0) {
      // As db_bench prints it: micros/op is thread time per operation.
      std::string found = p.total.reads > 0 && p.total.writes == 0
                              ? Fmt(" (%llu of %llu found)", static_cast<unsigned long long>(p.total.found),
                                    static_cast<unsigned long long>(p.total.reads))
                              : "";
      db_bench_lines += Fmt("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %llu operations; %6.1f MB/s%s\n",
                            p.name.c_str(),
                            p.elapsed_s * 1e6 * static_cast<double>(in.config->threads) /
                                static_cast<double>(p.total.ops),
                            static_cast<long>(rate), p.elapsed_s, static_cast<unsigned long long>(p.total.ops), mbs,
                            found.c_str());
    }
    timed_out |= p.timed_out;
    all_s += p.elapsed_s;
    all_ops += p.total.ops;
    if (!p.measured) continue;
    measured.Merge(p.total);
    measured_s += p.elapsed_s;
  }

  const double sustained = in.storage->SustainedWriteBytesPerSec();
  Json w = Json::Object();
  std::string name;
  for (const auto& x : config.workloads) name += (name.empty() ? "" : ",") + x;
  w.Set("name", name)
      .Set("ops", measured.ops)
      .Set("ops_per_sec", measured_s > 0 ? static_cast<double>(measured.ops) / measured_s : 0.0)
      .Set("mb_per_sec", measured_s > 0 ? static_cast<double>(measured.bytes) / 1048576.0 / measured_s : 0.0)
      .Set("elapsed_s", measured_s)
      // User write bandwidth over what the device can sustain; null when
      // the device has no timing profile.
      .Set("limit_ratio", sustained > 0 && measured_s > 0
                              ? Json(static_cast<double>(measured.write_bytes) / measured_s / sustained)
                              : Json())
      .Set("timed_out", timed_out)
      // Process CPU over every phase (a YCSB load included) per operation of
      // every phase: what a scheme costs the host, which a loaded machine
      // changes far less than it changes throughput.
      .Set("cpu_s", in.cpu_s)
      .Set("cpu_us_per_op", all_ops > 0 ? in.cpu_s * 1e6 / static_cast<double>(all_ops) : 0.0);
  AddLatency(&w, "put", measured.put);
  AddLatency(&w, "get", measured.get);
  AddLatency(&w, "scan", measured.scan);
  AddLatency(&w, "rmw", measured.rmw);
  w.Set("reads", measured.reads).Set("reads_found", measured.found).Set("writes", measured.writes);
  Json counts = Json::Object();
  for (int i = 0; i < 5; i++) counts.Set(OpTypeName(static_cast<OpType>(i)), measured.op_counts[i]);
  w.Set("op_counts", counts);
  w.Set("phases", phases);

  rocksdb::Statistics* st = in.statistics;
  uint64_t flush_bytes = st->getTickerCount(rocksdb::FLUSH_WRITE_BYTES);
  uint64_t compact_bytes = st->getTickerCount(rocksdb::COMPACT_WRITE_BYTES);
  uint64_t wal_bytes = st->getTickerCount(rocksdb::WAL_FILE_BYTES);
  uint64_t rocksdb_write_bytes = flush_bytes + compact_bytes + wal_bytes;
  uint64_t blobgc_copy_bytes = st->getTickerCount(rocksdb::BLOB_DB_GC_BYTES_RELOCATED);
  double compaction_time_s = static_cast<double>(in.compaction_micros) / 1e6;
  double stall_time_s = static_cast<double>(st->getTickerCount(rocksdb::STALL_MICROS)) / 1e6;
  Json r = Json::Object();
  r.Set("blobgc_copy_bytes", blobgc_copy_bytes)
      .Set("compaction_time_s", compaction_time_s)
      .Set("stall_time_s", stall_time_s)
      .Set("flush_count", in.flushes)
      .Set("compaction_count", in.compactions)
      .Set("blobgc_relocated_keys", st->getTickerCount(rocksdb::BLOB_DB_GC_NUM_KEYS_RELOCATED))
      .Set("flush_write_bytes", flush_bytes)
      .Set("compact_write_bytes", compact_bytes)
      .Set("compact_read_bytes", st->getTickerCount(rocksdb::COMPACT_READ_BYTES))
      .Set("wal_bytes", wal_bytes)
      .Set("blob_file_bytes_written", st->getTickerCount(rocksdb::BLOB_DB_BLOB_FILE_BYTES_WRITTEN))
      .Set("write_bytes", rocksdb_write_bytes)
      // Over every phase (a YCSB load included), as the Same-Zone paper counts them.
      .Set("flushes_per_sec", all_s > 0 ? static_cast<double>(in.flushes) / all_s : 0.0)
      .Set("compactions_per_sec", all_s > 0 ? static_cast<double>(in.compactions) / all_s : 0.0);

  StorageReport fs = in.storage->Report(rocksdb_write_bytes);

  out->json.Set("workload", w);
  out->json.Set("fs", fs.fs);
  out->json.Set("rocksdb", r);

  std::string& t = out->summary;
  t += db_bench_lines;
  t += Fmt("zonekv bench: %s on %s, scheme %s, %llu thread(s), seed %llu\n", name.c_str(), config.fs.c_str(),
           config.scheme.c_str(), static_cast<unsigned long long>(config.threads),
           static_cast<unsigned long long>(config.seed));
  t += Fmt("  %-22s %-3s %12s %10s %12s %10s\n", "phase", "msr", "ops", "seconds", "ops/s", "MB/s");
  t += phase_rows;
  t += Fmt("\n  %-8s %12s %10s %10s %10s %12s\n", "latency", "count", "avg us", "p50 us", "p99 us", "max us");
  if (measured.put.count()) t += LatencyRow("put", measured.put);
  if (measured.get.count()) t += LatencyRow("get", measured.get);
  if (measured.scan.count()) t += LatencyRow("scan", measured.scan);
  if (measured.rmw.count()) t += LatencyRow("rmw", measured.rmw);
  t += Fmt("\n  file system: host writes %s, ZC copy %s (blob %s, sst %s, wal %s, other %s)\n",
           HumanBytes(static_cast<double>(fs.host_write_bytes)).c_str(),
           HumanBytes(static_cast<double>(fs.zc_copy_bytes())).c_str(),
           HumanBytes(static_cast<double>(fs.zc_copy_blob_bytes)).c_str(),
           HumanBytes(static_cast<double>(fs.zc_copy_sst_bytes)).c_str(),
           HumanBytes(static_cast<double>(fs.zc_copy_wal_bytes)).c_str(),
           HumanBytes(static_cast<double>(fs.zc_copy_other_bytes)).c_str());
  t += Fmt("  resets: runtime %llu, ZC %llu, EZRC %llu, R_WP %.3f; DLWA %.3f, FS WAF %.3f, "
           "space used at end %.1f%%, I/O blocked %.2f s\n",
           static_cast<unsigned long long>(fs.resets_runtime), static_cast<unsigned long long>(fs.resets_zc),
           static_cast<unsigned long long>(fs.ezrc), fs.r_wp, fs.dlwa, fs.fs_waf, 100 * fs.space_used_ratio_end,
           fs.io_block_time_s);
  t += Fmt("  rocksdb: blob GC copy %s, compaction time %.2f s, stall time %.2f s, %llu flushes, "
           "%llu compactions\n",
           HumanBytes(static_cast<double>(blobgc_copy_bytes)).c_str(), compaction_time_s, stall_time_s,
           static_cast<unsigned long long>(in.flushes), static_cast<unsigned long long>(in.compactions));
  if (config.statistics && in.statistics != nullptr) t += "\nSTATISTICS:\n" + in.statistics->ToString();
}

Status ClassifyNoSpace(Status s, bool background_no_space) {
  if (!s.Is(Status::Code::kIOError) || !background_no_space) return s;
  return Status::NoSpace(s.message() + " (RocksDB stopped writes after a background NoSpace)");
}

}  // namespace zonekv
