// The value parsers of the knob tables (zonekv/registry.h).
#include "zonekv/flags.h"
#include "zonekv/registry.h"

namespace zonekv {

namespace {

Status Bad(std::string_view key, const std::string& value, const char* what) {
  return Status::InvalidArgument(std::string(key) + "='" + value + "' is not " + what);
}

}  // namespace

Status ParsePercentKnob(std::string_view key, const std::string& value, double* out) {
  double v = 0;
  if (!ParseDouble(value, &v).ok() || v < 0 || v > 100) return Bad(key, value, "a percentage in [0, 100]");
  *out = v;
  return Status::OK();
}

Status ParseFractionKnob(std::string_view key, const std::string& value, double* out) {
  double v = 0;
  if (!ParseDouble(value, &v).ok() || v < 0 || v > 1) return Bad(key, value, "a fraction in [0, 1]");
  *out = v;
  return Status::OK();
}

Status ParsePositiveKnob(std::string_view key, const std::string& value, double* out) {
  double v = 0;
  if (!ParseDouble(value, &v).ok() || v <= 0) return Bad(key, value, "a positive number");
  *out = v;
  return Status::OK();
}

Status ParseBoolKnob(std::string_view key, const std::string& value, bool* out) {
  if (value == "true" || value == "1") {
    *out = true;
  } else if (value == "false" || value == "0") {
    *out = false;
  } else {
    return Bad(key, value, "a boolean (true/false)");
  }
  return Status::OK();
}

}  // namespace zonekv
