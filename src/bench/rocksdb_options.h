// RocksDB options under RocksDB's own names, as `zonekv bench` exposes them.
#pragma once

#include <string>
#include <vector>

#include <rocksdb/options.h>

#include "zonekv/bench.h"
#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

// Sets one option by its RocksDB name (values as RocksDB parses them, plus
// compression = none|snappy|lz4|zstd|zlib). InvalidArgument naming `name`.
Status SetRocksDbOption(const std::string& name, const std::string& value, rocksdb::Options* options);

// The effective values of every option in RocksDbBenchOptions().
Json RocksDbOptionsToJson(const rocksdb::Options& options);

}  // namespace zonekv
