//===- FileIO.cpp - Small POSIX helpers with readable errors --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#include "vmpack/Archive/FileIO.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <limits>
#include <map>
#include <optional>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace vmpack::archive;
using namespace vmpack::archive::detail;

std::string vmpack::archive::detail::errnoText(int err) {
  return std::error_code(err, std::generic_category()).message();
}

Status vmpack::archive::detail::pwriteAll(int fd, const void *data, size_t size,
                                          uint64_t offset,
                                          const std::string &what) {
  const auto *p = static_cast<const char *>(data);
  while (size > 0) {
    // Linux writes at most ~2 GiB per call anyway.
    size_t step = size < (size_t(1) << 30) ? size : (size_t(1) << 30);
    ssize_t n = ::pwrite(fd, p, step, off_t(offset));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::ioError(what + " at file offset " +
                             std::to_string(offset) + ": " + errnoText(errno));
    }
    if (n == 0)
      return Status::ioError(what + " at file offset " +
                             std::to_string(offset) +
                             ": the write made no progress");
    p += n;
    size -= size_t(n);
    offset += uint64_t(n);
  }
  return Status::ok();
}

std::string vmpack::archive::detail::parentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

//===----------------------------------------------------------------------===//
// Inputs are never outputs
//===----------------------------------------------------------------------===//

namespace {

/// Every guarded input of the process: (device, inode) -> how many guards
/// and the first path it was opened by.
struct InputRegistry {
  std::mutex mutex;
  std::map<std::pair<dev_t, ino_t>, std::pair<unsigned, std::string>> files;
};

InputRegistry &inputRegistry() {
  // Never destroyed: guards may outlive static destruction order.
  static InputRegistry *registry = new InputRegistry();
  return *registry;
}

/// The path of the guarded input that `st` is, if any.
std::optional<std::string> guardedInput(const struct stat &st) {
  InputRegistry &r = inputRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.files.find({st.st_dev, st.st_ino});
  if (it == r.files.end())
    return std::nullopt;
  return it->second.second;
}

void guardStat(const struct stat &st, const std::string &path, dev_t &device,
               ino_t &inode, bool &active) {
  InputRegistry &r = inputRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto [it, added] = r.files.try_emplace({st.st_dev, st.st_ino}, 0u, path);
  ++it->second.first;
  device = st.st_dev;
  inode = st.st_ino;
  active = true;
}

} // namespace

InputFileGuard InputFileGuard::forDescriptor(int fd, const std::string &path) {
  InputFileGuard guard;
  struct stat st;
  if (fd >= 0 && ::fstat(fd, &st) == 0)
    guardStat(st, path, guard.device, guard.inode, guard.isActive);
  return guard;
}

InputFileGuard InputFileGuard::forPath(const std::string &path) {
  InputFileGuard guard;
  struct stat st;
  if (!path.empty() && ::stat(path.c_str(), &st) == 0)
    guardStat(st, path, guard.device, guard.inode, guard.isActive);
  return guard;
}

InputFileGuard::InputFileGuard(InputFileGuard &&other) noexcept
    : device(other.device), inode(other.inode), isActive(other.isActive) {
  other.isActive = false;
}

InputFileGuard &InputFileGuard::operator=(InputFileGuard &&other) noexcept {
  if (this != &other) {
    release();
    device = other.device;
    inode = other.inode;
    isActive = other.isActive;
    other.isActive = false;
  }
  return *this;
}

InputFileGuard::~InputFileGuard() { release(); }

void InputFileGuard::release() {
  if (!isActive)
    return;
  isActive = false;
  InputRegistry &r = inputRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.files.find({device, inode});
  if (it != r.files.end() && --it->second.first == 0)
    r.files.erase(it);
}

Status vmpack::archive::detail::checkNotAnInput(const std::string &path,
                                                const std::string &role,
                                                const std::string &advice) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0)
    return Status::ok(); // nothing there (yet) to lose
  if (std::optional<std::string> input = guardedInput(st)) {
    std::string same = *input == path ? "" : " (the same file)";
    return Status::invalidArgument(
        role + " '" + path + "' is the input '" + *input + "'" + same +
        "; nothing was written: " +
        (advice.empty() ? "choose another " + role + " name" : advice));
  }
  return Status::ok();
}

