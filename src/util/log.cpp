#include "util/log.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace ksched::log {
namespace {
std::atomic<int> g_verbosity{0};
std::atomic<Format> g_format{Format::Text};
std::mutex g_mu;

std::string_view basename(std::string_view path) {
  auto pos = path.rfind('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}
}  // namespace

void init(int verbosity, Format f) {
  g_verbosity = verbosity;
  g_format = f;
}
int verbosity() { return g_verbosity.load(std::memory_order_relaxed); }
void set_verbosity(int v) { g_verbosity = v; }
Format format() { return g_format.load(); }

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

void write(char severity, std::string_view msg, KVs kvs, const std::source_location& loc, int v) {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  auto tid = static_cast<long>(::syscall(SYS_gettid));
  std::string line;
  line.reserve(160);
  if (format() == Format::Json) {
    auto ts = std::chrono::duration<double>(now.time_since_epoch()).count();
    line = fmt::format("{{\"ts\":{:.6f},\"caller\":\"{}:{}\",\"msg\":{},\"v\":{}", ts, basename(loc.file_name()),
                       loc.line(), quote(msg), v);
    if (severity == 'E') line = fmt::format("{{\"ts\":{:.6f},\"caller\":\"{}:{}\",\"msg\":{}", ts,
                                            basename(loc.file_name()), loc.line(), quote(msg));
    for (const auto& kv : kvs) {
      line += fmt::format(",{}:{}", quote(kv.key), kv.quoted ? quote(kv.value) : kv.value);
    }
    line += "}\n";
  } else {
    line = fmt::format("{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {:>7} {}:{}] {}", severity, tm.tm_mon + 1, tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec, micros, tid, basename(loc.file_name()), loc.line(),
                       quote(msg));
    for (const auto& kv : kvs) {
      line += ' ';
      line += kv.key;
      line += '=';
      line += kv.quoted ? quote(kv.value) : kv.value;
    }
    line += '\n';
  }
  std::lock_guard l(g_mu);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ksched::log
