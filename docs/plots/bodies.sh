#!/usr/bin/env bash
# Regenerate every image of the bodies half of docs/src/validation.md into
# docs/src/images/validation/bodies_*.png.
#
#     bash docs/plots/bodies.sh            # from the repository root
#
# Runs the scenes with target/release/sphrigid (built if missing) into target/plots/, draws
# them with `sphrigid figure`, and draws the overlays against theory with Python and
# matplotlib (`pip install matplotlib`). About six minutes of CPU time.
set -euo pipefail
cd "$(dirname "$0")/../.."

SPH=target/release/sphrigid
OUT=target/plots/bodies
IMG=docs/src/images/validation
[ -x "$SPH" ] || cargo build --release
mkdir -p "$OUT" "$IMG"

run() { # run OUT_NAME SCENE [sphrigid run options...]
    local name=$1 scene=$2
    shift 2
    "$SPH" run "$scene" --out "$OUT/$name" --overwrite --backend cpu --quiet "$@"
}

# --- The toppling block (scenes/toppling_block.toml), and ten times denser -------------------
# 90 frames (3 s), as tests/coupling/toppling.rs follows it.
run topple scenes/toppling_block.toml --frames 90
"$SPH" figure "$OUT/topple" --frames 0,6,8,9,11,90 -o "$OUT/topple/fig"
cp "$OUT/topple/fig/frames.png" "$IMG/bodies_toppling_frames.png"
run dense scenes/toppling_block.toml --set body.0.density=4000
"$SPH" figure "$OUT/dense" --frames 0,9,45 -o "$OUT/dense/fig"

# --- The block held back by a water column (tests/coupling/tipping.rs, spacing 0.005) --------
# The test's block and tank; the column settles before time 0 with the block held (the
# scene's settle), where the test holds the block for 0.3 s of coupled steps instead.
for f in 0.85 1.15; do
    depth=$(python3 -c "print(round($f * (3 * 2.5 * 0.04**2 * 0.16) ** (1 / 3), 5))")
    cat >"$OUT/tipping_$f.toml" <<EOF
gravity = [0, -9.81, 0]
[time]
fps = 50
frames = 50
[container]
min = [0, 0, 0]
max = [0.4, 0.3, 0.02]
[[liquid]]
min = [0, 0, 0]
max = [0.15, $depth, 0.02]
spacing = 0.005
viscosity = { sigma = 0.5, beta = 0.0 }
[[body]]
name = "block"
shape = { type = "box", size = [0.04, 0.16, 0.015] }
position = [0.17, 0.08, 0.01]
density = 2500
friction = 1.0
restitution = 0.0
EOF
    run "tipping_$f" "$OUT/tipping_$f.toml"
    "$SPH" figure "$OUT/tipping_$f" --frames 0,5,10,15 -o "$OUT/tipping_$f/fig"
done
cp "$OUT/tipping_1.15/fig/frames.png" "$IMG/bodies_tipping_frames.png"

# --- Flat boxes in an open tank (scenes/floating_box.toml, tests/coupling/buoyancy.rs) -------
for s in 0.3 0.5 0.7; do
    y0=$(python3 -c "print(round(0.096 + 0.024 - $s * 0.048, 6))")
    run "buoy_$s" scenes/floating_box.toml --set "body.0.density=$(python3 -c "print($s * 1000)")" \
        --set "body.0.position=[0.144,$y0,0.06]"
done

# --- A box in a slab five particles deep (tests/coupling/floating.rs) ------------------------
slab() { # slab NAME DENSITY_RATIO UNDERSIDE_Y SLAB BOX_Z GHOST FRAMES
    cat >"$OUT/$1.toml" <<EOF
[time]
fps = 60
frames = $7
[container]
min = [0, 0, 0]
max = [0.12, 0.08, $4]
ghost_pressure = $6
[[liquid]]
min = [0, 0, 0]
max = [0.12, 0.052, $4]
spacing = 0.0025
viscosity = { sigma = 10.0 }
[[body]]
name = "box"
shape = { type = "box", size = [0.04, 0.02, $5] }
position = [0.06, $(python3 -c "print(round($3 + 0.01, 6))"), $(python3 -c "print($4 / 2)")]
density = $(python3 -c "print($2 * 1000)")
friction = 0.0
EOF
    run "$1" "$OUT/$1.toml"
}
# The heave: released one Archimedes draft below its equilibrium, 0.9 s, with ghost pressure.
slab heave 0.5 0.032 0.0125 0.0125 true 54
slab heave_narrow 0.5 0.032 0.0125 0.0115 true 54
# The wet floor: released on one layer of liquid, 2 s (the test runs 3 s).
slab wet_0.5 0.5 0.0025 0.0125 0.0125 true 120
slab wet_0.8 0.8 0.0025 0.0125 0.0125 true 120

