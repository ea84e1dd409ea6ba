// Registries of named policies, and tables of the knobs that configure them.
//
// Every policy family (zone allocation, zone cleaning, reset, finish,
// compaction picking, blob GC cutoff, FTL victim selection) has one
// PolicyRegistry: each entry is a name, a one-line help text, the knobs the
// policy reads and a factory. Validation, --help, --list_policies, the JSON
// config and the tests' parameter lists all read the registry, so adding a
// policy is one file (the policy and its entry) plus one registration line
// (docs/README.md shows how).
//
// A knob has one name: on the command line, as the options struct's member
// (with its unit suffix: _pct, _bytes, _us) and in the JSON config. A
// KnobTable lists a struct's knobs with their parsers, so Set, ToJson and the
// help text come from one place.
//
// Registries and knob tables are immutable after construction (function-local
// statics); any thread may read them.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

// ---- Policy registries ---------------------------------------------------------

template <typename Factory>
struct PolicyEntry {
  std::string name;
  std::string help;                // one line
  std::vector<std::string> knobs;  // knob names the policy reads (documentation)
  Factory make;
};

// The policies of one family, in registration order (the order --help shows).
template <typename Factory>
class PolicyRegistry {
 public:
  using Entry = PolicyEntry<Factory>;

  // `family`: what one entry is, for messages ("zone cleaning policy").
  PolicyRegistry(std::string family, std::vector<Entry> entries)
      : family_(std::move(family)), entries_(std::move(entries)) {}

  const std::string& family() const { return family_; }
  const std::vector<Entry>& entries() const { return entries_; }

  // The entry named `name`, or nullptr.
  const Entry* Find(std::string_view name) const {
    for (const Entry& e : entries_) {
      if (e.name == name) return &e;
    }
    return nullptr;
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const Entry& e : entries_) names.push_back(e.name);
    return names;
  }

  // The names joined by `sep`: "zenfs|greedy|off".
  std::string NameList(std::string_view sep = ", ") const {
    std::string s;
    for (const Entry& e : entries_) {
      if (!s.empty()) s += sep;
      s += e.name;
    }
    return s;
  }

  // OK when `value` names an entry; else InvalidArgument naming the knob, the
  // value and the known names: "zc='x' is not a zone cleaning policy (known: ...)".
  Status Check(std::string_view knob, const std::string& value) const {
    if (Find(value) != nullptr) return Status::OK();
    return Status::InvalidArgument(std::string(knob) + "='" + value + "' is not a " + family_ + " (known: " +
                                   NameList() + ")");
  }

  // The entry for `value`, checked: sets *entry or returns Check's error.
  Status Lookup(std::string_view knob, const std::string& value, const Entry** entry) const {
    ZONEKV_RETURN_IF_ERROR(Check(knob, value));
    *entry = Find(value);
    return Status::OK();
  }

  // {"name": "help (knobs: a, b)", ...}, for --list_policies and the docs.
  Json ToJson() const {
    Json j = Json::Object();
    for (const Entry& e : entries_) {
      std::string line = e.help;
      if (!e.knobs.empty()) {
        line += " (knobs:";
        for (size_t i = 0; i < e.knobs.size(); i++) line += (i ? ", " : " ") + e.knobs[i];
        line += ")";
      }
      j.Set(e.name, line);
    }
    return j;
  }

 private:
  std::string family_;
  std::vector<Entry> entries_;
};

// ---- Knob tables ------------------------------------------------------------------

// Parsers shared by the knob tables: each returns InvalidArgument naming the
// knob and the value ("zc_slope='x' is not a positive number").
Status ParsePercentKnob(std::string_view key, const std::string& value, double* out);   // [0, 100]
Status ParseFractionKnob(std::string_view key, const std::string& value, double* out);  // [0, 1]
Status ParsePositiveKnob(std::string_view key, const std::string& value, double* out);  // > 0
Status ParseBoolKnob(std::string_view key, const std::string& value, bool* out);        // true/false/1/0

// One knob of an options struct `Opts`.
template <typename Opts>
struct Knob {
  std::string name;  // command line, struct member and JSON key
  std::string help;  // one line, naming the unit
  std::function<Status(Opts*, const std::string&)> set;
  std::function<Json(const Opts&)> get;
};

