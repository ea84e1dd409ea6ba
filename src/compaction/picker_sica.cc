// sica: RocksDB's size-based leveled picking (the paper's SICA, section II-B).
#include "picker_common.h"
#include "pickers.h"

namespace zonekv {

namespace {

class SicaPicker : public CompactionPicker {
 public:
  explicit SicaPicker(bool min_overlap) : min_overlap_(min_overlap) {}
  const char* name() const override { return "sica"; }
  bool needs_layout() const override { return false; }
  bool Pick(const LsmView& view, const ZoneLayout* layout, CompactionPick* out) override {
    return PickLeveled(
        view, [&](int, const std::vector<CandidateGroup>& groups) { return ChooseSica(groups, min_overlap_); },
        "sica", out);
  }

 private:
  const bool min_overlap_;
};

}  // namespace

std::unique_ptr<CompactionPicker> NewSicaPicker(bool min_overlap) {
  return std::make_unique<SicaPicker>(min_overlap);
}

PickerEntry SicaPickerEntry() {
  return {"sica", "RocksDB's size-based leveled picking (the paper's baseline)", {"sica_order"},
          [](const PickerOptions& o) { return NewSicaPicker(o.sica_order == "min-overlap"); }};
}

}  // namespace zonekv
