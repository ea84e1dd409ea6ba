// Crash test: a child process runs RocksDB (BlobDB, synced writes) on ZoneFs
// over an image-file device and reports each acknowledged key through a
// pipe; the parent kills it with SIGKILL at a random point, then remounts:
// every acknowledged key must be present with its value, the DB must scan
// cleanly, and fsck must find nothing.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <set>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include "zonekv/emulated_device.h"

#include "fs_test_util.h"

namespace zonekv {
namespace {

std::string Key(uint32_t i) {
  char b[16];
  std::snprintf(b, sizeof(b), "k%08u", i);
  return b;
}

std::string Value(uint32_t i) {
  std::string v(700 + i % 900, '\0');
  for (size_t k = 0; k < v.size(); k++) v[k] = static_cast<char>('a' + (i * 31 + k) % 26);
  return v;
}

rocksdb::Options DbOptions(rocksdb::Env* env, ZoneFs* fs) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.env = env;
  o.listeners.push_back(fs->listener());
  o.write_buffer_size = 128 << 10;
  o.target_file_size_base = 256 << 10;
  o.max_bytes_for_level_base = 1 << 20;
  o.level0_file_num_compaction_trigger = 2;
  o.enable_blob_files = true;
  o.min_blob_size = 512;
  o.blob_file_size = 256 << 10;
  o.enable_blob_garbage_collection = true;
  return o;
}

}  // namespace

// The child: writes keys first.. until killed, acknowledging each on `fd`.
// It runs in a fresh exec of this binary (RocksDB's thread pools do not
// survive fork in a process that already used them).
[[noreturn]] void RunChild(const std::string& image, uint32_t first, int fd) {
  std::unique_ptr<ZonedDevice> d;
  if (!OpenDevice("file:" + image, &d).ok()) _exit(2);
  std::shared_ptr<ZonedDevice> dev(std::move(d));
  std::shared_ptr<ZoneFs> fs;
  if (!ZoneFs::Mount(dev, ZoneFsOptions(), &fs).ok()) _exit(3);
  auto env = rocksdb::NewCompositeEnv(fs->file_system());
  rocksdb::DB* db = nullptr;
  if (!rocksdb::DB::Open(DbOptions(env.get(), fs.get()), "/db", &db).ok()) _exit(4);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  for (uint32_t i = first;; i++) {
    if (!db->Put(wo, Key(i), Value(i)).ok()) _exit(5);
    if (write(fd, &i, sizeof(i)) != sizeof(i)) _exit(6);
  }
}

namespace {

TEST(CrashTest, SyncedWritesSurviveKill9) {
  std::string image = "/dev/shm/zonekv_crash_test_" + std::to_string(getpid()) + ".img";
  struct Cleanup {
    std::string path;
    ~Cleanup() { unlink(path.c_str()); }  // also when an assertion ends the test early
  } cleanup{image};
  DeviceGeometry g;
  g.block_size = 4096;
  g.zone_size_bytes = 2 << 20;
  g.zone_capacity_bytes = 2 << 20;
  g.nr_zones = 40;
  g.max_open_zones = 14;
  g.max_active_zones = 14;
  ASSERT_TRUE(EmulatedDevice::CreateImage(image, g, true).ok());
  {
    std::unique_ptr<ZonedDevice> d;
    ASSERT_TRUE(OpenDevice("file:" + image, &d).ok());
    ASSERT_TRUE(ZoneFs::Format(d.get(), ZoneFsOptions()).ok());
  }
  std::mt19937 rng(static_cast<unsigned>(std::getenv("ZONEKV_SEED") ? std::atoi(std::getenv("ZONEKV_SEED")) : 7));
  std::set<uint32_t> acked;
  uint32_t next = 0;
  const int rounds = 12;
  for (int round = 0; round < rounds; round++) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    uint32_t target = 20 + rng() % 1500;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      setenv("ZONEKV_CRASH_IMAGE", image.c_str(), 1);
      setenv("ZONEKV_CRASH_FIRST", std::to_string(next).c_str(), 1);
      setenv("ZONEKV_CRASH_FD", std::to_string(fds[1]).c_str(), 1);
      execl("/proc/self/exe", "fs_crash_test", nullptr);
      _exit(7);
    }
    close(fds[1]);
    uint32_t got = 0, k = 0;
    while (got < target && read(fds[0], &k, sizeof(k)) == sizeof(k)) {
      acked.insert(k);
      got++;
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    close(fds[0]);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status) << " in round " << round;
    next = acked.empty() ? 0 : *acked.rbegin() + 1000;  // fresh keys; unacked ones may or may not exist

    std::unique_ptr<ZonedDevice> d;
    ASSERT_TRUE(OpenDevice("file:" + image, &d).ok());
    std::shared_ptr<ZonedDevice> dev(std::move(d));
    std::shared_ptr<ZoneFs> fs;
    Status s = ZoneFs::Mount(dev, ZoneFsOptions(), &fs);
    ASSERT_TRUE(s.ok()) << "round " << round << ": " << s.ToString();
    EXPECT_EQ(FsckText(*fs), "") << "round " << round;
    auto env = rocksdb::NewCompositeEnv(fs->file_system());
    rocksdb::DB* db = nullptr;
    rocksdb::Status rs = rocksdb::DB::Open(DbOptions(env.get(), fs.get()), "/db", &db);
    ASSERT_TRUE(rs.ok()) << "round " << round << ": " << rs.ToString();
    for (uint32_t key : acked) {
      std::string v;
      rs = db->Get(rocksdb::ReadOptions(), Key(key), &v);
      ASSERT_TRUE(rs.ok()) << "round " << round << " acked key " << key << ": " << rs.ToString();
      ASSERT_EQ(v, Value(key)) << key;
    }
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
      uint32_t key = static_cast<uint32_t>(std::strtoul(it->key().ToString().c_str() + 1, nullptr, 10));
      ASSERT_EQ(it->value().ToString(), Value(key));
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_GE(n, acked.size());
    it.reset();
    ASSERT_TRUE(db->Close().ok());
    delete db;
  }
  EXPECT_GT(acked.size(), 100u);
  std::printf("crash test: %d kills, %zu acknowledged keys verified\n", rounds, acked.size());
}

}  // namespace
}  // namespace zonekv

// The child process (see RunChild) is this binary run with ZONEKV_CRASH_IMAGE set.
int main(int argc, char** argv) {
  if (const char* image = std::getenv("ZONEKV_CRASH_IMAGE")) {
    zonekv::RunChild(image, static_cast<uint32_t>(std::atoll(std::getenv("ZONEKV_CRASH_FIRST"))),
                     std::atoi(std::getenv("ZONEKV_CRASH_FD")));
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
