// rawgpu error model: recoverable failures are values.
//
//   Error      a failure: a code (Errc), a message, a chain of context lines, an optional hint.
//   Result<T>  either a T or an Error. Status is Result<void>.
//
// Functions that can fail on bad input or hardware misbehaviour return Result<T>; callers must
// consume it ([[nodiscard]]). Programmer errors (broken invariants) are RG_CHECK/RG_ASSERT
// aborts, never Results. See base/README.md for the conventions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "rawgpu/base/format.h"

namespace rawgpu {

// What kind of failure. Tests match on these; messages are for people.
enum class Errc : uint16_t {
  kInvalidArgument = 1,  // the caller passed something malformed (bad alignment, zero size...)
  kOutOfRange,           // a value or address lies outside what is allowed
  kOverflow,             // arithmetic on sizes/addresses would wrap
  kOutOfMemory,          // an allocator (VRAM, VA, host) has no room
  kNotFound,             // a device, file, symbol or allocation does not exist
  kAlreadyExists,        // overlapping mapping, double registration, double free
  kBusy,                 // resource held by someone else (kernel driver bound, device open)
  kTimeout,              // a deadline passed while waiting for hardware
  kIo,                   // an OS call failed (errno in the message)
  kPermission,           // the OS refused (not root, IOMMU group not viable)
  kParse,                // untrusted input (firmware, ELF, tables, text) is malformed
  kUnsupported,          // valid, but rawgpu does not implement it (unknown ASIC, format...)
  kHardware,             // the device reported a fault or behaved impossibly
  kInternal,             // a rawgpu bug surfaced as a recoverable error
};

// Stable lower-case name of a code, e.g. "out_of_memory".
std::string_view errc_name(Errc code);

class [[nodiscard]] Error {
 public:
  Error(Errc code, std::string message);
  Error(const Error& other);
  Error& operator=(const Error& other);
  Error(Error&&) noexcept = default;
  Error& operator=(Error&&) noexcept = default;
  ~Error();

  Errc code() const { return payload_->code; }
  // The innermost message: what went wrong, without the context chain.
  const std::string& message() const { return payload_->message; }
  // Context lines, outermost first ("while booting GPU 0000:03:00.0", "while loading PSP sOS").
  std::span<const std::string> context() const { return payload_->context; }
  // What the user can do about it; empty if nothing useful can be said.
  const std::string& hint() const { return payload_->hint; }

  // Adds an outer context line. Errors gain context as they propagate upwards, so each new line
  // is placed in front of the existing ones.
  Error& add_context(std::string line);
  Error& set_hint(std::string hint);
  Error&& with_context(std::string line) && { return std::move(add_context(std::move(line))); }
  Error&& with_hint(std::string hint) && { return std::move(set_hint(std::move(hint))); }

  // "ctx0: ctx1: message [code] (hint: ...)"
  std::string to_string() const;

  bool is(Errc c) const { return code() == c; }

 private:
  struct Payload {
    Errc code;
    std::string message;
    std::vector<std::string> context;  // outermost first
    std::string hint;
  };
  std::unique_ptr<Payload> payload_;  // never null, except in a moved-from Error
};

// printf-style error construction: `return make_error(Errc::kParse, "bad size 0x%x", n);`
[[gnu::format(printf, 2, 3)]] Error make_error(Errc code, const char* fmt, ...);

// Aborts the process with a message: for broken invariants only.
[[noreturn]] void fatal_error(const char* file, int line, const std::string& message);
[[noreturn]] void fatal_unchecked_error(const Error& error);

namespace detail {
inline std::string check_message() { return {}; }
[[gnu::format(printf, 1, 2)]] std::string check_message(const char* fmt, ...);
}  // namespace detail

namespace detail {
template <class T>
struct IsResult : std::false_type {};
}  // namespace detail

template <class T>
class [[nodiscard]] Result {
  static_assert(!std::is_reference_v<T>, "Result<T&> is not supported; use a pointer");
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>, "Result<Error> makes no sense");

 public:
  using value_type = T;

