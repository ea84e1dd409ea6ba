// Json: a small JSON value for metrics, configurations and results.
//
// Objects keep insertion order so that output is stable and diffable.
// Only what zonekv emits is supported: null, bool, number, string, array,
// object. Numbers are written with enough digits to round-trip a double;
// integers up to 2^53 are exact. Non-finite numbers become null.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace zonekv {

class Json {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Json() = default;
  Json(bool b) : type_(Type::kBool), b_(b) {}
  Json(int v) : type_(Type::kNumber), n_(v) {}
  Json(int64_t v) : type_(Type::kNumber), n_(static_cast<double>(v)) {}
  Json(uint64_t v) : type_(Type::kNumber), n_(static_cast<double>(v)) {}
  Json(uint32_t v) : type_(Type::kNumber), n_(v) {}
  Json(double v) : type_(Type::kNumber), n_(v) {}
  Json(const char* s) : type_(Type::kString), s_(s) {}
  Json(std::string s) : type_(Type::kString), s_(std::move(s)) {}

  static Json Object() { Json j; j.type_ = Type::kObject; return j; }
  static Json Array() { Json j; j.type_ = Type::kArray; return j; }

  Type type() const { return type_; }
  // Object: sets (or replaces) key. Returns *this for chaining.
  Json& Set(const std::string& key, Json value);
  // Object: the value at key, created as null if absent.
  Json& operator[](const std::string& key);
  // Array: appends.
  Json& Push(Json value);

  // Reading. Find: object member at key, nullptr if absent or not an object.
  const Json* Find(const std::string& key) const;
  // The number (0 unless a number), the boolean (false unless a bool) and
  // the string (empty unless a string).
  double number() const { return type_ == Type::kNumber ? n_ : 0; }
  bool boolean() const { return type_ == Type::kBool && b_; }
  const std::string& str() const { return s_; }

  // Compact when indent < 0, pretty-printed with `indent` spaces otherwise.
  std::string Dump(int indent = -1) const;

 private:
  void DumpTo(std::string* out, int indent, int depth) const;
  Type type_ = Type::kNull;
  bool b_ = false;
  double n_ = 0;
  std::string s_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

}  // namespace zonekv
