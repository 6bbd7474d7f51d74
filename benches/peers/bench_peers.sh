#!/usr/bin/env bash
# sphrigid beside two established SPH codes, on this machine, in one sitting:
#   - SPlisHSPlasH (DFSPH, pip package pysplishsplash): its own DamBreakModel scene, and the
#     tank and column of scenes/dam_break.toml (wall seconds per simulated second);
#   - NVIDIA Warp's SPH example on the CPU device (pip package warp-lang);
#   - sphrigid: `sphrigid bench scenes/dam_break.toml --backend cpu` and the wall time of
#     `sphrigid run scenes/dam_break.toml`.
# Particle-steps per second alone flatter methods that take small steps; the dam-break lines
# compare wall time per simulated second on the same tank and column.
#
# Usage: bash benches/peers/bench_peers.sh
#   SPACING=0.01 SIM_TIME=1.5   the matched dam break (scenes/dam_break.toml's values)
#   PEERS_VENV=DIR              where the peers are installed (default target/peers-venv)
#   SKIP_SPHRIGID=1             measure the peers only
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv=${PEERS_VENV:-$root/target/peers-venv}
spacing=${SPACING:-0.01}
sim_time=${SIM_TIME:-1.5}

if ! "$venv/bin/python" -c 'import warp, numpy, pysplishsplash' 2>/dev/null; then
  echo "installing the peers into $venv (once)" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q numpy pysplishsplash warp-lang >&2
  bash "$here/fix_splishsplash_gl.sh" "$venv"
fi

log=$(mktemp -d)
echo "log files: $log"

if "$venv/bin/python" "$here/splishsplash.py" model >"$log/model.txt" 2>&1; then
  tail -n 1 "$log/model.txt"
else
  echo "SPlisHSPlasH DamBreakModel: failed (see $log/model.txt)"
fi
if "$venv/bin/python" "$here/splishsplash.py" matched --spacing "$spacing" --time "$sim_time" \
  >"$log/matched.txt" 2>&1; then
  tail -n 1 "$log/matched.txt"
else
  echo "SPlisHSPlasH matched dam break: failed (see $log/matched.txt)"
fi
if "$venv/bin/python" "$here/warp_sph.py" >"$log/warp.txt" 2>&1; then
  tail -n 1 "$log/warp.txt"
else
  echo "Warp SPH: failed (see $log/warp.txt)"
fi

if [ -z "${SKIP_SPHRIGID:-}" ]; then
  cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
  bin=$root/target/release/sphrigid
  "$bin" bench "$root/scenes/dam_break.toml" --backend cpu | tail -n 3
  frames=$(awk -v t="$sim_time" 'BEGIN { printf "%d", t * 30 }')
  start=$(date +%s.%N)
  "$bin" run "$root/scenes/dam_break.toml" --backend cpu --quiet \
    --set liquid.0.spacing="$spacing" --frames "$frames" --out "$log/sphrigid_run" >"$log/run.txt" 2>&1
  end=$(date +%s.%N)
  n=$(sed -n 's/.*"particles": *\([0-9]*\).*/\1/p' "$log/sphrigid_run/manifest.json" | head -n 1)
  awk -v a="$start" -v b="$end" -v t="$sim_time" -v s="$spacing" -v n="$n" 'BEGIN {
    printf "sphrigid, scenes/dam_break.toml at spacing %s: %s particles, %.3f wall s per simulated s\n", s, n, (b - a) / t }'
fi
