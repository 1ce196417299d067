#include "nodesim/dra_driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>


namespace ksched::nodesim {

namespace rv1 = api::resourcev1;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Lowercase letters, digits, '-' and '.', starting and ending with a letter or digit.
bool dns_subdomain(std::string_view v) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (v.empty() || !alnum(v.front()) || !alnum(v.back())) return false;
  return std::all_of(v.begin(), v.end(), [&](char c) { return alnum(c) || c == '-' || c == '.'; });
}

// A name part of a label key, short enough that "<it>Failed" is one too.
bool condition_type(std::string_view v) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (v.empty() || v.size() > 56 || !alnum(v.front()) || !alnum(v.back())) return false;
  return std::all_of(v.begin(), v.end(), [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool whole(std::string_view v, int lo, int hi, int& out) {
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && p == v.data() + v.size() && out >= lo && out <= hi;
}

util::Result<DraDriverSpec> parse_one(std::string_view spec) {
  auto fail = [&](std::string_view why) {
    return util::make_error("--dra-devices \"" + std::string(spec) + "\": " + std::string(why));
  };
  DraDriverSpec d;
  bool first = true;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    std::string_view item = trim(spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    start = comma == std::string_view::npos ? spec.size() + 1 : comma + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return fail("expected key=value, got \"" + std::string(item) + "\"");
    std::string_view k = trim(item.substr(0, eq)), v = trim(item.substr(eq + 1));
    if (first) {
      first = false;
      d.driver = std::string(k);
      if (!dns_subdomain(d.driver) || d.driver.size() > rv1::kDriverNameMaxLength)
        return fail("the driver name must be a DNS subdomain of at most 63 characters, such as gpu.ksched.dev");
      if (!whole(v, 0, 1024, d.devices)) return fail("the device count must be a whole number from 0 to 1024");
    } else if (k == "model") {
      if (v.empty() || v.size() > rv1::kDeviceAttributeMaxValueLength) return fail("model must be 1 to 64 characters");
      d.model = std::string(v);
    } else if (k == "memory") {
      auto q = api::Quantity::parse(v);
      if (!q || q->sign() <= 0) return fail("memory must be a positive quantity such as 40Gi");
      d.memory = q->to_string();
    } else if (k == "slices") {
      if (!whole(v, 1, 64, d.slices)) return fail("slices must be a whole number from 1 to 64");
    } else if (k == "partitions") {
      if (!whole(v, 0, 16, d.partitions)) return fail("partitions must be a whole number from 0 to 16");
    } else if (k == "bindingConditions") {
      // A condition type the API takes (a label name); "Failed" is appended for the failure one.
      if (!condition_type(v)) return fail("bindingConditions must be a condition type such as Attached (letters, digits, '-', '_', '.'; at most 56 characters)");
      d.binding_condition = std::string(v);
    } else if (k == "attachFailures") {
      if (!whole(v, 0, 1000000, d.attach_failures)) return fail("attachFailures must be a whole number from 0 to 1000000");
    } else {
      return fail("unknown key \"" + std::string(k) +
                  "\" (known: model, memory, slices, partitions, bindingConditions, attachFailures)");
    }
  }
  // Only devices with binding conditions are attached before a pod binds.
  if (d.attach_failures > 0 && d.binding_condition.empty())
    return fail("attachFailures needs bindingConditions: only devices with binding conditions are attached");
  return d;
}

rv1::DeviceAttribute int_attr(std::int64_t v) {
  rv1::DeviceAttribute a;
  a.int_ = v;
  return a;
}
rv1::DeviceAttribute string_attr(std::string_view v) {
  rv1::DeviceAttribute a;
  a.string = api::ThinString(v);
  return a;
}
rv1::DeviceAttribute version_attr(std::string_view v) {
  rv1::DeviceAttribute a;
  a.version = api::ThinString(v);
  return a;
}

rv1::Counter counter(const api::Quantity& q) {
  rv1::Counter c;
  c.value = q;
  return c;
}

}  // namespace

util::Result<std::vector<DraDriverSpec>> parse_dra_devices(std::string_view text) {
  std::vector<DraDriverSpec> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t semi = text.find(';', start);
    std::string_view spec = trim(text.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start));
    start = semi == std::string_view::npos ? text.size() + 1 : semi + 1;
    if (spec.empty()) continue;
    auto d = parse_one(spec);
    if (!d) return util::make_error(d.error());
    for (const auto& o : out)
      if (o.driver == d->driver) return util::make_error("--dra-devices: driver " + d->driver + " is given twice");
    out.push_back(std::move(*d));
  }
  return out;
}

std::string binding_failure_condition(std::string_view binding_condition) {
  return std::string(binding_condition) + "Failed";
}

