// Whole-file reads and writes for tools and loaders, with the errors a user can act on: the OS's
// reason (strerror) and the path, a directory named as such, a size limit on untrusted input
// (pipes and devices such as /dev/zero have no size, so the limit is checked while reading), and
// write failures (a full disk, /dev/full) reported instead of lost in a stream's state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rawgpu/base/error.h"
#include "rawgpu/base/function_ref.h"

namespace rawgpu {

// An error for a failed OS call on `path`: kNotFound for ENOENT, kPermission for EACCES/EPERM,
// kIo otherwise; the message is "PATH: DOING: strerror(err)".
Error os_error(int err, std::string_view path, std::string_view doing);

struct ReadLimits {
  uint64_t max_bytes = uint64_t{1} << 30;
  // Added to the error when the file is larger than max_bytes ("is this the right file?").
  std::string_view too_big_hint;
};

// Reads `path` in chunks of at most 1 MiB and hands each to `sink` (stops at the first error
// sink returns). Errors: os_error() for open/read failures; kInvalidArgument when path is a
// directory; kOutOfRange once more than limits.max_bytes were read (or a regular file is larger).
Status read_file_chunks(const std::string& path, const ReadLimits& limits,
                        FunctionRef<Status(std::string_view)> sink);
// The whole file, same errors.
Result<std::string> read_file(const std::string& path, const ReadLimits& limits = {});

// Writes a file through a small buffer; every failure (open, write, close) is an os_error().
// A FileWriter that is destroyed without close() closes its descriptor and ignores errors.
class FileWriter {
 public:
  // Creates or truncates `path` (mode 0644 before the umask).
  static Result<FileWriter> create(const std::string& path);
  FileWriter(FileWriter&& other) noexcept;
  FileWriter& operator=(FileWriter&& other) noexcept;
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;
  ~FileWriter();

  Status write(std::string_view data);
  // Flushes the buffer and closes; the first write error (ENOSPC...) is reported here at the
  // latest.
  Status close();
  uint64_t bytes_written() const { return written_; }

 private:
  FileWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Status flush();
  int fd_ = -1;
  std::string path_;
  std::string buffer_;
  uint64_t written_ = 0;
};

// create + write + close.
Status write_file(const std::string& path, std::string_view data);

}  // namespace rawgpu