  Result(const T& v) : v_(std::in_place_index<0>, v) {}
  Result(T&& v) : v_(std::in_place_index<0>, std::move(v)) {}
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}
  template <class U>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, T> &&
             !std::is_same_v<std::remove_cvref_t<U>, Error> &&
             !detail::IsResult<std::remove_cvref_t<U>>::value)
  Result(U&& u) : v_(std::in_place_index<0>, T(std::forward<U>(u))) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    check();
    return std::get<0>(v_);
  }
  const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

  // Precondition: !ok().
  const Error& error() const& { return std::get<1>(v_); }
  Error& error() & { return std::get<1>(v_); }
  Error take_error() && { return std::move(std::get<1>(v_)); }
  T take_value() && { return std::move(value()); }

  // Adds a context line to a failed result; no-op on success (the string is only built on error
  // when a callable is given).
  Result&& context(std::string_view line) && {
    if (!ok()) error().add_context(std::string(line));
    return std::move(*this);
  }
  template <class F>
    requires std::is_invocable_r_v<std::string, F>
  Result&& context(F&& make_line) && {
    if (!ok()) error().add_context(make_line());
    return std::move(*this);
  }

 private:
  void check() const {
    if (!ok()) fatal_unchecked_error(std::get<1>(v_));
  }
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  using value_type = void;
  Result() = default;
  Result(Error e) : e_(std::move(e)) {}

  bool ok() const { return !e_.has_value(); }
  explicit operator bool() const { return ok(); }
  void value() const {
    if (!ok()) fatal_unchecked_error(*e_);
  }
  const Error& error() const& { return *e_; }
  Error& error() & { return *e_; }
  Error take_error() && { return std::move(*e_); }
  void take_value() && { value(); }

  Result&& context(std::string_view line) && {
    if (!ok()) e_->add_context(std::string(line));
    return std::move(*this);
  }
  template <class F>
    requires std::is_invocable_r_v<std::string, F>
  Result&& context(F&& make_line) && {
    if (!ok()) e_->add_context(make_line());
    return std::move(*this);
  }

 private:
  std::optional<Error> e_;
};

using Status = Result<void>;
inline Status ok_status() { return Status(); }

namespace detail {
template <class T>
struct IsResult<Result<T>> : std::true_type {};
}  // namespace detail

}  // namespace rawgpu

// RG_TRY(expr): evaluates a Result; on error returns the Error from the enclosing function
// (which must return some Result<U>), otherwise yields the value. Uses a GNU statement
// expression (GCC and clang).
#define RG_TRY(...)                                                          \
  ({                                                                         \
    auto rg_try_result_ = (__VA_ARGS__);                                     \
    if (!rg_try_result_.ok()) return std::move(rg_try_result_).take_error(); \
    std::move(rg_try_result_).take_value();                                  \
  })

// RG_TRY_CTX(expr, fmt, ...): like RG_TRY, but adds a printf-formatted context line on error.
#define RG_TRY_CTX(expr, ...)                                                                    \
  ({                                                                                             \
    auto rg_try_result_ = (expr);                                                                \
    if (!rg_try_result_.ok())                                                                    \
      return std::move(                                                                          \
          std::move(rg_try_result_).take_error().add_context(::rawgpu::strformat(__VA_ARGS__))); \
    std::move(rg_try_result_).take_value();                                                      \
  })

// Invariant checks. RG_CHECK is always on; RG_ASSERT only when NDEBUG is not defined.
#define RG_CHECK(cond, ...)                                                                        \
  do {                                                                                             \
    if (__builtin_expect(!(cond), 0))                                                              \
      ::rawgpu::fatal_error(                                                                       \
          __FILE__, __LINE__,                                                                      \
          std::string("check failed: " #cond " ") + ::rawgpu::detail::check_message(__VA_ARGS__)); \
  } while (0)

#ifdef NDEBUG
#define RG_ASSERT(cond, ...) \
  do {                       \
    (void)sizeof(cond);      \
  } while (0)
#else
#define RG_ASSERT(cond, ...) RG_CHECK(cond, __VA_ARGS__)
#endif
