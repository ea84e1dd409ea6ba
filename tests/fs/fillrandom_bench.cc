// fillrandom on zonekv (RAM device, timing none) against RocksDB's default
// file system on tmpfs, with the same options, in one run. Prints ops/s for
// both and their ratio. Not a test: run it by hand (numbers in notes/issue-3.md).
//
//   fs_fillrandom_bench [--num=100000] [--value_size=4096] [--key_size=16]
//                       [--device=ram:zones=64,zone_size=64M,max_open=14,max_active=14]
//                       [--posix_dir=/dev/shm/zonekv_bench] [--repeat=1]
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <random>
#include <sys/resource.h>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include "zonekv/flags.h"
#include "zonekv/zonefs.h"

namespace zonekv {
namespace {

struct Args {
  uint64_t num = 0, value_size = 0, key_size = 0, repeat = 0;
  std::string device, posix_dir;
};

rocksdb::Options BenchOptions(rocksdb::Env* env) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.env = env;
  o.enable_blob_files = true;
  o.min_blob_size = 0;
  o.max_background_jobs = 2;
  return o;
}

// CPU seconds (user + system, all threads) used by this process so far.
double CpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Returns ops/s, or a negative number on failure. *cpu_us_per_op gets the
// process CPU time per put, including flushes and Close (load-independent).
double FillRandom(rocksdb::Options o, const std::string& path, const Args& a, double* cpu_us_per_op) {
  double cpu0 = CpuSeconds();
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(o, path, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "open %s: %s\n", path.c_str(), s.ToString().c_str());
    return -1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  std::mt19937_64 rng(42);
  std::string key(a.key_size, '0'), value(a.value_size, '\0');
  for (auto& c : value) c = static_cast<char>(rng());
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < a.num; i++) {
    uint64_t k = rng() % a.num;
    std::snprintf(key.data(), key.size() + 1, "%0*llu", static_cast<int>(a.key_size), static_cast<unsigned long long>(k));
    value[i % value.size()] = static_cast<char>(i);
    s = db->Put(rocksdb::WriteOptions(), key, value);
    if (!s.ok()) {
      std::fprintf(stderr, "put: %s\n", s.ToString().c_str());
      return -1;
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string stats;
  if (std::getenv("ZONEKV_BENCH_METRICS") && db->GetProperty("rocksdb.stats", &stats)) {
    for (size_t p = stats.find("Stall"); p != std::string::npos; p = stats.find("Stall", p + 1)) {
      std::printf("%s\n", stats.substr(p, stats.find('\n', p) - p).c_str());
    }
  }
  db->Close();
  *cpu_us_per_op = (CpuSeconds() - cpu0) * 1e6 / static_cast<double>(a.num);
  return static_cast<double>(a.num) / secs;
}

int Main(int argc, char** argv) {
  Flags flags("fillrandom_bench");
  flags.Define("num", "100000", "puts");
  flags.Define("value_size", "4096", "value bytes");
  flags.Define("key_size", "16", "key bytes");
  flags.Define("repeat", "1", "runs of each (alternating)");
  flags.Define("device", "ram:zones=64,zone_size=64M,max_open=14,max_active=14", "zonekv device");
  flags.Define("posix_dir", "/dev/shm/zonekv_bench", "directory for the default file system run");
  bool help = false;
  Status st = flags.Parse(argc, argv, 1, &help);
  if (help || !st.ok()) {
    if (!st.ok()) std::fprintf(stderr, "%s\n", st.ToString().c_str());
    std::printf("%s", flags.Usage("[flags]").c_str());
    return help ? 0 : 2;
  }
  Args a;
  st = flags.Uint("num", &a.num);
  if (st.ok()) st = flags.Uint("value_size", &a.value_size);
  if (st.ok()) st = flags.Uint("key_size", &a.key_size);
  if (st.ok()) st = flags.Uint("repeat", &a.repeat);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.ToString().c_str());
    return 2;
  }
  a.device = flags.Str("device");
  a.posix_dir = flags.Str("posix_dir");
  double zsum = 0, psum = 0, zcpu_sum = 0, pcpu_sum = 0;
  for (uint64_t r = 0; r < a.repeat; r++) {
    std::unique_ptr<ZonedDevice> d;
    st = OpenDevice(a.device, &d);
    std::shared_ptr<ZonedDevice> dev(std::move(d));
    std::shared_ptr<ZoneFs> fs;
    if (st.ok()) st = ZoneFs::Format(dev.get(), ZoneFsOptions());
    if (st.ok()) st = ZoneFs::Mount(dev, ZoneFsOptions(), &fs);
    if (!st.ok()) {
      std::fprintf(stderr, "zonekv: %s\n", st.ToString().c_str());
      return 1;
    }
    double z = 0, zcpu = 0, pcpu = 0;
    {
      auto env = rocksdb::NewCompositeEnv(fs->file_system());
      rocksdb::Options o = BenchOptions(env.get());
      o.listeners.push_back(fs->listener());
      z = FillRandom(o, "/db", a, &zcpu);
    }
    Json m = fs->Stats().ToJson();
    if (std::getenv("ZONEKV_BENCH_METRICS")) std::printf("%s\n", m.Dump().c_str());
    fs.reset();
    std::filesystem::remove_all(a.posix_dir);
    double p = FillRandom(BenchOptions(rocksdb::Env::Default()), a.posix_dir, a, &pcpu);
    std::filesystem::remove_all(a.posix_dir);
    if (z < 0 || p < 0) return 1;
    std::printf("run %llu: zonekv %.0f ops/s (%.1f MB/s, %.1f cpu us/op), posix tmpfs %.0f ops/s (%.1f MB/s, %.1f cpu us/op), "
                "ratio %.3f\n",
                static_cast<unsigned long long>(r + 1), z, z * static_cast<double>(a.value_size + a.key_size) / 1e6, zcpu,
                p, p * static_cast<double>(a.value_size + a.key_size) / 1e6, pcpu, z / p);
    zsum += z;
    psum += p;
    zcpu_sum += zcpu;
    pcpu_sum += pcpu;
  }
  std::printf("fillrandom num=%llu key=%llu value=%llu BlobDB: zonekv/posix throughput ratio %.3f, "
              "cpu per op ratio (posix/zonekv) %.3f\n",
              static_cast<unsigned long long>(a.num), static_cast<unsigned long long>(a.key_size),
              static_cast<unsigned long long>(a.value_size), zsum / psum, pcpu_sum / zcpu_sum);
  return 0;
}

}  // namespace
}  // namespace zonekv

int main(int argc, char** argv) { return zonekv::Main(argc, argv); }
