#!/usr/bin/env bash
# The test command: installs what the tests need on a fresh Debian machine (lavapipe for the GPU
# tests, GNU parallel for this script's jobs and the sweep test, meshio, usd-core and Blender's
# bpy for the export and add-on tests), then runs every test, the quick tier and the validation
# tier, for real: a test whose client is missing fails rather than skips. `.ci/run` calls it.
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
# display); GNU parallel (Debian's `parallel`) runs the test jobs below and a sweep's jobs.txt
# in tests/output/sweep_jobs.rs.
for pkg in mesa-vulkan-drivers libvulkan1 python3-venv libx11-6 libxrender1 libxfixes3 libxi6 \
  libxkbcommon0 parallel; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
# The Python readers the export and Blender tests run: meshio, usd-core and Blender 5.0.1's bpy
# (Python 3.11), in a venv under target/ that later runs reuse (bpy is about 300 MB). A fresh
# install (a download, then unpacking) runs beside the build below, which waits for it
# (`python_ready`) before any test runs; its output goes to target/pyenv-install.log.
PYENV=target/pyenv
python_pid=
if ! "$PYENV/bin/python" -c "import meshio, pxr, bpy" >/dev/null 2>&1; then
  rm -rf "$PYENV"
  mkdir -p target
  (
    "$(command -v python3.11 || command -v python3)" -m venv "$PYENV"
    "$PYENV/bin/pip" install -q --disable-pip-version-check \
      meshio==5.3.5 numpy==1.26.4 usd-core==26.11 bpy==5.0.1
  ) >target/pyenv-install.log 2>&1 &
  python_pid=$!
fi
python_ready() {
  if [ -n "$python_pid" ] && ! wait "$python_pid"; then
    cat target/pyenv-install.log >&2
    echo "error: installing the Python readers into $PYENV failed (log above)" >&2
    exit 1
  fi
  python_pid=
}
export SPHRIGID_PYTHON="$PWD/$PYENV/bin/python"
# Mesa's device-select layer prints a warning on every adapter query without a runtime dir.
export NODEVICE_SELECT=1
# Every client is installed above, so a test that still finds one missing fails instead of
# skipping: the GPU tests (lavapipe), the sweep test (GNU parallel), the Python readers.
export SPHRIGID_REQUIRE_GPU=1 SPHRIGID_REQUIRE_PARALLEL=1 SPHRIGID_REQUIRE_PYTHON=1
# With arguments (a test name filter, `--nocapture`, ...): one cargo run of every target.
if [ $# -gt 0 ]; then
  cargo test --locked --no-run
  python_ready
  exec cargo test --locked -- --include-ignored "$@"
fi
# The full run: every target is built first (the benches and the example as well, so that a lint run
# inside the build, as `.ci/run` does, sees them all); then the tests run as jobs of GNU parallel,
# two at a time on the two cores, each job on one thread of rayon (RAYON_NUM_THREADS=1). On a
# machine this small a simulation split over both cores spends a tenth more CPU time than the same
# steps on one (the workers' waits and the chunks' imbalance: the whole suite took 1,650 core
# seconds on one thread each against 1,830 on two), and the jobs side by side fill both cores
# anyway. The jobs are the test binaries, but the coupling binary (half of the validation tier's
# time) is one job per test; the longest come first, so that the two lanes end within about one
# short job of each other. The lanes' order below is from each job's time in one sitting
# (`--report-time` on the test binaries); a test or binary it does not name runs after those it
# names. The determinism tests (`tests/output/determinism.rs`, the neighbour lists' scatter) build
# their own pools of 2 to 5 threads, so the parallel paths still run; `cargo test` alone runs
# everything on every core.
cargo test --locked --no-run --all-targets
python_ready
shopt -s nullglob
binaries=()
for t in tests/*/main.rs tests/*.rs; do
  name=$(basename "$(dirname "$t")")
  [ "$name" = tests ] && name=$(basename "$t" .rs)
  [ "$name" = coupling ] || binaries+=("$name")
done
mapfile -t coupling < <(cargo test --locked -q --test coupling -- --list --include-ignored \
  2>/dev/null | sed -n 's/: test$//p')
# Longest first, as one sitting measured them (seconds of each job, two side by side, in the
# CI run of 2026-12-08): the wet floor 287, liquid 142, the penalty sweep 124, bodies 122, the
# unit tests 121, the LCP sweep 120, eight particles across 119, cli 95, the 1 mm tank 81, gpu 78
# (on nearly both cores), tipping 65; everything after is 40 or less.
order=(
  "coupling floating::a_buoyant_box_on_a_wet_floor_lifts_off_and_floats"
  "test liquid"
  "coupling stability_sweep::the_penalty_coupling_is_stable_across_viscosity_restitution_and_time_step"
  "test bodies" "lib"
  "coupling stability_sweep::the_lcp_coupling_is_stable_across_viscosity_restitution_and_time_step"
  "coupling buoyancy::flat_boxes_float_at_their_density_ratio_with_8_particles_across"
  "test cli"
  "coupling floating::in_a_tank_1_mm_wider_than_the_box_it_floats_at_archimedes_draft"
  "test gpu"
  "coupling tipping::the_block_stands_below_the_tipping_depth_and_tips_above_it"
  "coupling floating::with_ghost_pressure_a_floating_box_oscillates_about_its_equilibrium"
  "coupling buoyancy::flat_boxes_float_at_their_density_ratio_with_6_particles_across"
  "coupling loads::loads_in_a_still_tank_are_its_hydrostatics"
  "test output"
)
jobs=()
named() { local j; for j in "${order[@]}"; do [ "$j" = "$1" ] && return 0; done; return 1; }
for j in "${order[@]}"; do
  case $j in
    "coupling "*) printf '%s\n' "${coupling[@]}" | grep -qxF "${j#coupling }" && jobs+=("$j") ;;
    "test "*) [ -e "tests/${j#test }/main.rs" ] || [ -e "tests/${j#test }.rs" ] && jobs+=("$j") ;;
    *) jobs+=("$j") ;;
  esac
done
for t in "${coupling[@]}"; do named "coupling $t" || jobs+=("coupling $t"); done
for b in "${binaries[@]}"; do named "test $b" || jobs+=("test $b"); done
jobs+=("bins" "doc")
# One job: its cargo run, its output in one piece (GNU parallel groups it), and its time.
run_job() {
  local start=$SECONDS status=0
  case $1 in
    "coupling "*) cargo test --locked --test coupling -- --include-ignored --exact "${1#coupling }" || status=$? ;;
    "test "*) cargo test --locked --test "${1#test }" -- --include-ignored || status=$? ;;
    lib) cargo test --locked --lib -- --include-ignored || status=$? ;;
    bins) cargo test --locked --bins -- --include-ignored || status=$? ;;
    doc) cargo test --locked --doc || status=$? ;;
  esac
  echo "---- job '$1': $((SECONDS - start)) s, status $status ----"
  return "$status"
}
export -f run_job
# The exit status is the number of failed jobs (0: every test passed); every job runs.
printf '%s\n' "${jobs[@]}" | RAYON_NUM_THREADS=1 parallel --will-cite -j2 --group run_job {}
