#include "tools/common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace crushkit::tools {
namespace {

// Closes its descriptor on every path out.
class Fd {
 public:
  Fd() = default;

  explicit Fd(int fd) : fd_(fd) {}

  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  ~Fd() { Close(); }

  int get() const { return fd_; }

  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  void Reset(int fd) {
    Close();
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

bool MakePipe(Fd* read_end, Fd* write_end) {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return false;
  read_end->Reset(fds[0]);
  write_end->Reset(fds[1]);
  return true;
}

// Kills the child's process group and reaps the child.
int KillAndReap(pid_t pid) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Starts argv in its own process group with stdin from /dev/null and
// stdout/stderr on the write ends given; returns its pid.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const Fd& out_w,
                            const Fd& err_w) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.get(), 2);
  // Its own process group, so the deadline kills whatever it started too.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    if (rc == ENOENT || rc == EACCES || rc == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat("cannot run '", argv[0], "': ", std::strerror(rc)));
    }
    return absl::InternalError(absl::StrCat("cannot run '", argv[0], "': ", std::strerror(rc)));
  }
  return pid;
}

// Reads the child's stdout and stderr into `result` until both close or the
// deadline passes (then sets result->timed_out). On an error the child is
// killed and reaped.
absl::Status ReadOutputs(pid_t pid, const std::string& program, Fd& out_r, Fd& err_r,
                         std::chrono::steady_clock::time_point deadline, std::size_t max_output,
                         ProcessResult* result) {
  std::array<char, 65536> buf{};
  bool out_open = true;
  bool err_open = true;
  while (out_open || err_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result->timed_out = true;
      return absl::OkStatus();
    }
    std::array<pollfd, 2> fds = {pollfd{out_open ? out_r.get() : -1, POLLIN, 0},
                                 pollfd{err_open ? err_r.get() : -1, POLLIN, 0}};
    const int n = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      KillAndReap(pid);
      return absl::InternalError(absl::StrCat("poll: ", std::strerror(saved)));
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[static_cast<std::size_t>(i)].fd < 0 || fds[static_cast<std::size_t>(i)].revents == 0)
        continue;
      Fd& fd = i == 0 ? out_r : err_r;
      std::string& sink = i == 0 ? result->out : result->err;
      const ssize_t got = ::read(fd.get(), buf.data(), buf.size());
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      sink.append(buf.data(), static_cast<std::size_t>(got));
      if (sink.size() > max_output) {
        KillAndReap(pid);
        return absl::ResourceExhaustedError(absl::StrCat("'", program, "' printed more than ",
                                                         max_output, " bytes on std",
                                                         i == 0 ? "out" : "err"));
      }
    }
  }
  return absl::OkStatus();
}

// Reaps the child once both pipes closed (it has exited, or closed them: the
// deadline still applies while waiting); returns its wait status.
int WaitForExit(pid_t pid, std::chrono::steady_clock::time_point deadline, ProcessResult* result) {
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      result->timed_out = true;
      status = KillAndReap(pid);
      break;
    }
    ::usleep(10000);
  }
  return status;
}

}  // namespace

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                         std::chrono::milliseconds timeout,
                                         std::size_t max_output) {
  if (argv.empty()) return absl::InvalidArgumentError("no program to run");
  Fd out_r, out_w, err_r, err_w;
  if (!MakePipe(&out_r, &out_w) || !MakePipe(&err_r, &err_w)) {
    return absl::InternalError(absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
  }
  absl::StatusOr<pid_t> pid = Spawn(argv, out_w, err_w);
  if (!pid.ok()) return pid.status();
  out_w.Close();
  err_w.Close();

  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const absl::Status read = ReadOutputs(*pid, argv[0], out_r, err_r, deadline, max_output, &result);
  if (!read.ok()) return read;
  const int status = result.timed_out ? KillAndReap(*pid) : WaitForExit(*pid, deadline, &result);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace crushkit::tools
