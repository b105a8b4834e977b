#include "rawgpu/base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "rawgpu/base/format.h"

namespace rawgpu {
namespace {

constexpr size_t kChunk = size_t{1} << 20;
constexpr size_t kWriteBuffer = size_t{1} << 16;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error too_big(const std::string& path, const ReadLimits& limits, const std::string& what) {
  Error e = make_error(Errc::kOutOfRange, "%s is %s; at most %s is read", path.c_str(),
                       what.c_str(), format_bytes(limits.max_bytes).c_str());
  if (!limits.too_big_hint.empty()) e.set_hint(std::string(limits.too_big_hint));
  return e;
}

}  // namespace

Error os_error(int err, std::string_view path, std::string_view doing) {
  const Errc code = err == ENOENT                   ? Errc::kNotFound
                    : err == EACCES || err == EPERM ? Errc::kPermission
                                                    : Errc::kIo;
  return make_error(code, "%.*s: %.*s: %s", static_cast<int>(path.size()), path.data(),
                    static_cast<int>(doing.size()), doing.data(), std::strerror(err));
}

Status read_file_chunks(const std::string& path, const ReadLimits& limits,
                        FunctionRef<Status(std::string_view)> sink) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return os_error(errno, path, "cannot open");
  struct stat st{};
  if (::fstat(f.fd, &st) != 0) return os_error(errno, path, "cannot stat");
  if (S_ISDIR(st.st_mode))
    return make_error(Errc::kInvalidArgument, "%s is a directory, not a file", path.c_str());
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > limits.max_bytes)
    return too_big(path, limits,
                   strformat("%llu bytes", static_cast<unsigned long long>(st.st_size)));
  std::vector<char> buf(kChunk);
  uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(f.fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error(errno, path, "read failed");
    }
    if (n == 0) return ok_status();
    total += static_cast<uint64_t>(n);
    if (total > limits.max_bytes) return too_big(path, limits, "larger than that");
    RG_TRY(sink(std::string_view(buf.data(), static_cast<size_t>(n))));
  }
}

Result<std::string> read_file(const std::string& path, const ReadLimits& limits) {
  std::string out;
  RG_TRY(read_file_chunks(path, limits, [&](std::string_view chunk) -> Status {
    out.append(chunk);
    return ok_status();
  }));
  return out;
}

Result<FileWriter> FileWriter::create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == EISDIR)
      return make_error(Errc::kInvalidArgument, "%s is a directory, not a file", path.c_str());
    return os_error(err, path, "cannot create");
  }
  return FileWriter(fd, path);
}

FileWriter::FileWriter(FileWriter&& o) noexcept
    : fd_(o.fd_), path_(std::move(o.path_)), buffer_(std::move(o.buffer_)), written_(o.written_) {
  o.fd_ = -1;
}

FileWriter& FileWriter::operator=(FileWriter&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    path_ = std::move(o.path_);
    buffer_ = std::move(o.buffer_);
    written_ = o.written_;
    o.fd_ = -1;
  }
  return *this;
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Status FileWriter::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      buffer_.clear();
      return os_error(err, path_, "write failed");
    }
    done += static_cast<size_t>(n);
    written_ += static_cast<uint64_t>(n);
  }
  buffer_.clear();
  return ok_status();
}

Status FileWriter::write(std::string_view data) {
  if (fd_ < 0) return make_error(Errc::kInvalidArgument, "%s: write after close", path_.c_str());
  buffer_.append(data);
  if (buffer_.size() >= kWriteBuffer) RG_TRY(flush());
  return ok_status();
}

Status FileWriter::close() {
  if (fd_ < 0) return ok_status();
  Status flushed = flush();
  const int fd = fd_;
  fd_ = -1;
  const int rc = ::close(fd);
  RG_TRY(std::move(flushed));
  if (rc != 0) return os_error(errno, path_, "close failed");
  return ok_status();
}

Status write_file(const std::string& path, std::string_view data) {
  FileWriter w = RG_TRY(FileWriter::create(path));
  RG_TRY(w.write(data));
  return w.close();
}

}  // namespace rawgpu
