#include "apiserver/certs.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace ksched::apiserver {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;

std::string pem_of(X509* c) {
  std::unique_ptr<BIO, Free> b(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(b.get(), c);
  char* data;
  long n = BIO_get_mem_data(b.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string pem_of(EVP_PKEY* k) {
  std::unique_ptr<BIO, Free> b(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(b.get(), k, nullptr, nullptr, 0, nullptr, nullptr);
  char* data;
  long n = BIO_get_mem_data(b.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

bool add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (!ext) return false;
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return true;
}

Cert make_cert(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key, bool ca) {
  Cert c(X509_new());
  X509_set_version(c.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(c.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c.get()), 60L * 60 * 24 * 365);
  X509_set_pubkey(c.get(), key);
  X509_NAME* name = X509_get_subject_name(c.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
  X509_set_issuer_name(c.get(), issuer ? X509_get_subject_name(issuer) : name);
  X509* iss = issuer ? issuer : c.get();
  if (ca) {
    add_ext(c.get(), iss, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(c.get(), iss, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
    add_ext(c.get(), iss, NID_subject_key_identifier, "hash");
  } else {
    add_ext(c.get(), iss, NID_basic_constraints, "critical,CA:FALSE");
    add_ext(c.get(), iss, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    add_ext(c.get(), iss, NID_ext_key_usage, "serverAuth");
    add_ext(c.get(), iss, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
    add_ext(c.get(), iss, NID_authority_key_identifier, "keyid:always");
  }
  if (!X509_sign(c.get(), issuer_key ? issuer_key : key, EVP_sha256())) return nullptr;
  return c;
}

}  // namespace

util::Result<ServingCerts> generate_serving_certs() {
  Key ca_key(EVP_EC_gen("P-256"));
  Key srv_key(EVP_EC_gen("P-256"));
  if (!ca_key || !srv_key) return util::make_error("generating TLS keys failed");
  Cert ca = make_cert(ca_key.get(), "ksched-ca", nullptr, nullptr, true);
  if (!ca) return util::make_error("signing the CA certificate failed");
  Cert srv = make_cert(srv_key.get(), "ksched-apiserver", ca.get(), ca_key.get(), false);
  if (!srv) return util::make_error("signing the serving certificate failed");
  return ServingCerts{pem_of(ca.get()), pem_of(srv.get()), pem_of(srv_key.get())};
}

}  // namespace ksched::apiserver
