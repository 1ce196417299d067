// Self-signed CA and a serving certificate for 127.0.0.1/localhost, generated at start.
#pragma once
#include <string>

#include "util/result.h"

namespace ksched::apiserver {

struct ServingCerts {
  std::string ca_pem;
  std::string cert_pem;  // serving cert
  std::string key_pem;   // serving key
};

util::Result<ServingCerts> generate_serving_certs();

}  // namespace ksched::apiserver
