// PLACEHOLDER: replaced by the issue that builds `zonekv ftl`.
#include <cstdio>

#include "commands.h"

namespace zonekv {

int FtlCommand(int argc, char** argv) {
  std::fprintf(stderr, "zonekv ftl: not built yet\n");
  return 2;
}

}  // namespace zonekv
