// The command-line flag parser (Flags::Parse and the typed getters) and the
// value parsers ParseUint, ParseBytes and ParseDouble. Input: the arguments,
// separated by NUL bytes. Checks: a parsed integer is exactly the decimal
// digits given (leading zeros aside); a parsed size is digits and a known
// suffix; a parsed double is finite; the flags given, written back as
// --name=value, parse to the same values and positionals.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "zonekv/flags.h"

using namespace zonekv;

namespace {

void Define(Flags* f) {
  f->Define("num", "1", "an integer");
  f->Define("size", "4K", "a size");
  f->Define("ratio", "0.5", "a double");
  f->Define("verbose", "false", "a boolean", true);
  f->Define("name", "", "a string");
  f->Renamed("old", "num");
}

std::string WithoutLeadingZeros(const std::string& s) {
  size_t i = s.find_first_not_of('0');
  return i == std::string::npos ? "0" : s.substr(i);
}

void CheckValueParsers(const std::string& text) {
  uint64_t u = 0;
  if (ParseUint(text, &u).ok()) FUZZ_CHECK(WithoutLeadingZeros(text) == std::to_string(u));
  uint64_t b = 0;
  if (ParseBytes(text, &b).ok()) {
    size_t digits = text.find_first_not_of("0123456789");
    const std::string suffix = digits == std::string::npos ? "" : text.substr(digits);
    FUZZ_CHECK(digits != 0);
    FUZZ_CHECK(suffix.empty() || suffix == "B" || suffix == "K" || suffix == "KiB" || suffix == "k" ||
               suffix == "M" || suffix == "MiB" || suffix == "G" || suffix == "GiB" || suffix == "T" ||
               suffix == "TiB");
  }
  double d = 0;
  if (ParseDouble(text, &d).ok()) FUZZ_CHECK(std::isfinite(d));
}

Status ParseArgs(const std::vector<std::string>& args, Flags* f, bool* help) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>("zonekv"));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  return f->Parse(static_cast<int>(argv.size()), argv.data(), 1, help);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  for (size_t start = 0; start <= in.size() && args.size() < 64;) {
    size_t nul = in.find('\0', start);
    args.push_back(in.substr(start, nul == std::string::npos ? std::string::npos : nul - start));
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  for (const std::string& a : args) CheckValueParsers(a);

  Flags flags("fuzz");
  Define(&flags);
  bool help = false;
  Status s = ParseArgs(args, &flags, &help);
  if (!s.ok()) {
    FUZZ_CHECK(s.Is(Status::Code::kInvalidArgument));
    return 0;
  }
  uint64_t u = 0;
  double d = 0;
  bool v = false;
  (void)flags.Uint("num", &u);
  (void)flags.Bytes("size", &u);
  (void)flags.Double("ratio", &d);
  (void)flags.Bool("verbose", &v);
  FUZZ_CHECK(!flags.Usage("[flags]").empty());

  std::vector<std::string> again_args;
  for (const auto& [name, value] : flags.Effective()) {
    if (flags.WasSet(name)) again_args.push_back("--" + name + "=" + value);
  }
  for (const std::string& p : flags.positionals()) again_args.push_back(p);
  Flags again("fuzz");
  Define(&again);
  bool again_help = false;
  FUZZ_CHECK(ParseArgs(again_args, &again, &again_help).ok());
  FUZZ_CHECK(again.Effective() == flags.Effective());
  FUZZ_CHECK(again.positionals() == flags.positionals());
  return 0;
}
