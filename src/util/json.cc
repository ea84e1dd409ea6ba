#include "zonekv/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace zonekv {

Json& Json::Set(const std::string& key, Json value) {
  (*this)[key] = std::move(value);
  return *this;
}

Json& Json::operator[](const std::string& key) {
  type_ = Type::kObject;
  for (auto& [k, v] : members_) {
    if (k == key) return v;
  }
  members_.emplace_back(key, Json());
  return members_.back().second;
}

const Json* Json::Find(const std::string& key) const {
  if (type_ != Type::kObject) return nullptr;
  for (const auto& [k, v] : members_) {
    if (k == key) return &v;
  }
  return nullptr;
}

Json& Json::Push(Json value) {
  type_ = Type::kArray;
  items_.push_back(std::move(value));
  return *this;
}

namespace {
void Escape(const std::string& s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out += buf;
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

void Newline(std::string* out, int indent, int depth) {
  if (indent < 0) return;
  out->push_back('\n');
  out->append(static_cast<size_t>(indent * depth), ' ');
}
}  // namespace

void Json::DumpTo(std::string* out, int indent, int depth) const {
  switch (type_) {
    case Type::kNull: *out += "null"; break;
    case Type::kBool: *out += b_ ? "true" : "false"; break;
    case Type::kNumber: {
      if (!std::isfinite(n_)) { *out += "null"; break; }
      char buf[32];
      if (n_ == std::floor(n_) && std::fabs(n_) < 9.007199254740992e15) {
        std::snprintf(buf, sizeof(buf), "%.0f", n_);
      } else {
        std::snprintf(buf, sizeof(buf), "%.15g", n_);
        if (std::strtod(buf, nullptr) != n_) std::snprintf(buf, sizeof(buf), "%.17g", n_);
      }
      *out += buf;
      break;
    }
    case Type::kString: Escape(s_, out); break;
    case Type::kArray: {
      out->push_back('[');
      for (size_t i = 0; i < items_.size(); i++) {
        if (i) out->push_back(',');
        Newline(out, indent, depth + 1);
        items_[i].DumpTo(out, indent, depth + 1);
      }
      if (!items_.empty()) Newline(out, indent, depth);
      out->push_back(']');
      break;
    }
    case Type::kObject: {
      out->push_back('{');
      for (size_t i = 0; i < members_.size(); i++) {
        if (i) out->push_back(',');
        Newline(out, indent, depth + 1);
        Escape(members_[i].first, out);
        *out += indent < 0 ? ":" : ": ";
        members_[i].second.DumpTo(out, indent, depth + 1);
      }
      if (!members_.empty()) Newline(out, indent, depth);
      out->push_back('}');
      break;
    }
  }
}

std::string Json::Dump(int indent) const {
  std::string out;
  DumpTo(&out, indent, 0);
  return out;
}

}  // namespace zonekv
