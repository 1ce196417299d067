#include "apiserver/write/body_codec.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <boost/json/basic_parser_impl.hpp>
#include <cstdint>
#include <string>

#include "api/yaml_json.h"
#include "apiserver/endpoints/protobuf.h"

namespace ksched::apiserver {

namespace json = boost::json;

namespace {

// Appends instead of operator+ chains, which GCC 12 misreports under -Warray-bounds.
std::string cat(std::string_view a, std::string_view b) {
  std::string out;
  out.reserve(a.size() + b.size());
  out.append(a).append(b);
  return out;
}

ApiError unsupported(std::string_view accepted) {
  return ApiError{
      415, "UnsupportedMediaType",
      cat("the body of the request was in an unknown format - accepted media types include: ", accepted)};
}

constexpr std::uint64_t kFnvOffset = 1469598103934665603ull;
std::uint64_t fnv(std::uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// boost::json's own parse handler (a value_stack), plus a check for repeated keys: the hash of
// every key of the open objects, on one stack. A small object compares each new key with the
// ones before it; a large one sorts its hashes when it closes. A hash collision only costs the
// second pass, which compares the keys themselves.
class CheckingHandler {
 public:
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  json::value_stack st;
  bool repeated = false;

  CheckingHandler(unsigned char* buf, std::size_t size, std::vector<std::uint64_t>& hashes,
                  std::vector<std::size_t>& frames)
      : st(json::storage_ptr(), buf, size), hashes_(hashes), frames_(frames) {
    hashes_.clear();
    frames_.clear();
  }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) {
    frames_.push_back(hashes_.size());
    return true;
  }
  bool on_object_end(std::size_t n, json::error_code&) {
    std::size_t begin = frames_.back();
    frames_.pop_back();
    if (!repeated && hashes_.size() - begin > kLinear) {
      std::sort(hashes_.begin() + static_cast<std::ptrdiff_t>(begin), hashes_.end());
      repeated = std::adjacent_find(hashes_.begin() + static_cast<std::ptrdiff_t>(begin), hashes_.end()) !=
                 hashes_.end();
    }
    hashes_.resize(begin);
    st.push_object(n);
    return true;
  }
  bool on_array_begin(json::error_code&) { return true; }
  bool on_array_end(std::size_t n, json::error_code&) {
    st.push_array(n);
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_hash_ = fnv(key_hash_, s);
    st.push_chars(s);
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    std::uint64_t h = fnv(key_hash_, s);
    key_hash_ = kFnvOffset;
    std::size_t begin = frames_.back();
    if (!repeated && hashes_.size() - begin < kLinear)
      for (std::size_t i = begin; i < hashes_.size(); ++i) repeated = repeated || hashes_[i] == h;
    hashes_.push_back(h);
    st.push_key(s);
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    st.push_string(s);
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
    st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) {
    st.push_uint64(u);
    return true;
  }
  bool on_double(double d, json::string_view, json::error_code&) {
    st.push_double(d);
    return true;
  }
  bool on_bool(bool b, json::error_code&) {
    st.push_bool(b);
    return true;
  }
  bool on_null(json::error_code&) {
    st.push_null();
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  static constexpr std::size_t kLinear = 16;
  std::vector<std::uint64_t>& hashes_;
  std::vector<std::size_t>& frames_;
  std::uint64_t key_hash_ = kFnvOffset;
};

// The second pass, only for a body with a repeated key: builds nothing, follows the path of each
// object (upstream's strict-error form) and records the keys it has seen twice.
class RepeatFinder {
 public:
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  explicit RepeatFinder(std::vector<DuplicateKey>* out) : out_(out) {}

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) {
    open(true);
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) {
    frames_.pop_back();
    return true;
  }
  bool on_array_begin(json::error_code&) {
    open(false);
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) {
    frames_.pop_back();
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    key_.append(s.data(), s.size());
    Frame& f = frames_.back();
    if (std::find(f.keys.begin(), f.keys.end(), key_) != f.keys.end()) {
      bool recorded = false;
      for (const auto& d : *out_) recorded = recorded || (d.object_path == f.path && d.key == key_);
      if (!recorded) out_->push_back(DuplicateKey{f.path, key_});
    } else {
      f.keys.push_back(key_);
    }
    f.key = std::move(key_);
    key_.clear();
    return true;
  }
  bool on_string_part(json::string_view, std::size_t, json::error_code&) { return true; }
  bool on_string(json::string_view, std::size_t, json::error_code&) { return scalar(); }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t, json::string_view, json::error_code&) { return scalar(); }
  bool on_uint64(std::uint64_t, json::string_view, json::error_code&) { return scalar(); }
  bool on_double(double, json::string_view, json::error_code&) { return scalar(); }
  bool on_bool(bool, json::error_code&) { return scalar(); }
  bool on_null(json::error_code&) { return scalar(); }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  struct Frame {
    bool object = false;
    std::string path;
    std::size_t index = 0;          // arrays: the next element's
    std::string key;                // objects: the current member's
    std::vector<std::string> keys;  // objects: the members seen
  };

