// `zonekv device` end to end: exit codes, messages and output formats.
// ZONEKV_BINARY is the path of the zonekv executable (set by CMake).
#include <sys/wait.h>

#include <gtest/gtest.h>

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

}  // namespace
