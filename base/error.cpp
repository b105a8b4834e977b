#include "rawgpu/base/error.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace rawgpu {

std::string_view errc_name(Errc code) {
  switch (code) {
    case Errc::kInvalidArgument: return "invalid_argument";
    case Errc::kOutOfRange: return "out_of_range";
    case Errc::kOverflow: return "overflow";
    case Errc::kOutOfMemory: return "out_of_memory";
    case Errc::kNotFound: return "not_found";
    case Errc::kAlreadyExists: return "already_exists";
    case Errc::kBusy: return "busy";
    case Errc::kTimeout: return "timeout";
    case Errc::kIo: return "io";
    case Errc::kPermission: return "permission";
    case Errc::kParse: return "parse";
    case Errc::kUnsupported: return "unsupported";
    case Errc::kHardware: return "hardware";
    case Errc::kInternal: return "internal";
  }
  return "unknown";
}

Error::Error(Errc code, std::string message)
    : payload_(std::make_unique<Payload>(Payload{code, std::move(message), {}, {}})) {}

Error::Error(const Error& other) : payload_(std::make_unique<Payload>(*other.payload_)) {}

Error& Error::operator=(const Error& other) {
  if (this != &other) payload_ = std::make_unique<Payload>(*other.payload_);
  return *this;
}

Error::~Error() = default;

Error& Error::add_context(std::string line) {
  payload_->context.insert(payload_->context.begin(), std::move(line));
  return *this;
}

Error& Error::set_hint(std::string hint) {
  payload_->hint = std::move(hint);
  return *this;
}

std::string Error::to_string() const {
  std::string out;
  for (const std::string& c : payload_->context) {
    out += c;
    out += ": ";
  }
  out += payload_->message;
  out += " [";
  out += errc_name(payload_->code);
  out += "]";
  if (!payload_->hint.empty()) {
    out += " (hint: ";
    out += payload_->hint;
    out += ")";
  }
  return out;
}

Error make_error(Errc code, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message = vstrformat(fmt, args);
  va_end(args);
  return Error(code, std::move(message));
}

void fatal_error(const char* file, int line, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "rawgpu: fatal: %s:%d: %s\n", file, line, message.c_str());
  std::fflush(stderr);
  std::abort();
}

void fatal_unchecked_error(const Error& error) {
  std::fflush(stdout);
  std::fprintf(stderr, "rawgpu: fatal: value() of a failed Result: %s\n",
               error.to_string().c_str());
  std::fflush(stderr);
  std::abort();
}

namespace detail {
std::string check_message(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string message = vstrformat(fmt, args);
  va_end(args);
  return message;
}
}  // namespace detail

}  // namespace rawgpu
