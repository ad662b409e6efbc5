#!/bin/sh
# SPDX-License-Identifier: MIT
# with-ccache.sh CMD...: run CMD with ccache's masquerading compilers first in PATH and the
# cache in build/ccache-host, when ccache is installed (tools/deps.sh installs it); else CMD as
# it is. make run and make test build the host through it, so that make test's fresh-clone
# check (tests/scripts/test-fresh-clone.sh), which compiles the same sources with the same
# flags, takes their objects from the cache whichever of the two built the tree first.
if command -v ccache >/dev/null 2>&1 && [ -x /usr/lib/ccache/gcc ]; then
  PATH="/usr/lib/ccache:$PATH" CCACHE_DIR="$(pwd)/build/ccache-host" CCACHE_MAXSIZE=256M exec "$@"
fi
exec "$@"
