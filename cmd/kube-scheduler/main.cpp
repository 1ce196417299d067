// kube-scheduler: drop-in replacement for upstream's binary. The program lives in src/scheduler/app.
#include "scheduler/app/app.h"
#include "util/huge_page_region.h"

int main(int argc, char** argv) {
  ksched::util::use_huge_pages_for_heap();
  return ksched::scheduler::app::run_kube_scheduler(argc, argv);
}
