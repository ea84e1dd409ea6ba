// Accumulates S_same = sum_m S_m^2 / (sum_m S_m)^2 over files added one by
// one (paper eq. 1). Shared by SameZoneScore and zaca's inner loop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace zonekv {

class SameZoneAccumulator {
 public:
  void Clear() {
    per_zone_.clear();
    sum_sq_unknown_ = total_ = 0;
  }
  // `zones`: the file's bytes per zone, or null/empty if the layout does not
  // know the file: then its `size_bytes` count as one zone of its own.
  void Add(const std::map<uint32_t, uint64_t>* zones, uint64_t size_bytes) {
    if (zones == nullptr || zones->empty()) {
      double b = static_cast<double>(size_bytes);
      sum_sq_unknown_ += b * b;
      total_ += b;
      return;
    }
    for (const auto& [zone, bytes] : *zones) {
      // A group touches a handful of zones: a flat list beats a map here.
      bool found = false;
      for (auto& e : per_zone_) {
        if (e.first == zone) {
          e.second += static_cast<double>(bytes);
          found = true;
          break;
        }
      }
      if (!found) per_zone_.emplace_back(zone, static_cast<double>(bytes));
      total_ += static_cast<double>(bytes);
    }
  }
  // In (0, 1]; 0 if nothing was added.
  double Score() const {
    if (total_ <= 0) return 0;
    double sum_sq = sum_sq_unknown_;
    for (const auto& e : per_zone_) sum_sq += e.second * e.second;
    return sum_sq / (total_ * total_);
  }
  // sum_m S_m^2 / V_m / sum_m S_m, V_m = zone_valid[m] (at least S_m): in
  // [0, 1], 1 when the added bytes are all of every zone's valid data. Bytes
  // of files the layout does not know, or in zones zone_valid does not
  // cover, count as killing nothing.
  double KillScore(const std::vector<uint64_t>& zone_valid) const {
    if (total_ <= 0) return 0;
    double kill = 0;
    for (const auto& [zone, bytes] : per_zone_) {
      if (zone >= zone_valid.size()) continue;
      kill += bytes * bytes / std::max(bytes, static_cast<double>(zone_valid[zone]));
    }
    return kill / total_;
  }

 private:
  std::vector<std::pair<uint32_t, double>> per_zone_;
  double sum_sq_unknown_ = 0;
  double total_ = 0;
};

}  // namespace zonekv
