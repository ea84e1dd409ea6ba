// Little-endian fixed-width and varint encoding for metadata records.
//
// Encoders append to a std::string. Decoder reads from a byte range and
// never reads past its end: every getter returns false on truncation, and
// the caller turns that into a Corruption status naming the record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zonekv {

void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutVarint64(std::string* dst, uint64_t v);
void PutBytes(std::string* dst, std::string_view s);  // varint length + bytes
uint32_t DecodeFixed32(const char* p);
uint64_t DecodeFixed64(const char* p);

class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}
  bool Fixed32(uint32_t* v);
  bool Fixed64(uint64_t* v);
  bool Varint64(uint64_t* v);
  bool Varint32(uint32_t* v);
  bool Byte(uint8_t* v);
  bool Bytes(std::string* s);
  bool done() const { return pos_ == in_.size(); }
  size_t pos() const { return pos_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace zonekv