StatusOr<std::string>
vmpack::archive::detail::resolveOutputPath(const std::string &path) {
  std::string p = path;
  for (int links = 0; links <= 40; ++links) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
      return p;
    std::string target(size_t(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n < 0)
      return Status::ioError("cannot read the symbolic link '" + p +
                             "': " + errnoText(errno));
    target.resize(size_t(n));
    if (target.empty())
      return Status::ioError("the symbolic link '" + p + "' is empty");
    if (target[0] != '/') {
      size_t slash = p.find_last_of('/');
      if (slash != std::string::npos)
        target = p.substr(0, slash + 1) + target;
    }
    p = std::move(target);
  }
  return Status::ioError("'" + path +
                         "': too many levels of symbolic links to write "
                         "through");
}

namespace {

/// The destination `path` names, spelled canonically: the longest prefix
/// of its directories that exists through realpath, the rest (which the
/// writer creates, as mkdir -p: no symlinks there) lexically, then its name.
std::string canonicalDestination(const std::string &path) {
  StatusOr<std::string> resolved = resolveOutputPath(path);
  std::string p = resolved ? *resolved : path;
  if (p.empty() || p[0] != '/') {
    if (char *cwd = ::getcwd(nullptr, 0)) {
      p = std::string(cwd) + "/" + p;
      std::free(cwd);
    }
  }
  std::vector<std::string> parts;
  for (size_t at = 0; at <= p.size();) {
    size_t slash = p.find('/', at);
    if (slash == std::string::npos)
      slash = p.size();
    if (slash > at)
      parts.push_back(p.substr(at, slash - at));
    at = slash + 1;
  }
  std::string base = "/";
  size_t rest = 0;
  for (size_t k = parts.size(); k-- > 0;) {
    std::string prefix;
    for (size_t i = 0; i < k; ++i)
      prefix += "/" + parts[i];
    if (char *real =
            ::realpath(prefix.empty() ? "/" : prefix.c_str(), nullptr)) {
      base = real;
      std::free(real);
      rest = k;
      break;
    }
  }
  for (size_t i = rest; i < parts.size(); ++i) {
    if (parts[i] == ".")
      continue;
    if (parts[i] == "..") {
      size_t slash = base.find_last_of('/');
      base = slash == 0 || slash == std::string::npos ? "/"
                                                      : base.substr(0, slash);
      continue;
    }
    base += (base == "/" ? "" : "/") + parts[i];
  }
  return base;
}

} // namespace

bool vmpack::archive::detail::sameDestination(const std::string &a,
                                              const std::string &b) {
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return canonicalDestination(a) == canonicalDestination(b);
}

Status vmpack::archive::detail::createDirectories(const std::string &dir) {
  if (dir.empty() || dir == "." || dir == "/")
    return Status::ok();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return Status::ok();
    return Status::ioError("'" + dir + "' is not a directory");
  }
  if (Status s = createDirectories(parentDirectory(dir)); !s)
    return s;
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    return Status::ioError("cannot create the directory '" + dir +
                           "': " + errnoText(errno));
  return Status::ok();
}

Status vmpack::archive::detail::renameIntoPlace(const std::string &tempPath,
                                                const std::string &path) {
  StatusOr<std::string> destination = resolveOutputPath(path);
  if (!destination)
    return destination.status();
  if (Status s = checkNotAnInput(*destination); !s)
    return s;
  if (::rename(tempPath.c_str(), destination->c_str()) != 0)
    return Status::ioError("renaming '" + tempPath + "' to '" + *destination +
                           "': " + errnoText(errno));
  return Status::ok();
}

Status vmpack::archive::detail::createTempFileBeside(const std::string &path,
                                                     int &fd,
                                                     std::string &tempPath) {
  if (path.empty())
    return Status::ioError("empty output path");
  StatusOr<std::string> resolved = resolveOutputPath(path);
  if (!resolved)
    return resolved.status();
  const std::string &destination = *resolved;
  if (Status s = checkNotAnInput(destination); !s)
    return s;
  struct stat existing;
  bool replaces = ::stat(destination.c_str(), &existing) == 0;
  if (replaces && !S_ISREG(existing.st_mode))
    return Status::ioError(
        "output '" + destination + "' is " +
        (S_ISDIR(existing.st_mode) ? "a directory"
                                   : "a device, pipe or socket") +
        ", not a regular file: outputs are written to a temporary file "
        "renamed into place, which would replace it");
  if (Status s = createDirectories(parentDirectory(destination)); !s)
    return Status::ioError("cannot create the output '" + path +
                           "': " + s.message());
  // A file-size limit must surface as EFBIG from pwrite, not kill us.
  std::signal(SIGXFSZ, SIG_IGN);
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0;; ++attempt) {
    std::string temp = destination + ".tmp." + std::to_string(::getpid()) +
                       "." + std::to_string(counter++);
    // 0666 minus the umask, like any file the user creates.
    int f = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f >= 0) {
      if (replaces) {
        // What is the user's stays: the owner and group where this process
        // may give them (root; or a group the user is in), then the mode
        // (after chown, which may clear set-id bits).
        if (existing.st_uid != ::geteuid() || existing.st_gid != ::getegid())
          if (::fchown(f, existing.st_uid, existing.st_gid) != 0)
            (void)::fchown(f, uid_t(-1), existing.st_gid);
        if (::fchmod(f, existing.st_mode & 07777) != 0) {
          int err = errno;
          ::close(f);
          ::unlink(temp.c_str());
          return Status::ioError("cannot give '" + temp + "' the mode of '" +
                                 destination + "': " + errnoText(err));
        }
      }
      fd = f;
      tempPath = std::move(temp);
      return Status::ok();
    }
    if (errno != EEXIST || attempt > 100)
      return Status::ioError("cannot create a temporary file in '" +
                             parentDirectory(destination) + "' for '" + path +
                             "': " + errnoText(errno));
  }
}

