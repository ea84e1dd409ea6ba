// `zonekv run`: a stock RocksDB tool (db_bench, ldb, sst_dump) with the
// `zonekv://` plugin loaded. Stock tools given a --fs_uri scheme nobody
// registered crash instead of erroring, so the plugin is checked here
// before the tool starts: it must load and export zonekv_plugin_version.
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "commands.h"
#include "zonekv/plugin.h"

namespace zonekv {

namespace {

const char* const kTools[] = {"db_bench", "ldb", "sst_dump"};

const char kUsage[] =
    "Usage: zonekv run db_bench|ldb|sst_dump [ARGS...]\n\n"
    "Runs the stock RocksDB tool (Debian's rocksdb-tools) with libzonekv.so\n"
    "preloaded, so that --fs_uri=zonekv://DEVICE[?KEY:VALUE,...] opens zonekv.\n"
    "DEVICE is an image made by 'zonekv device create' and 'zonekv fs mkfs', or\n"
    "zbd:/dev/nvmeXnY; KEYs are scheme (default coop), the file-system knobs of\n"
    "'zonekv bench --help' (zc:greedy, ...) and, on an image, timing, time_scale,\n"
    "finish, auto_close. The arguments go to the tool unchanged.\n"
    "The plugin is found in $ZONEKV_PLUGIN, else beside this binary\n"
    "(../plugin/libzonekv.so in the build tree, ../lib/libzonekv.so installed).\n"
    "Example:\n"
    "  zonekv device create /tmp/zns.img --zones=64 --zone_size=64M\n"
    "  zonekv fs mkfs --device=/tmp/zns.img\n"
    "  zonekv run db_bench --fs_uri=zonekv:///tmp/zns.img --benchmarks=fillrandom --db=/db\n"
    "  zonekv run ldb --fs_uri=zonekv:///tmp/zns.img --db=/db scan\n";

std::string Dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

bool Exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

// The plugin's path, or empty with *why set.
std::string FindPlugin(std::string* why) {
  if (const char* p = std::getenv("ZONEKV_PLUGIN"); p != nullptr && *p != '\0') {
    if (Exists(p)) return p;
    *why = std::string("ZONEKV_PLUGIN=") + p + " does not exist";
    return "";
  }
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) {
    *why = "cannot find this binary's directory; set ZONEKV_PLUGIN";
    return "";
  }
  self[n] = '\0';
  const std::string bin_dir = Dir(self);
  for (const std::string& candidate : {bin_dir + "/../plugin/libzonekv.so", bin_dir + "/../lib/libzonekv.so"}) {
    if (Exists(candidate)) return candidate;
  }
  *why = "libzonekv.so is neither in " + bin_dir + "/../plugin nor in " + bin_dir +
         "/../lib (build it with scripts/build.sh, or set ZONEKV_PLUGIN)";
  return "";
}

// The tool's path in $PATH, or empty.
std::string FindTool(const std::string& tool) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + tool;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return "";
}

}  // namespace

int RunCommand(int argc, char** argv) {
  if (argc < 3 || std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h") {
    std::fprintf(argc < 3 ? stderr : stdout, "%s", kUsage);
    return argc < 3 ? 2 : 0;
  }
  const std::string tool = argv[2];
  bool known = false;
  for (const char* t : kTools) known |= tool == t;
  if (!known) {
    std::fprintf(stderr, "zonekv run: '%s' is not a tool this runs (db_bench, ldb, sst_dump)\n", tool.c_str());
    return 2;
  }
  // A malformed zonekv:// URI may match no registered pattern, and then the
  // tool crashes: check its syntax here.
  for (int i = 3; i < argc; i++) {
    const std::string arg = argv[i];
    const std::string flag = "--fs_uri=";
    if (arg.rfind(flag + "zonekv:", 0) != 0) continue;
    PluginUri uri;
    Status s = ParsePluginUri(arg.substr(flag.size()), &uri);
    if (!s.ok()) {
      std::fprintf(stderr, "zonekv run: %s\n", s.ToString().c_str());
      return 2;
    }
  }
  std::string why;
  const std::string plugin = FindPlugin(&why);
  if (plugin.empty()) {
    std::fprintf(stderr, "zonekv run: %s\n", why.c_str());
    return 1;
  }
  void* handle = dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr || dlsym(handle, "zonekv_plugin_version") == nullptr) {
    std::fprintf(stderr, "zonekv run: %s is not a loadable zonekv plugin: %s\n", plugin.c_str(),
                 handle == nullptr ? dlerror() : "zonekv_plugin_version is missing");
    return 1;
  }
  const std::string path = FindTool(tool);
  if (path.empty()) {
    std::fprintf(stderr, "zonekv run: %s is not in PATH (Debian: apt-get install rocksdb-tools)\n", tool.c_str());
    return 1;
  }
  std::string preload = plugin;
  if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') preload += std::string(":") + old;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  std::vector<char*> args;
  args.push_back(const_cast<char*>(tool.c_str()));
  for (int i = 3; i < argc; i++) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  std::perror(("zonekv run: " + path).c_str());
  return 1;
}

}  // namespace zonekv
