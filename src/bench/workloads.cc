// Key formats, the workload table and the per-thread operation streams.
#include <cstring>

#include "zonekv/workload.h"

namespace zonekv {

std::string YcsbKey(uint64_t keynum, size_t key_size) {
  size_t digits = key_size - 4;
  uint64_t h = FnvHash64(keynum);
  if (digits < 19) {
    uint64_t mod = 1;
    for (size_t i = 0; i < digits; i++) mod *= 10;
    h %= mod;
  }
  std::string key(key_size, '0');
  std::memcpy(key.data(), "user", 4);
  for (size_t pos = key_size; h > 0 && pos > 4; h /= 10) key[--pos] = static_cast<char>('0' + h % 10);
  return key;
}

std::string DbBenchKey(uint64_t keynum, size_t key_size) {
  std::string key(key_size, '0');
  for (int i = 0; i < 8; i++) key[i] = static_cast<char>((keynum >> (56 - 8 * i)) & 0xff);
  return key;
}

const char* OpTypeName(OpType t) {
  switch (t) {
    case OpType::kRead: return "read";
    case OpType::kUpdate: return "update";
    case OpType::kInsert: return "insert";
    case OpType::kScan: return "scan";
    case OpType::kReadModifyWrite: return "rmw";
  }
  return "unknown";
}

namespace {

// YCSB workloads/workloada..f and the Same-Victim GC paper's WL(A)-(C)
// (zipfian 0.99, 16-byte keys).
const YcsbSpec kYcsbSpecs[] = {
    {"ycsb-a", 0.50, 0.50, 0, 0, 0, KeyDistribution::kZipfian, 100},
    {"ycsb-b", 0.95, 0.05, 0, 0, 0, KeyDistribution::kZipfian, 100},
    {"ycsb-c", 1.00, 0, 0, 0, 0, KeyDistribution::kZipfian, 100},
    {"ycsb-d", 0.95, 0, 0.05, 0, 0, KeyDistribution::kLatest, 100},
    {"ycsb-e", 0, 0, 0.05, 0.95, 0, KeyDistribution::kZipfian, 100},
    {"ycsb-f", 0.50, 0, 0, 0, 0.50, KeyDistribution::kZipfian, 100},
    {"sv-wla", 0, 0.80, 0.20, 0, 0, KeyDistribution::kZipfian, 100},
    {"sv-wlb", 0.20, 0.80, 0, 0, 0, KeyDistribution::kZipfian, 100},
    {"sv-wlc", 0.50, 0.50, 0, 0, 0, KeyDistribution::kZipfian, 100},
};

const char* const kDbBenchWorkloads[] = {"fillrandom", "fillseq", "overwrite", "readrandom",
                                         "readrandomwriterandom"};

}  // namespace

Status LookupYcsbSpec(const std::string& name, YcsbSpec* spec) {
  std::string known;
  for (const auto& s : kYcsbSpecs) {
    if (s.name == name) {
      *spec = s;
      return Status::OK();
    }
    known += (known.empty() ? "" : ", ") + s.name;
  }
  return Status::NotFound("unknown YCSB workload '" + name + "' (known: " + known + ")");
}

bool IsYcsbWorkload(const std::string& name) {
  YcsbSpec spec;
  return LookupYcsbSpec(name, &spec).ok();
}

bool IsDbBenchWorkload(const std::string& name) {
  for (const char* w : kDbBenchWorkloads) {
    if (name == w) return true;
  }
  return false;
}

bool IsDbBenchRead(const std::string& name) { return name == "readrandom" || name == "readrandomwriterandom"; }

bool DbBenchNeedsData(const std::string& name) {
  return name == "overwrite" || name == "readrandom" || name == "readrandomwriterandom";
}

// ---- YCSB ------------------------------------------------------------------------

YcsbOperationGenerator::YcsbOperationGenerator(const YcsbSpec& spec, uint64_t record_count,
                                               uint64_t operation_count, AcknowledgedCounter* counter,
                                               uint64_t seed)
    : spec_(spec), counter_(counter), rng_(seed), record_count_(record_count) {
  if (spec_.distribution == KeyDistribution::kZipfian) {
    // CoreWorkload: keys [insertstart, insertstart + insertcount + expectednewkeys].
    uint64_t expected_new_keys = static_cast<uint64_t>(static_cast<double>(operation_count) * spec_.insert * 2.0);
    zipfian_ = std::make_unique<ScrambledZipfianGenerator>(0, record_count + expected_new_keys);
  } else if (spec_.distribution == KeyDistribution::kLatest) {
    latest_ = std::make_unique<SkewedLatestGenerator>(counter_);
  }
}

uint64_t YcsbOperationGenerator::NextKeynum() {
  // CoreWorkload.nextKeynum: redraw keys whose insert has not completed yet.
  uint64_t keynum;
  do {
    switch (spec_.distribution) {
      case KeyDistribution::kZipfian: keynum = zipfian_->Next(&rng_); break;
      case KeyDistribution::kLatest: keynum = latest_->Next(&rng_); break;
      case KeyDistribution::kUniform:
      default: keynum = rng_.Uniform(record_count_); break;
    }
  } while (keynum > counter_->Last());
  return keynum;
}

Operation YcsbOperationGenerator::Next() {
  // DiscreteGenerator over the proportions, in CoreWorkload's order.
  const double weights[] = {spec_.read, spec_.update, spec_.insert, spec_.scan, spec_.rmw};
  const OpType types[] = {OpType::kRead, OpType::kUpdate, OpType::kInsert, OpType::kScan,
                          OpType::kReadModifyWrite};
  double sum = 0;
  for (double w : weights) sum += w;
  double v = rng_.NextDouble() * sum;
  OpType type = OpType::kRead;
  for (int i = 0; i < 5; i++) {
    if (weights[i] <= 0) continue;
    type = types[i];
    if (v < weights[i]) break;
    v -= weights[i];
  }
  Operation op;
  op.type = type;
  if (type == OpType::kInsert) {
    op.keynum = counter_->Next();
  } else {
    op.keynum = NextKeynum();
    if (type == OpType::kScan) op.scan_length = 1 + static_cast<uint32_t>(rng_.Uniform(spec_.max_scan_length));
  }
  return op;
}

// ---- db_bench ----------------------------------------------------------------------

DbBenchOperationGenerator::DbBenchOperationGenerator(const std::string& name, uint64_t num,
                                                     uint32_t read_write_percent, uint64_t seed)
    : name_(name), num_(num), read_write_percent_(read_write_percent), rng_(seed) {}

Operation DbBenchOperationGenerator::Next(uint64_t i) {
  Operation op;
  if (name_ == "fillseq") {
    op.type = OpType::kInsert;
    op.keynum = i;
  } else if (name_ == "fillrandom" || name_ == "overwrite") {
    op.type = OpType::kUpdate;
    op.keynum = rng_.Uniform(num_);
  } else if (name_ == "readrandom") {
    op.type = OpType::kRead;
    op.keynum = rng_.Uniform(num_);
  } else {
    // readrandomwriterandom: batches of readwritepercent Gets, then the rest Puts.
    op.keynum = rng_.Uniform(num_);
    if (get_weight_ == 0 && put_weight_ == 0) {
      get_weight_ = read_write_percent_;
      put_weight_ = 100 - read_write_percent_;
    }
    if (get_weight_ > 0) {
      op.type = OpType::kRead;
      get_weight_--;
    } else {
      op.type = OpType::kUpdate;
      put_weight_--;
    }
  }
  return op;
}

}  // namespace zonekv
