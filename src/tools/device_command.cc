// `zonekv device`: create, inspect and benchmark emulated ZNS SSDs.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "zonekv/device_bench.h"
#include "zonekv/emulated_device.h"
#include "zonekv/flags.h"

namespace zonekv {

namespace {

const char kDeviceUsage[] =
    "Usage: zonekv device <subcommand> [flags]\n"
    "\n"
    "Subcommands:\n"
    "  create PATH    make an emulated ZNS SSD image file\n"
    "  info DEVICE    geometry, zone state counts and wear\n"
    "  report DEVICE  one line per zone, like blkzone report\n"
    "  bench          fio-like calibration figures beside a profile's published anchors\n"
    "\n"
    "DEVICE is an image path or a device spec:\n"
    "  file:PATH[,runtime keys]    an image made by `zonekv device create`\n"
    "  ram:zones=64,zone_size=64M[,zone_cap=..,block_size=4096,max_open=..,max_active=..]\n"
    "  meta:<same keys>            metadata only: no payload, reads return zeros\n"
    "  zbd:/dev/nvme0n1            a Linux host-managed zoned block device (mq-deadline)\n"
    "Runtime keys (any kind): auto_close=0|1 (default 1), finish=free|pad,\n"
    "  timing=none|zn540|confzns|confznspp|cosmos (a ZNS SSD timing profile; it also\n"
    "  sets finish: zn540 and confznspp pad), time_scale=F (every latency times F),\n"
    "  and overrides of the profile's values: write_cmd_us, read_cmd_us, jitter, seed,\n"
    "  link_mb_s, write_lat_us, read_lat_us, append_us, mgmt_us, write_mb_s, read_mb_s,\n"
    "  channels, dies, zone_channels, page_size, unit_size, read_us, program_us,\n"
    "  xfer_us, wb_units, early_completion, erase_us, erase_block, partial_reset\n"
    "  (docs/device-timing.md).\n"
"\n"
    "Run 'zonekv device <subcommand> --help' for its flags.\n";

// The operation failed: exit code 1.
int Fail(const std::string& cmd, const Status& s) {
  std::fprintf(stderr, "zonekv %s: %s\n", cmd.c_str(), s.ToString().c_str());
  return 1;
}

// A flag value was bad: exit code 2.
int BadFlag(const std::string& cmd, const Status& s) {
  std::fprintf(stderr, "zonekv %s: %s\n", cmd.c_str(), s.ToString().c_str());
  return 2;
}

int UsageError(const std::string& cmd, const std::string& message, const Flags& flags, const char* synopsis) {
  std::fprintf(stderr, "zonekv %s: %s\n\n%s", cmd.c_str(), message.c_str(), flags.Usage(synopsis).c_str());
  return 2;
}

// Parses flags; returns -1 to continue, else the exit code (help or error).
int ParseFlags(Flags* flags, int argc, char** argv, const std::string& cmd, const char* synopsis) {
  bool help = false;
  Status s = flags->Parse(argc, argv, 3, &help);
  if (help) {
    std::printf("%s", flags->Usage(synopsis).c_str());
    return 0;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "zonekv %s: %s\n", cmd.c_str(), s.ToString().c_str());
    return 2;
  }
  return -1;
}

// A bare path means an image file.
Status OpenNamed(const std::string& name, std::unique_ptr<ZonedDevice>* device) {
  const bool has_kind = name.rfind("ram:", 0) == 0 || name.rfind("meta:", 0) == 0 ||
                        name.rfind("file:", 0) == 0 || name.rfind("zbd:", 0) == 0;
  return OpenDevice(has_kind ? name : "file:" + name, device);
}

std::string HumanBytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  uint64_t v = b;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    u++;
  }
  return std::to_string(v) + " " + units[u];
}

