// Entry points of the `zonekv` subcommands and what they share. Each
// returns the process exit code: 0 success, 1 the operation failed, 2 bad
// usage. argv[1] is the subcommand name; flags start at argv[2].
#pragma once

#include <initializer_list>
#include <string>

#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

int DeviceCommand(int argc, char** argv);
int FsCommand(int argc, char** argv);
int BenchCommand(int argc, char** argv);
int ExperimentCommand(int argc, char** argv);
int FtlCommand(int argc, char** argv);
int RunCommand(int argc, char** argv);
int CrashTestCommand(int argc, char** argv);
// The crash test's writer process (`zonekv __crashtest_writer`, not listed).
int CrashTestWriterCommand(int argc, char** argv);

// One subcommand of a command: "create" of `zonekv device`.
struct Subcommand {
  const char* name;
  int (*run)(int argc, char** argv);
};
// Runs subcommand argv[2] of `command` ("device") and returns its exit code.
// Without one, prints `usage` to stderr (exit 2); --help, -h and help print
// it to stdout (exit 0); an unknown one is named, with the usage (exit 2).
int RunSubcommand(const char* command, const char* usage, std::initializer_list<Subcommand> subcommands, int argc,
                  char** argv);

// Writes `json` (indented) to the file at `path`, the value of a --json
// flag. IOError naming the flag if it cannot be created or written.
Status WriteJson(const std::string& path, const Json& json);

}  // namespace zonekv
