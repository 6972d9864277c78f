//===- Status.h - Errors without exceptions -------------------------*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The archive layer reports failures as values: a Status is "ok" or carries a
// message that says what went wrong, where, and (when it helps) what to do.
// StatusOr<T> is a T or a failed Status. Neither throws.
//
//===----------------------------------------------------------------------===//

#ifndef VMPACK_ARCHIVE_STATUS_H
#define VMPACK_ARCHIVE_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace vmpack::archive {

class Status {
public:
  static Status ok() { return Status(); }
  static Status error(std::string msg) {
    Status s;
    s.failed = true;
    s.msg = std::move(msg);
    return s;
  }

  bool isOk() const { return !failed; }
  /// True if ok, so that `if (Status s = f(); !s) return s;` reads naturally.
  explicit operator bool() const { return isOk(); }
  /// Empty when ok.
  const std::string &message() const { return msg; }

private:
  Status() = default;
  bool failed = false;
  std::string msg;
};

template <typename T> class StatusOr {
public:
  StatusOr(T value) : st(Status::ok()), val(std::move(value)) {}
  /// `status` must not be ok: a StatusOr that is ok always holds a value.
  StatusOr(Status status) : st(std::move(status)) {
    assert(!st.isOk() && "StatusOr constructed from an ok Status");
    if (st.isOk())
      st = Status::error("internal error: ok Status without a value");
  }

  bool isOk() const { return st.isOk(); }
  explicit operator bool() const { return isOk(); }
  const Status &status() const { return st; }

  T &value() & {
    assert(isOk());
    return *val;
  }
  const T &value() const & {
    assert(isOk());
    return *val;
  }
  T &&value() && {
    assert(isOk());
    return std::move(*val);
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  Status st;
  std::optional<T> val;
};

} // namespace vmpack::archive

#endif // VMPACK_ARCHIVE_STATUS_H
