// `zonekv fs`: format and inspect the zoned file system on a device image.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "commands.h"
#include "zonekv/flags.h"
#include "zonekv/zonefs.h"

namespace zonekv {

namespace {

const char kFsUsage[] =
    "Usage: zonekv fs <subcommand> --device=DEVICE [flags]\n"
    "\n"
    "Subcommands:\n"
    "  mkfs    format DEVICE with an empty zonekv file system\n"
    "  ls      list files: size, kind, level, zones\n"
    "  df      free, used and reclaimable space and space amplification (as ZenFS)\n"
    "  zones   one line per data zone: state, write pointer, valid bytes, files\n"
    "  fsck    check the metadata, and extents against zones (--deep: and every\n"
    "          database through RocksDB); exit 1 if anything is damaged\n"
    "  dump    every file with its extents (--json for JSON)\n"
    "  cat     copy one file (--file=/db/LOG) to stdout\n"
    "\n"
    "DEVICE is an image path (`zonekv device create`) or a device spec such as\n"
    "file:PATH. Every subcommand but mkfs mounts read-only.\n"
    "Run 'zonekv fs <subcommand> --help' for its flags.\n";

int Fail(const std::string& cmd, const Status& s) {
  std::fprintf(stderr, "zonekv %s: %s\n", cmd.c_str(), s.ToString().c_str());
  return 1;
}

int UsageError(const std::string& cmd, const Status& s) {
  std::fprintf(stderr, "zonekv %s: %s\n", cmd.c_str(), s.ToString().c_str());
  return 2;
}

Status OpenNamed(const std::string& name, std::unique_ptr<ZonedDevice>* device) {
  const bool has_kind = name.rfind("ram:", 0) == 0 || name.rfind("meta:", 0) == 0 ||
                        name.rfind("file:", 0) == 0 || name.rfind("zbd:", 0) == 0;
  return OpenDevice(has_kind ? name : "file:" + name, device);
}

double MiB(uint64_t b) { return static_cast<double>(b) / (1 << 20); }

struct Context {
  std::string cmd;
  Flags flags;
  bool json = false;
  std::shared_ptr<ZonedDevice> dev;
  std::shared_ptr<ZoneFs> fs;
  explicit Context(std::string c) : cmd(c), flags(c) {}
};

// What Setup does after parsing the flags.
enum class Open { kNothing, kDevice, kMount };

// Parses flags, then opens the device and mounts read-only as `open` says.
// Returns -1 to continue, else the exit code.
int Setup(Context* c, int argc, char** argv, Open open, const char* synopsis) {
  c->flags.Define("device", "", "the device: an image path or a spec (file:PATH, ram:...)");
  c->flags.Define("json", "false", "print JSON", true);
  c->flags.Define("meta_zones", "3", "metadata zones (mkfs; others must match)");
  bool help = false;
  Status s = c->flags.Parse(argc, argv, 3, &help);
  if (help) {
    std::printf("%s", c->flags.Usage(synopsis).c_str());
    return 0;
  }
  if (!s.ok()) return UsageError(c->cmd, s);
  if (!c->flags.positionals().empty()) {
    return UsageError(c->cmd, Status::InvalidArgument("unexpected argument '" + c->flags.positionals()[0] +
                                                      "' (give the device with --device)"));
  }
  if (c->flags.Str("device").empty()) return UsageError(c->cmd, Status::InvalidArgument("--device is required"));
  uint64_t meta = 0;
  s = c->flags.Bool("json", &c->json);
  if (s.ok()) s = c->flags.Uint("meta_zones", &meta);
  if (!s.ok()) return UsageError(c->cmd, s);
  if (open == Open::kNothing) return -1;
  std::unique_ptr<ZonedDevice> dev;
  s = OpenNamed(c->flags.Str("device"), &dev);
  if (!s.ok()) return Fail(c->cmd, s);
  c->dev = std::move(dev);
  if (open == Open::kDevice) return -1;
  ZoneFsOptions opts;
  opts.read_only = true;
  opts.meta_zones = static_cast<uint32_t>(meta);
  s = ZoneFs::Mount(c->dev, opts, &c->fs);
  if (!s.ok()) return Fail(c->cmd, s);
  return -1;
}

int Mkfs(int argc, char** argv) {
  Context c("fs mkfs");
  c.flags.Define("force", "false", "format even if DEVICE already holds a zonekv file system", true);
  if (int rc = Setup(&c, argc, argv, Open::kDevice, "--device=DEVICE [--force] [--meta_zones=3]"); rc >= 0) return rc;
  bool force = false;
  uint64_t meta = 0;
  Status s = c.flags.Bool("force", &force);
  if (s.ok()) s = c.flags.Uint("meta_zones", &meta);
  if (!s.ok()) return UsageError(c.cmd, s);
  ZoneFsOptions opts;
  opts.meta_zones = static_cast<uint32_t>(meta);
  if (!force) {
    ZoneFsOptions ro = opts;
    ro.read_only = true;
    std::shared_ptr<ZoneFs> existing;
    Status m = ZoneFs::Mount(c.dev, ro, &existing);
    if (m.ok() || m.Is(Status::Code::kCorruption)) {
      return Fail(c.cmd, Status::InvalidArgument(c.flags.Str("device") +
                                                 " already holds a zonekv file system; use --force to erase it"));
    }
  }
  s = ZoneFs::Format(c.dev.get(), opts);
  if (!s.ok()) return Fail(c.cmd, s);
  const DeviceGeometry& g = c.dev->geometry();
  std::printf("formatted %s: %u data zones of %.0f MiB, %u metadata zones\n", c.flags.Str("device").c_str(),
              g.nr_zones - opts.meta_zones, MiB(g.zone_capacity_bytes), opts.meta_zones);
  return 0;
}

int Ls(int argc, char** argv) {
  Context c("fs ls");
  if (int rc = Setup(&c, argc, argv, Open::kMount, "--device=DEVICE [--json]"); rc >= 0) return rc;
  FsView v = c.fs->View();
  if (c.json) {
    Json arr = Json::Array();
    for (const auto& f : v.files) {
      Json j = Json::Object();
      j.Set("name", f.name).Set("size_bytes", f.size_bytes).Set("kind", FileKindName(f.hints.kind));
      j.Set("number", f.hints.number).Set("level", f.hints.level).Set("zones", static_cast<uint64_t>(f.bytes_per_zone.size()));
      arr.Push(j);
    }
    std::printf("%s\n", arr.Dump(2).c_str());
    return 0;
  }
  std::printf("%12s  %-8s %5s %5s  %s\n", "size", "kind", "level", "zones", "name");
  for (const auto& f : v.files) {
    std::printf("%12llu  %-8s %5d %5zu  %s\n", static_cast<unsigned long long>(f.size_bytes),
                FileKindName(f.hints.kind), f.hints.level, f.bytes_per_zone.size(), f.name.c_str());
  }
  return 0;
}

int Df(int argc, char** argv) {
  Context c("fs df");
  if (int rc = Setup(&c, argc, argv, Open::kMount, "--device=DEVICE [--json]"); rc >= 0) return rc;
  FsView v = c.fs->View();
  uint64_t free = v.free_bytes(), used = v.used_bytes(), recl = v.reclaimable_bytes();
  double amp = used == 0 ? 0.0 : 100.0 * static_cast<double>(recl) / static_cast<double>(used);
  if (c.json) {
    Json j = Json::Object();
    j.Set("free_bytes", free).Set("used_bytes", used).Set("reclaimable_bytes", recl);
    j.Set("space_amplification_pct", amp).Set("free_ratio", v.free_ratio());
    std::printf("%s\n", j.Dump(2).c_str());
    return 0;
  }
  std::printf("Free: %.1f MB\nUsed: %.1f MB\nReclaimable: %.1f MB\nSpace amplification: %.0f%%\n", MiB(free), MiB(used),
              MiB(recl), amp);
  return 0;
}

int Zones(int argc, char** argv) {
  Context c("fs zones");
  if (int rc = Setup(&c, argc, argv, Open::kMount, "--device=DEVICE [--json]"); rc >= 0) return rc;
  FsView v = c.fs->View();
  std::map<uint32_t, std::vector<std::string>> files;
  for (const auto& f : v.files) {
    for (const auto& [z, bytes] : f.bytes_per_zone) files[z].push_back(f.name);
  }
  Json arr = Json::Array();
  if (!c.json) std::printf("%5s  %-9s %12s %12s %12s  %s\n", "zone", "state", "wp", "valid", "capacity", "files");
  for (const auto& z : v.zones) {
    std::string names;
    for (const auto& n : files[z.id]) names += (names.empty() ? "" : " ") + n;
    if (c.json) {
      Json j = Json::Object();
      Json fl = Json::Array();
      for (const auto& n : files[z.id]) fl.Push(n);
      j.Set("zone", z.id).Set("state", ZoneStateName(z.state)).Set("written_bytes", z.written_bytes);
      j.Set("valid_bytes", z.valid_bytes).Set("capacity_bytes", z.capacity_bytes).Set("reset_count", z.reset_count);
      j.Set("files", fl);
      arr.Push(j);
      continue;
    }
    std::printf("%5u  %-9s %12llu %12llu %12llu  %s\n", z.id, ZoneStateName(z.state),
                static_cast<unsigned long long>(z.written_bytes), static_cast<unsigned long long>(z.valid_bytes),
                static_cast<unsigned long long>(z.capacity_bytes), names.c_str());
  }
  if (c.json) std::printf("%s\n", arr.Dump(2).c_str());
  return 0;
}

// fsck's report. `mount_error` (damaged metadata: the mount refused) or the
// problems found; `deep` with --deep.
int FsckReport(const Context& c, const Status& mount_error, const std::vector<FsckProblem>& problems,
               const DeepCheckResult* deep) {
  std::vector<std::string> all;
  if (!mount_error.ok()) all.push_back("damaged metadata: " + mount_error.ToString());
  for (const auto& p : problems) all.push_back(p.message);
  if (deep != nullptr) {
    for (const auto& p : deep->problems) all.push_back(p.message);
  }
  std::vector<std::string> repairs = c.fs ? c.fs->MountRepairs() : std::vector<std::string>();
  if (c.json) {
    Json arr = Json::Array();
    for (const auto& p : all) arr.Push(p);
    Json rep = Json::Array();
    for (const auto& r : repairs) rep.Push(r);
    Json j = Json::Object();
    j.Set("clean", all.empty()).Set("problems", arr).Set("repaired_at_mount", rep);
    if (deep != nullptr) {
      Json dbs = Json::Array();
      for (const auto& d : deep->databases) {
        Json o = Json::Object();
        o.Set("dir", d.dir).Set("sst_files", d.sst_files).Set("blob_files", d.blob_files);
        o.Set("blob_records", d.blob_records).Set("keys", d.keys);
        o.Set("unreferenced_files", d.unreferenced_files);
        dbs.Push(o);
      }
      j.Set("databases", dbs);
    }
    std::printf("%s\n", j.Dump(2).c_str());
    return all.empty() ? 0 : 1;
  }
  for (const auto& p : all) std::printf("%s\n", p.c_str());
  for (const auto& r : repairs) std::printf("repaired at mount: %s\n", r.c_str());
  if (deep != nullptr) {
    for (const auto& d : deep->databases) {
      std::printf("database %s checked: %llu SST files, %llu blob files (%llu records), %llu keys",
                  d.dir.c_str(), static_cast<unsigned long long>(d.sst_files),
                  static_cast<unsigned long long>(d.blob_files), static_cast<unsigned long long>(d.blob_records),
                  static_cast<unsigned long long>(d.keys));
      if (d.unreferenced_files > 0) {
        std::printf(" (%llu obsolete files not referenced)", static_cast<unsigned long long>(d.unreferenced_files));
      }
      std::printf("\n");
    }
  }
  if (all.empty()) {
    FsView v = c.fs->View();
    std::printf("clean: %zu files in %zu data zones\n", v.files.size(), v.zones.size());
  } else {
    std::printf("%zu problems\n", all.size());
  }
  return all.empty() ? 0 : 1;
}

int Fsck(int argc, char** argv) {
  Context c("fs fsck");
  c.flags.Define("deep", "false",
                 "also open each RocksDB database read-only and verify every SST block checksum and every "
                 "key and value (with their blob records)",
                 true);
  // Damaged metadata (an image header or zone table entry the device
  // refuses, a journal record the mount refuses) is fsck's finding: the
  // open and the mount are below.
  if (int rc = Setup(&c, argc, argv, Open::kNothing, "--device=DEVICE [--deep] [--json]"); rc >= 0) return rc;
  bool deep = false;
  uint64_t meta = 0;
  Status s = c.flags.Bool("deep", &deep);
  if (s.ok()) s = c.flags.Uint("meta_zones", &meta);
  if (!s.ok()) return UsageError(c.cmd, s);
  std::unique_ptr<ZonedDevice> dev;
  s = OpenNamed(c.flags.Str("device"), &dev);
  if (!s.ok()) {
    if (!s.Is(Status::Code::kCorruption)) return Fail(c.cmd, s);
    return FsckReport(c, s, {}, nullptr);
  }
  c.dev = std::move(dev);
  ZoneFsOptions opts;
  opts.read_only = true;
  opts.meta_zones = static_cast<uint32_t>(meta);
  s = ZoneFs::Mount(c.dev, opts, &c.fs);
  if (!s.ok()) {
    if (!s.Is(Status::Code::kCorruption)) return Fail(c.cmd, s);
    return FsckReport(c, s, {}, nullptr);
  }
  std::vector<FsckProblem> problems = c.fs->Fsck();
  if (!deep) return FsckReport(c, Status::OK(), problems, nullptr);
  DeepCheckResult result = DeepCheck(c.fs);
  return FsckReport(c, Status::OK(), problems, &result);
}

int Dump(int argc, char** argv) {
  Context c("fs dump");
  if (int rc = Setup(&c, argc, argv, Open::kMount, "--device=DEVICE [--json]"); rc >= 0) return rc;
  if (c.json) {
    std::printf("%s\n", c.fs->Dump().Dump(2).c_str());
    return 0;
  }
  for (const auto& fe : c.fs->Files()) {
    const FileHints& h = fe.file.hints;
    std::printf("%s  size %llu  kind %s  number %llu  level %d  job %d  lifetime %d  extents %zu\n",
                fe.file.name.c_str(), static_cast<unsigned long long>(fe.file.size_bytes), FileKindName(h.kind),
                static_cast<unsigned long long>(h.number), h.level, h.job, static_cast<int>(h.lifetime),
                fe.extents.size());
    for (const auto& e : fe.extents) {
      std::printf("  zone %u  offset %llu  length %llu\n", e.zone, static_cast<unsigned long long>(e.offset_bytes),
                  static_cast<unsigned long long>(e.length_bytes));
    }
  }
  return 0;
}

int Cat(int argc, char** argv) {
  Context c("fs cat");
  c.flags.Define("file", "", "the file to print, e.g. /db/LOG");
  if (int rc = Setup(&c, argc, argv, Open::kMount, "--device=DEVICE --file=PATH"); rc >= 0) return rc;
  if (c.flags.Str("file").empty()) return UsageError(c.cmd, Status::InvalidArgument("--file is required"));
  std::string data;
  Status s = c.fs->ReadFile(c.flags.Str("file"), &data);
  if (!s.ok()) return Fail(c.cmd, s);
  std::fwrite(data.data(), 1, data.size(), stdout);
  return 0;
}

}  // namespace

int FsCommand(int argc, char** argv) {
  return RunSubcommand("fs", kFsUsage,
                       {{"mkfs", Mkfs}, {"ls", Ls}, {"df", Df}, {"zones", Zones}, {"fsck", Fsck}, {"dump", Dump},
                        {"cat", Cat}},
                       argc, argv);
}

}  // namespace zonekv
