// Continue tokens: upstream's wire form, and upstream's error texts for tokens a client made up.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/storage/continue_token.h"

namespace ksched::apiserver {
namespace {

// Unpadded base64url, written out here so the test does not use the code under test.
std::string raw_url(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buf = (buf << 8) | c;
    bits += 8;
    while (bits >= 6) out += t[(buf >> (bits -= 6)) & 63];
  }
  if (bits) out += t[(buf << (6 - bits)) & 63];
  return out;
}

std::string error_of(const std::string& token) {
  auto r = decode_continue(token);
  return r ? "decoded" : r.error();
}

TEST(ContinueToken, RoundTripsInUpstreamsWireForm) {
  const std::string token = encode_continue(42, "default/web-1");
  EXPECT_EQ(token, raw_url(R"({"v":"meta.k8s.io/v1","rv":42,"start":"default/web-1\u0000"})"));
  EXPECT_EQ(token.find('='), std::string::npos);
  auto back = decode_continue(token);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(back->rv, 42);
  EXPECT_EQ(back->start, "default/web-1");
  // Upstream's own tokens (no NUL, unknown fields, a negative revision) are read too.
  auto other = decode_continue(raw_url(R"({"v":"meta.k8s.io/v1","rv":-1,"start":"a","rc":3})"));
  ASSERT_TRUE(other) << other.error();
  EXPECT_EQ(other->rv, -1);
  EXPECT_EQ(other->start, "a");
}

TEST(ContinueToken, RejectsWhatUpstreamRejectsWithItsMessages) {
  EXPECT_EQ(error_of("!!"), "continue key is not valid: illegal base64 data at input byte 0");
  EXPECT_EQ(error_of("eyJ2Ijo="), "continue key is not valid: illegal base64 data at input byte 7");
  EXPECT_EQ(error_of("eyJ2I"), "continue key is not valid: illegal base64 data at input byte 4");
  EXPECT_EQ(error_of(raw_url("xyz")), "continue key is not valid: invalid character 'x' looking for beginning of value");
  EXPECT_EQ(error_of(raw_url(R"({"v":)")), "continue key is not valid: unexpected end of JSON input");
  EXPECT_EQ(error_of(raw_url("[1]")),
            "continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken");
  EXPECT_EQ(error_of(raw_url(R"({"v":"meta.k8s.io/v1","rv":"5","start":"a"})")),
            "continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64");
  EXPECT_EQ(error_of(raw_url(R"({"v":"meta.k8s.io/v1","rv":1.5,"start":"a"})")),
            "continue key is not valid: json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64");
  EXPECT_EQ(error_of(raw_url(R"({"v":"v2","rv":5,"start":"a"})")),
            "continue key is not valid: server does not recognize this encoded version v2");
  EXPECT_EQ(error_of(raw_url(R"({"v":"meta.k8s.io/v1","start":"a"})")),
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  EXPECT_EQ(error_of(raw_url(R"({"v":"meta.k8s.io/v1","rv":5})")),
            "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
  // A start key that would climb out of the list's prefix.
  EXPECT_EQ(error_of(raw_url(R"({"v":"meta.k8s.io/v1","rv":5,"start":"../kube-system/x"})")),
            "continue key is not valid: ../kube-system/x");
  EXPECT_EQ(error_of(raw_url(R"({"v":"meta.k8s.io/v1","rv":5,"start":"a//b"})")), "continue key is not valid: a//b");
}

}  // namespace
}  // namespace ksched::apiserver
