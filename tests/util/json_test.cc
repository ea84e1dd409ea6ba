#include "zonekv/json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace zonekv {

TEST(JsonTest, ObjectKeepsOrderAndEscapes) {
  Json j = Json::Object();
  j.Set("b", 1).Set("a", "x\"y\n");
  j["arr"].Push(1.5).Push(true).Push(Json());
  EXPECT_EQ(j.Dump(), "{\"b\":1,\"a\":\"x\\\"y\\n\",\"arr\":[1.5,true,null]}");
}

TEST(JsonTest, NumbersRoundTripAndNonFiniteIsNull) {
  Json j = Json::Object();
  j.Set("third", 1.0 / 3).Set("big", uint64_t{1} << 40).Set("nan", std::nan(""));
  EXPECT_EQ(j.Dump(), "{\"third\":0.33333333333333331,\"big\":1099511627776,\"nan\":null}");
}

TEST(JsonTest, SetReplacesExistingKey) {
  Json j = Json::Object();
  j.Set("k", 1);
  j.Set("k", 2);
  EXPECT_EQ(j.Dump(), "{\"k\":2}");
}

TEST(JsonTest, FindReadsMembersBack) {
  Json j = Json::Object();
  j.Set("n", 2.5).Set("s", "text").Set("o", Json::Object().Set("inner", 7));
  ASSERT_NE(j.Find("n"), nullptr);
  EXPECT_EQ(j.Find("n")->number(), 2.5);
  EXPECT_EQ(j.Find("s")->str(), "text");
  EXPECT_EQ(j.Find("s")->number(), 0);
  EXPECT_EQ(j.Find("o")->Find("inner")->number(), 7);
  EXPECT_EQ(j.Find("missing"), nullptr);
  EXPECT_EQ(j.Find("n")->Find("x"), nullptr);
}

}  // namespace zonekv
