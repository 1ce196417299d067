// Label and field selector behaviour, cases taken from upstream's selector tests.
#include <gtest/gtest.h>

#include "api/fields.h"
#include "api/labels.h"

using namespace ksched;
using ksched::api::StringMap;

namespace {

labels::Selector must_parse(std::string_view s) {
  auto r = labels::Selector::parse(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.error());
  return r.ok() ? r.value() : labels::Selector::nothing();
}

}  // namespace

TEST(LabelSelectorParse, AcceptsUpstreamGoodInputs) {
  for (const char* s : {"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5",
                        "x in (a)", "x in (a,b)", "x notin (a)", "x in (,,b)", "x in ()", "x in (in)",
                        "notin notin (notin)", "x in (a, b)", "  x  ", "example.com/key=v", "a.b-c_d=e_f.g-h"}) {
    EXPECT_TRUE(labels::Selector::parse(s).ok()) << s;
  }
}

TEST(LabelSelectorParse, RejectsUpstreamBadInputs) {
  for (const char* s : {"x=a||y=b", "x==a==b", "!x=a", "x<a", "x>a", "x in (a", "x in a)", "x notin", "x=a b",
                        ",x=a", "x=a,", "x in (a) b", "x in (a,)b", "-x=a", "x=-a", "/x", "Example.com/x=y",
                        "x=(a)", "x>1.5", "y<-2"}) {
    EXPECT_FALSE(labels::Selector::parse(s).ok()) << s;
  }
}

TEST(LabelSelectorParse, ErrorMessagesMatchUpstream) {
  EXPECT_EQ(labels::Selector::parse("x=a,").error(), "found '', expected: identifier after ','");
  EXPECT_EQ(labels::Selector::parse("x=a b").error(), "found 'b', expected: ',' or 'end of string'");
  EXPECT_EQ(labels::Selector::parse(",x").error(), "found ',', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(labels::Selector::parse("x (a)").error(),
            "unable to parse requirement: found '(', expected: '=', '!=', '==', 'in', notin'");
  EXPECT_EQ(labels::Selector::parse("x in a").error(), "unable to parse requirement: found 'a' expected: '('");
  EXPECT_EQ(labels::Selector::parse("x>a").error(),
            "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value "
            "must be an integer");
  EXPECT_EQ(labels::Selector::parse("-x").error(),
            "unable to parse requirement: <nil>: Invalid value: \"-x\": name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
            "or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(labels::Selector::parse("x=a_").error(),
            "unable to parse requirement: values[0][x]: Invalid value: \"a_\": a valid label must be an empty "
            "string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

TEST(LabelSelectorParse, CanonicalStringSortsByKeyAndValues) {
  EXPECT_EQ(must_parse("z=c,x=a,y=b").to_string(), "x=a,y=b,z=c");
  EXPECT_EQ(must_parse("x in (c,a,b,a)").to_string(), "x in (a,b,c)");
  EXPECT_EQ(must_parse("x in (,,b)").to_string(), "x in (,b)");
  EXPECT_EQ(must_parse("x in ()").to_string(), "x in ()");
  EXPECT_EQ(must_parse("  !x ,  y  ").to_string(), "!x,y");
  EXPECT_EQ(must_parse("x==a").to_string(), "x==a");
  EXPECT_EQ(must_parse("x=").to_string(), "x=");
  EXPECT_EQ(must_parse("x>1,y<2").to_string(), "x>1,y<2");
  EXPECT_EQ(must_parse("notin notin (in,notin)").to_string(), "notin notin (in,notin)");
}

TEST(LabelSelectorMatch, Semantics) {
  StringMap l{{"x", "a"}, {"y", "b"}, {"n", "5"}};
  EXPECT_TRUE(must_parse("").matches(l));
  EXPECT_TRUE(must_parse("x=a").matches(l));
  EXPECT_TRUE(must_parse("x==a,y=b").matches(l));
  EXPECT_FALSE(must_parse("x=b").matches(l));
  EXPECT_TRUE(must_parse("x!=b").matches(l));
  EXPECT_TRUE(must_parse("z!=b").matches(l));  // missing key satisfies !=
  EXPECT_TRUE(must_parse("z notin (a)").matches(l));
  EXPECT_FALSE(must_parse("z in (a)").matches(l));
  EXPECT_TRUE(must_parse("x in (a,b)").matches(l));
  EXPECT_FALSE(must_parse("x notin (a,b)").matches(l));
  EXPECT_TRUE(must_parse("x").matches(l));
  EXPECT_FALSE(must_parse("!x").matches(l));
  EXPECT_TRUE(must_parse("!z").matches(l));
  EXPECT_TRUE(must_parse("n>4").matches(l));
  EXPECT_FALSE(must_parse("n>5").matches(l));
  EXPECT_TRUE(must_parse("n<6").matches(l));
  EXPECT_FALSE(must_parse("x>1").matches(l));  // non-integer label value never matches Gt/Lt
  EXPECT_FALSE(must_parse("z<1").matches(l));
  EXPECT_TRUE(must_parse("x=").matches(StringMap{{"x", ""}}));
  EXPECT_FALSE(must_parse("x=").matches(StringMap{}));
}

TEST(LabelKeyValidation, QualifiedNames) {
  EXPECT_TRUE(labels::validate_label_key("app").empty());
  EXPECT_TRUE(labels::validate_label_key("kubernetes.io/hostname").empty());
  EXPECT_TRUE(labels::validate_label_key("a.b/C_d.e").empty());
  EXPECT_TRUE(labels::validate_label_key(std::string(63, 'a')).empty());
  EXPECT_EQ(labels::validate_label_key(std::string(64, 'a')),
            std::vector<std::string>{"name part must be no more than 63 characters"});
  EXPECT_EQ(labels::validate_label_key("/a"), std::vector<std::string>{"prefix part must be non-empty"});
  auto e = labels::validate_label_key("a/");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], "name part must be non-empty");
  EXPECT_FALSE(labels::validate_label_key("A.com/x").empty());
  EXPECT_EQ(labels::validate_label_key(std::string(254, 'a') + "/x").size(), 1u);
  EXPECT_EQ(labels::validate_label_key(std::string(254, 'a') + "/x")[0],
            "prefix part must be no more than 253 characters");
  EXPECT_EQ(labels::validate_label_key("a/b/c").size(), 1u);
  EXPECT_TRUE(labels::validate_label_value("").empty());
  EXPECT_TRUE(labels::validate_label_value("A-b_c.9").empty());
  EXPECT_EQ(labels::validate_label_value(std::string(64, 'a')),
            std::vector<std::string>{"must be no more than 63 characters"});
}

