//===- TestFiles.h - Scratch files for archive tests ---------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_UNITTESTS_ARCHIVE_TESTFILES_H
#define VMPACK_UNITTESTS_ARCHIVE_TESTFILES_H

#include <cstdint>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace vmpack::archive::testing {

/// A fresh directory under $TMPDIR, removed (one level deep) at the end.
class ScratchDir {
public:
  ScratchDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp ? tmp : "/tmp") + "/vmpack-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    dir = ::mkdtemp(buf.data()) ? buf.data() : "";
  }
  ~ScratchDir() {
    for (const std::string &f : files())
      ::unlink((dir + "/" + f).c_str());
    ::rmdir(dir.c_str());
  }
  std::string path(const std::string &name) const { return dir + "/" + name; }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (dirent *e = ::readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
          out.push_back(e->d_name);
      ::closedir(d);
    }
    return out;
  }
  std::string dir;
};

inline std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// The file's bytes as a string ("" if it cannot be read).
inline std::string contents(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void writeFile(const std::string &path,
                      const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
}

/// Bytes in a 64-byte aligned buffer, as the reader requires 16.
struct AlignedBytes {
  explicit AlignedBytes(const std::vector<uint8_t> &bytes)
      : storage(bytes.size() + 64) {
    uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    offset = size_t((64 - p % 64) % 64);
    std::copy(bytes.begin(), bytes.end(), storage.begin() + long(offset));
    size = bytes.size();
  }
  const uint8_t *data() const { return storage.data() + offset; }
  uint8_t *data() { return storage.data() + offset; }
  std::vector<uint8_t> storage;
  size_t offset = 0, size = 0;
};

/// Sets (or, for null, unsets) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name;
  std::optional<std::string> saved;
};

} // namespace vmpack::archive::testing

#endif // VMPACK_UNITTESTS_ARCHIVE_TESTFILES_H
