#!/usr/bin/env bash
# The test command: installs what the tests need on a fresh Debian machine (lavapipe for the GPU
# tests, GNU parallel for the sweep test, meshio, usd-core and Blender's bpy for the export and
# add-on tests), then runs every test, the quick tier and the validation tier, for real:
# a test whose client is missing fails rather than skips. `.ci/run` calls this script.
#
# Usage: bash scripts/test.sh [extra arguments for the test binaries, e.g. a test name filter]
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
need=()
# mesa-vulkan-drivers and libvulkan1: lavapipe, the GPU backend's adapter on a machine without
# a GPU; python3-venv and the X libraries that Blender's bpy module links to (it opens no
# display); GNU parallel (Debian's `parallel`) runs a sweep's jobs.txt in tests/output/sweep_jobs.rs.
for pkg in mesa-vulkan-drivers libvulkan1 python3-venv libx11-6 libxrender1 libxfixes3 libxi6 \
  libxkbcommon0 parallel; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
# The Python readers the export and Blender tests run: meshio, usd-core and Blender 5.0.1's bpy
# (Python 3.11), in a venv under target/ that later runs reuse (bpy is about 300 MB).
PYENV=target/pyenv
if ! "$PYENV/bin/python" -c "import meshio, pxr, bpy" >/dev/null 2>&1; then
  rm -rf "$PYENV"
  "$(command -v python3.11 || command -v python3)" -m venv "$PYENV"
  "$PYENV/bin/pip" install -q --disable-pip-version-check \
    meshio==5.3.5 numpy==1.26.4 usd-core==26.11 bpy==5.0.1
fi
export SPHRIGID_PYTHON="$PWD/$PYENV/bin/python"
# Mesa's device-select layer prints a warning on every adapter query without a runtime dir.
export NODEVICE_SELECT=1
# Every client is installed above, so a test that still finds one missing fails instead of
# skipping: the GPU tests (lavapipe), the sweep test (GNU parallel), the Python readers.
export SPHRIGID_REQUIRE_GPU=1 SPHRIGID_REQUIRE_PARALLEL=1 SPHRIGID_REQUIRE_PYTHON=1
# Every test target is built first, then two cargo runs share the two cores: the coupling
# binary (the validation tier's longest, about half of the tests' time) beside all the others
# (unit tests, the other binaries, the doc examples). Each binary alone leaves a core idle for
# about a tenth of its time (its serial steps, its last test); side by side they fill it. The
# coupling binary's output follows the others' when both are done; the status is 1 if either
# failed.
cargo test --locked --no-run
others=(--lib --bins)
shopt -s nullglob
for t in tests/*/main.rs tests/*.rs; do
  name=$(basename "$(dirname "$t")")
  [ "$name" = tests ] && name=$(basename "$t" .rs)
  [ "$name" = coupling ] || others+=(--test "$name")
done
mkdir -p target/test-logs
coupling_log=target/test-logs/coupling.log
# In a process group of its own (job control on for this one fork), so that an interrupted or
# failed script stops the coupling run and its test binary with it.
set -m
cargo test --locked --test coupling -- --include-ignored "$@" >"$coupling_log" 2>&1 &
coupling=$!
set +m
trap 'kill -- -"$coupling" 2>/dev/null || true' EXIT
status=0
cargo test --locked "${others[@]}" -- --include-ignored "$@" || status=1
cargo test --locked --doc -- --include-ignored "$@" || status=1
wait "$coupling" || status=1
trap - EXIT
echo "---- the coupling binary (tests/coupling), run beside the others ----"
cat "$coupling_log"
exit "$status"
