#include "pickers.h"
#include "zonekv/flags.h"

namespace zonekv {

Status PickerOptions::Set(const std::string& key, const std::string& value) {
  if (key == "sica_order") {
    if (value != "largest" && value != "min-overlap") {
      return Status::InvalidArgument("sica_order='" + value + "' is not a file order (known: largest, min-overlap)");
    }
    sica_order = value;
    return Status::OK();
  }
  if (key == "acc_turning_point") {
    double pct = 0;
    Status s = ParseDouble(value, &pct);
    if (!s.ok() || pct < 0 || pct > 100) {
      return Status::InvalidArgument("acc_turning_point='" + value + "' is not a percentage of free space in [0, 100]");
    }
    acc_turning_point = pct / 100;
    return Status::OK();
  }
  if (key == "acc_level_constraint") {
    if (value == "true" || value == "1") { acc_level_constraint = true; return Status::OK(); }
    if (value == "false" || value == "0") { acc_level_constraint = false; return Status::OK(); }
    return Status::InvalidArgument("acc_level_constraint='" + value + "' is not a boolean (true/false)");
  }
  return Status::InvalidArgument("unknown compaction picker knob '" + key +
                                 "' (known: sica_order, acc_turning_point, acc_level_constraint)");
}

Status PickerOptions::Validate() const {
  if (sica_order != "largest" && sica_order != "min-overlap") {
    return Status::InvalidArgument("sica_order='" + sica_order + "' is not a file order (known: largest, min-overlap)");
  }
  if (!(acc_turning_point >= 0 && acc_turning_point <= 1)) {
    return Status::InvalidArgument("acc_turning_point must be a fraction in [0, 1], got " +
                                   std::to_string(acc_turning_point));
  }
  return Status::OK();
}

Json PickerOptions::ToJson() const {
  Json j = Json::Object();
  j.Set("sica_order", sica_order)
      .Set("acc_turning_point_pct", acc_turning_point * 100)
      .Set("acc_level_constraint", acc_level_constraint);
  return j;
}

Status MakeCompactionPicker(const std::string& name, const PickerOptions& opts,
                            std::unique_ptr<CompactionPicker>* out) {
  ZONEKV_RETURN_IF_ERROR(opts.Validate());
  const bool min_overlap = opts.sica_order == "min-overlap";
  if (name == "sica") {
    *out = NewSicaPicker(min_overlap);
  } else if (name == "zaca") {
    *out = NewZacaPicker(min_overlap);
  } else if (name == "acc") {
    *out = NewAccPicker(min_overlap, opts.acc_turning_point, opts.acc_level_constraint);
  } else {
    return Status::InvalidArgument("'" + name + "' is not a compaction picker (known: sica, zaca, acc; "
                                   "'native' means RocksDB's own compaction and needs no compactor)");
  }
  return Status::OK();
}

}  // namespace zonekv
