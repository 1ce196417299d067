// Thread names (visible in top -H, perf, /proc/<pid>/task/*/comm) so CPU time can be attributed
// to a stage: the bench's CPU breakdown groups threads by these prefixes.
#pragma once
#include <pthread.h>

#include <string>
#include <string_view>

namespace ksched::util {

// Linux limits names to 15 bytes; longer names are cut.
inline void set_thread_name(std::string_view name) {
  std::string n(name.substr(0, 15));
  pthread_setname_np(pthread_self(), n.c_str());
}

}  // namespace ksched::util
