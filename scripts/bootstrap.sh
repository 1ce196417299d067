#!/usr/bin/env bash
# Installs every Debian 12 package that building, testing and running ksched needs.
# Idempotent: when everything is already installed it only says so; otherwise it runs
# `apt-get update` first and installs by package name. Must run as root (or via sudo).
set -euo pipefail

PACKAGES=(
  build-essential g++ cmake ninja-build pkg-config git make
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev libboost-system1.81-dev
  libssl-dev zlib1g-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev libsimdjson-dev
  libgoogle-perftools-dev
  clang libclang-rt-14-dev clang-format clang-tidy lld
  python3 python3-kubernetes python3-yaml
  openssl curl procps gnuplot-nox
  etcd-server etcd-client libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# kubectl: use the machine's if present, Debian's kubernetes-client otherwise.
if ! command -v kubectl >/dev/null 2>&1; then
  missing+=(kubernetes-client)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
