#include "zonekv/flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace zonekv {

Status ParseUint(const std::string& text, uint64_t* value) {
  // strtoull alone would skip leading white space and accept a sign ("-5"
  // wraps around): the text must start with a digit.
  if (text.empty() || text[0] < '0' || text[0] > '9') {
    return Status::InvalidArgument("'" + text + "' is not a non-negative integer");
  }
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE) return Status::InvalidArgument("'" + text + "' is too large");
  if (end == text.c_str() || *end != '\0') {
    return Status::InvalidArgument("'" + text + "' is not a non-negative integer");
  }
  *value = v;
  return Status::OK();
}

Status ParseBytes(const std::string& text, uint64_t* bytes) {
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') i++;
  if (i == 0) return Status::InvalidArgument("'" + text + "' is not a size (e.g. 4096, 64K, 64M, 1G)");
  uint64_t n = 0;
  ZONEKV_RETURN_IF_ERROR(ParseUint(text.substr(0, i), &n));
  std::string suffix = text.substr(i);
  uint64_t mult = 1;
  if (suffix.empty() || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "KiB" || suffix == "k") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") mult = 1ull << 30;
  else if (suffix == "T" || suffix == "TiB") mult = 1ull << 40;
  else return Status::InvalidArgument("'" + text + "': unknown size suffix '" + suffix + "' (use K, M, G or T)");
  if (n != 0 && mult > std::numeric_limits<uint64_t>::max() / n) {
    return Status::InvalidArgument("'" + text + "' is too large");
  }
  *bytes = n * mult;
  return Status::OK();
}

Status ParseDouble(const std::string& text, double* value) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
    return Status::InvalidArgument("'" + text + "' is not a number");
  }
  *value = v;
  return Status::OK();
}

void Flags::Define(const std::string& name, const std::string& default_value,
                   const std::string& help, bool is_bool) {
  if (!defs_.count(name)) order_.push_back(name);
  defs_[name] = Def{default_value, default_value, help, is_bool, false};
}

void Flags::Renamed(const std::string& old_name, const std::string& new_name) { renamed_[old_name] = new_name; }

Status Flags::Parse(int argc, char** argv, int first, bool* help_requested) {
  *help_requested = false;
  for (int i = first; i < argc; i++) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help_requested = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      positionals_.push_back(arg);
      continue;
    }
    std::string body = arg.substr(2);
    std::string name = body, value;
    bool has_value = false;
    size_t eq = body.find('=');
    if (eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    auto it = defs_.find(name);
    if (it == defs_.end()) {
      auto r = renamed_.find(name);
      if (r != renamed_.end()) return Status::InvalidArgument("flag --" + name + " was renamed to --" + r->second);
      return Status::InvalidArgument("unknown flag --" + name + " (see 'zonekv " + command_ + " --help')");
    }
    if (!has_value) {
      if (it->second.is_bool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return Status::InvalidArgument("flag --" + name + " needs a value");
      }
    }
    it->second.value = value;
    it->second.set = true;
  }
  return Status::OK();
}

std::string Flags::Str(const std::string& name) const {
  auto it = defs_.find(name);
  return it == defs_.end() ? std::string() : it->second.value;
}

bool Flags::WasSet(const std::string& name) const {
  auto it = defs_.find(name);
  return it != defs_.end() && it->second.set;
}

namespace {
Status Named(const std::string& name, const Status& s) {
  if (s.ok()) return s;
  return Status::InvalidArgument("--" + name + ": " + s.message());
}
}  // namespace

Status Flags::Uint(const std::string& name, uint64_t* v) const {
  return Named(name, ParseUint(Str(name), v));
}
Status Flags::Bytes(const std::string& name, uint64_t* v) const {
  return Named(name, ParseBytes(Str(name), v));
}
Status Flags::Double(const std::string& name, double* v) const {
  return Named(name, ParseDouble(Str(name), v));
}
Status Flags::Bool(const std::string& name, bool* v) const {
  std::string s = Str(name);
  if (s == "true" || s == "1" || s == "yes") { *v = true; return Status::OK(); }
  if (s == "false" || s == "0" || s == "no") { *v = false; return Status::OK(); }
  return Status::InvalidArgument("--" + name + ": '" + s + "' is not a boolean (true/false)");
}

std::map<std::string, std::string> Flags::Effective() const {
  std::map<std::string, std::string> m;
  for (const auto& [k, d] : defs_) m[k] = d.value;
  return m;
}

std::string Flags::Usage(const std::string& synopsis) const {
  std::string u = "Usage: zonekv " + command_ + " " + synopsis + "\n";
  if (!order_.empty()) u += "\nFlags:\n";
  for (const auto& name : order_) {
    const Def& d = defs_.at(name);
    std::string left = "  --" + name + (d.is_bool ? "" : "=" + (d.default_value.empty() ? std::string("\"\"") : d.default_value));
    if (left.size() < 34) left.resize(34, ' ');
    else left += "  ";
    u += left + d.help + "\n";
  }
  return u;
}

}  // namespace zonekv