template <typename Opts>
Knob<Opts> PercentKnob(std::string name, double Opts::*member, std::string help) {
  std::string key = name;
  return {std::move(name), std::move(help),
          [key, member](Opts* o, const std::string& v) { return ParsePercentKnob(key, v, &(o->*member)); },
          [member](const Opts& o) { return Json(o.*member); }};
}

template <typename Opts>
Knob<Opts> FractionKnob(std::string name, double Opts::*member, std::string help) {
  std::string key = name;
  return {std::move(name), std::move(help),
          [key, member](Opts* o, const std::string& v) { return ParseFractionKnob(key, v, &(o->*member)); },
          [member](const Opts& o) { return Json(o.*member); }};
}

template <typename Opts>
Knob<Opts> PositiveKnob(std::string name, double Opts::*member, std::string help) {
  std::string key = name;
  return {std::move(name), std::move(help),
          [key, member](Opts* o, const std::string& v) { return ParsePositiveKnob(key, v, &(o->*member)); },
          [member](const Opts& o) { return Json(o.*member); }};
}

template <typename Opts>
Knob<Opts> BoolKnob(std::string name, bool Opts::*member, std::string help) {
  std::string key = name;
  return {std::move(name), std::move(help),
          [key, member](Opts* o, const std::string& v) { return ParseBoolKnob(key, v, &(o->*member)); },
          [member](const Opts& o) { return Json(o.*member); }};
}

// A string knob whose value must pass `check` (typically a registry's Check).
template <typename Opts>
Knob<Opts> ChoiceKnob(std::string name, std::string Opts::*member, std::string help,
                      std::function<Status(std::string_view key, const std::string& value)> check) {
  std::string key = name;
  return {std::move(name), std::move(help),
          [key, member, check](Opts* o, const std::string& v) {
            ZONEKV_RETURN_IF_ERROR(check(key, v));
            o->*member = v;
            return Status::OK();
          },
          [member](const Opts& o) { return Json(o.*member); }};
}

// The knobs of one options struct, in the order --help and the JSON show them.
template <typename Opts>
class KnobTable {
 public:
  // `what`: for messages ("file-system policy"). `renamed`: old name -> new
  // name, so that a user with an old command line learns the new name.
  KnobTable(std::string what, std::vector<Knob<Opts>> knobs,
            std::vector<std::pair<std::string, std::string>> renamed = {})
      : what_(std::move(what)), knobs_(std::move(knobs)), renamed_(std::move(renamed)) {}

  bool Has(std::string_view key) const { return Find(key) != nullptr; }

  // Sets one knob by name; InvalidArgument for an unknown knob or a bad value.
  Status Set(Opts* opts, const std::string& key, const std::string& value) const {
    if (const Knob<Opts>* k = Find(key)) return k->set(opts, value);
    for (const auto& [old_name, new_name] : renamed_) {
      if (old_name == key) {
        return Status::InvalidArgument(what_ + " knob '" + key + "' was renamed to '" + new_name + "'");
      }
    }
    return Status::InvalidArgument("unknown " + what_ + " knob '" + key + "' (known: " + NameList() + ")");
  }

  Json ToJson(const Opts& opts) const {
    Json j = Json::Object();
    for (const Knob<Opts>& k : knobs_) j.Set(k.name, k.get(opts));
    return j;
  }

  const std::vector<Knob<Opts>>& knobs() const { return knobs_; }
  const std::vector<std::pair<std::string, std::string>>& renamed() const { return renamed_; }

  std::string NameList() const {
    std::string s;
    for (const Knob<Opts>& k : knobs_) s += (s.empty() ? "" : ", ") + k.name;
    return s;
  }

 private:
  const Knob<Opts>* Find(std::string_view key) const {
    for (const Knob<Opts>& k : knobs_) {
      if (k.name == key) return &k;
    }
    return nullptr;
  }

  std::string what_;
  std::vector<Knob<Opts>> knobs_;
  std::vector<std::pair<std::string, std::string>> renamed_;
};

}  // namespace zonekv
