#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "tls/certs.h"

using namespace ksched;

namespace {
X509* load(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return x;
}

// Verifies `leaf` against `ca` with OpenSSL's own chain verification and host/IP checks.
bool verifies(const std::string& leaf_pem, const std::string& ca_pem, const char* host, const char* ip) {
  X509* leaf = load(leaf_pem);
  X509* ca = load(ca_pem);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf, nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx);
  if (host) X509_VERIFY_PARAM_set1_host(param, host, 0);
  if (ip) X509_VERIFY_PARAM_set1_ip_asc(param, ip);
  bool ok = X509_verify_cert(ctx) == 1;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(leaf);
  X509_free(ca);
  return ok;
}
}  // namespace

TEST(Certs, SignedCertificateVerifiesForItsNamesOnly) {
  auto ca = tls::generate_ca("test-ca");
  ASSERT_TRUE(ca.ok()) << ca.error();
  auto srv = tls::generate_signed(*ca, "server", {"localhost"}, {"127.0.0.1"});
  ASSERT_TRUE(srv.ok()) << srv.error();
  EXPECT_TRUE(verifies(srv->cert_pem, ca->cert_pem, "localhost", nullptr));
  EXPECT_TRUE(verifies(srv->cert_pem, ca->cert_pem, nullptr, "127.0.0.1"));
  EXPECT_FALSE(verifies(srv->cert_pem, ca->cert_pem, "example.com", nullptr));
  EXPECT_FALSE(verifies(srv->cert_pem, ca->cert_pem, nullptr, "10.0.0.1"));
  auto other_ca = tls::generate_ca("other-ca");
  ASSERT_TRUE(other_ca.ok());
  EXPECT_FALSE(verifies(srv->cert_pem, other_ca->cert_pem, "localhost", nullptr));
}

TEST(Certs, SelfSignedServingCarriesItsChain) {
  auto pair = tls::generate_self_signed_serving("ksched");
  ASSERT_TRUE(pair.ok()) << pair.error();
  auto second = pair->cert_pem.find("-----BEGIN CERTIFICATE-----", 10);
  ASSERT_NE(second, std::string::npos) << "expected serving cert followed by its CA";
  EXPECT_TRUE(verifies(pair->cert_pem.substr(0, second), pair->cert_pem.substr(second), "localhost", "127.0.0.1"));
  EXPECT_NE(pair->key_pem.find("PRIVATE KEY"), std::string::npos);
}

TEST(Certs, ReadPemFileErrorsNameThePath) {
  auto r = tls::read_pem_file("/nonexistent/ca.crt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("/nonexistent/ca.crt"), std::string::npos);
}
