#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "client/config.h"

namespace fs = std::filesystem;
using namespace ksched::client;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ksched-client-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) {
    auto p = path / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

const char* kBasic = R"(apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
- name: other
  cluster: {server: "http://10.0.0.1:8080"}
users:
- name: admin
  user: {token: secret-token}
- name: certuser
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
contexts:
- name: local
  context: {cluster: local, user: admin, namespace: team-a}
- name: other
  context: {cluster: other, user: certuser}
current-context: local
)";

}  // namespace

TEST(Kubeconfig, CurrentContextTokenAndCAData) {
  auto c = kubeconfig_from_string(kBasic);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->host, "https://127.0.0.1:6443");
  EXPECT_EQ(c->ca_pem, "-----BEGIN CERTIFICATE-----\n");
  EXPECT_EQ(c->bearer_token, "secret-token");
  EXPECT_EQ(c->namespace_, "team-a");
  EXPECT_FALSE(c->insecure);
  EXPECT_EQ(c->qps, 50);
  EXPECT_EQ(c->burst, 100);
}

TEST(Kubeconfig, ContextOverrideSelectsClientCertificate) {
  auto c = kubeconfig_from_string(kBasic, ".", "other");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->host, "http://10.0.0.1:8080");
  EXPECT_EQ(c->cert_pem, "cert");
  EXPECT_EQ(c->key_pem, "key");
  EXPECT_EQ(c->bearer_token, "");
  EXPECT_EQ(c->namespace_, "default");
}

TEST(Kubeconfig, ErrorsNameTheMissingPiece) {
  auto missing_ctx = kubeconfig_from_string(kBasic, ".", "nope");
  ASSERT_FALSE(missing_ctx.ok());
  EXPECT_NE(missing_ctx.error().find("context was not found for specified context: nope"), std::string::npos);

  auto no_cluster = kubeconfig_from_string(R"(contexts: [{name: c, context: {cluster: x, user: u}}]
current-context: c)");
  ASSERT_FALSE(no_cluster.ok());
  EXPECT_NE(no_cluster.error().find("cluster \"x\""), std::string::npos) << no_cluster.error();

  auto no_server = kubeconfig_from_string(R"(clusters: [{name: x, cluster: {}}]
contexts: [{name: c, context: {cluster: x}}]
current-context: c)");
  ASSERT_FALSE(no_server.ok());
  EXPECT_NE(no_server.error().find("has no server defined"), std::string::npos) << no_server.error();

  auto no_user = kubeconfig_from_string(R"(clusters: [{name: x, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: x, user: ghost}}]
current-context: c)");
  ASSERT_FALSE(no_user.ok());
  EXPECT_NE(no_user.error().find("user \"ghost\""), std::string::npos) << no_user.error();

  auto bad_b64 = kubeconfig_from_string(R"(clusters: [{name: x, cluster: {server: "https://h:1", certificate-authority-data: "!!"}}]
contexts: [{name: c, context: {cluster: x}}]
current-context: c)");
  ASSERT_FALSE(bad_b64.ok());
  EXPECT_NE(bad_b64.error().find("illegal base64"), std::string::npos) << bad_b64.error();

  auto bad_yaml = kubeconfig_from_string("clusters: [unclosed");
  ASSERT_FALSE(bad_yaml.ok());
  EXPECT_NE(bad_yaml.error().find("yaml"), std::string::npos) << bad_yaml.error();

  auto no_current = kubeconfig_from_string("clusters: []\n");
  ASSERT_FALSE(no_current.ok());
  EXPECT_NE(no_current.error().find("current-context"), std::string::npos) << no_current.error();

  auto insecure_with_ca = kubeconfig_from_string(R"(clusters: [{name: x, cluster: {server: "https://h:1", insecure-skip-tls-verify: true, certificate-authority-data: "Y2E="}}]
contexts: [{name: c, context: {cluster: x}}]
current-context: c)");
  ASSERT_FALSE(insecure_with_ca.ok());
  EXPECT_NE(insecure_with_ca.error().find("insecure"), std::string::npos);
}

