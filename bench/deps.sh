#!/bin/sh
# SPDX-License-Identifier: MIT
# What the peer benchmarks need on a Debian machine: ODE and Bullet (with their
# headers), a C++ compiler and pkg-config, and cmake when JOLT_SRC names a Jolt source tree. Installs them with apt-get when it may
# (root, or sudo without a password), like tools/deps.sh; otherwise prints the command.
set -eu
need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
have_cmd g++ || need="$need g++"
have_cmd pkg-config || need="$need pkg-config"
have_pkg libode-dev || need="$need libode-dev"
have_pkg libbullet-dev || need="$need libbullet-dev"
[ -z "${JOLT_SRC:-}" ] || have_cmd cmake || need="$need cmake"
[ -z "$need" ] && exit 0
cmd="apt-get install -y --no-install-recommends$need"
if [ "$(id -u)" = 0 ]; then sudo=""; elif have_cmd sudo && sudo -n true 2>/dev/null; then sudo="sudo"; else
  echo "bench/deps: missing:$need" >&2
  echo "bench/deps: run: sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "bench/deps: installing$need" >&2
$sudo apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo $cmd -qq >/dev/null
