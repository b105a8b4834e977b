#include "rawgpu/base/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "rawgpu/base/poll.h"

extern char** environ;

namespace rawgpu {

namespace {
bool is_executable_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}
}  // namespace

std::optional<std::string> find_executable(std::string_view name,
                                           const std::vector<std::string>& extra_dirs) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    std::string p(name);
    return is_executable_file(p) ? std::optional<std::string>(p) : std::nullopt;
  }
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (true) {
      const size_t colon = rest.find(':');
      dirs.emplace_back(rest.substr(0, colon));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const std::string& dir : dirs) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + std::string(name);
    if (is_executable_file(candidate)) return candidate;
  }
  return std::nullopt;
}

Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                  const CommandOptions& options) {
  if (argv.empty()) return make_error(Errc::kInvalidArgument, "run_command: empty argv");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return make_error(Errc::kIo, "pipe2: %s", std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return make_error(Errc::kIo, "cannot start %s: %s", argv[0].c_str(), std::strerror(rc));
  }

  CommandResult result;
  const Deadline deadline(std::chrono::duration_cast<Nanos>(options.timeout));
  bool timed_out = false;
  char buf[4096];
  for (;;) {
    const auto remaining_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline.remaining()).count();
    if (remaining_ms <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd pfd = {fds[0], POLLIN, 0};
    const int pr = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(remaining_ms, 1000)));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child closed its output
    const size_t room = options.max_output - std::min(options.max_output, result.output.size());
    result.output.append(buf, std::min(room, static_cast<size_t>(n)));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    return make_error(Errc::kTimeout, "%s did not finish within %lld ms and was killed",
                      argv[0].c_str(), static_cast<long long>(options.timeout.count()));
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace rawgpu
