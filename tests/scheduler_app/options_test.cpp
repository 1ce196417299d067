// kube-scheduler's flags: pflag semantics where they differ from a plain single-value option.
#include "scheduler/app/options.h"

#include <gtest/gtest.h>

namespace ksched::scheduler::app {
namespace {

util::Result<Options> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "kube-scheduler");
  return parse_flags(static_cast<int>(args.size()), args.data());
}

TEST(Flags, AlwaysAllowPathsReplaceTheDefaultAndRepeatedFlagsAddUp) {
  auto defaults = parse({});
  ASSERT_TRUE(defaults.ok()) << defaults.error();
  EXPECT_EQ(defaults->authorization_always_allow_paths, (std::vector<std::string>{"/healthz", "/readyz", "/livez"}));
  auto o = parse({"--authorization-always-allow-paths=/healthz,/metrics", "--authorization-always-allow-paths", "/debug/explain"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->authorization_always_allow_paths, (std::vector<std::string>{"/healthz", "/metrics", "/debug/explain"}));
}

TEST(Flags, ExplainCacheSizeIsOffByDefaultAndMustNotBeNegative) {
  auto defaults = parse({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->explain_cache_size, 0);
  auto o = parse({"--explain-cache-size=50"});
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->explain_cache_size, 50);
  EXPECT_FALSE(parse({"--explain-cache-size=-1"}).ok());
}

// --feature-gates: pflag's parsing (names and values trimmed), then featuregate's rules, with the
// flag's error prefix; the help lists the alpha and beta gates under the flag.
TEST(Flags, FeatureGatesAreCheckedAsUpstreamDoes) {
  auto unknown = parse({"--feature-gates=SchedulerPopFromBackoffQ=false,Bogus=true"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error(), "invalid argument \"SchedulerPopFromBackoffQ=false,Bogus=true\" for \"--feature-gates\" flag: "
                             "unrecognized feature gate: Bogus");
  auto locked = parse({"--feature-gates=SchedulerQueueingHints=false"});
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error(), "invalid argument \"SchedulerQueueingHints=false\" for \"--feature-gates\" flag: "
                            "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true");
  auto ok = parse({"--feature-gates= SchedulerQueueingHints = true ,PodLevelResources=false"});
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok->feature_gates.at("SchedulerQueueingHints"), true);
  EXPECT_EQ(ok->feature_gates.at("PodLevelResources"), false);
  EXPECT_EQ(ok->feature_gate_warnings,
            (std::vector<std::string>{"Setting GA feature gate SchedulerQueueingHints=true. It will be removed in a future release."}));
  EXPECT_NE(usage().find("Options are:\n" + std::string(49, ' ') + "APIResponseCompression=true|false (BETA - default=true)\n"),
            std::string::npos);
}

}  // namespace
}  // namespace ksched::scheduler::app
