#include <gtest/gtest.h>

#include "zonekv/plugin.h"

namespace zonekv {
namespace {

TEST(PluginUriTest, ImagePathSchemeAndKnobs) {
  PluginUri p;
  ASSERT_TRUE(ParsePluginUri("zonekv:///tmp/zns.img", &p).ok());
  EXPECT_EQ(p.device_spec, "file:/tmp/zns.img");
  EXPECT_EQ(p.scheme, "coop");
  // coop's file-system half: CAZA for SSTs, BAZA for blob files, FAR.
  EXPECT_EQ(p.fs.policy.alloc, "caza");
  EXPECT_EQ(p.fs.policy.blob_alloc, "baza");
  EXPECT_EQ(p.fs.policy.reset, "far");

  ASSERT_TRUE(ParsePluginUri("zonekv:///tmp/zns.img?scheme:baseline,zc:greedy,timing:zn540,emergency_zc:false", &p).ok());
  EXPECT_EQ(p.device_spec, "file:/tmp/zns.img,timing=zn540");
  EXPECT_EQ(p.fs.policy.blob_alloc, "");
  EXPECT_EQ(p.fs.policy.zc, "greedy");
  EXPECT_FALSE(p.fs.emergency_zc);

  ASSERT_TRUE(ParsePluginUri("zonekv://zbd:/dev/nvme0n2", &p).ok());
  EXPECT_EQ(p.device_spec, "zbd:/dev/nvme0n2");
}

TEST(PluginUriTest, BadUrisNameWhatIsWrong) {
  PluginUri p;
  struct Case {
    const char* uri;
    const char* says;
  } cases[] = {
      {"zenfs://dev:nvme0n1", "does not start with zonekv://"},
      {"zonekv://", "names no device"},
      {"zonekv://ram:zones:4", "does not outlive the process"},
      {"zonekv:///x.img?zc", "'zc' is not KEY:VALUE"},
      {"zonekv:///x.img?zc:bogus", "zc='bogus' is not a zone cleaning policy"},
      {"zonekv:///x.img?scheme:bogus", "unknown scheme 'bogus'"},
      {"zonekv:///x.img?zc_trigger:5", "renamed to 'zc_trigger_free_pct'"},
      {"zonekv://zbd:/dev/nvme0n2?timing:zn540", "emulated devices only"},
  };
  for (const auto& c : cases) {
    Status s = ParsePluginUri(c.uri, &p);
    ASSERT_TRUE(s.Is(Status::Code::kInvalidArgument)) << c.uri;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.uri << ": " << s.message();
    EXPECT_NE(s.message().find(c.uri), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace zonekv
