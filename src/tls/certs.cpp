#include "tls/certs.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <memory>
#include <sstream>

namespace ksched::tls {
namespace {

template <class T, void (*F)(T*)>
struct Deleter {
  void operator()(T* p) const { F(p); }
};
using PKeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

std::string openssl_error(const char* what) {
  unsigned long e = ERR_get_error();
  char buf[256] = {0};
  if (e != 0) ERR_error_string_n(e, buf, sizeof buf);
  return std::string(what) + (e ? std::string(": ") + buf : std::string());
}

PKeyPtr make_key() { return PKeyPtr(EVP_EC_gen("P-256")); }

std::string to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

std::string to_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

X509Ptr parse_cert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

PKeyPtr parse_key(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return PKeyPtr(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

bool add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

X509Ptr new_cert(EVP_PKEY* key, const std::string& cn, const std::vector<std::string>& orgs, int days) {
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60 * 60);  // tolerate small clock skew
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 24 * 60 * 60);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const auto& o : orgs) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1,
                               0);
  }
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                             0);
  return cert;
}

}  // namespace

util::Result<KeyPair> generate_ca(const std::string& common_name, int valid_days) {
  PKeyPtr key = make_key();
  if (!key) return util::make_error(openssl_error("generating CA key"));
  X509Ptr cert = new_cert(key.get(), common_name, {}, valid_days);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  if (!add_ext(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE") ||
      !add_ext(cert.get(), cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign") ||
      !add_ext(cert.get(), cert.get(), NID_subject_key_identifier, "hash")) {
    return util::make_error(openssl_error("adding CA extensions"));
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return util::make_error(openssl_error("signing CA"));
  return KeyPair{to_pem(cert.get()), to_pem(key.get())};
}

util::Result<KeyPair> generate_signed(const KeyPair& ca, const std::string& common_name,
                                      const std::vector<std::string>& dns_names,
                                      const std::vector<std::string>& ip_addresses,
                                      const std::vector<std::string>& organizations, int valid_days) {
  X509Ptr ca_cert = parse_cert(ca.cert_pem);
  PKeyPtr ca_key = parse_key(ca.key_pem);
  if (!ca_cert || !ca_key) return util::make_error(openssl_error("parsing CA certificate or key"));
  PKeyPtr key = make_key();
  if (!key) return util::make_error(openssl_error("generating key"));
  X509Ptr cert = new_cert(key.get(), common_name, organizations, valid_days);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  std::string san;
  for (const auto& d : dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + d;
  for (const auto& ip : ip_addresses) san += (san.empty() ? "IP:" : ",IP:") + ip;
  if (!add_ext(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !add_ext(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !add_ext(cert.get(), ca_cert.get(), NID_ext_key_usage, "serverAuth,clientAuth") ||
      !add_ext(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always") ||
      (!san.empty() && !add_ext(cert.get(), ca_cert.get(), NID_subject_alt_name, san))) {
    return util::make_error(openssl_error("adding certificate extensions"));
  }
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) {
    return util::make_error(openssl_error("signing certificate"));
  }
  return KeyPair{to_pem(cert.get()), to_pem(key.get())};
}

util::Result<KeyPair> generate_self_signed_serving(const std::string& host) {
  auto ca = generate_ca(host + "-ca@self-signed");
  if (!ca) return util::make_error(ca.error());
  std::vector<std::string> dns{"localhost"};
  if (!host.empty() && host != "localhost") dns.push_back(host);
  auto serving = generate_signed(*ca, host + "@self-signed", dns, {"127.0.0.1"});
  if (!serving) return util::make_error(serving.error());
  serving->cert_pem += ca->cert_pem;
  return serving;
}

util::Result<std::string> read_pem_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::make_error("open " + path + ": no such file or not readable");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.find("-----BEGIN") == std::string::npos) {
    return util::make_error(path + ": no PEM data found");
  }
  return s;
}

}  // namespace ksched::tls