# --- Energy: honey on an elastic block, and the toppling scene with penalty coupling --------
run honey scenes/viscous_elastic.toml
run topple_penalty scenes/toppling_block.toml --frames 24 --set coupling.method=penalty

# --- The hinged gate at the resolution of tests/bodies/joints_gate.rs ------------------------------
run gate scenes/hinged_gate.toml --set liquid.0.spacing=0.025 --set body.0.spacing=0.01
"$SPH" figure "$OUT/gate" --frames 0,9,12,18,30,42 --body gate -o "$OUT/gate/fig"
cp "$OUT/gate/fig/frames.png" "$IMG/bodies_gate_frames.png"

# --- The hinged bar of tests/bodies/joints_pendulum.rs (3 degrees, dt = 1 ms), and the chain -------
cat >"$OUT/pendulum.toml" <<EOF
gravity = [0, -9.81, 0]
[time]
fps = 100
frames = 500
substeps = 10
[[body]]
name = "bar"
shape = { type = "box", size = [0.05, 0.3, 0.05] }
spacing = 0.025
position = [0.0078503934, -0.1497944303, 0]
orientation = { axis = [0, 0, 1], degrees = 3 }
[[joint]]
name = "pivot"
type = "hinge"
bodies = ["bar", "world"]
anchor = [0, 0, 0]
axis = [0, 0, 1]
EOF
run pendulum "$OUT/pendulum.toml"
run chain scenes/chain.toml

# --- The wrench in space (Dzhanibekov) ------------------------------------------------------
run wrench scenes/wrench_in_space.toml
python3 scenes/wrench_in_space_plot.py "$OUT/wrench/rigid_states.csv" wrench "$IMG/bodies_wrench_omega.png"

# --- Debris carried by a surge (scenes/debris.toml, src/sim/tests/debris.rs) ---------------
run debris scenes/debris.toml
"$SPH" figure "$OUT/debris" --frames 0,6,9,12,18,45 -o "$OUT/debris/fig"
cp "$OUT/debris/fig/frames.png" "$IMG/bodies_debris_frames.png"

# --- The plots against theory ---------------------------------------------------------------
python3 - "$OUT" "$IMG" <<'EOF'
import csv, math, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

out, img = sys.argv[1], sys.argv[2]

def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))

def col(rs, key):
    return [float(r[key]) for r in rs]

def save(fig, name):
    fig.tight_layout()
    fig.savefig(f"{img}/{name}", dpi=110)
    plt.close(fig)

# Toppling: tilt of the block and of the dense block.
fig, ax = plt.subplots(figsize=(7, 3.6))
for name, label in [("topple", "density 400 (the scene)"), ("dense", "density 4000")]:
    m = rows(f"{out}/{name}/fig/block_motion.csv")
    ax.plot(col(m, "time"), col(m, "tilt_deg"), ".-", label=label)
ax.axhspan(75, 105, color="0.9", label="the test's 90 +- 15 degrees (last 15 frames)")
ax.set_xlabel("time (s)"); ax.set_ylabel("tilt (degrees)"); ax.legend(); ax.grid(alpha=0.3)
ax.set_title("scenes/toppling_block.toml: the block's tilt")
save(fig, "bodies_toppling_tilt.png")

# Tipping: tilt after the release below and above the moment balance's depth.
hs = (3 * 2.5 * 0.04**2 * 0.16) ** (1 / 3)
fig, ax = plt.subplots(figsize=(7, 3.6))
for f in ["0.85", "1.15"]:
    m = rows(f"{out}/tipping_{f}/fig/block_motion.csv")
    ax.plot(col(m, "time"), col(m, "tilt_deg"), ".-", label=f"column {f} H* ({float(f) * hs:.3f} m)")
