// Unit tests of the metadata encoding, the journal framing and replay.
#include <limits>

#include "coding.h"
#include "zonekv/crc32c.h"
#include "journal.h"
#include "metadata.h"
#include "zone_fs_impl.h"

#include "fs_test_util.h"

namespace zonekv {
namespace {

TEST(Crc32cTest, KnownVector) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32c("56789", 5, Crc32c("1234", 4)), 0xE3069283u);
}

TEST(CodingTest, RoundTripAndTruncation) {
  std::string s;
  PutFixed32(&s, 0xdeadbeef);
  PutFixed64(&s, 0x0123456789abcdefull);
  PutVarint64(&s, 300);
  PutVarint64(&s, UINT64_MAX);
  PutBytes(&s, "hello");
  Decoder d(s);
  uint32_t a = 0;
  uint64_t b = 0, c = 0, e = 0;
  std::string h;
  ASSERT_TRUE(d.Fixed32(&a) && d.Fixed64(&b) && d.Varint64(&c) && d.Varint64(&e) && d.Bytes(&h));
  EXPECT_EQ(a, 0xdeadbeefu);
  EXPECT_EQ(b, 0x0123456789abcdefull);
  EXPECT_EQ(c, 300u);
  EXPECT_EQ(e, UINT64_MAX);
  EXPECT_EQ(h, "hello");
  EXPECT_TRUE(d.done());
  Decoder t(std::string_view(s).substr(0, s.size() - 2));
  ASSERT_TRUE(t.Fixed32(&a) && t.Fixed64(&b) && t.Varint64(&c) && t.Varint64(&e));
  EXPECT_FALSE(t.Bytes(&h));
}

FileMeta SampleFile(uint64_t id, const std::string& name) {
  FileMeta f;
  f.id = id;
  f.name = name;
  f.mtime_s = 1700000000;
  f.hints.kind = FileKind::kSst;
  f.hints.number = 42;
  f.hints.level = 2;
  f.hints.job = 7;
  f.hints.smallest_key = "a";
  f.hints.largest_key = "z";
  f.hints.lifetime = Lifetime::kLong;
  f.extents = {{5, 0, 4096}, {6, 8192, 100}};
  f.size_bytes = 4196;
  return f;
}

TEST(MetadataTest, SnapshotRoundTrip) {
  MetaState st;
  st.next_file_id = 10;
  st.dirs = {"/db", "/db/archive"};
  st.files[3] = SampleFile(3, "/db/000042.sst");
  MetaState back;
  ASSERT_TRUE(back.DecodeSnapshot(st.EncodeSnapshot()).ok());
  EXPECT_EQ(back.next_file_id, 10u);
  EXPECT_EQ(back.dirs, st.dirs);
  ASSERT_EQ(back.files.size(), 1u);
  const FileMeta& f = back.files[3];
  EXPECT_EQ(f.name, "/db/000042.sst");
  EXPECT_EQ(f.hints.level, 2);
  EXPECT_EQ(f.hints.job, 7);
  EXPECT_EQ(f.hints.largest_key, "z");
  EXPECT_EQ(f.hints.lifetime, Lifetime::kLong);
  EXPECT_EQ(f.extents, st.files[3].extents);
  std::string snap = st.EncodeSnapshot();
  EXPECT_TRUE(back.DecodeSnapshot(snap.substr(0, snap.size() - 1)).Is(Status::Code::kCorruption));
}

// A snapshot lists each live file once; a second entry would replace the
// first without a word.
TEST(MetadataTest, SnapshotWithADuplicateFileIsCorruption) {
  auto one = [](uint64_t id, const std::string& name) {
    MetaState st;
    st.next_file_id = 5;
    st.files[id] = SampleFile(id, name);
    return st.EncodeSnapshot();  // [next id 5][0 dirs][1 file][the file]
  };
  auto two = [](const std::string& a, const std::string& b) {  // a's header with a count of 2, both files
    return a.substr(0, 2) + std::string(1, 2) + a.substr(3) + b.substr(3);
  };
  MetaState back;
  ASSERT_TRUE(back.DecodeSnapshot(two(one(1, "/db/a"), one(2, "/db/b"))).ok());
  EXPECT_EQ(back.files.size(), 2u);
  Status s = back.DecodeSnapshot(two(one(1, "/db/a"), one(1, "/db/b")));
  EXPECT_TRUE(s.Is(Status::Code::kCorruption) && s.message().find("file id 1 appears twice") != std::string::npos)
      << s.ToString();
}

