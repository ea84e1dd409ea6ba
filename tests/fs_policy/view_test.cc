#include <gtest/gtest.h>

#include "policies.h"
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

TEST(FsViewTest, EmptyZonesAreTheUnwrittenOnesNoOneHolds) {
  ViewBuilder b;
  b.Zone(0, 0);                    // counted
  b.Zone(0, 0).busy = true;        // held (a writer's, or kept back): not counted
  b.Zone(kCap / 2, 0);             // written, no valid data: not empty
  b.Zone(0, 0).state = ZoneState::kOffline;
  EXPECT_EQ(b.view().empty_zones(), 1u);
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
  EXPECT_FALSE(o.Set("finish_threshold_pct", "120").ok());
  EXPECT_TRUE(o.Set("finish_threshold_pct", "20").ok());
  EXPECT_DOUBLE_EQ(o.finish_threshold_pct, 20.0);
  EXPECT_FALSE(o.Set("reset_far_t", "1.5").ok());
}

TEST(PolicyOptionsTest, OneNamePerKnobOnTheCommandLineAndInTheJson) {
  FsPolicyOptions o;
  Json j = o.ToJson();
  for (const auto& k : FsPolicyKnobs().knobs()) {
    EXPECT_NE(j.Find(k.name), nullptr) << k.name;
    // Setting a knob to the value its JSON records is accepted (round trip).
    const Json* v = j.Find(k.name);
    std::string text = v->type() == Json::Type::kString ? v->str()
                       : v->type() == Json::Type::kBool ? (v->boolean() ? "true" : "false")
                                                         : v->Dump();
    EXPECT_TRUE(o.Set(k.name, text).ok()) << k.name << "=" << text;
  }
  // An old name says what it became.
  Status s = o.Set("zc_trigger", "20");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("renamed to 'zc_trigger_free_pct'"), std::string::npos) << s.ToString();
}

TEST(PolicyRegistryTest, EveryRegisteredPolicyIsMadeUnderItsName) {
  for (const auto& e : CleaningPolicies().entries()) {
    FsPolicyOptions o;
    ASSERT_TRUE(o.Set("zc", e.name).ok());
    FsPolicies p;
    ASSERT_TRUE(MakeFsPolicies(o, &p).ok()) << e.name;
    EXPECT_EQ(p.zc->name(), e.name);
    EXPECT_FALSE(e.help.empty());
  }
  for (const auto& e : ResetPolicies().entries()) {
    FsPolicyOptions o;
    ASSERT_TRUE(o.Set("reset", e.name).ok());
    FsPolicies p;
    ASSERT_TRUE(MakeFsPolicies(o, &p).ok()) << e.name;
    EXPECT_EQ(p.reset->name(), e.name);
  }
  for (const auto& e : FileAllocationPolicies().entries()) {
    FsPolicyOptions o;
    ASSERT_TRUE(o.Set("alloc", e.name).ok());
    FsPolicies p;
    ASSERT_TRUE(MakeFsPolicies(o, &p).ok()) << e.name;
    EXPECT_EQ(p.alloc->name(), e.name);
    EXPECT_EQ(p.blob_alloc, nullptr);
  }
  for (const auto& e : BlobAllocationPolicies().entries()) {
    FsPolicyOptions o;
    ASSERT_TRUE(o.Set("blob_alloc", e.name).ok());
    FsPolicies p;
    ASSERT_TRUE(MakeFsPolicies(o, &p).ok()) << e.name;
    EXPECT_EQ(p.blob_alloc->name(), e.name);
  }
  for (const auto& e : FinishPolicies().entries()) {
    FsPolicyOptions o;
    ASSERT_TRUE(o.Set("finish", e.name).ok());
    FsPolicies p;
    ASSERT_TRUE(MakeFsPolicies(o, &p).ok()) << e.name;
    EXPECT_EQ(p.finish->name(), e.name);
  }
  // A registered knob is one the options know, for every entry.
  for (const auto& e : CleaningPolicies().entries()) {
    for (const auto& k : e.knobs) EXPECT_TRUE(FsPolicyKnobs().Has(k)) << e.name << ": " << k;
  }
  for (const auto& e : ResetPolicies().entries()) {
    for (const auto& k : e.knobs) EXPECT_TRUE(FsPolicyKnobs().Has(k)) << e.name << ": " << k;
  }
  for (const auto& e : FinishPolicies().entries()) {
    for (const auto& k : e.knobs) EXPECT_TRUE(FsPolicyKnobs().Has(k)) << e.name << ": " << k;
  }
}

TEST(FinishThresholdTest, FinishesOnlyActiveZonesWithLittleLeft) {
  ViewBuilder b;
  b.Zone(kCap - kCap / 10, 10);   // 10% left: finish at 20%
  b.Zone(kCap / 2, 10);           // 50% left: keep
  b.Zone(kCap, 10);               // full: nothing to finish
  b.Zone(0, 0);                   // empty
  b.Zone(kCap - kCap / 10, 10).busy = true;  // being written: keep
  EXPECT_EQ(NewThresholdFinish(20)->PickZonesToFinish(b.view()), std::vector<uint32_t>{0});
  EXPECT_TRUE(NewThresholdFinish(0)->PickZonesToFinish(b.view()).empty());
  EXPECT_FALSE(NewThresholdFinish(0)->Finishes());
  EXPECT_EQ(NewThresholdFinish(60)->PickZonesToFinish(b.view()), (std::vector<uint32_t>{0, 1}));
}

}  // namespace zonekv