ax.axhline(20, color="k", lw=0.8, ls="--", label="the test: past 20 degrees above H*")
ax.axhline(2, color="k", lw=0.8, ls=":", label="the test: under 2 degrees below H*")
ax.set_xlabel("time after the release (s)"); ax.set_ylabel("tilt (degrees)")
ax.set_title(f"block b = 0.04 m, h = 0.16 m, s = 2.5: H* = (3 s b^2 h)^(1/3) = {hs:.3f} m")
ax.legend(); ax.grid(alpha=0.3)
save(fig, "bodies_tipping_tilt.png")

def underside(name, h, body="box"):
    rs = [r for r in rows(f"{out}/{name}/rigid_states.csv") if r["body"] == body]
    return col(rs, "time"), [float(r["y"]) - h / 2 for r in rs]

# Open tank: the underside against Archimedes' draft under the initial surface.
fig, ax = plt.subplots(figsize=(7, 3.6))
for i, s in enumerate(["0.3", "0.5", "0.7"]):
    t, y = underside(f"buoy_{s}", 0.048)
    ax.plot(t, y, label=f"s = {s}", color=f"C{i}")
    ax.axhline(0.096 - float(s) * 0.048, color=f"C{i}", ls="--", lw=0.8)
ax.set_xlabel("time (s)"); ax.set_ylabel("underside height (m)")
ax.set_title("scenes/floating_box.toml: underside; dashed: 0.096 m - s h (Archimedes)")
ax.legend(); ax.grid(alpha=0.3)
save(fig, "bodies_buoyancy_underside.png")

# Slab: the heave released one draft below, about the run's own equilibrium (its mean over
# frames 10 to 54, as the test takes it); dotted: the extremes that the added-mass period puts
# after the first peak.
B, H, Z, s = 0.04, 0.02, 0.0125, 0.5
m = s * 1000 * B * H * Z
added = 1000 * math.pi * B * B * Z / 8
T = 2 * math.pi * math.sqrt((m + added) / (1000 * 9.81 * B * Z))
fig, ax = plt.subplots(figsize=(7, 3.6))
for name, label in [("heave", "spanning the slab"), ("heave_narrow", "1 mm shallower than the slab")]:
    t, y = underside(name, H)
    eq = sum(y[9:]) / len(y[9:])
    ax.plot(t, [1000 * (v - eq) for v in y], ".-", label=label)
    if name == "heave":
        peak = t[max(range(len(y)), key=lambda i: y[i])]
k = 0
while peak + k * T / 2 <= t[-1]:
    ax.axvline(peak + k * T / 2, color="0.5", ls=":", lw=0.9,
               label=f"extremes at the added-mass period, {T:.3f} s" if k == 0 else None)
    k += 1
ax.axhline(0, color="k", lw=0.6)
ax.set_xlabel("time (s)"); ax.set_ylabel("underside - its equilibrium (mm)")
ax.set_title("box s = 0.5 released one draft below, slab five particles deep, ghost pressure", fontsize=10)
ax.legend(fontsize=8, loc="lower right"); ax.grid(alpha=0.3)
save(fig, "bodies_heave.png")

# Wet floor: lift-off from one layer of liquid. Dashed: Archimedes' equilibrium with the
# liquid at its rest density (its volume, less the box's removed at setup, conserved).
area = 0.12 * 0.052 - B * H
fig, ax = plt.subplots(figsize=(7, 3.6))
for i, s in enumerate(["0.5", "0.8"]):
    t, y = underside(f"wet_{s}", H)
    ax.plot(t, [v / 0.0025 for v in y], label=f"s = {s}", color=f"C{i}")
    surface = (area + float(s) * B * H) / 0.12
    ax.axhline((surface - float(s) * H) / 0.0025, color=f"C{i}", ls="--", lw=0.8)
ax.set_xlabel("time (s)"); ax.set_ylabel("underside height (spacings)")
ax.set_title("box released on one layer of liquid; dashed: Archimedes at rest density", fontsize=10)
ax.legend(); ax.grid(alpha=0.3)
save(fig, "bodies_wet_floor.png")