TEST(LabelSelectorAsSelector, NilEmptyAndExpressions) {
  EXPECT_TRUE(labels::from_label_selector(nullptr)->is_nothing());
  EXPECT_FALSE(labels::from_label_selector(nullptr)->matches(StringMap{}));
  api::LabelSelector empty;
  EXPECT_TRUE(labels::from_label_selector(&empty)->empty());
  EXPECT_TRUE(labels::from_label_selector(&empty)->matches(StringMap{{"a", "b"}}));

  api::LabelSelector ls;
  ls.matchLabels.set("app", "web");
  ls.matchExpressions.push_back({"tier", "In", {"fe", "be"}});
  ls.matchExpressions.push_back({"legacy", "DoesNotExist", {}});
  auto sel = labels::from_label_selector(&ls);
  ASSERT_TRUE(sel.ok()) << sel.error();
  EXPECT_EQ(sel->to_string(), "app=web,!legacy,tier in (be,fe)");
  EXPECT_TRUE(sel->matches(StringMap{{"app", "web"}, {"tier", "fe"}}));
  EXPECT_FALSE(sel->matches(StringMap{{"app", "web"}, {"tier", "fe"}, {"legacy", "1"}}));

  api::LabelSelector bad_in;
  bad_in.matchExpressions.push_back({"k", "In", {}});
  EXPECT_EQ(labels::from_label_selector(&bad_in).error(),
            "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty");
  api::LabelSelector bad_exists;
  bad_exists.matchExpressions.push_back({"k", "Exists", {"v"}});
  EXPECT_EQ(labels::from_label_selector(&bad_exists).error(),
            "values: Invalid value: []string{\"v\"}: values set must be empty for exists and does not exist");
  api::LabelSelector bad_op;
  bad_op.matchExpressions.push_back({"k", "Gt", {"1"}});
  EXPECT_EQ(labels::from_label_selector(&bad_op).error(), "\"Gt\" is not a valid label selector operator");
  api::LabelSelector bad_key;
  bad_key.matchLabels.set("-k", "v");
  EXPECT_EQ(labels::from_label_selector(&bad_key).error().rfind("key: Invalid value: \"-k\": name part", 0), 0u);
}

