// Constructors of the individual compaction pickers, exposed for unit tests.
// Users select pickers by name through CompactionPickers() (zonekv/compactor.h);
// each picker's file defines its entry (XxxPickerEntry()), registry in
// picker_options.cc.
#pragma once

#include <memory>

#include "picker_common.h"
#include "zonekv/compactor.h"

namespace zonekv {

using PickerEntry = PolicyEntry<PickerFactory>;

std::unique_ptr<CompactionPicker> NewSicaPicker(bool min_overlap);
// score: zaca_score (picker_common.h, ChooseZaca).
std::unique_ptr<CompactionPicker> NewZacaPicker(bool min_overlap, ZacaScore score);
// zaca when layout->free_ratio < turning_point and (level >= 2 or
// !level_constraint); sica otherwise.
std::unique_ptr<CompactionPicker> NewAccPicker(bool min_overlap, ZacaScore score, double turning_point,
                                               bool level_constraint);

}  // namespace zonekv
