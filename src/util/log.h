// Structured logging in klog's line format (or JSON, as --logging-format=json):
//   I1129 21:15:46.123456   12345 server.cpp:42] "Starting Kubernetes Scheduler" version="v1.32.0"
// Verbosity follows klog: V(n) messages print when -v >= n.
#pragma once
#include <fmt/format.h>

#include <atomic>
#include <initializer_list>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>

namespace ksched::log {

enum class Format { Text, Json };

struct KV {
  std::string_view key;
  std::string value;
  bool quoted;
  template <class T>
  KV(std::string_view k, const T& v) : key(k) {
    if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      value = std::string(std::string_view(v));
      quoted = true;
    } else if constexpr (std::is_same_v<T, bool>) {
      value = v ? "true" : "false";
      quoted = false;
    } else {
      value = fmt::format("{}", v);
      quoted = !std::is_arithmetic_v<T>;
    }
  }
};

using KVs = std::initializer_list<KV>;

void init(int verbosity, Format format = Format::Text);
int verbosity();
void set_verbosity(int v);
Format format();

// Writes one record. severity is one of 'I', 'W', 'E', 'F'.
void write(char severity, std::string_view msg, KVs kvs, const std::source_location& loc, int v = 0);

inline void info(std::string_view msg, KVs kvs = {}, std::source_location loc = std::source_location::current()) {
  write('I', msg, kvs, loc);
}
inline void warning(std::string_view msg, KVs kvs = {},
                    std::source_location loc = std::source_location::current()) {
  write('W', msg, kvs, loc);
}
inline void error(std::string_view msg, KVs kvs = {}, std::source_location loc = std::source_location::current()) {
  write('E', msg, kvs, loc);
}

// V(n).info(...) prints only at verbosity >= n.
class Verbose {
 public:
  explicit Verbose(int level) : level_(level), enabled_(level <= verbosity()) {}
  bool enabled() const { return enabled_; }
  void info(std::string_view msg, KVs kvs = {}, std::source_location loc = std::source_location::current()) const {
    if (enabled_) write('I', msg, kvs, loc, level_);
  }

 private:
  int level_;
  bool enabled_;
};

// On hot paths write `if (auto v = log::V(n); v.enabled()) v.info(...)`: the key/value strings are
// then not built when the level is off.
inline Verbose V(int level) { return Verbose(level); }

// Escapes a string for a quoted klog value or JSON string.
std::string quote(std::string_view s);

}  // namespace ksched::log