int Create(int argc, char** argv) {
  const std::string cmd = "device create";
  const char* synopsis = "PATH [flags]";
  Flags flags(cmd);
  flags.Define("zones", "64", "number of zones");
  flags.Define("zone_size", "64M", "zone size (address space), bytes; K/M/G suffixes");
  flags.Define("zone_cap", "", "writable bytes per zone (default: zone_size)");
  flags.Define("block_size", "4096", "logical block size, bytes");
  flags.Define("max_open", "14", "max open zones (0 = unlimited)");
  flags.Define("max_active", "14", "max active zones (0 = unlimited)");
  flags.Define("force", "false", "overwrite an existing image", true);
  if (int rc = ParseFlags(&flags, argc, argv, cmd, synopsis); rc >= 0) return rc;
  if (flags.positionals().size() != 1) return UsageError(cmd, "expected exactly one PATH", flags, synopsis);
  const std::string path = flags.positionals()[0];

  DeviceGeometry g;
  uint64_t zones, block, max_open, max_active;
  bool force;
  Status s = flags.Uint("zones", &zones);
  if (s.ok()) s = flags.Bytes("zone_size", &g.zone_size_bytes);
  if (s.ok()) s = flags.Bytes("block_size", &block);
  if (s.ok()) s = flags.Uint("max_open", &max_open);
  if (s.ok()) s = flags.Uint("max_active", &max_active);
  if (s.ok()) s = flags.Bool("force", &force);
  g.zone_capacity_bytes = g.zone_size_bytes;
  if (s.ok() && !flags.Str("zone_cap").empty()) s = flags.Bytes("zone_cap", &g.zone_capacity_bytes);
  if (s.ok() && (zones > UINT32_MAX || block > UINT32_MAX || max_open > UINT32_MAX || max_active > UINT32_MAX)) {
    s = Status::InvalidArgument("--zones, --block_size, --max_open and --max_active must fit in 32 bits");
  }
  if (!s.ok()) return BadFlag(cmd, s);
  g.nr_zones = static_cast<uint32_t>(zones);
  g.block_size = static_cast<uint32_t>(block);
  g.max_open_zones = static_cast<uint32_t>(max_open);
  g.max_active_zones = static_cast<uint32_t>(max_active);
  s = EmulatedDevice::CreateImage(path, g, force);
  if (!s.ok()) return Fail(cmd, s);
  std::printf("created %s: %u zones of %s (capacity %s), block %u, max_open %u, max_active %u\n", path.c_str(),
              g.nr_zones, HumanBytes(g.zone_size_bytes).c_str(), HumanBytes(g.zone_capacity_bytes).c_str(),
              g.block_size, g.max_open_zones, g.max_active_zones);
  return 0;
}

int Info(int argc, char** argv) {
  const std::string cmd = "device info";
  const char* synopsis = "DEVICE [--json]";
  Flags flags(cmd);
  flags.Define("json", "false", "print JSON", true);
  if (int rc = ParseFlags(&flags, argc, argv, cmd, synopsis); rc >= 0) return rc;
  if (flags.positionals().size() != 1) return UsageError(cmd, "expected exactly one DEVICE", flags, synopsis);
  bool json;
  Status s = flags.Bool("json", &json);
  if (!s.ok()) return BadFlag(cmd, s);
  std::unique_ptr<ZonedDevice> dev;
  s = OpenNamed(flags.positionals()[0], &dev);
  std::vector<ZoneInfo> zones;
  if (s.ok()) s = dev->ReportZones(0, dev->geometry().nr_zones, &zones);
  if (!s.ok()) return Fail(cmd, s);

  const ZoneState kStates[] = {ZoneState::kEmpty,  ZoneState::kImplicitOpen, ZoneState::kExplicitOpen,
                               ZoneState::kClosed, ZoneState::kFull,         ZoneState::kReadOnly,
                               ZoneState::kOffline};
  uint64_t written = 0, resets = 0, max_resets = 0;
  for (const ZoneInfo& z : zones) {
    written += z.written_bytes();
    resets += z.reset_count;
    max_resets = std::max(max_resets, z.reset_count);
  }
  const DeviceGeometry& g = dev->geometry();
  if (json) {
    Json j = Json::Object();
    j.Set("name", dev->name()).Set("geometry", g.ToJson());
    Json states = Json::Object();
    for (ZoneState st : kStates) {
      auto n = std::count_if(zones.begin(), zones.end(), [&](auto& z) { return z.state == st; });
      states.Set(ZoneStateName(st), static_cast<uint64_t>(n));
    }
    j.Set("zones", states).Set("written_bytes", written).Set("resets", resets).Set("max_zone_resets", max_resets);
    std::printf("%s\n", j.Dump(2).c_str());
    return 0;
  }
  std::printf("device:      %s\n", dev->name().c_str());
  std::printf("zones:       %u x %s (capacity %s), block size %u\n", g.nr_zones, HumanBytes(g.zone_size_bytes).c_str(),
              HumanBytes(g.zone_capacity_bytes).c_str(), g.block_size);
  std::printf("size:        %s addressable, %s writable\n", HumanBytes(g.device_bytes()).c_str(),
              HumanBytes(g.capacity_bytes()).c_str());
  auto limit = [](uint32_t v) { return v == 0 ? std::string("unlimited") : std::to_string(v); };
  std::printf("limits:      max_open %s, max_active %s\n", limit(g.max_open_zones).c_str(),
              limit(g.max_active_zones).c_str());
  std::printf("states:     ");
  for (ZoneState st : kStates) {
    auto n = std::count_if(zones.begin(), zones.end(), [&](auto& z) { return z.state == st; });
    if (n > 0) std::printf(" %s %ld", ZoneStateName(st), static_cast<long>(n));
  }
  std::printf("\nwritten:     %llu bytes (%.1f%% of capacity)\n", static_cast<unsigned long long>(written),
              100.0 * static_cast<double>(written) / static_cast<double>(g.capacity_bytes()));
  std::printf("wear:        %llu resets in total, at most %llu in one zone\n",
              static_cast<unsigned long long>(resets), static_cast<unsigned long long>(max_resets));
  return 0;
}

