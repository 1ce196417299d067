// api::StatusError: the Status the server writes is the Status the client reads, with the same
// typed reasons on both sides.
#include "api/status_error.h"

#include <gtest/gtest.h>

namespace ksched::api {
namespace {

TEST(StatusError, StatusBodyIsSurfaced) {
  auto e = StatusError::from_response(
      404, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"x\" not found","reason":"NotFound","details":{"name":"x","kind":"pods"},"code":404})");
  EXPECT_TRUE(e.from_status);
  EXPECT_TRUE(is_not_found(e));
  EXPECT_FALSE(is_conflict(e));
  EXPECT_EQ(e.message, "pods \"x\" not found");
  EXPECT_EQ(e.name, "x");
  EXPECT_EQ(e.kind, "pods");
  auto exists = StatusError::from_response(409, R"({"kind":"Status","reason":"AlreadyExists","message":"m","code":409})");
  EXPECT_TRUE(is_already_exists(exists));
  EXPECT_FALSE(is_conflict(exists));
  auto conflict = StatusError::from_response(409, R"({"kind":"Status","reason":"Conflict","message":"m","code":409})");
  EXPECT_TRUE(is_conflict(conflict));
  auto gone = StatusError::from_response(410, R"j({"kind":"Status","reason":"Expired","message":"too old resource version: 1 (5)","code":410})j");
  EXPECT_TRUE(is_gone(gone));
}

TEST(StatusError, PlainBodyTakesItsReasonFromTheHttpStatus) {
  auto plain = StatusError::from_response(429, "Too many requests, please try again later.\n", 1);
  EXPECT_FALSE(plain.from_status);
  EXPECT_TRUE(is_too_many_requests(plain));
  EXPECT_EQ(plain.retry_after_seconds, 1);
  EXPECT_EQ(plain.reason, "TooManyRequests");
  EXPECT_EQ(plain.message, "the server responded with status 429: Too many requests, please try again later.");
  auto empty = StatusError::from_response(503, "");
  EXPECT_EQ(empty.reason, "ServiceUnavailable");
  EXPECT_EQ(empty.to_string(), "the server responded with status 503");
  EXPECT_TRUE(is_timeout(StatusError::from_response(504, "")));
  EXPECT_FALSE(is_timeout(empty));
  auto dropped = StatusError::transport("read 127.0.0.1:6443: end of stream");
  EXPECT_TRUE(is_transport(dropped));
  EXPECT_EQ(dropped.to_string(), "read 127.0.0.1:6443: end of stream");
}

TEST(StatusError, CausesAreTypedReasons) {
  // What our server (and kube-apiserver since v1.19) answers a read ahead of its revision.
  auto ahead = StatusError::from_response(
      504, R"({"kind":"Status","status":"Failure","message":"Timeout: Too large resource version: 9, current: 5",)"
           R"("reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}]},"code":504})");
  ASSERT_EQ(ahead.causes.size(), 1u);
  EXPECT_EQ(ahead.causes[0].reason, "ResourceVersionTooLarge");
  EXPECT_TRUE(has_status_cause(ahead, "ResourceVersionTooLarge"));
  EXPECT_TRUE(is_too_large_resource_version(ahead));
  EXPECT_FALSE(is_gone(ahead));
  // Older servers set no cause; the message alone still says it.
  auto old_server = StatusError::from_response(504, R"({"kind":"Status","message":"Too large resource version: 9","reason":"Timeout","code":504})");
  EXPECT_TRUE(is_too_large_resource_version(old_server));
  auto timeout = StatusError::from_response(504, R"({"kind":"Status","message":"request timed out","reason":"Timeout","code":504})");
  EXPECT_FALSE(is_too_large_resource_version(timeout));
}

TEST(StatusError, WhatTheServerWritesTheClientReadsBack) {
  StatusError invalid{.code = 422, .reason = "Invalid", .message = "Pod \"p\" is invalid: spec.containers: Required value",
                      .name = "p", .kind = "Pod",
                      .causes = {{"FieldValueRequired", "Required value", "spec.containers"}}};
  EXPECT_EQ(invalid.to_json(),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Pod \"p\" is invalid: spec.containers: Required value","reason":"Invalid",)"
            R"("details":{"name":"p","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]},"code":422})");
  auto read = StatusError::from_response(422, invalid.to_json());
  EXPECT_TRUE(is_invalid(read));
  EXPECT_EQ(read.message, invalid.message);
  EXPECT_EQ(read.name, "p");
  EXPECT_TRUE(has_status_cause(read, "FieldValueRequired"));
  ASSERT_EQ(read.causes.size(), 1u);
  EXPECT_EQ(read.causes[0].field, "spec.containers");

  StatusError busy{.code = 429, .reason = "TooManyRequests", .message = "too many requests", .retry_after_seconds = 2};
  auto read_busy = StatusError::from_response(429, busy.to_json());
  EXPECT_EQ(read_busy.retry_after_seconds, 2);
  EXPECT_TRUE(is_too_many_requests(read_busy));
}

TEST(StatusError, InvalidUtf8InAMessageIsReplacedOnTheWire) {
  StatusError e{.code = 400, .reason = "BadRequest", .message = std::string("bad name \xff")};
  auto read = StatusError::from_response(400, e.to_json());
  EXPECT_TRUE(read.from_status);
  EXPECT_EQ(read.message, "bad name \xEF\xBF\xBD");
  // The details too: a 403 names the resource and group of whatever URL was asked for.
  StatusError forbidden{.code = 403, .reason = "Forbidden", .message = "forbidden", .name = "n\xff",
                        .group = "g\xff", .kind = "r\xff", .uid = "u\xff"};
  auto back = StatusError::from_response(403, forbidden.to_json());
  EXPECT_EQ(back.kind, "r\xEF\xBF\xBD");
  EXPECT_EQ(back.group, "g\xEF\xBF\xBD");
  EXPECT_EQ(back.name, "n\xEF\xBF\xBD");
}

// A plain body's first 512 bytes become the message: a character the limit would split is left
// out whole and invalid bytes are replaced, so the message survives our own encoding (the fuzzer
// found a two-byte character at bytes 511-512 that did not).
TEST(StatusError, PlainBodyMessageIsCutBetweenCharacters) {
  std::string body(511, 'a');
  body += "\xDD\x9C";  // U+075C, bytes 511 and 512
  body += "tail";
  auto e = StatusError::from_response(500, body);
  EXPECT_EQ(e.message, "the server responded with status 500: " + std::string(511, 'a'));
  auto read = StatusError::from_response(500, e.to_json());
  EXPECT_TRUE(read.from_status);
  EXPECT_EQ(read.message, e.message);
  auto bad = StatusError::from_response(500, "x\xFFy");
  EXPECT_EQ(bad.message, "the server responded with status 500: x\xEF\xBF\xBDy");
  // A Status without a message falls back the same way, and reads back unchanged.
  std::string status = R"({"kind":"Status","details":{"name":")" + std::string(480, 'n') + "\xDD\x9C" + R"("}})";
  auto s = StatusError::from_response(400, status);
  ASSERT_TRUE(s.from_status);
  auto again = StatusError::from_response(s.code, s.to_json());
  EXPECT_EQ(again.message, s.message);
}

}  // namespace
}  // namespace ksched::api
