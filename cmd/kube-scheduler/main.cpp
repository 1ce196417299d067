// kube-scheduler: drop-in replacement for upstream's binary. The program lives in src/scheduler/app.
#include "scheduler/app/app.h"

int main(int argc, char** argv) { return ksched::scheduler::app::run_kube_scheduler(argc, argv); }
