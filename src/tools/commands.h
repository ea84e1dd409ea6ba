// Entry points of the `zonekv` subcommands. Each returns the process exit
// code: 0 success, 1 the operation failed, 2 bad usage. argv[1] is the
// subcommand name; flags start at argv[2].
#pragma once

namespace zonekv {

int DeviceCommand(int argc, char** argv);
int FsCommand(int argc, char** argv);
int BenchCommand(int argc, char** argv);
int ExperimentCommand(int argc, char** argv);
int FtlCommand(int argc, char** argv);
int RunCommand(int argc, char** argv);

}  // namespace zonekv
