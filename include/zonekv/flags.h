// Flags: command-line parsing shared by every `zonekv` subcommand.
//
// A command declares the flags it accepts (name, default, help) and then
// parses argv. Unknown flags, missing values and values of the wrong type are
// reported as InvalidArgument naming the flag, never as a crash. Accepted
// forms: `--name=value`, `--name value`, and `--name` alone for booleans.
// Arguments that do not start with `--` are collected as positionals.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "zonekv/status.h"

namespace zonekv {

// Parses "4096", "64K", "64KiB", "64M", "1G", "2T" (binary multiples) into bytes.
Status ParseBytes(const std::string& text, uint64_t* bytes);
// Parses a non-negative integer; rejects trailing garbage and overflow.
Status ParseUint(const std::string& text, uint64_t* value);
// Parses a finite double.
Status ParseDouble(const std::string& text, double* value);

class Flags {
 public:
  explicit Flags(std::string command) : command_(std::move(command)) {}

  // Declares a flag. `is_bool` flags may be given without a value.
  void Define(const std::string& name, const std::string& default_value,
              const std::string& help, bool is_bool = false);

  // A flag that no longer exists under `old_name`: using it is an error that
  // names `new_name`.
  void Renamed(const std::string& old_name, const std::string& new_name);

  // Parses argv[first..argc). Sets *help_requested if --help/-h was given.
  Status Parse(int argc, char** argv, int first, bool* help_requested);

  // Typed getters; each returns InvalidArgument naming the flag on a bad value.
  std::string Str(const std::string& name) const;
  Status Uint(const std::string& name, uint64_t* v) const;
  Status Bytes(const std::string& name, uint64_t* v) const;
  Status Double(const std::string& name, double* v) const;
  Status Bool(const std::string& name, bool* v) const;
  bool WasSet(const std::string& name) const;

  const std::vector<std::string>& positionals() const { return positionals_; }
  // Every declared flag with its effective value (for recording configurations).
  std::map<std::string, std::string> Effective() const;
  // "Usage: zonekv <command> [flags]\n  --name=default  help\n..."
  std::string Usage(const std::string& synopsis) const;

 private:
  struct Def {
    std::string value;
    std::string default_value;
    std::string help;
    bool is_bool = false;
    bool set = false;
  };
  std::string command_;
  std::map<std::string, Def> defs_;
  std::vector<std::string> order_;
  std::vector<std::string> positionals_;
  std::map<std::string, std::string> renamed_;
};

}  // namespace zonekv