Status vmpack::archive::detail::reserveFileSpace(int fd, uint64_t size,
                                                 const std::string &path) {
  if (size > uint64_t(std::numeric_limits<off_t>::max()))
    return Status::ioError("cannot reserve " + std::to_string(size) +
                           " bytes for '" + path + "': too large a file");
  int err = ::posix_fallocate(fd, 0, off_t(size));
  if (err == EOPNOTSUPP || err == ENOSYS || err == EINVAL) {
    if (::ftruncate(fd, off_t(size)) != 0)
      err = errno;
    else
      err = 0;
  }
  if (err != 0)
    return Status::ioError("cannot reserve " + std::to_string(size) +
                           " bytes for '" + path + "': " + errnoText(err));
  return Status::ok();
}

Status vmpack::archive::detail::commitTempFile(int fd,
                                               const std::string &tempPath,
                                               const std::string &path,
                                               bool fsync, bool &renamed) {
  renamed = false;
  if (fsync && ::fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    return Status::ioError("fsync of '" + tempPath + "': " + errnoText(err));
  }
  if (::close(fd) != 0)
    return Status::ioError("closing '" + tempPath + "': " + errnoText(errno));
  if (Status s = renameIntoPlace(tempPath, path); !s)
    return s;
  renamed = true;
  if (!fsync)
    return Status::ok();
  // Make the rename itself durable.
  StatusOr<std::string> destination = resolveOutputPath(path);
  std::string dir = parentDirectory(destination ? *destination : path);
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0)
    return Status::ioError("opening directory '" + dir +
                           "' to fsync it: " + errnoText(errno));
  int rc = ::fsync(dirFd);
  int err = errno;
  ::close(dirFd);
  if (rc != 0)
    return Status::ioError("fsync of directory '" + dir +
                           "': " + errnoText(err));
  return Status::ok();
}

Status vmpack::archive::detail::writeFileAtomically(
    const std::string &path,
    const std::function<Status(int fd, const std::string &tempPath)> &fill,
    bool fsync) {
  int fd = -1;
  std::string temp;
  if (Status s = createTempFileBeside(path, fd, temp); !s)
    return s;
  if (Status s = fill(fd, temp); !s) {
    ::close(fd);
    ::unlink(temp.c_str());
    return s;
  }
  bool renamed = false;
  Status committed = commitTempFile(fd, temp, path, fsync, renamed);
  if (!renamed)
    ::unlink(temp.c_str());
  return committed;
}

TempOutput::~TempOutput() {
  if (fileFd >= 0)
    ::close(fileFd);
  if (!renamed) {
    std::lock_guard<std::mutex> lock(mutex);
    removeTempLocked();
  }
}

Status TempOutput::create(const std::string &path) {
  destination = path;
  return createTempFileBeside(path, fileFd, tempPath);
}

Status TempOutput::fail(Status status) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!failedFlag.exchange(true)) {
    error = std::move(status);
    removeTempLocked();
  }
  return error;
}

Status TempOutput::firstError() {
  std::lock_guard<std::mutex> lock(mutex);
  return error;
}

Status TempOutput::commit(bool fsync) {
  int fd = fileFd;
  fileFd = -1;
  Status committed = commitTempFile(fd, tempPath, destination, fsync, renamed);
  if (!renamed && !committed)
    return fail(committed);
  return committed;
}

void TempOutput::removeTempLocked() {
  if (!tempRemoved && !tempPath.empty()) {
    ::unlink(tempPath.c_str());
    tempRemoved = true;
  }
}
