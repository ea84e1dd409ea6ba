// Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from
// zonekv's own encoders, so that every seed is a valid input that reaches
// deep into its decoder. Usage: make_fuzz_corpus DIR (DIR/<target>/ must exist
// or be creatable).
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "image_format.h"
#include "journal.h"
#include "metadata.h"
#include "zonekv/ftl.h"

using namespace zonekv;

namespace {

std::string g_dir;

void Write(const std::string& target, const std::string& name, const std::string& bytes) {
  const std::string dir = g_dir + "/" + target;
  mkdir(dir.c_str(), 0755);
  std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) std::fprintf(stderr, "cannot write %s/%s\n", dir.c_str(), name.c_str());
}

FileMeta File(uint64_t id, const std::string& name, std::vector<Extent> extents) {
  FileMeta f;
  f.id = id;
  f.name = name;
  f.extents = std::move(extents);
  for (const auto& e : f.extents) f.size_bytes += e.length_bytes;
  f.mtime_s = 1700000000 + id;
  f.hints.kind = FileKind::kSst;
  f.hints.number = id;
  f.hints.level = 1;
  f.hints.job = 7;
  f.hints.smallest_key = "a";
  f.hints.largest_key = "z";
  f.hints.lifetime = Lifetime::kMedium;
  return f;
}

MetaState SmallState() {
  MetaState st;
  st.next_file_id = 4;
  st.dirs = {"/db"};
  st.files[1] = File(1, "/db/000001.sst", {{3, 0, 4096}});
  st.files[2] = File(2, "/db/000002.sst", {{4, 0, 8192}});
  st.files[3] = File(3, "/db/000003.sst", {{5, 0, 12288}});
  return st;
}

std::string Edits() {
  EditBatch b;
  b.CreateFile(File(4, "/db/000004.blob", {{6, 0, 1000}}));
  b.SetTail(1, 4096 + 5000, 1700000100, 1, {{7, 4096, 5000}}, 0);
  b.ReplaceExtents(2, {{8, 0, 4096}, {9, 0, 4096}});
  FileHints h;
  h.kind = FileKind::kBlob;
  h.lifetime = Lifetime::kLong;
  b.SetHints(3, h);
  b.Rename(3, "/db/MANIFEST-000003");
  b.DeleteFile(4);
  b.CreateDir("/db/archive");
  b.DeleteDir("/db/archive");
  return b.data();
}

std::string Superblock1() {
  Superblock sb;
  sb.sequence = 3;
  sb.block_size = 512;
  sb.zone_size_bytes = 1 << 20;
  sb.zone_capacity_bytes = 1 << 20;
  sb.nr_zones = 16;
  sb.meta_zones = 2;
  return sb.Encode();
}

