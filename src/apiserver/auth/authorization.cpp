#include "apiserver/auth/authorization.h"

#include "apiserver/auth/rbac_authorizer.h"

namespace ksched::apiserver {

util::Result<AuthorizationMode> parse_authorization_mode(std::string_view s) {
  if (s == "RBAC") return AuthorizationMode::RBAC;
  if (s == "AlwaysAllow") return AuthorizationMode::AlwaysAllow;
  return util::make_error("--authorization-mode: unknown authorization mode \"" + std::string(s) +
                          "\" (supported: RBAC, AlwaysAllow)");
}

Attributes attributes_of(const UserInfo& user, const RequestInfo& info) {
  Attributes a;
  a.user = &user;
  a.verb = info.verb;
  a.resource_request = info.resource_request;
  a.path = info.path;
  a.group = info.group;
  a.version = info.version;
  a.resource = info.resource;
  a.subresource = info.subresource;
  a.ns = info.ns;
  a.name = info.name();
  return a;
}

namespace {

// The message must not read as HTML (quotes stay).
std::string sanitize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string go_quote_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += ' ';
    out += go_quote(v[i]);
  }
  return out + "]";
}

ApiError forbidden_error(const Attributes& a, std::string_view reason) {
  const std::string user = a.user ? go_quote(a.user->name) : go_quote("");
  std::string msg;
  if (!a.resource_request) {
    msg = "User " + user + " cannot " + std::string(a.verb) + " path " + go_quote(a.path);
  } else {
    std::string resource(a.resource);
    if (!a.subresource.empty()) resource += "/" + std::string(a.subresource);
    msg = "User " + user + " cannot " + std::string(a.verb) + " resource " + go_quote(resource) +
          " in API group " + go_quote(a.group) +
          (a.ns.empty() ? " at the cluster scope" : " in the namespace " + go_quote(a.ns));
  }
  msg = sanitize(msg);
  if (!reason.empty()) msg += ": " + std::string(reason);
  // apierrors.NewForbidden(GroupResource{group, resource}, name, err).
  ApiError e{403, "Forbidden", ""};
  const std::string gr =
      a.group.empty() ? std::string(a.resource) : std::string(a.resource) + "." + std::string(a.group);
  if (gr.empty())
    e.message = "forbidden: " + msg;
  else if (a.name.empty())
    e.message = gr + " is forbidden: " + msg;
  else
    e.message = gr + " " + go_quote(a.name) + " is forbidden: " + msg;
  e.group = std::string(a.group);
  e.kind = std::string(a.resource);
  e.name = std::string(a.name);
  return e;
}

bool is_privileged(const UserInfo& user) {
  for (const auto& g : user.groups)
    if (g == kPrivilegedGroup) return true;
  return false;
}

Authorizer::Authorizer(const Store& store) : rbac_(std::make_unique<RbacAuthorizer>(store)) {}
Authorizer::~Authorizer() = default;

bool Authorizer::allows(const Attributes& a) const {
  if (mode_ == AuthorizationMode::AlwaysAllow || is_privileged(*a.user)) return true;
  return rbac_->allows(a);
}

AuthorizationResult Authorizer::authorize(const Attributes& a) const {
  if (mode_ == AuthorizationMode::AlwaysAllow || is_privileged(*a.user)) return {true, ""};
  return rbac_->authorize(a);
}

}  // namespace ksched::apiserver
