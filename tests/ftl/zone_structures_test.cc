// ZoneLists and ZoneHeap against simple models.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "block_workload.h"
#include "zone_heap.h"
#include "zone_lists.h"
#include "zone_table.h"

namespace zonekv {
namespace {

TEST(ZoneListsTest, MatchesDequeModelAndCachesHeadTimes) {
  constexpr uint32_t kZones = 50, kLists = 5;
  ZoneTable table(kZones, kLists - 1);
  ZoneLists lists(&table, kLists);
  std::vector<std::deque<uint32_t>> model(kLists);
  std::vector<int> where(kZones, -1);
  BlockRandom rng(3);
  for (int step = 0; step < 5000; step++) {
    uint32_t z = static_cast<uint32_t>(rng.Uniform(kZones));
    if (where[z] >= 0) {
      auto& m = model[where[z]];
      lists.Remove(where[z], z);
      m.erase(std::find(m.begin(), m.end(), z));
      where[z] = -1;
    } else {
      uint32_t i = static_cast<uint32_t>(rng.Uniform(kLists));
      table.SetNow(step);
      table.AddValid(z);  // a new last_modified: the head-time cache must follow it
      lists.Append(i, z);
      model[i].push_back(z);
      where[z] = static_cast<int>(i);
    }
    for (uint32_t i = 0; i < kLists; i++) {
      std::vector<uint32_t> walked;
      for (uint32_t x = lists.Head(i); x != ZoneLists::kNil; x = lists.Next(x)) walked.push_back(x);
      ASSERT_EQ(walked, std::vector<uint32_t>(model[i].begin(), model[i].end())) << "step " << step;
      if (!walked.empty()) {
        ASSERT_EQ(lists.HeadTime(i), table.last_modified(walked[0])) << "step " << step;
      }
    }
  }
}

struct ByKey {
  const std::vector<uint64_t>* key;
  bool operator()(uint32_t a, uint32_t b) const { return (*key)[a] < (*key)[b]; }
};

TEST(ZoneHeapTest, TopIsMinimumUnderPushEraseUpdate) {
  constexpr uint32_t kZones = 200;
  std::vector<uint64_t> key(kZones);
  std::vector<uint32_t> pos(kZones);
  ZoneHeap<ByKey> heap(VectorSlots{&pos}, ByKey{&key});
  std::vector<bool> in(kZones, false);
  BlockRandom rng(5);
  for (int step = 0; step < 20000; step++) {
    uint32_t z = static_cast<uint32_t>(rng.Uniform(kZones));
    switch (rng.Uniform(3)) {
      case 0:
        if (!in[z]) {
          key[z] = rng.Uniform(1000);
          heap.Push(z);
          in[z] = true;
        }
        break;
      case 1:
        if (in[z]) {
          heap.Erase(z);
          in[z] = false;
        }
        break;
      default:
        if (in[z]) {
          key[z] = rng.Uniform(1000);
          heap.Update(z);
        }
    }
    uint64_t min = UINT64_MAX;
    uint32_t count = 0;
    for (uint32_t x = 0; x < kZones; x++) {
      if (in[x]) {
        min = std::min(min, key[x]);
        count++;
      }
    }
    ASSERT_EQ(heap.size(), count);
    if (count > 0) {
      ASSERT_EQ(key[heap.Top()], min) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace zonekv