// A metadata zone as the journal writes it.
std::string Zone(uint32_t bs, bool with_end) {
  std::string z = EncodeRecord(RecordType::kSuperblock, Superblock1(), bs);
  z += EncodeRecord(RecordType::kSnapshot, SmallState().EncodeSnapshot(), bs);
  z += EncodeRecord(RecordType::kEdits, Edits(), bs);
  if (with_end) z += EncodeRecord(RecordType::kEnd, "", bs);
  return z;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_corpus DIR\n");
    return 2;
  }
  g_dir = argv[1];
  mkdir(g_dir.c_str(), 0755);

  Write("superblock", "sb", Superblock1());
  Superblock big;
  big.sequence = 1ull << 40;
  big.block_size = 4096;
  big.zone_size_bytes = 2ull << 30;
  big.zone_capacity_bytes = 1077ull << 20;
  big.nr_zones = 3688;
  big.meta_zones = 3;
  Write("superblock", "sb-zn540", big.Encode());

  Write("journal_record", "zone-512", std::string(1, '\0') + Zone(512, true));
  Write("journal_record", "zone-4k", std::string(1, '\3') + Zone(4096, false));

  Write("journal_replay", "zone", std::string(1, '\0') + Zone(512, false));
  Write("journal_replay", "zone-end-full", std::string(1, '\4') + Zone(512, true) + std::string(2048, '\0'));
  std::string torn = Zone(512, false);
  torn += EncodeRecord(RecordType::kEdits, Edits(), 512).substr(0, 100);
  Write("journal_replay", "zone-torn-tail", std::string(1, '\0') + torn);

  Write("meta_edits", "snapshot", std::string(1, '\0') + SmallState().EncodeSnapshot());
  Write("meta_edits", "snapshot-empty", std::string(1, '\0') + MetaState().EncodeSnapshot());
  Write("meta_edits", "edits", std::string(1, '\1') + Edits());

  DeviceGeometry g;
  g.block_size = 4096;
  g.zone_size_bytes = 2 << 20;
  g.zone_capacity_bytes = 1 << 20;
  g.nr_zones = 4;
  g.max_open_zones = 2;
  g.max_active_zones = 3;
  std::string img(image::kHeaderBytes + 4 * image::kEntryBytes, '\0');
  image::EncodeHeader(g, img.data());
  const PersistedZone zones[4] = {{ZoneState::kEmpty, 0, 0},
                                  {ZoneState::kClosed, 8192, 2},
                                  {ZoneState::kFull, 1 << 20, 5},
                                  {ZoneState::kOffline, 0, 9}};
  for (uint32_t z = 0; z < 4; z++) image::EncodeEntry(z, zones[z], img.data() + image::kHeaderBytes + z * image::kEntryBytes);
  Write("image_header", "image", img);
  img.resize(image::kHeaderBytes);
  Write("image_header", "header-only", img);
  // Regression: zones x zone_size beyond 2^64 (tests/device/image_test.cc).
  g.nr_zones = UINT32_MAX;
  g.zone_size_bytes = g.zone_capacity_bytes = uint64_t{1} << 62;
  g.max_open_zones = g.max_active_zones = 0;
  image::EncodeHeader(g, img.data());
  Write("image_header", "regression-wrapped-geometry", img);

  Write("device_spec", "geometry", std::string(1, '\0') + "zones=8,zone_size=1M");
  Write("device_spec", "limits", std::string(1, '\0') + "zones=16,zone_size=64M,zone_cap=48M,max_open=4,max_active=6,block_size=4K,auto_close=1,finish=pad");
  Write("device_spec", "timing", std::string(1, '\0') + "zones=4,zone_size=1M,timing=confzns,erase_us=100,partial_reset=1,channels=4,time_scale=0.5");
  Write("device_spec", "runtime", std::string(1, '\1') + "timing=zn540,time_scale=0,write_mb_s=900,jitter=0,seed=7");

  std::string trace;
  TraceRecord r;
  r.timestamp = 128166372003061629ull;
  r.is_write = true;
  r.offset_bytes = 4096;
  r.size_bytes = 8192;
  trace += FormatMsrLine(r) + "\n";
  r.is_write = false;
  r.timestamp += 10000;
  r.offset_bytes = 1ull << 30;
  trace += FormatMsrLine(r) + "\r\n\n";
  trace += "128166372016382155,hm,0,Read,3154101760,16384,3876\n";
  Write("msr_trace", "trace", trace);

  const std::string nul(1, '\0');
  Write("zbd_sysfs", "zn540",
        "host-managed\n" + nul + "[mq-deadline] kyber bfq none\n" + nul + "4096\n" + nul + "4194304\n" + nul +
            "3688\n" + nul + "14\n" + nul + "14\n");
  Write("zbd_sysfs", "qemu",
        "host-managed\n" + nul + "[mq-deadline] none\n" + nul + "512\n" + nul + "2048\n" + nul + "64\n" + nul +
            "0\n" + nul + "0\n");
  Write("zbd_sysfs", "none", "none\n" + nul + "[none] mq-deadline\n");

  Write("flags", "flags", "--num=5" + nul + "--size" + nul + "64KiB" + nul + "pos" + nul + "--verbose" + nul + "--ratio=0.25");
  Write("flags", "help", "bench" + nul + "--name=x" + nul + "-h" + nul + "--" + nul + "--old=3");
  return 0;
}
