#!/usr/bin/env bash
# The pysplishsplash wheel ships its own copies of libGLdispatch, libGLX and libOpenGL. Where
# the system has its own (Mesa, installed for lavapipe), loading both crashes the import, so
# the wheel's copies are replaced by the system's. Usage: fix_splishsplash_gl.sh VENV
set -euo pipefail
venv=$1
libs=$("$venv/bin/python" -c 'import site; print(site.getsitepackages()[0])')/pysplishsplash.libs
[ -d "$libs" ] || exit 0
for name in libGLdispatch libGLX libOpenGL; do
  system=/lib/x86_64-linux-gnu/$name.so.0
  [ -f "$system" ] || continue
  for bundled in "$libs"/"$name"-*.so*; do
    [ -f "$bundled" ] && cp "$system" "$bundled"
  done
done
exit 0
