#include "apiserver/endpoints/request_options.h"

#include <cstdio>
#include <limits>

#include "util/go_format.h"

namespace ksched::apiserver {

util::Result<std::int64_t> parse_go_int64(std::string_view s) {
  auto fail = [&](std::string_view why) {
    return util::make_error("strconv.ParseInt: parsing " + util::go_quote(s) + ": " + std::string(why));
  };
  std::size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size()) return fail("invalid syntax");
  // Magnitudes up to 2^63 (the most negative value) fit; past that only the syntax is checked.
  constexpr std::uint64_t kMax = std::uint64_t{1} << 63;
  std::uint64_t v = 0;
  bool overflow = false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return fail("invalid syntax");
    const auto d = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (kMax - d) / 10) overflow = true;
    if (!overflow) v = v * 10 + d;
  }
  if (overflow || (!neg && v == kMax)) return fail("value out of range");
  if (neg) return v == kMax ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(v);
  return static_cast<std::int64_t>(v);
}

util::Result<std::optional<std::int64_t>, ApiError> query_int64(const Request& req, std::string_view key) {
  const std::string* v = req.param(key);
  if (!v) return std::optional<std::int64_t>{};
  auto n = parse_go_int64(*v);
  if (!n) return bad_request(n.error());
  return std::optional<std::int64_t>{*n};
}

std::vector<std::string> query_values(const Request& req, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& [k, v] : req.query)
    if (k == key) out.push_back(v);
  return out;
}

ApiError options_invalid(std::string_view kind, std::vector<Cause> causes) {
  std::string list;
  for (std::size_t i = 0; i < causes.size(); ++i) {
    if (i) list += ", ";
    list += causes[i].field + ": " + causes[i].message;
  }
  ApiError e{422, "Invalid",
             std::string(kind) + ".meta.k8s.io \"\" is invalid: " + (causes.size() > 1 ? "[" + list + "]" : list)};
  e.group = "meta.k8s.io";
  e.kind = std::string(kind);
  e.causes = std::move(causes);
  return e;
}

