#include "coding.h"

namespace zonekv {

void PutFixed32(std::string* dst, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; i++) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  dst->append(b, 4);
}

void PutFixed64(std::string* dst, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; i++) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  dst->append(b, 8);
}

void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

void PutBytes(std::string* dst, std::string_view s) {
  PutVarint64(dst, s.size());
  dst->append(s.data(), s.size());
}

uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

bool Decoder::Fixed32(uint32_t* v) {
  if (in_.size() - pos_ < 4) return false;
  *v = DecodeFixed32(in_.data() + pos_);
  pos_ += 4;
  return true;
}

bool Decoder::Fixed64(uint64_t* v) {
  if (in_.size() - pos_ < 8) return false;
  *v = DecodeFixed64(in_.data() + pos_);
  pos_ += 8;
  return true;
}

bool Decoder::Varint64(uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && pos_ < in_.size(); shift += 7) {
    uint64_t byte = static_cast<unsigned char>(in_[pos_++]);
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool Decoder::Varint32(uint32_t* v) {
  uint64_t x = 0;
  if (!Varint64(&x) || x > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(x);
  return true;
}

bool Decoder::Byte(uint8_t* v) {
  if (pos_ >= in_.size()) return false;
  *v = static_cast<uint8_t>(in_[pos_++]);
  return true;
}

bool Decoder::Bytes(std::string* s) {
  uint64_t n = 0;
  if (!Varint64(&n) || n > in_.size() - pos_) return false;
  s->assign(in_.data() + pos_, n);
  pos_ += n;
  return true;
}

}  // namespace zonekv
