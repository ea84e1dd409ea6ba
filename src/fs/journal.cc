#include "journal.h"

#include <algorithm>

#include "coding.h"
#include "zonekv/crc32c.h"

namespace zonekv {
namespace {
constexpr size_t kHeaderBytes = 13;
}  // namespace

std::string EncodeRecord(RecordType type, const std::string& payload, uint32_t block_size) {
  std::string rec;
  std::string hdr;
  PutFixed32(&hdr, static_cast<uint32_t>(payload.size()));
  hdr.push_back(static_cast<char>(type));
  PutFixed32(&hdr, Crc32c(payload.data(), payload.size()));
  PutFixed32(&rec, Crc32c(hdr.data(), hdr.size()));
  rec += hdr;
  rec += payload;
  rec.resize(RoundUp(rec.size(), block_size), '\0');
  return rec;
}

Status DecodeRecord(const std::string& zone_data, uint64_t pos, uint32_t zone, uint32_t block_size,
                    RecordType* type, std::string* payload, uint64_t* next_pos, bool* torn) {
  *torn = false;
  auto where = [&] { return "meta zone " + std::to_string(zone) + " offset " + std::to_string(pos) + ": "; };
  if (zone_data.size() < pos + kHeaderBytes) {
    *torn = true;
    return Status::OK();
  }
  const char* p = zone_data.data() + pos;
  if (Crc32c(p + 4, 9) != DecodeFixed32(p)) return Status::Corruption(where() + "record header checksum mismatch");
  uint64_t len = DecodeFixed32(p + 4);
  uint8_t t = static_cast<uint8_t>(p[8]);
  if (t < 1 || t > 4) return Status::Corruption(where() + "unknown record type " + std::to_string(t));
  if (zone_data.size() < pos + kHeaderBytes + len) {
    // The header is intact but the payload runs past the write pointer: the
    // record was being written when the process or device stopped. This is
    // the one legitimate end-of-log short of the write pointer.
    *torn = true;
    return Status::OK();
  }
  if (Crc32c(p + kHeaderBytes, len) != DecodeFixed32(p + 9)) {
    return Status::Corruption(where() + "record payload checksum mismatch");
  }
  // The encoder pads with zeros; checking the padding leaves no byte of a
  // record unchecked.
  const uint64_t end = std::min<uint64_t>(pos + RoundUp(kHeaderBytes + len, block_size), zone_data.size());
  for (uint64_t i = pos + kHeaderBytes + len; i < end; i++) {
    if (zone_data[i] != 0) {
      return Status::Corruption("meta zone " + std::to_string(zone) + " offset " + std::to_string(i) +
                                ": non-zero byte in the padding of the record at offset " + std::to_string(pos));
    }
  }
  *type = static_cast<RecordType>(t);
  payload->assign(p + kHeaderBytes, len);
  *next_pos = pos + RoundUp(kHeaderBytes + len, block_size);
  return Status::OK();
}

Status ReplayMetaZone(std::string data, uint32_t zone, uint32_t block_size, bool full, Superblock* sb,
                      MetaState* state, bool* complete, bool* torn_tail) {
  const uint32_t bs = block_size;
  *complete = false;
  *torn_tail = false;
  if (full) {
    // Unwritten blocks a FINISH left behind are not part of the log.
    size_t end = data.size();
    while (end >= bs && data.find_first_not_of('\0', end - bs) >= end) end -= bs;
    data.resize(end);
  }
  uint64_t pos = 0, next = 0;
  RecordType type;
  std::string payload;
  bool torn = false;
  ZONEKV_RETURN_IF_ERROR(DecodeRecord(data, pos, zone, bs, &type, &payload, &next, &torn));
  Superblock s;
  ZONEKV_RETURN_IF_ERROR(Superblock::Decode(payload, &s));
  pos = next;
  ZONEKV_RETURN_IF_ERROR(DecodeRecord(data, pos, zone, bs, &type, &payload, &next, &torn));
  if (torn) return Status::OK();  // the snapshot is incomplete
  if (type != RecordType::kSnapshot) {
    return Status::Corruption("meta zone " + std::to_string(zone) + " offset " + std::to_string(pos) +
                              ": expected a snapshot record after the superblock");
  }
  MetaState st;
  Status ds = st.DecodeSnapshot(payload);
  if (!ds.ok()) {
    return Status::Corruption("meta zone " + std::to_string(zone) + " offset " + std::to_string(pos) + ": " +
                              ds.message());
  }
  pos = next;
  while (pos < data.size()) {
    ZONEKV_RETURN_IF_ERROR(DecodeRecord(data, pos, zone, bs, &type, &payload, &next, &torn));
    if (torn) {
      *torn_tail = true;
      break;
    }
    if (type == RecordType::kEnd) {
      // Nothing follows an end record: the rest of the zone was never written.
      size_t junk = data.find_first_not_of('\0', next);
      if (junk != std::string::npos) {
        return Status::Corruption("meta zone " + std::to_string(zone) + " offset " + std::to_string(junk) +
                                  ": data after the end record at offset " + std::to_string(pos));
      }
      break;
    }
    if (type != RecordType::kEdits) {
      return Status::Corruption("meta zone " + std::to_string(zone) + " offset " + std::to_string(pos) +
                                ": unexpected record type " + std::to_string(static_cast<int>(type)));
    }
    Status as = st.ApplyEdits(payload);
    if (!as.ok()) {
      return Status::Corruption("meta zone " + std::to_string(zone) + " offset " + std::to_string(pos) + ": " +
                                as.message());
    }
    pos = next;
  }
  *sb = s;
  *state = std::move(st);
  *complete = true;
  return Status::OK();
}

Status Journal::WriteRecord(RecordType type, const std::string& payload) {
  const DeviceGeometry& g = dev_->geometry();
  std::string rec = EncodeRecord(type, payload, g.block_size);
  if (wp_ + rec.size() > g.zone_capacity_bytes) {
    return Status::NoSpace("metadata record of " + std::to_string(rec.size()) + " bytes does not fit in meta zone " +
                           std::to_string(zone_) + " (" + std::to_string(g.zone_capacity_bytes - wp_) +
                           " bytes left); use larger zones or fewer files");
  }
  ZONEKV_RETURN_IF_ERROR(dev_->Write(zone_ * g.zone_size_bytes + wp_, rec.data(), rec.size()));
  wp_ += rec.size();
  return Status::OK();
}

Status Journal::ReadZone(uint32_t zone, uint64_t wp, std::string* data) {
  data->assign(wp, '\0');
  if (wp == 0) return Status::OK();
  return dev_->Read(zone * dev_->geometry().zone_size_bytes, wp, data->data());
}

Status Journal::Format(const Superblock& sb) {
  for (uint32_t z = 0; z < meta_zones_; z++) ZONEKV_RETURN_IF_ERROR(dev_->ResetZone(z));
  sb_ = sb;
  zone_ = 0;
  wp_ = 0;
  ZONEKV_RETURN_IF_ERROR(WriteRecord(RecordType::kSuperblock, sb_.Encode()));
  ZONEKV_RETURN_IF_ERROR(WriteRecord(RecordType::kSnapshot, MetaState().EncodeSnapshot()));
  return dev_->Flush();
}

Status Journal::Recover(Superblock* sb, MetaState* state) {
  const uint32_t bs = dev_->geometry().block_size;
  std::vector<ZoneInfo> zones;
  ZONEKV_RETURN_IF_ERROR(dev_->ReportZones(0, meta_zones_, &zones));
  struct Candidate {
    uint64_t seq;
    uint32_t zone;
    uint64_t wp;
    bool full;
  };
  std::vector<Candidate> cands;
  for (const auto& z : zones) {
    uint64_t wp = z.written_bytes();
    if (wp == 0) continue;
    std::string first;
    ZONEKV_RETURN_IF_ERROR(ReadZone(z.id, std::min<uint64_t>(wp, RoundUp(kHeaderBytes + 64, bs)), &first));
    RecordType type;
    std::string payload;
    uint64_t next = 0;
    bool torn = false;
    ZONEKV_RETURN_IF_ERROR(DecodeRecord(first, 0, z.id, bs, &type, &payload, &next, &torn));
    if (torn) continue;  // a roll that crashed before its superblock was complete
    if (type != RecordType::kSuperblock) {
      return Status::Corruption("meta zone " + std::to_string(z.id) + " offset 0: expected a superblock record");
    }
    Superblock s;
    Status st = Superblock::Decode(payload, &s);
    if (!st.ok()) return Status::Corruption("meta zone " + std::to_string(z.id) + ": " + st.message());
    cands.push_back({s.sequence, z.id, wp, z.state == ZoneState::kFull});
  }
  if (cands.empty()) {
    return Status::NotFound("no zonekv superblock in meta zones 0.." + std::to_string(meta_zones_ - 1) +
                            "; format the device with 'zonekv fs mkfs'");
  }
  std::sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.seq > b.seq; });
  for (const auto& c : cands) {
    std::string data;
    ZONEKV_RETURN_IF_ERROR(ReadZone(c.zone, c.wp, &data));
    Superblock s;
    MetaState st;
    bool complete = false, torn_tail = false;
    ZONEKV_RETURN_IF_ERROR(ReplayMetaZone(std::move(data), c.zone, bs, c.full, &s, &st, &complete, &torn_tail));
    if (!complete) continue;  // crashed while writing the snapshot: fall back to the previous zone
    sb_ = s;
    zone_ = c.zone;
    wp_ = c.wp;
    torn_tail_ = torn_tail;
    *sb = s;
    *state = std::move(st);
    return Status::OK();
  }
  return Status::Corruption("no metadata zone holds a complete snapshot");
}

