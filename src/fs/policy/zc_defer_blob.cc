// Blob-deferring cleaning (Same-Victim cooperation): wraps any cleaning
// policy and hides from it the full zones whose valid data is all blob data
// while the free-space ratio is above a floor. With BAZA and Z_Cutoff, blob
// GC empties such zones without zone cleaning; what keeps one alive for a
// while is a blob file RocksDB has not yet relocated (RocksDB 7.8 relocates
// blobs only while compacting the SSTs that reference them). Below the floor
// the wrapped policy sees every zone again, so cleaning still makes room;
// so does the engine's emergency pass (ZoneFsOptions::emergency_zc) when a
// writer starves and the policy picks nothing.
#include <string>

#include "policies.h"

namespace zonekv {

namespace {

class BlobDeferringCleaning : public CleaningPolicy {
 public:
  BlobDeferringCleaning(std::unique_ptr<CleaningPolicy> inner, double floor_pct)
      : inner_(std::move(inner)), floor_pct_(floor_pct), name_(std::string(inner_->name()) + "+defer-blob") {}
  const char* name() const override { return name_.c_str(); }
  bool NeedsFiles() const override { return inner_->NeedsFiles(); }

  std::vector<uint32_t> PickVictims(const FsView& view) override {
    if (view.free_ratio() * 100.0 <= floor_pct_) return inner_->PickVictims(view);
    FsView v = view;
    const int blob = static_cast<int>(FileKind::kBlob);
    for (auto& z : v.zones) {
      if (z.full() && z.valid_bytes > 0 && z.valid_bytes_by_kind[blob] >= z.valid_bytes) z.busy = true;
    }
    return inner_->PickVictims(v);
  }

 private:
  const std::unique_ptr<CleaningPolicy> inner_;
  const double floor_pct_;
  const std::string name_;
};

}  // namespace

std::unique_ptr<CleaningPolicy> NewBlobDeferringCleaning(std::unique_ptr<CleaningPolicy> inner, double floor_pct) {
  return std::make_unique<BlobDeferringCleaning>(std::move(inner), floor_pct);
}

}  // namespace zonekv