# Energy over its start: the toppling scene (LCP, penalty) and honey on an elastic block.
fig, ax = plt.subplots(figsize=(7, 3.6))
for name, label in [("topple", "toppling block, LCP"), ("topple_penalty", "toppling block, penalty"),
                    ("honey", "honey on an elastic block")]:
    r = rows(f"{out}/{name}/run_metrics.csv")
    e = col(r, "energy")
    ax.plot(col(r, "time"), [v / e[0] for v in e], label=label)
ax.axhline(1.05, color="k", ls="--", lw=0.8, label="the sweep's bound, 1.05")
ax.axhline(1.01, color="k", ls=":", lw=0.8, label="the honey test's bound, 1.01")
ax.set_xlabel("time (s)"); ax.set_ylabel("energy / energy at frame 0")
ax.set_title("mechanical energy (kinetic + potential, liquid and bodies)")
ax.legend(fontsize=8); ax.grid(alpha=0.3)
save(fig, "bodies_energy.png")

# Gate: hinge angle and the hinge's errors.
j = rows(f"{out}/gate/joint_errors.csv")
fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4))
a1.plot(col(j, "time"), [math.degrees(v) for v in col(j, "angle")], ".-")
a1.axhline(0, color="k", lw=0.8, ls="--"); a1.axhline(110, color="k", lw=0.8, ls="--")
a1.set_xlabel("time (s)"); a1.set_ylabel("hinge angle (degrees)"); a1.set_title("gate angle, limits 0 and 110")
a1.grid(alpha=0.3)
a2.semilogy(col(j, "time"), [max(v, 1e-20) for v in col(j, "separation")], label="anchor separation (m)")
a2.semilogy(col(j, "time"), [max(v, 1e-20) for v in col(j, "misalignment")], label="axis misalignment (rad)")
a2.set_xlabel("time (s)"); a2.set_title("hinge errors per frame (zeros drawn at 1e-20)"); a2.legend(fontsize=8); a2.grid(alpha=0.3)
save(fig, "bodies_gate.png")

# Pendulum: the hinge angle against the finite-amplitude period.
th0 = math.radians(3)
I = (0.05**2 + 0.3**2) / 12 + 0.15**2
T0 = 2 * math.pi * math.sqrt(I / (9.81 * 0.15))
T = T0 * (1 + th0**2 / 16 + 11 * th0**4 / 3072)
j = rows(f"{out}/pendulum/joint_errors.csv")
t = col(j, "time")
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.plot(t, [math.degrees(a + th0) for a in col(j, "angle")], ".", ms=3, label="sphrigid, per frame")
tt = [i * t[-1] / 2000 for i in range(2001)]
ax.plot(tt, [3 * math.cos(2 * math.pi * x / T) for x in tt], lw=0.8,
        label=f"3 cos(2 pi t / T), T = {T:.5f} s")
ax.set_xlabel("time (s)"); ax.set_ylabel("angle (degrees)")
ax.set_title("bar 0.05 x 0.3 x 0.05 m hinged at its top, released at 3 degrees")
ax.set_ylim(-3.6, 4.4); ax.legend(fontsize=8, loc="upper center", ncol=2); ax.grid(alpha=0.3)
save(fig, "bodies_pendulum.png")

# Chain: the largest anchor separation of its six ball joints, per frame.
j = rows(f"{out}/chain/joint_errors.csv")
frames = sorted({int(r["frame"]) for r in j})
sep = {f: 0.0 for f in frames}
for r in j:
    sep[int(r["frame"])] = max(sep[int(r["frame"])], float(r["separation"]))
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.semilogy([f / 50 for f in frames], [max(sep[f], 1e-20) for f in frames], ".", ms=3)
ax.set_xlabel("time (s)"); ax.set_ylabel("largest anchor separation (m)")
ax.set_title("scenes/chain.toml: six ball joints, 10,000 steps (zeros drawn at 1e-20)")
ax.grid(alpha=0.3)
save(fig, "bodies_chain.png")
EOF
ls -1 "$IMG"/bodies_*.png