TEST(Kubeconfig, RelativeFilesResolveAgainstTheirKubeconfig) {
  TempDir d;
  d.write("certs/ca.crt", "CA-PEM");
  d.write("certs/token", "file-token\n");
  auto path = d.write("cfg/../config", R"(clusters: [{name: x, cluster: {server: "https://h:1", certificate-authority: certs/ca.crt}}]
users: [{name: u, user: {tokenFile: certs/token}}]
contexts: [{name: c, context: {cluster: x, user: u}}]
current-context: c
)");
  KubeconfigOptions o;
  o.explicit_path = path;
  auto c = load_kubeconfig(o);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->ca_pem, "CA-PEM");
  EXPECT_EQ(c->bearer_token, "file-token");

  d.write("bad", R"(clusters: [{name: x, cluster: {server: "https://h:1", certificate-authority: nothere.crt}}]
contexts: [{name: c, context: {cluster: x}}]
current-context: c
)");
  o.explicit_path = (d.path / "bad").string();
  auto bad = load_kubeconfig(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("nothere.crt"), std::string::npos) << bad.error();

  o.explicit_path = (d.path / "absent").string();
  auto absent = load_kubeconfig(o);
  ASSERT_FALSE(absent.ok());
  EXPECT_NE(absent.error().find("absent"), std::string::npos);
}

TEST(Kubeconfig, KubeconfigEnvMergesFirstWins) {
  TempDir d;
  auto a = d.write("a", R"(clusters: [{name: x, cluster: {server: "https://first:1"}}]
users: [{name: u, user: {token: tok-a}}]
contexts: [{name: c, context: {cluster: x, user: u}}]
)");
  auto b = d.write("b", R"(clusters: [{name: x, cluster: {server: "https://second:2"}}, {name: y, cluster: {server: "https://y:3"}}]
contexts: [{name: c, context: {cluster: y}}, {name: d, context: {cluster: y, user: u}}]
current-context: d
)");
  KubeconfigOptions o;
  o.kubeconfig_env = a + ":" + (d.path / "missing").string() + ":" + b;
  auto c = load_kubeconfig(o);
  ASSERT_TRUE(c.ok()) << c.error();
  // current-context "d" comes from b (a sets none); user u comes from a.
  EXPECT_EQ(c->host, "https://y:3");
  EXPECT_EQ(c->bearer_token, "tok-a");
  o.context = "c";  // the first definition of context c (from a) wins
  auto c2 = load_kubeconfig(o);
  ASSERT_TRUE(c2.ok()) << c2.error();
  EXPECT_EQ(c2->host, "https://first:1");
}

TEST(Kubeconfig, HomeDefaultAndNothingConfigured) {
  TempDir d;
  KubeconfigOptions o;
  o.kubeconfig_env = "";
  o.home = d.path.string();
  auto none = load_kubeconfig(o);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("no configuration has been provided"), std::string::npos);
  d.write(".kube/config", R"(clusters: [{name: x, cluster: {server: "h:5"}}]
contexts: [{name: c, context: {cluster: x}}]
current-context: c
)");
  auto c = load_kubeconfig(o);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->host, "https://h:5");
}

TEST(InCluster, ReadsServiceAccountFiles) {
  TempDir d;
  InClusterOptions o;
  o.root = d.path.string();
  o.service_host = "10.96.0.1";
  o.service_port = "443";
  auto missing = in_cluster_config(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("token"), std::string::npos);
  d.write("token", "sa-token\n");
  d.write("ca.crt", "SA-CA");
  d.write("namespace", "kube-system");
  auto c = in_cluster_config(o);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c->host, "https://10.96.0.1:443");
  EXPECT_EQ(c->bearer_token, "sa-token");
  EXPECT_EQ(c->ca_pem, "SA-CA");
  EXPECT_EQ(c->namespace_, "kube-system");
  o.service_host = "fd00::1";
  EXPECT_EQ(in_cluster_config(o)->host, "https://[fd00::1]:443");
  o.service_host = "";
  auto noenv = in_cluster_config(o);
  ASSERT_FALSE(noenv.ok());
  EXPECT_NE(noenv.error().find("KUBERNETES_SERVICE_HOST"), std::string::npos);
}
