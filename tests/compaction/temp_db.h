// A RocksDB directory under the system temp dir, removed on destruction.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace zonekv {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "zonekv-compaction-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    path_ = p != nullptr ? p : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace zonekv