// blkzone's abbreviations of the zone conditions.
const char* CondAbbrev(ZoneState s) {
  switch (s) {
    case ZoneState::kEmpty: return "em";
    case ZoneState::kImplicitOpen: return "oi";
    case ZoneState::kExplicitOpen: return "oe";
    case ZoneState::kClosed: return "cl";
    case ZoneState::kReadOnly: return "ro";
    case ZoneState::kFull: return "fu";
    case ZoneState::kOffline: return "of";
  }
  return "??";
}

int Report(int argc, char** argv) {
  const std::string cmd = "device report";
  const char* synopsis = "DEVICE [--zone=N] [--count=N] [--json]";
  Flags flags(cmd);
  flags.Define("zone", "0", "first zone to report");
  flags.Define("count", "0", "number of zones to report (0 = all from --zone on)");
  flags.Define("json", "false", "print JSON (byte offsets) instead of blkzone-style lines (512-byte sectors)", true);
  if (int rc = ParseFlags(&flags, argc, argv, cmd, synopsis); rc >= 0) return rc;
  if (flags.positionals().size() != 1) return UsageError(cmd, "expected exactly one DEVICE", flags, synopsis);
  uint64_t first, count;
  bool json;
  Status s = flags.Uint("zone", &first);
  if (s.ok()) s = flags.Uint("count", &count);
  if (s.ok()) s = flags.Bool("json", &json);
  if (!s.ok()) return BadFlag(cmd, s);
  std::unique_ptr<ZonedDevice> dev;
  s = OpenNamed(flags.positionals()[0], &dev);
  if (!s.ok()) return Fail(cmd, s);
  const uint32_t nr = dev->geometry().nr_zones;
  if (first >= nr) {
    return BadFlag(cmd, Status::InvalidArgument("--zone " + std::to_string(first) + " does not exist (device has " +
                                             std::to_string(nr) + " zones)"));
  }
  if (count == 0 || count > nr - first) count = nr - first;
  std::vector<ZoneInfo> zones;
  s = dev->ReportZones(static_cast<uint32_t>(first), static_cast<uint32_t>(count), &zones);
  if (!s.ok()) return Fail(cmd, s);
  if (json) {
    Json arr = Json::Array();
    for (const ZoneInfo& z : zones) {
      Json j = Json::Object();
      j.Set("zone", z.id)
          .Set("start", z.start_bytes)
          .Set("len", z.size_bytes)
          .Set("cap", z.capacity_bytes)
          .Set("wptr", z.written_bytes())
          .Set("cond", ZoneStateName(z.state))
          .Set("resets", z.reset_count);
      arr.Push(std::move(j));
    }
    std::printf("%s\n", arr.Dump(2).c_str());
    return 0;
  }
  for (const ZoneInfo& z : zones) {
    std::printf("  start: 0x%09llx, len 0x%06llx, cap 0x%06llx, wptr 0x%06llx resets:%llu, zcond:%2d(%s) [%s]\n",
                static_cast<unsigned long long>(z.start_bytes / 512),
                static_cast<unsigned long long>(z.size_bytes / 512),
                static_cast<unsigned long long>(z.capacity_bytes / 512),
                static_cast<unsigned long long>(z.written_bytes() / 512),
                static_cast<unsigned long long>(z.reset_count), static_cast<int>(z.state), CondAbbrev(z.state),
                ZoneStateName(z.state));
  }
  return 0;
}

// --- bench ----------------------------------------------------------------