std::vector<rv1::ResourceSlice> dra_slices(const DraDriverSpec& d, std::string_view node, std::string_view node_uid,
                                           std::int64_t generation) {
  const api::Quantity memory = api::Quantity::must(d.memory);
  // The devices, then the counter sets (partitionable: one per physical device).
  std::vector<rv1::Device> devices;
  std::vector<rv1::CounterSet> counter_sets;
  std::string prefix = d.driver.substr(0, d.driver.find('.'));  // "gpu" of gpu.ksched.dev
  for (int i = 0; i < d.devices; ++i) {
    std::string name = fmt::format("{}-{}", prefix, i);
    rv1::Device dev;
    dev.name = name;
    dev.attributes.set("index", int_attr(i));
    dev.attributes.set("model", string_attr(d.model));
    dev.attributes.set("driverVersion", version_attr("1.0.0"));
    dev.attributes.set(
        "uuid", string_attr(fmt::format("{}-{:016x}", prefix, std::hash<std::string>{}(std::string(node) + "/" + d.driver + "/" + name))));
    rv1::DeviceCapacity cap;
    cap.value = memory;
    dev.capacity.set("memory", cap);
    if (d.partitions > 0) {
      rv1::CounterSet set;
      set.name = name + "-counters";
      set.counters.set("memory", counter(memory));
      set.counters.set("partitions", counter(api::Quantity::from_int(d.partitions)));
      counter_sets.push_back(set);
      rv1::DeviceCounterConsumption whole;
      whole.counterSet = set.name;
      whole.counters = set.counters;
      dev.consumesCounters = std::vector<rv1::DeviceCounterConsumption>{whole};
      devices.push_back(dev);
      api::Quantity part_memory = api::Quantity::from_int(memory.value() / d.partitions, api::Quantity::Format::BinarySI);
      for (int j = 0; j < d.partitions; ++j) {
        rv1::Device p;
        p.name = fmt::format("{}-part-{}", name, j);
        p.attributes = dev.attributes;
        p.attributes.set("partition", int_attr(j));
        rv1::DeviceCapacity pc;
        pc.value = part_memory;
        p.capacity.set("memory", pc);
        rv1::DeviceCounterConsumption use;
        use.counterSet = set.name;
        use.counters.set("memory", counter(part_memory));
        use.counters.set("partitions", counter(api::Quantity::from_int(1)));
        p.consumesCounters = std::vector<rv1::DeviceCounterConsumption>{use};
        devices.push_back(std::move(p));
      }
    } else {
      devices.push_back(std::move(dev));
    }
  }
  if (!d.binding_condition.empty())
    for (auto& dev : devices) {
      dev.bindingConditions = std::vector<std::string>{d.binding_condition};
      dev.bindingFailureConditions = std::vector<std::string>{binding_failure_condition(d.binding_condition)};
    }
  // Slices: counter sets first (a slice holds either), at most 8 sets and 64 (with counters) or
  // 128 devices each, and at least `slices` slices of devices.
  const std::size_t per_slice =
      d.partitions > 0 ? rv1::kResourceSliceMaxDevicesWithTaintsOrConsumesCounters : rv1::kResourceSliceMaxDevices;
  std::size_t counter_slices = (counter_sets.size() + rv1::kResourceSliceMaxCounterSets - 1) / rv1::kResourceSliceMaxCounterSets;
  std::size_t device_slices = std::max<std::size_t>({static_cast<std::size_t>(d.slices), (devices.size() + per_slice - 1) / per_slice, 1});
  std::size_t total = counter_slices + device_slices;
  std::vector<rv1::ResourceSlice> out;
  auto slice = [&](std::size_t i) {
    rv1::ResourceSlice s;
    s.apiVersion = "resource.k8s.io/v1";
    s.kind = "ResourceSlice";
    s.metadata.name = fmt::format("{}-{}-{}", node, d.driver, i);
    api::OwnerReference owner;
    owner.apiVersion = "v1";
    owner.kind = "Node";
    owner.name = std::string(node);
    owner.uid = std::string(node_uid);
    owner.controller = true;
    s.metadata.ownerReferences = std::vector<api::OwnerReference>{owner};
    s.spec.driver = d.driver;
    s.spec.pool.name = node;
    s.spec.pool.generation = generation;
    s.spec.pool.resourceSliceCount = static_cast<std::int64_t>(total);
    s.spec.nodeName = std::string(node);
    return s;
  };
  for (std::size_t i = 0; i < counter_slices; ++i) {
    auto s = slice(out.size());
    std::size_t from = i * rv1::kResourceSliceMaxCounterSets;
    std::size_t to = std::min(counter_sets.size(), from + rv1::kResourceSliceMaxCounterSets);
    s.spec.sharedCounters.assign(counter_sets.begin() + static_cast<std::ptrdiff_t>(from),
                                 counter_sets.begin() + static_cast<std::ptrdiff_t>(to));
    out.push_back(std::move(s));
  }
  // Devices spread evenly over the device slices, in order.
  std::size_t per = (devices.size() + device_slices - 1) / std::max<std::size_t>(device_slices, 1);
  for (std::size_t i = 0; i < device_slices; ++i) {
    auto s = slice(out.size());
    std::size_t from = std::min(devices.size(), i * per), to = std::min(devices.size(), from + per);
    s.spec.devices.assign(devices.begin() + static_cast<std::ptrdiff_t>(from), devices.begin() + static_cast<std::ptrdiff_t>(to));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ksched::nodesim