TEST(MetadataTest, EditsApplyInOrder) {
  MetaState st;
  EditBatch b;
  FileMeta f;
  f.id = 1;
  f.name = "/db/000001.log";
  f.hints.kind = FileKind::kWal;
  b.CreateFile(f);
  b.SetTail(1, 5000, 9, 0, {{4, 0, 4096}, {4, 4096, 904}}, 0);
  b.Rename(1, "/db/000002.log");
  ASSERT_TRUE(st.ApplyEdits(b.data()).ok());
  EXPECT_EQ(st.files[1].size_bytes, 5000u);
  EXPECT_EQ(st.files[1].name, "/db/000002.log");
  EXPECT_EQ(st.next_file_id, 2u);
  EditBatch c;
  c.SetTail(1, 6000, 9, 1, {{7, 0, 1904}}, 0);  // keeps the first extent, replaces the rest
  c.ReplaceExtents(1, {{8, 0, 6000}});
  ASSERT_TRUE(st.ApplyEdits(c.data()).ok());
  EXPECT_EQ(st.files[1].extents, (std::vector<Extent>{{8, 0, 6000}}));
  EditBatch d;
  d.DeleteFile(1);
  ASSERT_TRUE(st.ApplyEdits(d.data()).ok());
  EXPECT_TRUE(st.files.empty());
  // An edit naming a file that does not exist is corruption, not ignored.
  EXPECT_TRUE(st.ApplyEdits(d.data()).Is(Status::Code::kCorruption));
  EditBatch bad;
  bad.ReplaceExtents(9, {});
  EXPECT_TRUE(st.ApplyEdits(bad.data()).Is(Status::Code::kCorruption));
  EXPECT_TRUE(st.ApplyEdits(std::string("\x63", 1)).Is(Status::Code::kCorruption));
}

// The meta_edits fuzz target found a create edit with the largest file id:
// next_file_id wrapped to 0 and every later id collided.
TEST(MetadataTest, CreateWithTheLargestIdIsCorruption) {
  MetaState st;
  st.next_file_id = 4;
  FileMeta f;
  f.id = UINT64_MAX;
  f.name = "/db/x";
  EditBatch b;
  b.CreateFile(f);
  Status s = st.ApplyEdits(b.data());
  EXPECT_TRUE(s.Is(Status::Code::kCorruption)) << s.ToString();
  EXPECT_NE(s.ToString().find("no next file id"), std::string::npos) << s.ToString();
  EXPECT_EQ(st.next_file_id, 4u);
}

// Found by fuzz/meta_edits_fuzz (UBSan: signed overflow): a create edit
// whose hints store 2^63 for the level (stored plus one: a level of
// 2^63 - 1). A level or job that does not fit an int is corruption.
TEST(MetadataTest, AHintLevelBeyondAnIntIsCorruption) {
  const std::string edits("\x01\x00\x00\x00\x01\x00\x00\x80\x80\x80\x80\x80\x80\x80\x80\x80\x07\x07\x07"
                          "\x07\x03\x07\x07\x07\x07\x01\x00\x00\x00\xf6\x00\x20\x00",
                          33);
  MetaState st;
  st.next_file_id = 4;
  Status s = st.ApplyEdits(edits);
  EXPECT_TRUE(s.Is(Status::Code::kCorruption)) << s.ToString();
  EXPECT_TRUE(st.files.empty());
  FileMeta f;
  f.id = 4;
  f.name = "/db/000004.sst";
  f.hints.level = std::numeric_limits<int>::max();
  f.hints.job = -1;
  EditBatch ok;
  ok.CreateFile(f);
  ASSERT_TRUE(st.ApplyEdits(ok.data()).ok());
  EXPECT_EQ(st.files.at(4).hints.level, std::numeric_limits<int>::max());
  EXPECT_EQ(st.files.at(4).hints.job, -1);
}

TEST(MetadataTest, SuperblockChecksGeometry) {
  Superblock sb;
  sb.sequence = 3;
  sb.block_size = 4096;
  sb.zone_size_bytes = 1 << 20;
  sb.zone_capacity_bytes = 1 << 20;
  sb.nr_zones = 16;
  sb.meta_zones = 3;
  Superblock back;
  ASSERT_TRUE(Superblock::Decode(sb.Encode(), &back).ok());
  EXPECT_EQ(back.sequence, 3u);
  DeviceGeometry g;
  g.block_size = 4096;
  g.zone_size_bytes = 1 << 20;
  g.zone_capacity_bytes = 1 << 20;
  g.nr_zones = 16;
  EXPECT_TRUE(back.CheckGeometry(g).ok());
  g.nr_zones = 17;
  Status s = back.CheckGeometry(g);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("zones"), std::string::npos) << s.message();
  std::string enc = sb.Encode();
  enc[0] ^= 1;
  EXPECT_TRUE(Superblock::Decode(enc, &back).Is(Status::Code::kCorruption));
}

