#include "rocksdb_options.h"

#include <unordered_map>

#include <rocksdb/convenience.h>

namespace zonekv {

namespace {

bool IsDbOption(const std::string& name) {
  return name == "max_background_jobs" || name == "max_background_flushes" ||
         name == "max_background_compactions" || name == "max_subcompactions" ||
         name == "max_log_file_size" || name == "keep_log_file_num" ||
         name == "use_direct_io_for_flush_and_compaction" || name == "use_direct_reads" ||
         name == "compaction_readahead_size";
}

std::string CompressionValue(const std::string& v) {
  if (v == "none") return "kNoCompression";
  if (v == "snappy") return "kSnappyCompression";
  if (v == "lz4") return "kLZ4Compression";
  if (v == "zstd") return "kZSTD";
  if (v == "zlib") return "kZlibCompression";
  return v;
}

const char* CompactionPriName(rocksdb::CompactionPri p) {
  switch (p) {
    case rocksdb::kByCompensatedSize: return "kByCompensatedSize";
    case rocksdb::kOldestLargestSeqFirst: return "kOldestLargestSeqFirst";
    case rocksdb::kOldestSmallestSeqFirst: return "kOldestSmallestSeqFirst";
    case rocksdb::kMinOverlappingRatio: return "kMinOverlappingRatio";
    case rocksdb::kRoundRobin: return "kRoundRobin";
  }
  return "unknown";
}

}  // namespace

const std::vector<OptionHelp>& RocksDbBenchOptions() {
  static const std::vector<OptionHelp> kOptions = {
      {"write_buffer_size", "memtable size in bytes"},
      {"max_write_buffer_number", "memtables in memory before writes stall"},
      {"target_file_size_base", "SST file size at level 1, bytes"},
      {"max_bytes_for_level_base", "level 1 size, bytes"},
      {"max_bytes_for_level_multiplier", "size ratio between levels"},
      {"level0_file_num_compaction_trigger", "L0 files that trigger compaction"},
      {"level0_slowdown_writes_trigger", "L0 files that slow writes down"},
      {"level0_stop_writes_trigger", "L0 files that stop writes"},
      {"compaction_pri", "which file of a level native leveled compaction takes first: kMinOverlappingRatio "
                         "(RocksDB's default since 6.0), kByCompensatedSize (the largest: paper 002's SICA), "
                         "kOldestLargestSeqFirst, kOldestSmallestSeqFirst, kRoundRobin"},
      {"enable_blob_files", "BlobDB key-value separation (true/false)"},
      {"min_blob_size", "values at least this large go to blob files, bytes"},
      {"blob_file_size", "blob file size, bytes"},
      {"enable_blob_garbage_collection", "blob GC during compaction (true/false)"},
      {"blob_garbage_collection_age_cutoff", "fraction of oldest blob files blob GC may relocate"},
      {"blob_garbage_collection_force_threshold", "garbage ratio that forces compaction of a blob file's SSTs"},
      {"blob_compaction_readahead_size", "bytes a compaction reads from a blob file at once (bench default 2M)"},
      {"max_background_jobs", "background flushes + compactions"},
      {"max_background_flushes", "background flushes (-1 = from max_background_jobs)"},
      {"max_background_compactions", "background compactions (-1 = from max_background_jobs)"},
      {"max_subcompactions", "threads per compaction"},
      {"compression", "none|snappy|lz4|zstd|zlib (or a RocksDB kXxxCompression name)"},
      {"use_direct_io_for_flush_and_compaction", "O_DIRECT for flush and compaction writes (posix only)"},
      {"use_direct_reads", "O_DIRECT for reads (posix only)"},
      {"compaction_readahead_size", "bytes a compaction reads from a file at once (bench default 2M)"},
      {"max_log_file_size", "info LOG size at which RocksDB starts a new one, bytes (bench default 1M)"},
      {"keep_log_file_num", "old info LOG files kept (bench default 2)"},
  };
  return kOptions;
}

Status SetRocksDbOption(const std::string& name, const std::string& value, rocksdb::Options* options) {
  rocksdb::ConfigOptions config;
  config.ignore_unknown_options = false;
  config.input_strings_escaped = false;
  std::string v = name == "compression" ? CompressionValue(value) : value;
  std::unordered_map<std::string, std::string> map = {{name, v}};
  rocksdb::Status s;
  if (IsDbOption(name)) {
    rocksdb::DBOptions db(*options);
    s = rocksdb::GetDBOptionsFromMap(config, db, map, &db);
    if (s.ok()) *options = rocksdb::Options(db, rocksdb::ColumnFamilyOptions(*options));
  } else {
    rocksdb::ColumnFamilyOptions cf(*options);
    s = rocksdb::GetColumnFamilyOptionsFromMap(config, cf, map, &cf);
    if (s.ok()) *options = rocksdb::Options(rocksdb::DBOptions(*options), cf);
  }
  if (!s.ok()) {
    return Status::InvalidArgument("--" + name + "=" + value + ": RocksDB rejects it (" + s.ToString() + ")");
  }
  return Status::OK();
}

Json RocksDbOptionsToJson(const rocksdb::Options& o) {
  std::string compression;
  if (!rocksdb::GetStringFromCompressionType(&compression, o.compression).ok()) compression = "unknown";
  Json j = Json::Object();
  j.Set("write_buffer_size", static_cast<uint64_t>(o.write_buffer_size))
      .Set("max_write_buffer_number", o.max_write_buffer_number)
      .Set("target_file_size_base", o.target_file_size_base)
      .Set("max_bytes_for_level_base", o.max_bytes_for_level_base)
      .Set("max_bytes_for_level_multiplier", o.max_bytes_for_level_multiplier)
      .Set("level0_file_num_compaction_trigger", o.level0_file_num_compaction_trigger)
      .Set("level0_slowdown_writes_trigger", o.level0_slowdown_writes_trigger)
      .Set("level0_stop_writes_trigger", o.level0_stop_writes_trigger)
      .Set("compaction_pri", CompactionPriName(o.compaction_pri))
      .Set("enable_blob_files", o.enable_blob_files)
      .Set("min_blob_size", o.min_blob_size)
      .Set("blob_file_size", o.blob_file_size)
      .Set("enable_blob_garbage_collection", o.enable_blob_garbage_collection)
      .Set("blob_garbage_collection_age_cutoff", o.blob_garbage_collection_age_cutoff)
      .Set("blob_garbage_collection_force_threshold", o.blob_garbage_collection_force_threshold)
      .Set("blob_compaction_readahead_size", o.blob_compaction_readahead_size)
      .Set("max_background_jobs", o.max_background_jobs)
      .Set("max_background_flushes", o.max_background_flushes)
      .Set("max_background_compactions", o.max_background_compactions)
      .Set("max_subcompactions", static_cast<uint64_t>(o.max_subcompactions))
      .Set("compression", compression)
      .Set("use_direct_io_for_flush_and_compaction", o.use_direct_io_for_flush_and_compaction)
      .Set("use_direct_reads", o.use_direct_reads)
      .Set("compaction_readahead_size", static_cast<uint64_t>(o.compaction_readahead_size))
      .Set("max_log_file_size", static_cast<uint64_t>(o.max_log_file_size))
      .Set("keep_log_file_num", static_cast<uint64_t>(o.keep_log_file_num));
  return j;
}

}  // namespace zonekv
