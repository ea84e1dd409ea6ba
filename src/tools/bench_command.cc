// PLACEHOLDER: replaced by the issue that builds `zonekv bench`.
#include <cstdio>

#include "commands.h"

namespace zonekv {

int BenchCommand(int argc, char** argv) {
  std::fprintf(stderr, "zonekv bench: not built yet\n");
  return 2;
}

}  // namespace zonekv
