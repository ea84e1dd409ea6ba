// The `zonekv://` FileSystem URI, for stock RocksDB tools (db_bench, ldb,
// sst_dump) through libzonekv.so (src/plugin).
//
//   zonekv://DEVICE[?KEY:VALUE[,KEY:VALUE...]]
//
// DEVICE is an image path (`zonekv device create` + `zonekv fs mkfs`),
// `file:PATH` or `zbd:/dev/nvmeXnY`; a `ram:`/`meta:` device would not
// outlive the process and is refused. KEYs:
//   scheme          the file-system policies of a `zonekv bench` scheme
//                   (default: coop; its RocksDB-side parts, Z_Cutoff, the
//                   space-pressure blob GC and the external compactor, need
//                   `zonekv bench`; without `zonekv bench`'s hints listener
//                   CAZA has no levels and places SSTs as LIZA does)
//   any file-system knob of `zonekv bench` (alloc, zc, reset, ..., emergency_zc),
//                   applied after the scheme
//   timing, time_scale, finish, auto_close   the emulated device's runtime keys
// `:` separates a key from its value because RocksDB reads a `=` in
// --fs_uri as an options map.
#pragma once

#include <string>
#include <vector>

#include "zonekv/status.h"
#include "zonekv/zonefs.h"

namespace zonekv {

struct PluginUri {
  std::string device_spec;  // for OpenDevice: "file:PATH[,timing=...]" or "zbd:..."
  std::string scheme = "coop";
  ZoneFsOptions fs;         // the scheme's file-system knobs, then the URI's
};

// InvalidArgument naming what is wrong (the URI is in every message).
Status ParsePluginUri(const std::string& uri, PluginUri* out);

}  // namespace zonekv
