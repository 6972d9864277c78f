//===- ToolSupport.cpp - What every vmpack tool does alike ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Tools/ToolSupport.h"

#include "vmpack/Archive/Format.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

using namespace vmpack;
using namespace vmpack::tools;

#ifndef VMPACK_VERSION
#error "VMPACK_VERSION comes from CMake's project version"
#endif

const char *vmpack::tools::vmpackVersion() { return VMPACK_VERSION; }

std::string vmpack::tools::versionText(const char *tool,
                                       const char *mlirVersion) {
  std::string out = std::string(tool) + " (vmpack) " + vmpackVersion() + "\n";
  if (mlirVersion)
    out += std::string("MLIR ") + mlirVersion + "\n";
  return out;
}

int Reporter::error(const std::string &message) const {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", tool, message.c_str());
  return kExitFailure;
}

int Reporter::usageError(const std::string &message) const {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n(%s --help shows the usage)\n", tool,
               message.c_str(), tool);
  return kExitUsage;
}

int Reporter::fail(const Status &status, bool usage) const {
  if (usage && status.code() == archive::StatusCode::InvalidArgument)
    return usageError(status.message());
  return error(status.message());
}

void Reporter::warning(const std::string &message) const {
  if (!quiet)
    std::fprintf(stderr, "%s: warning: %s\n", tool, message.c_str());
}

void Reporter::result(const std::string &message) const {
  if (!quiet)
    std::fprintf(resultsToStderr ? stderr : stdout, "%s\n", message.c_str());
}

void Reporter::progress(const std::string &message) const {
  if (verbose && !quiet)
    std::fprintf(stderr, "%s: %s\n", tool, message.c_str());
}

namespace {

std::optional<uint64_t> parseUnsigned(std::string_view text) {
  if (text.empty() || text.size() > 19)
    return std::nullopt;
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    n = n * 10 + uint64_t(c - '0');
  }
  return n;
}

} // namespace

std::optional<uint32_t> vmpack::tools::parseAlignment(std::string_view text) {
  std::optional<uint64_t> n = parseUnsigned(text);
  if (!n || !archive::isValidAlignment(*n))
    return std::nullopt;
  return uint32_t(*n);
}

std::string vmpack::tools::alignmentRange() {
  return "a power of two from 1 to " + std::to_string(archive::kMaxAlignment);
}

std::optional<unsigned> vmpack::tools::parseThreads(std::string_view text) {
  std::optional<uint64_t> n = parseUnsigned(text);
  if (!n || *n > kMaxThreads)
    return std::nullopt;
  return unsigned(*n);
}

std::optional<archive::LoadMode>
vmpack::tools::parseLoadMode(std::string_view text) {
  if (text == "auto")
    return archive::LoadMode::Auto;
  if (text == "mmap")
    return archive::LoadMode::Mmap;
  if (text == "read")
    return archive::LoadMode::Read;
  return std::nullopt;
}

bool Args::option(const char *name, std::optional<std::string> &value,
                  std::string &error) {
  std::string arg = current();
  std::string eq = std::string(name) + "=";
  if (arg.rfind(eq, 0) == 0) {
    value = arg.substr(eq.size());
    return true;
  }
  if (arg != name)
    return false;
  if (i + 1 >= argc) {
    error = std::string(name) + " needs a value";
    return true;
  }
  value = std::string(argv[++i]);
  return true;
}

StatusOr<OutputPath> OutputPath::create(const std::string &path,
                                        Format format) {
  OutputPath out;
  if (!isStdout(path)) {
    out.writePath = path;
    return out;
  }
  if (formatInfo(format).binary && ::isatty(STDOUT_FILENO))
    return Status::invalidArgument(
        std::string("-o -: ") + formatInfo(format).description +
        " is binary and standard output is a terminal; redirect it to a "
        "file or a pipe");
  const char *tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/vmpack-XXXXXX";
  if (!::mkdtemp(dir.data()))
    return Status::ioError("-o -: cannot create a temporary directory in '" +
                           dir.substr(0, dir.size() - 14) +
                           "': " + std::strerror(errno));
  out.tempDir = dir;
  out.writePath = dir + "/stdout" + formatInfo(format).extensions.front();
  return out;
}

OutputPath::OutputPath(OutputPath &&other) noexcept
    : writePath(std::move(other.writePath)), tempDir(std::move(other.tempDir)) {
  other.tempDir.clear();
}

OutputPath::~OutputPath() {
  if (tempDir.empty())
    return;
  // Whatever the writer left (its file, or a temporary of its own).
  if (DIR *d = ::opendir(tempDir.c_str())) {
    while (struct dirent *e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
        ::unlink((tempDir + "/" + e->d_name).c_str());
    ::closedir(d);
  }
  ::rmdir(tempDir.c_str());
}

std::string OutputPath::display() const {
  return toStdout() ? "<stdout>" : writePath;
}

Status OutputPath::finish() {
  if (!toStdout())
    return Status::ok();
  int fd = ::open(writePath.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::ioError("-o -: cannot open '" + writePath +
                           "': " + std::strerror(errno));
  std::fflush(stdout);
  std::vector<char> buffer(size_t(1) << 20);
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return Status::ioError("-o -: reading '" + writePath +
                             "': " + std::strerror(e));
    }
    if (n == 0)
      break;
    for (ssize_t done = 0; done < n;) {
      ssize_t w =
          ::write(STDOUT_FILENO, buffer.data() + done, size_t(n - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0) {
        int e = errno;
        ::close(fd);
        return Status::ioError(std::string("writing to standard output: ") +
                               std::strerror(e));
      }
      done += w;
    }
  }
  ::close(fd);
  return Status::ok();
}
