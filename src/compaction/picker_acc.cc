// acc: the paper's Adaptive Compaction Controller (section V-B, Pseudocode 1).
// sica while free space is plentiful or for L0/L1 inputs; zaca otherwise.
// Deviation: the paper runs SICA when free_ratio > turning_point, i.e. ZACA at
// equality; we run zaca only when free_ratio < turning_point so that a
// turning point of 0 never runs zaca, as the paper's evaluation states.
#include "picker_common.h"
#include "pickers.h"

namespace zonekv {

namespace {

class AccPicker : public CompactionPicker {
 public:
  AccPicker(bool min_overlap, ZacaScore score, double turning_point, bool level_constraint)
      : min_overlap_(min_overlap),
        score_(score),
        turning_point_(turning_point),
        level_constraint_(level_constraint) {}
  const char* name() const override { return "acc"; }
  bool needs_layout() const override { return true; }
  // Above the turning point acc picks as sica: the free ratio is all it reads.
  bool needs_layout_at(double free_ratio) const override { return free_ratio < turning_point_; }
  bool Pick(const LsmView& view, const ZoneLayout* layout, CompactionPick* out) override {
    bool short_of_space = layout != nullptr && layout->free_ratio < turning_point_;
    bool used_zaca = false;
    bool picked = PickLeveled(
        view,
        [&](int level, const std::vector<CandidateGroup>& groups) {
          if (short_of_space && (!level_constraint_ || level >= 2)) {
            used_zaca = true;
            return ChooseZaca(groups, *layout, min_overlap_, score_);
          }
          return ChooseSica(groups, min_overlap_);
        },
        "sica", out);
    if (picked && used_zaca) out->picked_by = "zaca";
    return picked;
  }

 private:
  const bool min_overlap_;
  const ZacaScore score_;
  const double turning_point_;
  const bool level_constraint_;
};

}  // namespace

std::unique_ptr<CompactionPicker> NewAccPicker(bool min_overlap, ZacaScore score, double turning_point,
                                               bool level_constraint) {
  return std::make_unique<AccPicker>(min_overlap, score, turning_point, level_constraint);
}

PickerEntry AccPickerEntry() {
  return {"acc", "adaptive: zaca while free space is below acc_turning_point_pct, sica otherwise",
          {"sica_order", "zaca_score", "acc_turning_point_pct", "acc_level_constraint"}, [](const PickerOptions& o) {
            return NewAccPicker(o.sica_order == "min-overlap", ZacaScoreNamed(o.zaca_score),
                                o.acc_turning_point_pct / 100, o.acc_level_constraint);
          }};
}

}  // namespace zonekv
