#include <gtest/gtest.h>

#include "view_builder.h"

namespace zonekv {

TEST(FileKindTest, ClassifiesRocksDbNames) {
  uint64_t n = 0;
  EXPECT_EQ(FileKindFromName("/db/000123.sst", &n), FileKind::kSst);
  EXPECT_EQ(n, 123u);
  EXPECT_EQ(FileKindFromName("000045.blob", &n), FileKind::kBlob);
  EXPECT_EQ(n, 45u);
  EXPECT_EQ(FileKindFromName("/db/000007.log", &n), FileKind::kWal);
  EXPECT_EQ(n, 7u);
  EXPECT_EQ(FileKindFromName("/db/MANIFEST-000001", &n), FileKind::kManifest);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(FileKindFromName("/db/OPTIONS-000005", &n), FileKind::kOther);
  EXPECT_EQ(FileKindFromName("/db/LOG", &n), FileKind::kOther);
  EXPECT_EQ(FileKindFromName("/db/abc.sst", &n), FileKind::kOther);
  EXPECT_EQ(n, 0u);
}

TEST(FsViewTest, SpaceAccountingPartitionsCapacity) {
  ViewBuilder b;
  b.Zone(0, 0);              // free 1 MiB
  b.Zone(kCap, kCap / 4);    // used 1/4, reclaimable 3/4
  b.Zone(kCap / 2, kCap / 2);  // free 1/2, used 1/2
  FsView& v = b.view();
  EXPECT_EQ(v.free_bytes(), kCap + kCap / 2);
  EXPECT_EQ(v.used_bytes(), kCap / 4 + kCap / 2);
  EXPECT_EQ(v.reclaimable_bytes(), 3 * kCap / 4);
  EXPECT_DOUBLE_EQ(v.free_ratio(), 1.5 / 3.0);
}

TEST(PolicyOptionsTest, SetValidatesAndNamesTheKnob) {
  FsPolicyOptions o;
  EXPECT_TRUE(o.Set("zc", "greedy").ok());
  EXPECT_EQ(o.zc, "greedy");
  Status s = o.Set("zc", "bogus");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bogus"), std::string::npos);
  s = o.Set("nonsense", "1");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("nonsense"), std::string::npos);
  EXPECT_FALSE(o.Set("finish_threshold", "120").ok());
  EXPECT_TRUE(o.Set("occupancy_threshold", "80").ok());
  EXPECT_DOUBLE_EQ(o.finish_threshold_pct, 20.0);
  EXPECT_FALSE(o.Set("reset_t", "1.5").ok());
}

TEST(FinishThresholdTest, FinishesOnlyActiveZonesWithLittleLeft) {
  ViewBuilder b;
  b.Zone(kCap - kCap / 10, 10);   // 10% left: finish at 20%
  b.Zone(kCap / 2, 10);           // 50% left: keep
  b.Zone(kCap, 10);               // full: nothing to finish
  b.Zone(0, 0);                   // empty
  b.Zone(kCap - kCap / 10, 10).busy = true;  // being written: keep
  EXPECT_EQ(ZonesToFinish(b.view(), 20), std::vector<uint32_t>{0});
  EXPECT_TRUE(ZonesToFinish(b.view(), 0).empty());
  EXPECT_EQ(ZonesToFinish(b.view(), 60), (std::vector<uint32_t>{0, 1}));
}

}  // namespace zonekv
