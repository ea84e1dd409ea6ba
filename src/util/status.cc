#include "zonekv/status.h"

namespace zonekv {

std::string_view Status::CodeName(Code c) {
  switch (c) {
    case Code::kOk: return "OK";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kNotFound: return "NotFound";
    case Code::kCorruption: return "Corruption";
    case Code::kIOError: return "IOError";
    case Code::kNoSpace: return "NoSpace";
    case Code::kNotSupported: return "NotSupported";
    case Code::kBusy: return "Busy";
    case Code::kZoneBoundary: return "ZoneBoundary";
    case Code::kZoneFull: return "ZoneFull";
    case Code::kZoneReadOnly: return "ZoneReadOnly";
    case Code::kZoneOffline: return "ZoneOffline";
    case Code::kZoneInvalidWrite: return "ZoneInvalidWrite";
    case Code::kTooManyActive: return "TooManyActiveZones";
    case Code::kTooManyOpen: return "TooManyOpenZones";
    case Code::kInvalidTransition: return "InvalidZoneStateTransition";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(CodeName(code_));
  if (!msg_.empty()) {
    s += ": ";
    s += msg_;
  }
  return s;
}

}  // namespace zonekv
