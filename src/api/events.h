// events.k8s.io/v1 Event (what the scheduler's event recorder writes). The core/v1 Event is
// api::Event in core.h; this one lives in api::eventsv1 to keep both names upstream-shaped.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "api/core.h"

namespace ksched::api::eventsv1 {

#define KSCHED_F(name) field(#name, &T::name)

// events/v1 EventSeries has the same shape as core/v1's.
using EventSeries = ::ksched::api::EventSeries;

struct Event {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::optional<MicroTime> eventTime;  // required; written as null when unset, like upstream
  Boxed<EventSeries> series;
  std::string reportingController;
  std::string reportingInstance;
  std::string action;
  std::string reason;
  ObjectReference regarding;
  Boxed<ObjectReference> related;
  std::string note;
  std::string type;  // Normal | Warning
  Boxed<EventSource> deprecatedSource;
  std::optional<Time> deprecatedFirstTimestamp;
  std::optional<Time> deprecatedLastTimestamp;
  std::int32_t deprecatedCount = 0;
  Presence present;
  Extra extra;
};
constexpr auto describe(type_tag<Event>) {
  using T = Event;
  return field_list(KSCHED_F(apiVersion),
                    KSCHED_F(kind),
                    KSCHED_F(metadata),
                    KSCHED_F(eventTime),
                    KSCHED_F(series),
                    KSCHED_F(reportingController),
                    KSCHED_F(reportingInstance),
                    KSCHED_F(action),
                    KSCHED_F(reason),
                    KSCHED_F(regarding),
                    KSCHED_F(related),
                    KSCHED_F(note),
                    KSCHED_F(type),
                    KSCHED_F(deprecatedSource),
                    KSCHED_F(deprecatedFirstTimestamp),
                    KSCHED_F(deprecatedLastTimestamp),
                    KSCHED_F(deprecatedCount));
}

#undef KSCHED_F

}  // namespace ksched::api::eventsv1