  // The path of the value starting now; advances the enclosing array's index.
  std::string child_path() {
    if (frames_.empty()) return {};
    Frame& p = frames_.back();
    if (!p.object) return p.path + "[" + std::to_string(p.index++) + "]";
    return p.path.empty() ? p.key : p.path + "." + p.key;
  }
  void open(bool object) {
    std::string path = child_path();
    frames_.push_back(Frame{object, std::move(path), 0, {}, {}});
  }
  bool scalar() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }

  std::vector<DuplicateKey>* out_;
  std::vector<Frame> frames_;
  std::string key_;
};

constexpr std::string_view kAccepted = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

}  // namespace

json::value parse_json(std::string_view text, json::error_code& ec, std::vector<DuplicateKey>* duplicates) {
  // Reused per thread: two allocations per parse would cost more than the hashing.
  thread_local std::vector<std::uint64_t> hashes;
  thread_local std::vector<std::size_t> frames;
  unsigned char temp[BOOST_JSON_STACK_BUFFER_SIZE];
  json::basic_parser<CheckingHandler> p(json::parse_options(), temp, sizeof temp, hashes, frames);
  p.handler().st.reset(json::storage_ptr());
  std::size_t n = p.write_some(false, text.data(), text.size(), ec);
  if (!ec && n < text.size()) ec = json::error::extra_data;
  if (ec) return nullptr;
  json::value v = p.handler().st.release();
  if (p.handler().repeated && duplicates) {
    json::basic_parser<RepeatFinder> finder(json::parse_options(), duplicates);
    json::error_code ignored;
    finder.write_some(false, text.data(), text.size(), ignored);
  }
  return v;
}

std::variant<BodyEncoding, ApiError> body_encoding(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  if (media.empty()) return BodyEncoding::Json;
  // Media types compare case-insensitively (ASCII), without a lowered copy per request.
  auto is = [media](std::string_view lower) {
    return media.size() == lower.size() && std::equal(media.begin(), media.end(), lower.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == b;
           });
  };
  if (is("application/json")) return BodyEncoding::Json;
  if (is("application/yaml")) return BodyEncoding::Yaml;
  if (is("application/vnd.kubernetes.protobuf")) return BodyEncoding::Protobuf;
  return unsupported(kAccepted);
}

std::variant<json::object, ApiError> decode_body(std::string_view content_type, std::string_view body,
                                                 std::vector<DuplicateKey>* duplicates) {
  auto encoding = body_encoding(content_type);
  if (auto* e = std::get_if<ApiError>(&encoding)) return std::move(*e);
  std::string converted;
  std::string_view text = body;
  if (std::get<BodyEncoding>(encoding) == BodyEncoding::Protobuf) {
    // Protobuf bodies (kube-scheduler, kubectl create) become JSON once, up front.
    auto j = protobuf::to_json(body);
    if (!j) return unsupported(cat(cat(kAccepted, ": "), j.error()));
    converted = std::move(*j);
    text = converted;
  }
  json::error_code ec;
  std::size_t before = duplicates ? duplicates->size() : 0;
  json::value v = parse_json(text, ec, duplicates);
  if (ec && std::get<BodyEncoding>(encoding) == BodyEncoding::Yaml) {
    // YAML bodies: the same conversion (and scalar rules) as every other YAML we read.
    if (duplicates) duplicates->resize(before);
    auto y = api::yaml_text_to_json(body);
    if (!y) return bad_request(cat("error converting YAML to JSON: ", y.error()));
    v = std::move(*y);
  } else if (ec) {
    return bad_request(cat("couldn't get version/kind; json parse error: ", ec.message()));
  }
  if (!v.is_object())
    return bad_request(cat(cat("json: cannot unmarshal ", v.is_array() ? "array" : "value"),
                           " into Go value of type struct"));
  return std::move(v.get_object());
}

}  // namespace ksched::apiserver
