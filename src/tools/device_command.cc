// PLACEHOLDER: replaced by the issue that builds `zonekv device`.
#include <cstdio>

#include "commands.h"

namespace zonekv {

int DeviceCommand(int argc, char** argv) {
  std::fprintf(stderr, "zonekv device: not built yet\n");
  return 2;
}

}  // namespace zonekv
