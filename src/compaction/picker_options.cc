// PickerOptions' knob table and the compaction picker registry.
#include "pickers.h"

namespace zonekv {

// One line per picker; each entry is defined in the picker's own file.
#define ZONEKV_COMPACTION_PICKERS(X) \
  X(SicaPicker)                      \
  X(ZacaPicker)                      \
  X(AccPicker)

#define ZONEKV_DECLARE_PICKER(p) PickerEntry p##Entry();
ZONEKV_COMPACTION_PICKERS(ZONEKV_DECLARE_PICKER)
#define ZONEKV_PICKER_ENTRY(p) p##Entry(),

const PolicyRegistry<PickerFactory>& CompactionPickers() {
  static const PolicyRegistry<PickerFactory> r("compaction picker", {ZONEKV_COMPACTION_PICKERS(ZONEKV_PICKER_ENTRY)});
  return r;
}

namespace {

Status CheckSicaOrder(std::string_view key, const std::string& v) {
  if (v == "largest" || v == "min-overlap") return Status::OK();
  return Status::InvalidArgument(std::string(key) + "='" + v + "' is not a file order (known: largest, min-overlap)");
}

Status CheckZacaScore(std::string_view key, const std::string& v) {
  ZacaScore score;
  if (ParseZacaScore(v, &score)) return Status::OK();
  return Status::InvalidArgument(std::string(key) + "='" + v + "' is not a zaca score (known: " +
                                 ZacaScoreNames(", ") + ")");
}

}  // namespace

const KnobTable<PickerOptions>& PickerKnobs() {
  using O = PickerOptions;
  static const KnobTable<O> t(
      "compaction picker",
      {ChoiceKnob("sica_order", &O::sica_order, "sica, zaca, acc: file order within a level: largest|min-overlap",
                  CheckSicaOrder),
       ChoiceKnob("zaca_score", &O::zaca_score,
                  "zaca, acc: a group's score (same: the paper's S_same): " + ZacaScoreNames("|"), CheckZacaScore),
       PercentKnob("acc_turning_point_pct", &O::acc_turning_point_pct,
                   "acc: use zaca when free space % is below this"),
       BoolKnob("acc_level_constraint", &O::acc_level_constraint, "acc: never zaca for L0/L1 inputs (true/false)")},
      {{"acc_turning_point", "acc_turning_point_pct"}});
  return t;
}

Status PickerOptions::Set(const std::string& key, const std::string& value) {
  return PickerKnobs().Set(this, key, value);
}

Status PickerOptions::Validate() const {
  ZONEKV_RETURN_IF_ERROR(CheckSicaOrder("sica_order", sica_order));
  ZONEKV_RETURN_IF_ERROR(CheckZacaScore("zaca_score", zaca_score));
  if (!(acc_turning_point_pct >= 0 && acc_turning_point_pct <= 100)) {
    return Status::InvalidArgument("acc_turning_point_pct=" + std::to_string(acc_turning_point_pct) +
                                   " is not a percentage in [0, 100]");
  }
  return Status::OK();
}

Json PickerOptions::ToJson() const { return PickerKnobs().ToJson(*this); }

Status MakeCompactionPicker(const std::string& name, const PickerOptions& opts,
                            std::unique_ptr<CompactionPicker>* out) {
  ZONEKV_RETURN_IF_ERROR(opts.Validate());
  const PolicyEntry<PickerFactory>* e = nullptr;
  ZONEKV_RETURN_IF_ERROR(CompactionPickers().Lookup("picker", name, &e));
  *out = e->make(opts);
  return Status::OK();
}

}  // namespace zonekv
