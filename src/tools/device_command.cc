// `zonekv device`: create, inspect and benchmark emulated ZNS SSDs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
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
    "  bench          throughput and latency of the emulator and its timing model\n"
    "\n"
    "DEVICE is an image path or a device spec:\n"
    "  file:PATH[,runtime keys]    an image made by `zonekv device create`\n"
    "  ram:zones=64,zone_size=64M[,zone_cap=..,block_size=4096,max_open=..,max_active=..]\n"
    "  meta:<same keys>            metadata only: no payload, reads return zeros\n"
    "  zbd:/dev/nvme0n1            a Linux host-managed zoned block device (mq-deadline)\n"
    "Runtime keys (any kind): auto_close=0|1 (default 1), finish=free|pad,\n"
    "  timing=none|confzns and, with confzns, channels, dies, planes, page_size,\n"
    "  read_us, program_us, xfer_us, erase_us, zone_channels, time_scale\n"
    "  (preset: 8 channels x 2 dies, 16K pages, 65/450/25 us read/program/transfer,\n"
    "  2000 us erase; time_scale multiplies every latency).\n"
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

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Writes then reads `total` bytes sequentially in `io`-byte commands, zone
// after zone (resetting each zone first). Returns bytes/s of each phase.
Status SequentialPass(ZonedDevice* dev, uint64_t total, uint64_t io, double* write_bps, double* read_bps) {
  const DeviceGeometry& g = dev->geometry();
  std::vector<char> buf(io);
  for (size_t i = 0; i < buf.size(); i++) buf[i] = static_cast<char>(i * 131 + 7);
  const uint64_t per_zone = g.zone_capacity_bytes / io * io;
  if (per_zone == 0) return Status::InvalidArgument("--io_size " + std::to_string(io) + " exceeds the zone capacity");
  const uint64_t zones_needed = (total + per_zone - 1) / per_zone;
  if (zones_needed > g.nr_zones) {
    return Status::InvalidArgument("--bytes " + std::to_string(total) + " does not fit on the device (" +
                                   std::to_string(g.nr_zones * per_zone) + " bytes usable)");
  }
  for (uint32_t z = 0; z < zones_needed; z++) ZONEKV_RETURN_IF_ERROR(dev->ResetZone(z));
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t done = 0; done < total; done += io) {
    uint64_t z = done / per_zone, off = z * g.zone_size_bytes + done % per_zone;
    ZONEKV_RETURN_IF_ERROR(dev->Write(off, buf.data(), io));
  }
  *write_bps = static_cast<double>(total) / Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  for (uint64_t done = 0; done < total; done += io) {
    uint64_t z = done / per_zone, off = z * g.zone_size_bytes + done % per_zone;
    ZONEKV_RETURN_IF_ERROR(dev->Read(off, io, buf.data()));
  }
  *read_bps = static_cast<double>(total) / Seconds(t0);
  return Status::OK();
}

