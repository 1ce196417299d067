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

}  // namespace
}  // namespace ksched::scheduler::app
