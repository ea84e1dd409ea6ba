// Z_Cutoff's decision (Same-Victim GC, section IV-C): ComputeZCutoff on
// hand-built views.
#include <gtest/gtest.h>

#include "view_builder.h"
#include "zonekv/blob_gc.h"

namespace zonekv {

// The paper's worked example (Fig. 5): zones 0 and 1 are full with YBIZ 4
// and 9; zone 2 holds B8 but is not full. 20 live blob files B1..B20.
TEST(ZCutoffTest, PaperWorkedExamples) {
  ViewBuilder b;
  b.BlobZone(kCap, 4);
  b.BlobZone(kCap, 9);
  b.BlobZone(kCap / 2, 8);
  std::vector<uint64_t> live;
  for (uint64_t n = 1; n <= 20; n++) live.push_back(n);
  ZCutoff c;
  ASSERT_TRUE(ComputeZCutoff(live, b.view(), &c));
  EXPECT_EQ(c.eligible_files, 4u);
  EXPECT_DOUBLE_EQ(c.ratio(), 4.0 / 20);

  // BlobGC deleted B1..B4 and zone 0 was reset: 16 live files, min YBIZ 9.
  b.view().zones[0] = ZoneView{};
  b.view().zones[0].capacity_bytes = kCap;
  live.erase(live.begin(), live.begin() + 4);
  ASSERT_TRUE(ComputeZCutoff(live, b.view(), &c));
  EXPECT_EQ(c.eligible_files, 5u);
  EXPECT_DOUBLE_EQ(c.ratio(), 5.0 / 16);
}

TEST(ZCutoffTest, NoOpinionWithoutFullBlobZone) {
  ViewBuilder b;
  b.BlobZone(kCap / 2, 8);
  b.Zone(kCap, kCap);  // full, but SST data only
  ZCutoff c;
  EXPECT_FALSE(ComputeZCutoff({1, 2, 3}, b.view(), &c));
}

TEST(ZCutoffTest, OptionValueMakesRocksDbPickExactlyTheEligibleFiles) {
  for (size_t n = 1; n <= 200; n++) {
    for (size_t k = 0; k <= n; k++) {
      ZCutoff c;
      c.eligible_files = k;
      c.live_files = n;
      size_t rocksdb_index = static_cast<size_t>(c.option_value() * static_cast<double>(n));
      EXPECT_EQ(std::min(rocksdb_index, n), k) << k << "/" << n;
    }
  }
}

}  // namespace zonekv