TEST(JournalTest, RecordFramingDetectsCorruptionAndTornTail) {
  std::string payload(6000, 'p');
  std::string rec = EncodeRecord(RecordType::kEdits, payload, 4096);
  ASSERT_EQ(rec.size(), 8192u);
  RecordType type;
  std::string got;
  uint64_t next = 0;
  bool torn = false;
  ASSERT_TRUE(DecodeRecord(rec, 0, 1, 4096, &type, &got, &next, &torn).ok());
  EXPECT_FALSE(torn);
  EXPECT_EQ(got, payload);
  EXPECT_EQ(next, 8192u);
  // Torn: only the first block reached the device.
  ASSERT_TRUE(DecodeRecord(rec.substr(0, 4096), 0, 1, 4096, &type, &got, &next, &torn).ok());
  EXPECT_TRUE(torn);
  // A flipped payload byte or header byte is corruption.
  std::string bad = rec;
  bad[5000] ^= 0x10;
  Status s = DecodeRecord(bad, 0, 1, 4096, &type, &got, &next, &torn);
  EXPECT_TRUE(s.Is(Status::Code::kCorruption)) << s.ToString();
  EXPECT_NE(s.message().find("meta zone 1 offset 0"), std::string::npos) << s.message();
  bad = rec;
  bad[5] ^= 0x01;  // the length: must not pass for a torn tail
  EXPECT_TRUE(DecodeRecord(bad, 0, 1, 4096, &type, &got, &next, &torn).Is(Status::Code::kCorruption));
}

const char* kSmallDevice = "ram:zones=8,zone_size=64K";

TEST(JournalTest, ReplayAcrossRollsAndTornTail) {
  auto dev = OpenTestDevice(kSmallDevice);
  Superblock sb;
  sb.sequence = 1;
  sb.block_size = 4096;
  sb.zone_size_bytes = 64 << 10;
  sb.zone_capacity_bytes = 64 << 10;
  sb.nr_zones = 8;
  sb.meta_zones = 3;
  Journal j(dev.get(), 3);
  ASSERT_TRUE(j.Format(sb).ok());
  MetaState model;
  for (uint64_t id = 1; id <= 38; id++) {  // 38 one-block records in 16-block zones: several rolls
    EditBatch b;
    FileMeta f;
    f.id = id;
    f.name = "/f" + std::to_string(id);
    b.CreateFile(f);
    ASSERT_TRUE(model.ApplyEdits(b.data()).ok());
    ASSERT_TRUE(j.Append(b.data(), [&] { return model.EncodeSnapshot(); }).ok());
  }
  EXPECT_GE(j.rolls(), 2u);
  {
    Journal r(dev.get(), 3);
    Superblock got;
    MetaState st;
    ASSERT_TRUE(r.Recover(&got, &st).ok());
    EXPECT_EQ(st.files.size(), 38u);
    EXPECT_EQ(got.sequence, 1 + j.rolls());
  }
  // A torn final record (first block of two) is the end of the log.
  EditBatch big;
  FileMeta f;
  f.id = 99;
  f.name = std::string(5000, 'x');
  big.CreateFile(f);
  std::string rec = EncodeRecord(RecordType::kEdits, big.data(), 4096);
  ASSERT_EQ(rec.size(), 8192u);
  uint64_t at = j.current_zone() * (64 << 10) + j.used_bytes();
  ASSERT_TRUE(dev->Write(at, rec.data(), 4096).ok());
  {
    Journal r(dev.get(), 3);
    Superblock got;
    MetaState st;
    ASSERT_TRUE(r.Recover(&got, &st).ok());
    EXPECT_EQ(st.files.size(), 38u);
  }
  // A complete record with a bad checksum is reported.
  std::string bad = EncodeRecord(RecordType::kEdits, big.data(), 4096);
  bad[6000] ^= 1;
  ASSERT_TRUE(dev->Write(at + 4096, bad.data(), bad.size()).ok());
  {
    Journal r(dev.get(), 3);
    Superblock got;
    MetaState st;
    Status s = r.Recover(&got, &st);
    // The torn block before it now reads as a record whose payload runs into
    // the next one: its header is intact, its payload checksum is not.
    EXPECT_TRUE(s.Is(Status::Code::kCorruption)) << s.ToString();
  }
}

