// PLACEHOLDER: replaced by the issue that builds `zonekv fs`.
#include <cstdio>

#include "commands.h"

namespace zonekv {

int FsCommand(int argc, char** argv) {
  std::fprintf(stderr, "zonekv fs: not built yet\n");
  return 2;
}

}  // namespace zonekv
