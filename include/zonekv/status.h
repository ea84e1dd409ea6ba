// Status: the result of every fallible zonekv operation.
//
// Errors are values. A Status carries a code a program can branch on and a
// message a person can act on ("zone 12: write at 8192 is not at the write
// pointer 4096"). The zone-specific codes mirror the NVMe ZNS status codes
// (Zone Boundary Error 0x1B8 ... Invalid Zone State Transition 0x1BF) so that
// the emulator and a real device report the same failure the same way.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace zonekv {

// [[nodiscard]]: every function returning a Status must have its result
// checked; ignore one only on purpose, with a cast to void and a comment.
class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kInvalidArgument,   // bad flag, bad geometry, misaligned or out-of-range I/O
    kNotFound,
    kCorruption,        // checksum mismatch, foreign or truncated image/journal
    kIOError,           // the backing store or the kernel failed
    kNoSpace,           // nothing left to allocate and nothing can be cleaned
    kNotSupported,
    kBusy,              // resource held by another user (e.g. device in use)
    // Zoned-device errors (NVMe ZNS command set, status code type 1).
    kZoneBoundary,      // I/O crosses a zone boundary or zone capacity (0x1B8)
    kZoneFull,          // write to a full zone (0x1B9)
    kZoneReadOnly,      // write to a read-only zone (0x1BA)
    kZoneOffline,       // any I/O to an offline zone (0x1BB)
    kZoneInvalidWrite,  // write not at the write pointer (0x1BC)
    kTooManyActive,     // would exceed max active zones (0x1BD)
    kTooManyOpen,       // would exceed max open zones (0x1BE)
    kInvalidTransition, // zone state transition not allowed (0x1BF)
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return Status(Code::kInvalidArgument, std::move(m)); }
  static Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
  static Status Corruption(std::string m) { return Status(Code::kCorruption, std::move(m)); }
  static Status IOError(std::string m) { return Status(Code::kIOError, std::move(m)); }
  static Status NoSpace(std::string m) { return Status(Code::kNoSpace, std::move(m)); }
  static Status NotSupported(std::string m) { return Status(Code::kNotSupported, std::move(m)); }
  static Status Busy(std::string m) { return Status(Code::kBusy, std::move(m)); }
  static Status Zone(Code c, std::string m) { return Status(c, std::move(m)); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return msg_; }
  bool Is(Code c) const { return code_ == c; }

  // "ZoneInvalidWrite: zone 3: write at 4096 is not at the write pointer 0"
  std::string ToString() const;
  static std::string_view CodeName(Code c);

 private:
  Status(Code c, std::string m) : code_(c), msg_(std::move(m)) {}
  Code code_ = Code::kOk;
  std::string msg_;
};

// Returns early from the calling function if `expr` is not OK.
#define ZONEKV_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::zonekv::Status _zkv_s = (expr);         \
    if (!_zkv_s.ok()) return _zkv_s;          \
  } while (0)

}  // namespace zonekv
