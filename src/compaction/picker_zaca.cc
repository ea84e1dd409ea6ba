// zaca: in the level sica would compact, the candidate group with the highest
// S_same (the paper's ZACA, section V-A), or another zaca_score (ZacaScore,
// picker_common.h). Without a layout every group scores as if each file sat
// in a zone of its own, so the choice degrades to the group spread over the
// fewest, largest files; the compactor never runs zaca without a layout
// (needs_layout).
#include "picker_common.h"
#include "pickers.h"

namespace zonekv {

namespace {

class ZacaPicker : public CompactionPicker {
 public:
  ZacaPicker(bool min_overlap, ZacaScore score) : min_overlap_(min_overlap), score_(score) {}
  const char* name() const override { return "zaca"; }
  bool needs_layout() const override { return true; }
  bool Pick(const LsmView& view, const ZoneLayout* layout, CompactionPick* out) override {
    const ZoneLayout empty;
    const ZoneLayout& l = layout != nullptr ? *layout : empty;
    return PickLeveled(
        view,
        [&](int, const std::vector<CandidateGroup>& groups) {
          return ChooseZaca(groups, l, min_overlap_, score_);
        },
        "zaca", out);
  }

 private:
  const bool min_overlap_;
  const ZacaScore score_;
};

}  // namespace

std::unique_ptr<CompactionPicker> NewZacaPicker(bool min_overlap, ZacaScore score) {
  return std::make_unique<ZacaPicker>(min_overlap, score);
}

PickerEntry ZacaPickerEntry() {
  return {"zaca", "zone-aware: the candidate whose compaction frees the most zone space (zaca_score)",
          {"sica_order", "zaca_score"}, [](const PickerOptions& o) {
            return NewZacaPicker(o.sica_order == "min-overlap", ZacaScoreNamed(o.zaca_score));
          }};
}

}  // namespace zonekv
