// `zonekv fs fsck --deep`: RocksDB's own checks of the databases in a ZoneFs.
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <set>

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/options_util.h>

#include "coding.h"
#include "zonekv/crc32c.h"
#include "zonekv/zonefs.h"

namespace zonekv {

namespace {

// A read-only check must not create a LOG file.
class SilentLogger : public rocksdb::Logger {
 public:
  using rocksdb::Logger::Logv;
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
};

std::string BlobName(const std::string& dir, uint64_t number) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "/%06" PRIu64 ".blob", number);
  return dir + buf;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// RocksDB's blob file format (db/blob/blob_log_format.h, read to learn the
// layout): a 30-byte header (u32 magic, u32 version, u32 column family,
// u8 flags, u8 compression, u64 x 2 expiration range); records of a 32-byte
// header (u64 key length, u64 value length, u64 expiration, u32 header CRC
// over the first 24 bytes, u32 CRC over key and value) and key and value;
// a 32-byte footer (u32 magic, u64 record count, u64 x 2 expiration range,
// u32 CRC over the first 28 bytes). Little-endian; CRC-32C, masked as
// RocksDB masks stored CRCs.
constexpr uint32_t kBlobMagic = 0x00248f37;
constexpr uint64_t kBlobHeaderBytes = 30;
constexpr uint64_t kBlobRecordHeaderBytes = 32;
constexpr uint64_t kBlobFooterBytes = 32;

uint32_t MaskedCrc(const char* p, size_t n) {
  const uint32_t c = Crc32c(p, n);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

// Walks every record of a closed blob file and checks every CRC; returns
// what is wrong (empty: nothing) and sets *records.
std::string CheckBlobRecords(const std::string& d, uint64_t* records) {
  *records = 0;
  if (d.size() < kBlobHeaderBytes + kBlobFooterBytes) return "is too short for a blob file";
  if (DecodeFixed32(d.data()) != kBlobMagic) return "has a bad header magic";
  const uint64_t footer = d.size() - kBlobFooterBytes;
  const char* f = d.data() + footer;
  if (DecodeFixed32(f) != kBlobMagic) return "has no footer (bad footer magic)";
  if (MaskedCrc(f, 28) != DecodeFixed32(f + 28)) return "has a footer CRC mismatch";
  uint64_t pos = kBlobHeaderBytes;
  while (pos < footer) {
    auto at = [&] { return " at offset " + std::to_string(pos); };
    if (footer - pos < kBlobRecordHeaderBytes) return "has a cut record header" + at();
    const char* h = d.data() + pos;
    if (MaskedCrc(h, 24) != DecodeFixed32(h + 24)) return "has a record header CRC mismatch" + at();
    const uint64_t key = DecodeFixed64(h), value = DecodeFixed64(h + 8);
    const uint64_t room = footer - pos - kBlobRecordHeaderBytes;
    if (key > room || value > room - key) return "has a record running into the footer" + at();
    if (MaskedCrc(h + kBlobRecordHeaderBytes, key + value) != DecodeFixed32(h + 28)) {
      return "has a blob CRC mismatch in the record" + at();
    }
    pos += kBlobRecordHeaderBytes + key + value;
    (*records)++;
  }
  if (DecodeFixed64(f + 4) != *records) {
    return "holds " + std::to_string(*records) + " records, its footer says " + std::to_string(DecodeFixed64(f + 4));
  }
  return "";
}

// The options a read-only open of `dir` uses: the database's latest OPTIONS
// file if it loads, else every column family (ListColumnFamilies) with
// default options. Either way the Env is `env` and nothing is logged.
rocksdb::Status CheckOptions(rocksdb::Env* env, const std::shared_ptr<rocksdb::Logger>& log, const std::string& dir,
                             rocksdb::DBOptions* db_opts, std::vector<rocksdb::ColumnFamilyDescriptor>* cfs) {
  rocksdb::ConfigOptions config;
  config.env = env;
  config.ignore_unknown_options = true;
  config.ignore_unsupported_options = true;
  rocksdb::Status s = rocksdb::LoadLatestOptions(config, dir, db_opts, cfs);
  if (!s.ok()) {
    *db_opts = rocksdb::DBOptions();
    cfs->clear();
    db_opts->env = env;
    db_opts->info_log = log;
    std::vector<std::string> names;
    s = rocksdb::DB::ListColumnFamilies(*db_opts, dir, &names);
    if (!s.ok()) return s;
    for (const auto& n : names) cfs->emplace_back(n, rocksdb::ColumnFamilyOptions());
  }
  db_opts->env = env;
  db_opts->info_log = log;
  db_opts->create_if_missing = false;
  db_opts->paranoid_checks = true;
  db_opts->listeners.clear();
  db_opts->statistics.reset();
  db_opts->sst_file_manager.reset();
  for (auto& cf : *cfs) {
    cf.options.compaction_filter = nullptr;
    cf.options.compaction_filter_factory.reset();
  }
  return rocksdb::Status::OK();
}

// Checks the database in `dir`; adds what it finds to *db and *problems.
void CheckDatabase(const std::shared_ptr<ZoneFs>& fs, const std::map<std::string, uint64_t>& sizes,
                   const std::string& dir, DeepCheckResult::Database* db, std::vector<FsckProblem>* problems) {
  auto problem = [&](const std::string& what) { problems->push_back({"deep: " + dir + ": " + what}); };
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs->file_system());
  auto log = std::make_shared<SilentLogger>();
  rocksdb::DBOptions db_opts;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  rocksdb::Status s = CheckOptions(env.get(), log, dir, &db_opts, &cfs);
  if (!s.ok()) return problem("cannot read the database's column families: " + s.ToString());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  s = rocksdb::DB::OpenForReadOnly(db_opts, dir, cfs, &handles, &raw);
  if (!s.ok()) return problem("RocksDB cannot open it read-only: " + s.ToString());
  std::unique_ptr<rocksdb::DB> rdb(raw);

  // Every file RocksDB's current version lists exists with the size it recorded.
  std::set<std::string> live;
  for (auto* h : handles) {
    rocksdb::ColumnFamilyMetaData meta;
    rdb->GetColumnFamilyMetaData(h, &meta);
    for (const auto& level : meta.levels) {
      for (const auto& f : level.files) {
        const std::string name = f.directory + "/" + f.relative_filename;
        live.insert(name);
        db->sst_files++;
        auto it = sizes.find(name);
        if (it == sizes.end()) problem("SST " + name + " (level " + std::to_string(level.level) + ") is missing");
        else if (it->second != f.size)
          problem("SST " + name + " holds " + std::to_string(it->second) + " bytes, RocksDB recorded " +
                  std::to_string(f.size));
      }
    }
    for (const auto& b : meta.blob_files) {
      const std::string name = BlobName(b.blob_file_path, b.blob_file_number);
      live.insert(name);
      db->blob_files++;
      auto it = sizes.find(name);
      if (it == sizes.end()) {
        problem("blob file " + name + " is missing");
        continue;
      }
      if (it->second != b.blob_file_size) {
        problem("blob file " + name + " holds " + std::to_string(it->second) + " bytes, RocksDB recorded " +
                std::to_string(b.blob_file_size));
        continue;
      }
      // Every record, the garbage ones too (a scan reads only live values).
      std::string data;
      Status rs = fs->ReadFile(name, &data);
      if (!rs.ok()) {
        problem("reading blob file " + name + ": " + rs.ToString());
        continue;
      }
      uint64_t records = 0;
      std::string bad = CheckBlobRecords(data, &records);
      if (bad.empty() && records != b.total_blob_count) {
        bad = "holds " + std::to_string(records) + " records, RocksDB recorded " + std::to_string(b.total_blob_count);
      }
      if (!bad.empty()) problem("blob file " + name + " " + bad);
      db->blob_records += records;
    }
  }
  for (const auto& [name, size] : sizes) {
    if (name.rfind(dir + "/", 0) == 0 && (EndsWith(name, ".sst") || EndsWith(name, ".blob")) && !live.count(name)) {
      db->unreferenced_files++;
    }
  }

  // Every block checksum of every SST ...
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  s = rdb->VerifyChecksum(ro);
  if (!s.ok()) problem("SST checksum: " + s.ToString());
  // ... and every live value, which reads (and checks the checksum of)
  // every blob record a key refers to.
  for (auto* h : handles) {
    std::unique_ptr<rocksdb::Iterator> it(rdb->NewIterator(ro, h));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      (void)it->value();
      db->keys++;
    }
    if (!it->status().ok()) {
      problem("reading column family '" + h->GetName() + "' after " + std::to_string(db->keys) +
              " keys: " + it->status().ToString());
    }
  }
  for (auto* h : handles) rdb->DestroyColumnFamilyHandle(h);
  s = rdb->Close();
  if (!s.ok()) problem("closing: " + s.ToString());
}

}  // namespace

DeepCheckResult DeepCheck(const std::shared_ptr<ZoneFs>& fs) {
  DeepCheckResult out;
  std::map<std::string, uint64_t> sizes;
  std::set<std::string> dirs;
  for (const FileExtents& fe : fs->Files()) {
    sizes[fe.file.name] = fe.file.size_bytes;
    if (EndsWith(fe.file.name, "/CURRENT")) dirs.insert(fe.file.name.substr(0, fe.file.name.size() - 8));
  }
  for (const std::string& dir : dirs) {
    DeepCheckResult::Database db;
    db.dir = dir.empty() ? "/" : dir;
    CheckDatabase(fs, sizes, db.dir, &db, &out.problems);
    out.databases.push_back(db);
  }
  return out;
}

}  // namespace zonekv
