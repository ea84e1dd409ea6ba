// Metadata integrity (`zonekv fs fsck`): damage to any byte of the metadata
// (image header, zone table, journal) is found by the open or the mount, and
// says where; fsck is clean only when the byte was unused. And the deep
// check (`fsck --deep`): RocksDB's checksums of every SST and every blob
// record of the databases stored.
#include <fcntl.h>
#include <unistd.h>

#include <random>
#include <set>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include "fs_test_util.h"
#include "image_format.h"
#include "zonekv/emulated_device.h"

namespace zonekv {
namespace {

class ImageFile {
 public:
  explicit ImageFile(const std::string& name) : path_(testing::TempDir() + name) {}
  ~ImageFile() { unlink(path_.c_str()); }
  const std::string& path() const { return path_; }
  // XORs the byte at `offset` with `mask` (twice restores it).
  void Flip(uint64_t offset, uint8_t mask) const {
    int fd = open(path_.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    unsigned char b = 0;
    ASSERT_EQ(pread(fd, &b, 1, static_cast<off_t>(offset)), 1);
    b ^= mask;
    ASSERT_EQ(pwrite(fd, &b, 1, static_cast<off_t>(offset)), 1);
    close(fd);
  }

 private:
  std::string path_;
};

DeviceGeometry SmallGeometry(uint32_t zones, uint64_t zone_bytes) {
  DeviceGeometry g;
  g.zone_size_bytes = zone_bytes;
  g.zone_capacity_bytes = zone_bytes;
  g.nr_zones = zones;
  g.max_open_zones = 8;
  g.max_active_zones = 8;
  return g;
}

std::shared_ptr<ZonedDevice> OpenImage(const std::string& path, Status* s) {
  std::unique_ptr<ZonedDevice> d;
  *s = OpenDevice("file:" + path, &d);
  return std::shared_ptr<ZonedDevice>(std::move(d));
}

// What a read-only open, mount and fsck of the image say: OK and no
// problems (clean), or the first error or problem.
Status Check(const std::string& path) {
  Status s;
  std::shared_ptr<ZonedDevice> dev = OpenImage(path, &s);
  if (!s.ok()) return s;
  ZoneFsOptions ro;
  ro.read_only = true;
  std::shared_ptr<ZoneFs> fs;
  ZONEKV_RETURN_IF_ERROR(ZoneFs::Mount(dev, ro, &fs));
  std::vector<FsckProblem> problems = fs->Fsck();
  if (!problems.empty()) return Status::Corruption("fsck: " + problems[0].message);
  return Status::OK();
}

TEST(MetadataIntegrityTest, EveryDamagedMetadataByteIsFoundAndUnusedBytesAreClean) {
  ImageFile image("/zonekv_integrity.img");
  const DeviceGeometry g = SmallGeometry(16, 1 << 20);
  ASSERT_TRUE(EmulatedDevice::CreateImage(image.path(), g, true).ok());
  Status s;
  {
    std::shared_ptr<ZonedDevice> dev = OpenImage(image.path(), &s);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::shared_ptr<ZoneFs> fs = FormatAndMount(dev, ZoneFsOptions());
    std::shared_ptr<rocksdb::FileSystem> rfs = fs->file_system();
    for (int i = 0; i < 6; i++) {
      rocksdb::IOStatus w = test::WriteFile(rfs.get(), "/d/f" + std::to_string(i), test::Pattern(i, 50000 + 7000 * i));
      ASSERT_TRUE(w.ok()) << w.ToString();
    }
    ASSERT_TRUE(rfs->DeleteFile("/d/f2", rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(rfs->RenameFile("/d/f3", "/d/g3", rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(fs->Sync().ok());
  }
  ASSERT_TRUE(Check(image.path()).ok());

  // Where the metadata is. The journal: the one metadata zone holding data
  // after an unmount (a roll resets the others), every byte below its write
  // pointer (records and their zero padding). Unused: the zone table's page
  // tail and the metadata zones beyond their write pointers.
  std::vector<ZoneInfo> meta;
  {
    std::shared_ptr<ZonedDevice> dev = OpenImage(image.path(), &s);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(dev->ReportZones(0, 3, &meta).ok());
  }
  uint32_t journal_zone = 0, with_data = 0;
  for (const auto& z : meta) {
    if (z.written_bytes() > 0) {
      journal_zone = z.id;
      with_data++;
    }
  }
  ASSERT_EQ(with_data, 1u);
  const uint64_t journal_wp = meta[journal_zone].written_bytes();
  const uint64_t data_offset = image::DataOffset(g.nr_zones);
  const uint64_t table_end = image::kHeaderBytes + image::kEntryBytes * g.nr_zones;

  struct Probe {
    uint64_t offset;
    bool used;
    std::string where;  // a word the error must contain
  };
  std::vector<Probe> probes;
  std::mt19937_64 rng(42);
  auto pick = [&](uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo); };
  for (uint64_t i = 0; i < image::kHeaderChecksummedBytes + 4; i++) probes.push_back({i, true, "header"});
  for (int i = 0; i < 40; i++) probes.push_back({pick(68, image::kHeaderBytes), true, "header"});
  for (uint32_t z : {0u, 7u, 15u}) {
    for (uint64_t i = 0; i < image::kEntryBytes; i++) {
      probes.push_back({image::kHeaderBytes + z * image::kEntryBytes + i, true, "zone " + std::to_string(z)});
    }
  }
  for (int i = 0; i < 60; i++) probes.push_back({pick(image::kHeaderBytes, table_end), true, "zone table entry"});
  const uint64_t journal_at = data_offset + journal_zone * g.zone_capacity_bytes;
  const std::string meta_word = "meta zone " + std::to_string(journal_zone);
  for (uint64_t i = 0; i < 64; i++) probes.push_back({journal_at + i, true, meta_word});
  for (int i = 0; i < 300; i++) probes.push_back({journal_at + pick(0, journal_wp), true, meta_word});
  for (int i = 0; i < 30; i++) probes.push_back({pick(table_end, data_offset), false, ""});
  for (int i = 0; i < 30; i++) {
    const ZoneInfo& z = meta[rng() % meta.size()];
    probes.push_back({data_offset + z.id * g.zone_capacity_bytes + pick(z.written_bytes(), g.zone_capacity_bytes),
                      false, ""});
  }

  int found = 0;
  for (const Probe& p : probes) {
    const uint8_t mask = static_cast<uint8_t>(1 + rng() % 255);
    image.Flip(p.offset, mask);
    Status c = Check(image.path());
    image.Flip(p.offset, mask);
    if (p.used) {
      ASSERT_TRUE(c.Is(Status::Code::kCorruption))
          << "byte " << p.offset << " (" << p.where << ") ^ " << int(mask) << " not found: " << c.ToString();
      EXPECT_NE(c.message().find(p.where), std::string::npos) << "byte " << p.offset << ": " << c.ToString();
      found++;
    } else {
      EXPECT_TRUE(c.ok()) << "unused byte " << p.offset << " changed the outcome: " << c.ToString();
    }
  }
  EXPECT_GT(found, 500);
  ASSERT_TRUE(Check(image.path()).ok());
}

struct BlobDb {
  std::shared_ptr<ZoneFs> fs;
  std::unique_ptr<rocksdb::Env> env;
  std::unique_ptr<rocksdb::DB> db;
};

rocksdb::Options BlobOptions(rocksdb::Env* env) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.env = env;
  o.write_buffer_size = 64 << 10;
  o.enable_blob_files = true;
  o.min_blob_size = 100;
  o.blob_file_size = 256 << 10;
  return o;
}

// Byte `offset` of file `name` in the image.
uint64_t ImageOffset(const ZoneFs& fs, const DeviceGeometry& g, const std::string& name, uint64_t offset) {
  for (const FileExtents& fe : fs.Files()) {
    if (fe.file.name != name) continue;
    for (const auto& e : fe.extents) {
      if (offset < e.length_bytes) return image::DataOffset(g.nr_zones) + e.zone * g.zone_capacity_bytes + e.offset_bytes + offset;
      offset -= e.length_bytes;
    }
  }
  ADD_FAILURE() << name << " has no byte " << offset;
  return 0;
}

std::string Problems(const DeepCheckResult& r) {
  std::string out;
  for (const auto& p : r.problems) out += p.message + "\n";
  return out;
}

TEST(DeepCheckTest, FindsDamagedSstAndBlobRecordsAndMissingFiles) {
  ImageFile image("/zonekv_deep.img");
  const DeviceGeometry g = SmallGeometry(40, 2 << 20);
  ASSERT_TRUE(EmulatedDevice::CreateImage(image.path(), g, true).ok());
  Status s;
  const int keys = 3000, overwrites = 1000;
  std::string sst, blob;
  {
    std::shared_ptr<ZonedDevice> dev = OpenImage(image.path(), &s);
    ASSERT_TRUE(s.ok());
    BlobDb d;
    d.fs = FormatAndMount(dev, ZoneFsOptions());
    d.env = rocksdb::NewCompositeEnv(d.fs->file_system());
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(BlobOptions(d.env.get()), "/db", &raw).ok());
    d.db.reset(raw);
    for (int i = 0; i < keys + overwrites; i++) {
      const int k = i < keys ? i : (i * 7) % keys;
      ASSERT_TRUE(d.db->Put(rocksdb::WriteOptions(), "k" + std::to_string(k), std::string(500, 'a' + i % 26)).ok());
    }
    ASSERT_TRUE(d.db->Flush(rocksdb::FlushOptions()).ok());
    ASSERT_TRUE(d.db->Close().ok());
    d.db.reset();
    DeepCheckResult r = DeepCheck(d.fs);
    EXPECT_TRUE(r.problems.empty()) << Problems(r);
    ASSERT_EQ(r.databases.size(), 1u);
    EXPECT_EQ(r.databases[0].dir, "/db");
    EXPECT_EQ(r.databases[0].keys, static_cast<uint64_t>(keys));
    EXPECT_EQ(r.databases[0].blob_records, static_cast<uint64_t>(keys + overwrites));  // garbage included
    EXPECT_GE(r.databases[0].blob_files, 2u);
    EXPECT_GE(r.databases[0].sst_files, 1u);
    for (const FileExtents& fe : d.fs->Files()) {
      if (fe.file.hints.kind == FileKind::kSst && sst.empty()) sst = fe.file.name;
      if (fe.file.hints.kind == FileKind::kBlob && blob.empty()) blob = fe.file.name;
    }
  }
  ASSERT_FALSE(sst.empty());
  ASSERT_FALSE(blob.empty());

  auto deep_ro = [&]() {
    std::shared_ptr<ZonedDevice> dev = OpenImage(image.path(), &s);
    EXPECT_TRUE(s.ok());
    ZoneFsOptions ro;
    ro.read_only = true;
    std::shared_ptr<ZoneFs> fs;
    EXPECT_TRUE(ZoneFs::Mount(dev, ro, &fs).ok());
    return std::make_pair(fs, DeepCheck(fs));
  };
  // The offsets to damage, from a read-only mount.
  uint64_t blob_at = 0, sst_at = 0;
  {
    auto [fs, r] = deep_ro();
    EXPECT_TRUE(r.problems.empty()) << Problems(r);
    blob_at = ImageOffset(*fs, g, blob, 30 + 32 + 300);  // inside the first record's value: garbage or not
    sst_at = ImageOffset(*fs, g, sst, 100);              // inside the first data block
  }
  image.Flip(blob_at, 0x10);
  {
    auto [fs, r] = deep_ro();
    ASSERT_FALSE(r.problems.empty());
    EXPECT_NE(Problems(r).find(blob + " has a blob CRC mismatch"), std::string::npos) << Problems(r);
    EXPECT_TRUE(fs->Fsck().empty());  // the file system's own metadata is intact
  }
  image.Flip(blob_at, 0x10);
  image.Flip(sst_at, 0x10);
  {
    auto [fs, r] = deep_ro();
    EXPECT_NE(Problems(r).find("SST checksum"), std::string::npos) << Problems(r);
  }
  image.Flip(sst_at, 0x10);
  {
    auto [fs, r] = deep_ro();
    EXPECT_TRUE(r.problems.empty()) << Problems(r);
  }
  // A file RocksDB's version lists but the file system lost: RocksDB's
  // open finds it (it opens every SST of the version).
  {
    std::shared_ptr<ZonedDevice> dev = OpenImage(image.path(), &s);
    ASSERT_TRUE(s.ok());
    std::shared_ptr<ZoneFs> fs;
    ASSERT_TRUE(ZoneFs::Mount(dev, ZoneFsOptions(), &fs).ok());
    ASSERT_TRUE(fs->file_system()->DeleteFile(sst, rocksdb::IOOptions(), nullptr).ok());
    DeepCheckResult r = DeepCheck(fs);
    EXPECT_NE(Problems(r).find("deep: /db: RocksDB cannot open it read-only: NotFound: " + sst), std::string::npos)
        << Problems(r);
  }
}

}  // namespace
}  // namespace zonekv