TEST(LabelSelectorFromSet, ExactMatch) {
  auto sel = labels::from_set(StringMap{{"b", "2"}, {"a", "1"}});
  EXPECT_EQ(sel.to_string(), "a=1,b=2");
  EXPECT_TRUE(sel.matches(StringMap{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_FALSE(sel.matches(StringMap{{"a", "1"}}));
  EXPECT_TRUE(labels::from_set(StringMap{}).empty());
}

TEST(FieldSelector, ParseAndMatch) {
  auto s = fields::Selector::parse("status.phase!=Succeeded,status.phase!=Failed");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->requirements().size(), 2u);
  EXPECT_TRUE(s->matches(fields::FieldSet{{"status.phase", "Running"}}));
  EXPECT_FALSE(s->matches(fields::FieldSet{{"status.phase", "Failed"}}));
  EXPECT_EQ(s->to_string(), "status.phase!=Failed,status.phase!=Succeeded");

  auto n = fields::Selector::parse("metadata.name==p1,spec.nodeName=");
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->matches(fields::FieldSet{{"metadata.name", "p1"}}));  // missing field reads as ""
  EXPECT_FALSE(n->matches(fields::FieldSet{{"metadata.name", "p1"}, {"spec.nodeName", "n"}}));
  EXPECT_TRUE(fields::Selector::parse("")->empty());
  EXPECT_TRUE(fields::Selector::parse(",,")->empty());
}

TEST(FieldSelector, EscapesAndErrors) {
  auto s = fields::Selector::parse(R"(a=x\,y\=z\\,b!=c)");
  ASSERT_TRUE(s.ok()) << s.error();
  ASSERT_EQ(s->requirements().size(), 2u);
  EXPECT_EQ(s->requirements()[0].value, R"(x,y=z\)");
  EXPECT_TRUE(s->matches(fields::FieldSet{{"a", R"(x,y=z\)"}}));
  EXPECT_EQ(s->to_string(), R"(a=x\,y\=z\\,b!=c)");
  EXPECT_EQ(fields::Selector::parse("abc").error(), "invalid selector: 'abc'; can't understand 'abc'");
  EXPECT_EQ(fields::Selector::parse(R"(a=\x)").error(), R"(invalid field selector: invalid escape sequence: \x)");
  EXPECT_EQ(fields::Selector::parse(R"(a=b\)").error(), R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(fields::Selector::parse("a=b=c").error(), "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(fields::Selector::parse("a!==b").error(), "invalid field selector: unescaped character in value: 61");
}

TEST(LabelRequirement, MakeRequirementValidatesLikeNewRequirement) {
  auto gt = labels::make_requirement("cores", labels::Operator::GreaterThan, {"4"});
  ASSERT_TRUE(gt.ok());
  EXPECT_TRUE(gt->matches(StringMap{{"cores", "8"}}));
  EXPECT_FALSE(gt->matches(StringMap{{"cores", "4"}}));
  EXPECT_EQ(labels::make_requirement("cores", labels::Operator::LessThan, {"1", "2"}).error(),
            "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one value is required");
  EXPECT_EQ(labels::make_requirement("k", labels::Operator::Equals, {}).error(),
            "values: Invalid value: []string{}: exact-match compatibility requires one single value");
  auto two = labels::make_requirement("-k", labels::Operator::Exists, {"v"});
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().front(), '[');  // several errors are aggregated as a list
}
