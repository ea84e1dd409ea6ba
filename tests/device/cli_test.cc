// `zonekv device` end to end: exit codes, messages and output formats.
// ZONEKV_BINARY is the path of the zonekv executable (set by CMake).
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace {

struct CliRun {
  int rc;
  std::string out;  // stdout and stderr
};

CliRun Zonekv(const std::string& args) {
  std::string cmd = std::string(ZONEKV_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  CliRun r{-1, ""};
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class DeviceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "zonekv_cli_" + std::to_string(getpid()) + ".img";
    std::remove(path_.c_str());
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_;
};

TEST_F(DeviceCli, HelpAtEveryLevel) {
  CliRun r = Zonekv("device --help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("create PATH"), std::string::npos) << r.out;
  for (const char* sub : {"create", "info", "report", "bench"}) {
    r = Zonekv(std::string("device ") + sub + " --help");
    EXPECT_EQ(r.rc, 0) << sub;
    EXPECT_NE(r.out.find("Usage: zonekv device " + std::string(sub)), std::string::npos) << r.out;
  }
  EXPECT_EQ(Zonekv("device").rc, 2);
  r = Zonekv("device frobnicate");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("unknown subcommand 'frobnicate'"), std::string::npos) << r.out;
}

TEST_F(DeviceCli, CreateInfoReport) {
  CliRun r = Zonekv("device create " + path_ + " --zones=4 --zone_size=1M --zone_cap=512K --max_open=2 --max_active=3");
  ASSERT_EQ(r.rc, 0) << r.out;
  r = Zonekv("device info " + path_);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("4 x 1 MiB (capacity 512 KiB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max_open 2, max_active 3"), std::string::npos) << r.out;
  r = Zonekv("device report " + path_ + " --zone=1 --count=1");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out, "  start: 0x000000800, len 0x000800, cap 0x000400, wptr 0x000000 resets:0, zcond: 1(em) [empty]\n");
  r = Zonekv("device report file:" + path_ + ",finish=pad --json");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"cap\": 524288"), std::string::npos) << r.out;
}

TEST_F(DeviceCli, ErrorsAreOneLineWithExitCodes) {
  ASSERT_EQ(Zonekv("device create " + path_ + " --zones=2 --zone_size=64K").rc, 0);
  CliRun r = Zonekv("device create " + path_);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "zonekv device create: InvalidArgument: image " + path_ +
                       " already exists (pass --force to overwrite it)\n");
  r = Zonekv("device create " + path_ + " --force --zones=2 --zone_size=64K --zone_cap=128K");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("zone_cap 131072 exceeds zone_size 65536"), std::string::npos) << r.out;
  r = Zonekv("device create " + path_ + " --zones=many");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("--zones"), std::string::npos) << r.out;
  r = Zonekv("device create");
  EXPECT_EQ(r.rc, 2);
  r = Zonekv("device info /nonexistent/x.img");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("NotFound: image /nonexistent/x.img does not exist"), std::string::npos) << r.out;
  r = Zonekv("device report " + path_ + " --zone=5");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("--zone 5 does not exist"), std::string::npos) << r.out;
  r = Zonekv("device info /etc/hostname");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("Corruption"), std::string::npos) << r.out;
}

TEST_F(DeviceCli, BenchPrintsFiguresBesideAnchors) {
  const std::string json = path_ + ".json";
  CliRun r = Zonekv("device bench --quick --mode=model --device=meta:zones=16,zone_size=8M,timing=cosmos --json=" +
                    json);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("anchors of profile cosmos, modelled time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("randread_16k_qd4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n/p"), std::string::npos) << r.out;  // figures nobody published
  FILE* f = std::fopen(json.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  std::remove(json.c_str());
  EXPECT_NE(text.find("\"measures\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"randread_16k_qd4\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"profile\": \"cosmos\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"busy_ratio\""), std::string::npos) << text;
  // Wall time on a fast clock (time_scale), the figures in device time.
  r = Zonekv("device bench --quick --device=ram:zones=14,zone_size=4M,timing=confzns,time_scale=0.02");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("wall time, time_scale"), std::string::npos) << r.out;
}

TEST_F(DeviceCli, BenchErrorsAreOneLine) {
  struct Case {
    const char* args;
    int rc;
    const char* needle;
  } cases[] = {
      {"device bench", 2, "--device is required"},
      {"device bench --device=ram:zones=2", 2, "'zone_size' is required"},
      {"device bench --device=ram:zones=16,zone_size=4M", 2, "no timing model: add timing=<profile>"},
      {"device bench --device=ram:zones=16,zone_size=4M,timing=zn540 --mode=fast", 2, "--mode 'fast'"},
      {"device bench --device=ram:zones=16,zone_size=4M,timing=zn540 --anchors=ssd", 2, "unknown timing profile"},
      {"device bench --device=ram:zones=8,zone_size=4M,timing=zn540 --mode=model", 1, "needs 14 zones"},
      {"device bench --device=ram:zones=16,zone_size=4M,timing=zn540,time_scale=0", 1, "time_scale 0"},
  };
  for (const Case& c : cases) {
    CliRun r = Zonekv(c.args);
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.needle), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n') <= 1 || c.rc == 2, true) << r.out;
  }
}

}  // namespace
