// Equality of metadata states for the fuzz targets' round-trip checks.
#pragma once

#include "metadata.h"

namespace zonekv {
namespace fuzz {

inline bool SameHints(const FileHints& a, const FileHints& b) {
  return a.kind == b.kind && a.number == b.number && a.level == b.level && a.job == b.job &&
         a.smallest_key == b.smallest_key && a.largest_key == b.largest_key && a.lifetime == b.lifetime;
}

inline bool SameFile(const FileMeta& a, const FileMeta& b) {
  return a.id == b.id && a.name == b.name && a.size_bytes == b.size_bytes && a.mtime_s == b.mtime_s &&
         SameHints(a.hints, b.hints) && a.extents == b.extents;
}

inline bool SameState(const MetaState& a, const MetaState& b) {
  if (a.next_file_id != b.next_file_id || a.dirs != b.dirs || a.files.size() != b.files.size()) return false;
  for (auto ia = a.files.begin(), ib = b.files.begin(); ia != a.files.end(); ++ia, ++ib) {
    if (ia->first != ib->first || !SameFile(ia->second, ib->second)) return false;
  }
  return true;
}

}  // namespace fuzz
}  // namespace zonekv
