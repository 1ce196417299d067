// resource.Quantity parsing, canonical strings and arithmetic (cases after upstream quantity_test).
#include <gtest/gtest.h>

#include "api/quantity.h"

using ksched::api::Quantity;

namespace {
std::string canon(std::string_view s) {
  auto q = Quantity::parse(s);
  return q.ok() ? q->to_string() : "ERR: " + q.error();
}
const std::string kFormatErr =
    "ERR: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const std::string kSuffixErr = "ERR: unable to parse quantity's suffix";
}  // namespace

TEST(Quantity, CanonicalForms) {
  struct Case {
    const char* in;
    const char* want;
  } cases[] = {
      {"0", "0"},         {"0n", "0"},          {"0Ki", "0"},        {"0.0", "0"},        {"-0", "0"},
      {"000", "0"},       {"1n", "1n"},         {"1u", "1u"},        {"1m", "1m"},        {"1", "1"},
      {"1k", "1k"},       {"1M", "1M"},         {"1G", "1G"},        {"1T", "1T"},        {"1P", "1P"},
      {"1E", "1E"},       {"1Ki", "1Ki"},       {"1Mi", "1Mi"},      {"1Gi", "1Gi"},      {"1Ti", "1Ti"},
      {"1Pi", "1Pi"},     {"1Ei", "1Ei"},       {"1000m", "1"},      {"1000", "1k"},      {"1500m", "1500m"},
      {"1.5Gi", "1536Mi"}, {"0.1", "100m"},     {"0.5", "500m"},     {"1.01", "1010m"},   {"1e3", "1e3"},
      {"1E6", "1e6"},     {"10e3", "10e3"},     {"1e-3", "1e-3"},    {"100m", "100m"},    {"1024Mi", "1Gi"},
      {"1025Ki", "1025Ki"}, {"1023Ki", "1023Ki"}, {"0.1Ki", "102400m"}, {"12.34Ki", "12636160m"},
      {"512Ki", "512Ki"}, {"1.5", "1500m"},     {"-1Ki", "-1Ki"},    {"-1m", "-1m"},      {"+1", "1"},
      {"0.0000000001", "1n"}, {"-0.0000000001", "-1n"}, {"1.0000000001", "1000000001n"},
      {"123456789n", "123456789n"}, {"1.5k", "1500"}, {"1.G", "1G"}, {".5", "500m"}, {"0100m", "100m"},
      {"9223372036854775807", "9223372036854775807"}, {"8Ei", "9223372036854775807"},
      {"1000E", "1000E"}, {"0.5Ki", "512"}, {"2048", "2048"}, {"1.5e3", "1500"}, {"100u", "100u"},
      // Binary, whole, but not a multiple of 1024: plain digits, as upstream (a fuzzer finding;
      // printing that again gives "320k", since the digits parse as decimal).
      {"312.5Ki", "320000"}, {"320000", "320k"},
  };
  for (const auto& c : cases) EXPECT_EQ(canon(c.in), c.want) << c.in;
}

TEST(Quantity, Errors) {
  for (const char* s : {"", "aaa", "1.1.1", " 1", "1 ", "1.1.M", "1Mx", "0x10"}) {
    EXPECT_EQ(canon(s), kFormatErr) << s;
  }
  for (const char* s : {"1i", "1e", "1kK", ".5i", "-3.01e-", "1+1", "1.5Gii", "--1", "0.1mi", "1e1000000000000"}) {
    EXPECT_EQ(canon(s), kSuffixErr) << s;
  }
  EXPECT_THROW(Quantity::must("x"), std::invalid_argument);
  EXPECT_FALSE(Quantity::parse("1e40").ok());  // beyond what we represent
}

TEST(Quantity, ValueAndMilliValueRoundUp) {
  EXPECT_EQ(Quantity::must("1.5").value(), 2);
  EXPECT_EQ(Quantity::must("-1.5").value(), -2);
  EXPECT_EQ(Quantity::must("1m").value(), 1);
  EXPECT_EQ(Quantity::must("1.1m").milli_value(), 2);
  EXPECT_EQ(Quantity::must("0.1m").milli_value(), 1);
  EXPECT_EQ(Quantity::must("250m").milli_value(), 250);
  EXPECT_EQ(Quantity::must("2").milli_value(), 2000);
  EXPECT_EQ(Quantity::must("1Gi").value(), 1073741824);
  EXPECT_EQ(Quantity::must("1e3").value(), 1000);
  EXPECT_EQ(Quantity::must("1E").value(), 1000000000000000000);
  EXPECT_EQ(Quantity::must("8Ei").value(), INT64_MAX);
  EXPECT_EQ(Quantity::must("100E").value(), INT64_MAX);  // saturates like upstream's int64 conversion
  EXPECT_TRUE(Quantity::must("0m").is_zero());
  EXPECT_EQ(Quantity::must("-5").sign(), -1);
}

TEST(Quantity, ArithmeticAndComparison) {
  auto q = Quantity::must("1");
  q += Quantity::must("500m");
  EXPECT_EQ(q.to_string(), "1500m");
  q -= Quantity::must("1500m");
  EXPECT_TRUE(q.is_zero());
  Quantity zero;
  zero += Quantity::must("1Ki");
  EXPECT_EQ(zero.format(), Quantity::Format::BinarySI);
  EXPECT_EQ(zero.to_string(), "1Ki");
  EXPECT_EQ((Quantity::must("1Gi") + Quantity::must("512Mi")).to_string(), "1536Mi");
  EXPECT_EQ((Quantity::must("100m") - Quantity::must("200m")).to_string(), "-100m");
  EXPECT_GT(Quantity::must("1Gi"), Quantity::must("1G"));
  EXPECT_EQ(Quantity::must("1000m"), Quantity::must("1"));
  EXPECT_LT(Quantity::must("-1"), Quantity::must("0"));
  EXPECT_EQ(Quantity::from_int(3).to_string(), "3");
  EXPECT_EQ(Quantity::from_milli(1500).to_string(), "1500m");
  EXPECT_EQ(Quantity::from_int(2048, Quantity::Format::BinarySI).to_string(), "2Ki");
  EXPECT_EQ(Quantity::from_int(100, Quantity::Format::BinarySI).to_string(), "100");
}
