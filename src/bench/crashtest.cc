// The crash campaign (zonekv/crashtest.h): plans runs, starts the writer
// process for each, kills it or lets it fault, then checks the database.
#include "zonekv/crashtest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <rocksdb/db.h>

#include "crash_db.h"
#include "crash_plan.h"
#include "crash_state.h"
#include "zonekv/emulated_device.h"

namespace zonekv {

namespace {

using Clock = std::chrono::steady_clock;

// How long a fault run may take after its fault before it counts as hung:
// closing RocksDB after errors, and ZoneFs's allocation timeout (10 s).
constexpr auto kHangLimit = std::chrono::seconds(120);

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The last `n` lines of the file at `path` ("" if it is empty or missing).
std::string LastLines(const std::string& path, int n) {
  std::string all = ReadWhole(path);
  while (!all.empty() && all.back() == '\n') all.pop_back();
  size_t start = all.size();
  for (int i = 0; i < n && start > 0; i++) {
    const size_t nl = all.rfind('\n', start - 1);
    start = nl == std::string::npos ? 0 : nl;
    if (nl == std::string::npos) break;
  }
  if (start < all.size() && all[start] == '\n') start++;
  return all.empty() ? "(no output)" : all.substr(start);
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::string Versions(const std::vector<KeyVersion>& v) {
  std::string s;
  for (const KeyVersion& x : v) s += (s.empty() ? "" : ", ") + (x.seq == 0 ? std::string("absent") : "seq " + std::to_string(x.seq));
  return "{" + s + "}";
}

// Starts the writer for `plan`; its stdout and stderr go to `out_path`.
Status StartWriter(const CrashTestOptions& o, const CrashRunPlan& plan, const std::string& image,
                   const std::string& log, const std::string& out_path, uint64_t first_seq, pid_t* pid) {
  std::vector<std::string> args = {o.self,
                                   "__crashtest_writer",
                                   "--seed=" + std::to_string(o.seed),
                                   "--faults=" + Join(o.faults),
                                   "--duration_ms=" + std::to_string(o.duration_ms),
                                   "--run=" + std::to_string(plan.index),
                                   "--image=" + image,
                                   "--log=" + log,
                                   "--first_seq=" + std::to_string(first_seq)};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return Status::IOError("cannot create " + out_path + ": " + std::strerror(errno));
  // Only async-signal-safe calls between fork and exec: this process runs
  // RocksDB's threads.
  *pid = fork();
  if (*pid < 0) {
    ::close(fd);
    return Status::IOError(std::string("fork: ") + std::strerror(errno));
  }
  if (*pid == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  ::close(fd);
  return Status::OK();
}

// Waits for `pid` until `deadline`; true with *status if it exited.
bool WaitUntil(pid_t pid, Clock::time_point deadline, int* status) {
  while (true) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

struct RunCheck {
  uint64_t keys_checked = 0;
  uint64_t keys_rolled_back = 0;  // holding other than their last acknowledged write
  std::vector<KeyVersion> actual;
};

// Reopens the image without faults and checks it against `state`.
// Returns the first problem found (OK: clean).
Status CheckRun(const CrashRunPlan& plan, const std::string& image, const ExpectedState& state, RunCheck* out) {
  std::unique_ptr<ZonedDevice> d;
  ZONEKV_RETURN_IF_ERROR(OpenDevice("file:" + image, &d));
  std::shared_ptr<ZonedDevice> dev(std::move(d));
  {
    // `zonekv fs fsck`: a read-only mount, as the tool does it.
    ZoneFsOptions ro;
    ZONEKV_RETURN_IF_ERROR(CrashFsOptions(plan, &ro));
    ro.read_only = true;
    std::shared_ptr<ZoneFs> fs;
    Status s = ZoneFs::Mount(dev, ro, &fs);
    if (!s.ok()) return Status::Corruption("read-only mount for fsck: " + s.ToString());
    std::vector<FsckProblem> problems = fs->Fsck();
    if (!problems.empty()) {
      return Status::Corruption("fsck (read-only) found " + std::to_string(problems.size()) +
                                " problems, the first: " + problems[0].message);
    }
    // `fsck --deep`: RocksDB's read-only open of the crashed database, every
    // SST and blob record checksum.
    DeepCheckResult deep = DeepCheck(fs);
    if (!deep.problems.empty()) {
      return Status::Corruption("fsck --deep (read-only) found " + std::to_string(deep.problems.size()) +
                                " problems, the first: " + deep.problems[0].message);
    }
  }
  CrashDb db;
  Status s = OpenCrashDb(plan, dev, false, &db);
  if (!s.ok()) return Status::Corruption("reopening: " + s.ToString());
  {
    std::vector<FsckProblem> problems = db.fs->Fsck();
    if (!problems.empty()) return Status::Corruption("fsck after recovery: " + problems[0].message);
  }
  const std::vector<std::vector<KeyVersion>> ok = state.Acceptable();
  out->actual.assign(state.keys(), KeyVersion{});
  for (uint32_t k = 0; k < state.keys(); k++) {
    std::string v;
    rocksdb::Status rs = db.db->Get(rocksdb::ReadOptions(), CrashKey(k), &v);
    KeyVersion got;
    if (rs.ok()) {
      if (!ParseCrashValue(k, v, &got.seq, &got.len)) {
        return Status::Corruption("key " + CrashKey(k) + " holds a damaged value (" + std::to_string(v.size()) +
                                  " bytes, starting '" + v.substr(0, 40) + "'); " + state.History(k));
      }
    } else if (!rs.IsNotFound()) {
      return Status::Corruption("Get(" + CrashKey(k) + "): " + rs.ToString());
    }
    bool fine = false;
    for (const KeyVersion& x : ok[k]) fine |= x == got;
    if (!fine) {
      return Status::Corruption("key " + CrashKey(k) + " holds " +
                                (got.seq == 0 ? std::string("nothing") : "seq " + std::to_string(got.seq)) +
                                " but may hold only " + Versions(ok[k]) + "; " + state.History(k));
    }
    out->actual[k] = got;
    out->keys_checked++;
  }
  // A scan must see exactly what the Gets saw.
  std::unique_ptr<rocksdb::Iterator> it(db.db->NewIterator(rocksdb::ReadOptions()));
  uint64_t present = 0, seen = 0;
  for (const KeyVersion& x : out->actual) present += x.seq != 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    seen++;
    const std::string key = it->key().ToString();
    uint32_t k = static_cast<uint32_t>(std::strtoul(key.c_str() + 1, nullptr, 10));
    KeyVersion got;
    if (key != CrashKey(k) || k >= state.keys() || !ParseCrashValue(k, it->value().ToString(), &got.seq, &got.len) ||
        !(got == out->actual[k])) {
      return Status::Corruption("the scan returns key '" + key + "' with a value Get did not return");
    }
  }
  if (!it->status().ok()) return Status::Corruption("scan: " + it->status().ToString());
  const std::vector<KeyVersion> latest = state.Latest();
  for (uint32_t k = 0; k < state.keys(); k++) out->keys_rolled_back += !(latest[k] == out->actual[k]);
  if (seen != present) {
    return Status::Corruption("the scan returns " + std::to_string(seen) + " keys, Get found " +
                              std::to_string(present));
  }
  it.reset();
  std::shared_ptr<ZoneFs> fs = db.fs;
  s = db.Close();
  if (!s.ok()) return Status::Corruption("closing after the check: " + s.ToString());
  std::vector<FsckProblem> problems = fs->Fsck();
  if (!problems.empty()) return Status::Corruption("fsck after the check: " + problems[0].message);
  return Status::OK();
}

// The first run on the image of run `i`: a run continues its image's
// database, so reproducing it starts there.
uint64_t FirstOfImage(const std::vector<CrashRunPlan>& plans, uint64_t i) {
  while (i > 0 && plans[i - 1].image == plans[i].image) i--;
  return i;
}

}  // namespace

Status CrashTestOptions::Validate() const {
  if (kills == 0 || kills > 1000000) return Status::InvalidArgument("--kills must be from 1 to 1000000");
  if (duration_ms < 10 || duration_ms > 3600 * 1000) return Status::InvalidArgument("--duration must be from 10ms to 3600s");
  if (first_kill >= kills) return Status::InvalidArgument("--first_kill must be below --kills");
  for (const std::string& f : faults) {
    CrashFault k;
    Status s = ParseCrashFault(f, &k);
    if (!s.ok()) return Status::InvalidArgument("--faults: " + s.message());
  }
  if (self.empty()) return Status::InvalidArgument("the writer binary is unknown");
  return Status::OK();
}

Status RunCrashTest(const CrashTestOptions& o, FILE* out, CrashTestResult* result) {
  ZONEKV_RETURN_IF_ERROR(o.Validate());
  *result = CrashTestResult();
  std::string dir = o.dir;
  bool made_dir = false;
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/zonekv-crashtest-XXXXXX";
    if (mkdtemp(base.data()) == nullptr) return Status::IOError("cannot create a directory " + base);
    dir = base;
    made_dir = true;
  } else if (mkdir(dir.c_str(), 0755) == 0) {
    made_dir = true;
  } else if (errno != EEXIST) {
    return Status::IOError("cannot create --dir=" + dir + ": " + std::strerror(errno));
  }
  const std::vector<CrashRunPlan> plans = PlanCrashRuns(o, o.kills);
  Json config = Json::Object();
  Json faults = Json::Array();
  for (const auto& f : o.faults) faults.Push(f);
  config.Set("kills", o.kills).Set("seed", o.seed).Set("duration_ms", o.duration_ms).Set("faults", faults);
  config.Set("first_kill", o.first_kill).Set("dir", dir);
  Json runs = Json::Array();
  std::fprintf(out, "crashtest: seed %llu, %llu kills, duration %llu ms, faults %s, in %s\n",
               static_cast<unsigned long long>(o.seed), static_cast<unsigned long long>(o.kills),
               static_cast<unsigned long long>(o.duration_ms), o.faults.empty() ? "none" : Join(o.faults).c_str(),
               dir.c_str());
  std::fflush(out);

  std::unique_ptr<ExpectedState> state;
  std::string image;
  uint64_t next_seq = 1;
  const auto campaign_start = Clock::now();
  int64_t failed_at = -1;
  for (uint64_t i = 0; i < o.kills; i++) {
    const CrashRunPlan& plan = plans[i];
    if (i < FirstOfImage(plans, o.first_kill)) continue;  // skipped; its plan was still drawn
    if (plan.new_image || state == nullptr) {
      if (!image.empty()) unlink(image.c_str());
      image = dir + "/image-" + std::to_string(plan.image) + ".img";
      ZONEKV_RETURN_IF_ERROR(EmulatedDevice::CreateImage(image, plan.geometry, true));
      std::unique_ptr<ZonedDevice> d;
      ZONEKV_RETURN_IF_ERROR(OpenDevice("file:" + image, &d));
      ZoneFsOptions fs_opts;
      ZONEKV_RETURN_IF_ERROR(CrashFsOptions(plan, &fs_opts));
      ZONEKV_RETURN_IF_ERROR(ZoneFs::Format(d.get(), fs_opts));
      state = std::make_unique<ExpectedState>(plan.keys);
    }
    const std::string log = dir + "/expected-" + std::to_string(i) + ".log";
    const std::string writer_out = dir + "/writer-" + std::to_string(i) + ".txt";
    const auto start = Clock::now();
    pid_t pid = 0;
    ZONEKV_RETURN_IF_ERROR(StartWriter(o, plan, image, log, writer_out, next_seq, &pid));
    int status = 0;
    std::string failure;
    const auto fault_at = start + std::chrono::milliseconds(plan.run_ms);
    if (plan.fault == CrashFault::kKill) {
      if (WaitUntil(pid, fault_at, &status)) {
        failure = "the writer exited before its kill (" +
                  (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                       : "exit " + std::to_string(WEXITSTATUS(status))) +
                  "): " + LastLines(writer_out, 2);
      } else {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
      }
    } else if (!WaitUntil(pid, fault_at + kHangLimit, &status)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      failure = "the writer hung after its fault (killed after " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kHangLimit).count()) +
                " s): " + LastLines(writer_out, 2);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      failure = "the writer failed (" +
                (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                     : "exit " + std::to_string(WEXITSTATUS(status))) +
                "): " + LastLines(writer_out, 2);
    }
    const double ran_s = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<CrashRecord> records;
    if (failure.empty()) {
      Status s = DecodeCrashLog(ReadWhole(log), &records);
      if (!s.ok()) failure = s.ToString();
    }
    state->SetRun(records);
    RunCheck check;
    if (failure.empty()) {
      Status s = CheckRun(plan, image, *state, &check);
      if (!s.ok()) failure = s.message();
    }
    for (const CrashRecord& r : records) next_seq = std::max(next_seq, r.seq + 1);
    const uint64_t verified = failure.empty() ? state->durable() : 0;
    const bool writer_error = plan.fault == CrashFault::kKill ? false : state->failed() > 0;
    const bool fired = plan.fault != CrashFault::kKill &&
                       ReadWhole(writer_out).find("fault_fired=1") != std::string::npos;
    Json run = plan.ToJson();
    run.Set("ran_s", ran_s).Set("ops", state->issued()).Set("acked", state->acked());
    run.Set("acked_synced", state->acked_synced()).Set("failed", state->failed()).Set("writes_verified", verified);
    run.Set("keys_checked", check.keys_checked).Set("keys_rolled_back", check.keys_rolled_back).Set("fault_fired", fired).Set("ok", failure.empty());
    if (!failure.empty()) run.Set("failure", failure);
    runs.Push(run);
    std::fprintf(out, "kill %llu/%llu image %llu %s%s: %.1fs, ops %llu acked %llu synced %llu failed %llu, %s\n",
                 static_cast<unsigned long long>(i + 1), static_cast<unsigned long long>(o.kills),
                 static_cast<unsigned long long>(plan.image), plan.Describe().c_str(),
                 plan.fault == CrashFault::kKill ? "" : fired ? " (fired)" : " (not reached)", ran_s,
                 static_cast<unsigned long long>(state->issued()), static_cast<unsigned long long>(state->acked()),
                 static_cast<unsigned long long>(state->acked_synced()),
                 static_cast<unsigned long long>(state->failed()),
                 failure.empty() ? ("verified " + std::to_string(verified) + " writes, " +
                                    std::to_string(check.keys_checked) + " keys (" +
                                    std::to_string(check.keys_rolled_back) + " rolled back): ok")
                                       .c_str()
                                 : ("FAILED: " + failure).c_str());
    std::fflush(out);
    if (!failure.empty()) {
      failed_at = static_cast<int64_t>(i);
      result->failures.push_back("kill " + std::to_string(i) + ": " + failure);
      break;
    }
    state->Rebase(check.actual);
    result->kills++;
    result->writes_verified += verified;
    result->synced_writes += state->acked_synced();
    result->keys_checked += check.keys_checked;
    result->keys_rolled_back += check.keys_rolled_back;
    result->writer_errors += writer_error;
    result->faults_fired += fired;
    result->fault_runs += plan.fault != CrashFault::kKill;
    unlink(log.c_str());
    unlink(writer_out.c_str());
  }
  const double total_s = std::chrono::duration<double>(Clock::now() - campaign_start).count();
  Json summary = Json::Object();
  summary.Set("kills", result->kills).Set("writes_verified", result->writes_verified);
  summary.Set("synced_writes", result->synced_writes).Set("keys_checked", result->keys_checked);
  summary.Set("keys_rolled_back", result->keys_rolled_back);
  summary.Set("fault_runs", result->fault_runs).Set("faults_fired", result->faults_fired);
  summary.Set("writer_errors", result->writer_errors).Set("failures", static_cast<uint64_t>(result->failures.size()));
  summary.Set("seconds", total_s);
  result->json.Set("config", config).Set("runs", runs).Set("summary", summary);
  std::fprintf(out,
               "crashtest: %llu kills, %llu writes verified (%llu synced), %llu keys checked (%llu rolled back to "
               "an older write), %llu fault runs (%llu fired, %llu with errors seen by the writer), %zu failures, "
               "%.0f s\n",
               static_cast<unsigned long long>(result->kills), static_cast<unsigned long long>(result->writes_verified),
               static_cast<unsigned long long>(result->synced_writes),
               static_cast<unsigned long long>(result->keys_checked),
               static_cast<unsigned long long>(result->keys_rolled_back),
               static_cast<unsigned long long>(result->fault_runs),
               static_cast<unsigned long long>(result->faults_fired),
               static_cast<unsigned long long>(result->writer_errors), result->failures.size(), total_s);
  if (result->failures.empty()) {
    if (!image.empty()) unlink(image.c_str());
    if (made_dir) rmdir(dir.c_str());
  } else {
    const uint64_t k = static_cast<uint64_t>(failed_at);
    std::fprintf(out,
                 "crashtest: FAILED at kill %llu; reproduce with: zonekv crashtest --seed=%llu --kills=%llu "
                 "--first_kill=%llu --duration=%llums%s%s (image, log and writer output kept in %s)\n",
                 static_cast<unsigned long long>(k), static_cast<unsigned long long>(o.seed),
                 static_cast<unsigned long long>(k + 1), static_cast<unsigned long long>(FirstOfImage(plans, k)),
                 static_cast<unsigned long long>(o.duration_ms), o.faults.empty() ? "" : " --faults=",
                 Join(o.faults).c_str(), dir.c_str());
  }
  return Status::OK();
}

}  // namespace zonekv
