#include "zonekv/status.h"

#include <gtest/gtest.h>

namespace zonekv {

TEST(StatusTest, OkHasNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorNamesCodeAndMessage) {
  Status s = Status::Zone(Status::Code::kZoneInvalidWrite, "zone 3: write at 8192 is not at the write pointer 4096");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.Is(Status::Code::kZoneInvalidWrite));
  EXPECT_EQ(s.ToString(), "ZoneInvalidWrite: zone 3: write at 8192 is not at the write pointer 4096");
}

Status FailsThenNotReached(int* reached) {
  ZONEKV_RETURN_IF_ERROR(Status::NoSpace("device full"));
  (*reached)++;
  return Status::OK();
}

TEST(StatusTest, ReturnIfErrorReturnsEarly) {
  int reached = 0;
  Status s = FailsThenNotReached(&reached);
  EXPECT_TRUE(s.Is(Status::Code::kNoSpace));
  EXPECT_EQ(reached, 0);
}

}  // namespace zonekv
