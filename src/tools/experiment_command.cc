// PLACEHOLDER: replaced by the issue that builds `zonekv experiment`.
#include <cstdio>

#include "commands.h"

namespace zonekv {

int ExperimentCommand(int argc, char** argv) {
  std::fprintf(stderr, "zonekv experiment: not built yet\n");
  return 2;
}

}  // namespace zonekv
