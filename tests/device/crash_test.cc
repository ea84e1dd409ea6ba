// Crash consistency of the image backing: a child process writes to an
// image and reports every completed command through a pipe; the parent kills
// it with SIGKILL at a random point, reopens the image and checks that every
// acknowledged write is present and every byte below each write pointer is
// exactly what was written there (so no write pointer ever got ahead of its
// data). The seed is printed on failure; ZONEKV_SEED=<n> replays one seed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "test_util.h"

namespace zonekv {
namespace {

constexpr uint64_t kBlock = 4096;

EmulatedDeviceOptions CrashOptions() {
  EmulatedDeviceOptions o = test::SmallOptions(6, 6, 6);
  o.geometry.zone_size_bytes = 256 << 10;
  o.geometry.zone_capacity_bytes = 192 << 10;
  return o;
}

// The content of block `block` of `zone` in the zone's `generation`-th life:
// a fixed random block stamped with those three numbers (cheap to make, so
// the child spends its time in the device, where the kill should land).
std::vector<char> BlockContent(uint32_t zone, uint64_t generation, uint64_t block) {
  static const std::vector<char> base = test::Pattern(kBlock, 42);
  std::vector<char> c = base;
  const uint64_t stamp[3] = {zone, generation, block};
  std::memcpy(c.data(), stamp, sizeof(stamp));
  std::memcpy(c.data() + kBlock - sizeof(stamp), stamp, sizeof(stamp));
  return c;
}

enum Kind : uint32_t { kIntentWrite = 1, kAckWrite, kIntentReset, kAckReset };
struct Record {
  uint32_t kind;
  uint32_t zone;
  uint64_t end_bytes;  // zone-relative end of a write
};

// Child: writes at write pointers and resets zones until killed.
[[noreturn]] void ChildLoop(const std::string& path, uint64_t seed, int fd) {
  std::unique_ptr<EmulatedDevice> d;
  if (!EmulatedDevice::OpenImage(path, CrashOptions(), &d).ok()) _exit(3);
  const DeviceGeometry& g = d->geometry();
  std::mt19937_64 rng(seed);
  auto send = [&](Record r) {
    if (write(fd, &r, sizeof(r)) != sizeof(r)) _exit(4);
  };
  for (;;) {
    uint32_t z = static_cast<uint32_t>(rng() % g.nr_zones);
    ZoneInfo info;
    if (!d->ReportZone(z, &info).ok()) _exit(5);
    if (info.written_bytes() > 0 && (info.state == ZoneState::kFull || rng() % 20 == 0)) {
      send({kIntentReset, z, 0});
      if (!d->ResetZone(z).ok()) _exit(6);
      send({kAckReset, z, 0});
      continue;
    }
    uint64_t rel = info.written_bytes();
    uint64_t blocks = std::min<uint64_t>(1 + rng() % 16, (g.zone_capacity_bytes - rel) / kBlock);
    std::vector<char> data;
    for (uint64_t b = 0; b < blocks; b++) {
      auto c = BlockContent(z, info.reset_count, rel / kBlock + b);
      data.insert(data.end(), c.begin(), c.end());
    }
    send({kIntentWrite, z, rel + data.size()});
    if (!d->Write(info.wp_bytes, data.data(), data.size()).ok()) _exit(7);
    send({kAckWrite, z, rel + data.size()});
  }
}

void RunCrash(uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (replay with ZONEKV_SEED=" + std::to_string(seed) + ")");
  const std::string path = test::TempPath("crash");
  ASSERT_TRUE(EmulatedDevice::CreateImage(path, CrashOptions().geometry, true).ok());
  const uint32_t nz = CrashOptions().geometry.nr_zones;
  std::mt19937_64 rng(seed);
  const uint64_t kill_after = 1 + rng() % 1500;  // acknowledged commands

  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    ChildLoop(path, seed, fds[1]);
  }
  close(fds[1]);
  std::vector<uint64_t> acked_end(nz, 0), acked_resets(nz, 0);
  std::vector<int> in_flight(nz, 0);  // kind of the unacknowledged command, per zone
  uint64_t acks = 0;
  bool killed = false;
  Record r;
  while (read(fds[0], &r, sizeof(r)) == sizeof(r)) {
    ASSERT_LT(r.zone, nz);
    if (r.kind == kIntentWrite || r.kind == kIntentReset) {
      in_flight[r.zone] = static_cast<int>(r.kind);
    } else {
      in_flight[r.zone] = 0;
      if (r.kind == kAckWrite) acked_end[r.zone] = r.end_bytes;
      if (r.kind == kAckReset) {
        acked_end[r.zone] = 0;
        acked_resets[r.zone]++;
      }
      if (++acks == kill_after && !killed) {
        kill(pid, SIGKILL);
        killed = true;
      }
    }
  }
  close(fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exited with status " << status;

  std::unique_ptr<EmulatedDevice> d;
  Status s = EmulatedDevice::OpenImage(path, CrashOptions(), &d);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (uint32_t z = 0; z < nz; z++) {
    ZoneInfo info = test::Zone(d.get(), z);
    EXPECT_FALSE(IsOpen(info.state)) << "zone " << z;
    if (in_flight[z] == kIntentReset && info.reset_count == acked_resets[z] + 1) {
      EXPECT_EQ(info.written_bytes(), 0u) << "zone " << z << ": a reset was recorded but the zone is not empty";
    } else {
      EXPECT_EQ(info.reset_count, acked_resets[z]) << "zone " << z;
      EXPECT_GE(info.written_bytes(), acked_end[z]) << "zone " << z << ": an acknowledged write was lost";
    }
    std::vector<char> got(info.written_bytes());
    ASSERT_TRUE(d->Read(info.start_bytes, got.size(), got.data()).ok());
    for (uint64_t b = 0; b < got.size() / kBlock; b++) {
      auto want = BlockContent(z, info.reset_count, b);
      ASSERT_EQ(std::memcmp(got.data() + b * kBlock, want.data(), kBlock), 0)
          << "zone " << z << " block " << b << " below the write pointer " << info.written_bytes()
          << " does not hold what was written";
    }
  }
  d.reset();
  std::remove(path.c_str());
}

TEST(CrashTest, KillNineNeverLosesAcknowledgedWritesOrExposesUnwrittenData) {
  if (const char* env = std::getenv("ZONEKV_SEED")) {
    RunCrash(std::strtoull(env, nullptr, 10));
    return;
  }
  for (uint64_t seed = 1; seed <= 16 && !HasFatalFailure(); seed++) RunCrash(seed);
}

}  // namespace
}  // namespace zonekv
