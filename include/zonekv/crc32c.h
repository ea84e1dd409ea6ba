// CRC-32C (Castagnoli): the checksum of device image headers and zone tables
// and of every file-system journal record.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zonekv {

// CRC-32C of data[0, n), continuing from `crc` (0 to start).
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);

}  // namespace zonekv
