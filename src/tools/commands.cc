#include "commands.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace zonekv {

int RunSubcommand(const char* command, const char* usage, std::initializer_list<Subcommand> subcommands, int argc,
                  char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  const std::string sub = argv[2];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    std::printf("%s", usage);
    return 0;
  }
  for (const Subcommand& s : subcommands) {
    if (sub == s.name) return s.run(argc, argv);
  }
  std::fprintf(stderr, "zonekv %s: unknown subcommand '%s'\n\n%s", command, sub.c_str(), usage);
  return 2;
}


Status WriteJson(const std::string& path, const Json& json) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return Status::IOError("--json=" + path + ": cannot open for writing: " + std::strerror(errno));
  out << json.Dump(2) << "\n";
  out.close();
  if (!out) return Status::IOError("--json=" + path + ": write failed");
  return Status::OK();
}

}  // namespace zonekv
