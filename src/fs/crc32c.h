// CRC-32C (Castagnoli), the checksum of every metadata record.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zonekv {

// Extends `crc` (0 to start) over n bytes of data.
uint32_t Crc32c(uint32_t crc, const char* data, size_t n);

}  // namespace zonekv
