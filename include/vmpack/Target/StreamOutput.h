//===- StreamOutput.h - Atomic file output through an llvm::raw_ostream --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The MLIR tools print programs through llvm::raw_ostream; this writes that
// output as every vmpack writer writes files (archive::detail::
// writeFileAtomically): a temporary file beside the output, never an
// input, renamed into place when complete, symlinks written through, the
// replaced file's mode and owner kept, missing directories created.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_TARGET_STREAMOUTPUT_H
#define VMPACK_TARGET_STREAMOUTPUT_H

#include "vmpack/Archive/FileIO.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace vmpack::target {

/// Writes `path` with `print`, which prints into the stream and returns
/// its own error, if any. A stream error (a full disk) wins and is an I/O
/// error naming the temporary file; on any error the temporary file is
/// removed and `path` left as it was.
inline archive::Status writeStreamAtomically(
    const std::string &path,
    llvm::function_ref<archive::Status(llvm::raw_ostream &)> print) {
  return archive::detail::writeFileAtomically(
      path, [&](int fd, const std::string &temp) -> archive::Status {
        llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
        archive::Status status = print(os);
        os.flush();
        if (os.has_error()) {
          std::string message = os.error().message();
          // raw_fd_ostream treats an error left set as fatal when destroyed.
          os.clear_error();
          return archive::Status::ioError("writing '" + temp + "': " + message);
        }
        return status;
      });
}

} // namespace vmpack::target

#endif // VMPACK_TARGET_STREAMOUTPUT_H