int Bench(int argc, char** argv) {
  const std::string cmd = "device bench";
  const char* synopsis = "[flags]";
  Flags flags(cmd);
  flags.Define("ram_bytes", "1G", "bytes written then read on the RAM device without timing");
  flags.Define("ram_io_size", "1M", "command size on the RAM device");
  flags.Define("timed_bytes", "64M", "bytes written then read per command size on the confzns device");
  flags.Define("timed_io_sizes", "16K,128K,1M,4M,16M", "command sizes tried on the confzns device");
  flags.Define("reads", "2000", "page-sized (16 KiB) reads timed one at a time on the confzns device");
  flags.Define("timed_spec", "ram:zones=8,zone_size=64M,timing=confzns",
               "the timed device (any spec with timing=confzns)");
  flags.Define("json", "false", "print JSON", true);
  if (int rc = ParseFlags(&flags, argc, argv, cmd, synopsis); rc >= 0) return rc;
  if (!flags.positionals().empty()) return UsageError(cmd, "takes no positional arguments", flags, synopsis);
  uint64_t ram_bytes, ram_io, timed_bytes, reads;
  bool json;
  Status s = flags.Bytes("ram_bytes", &ram_bytes);
  if (s.ok()) s = flags.Bytes("ram_io_size", &ram_io);
  if (s.ok()) s = flags.Bytes("timed_bytes", &timed_bytes);
  if (s.ok()) s = flags.Uint("reads", &reads);
  if (s.ok()) s = flags.Bool("json", &json);
  std::vector<uint64_t> io_sizes;
  for (size_t pos = 0; s.ok() && pos <= flags.Str("timed_io_sizes").size();) {
    const std::string& list = flags.Str("timed_io_sizes");
    size_t comma = std::min(list.find(',', pos), list.size());
    uint64_t v = 0;
    s = ParseBytes(list.substr(pos, comma - pos), &v);
    if (!s.ok()) s = Status::InvalidArgument("--timed_io_sizes: " + s.message());
    io_sizes.push_back(v);
    pos = comma + 1;
  }
  if (s.ok() && (ram_io == 0 || ram_bytes % ram_io != 0 || ram_io % 4096 != 0)) {
    s = Status::InvalidArgument("--ram_bytes must be a multiple of --ram_io_size, itself a multiple of 4096");
  }
  for (uint64_t io : io_sizes) {
    if (s.ok() && (io == 0 || io % 4096 != 0 || timed_bytes % io != 0)) {
      s = Status::InvalidArgument("--timed_io_sizes: " + std::to_string(io) +
                                  " must be a multiple of 4096 dividing --timed_bytes");
    }
  }
  if (!s.ok()) return BadFlag(cmd, s);
  Json out = Json::Object();

  // 1. RAM, no timing: memcpy speed, once into fresh memory (page faults)
  // and once more into the same zones after resetting them.
  {
    const uint64_t zone = 256ull << 20;
    const uint64_t zones = std::max<uint64_t>((ram_bytes + zone - 1) / zone, 1);
    std::unique_ptr<ZonedDevice> dev;
    s = OpenDevice("ram:zones=" + std::to_string(zones) + ",zone_size=256M", &dev);
    double w1 = 0, r1 = 0, w2 = 0, r2 = 0;
    if (s.ok()) s = SequentialPass(dev.get(), ram_bytes, ram_io, &w1, &r1);
    if (s.ok()) s = SequentialPass(dev.get(), ram_bytes, ram_io, &w2, &r2);
    if (!s.ok()) return Fail(cmd, s);
    Json j = Json::Object();
    j.Set("bytes", ram_bytes)
        .Set("io_size", ram_io)
        .Set("first_write_gb_s", w1 / 1e9)
        .Set("write_gb_s", w2 / 1e9)
        .Set("read_gb_s", r2 / 1e9);
    out.Set("ram", j);
    if (!json) {
      std::printf("RAM backing, timing none, one thread, %s in %s commands:\n", HumanBytes(ram_bytes).c_str(),
                  HumanBytes(ram_io).c_str());
      std::printf("  sequential write %7.2f GB/s (first touch of the memory: %.2f GB/s)\n", w2 / 1e9, w1 / 1e9);
      std::printf("  sequential read  %7.2f GB/s\n\n", r2 / 1e9);
    }
  }

  // 2. The timed device: bandwidth per command size against the model.
  std::unique_ptr<ZonedDevice> dev;
  s = OpenDevice(flags.Str("timed_spec"), &dev);
  if (!s.ok()) return Fail(cmd, s);
  auto* emu = dynamic_cast<EmulatedDevice*>(dev.get());
  if (emu == nullptr || !emu->options().timing.enabled) {
    return BadFlag(cmd, Status::InvalidArgument("--timed_spec must be an emulated device with timing=confzns"));
  }
  const TimingOptions& t = emu->options().timing;
  const double model_w = t.ZoneWriteBandwidth(), model_r = t.ZoneReadBandwidth();
  if (!json) {
    std::printf("%s: %u ch x %u dies x %u planes, %llu B pages, zone over %u channels, time_scale %g\n",
                flags.Str("timed_spec").c_str(), t.channels, t.dies, t.planes,
                static_cast<unsigned long long>(t.page_size_bytes), t.zone_channels, t.time_scale);
    std::printf("  theoretical bandwidth of one zone: write %.1f MB/s, read %.1f MB/s\n", model_w / 1e6,
                model_r / 1e6);
    std::printf("  one command at a time; 'model' = io_size / modelled latency of one command on an idle device\n");
    std::printf("  %-9s %11s %11s %7s %8s %11s %11s %7s %8s\n", "io_size", "write MB/s", "model MB/s", "ratio",
                "of theor", "read MB/s", "model MB/s", "ratio", "of theor");
  }
  Json sizes = Json::Array();
  for (uint64_t io : io_sizes) {
    double w = 0, r = 0;
    s = SequentialPass(dev.get(), timed_bytes, io, &w, &r);
    if (!s.ok()) return Fail(cmd, s);
    const DeviceGeometry& g = dev->geometry();
    const double cmd_w = static_cast<double>(io) / t.IdleCommandUs(g, true, io);   // bytes per us = MB/s
    const double cmd_r = static_cast<double>(io) / t.IdleCommandUs(g, false, io);
    Json j = Json::Object();
    j.Set("io_size", io)
        .Set("write_mb_s", w / 1e6)
        .Set("write_model_mb_s", cmd_w)
        .Set("read_mb_s", r / 1e6)
        .Set("read_model_mb_s", cmd_r);
    sizes.Push(std::move(j));
    if (!json) {
      std::printf("  %-9s %11.1f %11.1f %7.3f %7.1f%% %11.1f %11.1f %7.3f %7.1f%%\n", HumanBytes(io).c_str(), w / 1e6,
                  cmd_w, w / 1e6 / cmd_w, 100 * w / model_w, r / 1e6, cmd_r, r / 1e6 / cmd_r, 100 * r / model_r);
    }
  }

  // 3. Page read latency on the idle device (one read at a time).
  std::vector<double> lat_us;
  std::vector<char> buf(t.page_size_bytes);
  const uint64_t pages = std::max<uint64_t>(timed_bytes / buf.size(), 1);
  for (uint64_t i = 0; i < reads; i++) {
    auto t0 = std::chrono::steady_clock::now();
    s = dev->Read((i * 7919 % pages) * buf.size(), buf.size(), buf.data());
    if (!s.ok()) return Fail(cmd, s);
    lat_us.push_back(Seconds(t0) * 1e6);
  }
  std::sort(lat_us.begin(), lat_us.end());
  double mean = 0;
  for (double v : lat_us) mean += v / static_cast<double>(lat_us.size());
  auto pct = [&](double p) { return lat_us.empty() ? 0.0 : lat_us[static_cast<size_t>(p * (lat_us.size() - 1))]; };
  const double model_lat = t.IdlePageReadUs();
  Json timed = Json::Object();
  timed.Set("spec", flags.Str("timed_spec"))
      .Set("timing", t.ToJson())
      .Set("model_write_mb_s", model_w / 1e6)
      .Set("model_read_mb_s", model_r / 1e6)
      .Set("sizes", sizes)
      .Set("page_read_bytes", t.page_size_bytes)
      .Set("page_read_model_us", model_lat)
      .Set("page_read_mean_us", mean)
      .Set("page_read_p50_us", pct(0.5))
      .Set("page_read_p99_us", pct(0.99));
  out.Set("confzns", timed);
  if (json) {
    std::printf("%s\n", out.Dump(2).c_str());
    return 0;
  }
  std::printf("  %s page read on an idle device, %llu reads: model %.1f us, measured mean %.1f us, p50 %.1f us, "
              "p99 %.1f us\n",
              HumanBytes(t.page_size_bytes).c_str(), static_cast<unsigned long long>(reads), model_lat, mean, pct(0.5),
              pct(0.99));
  return 0;
}

}  // namespace

int DeviceCommand(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "%s", kDeviceUsage);
    return 2;
  }
  const std::string sub = argv[2];
  if (sub == "--help" || sub == "-h" || sub == "help") {
    std::printf("%s", kDeviceUsage);
    return 0;
  }
  if (sub == "create") return Create(argc, argv);
  if (sub == "info") return Info(argc, argv);
  if (sub == "report") return Report(argc, argv);
  if (sub == "bench") return Bench(argc, argv);
  std::fprintf(stderr, "zonekv device: unknown subcommand '%s'\n\n%s", sub.c_str(), kDeviceUsage);
  return 2;
}

}  // namespace zonekv
