// X.509 material generated at start-up: a CA and serving certificates for the embedded API server
// and the scheduler's secure port (upstream generates an in-memory self-signed pair when no
// --tls-cert-file is given). ECDSA P-256 keys: fast to make, accepted by Go, Python and OpenSSL.
#pragma once
#include <string>
#include <vector>

#include "util/result.h"

namespace ksched::tls {

struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

// A self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign).
util::Result<KeyPair> generate_ca(const std::string& common_name, int valid_days = 365);

// A certificate signed by `ca` for the given DNS names and IP addresses (serverAuth + clientAuth).
util::Result<KeyPair> generate_signed(const KeyPair& ca, const std::string& common_name,
                                      const std::vector<std::string>& dns_names,
                                      const std::vector<std::string>& ip_addresses,
                                      const std::vector<std::string>& organizations = {}, int valid_days = 365);

// Upstream's self-signed serving pair: a throwaway CA plus a certificate for `host`,
// localhost and 127.0.0.1. Returns the serving cert followed by the CA in cert_pem (a chain).
util::Result<KeyPair> generate_self_signed_serving(const std::string& host);

// Reads a PEM file whole; clear error naming the path when it is missing or empty.
util::Result<std::string> read_pem_file(const std::string& path);

}  // namespace ksched::tls