int Bench(int argc, char** argv) {
  const std::string cmd = "device bench";
  const char* synopsis = "--device=SPEC [--json=FILE] [--quick] [--mode=wall|model] [--anchors=PROFILE]";
  Flags flags(cmd);
  flags.Define("device", "",
               "the device to measure (any spec; it is reset and written). The ZN540's anchors hold for its "
               "geometry: meta:zones=16,zone_size=2G,zone_cap=1077M,max_open=14,timing=zn540");
  flags.Define("json", "", "also write the figures as JSON to this file");
  flags.Define("quick", "false", "a quarter of the commands per figure", true);
  flags.Define("mode", "wall",
               "wall: real commands timed by the clock; model: the device's timing model in modelled time "
               "(deterministic, emulated devices only)");
  flags.Define("anchors", "", "profile whose published figures to compare with (default: the device's timing profile)");
  flags.Define("seed", "1", "seed of the random read offsets");
  if (int rc = ParseFlags(&flags, argc, argv, cmd, synopsis); rc >= 0) return rc;
  if (!flags.positionals().empty()) return UsageError(cmd, "takes no positional arguments", flags, synopsis);
  if (flags.Str("device").empty()) return UsageError(cmd, "--device is required", flags, synopsis);
  const std::string mode = flags.Str("mode");
  if (mode != "wall" && mode != "model") {
    return BadFlag(cmd, Status::InvalidArgument("--mode '" + mode + "' is not wall or model"));
  }
  BenchOptions options;
  Status s = flags.Bool("quick", &options.quick);
  if (s.ok()) s = flags.Uint("seed", &options.seed);
  if (!s.ok()) return BadFlag(cmd, s);

  std::unique_ptr<ZonedDevice> dev;
  s = OpenNamed(flags.Str("device"), &dev);
  if (!s.ok()) return BadFlag(cmd, s);
  auto* emu = dynamic_cast<EmulatedDevice*>(dev.get());
  const TimingOptions timing = emu != nullptr ? emu->options().timing : TimingOptions();
  std::string profile = flags.Str("anchors").empty() ? timing.profile : flags.Str("anchors");
  if (!flags.Str("anchors").empty()) {
    TimingOptions unused;
    FinishModel f;
    s = TimingOptions::Profile(profile, &unused, &f);
    if (!s.ok()) return BadFlag(cmd, Status::InvalidArgument("--anchors: " + s.message()));
  }
  if (emu != nullptr && !timing.enabled) {
    return BadFlag(cmd, Status::InvalidArgument("--device has no timing model: add timing=<profile> (" +
                                                std::string(TimingOptions::ProfileNames()) + ")"));
  }
  std::vector<BenchMeasure> measures;
  if (mode == "model") {
    if (emu == nullptr) return BadFlag(cmd, Status::InvalidArgument("--mode=model needs an emulated device"));
    s = ModelDeviceBench(timing, emu->options().finish, dev->geometry(), options, &measures);
  } else {
    s = RunDeviceBench(dev.get(), profile, emu != nullptr ? timing.time_scale : 1.0, options, &measures);
  }
  if (!s.ok()) return Fail(cmd, s);

  std::printf("device %s, anchors of profile %s, %s time%s\n", flags.Str("device").c_str(),
              profile.empty() ? "(none)" : profile.c_str(), mode == "model" ? "modelled" : "wall",
              emu != nullptr && timing.time_scale != 1 ? (", time_scale " + std::to_string(timing.time_scale) +
                                                          " (figures in device time)")
                                                             .c_str()
                                                       : "");
  std::printf("%-22s %10s %10s %7s  %-6s %s\n", "measure", "value", "anchor", "ratio", "unit", "workload");
  Json mj = Json::Object();
  for (const BenchMeasure& m : measures) {
    char anchor[32] = "n/p", ratio[32] = "-";
    if (m.has_anchor) {
      std::snprintf(anchor, sizeof(anchor), "%.4g", m.anchor);
      std::snprintf(ratio, sizeof(ratio), "%.3f", m.ratio());
    }
    std::printf("%-22s %10.4g %10s %7s  %-6s %s\n", m.name.c_str(), m.value, anchor, ratio, m.unit.c_str(),
                m.what.c_str());
    mj.Set(m.name, m.ToJson());
  }
  std::printf("n/p: no source publishes this figure for the profile (see the JSON's source fields)\n");
  if (!flags.Str("json").empty()) {
    Json out = Json::Object();
    out.Set("device", flags.Str("device"))
        .Set("name", dev->name())
        .Set("geometry", dev->geometry().ToJson())
        .Set("anchors", profile)
        .Set("mode", mode)
        .Set("quick", options.quick)
        .Set("timing", timing.ToJson())
        .Set("measures", mj)
        .Set("counters", dev->counters().ToJson());
    if (Status s = WriteJson(flags.Str("json"), out); !s.ok()) return Fail(cmd, s);
  }
  return 0;
}

}  // namespace

int DeviceCommand(int argc, char** argv) {
  return RunSubcommand("device", kDeviceUsage,
                       {{"create", Create}, {"info", Info}, {"report", Report}, {"bench", Bench}}, argc, argv);
}

}  // namespace zonekv
