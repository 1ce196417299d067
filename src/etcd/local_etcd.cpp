#include "etcd/local_etcd.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "etcd/client.h"

extern char** environ;

namespace ksched::etcd {

namespace {
util::Result<int> free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return util::make_error("socket failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  ::close(fd);
  if (!ok) return util::make_error("no free loopback port");
  return static_cast<int>(ntohs(a.sin_port));
}
}  // namespace

bool LocalEtcd::installed() { return ::access(kBinary, X_OK) == 0; }

util::Result<std::unique_ptr<LocalEtcd>> LocalEtcd::start(const std::string& dir, const Tls* tls) {
  if (!installed()) return util::make_error(std::string(kBinary) + " is missing (Debian package etcd-server)");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return util::make_error("cannot create " + dir + ": " + ec.message());
  auto cp = free_port();
  auto pp = free_port();
  if (!cp || !pp) return util::make_error("etcd: no free loopback port");
  std::string client = (tls ? "https://127.0.0.1:" : "http://127.0.0.1:") + std::to_string(*cp);
  std::string peer = "http://127.0.0.1:" + std::to_string(*pp);
  std::vector<std::string> args = {kBinary,
                                   "--name=local",
                                   "--data-dir=" + dir + "/data",
                                   "--listen-client-urls=" + client,
                                   "--advertise-client-urls=" + client,
                                   "--listen-peer-urls=" + peer,
                                   "--initial-advertise-peer-urls=" + peer,
                                   "--initial-cluster=local=" + peer};
  if (tls)
    args.insert(args.end(), {"--cert-file=" + tls->cert_file, "--key-file=" + tls->key_file,
                             "--trusted-ca-file=" + tls->ca_file, "--client-cert-auth"});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  std::string log = dir + "/etcd.log";
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::unique_ptr<LocalEtcd> e(new LocalEtcd());
  int rc = ::posix_spawn(&e->pid_, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    e->pid_ = 0;
    return util::make_error(std::string("cannot start ") + kBinary);
  }
  e->url_ = client;
  // A request that waits for a connection tells when etcd serves (or that it never will).
  Options co{{client}, "", "", "", std::chrono::seconds(30)};
  if (tls) {
    co.ca_file = tls->ca_file;
    co.cert_file = tls->cert_file;
    co.key_file = tls->key_file;
  }
  auto c = Client::connect(co);
  if (!c) return util::make_error(c.error());
  if (auto r = (*c)->get("/"); !r) return util::make_error("etcd did not come up (see " + log + "): " + r.error());
  return e;
}

LocalEtcd::~LocalEtcd() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

double LocalEtcd::cpu_seconds() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  double ticks = 0;
  // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && rest >> field; ++i)
    if (i >= 14) ticks += std::stod(field);
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace ksched::etcd
