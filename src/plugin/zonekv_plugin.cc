// libzonekv.so: registers `zonekv://` (zonekv/plugin.h) in RocksDB's object
// registry when the library is loaded, so that stock RocksDB tools given
// --fs_uri=zonekv://... open zonekv. Loaded into an unmodified tool with
// LD_PRELOAD (`zonekv run` does it); RocksDB 7.8 has no plugin loader.
//
// One mount per device per process: every FileSystem the registry makes for
// the same device shares it (two mounts of one device would corrupt it).
// The mount ends when the last of them is destroyed, which syncs.
#include <map>
#include <memory>

#include <rocksdb/file_system.h>
#include <rocksdb/utilities/object_registry.h>

#include "zonekv/mutex.h"
#include "zonekv/plugin.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

namespace {

// The FileSystem the registry hands out: zonekv's adapter, keeping its
// mount alive.
class PluginFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit PluginFileSystem(std::shared_ptr<ZoneFs> fs)
      : rocksdb::FileSystemWrapper(fs->file_system()), fs_(std::move(fs)) {}
  const char* Name() const override { return "zonekv"; }

 private:
  const std::shared_ptr<ZoneFs> fs_;
};

Mutex mounts_mu;
std::map<std::string, std::weak_ptr<ZoneFs>>* const mounts ZONEKV_PT_GUARDED_BY(mounts_mu) =
    new std::map<std::string, std::weak_ptr<ZoneFs>>();  // by spec

Status MountFor(const PluginUri& p, std::shared_ptr<ZoneFs>* out) {
  MutexLock l(&mounts_mu);
  // The device file, without its runtime keys, names the mount.
  const std::string key = p.device_spec.substr(0, p.device_spec.find(','));
  if (auto fs = (*mounts)[key].lock()) {
    if (fs->options().ToJson().Dump() != p.fs.ToJson().Dump()) {
      return Status::InvalidArgument(key + " is already mounted in this process with other file-system options");
    }
    *out = std::move(fs);
    return Status::OK();
  }
  std::unique_ptr<ZonedDevice> dev;
  ZONEKV_RETURN_IF_ERROR(OpenDevice(p.device_spec, &dev));
  ZONEKV_RETURN_IF_ERROR(ZoneFs::Mount(std::move(dev), p.fs, out));
  (*mounts)[key] = *out;
  return Status::OK();
}

rocksdb::FileSystem* NewZonekvFileSystem(const std::string& uri, std::unique_ptr<rocksdb::FileSystem>* guard,
                                         std::string* errmsg) {
  PluginUri p;
  Status s = ParsePluginUri(uri, &p);
  std::shared_ptr<ZoneFs> fs;
  if (!s.ok()) {
    *errmsg = "zonekv: " + s.ToString();
    return nullptr;
  }
  s = MountFor(p, &fs);
  if (!s.ok()) {
    *errmsg = "zonekv: " + p.device_spec + ": " + s.ToString() +
              " (a new image needs 'zonekv device create' and 'zonekv fs mkfs' first)";
    return nullptr;
  }
  guard->reset(new PluginFileSystem(std::move(fs)));
  return guard->get();
}

struct Registration {
  Registration() {
    rocksdb::ObjectLibrary::Default()->AddFactory<rocksdb::FileSystem>(
        rocksdb::ObjectLibrary::PatternEntry("zonekv", false).AddSeparator("://"), NewZonekvFileSystem);
  }
} registration;

}  // namespace

}  // namespace zonekv

// For `zonekv run`: present iff this library is loaded (dlsym checks it).
extern "C" __attribute__((visibility("default"))) int zonekv_plugin_version() { return 1; }
