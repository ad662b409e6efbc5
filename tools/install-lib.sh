#!/bin/sh
# SPDX-License-Identifier: MIT
# install-lib.sh - install qphys as a library (make install PREFIX=... [DESTDIR=...]).
#
#   sh tools/install-lib.sh PREFIX LIB FIXMATH_DIR VERSION
#
# Writes, under $DESTDIR$PREFIX:
#   include/qphys/*.h                   the public headers
#   include/qphys/libfixmath/fix16.h    libfixmath's headers (fix16.h includes fix16.hpp from C++),
#                 fix16.hpp             beside ours so that no other libfixmath is picked up
#   lib/libqphys.a                      the core and libfixmath's objects, built with the pinned
#                                       configuration (FIXMATH_NO_CACHE)
#   lib/pkgconfig/qphys.pc              Cflags carry the include folders and -DFIXMATH_NO_CACHE
#   lib/cmake/qphys/qphysConfig.cmake   find_package(qphys): the imported target qphys::qphys
#   lib/cmake/qphys/qphysConfigVersion.cmake
#   share/doc/qphys/LICENSE             qphys's license (MIT)
#   share/doc/qphys/LICENSE.libfixmath  libfixmath's (MIT), whose objects libqphys.a carries and
#   include/qphys/libfixmath/LICENSE    whose headers are installed: its notice travels with them
# The CMake files locate the prefix from their own folder, so the tree can be moved.
set -eu
[ $# = 4 ] || { echo "usage: sh tools/install-lib.sh PREFIX LIB FIXMATH_DIR VERSION" >&2; exit 2; }
prefix=$1 lib=$2 fixdir=$3 version=$4
case $prefix in /*) ;; *) echo "install-lib: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;; esac
root=${DESTDIR:-}$prefix
[ -f "$lib" ] || { echo "install-lib: $lib is missing (make builds it)" >&2; exit 2; }
fixlicense=$fixdir/../LICENSE
[ -f "$fixlicense" ] || { echo "install-lib: $fixlicense is missing (libfixmath's MIT notice)" >&2; exit 2; }
mkdir -p "$root/include/qphys/libfixmath" "$root/lib/pkgconfig" "$root/lib/cmake/qphys" "$root/share/doc/qphys"
cp include/qphys/*.h "$root/include/qphys/"
cp "$fixdir/fix16.h" "$fixdir/fix16.hpp" "$root/include/qphys/libfixmath/"
cp "$fixlicense" "$root/include/qphys/libfixmath/LICENSE"
cp LICENSE "$root/share/doc/qphys/LICENSE"
cp "$fixlicense" "$root/share/doc/qphys/LICENSE.libfixmath"
cp "$lib" "$root/lib/libqphys.a"

cat >"$root/lib/pkgconfig/qphys.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: qphys
Description: deterministic 3D rigid-body physics in Q16.16 fixed point (libfixmath included)
Version: $version
Cflags: -I\${includedir} -I\${includedir}/qphys/libfixmath -DFIXMATH_NO_CACHE
Libs: -L\${libdir} -lqphys
PC

cat >"$root/lib/cmake/qphys/qphysConfig.cmake" <<'CM'
# qphys: find_package(qphys) gives the imported static library qphys::qphys
# (the core and libfixmath; headers and the pinned FIXMATH_NO_CACHE come with it).
get_filename_component(_qphys_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET qphys::qphys)
  add_library(qphys::qphys STATIC IMPORTED)
  set_target_properties(qphys::qphys PROPERTIES
    IMPORTED_LOCATION "${_qphys_prefix}/lib/libqphys.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES C
    INTERFACE_INCLUDE_DIRECTORIES "${_qphys_prefix}/include;${_qphys_prefix}/include/qphys/libfixmath"
    INTERFACE_COMPILE_DEFINITIONS FIXMATH_NO_CACHE)
endif()
unset(_qphys_prefix)
CM

cat >"$root/lib/cmake/qphys/qphysConfigVersion.cmake" <<CM
# find_package(qphys X.Y): any installed version with the same major number and at least X.Y.
set(PACKAGE_VERSION "$version")
if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_FIND_VERSION_MAJOR STREQUAL "${version%%.*}" AND NOT PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
else()
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
endif()
CM
echo "install-lib: qphys $version in $root (include/qphys, lib/libqphys.a, lib/pkgconfig/qphys.pc, lib/cmake/qphys, share/doc/qphys)"