Status Journal::Roll(const std::string& snapshot) {
  uint32_t old = zone_;
  uint32_t next = (zone_ + 1) % meta_zones_;
  // The old zone stays readable (full) until the new one is durable.
  ZoneInfo oi;
  ZONEKV_RETURN_IF_ERROR(dev_->ReportZone(old, &oi));
  if (oi.state != ZoneState::kFull && oi.written_bytes() > 0) {
    // An end record tells recovery where the log stops (Append keeps a block
    // free for it). After a torn tail it would make the torn record look
    // corrupt, so then the zone is finished without one.
    if (!torn_tail_ && wp_ + dev_->geometry().block_size <= dev_->geometry().zone_capacity_bytes) {
      ZONEKV_RETURN_IF_ERROR(WriteRecord(RecordType::kEnd, std::string()));
    }
    ZONEKV_RETURN_IF_ERROR(dev_->FinishZone(old));
  }
  torn_tail_ = false;
  ZoneInfo ni;
  ZONEKV_RETURN_IF_ERROR(dev_->ReportZone(next, &ni));
  if (ni.written_bytes() > 0) ZONEKV_RETURN_IF_ERROR(dev_->ResetZone(next));
  Superblock sb = sb_;
  sb.sequence++;
  zone_ = next;
  wp_ = 0;
  sb_ = sb;
  Status s = WriteRecord(RecordType::kSuperblock, sb.Encode());
  if (s.ok()) s = WriteRecord(RecordType::kSnapshot, snapshot);
  if (s.ok()) s = dev_->Flush();
  if (!s.ok()) {
    // The previous zone (finished, not reset) still holds the last complete
    // state; recovery falls back to it.
    failed_ = Status::IOError("metadata journal roll to meta zone " + std::to_string(next) + " failed: " +
                              s.ToString() + "; remount to recover the last durable state");
    return failed_;
  }
  std::vector<ZoneInfo> zones;
  ZONEKV_RETURN_IF_ERROR(dev_->ReportZones(0, meta_zones_, &zones));
  for (const auto& z : zones) {
    if (z.id != zone_ && z.written_bytes() > 0) ZONEKV_RETURN_IF_ERROR(dev_->ResetZone(z.id));
  }
  rolls_++;
  return Status::OK();
}

bool Journal::Fits(size_t edit_bytes) const {
  const DeviceGeometry& g = dev_->geometry();
  uint64_t need = RoundUp(kHeaderBytes + edit_bytes, g.block_size);
  // One block stays free for the end record.
  return wp_ + need + g.block_size <= g.zone_capacity_bytes;
}

Status Journal::Append(const std::string& edits, const std::function<std::string()>& snapshot) {
  if (!failed_.ok()) return failed_;
  if (Fits(edits.size())) return WriteRecord(RecordType::kEdits, edits);
  return Roll(snapshot());
}

}  // namespace zonekv
