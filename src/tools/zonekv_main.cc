// zonekv: one binary, one subcommand per layer.
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int, char**);
  const char* summary;
};

// Commands are listed in layer order, bottom up.
const Command kCommands[] = {
    {"device", zonekv::DeviceCommand, "create, inspect and report zones of an emulated ZNS SSD image"},
    {"ftl", zonekv::FtlCommand, "host-side FTL over zones: replay block traces, synthetic workloads"},
    {"fs", zonekv::FsCommand, "the zoned file system: mkfs, ls, df, zones, fsck, dump"},
    {"bench", zonekv::BenchCommand, "run a db_bench or YCSB workload on RocksDB over zonekv"},
    {"experiment", zonekv::ExperimentCommand, "run a named set of benchmarks and write results and figures"},
    {"run", zonekv::RunCommand, "run stock db_bench, ldb or sst_dump with --fs_uri=zonekv://DEVICE"},
    {"crashtest", zonekv::CrashTestCommand, "kill and fault a RocksDB writer at random, check what survives"},
};

void Usage(FILE* out) {
  std::fprintf(out, "Usage: zonekv <command> [flags]\n\nCommands:\n");
  for (const auto& c : kCommands) std::fprintf(out, "  %-12s %s\n", c.name, c.summary);
  std::fprintf(out, "\nRun 'zonekv <command> --help' for a command's flags.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    Usage(stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    Usage(stdout);
    return 0;
  }
  if (name == "__crashtest_writer") return zonekv::CrashTestWriterCommand(argc, argv);
  for (const auto& c : kCommands) {
    if (name == c.name) return c.run(argc, argv);
  }
  std::fprintf(stderr, "zonekv: unknown command '%s'\n\n", name.c_str());
  Usage(stderr);
  return 2;
}
