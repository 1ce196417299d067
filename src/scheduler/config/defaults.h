// Upstream defaulting for kubescheduler.config.k8s.io/v1 (pkg/scheduler/apis/config/v1/defaults.go,
// default_plugins.go), applied after decoding.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "scheduler/config/types.h"

namespace ksched::scheduler::config {

// The v1.32 default plugin set: every default plugin in `multiPoint`, in upstream order, with
// the default Score weights; NodeDeclaredFeatures last when its gate is on (features.h).
Plugins default_plugins();

// Extension points implemented by each in-tree plugin (default ones plus DynamicResources),
// in the order of kSpecificExtensionPoints. Used for multiPoint expansion.
const std::map<std::string, std::vector<ExtensionPoint>, std::less<>>& default_plugin_extension_points();

// Upstream mergePluginSet / mergePlugins: user config on top of the defaults.
PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom);
Plugins merge_plugins(const Plugins& defaults, const Plugins& custom);

// Default args for an in-tree plugin that has an args type; std::monostate otherwise.
PluginArgs default_args_for(std::string_view plugin_name);
// Fill unset fields of decoded args (weights 0 -> 1, empty resource lists -> cpu/memory, ...).
void default_args(PluginArgs& args);

// Profile defaulting: merge plugins with the defaults, add defaulted args for each enabled
// in-tree plugin without a pluginConfig entry (sorted by plugin name, like upstream).
void set_profile_defaults(KubeSchedulerProfile& profile);

// Whole-config defaulting that does not depend on field presence: adds the default profile when
// none, names a single unnamed profile "default-scheduler", defaults each profile, fills empty
// leader-election/client-connection values. Extenders are not defaulted here (upstream defaults
// httpTimeout=5s when building the extender client; see kDefaultExtenderTimeout).
// (Presence-dependent defaults, e.g. enableContentionProfiling, are applied by the loader.)
void set_defaults(KubeSchedulerConfiguration& cfg);

// A fully defaulted configuration, as an empty v1 document decodes to.
KubeSchedulerConfiguration default_configuration();

}  // namespace ksched::scheduler::config
