// SstIndex (zonekv/fs_policy.h): the SSTs by level and key order, kept up to
// date by the engine for CAZA.
#include <algorithm>
#include <iterator>

#include "zonekv/fs_policy.h"

namespace zonekv {

namespace {

bool RangesOverlap(const FileHints& a, const std::string& smallest, const std::string& largest) {
  return !(a.largest_key < smallest || largest < a.smallest_key);
}

SstIndex::Key KeyOf(const FileView& f) { return {f.hints.smallest_key, f.name, f.id}; }

}  // namespace

bool SstIndex::Indexed(const FileHints& h) {
  return h.kind == FileKind::kSst && h.level >= 0 && !h.smallest_key.empty();
}

SstIndex SstIndex::FromFiles(const std::vector<FileView>& files) {
  SstIndex index;
  for (const FileView& f : files) index.Put(f);
  return index;
}

bool SstIndex::FitsDisjoint(const LevelSets& L, const Key& k, const FileView& f) {
  const FileHints& h = f.hints;
  if (h.largest_key < h.smallest_key) return false;  // a malformed range is only ever scanned
  auto next = L.disjoint.lower_bound(k);
  // The next member starts at or after f: it overlaps unless it starts after f ends.
  if (next != L.disjoint.end() && !(h.largest_key < next->second->hints.smallest_key)) return false;
  // The previous member starts at or before f: it overlaps unless it ends before f starts.
  if (next != L.disjoint.begin() && !(std::prev(next)->second->hints.largest_key < h.smallest_key)) return false;
  return true;
}

void SstIndex::Insert(FileView f) {
  const int level = f.hints.level;
  if (static_cast<size_t>(level) >= levels_.size()) levels_.resize(static_cast<size_t>(level) + 1);
  LevelSets& L = levels_[static_cast<size_t>(level)];
  Key k = KeyOf(f);
  const uint64_t id = f.id;
  auto [it, inserted] = L.files.emplace(k, std::move(f));
  if (FitsDisjoint(L, k, it->second)) {
    L.disjoint.emplace(std::move(k), &it->second);
  } else {
    L.overlapping.emplace(std::move(k), &it->second);
    overlapping_peak_ = std::max(overlapping_peak_, ++overlapping_);
  }
  where_[id] = {level, it};
}

void SstIndex::Remove(int level, LevelMap::iterator it) {
  LevelSets& L = levels_[static_cast<size_t>(level)];
  auto d = L.disjoint.find(it->first);
  if (d == L.disjoint.end()) {
    garbage_.refs.push_back(L.overlapping.extract(it->first));
    overlapping_--;
    where_.erase(it->second.id);
    garbage_.files.push_back(L.files.extract(it));
    return;
  }
  // The removed file may have been all that kept others out of the
  // disjoint set. Such a file overlapped it and none of its disjoint
  // neighbours, so it starts after the previous one ends and before the
  // next one starts: only overlapping files starting in that gap are
  // checked (in key order), not the level's whole overlapping set.
  std::string gap_after;  // the previous member's largest key ("" : none)
  bool has_prev = d != L.disjoint.begin();
  if (has_prev) gap_after = std::prev(d)->second->hints.largest_key;
  auto next = std::next(d);
  garbage_.refs.push_back(L.disjoint.extract(d));
  const bool has_next = next != L.disjoint.end();
  std::string gap_before = has_next ? next->second->hints.smallest_key : std::string();
  where_.erase(it->second.id);
  garbage_.files.push_back(L.files.extract(it));
  // (From the first starting at gap_after: those overlap the previous member
  // and stay, one comparison each.)
  auto o = has_prev ? L.overlapping.lower_bound(Key{gap_after, std::string(), 0}) : L.overlapping.begin();
  for (; o != L.overlapping.end() && (!has_next || o->first.smallest < gap_before);) {
    if (FitsDisjoint(L, o->first, *o->second)) {
      auto next_o = std::next(o);
      L.disjoint.insert(L.overlapping.extract(o));  // the node moves: nothing is freed
      o = next_o;
      overlapping_--;
    } else {
      ++o;
    }
  }
}

void SstIndex::Put(FileView f) {
  auto w = where_.find(f.id);
  if (w != where_.end()) {
    auto [level, it] = w->second;
    if (Indexed(f.hints) && level == f.hints.level && it->first == KeyOf(f)) {
      // Same place in the index (level, smallest key, name): in place.
      const bool largest_changed = it->second.hints.largest_key != f.hints.largest_key;
      garbage_.views.push_back(std::move(it->second));
      it->second = std::move(f);
      if (!largest_changed) return;
      // A new largest key may make the file overlap a neighbour, or fit
      // among the disjoint ones: take it out and put it back where it fits.
      FileView copy = std::move(it->second);
      Remove(level, it);
      Insert(std::move(copy));
      return;
    }
    Remove(level, it);
  }
  if (Indexed(f.hints)) Insert(std::move(f));
}

void SstIndex::Erase(uint64_t id) {
  auto w = where_.find(id);
  if (w != where_.end()) Remove(w->second.first, w->second.second);
}

void SstIndex::AddBytes(uint64_t id, uint32_t zone, uint64_t bytes, uint64_t size_bytes) {
  auto w = where_.find(id);
  if (w == where_.end()) return;
  FileView& f = w->second.second->second;
  f.bytes_per_zone[zone] += bytes;
  f.size_bytes = size_bytes;
}

void SstIndex::SetOpenForWrite(uint64_t id, bool open) {
  auto w = where_.find(id);
  if (w != where_.end()) w->second.second->second.open_for_write = open;
}

const FileView* SstIndex::Find(uint64_t id) const {
  auto w = where_.find(id);
  return w == where_.end() ? nullptr : &w->second.second->second;
}

std::vector<FileView> SstIndex::Files() const {
  std::vector<FileView> out;
  out.reserve(where_.size());
  for (const auto& [id, w] : where_) out.push_back(w.second->second);
  return out;
}

const SstIndex::LevelMap* SstIndex::Level(int level) const {
  if (level < 0 || static_cast<size_t>(level) >= levels_.size()) return nullptr;
  const LevelMap& m = levels_[static_cast<size_t>(level)].files;
  return m.empty() ? nullptr : &m;
}

size_t SstIndex::OverlappingCount(int level) const {
  if (level < 0 || static_cast<size_t>(level) >= levels_.size()) return 0;
  return levels_[static_cast<size_t>(level)].overlapping.size();
}

void SstIndex::Overlapping(int level, const std::string& smallest, const std::string& largest, uint64_t except,
                           std::vector<const FileView*>* out) const {
  if (level < 0 || static_cast<size_t>(level) >= levels_.size()) return;
  const LevelSets& L = levels_[static_cast<size_t>(level)];
  auto take = [&](const FileView* f) {
    if (f->id != except && RangesOverlap(f->hints, smallest, largest)) out->push_back(f);
  };
  if (largest < smallest) {
    // A malformed query range: the rule above, on every file of the level.
    for (const auto& [k, f] : L.files) take(&f);
    return;
  }
  // Disjoint members overlapping [smallest, largest]: the one before the
  // first that starts at or after `smallest` (it may reach into the range;
  // members before it end before it starts), then those starting in range.
  auto it = L.disjoint.lower_bound(Key{smallest, std::string(), 0});
  if (it != L.disjoint.begin()) take(std::prev(it)->second);
  for (; it != L.disjoint.end() && !(largest < it->first.smallest); ++it) take(it->second);
  for (const auto& [k, f] : L.overlapping) take(f);
}

std::string SstIndex::Check() const {
  size_t n = 0;
  for (size_t level = 0; level < levels_.size(); level++) {
    const LevelSets& L = levels_[level];
    const std::string at = "level " + std::to_string(level) + ": ";
    if (L.disjoint.size() + L.overlapping.size() != L.files.size()) return at + "files and the two sets differ in size";
    const FileView* prev = nullptr;
    for (const auto& [k, f] : L.disjoint) {
      auto it = L.files.find(k);
      if (it == L.files.end() || &it->second != f) return at + "a disjoint member is not a file of the level";
      if (L.overlapping.count(k) > 0) return at + "file " + f->name + " is in both sets";
      if (f->hints.largest_key < f->hints.smallest_key) return at + "file " + f->name + " has a malformed range in the disjoint set";
      if (prev != nullptr && !(prev->hints.largest_key < f->hints.smallest_key)) {
        return at + "disjoint members " + prev->name + " and " + f->name + " overlap";
      }
      prev = f;
    }
    for (const auto& [k, f] : L.files) {
      if (f.hints.level != static_cast<int>(level) || !Indexed(f.hints)) return at + "file " + f.name + " is misplaced";
      if (!(k == KeyOf(f))) return at + "file " + f.name + " is under a stale key";
      auto w = where_.find(f.id);
      if (w == where_.end() || w->second.first != static_cast<int>(level) || &w->second.second->second != &f) {
        return at + "file " + f.name + " is not found by its id";
      }
      n++;
    }
  }
  if (n != where_.size()) return "the id map lists files the levels do not hold";
  size_t scanned = 0;
  for (const LevelSets& L : levels_) scanned += L.overlapping.size();
  if (scanned != overlapping_) return "the count of overlapping files is off";
  return std::string();
}

}  // namespace zonekv
