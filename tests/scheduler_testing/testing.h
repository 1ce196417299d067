// Umbrella header for scheduler test helpers: builders (MakePod/MakeNode) and fakes
// (FakeHandle, FakeSnapshot, FakeClusterLister, FakeClusterClient, InlineParallelizer).
#pragma once
#include "scheduler_testing/builders.h"
#include "scheduler_testing/fakes.h"
