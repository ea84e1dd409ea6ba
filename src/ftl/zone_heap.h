// ZoneHeap: a binary heap of zone ids with O(log n) push, erase and re-key.
//
// `Before(a, b)` is true when zone a belongs nearer the top than zone b.
// Each zone's slot is recorded where `Slots(z)` says (a position array by
// default, or a word of the zone's ZoneTable record, beside the key the
// comparison reads), which may be shared by several heaps (a zone is in at
// most one of them), so erasing an arbitrary zone needs no search. The
// heap's storage grows and shrinks with use, as the paper notes heaps sized
// for the worst case cannot be preallocated.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace zonekv {

// Slots in a position array indexed by zone.
struct VectorSlots {
  std::vector<uint32_t>* pos;
  uint32_t& operator()(uint32_t z) const { return (*pos)[z]; }
};

template <typename Before, typename Slots = VectorSlots>
class ZoneHeap {
 public:
  ZoneHeap(Slots slots, Before before) : slot_(std::move(slots)), before_(std::move(before)) {}

  bool empty() const { return heap_.empty(); }
  uint32_t size() const { return static_cast<uint32_t>(heap_.size()); }
  // REQUIRES: !empty().
  uint32_t Top() const { return heap_[0]; }
  uint64_t MemoryBytes() const { return heap_.capacity() * sizeof(uint32_t); }

  // REQUIRES: z is in no heap sharing the position array.
  void Push(uint32_t z) {
    heap_.push_back(z);
    Place(z, size() - 1);
    SiftUp(size() - 1);
  }

  // REQUIRES: z is in this heap.
  void Erase(uint32_t z) {
    uint32_t i = slot_(z);
    uint32_t last = heap_.back();
    heap_.pop_back();
    if (i < heap_.size()) {
      Place(last, i);
      Restore(i);
    }
    if (heap_.capacity() > 64 && heap_.size() < heap_.capacity() / 4) heap_.shrink_to_fit();
  }

  // z's key changed. REQUIRES: z is in this heap.
  void Update(uint32_t z) { Restore(slot_(z)); }

 private:
  void Place(uint32_t z, uint32_t i) {
    heap_[i] = z;
    slot_(z) = i;
  }
  void Restore(uint32_t i) {
    if (i > 0 && before_(heap_[i], heap_[(i - 1) / 2])) {
      SiftUp(i);
    } else {
      SiftDown(i);
    }
  }
  void SiftUp(uint32_t i) {
    uint32_t z = heap_[i];
    while (i > 0) {
      uint32_t parent = (i - 1) / 2;
      if (!before_(z, heap_[parent])) break;
      Place(heap_[parent], i);
      i = parent;
    }
    Place(z, i);
  }
  void SiftDown(uint32_t i) {
    uint32_t z = heap_[i];
    uint32_t n = size();
    while (true) {
      uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before_(heap_[child + 1], heap_[child])) child++;
      if (!before_(heap_[child], z)) break;
      Place(heap_[child], i);
      i = child;
    }
    Place(z, i);
  }

  Slots slot_;
  Before before_;
  std::vector<uint32_t> heap_;
};

}  // namespace zonekv
