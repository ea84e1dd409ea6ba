#include <gtest/gtest.h>

#include "zonekv/compactor.h"

namespace zonekv {
namespace {

TEST(PickerOptions, SetsKnobsByNameAndRejectsBadValues) {
  PickerOptions o;
  EXPECT_TRUE(o.Set("acc_turning_point_pct", "30").ok());
  EXPECT_DOUBLE_EQ(o.acc_turning_point_pct, 30);
  EXPECT_TRUE(o.Set("acc_level_constraint", "false").ok());
  EXPECT_FALSE(o.acc_level_constraint);
  EXPECT_TRUE(o.Set("sica_order", "min-overlap").ok());
  EXPECT_TRUE(o.Set("zaca_score", "same-per-write").ok());

  Status s = o.Set("acc_turning_point_pct", "150");
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("[0, 100]"), std::string::npos);
  EXPECT_TRUE(o.Set("acc_level_constraint", "maybe").Is(Status::Code::kInvalidArgument));
  EXPECT_TRUE(o.Set("sica_order", "smallest").Is(Status::Code::kInvalidArgument));
  s = o.Set("zaca_score", "inval");
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("known: same, same-per-write, kill-per-write"), std::string::npos) << s.message();
  EXPECT_NE(o.Set("turning_point", "25").message().find("known:"), std::string::npos);
  EXPECT_EQ(o.ToJson().Dump(),
            R"({"sica_order":"min-overlap","zaca_score":"same-per-write","acc_turning_point_pct":30,)"
            R"("acc_level_constraint":false})");
}

TEST(PickerOptions, FactoryKnowsThePickers) {
  std::unique_ptr<CompactionPicker> p;
  for (const std::string& name : CompactionPickers().Names()) {
    ASSERT_TRUE(MakeCompactionPicker(name, PickerOptions(), &p).ok()) << name;
    EXPECT_EQ(p->name(), name);
  }
  EXPECT_TRUE(p->needs_layout());  // acc, the last, needs the layout
  Status s = MakeCompactionPicker("native", PickerOptions(), &p);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("known: sica, zaca, acc"), std::string::npos);
  PickerOptions bad;
  bad.acc_turning_point_pct = 200;
  EXPECT_TRUE(MakeCompactionPicker("acc", bad, &p).Is(Status::Code::kInvalidArgument));
}

}  // namespace
}  // namespace zonekv
