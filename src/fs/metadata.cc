#include "metadata.h"

#include <limits>

#include "coding.h"

namespace zonekv {
namespace {

// On disk (each edit record starts with its tag). Never renumber; add at the end.
enum EditTag : uint8_t {
  kCreateFile = 1,
  kSetTail = 2,
  kReplaceExtents = 3,
  kSetHints = 4,
  kRename = 5,
  kDeleteFile = 6,
  kCreateDir = 7,
  kDeleteDir = 8,
};

void EncodeHints(const FileHints& h, std::string* dst) {
  dst->push_back(static_cast<char>(h.kind));
  PutVarint64(dst, h.number);
  PutVarint64(dst, static_cast<uint64_t>(static_cast<int64_t>(h.level) + 1));
  PutVarint64(dst, static_cast<uint64_t>(static_cast<int64_t>(h.job) + 1));
  PutBytes(dst, h.smallest_key);
  PutBytes(dst, h.largest_key);
  dst->push_back(static_cast<char>(h.lifetime));
}

bool DecodeHints(Decoder* d, FileHints* h) {
  uint8_t kind = 0, lifetime = 0;
  uint64_t level = 0, job = 0;
  if (!d->Byte(&kind) || kind >= kFileKindCount) return false;
  if (!d->Varint64(&h->number) || !d->Varint64(&level) || !d->Varint64(&job)) return false;
  if (!d->Bytes(&h->smallest_key) || !d->Bytes(&h->largest_key)) return false;
  if (!d->Byte(&lifetime) || lifetime > static_cast<uint8_t>(Lifetime::kExtreme)) return false;
  // Stored plus one (-1, "none", is 0): anything above INT_MAX + 1 is not an int.
  constexpr uint64_t kMaxStored = static_cast<uint64_t>(std::numeric_limits<int>::max()) + 1;
  if (level > kMaxStored || job > kMaxStored) return false;
  h->kind = static_cast<FileKind>(kind);
  h->level = static_cast<int>(static_cast<int64_t>(level) - 1);
  h->job = static_cast<int>(static_cast<int64_t>(job) - 1);
  h->lifetime = static_cast<Lifetime>(lifetime);
  return true;
}

void EncodeExtents(const std::vector<Extent>& ext, size_t first, std::string* dst) {
  PutVarint64(dst, ext.size() - first);
  for (size_t i = first; i < ext.size(); i++) {
    PutVarint64(dst, ext[i].zone);
    PutVarint64(dst, ext[i].offset_bytes);
    PutVarint64(dst, ext[i].length_bytes);
  }
}

bool DecodeExtents(Decoder* d, std::vector<Extent>* out) {
  uint64_t n = 0;
  if (!d->Varint64(&n)) return false;
  for (uint64_t i = 0; i < n; i++) {
    Extent e;
    if (!d->Varint32(&e.zone) || !d->Varint64(&e.offset_bytes) || !d->Varint64(&e.length_bytes)) return false;
    out->push_back(e);
  }
  return true;
}

bool DecodeFileMeta(Decoder* d, FileMeta* f) {
  if (!d->Varint64(&f->id) || !d->Bytes(&f->name) || !d->Varint64(&f->size_bytes) ||
      !d->Varint64(&f->mtime_s) || !DecodeHints(d, &f->hints)) {
    return false;
  }
  f->extents.clear();
  return DecodeExtents(d, &f->extents);
}

uint64_t ExtentBytes(const std::vector<Extent>& ext) {
  uint64_t n = 0;
  for (const auto& e : ext) n += e.length_bytes;
  return n;
}

}  // namespace

void EncodeFileMeta(const FileMeta& f, std::string* dst) {
  PutVarint64(dst, f.id);
  PutBytes(dst, f.name);
  PutVarint64(dst, f.size_bytes);
  PutVarint64(dst, f.mtime_s);
  EncodeHints(f.hints, dst);
  EncodeExtents(f.extents, 0, dst);
}

// ---- Superblock ---------------------------------------------------------------

std::string Superblock::Encode() const {
  std::string s;
  PutFixed64(&s, kMagic);
  PutFixed32(&s, kVersion);
  PutFixed64(&s, sequence);
  PutFixed32(&s, block_size);
  PutFixed64(&s, zone_size_bytes);
  PutFixed64(&s, zone_capacity_bytes);
  PutFixed32(&s, nr_zones);
  PutFixed32(&s, meta_zones);
  return s;
}

Status Superblock::Decode(std::string_view in, Superblock* sb) {
  Decoder d(in);
  uint64_t magic = 0;
  uint32_t version = 0;
  if (!d.Fixed64(&magic) || magic != kMagic) return Status::Corruption("superblock: bad magic (not a zonekv file system)");
  if (!d.Fixed32(&version) || version != kVersion) {
    return Status::Corruption("superblock: unsupported version " + std::to_string(version) + " (expected " +
                              std::to_string(kVersion) + ")");
  }
  if (!d.Fixed64(&sb->sequence) || !d.Fixed32(&sb->block_size) || !d.Fixed64(&sb->zone_size_bytes) ||
      !d.Fixed64(&sb->zone_capacity_bytes) || !d.Fixed32(&sb->nr_zones) || !d.Fixed32(&sb->meta_zones) ||
      !d.done()) {
    return Status::Corruption("superblock: truncated or oversized record");
  }
  return Status::OK();
}

Status Superblock::CheckGeometry(const DeviceGeometry& g) const {
  auto mismatch = [](const char* what, uint64_t fs, uint64_t dev) {
    return Status::InvalidArgument("file system was formatted with " + std::string(what) + " " + std::to_string(fs) +
                                   " but the device has " + std::to_string(dev) + "; run 'zonekv fs mkfs' again");
  };
  if (block_size != g.block_size) return mismatch("block_size", block_size, g.block_size);
  if (zone_size_bytes != g.zone_size_bytes) return mismatch("zone_size", zone_size_bytes, g.zone_size_bytes);
  if (zone_capacity_bytes != g.zone_capacity_bytes) {
    return mismatch("zone_cap", zone_capacity_bytes, g.zone_capacity_bytes);
  }
  if (nr_zones != g.nr_zones) return mismatch("zones", nr_zones, g.nr_zones);
  return Status::OK();
}

// ---- EditBatch ----------------------------------------------------------------

void EditBatch::CreateFile(const FileMeta& f) {
  data_.push_back(static_cast<char>(kCreateFile));
  EncodeFileMeta(f, &data_);
}

void EditBatch::SetTail(uint64_t id, uint64_t size_bytes, uint64_t mtime_s, uint64_t keep,
                        const std::vector<Extent>& extents, size_t first) {
  data_.push_back(static_cast<char>(kSetTail));
  PutVarint64(&data_, id);
  PutVarint64(&data_, size_bytes);
  PutVarint64(&data_, mtime_s);
  PutVarint64(&data_, keep);
  EncodeExtents(extents, first, &data_);
}

void EditBatch::ReplaceExtents(uint64_t id, const std::vector<Extent>& extents) {
  data_.push_back(static_cast<char>(kReplaceExtents));
  PutVarint64(&data_, id);
  EncodeExtents(extents, 0, &data_);
}

void EditBatch::SetHints(uint64_t id, const FileHints& h) {
  data_.push_back(static_cast<char>(kSetHints));
  PutVarint64(&data_, id);
  EncodeHints(h, &data_);
}

void EditBatch::Rename(uint64_t id, const std::string& name) {
  data_.push_back(static_cast<char>(kRename));
  PutVarint64(&data_, id);
  PutBytes(&data_, name);
}

void EditBatch::DeleteFile(uint64_t id) {
  data_.push_back(static_cast<char>(kDeleteFile));
  PutVarint64(&data_, id);
}

void EditBatch::CreateDir(const std::string& name) {
  data_.push_back(static_cast<char>(kCreateDir));
  PutBytes(&data_, name);
}

void EditBatch::DeleteDir(const std::string& name) {
  data_.push_back(static_cast<char>(kDeleteDir));
  PutBytes(&data_, name);
}

// ---- MetaState ----------------------------------------------------------------

std::string MetaState::EncodeSnapshot() const {
  std::string s;
  PutVarint64(&s, next_file_id);
  PutVarint64(&s, dirs.size());
  for (const auto& d : dirs) PutBytes(&s, d);
  PutVarint64(&s, files.size());
  for (const auto& [id, f] : files) EncodeFileMeta(f, &s);
  return s;
}

Status MetaState::DecodeSnapshot(std::string_view in) {
  Decoder d(in);
  MetaState st;
  uint64_t ndirs = 0, nfiles = 0;
  if (!d.Varint64(&st.next_file_id) || !d.Varint64(&ndirs)) return Status::Corruption("snapshot: truncated header");
  for (uint64_t i = 0; i < ndirs; i++) {
    std::string name;
    if (!d.Bytes(&name)) return Status::Corruption("snapshot: truncated directory list");
    st.dirs.insert(name);
  }
  if (!d.Varint64(&nfiles)) return Status::Corruption("snapshot: truncated file count");
  for (uint64_t i = 0; i < nfiles; i++) {
    FileMeta f;
    if (!DecodeFileMeta(&d, &f)) return Status::Corruption("snapshot: truncated file entry " + std::to_string(i));
    if (ExtentBytes(f.extents) != f.size_bytes) {
      return Status::Corruption("snapshot: file " + f.name + " has size " + std::to_string(f.size_bytes) +
                                " but its extents hold " + std::to_string(ExtentBytes(f.extents)) + " bytes");
    }
    if (f.id >= st.next_file_id) return Status::Corruption("snapshot: file id " + std::to_string(f.id) + " >= next id");
    // The encoder writes each live file once: a second entry would silently
    // replace the first. (Names are not checked: journal edits may, within a
    // record, leave two files of one name, and a snapshot holds any state
    // the edits can reach; found by the meta_edits fuzz target.)
    if (st.files.count(f.id)) return Status::Corruption("snapshot: file id " + std::to_string(f.id) + " appears twice");
    st.files[f.id] = std::move(f);
  }
  if (!d.done()) return Status::Corruption("snapshot: trailing bytes");
  *this = std::move(st);
  return Status::OK();
}

Status MetaState::ApplyEdits(std::string_view in) {
  Decoder d(in);
  auto bad = [&](const std::string& what) {
    return Status::Corruption("journal edit at byte " + std::to_string(d.pos()) + ": " + what);
  };
  auto find = [&](uint64_t id, FileMeta** f) {
    auto it = files.find(id);
    if (it == files.end()) return false;
    *f = &it->second;
    return true;
  };
  while (!d.done()) {
    uint8_t tag = 0;
    d.Byte(&tag);
    FileMeta* f = nullptr;
    uint64_t id = 0;
    switch (tag) {
      case kCreateFile: {
        FileMeta nf;
        if (!DecodeFileMeta(&d, &nf)) return bad("truncated file entry");
        if (ExtentBytes(nf.extents) != nf.size_bytes) {
          return bad("created file " + nf.name + " has size " + std::to_string(nf.size_bytes) +
                     " but its extents hold " + std::to_string(ExtentBytes(nf.extents)) + " bytes");
        }
        if (files.count(nf.id)) return bad("file id " + std::to_string(nf.id) + " created twice");
        // The next id is id + 1: the largest id would leave none (the
        // counter wrapped to 0; found by the meta_edits fuzz target).
        if (nf.id == UINT64_MAX) return bad("file id " + std::to_string(nf.id) + " leaves no next file id");
        if (nf.id >= next_file_id) next_file_id = nf.id + 1;
        files[nf.id] = std::move(nf);
        break;
      }
      case kSetTail: {
        uint64_t size = 0, mtime = 0, keep = 0;
        std::vector<Extent> ext;
        if (!d.Varint64(&id) || !d.Varint64(&size) || !d.Varint64(&mtime) || !d.Varint64(&keep) ||
            !DecodeExtents(&d, &ext)) {
          return bad("truncated tail edit");
        }
        if (!find(id, &f)) return bad("tail edit for unknown file id " + std::to_string(id));
        if (keep > f->extents.size()) return bad("tail edit keeps more extents than file " + f->name + " has");
        f->extents.resize(keep);
        f->extents.insert(f->extents.end(), ext.begin(), ext.end());
        f->size_bytes = size;
        f->mtime_s = mtime;
        if (ExtentBytes(f->extents) != size) return bad("file " + f->name + " size does not match its extents");
        break;
      }
      case kReplaceExtents: {
        std::vector<Extent> ext;
        if (!d.Varint64(&id) || !DecodeExtents(&d, &ext)) return bad("truncated replace edit");
        if (!find(id, &f)) return bad("replace edit for unknown file id " + std::to_string(id));
        if (ExtentBytes(ext) != f->size_bytes) return bad("replace edit changes the size of " + f->name);
        f->extents = std::move(ext);
        break;
      }
      case kSetHints: {
        FileHints h;
        if (!d.Varint64(&id) || !DecodeHints(&d, &h)) return bad("truncated hints edit");
        if (!find(id, &f)) return bad("hints edit for unknown file id " + std::to_string(id));
        f->hints = h;
        break;
      }
      case kRename: {
        std::string name;
        if (!d.Varint64(&id) || !d.Bytes(&name)) return bad("truncated rename edit");
        if (!find(id, &f)) return bad("rename edit for unknown file id " + std::to_string(id));
        f->name = name;
        break;
      }
      case kDeleteFile:
        if (!d.Varint64(&id)) return bad("truncated delete edit");
        if (!files.erase(id)) return bad("delete edit for unknown file id " + std::to_string(id));
        break;
      case kCreateDir:
      case kDeleteDir: {
        std::string name;
        if (!d.Bytes(&name)) return bad("truncated directory edit");
        if (tag == kCreateDir) dirs.insert(name);
        else dirs.erase(name);
        break;
      }
      default:
        return bad("unknown edit tag " + std::to_string(tag));
    }
  }
  return Status::OK();
}

}  // namespace zonekv
