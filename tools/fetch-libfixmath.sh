#!/bin/sh
# SPDX-License-Identifier: MIT
# Fetch libfixmath's source from Debian's source package into build/deps, verify
# its checksum and unpack it. The system's apt configuration is never touched:
# apt is pointed at a private source list and private state directories.
set -eu
dest=${1:-build/deps}
tarball=libfixmath_0~20220222.orig.tar.xz
sha256=38a93f38bcf2b6fbc00bfc4e10905f8f012cc72943ec5eed69a459c3bc0349e0
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [ -f "$dest/libfixmath/libfixmath/fix16.c" ]; then exit 0; fi
if [ ! -f "$dest/$tarball" ]; then
  work="$dest/apt"
  mkdir -p "$work/lists/partial" "$work/archives/partial"
  # Reuse the URI of the Debian archive this machine already uses.
  uri=$(apt-get indextargets --format '$(URI)' 'Created-By: Packages' 2>/dev/null \
        | sed -n 's#^\(.*/debian\)/dists/.*#\1#p' | grep -v security | head -n 1)
  suite=$(apt-get indextargets --format '$(CODENAME)' 'Created-By: Packages' 2>/dev/null | head -n 1)
  [ -n "$suite" ] || suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
  if [ -z "$uri" ]; then
    echo "fetch-libfixmath: no Debian archive configured; set LIBFIXMATH_SRC=dir" >&2; exit 1
  fi
  echo "deb-src [trusted=yes] $uri $suite main" > "$work/sources.list"
  opts="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=/nonexistent \
        -o Dir::State::Lists=$work/lists -o Dir::Cache::Archives=$work/archives -o Debug::NoLocking=1 \
        -o APT::Sandbox::User=root"
  apt-get $opts -qq update >/dev/null
  (cd "$dest" && apt-get $opts -qq source --download-only libfixmath >/dev/null 2>&1) || true
  if [ ! -f "$dest/$tarball" ]; then
    echo "fetch-libfixmath: could not download $tarball" >&2; exit 1
  fi
fi
echo "$sha256  $dest/$tarball" | sha256sum -c --quiet - || {
  echo "fetch-libfixmath: checksum mismatch for $tarball" >&2; exit 1; }
# The tarball has no top-level folder (the sources sit at its root).
rm -rf "$dest/libfixmath" && mkdir -p "$dest/libfixmath"
tar -xJf "$dest/$tarball" -C "$dest/libfixmath"
echo "fetch-libfixmath: libfixmath source in $dest/libfixmath"
