// kube-scheduler: drop-in replacement for upstream's binary. Startup lives in src/scheduler/app.
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--version")) {
      std::printf("Kubernetes v1.32.0-ksched.%s\n", KSCHED_VERSION);
      return 0;
    }
  }
  std::fprintf(stderr, "kube-scheduler: not yet wired (see issue 6)\n");
  return 1;
}