namespace {

// field.NotSupported's detail: the supported values, each quoted.
std::string supported_values(std::initializer_list<std::string_view> values) {
  std::string out = "supported values: ";
  bool first = true;
  for (auto v : values) {
    if (!first) out += ", ";
    first = false;
    out += util::go_quote(v);
  }
  return out;
}

Cause forbidden(std::string field, const std::string& detail) {
  return Cause{"FieldValueForbidden", "Forbidden: " + detail, std::move(field)};
}

Cause not_supported(std::string field, const std::string& value, std::initializer_list<std::string_view> values) {
  return Cause{"FieldValueNotSupported", "Unsupported value: " + value + ": " + supported_values(values),
               std::move(field)};
}

// unicode.IsPrint's exceptions that a field manager may plausibly carry: control characters and
// the spaces and format characters other than U+0020.
bool go_is_print(char32_t r) {
  if (r < 0x20 || (r >= 0x7f && r <= 0xa0) || r == 0xad) return false;
  if (r == 0x1680 || (r >= 0x2000 && r <= 0x200f) || (r >= 0x2028 && r <= 0x202f) || (r >= 0x205f && r <= 0x206f) ||
      r == 0x3000 || r == 0xfeff)
    return false;
  return true;
}

// ValidateFieldManager: at most 128 bytes, every rune printable.
void validate_field_manager(const std::string& m, std::vector<Cause>& causes) {
  if (m.size() > 128) causes.push_back(Cause{"FieldValueTooLong", "Too long: may not be more than 128 bytes", "fieldManager"});
  for (std::size_t i = 0; i < m.size();) {
    const auto c = static_cast<unsigned char>(m[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + len > m.size()) len = 1;
    char32_t r = len == 1 ? c : c & (0x7f >> len);
    for (std::size_t k = 1; k < len; ++k) r = (r << 6) | (static_cast<unsigned char>(m[i + k]) & 0x3f);
    if (len == 1 && c >= 0x80) r = 0xfffd;  // invalid UTF-8 decodes as U+FFFD, which prints
    if (!go_is_print(r)) {
      char rune[16];
      std::snprintf(rune, sizeof rune, "U+%04X", static_cast<unsigned>(r));
      causes.push_back(Cause{"FieldValueInvalid",
                             "Invalid value: " + util::go_quote(m) + ": invalid character " + rune + " (at position " +
                                 std::to_string(i) + ")",
                             "fieldManager"});
    }
    i += len;
  }
}

}  // namespace

void validate_dry_run(const std::vector<std::string>& dry_run, std::vector<Cause>& causes) {
  bool ok = true;
  for (const auto& v : dry_run) ok = ok && v == "All";
  if (ok) return;
  // The bad value is the whole list, as Go's %#v prints a []string.
  std::string value = "[]string{";
  for (std::size_t i = 0; i < dry_run.size(); ++i) value += (i ? ", " : "") + util::go_quote(dry_run[i]);
  value += "}";
  causes.push_back(not_supported("dryRun", value, {"All"}));
}

std::optional<ApiError> check_write_options(const Request& req, WriteOptionsKind kind) {
  std::vector<Cause> causes;
  if (kind == WriteOptionsKind::Patch && req.param("force"))
    causes.push_back(forbidden("force", "may not be specified for non-apply patch"));
  if (const std::string* m = req.param("fieldManager")) validate_field_manager(*m, causes);
  validate_dry_run(query_values(req, "dryRun"), causes);
  if (causes.empty()) return std::nullopt;
  const char* options = kind == WriteOptionsKind::Create   ? "CreateOptions"
                        : kind == WriteOptionsKind::Update ? "UpdateOptions"
                                                           : "PatchOptions";
  return options_invalid(options, std::move(causes));
}

std::optional<ApiError> check_list_options(const Request& req) {
  // Decoding first, in the order of ListOptions' fields, as the parameter codec converts them.
  for (std::string_view key : {"timeoutSeconds", "limit"}) {
    auto v = query_int64(req, key);
    if (!v) return v.error();
  }
  const std::string* rv = req.param("resourceVersion");
  const std::string* match = req.param("resourceVersionMatch");
  const std::string* cont = req.param("continue");
  const bool has_match = match && !match->empty();
  const bool has_continue = cont && !cont->empty();
  const bool send_initial_events = req.param("sendInitialEvents") != nullptr;
  std::vector<Cause> causes;
  if (query_bool(req.param("watch"))) {
    if (send_initial_events && (!match || *match != "NotOlderThan"))
      causes.push_back(
          forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    if (has_match) {
      if (!send_initial_events)
        causes.push_back(
            forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      if (*match != "NotOlderThan")
        causes.push_back(not_supported("resourceVersionMatch", util::go_quote(*match), {"NotOlderThan"}));
      if (has_continue)
        causes.push_back(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    }
  } else {
    if (has_match) {
      if (!rv || rv->empty())
        causes.push_back(
            forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      if (has_continue)
        causes.push_back(forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
      if (*match != "Exact" && *match != "NotOlderThan")
        causes.push_back(not_supported("resourceVersionMatch", util::go_quote(*match), {"Exact", "NotOlderThan", ""}));
      if (*match == "Exact" && rv && *rv == "0")
        causes.push_back(forbidden("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
    }
    if (send_initial_events) causes.push_back(forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
  }
  if (causes.empty()) return std::nullopt;
  return options_invalid("ListOptions", std::move(causes));
}

std::optional<ApiError> check_table_options(const Request& req) {
  const std::string* v = req.param("includeObject");
  if (!v || v->empty() || *v == "None" || *v == "Metadata" || *v == "Object") return std::nullopt;
  return bad_request("includeObject: Invalid value: " + util::go_quote(*v) +
                     ": must be 'Metadata', 'Object', 'None', or empty");
}

}  // namespace ksched::apiserver