// A zone finished after a torn record (a mount rolled away from it) reads as
// zeros past the torn part: the torn record is still the end of its log.
TEST(JournalTest, FinishedZoneWithTornTail) {
  auto dev = OpenTestDevice(kSmallDevice);
  Superblock sb;
  sb.sequence = 1;
  sb.block_size = 4096;
  sb.zone_size_bytes = 64 << 10;
  sb.zone_capacity_bytes = 64 << 10;
  sb.nr_zones = 8;
  sb.meta_zones = 3;
  Journal j(dev.get(), 3);
  ASSERT_TRUE(j.Format(sb).ok());
  MetaState model;
  for (uint64_t id = 1; id <= 3; id++) {
    EditBatch b;
    FileMeta f;
    f.id = id;
    f.name = "/f" + std::to_string(id);
    b.CreateFile(f);
    ASSERT_TRUE(model.ApplyEdits(b.data()).ok());
    ASSERT_TRUE(j.Append(b.data(), [&] { return model.EncodeSnapshot(); }).ok());
  }
  EditBatch big;
  FileMeta f;
  f.id = 9;
  f.name = std::string(5000, 'x');
  big.CreateFile(f);
  std::string rec = EncodeRecord(RecordType::kEdits, big.data(), 4096);
  ASSERT_TRUE(dev->Write(j.current_zone() * (64 << 10) + j.used_bytes(), rec.data(), 4096).ok());
  ASSERT_TRUE(dev->FinishZone(j.current_zone()).ok());
  Journal r(dev.get(), 3);
  Superblock got;
  MetaState st;
  Status s = r.Recover(&got, &st);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(st.files.size(), 3u);
}

TEST(JournalTest, MountReportsMissingAndCorruptSuperblock) {
  auto dev = OpenTestDevice(kSmallDevice);
  ZoneFsOptions opts;
  std::shared_ptr<ZoneFs> fs;
  Status s = ZoneFs::Mount(dev, opts, &fs);
  EXPECT_TRUE(s.Is(Status::Code::kNotFound)) << s.ToString();
  EXPECT_NE(s.message().find("mkfs"), std::string::npos);
  ASSERT_TRUE(ZoneFs::Format(dev.get(), opts).ok());
  ASSERT_TRUE(ZoneFs::Mount(dev, opts, &fs).ok());
  fs.reset();
  // Damage the superblock of every metadata zone in use.
  std::vector<ZoneInfo> zones;
  ASSERT_TRUE(dev->ReportZones(0, 3, &zones).ok());
  for (const auto& z : zones) {
    if (z.written_bytes() == 0) continue;
    ASSERT_TRUE(dev->ResetZone(z.id).ok());
    std::string junk(4096, 'J');
    ASSERT_TRUE(dev->Write(z.start_bytes, junk.data(), junk.size()).ok());
  }
  s = ZoneFs::Mount(dev, opts, &fs);
  EXPECT_TRUE(s.Is(Status::Code::kCorruption)) << s.ToString();
}

TEST(PathTest, Normalize) {
  EXPECT_EQ(NormalizePath("/db//000001.sst"), "/db/000001.sst");
  EXPECT_EQ(NormalizePath("db/./x/"), "/db/x");
  EXPECT_EQ(NormalizePath("/a/b/../c"), "/a/c");
  EXPECT_EQ(NormalizePath(""), "/");
}

// Found by fuzz/meta_edits_fuzz: a create-file edit whose size disagrees
// with its extents was accepted, leaving a file table that the next journal
// roll writes as a snapshot that recovery then rejects.
TEST(MetaStateTest, FuzzCreateFileSizeMustMatchExtents) {
  // tag kCreateFile, id 0, name "", size 1, mtime 0, hints (all 0), 0 extents.
  const std::string edit("\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00", 13);
  MetaState st;
  Status s = st.ApplyEdits(edit);
  EXPECT_TRUE(s.Is(Status::Code::kCorruption)) << s.ToString();
  EXPECT_NE(s.message().find("has size 1 but its extents hold 0 bytes"), std::string::npos) << s.ToString();
  EXPECT_TRUE(st.files.empty());
}

}  // namespace
}  // namespace zonekv
