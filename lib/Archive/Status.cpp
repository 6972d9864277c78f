//===- Status.cpp - Names of status codes ---------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "vmpack/Archive/Status.h"

using namespace vmpack::archive;

const char *vmpack::archive::statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "ok";
  case StatusCode::InvalidArgument:
    return "invalid argument";
  case StatusCode::Io:
    return "i/o";
  case StatusCode::Format:
    return "format";
  case StatusCode::Checksum:
    return "checksum";
  case StatusCode::NotFound:
    return "not found";
  case StatusCode::OutOfRange:
    return "out of range";
  case StatusCode::Unsupported:
    return "unsupported";
  case StatusCode::BufferTooSmall:
    return "buffer too small";
  case StatusCode::OutOfMemory:
    return "out of memory";
  case StatusCode::Internal:
    return "internal";
  }
  return "unknown";
}
