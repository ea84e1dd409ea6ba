#include <cstring>

#include "zonekv/fs_policy.h"

namespace zonekv {

const char* FileKindName(FileKind k) {
  switch (k) {
    case FileKind::kWal: return "wal";
    case FileKind::kSst: return "sst";
    case FileKind::kBlob: return "blob";
    case FileKind::kManifest: return "manifest";
    case FileKind::kOther: return "other";
  }
  return "other";
}

namespace {
// Parses the decimal number made of all of `digits`; false if empty or not all digits.
bool AllDigits(const std::string& digits, uint64_t* number) {
  if (digits.empty()) return false;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *number = n;
  return true;
}
}  // namespace

FileKind FileKindFromName(const std::string& path, uint64_t* number) {
  *number = 0;
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.rfind("MANIFEST-", 0) == 0) {
    AllDigits(name.substr(9), number);
    return FileKind::kManifest;
  }
  size_t dot = name.rfind('.');
  if (dot == std::string::npos) return FileKind::kOther;
  std::string ext = name.substr(dot + 1);
  uint64_t n = 0;
  if (!AllDigits(name.substr(0, dot), &n)) return FileKind::kOther;
  FileKind kind = FileKind::kOther;
  if (ext == "sst") kind = FileKind::kSst;
  else if (ext == "blob") kind = FileKind::kBlob;
  else if (ext == "log") kind = FileKind::kWal;
  else return FileKind::kOther;
  *number = n;
  return kind;
}

uint64_t FsView::free_bytes() const {
  uint64_t b = 0;
  for (const auto& z : zones) {
    if (z.state != ZoneState::kOffline && z.state != ZoneState::kReadOnly) b += z.remaining_bytes();
  }
  return b;
}

uint32_t FsView::empty_zones() const {
  uint32_t n = 0;
  for (const auto& z : zones) n += z.free_empty() ? 1 : 0;
  return n;
}

uint64_t FsView::used_bytes() const {
  uint64_t b = 0;
  for (const auto& z : zones) b += z.valid_bytes;
  return b;
}

uint64_t FsView::reclaimable_bytes() const {
  uint64_t b = 0;
  for (const auto& z : zones) b += z.invalid_bytes();
  return b;
}

double FsView::free_ratio() const {
  uint64_t f = free_bytes();
  uint64_t total = f + used_bytes() + reclaimable_bytes();
  return total == 0 ? 0.0 : static_cast<double>(f) / static_cast<double>(total);
}

const FileView* FsView::FindFile(uint64_t id) const {
  for (const auto& f : files) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

const ZoneView* FsView::FindZone(uint32_t id) const {
  // Zones are in id order: try the direct index first, then search.
  if (!zones.empty() && id >= zones.front().id) {
    size_t i = id - zones.front().id;
    if (i < zones.size() && zones[i].id == id) return &zones[i];
  }
  for (const auto& z : zones) {
    if (z.id == id) return &z;
  }
  return nullptr;
}

}  // namespace zonekv
